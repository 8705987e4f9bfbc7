#!/bin/bash
# bench-audit.sh: audit a >= 2 GB BF16 conversion with a warm page cache, and
# in the same run cmp two identical copies of as many bytes as the audit reads.
#
# Usage: bench/bench-audit.sh [TENSORSCOPE_CLI] [WORKDIR]
#   TENSORSCOPE_CLI defaults to _build/release/src/tensorscope-cli/tensorscope-cli
#   (then _build/src/...);
#   WORKDIR (default /tmp/tensorscope-bench-audit) keeps the 2.2 GB checkpoint,
#   its GGUF and a copy of the GGUF between runs; delete it when done.
#
# Prints wall time, throughput and peak RSS of the audit (/usr/bin/time -v),
# the wall time of `cmp` on two identical files of the GGUF's size (cmp then
# reads the same number of bytes as the audit: source + target), and the ratio.
# Target (issue 4): audit within 1.5x of cmp, peak RSS <= 256 MB.

set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/find-built.sh"
find_built CLI "${1:-}" src/tensorscope-cli/tensorscope-cli
WORK=${2:-/tmp/tensorscope-bench-audit}
CK=$WORK/checkpoint
GGUF=$WORK/model-bf16.gguf
COPY_A=$WORK/cmp-a.bin
COPY_B=$WORK/cmp-b.bin

# 17 layers of hidden 2048, 16/4 heads, FFN 8192, vocab 32000: 1.1 G params
DIMS=(--layers 17 --hidden 2048 --heads 16 --kv-heads 4 --intermediate 8192 --vocab 32000 --shards 2)

mkdir -p "$WORK"
if [ ! -f "$CK/config.json" ]; then
  echo "writing the checkpoint (tensorscope-cli sample ${DIMS[*]})"
  # --force: over what an interrupted run may have left there
  "$CLI" sample "$CK" "${DIMS[@]}" --force
fi
if [ ! -f "$GGUF" ]; then
  echo "converting to BF16 GGUF"
  if ! "$CLI" convert "$CK" -o "$GGUF" --outtype bf16 --force; then
    echo "tensorscope-cli convert failed; using tests/ref/ref_convert.py"
    /usr/bin/python3 "$HERE/../tests/ref/ref_convert.py" "$CK" "$GGUF" --outtype bf16
  fi
fi
# two identical files of the GGUF's size: cmp reads 2 x that, as the audit
# reads the source's and the target's tensor data once each
if [ ! -f "$COPY_B" ] || [ "$(stat -c %s "$COPY_B")" != "$(stat -c %s "$GGUF")" ]; then
  cp "$GGUF" "$COPY_A"
  cp "$GGUF" "$COPY_B"
fi

gguf_bytes=$(stat -c %s "$GGUF")
ck_bytes=$(du -cb "$CK"/*.safetensors | tail -1 | cut -f1)
echo "checkpoint: $ck_bytes bytes; GGUF: $gguf_bytes bytes"

warm () {
  cat "$CK"/*.safetensors "$GGUF" "$COPY_A" "$COPY_B" > /dev/null
}

warm
TIMING=$WORK/time.txt
set +e
/usr/bin/time -v -o "$TIMING" "$CLI" audit "$CK" "$GGUF" --json > "$WORK/report.json"
status=$?
set -e
audit_wall=$(python3 - "$TIMING" <<'EOF'
import re, sys
text = open(sys.argv[1]).read()
m = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", text)
parts = [float(p) for p in m.group(1).split(":")]
secs = 0.0
for p in parts:
    secs = secs * 60 + p
print(f"{secs:.3f}")
EOF
)
rss_kb=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$TIMING")
read -r bytes_read elapsed < <(python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
print(r["summary"]["bytes_read"], r["summary"]["elapsed_seconds"])' "$WORK/report.json")

warm
cmp_start=$(date +%s.%N)
cmp "$COPY_A" "$COPY_B"
cmp_end=$(date +%s.%N)
cmp_wall=$(python3 -c "print(f'{$cmp_end - $cmp_start:.3f}')")

python3 - "$audit_wall" "$cmp_wall" "$rss_kb" "$bytes_read" "$elapsed" "$gguf_bytes" "$status" <<'EOF'
import sys
audit, cmpw, rss_kb, nbytes, compare, gguf, status = sys.argv[1:]
audit, cmpw, compare = float(audit), float(cmpw), float(compare)
nbytes, gguf, rss = int(nbytes), int(gguf), int(rss_kb) / 1024
print(f"audit exit status:     {status} ({'PASS' if status == '0' else 'FAIL'})")
print(f"audit wall time:       {audit:.3f} s (value comparison {compare:.3f} s)")
print(f"audit throughput:      {nbytes / audit / 1e9:.2f} GB/s ({nbytes:,} bytes compared)")
print(f"audit peak RSS:        {rss:.1f} MB")
print(f"cmp wall time:         {cmpw:.3f} s (2 x {gguf:,} bytes)")
print(f"cmp throughput:        {2 * gguf / cmpw / 1e9:.2f} GB/s")
print(f"ratio audit / cmp:     {audit / cmpw:.2f} (target <= 1.5)")
print(f"RSS target (<= 256 MB): {'met' if rss <= 256 else 'MISSED'}")
EOF

# The wizard's flow: convert, then audit at once. The converter writes with
# O_DIRECT, so the new file is not in the page cache and the audit reads it
# from the disk (it asks for the chunks ahead of the workers).
FRESH=$WORK/fresh.gguf
warm
t0=$(date +%s.%N)
"$CLI" convert "$CK" -o "$FRESH" --outtype bf16 --force 2> /dev/null
t1=$(date +%s.%N)
set +e
"$CLI" audit "$CK" "$FRESH" > /dev/null
fresh_status=$?
set -e
t2=$(date +%s.%N)
rm -f "$FRESH"
python3 - "$t0" "$t1" "$t2" "$fresh_status" <<'PY'
import sys
t0, t1, t2, status = float(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
print(f"convert, then audit:   {t1 - t0:.3f} s + {t2 - t1:.3f} s = {t2 - t0:.3f} s "
      f"(audit of an output not in the page cache; exit {status})")
PY

# llama-quantize files: the GGUF quantized to Q4_K_M and to IQ3_XXS (a
# lattice type, with IQ2_S and IQ3_S beside it; with a uniform importance
# matrix, which llama.cpp insists on for it) by llama.cpp's own library
# (tests/ref/llama_quantize.py, node-llama-cpp as the tests install it in the
# build tree's npm folder, or TENSORSCOPE_NODE_MODULES), audited against the
# checkpoint: their tensors are decoded, not re-encoded. Compared with the
# BF16 audit above (the same source bytes, a smaller target).
NODE_MODULES=${TENSORSCOPE_NODE_MODULES:-$(cd "$(dirname "$CLI")/../.." && pwd)/npm/node_modules}
for FTYPE in Q4_K_M IQ3_XXS; do
  Q=$WORK/model-$FTYPE.gguf
  label=$(printf '%-22s' "audit of $FTYPE:")
  if [ ! -f "$Q" ] && [ -d "$NODE_MODULES/@node-llama-cpp" ]; then
    echo "quantizing the GGUF to $FTYPE with llama.cpp (tests/ref/llama_quantize.py, 2 threads)"
    imatrix=
    case $FTYPE in IQ*) imatrix=--imatrix ;; esac
    /usr/bin/python3 "$HERE/../tests/ref/llama_quantize.py" "$NODE_MODULES" "$GGUF" "$Q" $FTYPE \
      --nthread 2 --cache "$WORK" $imatrix > /dev/null || rm -f "$Q"
  fi
  if [ ! -f "$Q" ]; then
    echo "$label skipped (no node-llama-cpp in $NODE_MODULES; run tests/interop/setup-npm.sh)"
    continue
  fi
  cat "$CK"/*.safetensors "$Q" > /dev/null
  set +e
  /usr/bin/time -v -o "$TIMING" "$CLI" audit "$CK" "$Q" --json > "$WORK/report-q.json"
  q_status=$?
  set -e
  q_rss_kb=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$TIMING")
  python3 - "$WORK/report-q.json" "$q_status" "$q_rss_kb" "$audit_wall" "$TIMING" "$label" <<'PY'
import json, re, sys
report, status, rss_kb, bf16_wall, timing, label = sys.argv[1:]
m = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", open(timing).read())
wall = 0.0
for p in m.group(1).split(":"):
    wall = wall * 60 + float(p)
r = json.load(open(report))
decoded = [p for p in r["tensors"] if p.get("comparison") == "decoded"]
types = sorted({p["target_dtype"] for p in decoded})
worst = max((p["relative_rms_error"] for p in decoded), default=0)
nbytes = r["summary"]["bytes_read"]
print(f"{label} {wall:.3f} s, {nbytes / wall / 1e9:.2f} GB/s ({nbytes:,} bytes), "
      f"peak RSS {int(rss_kb) / 1024:.1f} MB, exit {status}; {len(decoded)} tensors decoded "
      f"({', '.join(types)}), relative RMS error at most {worst:.4f}; "
      f"{wall / float(bf16_wall):.2f}x the BF16 audit's time")
PY
done
