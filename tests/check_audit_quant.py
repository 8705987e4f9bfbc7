#!/usr/bin/python3
"""The audit of llama.cpp-quantized GGUF files (Q4_K_M, Q2_K, Q6_K, Q4_0,
Q5_1, IQ4_NL, the lattice types of IQ2_XXS, IQ2_XS, IQ3_XXS, IQ1_S and
IQ1_M files (IQ1_S, IQ1_M, IQ2_XXS, IQ2_XS, IQ2_S, IQ3_XXS, IQ3_S tensors),
and Q8_0, which the audit re-derives byte for byte and which must be our
converter's Q8_0), judged with numbers computed here in numpy.

The quantized files are made by llama.cpp itself: llama_model_quantize() of
node-llama-cpp's prebuilt libllama (tests/ref/llama_quantize.py), from our
BF16 conversion of a checkpoint written by tests/ref/gen_checkpoint.py.  The
quantized tensors are decoded with gguf-py's dequantize() (llama.cpp's
Python package, from the source node-llama-cpp ships), which is first checked
to decode bit for bit as ggml's own to_float does.  Then

  tensorscope-cli audit BF16.gguf Q.gguf --json   (and F32.gguf Q.gguf)
  tensorscope-cli audit CHECKPOINT  Q.gguf --json

must pass, and for every quantized tensor report: source_dtype, target_dtype,
lossy, status "pass", n_values, n_mismatch 0, n_changed (float32 compare,
NaN equals NaN), max_abs_error (float32 |t - s| over finite values, exact),
max_rel_error (|t - s| / |s| over finite values, within 1e-6 relative;
"Infinity" where a zero decodes to non-zero, as docs/audit-json.md says), rms_error and relative_rms_error (float64 accumulation, within
1e-9 relative).  The checkpoint-to-gguf run's numbers must be those of the
same GGUF tensor in the gguf-to-gguf run (our BF16 GGUF holds the source's
values exactly, Q/K rows permuted as llama.cpp's converter does).

Rows of values scaled down by 2^-8 to 2^-33 in five tensors: below their
type's resolution, where llama.cpp's nearest levels decode as zeros or
farther (relative RMS error up to 4 here), they pass, counted in
rows_below_resolution and left out of worst_row, as numpy counts them.

Faults that must fail (exit 1, `passed` false, the tensor "fail" with a
detail): the data of two Q4_K tensors of one shape swapped in the file; a
Q4_K_M file quantized from a BF16 GGUF whose blk.0.attn_q.weight holds the
checkpoint's rows without the Q/K permutation (checkpoint-to-gguf mode); a
row of tiny values given the blocks of an ordinary row.

usage: check_audit_quant.py CLI WORKDIR NODE_MODULES
"""
import json
import math
import os
import re
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "ref"))
from tscheck import check, summary  # noqa: E402
from gen_checkpoint import write_safetensors  # noqa: E402
import llamacpp  # noqa: E402
import llama_quantize  # noqa: E402

PY = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
FTYPES = ["Q4_K_M", "Q2_K", "Q6_K", "Q4_0", "Q5_1", "IQ4_NL", "IQ2_XXS", "IQ2_XS", "IQ3_XXS",
          "IQ1_S", "IQ1_M", "Q8_0"]
# the ones llama.cpp refuses to make without an importance matrix (a
# uniform one is given: tests/ref/llama_quantize.py --imatrix)
NEED_IMATRIX = {"IQ2_XXS", "IQ2_XS", "IQ3_XXS", "IQ1_S", "IQ1_M"}
# the lattice types those files hold, every one of which must be audited
LATTICE = {"IQ1_S", "IQ1_M", "IQ2_XXS", "IQ2_XS", "IQ2_S", "IQ3_XXS", "IQ3_S"}
# Q8_0 has one rounding, llama.cpp's (the converter's and llama-quantize's):
# the audit re-derives it byte for byte ("encoded"), decoding nothing
ENCODED = {"Q8_0"}
# rows of 256 (hidden) and 512 (intermediate): every K-quant applies, no fallback
CKPT_ARGS = ["--layers", "2", "--hidden", "256", "--heads", "4", "--kv-heads", "2",
             "--intermediate", "512", "--untied", "--seed", "41"]
PLAIN = {"F32", "F16", "BF16"}
REL_TOL_MAX_REL = 1e-6
REL_TOL_RMS = 1e-9

gguf = None  # gguf-py, once the llama.cpp source is at hand


def cli(*args, timeout=300, env=None):
    return subprocess.run([CLI] + [str(a) for a in args], capture_output=True, text=True, timeout=timeout,
                          env=None if env is None else {**os.environ, **env})


# the audit's work in chunks of this many bytes (source + target rows), so
# that a small tensor's tallies are merged from many chunks
SMALL_CHUNKS = {"TENSORSCOPE_TEST_AUDIT_CHUNK_BYTES": "4096"}


def audit(source, target, env=None):
    """(exit status, report or None, stderr)"""
    r = cli("audit", source, target, "--json", env=env)
    try:
        rep = json.loads(r.stdout)
    except ValueError:
        rep = None
    return r.returncode, rep, r.stderr.strip()[-400:]


def num(x):
    """a JSON number, or the "Infinity" / "NaN" strings the report may use"""
    return float(x) if isinstance(x, (int, float, str)) and not isinstance(x, bool) else None


def read_st(folder):
    """{name: (float32 ndarray, dtype, raw bytes)} of a checkpoint's
    Safetensors shards, in the order of their data"""
    out = {}
    for p in sorted(Path(folder).glob("*.safetensors")):
        raw = p.read_bytes()
        n = struct.unpack("<Q", raw[:8])[0]
        header = json.loads(raw[8:8 + n])
        header.pop("__metadata__", None)
        for name, meta in sorted(header.items(), key=lambda kv: kv[1]["data_offsets"][0]):
            a, b = meta["data_offsets"]
            buf = raw[8 + n + a:8 + n + b]
            if meta["dtype"] == "BF16":
                arr = (np.frombuffer(buf, "<u2").astype(np.uint32) << 16).view(np.float32)
            elif meta["dtype"] == "F32":
                arr = np.frombuffer(buf, "<f4")
            else:
                raise ValueError(f"{name}: dtype {meta['dtype']} not handled here")
            out[name] = (arr.reshape(meta["shape"]), meta["dtype"], buf)
    return out


ZEROED = "model.layers.1.mlp.gate_proj.weight"


def plant_values(folder):
    """Exact zeros in one weight of the (single-shard) checkpoint: a whole
    block of 32 (+0) and every 97th value (-0), so that max_rel_error's
    s != 0 rule and NaN-free -0 == +0 comparisons are exercised (quantized
    blocks with an offset decode a zero to non-zero). And rows scaled down
    by powers of two (FINE_ROWS)."""
    p = Path(folder) / "model.safetensors"
    items = []
    for name, (arr, dtype, raw) in read_st(folder).items():
        bits = np.frombuffer(raw, "<u2").reshape(arr.shape).copy()
        if name == ZEROED:
            flat = bits.reshape(-1)
            flat[97::97] = 0x8000
            flat[:32] = 0
        if name == ALL_ZERO:
            bits[:] = 0
        if name in FINE or name == ALL_FINE:
            f32 = (bits.astype(np.uint32) << 16).view(np.float32)
            if name == ALL_FINE:
                f32 *= np.float32(2.0 ** -30)
            for row, shift in FINE_ROWS.items() if name in FINE else ():
                f32[row] *= np.float32(2.0 ** -shift)     # exact: BF16 has float32's exponents
            bits = (f32.view(np.uint32) >> 16).astype(np.uint16)
        items.append((name, dtype, bits))
    write_safetensors(p, items)


# Rows of ever smaller values (row: scaled by 2^-shift; the values are
# about N(0, 0.02)): from where a block's f16 scale is a few units of its
# last place (2^-24) down to where it rounds to 0 and the row decodes to
# zeros. A quantizer rounding to the nearest level is then as far from the
# source as zeros, or farther: its scale rounded to 2^-24 may be twice
# what it chose. In the tensors quantized to each type of the files.
FINE = {"model.layers.0.mlp.down_proj.weight": "blk.0.ffn_down.weight",
        "model.layers.1.self_attn.q_proj.weight": "blk.1.attn_q.weight",
        "model.layers.0.self_attn.v_proj.weight": "blk.0.attn_v.weight",
        "lm_head.weight": "output.weight",
        "model.embed_tokens.weight": "token_embd.weight"}
FINE_ROWS = {2 + i: shift for i, shift in enumerate(range(8, 34))}
# and a whole weight scaled by 2^-30: no row is judged by its relative
# error, and the pair has no worst_row
ALL_FINE = "model.layers.1.mlp.down_proj.weight"
ALL_FINE_GGUF = "blk.1.ffn_down.weight"

# A row is below a type's resolution when every value's magnitude is under
# 8 units of it: the largest magnitude its blocks decode to with their f16
# scales (d, and dmin or m) at their last place, 2^-24 (MXFP4: its E8M0
# scale at 2^-127, halved). Such a row is judged by its absolute error,
# which must be at most 16 units (docs/audit-json.md).
LEVEL_SPAN = {"Q4_0": 8, "Q4_1": 15 + 1, "Q5_0": 16, "Q5_1": 31 + 1, "Q8_0": 128,
              "Q2_K": 15 * 3 + 15, "Q3_K": 32 * 4, "Q4_K": 63 * 15 + 63, "Q5_K": 63 * 31 + 63,
              "Q6_K": 128 * 32, "IQ4_NL": 127, "IQ4_XS": 32 * 127, "TQ1_0": 1, "TQ2_0": 2,
              # a lattice type: its largest sub-block scale times its largest grid level
              "IQ2_XXS": 15.5 / 4 * 43, "IQ2_XS": 15.5 / 4 * 43, "IQ2_S": 15.5 / 4 * 43,
              "IQ3_XXS": 15.5 / 2 * 62, "IQ3_S": 31 * 15, "IQ1_S": 15 * 1.125, "IQ1_M": 15 * 1.125}


def resolution(type_name):
    if type_name == "MXFP4":
        return 12 * 2.0 ** -128
    return LEVEL_SPAN[type_name] * 2.0 ** -24


# a whole weight of zeros: relative errors of 0 / 0 (and, tampered, x / 0)
ALL_ZERO = "model.layers.1.self_attn.v_proj.weight"
ALL_ZERO_GGUF = "blk.1.attn_v.weight"


def values(t):
    """a GGUFReader tensor decoded to float32 (flat, in file order)"""
    return gguf.quants.dequantize(t.data, t.tensor_type).astype(np.float32, copy=False).ravel()


def tensors(path):
    return {t.name: t for t in gguf.GGUFReader(str(path)).tensors}


def rel_rms(err, src):
    """sqrt(err / src), 0 for 0 / 0, Infinity for x / 0 (docs/audit-json.md)"""
    if src > 0:
        return math.sqrt(err / src)
    return float("inf") if err > 0 else 0.0


def expected_stats(s, t, row_len=None, res=None):
    """The contract's numbers for source values S and decoded target values T
    (float32 arrays of one order; rows of ROW_LEN values; RES the target
    type's resolution)."""
    s = s.astype(np.float32, copy=False)
    t = t.astype(np.float32, copy=False)
    if row_len is None:
        row_len = s.size
    fin_all = np.isfinite(s) & np.isfinite(t)
    d_rows = np.where(fin_all, t.astype(np.float64) - s.astype(np.float64), 0).reshape(-1, row_len)
    s_rows = np.where(fin_all, s.astype(np.float64), 0).reshape(-1, row_len)
    row_err = [rel_rms(float(np.sum(d * d)), float(np.sum(x * x))) for d, x in zip(d_rows, s_rows)]
    # rows as far as zeros or farther, below the resolution and within 16
    # units of it: judged by that, not in worst_row
    below = set()
    if res is not None:
        s_all = s.astype(np.float64).reshape(-1, row_len)
        t_all = t.astype(np.float64).reshape(-1, row_len)
        for i, e in enumerate(row_err):
            if not e < 1:
                with np.errstate(invalid="ignore"):
                    amax, dmax = np.max(np.abs(s_all[i])), np.max(np.abs(t_all[i] - s_all[i]))
                if amax < 8 * res and dmax <= 16 * res:
                    below.add(i)
    judged = [(e, i) for i, e in enumerate(row_err) if i not in below]
    worst = max(e for e, _ in judged) if judged else 0.0
    worst_row = min(i for e, i in judged if e == worst) if judged else None
    same = (s == t) | (np.isnan(s) & np.isnan(t))
    fin = np.isfinite(s) & np.isfinite(t)
    d32 = np.abs(t[fin] - s[fin])                       # float32 arithmetic
    s64, t64 = s[fin].astype(np.float64), t[fin].astype(np.float64)
    d64 = t64 - s64                                     # exact
    nz = s64 != 0
    zero_changed = int(np.count_nonzero((s64 == 0) & (d64 != 0)))
    rms = float(np.sqrt(np.mean(d64 * d64))) if d64.size else 0.0
    rms_src = float(np.sqrt(np.mean(s64 * s64))) if s64.size else 0.0
    if zero_changed:
        max_rel = float("inf")
    else:
        max_rel = float(np.max(np.abs(d64[nz]) / np.abs(s64[nz]))) if np.any(nz) else 0.0
    return {
        "n_values": int(s.size),
        "n_changed": int(s.size - np.count_nonzero(same)),
        "max_abs_error": np.float32(d32.max()) if d32.size else np.float32(0),
        "max_rel_error": max_rel,
        "rms_error": rms,
        "relative_rms_error": rms / rms_src if rms_src else (float("inf") if rms else 0.0),
        "zero_sources_changed": zero_changed,
        "worst_row_error": worst,
        "worst_row": worst_row,
        "row_errors": row_err,
        "rows_below_resolution": len(below),
    }


def close(a, b, rel):
    if a is not None and b is not None and math.isinf(b):
        return a == b
    return a is not None and b is not None and abs(a - b) <= rel * abs(b)


def stats_problems(pair, exp, check_row=True):
    """What differs between an audit pair object and the expected numbers."""
    bad = []
    if pair.get("n_values") != exp["n_values"]:
        bad.append(f"n_values {pair.get('n_values')} != {exp['n_values']}")
    if pair.get("n_mismatch") != 0:
        bad.append(f"n_mismatch {pair.get('n_mismatch')} != 0")
    if pair.get("n_changed") != exp["n_changed"]:
        bad.append(f"n_changed {pair.get('n_changed')} != {exp['n_changed']}")
    mae = num(pair.get("max_abs_error"))
    if mae is None or np.float32(mae) != exp["max_abs_error"]:
        bad.append(f"max_abs_error {pair.get('max_abs_error')!r} != {float(exp['max_abs_error'])!r} (float32)")
    mre = num(pair.get("max_rel_error"))
    if not close(mre, exp["max_rel_error"], REL_TOL_MAX_REL):
        bad.append(f"max_rel_error {pair.get('max_rel_error')!r} != {exp['max_rel_error']!r}"
                   f" ({exp['zero_sources_changed']} zero source values decode to non-zero)")
    for key in ("rms_error", "relative_rms_error"):
        v = num(pair.get(key))
        if not close(v, exp[key], REL_TOL_RMS):
            bad.append(f"{key} {pair.get(key)!r} != {exp[key]!r}")
    if pair.get("rows_below_resolution", 0) != exp["rows_below_resolution"]:
        bad.append(f"rows_below_resolution {pair.get('rows_below_resolution')!r} != {exp['rows_below_resolution']}")
    wr = pair.get("worst_row") or {}
    if exp["worst_row"] is None:
        if "worst_row" in pair:
            bad.append(f"worst_row {pair['worst_row']!r}, expected none (every row below the resolution)")
    elif not close(num(wr.get("relative_rms_error")), exp["worst_row_error"], REL_TOL_RMS):
        bad.append(f"worst_row.relative_rms_error {wr.get('relative_rms_error')!r} != {exp['worst_row_error']!r}")
    elif check_row and wr.get("row") != exp["worst_row"] and not (
            isinstance(wr.get("row"), int) and 0 <= wr["row"] < len(exp["row_errors"])
            and close(exp["row_errors"][wr["row"]], exp["worst_row_error"], REL_TOL_RMS)):
        bad.append(f"worst_row.row {wr.get('row')!r} != {exp['worst_row']!r}")
    return bad


def pairs_by_target(rep):
    return {p.get("target"): p for p in (rep or {}).get("tensors", []) if isinstance(p, dict)}


def values_check(rep):
    return next((c for c in (rep or {}).get("checks", []) if c.get("name") == "values"), None)


def check_clean_run(label, code, rep, err, q_tensors, expect, source_dtype, check_row=True):
    """A run that must pass; returns {target name: pair} (or {})."""
    if rep is None:
        check(f"{label}: a JSON report", False, f"exit {code}: {err}")
        return {}
    vc = values_check(rep)
    check(f"{label}: exit 0, passed, values check pass",
          code == 0 and rep.get("passed") is True and vc is not None and vc.get("status") == "pass",
          f"exit {code}, passed {rep.get('passed')}, values {vc}, "
          f"failing pairs {[(p.get('target'), p.get('detail')) for p in rep.get('tensors', []) if p.get('status') != 'pass'][:4]}")
    tgt = rep.get("target", {})
    check(f"{label}: target.tensors is the file's tensor count ({len(q_tensors)})",
          tgt.get("tensors") == len(q_tensors), f"{tgt.get('tensors')}")
    pairs = pairs_by_target(rep)
    missing = [n for n in q_tensors if n not in pairs]
    check(f"{label}: a pair for every target tensor", not missing, f"missing {missing}")
    not_pass = [(n, p.get("status"), p.get("detail")) for n, p in pairs.items() if p.get("status") != "pass"]
    check(f"{label}: every pair passes", not not_pass, f"{not_pass[:4]}")
    bad = []
    for name, t in q_tensors.items():
        qt = t.tensor_type.name
        if qt in PLAIN or name not in pairs:
            continue
        p = pairs[name]
        probs = []
        if source_dtype is not None and p.get("source_dtype") != source_dtype:
            probs.append(f"source_dtype {p.get('source_dtype')!r} != {source_dtype!r}")
        if p.get("target_dtype") != qt:
            probs.append(f"target_dtype {p.get('target_dtype')!r} != {qt!r}")
        if p.get("lossy") is not True:
            probs.append(f"lossy {p.get('lossy')!r}")
        if p.get("status") != "pass":
            probs.append(f"status {p.get('status')!r} ({p.get('detail')})")
        comparison = "encoded" if qt in ENCODED else "decoded"
        if p.get("comparison") != comparison:
            probs.append(f"comparison {p.get('comparison')!r} != {comparison!r}")
        probs += stats_problems(p, expect[name], check_row)
        if probs:
            bad.append(f"{name}: " + "; ".join(probs))
    check(f"{label}: every quantized pair's type, status and error statistics are numpy's",
          not bad, "\n    " + "\n    ".join(bad[:6]) + (f"\n    ... {len(bad) - 6} more" if len(bad) > 6 else ""))
    return pairs


def quantize(inp, out, ftype):
    r = subprocess.run([PY, str(HERE / "ref" / "llama_quantize.py"), NODE_MODULES, str(inp), str(out),
                        ftype, "--nthread", "1", "--cache", str(WORK)]
                       + (["--imatrix"] if ftype in NEED_IMATRIX else []),
                       capture_output=True, text=True, timeout=300)
    ok = r.returncode == 0 and Path(out).is_file()
    check(f"llama.cpp quantizes {Path(inp).name} to {ftype}", ok, r.stderr.strip()[-500:])
    return ok


def expectations(q_tensors, src_tensors):
    """{GGUF name: expected stats} for the quantized tensors of a file,
    against the same-named tensors of SRC (our BF16 GGUF)."""
    return {name: expected_stats(values(src_tensors[name]), values(t), int(t.shape[0]),
                                 None if t.tensor_type.name in ENCODED else resolution(t.tensor_type.name))
            for name, t in q_tensors.items() if t.tensor_type.name not in PLAIN}


def decodes_as_ggml(llama, q_tensors, ftype):
    """gguf-py's dequantize() against ggml's own to_float, bit for bit"""
    bad = []
    for name, t in q_tensors.items():
        if t.tensor_type.name in PLAIN:
            continue
        a = values(t)
        b = llama.dequantize(t.data.tobytes(), int(t.tensor_type))
        if a.shape != b.shape or not np.array_equal(a.view(np.uint32), b.view(np.uint32)):
            bad.append(name)
    check(f"{ftype}: gguf-py decodes every quantized tensor bit for bit as ggml's to_float", not bad, f"{bad}")


def expect_failure(label, code, rep, err, names):
    if rep is None:
        check(f"{label}: a JSON report", False, f"exit {code}: {err}")
        return
    pairs = pairs_by_target(rep)
    check(f"{label}: exit 1, passed false", code == 1 and rep.get("passed") is False,
          f"exit {code}, passed {rep.get('passed')}")
    for n in names:
        p = pairs.get(n, {})
        check(f"{label}: {n} fails with a detail",
              p.get("status") == "fail" and isinstance(p.get("detail"), str) and p.get("detail").strip() != "",
              f"status {p.get('status')!r}, detail {p.get('detail')!r}")
    return pairs


def gguf_shape(t):
    """a GGUFReader tensor's shape, slowest-varying first (numpy's order)"""
    return [int(d) for d in reversed(t.shape)]


def write_gguf(path, arrays):
    """a GGUF with only general.architecture and ARRAYS {name: (data, raw type
    or None for a float array)}, written by gguf-py's writer"""
    w = gguf.GGUFWriter(str(path), "llama")
    for name, (data, qtype) in arrays.items():
        if qtype is None or qtype.name in PLAIN:
            w.add_tensor(name, np.asarray(data), raw_dtype=None if qtype is None else qtype)
        else:
            w.add_tensor(name, data, raw_shape=data.shape, raw_dtype=qtype)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def checks_by_name(report):
    return {c.get("name"): c for c in (report or {}).get("checks", [])}


def patched_copy(src, dst, edits):
    """SRC copied to DST with EDITS [(absolute offset, bytes)] written over it"""
    data = bytearray(Path(src).read_bytes())
    for off, b in edits:
        data[off:off + len(b)] = b
    Path(dst).write_bytes(bytes(data))


def main():
    global gguf
    WORK.mkdir(parents=True, exist_ok=True)
    try:
        tree = llamacpp.source_tree(NODE_MODULES, WORK, modules=("numpy",))
        llama = llama_quantize.Llama.get(NODE_MODULES, WORK)
    except (llamacpp.Unavailable, llama_quantize.QuantizeError) as e:
        check("llama.cpp's library, headers and gguf-py are at hand", False, str(e))
        return summary()
    check("llama.cpp's library, headers and gguf-py are at hand", True)
    sys.path.insert(0, str(tree / "gguf-py"))
    import gguf as gguf_mod
    gguf = gguf_mod

    ck = WORK / "ckpt"
    shutil.rmtree(ck, ignore_errors=True)
    subprocess.run([PY, str(HERE / "ref" / "gen_checkpoint.py"), str(ck)] + CKPT_ARGS,
                   check=True, capture_output=True, timeout=300)
    plant_values(ck)
    gg = {}
    for outtype in ("bf16", "f32"):
        gg[outtype] = WORK / f"ckpt.{outtype}.gguf"
        if gg[outtype].exists():
            gg[outtype].unlink()
        r = cli("convert", ck, "-o", gg[outtype], "--outtype", outtype)
        check(f"converts the checkpoint to {outtype.upper()}", r.returncode == 0, r.stderr.strip())
        if r.returncode != 0:
            return summary()
    bf16 = tensors(gg["bf16"])
    f32 = tensors(gg["f32"])
    same = sorted(bf16) == sorted(f32) and all(
        np.array_equal(values(bf16[n]).view(np.uint32), values(f32[n]).view(np.uint32)) for n in bf16)
    check("the F32 GGUF holds the BF16 GGUF's values", same)

    results = {}
    for ftype in FTYPES:
        q = WORK / f"ckpt.{ftype}.gguf"
        if not quantize(gg["bf16"], q, ftype):
            continue
        qt = tensors(q)
        kinds = sorted({t.tensor_type.name for t in qt.values()} - PLAIN)
        check(f"{ftype}: quantized tensors in the file ({', '.join(kinds)})", bool(kinds))
        decodes_as_ggml(llama, qt, ftype)
        exp = expectations(qt, bf16)
        results[ftype] = (q, qt, exp)

        code, g2g, err = audit(gg["bf16"], q)
        g2g_pairs = check_clean_run(f"{ftype} gguf-to-gguf from BF16", code, g2g, err, qt, exp, "BF16")
        tm = checks_by_name(g2g).get("tensor-mapping", {}).get("detail") or ""
        check(f"{ftype} gguf-to-gguf: the tensors are said to be matched by name", tm.endswith("matched by name"), tm)
        code, rep, err = audit(gg["f32"], q)
        check_clean_run(f"{ftype} gguf-to-gguf from F32", code, rep, err, qt, exp, "F32")
        code, rep, err = audit(ck, q)
        # (rows in source coordinates: a Q/K tensor's worst row has another index)
        ck_pairs = check_clean_run(f"{ftype} checkpoint-to-gguf", code, rep, err, qt, exp, "BF16", False)
        tm = checks_by_name(rep).get("tensor-mapping", {}).get("detail") or ""
        check(f"{ftype} checkpoint-to-gguf: the tensors are said to be matched by role", tm.endswith("matched by role"), tm)
        # the checkpoint run's numbers are the gguf-to-gguf run's, tensor by tensor
        diff = []
        for name in exp:
            a, b = ck_pairs.get(name), g2g_pairs.get(name)
            if a is None or b is None:
                diff.append(f"{name}: missing in {'the checkpoint run' if a is None else 'the gguf run'}")
                continue
            for key in ("n_values", "n_changed", "max_abs_error"):
                if a.get(key) != b.get(key):
                    diff.append(f"{name}: {key} {a.get(key)!r} vs {b.get(key)!r}")
            if not close(num(a.get("max_rel_error")), num(b.get("max_rel_error")), REL_TOL_MAX_REL):
                diff.append(f"{name}: max_rel_error {a.get('max_rel_error')!r} vs {b.get('max_rel_error')!r}")
            for key in ("rms_error", "relative_rms_error"):
                if not close(num(a.get(key)), num(b.get(key)), REL_TOL_RMS):
                    diff.append(f"{name}: {key} {a.get(key)!r} vs {b.get(key)!r}")
            wa, wb = (a.get("worst_row") or {}).get("relative_rms_error"), (b.get("worst_row") or {}).get("relative_rms_error")
            if (wa is None) != (wb is None) or (wa is not None and not close(num(wa), num(wb), REL_TOL_RMS)):
                diff.append(f"{name}: worst_row.relative_rms_error {wa!r} vs {wb!r}")
        check(f"{ftype}: checkpoint-to-gguf numbers are the gguf-to-gguf run's for every quantized tensor",
              not diff, "; ".join(diff[:6]))

    # llama-quantize's Q8_0 is the converter's: tensor for tensor, the bytes
    # of our `convert --outtype q8_0` of the checkpoint
    if "Q8_0" in results:
        ours = WORK / "ckpt.q8_0.gguf"
        r = cli("convert", ck, "-o", ours, "--outtype", "q8_0", "--force")
        check("converts the checkpoint to Q8_0", r.returncode == 0, r.stderr.strip())
        if r.returncode == 0:
            a, b = results["Q8_0"][1], tensors(ours)
            diff = [n for n in a if n not in b or a[n].tensor_type != b[n].tensor_type
                    or a[n].data.tobytes() != b[n].data.tobytes()]
            check(f"llama-quantize's Q8_0 tensors are our converter's Q8_0 tensors, byte for byte ({len(a)})",
                  sorted(a) == sorted(b) and not diff, f"{diff[:4]}")

    kinds = {t.tensor_type.name for r in results.values() for t in r[1].values()}
    check(f"every lattice type is in a file and audited above: {sorted(LATTICE & kinds)}",
          LATTICE <= kinds, f"missing {sorted(LATTICE - kinds)}")

    zeros = {f: r[2].get("blk.1.ffn_gate.weight", {}).get("zero_sources_changed", 0) for f, r in results.items()}
    check("the planted zeros of blk.1.ffn_gate.weight decode to non-zero somewhere (max_rel_error's "
          f"Infinity is exercised): {zeros}", any(zeros.values()))

    # (n) the rows of small values: llama.cpp's quantizer leaves some of
    # them as far from the source as zeros, or farther, in every file; they
    # are below their type's resolution, within it, and pass (above). Some
    # decode to zeros (the scale rounded to 0), some not.
    below, zeroed, farther = {}, set(), set()
    for ftype, (q, qt, exp) in results.items():
        fine = [(n, qt[n].tensor_type.name) for n in FINE.values()
                if n in exp and qt[n].tensor_type.name not in ENCODED]
        if not fine:
            continue
        below[ftype] = sum(exp[n]["rows_below_resolution"] for n, _ in fine)
        for n, tn in fine:
            v, src = values(qt[n]), values(bf16[n])
            cols = int(qt[n].shape[0])
            for row, e in enumerate(exp[n]["row_errors"]):
                if e >= 1:
                    if not np.any(v[row * cols:(row + 1) * cols]):
                        zeroed.add(tn)
                    elif e > 1:
                        farther.add(tn)
    check(f"rows of small values below their type's resolution, as far as zeros or farther, in every file: {below}",
          below and all(below.values()), f"{below}")
    check(f"some decode to zeros ({sorted(zeroed)}), some are farther than zeros ({sorted(farther)})",
          zeroed and farther)

    # a weight all of whose rows are below the resolution: no worst row, and
    # the pass detail does not speak of one
    tiny_pairs = {f: pairs_by_target(audit(gg["bf16"], r[0])[1]).get(ALL_FINE_GGUF, {})
                  for f, r in results.items() if r[1][ALL_FINE_GGUF].tensor_type.name not in ENCODED}
    wrong = {f: (p.get("worst_row"), p.get("detail")) for f, p in tiny_pairs.items()
             if p.get("status") != "pass" or "worst_row" in p or "worst row" in (p.get("detail") or "")
             or not p.get("rows_below_resolution")}
    check(f"{ALL_FINE_GGUF}, all below the resolution: passes without a worst row in {sorted(tiny_pairs)}",
          tiny_pairs and not wrong, f"{wrong}")

    # ... and the quantized check counts them per type, as numpy does
    if "Q4_K_M" in results:
        q, qt, exp = results["Q4_K_M"]
        per_type = {}
        for n, e in exp.items():
            tn = qt[n].tensor_type.name
            per_type[tn] = per_type.get(tn, 0) + e["rows_below_resolution"]
        _, report, _ = audit(gg["bf16"], q)
        qc = checks_by_name(report).get("quantized", {})
        detail = qc.get("detail") or ""
        segments = dict(re.findall(r"([A-Z0-9_]+): (\d+ tensors?, [^;]*)", detail))
        wrong = [(tn, c, segments.get(tn)) for tn, c in per_type.items()
                 if tn not in segments or (f"(and {c:,} row" in segments[tn]) != (c > 0)
                 or (c == 0 and "(and" in segments[tn])]
        check(f"Q4_K_M: the quantized check passes and counts the rows below resolution per type ({per_type})",
              qc.get("status") == "pass" and "where its values are all below the type's resolution" in detail
              and not wrong, f"{wrong}; {detail}")

    # (o) one of those rows given the blocks of a row of ordinary values:
    # below the resolution no more, and it fails, named
    if "Q4_K_M" in results:
        q, qt, exp = results["Q4_K_M"]
        name = "output.weight"
        t = qt[name]
        per_block = {"Q4_K": 144, "Q6_K": 210, "Q5_K": 176}.get(t.tensor_type.name)
        check(f"Q4_K_M: {name} is a K-quant", per_block is not None, t.tensor_type.name)
        fine_row = max(FINE_ROWS)
        if per_block:
            row_bytes = int(t.shape[0]) // 256 * per_block
            f = WORK / "ckpt.Q4_K_M.fine-row.gguf"
            data = t.data.tobytes()
            patched_copy(q, f, [(int(t.data_offset) + fine_row * row_bytes, data[:row_bytes])])
            pairs = expect_failure(f"Q4_K_M with row {fine_row} of {name} (values ~2^-33) given row 0's blocks",
                                   *audit(gg["bf16"], f), [name])
            if pairs:
                p = pairs[name]
                check(f"fine row given ordinary blocks: the detail names row {fine_row}",
                      f"row {fine_row} is no closer to the source's values than zeros" in (p.get("detail") or ""),
                      p.get("detail"))

    # (a) two Q4_K tensors of one shape with their data swapped
    if "Q4_K_M" in results:
        q, qt, _ = results["Q4_K_M"]
        a, b = qt.get("blk.0.ffn_gate.weight"), qt.get("blk.0.ffn_up.weight")
        usable = (a is not None and b is not None and a.tensor_type.name == b.tensor_type.name == "Q4_K"
                  and list(a.shape) == list(b.shape) and a.n_bytes == b.n_bytes
                  and a.data.tobytes() != b.data.tobytes())
        check("Q4_K_M: blk.0.ffn_gate and blk.0.ffn_up are Q4_K tensors of one shape, different data", usable)
        if usable:
            swapped = WORK / "ckpt.Q4_K_M.swapped.gguf"
            patched_copy(q, swapped, [(int(a.data_offset), b.data.tobytes()),
                                      (int(b.data_offset), a.data.tobytes())])
            st = tensors(swapped)
            check("swapped file: the two tensors' data are exchanged, nothing else",
                  st["blk.0.ffn_gate.weight"].data.tobytes() == b.data.tobytes()
                  and st["blk.0.ffn_up.weight"].data.tobytes() == a.data.tobytes()
                  and len(st) == len(qt))
            names = ["blk.0.ffn_gate.weight", "blk.0.ffn_up.weight"]
            for label, source in (("gguf-to-gguf", gg["bf16"]), ("checkpoint-to-gguf", ck)):
                code, report, err = audit(source, swapped)
                pairs = expect_failure(f"swapped Q4_K data, {label}", code, report, err, names)
                if pairs:
                    other = {"checkpoint-to-gguf": "model.layers.0.mlp.up_proj.weight",
                             "gguf-to-gguf": "blk.0.ffn_up.weight"}[label]
                    detail = pairs["blk.0.ffn_gate.weight"].get("detail") or ""
                    check(f"swapped Q4_K data, {label}: blk.0.ffn_gate.weight is diagnosed as a "
                          f"quantization of {other}", f"a quantization of {other}: tensors swapped" in detail,
                          detail)
                    check(f"swapped Q4_K data, {label}: the quantized check fails",
                          checks_by_name(report).get("quantized", {}).get("status") == "fail",
                          f"{checks_by_name(report).get('quantized')}")
                    others = [(n, p.get("status"), p.get("detail")) for n, p in pairs.items()
                              if n not in names and p.get("status") != "pass"]
                    check(f"swapped Q4_K data, {label}: every other pair passes", not others, f"{others[:4]}")

    # (b) Q4_K_M from a BF16 GGUF whose blk.0.attn_q.weight has the
    # checkpoint's rows, not permuted
    st = read_st(ck)
    hf_q = st.get("model.layers.0.self_attn.q_proj.weight")
    t = bf16.get("blk.0.attn_q.weight")
    usable = (hf_q is not None and t is not None and t.tensor_type.name == "BF16"
              and len(hf_q[2]) == t.n_bytes and hf_q[2] != t.data.tobytes())
    check("the checkpoint's q_proj rows differ from blk.0.attn_q.weight's (the permutation moves rows)", usable)
    if usable:
        unperm = WORK / "ckpt.bf16.unpermuted-q.gguf"
        patched_copy(gg["bf16"], unperm, [(int(t.data_offset), hf_q[2])])
        check("unpermuted BF16 GGUF: blk.0.attn_q.weight holds q_proj's bytes",
              tensors(unperm)["blk.0.attn_q.weight"].data.tobytes() == hf_q[2])
        q = WORK / "ckpt.unpermuted-q.Q4_K_M.gguf"
        if quantize(unperm, q, "Q4_K_M"):
            qt = tensors(q)
            check("unpermuted Q4_K_M: blk.0.attn_q.weight is quantized",
                  qt["blk.0.attn_q.weight"].tensor_type.name not in PLAIN)
            pairs = expect_failure("Q4_K_M of unpermuted attn_q, checkpoint-to-gguf", *audit(ck, q),
                                   ["blk.0.attn_q.weight"])
            if pairs:
                detail = pairs["blk.0.attn_q.weight"].get("detail") or ""
                check("Q4_K_M of unpermuted attn_q: diagnosed as the permutation not applied",
                      "without the Q/K permutation: the permutation was not applied" in detail, detail)
                code, report, err = audit(ck, q)
                perm = checks_by_name(report).get("permutation", {})
                check("Q4_K_M of unpermuted attn_q: the permutation check fails", perm.get("status") == "fail",
                      f"{perm}")
                others = [(n, p.get("status"), p.get("detail")) for n, p in pairs.items()
                          if n != "blk.0.attn_q.weight" and p.get("status") != "pass"]
                check("Q4_K_M of unpermuted attn_q: every other pair passes", not others, f"{others[:4]}")

    # (c) a Q4_K block whose scale d is a NaN, or an infinity: its 256
    # values decode to NaN or infinities. The block is one of the last, and
    # the audit works in small chunks, so its count is merged from a later
    # chunk into earlier ones.
    if "Q4_K_M" in results:
        q, qt, _ = results["Q4_K_M"]
        t = qt["blk.1.ffn_up.weight"]
        check("Q4_K_M: blk.1.ffn_up.weight is Q4_K", t.tensor_type.name == "Q4_K", t.tensor_type.name)
        block = t.n_bytes // 144 - 2
        for label, bits in (("NaN", 0x7e00), ("infinite", 0x7c00)):
            bad_scale = WORK / f"ckpt.Q4_K_M.{label}-scale.gguf"
            # d, the block's first f16
            patched_copy(q, bad_scale, [(int(t.data_offset) + block * 144, struct.pack("<H", bits))])
            pairs = expect_failure(f"Q4_K block with a {label} scale", *audit(gg["bf16"], bad_scale, SMALL_CHUNKS),
                                   ["blk.1.ffn_up.weight"])
            if pairs:
                p = pairs["blk.1.ffn_up.weight"]
                first = (p.get("first_mismatch") or {}).get("index")
                # an infinite d times a zero nibble with a zero minimum is a NaN, the
                # others infinite: every value of the block, unless the source's is not finite
                check(f"{label} scale: the block's 256 values are counted, the first at its index",
                      p.get("n_mismatch") == 256 and first == block * 256,
                      f"n_mismatch {p.get('n_mismatch')}, first {p.get('first_mismatch')}")
                check(f"{label} scale: the detail says NaN or infinite where the source is finite",
                      "NaN or infinite in Q4_K where the source's are finite" in (p.get("detail") or ""),
                      p.get("detail"))
                if label == "infinite":
                    # an infinity against a finite value is an infinite error
                    check("infinite scale: max_abs_error and max_rel_error are Infinity",
                          p.get("max_abs_error") == "Infinity" and p.get("max_rel_error") == "Infinity",
                          f"{p.get('max_abs_error')!r} {p.get('max_rel_error')!r}")

    # (g) rows zeroed, or taken from another tensor: the tensor as a whole
    # is still closer to its source than zeros, but those rows are not
    if "Q4_K_M" in results:
        q, qt, _ = results["Q4_K_M"]
        t, other = qt["blk.0.ffn_up.weight"], qt["blk.0.ffn_gate.weight"]
        row_bytes = int(t.shape[0]) // 256 * 144
        n_rows = t.n_bytes // row_bytes
        first, third = n_rows // 10, n_rows * 3 // 10
        # the last 90 % of the rows zeroed; the first 30 % those of ffn_gate
        for label, share, row0, data in (
                ("zeroed", "90%", first, bytes(row_bytes * (n_rows - first))),
                ("taken from ffn_gate", "30%", 0, other.data.tobytes()[:third * row_bytes])):
            f = WORK / f"ckpt.Q4_K_M.rows-{label.split()[0]}.gguf"
            patched_copy(q, f, [(int(t.data_offset) + row0 * row_bytes, data)])
            exp = expected_stats(values(bf16["blk.0.ffn_up.weight"]), values(tensors(f)["blk.0.ffn_up.weight"]),
                                 int(t.shape[0]), resolution(t.tensor_type.name))
            check(f"rows {label}: the tensor's relative RMS error is below 1, a row's is not",
                  exp["relative_rms_error"] < 1 <= exp["worst_row_error"],
                  f"{exp['relative_rms_error']}, worst row {exp['worst_row_error']}")
            pairs = expect_failure(f"Q4_K_M with {share} of blk.0.ffn_up.weight's rows {label}",
                                   *audit(gg["bf16"], f), ["blk.0.ffn_up.weight"])
            if pairs:
                p = pairs["blk.0.ffn_up.weight"]
                check(f"rows {label}: the detail names row {exp['worst_row']}",
                      f"row {exp['worst_row']:,} is no closer to the source's values than zeros" in
                      (p.get("detail") or ""), p.get("detail"))
            expect_failure(f"Q4_K_M with {share} of blk.0.ffn_up.weight's rows {label}, checkpoint-to-gguf",
                           *audit(ck, f), ["blk.0.ffn_up.weight"])

    # (i) a source of zeros: its quantization is zeros (relative error 0,
    # checked with the others above); a block made non-zero is infinitely far
    if "Q4_K_M" in results:
        q, qt, exp = results["Q4_K_M"]
        t = qt[ALL_ZERO_GGUF]
        check(f"{ALL_ZERO_GGUF}: a source of zeros, quantized to zeros",
              exp[ALL_ZERO_GGUF]["relative_rms_error"] == 0 and not np.any(values(t)),
              f"{exp[ALL_ZERO_GGUF]['relative_rms_error']}")
        size = {"Q4_K": 144, "Q6_K": 210}.get(t.tensor_type.name)
        check(f"{ALL_ZERO_GGUF} is Q4_K or Q6_K", size is not None, t.tensor_type.name)
        if size:
            f = WORK / "ckpt.Q4_K_M.zero-source.gguf"
            # every byte of the first block 0x11: a scale and levels that are not 0
            patched_copy(q, f, [(int(t.data_offset), b"\x11" * size)])
            pairs = expect_failure("a source of zeros, a block made non-zero", *audit(gg["bf16"], f),
                                   [ALL_ZERO_GGUF])
            if pairs:
                p = pairs[ALL_ZERO_GGUF]
                check("a source of zeros: relative RMS error Infinity, in the tensor and its row 0",
                      p.get("relative_rms_error") == "Infinity"
                      and (p.get("worst_row") or {}).get("relative_rms_error") == "Infinity"
                      and (p.get("worst_row") or {}).get("row") == 0, f"{p}")

    # (j) the same audit in chunks of 4 KiB: every figure as in one chunk
    if "Q4_K_M" in results:
        q, qt, _ = results["Q4_K_M"]
        _, whole, _ = audit(gg["bf16"], q)
        code, chunked, err = audit(gg["bf16"], q, SMALL_CHUNKS)
        a, b = pairs_by_target(whole), pairs_by_target(chunked)
        diff = []
        for name, p in a.items():
            o = b.get(name, {})
            for key in ("n_values", "n_changed", "n_mismatch", "max_abs_error", "max_rel_error", "status"):
                if p.get(key) != o.get(key):
                    diff.append(f"{name}: {key} {p.get(key)!r} vs {o.get(key)!r}")
            for key in ("rms_error", "relative_rms_error"):
                if not close(num(o.get(key)), num(p.get(key)), 1e-12):
                    diff.append(f"{name}: {key} {p.get(key)!r} vs {o.get(key)!r}")
            if (p.get("worst_row") or {}).get("row") != (o.get("worst_row") or {}).get("row"):
                diff.append(f"{name}: worst_row {p.get('worst_row')!r} vs {o.get('worst_row')!r}")
        check("Q4_K_M audited in 4 KiB chunks: the figures of one chunk per tensor", code == 0 and not diff and a,
              f"exit {code}; {diff[:4]}")

    # (d) a type the audit does not decode (Q8_K, ggml's intermediate type,
    # which no quantizer writes to a file): its pairs are a warning, not a
    # pass and not a failure, as target and as source (against the same
    # tensors as gguf-py's Q4_0 of random values): the warning names Q8_K
    if "Q4_K_M" in results:
        qt = results["Q4_K_M"][1]
        rng = np.random.default_rng(7)
        odd = sorted(n for n, t in qt.items() if t.tensor_type.name not in PLAIN)[:3]
        q8k, q40 = WORK / "ckpt.Q8_K.gguf", WORK / "ckpt.Q8_K.as-q4_0.gguf"
        for path, typ in ((q8k, gguf.GGMLQuantizationType.Q8_K), (q40, gguf.GGMLQuantizationType.Q4_0)):
            arrays = {}
            for n, t in qt.items():
                shape = gguf_shape(t)
                if n not in odd:
                    arrays[n] = (values(t).reshape(shape), None)
                elif typ == gguf.GGMLQuantizationType.Q4_0:
                    arrays[n] = (gguf.quants.quantize(rng.standard_normal(shape).astype(np.float32), typ), typ)
                else:
                    block, size = gguf.GGML_QUANT_SIZES[typ]
                    raw = rng.integers(0, 256, size=(shape[0], shape[1] // block * size), dtype=np.uint8)
                    arrays[n] = (raw, typ)
            write_gguf(path, arrays)
        check("Q8_K: the file holds Q8_K tensors", sorted(n for n, t in tensors(q8k).items()
                                                          if t.tensor_type.name == "Q8_K") == odd, f"{odd}")
        for label, src, tgt in (("Q8_K target", q40, q8k), ("Q8_K source, Q4_0 target", q8k, q40)):
            code, report, err = audit(src, tgt)
            pairs = pairs_by_target(report)
            bad = [(n, pairs.get(n)) for n in odd if pairs.get(n, {}).get("status") != "warn"
                   or "cannot decode Q8_K" not in (pairs.get(n, {}).get("detail") or "")
                   or pairs.get(n, {}).get("comparison") is not None]
            check(f"{label}: exit 0, passed, each Q8_K pair a warning that the audit cannot decode Q8_K",
                  code == 0 and report and report.get("passed") is True and not bad,
                  f"exit {code}: {err[-300:]} {bad[:2]}")
            nc = checks_by_name(report).get("not-compared", {})
            check(f"{label}: the not-compared check warns and names them",
                  nc.get("status") == "warn" and odd[0] in (nc.get("detail") or ""), f"{nc}")

    # (l) a quantized source against another quantized type: the Q4_K_M
    # file requantized to Q4_0 by gguf-py (its quantize() from the decoded
    # values), each side decoded, the statistics numpy's
    if "Q4_K_M" in results:
        q, qt, _ = results["Q4_K_M"]
        requant = WORK / "ckpt.Q4_K_M.requantized-q4_0.gguf"
        write_gguf(requant, {n: (gguf.quants.quantize(values(t).reshape(gguf_shape(t)), gguf.GGMLQuantizationType.Q4_0), gguf.GGMLQuantizationType.Q4_0)
                             if t.tensor_type.name not in PLAIN else (values(t).reshape(gguf_shape(t)), None)
                             for n, t in qt.items()})
        rt = tensors(requant)
        exp = {n: expected_stats(values(qt[n]), values(t), int(t.shape[0]), resolution(t.tensor_type.name))
               for n, t in rt.items() if t.tensor_type.name not in PLAIN}
        code, report, err = audit(q, requant)
        pairs = check_clean_run("Q4_K_M requantized to Q4_0", code, report, err, rt, exp, None)
        bad = [n for n in exp if pairs.get(n, {}).get("source_dtype") not in ("Q4_K", "Q6_K")
               or pairs.get(n, {}).get("comparison") != "decoded"]
        check("Q4_K_M requantized to Q4_0: each pair is Q4_K or Q6_K to Q4_0, decoded on both sides", not bad,
              f"{[(n, pairs.get(n)) for n in bad[:2]]}")

    # (m) an integer type changed (I64 to I32, a value truncated): not a
    # question of decoding, a pair that cannot be compared, and a failure
    src_dir, tgt_dir = WORK / "int-source", WORK / "int-target"
    for d, (st_dtype, arr) in ((src_dir, ("I64", np.array([1, 2 ** 40, 3, -5], "<i8"))),
                               (tgt_dir, ("I32", np.array([1, 0, 3, -5], "<i4")))):
        shutil.rmtree(d, ignore_errors=True)
        d.mkdir()
        write_safetensors(d / "model.safetensors", [("x", st_dtype, arr)])
    code, report, err = audit(src_dir / "model.safetensors", tgt_dir / "model.safetensors")
    pairs = expect_failure("I64 to I32", code, report, err, ["x"])
    if pairs:
        nc = checks_by_name(report).get("not-compared", {})
        check("I64 to I32: the pair cannot compare I64 values with I32 values, and not-compared fails",
              "cannot compare I64 values with I32 values" in (pairs["x"].get("detail") or "")
              and nc.get("status") == "fail" and "x" in (nc.get("detail") or ""),
              f"{pairs['x'].get('detail')!r}; {nc}")

    # (f) the file type's name, as `inspect` prints it, is llama.h's for
    # every value of enum llama_ftype: general.file_type of the BF16 GGUF
    # patched in place to each
    reader = gguf.GGUFReader(str(gg["bf16"]))
    field = reader.fields["general.file_type"]
    value_part = field.parts[field.data[0]]
    offset = int(value_part.ctypes.data - reader.data.ctypes.data)
    check("general.file_type of the BF16 GGUF is a uint32 (32, BF16)",
          value_part.dtype == np.uint32 and int(value_part[0]) == llama.ftypes.get("BF16"),
          f"{value_part.dtype} {value_part}")
    wrong = []
    patched = WORK / "ckpt.bf16.file-type.gguf"
    for name, number in sorted(llama.ftypes.items(), key=lambda kv: kv[1]):
        patched_copy(gg["bf16"], patched, [(offset, struct.pack("<I", number))])
        line = next((l for l in cli("inspect", patched).stdout.splitlines() if l.startswith("File type:")), None)
        if line != f"File type:         {name} (general.file_type {number})":
            wrong.append((name, number, line))
        js = json.loads(cli("inspect", patched, "--json").stdout)
        if js.get("file_type") != name:
            wrong.append((name, number, f"--json file_type {js.get('file_type')!r}"))
    patched_copy(gg["bf16"], patched, [(offset, struct.pack("<I", 1000))])
    line = next((l for l in cli("inspect", patched).stdout.splitlines() if l.startswith("File type:")), None)
    if line != "File type:         unknown (general.file_type 1000)":
        wrong.append(("unknown", 1000, line))
    if "file_type" in json.loads(cli("inspect", patched, "--json").stdout):
        wrong.append(("unknown", 1000, "--json has a file_type"))
    patched.unlink()
    check(f"inspect names every llama_ftype value of llama.h as llama.h does ({len(llama.ftypes)} values), "
          "and an unknown one as unknown", not wrong, f"{wrong[:4]}")

    # (e) a quantized source: the Q4_K_M file against its own values
    # dequantized by gguf-py into an F32 GGUF (written by gguf-py's
    # writer): every value is held exactly; one value off fails
    if "Q4_K_M" in results:
        q, qt, _ = results["Q4_K_M"]
        for label, bump in (("dequantized", None), ("dequantized, one value off", "blk.0.ffn_down.weight")):
            out = WORK / f"ckpt.Q4_K_M.{'f32' if bump is None else 'f32-off'}.gguf"
            w = gguf.GGUFWriter(str(out), "llama")
            for name, t in qt.items():
                v = values(t).reshape([int(d) for d in reversed(t.shape)])
                if name == bump:
                    v = v.copy()
                    v.flat[5] = np.nextafter(v.flat[5], np.float32(np.inf))
                w.add_tensor(name, v)
            w.write_header_to_file()
            w.write_kv_data_to_file()
            w.write_tensors_to_file()
            w.close()
            code, report, err = audit(q, out)
            pairs = pairs_by_target(report)
            quantized = [n for n, t in qt.items() if t.tensor_type.name not in PLAIN]
            if bump is None:
                check(f"Q4_K_M source, {label} F32 target: exit 0, passed",
                      code == 0 and report and report.get("passed") is True, f"exit {code}: {err[-300:]}")
                # a decoded value is a float32: F32 holds it, nothing is lossy
                bad = [n for n in quantized if pairs.get(n, {}).get("status") != "pass"
                       or pairs.get(n, {}).get("comparison") != "encoded"
                       or pairs.get(n, {}).get("lossy") is not False]
                check(f"Q4_K_M source, {label} F32 target: the quantized tensors are decoded and held "
                      "exactly (comparison encoded, not lossy, pass)", not bad, f"{[(n, pairs.get(n)) for n in bad[:2]]}")
            else:
                expect_failure(f"Q4_K_M source, {label}", code, report, err, [bump])
                p = pairs.get(bump, {})
                check(f"Q4_K_M source, {label}: one mismatch at index 5", p.get("n_mismatch") == 1
                      and (p.get("first_mismatch") or {}).get("index") == 5, f"{p}")
    return summary()


if __name__ == "__main__":
    if len(sys.argv) != 4:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        sys.exit(2)
    CLI, WORK, NODE_MODULES = sys.argv[1], Path(sys.argv[2]), sys.argv[3]
    sys.exit(main())
