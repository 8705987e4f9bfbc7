#!/usr/bin/env bash
# Runs each libFuzzer target of a -Dfuzzing=true build for a bounded time,
# starting from its seeds and committed regressions.
#
# usage: tests/fuzz/run-fuzz.sh BUILDDIR SECONDS [TARGET...]
# Crashes are written to BUILDDIR/tests/fuzz/artifacts/TARGET/; exits 1 if any
# target crashed.
set -uo pipefail
build=$1; seconds=$2; shift 2
src=$(cd "$(dirname "$0")" && pwd)
targets=${*:-safetensors gguf hf-config audit}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:detect_odr_violation=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$src/../lsan.supp:print_suppressions=0}
status=0
for t in $targets; do
  fz=$build/tests/fuzz
  corpus=$fz/corpus/$t
  artifacts=$fz/artifacts/$t
  mkdir -p "$corpus" "$artifacts"
  cp -n "$fz/seeds/$t"/* "$corpus"/ 2>/dev/null || true
  if [ -d "$src/regressions/$t" ]; then
    find "$src/regressions/$t" -maxdepth 1 -type f ! -name '*.md' -exec cp -n {} "$corpus"/ \;
  fi
  echo "== fuzz-$t for ${seconds}s"
  if ! "$fz/fuzz-$t" "$corpus" -max_total_time="$seconds" -rss_limit_mb=2048 \
      -timeout=20 -dict="$src/ts.dict" -artifact_prefix="$artifacts/" \
      -print_final_stats=1 2>"$fz/fuzz-$t.log"; then
    status=1
    tail -n 60 "$fz/fuzz-$t.log"
  else
    grep -E '^(#[0-9]+.*DONE|stat::)' "$fz/fuzz-$t.log" | tail -n 8
  fi
done
exit $status
