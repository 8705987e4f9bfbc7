#!/bin/bash
# bench-open.sh: how fast `tensorscope-cli inspect` opens big metadata.
#
# Usage: bench/bench-open.sh [TENSORSCOPE_CLI] [WORKDIR]
#   TENSORSCOPE_CLI defaults to _build/release/src/tensorscope-cli/tensorscope-cli
#   (then _build/src/...); WORKDIR (default: a fresh mktemp -d under /tmp) is
#   deleted at the end unless given.
#
# (a) A sparse GGUF v3 (bench/make_big_gguf.py): Llama-3-sized tokenizer
#     arrays (128,256 tokens, 280,147 merges, ~7.7 MB of metadata) and 255
#     Llama-3.2-3B-shaped tensor descriptors over a 6.4 GB data section that is
#     a hole (no disk used).  Times `inspect --json FILE > /dev/null` (median
#     of 5 warm runs; peak RSS from /usr/bin/time -f %M) beside `cat` of the
#     metadata bytes (the first data_offset bytes, as a file of their own) to
#     /dev/null.
#     Targets: < 30 ms, < 64 MB.
# (b) A sharded Safetensors checkpoint of 50,000 tiny tensors (10 shards,
#     F32 [1] = 4 bytes each, model.safetensors.index.json).  Times
#     `inspect --json DIR > /dev/null` (median of
#     5 warm runs, peak RSS) beside `cat` of all its files.
#
# Prints figures and ratios only; it asserts nothing.

set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/find-built.sh"
find_built CLI "${1:-}" src/tensorscope-cli/tensorscope-cli
PY=/usr/bin/python3
RUNS=5

if [ -n "${2:-}" ]; then
  WORK=$2; mkdir -p "$WORK"
else
  WORK=$(mktemp -d /tmp/tensorscope-bench-open.XXXXXX)
  trap 'rm -rf "$WORK"' EXIT
fi

# measure RUNS CMD...: run CMD once to warm up, RUNS times timed (stdout to
# /dev/null), and once under /usr/bin/time -f %M for the peak RSS (rusage
# from Python's own children would count the forked Python image too); print
# "MEDIAN_SECONDS MAX_RSS_KB STATUS".
measure () {
  "$PY" - "$@" <<'EOF'
import os, statistics, subprocess, sys, tempfile, time
runs, cmd = int(sys.argv[1]), sys.argv[2:]
null = subprocess.DEVNULL
status = subprocess.call(cmd, stdout=null)          # warm-up
walls = []
for _ in range(runs):
    t0 = time.perf_counter()
    status = subprocess.call(cmd, stdout=null) or status
    walls.append(time.perf_counter() - t0)
with tempfile.NamedTemporaryFile("r") as f:
    subprocess.call(["/usr/bin/time", "-f", "%M", "-o", f.name] + cmd, stdout=null)
    rss = int(f.read().split()[-1])
print(f"{statistics.median(walls):.6f} {rss} {status}")
EOF
}

echo "tensorscope-cli: $CLI"
echo "workdir:         $WORK"
echo

# ---- (a) big-metadata GGUF -------------------------------------------------
GGUF=$WORK/big-metadata.gguf
META=$WORK/big-metadata.head
read -r data_offset file_size < <("$PY" "$HERE/make_big_gguf.py" "$GGUF")
head -c "$data_offset" "$GGUF" > "$META"
read -r insp_s insp_kb insp_rc < <(measure $RUNS "$CLI" inspect --json "$GGUF")
read -r cat_s cat_kb _ < <(measure $RUNS cat "$META")

echo "(a) GGUF v3, 128,256 tokens + 280,147 merges, 255 tensors, sparse data"
"$PY" - "$data_offset" "$file_size" "$insp_s" "$insp_kb" "$insp_rc" \
        "$cat_s" "$cat_kb" "$RUNS" <<'EOF'
import sys
off, size, s, kb, rc, cs, ckb, runs = sys.argv[1:]
off, size, s, cs, mb, cmb = (int(off), int(size), float(s), float(cs),
                             int(kb) / 1024, int(ckb) / 1024)
print(f"  file size:                     {size:,} bytes ({size / 1e9:.2f} GB, data is a hole)")
print(f"  metadata (data_offset):        {off:,} bytes ({off / 1e6:.2f} MB)")
print(f"  inspect --json exit status:    {rc}")
print(f"  inspect --json wall (median/{runs}): {s * 1e3:8.2f} ms   target < 30 ms")
print(f"  inspect --json peak RSS:       {mb:8.1f} MB   target < 64 MB")
print(f"  cat metadata wall (median/{runs}):   {cs * 1e3:8.2f} ms   ({off / cs / 1e9:.2f} GB/s)")
print(f"  cat metadata peak RSS:         {cmb:8.1f} MB")
print(f"  ratio inspect / cat (wall):    {s / cs:8.1f} x")
print(f"  inspect metadata rate:         {off / s / 1e6:8.1f} MB/s")
EOF
rm -f "$GGUF" "$META"
echo

# ---- (b) 50,000 tiny Safetensors tensors in 10 shards ----------------------
ST=$WORK/many-tensors
"$PY" - "$ST" <<'EOF'
import json, os, struct, sys
out = sys.argv[1]
os.makedirs(out, exist_ok=True)
N, SHARDS = 50000, 10
proj = ("gate_proj", "up_proj", "down_proj")
names = [f"model.layers.{i // 500}.mlp.experts.{(i % 500) // 3}.{proj[i % 3]}.weight"
         for i in range(N)]
per = N // SHARDS
weight_map, total = {}, 0
for s in range(SHARDS):
    fname = f"model-{s + 1:05d}-of-{SHARDS:05d}.safetensors"
    chunk = names[s * per:(s + 1) * per]
    header = {"__metadata__": {"format": "pt"}}
    for j, name in enumerate(chunk):
        header[name] = {"dtype": "F32", "shape": [1],
                        "data_offsets": [4 * j, 4 * j + 4]}
        weight_map[name] = fname
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    data = struct.pack(f"<{len(chunk)}f", *(float(k % 7) for k in range(len(chunk))))
    with open(os.path.join(out, fname), "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + data)
    total += len(data)
with open(os.path.join(out, "model.safetensors.index.json"), "w") as f:
    json.dump({"metadata": {"total_size": total}, "weight_map": weight_map}, f, indent=2)
EOF
st_bytes=$(du -cb "$ST"/* | tail -1 | cut -f1)
cat "$ST"/* > /dev/null
read -r st_s st_kb st_rc < <(measure $RUNS "$CLI" inspect --json "$ST")
read -r stc_s _ _ < <(measure $RUNS sh -c 'cat "$1"/* > /dev/null' sh "$ST")

echo "(b) Safetensors, 50,000 tensors of 4 bytes in 10 shards + index"
"$PY" - "$st_bytes" "$st_s" "$st_kb" "$st_rc" "$stc_s" "$RUNS" <<'EOF'
import sys
nbytes, s, kb, rc, cs, runs = sys.argv[1:]
nbytes, s, cs, mb = int(nbytes), float(s), float(cs), int(kb) / 1024
print(f"  files (shards + index):        {nbytes:,} bytes ({nbytes / 1e6:.2f} MB)")
print(f"  inspect --json exit status:    {rc}")
print(f"  inspect --json wall (median/{runs}): {s * 1e3:8.2f} ms   ({50000 / s:,.0f} tensors/s)")
print(f"  inspect --json peak RSS:       {mb:8.1f} MB")
print(f"  cat of all files (median/{runs}):    {cs * 1e3:8.2f} ms")
print(f"  ratio inspect / cat (wall):    {s / cs:8.1f} x")
EOF
rm -rf "$ST"
