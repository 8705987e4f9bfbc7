#!/usr/bin/python3
"""Interoperability judge for Tensorscope's HF -> GGUF converter.

For several generated checkpoint shapes and all four output types:
 (a) bytes:   `tensorscope-cli convert` output == tests/ref/ref_convert.py output, byte for
              byte, and == the output of llama.cpp's own convert_hf_to_gguf.py (the source
              node-llama-cpp ships, run by tests/ref/llamacpp.py); on a difference it prints
              the first differing offset and, from parsing both files, the metadata key /
              tensor descriptor / tensor element it falls in;
 (b) inspect: @huggingface/gguf (tests/interop/gguf_dump.mjs) and `tensorscope-cli inspect
              --json` agree on every key (value for scalars, count for arrays) and tensor;
 (c) logits:  llama.cpp itself (node-llama-cpp, tests/interop/llama_logits.mjs) runs our
              file and its log-softmax matches a numpy forward pass of the Hugging Face
              checkpoint (tests/ref/hf_forward.py) - directly, and, for BF16/F16/Q8_0,
              once more on an exactly widened F32 copy with a tight tolerance.
Edge-value checkpoints (NaN, Inf, subnormals, ties, F16 overflow) are byte-compared only.

Usage:
  check_interop.py --cli BUILD/src/tensorscope-cli/tensorscope-cli --work DIR
                   --node-modules DIR/node_modules [--only NAME[,NAME]] [--types bf16,...]
  check_interop.py --reference-only --work DIR --node-modules DIR
      (validates the judges themselves: the reference converter's files stand in for ours;
       (a) then checks the reference against an independent Python GGUF parse, (b) compares
       gguf_dump.mjs with that parse)

Ends with the line `N passed, M failed`; exit status 1 when anything failed.  A step that
cannot run (no CLI, CLI without `convert`, missing node modules) counts as FAILED.
"""

import argparse
import json
import re
import math
import os
import shutil
import struct
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent / "ref"))
import llamacpp  # noqa: E402

HERE = Path(__file__).resolve().parent
REF = HERE / "ref"
INTEROP = HERE / "interop"
PY = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
OUTTYPES = ["bf16", "f16", "f32", "q8_0"]

# Checkpoint shapes: name -> gen_checkpoint.py arguments.  The folder name is what the
# converter names the model after (unless _name_or_path / a model card says otherwise).
CHECKPOINTS = {
    # GQA (4 q heads / 2 kv heads), tied, one shard, head_dim in config, llama3 rope, BF16
    "tiny-llama": ["--layers", "2", "--hidden", "64", "--heads", "4", "--kv-heads", "2",
                   "--intermediate", "128", "--seed", "11"],
    # no GQA, untied, three shards (a layer split across shards), no head_dim, pair-form
    # merges, top_k in generation_config, _name_or_path with an org and a size label
    "mha-untied-3shards": ["--layers", "2", "--hidden", "64", "--heads", "4", "--kv-heads", "4",
                           "--intermediate", "96", "--untied", "--shards", "3", "--no-head-dim",
                           "--pair-merges", "--gen-top-k", "40", "--seed", "12",
                           "--name", "acme/Tiny-Llama-3.2-250K-Instruct"],
    # no rope scaling, F16 source, FFN 144 (Q8_0 falls back to F16 for ffn_down), bare
    # TemplateProcessing, eos from config.json, add_prefix_space, README model card,
    # a folder name with a size label that does not fit the model ("7b" becomes finetune)
    "my-model-7b": ["--layers", "2", "--hidden", "64", "--heads", "4", "--kv-heads", "1",
                    "--intermediate", "144", "--rope-scaling", "none", "--dtype", "f16",
                    "--plain-post-processor", "--tc-no-eos", "--add-prefix-space", "false",
                    "--model-card", "--seed", "13"],
    # F32 source, head_dim (24) != hidden/heads (16), 3 layers, 2 shards, untied, config
    # vocab_size larger than the tokenizer ([PADn] tokens)
    "wide-heads-f32": ["--layers", "3", "--hidden", "96", "--heads", "6", "--kv-heads", "2",
                       "--head-dim", "24", "--intermediate", "160", "--dtype", "f32",
                       "--shards", "2", "--untied", "--pad-vocab", "5", "--vocab", "773",
                       "--seed", "14"],
    # Llama 2 style: a SentencePiece tokenizer.model (384 pieces, byte fallback) and
    # tokenizer.json beside it, vocab_size past the pieces ([PADn] up to 511), no rope
    # scaling, untied
    "spm-llama2": ["--layers", "2", "--hidden", "64", "--heads", "4", "--kv-heads", "2",
                   "--intermediate", "96", "--sentencepiece", "llama2", "--rope-scaling", "none",
                   "--vocab", "512", "--untied", "--seed", "15"],
    # edge values, byte comparison only
    "edge-bf16": ["--layers", "1", "--hidden", "64", "--heads", "4", "--kv-heads", "2",
                  "--intermediate", "96", "--dtype", "bf16", "--edge-values", "--seed", "21"],
    "edge-f16": ["--layers", "1", "--hidden", "64", "--heads", "4", "--kv-heads", "2",
                 "--intermediate", "96", "--dtype", "f16", "--edge-values", "--shards", "2",
                 "--seed", "22"],
    "edge-f32": ["--layers", "1", "--hidden", "64", "--heads", "4", "--kv-heads", "2",
                 "--intermediate", "96", "--dtype", "f32", "--edge-values", "--untied",
                 "--seed", "23"],
}
EDGE = {"edge-bf16", "edge-f16", "edge-f32"}

# First token is <|begin_of_text|> (id 512 with 256 merges; <s>, 1, for SentencePiece);
# the rest are ordinary ids (or [PADn] ones).
def token_sequence(bos):
    return [bos, 17, 290, 301, 44, 5, 260, 71, 402, 88, 99, 300, 12, 480, 256, 3]


# ------------------------------------------------------------------ tolerances
#
# All comparisons are on log-softmax values (llama.cpp gives probabilities only; their log
# is the logits minus a per-position constant).  Logits of these tiny models are O(0.2)
# (max |logit| S is measured per checkpoint, typically 0.5-0.8).
#
# TIGHT = 1e-4, for llama.cpp running an F32 file: both sides compute in float32 from the
#   same weights.  Unit roundoff u32 = 6e-8; the longest dot products have n <= 160 terms,
#   so a matmul carries at most ~n*u32 = 1e-5 relative error, and about 15 of them are
#   chained (2-3 layers x 7 matmuls + lm_head) plus RMSNorm/softmax/RoPE (llama.cpp builds
#   its rotation angles by repeated multiplication); the worst case on O(1) activations is
#   ~1e-4 absolute on the logits, the typical (random-walk) error ~1e-6 (observed 1.4e-6).
#   Skipping the Q/K permutation changes the log-softmax by ~5e-3: 50x the tolerance.
#
# Direct runs of BF16 / F16 / Q8_0 files: llama.cpp converts the activations to the
# matmul's "vec_dot" type (BF16 for BF16 weights, F16 for F16, Q8_0 blocks for Q8_0) and
# Q8_0 also quantizes the weights.  Each rounding is relative error u_T of an element
# (BF16: 2^-8, F16: 2^-11) or of the block maximum (Q8_0: 2^-8 for the activations plus
# 2^-8 for the weights).  Propagated to the logits this is about u_T * S; we allow
# tol_T = max(TIGHT, 4 * u_T * S) - the factor 4 covers accumulation over layers (observed
# errors are 1.5-6x below the tolerance: BF16 1.5e-3, F16 2e-4, Q8_0 7.6e-3 for S ~ 0.6).
# Such a tolerance cannot see a permutation error, so every non-F32 file is also widened
# exactly to F32 (BF16/F16 widen exactly, Q8_0 dequantizes exactly as d*q) and compared
# with TIGHT against hf_forward.py --weights-as T (the HF weights rounded the same way).

TIGHT = 1e-4
UNIT = {"f32": 0.0, "f16": 2.0 ** -11, "bf16": 2.0 ** -8, "q8_0": 2.0 ** -7}


def direct_tolerance(outtype, scale):
    return max(TIGHT, 4.0 * UNIT[outtype] * scale)


# ------------------------------------------------------------------ results

class Results:
    def __init__(self):
        self.passed = 0
        self.failed = 0
        self.failures = []

    def ok(self, name, msg=""):
        self.passed += 1
        print(f"PASS {name}{(': ' + msg) if msg else ''}", flush=True)

    def fail(self, name, msg):
        self.failed += 1
        self.failures.append(name)
        print(f"FAIL {name}: {msg}", flush=True)


def run(cmd, timeout=600, env=None, cwd=None):
    t0 = time.time()
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout,
                           env=env, cwd=cwd)
    except FileNotFoundError as e:
        return 127, "", str(e), time.time() - t0
    except subprocess.TimeoutExpired:
        return 124, "", f"timed out after {timeout} s", time.time() - t0
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace"), time.time() - t0


# ------------------------------------------------------------------ GGUF parsing (independent)

VT_NAMES = ["uint8", "int8", "uint16", "int16", "uint32", "int32", "float32", "bool", "string",
            "array", "uint64", "int64", "float64"]
VT_FMT = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q",
          11: "<q", 12: "<d"}
GGML = {0: ("F32", 1, 4), 1: ("F16", 1, 2), 8: ("Q8_0", 32, 34), 30: ("BF16", 1, 2)}
GGML_BY_NAME = {v[0]: k for k, v in GGML.items()}


class GGUFError(Exception):
    pass


def parse_gguf(path):
    data = Path(path).read_bytes()
    pos = 0

    def take(n):
        nonlocal pos
        if pos + n > len(data):
            raise GGUFError(f"truncated at offset {pos} (need {n} bytes)")
        b = data[pos:pos + n]
        pos += n
        return b

    def rstr():
        n = struct.unpack("<Q", take(8))[0]
        return take(n).decode("utf-8", "surrogateescape")

    def rval(t):
        if t == 8:
            return rstr()
        if t == 9:
            et, n = struct.unpack("<IQ", take(12))
            return {"element_type": et, "items": [rval(et) for _ in range(n)]}
        if t not in VT_FMT:
            raise GGUFError(f"bad value type {t}")
        fmt = VT_FMT[t]
        return struct.unpack(fmt, take(struct.calcsize(fmt)))[0]

    if take(4) != b"GGUF":
        raise GGUFError("bad magic")
    version, n_t, n_kv = struct.unpack("<IQQ", take(20))
    kvs = []
    for _ in range(n_kv):
        start = pos
        key = rstr()
        t = struct.unpack("<I", take(4))[0]
        vstart = pos
        val = rval(t)
        kvs.append({"key": key, "type": t, "value": val, "start": start, "value_start": vstart, "end": pos})
    align = 32
    for kv in kvs:
        if kv["key"] == "general.alignment":
            align = kv["value"]
    tensors = []
    for _ in range(n_t):
        start = pos
        name = rstr()
        nd = struct.unpack("<I", take(4))[0]
        dims = list(struct.unpack(f"<{nd}Q", take(8 * nd)))
        t, off = struct.unpack("<IQ", take(12))
        tensors.append({"name": name, "dims": dims, "type": t, "offset": off, "start": start, "end": pos})
    info_end = pos
    data_start = (pos + align - 1) // align * align
    for ti in tensors:
        n = int(np.prod(ti["dims"], dtype=np.int64)) if ti["dims"] else 1
        if ti["type"] not in GGML:
            raise GGUFError(f"tensor {ti['name']}: unexpected type {ti['type']}")
        _, bs, ts = GGML[ti["type"]]
        ti["nbytes"] = n // bs * ts
        ti["n"] = n
        ti["abs"] = data_start + ti["offset"]
        if ti["abs"] + ti["nbytes"] > len(data):
            raise GGUFError(f"tensor {ti['name']} runs past the end of the file")
    return {"version": version, "kvs": kvs, "tensors": tensors, "info_end": info_end,
            "data_start": data_start, "size": len(data), "bytes": data, "alignment": align}


def short(v, n=120):
    if isinstance(v, dict) and "items" in v:
        items = v["items"]
        s = f"[{VT_NAMES[v['element_type']]} x {len(items)}: {json.dumps(items[:4], ensure_ascii=False)[:-1]}, ...]"
    else:
        s = json.dumps(v, ensure_ascii=False) if not isinstance(v, float) else repr(v)
    return s if len(s) <= n else s[:n] + "..."


def element_text(buf, ti, rel):
    """Describe byte `rel` of tensor ti's data in file bytes `buf`."""
    name, bs, ts = GGML[ti["type"]]
    base = ti["abs"]
    if name == "Q8_0":
        blk, b = divmod(rel, 34)
        d = np.frombuffer(buf, "<f2", 1, base + blk * 34)[0]
        what = "scale d" if b < 2 else f"q[{b - 2}] = {np.frombuffer(buf, np.int8, 1, base + rel)[0]}"
        el = blk * 32 + max(0, b - 2)
        return el, f"block {blk} {what} (d = {float(d)!r})"
    el = rel // ts
    o = base + el * ts
    if name == "F32":
        raw = struct.unpack_from("<I", buf, o)[0]
        return el, f"0x{raw:08x} ({struct.unpack_from('<f', buf, o)[0]!r})"
    raw = struct.unpack_from("<H", buf, o)[0]
    val = float(np.frombuffer(buf, "<f2", 1, o)[0]) if name == "F16" else \
        float(np.array([raw << 16], np.uint32).view(np.float32)[0])
    return el, f"0x{raw:04x} ({val!r})"


def locate(g, off):
    """Which part of parsed GGUF g holds byte offset off."""
    if off < 24:
        return ("header", ["magic", "magic", "magic", "magic", "version"][min(off, 4)] if off < 8 else
                ("tensor count" if off < 16 else "metadata count"))
    for kv in g["kvs"]:
        if kv["start"] <= off < kv["end"]:
            return ("kv", kv)
    for ti in g["tensors"]:
        if ti["start"] <= off < ti["end"]:
            return ("info", ti)
    if off < g["data_start"]:
        return ("pad", "alignment padding before the tensor data")
    for ti in g["tensors"]:
        if ti["abs"] <= off < ti["abs"] + ti["nbytes"]:
            return ("data", ti)
    return ("pad", "padding after tensor data")


def explain_difference(ours_path, ref_path):
    a = Path(ours_path).read_bytes()
    b = Path(ref_path).read_bytes()
    n = min(len(a), len(b))
    diff = np.nonzero(np.frombuffer(a[:n], np.uint8) != np.frombuffer(b[:n], np.uint8))[0]
    first = int(diff[0]) if len(diff) else n
    lines = [f"files differ: ours {len(a)} bytes, reference {len(b)} bytes, first difference at offset {first}"
             + (f" (0x{first:x}), {len(diff)} differing bytes in the common length" if len(diff) else "")]
    try:
        ga = parse_gguf(ours_path)
    except GGUFError as e:
        lines.append(f"our file does not parse: {e}")
        ga = None
    gb = parse_gguf(ref_path)
    if ga is None:
        return "\n    ".join(lines)
    # structural comparison first: it names the key / tensor even after a shift
    ka = [(k["key"], k["type"]) for k in ga["kvs"]]
    kb = [(k["key"], k["type"]) for k in gb["kvs"]]
    if ka != kb:
        for i in range(max(len(ka), len(kb))):
            x = ka[i] if i < len(ka) else None
            y = kb[i] if i < len(kb) else None
            if x != y:
                fmt = lambda e: "(none)" if e is None else f"{e[0]} ({VT_NAMES[e[1]] if e[1] < 13 else e[1]})"  # noqa: E731
                lines.append(f"metadata #{i}: ours {fmt(x)}, reference {fmt(y)}")
                break
        extra = sorted(set(k for k, _ in ka) - set(k for k, _ in kb))
        missing = sorted(set(k for k, _ in kb) - set(k for k, _ in ka))
        if extra:
            lines.append(f"keys only in ours: {extra}")
        if missing:
            lines.append(f"keys missing from ours: {missing}")
    else:
        for x, y in zip(ga["kvs"], gb["kvs"]):
            if x["value"] != y["value"] and not (isinstance(x["value"], float) and math.isnan(x["value"])
                                                 and isinstance(y["value"], float) and math.isnan(y["value"])):
                lines.append(f"metadata key {x['key']!r} ({VT_NAMES[x['type']]}): ours {short(x['value'])}, "
                             f"reference {short(y['value'])}")
                if isinstance(x["value"], dict) and isinstance(y["value"], dict):
                    ia, ib = x["value"]["items"], y["value"]["items"]
                    j = next((j for j in range(min(len(ia), len(ib))) if ia[j] != ib[j]), min(len(ia), len(ib)))
                    lines.append(f"  first differing item #{j}: ours {short(ia[j] if j < len(ia) else '(none)')}, "
                                 f"reference {short(ib[j] if j < len(ib) else '(none)')}; counts {len(ia)} / {len(ib)}")
                break
    ta = [(t["name"], t["dims"], t["type"], t["offset"]) for t in ga["tensors"]]
    tb = [(t["name"], t["dims"], t["type"], t["offset"]) for t in gb["tensors"]]
    if ta != tb:
        for i in range(max(len(ta), len(tb))):
            x = ta[i] if i < len(ta) else None
            y = tb[i] if i < len(tb) else None
            if x != y:
                f = lambda e: "(none)" if e is None else \
                    f"{e[0]} dims {e[1]} {GGML.get(e[2], (str(e[2]),))[0]} offset {e[3]}"  # noqa: E731
                lines.append(f"tensor descriptor #{i}: ours {f(x)}, reference {f(y)}")
                break
    if first < n or len(a) != len(b):
        where_b = locate(gb, min(first, len(b) - 1))
        kind, obj = where_b
        if kind == "kv":
            lines.append(f"offset {first} is inside metadata key {obj['key']!r} of the reference")
        elif kind == "info":
            lines.append(f"offset {first} is inside the descriptor of tensor {obj['name']!r}")
        elif kind == "data" and first < n:
            rel = first - obj["abs"]
            el_b, txt_b = element_text(b, obj, rel)
            ta_same = next((t for t in ga["tensors"] if t["name"] == obj["name"]), None)
            txt_a = element_text(a, ta_same, rel)[1] if ta_same and ta_same["abs"] == obj["abs"] \
                and ta_same["type"] == obj["type"] else "(laid out differently)"
            ndiff = int(np.count_nonzero(np.frombuffer(a[obj["abs"]:obj["abs"] + obj["nbytes"]], np.uint8)
                                         != np.frombuffer(b[obj["abs"]:obj["abs"] + obj["nbytes"]], np.uint8))) \
                if len(a) >= obj["abs"] + obj["nbytes"] else -1
            lines.append(f"offset {first} is in tensor {obj['name']!r} ({GGML[obj['type']][0]}, dims {obj['dims']}), "
                         f"element {el_b}: ours {txt_a}, reference {txt_b}; {ndiff} bytes of this tensor differ")
        else:
            lines.append(f"offset {first} is in the {kind}: {obj}")
    return "\n    ".join(lines)


# ------------------------------------------------------------------ exact widening to F32

def judge_bytes(res, key, ours, other, scratch, failure):
    """ours == other byte for byte (failure: why one of them could not be
    made, or a false value); SCRATCH, the file made for this check, goes."""
    if failure:
        res.fail(key, failure)
    elif ours.read_bytes() == other.read_bytes():
        res.ok(key, f"{ours.stat().st_size} bytes identical")
    else:
        res.fail(key, explain_difference(ours, other))
    if scratch.exists():
        scratch.unlink()


def widen_to_f32(src, dst):
    """Rewrite a GGUF with every tensor as F32 (exact: BF16/F16 widen, Q8_0 -> d*q) and
    general.file_type = 0; metadata otherwise byte-identical."""
    g = parse_gguf(src)
    buf = g["bytes"]
    kv_bytes = bytearray(buf[24:g["kvs"][-1]["end"]] if g["kvs"] else b"")
    for kv in g["kvs"]:
        if kv["key"] == "general.file_type":
            o = kv["value_start"] - 24
            kv_bytes[o:o + 4] = struct.pack("<I", 0)
    out = bytearray(buf[:24]) + kv_bytes
    datas = []
    off = 0
    infos = bytearray()
    for ti in g["tensors"]:
        raw = buf[ti["abs"]:ti["abs"] + ti["nbytes"]]
        name = GGML[ti["type"]][0]
        if name == "F32":
            f = np.frombuffer(raw, "<u4")
        elif name == "BF16":
            f = np.frombuffer(raw, "<u2").astype(np.uint32) << 16
        elif name == "F16":
            f = np.frombuffer(raw, "<f2").astype(np.float32).view(np.uint32)
        else:  # Q8_0
            blk = np.frombuffer(raw, np.uint8).reshape(-1, 34)
            d = blk[:, :2].copy().view("<f2").astype(np.float32)
            q = blk[:, 2:].copy().view(np.int8).astype(np.float32)
            f = (d * q).astype(np.float32).reshape(-1).view(np.uint32)
        b = f.astype("<u4").tobytes()
        nb = ti["name"].encode("utf-8")
        infos += struct.pack("<Q", len(nb)) + nb + struct.pack("<I", len(ti["dims"]))
        infos += b"".join(struct.pack("<Q", d) for d in ti["dims"]) + struct.pack("<IQ", 0, off)
        off += (len(b) + 31) // 32 * 32
        datas.append(b)
    out += infos
    out += b"\0" * ((-len(out)) % 32)
    for b in datas:
        out += b + b"\0" * ((-len(b)) % 32)
    Path(dst).write_bytes(bytes(out))


# ------------------------------------------------------------------ (b) inspect comparison

def same_scalar(tname, a, b):
    if tname == "string":
        return a == b
    if tname == "bool":
        return bool(a) == bool(b) and isinstance(a, bool) == isinstance(b, bool)
    if tname in ("float32", "float64"):
        def num(x):
            if isinstance(x, str):
                return float(x.replace("Infinity", "inf"))
            return float(x)
        try:
            x, y = num(a), num(b)
        except (TypeError, ValueError):
            return False
        if tname == "float32":
            x, y = np.float32(x), np.float32(y)
        return (x == y) or (math.isnan(x) and math.isnan(y))
    try:
        return int(a) == int(b)
    except (TypeError, ValueError):
        return False


def compare_listings(ours, lib, who_ours, who_lib):
    """ours/lib: normalized {'metadata': [{key,type,value|element_type,count,items}],
    'tensors': [{name,dtype,shape,offset}], 'tensor_count', 'kv_count', 'parameter_count'}."""
    errs = []
    mk_o = [m["key"] for m in ours["metadata"]]
    mk_l = [m["key"] for m in lib["metadata"]]
    if mk_o != mk_l:
        errs.append(f"metadata keys differ: only in {who_ours}: {sorted(set(mk_o) - set(mk_l))}, "
                    f"only in {who_lib}: {sorted(set(mk_l) - set(mk_o))}"
                    + ("" if set(mk_o) != set(mk_l) else " (same keys, different order)"))
    lib_by = {m["key"]: m for m in lib["metadata"]}
    for m in ours["metadata"]:
        l = lib_by.get(m["key"])
        if l is None:
            continue
        if m["type"] != l["type"]:
            errs.append(f"{m['key']}: type {m['type']} ({who_ours}) vs {l['type']} ({who_lib})")
            continue
        if m["type"] == "array":
            if m.get("element_type") != l.get("element_type") or m.get("count") != l.get("count"):
                errs.append(f"{m['key']}: array {m.get('element_type')} x {m.get('count')} ({who_ours}) vs "
                            f"{l.get('element_type')} x {l.get('count')} ({who_lib})")
                continue
            for i, (x, y) in enumerate(zip(m.get("items") or [], l.get("items") or [])):
                if not same_scalar(m["element_type"], x, y):
                    errs.append(f"{m['key']}[{i}]: {short(x)} ({who_ours}) vs {short(y)} ({who_lib})")
                    break
        elif not same_scalar(m["type"], m.get("value"), l.get("value")):
            errs.append(f"{m['key']}: {short(m.get('value'))} ({who_ours}) vs {short(l.get('value'))} ({who_lib})")
    to = ours["tensors"]
    tl = lib["tensors"]
    if len(to) != len(tl):
        errs.append(f"tensor count {len(to)} ({who_ours}) vs {len(tl)} ({who_lib})")
    for x, y in zip(to, tl):
        for f in ("name", "dtype", "shape", "offset"):
            if x[f] != y[f]:
                errs.append(f"tensor {x['name']}: {f} {x[f]} ({who_ours}) vs {y[f]} ({who_lib})")
                break
    for f in ("tensor_count", "kv_count", "parameter_count"):
        if f in ours and f in lib and ours[f] is not None and lib[f] is not None and int(ours[f]) != int(lib[f]):
            errs.append(f"{f}: {ours[f]} ({who_ours}) vs {lib[f]} ({who_lib})")
    return errs


def normalize_dump(d):
    md = []
    for m in d["metadata"]:
        e = {"key": m["key"], "type": m["type_name"]}
        if m["type_name"] == "array":
            e.update(element_type=m["element_type_name"], count=m["count"], items=m["items"])
        else:
            e["value"] = m["value"]
        md.append(e)
    ts = [{"name": t["name"], "dtype": t["dtype_name"], "shape": list(t["shape"]),
           "offset": int(t["abs_offset"])} for t in d["tensors"]]
    return {"metadata": md, "tensors": ts, "tensor_count": d["tensor_count"],
            "kv_count": d["kv_count"], "parameter_count": d["parameter_count"]}


def normalize_inspect(j):
    md = []
    for m in j.get("metadata", []):
        e = {"key": m["key"], "type": m["type"]}
        if m["type"] == "array":
            v = m.get("value") or {}
            e.update(element_type=v.get("element_type"), count=v.get("count"), items=v.get("items"))
        else:
            e["value"] = m.get("value")
        md.append(e)
    ts = [{"name": t["name"], "dtype": t["dtype"], "shape": list(t["shape"]), "offset": int(t["offset"])}
          for t in j.get("tensors", [])]
    return {"metadata": md, "tensors": ts, "tensor_count": j.get("tensor_count"),
            "kv_count": len(md), "parameter_count": j.get("parameter_count")}


def normalize_parsed(g):
    md = []
    for kv in g["kvs"]:
        e = {"key": kv["key"], "type": VT_NAMES[kv["type"]]}
        if kv["type"] == 9:
            items = kv["value"]["items"]
            e.update(element_type=VT_NAMES[kv["value"]["element_type"]], count=len(items), items=items[:8])
        else:
            e["value"] = kv["value"]
        md.append(e)
    ts = [{"name": t["name"], "dtype": GGML[t["type"]][0], "shape": t["dims"], "offset": t["abs"]}
          for t in g["tensors"]]
    return {"metadata": md, "tensors": ts, "tensor_count": len(ts), "kv_count": len(md),
            "parameter_count": sum(t["n"] for t in g["tensors"])}


# ------------------------------------------------------------------ split sets

SPLIT_KEYS = {"split.no", "split.count", "split.tensors.count"}


def judge_split(res, cli, tree, ckpt, whole, outdir, tag, outtype, timed):
    """llama.cpp's converter writes the model again as a split set
    (--split-max-tensors 8: gguf-py's writer, NAME-0000K-of-0000N.gguf, the
    model's metadata in the first file, split.* keys in each).  Opened at its
    first or its last file, `inspect` must give the whole model: one part per
    file, each tensor where the Python parser finds it in its file, and the
    tensors and metadata of llama.cpp's unsplit file (the split.* keys aside).
    The audit must pass the set against the checkpoint and against the
    unsplit file."""
    sdir = outdir / "split"
    shutil.rmtree(sdir, ignore_errors=True)
    sdir.mkdir()
    t0 = time.time()
    code, err = llamacpp.convert(tree, ckpt, sdir / "m.gguf", outtype, ["--split-max-tensors", "8"])
    timed("llama.cpp convert_hf_to_gguf.py", time.time() - t0)
    files = sorted(sdir.glob("m-*-of-*.gguf"))
    if code != 0 or len(files) < 3:
        res.fail(f"{tag}/split-inspect", f"llama.cpp's converter made {len(files)} split files "
                 f"(exit {code}): {err[-400:]}")
        return
    code, out, err, dt = run([cli, "inspect", "--json", str(whole)])
    timed("tensorscope-cli inspect", dt)
    want = normalize_inspect(json.loads(out))
    where = {}
    for i, f in enumerate(files):
        for ti in parse_gguf(f)["tensors"]:
            where[ti["name"]] = (i, ti["abs"])
    for f in (files[0], files[-1]):
        code, out, err, dt = run([cli, "inspect", "--json", str(f)])
        timed("tensorscope-cli inspect", dt)
        problems = []
        if code != 0:
            res.fail(f"{tag}/split-inspect", f"inspect {f.name}: exit {code}: {err.strip()[-300:]}")
            continue
        j = json.loads(out)
        got = normalize_inspect(j)
        if [p_["name"] for p_ in j["parts"]] != [g.name for g in files]:
            problems.append(f"parts {[p_['name'] for p_ in j['parts']]}")
        found = {t_["name"]: (t_["part"], t_["offset"]) for t_ in j["tensors"]}
        if found != where:
            problems.append("tensor files or offsets differ from the Python parser's: %s"
                            % sorted(k for k in set(found) | set(where) if found.get(k) != where.get(k))[:5])
        strip = [{k: v for k, v in t_.items() if k != "offset"} for t_ in got["tensors"]]
        if sorted(strip, key=str) != sorted(({k: v for k, v in t_.items() if k != "offset"}
                                             for t_ in want["tensors"]), key=str):
            problems.append("tensors differ from the unsplit file's")
        model_md = [m for m in got["metadata"] if m["key"] not in SPLIT_KEYS]
        if model_md != want["metadata"]:
            problems.append("metadata (split.* aside) differs from the unsplit file's")
        counts = {m["key"]: m.get("value") for m in got["metadata"] if m["key"] in SPLIT_KEYS}
        if counts != {"split.no": 0, "split.count": len(files), "split.tensors.count": len(where)}:
            problems.append(f"split keys {counts}")
        if problems:
            res.fail(f"{tag}/split-inspect", f"opened at {f.name}: " + "; ".join(problems))
        else:
            res.ok(f"{tag}/split-inspect", f"opened at {f.name}: {len(files)} files, "
                   f"{len(where)} tensors where llama.cpp wrote them")
    for source, target, what in ((ckpt, files[1], "the checkpoint"), (whole, files[0], "the unsplit file")):
        code, out, err, dt = run([cli, "audit", str(source), str(target)])
        timed("tensorscope-cli audit", dt)
        if code == 0 and (what == "the checkpoint" or re.search(r"pass\s+metadata\s", out)):
            res.ok(f"{tag}/split-audit", f"the set passes the audit against {what}")
        else:
            res.fail(f"{tag}/split-audit", f"against {what}: exit {code}: {(out + err).strip()[-600:]}")
    judge_split_bytes(res, cli, ckpt, sdir, files, tag, outtype, ["--split-max-tensors", "8"], timed)
    # by size, the first file metadata only: a limit that falls mid-model
    # (about a third of the model, in K as llama.cpp reads it)
    opts = ["--split-max-size", f"{max(1, whole.stat().st_size // 3000)}K", "--no-tensor-first-split"]
    bdir = outdir / "split-size"
    shutil.rmtree(bdir, ignore_errors=True)
    bdir.mkdir()
    t0 = time.time()
    code, err = llamacpp.convert(tree, ckpt, bdir / "m.gguf", outtype, opts)
    timed("llama.cpp convert_hf_to_gguf.py", time.time() - t0)
    bfiles = sorted(bdir.glob("m-*-of-*.gguf"))
    if code != 0 or len(bfiles) < 4:
        res.fail(f"{tag}/split-bytes", f"llama.cpp's converter with {' '.join(opts)} made "
                 f"{len(bfiles)} files (exit {code}): {err[-400:]}")
    else:
        judge_split_bytes(res, cli, ckpt, bdir, bfiles, tag, outtype, opts, timed)
    shutil.rmtree(bdir, ignore_errors=True)


def judge_split_bytes(res, cli, ckpt, sdir, theirs, tag, outtype, opts, timed):
    """Our convert with llama.cpp's split options OPTS writes the set
    THEIRS, which llama.cpp's converter wrote into SDIR: the same file
    names, byte for byte."""
    odir = sdir / "ours"
    shutil.rmtree(odir, ignore_errors=True)
    odir.mkdir()
    code, out, err, dt = run([cli, "convert", str(ckpt), "-o", str(odir / "m.gguf"),
                              "--outtype", outtype] + opts)
    timed("tensorscope-cli convert", dt)
    ours = sorted(odir.iterdir())
    what = " ".join(opts)
    if code != 0:
        res.fail(f"{tag}/split-bytes", f"{what}: exit {code}: {err.strip()[-400:]}")
    elif [f.name for f in ours] != [f.name for f in theirs]:
        res.fail(f"{tag}/split-bytes", f"{what}: we wrote {[f.name for f in ours]}, "
                 f"llama.cpp {[f.name for f in theirs]}")
    else:
        differ = [f.name for f, g in zip(ours, theirs) if f.read_bytes() != g.read_bytes()]
        if differ:
            res.fail(f"{tag}/split-bytes", f"{what}: files differ from llama.cpp's: {differ}")
        else:
            res.ok(f"{tag}/split-bytes", f"{what}: the {len(ours)} files are llama.cpp's byte for byte")
    shutil.rmtree(odir, ignore_errors=True)


# ------------------------------------------------------------------ (c) logits

def judge_split_load(res, cli, ckpt, whole, node_env, tokens, work, tag, outtype, timed):
    """llama.cpp loads the split set we write (from its first file, finding
    the others by name) and computes with it what it computes with our
    unsplit file WHOLE: the same log-probabilities."""
    sdir = work / "split-load"
    shutil.rmtree(sdir, ignore_errors=True)
    sdir.mkdir()
    code, out, err, dt = run([cli, "convert", str(ckpt), "-o", str(sdir / "m.gguf"), "--outtype", outtype,
                              "--split-max-tensors", "8"])
    timed("tensorscope-cli convert", dt)
    files = sorted(sdir.glob("m-*-of-*.gguf"))
    if code != 0 or len(files) < 3:
        res.fail(f"{tag}/split-load", f"convert --split-max-tensors 8: exit {code}, {len(files)} files: "
                 f"{err.strip()[-300:]}")
        return
    try:
        split_lp, dt = llama_logprobs(node_env, files[0], tokens, sdir / "split.json")
        timed("llama_logits.mjs", dt)
        whole_lp, dt = llama_logprobs(node_env, whole, tokens, sdir / "whole.json")
        timed("llama_logits.mjs", dt)
    except (RuntimeError, OSError, ValueError) as e:
        res.fail(f"{tag}/split-load", str(e))
        return
    if split_lp.shape == whole_lp.shape and np.array_equal(split_lp, whole_lp):
        res.ok(f"{tag}/split-load", f"llama.cpp loads our {len(files)}-file set: the unsplit file's "
               f"log-probabilities exactly")
    else:
        diff = float(np.abs(split_lp - whole_lp).max()) if split_lp.shape == whole_lp.shape else None
        res.fail(f"{tag}/split-load", f"shapes {split_lp.shape} / {whole_lp.shape}, max difference {diff}")
    shutil.rmtree(sdir, ignore_errors=True)


def log_softmax(l):
    l = l.astype(np.float64)
    m = l - l.max(axis=1, keepdims=True)
    return m - np.log(np.exp(m).sum(axis=1, keepdims=True))


def llama_logprobs(node_env, gguf_path, tokens, out_json):
    code, out, err, dt = run(["node", str(INTEROP / "llama_logits.mjs"), str(gguf_path),
                              ",".join(map(str, tokens)), str(out_json)], env=node_env, timeout=600)
    if code != 0:
        raise RuntimeError(f"llama_logits.mjs failed ({code}): {(err or out).strip()[-800:]}")
    d = json.loads(Path(out_json).read_text())
    rows = [[(-np.inf if v is None else v) for v in r] for r in d["logprobs"]]
    return np.array(rows, dtype=np.float64), dt


def hf_logits(ckpt, tokens, out_npy, weights_as=None):
    cmd = [PY, str(REF / "hf_forward.py"), str(ckpt), "--tokens", ",".join(map(str, tokens)),
           "--out", str(out_npy)]
    if weights_as:
        cmd += ["--weights-as", weights_as]
    code, out, err, dt = run(cmd)
    if code != 0:
        raise RuntimeError(f"hf_forward.py failed: {err.strip()[-800:]}")
    return np.load(out_npy), dt


# ------------------------------------------------------------------ main

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cli", help="path of tensorscope-cli")
    ap.add_argument("--work", required=True, help="scratch directory (created)")
    ap.add_argument("--node-modules", required=True, help="node_modules made by tests/interop/setup-npm.sh")
    ap.add_argument("--only", default=None, help="comma-separated checkpoint names")
    ap.add_argument("--types", default=",".join(OUTTYPES))
    ap.add_argument("--reference-only", action="store_true",
                    help="validate the judges: the reference converter's files stand in for ours")
    a = ap.parse_args(argv)

    res = Results()
    work = Path(a.work).resolve()
    work.mkdir(parents=True, exist_ok=True)
    names = list(CHECKPOINTS) if not a.only else [n for n in a.only.split(",") if n]
    types = [t for t in a.types.split(",") if t]
    for n in names:
        if n not in CHECKPOINTS:
            print(f"unknown checkpoint {n}", file=sys.stderr)
            return 2
    nm = Path(a.node_modules).resolve()
    node_env = dict(os.environ, NODE_PATH=str(nm))
    # the Node.js setup-npm.sh chose (node-llama-cpp needs 20 or newer)
    node_bin = nm.parent / "bin" / "node"
    if node_bin.exists():
        node_env["PATH"] = str(node_bin.parent) + os.pathsep + node_env.get("PATH", "")
    node_ok = (nm / "node-llama-cpp").is_dir() and (nm / "@huggingface" / "gguf").is_dir()
    timings = {}

    def timed(key, dt):
        timings[key] = timings.get(key, 0.0) + dt

    cli = None
    cli_problem = None
    if not a.reference_only:
        if not a.cli:
            cli_problem = "no --cli given"
        else:
            cli = str(Path(a.cli).resolve())
            if not os.access(cli, os.X_OK):
                cli_problem = f"{cli} is not an executable"
                cli = None

    llama_tree = llama_problem = None
    if not a.reference_only:
        try:
            llama_tree = llamacpp.source_tree(nm, work)
        except llamacpp.Unavailable as e:
            llama_problem = str(e)

    t_start = time.time()
    for name in names:
        ckpt = work / "ckpt" / name
        code, out, err, dt = run([PY, str(REF / "gen_checkpoint.py"), str(ckpt)] + CHECKPOINTS[name])
        timed("generate checkpoints", dt)
        if code != 0:
            res.fail(f"{name}/generate", err.strip()[-500:])
            continue
        cfg = json.loads((ckpt / "config.json").read_text())
        tokens = token_sequence(cfg["bos_token_id"])
        edge = name in EDGE
        hf_cache = {}
        outdir = work / "out"
        outdir.mkdir(exist_ok=True)
        for t in types:
            tag = f"{name}/{t}"
            ref_path = outdir / f"{name}.{t}.ref.gguf"
            ours = outdir / f"{name}.{t}.gguf"
            code, out, err, dt = run([PY, str(REF / "ref_convert.py"), str(ckpt), str(ref_path), "--outtype", t])
            timed("ref_convert.py", dt)
            if code != 0:
                res.fail(f"{tag}/reference", f"ref_convert.py failed: {err.strip()[-500:]}")
                ref_path = None

            # ---- produce "our" file
            have_ours = False
            if a.reference_only:
                if ref_path is not None:
                    shutil.copyfile(ref_path, ours)
                    have_ours = True
            elif cli is None:
                why = cli_problem
            else:
                if ours.exists():
                    ours.unlink()
                code, out, err, dt = run([cli, "convert", str(ckpt), "-o", str(ours), "--outtype", t])
                timed("tensorscope-cli convert", dt)
                if code != 0 or not ours.is_file():
                    why = f"`tensorscope-cli convert` failed (exit {code}): {(err or out).strip()[-400:]}"
                else:
                    have_ours = True

            # ---- (a) bytes
            if not have_ours:
                res.fail(f"{tag}/bytes", why if not a.reference_only else "no reference output")
            elif a.reference_only:
                try:
                    g = parse_gguf(ours)
                    problems = []
                    if g["data_start"] % 32 or any(t_["offset"] % 32 for t_ in g["tensors"]):
                        problems.append("misaligned")
                    last = g["tensors"][-1]
                    if g["size"] != last["abs"] + (last["nbytes"] + 31) // 32 * 32:
                        problems.append("file size is not data end padded to 32")
                    if problems:
                        res.fail(f"{tag}/bytes", "; ".join(problems))
                    else:
                        res.ok(f"{tag}/bytes", "reference parses; layout invariants hold")
                except GGUFError as e:
                    res.fail(f"{tag}/bytes", f"reference does not parse: {e}")
            elif ref_path is None:
                res.fail(f"{tag}/bytes", "no reference output to compare with")
            else:
                if ours.read_bytes() == ref_path.read_bytes():
                    res.ok(f"{tag}/bytes", f"{ours.stat().st_size} bytes identical")
                else:
                    res.fail(f"{tag}/bytes", explain_difference(ours, ref_path))
                # The converter's other write paths, judged the same way: 4 KiB
                # output blocks (these models fit in one default 4 MiB block; small
                # ones split tensors, heads and Q8_0 blocks across block edges),
                # with O_DIRECT, through the page cache with copy_file_range, and
                # falling back from O_DIRECT to the page cache mid-run.
                for variant, extra_env in (
                        ("4k-blocks", {"TENSORSCOPE_TEST_BLOCK_BYTES": "4096"}),
                        ("4k-blocks-page-cache", {"TENSORSCOPE_TEST_BLOCK_BYTES": "4096",
                                                  "TENSORSCOPE_TEST_NO_DIRECT_IO": "1"}),
                        # O_DIRECT accepted, then its writes refused: the
                        # fallback, with both workers' writes in flight
                        ("4k-blocks-direct-refused", {"TENSORSCOPE_TEST_BLOCK_BYTES": "4096",
                                                      "TENSORSCOPE_TEST_REFUSE_DIRECT_IO": "1"})):
                    alt = outdir / f"{name}.{t}.{variant}.gguf"
                    code, out, err, dt = run([cli, "convert", str(ckpt), "-o", str(alt), "--outtype", t,
                                              "--force"], env=dict(os.environ, **extra_env))
                    timed("tensorscope-cli convert", dt)
                    judge_bytes(res, f"{tag}/bytes-{variant}", alt, ref_path, alt,
                                (code != 0 or not alt.is_file()) and
                                f"`tensorscope-cli convert` failed (exit {code}): {(err or out).strip()[-400:]}")
                # llama.cpp's own converter
                real = outdir / f"{name}.{t}.llamacpp.gguf"
                if llama_tree is None:
                    res.fail(f"{tag}/bytes-llamacpp", llama_problem)
                else:
                    if real.exists():
                        real.unlink()
                    t0 = time.time()
                    code, err = llamacpp.convert(llama_tree, ckpt, real, t)
                    timed("llama.cpp convert_hf_to_gguf.py", time.time() - t0)
                    made = code == 0 and real.is_file()
                    if made:
                        # the audit is for anyone's conversion: llama.cpp's file passes it
                        acode, aout, aerr, dt = run([cli, "audit", str(ckpt), str(real)])
                        timed("tensorscope-cli audit", dt)
                        if acode == 0:
                            res.ok(f"{tag}/audit-llamacpp", "the audit passes llama.cpp's own file")
                        else:
                            res.fail(f"{tag}/audit-llamacpp", (aout + aerr).strip()[-600:])
                    # once: the same model as a set of split files (before
                    # judge_bytes, which removes llama.cpp's file)
                    if made and name == names[0] and t == types[-1]:
                        judge_split(res, cli, llama_tree, ckpt, real, outdir, tag, t, timed)
                    judge_bytes(res, f"{tag}/bytes-llamacpp", ours, real, real,
                                not made and f"llama.cpp's converter failed: {err[-400:]}")

            # ---- (b) @huggingface/gguf vs our inspector
            if not have_ours:
                res.fail(f"{tag}/inspect", "no converted file")
            elif not node_ok:
                res.fail(f"{tag}/inspect", f"node modules missing in {nm} (run tests/interop/setup-npm.sh)")
            else:
                code, out, err, dt = run(["node", str(INTEROP / "gguf_dump.mjs"), str(ours)], env=node_env)
                timed("gguf_dump.mjs", dt)
                if code != 0:
                    res.fail(f"{tag}/inspect", f"@huggingface/gguf could not parse our file: {err.strip()[-400:]}")
                else:
                    lib = normalize_dump(json.loads(out))
                    if a.reference_only:
                        other, who = normalize_parsed(parse_gguf(ours)), "python-parser"
                        errs = compare_listings(other, lib, who, "@huggingface/gguf")
                    else:
                        code, out2, err2, dt = run([cli, "inspect", "--json", str(ours)])
                        timed("tensorscope-cli inspect", dt)
                        if code != 0:
                            errs = [f"`tensorscope-cli inspect --json` failed (exit {code}): {(err2 or out2).strip()[-300:]}"]
                        else:
                            try:
                                mine = normalize_inspect(json.loads(out2))
                                errs = compare_listings(mine, lib, "inspect", "@huggingface/gguf")
                            except (ValueError, KeyError, TypeError) as e:
                                errs = [f"cannot read inspect JSON: {e!r}"]
                    if errs:
                        res.fail(f"{tag}/inspect", "; ".join(errs[:6]) + (f" (+{len(errs) - 6} more)" if len(errs) > 6 else ""))
                    else:
                        res.ok(f"{tag}/inspect", f"{len(lib['metadata'])} keys, {len(lib['tensors'])} tensors agree")

            # ---- (c) llama.cpp logits vs numpy forward pass
            if edge:
                continue
            checks = [("logits", None)] + ([] if t == "f32" else [("logits-widened", t)])
            for step, wa in checks:
                if not have_ours:
                    res.fail(f"{tag}/{step}", "no converted file")
                    continue
                if not node_ok:
                    res.fail(f"{tag}/{step}", f"node modules missing in {nm}")
                    continue
                try:
                    key = wa or "src"
                    if key not in hf_cache:
                        l, dt = hf_logits(ckpt, tokens, work / f"{name}.hf.{key}.npy", wa)
                        timed("hf_forward.py", dt)
                        hf_cache[key] = l
                    l = hf_cache[key]
                    ref_ls = log_softmax(l)
                    scale = float(np.abs(hf_cache.get("src", l)).max())
                    if wa:
                        target = work / f"{name}.{t}.widened.gguf"
                        widen_to_f32(ours, target)
                        tol = TIGHT
                    else:
                        target = ours
                        tol = direct_tolerance(t, scale)
                    got, dt = llama_logprobs(node_env, target, tokens, work / f"{name}.{t}.{step}.json")
                    timed("llama_logits.mjs", dt)
                    if got.shape != ref_ls.shape:
                        res.fail(f"{tag}/{step}", f"shape {got.shape} vs {ref_ls.shape}")
                        continue
                    err = float(np.abs(got - ref_ls).max())
                    msg = f"max |dlogp| {err:.3g} (tolerance {tol:.3g}, max |logit| {scale:.3g})"
                    if not np.isfinite(err) or err > tol:
                        res.fail(f"{tag}/{step}", msg)
                    else:
                        res.ok(f"{tag}/{step}", msg)
                except (RuntimeError, GGUFError, OSError, ValueError) as e:
                    res.fail(f"{tag}/{step}", str(e))
            if name == names[0] and t == types[-1] and have_ours and node_ok and cli:
                judge_split_load(res, cli, ckpt, ours, node_env, tokens, work, tag, t, timed)

    # ---- (d) every ggml type: @huggingface/gguf names each type id of the
    # fixture that holds one tensor of every type we know, as our reader does
    if not a.reference_only and a.only is None:
        tag = "fixtures/gguf_all_ggml_types"
        fixdir = work / "fixtures"
        code, out, err, dt = run([PY, str(HERE / "fixtures" / "gen_valid.py"), str(fixdir)])
        fix = fixdir / "gguf_all_ggml_types.gguf"
        if code != 0 or not fix.is_file():
            res.fail(f"{tag}/inspect", f"gen_valid.py failed: {err.strip()[-300:]}")
        elif cli is None or not node_ok:
            res.fail(f"{tag}/inspect", cli_problem or f"node modules missing in {nm}")
        else:
            code, out, err, dt = run(["node", str(INTEROP / "gguf_dump.mjs"), str(fix)], env=node_env)
            code2, out2, err2, dt = run([cli, "inspect", "--json", str(fix)])
            if code != 0 or code2 != 0:
                res.fail(f"{tag}/inspect", f"gguf_dump exit {code}: {err.strip()[-200:]}; "
                         f"inspect exit {code2}: {err2.strip()[-200:]}")
            else:
                lib = normalize_dump(json.loads(out))
                mine = normalize_inspect(json.loads(out2))
                errs = compare_listings(mine, lib, "inspect", "@huggingface/gguf")
                unknown = [t["name"] for t in mine["tensors"] if t["dtype"] == "unknown"]
                if unknown:
                    errs.append("our reader does not know the type of " + ", ".join(unknown))
                if errs:
                    res.fail(f"{tag}/inspect", "; ".join(errs[:6]))
                else:
                    res.ok(f"{tag}/inspect", f"{len(lib['tensors'])} ggml types named alike: "
                           + " ".join(t["dtype"] for t in lib["tensors"]))

    print()
    print("time per step kind: " + ", ".join(f"{k} {v:.1f} s" for k, v in sorted(timings.items()))
          + f"; total {time.time() - t_start:.1f} s")
    if res.failures:
        print("failed: " + " ".join(res.failures))
    print(f"{res.passed} passed, {res.failed} failed")
    return 1 if res.failed else 0


if __name__ == "__main__":
    sys.exit(main())
