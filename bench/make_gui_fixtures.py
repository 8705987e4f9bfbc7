#!/usr/bin/python3
"""make_gui_fixtures.py: the two models bench-gui.sh opens in the window.

Usage: make_gui_fixtures.py WORKDIR

Writes, as sparse files (only the headers take disk space):
  WORKDIR/llama-3b-sharded/  a Llama-3.2-3B-shaped Safetensors checkpoint in
      2 shards with model.safetensors.index.json: 28 layers, hidden 3072,
      24/8 heads, FFN 8192, vocab 128,256, BF16, tied embeddings; 254
      tensors, about 6.4 GB.
  WORKDIR/many-tensors.gguf  a GGUF v3 with 50,000 tensors named like a
      5,556-layer llama (blk.N.attn_q.weight, ...), F32, about 0.6 GB.

Prints the two paths, one per line.
"""

import json
import os
import struct
import sys

N_LAYERS, HIDDEN, HEADS, KV_HEADS, FFN, VOCAB = 28, 3072, 24, 8, 8192, 128256
KV_DIM = HIDDEN // HEADS * KV_HEADS
GGUF_TENSORS = 50000
GGUF_ALIGN = 32


def llama_tensors():
    """(name, shape) in Hugging Face order, BF16."""
    out = [("model.embed_tokens.weight", [VOCAB, HIDDEN])]
    for i in range(N_LAYERS):
        p = f"model.layers.{i}."
        out += [
            (p + "input_layernorm.weight", [HIDDEN]),
            (p + "mlp.down_proj.weight", [HIDDEN, FFN]),
            (p + "mlp.gate_proj.weight", [FFN, HIDDEN]),
            (p + "mlp.up_proj.weight", [FFN, HIDDEN]),
            (p + "post_attention_layernorm.weight", [HIDDEN]),
            (p + "self_attn.k_proj.weight", [KV_DIM, HIDDEN]),
            (p + "self_attn.o_proj.weight", [HIDDEN, HIDDEN]),
            (p + "self_attn.q_proj.weight", [HIDDEN, HIDDEN]),
            (p + "self_attn.v_proj.weight", [KV_DIM, HIDDEN]),
        ]
    out.append(("model.norm.weight", [HIDDEN]))
    return out


def write_safetensors(path, tensors):
    header, offset = {"__metadata__": {"format": "pt"}}, 0
    for name, shape in tensors:
        size = 2
        for d in shape:
            size *= d
        header[name] = {"dtype": "BF16", "shape": shape, "data_offsets": [offset, offset + size]}
        offset += size
    blob = json.dumps(header, separators=(",", ":")).encode()
    blob += b" " * (-len(blob) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(blob)) + blob)
        f.truncate(8 + len(blob) + offset)
    return offset


def write_sharded(root):
    os.makedirs(root, exist_ok=True)
    tensors = llama_tensors()
    half = 1 + N_LAYERS // 2 * 9
    shards = [tensors[:half], tensors[half:]]
    weight_map, total = {}, 0
    for i, shard in enumerate(shards):
        name = f"model-{i + 1:05d}-of-{len(shards):05d}.safetensors"
        total += write_safetensors(os.path.join(root, name), shard)
        weight_map.update({t: name for t, _ in shard})
    with open(os.path.join(root, "model.safetensors.index.json"), "w") as f:
        json.dump({"metadata": {"total_size": total}, "weight_map": weight_map}, f, indent=2)
    with open(os.path.join(root, "config.json"), "w") as f:
        json.dump({"architectures": ["LlamaForCausalLM"], "model_type": "llama",
                   "hidden_size": HIDDEN, "intermediate_size": FFN,
                   "num_attention_heads": HEADS, "num_key_value_heads": KV_HEADS,
                   "num_hidden_layers": N_LAYERS, "vocab_size": VOCAB,
                   "tie_word_embeddings": True, "torch_dtype": "bfloat16"}, f, indent=2)


def gstr(s):
    b = s.encode()
    return struct.pack("<Q", len(b)) + b


def write_gguf(path):
    kinds = [("attn_q", [64, 64]), ("attn_k", [64, 16]), ("attn_v", [64, 16]),
             ("attn_output", [64, 64]), ("ffn_gate", [64, 176]), ("ffn_up", [64, 176]),
             ("ffn_down", [176, 64]), ("attn_norm", [64]), ("ffn_norm", [64])]
    kv = [gstr("general.architecture") + struct.pack("<I", 8) + gstr("llama"),
          gstr("general.name") + struct.pack("<I", 8) + gstr("bench: 50,000 tensors"),
          gstr("general.alignment") + struct.pack("<II", 4, GGUF_ALIGN)]
    infos, offset = [], 0
    for i in range(GGUF_TENSORS):
        kind, dims = kinds[i % len(kinds)]
        n = 4
        for d in dims:
            n *= d
        infos.append(gstr(f"blk.{i // len(kinds)}.{kind}.weight") + struct.pack("<I", len(dims))
                     + b"".join(struct.pack("<Q", d) for d in dims)
                     + struct.pack("<IQ", 0, offset))
        offset += n + (-n % GGUF_ALIGN)
    head = b"GGUF" + struct.pack("<IQQ", 3, GGUF_TENSORS, len(kv)) + b"".join(kv) + b"".join(infos)
    head += b"\0" * (-len(head) % GGUF_ALIGN)
    with open(path, "wb") as f:
        f.write(head)
        f.truncate(len(head) + offset)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    work = sys.argv[1]
    sharded = os.path.join(work, "llama-3b-sharded")
    gguf = os.path.join(work, "many-tensors.gguf")
    write_sharded(sharded)
    write_gguf(gguf)
    print(sharded)
    print(gguf)


if __name__ == "__main__":
    main()
