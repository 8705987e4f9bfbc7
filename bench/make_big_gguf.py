#!/usr/bin/python3
"""make_big_gguf.py: write a sparse, Llama-3.2-3B-shaped GGUF v3 for bench-open.sh.

Usage: make_big_gguf.py OUT.gguf

The metadata holds Llama-3-sized tokenizer arrays: tokenizer.ggml.tokens with
128,256 strings, tokenizer.ggml.token_type with 128,256 int32s and
tokenizer.ggml.merges with 280,147 strings (about 7.7 MB of metadata in all,
close to Llama 3's).
The 255 tensor descriptors (28 layers of hidden 3072, 24/8 heads, FFN 8192,
BF16 matrices, F32 norms and rope_freqs) describe about 6.4 GB of tensor data,
which is never written: the file is truncated to its full size, so the data
section is a hole and costs no disk.

Prints "DATA_OFFSET FILE_SIZE" on stdout.
"""

import random
import struct
import sys

ALIGN = 32
GGML_F32, GGML_BF16 = 0, 30
T_U32, T_I32, T_F32, T_STRING, T_ARRAY, T_U64 = 4, 5, 6, 8, 9, 10

N_LAYERS, HIDDEN, HEADS, KV_HEADS, FFN, VOCAB = 28, 3072, 24, 8, 8192, 128256
N_MERGES = 280147
HEAD_DIM = HIDDEN // HEADS


def gstr(s):
    b = s.encode("utf-8")
    return struct.pack("<Q", len(b)) + b


def kv(key, vtype, payload):
    return gstr(key) + struct.pack("<I", vtype) + payload


def kv_u32(key, v):
    return kv(key, T_U32, struct.pack("<I", v))


def kv_f32(key, v):
    return kv(key, T_F32, struct.pack("<f", v))


def kv_str(key, v):
    return kv(key, T_STRING, gstr(v))


def kv_str_array(key, items):
    parts = [struct.pack("<IQ", T_STRING, len(items))]
    parts.extend(gstr(s) for s in items)
    return kv(key, T_ARRAY, b"".join(parts))


def make_tokens(rng):
    # byte-level BPE-looking pieces, 1..14 characters, ~5.5 bytes on average
    alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    seen, tokens = set(), []
    while len(tokens) < VOCAB - 256:
        n = min(14, max(1, int(rng.expovariate(1 / 3.0)) + 1))
        piece = ("\u0120" if rng.random() < 0.4 else "") + "".join(
            rng.choice(alphabet) for _ in range(n))
        if piece not in seen:
            seen.add(piece)
            tokens.append(piece)
    tokens.extend("<|reserved_special_token_%d|>" % i for i in range(256))
    return tokens


def make_merges(rng, tokens):
    # "left right": right-hand pieces are short continuations, as in real merges
    ordinary = tokens[:VOCAB - 256]
    return ["%s %s" % (rng.choice(ordinary),
                       rng.choice(ordinary).lstrip("\u0120")[:5])
            for _ in range(N_MERGES)]


def tensor_list():
    t = [("token_embd.weight", (HIDDEN, VOCAB), GGML_BF16),
         ("rope_freqs.weight", (HEAD_DIM // 2,), GGML_F32)]
    kv_dim = KV_HEADS * HEAD_DIM
    for i in range(N_LAYERS):
        p = "blk.%d." % i
        t += [(p + "attn_norm.weight", (HIDDEN,), GGML_F32),
              (p + "attn_q.weight", (HIDDEN, HIDDEN), GGML_BF16),
              (p + "attn_k.weight", (HIDDEN, kv_dim), GGML_BF16),
              (p + "attn_v.weight", (HIDDEN, kv_dim), GGML_BF16),
              (p + "attn_output.weight", (HIDDEN, HIDDEN), GGML_BF16),
              (p + "ffn_norm.weight", (HIDDEN,), GGML_F32),
              (p + "ffn_gate.weight", (HIDDEN, FFN), GGML_BF16),
              (p + "ffn_up.weight", (HIDDEN, FFN), GGML_BF16),
              (p + "ffn_down.weight", (FFN, HIDDEN), GGML_BF16)]
    t.append(("output_norm.weight", (HIDDEN,), GGML_F32))
    return t


def main():
    out = sys.argv[1]
    rng = random.Random(3)
    tokens = make_tokens(rng)
    merges = make_merges(rng, tokens)
    token_types = [1] * (VOCAB - 256) + [3] * 256

    kvs = [
        kv_str("general.architecture", "llama"),
        kv_str("general.name", "bench-llama-3.2-3b-shaped"),
        kv_u32("general.alignment", ALIGN),
        kv_u32("llama.block_count", N_LAYERS),
        kv_u32("llama.context_length", 131072),
        kv_u32("llama.embedding_length", HIDDEN),
        kv_u32("llama.feed_forward_length", FFN),
        kv_u32("llama.attention.head_count", HEADS),
        kv_u32("llama.attention.head_count_kv", KV_HEADS),
        kv_f32("llama.rope.freq_base", 500000.0),
        kv_f32("llama.attention.layer_norm_rms_epsilon", 1e-5),
        kv_u32("llama.vocab_size", VOCAB),
        kv_u32("llama.rope.dimension_count", HEAD_DIM),
        kv_str("tokenizer.ggml.model", "gpt2"),
        kv_str("tokenizer.ggml.pre", "llama-bpe"),
        kv_str_array("tokenizer.ggml.tokens", tokens),
        kv("tokenizer.ggml.token_type", T_ARRAY,
           struct.pack("<IQ", T_I32, VOCAB)
           + struct.pack("<%di" % VOCAB, *token_types)),
        kv_str_array("tokenizer.ggml.merges", merges),
        kv_u32("tokenizer.ggml.bos_token_id", 128000),
        kv_u32("tokenizer.ggml.eos_token_id", 128009),
    ]

    infos, offset = [], 0
    for name, dims, gtype in tensor_list():
        n = 1
        for d in dims:
            n *= d
        nbytes = n * (2 if gtype == GGML_BF16 else 4)
        infos.append(gstr(name) + struct.pack("<I", len(dims))
                     + struct.pack("<%dQ" % len(dims), *dims)
                     + struct.pack("<IQ", gtype, offset))
        offset += (nbytes + ALIGN - 1) // ALIGN * ALIGN
    data_bytes = offset

    header = (b"GGUF" + struct.pack("<IQQ", 3, len(infos), len(kvs))
              + b"".join(kvs) + b"".join(infos))
    data_offset = (len(header) + ALIGN - 1) // ALIGN * ALIGN
    header += b"\0" * (data_offset - len(header))

    with open(out, "wb") as f:
        f.write(header)
        f.truncate(data_offset + data_bytes)
    print(data_offset, data_offset + data_bytes)


if __name__ == "__main__":
    main()
