#!/usr/bin/python3
"""Independent reference converter: Hugging Face Llama checkpoint -> GGUF v3.

A re-derivation of SPEC section 7 (llama.cpp's convert_hf_to_gguf.py for the `llama`
architecture) in Python + numpy, written from the spec and from reading gguf-py
(metadata.py, utility.py, vocab.py, gguf_writer.py, quants.py), not from Tensorscope's C
code.  Its output is the yardstick the C converter is compared to byte for byte.

Usage: ref_convert.py MODEL_DIR OUT.gguf --outtype bf16|f16|f32|q8_0 [--pre NAME]
                      [--transformers-head-dim]

Every number conversion is done on integer bit patterns, so the result does not depend
on the numpy version or on the CPU's float16 instructions.
"""

import argparse
import json
import math
import os
import re
import struct
import sys
from pathlib import Path

import numpy as np

# ------------------------------------------------------------------ GGUF constants

GGUF_MAGIC = b"GGUF"
GGUF_VERSION = 3
ALIGNMENT = 32

T_UINT8, T_INT8, T_UINT16, T_INT16, T_UINT32, T_INT32, T_FLOAT32, T_BOOL, T_STRING, \
    T_ARRAY, T_UINT64, T_INT64, T_FLOAT64 = range(13)

GGML_F32, GGML_F16, GGML_Q8_0, GGML_BF16 = 0, 1, 8, 30
GGML_NAMES = {GGML_F32: "F32", GGML_F16: "F16", GGML_Q8_0: "Q8_0", GGML_BF16: "BF16"}

# outtype -> (ggml tensor type, general.file_type)
OUTTYPES = {"f32": (GGML_F32, 0), "f16": (GGML_F16, 1), "bf16": (GGML_BF16, 32), "q8_0": (GGML_Q8_0, 7)}

TOKEN_NORMAL, TOKEN_UNKNOWN, TOKEN_CONTROL, TOKEN_USER_DEFINED, TOKEN_UNUSED, TOKEN_BYTE = 1, 2, 3, 4, 5, 6

LLAMA3_PATTERN = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}"
    r"| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)


class ConvertError(Exception):
    pass


# ------------------------------------------------------------------ number formats

def bf16_bits_to_f32_bits(b):
    """BF16 -> F32: exact widening (a signalling NaN stays signalling)."""
    return b.astype(np.uint32) << np.uint32(16)


def f16_bits_to_f32_bits(h):
    """F16 -> F32, exact, bit for bit (NaN payload kept, sNaN stays sNaN)."""
    h = h.astype(np.uint32)
    sign = (h & 0x8000) << 16
    exp = (h >> 10) & 0x1F
    man = h & 0x3FF
    out = np.zeros(h.shape, dtype=np.uint32)
    normal = (exp > 0) & (exp < 31)
    out[normal] = ((exp[normal] + 112) << 23) | (man[normal] << 13)
    special = exp == 31
    out[special] = 0x7F800000 | (man[special] << 13)
    sub = (exp == 0) & (man != 0)
    if sub.any():
        # value = man * 2^-24, exactly representable as a normal float32
        vals = man[sub].astype(np.float32) * np.float32(2.0 ** -24)
        out[sub] = vals.view(np.uint32)
    return out | sign


def f32_bits_to_bf16_bits(u):
    """gguf-py BF16.quantize_blocks == ggml_compute_fp32_to_bf16: NaN made quiet
    (keeping the top 16 bits), then round to nearest even on the bits."""
    u = u.astype(np.uint32)
    nan = (u & 0x7FFFFFFF) > 0x7F800000
    u = np.where(nan, (u & 0xFFFF0000) | 0x00400000, u).astype(np.uint64)
    return ((u + (0x7FFF + ((u >> 16) & 1))) >> 16).astype(np.uint16)


def f32_bits_to_f16_bits(u):
    """IEEE round to nearest even, overflow to +-Inf (|x| >= 65520), subnormals kept,
    NaN keeps its top 10 payload bits (0x7c01 if they are all zero) - numpy's
    npy_floatbits_to_halfbits."""
    u = u.astype(np.uint64)
    sign = (u >> 16) & 0x8000
    exp = (u >> 23) & 0xFF
    man = u & 0x7FFFFF
    out = np.zeros(u.shape, dtype=np.uint64)

    special = exp == 0xFF
    nanbits = 0x7C00 | (man >> 13)
    nanbits = np.where((man != 0) & (nanbits == 0x7C00), 0x7C01, nanbits)
    out = np.where(special, np.where(man != 0, nanbits, 0x7C00), out)

    # normal half range: f32 biased exponent 113..142; bigger overflows to Inf
    norm = (exp >= 113) & (exp < 0xFF)
    base = ((exp - 112) << 10) + (man >> 13)
    rem = man & 0x1FFF
    up = (rem > 0x1000) | ((rem == 0x1000) & ((man >> 13) & 1 == 1))
    v = base + up.astype(np.uint64)
    v = np.where(v >= 0x7C00, 0x7C00, v)
    v = np.where(exp >= 143, 0x7C00, v)
    out = np.where(norm, v, out)

    # subnormal half range: f32 biased exponent 102..112 (smaller values round to 0)
    sub = (exp >= 102) & (exp <= 112)
    m = man | 0x800000
    shift = np.where(sub, 13 + (113 - exp), 1)
    q = m >> shift
    rem = m & ((np.uint64(1) << shift) - 1)
    half = np.uint64(1) << (shift - 1)
    up = (rem > half) | ((rem == half) & ((q & 1) == 1))
    out = np.where(sub, q + up.astype(np.uint64), out)
    return (out | sign).astype(np.uint16)


def quantize_q8_0(f32bits_2d):
    """gguf-py Q8_0 (== ggml quantize_row_q8_0_ref) on rows whose length is a multiple
    of 32: per block d = max|x| / 127 (float32), stored as F16; q = x * (1/d) (float32,
    1/d from the float32 d), rounded half away from zero; q = 0 where d == 0.
    NaN (and Inf) products become 0, as numpy's float->int8 cast does on x86-64; a block
    with an Inf gets d = Inf (F16 0x7c00), one with a NaN d = F16 0x7e00."""
    x = f32bits_2d.view(np.float32).reshape(-1, 32)
    with np.errstate(all="ignore"):
        d = np.abs(x).max(axis=1, keepdims=True) / np.float32(127)
        inv = np.where(d == 0, np.float32(0), np.float32(1) / d).astype(np.float32)
        v = (x * inv).astype(np.float32)
        a = np.abs(v)
        fl = np.floor(a)
        b = fl + np.floor(np.float32(2) * (a - fl))
        r = np.sign(v) * b
    q = np.zeros(r.shape, dtype=np.int8)
    ok = np.isfinite(r)
    q[ok] = r[ok].astype(np.int64).astype(np.int8)
    # a block holding a NaN: numpy's max reduction over the 32 contiguous values (its SIMD
    # loop) returns the default quiet NaN 0x7fc00000, whatever the NaN's sign and payload,
    # so d is stored as F16 0x7e00 and every q is 0
    dbits = d.view(np.uint32).reshape(-1).copy()
    dbits[np.isnan(d.reshape(-1))] = 0x7FC00000
    dh = f32_bits_to_f16_bits(dbits).reshape(-1, 1)
    blocks = np.concatenate([dh.view(np.uint8).reshape(-1, 2), q.view(np.uint8)], axis=1)
    return blocks.reshape(-1)


# ------------------------------------------------------------------ safetensors

ST_ELEM = {"F32": 4, "F16": 2, "BF16": 2, "F64": 8, "I64": 8, "I32": 4, "I16": 2, "I8": 1,
           "U8": 1, "BOOL": 1}


def read_safetensors(path):
    """-> list of (name, dtype, shape, raw bytes), sorted by name (as gguf-py does)."""
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n).decode("utf-8"))
        base = 8 + n
        out = []
        for name, meta in header.items():
            if name == "__metadata__":
                continue
            b, e = meta["data_offsets"]
            f.seek(base + b)
            raw = f.read(e - b)
            if len(raw) != e - b:
                raise ConvertError(f"{path}: tensor {name} runs past the end of the file")
            out.append((name, meta["dtype"], tuple(meta["shape"]), raw))
    out.sort(key=lambda t: t[0])
    return out


def model_part_names(model_dir):
    index = model_dir / "model.safetensors.index.json"
    if index.is_file():
        weight_map = json.loads(index.read_text(encoding="utf-8")).get("weight_map")
        if not isinstance(weight_map, dict):
            raise ConvertError("model.safetensors.index.json has no weight_map")
        return sorted(dict.fromkeys(weight_map.values())), set(weight_map)
    names = sorted(f for f in os.listdir(model_dir) if f.startswith("model") and f.endswith(".safetensors"))
    return names, None


def load_tensors(model_dir):
    """Tensors in the converter's order: shard files sorted, names sorted inside each."""
    parts, index_names = model_part_names(model_dir)
    if not parts:
        raise ConvertError("no model*.safetensors files")
    tensors = {}
    for p in parts:
        for name, dtype, shape, raw in read_safetensors(model_dir / p):
            tensors[name] = (dtype, shape, raw)
    if index_names is not None and set(tensors) != index_names:
        raise ConvertError("weight map and shard contents disagree")
    return tensors


def to_internal(dtype, shape, raw):
    """Source tensor -> ("f32", uint32 bits) or ("f16", uint16 bits); llama.cpp keeps F16
    and F32 sources as they are and widens everything else to float32."""
    if dtype == "BF16":
        return "f32", bf16_bits_to_f32_bits(np.frombuffer(raw, "<u2")).reshape(shape)
    if dtype == "F16":
        return "f16", np.frombuffer(raw, "<u2").astype(np.uint16).reshape(shape)
    if dtype == "F32":
        return "f32", np.frombuffer(raw, "<u4").astype(np.uint32).reshape(shape)
    if dtype == "F64":
        v = np.frombuffer(raw, "<f8").astype(np.float32)
        return "f32", v.view(np.uint32).reshape(shape)
    raise ConvertError(f"unsupported safetensors dtype {dtype}")


# ------------------------------------------------------------------ tensor mapping

LAYER_MAP = {
    "input_layernorm": "attn_norm",
    "self_attn.q_proj": "attn_q",
    "self_attn.k_proj": "attn_k",
    "self_attn.v_proj": "attn_v",
    "self_attn.o_proj": "attn_output",
    "post_attention_layernorm": "ffn_norm",
    "mlp.gate_proj": "ffn_gate",
    "mlp.up_proj": "ffn_up",
    "mlp.down_proj": "ffn_down",
}
TOP_MAP = {"model.embed_tokens": "token_embd", "model.norm": "output_norm", "lm_head": "output"}


def map_name(name, n_layers):
    for suffix in (".weight", ".bias"):
        if name.endswith(suffix):
            stem = name[: -len(suffix)]
            if stem in TOP_MAP:
                return TOP_MAP[stem] + suffix
            m = re.fullmatch(r"model\.layers\.(\d+)\.(.+)", stem)
            if m and m.group(2) in LAYER_MAP and int(m.group(1)) < n_layers:
                return f"blk.{int(m.group(1))}.{LAYER_MAP[m.group(2)]}{suffix}"
    raise ConvertError(f"Can not map tensor {name!r}")


def permute_rows(a, n_head):
    """Hugging Face half-split rotary rows -> llama.cpp interleaved pairs, per head:
    new row h*hd + r = old row h*hd + (r % 2)*(hd/2) + r//2."""
    rows = a.shape[0]
    hd = rows // n_head
    r = np.arange(hd)
    src = (r % 2) * (hd // 2) + r // 2
    idx = (np.arange(n_head)[:, None] * hd + src[None, :]).reshape(-1)
    return a[idx]


def rope_freqs_llama3(cfg, rope_params):
    """rope_freqs.weight for llama3 rope scaling, float32 arithmetic as torch does it in
    the converter (x / tensor is reciprocal(x) * ... for a python scalar x)."""
    f32 = np.float32
    base = float(rope_params.get("rope_theta", 10000.0))
    dim = cfg.get("head_dim")
    if dim is None:
        dim = cfg["hidden_size"] // cfg["num_attention_heads"]
    factor = float(rope_params.get("factor", 8.0))
    low = float(rope_params.get("low_freq_factor", 1.0))
    high = float(rope_params.get("high_freq_factor", 4.0))
    # original_max_position_embeddings from the rope parameters, where convert() has
    # mirrored a top-level one in when they have none; default 8192
    old_ctx = rope_params.get("original_max_position_embeddings", 8192)
    low_wl = old_ctx / low
    high_wl = old_ctx / high
    with np.errstate(all="ignore"):
        expo = (np.arange(0, dim, 2, dtype=np.float32) / f32(dim)).astype(np.float32)
        # float32 pow correctly rounded (through float64), as C's powf and torch's
        # pow kernel give it here; numpy's own float32 power is off by an ulp for
        # one exponent in five on this machine
        powers = np.array([math.pow(float(f32(base)), float(e)) for e in expo]).astype(np.float32)
        freqs = (f32(1.0) / powers).astype(np.float32)
        out = []
        for fr in freqs:
            wl = f32(f32(f32(1) / fr) * f32(2 * math.pi))
            if wl < high_wl:
                out.append(f32(1.0))
            elif wl > low_wl:
                out.append(f32(factor))
            else:
                t = f32(f32(f32(1) / wl) * f32(old_ctx))
                s = f32(f32(t - f32(low)) / f32(high - low))
                v = f32(f32(f32(f32(1) - s) / f32(factor)) + s)
                out.append(f32(f32(1) / v))
    return np.array(out, dtype=np.float32)


# ------------------------------------------------------------------ naming (gguf-py metadata.py)

def id_to_title(s):
    words = s.strip().replace("-", " ").split()
    return " ".join(w.title() if w.islower() and not re.match(r"^(v\d+(?:\.\d+)*|\d.*)$", w) else w
                    for w in words)


def get_model_id_components(model_id, total_params=0):
    if model_id is None:
        return None, None, None, None, None, None
    if " " in model_id:
        return model_id, None, None, None, None, None
    if "/" in model_id:
        org, full = model_id.split("/", 1)
    else:
        org, full = None, model_id
    if org is not None and len(org) > 0 and org[0] == ".":
        org = None

    parts = [p for p in full.split("-") if len(p) > 0]
    types = [set() for _ in parts]

    def label_params(label):
        return float(label[:-1]) * pow(1000, " KMBT".find(label[-1]))

    def is_active_label(label):
        return re.fullmatch(r"A\d+([._]\d+)?[KMBT][\d]?", label, re.IGNORECASE) is not None

    def normalize(label):
        label = label.replace("_", ".")
        if label[-1].isdecimal():
            label = label[:-2] + "." + label[-1] + label[-2]
        if len(label) > 1 and label[-2].isdecimal():
            if label[-1] in "kmbt":
                label = label[:-1] + label[-1].upper()
        return label

    for i, part in enumerate(parts):
        if re.fullmatch(r"(v|iter)?\d+([.]\d+)*", part, re.IGNORECASE):
            types[i].add("version")
        elif re.fullmatch(r"i?q\d(_\w)*|b?fp?(16|32)", part, re.IGNORECASE):
            types[i].add("type")
            parts[i] = part.upper()
        elif i > 0 and re.fullmatch(r"(([A]|\d+[x])?\d+([._]\d+)?[KMBT][\d]?|small|mini|medium|large|x?xl)",
                                    part, re.IGNORECASE):
            part = normalize(part)
            if total_params != 0:
                try:
                    lp = label_params(part)
                    nxt = normalize(parts[i + 1]) if i + 1 < len(parts) else None
                    followed = (nxt is not None and is_active_label(nxt)
                                and abs(label_params(nxt[1:]) - abs(total_params)) <= 7 * abs(total_params) // 8)
                    if not followed and ((total_params < 0 and lp < abs(total_params) // 8) or
                                         (total_params > 0 and abs(lp - total_params) > 7 * total_params // 8)):
                        types[i].add("finetune")
                        part = part[:-1] + part[-1].lower()
                except ValueError:
                    pass
            if len(types[i]) == 0:
                types[i].add("size_label")
            parts[i] = part
        elif i > 0 and re.fullmatch(r"chat|instruct|vision|lora", part, re.IGNORECASE):
            if total_params < 0 and part.lower() == "lora":
                types[i].add("type")
            else:
                types[i].add("finetune")

    if any(c.isdecimal() for n, t in zip(parts, types) if "size_label" in t for c in n):
        for n, t in zip(parts, types):
            if "size_label" in t and all(c.isalpha() for c in n):
                t.remove("size_label")

    at_start = True
    for part, t in zip(parts, types):
        if at_start and ((len(t) == 0 and part[0].isalpha()) or "version" in t):
            t.add("basename")
        else:
            if at_start:
                at_start = False
            if len(t) == 0:
                t.add("finetune")

    for part, t in zip(reversed(parts), reversed(types)):
        if "basename" in t and len(t) > 1:
            t.remove("basename")
        else:
            break

    basename = "-".join(n for n, t in zip(parts, types) if "basename" in t) or None
    size_label = "-".join(dict.fromkeys(s for s, t in zip(parts, types) if "size_label" in t).keys()) or None
    finetune = "-".join(f for f, t in zip(parts, types) if "finetune" in t) or None
    version = "-".join(v for v, t in zip(parts, types) if "version" in t and "basename" not in t) or None
    if size_label is None and finetune is None and version is None:
        basename = None
    return full, org, basename, finetune, version, size_label


def load_model_card(model_dir):
    p = model_dir / "README.md"
    if not p.is_file():
        return {}
    lines = p.read_text(encoding="utf-8").splitlines()
    if len(lines) == 0 or lines[0] != "---":
        return {}
    yaml_lines = []
    for line in lines[1:]:
        if line == "---":
            break
        yaml_lines.append(line)
    text = "\n".join(yaml_lines) + "\n"
    text = text.replace("- no\n", '- "no"\n').replace("\t", "  ")
    import yaml  # python3-yaml
    data = yaml.safe_load(text)
    return data if isinstance(data, dict) else {}


def id_entry(model_id, total_params):
    """A base model / dataset id -> dict of name, organization, version, repo_url."""
    e = {}
    if model_id.startswith(("http://", "https://", "ssh://")):
        e["repo_url"] = model_id
        if "huggingface.co" in model_id:
            m = re.match(r"https?://huggingface.co/([^/]+/[^/]+)$", model_id)
            if m:
                full, org, _, _, version, _ = get_model_id_components(m.group(1), total_params)
                if full is not None:
                    e["name"] = id_to_title(full)
                if org is not None:
                    e["organization"] = id_to_title(org)
                if version is not None:
                    e["version"] = version
    else:
        full, org, _, _, version, _ = get_model_id_components(model_id, total_params)
        if full is not None:
            e["name"] = id_to_title(full)
        if org is not None:
            e["organization"] = id_to_title(org)
        if version is not None:
            e["version"] = version
        if org is not None and full is not None:
            e["repo_url"] = f"https://huggingface.co/{org}/{full}"
    return e


def naming_metadata(model_dir, config, total_params):
    md = {}
    card = load_model_card(model_dir)

    def use(key, card_key):
        if card_key in card and md.get(key) is None:
            md[key] = card.get(card_key)

    def use_array(key, card_key):
        v = card.get(card_key)
        if v is None:
            return
        cur = md.get(key) or []
        if isinstance(v, str):
            cur.append(v)
        elif isinstance(v, list):
            cur.extend(v)
        md[key] = cur

    for a, b in [("name", "name"), ("author", "author"), ("version", "version"),
                 ("organization", "organization"), ("description", "description"),
                 ("finetune", "finetune"), ("basename", "basename"), ("size_label", "size_label"),
                 ("source_url", "url"), ("source_doi", "doi"), ("source_uuid", "uuid"),
                 ("source_repo_url", "repo_url"),
                 ("name", "model_name"), ("author", "model_author"), ("version", "model_version"),
                 ("organization", "model_organization"), ("description", "model_description"),
                 ("finetune", "model_finetune"), ("basename", "model_basename"),
                 ("size_label", "model_size_label"), ("source_url", "model_url"),
                 ("source_doi", "model_doi"), ("source_uuid", "model_uuid"),
                 ("source_repo_url", "model_repo_url"),
                 ("name", "model_name"), ("author", "model_creator"), ("basename", "model_type")]:
        use(a, b)
    for key, keys in (("base_models", ("base_model", "base_models", "base_model_sources")),
                      ("datasets", ("datasets", "dataset", "dataset_sources"))):
        if any(k in card for k in keys):
            v = card.get(keys[0], card.get(keys[1], card.get(keys[2], None)))
            ids = [v] if isinstance(v, str) else (list(v) if isinstance(v, list) else [])
            lst = md.get(key) or []
            for x in ids:
                if isinstance(x, str):
                    lst.append(id_entry(x, total_params))
                elif isinstance(x, dict):
                    lst.append(x)
                else:
                    lst.append({})
            md[key] = lst
    use("license", "license")
    use("license_name", "license_name")
    use("license_link", "license_link")
    use_array("tags", "tags")
    use_array("tags", "pipeline_tag")
    use_array("languages", "languages")
    use_array("languages", "language")

    def fill(model_id):
        full, org, basename, finetune, version, size_label = get_model_id_components(model_id, total_params)
        if md.get("name") is None and full is not None:
            md["name"] = id_to_title(full)
        if md.get("organization") is None and org is not None:
            md["organization"] = id_to_title(org)
        for k, v in (("basename", basename), ("finetune", finetune), ("version", version),
                     ("size_label", size_label)):
            if md.get(k) is None and v is not None:
                md[k] = v

    nop = config.get("_name_or_path")
    if nop is not None and nop.count("/") <= 1:
        fill(nop)
    fill(model_dir.name)
    if md.get("name") is None:
        md["name"] = model_dir.name
    if md.get("size_label") is None and total_params > 0:
        md["size_label"] = size_label_from_count(total_params)
    return md


def size_label_from_count(n):
    # strictly above each power (gguf-py utility.py); SPEC's "≥" is a
    # paraphrase that differs at exactly 1e6, 1e9 and 1e12
    if n > 1e12:
        scaled, suffix = n * 1e-12, "T"
    elif n > 1e9:
        scaled, suffix = n * 1e-9, "B"
    elif n > 1e6:
        scaled, suffix = n * 1e-6, "M"
    else:
        scaled, suffix = n * 1e-3, "K"
    fix = max(2 - len(str(round(scaled)).lstrip("0")), 0)
    return f"{scaled:.{fix}f}{suffix}"


# ------------------------------------------------------------------ tokenizer (gguf-py vocab.py SpecialVocab)

SPECIAL_TYPES = ("bos", "eos", "unk", "sep", "pad", "cls", "mask")
SPECIAL_ID_KEYS = {"bos": "tokenizer.ggml.bos_token_id", "eos": "tokenizer.ggml.eos_token_id",
                   "unk": "tokenizer.ggml.unknown_token_id", "sep": "tokenizer.ggml.seperator_token_id",
                   "pad": "tokenizer.ggml.padding_token_id", "mask": "tokenizer.ggml.mask_token_id",
                   "eot": "tokenizer.ggml.eot_token_id", "eom": "tokenizer.ggml.eom_token_id"}
ADD_KEYS = {"bos": "tokenizer.ggml.add_bos_token", "eos": "tokenizer.ggml.add_eos_token",
            "sep": "tokenizer.ggml.add_sep_token"}


def special_vocab(tok, tcfg, config, model_dir, n_vocab=None, types=None, extra_ids=()):
    """-> (special ids in order, add_* booleans in order, chat_template).
    n_vocab: ids from there on are skipped; types: the special token types
    (default SPECIAL_TYPES); extra_ids: (type, id) set after the files."""
    ids = {}
    add = {}
    types = list(SPECIAL_TYPES if types is None else types)

    def set_id(typ, tid):
        if not isinstance(tid, int):      # (a JSON true passes, as in gguf-py)
            return
        if tid < 0:
            raise ConvertError(f"invalid value for special token type {typ}: {tid}")
        if n_vocab is not None and tid >= n_vocab:
            return
        if typ not in ids:
            ids[typ] = tid

    added_tokens = tok.get("added_tokens", {}) if tok is not None else {}
    tcfg = dict(tcfg) if tcfg else None
    if tok:
        sp_bos = (tcfg or {}).get("bos_token")
        sp_cls = (tcfg or {}).get("cls_token")
        sp_eos = (tcfg or {}).get("eos_token")
        sp_sep = (tcfg or {}).get("sep_token")
        if not sp_bos and sp_cls and tcfg:
            tcfg["bos_token"] = sp_bos = sp_cls
        if not sp_eos and sp_sep and tcfg:
            tcfg["eos_token"] = sp_eos = sp_sep
        pp = tok.get("post_processor")
        if pp:
            for proc in pp.get("processors", [pp]):
                if proc.get("type") == "RobertaProcessing":
                    add["bos"] = True
                    add["eos"] = True
                    add["sep"] = True
                    if not sp_cls and tcfg:
                        sp_cls = proc.get("cls", [sp_bos])[0]
                        tcfg["cls_token"] = sp_cls
                    if not sp_sep and tcfg:
                        sp_sep = proc.get("sep", [sp_eos])[0]
                        tcfg["sep_token"] = sp_sep
                    continue
                if proc.get("type") != "TemplateProcessing":
                    continue
                single = proc.get("single", [])
                pair = proc.get("pair", [])
                first = last = None
                if len(single) > 1:
                    first = single[0].get("SpecialToken", {}).get("id")
                    if first:
                        if not tcfg:
                            sp_bos = first
                        elif first not in (sp_bos, sp_cls):
                            # it names whichever of bos and cls is unset
                            if not sp_bos:
                                tcfg["bos_token"] = sp_bos = first
                            if not sp_cls:
                                tcfg["cls_token"] = sp_cls = first
                        add["bos"] = first in (sp_bos, sp_cls)
                    last = single[-1].get("SpecialToken", {}).get("id")
                    if last:
                        if not tcfg:
                            sp_eos = last
                        elif last != sp_eos:
                            if "eot" not in types:
                                types.append("eot")
                                tcfg["eot_token"] = sp_eos
                            elif "eom" not in types:
                                types.append("eom")
                                tcfg["eom_token"] = sp_eos
                            tcfg["eos_token"] = sp_eos = last
                        add["eos"] = last == sp_eos
                if pair:
                    start = 1 if first and pair[0].get("SpecialToken", {}).get("id") == first else 0
                    stop = -1 if last and pair[-1].get("SpecialToken", {}).get("id") == last else None
                    pair = pair[slice(start, stop)]
                    if pair:
                        a_id = pair[0].get("Sequence", {}).get("id")
                        b_id = pair[-1].get("Sequence", {}).get("id")
                        if a_id == "A" and b_id == "B":
                            pair = pair[1:-1]
                            if pair:
                                add_sep = False
                                entry = pair[0].get("SpecialToken", {}).get("id")
                                if entry and entry in (sp_sep, sp_eos) and not last:
                                    add_sep = True
                                if len(pair) == 2:
                                    entry = pair[1].get("SpecialToken", {}).get("id")
                                    if entry and entry in (sp_sep, sp_eos):
                                        add_sep = True
                                add["sep"] = add_sep
                                if add_sep and not sp_sep and tcfg:
                                    tcfg["sep_token"] = sp_eos
    chat_template = None
    if tcfg:
        alt = None
        jinja = model_dir / "chat_template.jinja"
        cjson = model_dir / "chat_template.json"
        if jinja.is_file():
            alt = jinja.read_text(encoding="utf-8")
            extra = sorted((model_dir / "additional_chat_templates").glob("*.jinja"))
            if extra:
                alt = [{"name": "default", "template": alt}] + [
                    {"name": e.stem, "template": e.read_text(encoding="utf-8")} for e in extra]
        elif cjson.is_file():
            alt = json.loads(cjson.read_text(encoding="utf-8")).get("chat_template")
        ct = tcfg.get("chat_template", alt)
        if ct is None or isinstance(ct, (str, list)):
            chat_template = ct
        for typ in types:
            a = tcfg.get(f"add_{typ}_token")
            if isinstance(a, bool):
                add[typ] = a
            entry = tcfg.get(f"{typ}_token")
            if isinstance(entry, str):
                content = entry
            elif isinstance(entry, dict) and isinstance(entry.get("content"), str):
                content = entry["content"]
            else:
                continue
            set_id(typ, next((t.get("id") for t in added_tokens if t.get("content") == content), None))
    if config is not None:
        for typ in types:
            tid = config.get(f"{typ}_token_id")
            if tid is None and "text_config" in config:
                tid = config["text_config"].get(f"{typ}_token_id")
            set_id(typ, tid)
    for typ, tid in extra_ids:
        set_id(typ, tid)
    return ids, add, chat_template


def looks_special(t):
    return (t in ("<pad>", "<mask>", "<2mass>", "[@BOS@]")
            or (t.startswith("<|") and t.endswith("|>"))
            or (t.startswith("<\uff5c") and t.endswith("\uff5c>"))
            or (t.startswith("<unused") and t.endswith(">")))


def is_llama3_pre_tokenizer(pt):
    try:
        if pt["type"] != "Sequence" or len(pt["pretokenizers"]) != 2:
            return False
        split, bl = pt["pretokenizers"]
        return (split["type"] == "Split" and split["pattern"].get("Regex") == LLAMA3_PATTERN
                and split.get("behavior") == "Isolated" and not split.get("invert", False)
                and bl["type"] == "ByteLevel" and bl.get("add_prefix_space") is False
                and bl.get("use_regex") is False)
    except (KeyError, TypeError, AttributeError):
        return False


def spm_tokenizer_metadata(model_dir, config, pre_override):
    """LlamaModel.set_vocab() with a tokenizer.model: the pieces as the
    sentencepiece library reads them, added_tokens.json, tokenizer_config.json's
    added_tokens_decoder, then SpecialVocab (told the vocabulary size, no merges)"""
    import sentencepiece
    sp = sentencepiece.SentencePieceProcessor()
    try:
        sp.LoadFromFile(str(model_dir / "tokenizer.model"))
    except (OSError, RuntimeError) as e:
        raise ConvertError(f"tokenizer.model: {e}")
    tcfg_path = model_dir / "tokenizer_config.json"
    tcfg = json.loads(tcfg_path.read_text(encoding="utf-8")) if tcfg_path.is_file() else None
    tok_path = model_dir / "tokenizer.json"
    tok = json.loads(tok_path.read_text(encoding="utf-8")) if tok_path.is_file() else None
    kv = []
    if tcfg is not None and tcfg.get("add_prefix_space") is not None:
        kv.append(("tokenizer.ggml.add_space_prefix", T_BOOL, bool(tcfg["add_prefix_space"])))

    n = config.get("vocab_size") or sp.vocab_size()
    tokens = [f"[PAD{i}]" for i in range(n)]
    scores = [-10000.0] * n
    types = [TOKEN_UNUSED] * n
    for i in range(min(n, sp.vocab_size())):
        if sp.IsUnknown(i):
            t = TOKEN_UNKNOWN
        elif sp.IsControl(i):
            t = TOKEN_CONTROL
        elif sp.IsUnused(i):
            t = TOKEN_UNUSED
        elif sp.IsByte(i):
            t = TOKEN_BYTE
        else:
            t = TOKEN_NORMAL        # user-defined pieces too
        tokens[i], scores[i], types[i] = sp.IdToPiece(i), sp.GetScore(i), t
    added_path = model_dir / "added_tokens.json"
    if added_path.is_file():
        for text, tid in json.loads(added_path.read_text(encoding="utf-8")).items():
            if not isinstance(tid, int) or isinstance(tid, bool) or tid < 0:
                raise ConvertError(f"added_tokens.json: bad id {tid!r}")
            if tid < n:
                tokens[tid], scores[tid], types[tid] = text, -1000.0, TOKEN_USER_DEFINED
    for key, entry in ((tcfg or {}).get("added_tokens_decoder") or {}).items():
        tid = int(key)
        if tid < 0:
            raise ConvertError(f"tokenizer_config.json: negative id {key}")
        if tid >= n:
            continue
        text = entry["content"]
        if entry.get("special") or looks_special(text):
            types[tid] = TOKEN_CONTROL
        else:
            text = text.replace("\u2581", " ")
            types[tid] = TOKEN_USER_DEFINED
        tokens[tid], scores[tid] = text, -1000.0

    kv.append(("tokenizer.ggml.model", T_STRING, "llama"))
    kv.append(("tokenizer.ggml.pre", T_STRING, pre_override or "default"))
    kv.append(("tokenizer.ggml.tokens", T_ARRAY, (T_STRING, tokens)))
    kv.append(("tokenizer.ggml.scores", T_ARRAY, (T_FLOAT32, scores)))
    kv.append(("tokenizer.ggml.token_type", T_ARRAY, (T_INT32, types)))
    kv += special_vocab_keys(tok, tcfg, config, model_dir, n_vocab=n)

    if config.get("vocab_size") == 32016:
        # CodeLlama: a second SpecialVocab (prefix, suffix, middle, eot; a fresh
        # tokenizer_config.json; 32007-32010 where not given); gguf-py has keys
        # only for eot and the add_* flags, and writes a key again in its place
        tcfg2 = json.loads(tcfg_path.read_text(encoding="utf-8")) if tcfg_path.is_file() else None
        ids, add, _ = special_vocab(tok, tcfg2, config, model_dir,
                                    types=("prefix", "suffix", "middle", "eot"),
                                    extra_ids=(("prefix", 32007), ("suffix", 32008),
                                               ("middle", 32009), ("eot", 32010)))
        again = [(SPECIAL_ID_KEYS[t], T_UINT32, v) for t, v in ids.items() if t in SPECIAL_ID_KEYS]
        again += [(ADD_KEYS[t], T_BOOL, v) for t, v in add.items() if t in ADD_KEYS]
        for entry in again:
            i = next((j for j, e in enumerate(kv) if e[0] == entry[0]), None)
            if i is None:
                kv.append(entry)
            else:
                kv[i] = entry
    return kv


def tokenizer_metadata(model_dir, config, pre_override):
    if (model_dir / "tokenizer.model").is_file():
        return spm_tokenizer_metadata(model_dir, config, pre_override)
    tok = json.loads((model_dir / "tokenizer.json").read_text(encoding="utf-8"))
    tcfg_path = model_dir / "tokenizer_config.json"
    tcfg = json.loads(tcfg_path.read_text(encoding="utf-8")) if tcfg_path.is_file() else None
    model = tok.get("model", {})
    if model.get("type") != "BPE" or model.get("byte_fallback", False) or \
            (tok.get("decoder") or {}).get("type") != "ByteLevel":
        raise ConvertError("only byte-level BPE (Llama 3 style) tokenizers are supported")
    kv = []
    if tcfg is not None and tcfg.get("add_prefix_space") is not None:
        kv.append(("tokenizer.ggml.add_space_prefix", T_BOOL, bool(tcfg["add_prefix_space"])))

    # vocabulary as transformers' fast tokenizer sees it: model vocab + added tokens
    vocab = dict(model["vocab"])
    added = {}      # id -> (content, special)
    for t in tok.get("added_tokens", []):
        added[t["id"]] = (t["content"], bool(t.get("special", False)))
    for sid, t in ((tcfg or {}).get("added_tokens_decoder") or {}).items():
        added[int(sid)] = (t["content"], bool(t.get("special", False)))
    # an added token's content moves to the end, so that where an added
    # token shares its id with a vocab text the added token is the one the
    # reverse vocab keeps (transformers' own order is the Rust tokenizer's
    # hash order, so the upstream choice there is arbitrary)
    for tid, (content, _) in added.items():
        vocab.pop(content, None)
        vocab[content] = tid
    added_contents = {c for c, _ in added.values()}
    vocab_size = config.get("vocab_size", len(vocab))
    if max(vocab.values()) >= vocab_size:
        raise ConvertError("tokenizer ids exceed config vocab_size")
    reverse = {}
    for t, i in vocab.items():
        reverse[i] = t

    if pre_override:
        pre = pre_override
    elif is_llama3_pre_tokenizer(tok.get("pre_tokenizer")):
        # llama.cpp's llama-bpe ignores the merges for whole-token words
        # (tokenizers' ignore_merges); without it, the same pattern is its
        # smaug-bpe (what its hash gives for Llama 3's vocabulary saved so)
        model = tok.get("model")
        pre = "llama-bpe" if isinstance(model, dict) and model.get("ignore_merges") is True else "smaug-bpe"
    else:
        raise ConvertError("BPE pre-tokenizer was not recognized (give --pre)")

    tokens, types = [], []
    for i in range(vocab_size):
        if i not in reverse:
            tokens.append(f"[PAD{i}]")
            types.append(TOKEN_UNUSED)
            continue
        t = reverse[i]
        if t in added_contents:
            special = added[i][1] if i in added else False
            if special or looks_special(t):
                types.append(TOKEN_CONTROL)
            else:
                t = t.replace("\u2581", " ")
                types.append(TOKEN_USER_DEFINED)
        else:
            types.append(TOKEN_NORMAL)
        tokens.append(t)

    kv.append(("tokenizer.ggml.model", T_STRING, "gpt2"))
    kv.append(("tokenizer.ggml.pre", T_STRING, pre))
    kv.append(("tokenizer.ggml.tokens", T_ARRAY, (T_STRING, tokens)))
    kv.append(("tokenizer.ggml.token_type", T_ARRAY, (T_INT32, types)))

    merges = model.get("merges")
    mlist = []
    if isinstance(merges, list) and merges:
        if isinstance(merges[0], str):
            mlist = list(merges)
        elif isinstance(merges[0], list) and len(merges[0]) == 2 and isinstance(merges[0][0], str):
            mlist = [" ".join("".join(chr(ord(c) + 256) if c == " " else c for c in part) for part in pair)
                     for pair in merges]
        else:
            raise ConvertError("Unknown tokenizer merges format")
    if mlist:
        kv.append(("tokenizer.ggml.merges", T_ARRAY, (T_STRING, mlist)))

    kv += special_vocab_keys(tok, tcfg, config, model_dir)
    return kv


def special_vocab_keys(tok, tcfg, config, model_dir, n_vocab=None):
    """SpecialVocab.add_to_gguf(): special ids, add_* flags, chat template, normalizer flags"""
    kv = []
    ids, add, chat_template = special_vocab(tok, tcfg, config, model_dir, n_vocab)
    for typ, tid in ids.items():
        if typ in SPECIAL_ID_KEYS:
            kv.append((SPECIAL_ID_KEYS[typ], T_UINT32, tid))
    for typ, val in add.items():
        if typ in ADD_KEYS:
            kv.append((ADD_KEYS[typ], T_BOOL, val))
    if chat_template is not None:
        if isinstance(chat_template, list):
            default = None
            names = []
            for choice in chat_template:
                nm = "".join(c if (c.isascii() and c.isalnum()) else "_" for c in choice.get("name", ""))
                tpl = choice.get("template")
                if nm and tpl is not None:
                    if nm == "default":
                        default = tpl
                    else:
                        if nm not in names:
                            names.append(nm)
                        if tpl:
                            kv.append((f"tokenizer.chat_template.{nm}", T_STRING, tpl))
            if names:
                kv.append(("tokenizer.chat_templates", T_ARRAY, (T_STRING, names)))
            chat_template = default
        if chat_template:
            kv.append(("tokenizer.chat_template", T_STRING, chat_template))
    # gguf-py SpecialVocab: the normalizer's lowercase / strip_accents flags, after the
    # chat template (a Sequence's later entries win; a BertNormalizer's null unsets)
    flags = {"lowercase": None, "strip_accents": None}

    def parse_normalizer(n):
        if not isinstance(n, dict):
            raise ConvertError("tokenizer.json: a normalizer must be an object")
        typ = n.get("type")
        if typ == "Lowercase":
            flags["lowercase"] = True
        elif typ == "StripAccents":
            flags["strip_accents"] = True
        elif typ == "BertNormalizer":
            for f in ("lowercase", "strip_accents"):
                if f in n:
                    if n[f] is not None and not isinstance(n[f], bool):
                        raise ConvertError(f"tokenizer.json: BertNormalizer {f} is not a boolean")
                    flags[f] = n[f]
        elif typ == "Sequence":
            for sub in n.get("normalizers") or []:
                parse_normalizer(sub)

    if tok and tok.get("normalizer"):
        parse_normalizer(tok["normalizer"])
    for f in ("lowercase", "strip_accents"):
        if flags[f] is not None:
            kv.append((f"tokenizer.ggml.normalizer.{f}", T_BOOL, flags[f]))
    return kv


# ------------------------------------------------------------------ conversion

# transformers' LlamaConfig / MistralConfig defaults for the keys the converter reads
CONFIG_DEFAULTS = {
    "llama": {"max_position_embeddings": 2048, "rms_norm_eps": 1e-6, "rope_theta": 10000.0},
    "mistral": {"max_position_embeddings": 4096 * 32, "rms_norm_eps": 1e-6, "rope_theta": 10000.0,
                "num_key_value_heads": 8},
}


def guess_outtype(model_dir):
    """ModelBase.__init__'s guess for --outtype auto: the first source tensor of two or
    more dimensions that is BF16 or F16 decides; F16 when there is none."""
    for name, (dtype, shape, raw) in load_tensors(model_dir).items():
        if len(shape) < 2:
            continue
        if dtype == "BF16":
            return "bf16"
        if dtype == "F16":
            return "f16"
    return "f16"


def convert(model_dir, outtype, pre_override=None, transformers_head_dim=False):
    """-> (metadata list [(key, type, value)], tensors [(name, ggml type, dims, bytes)]).

    transformers_head_dim: behave as the converter does when transformers can load the
    config (LlamaConfig fills in head_dim = hidden / heads), i.e. always write
    llama.attention.key_length / value_length.  SPEC section 7 says they appear only when
    config.json has head_dim, which is what the converter does when it falls back to
    reading config.json itself; the default follows the SPEC."""
    model_dir = Path(model_dir)
    raw_config = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
    arch = (raw_config.get("architectures") or [None])[0]
    if arch not in ("LlamaForCausalLM", "LLaMAForCausalLM", "MistralForCausalLM"):
        raise ConvertError(f"unsupported architecture {arch!r}")
    # The converter reads config.json through transformers' AutoConfig (picked by
    # model_type), which fills in its config class's defaults for missing keys.
    # head_dim is left out here on purpose: see transformers_head_dim.
    config = dict(CONFIG_DEFAULTS.get(raw_config.get("model_type"), {}))
    config.update(raw_config)
    if config.get("num_key_value_heads") is None:
        config["num_key_value_heads"] = config["num_attention_heads"]
    if outtype == "auto":
        outtype = guess_outtype(model_dir)
    tensor_type, file_type = OUTTYPES[outtype]
    n_layers = config["num_hidden_layers"]
    n_head = config["num_attention_heads"]
    n_kv = config["num_key_value_heads"]

    # TextModel.__init__: rope_parameters (transformers 5) or rope_scaling, with the
    # top-level rope_theta / original_max_position_embeddings and "type" mirrored in
    rope_params = dict(config.get("rope_parameters", config.get("rope_scaling")) or {})
    if "full_attention" in rope_params or "sliding_attention" in rope_params:
        raise ConvertError("per-attention-type rope parameters are not supported by the reference")
    if "rope_theta" not in rope_params and config.get("rope_theta") is not None:
        rope_params["rope_theta"] = config["rope_theta"]
    if "rope_type" not in rope_params and rope_params.get("type") is not None:
        rope_params["rope_type"] = rope_params["type"]
    if "original_max_position_embeddings" not in rope_params and \
            config.get("original_max_position_embeddings") is not None:
        rope_params["original_max_position_embeddings"] = config["original_max_position_embeddings"]
    rope_type = rope_params.get("rope_type")
    is_llama3 = rope_type is not None and rope_type.lower() == "llama3"
    if rope_type is not None and not is_llama3 and rope_type not in ("linear", "yarn", "dynamic", "default"):
        raise ConvertError(f"rope type {rope_type!r} not supported by the reference")

    # ---- tensors: (gguf name, ggml type, gguf dims (fastest first), data bytes)
    out = []
    if is_llama3:
        rf = rope_freqs_llama3(config, rope_params)
        out.append(("rope_freqs.weight", GGML_F32, [rf.shape[0]], rf.view(np.uint32).astype("<u4").tobytes()))
    for name, (dtype, shape, raw) in load_tensors(model_dir).items():
        if name.endswith((".attention.masked_bias", ".attention.bias", ".rotary_emb.inv_freq")):
            continue
        kind, data = to_internal(dtype, shape, raw)
        new_name = map_name(name, n_layers)
        if name.endswith(("q_proj.weight", "q_proj.bias")):
            data = permute_rows(data, n_head)
        if name.endswith(("k_proj.weight", "k_proj.bias")):
            data = permute_rows(data, n_kv)
        n_dims = len(shape)
        if n_dims <= 1 or new_name.endswith("_norm.weight") or not new_name.endswith(".weight"):
            qtype = GGML_F32
        else:
            qtype = tensor_type
        if qtype == GGML_Q8_0 and shape[-1] % 32 != 0:
            qtype = GGML_F16          # gguf-py: QuantError -> falling back to F16
        out.append((new_name, qtype, list(reversed(shape)), encode(kind, data, qtype)))

    total_params = sum(int(np.prod(dims, dtype=np.int64)) for _, _, dims, _ in out)

    # ---- metadata, in file order
    kv = [("general.architecture", T_STRING, "llama"), ("general.type", T_STRING, "model")]
    gen_path = model_dir / "generation_config.json"
    gen = {}
    if gen_path.is_file():
        try:
            gen = json.loads(gen_path.read_text(encoding="utf-8"))
        except (ValueError, OSError):
            gen = {}
    for key, gkey, t in (("sequence", "general.sampling.sequence", T_STRING),
                         ("top_k", "general.sampling.top_k", T_INT32),
                         ("top_p", "general.sampling.top_p", T_FLOAT32),
                         ("min_p", "general.sampling.min_p", T_FLOAT32),
                         ("xtc_probability", "general.sampling.xtc_probability", T_FLOAT32),
                         ("xtc_threshold", "general.sampling.xtc_threshold", T_FLOAT32),
                         ("temperature", "general.sampling.temp", T_FLOAT32),
                         ("penalty_last_n", "general.sampling.penalty_last_n", T_INT32),
                         ("penalty_repeat", "general.sampling.penalty_repeat", T_FLOAT32),
                         ("mirostat", "general.sampling.mirostat", T_INT32),
                         ("mirostat_tau", "general.sampling.mirostat_tau", T_FLOAT32),
                         ("mirostat_eta", "general.sampling.mirostat_eta", T_FLOAT32)):
        val = gen.get(key)
        if key == "penalty_repeat" and "penalty_repeat" not in gen:
            # llama.cpp 2026-09 also takes transformers' own name for it
            val = gen.get("repetition_penalty")
        if val is not None:
            kv.append((gkey, t, val))

    md = naming_metadata(model_dir, config, total_params)
    for key, gkey in (("name", "general.name"), ("author", "general.author"),
                      ("version", "general.version"), ("organization", "general.organization"),
                      ("finetune", "general.finetune"), ("basename", "general.basename"),
                      ("description", "general.description"), ("quantized_by", "general.quantized_by"),
                      ("size_label", "general.size_label")):
        if md.get(key) is not None:
            kv.append((gkey, T_STRING, md[key]))
    if md.get("license") is not None:
        lic = md["license"]
        kv.append(("general.license", T_STRING, ",".join(lic) if isinstance(lic, list) else lic))
    for key, gkey in (("license_name", "general.license.name"), ("license_link", "general.license.link"),
                      ("url", "general.url"), ("doi", "general.doi"), ("uuid", "general.uuid"),
                      ("repo_url", "general.repo_url"), ("source_url", "general.source.url"),
                      ("source_doi", "general.source.doi"), ("source_uuid", "general.source.uuid"),
                      ("source_repo_url", "general.source.repo_url")):
        if md.get(key) is not None:
            kv.append((gkey, T_STRING, md[key]))
    for key, prefix in (("base_models", "general.base_model"), ("datasets", "general.dataset")):
        if md.get(key) is not None:
            kv.append((f"{prefix}.count", T_UINT32, len(md[key])))
            for i, entry in enumerate(md[key]):
                for f in ("name", "author", "version", "organization", "description", "url", "doi",
                          "uuid", "repo_url"):
                    if f in entry:
                        kv.append((f"{prefix}.{i}.{f}", T_STRING, entry[f]))
    for key, gkey in (("tags", "general.tags"), ("languages", "general.languages")):
        if md.get(key) is not None:
            kv.append((gkey, T_ARRAY, (T_STRING, md[key])))

    kv.append(("llama.block_count", T_UINT32, n_layers))
    for keys, gkey in ((("max_position_embeddings", "n_ctx", "n_positions", "max_length",
                         "max_sequence_length", "model_max_length"), "llama.context_length"),
                       (("hidden_size", "n_embd", "dim"), "llama.embedding_length"),
                       (("intermediate_size", "n_inner", "hidden_dim"), "llama.feed_forward_length"),
                       (("num_attention_heads", "n_head", "n_heads"), "llama.attention.head_count"),
                       (("num_key_value_heads", "n_kv_heads"), "llama.attention.head_count_kv")):
        v = next((config[k] for k in keys if k in config), None)
        if v is not None:
            kv.append((gkey, T_UINT32, v))
    if config.get("is_causal") is False:
        kv.append(("llama.attention.causal", T_BOOL, False))
    if rope_type == "linear" and rope_params.get("factor") is not None:
        kv.append(("llama.rope.scaling.type", T_STRING, "linear"))
        kv.append(("llama.rope.scaling.factor", T_FLOAT32, rope_params["factor"]))
    # yarn: the factor, the context trained for (a KeyError without one), then
    # each yarn value present; "dynamic" is passed over (nothing written)
    if rope_type == "yarn" and rope_params.get("factor") is not None:
        if "original_max_position_embeddings" not in rope_params:
            raise ConvertError("yarn rope scaling without original_max_position_embeddings")
        kv.append(("llama.rope.scaling.type", T_STRING, "yarn"))
        kv.append(("llama.rope.scaling.factor", T_FLOAT32, rope_params["factor"]))
        kv.append(("llama.rope.scaling.original_context_length", T_UINT32,
                   rope_params["original_max_position_embeddings"]))
        attn = rope_params.get("attention_factor", rope_params.get("attn_factor"))
        for key, value in (("yarn_ext_factor", rope_params.get("extrapolation_factor")),
                           ("yarn_attn_factor", attn),
                           ("yarn_beta_fast", rope_params.get("beta_fast")),
                           ("yarn_beta_slow", rope_params.get("beta_slow"))):
            if value is not None:
                kv.append((f"llama.rope.scaling.{key}", T_FLOAT32, value))
    if rope_params.get("rope_theta") is not None:
        kv.append(("llama.rope.freq_base", T_FLOAT32, rope_params["rope_theta"]))
    eps = next((config[k] for k in ("rms_norm_eps", "norm_eps") if k in config), None)
    if eps is not None:
        kv.append(("llama.attention.layer_norm_rms_epsilon", T_FLOAT32, eps))
    eps = next((config[k] for k in ("layer_norm_eps", "layer_norm_epsilon", "norm_epsilon")
                if k in config), None)
    if eps is not None:
        kv.append(("llama.attention.layer_norm_epsilon", T_FLOAT32, eps))
    # SPEC 7: key_length / value_length only when config.json itself has head_dim
    head_dim = raw_config.get("head_dim")
    if head_dim is None and transformers_head_dim:
        head_dim = config["hidden_size"] // n_head
    if head_dim is not None:
        kv.append(("llama.attention.key_length", T_UINT32, head_dim))
        kv.append(("llama.attention.value_length", T_UINT32, head_dim))
    kv.append(("general.file_type", T_UINT32, file_type))
    kv.append(("llama.vocab_size", T_UINT32, config["vocab_size"]))
    rope_dim = config.get("head_dim")
    if rope_dim is None:
        rope_dim = config["hidden_size"] // n_head
    kv.append(("llama.rope.dimension_count", T_UINT32, rope_dim))
    kv.append(("general.quantization_version", T_UINT32, 2))
    kv += tokenizer_metadata(model_dir, config, pre_override)
    if config.get("vocab_size") == 49152:
        # LlamaModel.set_vocab: "granite small models" get add_bos_token = false
        # (a duplicate key keeps its first position in gguf-py's writer)
        i = next((j for j, e in enumerate(kv) if e[0] == "tokenizer.ggml.add_bos_token"), None)
        if i is None:
            kv.append(("tokenizer.ggml.add_bos_token", T_BOOL, False))
        else:
            kv[i] = ("tokenizer.ggml.add_bos_token", T_BOOL, False)

    # gguf-py: add_string("") and add_array([]) write nothing
    kv = [e for e in kv if not ((e[1] == T_STRING and not e[2]) or (e[1] == T_ARRAY and not e[2][1]))]
    seen = set()
    for k, _, _ in kv:
        if k in seen:
            raise ConvertError(f"duplicate key {k}")
        seen.add(k)
    return kv, out


def encode(kind, data, qtype):
    """Source bits (kind 'f32' -> uint32, 'f16' -> uint16) -> little-endian tensor bytes."""
    if kind == "f16":
        if qtype == GGML_F16:
            return data.astype("<u2").tobytes()
        data = f16_bits_to_f32_bits(data)
    if qtype == GGML_F32:
        return data.astype("<u4").tobytes()
    if qtype == GGML_F16:
        return f32_bits_to_f16_bits(data).astype("<u2").tobytes()
    if qtype == GGML_BF16:
        return f32_bits_to_bf16_bits(data).astype("<u2").tobytes()
    if qtype == GGML_Q8_0:
        return quantize_q8_0(np.ascontiguousarray(data)).tobytes()
    raise ConvertError(f"unsupported type {qtype}")


# ------------------------------------------------------------------ GGUF writer

def pack_string(s):
    b = s.encode("utf-8") if isinstance(s, str) else bytes(s)
    return struct.pack("<Q", len(b)) + b


SCALAR_FMT = {T_UINT8: "<B", T_INT8: "<b", T_UINT16: "<H", T_INT16: "<h", T_UINT32: "<I",
              T_INT32: "<i", T_FLOAT32: "<f", T_UINT64: "<Q", T_INT64: "<q", T_FLOAT64: "<d",
              T_BOOL: "<?"}


def pack_value(t, v):
    if t == T_STRING:
        return pack_string(v)
    if t == T_ARRAY:
        et, items = v
        return struct.pack("<IQ", et, len(items)) + b"".join(pack_value(et, x) for x in items)
    return struct.pack(SCALAR_FMT[t], v)


def pad_len(n):
    return (-n) % ALIGNMENT


def write_gguf(path, kv, tensors):
    buf = bytearray()
    buf += GGUF_MAGIC + struct.pack("<IQQ", GGUF_VERSION, len(tensors), len(kv))
    for k, t, v in kv:
        buf += pack_string(k) + struct.pack("<I", t) + pack_value(t, v)
    off = 0
    for name, qtype, dims, data in tensors:
        buf += pack_string(name) + struct.pack("<I", len(dims))
        buf += b"".join(struct.pack("<Q", d) for d in dims)
        buf += struct.pack("<IQ", qtype, off)
        off += len(data) + pad_len(len(data))
    buf += b"\0" * pad_len(len(buf))
    with open(path, "wb") as f:
        f.write(buf)
        for _, _, _, data in tensors:
            f.write(data)
            f.write(b"\0" * pad_len(len(data)))


def main(argv=None):
    p = argparse.ArgumentParser(description="reference HF Llama -> GGUF converter")
    p.add_argument("model_dir")
    p.add_argument("out")
    p.add_argument("--outtype", choices=sorted(OUTTYPES) + ["auto"], required=True)
    p.add_argument("--pre", default=None, help="tokenizer.ggml.pre override")
    p.add_argument("--transformers-head-dim", action="store_true",
                   help="write key_length/value_length even without head_dim in config.json "
                        "(what the converter does when transformers loads the config)")
    a = p.parse_args(argv)
    try:
        kv, tensors = convert(a.model_dir, a.outtype, a.pre, a.transformers_head_dim)
    except ConvertError as e:
        print(f"ref_convert: {e}", file=sys.stderr)
        return 1
    write_gguf(a.out, kv, tensors)
    return 0


if __name__ == "__main__":
    sys.exit(main())
