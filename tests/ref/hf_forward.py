#!/usr/bin/python3
"""Plain numpy forward pass of a Hugging Face Llama checkpoint (transformers' LlamaForCausalLM
semantics), independent of GGUF and of Tensorscope.

Usage: hf_forward.py MODEL_DIR --tokens 1,2,3,... --out logits.npy [--precision f32|f64]
                     [--weights-as bf16|f16|q8_0]

Weights are read with the small Safetensors reader below and widened to float32 (BF16 and
F16 exactly); the math is float32 by default: RMSNorm with eps (computed in float32, then
times the weight), rotate-half RoPE with llama3 frequency scaling, grouped-query attention
with a causal mask, SiLU-gated MLP, tied or untied lm_head.  Writes the logits of every
position, shape (n_tokens, vocab_size), float32.

--weights-as T first rounds every matrix (every 2-D weight; the 1-D norms stay as they are)
the way a GGUF of output type T stores it: BF16 / F16 round to nearest even; Q8_0 blocks of
32 along each row (d = max|x|/127 kept as F16, q = x/d rounded half away from zero, value
d*q), rows whose length is not a multiple of 32 as F16.  Rounding commutes with the
converter's Q/K row permutation (it only moves whole rows), so llama.cpp running an exactly
widened F32 copy of a type-T GGUF must reproduce these logits to float32 accuracy.
"""

import argparse
import json
import math
import os
import struct
import sys
from pathlib import Path

import numpy as np


def read_safetensors(path):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n).decode("utf-8"))
        base = 8 + n
        out = {}
        for name, meta in header.items():
            if name == "__metadata__":
                continue
            b, e = meta["data_offsets"]
            f.seek(base + b)
            raw = f.read(e - b)
            shape = tuple(meta["shape"])
            dt = meta["dtype"]
            if dt == "BF16":
                a = (np.frombuffer(raw, "<u2").astype(np.uint32) << 16).view(np.float32)
            elif dt == "F16":
                a = np.frombuffer(raw, "<f2").astype(np.float32)
            elif dt == "F32":
                a = np.frombuffer(raw, "<f4").astype(np.float32)
            else:
                raise SystemExit(f"{path}: unsupported dtype {dt} for {name}")
            out[name] = a.reshape(shape)
    return out


def load_weights(model_dir):
    index = model_dir / "model.safetensors.index.json"
    if index.is_file():
        files = sorted(set(json.loads(index.read_text())["weight_map"].values()))
    else:
        files = sorted(f for f in os.listdir(model_dir) if f.startswith("model") and f.endswith(".safetensors"))
    w = {}
    for f in files:
        w.update(read_safetensors(model_dir / f))
    return w


def round_bf16(a):
    u = a.astype(np.float32).view(np.uint32).astype(np.uint64)
    r = (((u + 0x7FFF + ((u >> 16) & 1)) >> 16) << 16).astype(np.uint32)
    return r.view(np.float32)


def round_f16(a):
    return a.astype(np.float32).astype(np.float16).astype(np.float32)


def round_q8_0(a):
    if a.shape[-1] % 32:
        return round_f16(a)
    x = a.astype(np.float32).reshape(-1, 32)
    d = np.abs(x).max(axis=1, keepdims=True) / np.float32(127)
    with np.errstate(divide="ignore", invalid="ignore"):
        inv = np.where(d == 0, np.float32(0), np.float32(1) / d).astype(np.float32)
    v = (x * inv).astype(np.float32)
    # round half away from zero, exactly (|v| + 0.5 itself could round up)
    frac = np.abs(v) - np.floor(np.abs(v))
    q = np.sign(v) * (np.floor(np.abs(v)) + (frac >= np.float32(0.5)))
    dh = d.astype(np.float16).astype(np.float32)
    return (dh * q.astype(np.float32)).astype(np.float32).reshape(a.shape)


ROUNDERS = {"bf16": round_bf16, "f16": round_f16, "q8_0": round_q8_0}


def llama3_inv_freq(cfg, head_dim, dt):
    """transformers' _compute_default_rope_parameters + _compute_llama3_parameters."""
    base = cfg.get("rope_theta", 10000.0)
    inv_freq = (1.0 / (base ** (np.arange(0, head_dim, 2, dtype=np.int64).astype(np.float32) / head_dim))).astype(np.float32)
    rs = cfg.get("rope_scaling") or {}
    rtype = rs.get("rope_type", rs.get("type"))
    if rtype in (None, "default"):
        return inv_freq.astype(dt)
    if rtype != "llama3":
        raise SystemExit(f"rope type {rtype!r} not supported")
    factor = rs["factor"]
    low = rs["low_freq_factor"]
    high = rs["high_freq_factor"]
    old = rs["original_max_position_embeddings"]
    low_wl = old / low
    high_wl = old / high
    wavelen = (2 * math.pi / inv_freq).astype(np.float32)
    inv_l = np.where(wavelen > low_wl, inv_freq / factor, inv_freq).astype(np.float32)
    smooth = ((old / wavelen - low) / (high - low)).astype(np.float32)
    smoothed = ((1 - smooth) * inv_l / factor + smooth * inv_l).astype(np.float32)
    medium = ~(wavelen < high_wl) & ~(wavelen > low_wl)
    return np.where(medium, smoothed, inv_l).astype(dt)


def rms_norm(x, w, eps, dt):
    var = np.mean(x * x, axis=-1, keepdims=True, dtype=dt)
    return (w * (x / np.sqrt(var + dt(eps)))).astype(dt)


def rotate_half(x):
    h = x.shape[-1] // 2
    return np.concatenate([-x[..., h:], x[..., :h]], axis=-1)


def forward(model_dir, tokens, dt=np.float32, weights_as=None):
    model_dir = Path(model_dir)
    cfg = json.loads((model_dir / "config.json").read_text())
    w = load_weights(model_dir)
    if weights_as:
        w = {k: (ROUNDERS[weights_as](v) if v.ndim == 2 else v) for k, v in w.items()}
    w = {k: v.astype(dt) for k, v in w.items()}
    H = cfg["hidden_size"]
    nh = cfg["num_attention_heads"]
    nkv = cfg.get("num_key_value_heads", nh)
    hd = cfg.get("head_dim") or H // nh
    eps = cfg.get("rms_norm_eps", 1e-6)
    T = len(tokens)

    inv_freq = llama3_inv_freq(cfg, hd, dt)
    pos = np.arange(T, dtype=dt)
    freqs = (pos[:, None] * inv_freq[None, :]).astype(dt)
    emb = np.concatenate([freqs, freqs], axis=-1)
    cos, sin = np.cos(emb).astype(dt), np.sin(emb).astype(dt)

    x = w["model.embed_tokens.weight"][np.asarray(tokens)]
    mask = np.triu(np.full((T, T), -np.inf, dtype=dt), k=1)
    group = nh // nkv
    for i in range(cfg["num_hidden_layers"]):
        p = f"model.layers.{i}."
        h = rms_norm(x, w[p + "input_layernorm.weight"], eps, dt)
        q = (h @ w[p + "self_attn.q_proj.weight"].T).reshape(T, nh, hd).transpose(1, 0, 2)
        k = (h @ w[p + "self_attn.k_proj.weight"].T).reshape(T, nkv, hd).transpose(1, 0, 2)
        v = (h @ w[p + "self_attn.v_proj.weight"].T).reshape(T, nkv, hd).transpose(1, 0, 2)
        q = q * cos[None] + rotate_half(q) * sin[None]
        k = k * cos[None] + rotate_half(k) * sin[None]
        k = np.repeat(k, group, axis=0)
        v = np.repeat(v, group, axis=0)
        s = (q @ k.transpose(0, 2, 1)) / dt(math.sqrt(hd)) + mask[None]
        s = s - s.max(axis=-1, keepdims=True)
        e = np.exp(s)
        a = e / e.sum(axis=-1, keepdims=True)
        o = (a @ v).transpose(1, 0, 2).reshape(T, nh * hd)
        x = x + o @ w[p + "self_attn.o_proj.weight"].T
        h = rms_norm(x, w[p + "post_attention_layernorm.weight"], eps, dt)
        g = h @ w[p + "mlp.gate_proj.weight"].T
        u = h @ w[p + "mlp.up_proj.weight"].T
        act = g / (dt(1) + np.exp(-g))
        x = x + (act * u) @ w[p + "mlp.down_proj.weight"].T
    x = rms_norm(x, w["model.norm.weight"], eps, dt)
    head = w.get("lm_head.weight")
    if head is None:
        if cfg.get("tie_word_embeddings", True) is False:
            raise SystemExit("untied model without lm_head.weight")
        head = w["model.embed_tokens.weight"]
    return (x @ head.T).astype(np.float32)


def main(argv=None):
    ap = argparse.ArgumentParser(description="numpy Llama forward pass (Hugging Face semantics)")
    ap.add_argument("model_dir")
    ap.add_argument("--tokens", required=True, help="comma-separated token ids")
    ap.add_argument("--out", required=True, help="output .npy (n_tokens x vocab, float32)")
    ap.add_argument("--precision", choices=["f32", "f64"], default="f32")
    ap.add_argument("--weights-as", choices=sorted(ROUNDERS), default=None,
                    help="round the matrices as a GGUF of this type stores them")
    a = ap.parse_args(argv)
    tokens = [int(t) for t in a.tokens.replace(" ", "").split(",") if t]
    dt = np.float32 if a.precision == "f32" else np.float64
    with np.errstate(over="ignore"):
        logits = forward(a.model_dir, tokens, dt, a.weights_as)
    np.save(a.out, logits)
    return 0


if __name__ == "__main__":
    sys.exit(main())
