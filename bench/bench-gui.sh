#!/bin/bash
# bench-gui.sh: the window's time to first frame and main-loop stalls.
#
# Usage: bench/bench-gui.sh [BENCH_GUI] [WORKDIR]
#   BENCH_GUI defaults to _build/release/bench/bench-gui (then _build/bench/...);
#   WORKDIR (default: a fresh mktemp -d under /tmp) is deleted at the end
#   unless given.
#
# Writes two sparse models with bench/make_gui_fixtures.py:
#   (a) a Llama-3.2-3B-shaped Safetensors checkpoint, 2 shards, 6.4 GB;
#   (b) a GGUF v3 with 50,000 tensors;
# and runs bench-gui on both under Xvfb with the cairo renderer, which prints
#   - open → first frame of the layout and table (target ≤ 300 ms), and
#     open → the first frame with the layout's picture (drawn on a worker);
#   - for (b): the longest main-loop stall while scrolling the 50,000-row
#     table, hovering the layout and zooming it (target ≤ 16 ms), with the
#     frame time's median and 95th percentile.
# Prints figures only; it asserts nothing. Needs xvfb-run. The figures that
# count are a release build's (-Dbuildtype=release): see README.md.

set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/find-built.sh"
find_built BENCH "${1:-}" bench/bench-gui
BUILD=$(cd "$(dirname "$BENCH")/.." && pwd)

if [ -n "${2:-}" ]; then
  WORK=$2
  mkdir -p "$WORK"
else
  WORK=$(mktemp -d /tmp/tensorscope-bench-gui.XXXXXX)
  trap 'rm -rf "$WORK"' EXIT
fi

mapfile -t MODELS < <(/usr/bin/python3 "$HERE/make_gui_fixtures.py" "$WORK")

export GSETTINGS_BACKEND=memory
export GSETTINGS_SCHEMA_DIR="$BUILD/data"
export GSK_RENDERER=cairo
export GDK_BACKEND=x11
export NO_AT_BRIDGE=1
export LC_ALL=C.UTF-8
export XDG_CACHE_HOME="$WORK/cache" XDG_DATA_HOME="$WORK/data" XDG_CONFIG_HOME="$WORK/config"

echo "bench-gui: $(basename "$BENCH") on Xvfb 1280×800, GSK_RENDERER=cairo, $(nproc) CPUs"
# Page cache warm, as when a file was just downloaded or opened before.
cat "$WORK"/llama-3b-sharded/*.json > /dev/null
xvfb-run -a -s "-screen 0 1280x800x24" "$BENCH" "${MODELS[@]}"
