#!/usr/bin/python3
"""Files over 4 GiB: sparse Safetensors and GGUF files whose tensors start
and end beyond 2^32 and 2^33 bytes, written by an independent writer here.
Every offset, size, region, count and total in `CLI inspect --json` must be
the exact 64-bit value (no truncation to 32 bits, no float rounding); the
layout diagram of each file must render; and an audit of a sparse checkpoint
(an all-zero 4 GiB embedding) against its conversion must pass.

usage: check_large.py CLI WORKDIR [--no-audit]

The files are sparse (a few KB on disk each, apart from the converted GGUF
of the audit case, which the converter writes out: 4 GiB of zeros).
"""
import json
import os
import shutil
import struct
import subprocess
import sys

from tscheck import check, summary

CLI, WORK = sys.argv[1], sys.argv[2]
AUDIT = "--no-audit" not in sys.argv
GiB = 1 << 30


def inspect(path):
    r = subprocess.run([CLI, "inspect", "--json", path], capture_output=True, text=True,
                       timeout=120)
    if r.returncode != 0:
        raise RuntimeError("inspect %s: exit %d: %s" % (path, r.returncode, r.stderr))
    return json.loads(r.stdout)


def expect_fields(label, got, want):
    bad = ["%s=%r (want %r)" % (k, got.get(k), v) for k, v in want.items() if got.get(k) != v]
    check(label, not bad, "; ".join(bad))


def expect_regions(label, part, want):
    got = [(r["kind"], r["offset"], r["length"]) for r in part["regions"]]
    check(label, got == want, "got %s, want %s" % (got, want))


def layout(path, name):
    for ext in ("svg", "png"):
        out = os.path.join(WORK, "%s.%s" % (name, ext))
        r = subprocess.run([CLI, "layout", path, "-o", out], capture_output=True, text=True,
                           timeout=120)
        check("layout %s of %s" % (ext, name),
              r.returncode == 0 and os.path.getsize(out) > 0, r.stderr.strip())


# ------------------------------------------------------------ Safetensors

ST_SIZES = {"BOOL": 1, "U8": 1, "I8": 1, "F16": 2, "BF16": 2, "F32": 4, "F64": 8}


def write_safetensors(path, tensors, metadata=None):
    """tensors: [(name, dtype, shape)] in data order; the data stays a hole."""
    header, off, table = {}, 0, []
    for name, dtype, shape in tensors:
        n = 1
        for d in shape:
            n *= d
        size = n * ST_SIZES[dtype]
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [off, off + size]}
        table.append((name, dtype, shape, off, size, n))
        off += size
    if metadata:
        header["__metadata__"] = metadata
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h)
        f.truncate(8 + len(h) + off)
    return 8 + len(h), off, table


def safetensors_case():
    path = os.path.join(WORK, "large.safetensors")
    tensors = [
        ("below_4g", "U8", [(1 << 32) - 8]),       # ends 8 bytes before 2^32 (data)
        ("across_4g", "F32", [4]),                  # straddles the 2^32 boundary
        ("big_8g", "BF16", [1 << 16, 1 << 16]),     # 8 GiB, starts above 2^32, ends above 2^33
        ("above_8g", "F64", [3, 5]),
        ("empty_end", "F16", [0]),
    ]
    data_start, data_size, table = write_safetensors(path, tensors, {"format": "pt"})
    size = data_start + data_size
    rep = inspect(path)
    expect_fields("safetensors: totals", rep, {
        "format": "safetensors", "total_size": size, "tensor_count": len(tensors),
        "tensor_data_size": data_size, "before_data_size": data_start,
        "parameter_count": sum(t[5] for t in table)})
    part = rep["parts"][0]
    expect_fields("safetensors: part", part, {"size": size, "data_offset": data_start})
    expect_regions("safetensors: regions", part, [
        ("length-prefix", 0, 8), ("json-header", 8, data_start - 8),
        ("tensor-data", data_start, data_size)])
    by_name = {t["name"]: t for t in rep["tensors"]}
    for name, dtype, shape, off, tsize, n in table:
        expect_fields("safetensors: tensor %s at %d (+%d)" % (name, data_start + off, tsize),
                      by_name.get(name, {}),
                      {"dtype": dtype, "shape": shape, "offset": data_start + off,
                       "size": tsize, "elements": n, "part": 0})
    check("safetensors: offsets really pass 2^32 and 2^33",
          by_name["big_8g"]["offset"] > 1 << 32 and
          by_name["above_8g"]["offset"] > 1 << 33)
    layout(path, "large-safetensors")


# ------------------------------------------------------------------- GGUF

GGML = {"F32": (0, 1, 4), "F16": (1, 1, 2), "Q8_0": (8, 32, 34), "BF16": (30, 1, 2)}


def gstr(b):
    return struct.pack("<Q", len(b)) + b


def write_gguf(path, tensors, alignment=32):
    """tensors: [(name, ggml type name, dims fastest first)]; data is a hole."""
    kv = gstr(b"general.architecture") + struct.pack("<I", 8) + gstr(b"llama")
    descs, off, table = b"", 0, []
    for name, tname, dims in tensors:
        gtype, block, bsize = GGML[tname]
        n = 1
        for d in dims:
            n *= d
        size = n // block * bsize
        descs += (gstr(name.encode()) + struct.pack("<I", len(dims))
                  + b"".join(struct.pack("<Q", d) for d in dims)
                  + struct.pack("<IQ", gtype, off))
        table.append((name, tname, dims, off, size, n))
        off += size + (-size % alignment)
    head = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), 1) + kv
    meta_end = len(head)
    head += descs
    info_end = len(head)
    data_start = info_end + (-info_end % alignment)
    with open(path, "wb") as f:
        f.write(head + b"\0" * (data_start - info_end))
        f.truncate(data_start + off)
    return meta_end, info_end, data_start, off, table


def gguf_case():
    path = os.path.join(WORK, "large.gguf")
    tensors = [
        ("token_embd.weight", "BF16", [1 << 16, (1 << 15) - 1]),  # just under 4 GiB
        ("blk.0.attn_norm.weight", "F32", [1 << 16]),              # across 2^32
        ("blk.0.attn_q.weight", "Q8_0", [1 << 17, 1 << 16]),       # 8.5 GiB, past 2^33
        ("output_norm.weight", "F32", [7]),                        # padded tail
    ]
    meta_end, info_end, data_start, data_size, table = write_gguf(path, tensors)
    size = data_start + data_size
    rep = inspect(path)
    expect_fields("gguf: totals", rep, {
        "format": "gguf", "total_size": size, "tensor_count": len(tensors),
        "tensor_data_size": sum(t[4] for t in table), "before_data_size": data_start,
        "parameter_count": sum(t[5] for t in table)})
    part = rep["parts"][0]
    expect_fields("gguf: part", part, {"size": size, "data_offset": data_start})
    expect_regions("gguf: regions", part, [
        ("fixed-header", 0, 24), ("metadata", 24, meta_end - 24),
        ("tensor-info", meta_end, info_end - meta_end),
        ("padding", info_end, data_start - info_end),
        ("tensor-data", data_start, data_size)])
    by_name = {t["name"]: t for t in rep["tensors"]}
    for name, tname, dims, off, tsize, n in table:
        expect_fields("gguf: tensor %s at %d (+%d)" % (name, data_start + off, tsize),
                      by_name.get(name, {}),
                      {"dtype": tname, "shape": dims, "offset": data_start + off,
                       "size": tsize, "elements": n})
    check("gguf: offsets really pass 2^32 and 2^33",
          by_name["blk.0.attn_q.weight"]["offset"] > 1 << 32 and
          by_name["output_norm.weight"]["offset"] > 1 << 33)
    layout(path, "large-gguf")


# ------------------------------------------------------------------ audit

def audit_case():
    """A checkpoint whose embedding (all zeros, a hole) is 4 GiB, so every
    tensor after it lies beyond 2^32; converted, then audited."""
    ckpt = os.path.join(WORK, "ckpt")
    r = subprocess.run([CLI, "sample", ckpt, "--layers", "1", "--hidden", "1024",
                        "--heads", "8", "--kv-heads", "2", "--intermediate", "256",
                        "--vocab", "2048", "--shards", "1"], capture_output=True, text=True)
    if r.returncode != 0:
        check("audit: sample checkpoint", False, r.stderr)
        return
    vocab = 1 << 21                               # 2^21 x 1024 x BF16 = 4 GiB
    cfg_path = os.path.join(ckpt, "config.json")
    with open(cfg_path) as f:
        cfg = json.load(f)
    cfg["vocab_size"] = vocab
    with open(cfg_path, "w") as f:
        json.dump(cfg, f, indent=2)
    # rewrite the weights: the real tensors after a sparse 4 GiB embedding
    st = os.path.join(ckpt, "model.safetensors")
    with open(st, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        data = f.read()
    meta = header.pop("__metadata__", None)
    emb = "model.embed_tokens.weight"
    others = sorted((k for k in header if k != emb), key=lambda k: header[k]["data_offsets"][0])
    emb_size = vocab * cfg["hidden_size"] * 2
    out, blobs, off = {emb: {"dtype": "BF16", "shape": [vocab, cfg["hidden_size"]],
                             "data_offsets": [0, emb_size]}}, [], emb_size
    for k in others:
        b = data[header[k]["data_offsets"][0]:header[k]["data_offsets"][1]]
        out[k] = dict(header[k], data_offsets=[off, off + len(b)])
        blobs.append(b)
        off += len(b)
    if meta:
        out["__metadata__"] = meta
    h = json.dumps(out).encode()
    h += b" " * (-len(h) % 8)
    with open(st, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h)
        f.seek(8 + len(h) + emb_size)
        for b in blobs:
            f.write(b)
    gguf = os.path.join(WORK, "ckpt.gguf")
    r = subprocess.run([CLI, "convert", ckpt, "-o", gguf, "--outtype", "bf16"],
                       capture_output=True, text=True, timeout=1800)
    check("audit: convert a checkpoint with a 4 GiB embedding", r.returncode == 0,
          r.stderr.strip())
    if r.returncode != 0:
        return
    rep = inspect(gguf)
    t = {x["name"]: x for x in rep["tensors"]}
    check("audit: converted tensors lie beyond 2^32",
          t["blk.0.attn_q.weight"]["offset"] > 1 << 32 and
          t["token_embd.weight"]["size"] == emb_size,
          "%s %s" % (t.get("blk.0.attn_q.weight"), t.get("token_embd.weight")))
    r = subprocess.run([CLI, "audit", "--json", ckpt, gguf], capture_output=True, text=True,
                       timeout=1800)
    try:
        report = json.loads(r.stdout)
    except ValueError:
        report = {}
    check("audit: sparse checkpoint vs its conversion passes (exit %d)" % r.returncode,
          r.returncode == 0 and report.get("passed") is True, r.stderr.strip()[-500:])
    os.remove(gguf)


def yardstick_case():
    """SPEC's yardstick, Llama 3.2 3B Instruct (L32), as a sparse checkpoint
    of its real shapes in two shards: the plan must give SPEC's figures for
    the tensors (the metadata figures depend on the real tokenizer)."""
    ckpt = os.path.join(WORK, "l32")
    r = subprocess.run([CLI, "sample", ckpt, "--layers", "1", "--shards", "1"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        check("L32: sample checkpoint", False, r.stderr)
        return
    cfg_path = os.path.join(ckpt, "config.json")
    with open(cfg_path) as f:
        cfg = json.load(f)
    layers, hidden, heads, kv, ff, vocab = 28, 3072, 24, 8, 8192, 128256
    cfg.update(num_hidden_layers=layers, hidden_size=hidden, num_attention_heads=heads,
               num_key_value_heads=kv, intermediate_size=ff, vocab_size=vocab, head_dim=128,
               tie_word_embeddings=True, torch_dtype="bfloat16")
    with open(cfg_path, "w") as f:
        json.dump(cfg, f, indent=2)
    os.remove(os.path.join(ckpt, "model.safetensors"))
    names = [("model.embed_tokens.weight", [vocab, hidden]), ("model.norm.weight", [hidden])]
    for i in range(layers):
        p = "model.layers.%d." % i
        names += [(p + "input_layernorm.weight", [hidden]),
                  (p + "post_attention_layernorm.weight", [hidden]),
                  (p + "self_attn.q_proj.weight", [heads * 128, hidden]),
                  (p + "self_attn.k_proj.weight", [kv * 128, hidden]),
                  (p + "self_attn.v_proj.weight", [kv * 128, hidden]),
                  (p + "self_attn.o_proj.weight", [hidden, heads * 128]),
                  (p + "mlp.gate_proj.weight", [ff, hidden]),
                  (p + "mlp.up_proj.weight", [ff, hidden]),
                  (p + "mlp.down_proj.weight", [hidden, ff])]
    half = len(names) // 2
    weight_map, total = {}, 0
    for k, part in enumerate((names[:half], names[half:])):
        shard = "model-%05d-of-00002.safetensors" % (k + 1)
        _, size, _ = write_safetensors(os.path.join(ckpt, shard),
                                       [(n, "BF16", shape) for n, shape in part],
                                       {"format": "pt"})
        total += size
        weight_map.update({n: shard for n, _ in part})
    with open(os.path.join(ckpt, "model.safetensors.index.json"), "w") as f:
        json.dump({"metadata": {"total_size": total}, "weight_map": weight_map}, f)
    check("L32: the source's tensor data is 6,425,499,648 bytes", total == 6425499648, str(total))
    r = subprocess.run([CLI, "convert", ckpt, "--dry-run", "--json", "--outtype", "bf16"],
                       capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        check("L32: dry run", False, r.stderr)
        return
    plan = json.loads(r.stdout)
    tensors = plan["tensors"]
    data = sum(t["size"] + (-t["size"]) % 32 for t in tensors)
    descriptors = sum(8 + len(t["name"].encode()) + 4 + 8 * len(t["shape"]) + 4 + 8 for t in tensors)
    f32 = [t for t in tensors if t["dtype"] == "F32"]
    rope = [t for t in tensors if t["name"] == "rope_freqs.weight"]
    check("L32: 255 tensors (254 + rope_freqs.weight)", len(tensors) == 255, str(len(tensors)))
    check("L32: tensor data 6,425,850,112 bytes (+350,208 for 57 norms in F32, +256 rope)",
          data == 6425850112 and plan["predicted_size"] - plan["data_offset"] == data,
          "%d, predicted %d" % (data, plan["predicted_size"] - plan["data_offset"]))
    check("L32: 58 F32 tensors, rope_freqs.weight of 64 values",
          len(f32) == 58 and len(rope) == 1 and rope[0]["shape"] == [64], str(len(f32)))
    check("L32: tensor descriptors take 15,130 bytes", descriptors == 15130, str(descriptors))
    check("L32: the data section starts 32-byte aligned", plan["data_offset"] % 32 == 0,
          str(plan["data_offset"]))


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    try:
        safetensors_case()
        gguf_case()
        yardstick_case()
        if AUDIT:
            audit_case()
    finally:
        shutil.rmtree(WORK, ignore_errors=True)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
