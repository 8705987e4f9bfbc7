#!/usr/bin/python3
"""Write a small, seeded, Llama-shaped Hugging Face checkpoint for tests.

The checkpoint is complete enough for llama.cpp's converter rules (SPEC section 7):
config.json, generation_config.json, a real byte-level BPE tokenizer.json (256 byte
tokens + merges learned from a fixed built-in English text + Llama 3 special tokens),
tokenizer_config.json with the real Llama 3.2 Instruct chat template,
special_tokens_map.json and the weights as Safetensors shards written by the minimal
writer below (independent of the project's own code).

Usage:
  gen_checkpoint.py OUTDIR [--layers L] [--hidden H] [--heads N] [--kv-heads K]
      [--intermediate I] [--vocab V] [--shards S] [--tied|--untied]
      [--head-dim-in-config|--no-head-dim] [--rope-scaling llama3|none]
      [--dtype bf16|f16|f32] [--edge-values] [--seed S] [--name NAME]
      [--pair-merges] [--plain-post-processor] ...

--vocab is config.json's vocab_size: 256 byte tokens + --merges learned tokens + Llama 3
special tokens filling up to it (minus --pad-vocab ids that the tokenizer leaves out).

--sentencepiece llama2|mistral: a SentencePiece tokenizer.model instead (a real BPE
model with byte fallback, trained by python3-sentencepiece on the built-in text,
--spm-pieces pieces, <unk> <s> </s> at ids 0-2 as in Llama 2), with Llama 2's
tokenizer_config.json and chat template, or Mistral v0.3's (MistralForCausalLM,
[INST]-like control pieces listed in added_tokens_decoder); --vocab defaults to the
piece count (more: [PAD] ids). A tokenizer.json too unless --spm-no-tokenizer-json;
--spm-added-tokens-json writes an added_tokens.json for the id after the pieces.
"""

import argparse
import json
import re
import struct
import sys
from collections import Counter
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
CHAT_TEMPLATE_CANDIDATES = [
    HERE.parent / "llama32_instruct_chat_template.jinja",
    HERE.parent.parent.parent / "shared" / "data" / "llama32_instruct_chat_template.jinja",
]

# Llama 3's pre-tokenizer split pattern, verbatim as it appears in Meta's tokenizer.json.
LLAMA3_PATTERN = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}"
    r"| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)
# ASCII approximation of the same pattern for Python's re (the training text is ASCII).
TRAIN_SPLIT = re.compile(
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\nA-Za-z0-9]?[A-Za-z]+|[0-9]{1,3}"
    r"| ?[^\sA-Za-z0-9]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)

TRAINING_TEXT = """\
The quick brown fox jumps over the lazy dog. A model file is more than its weights: it
carries the architecture, the vocabulary, the merges and the special tokens, and the chat
template that turns a conversation into text. When we convert a checkpoint we must keep
every one of those things, and we must keep the numbers exactly as they were.
In the beginning there was a tensor, and the tensor had a shape, and the shape had a
dimension that was the fastest varying of them all. The converter reads the header of
each shard, sorts the names, renames them, and writes them again in a different order.
Some of the rows of the query and key projections are permuted so that the rotary
embedding can be applied to pairs of neighbouring values instead of to two halves.
Norms are stored as thirty two bit floats, while the other matrices take the output type:
brain floating point, half precision, single precision, or blocks of eight bit integers
with one scale for every thirty two values. Numbers are rounded to the nearest even value.
She said that she would read the book again; they're sure it's the best one they've seen,
and I'll tell you why I'd read it too: the story is simple, the words are short, and the
ending is kind. We went to the market on Monday, bought 12 apples, 3 loaves of bread and
2024 grains of rice, then walked home along the river while the sun was setting slowly.
Testing, testing: one, two, three. Is this thing on? Yes, it is on, and it is recording
everything that we say, so please speak clearly and do not whisper into the microphone.
"""

SPECIAL_NAMED = {
    0: "<|begin_of_text|>",
    1: "<|end_of_text|>",
    4: "<|finetune_right_pad_id|>",
    6: "<|start_header_id|>",
    7: "<|end_header_id|>",
    8: "<|eom_id|>",
    9: "<|eot_id|>",
    10: "<|python_tag|>",
}


def bytes_to_unicode():
    """GPT-2's reversible byte -> printable unicode map; list order = byte token ids."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("\xa1"), ord("\xac") + 1)) \
        + list(range(ord("\xae"), ord("\xff") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return [(b, chr(c)) for b, c in zip(bs, cs)]


def train_bpe(text, n_new_tokens):
    """A tiny deterministic byte-level BPE trainer. Returns (vocab list, merges list)."""
    b2u = dict(bytes_to_unicode())
    vocab = [ch for _, ch in bytes_to_unicode()]
    known = set(vocab)
    words = Counter()
    for piece in TRAIN_SPLIT.findall(text):
        words[tuple(b2u[b] for b in piece.encode("utf-8"))] += 1
    words = {w: c for w, c in words.items()}
    merges = []
    while len(vocab) < 256 + n_new_tokens:
        pairs = Counter()
        for w, c in words.items():
            for a, b in zip(w, w[1:]):
                pairs[(a, b)] += c
        if not pairs:
            raise SystemExit(f"training text too small for {n_new_tokens} merges")
        best_count = max(pairs.values())
        best = min(p for p, c in pairs.items() if c == best_count)
        merges.append(best)
        new = best[0] + best[1]
        if new not in known:
            known.add(new)
            vocab.append(new)
        merged = {}
        for w, c in words.items():
            out = []
            i = 0
            while i < len(w):
                if i + 1 < len(w) and (w[i], w[i + 1]) == best:
                    out.append(new)
                    i += 2
                else:
                    out.append(w[i])
                    i += 1
            merged[tuple(out)] = merged.get(tuple(out), 0) + c
        words = merged
    return vocab, merges


def special_tokens(first_id, count):
    """Llama 3.2's special-token layout, starting at first_id, `count` tokens."""
    out = []
    reserved = 0
    for k in range(count):
        if k in SPECIAL_NAMED:
            out.append((first_id + k, SPECIAL_NAMED[k]))
        else:
            out.append((first_id + k, f"<|reserved_special_token_{reserved}|>"))
            reserved += 1
    return out


# ---------------------------------------------------------------- number formats

def f32_to_bf16_bits(a):
    """float32 array -> uint16 BF16 bits, round to nearest even, NaN kept NaN (quiet)."""
    u = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
    nan = (u & 0x7FFFFFFF) > 0x7F800000
    r = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    r[nan] = ((u[nan] >> 16) | 0x40).astype(np.uint16)
    return r


# ---------------------------------------------------------------- edge values

def edge_patterns(dtype):
    """Raw bit patterns (in the storage dtype) worth converting: NaNs, infinities,
    subnormals, signed zeros, rounding ties for BF16/F16, F16 overflow."""
    if dtype == "bf16":
        return np.array([
            0x7FC0, 0xFFC0, 0x7FC1,   # quiet NaNs (+, -, with payload)
            0x7F81, 0xFF81, 0x7FBF,   # signalling NaNs
            0x7F80, 0xFF80,           # +-Inf
            0x0001, 0x8001, 0x007F,   # BF16 subnormals
            0x0000, 0x8000,           # +-0
            0x7F7F, 0xFF7F,           # max finite (F16 overflow)
            0x4780, 0xC77F, 0x477F,   # 65536, -65280, 65280 (F16 edge: >65504 and below)
            0x3300, 0x3340, 0x3280,   # 2^-25 (F16 tie -> 0), 3*2^-25 (tie -> 2^-23), 2^-26
            0x3F80, 0x3F81, 0x4B18,   # 1, 1+2^-7, 9961472 (Q8_0 scale overflows F16)
        ], dtype=np.uint16)
    if dtype == "f16":
        return np.array([
            0x7E00, 0xFE00, 0x7E01,   # quiet NaNs
            0x7C01, 0xFC01, 0x7D00,   # signalling NaNs
            0x7C00, 0xFC00,           # +-Inf
            0x0001, 0x8001, 0x03FF,   # subnormals
            0x0000, 0x8000,           # +-0
            0x7BFF, 0xFBFF,           # +-65504
            0x3C04, 0x3C0C, 0x3C02,   # 1+2^-8 and 1+3*2^-8 (BF16 ties), 1+2^-9
            0x3C00, 0x4000,
        ], dtype=np.uint16)
    return np.array([
        0x7FC00000, 0xFFC00001, 0x7FC0ABCD,   # quiet NaNs
        0x7F800001, 0xFF800001, 0x7FA00000,   # signalling NaNs
        0x7F800000, 0xFF800000,               # +-Inf
        0x00000001, 0x80000001, 0x007FFFFF,   # F32 subnormals
        0x00000000, 0x80000000,               # +-0
        0x3F808000, 0x3F818000, 0xBF808000,   # BF16 ties -> even
        0x7F7F8000,                           # BF16 tie that rounds to Inf
        0x3F801000, 0x3F803000,               # F16 ties (1+2^-11, 1+3*2^-11)
        0x477FE000, 0x477FEFFF, 0x477FF000,   # 65504, just under 65520, 65520 (-> Inf)
        0x47886800, 0xC7886800,               # +-69840 (> 65504)
        0x33000000, 0x33400000, 0x32800000,   # 2^-25, 3*2^-25, 2^-26 (F16 subnormal ties)
        0x4B189680,                           # 1e7 (Q8_0 scale overflows F16)
    ], dtype=np.uint32)


def q8_tie_block():
    """32 values whose Q8_0 quantisation hits exact .5 ties (d = 1 exactly)."""
    v = [127.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 126.5, -126.5, 0.0, -0.0, 3.5, 64.5,
         -64.5, 100.5, 1.0, -1.0, 0.25, -0.75, 5.5, 6.5, 7.5, -7.5, 8.5, 9.5, 10.5, 11.5,
         12.5, 13.5, 14.5, 15.5, -127.0]
    return np.array(v, dtype=np.float32)


# ---------------------------------------------------------------- weights

def layer_tensor_specs(a):
    hd = a.head_dim
    specs = [("model.embed_tokens.weight", (a.vocab, a.hidden), "w")]
    for i in range(a.layers):
        p = f"model.layers.{i}."
        specs += [
            (p + "input_layernorm.weight", (a.hidden,), "norm"),
            (p + "self_attn.q_proj.weight", (a.heads * hd, a.hidden), "w"),
            (p + "self_attn.k_proj.weight", (a.kv_heads * hd, a.hidden), "w"),
            (p + "self_attn.v_proj.weight", (a.kv_heads * hd, a.hidden), "w"),
            (p + "self_attn.o_proj.weight", (a.hidden, a.heads * hd), "w"),
            (p + "post_attention_layernorm.weight", (a.hidden,), "norm"),
            (p + "mlp.gate_proj.weight", (a.intermediate, a.hidden), "w"),
            (p + "mlp.up_proj.weight", (a.intermediate, a.hidden), "w"),
            (p + "mlp.down_proj.weight", (a.hidden, a.intermediate), "w"),
        ]
    specs.append(("model.norm.weight", (a.hidden,), "norm"))
    if not a.tied:
        specs.append(("lm_head.weight", (a.vocab, a.hidden), "w"))
    return specs


def to_storage(values_f32, dtype):
    """float32 values -> (safetensors dtype name, raw little-endian bytes array)."""
    if dtype == "bf16":
        return "BF16", f32_to_bf16_bits(values_f32)
    if dtype == "f16":
        return "F16", values_f32.astype(np.float16).view(np.uint16)
    return "F32", values_f32.astype(np.float32).view(np.uint32)


def make_tensors(a):
    rng = np.random.default_rng(a.seed)
    out = {}
    for name, shape, kind in layer_tensor_specs(a):
        if kind == "norm":
            vals = (1.0 + rng.normal(0.0, 0.05, size=shape)).astype(np.float32)
        else:
            vals = rng.normal(0.0, a.std, size=shape).astype(np.float32)
        st_dtype, raw = to_storage(vals, a.dtype)
        out[name] = (st_dtype, raw.reshape(shape))
    if a.edge_values:
        plant_edge_values(a, out)
    return out


def plant_edge_values(a, tensors):
    """Overwrite a few elements (raw bits) of some tensors with edge values."""
    pats = edge_patterns(a.dtype)
    raw_dtype = pats.dtype

    def put(name, row, col, bits):
        st, raw = tensors[name]
        assert raw.dtype == raw_dtype
        flat = raw.reshape(raw.shape[0], -1) if raw.ndim == 2 else raw.reshape(1, -1)
        n = min(len(bits), flat.shape[1] - col)
        flat[row, col:col + n] = bits[:n]

    q = "model.layers.0.self_attn.q_proj.weight"
    k = "model.layers.0.self_attn.k_proj.weight"
    nrm = "model.layers.0.input_layernorm.weight"

    def spread(name, first_row):
        # one special value per Q8_0 block of 32 values, at position 0..6 of its block:
        # a block never holds two specials, and a NaN sits where numpy's SIMD max
        # reduction (used by llama.cpp's Q8_0 quantizer) returns the default NaN; at
        # positions 17..31 numpy 1.24 returns the element's own payload instead
        blocks_per_row = max(1, a.hidden // 32)
        for j, bits in enumerate(pats):
            r, blk = divmod(j, blocks_per_row)
            put(name, first_row + r, blk * 32 + (j % 7), np.array([bits], dtype=raw_dtype))

    spread(q, 1)
    spread(k, 0)
    spread("model.embed_tokens.weight", 3)
    # the whole list, contiguously, in a norm (F32 in every output type)
    put(nrm, 0, 0, pats)
    # Q8_0 rounding ties: a whole block (row 0, first 32 values) with d == 1 exactly
    st, raw = tensors[q]
    _, tie_raw = to_storage(q8_tie_block(), a.dtype)
    raw[0, :32] = tie_raw
    # an all-zero block (d = 0) and, in the last row, a block of negative zeros
    if raw.shape[1] >= 64:
        raw[0, 32:64] = 0
    _, negz = to_storage(np.full(32, -0.0, dtype=np.float32), a.dtype)
    raw[-1, :32] = negz


# ---------------------------------------------------------------- safetensors writer

def write_safetensors(path, items):
    """items: list of (name, st_dtype, raw ndarray) in the order the data is laid out.
    The JSON header lists tensors in that (not sorted) order."""
    header = {"__metadata__": {"format": "pt"}}
    offset = 0
    blobs = []
    for name, st_dtype, raw in items:
        b = np.ascontiguousarray(raw).astype(raw.dtype.newbyteorder("<"), copy=False).tobytes()
        header[name] = {"dtype": st_dtype, "shape": list(raw.shape), "data_offsets": [offset, offset + len(b)]}
        offset += len(b)
        blobs.append(b)
    hj = json.dumps(header, separators=(",", ":")).encode("utf-8")
    hj += b" " * ((8 - len(hj) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(hj)))
        f.write(hj)
        for b in blobs:
            f.write(b)
    return offset


def write_weights(a, outdir, tensors):
    names = [n for n, _, _ in layer_tensor_specs(a)]
    sizes = [tensors[n][1].nbytes for n in names]
    total = sum(sizes)
    s = a.shards
    if s == 1:
        items = [(n, tensors[n][0], tensors[n][1]) for n in names]
        write_safetensors(outdir / "model.safetensors", items)
        return
    # contiguous chunks of the state-dict order with about equal bytes: a layer can be
    # split across two shards, as in real checkpoints
    chunks = [[] for _ in range(s)]
    acc = 0
    for n, sz in zip(names, sizes):
        k = min(s - 1, int(acc * s // total))
        chunks[k].append(n)
        acc += sz
    for k in range(s):
        if not chunks[k]:
            raise SystemExit("too many shards for this model")
    weight_map = {}
    for k, chunk in enumerate(chunks):
        fname = f"model-{k + 1:05d}-of-{s:05d}.safetensors"
        # reverse the order inside the shard file so that header order != name order
        items = [(n, tensors[n][0], tensors[n][1]) for n in reversed(chunk)]
        write_safetensors(outdir / fname, items)
        for n in chunk:
            weight_map[n] = fname
    index = {"metadata": {"total_size": total},
             "weight_map": dict(sorted(weight_map.items()))}
    (outdir / "model.safetensors.index.json").write_text(json.dumps(index, indent=2) + "\n")


# ---------------------------------------------------------------- tokenizer files

def added_token_entry(tid, content, special=True):
    return {"id": tid, "content": content, "single_word": False, "lstrip": False,
            "rstrip": False, "normalized": False, "special": special}


def write_tokenizer(a, outdir):
    base_vocab, merges = train_bpe(TRAINING_TEXT, a.merges)
    n_base = len(base_vocab)
    n_tok_total = a.vocab - a.pad_vocab
    n_special = n_tok_total - n_base
    if n_special < 11:
        raise SystemExit(f"--vocab {a.vocab} leaves room for only {n_special} special tokens")
    specials = special_tokens(n_base, n_special)
    bos = specials[0]
    eot = specials[9]
    eos_text = specials[1]
    tok = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [added_token_entry(i, c) for i, c in specials],
        "normalizer": None,
        "pre_tokenizer": {
            "type": "Sequence",
            "pretokenizers": [
                {"type": "Split", "pattern": {"Regex": LLAMA3_PATTERN},
                 "behavior": "Isolated", "invert": False},
                {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True,
                 "use_regex": False},
            ],
        },
        "post_processor": None,
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True,
                    "use_regex": True},
        "model": {
            "type": "BPE", "dropout": None, "unk_token": None,
            "continuing_subword_prefix": None, "end_of_word_suffix": None,
            "fuse_unk": False, "byte_fallback": False, "ignore_merges": True,
            "vocab": {t: i for i, t in enumerate(base_vocab)},
            "merges": [[x, y] for x, y in merges] if a.pair_merges else [f"{x} {y}" for x, y in merges],
        },
    }
    template = {
        "type": "TemplateProcessing",
        "single": [{"SpecialToken": {"id": bos[1], "type_id": 0}},
                   {"Sequence": {"id": "A", "type_id": 0}}],
        "pair": [{"SpecialToken": {"id": bos[1], "type_id": 0}},
                 {"Sequence": {"id": "A", "type_id": 0}},
                 {"SpecialToken": {"id": bos[1], "type_id": 1}},
                 {"Sequence": {"id": "B", "type_id": 1}}],
        "special_tokens": {bos[1]: {"id": bos[1], "ids": [bos[0]], "tokens": [bos[1]]}},
    }
    if a.plain_post_processor:
        tok["post_processor"] = template
    else:
        tok["post_processor"] = {"type": "Sequence", "processors": [
            {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": False,
             "use_regex": True},
            template]}
    (outdir / "tokenizer.json").write_text(json.dumps(tok, indent=2, ensure_ascii=False) + "\n",
                                           encoding="utf-8")

    chat_template = None
    for c in CHAT_TEMPLATE_CANDIDATES:
        if c.is_file():
            chat_template = c.read_text(encoding="utf-8")
            break
    if chat_template is None:
        raise SystemExit("llama32_instruct_chat_template.jinja not found")
    tc = {
        "added_tokens_decoder": {
            str(i): {"content": c, "lstrip": False, "normalized": False, "rstrip": False,
                     "single_word": False, "special": True} for i, c in specials},
        "bos_token": bos[1],
        "chat_template": chat_template,
        "clean_up_tokenization_spaces": True,
        "eos_token": eot[1],
        "model_input_names": ["input_ids", "attention_mask"],
        "model_max_length": a.max_pos,
        "tokenizer_class": "PreTrainedTokenizerFast",
    }
    if a.tc_no_eos:
        del tc["eos_token"]
    if a.add_prefix_space is not None:
        tc["add_prefix_space"] = a.add_prefix_space == "true"
    (outdir / "tokenizer_config.json").write_text(json.dumps(tc, indent=2, ensure_ascii=False) + "\n",
                                                  encoding="utf-8")
    tok_entry = lambda c: {"content": c, "lstrip": False, "normalized": False,  # noqa: E731
                           "rstrip": False, "single_word": False}
    stm = {"bos_token": tok_entry(bos[1])}
    if not a.tc_no_eos:
        stm["eos_token"] = tok_entry(eot[1])
    (outdir / "special_tokens_map.json").write_text(json.dumps(stm, indent=2) + "\n")
    return {"bos": bos[0], "eot": eot[0], "eos_text": eos_text[0], "eom": specials[8][0]}


# ---------------------------------------------------------------- SentencePiece

LLAMA2_CHAT_TEMPLATE = (
    "{% if messages[0]['role'] == 'system' %}{% set loop_messages = messages[1:] %}"
    "{% set system_message = messages[0]['content'] %}{% else %}{% set loop_messages = messages %}"
    "{% set system_message = false %}{% endif %}{% for message in loop_messages %}"
    "{% if (message['role'] == 'user') != (loop.index0 % 2 == 0) %}"
    "{{ raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') }}"
    "{% endif %}{% if loop.index0 == 0 and system_message != false %}"
    "{% set content = '<<SYS>>\\n' + system_message + '\\n<</SYS>>\\n\\n' + message['content'] %}"
    "{% else %}{% set content = message['content'] %}{% endif %}{% if message['role'] == 'user' %}"
    "{{ bos_token + '[INST] ' + content.strip() + ' [/INST]' }}{% elif message['role'] == 'assistant' %}"
    "{{ ' '  + content.strip() + ' ' + eos_token }}{% endif %}{% endfor %}"
)
MISTRAL_CHAT_TEMPLATE = (
    "{{ bos_token }}{% for message in messages %}{% if message['role'] == 'user' %}"
    "{{ '[INST] ' + message['content'] + ' [/INST]' }}{% elif message['role'] == 'assistant' %}"
    "{{ message['content'] + eos_token }}{% endif %}{% endfor %}"
)
# Mistral v0.3's control pieces after <unk> <s> </s> (its [control_N] fillers left out)
MISTRAL_CONTROL = ["[INST]", "[/INST]", "[TOOL_CALLS]", "[AVAILABLE_TOOLS]", "[/AVAILABLE_TOOLS]",
                   "[TOOL_RESULTS]", "[/TOOL_RESULTS]"]
# user-defined pieces: normal tokens in the GGUF unless added_tokens_decoder names them
# (it names the first one, not special: a user-defined token with "\u2581" as a space)
MISTRAL_USER = ["\u2581tool\u2581call", "<tool>"]


def train_sentencepiece(a):
    """A real SentencePiece BPE model (serialized ModelProto), deterministic: one
    thread, no sampling or shuffling of the input, a fixed seed."""
    import io
    import sentencepiece as spm
    spm.set_random_generator_seed(1)
    out = io.BytesIO()
    kwargs = {}
    if a.sentencepiece == "mistral":
        kwargs = {"control_symbols": MISTRAL_CONTROL, "user_defined_symbols": MISTRAL_USER}
    # Llama 2's trainer settings (as its tokenizer.model's trainer_spec records them)
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(TRAINING_TEXT.splitlines()), model_writer=out,
        model_type="bpe", vocab_size=a.spm_pieces, byte_fallback=True, split_digits=True,
        character_coverage=0.99995, normalization_rule_name="identity", add_dummy_prefix=True,
        remove_extra_whitespaces=False, allow_whitespace_only_pieces=True,
        unk_id=0, bos_id=1, eos_id=2, pad_id=-1, unk_surface=" \u2047 ",
        num_threads=1, input_sentence_size=0, shuffle_input_sentence=False,
        minloglevel=2, **kwargs)
    return out.getvalue()


def sp_added(tid, content, special=True):
    return {"content": content, "lstrip": False, "normalized": False, "rstrip": False,
            "single_word": False, "special": special}


def write_sentencepiece(a, outdir):
    import sentencepiece as spm
    model = train_sentencepiece(a)
    (outdir / "tokenizer.model").write_bytes(model)
    sp = spm.SentencePieceProcessor(model_proto=model)
    n = sp.vocab_size()
    if a.vocab is None:
        a.vocab = n + (1 if a.spm_added_tokens_json else 0)
    if a.vocab < n + (1 if a.spm_added_tokens_json else 0):
        raise SystemExit(f"--vocab {a.vocab} is below the model's {n} pieces (+ added tokens)")
    decoder = {str(i): sp_added(i, sp.IdToPiece(i)) for i in range(3)}
    if a.sentencepiece == "mistral":
        for i in range(3, n):
            if sp.IsControl(i):
                decoder[str(i)] = sp_added(i, sp.IdToPiece(i))
        user = sp.PieceToId(MISTRAL_USER[0])
        decoder[str(user)] = sp_added(user, MISTRAL_USER[0], special=False)
    if a.spm_added_tokens_json:
        (outdir / "added_tokens.json").write_text(json.dumps({"<pad>": n}, indent=2) + "\n")
    if not a.spm_no_tokenizer_json:
        added = [dict(sp_added(int(i), e["content"], e["special"]), id=int(i)) for i, e in decoder.items()]
        tok = {
            "version": "1.0", "truncation": None, "padding": None,
            "added_tokens": sorted(added, key=lambda e: e["id"]),
            "normalizer": {"type": "Sequence", "normalizers": [
                {"type": "Prepend", "prepend": "\u2581"},
                {"type": "Replace", "pattern": {"String": " "}, "content": "\u2581"}]},
            "pre_tokenizer": None,
            "post_processor": {
                "type": "TemplateProcessing",
                "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}},
                           {"Sequence": {"id": "A", "type_id": 0}}],
                "pair": [{"SpecialToken": {"id": "<s>", "type_id": 0}},
                         {"Sequence": {"id": "A", "type_id": 0}},
                         {"SpecialToken": {"id": "<s>", "type_id": 1}},
                         {"Sequence": {"id": "B", "type_id": 1}}],
                "special_tokens": {"<s>": {"id": "<s>", "ids": [1], "tokens": ["<s>"]}}},
            "decoder": {"type": "Sequence", "decoders": [
                {"type": "Replace", "pattern": {"String": "\u2581"}, "content": " "},
                {"type": "ByteFallback"}, {"type": "Fuse"},
                {"type": "Strip", "content": " ", "start": 1, "stop": 0}]},
            "model": {"type": "BPE", "dropout": None, "unk_token": "<unk>",
                      "continuing_subword_prefix": None, "end_of_word_suffix": None,
                      "fuse_unk": True, "byte_fallback": True, "ignore_merges": False,
                      "vocab": {sp.IdToPiece(i): i for i in range(n)}, "merges": []},
        }
        (outdir / "tokenizer.json").write_text(json.dumps(tok, indent=2, ensure_ascii=False) + "\n",
                                               encoding="utf-8")
    entry = lambda c: {"__type": "AddedToken", "content": c, "lstrip": False,  # noqa: E731
                       "normalized": False, "rstrip": False, "single_word": False}
    tc = {
        "add_bos_token": True,
        "add_eos_token": False,
        "added_tokens_decoder": decoder,
        "bos_token": entry("<s>"),
        "chat_template": LLAMA2_CHAT_TEMPLATE if a.sentencepiece == "llama2" else MISTRAL_CHAT_TEMPLATE,
        "clean_up_tokenization_spaces": False,
        "eos_token": entry("</s>"),
        "legacy": False,
        "model_max_length": 1000000000000000019884624838656,
        "pad_token": None,
        "padding_side": "right",
        "sp_model_kwargs": {},
        "tokenizer_class": "LlamaTokenizer",
        "unk_token": entry("<unk>"),
    }
    if a.add_prefix_space is not None:
        tc["add_prefix_space"] = a.add_prefix_space == "true"
    (outdir / "tokenizer_config.json").write_text(json.dumps(tc, indent=2, ensure_ascii=False) + "\n",
                                                  encoding="utf-8")
    stm = {"bos_token": entry("<s>"), "eos_token": entry("</s>"), "unk_token": entry("<unk>")}
    (outdir / "special_tokens_map.json").write_text(json.dumps(stm, indent=2) + "\n")
    return {"bos": 1, "eot": 2, "eos_text": 2, "eom": 2}


# ---------------------------------------------------------------- configs

def write_configs(a, outdir, ids):
    dtype_name = {"bf16": "bfloat16", "f16": "float16", "f32": "float32"}[a.dtype]
    cfg = {}
    if a.name is not None:
        cfg["_name_or_path"] = a.name
    cfg.update({
        "architectures": ["MistralForCausalLM" if a.sentencepiece == "mistral" else "LlamaForCausalLM"],
        "attention_bias": False,
        "attention_dropout": 0.0,
        "bos_token_id": ids["bos"],
        "eos_token_id": ids["eos_text"] if a.tc_no_eos or a.sentencepiece else
        [ids["eos_text"], ids["eom"], ids["eot"]],
    })
    if a.head_dim_in_config:
        cfg["head_dim"] = a.head_dim
    cfg.update({
        "hidden_act": "silu",
        "hidden_size": a.hidden,
        "initializer_range": 0.02,
        "intermediate_size": a.intermediate,
        "max_position_embeddings": a.max_pos,
        "mlp_bias": False,
        "model_type": "mistral" if a.sentencepiece == "mistral" else "llama",
        "num_attention_heads": a.heads,
        "num_hidden_layers": a.layers,
        "num_key_value_heads": a.kv_heads,
        "pretraining_tp": 1,
        "rms_norm_eps": a.rms_eps,
        "rope_scaling": None if a.rope_scaling == "none" else {
            "factor": 32.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
            "original_max_position_embeddings": 8192, "rope_type": "llama3"},
        "rope_theta": 1000000.0 if a.sentencepiece == "mistral" else 10000.0 if a.sentencepiece else 500000.0,
        "tie_word_embeddings": a.tied,
        "torch_dtype": dtype_name,
        "transformers_version": "4.45.0.dev0",
        "use_cache": True,
        "vocab_size": a.vocab,
    })
    (outdir / "config.json").write_text(json.dumps(cfg, indent=2) + "\n")
    gen = {"bos_token_id": ids["bos"], "do_sample": True,
           "eos_token_id": ids["eos_text"] if a.sentencepiece else [ids["eos_text"], ids["eom"], ids["eot"]],
           "temperature": 0.6, "top_p": 0.9, "transformers_version": "4.45.0.dev0"}
    if a.gen_top_k is not None:
        gen["top_k"] = a.gen_top_k
    (outdir / "generation_config.json").write_text(json.dumps(gen, indent=2) + "\n")


def write_model_card(outdir):
    """A README.md whose YAML front matter feeds general.* keys (license, tags, ...)."""
    text = """---
license: llama3.2
language:
- en
- de
- no
tags:
- facebook
- meta
- llama
pipeline_tag: text-generation
base_model: meta-llama/Llama-3.2-1B
datasets:
- acme/tiny-stories-v2
---

# A tiny test model

Generated by tests/ref/gen_checkpoint.py.
"""
    (outdir / "README.md").write_text(text, encoding="utf-8")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("outdir")
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--hidden", type=int, default=64)
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--kv-heads", type=int, default=2)
    p.add_argument("--intermediate", type=int, default=128)
    p.add_argument("--vocab", type=int, default=None,
                   help="config vocab_size (tokenizer fills it; default 768, or the SentencePiece pieces)")
    p.add_argument("--merges", type=int, default=256, help="number of learned BPE tokens")
    p.add_argument("--pad-vocab", type=int, default=0,
                   help="ids at the end of vocab_size that the tokenizer does not define")
    p.add_argument("--shards", type=int, default=1)
    g = p.add_mutually_exclusive_group()
    g.add_argument("--tied", dest="tied", action="store_true", default=True)
    g.add_argument("--untied", dest="tied", action="store_false")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--head-dim-in-config", dest="head_dim_in_config", action="store_true", default=True)
    g.add_argument("--no-head-dim", dest="head_dim_in_config", action="store_false")
    p.add_argument("--head-dim", type=int, default=None, help="default hidden / heads")
    p.add_argument("--rope-scaling", choices=["llama3", "none"], default="llama3")
    p.add_argument("--dtype", choices=["bf16", "f16", "f32"], default="bf16")
    p.add_argument("--edge-values", action="store_true")
    p.add_argument("--seed", type=int, default=1234)
    p.add_argument("--std", type=float, default=0.02)
    p.add_argument("--name", default=None, help="written as _name_or_path in config.json")
    p.add_argument("--max-pos", type=int, default=131072)
    p.add_argument("--rms-eps", type=float, default=1e-5)
    p.add_argument("--pair-merges", action="store_true", help='merges as [["a","b"],...]')
    p.add_argument("--plain-post-processor", action="store_true",
                   help="post_processor is a bare TemplateProcessing (default: Sequence[ByteLevel, TemplateProcessing] as Llama 3.2)")
    p.add_argument("--gen-top-k", type=int, default=None, help="add top_k to generation_config.json")
    p.add_argument("--tc-no-eos", action="store_true",
                   help="no eos_token in tokenizer_config.json; config.json eos_token_id a single int")
    p.add_argument("--add-prefix-space", choices=["true", "false"], default=None,
                   help="write add_prefix_space into tokenizer_config.json")
    p.add_argument("--model-card", action="store_true", help="write a README.md with YAML front matter")
    p.add_argument("--sentencepiece", choices=["llama2", "mistral"], default=None,
                   help="a SentencePiece tokenizer.model (Llama 2 or Mistral v0.3 style)")
    p.add_argument("--spm-pieces", type=int, default=384, help="pieces of the SentencePiece model")
    p.add_argument("--spm-no-tokenizer-json", action="store_true", help="no tokenizer.json beside it")
    p.add_argument("--spm-added-tokens-json", action="store_true",
                   help='an added_tokens.json giving "<pad>" the id after the pieces')
    a = p.parse_args(argv)
    if a.vocab is None and not a.sentencepiece:
        a.vocab = 768
    if a.head_dim is None:
        if a.hidden % a.heads:
            raise SystemExit("--hidden must be a multiple of --heads (or give --head-dim)")
        a.head_dim = a.hidden // a.heads
    elif not a.head_dim_in_config:
        raise SystemExit("--head-dim needs --head-dim-in-config")
    if a.heads % a.kv_heads or a.head_dim % 2:
        raise SystemExit("bad head configuration")

    outdir = Path(a.outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    for f in outdir.iterdir():
        if f.is_file() and (f.suffix in (".safetensors", ".json", ".model") or f.name == "README.md"):
            f.unlink()
    ids = write_sentencepiece(a, outdir) if a.sentencepiece else write_tokenizer(a, outdir)
    write_configs(a, outdir, ids)
    if a.model_card:
        write_model_card(outdir)
    write_weights(a, outdir, make_tensors(a))
    return 0


if __name__ == "__main__":
    sys.exit(main())
