#!/usr/bin/python3
"""Audit tests (issue 4): clean conversions pass, and every planted fault is
detected and named.

Usage: check_audit.py TENSORSCOPE_CLI WORKDIR

Inputs come from writers we did not write in C: tests/ref/gen_checkpoint.py
(checkpoints), tests/ref/ref_convert.py (a Python re-derivation of llama.cpp's
converter) and the small GGUF reader/writer below, which rewrites those files
in another tensor order, with extra keys, another alignment, or with faults.
Our own converter's outputs are audited too when `tensorscope-cli convert`
exists.
"""

import json
import os
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
GEN = HERE / "ref" / "gen_checkpoint.py"
REF = HERE / "ref" / "ref_convert.py"
PY = "/usr/bin/python3"
OUTTYPES = ["bf16", "f16", "f32", "q8_0"]

# ------------------------------------------------------------------ GGUF I/O

T_UINT32, T_STRING, T_ARRAY = 4, 8, 9
SCALAR_SIZE = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}
# ggml type -> (block size, bytes per block)
GGML = {0: (1, 4), 1: (1, 2), 30: (1, 2), 8: (32, 34)}
F32, F16, BF16, Q8_0 = 0, 1, 30, 8


def _skip_value(buf, pos, t):
    if t in SCALAR_SIZE:
        return pos + SCALAR_SIZE[t]
    if t == T_STRING:
        (n,) = struct.unpack_from("<Q", buf, pos)
        return pos + 8 + n
    if t == T_ARRAY:
        et, n = struct.unpack_from("<IQ", buf, pos)
        pos += 12
        if et in SCALAR_SIZE:
            return pos + n * SCALAR_SIZE[et]
        for _ in range(n):
            pos = _skip_value(buf, pos, et)
        return pos
    raise ValueError(f"value type {t}")


def _read_string(buf, pos):
    (n,) = struct.unpack_from("<Q", buf, pos)
    return buf[pos + 8:pos + 8 + n].decode("utf-8"), pos + 8 + n


class Gguf:
    """kv: [key, type, raw value bytes]; tensors: dicts name/dims/type/data."""

    def __init__(self, path):
        buf = Path(path).read_bytes()
        assert buf[:4] == b"GGUF"
        self.version, n_t, n_kv = struct.unpack_from("<IQQ", buf, 4)
        pos = 24
        self.kv = []
        for _ in range(n_kv):
            key, pos = _read_string(buf, pos)
            (t,) = struct.unpack_from("<I", buf, pos)
            end = _skip_value(buf, pos + 4, t)
            self.kv.append([key, t, buf[pos + 4:end]])
            pos = end
        infos = []
        for _ in range(n_t):
            name, pos = _read_string(buf, pos)
            (nd,) = struct.unpack_from("<I", buf, pos)
            dims = list(struct.unpack_from(f"<{nd}Q", buf, pos + 4))
            typ, off = struct.unpack_from("<IQ", buf, pos + 4 + 8 * nd)
            pos += 4 + 8 * nd + 12
            infos.append((name, dims, typ, off))
        self.alignment = 32
        for k, t, raw in self.kv:
            if k == "general.alignment":
                (self.alignment,) = struct.unpack("<I", raw)
        start = (pos + self.alignment - 1) // self.alignment * self.alignment
        self.tensors = []
        for name, dims, typ, off in infos:
            n = int(np.prod(dims, dtype=np.int64))
            bs, ts = GGML[typ]
            size = n // bs * ts
            self.tensors.append({"name": name, "dims": dims, "type": typ,
                                 "data": bytearray(buf[start + off:start + off + size])})

    def tensor(self, name):
        return next(t for t in self.tensors if t["name"] == name)

    def set_u32(self, key, value):
        for e in self.kv:
            if e[0] == key:
                e[2] = struct.pack("<I", value)
                return
        raise KeyError(key)

    def add_kv(self, key, t, raw):
        self.kv.append([key, t, raw])

    def write(self, path, alignment=None):
        alignment = alignment or self.alignment
        kv = [e for e in self.kv if e[0] != "general.alignment"]
        if alignment != 32:
            kv.append(["general.alignment", T_UINT32, struct.pack("<I", alignment)])
        pad = lambda n: (-n) % alignment  # noqa: E731
        out = bytearray(b"GGUF" + struct.pack("<IQQ", 3, len(self.tensors), len(kv)))
        for k, t, raw in kv:
            kb = k.encode()
            out += struct.pack("<Q", len(kb)) + kb + struct.pack("<I", t) + raw
        off = 0
        for t in self.tensors:
            nb = t["name"].encode()
            out += struct.pack("<Q", len(nb)) + nb + struct.pack("<I", len(t["dims"]))
            out += b"".join(struct.pack("<Q", d) for d in t["dims"])
            out += struct.pack("<IQ", t["type"], off)
            off += len(t["data"]) + pad(len(t["data"]))
        out += b"\0" * pad(len(out))
        for t in self.tensors:
            out += t["data"] + b"\0" * pad(len(t["data"]))
        Path(path).write_bytes(out)


def string_raw(s):
    b = s.encode()
    return struct.pack("<Q", len(b)) + b


# ------------------------------------------------------------------ helpers

class Runner:
    def __init__(self, cli, work):
        self.cli = cli
        self.work = Path(work)
        self.passed = 0
        self.failed = []

    def check(self, name, ok, info=""):
        if ok:
            self.passed += 1
            print(f"ok   {name}")
        else:
            self.failed.append(name)
            print(f"FAIL {name}: {info}")

    def audit(self, source, target, extra=()):
        p = subprocess.run([self.cli, "audit", str(source), str(target), "--json", *extra],
                           capture_output=True, text=True, timeout=600)
        try:
            report = json.loads(p.stdout)
        except ValueError:
            report = None
        return p.returncode, report, p.stderr


def pair(report, target):
    return next((t for t in report["tensors"] if t["target"] == target), None)


def check_named(report, name):
    return next((c for c in report["checks"] if c["name"] == name), None)


def size_sums(report):
    size = report["size"]
    return (sum(r["delta"] for r in size["rows"]) == size["delta"] ==
            size["target_bytes"] - size["source_bytes"])


def permuted_source_row(row, rows_per_head):
    h, r = divmod(row, rows_per_head)
    return h * rows_per_head + (r % 2) * (rows_per_head // 2) + r // 2


def rows_view(t):
    """A GGUF matrix as a [rows, row bytes] uint8 array (a view on its data)."""
    rows = t["dims"][1] if len(t["dims"]) > 1 else t["dims"][0]
    return np.frombuffer(t["data"], np.uint8).reshape(rows, -1)


def permute_rows(t, n_head, inverse=False):
    a = rows_view(t).copy()
    rph = a.shape[0] // n_head
    idx = np.array([permuted_source_row(r, rph) for r in range(a.shape[0])])
    out = np.empty_like(a)
    if inverse:
        out[idx] = a          # target row r holds source row idx[r]
    else:
        out = a[idx]
    t["data"] = bytearray(out.tobytes())


def flip_bit(t, element, bit):
    bs, ts = GGML[t["type"]]
    if bs == 1:
        byte = element * ts + bit // 8
    else:                     # Q8_0: the quant byte of @element
        byte = element // 32 * 34 + 2 + element % 32
    t["data"][byte] ^= 1 << (bit % 8)


# ------------------------------------------------------------------ fixtures

def make_fixtures(r):
    r.work.mkdir(parents=True, exist_ok=True)
    ck = r.work / "ck"
    ck32 = r.work / "ck-f32"
    ck1 = r.work / "ck-1shard"
    subprocess.run([PY, str(GEN), str(ck), "--shards", "2", "--layers", "2"], check=True)
    subprocess.run([PY, str(GEN), str(ck1), "--shards", "1", "--layers", "2"], check=True)
    subprocess.run([PY, str(GEN), str(ck32), "--dtype", "f32", "--layers", "2"], check=True)
    ggufs = {}
    for t in OUTTYPES:
        out = r.work / f"ref-{t}.gguf"
        subprocess.run([PY, str(REF), str(ck), str(out), "--outtype", t], check=True)
        ggufs[t] = out
    out32 = r.work / "ref-f32src-bf16.gguf"
    subprocess.run([PY, str(REF), str(ck32), str(out32), "--outtype", "bf16"], check=True)
    return ck, ck1, ck32, ggufs, out32


def config_heads(ck):
    cfg = json.loads((ck / "config.json").read_text())
    return cfg["num_attention_heads"], cfg.get("num_key_value_heads", cfg["num_attention_heads"])


# ------------------------------------------------------------------ cases

def clean_cases(r, ck, ggufs):
    for t, path in ggufs.items():
        code, rep, err = r.audit(ck, path)
        r.check(f"clean ref {t}: exit 0", code == 0 and rep and rep["passed"], err or rep)
        r.check(f"clean ref {t}: sizes sum exactly", rep and size_sums(rep))
        if rep and t in ("f16", "q8_0"):
            lossy = [p for p in rep["tensors"] if p["lossy"]]
            r.check(f"clean ref {t}: lossy stats reported",
                    lossy and all(p["n_mismatch"] == 0 for p in lossy) and
                    sum(p["n_changed"] for p in lossy) > 0 and
                    max(p["max_abs_error"] for p in lossy) > 0)
            # a relative error of 1 (a value rounded to 0) is explained
            # beside the passed check, and only then
            c = check_named(rep, "lossy-rounding")
            max_rel = max(p["max_rel_error"] for p in lossy)
            r.check(f"clean ref {t}: lossy-rounding passes and says why an error reaches 1",
                    c and c["status"] == "pass" and
                    ("rounds to 0, a relative error of 1" in c["detail"]) == (max_rel >= 1.0),
                    f"max rel {max_rel}: {c}")
            print(f"# {t}: max rel error {max_rel}")
    # an independent writer: reversed tensor order, extra keys, alignment 64
    g = Gguf(ggufs["bf16"])
    g.tensors.reverse()
    g.add_kv("general.description", T_STRING, string_raw("rewritten by check_audit.py"))
    g.add_kv("tensorscope.test.extra", T_UINT32, struct.pack("<I", 7))
    other = r.work / "rewritten-align64.gguf"
    g.write(other, alignment=64)
    code, rep, err = r.audit(ck, other)
    r.check("independent writer (order, extra keys, alignment 64): exit 0",
            code == 0 and rep and rep["passed"], err or rep)
    r.check("independent writer: sizes sum exactly", rep and size_sums(rep))
    r.check("independent writer: padding row explains alignment",
            rep and any(row["section"] == "alignment padding" and row["delta"] > 0
                        for row in rep["size"]["rows"]))
    return other


def edge_value_cases(r):
    """NaNs (signalling too), infinities, subnormals, signed zeros, rounding ties
    and F16 overflow, in BF16 and F32 sources, through all four output types."""
    for dtype in ("bf16", "f32"):
        ck = r.work / f"edge-{dtype}"
        subprocess.run([PY, str(GEN), str(ck), "--edge-values", "--dtype", dtype], check=True)
        for t in OUTTYPES:
            out = r.work / f"edge-{dtype}-{t}.gguf"
            subprocess.run([PY, str(REF), str(ck), str(out), "--outtype", t], check=True)
            code, rep, err = r.audit(ck, out)
            r.check(f"edge values {dtype} -> {t}: exit 0", code == 0 and rep and rep["passed"],
                    err or rep)


def our_converter_cases(r, ck):
    help_run = subprocess.run([r.cli, "convert", "--help"], capture_output=True, text=True)
    if help_run.returncode != 0:
        print("note: tensorscope-cli convert is not available; its outputs are not audited")
        return
    for t in OUTTYPES:
        out = r.work / f"ours-{t}.gguf"
        c = subprocess.run([r.cli, "convert", str(ck), "-o", str(out), "--outtype", t, "--force"],
                           capture_output=True, text=True)
        r.check(f"our converter {t}: converts", c.returncode == 0, c.stderr)
        if c.returncode != 0:
            continue
        code, rep, err = r.audit(ck, out)
        r.check(f"our converter {t}: audits clean", code == 0 and rep and rep["passed"], err or rep)
        r.check(f"our converter {t}: sizes sum exactly", rep and size_sums(rep))

    # a pre-tokenizer only a name identifies (given with --tokenizer-pre): the
    # audit cannot hold the name to the source, and says so with a warning
    other = r.work / "ck-other-pre"
    shutil.rmtree(other, ignore_errors=True)
    shutil.copytree(ck, other)
    tok = json.loads((other / "tokenizer.json").read_text(encoding="utf-8"))
    tok["pre_tokenizer"] = {"type": "Sequence", "pretokenizers": [
        {"type": "Digits", "individual_digits": True},
        {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True}]}
    (other / "tokenizer.json").write_text(json.dumps(tok), encoding="utf-8")
    out = r.work / "ours-other-pre.gguf"
    c = subprocess.run([r.cli, "convert", str(other), "-o", str(out), "--tokenizer-pre", "smollm",
                        "--force"], capture_output=True, text=True)
    r.check("a pre-tokenizer without a name: converts with --tokenizer-pre", c.returncode == 0, c.stderr)
    code, rep, err = r.audit(other, out)
    p = rep and check_named(rep, "metadata:tokenizer.ggml.pre")
    r.check("a pre-tokenizer without a name: its name is a warning (not provable), the audit passes",
            code == 0 and p and p["status"] == "warn" and "smollm" in p["detail"], f"exit {code} {p}")


def expect_fail(r, name, source, gguf_path, predicate):
    code, rep, err = r.audit(source, gguf_path)
    ok = code == 1 and rep is not None and not rep["passed"]
    r.check(f"{name}: detected (exit 1)", ok, f"exit {code} {err}")
    if ok:
        r.check(f"{name}: named", predicate(rep), json.dumps(rep, indent=1)[:3000])
        r.check(f"{name}: sizes sum exactly", size_sums(rep))


def bit_flip_cases(r, ck, ggufs):
    n_head, n_kv = config_heads(ck)
    cases = [  # (class, gguf tensor, element, bit, heads of its permutation)
        ("embedding", "token_embd.weight", 70, 3, 0),
        ("permuted Q", "blk.0.attn_q.weight", None, 2, n_head),
        ("permuted K", "blk.1.attn_k.weight", None, 5, n_kv),
        ("V", "blk.0.attn_v.weight", 100, 1, 0),
        ("FFN", "blk.1.ffn_down.weight", 333, 4, 0),
        ("norm", "blk.0.attn_norm.weight", 7, 0, 0),
        ("rope_freqs", "rope_freqs.weight", 3, 0, 0),
    ]
    for cls, name, element, bit, heads in cases:
        for t in ("bf16", "q8_0") if cls == "FFN" else ("bf16",):
            g = Gguf(ggufs[t])
            tensor = g.tensor(name)
            cols = tensor["dims"][0]
            if element is None:
                element = cols * 1 + 5        # row 1: the permutation moves it
            flip_bit(tensor, element, bit)
            path = r.work / f"flip-{name}-{t}.gguf"
            g.write(path)
            row, col = divmod(element, cols) if len(tensor["dims"]) > 1 else (0, element)
            if heads:
                row = permuted_source_row(row, len(rows_view(tensor)) // heads)
            want = row * cols + col if len(tensor["dims"]) > 1 else element

            def named(rep, name=name, want=want, t=t, cls=cls):
                p = pair(rep, name)
                first = p and p["first_mismatch"]
                ok = (p is not None and p["status"] == "fail" and p["n_mismatch"] == 1 and
                      first is not None and first["index"] == want)
                if t == "bf16":
                    ok = ok and "flipped bit" in (p["detail"] or "")
                elif p is not None:
                    # the plain diagnosis: how many values, and what they should be
                    ok = ok and (p["detail"] or "").startswith("1 of ") and \
                        (p["detail"] or "").endswith(f" values are not the source's values in {p['target_dtype']}")
                if cls == "rope_freqs":
                    ok = ok and check_named(rep, "rope-freqs")["status"] == "fail"
                else:
                    ok = ok and check_named(rep, "values")["status"] == "fail"
                return ok

            expect_fail(r, f"flipped bit in {cls} ({name}, {t})", ck, path, named)


def permutation_cases(r, ck, ggufs):
    n_head, n_kv = config_heads(ck)
    g = Gguf(ggufs["bf16"])
    for t in g.tensors:
        if t["name"].endswith("attn_q.weight"):
            permute_rows(t, n_head, inverse=True)
        elif t["name"].endswith("attn_k.weight"):
            permute_rows(t, n_kv, inverse=True)
    path = r.work / "no-permutation.gguf"
    g.write(path)
    expect_fail(r, "Q/K permutation omitted", ck, path, lambda rep: (
        "not applied" in (pair(rep, "blk.0.attn_q.weight")["detail"] or "") and
        "not applied" in (pair(rep, "blk.1.attn_k.weight")["detail"] or "") and
        check_named(rep, "permutation")["status"] == "fail"))

    g = Gguf(ggufs["bf16"])
    for t in g.tensors:
        if t["name"].endswith("attn_q.weight"):
            permute_rows(t, n_head, inverse=True)
            permute_rows(t, n_head // 2)
    path = r.work / "wrong-heads.gguf"
    g.write(path)
    expect_fail(r, "permutation with the wrong head count", ck, path, lambda rep: (
        f"with {n_head // 2} heads instead of {n_head}" in
        (pair(rep, "blk.0.attn_q.weight")["detail"] or "")))


def round_bf16(u32):
    u32 = u32.astype(np.uint64)
    r = ((u32 + 0x7FFF + ((u32 >> 16) & 1)) >> 16) << 16
    return r.astype(np.uint32)


def norm_cases(r, ck, ggufs, ck32, ref32):
    # an F32 checkpoint: norms kept as F32 but rounded to BF16 precision
    g = Gguf(ref32)
    for t in g.tensors:
        if t["name"].endswith("_norm.weight"):
            bits = np.frombuffer(bytes(t["data"]), "<u4")
            t["data"] = bytearray(round_bf16(bits).astype("<u4").tobytes())
    path = r.work / "norms-rounded-values.gguf"
    g.write(path)
    expect_fail(r, "norms rounded to BF16 (F32 source)", ck32, path, lambda rep: (
        "rounded to BF16" in (pair(rep, "blk.0.attn_norm.weight")["detail"] or "")))

    # a BF16 checkpoint: norms stored as BF16 instead of F32
    g = Gguf(ggufs["bf16"])
    for t in g.tensors:
        if t["name"].endswith("_norm.weight"):
            bits = np.frombuffer(bytes(t["data"]), "<u4")
            t["data"] = bytearray((bits >> 16).astype("<u2").tobytes())
            t["type"] = BF16
    path = r.work / "norms-bf16-type.gguf"
    g.write(path)
    expect_fail(r, "norms stored as BF16", ck, path, lambda rep: (
        check_named(rep, "tensor-types")["status"] == "fail" and
        "stored as BF16" in (pair(rep, "output_norm.weight")["detail"] or "")))


def structure_cases(r, ck, ggufs):
    # the GGUF of another, narrower checkpoint: every shape differs, so no value
    # is compared, and no check may say the Q/K permutation was
    narrow = r.work / "ck-narrow"
    subprocess.run([PY, str(GEN), str(narrow), "--layers", "2", "--hidden", "32", "--heads", "2",
                    "--kv-heads", "1", "--intermediate", "48"], check=True, capture_output=True)
    path = r.work / "narrow.gguf"
    subprocess.run([PY, str(REF), str(narrow), str(path), "--outtype", "bf16"], check=True)
    expect_fail(r, "another checkpoint's GGUF", ck, path, lambda rep: (
        check_named(rep, "shapes")["status"] == "fail" and
        not any(c["name"] == "permutation" for c in rep["checks"]) and
        check_named(rep, "values")["status"] == "warn" and
        "no value was compared" in check_named(rep, "values")["detail"]))

    g = Gguf(ggufs["bf16"])
    a, b = g.tensor("blk.0.ffn_gate.weight"), g.tensor("blk.0.ffn_up.weight")
    a["data"], b["data"] = b["data"], a["data"]
    path = r.work / "swapped.gguf"
    g.write(path)
    expect_fail(r, "two tensors swapped", ck, path, lambda rep: (
        "model.layers.0.mlp.up_proj.weight" in (pair(rep, "blk.0.ffn_gate.weight")["detail"] or "") and
        "model.layers.0.mlp.gate_proj.weight" in (pair(rep, "blk.0.ffn_up.weight")["detail"] or "")))

    g = Gguf(ggufs["bf16"])
    g.tensors = [t for t in g.tensors if t["name"] != "blk.1.ffn_up.weight"]
    path = r.work / "missing.gguf"
    g.write(path)
    expect_fail(r, "a tensor missing", ck, path, lambda rep: (
        check_named(rep, "tensor-mapping")["status"] == "fail" and
        "model.layers.1.mlp.up_proj.weight" in check_named(rep, "tensor-mapping")["detail"]))

    g = Gguf(ggufs["bf16"])
    extra = dict(g.tensor("token_embd.weight"))
    extra["name"] = "output.weight"
    g.tensors.append(extra)
    path = r.work / "extra.gguf"
    g.write(path)
    expect_fail(r, "an extra tensor", ck, path, lambda rep: (
        check_named(rep, "extra-tensors")["status"] == "fail" and
        "output.weight" in check_named(rep, "extra-tensors")["detail"]))

    g = Gguf(ggufs["bf16"])
    n_head, n_kv = config_heads(ck)
    g.set_u32("llama.attention.head_count_kv", n_kv * 2)
    path = r.work / "wrong-kv.gguf"
    g.write(path)
    expect_fail(r, "wrong head_count_kv", ck, path, lambda rep: (
        check_named(rep, "metadata:llama.attention.head_count_kv")["status"] == "fail"))

    path = r.work / "truncated.gguf"
    data = Path(ggufs["bf16"]).read_bytes()
    path.write_bytes(data[:-100])
    code, rep, err = r.audit(ck, path)
    r.check("truncated GGUF: detected (exit 1)", code == 1, f"exit {code}")
    r.check("truncated GGUF: named", rep is not None and "error" in rep and
            "output_norm.weight" in rep["error"]["message"] and
            "truncated" in rep["error"]["message"], err)


def _strings_raw(items):
    return (struct.pack("<IQ", T_STRING, len(items)) +
            b"".join(string_raw(x) for x in items))


def _kv(g, key):
    return next(e for e in g.kv if e[0] == key)


def _strings(g, key):
    raw = _kv(g, key)[2]
    etype, n = struct.unpack_from("<IQ", raw)
    assert etype == T_STRING
    pos, out = 12, []
    for _ in range(n):
        x, pos = _read_string(raw, pos)
        out.append(x)
    return out


def tamper(r, source, path_name, edit):
    """SOURCE (a GGUF) as our independent writer rewrites it after EDIT."""
    g = Gguf(source)
    edit(g)
    path = r.work / f"{path_name}.gguf"
    g.write(path)
    return path


def tokenizer_cases(r, ck, ggufs):
    """The tokenizer and geometry keys a conversion must carry over: the
    vocabulary, token types and merges are learned data; the flags and head
    sizes change what llama.cpp does with the weights."""
    T_INT32, T_BOOL = 5, 7

    def tampered(name, edit):
        return tamper(r, ggufs["bf16"], name, edit)

    def set_strings(key, fn):
        def edit(g):
            items = _strings(g, key)
            fn(items)
            _kv(g, key)[2] = _strings_raw(items)
        return edit

    def one_token(items):
        items[300] = items[300] + "x"
    expect_fail(r, "one token's text changed", ck, tampered("token-text", set_strings(
        "tokenizer.ggml.tokens", one_token)), lambda rep: (
        check_named(rep, "metadata:tokenizer.ggml.tokens")["status"] == "fail" and
        'item 300 is "' in check_named(rep, "metadata:tokenizer.ggml.tokens")["detail"]))

    def swap_merges(items):
        items[0], items[1] = items[1], items[0]
    expect_fail(r, "two merges swapped (merge priority)", ck, tampered("merges", set_strings(
        "tokenizer.ggml.merges", swap_merges)), lambda rep: (
        "item 0" in check_named(rep, "metadata:tokenizer.ggml.merges")["detail"]))

    def set_types(fn):
        def edit(g):
            e = _kv(g, "tokenizer.ggml.token_type")
            raw = bytearray(e[2])
            etype, n = struct.unpack_from("<IQ", raw)
            assert etype == T_INT32 and n > 10
            fn(raw, n)
            e[2] = bytes(raw)
        return edit

    def type_of(raw, i):
        return struct.unpack_from("<i", raw, 12 + 4 * i)[0]

    def normal_to_control(raw, n):
        struct.pack_into("<i", raw, 12 + 4 * 10, 3)
    # a word of the vocabulary typed control: llama.cpp would no longer print it
    expect_fail(r, "a normal token typed control", ck,
                tampered("token-type", set_types(normal_to_control)), lambda rep: (
                    "token 10 (" in check_named(rep, "metadata:tokenizer.ggml.token_type")["detail"]
                    and "normal (1)" in check_named(rep, "metadata:tokenizer.ggml.token_type")["detail"]))

    def added_to_user_defined(raw, n):
        # what llama.cpp's converter did before mid-2024 with added special
        # tokens and padding: control/unused -> user-defined
        changed = 0
        for i in range(n):
            if type_of(raw, i) in (3, 5):
                struct.pack_into("<i", raw, 12 + 4 * i, 4)
                changed += 1
        assert changed > 0
    code, rep, err = r.audit(ck, tampered("token-type-legacy", set_types(added_to_user_defined)))
    c = rep and check_named(rep, "metadata:tokenizer.ggml.token_type")
    r.check("added and padding tokens typed as older converters did: a warning, the audit passes",
            code == 0 and c and c["status"] == "warn" and "padding or added" in c["detail"],
            f"exit {code} {c}")

    # beyond that pattern, the tokens llama.cpp acts on must keep their type:
    # the BOS typed unused is no longer added; a header token the chat
    # template writes, typed unused, is no longer recognised in a prompt
    tokens = _strings(Gguf(ggufs["bf16"]), "tokenizer.ggml.tokens")
    for what, text, expect in (("the BOS", "<|begin_of_text|>", "fail"),
                               ("a chat template's header token", "<|start_header_id|>", "fail"),
                               ("a reserved token", None, "warn")):
        if text is None:
            text = next(t for t in tokens if t.startswith("<|reserved_special_token_"))
        tid = tokens.index(text)

        def to_unused(raw, n, tid=tid):
            assert type_of(raw, tid) == 3
            struct.pack_into("<i", raw, 12 + 4 * tid, 5)
        code, rep, err = r.audit(ck, tampered(f"token-type-unused-{tid}", set_types(to_unused)))
        c = rep and check_named(rep, "metadata:tokenizer.ggml.token_type")
        r.check(f"{what} ({text}) typed unused: {expect}",
                c and c["status"] == expect and code == (1 if expect == "fail" else 0) and
                (expect == "warn" or f"token {tid} (" in c["detail"]), f"exit {code} {c}")

    def no_types(g):
        g.kv = [e for e in g.kv if e[0] != "tokenizer.ggml.token_type"]
    # llama.cpp then types every token normal: no special tokens, no BOS
    expect_fail(r, "no token types", ck, tampered("no-token-type", no_types),
                lambda rep: check_named(rep, "metadata:tokenizer.ggml.token_type")["status"] == "fail")

    def no_merges(g):
        g.kv = [e for e in g.kv if e[0] != "tokenizer.ggml.merges"]
    expect_fail(r, "no merges (llama.cpp cannot load a BPE tokenizer without them)", ck,
                tampered("no-merges", no_merges),
                lambda rep: check_named(rep, "metadata:tokenizer.ggml.merges")["status"] == "fail")

    def no_bos(g):
        _kv(g, "tokenizer.ggml.add_bos_token")[2] = struct.pack("<B", 0)
    expect_fail(r, "add_bos_token turned off", ck, tampered("add-bos", no_bos), lambda rep: (
        check_named(rep, "metadata:tokenizer.ggml.add_bos_token")["status"] == "fail"))

    def rope_dim(g):
        g.set_u32("llama.rope.dimension_count", 8)
    expect_fail(r, "rope.dimension_count changed", ck, tampered("rope-dim", rope_dim), lambda rep: (
        check_named(rep, "metadata:llama.rope.dimension_count")["status"] == "fail"))

    # the same values as a one-column matrix (GGUF dims [1, n]): llama.cpp
    # refuses the shape; as a one-row matrix ([n, 1]) it loads them
    def rope_freqs_column(g):
        t = g.tensor("rope_freqs.weight")
        assert len(t["dims"]) == 1
        t["dims"] = [1] + t["dims"]
    expect_fail(r, "rope_freqs.weight as a matrix of one column", ck,
                tampered("rope-freqs-column", rope_freqs_column), lambda rep: (
                    check_named(rep, "rope-freqs")["status"] == "fail" and
                    "expected a first dimension of" in check_named(rep, "rope-freqs")["detail"]))

    def rope_freqs_row(g):
        t = g.tensor("rope_freqs.weight")
        t["dims"] = t["dims"] + [1]
    code, rep, err = r.audit(ck, tampered("rope-freqs-row", rope_freqs_row))
    c = rep and check_named(rep, "rope-freqs")
    r.check("rope_freqs.weight as a matrix of one row: passes (llama.cpp loads it)",
            code == 0 and c and c["status"] == "pass", f"exit {code} {c} {err}")

    def linear(g):
        g.add_kv("llama.rope.scaling.type", T_STRING, string_raw("linear"))
        g.add_kv("llama.rope.scaling.factor", 6, struct.pack("<f", 4.0))
    expect_fail(r, "linear rope scaling the config does not ask for", ck, tampered("linear", linear),
                lambda rep: check_named(rep, "metadata:llama.rope.scaling.factor")["status"] == "fail")

    def yarn(g):
        g.add_kv("llama.rope.scaling.type", T_STRING, string_raw("yarn"))
    expect_fail(r, "yarn rope scaling the config does not ask for", ck, tampered("yarn", yarn),
                lambda rep: check_named(rep, "metadata:llama.rope.scaling.type")["status"] == "fail")

    def factor_only(g):
        g.add_kv("llama.rope.scaling.factor", 6, struct.pack("<f", 8.0))
    expect_fail(r, "a rope scaling factor without a type (llama.cpp takes it as linear)", ck,
                tampered("factor-only", factor_only),
                lambda rep: check_named(rep, "metadata:llama.rope.scaling.factor")["status"] == "fail")

    def scale_linear(g):
        g.add_kv("llama.rope.scale_linear", 6, struct.pack("<f", 4.0))
    expect_fail(r, "the old rope.scale_linear key", ck, tampered("scale-linear", scale_linear),
                lambda rep: check_named(rep, "metadata:llama.rope.scale_linear")["status"] == "fail")

    # a tokenizer.model is what llama.cpp's converter reads first: one it cannot
    # read (nor can we) leaves no tokenizer to hold the GGUF's to, a failure
    # that names the file, the byte and the rule
    spm = r.work / "ck-spm"
    if spm.exists():
        shutil.rmtree(spm)
    shutil.copytree(ck, spm)
    (spm / "tokenizer.model").write_bytes(b"not a sentencepiece model")
    expect_fail(r, "a source whose tokenizer.model is not a SentencePiece model", spm, ggufs["bf16"],
                lambda rep: check_named(rep, "metadata:tokenizer")["status"] == "fail" and
                "tokenizer.model: byte 0: field 13 has wire type 6" in
                check_named(rep, "metadata:tokenizer")["detail"])

    def token_id(key, tid):
        def edit(g):
            g.add_kv(key, T_UINT32, struct.pack("<I", tid))
        return edit
    # an end-of-turn id on a word of the vocabulary: llama.cpp would stop there
    expect_fail(r, "an eot id the source does not give, on a normal token", ck,
                tampered("eot-word", token_id("tokenizer.ggml.eot_token_id", 300)), lambda rep: (
                    "a normal token" in check_named(rep, "metadata:tokenizer.ggml.eot_token_id")["detail"]))
    g0 = Gguf(ggufs["bf16"])
    bos = struct.unpack("<I", _kv(g0, "tokenizer.ggml.bos_token_id")[2])[0]
    code, rep, err = r.audit(ck, tampered("pad-control", token_id("tokenizer.ggml.padding_token_id", bos)))
    c = rep and check_named(rep, "metadata:tokenizer.ggml.padding_token_id")
    r.check("a padding id the source does not give, on a control token: a warning, the audit passes",
            code == 0 and c and c["status"] == "warn", f"exit {code} {c}")

    # an end-of-generation id on a control token llama.cpp does not end at
    # (a reserved one): generation would stop there; on <|eot_id|>, which
    # llama.cpp ends at by its text anyway, it changes nothing
    toks = _strings(g0, "tokenizer.ggml.tokens")
    reserved = toks.index(next(t for t in toks if t.startswith("<|reserved_special_token_")))
    expect_fail(r, "an eot id the source does not give, on a reserved control token", ck,
                tampered("eot-reserved", token_id("tokenizer.ggml.eot_token_id", reserved)), lambda rep: (
                    "end generation" in check_named(rep, "metadata:tokenizer.ggml.eot_token_id")["detail"]))
    # llama.cpp ends generation at the FIM pad token too
    expect_fail(r, "a fim_pad id the source does not give, on a reserved control token", ck,
                tampered("fim-pad-reserved", token_id("tokenizer.ggml.fim_pad_token_id", reserved)),
                lambda rep: "end generation" in
                check_named(rep, "metadata:tokenizer.ggml.fim_pad_token_id")["detail"])
    code, rep, err = r.audit(ck, tampered("eot-eot", token_id("tokenizer.ggml.eot_token_id",
                                                              toks.index("<|eot_id|>"))))
    c = rep and check_named(rep, "metadata:tokenizer.ggml.eot_token_id")
    r.check("an eot id the source does not give, on <|eot_id|>: a warning, the audit passes",
            code == 0 and c and c["status"] == "warn", f"exit {code} {c}")

    # flags the source does not give: llama.cpp's default passes, anything
    # else changes how it tokenizes (an EOS after every prompt, a space
    # prefix); suppressed tokens are never sampled
    def flag(key, value):
        def edit(g):
            g.add_kv(key, T_BOOL, struct.pack("<B", value))
        return edit
    for key, value, expect in (("tokenizer.ggml.add_eos_token", 1, "fail"),
                               ("tokenizer.ggml.add_space_prefix", 1, "fail"),
                               ("tokenizer.ggml.add_space_prefix", 0, "pass")):
        code, rep, err = r.audit(ck, tampered(f"flag-{key}-{value}", flag(key, value)))
        c = rep and check_named(rep, f"metadata:{key}")
        r.check(f"{key} = {bool(value)} where the source gives none: {expect}",
                c and c["status"] == expect and code == (1 if expect == "fail" else 0), f"exit {code} {c}")

    def suppress(g):
        g.add_kv("tokenizer.ggml.suppress_tokens", T_ARRAY,
                 struct.pack("<IQ", T_INT32, 2) + struct.pack("<ii", 300, 301))
    expect_fail(r, "suppressed tokens the source does not give", ck, tampered("suppress", suppress),
                lambda rep: check_named(rep, "metadata:tokenizer.ggml.suppress_tokens")["status"] == "fail")

    # general.sampling.*: llama-cli and llama-server sample with them by default
    def set_temp(g):
        _kv(g, "general.sampling.temp")[2] = struct.pack("<f", 1.5)
    expect_fail(r, "general.sampling.temp changed", ck, tampered("temp", set_temp), lambda rep: (
        check_named(rep, "metadata:general.sampling.temp")["status"] == "fail"))

    def add_mirostat(g):
        g.add_kv("general.sampling.mirostat", T_INT32, struct.pack("<i", 2))
    # one the source does not give: the user's (llama.cpp's converter takes
    # them from a --metadata file too), pointed out
    code, rep, err = r.audit(ck, tampered("mirostat", add_mirostat))
    c = rep and check_named(rep, "metadata:general.sampling.mirostat")
    r.check("general.sampling.mirostat the source does not give: a warning",
            code == 0 and c and c["status"] == "warn", f"exit {code} {c}")

    def no_sampling(g):
        g.kv = [e for e in g.kv if not e[0].startswith("general.sampling.")]
    code, rep, err = r.audit(ck, tampered("no-sampling", no_sampling))
    c = rep and check_named(rep, "metadata:general.sampling.temp")
    r.check("no general.sampling keys (as older converters wrote): a warning, the audit passes",
            code == 0 and c and c["status"] == "warn", f"exit {code} {c}")

    def no_add_bos(g):
        g.kv = [e for e in g.kv if e[0] != "tokenizer.ggml.add_bos_token"]
    code, rep, err = r.audit(ck, tampered("no-add-bos", no_add_bos))
    c = rep and check_named(rep, "metadata:tokenizer.ggml.add_bos_token")
    r.check("no add_bos_token where llama.cpp's default for llama-bpe (true) is the source's: passes",
            code == 0 and c and c["status"] == "pass" and "default" in c["detail"], f"exit {code} {c}")

    def no_add_bos_other_pre(g):
        no_add_bos(g)
        g.kv = [e for e in g.kv if e[0] != "tokenizer.ggml.pre"]
    expect_fail(r, "no add_bos_token and no pre (llama.cpp's default is then false)", ck,
                tampered("no-add-bos-pre", no_add_bos_other_pre), lambda rep: (
                    check_named(rep, "metadata:tokenizer.ggml.add_bos_token")["status"] == "fail"))

    def named_template(g):
        g.add_kv("tokenizer.chat_template.tool_use", T_STRING, string_raw("{{ evil }}"))
    expect_fail(r, "a named chat template the source does not have", ck,
                tampered("tool-use", named_template), lambda rep: (
                    check_named(rep, "metadata:tokenizer.chat_template.tool_use")["status"] == "fail"))

    def scores(g):
        n = len(_strings(g, "tokenizer.ggml.tokens"))
        g.add_kv("tokenizer.ggml.scores", 9, struct.pack("<IQ", 6, n) + b"\0" * (4 * n))
    code, rep, err = r.audit(ck, tampered("scores", scores))
    c = rep and check_named(rep, "metadata:tokenizer.ggml.scores")
    r.check("a tokenizer key the source does not give (scores, unused by BPE): a warning, passes",
            code == 0 and c and c["status"] == "warn", f"exit {code} {c}")


def sentencepiece_cases(r):
    """A Llama 2 style source (tokenizer.model): the tokenizer keys of its
    conversions by ref_convert.py and by ours are compared with it, scores
    included, and an edited score or piece type is caught."""
    ck = r.work / "ck-sentencepiece"
    subprocess.run([PY, str(GEN), str(ck), "--sentencepiece", "llama2", "--rope-scaling", "none",
                    "--layers", "2", "--vocab", "400"], check=True)
    ref = r.work / "ref-sentencepiece-bf16.gguf"
    subprocess.run([PY, str(REF), str(ck), str(ref), "--outtype", "bf16"], check=True)
    code, rep, err = r.audit(ck, ref)
    r.check("SentencePiece source, ref bf16: exit 0", code == 0 and rep and rep["passed"], err or rep)
    for key in ("model", "tokens", "scores", "token_type"):
        c = rep and check_named(rep, f"metadata:tokenizer.ggml.{key}")
        r.check(f"SentencePiece source: tokenizer.ggml.{key} compared and passes",
                c is not None and c["status"] == "pass", str(c))
    ours = r.work / "ours-sentencepiece-q8_0.gguf"
    p = subprocess.run([r.cli, "convert", str(ck), "-o", str(ours), "--outtype", "q8_0"],
                       capture_output=True, text=True)
    code, rep, err = r.audit(ck, ours)
    r.check("SentencePiece source, our q8_0: exit 0",
            p.returncode == 0 and code == 0 and rep and rep["passed"], p.stderr + err)

    def scores(fn):
        def edit(g):
            e = _kv(g, "tokenizer.ggml.scores")
            etype, n = struct.unpack_from("<IQ", e[2])
            vals = list(struct.unpack_from(f"<{n}f", e[2], 12))
            fn(vals)
            e[2] = struct.pack("<IQ", etype, n) + struct.pack(f"<{n}f", *vals)
        return edit
    expect_fail(r, "a SentencePiece score changed", ck,
                tamper(r, ref, "spm-score", scores(lambda v: v.__setitem__(300, v[300] + 1.0))),
                lambda rep: check_named(rep, "metadata:tokenizer.ggml.scores")["status"] == "fail")

    def no_scores(g):
        g.kv = [e for e in g.kv if e[0] != "tokenizer.ggml.scores"]
    expect_fail(r, "a SentencePiece conversion without scores", ck, tamper(r, ref, "spm-no-scores", no_scores),
                lambda rep: check_named(rep, "metadata:tokenizer.ggml.scores")["status"] == "fail")

    # llama.cpp's defaults for a SentencePiece vocabulary: add_bos true, add_space_prefix true
    def no_add_bos(g):
        g.kv = [e for e in g.kv if e[0] != "tokenizer.ggml.add_bos_token"]
    code, rep, err = r.audit(ck, tamper(r, ref, "spm-no-add-bos", no_add_bos))
    c = rep and check_named(rep, "metadata:tokenizer.ggml.add_bos_token")
    r.check("SentencePiece: no add_bos_token where the source says true: llama.cpp's default (true) passes",
            code == 0 and c and c["status"] == "pass", f"exit {code} {c}")

    def add_space_prefix(value):
        def edit(g):
            g.add_kv("tokenizer.ggml.add_space_prefix", 7, struct.pack("<?", value))
        return edit
    code, rep, err = r.audit(ck, tamper(r, ref, "spm-space-prefix-true", add_space_prefix(True)))
    c = rep and check_named(rep, "metadata:tokenizer.ggml.add_space_prefix")
    r.check("SentencePiece: add_space_prefix true the source does not give is llama.cpp's default",
            code == 0 and c and c["status"] == "pass", f"exit {code} {c}")
    expect_fail(r, "SentencePiece: add_space_prefix false the source does not give", ck,
                tamper(r, ref, "spm-space-prefix-false", add_space_prefix(False)),
                lambda rep: check_named(rep, "metadata:tokenizer.ggml.add_space_prefix")["status"] == "fail")


def llama_cpp_key_cases(r, ck, ggufs):
    """Keys llama.cpp reads with one GGUF type only, or for every
    architecture, and their forms that change nothing."""
    T_INT32, T_FLOAT32, T_BOOL, T_UINT64, T_FLOAT64 = 5, 6, 7, 10, 12

    def tampered(name, edit):
        return tamper(r, ggufs["f32"], "keys-" + name, edit)

    def retype(key, t, raw):
        def edit(g):
            e = _kv(g, key)
            e[1], e[2] = t, raw
        return edit

    def add(key, t, raw):
        return lambda g: g.add_kv(key, t, raw)

    g0 = Gguf(ggufs["f32"])
    n_layers = struct.unpack("<I", _kv(g0, "llama.block_count")[2])[0]
    heads = struct.unpack("<I", _kv(g0, "llama.attention.head_count")[2])[0]
    ctx = struct.unpack("<I", _kv(g0, "llama.context_length")[2])[0]
    eps = struct.unpack("<f", _kv(g0, "llama.attention.layer_norm_rms_epsilon")[2])[0]
    bos = struct.unpack("<I", _kv(g0, "tokenizer.ggml.bos_token_id")[2])[0]

    # llama.cpp refuses these files ("key ... has wrong type")
    wrong_types = [
        ("context_length as float32", "llama.context_length", T_FLOAT32, struct.pack("<f", ctx)),
        ("context_length as uint64", "llama.context_length", T_UINT64, struct.pack("<Q", ctx)),
        ("head_count as int32", "llama.attention.head_count", T_INT32, struct.pack("<i", heads)),
        ("rms epsilon as float64", "llama.attention.layer_norm_rms_epsilon", T_FLOAT64,
         struct.pack("<d", eps)),
        ("bos id as int32", "tokenizer.ggml.bos_token_id", T_INT32, struct.pack("<i", bos)),
    ]
    for what, key, t, raw in wrong_types:
        expect_fail(r, f"{what} (same value, a type llama.cpp refuses)", ck,
                    tampered(key + str(t), retype(key, t, raw)),
                    lambda rep, key=key: "refuses to load" in check_named(rep, "metadata:" + key)["detail"])

    # keys llama.cpp reads for every architecture, which the converter does not write
    changes = [
        ("attention.causal = false", "llama.attention.causal", T_BOOL, b"\0"),
        ("rope.scaling.attn_factor = 2", "llama.rope.scaling.attn_factor", T_FLOAT32,
         struct.pack("<f", 2.0)),
        ("expert_count = 2", "llama.expert_count", T_UINT32, struct.pack("<I", 2)),
        ("nextn_predict_layers = 1", "llama.nextn_predict_layers", T_UINT32, struct.pack("<I", 1)),
    ]
    for what, key, t, raw in changes:
        expect_fail(r, f"{what} (llama.cpp computes otherwise)", ck, tampered(key, add(key, t, raw)),
                    lambda rep, key=key: check_named(rep, "metadata:" + key)["status"] == "fail")

    def per_layer(key, values):
        raw = struct.pack("<IQ", T_UINT32, len(values)) + b"".join(struct.pack("<I", v) for v in values)
        return retype(key, 9, raw)
    same = [
        ("attention.causal = true", add("llama.attention.causal", T_BOOL, b"\1"),
         "llama.attention.causal"),
        ("rope.scaling.type linear without a factor (llama.cpp's default)",
         add("llama.rope.scaling.type", T_STRING, string_raw("linear")), "llama.rope.scaling.type"),
        ("head_count as a per-layer array of the same value",
         per_layer("llama.attention.head_count", [heads] * n_layers), "llama.attention.head_count"),
    ]
    for what, edit, key in same:
        code, rep, err = r.audit(ck, tampered("same-" + key, edit))
        c = rep and check_named(rep, "metadata:" + key)
        r.check(f"{what}: passes", code == 0 and c and c["status"] == "pass", f"exit {code} {c} {err}")
    expect_fail(r, "head_count per layer with one layer different", ck,
                tampered("heads-differ", per_layer("llama.attention.head_count",
                                                   [heads] * (n_layers - 1) + [heads // 2])),
                lambda rep: "layer " in check_named(rep, "metadata:llama.attention.head_count")["detail"])

    code, rep, err = r.audit(ck, tampered("unknown", add("llama.some_future_key", T_UINT32,
                                                          struct.pack("<I", 7))))
    c = rep and check_named(rep, "metadata:llama.some_future_key")
    r.check("an architecture key the audit does not know: a warning, the audit passes",
            code == 0 and c and c["status"] == "warn", f"exit {code} {c}")

    # bytes after the last tensor: accounted for, but a warning
    trailing = r.work / "keys-trailing.gguf"
    trailing.write_bytes(Path(ggufs["f32"]).read_bytes() + b"\0" * 32)
    code, rep, err = r.audit(ck, trailing)
    c = rep and check_named(rep, "size-reconciliation")
    rows = [x for x in rep["size"]["rows"] if x["area"] == "after-data"] if rep else []
    r.check("32 bytes after the last tensor: an after-data row, size-reconciliation warns",
            code == 0 and c and c["status"] == "warn" and len(rows) == 1
            and rows[0]["target_bytes"] == 32, f"exit {code} {c} {rows}")


def long_value_case(r, ck, ggufs):
    """A tokenizer key of a megabyte: named, its value cut short in the report."""
    g = Gguf(ggufs["bf16"])
    g.add_kv("tokenizer.ggml.long", T_STRING, string_raw("x" * (1 << 20)))
    path = r.work / "long-value.gguf"
    g.write(path)
    code, rep, err = r.audit(ck, path)
    c = rep and check_named(rep, "metadata:tokenizer.ggml.long")
    r.check("a 1 MB tokenizer string the source does not give: a warning of under 400 characters",
            code == 0 and c and c["status"] == "warn" and len(c["detail"]) < 400,
            f"exit {code} {len(c['detail']) if c else None}")


def same_format_cases(r, ck, ck1, ggufs, rewritten):
    code, rep, err = r.audit(ggufs["bf16"], rewritten)
    r.check("GGUF vs rewritten GGUF: exit 0", code == 0 and rep and rep["passed"] and
            rep["mode"] == "gguf-to-gguf", err or rep)
    r.check("GGUF vs rewritten GGUF: metadata edit is a warning",
            rep and check_named(rep, "metadata")["status"] == "warn")
    r.check("GGUF vs rewritten GGUF: sizes sum exactly", rep and size_sums(rep))
    code, rep, err = r.audit(ggufs["bf16"], r.work / "flip-blk.0.attn_v.weight-bf16.gguf")
    r.check("GGUF vs GGUF with a flipped bit: exit 1", code == 1 and rep and
            pair(rep, "blk.0.attn_v.weight")["n_mismatch"] == 1, err)
    code, rep, err = r.audit(ck, ck1)
    r.check("re-sharded Safetensors: exit 0", code == 0 and rep and rep["passed"] and
            rep["mode"] == "safetensors-to-safetensors", err or rep)
    r.check("re-sharded Safetensors: sizes sum exactly", rep and size_sums(rep))


def usage_cases(r, ck, ggufs):
    p = subprocess.run([r.cli, "audit", str(ck)], capture_output=True, text=True)
    r.check("usage: one argument is exit 2", p.returncode == 2)
    p = subprocess.run([r.cli, "audit", str(ck), str(ggufs["bf16"]), "--jobs", "1"],
                       capture_output=True, text=True)
    r.check("text report, --jobs 1: exit 0 and PASS", p.returncode == 0 and "PASS" in p.stdout,
            p.stderr)


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    r = Runner(os.path.abspath(argv[1]), argv[2])
    if r.work.exists():
        shutil.rmtree(r.work)
    ck, ck1, ck32, ggufs, ref32 = make_fixtures(r)
    rewritten = clean_cases(r, ck, ggufs)
    edge_value_cases(r)
    our_converter_cases(r, ck)
    bit_flip_cases(r, ck, ggufs)
    permutation_cases(r, ck, ggufs)
    norm_cases(r, ck, ggufs, ck32, ref32)
    structure_cases(r, ck, ggufs)
    tokenizer_cases(r, ck, ggufs)
    sentencepiece_cases(r)
    llama_cpp_key_cases(r, ck, ggufs)
    long_value_case(r, ck, ggufs)
    same_format_cases(r, ck, ck1, ggufs, rewritten)
    usage_cases(r, ck, ggufs)
    print(f"{r.passed} passed, {len(r.failed)} failed")
    for name in r.failed:
        print(f"  failed: {name}")
    return 1 if r.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
