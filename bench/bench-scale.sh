#!/bin/bash
# bench-scale.sh: what a model with up to a million tensors costs past the open.
#
# Usage: bench/bench-scale.sh [TENSORSCOPE_CLI] [WORKDIR] [N...]
#   TENSORSCOPE_CLI defaults to _build/release/src/tensorscope-cli/tensorscope-cli
#   (then _build/src/...); WORKDIR (default: a fresh mktemp -d under /tmp) is
#   deleted at the end unless given; N are tensor counts (default 100000
#   1000000).
#
# For each N, a GGUF v3 of N tensors of F32 [8] (32 bytes each, names
# blk.L.{attn_q,attn_k,ffn_up,attn_norm}.weight, 4 a layer; 88 MB at a
# million) is written, then timed once each (wall and peak RSS from GNU
# time): `inspect` (text, the baseline: the model loaded and printed),
# `inspect --json`, and `layout -o` SVG, PDF and PNG, with the size of each
# output. Prints figures only; it asserts nothing (tests/check_scale.py
# holds the bounds).

set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/find-built.sh"
find_built CLI "${1:-}" src/tensorscope-cli/tensorscope-cli
PY=/usr/bin/python3
GIVEN_WORK=${2:-}
shift $(( $# < 2 ? $# : 2 ))

if [ -n "$GIVEN_WORK" ]; then
  WORK=$GIVEN_WORK; mkdir -p "$WORK"
else
  WORK=$(mktemp -d /tmp/tensorscope-bench-scale.XXXXXX)
  trap 'rm -rf "$WORK"' EXIT
fi
COUNTS=("$@")
[ ${#COUNTS[@]} -gt 0 ] || COUNTS=(100000 1000000)

# one CMD...: "SECONDS PEAK_RSS_KB STATUS", stdout to $WORK/out
one () {
  local status=0
  /usr/bin/time -f "%e %M" -o "$WORK/time" "$@" > "$WORK/out" 2> "$WORK/err" || status=$?
  echo "$(cat "$WORK/time" | tail -1) $status"
}

echo "tensorscope-cli: $CLI"
echo "workdir:         $WORK"

for n in "${COUNTS[@]}"; do
  gguf=$WORK/many-$n.gguf
  # the GGUF check_scale.py writes: general.architecture, n tensors
  "$PY" -c 'import sys; sys.path.insert(0, sys.argv[1]); import check_scale; check_scale.write_many_tensors(sys.argv[2], int(sys.argv[3]))' \
    "$HERE/../tests" "$gguf" "$n"
  cat "$gguf" > /dev/null
  echo
  printf "%'d tensors, GGUF of %'d bytes\n" "$n" "$(stat -c %s "$gguf")"
  printf "  %-16s %9s %10s %14s\n" command "wall (s)" "RSS (MB)" "output (bytes)"
  for what in inspect "inspect --json" "layout svg" "layout pdf" "layout png"; do
    case $what in
      inspect)          read -r s kb rc < <(one "$CLI" inspect "$gguf"); out=$WORK/out ;;
      "inspect --json") read -r s kb rc < <(one "$CLI" inspect --json "$gguf"); out=$WORK/out ;;
      layout*)          out=$WORK/layout.${what#layout }
                        read -r s kb rc < <(one "$CLI" layout "$gguf" -o "$out") ;;
    esac
    printf "  %-16s %9s %10d %'14d%s\n" "$what" "$s" $((kb / 1024)) "$(stat -c %s "$out" 2>/dev/null || echo 0)" \
           "$([ "$rc" = 0 ] || echo "  (exit status $rc)")"
  done
  rm -f "$gguf" "$WORK"/layout.* "$WORK/out"
done
