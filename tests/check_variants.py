#!/usr/bin/env python3
"""config.json, tokenizer.json and shard variants of a Llama checkpoint that
llama.cpp's converter handles in its own way: each one is converted by
`tensorscope-cli convert`, by tests/ref/ref_convert.py (the independent
re-derivation) and by llama.cpp's own convert_hf_to_gguf.py (tests/ref/
llamacpp.py, from the source node-llama-cpp ships), and the files must be
byte-identical.  A few facts are
also asserted on the output itself (a key's value, its place), so that the
two converters cannot agree on a wrong file.  Variants the converter must
refuse fail with a specific message and leave no file behind.

usage: check_variants.py CLI WORKDIR [NODE_MODULES]
"""
import json
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
from check_interop import parse_gguf, explain_difference  # noqa: E402
from gen_checkpoint import write_safetensors  # noqa: E402
from tscheck import check, summary, leftovers  # noqa: E402
import llamacpp  # noqa: E402

CLI, WORK = sys.argv[1], Path(sys.argv[2])
NODE_MODULES = sys.argv[3] if len(sys.argv) > 3 else None
LLAMACPP = None     # llama.cpp's source folder, once found
PY = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable

# GQA (4 q heads over 2 kv heads of 16), tied, one shard, llama3 rope, BF16
BASE = ["--layers", "2", "--hidden", "64", "--heads", "4", "--kv-heads", "2",
        "--intermediate", "96", "--seed", "31"]


def gen(name, *args):
    d = WORK / name
    d.parent.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(d, ignore_errors=True)
    subprocess.run([PY, str(HERE / "ref" / "gen_checkpoint.py"), str(d)] + list(args),
                   check=True, capture_output=True)
    return d


def variant(name, base_args, edit=None):
    d = gen(name, *base_args)
    if edit is not None:
        edit(d)
    return d


def edit_json(d, fname, fn):
    p = d / fname
    obj = json.loads(p.read_text(encoding="utf-8"))
    fn(obj)
    p.write_text(json.dumps(obj, indent=2), encoding="utf-8")


def read_st(path):
    raw = Path(path).read_bytes()
    n = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8:8 + n])
    header.pop("__metadata__", None)
    items = []
    np_types = {"BF16": "<u2", "F16": "<u2", "F32": "<u4"}
    for name, meta in sorted(header.items(), key=lambda kv: kv[1]["data_offsets"][0]):
        a, b = meta["data_offsets"]
        arr = np.frombuffer(raw[8 + n + a:8 + n + b], np_types[meta["dtype"]]).reshape(meta["shape"])
        items.append([name, meta["dtype"], arr])
    return items


def mutated(name, fname, fn):
    """a copy of the base checkpoint (made first in main()) with FNAME edited by fn"""
    d = WORK / name
    shutil.rmtree(d, ignore_errors=True)
    shutil.copytree(WORK / "base", d)
    edit_json(d, fname, fn)
    return d


def edit_shard(d, fn):
    """fn(items) on model.safetensors' [name, dtype, ndarray] list, then rewritten"""
    p = d / "model.safetensors"
    items = read_st(p)
    items = fn(items) or items
    write_safetensors(p, [tuple(i) for i in items])


def cli(*args):
    return subprocess.run([CLI] + list(args), capture_output=True, text=True, timeout=300)


def convert_both(name, d, outtype, llamacpp_judges=True):
    """Ours against ref_convert.py and, unless the variant needs what only
    transformers gives the converter (llamacpp_judges=False), llama.cpp's."""
    ours, ref = WORK / f"{name}.{outtype}.ours.gguf", WORK / f"{name}.{outtype}.ref.gguf"
    real = WORK / f"{name}.{outtype}.llamacpp.gguf"
    for p in (ours, ref, real):
        if p.exists():
            p.unlink()
    r = cli("convert", str(d), "-o", str(ours), "--outtype", outtype)
    if r.returncode != 0:
        check(f"{name} [{outtype}] converts", False, r.stderr.strip())
        return None
    q = subprocess.run([PY, str(HERE / "ref" / "ref_convert.py"), str(d), str(ref), "--outtype", outtype],
                       capture_output=True, text=True, timeout=300)
    if q.returncode != 0:
        check(f"{name} [{outtype}] reference converts", False, q.stderr.strip())
        return None
    same = ours.read_bytes() == ref.read_bytes()
    check(f"{name} [{outtype}] byte-identical to ref_convert.py", same,
          "" if same else explain_difference(str(ours), str(ref)))
    if LLAMACPP is not None and llamacpp_judges:
        code, err = llamacpp.convert(LLAMACPP, d, real, outtype)
        if code != 0 or not real.is_file():
            check(f"{name} [{outtype}] llama.cpp's converter converts", False, err)
        else:
            same = ours.read_bytes() == real.read_bytes()
            check(f"{name} [{outtype}] byte-identical to llama.cpp's convert_hf_to_gguf.py", same,
                  "" if same else explain_difference(str(ours), str(real)))
    return parse_gguf(ours)


def kv(g, key):
    return next((k["value"] for k in g["kvs"] if k["key"] == key), None)


def key_index(g, key):
    return next((i for i, k in enumerate(g["kvs"]) if k["key"] == key), None)


def tensor(g, name):
    t = next((t for t in g["tensors"] if t["name"] == name), None)
    if t is None:
        return None
    return t, g["bytes"][t["abs"]:t["abs"] + t["nbytes"]]


def expect_refusal(name, d, want):
    out = WORK / f"{name}.gguf"
    if out.exists():
        out.unlink()
    r = cli("convert", str(d), "-o", str(out))
    problems = []
    if r.returncode != 1:
        problems.append(f"exit {r.returncode}, expected 1")
    if want.lower() not in r.stderr.lower():
        problems.append(f"message lacks {want!r}: {r.stderr.strip()}")
    if out.exists():
        problems.append("output file left at the target path")
    if leftovers(str(WORK)):
        problems.append(f"temporary files left: {leftovers(str(WORK))}")
    check(f"refuses {name}", not problems, "; ".join(problems))


# ------------------------------------------------------------------ variants

def to_rope_parameters(c):
    """transformers 5 writes the rope settings, rope_theta included, as rope_parameters"""
    rp = dict(c.pop("rope_scaling"))
    rp["rope_theta"] = c.pop("rope_theta")
    c["rope_parameters"] = rp


def main():
    global LLAMACPP
    WORK.mkdir(parents=True, exist_ok=True)
    if NODE_MODULES:
        try:
            LLAMACPP = llamacpp.source_tree(NODE_MODULES, WORK)
            check("llama.cpp's converter is at hand", True)
        except llamacpp.Unavailable as e:
            check("llama.cpp's converter is at hand", False, str(e))
    base = variant("base", BASE)
    g_base = convert_both("base", base, "bf16")
    base_freqs = tensor(g_base, "rope_freqs.weight")[1] if g_base else None

    # transformers 5: rope settings and rope_theta only in rope_parameters
    d = variant("rope-parameters", BASE, lambda d: edit_json(d, "config.json", to_rope_parameters))
    for t in ("bf16", "q8_0"):
        g = convert_both("rope-parameters", d, t)
    if g:
        check("rope-parameters: freq_base from rope_parameters.rope_theta",
              kv(g, "llama.rope.freq_base") == kv(g_base, "llama.rope.freq_base") != 10000.0,
              f"{kv(g, 'llama.rope.freq_base')}")
        rf = tensor(g, "rope_freqs.weight")
        check("rope-parameters: llama3 rope_freqs generated as from rope_scaling",
              rf is not None and rf[1] == base_freqs)

    # rope_parameters of the default type: no scaling, a base of its own
    def default_type(c):
        c.pop("rope_scaling")
        c.pop("rope_theta")
        c["rope_parameters"] = {"rope_type": "default", "rope_theta": 250000.0}
    d = variant("rope-default", BASE, lambda d: edit_json(d, "config.json", default_type))
    g = convert_both("rope-default", d, "bf16")
    if g:
        check("rope-default: no rope_freqs, freq_base 250000",
              tensor(g, "rope_freqs.weight") is None and kv(g, "llama.rope.freq_base") == 250000.0)

    # linear scaling: type and factor between head_count_kv and freq_base
    def linear(c):
        c["rope_scaling"] = {"type": "linear", "factor": 2.0}
    d = variant("rope-linear", BASE, lambda d: edit_json(d, "config.json", linear))
    g = convert_both("rope-linear", d, "f16")
    if g:
        i = [key_index(g, k) for k in ("llama.attention.head_count_kv", "llama.rope.scaling.type",
                                       "llama.rope.scaling.factor", "llama.rope.freq_base")]
        check("rope-linear: scaling keys after head_count_kv, before freq_base",
              None not in i and i == sorted(i) and i[1] == i[0] + 1, f"{i}")
        check("rope-linear: linear, factor 2", kv(g, "llama.rope.scaling.type") == "linear"
              and kv(g, "llama.rope.scaling.factor") == 2.0)

    # yarn scaling (long-context fine-tunes): the type, the factor, the
    # context trained for, and each yarn value config.json gives, in the
    # converter's order, before freq_base; attn_factor stands in for a
    # missing attention_factor; the context may be at the top level
    yarn_cases = (
        ("rope-yarn", {"type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768,
                       "beta_fast": 32, "beta_slow": 1, "attention_factor": 1.1,
                       "extrapolation_factor": 1}, {}),
        ("rope-yarn-attn-factor", {"rope_type": "yarn", "factor": 4, "original_max_position_embeddings": 8192,
                                   "attn_factor": 0.9, "beta_fast": None}, {}),
        ("rope-yarn-orig-top", {"rope_type": "yarn", "factor": 2.0}, {"original_max_position_embeddings": 4096}),
    )
    for name, rope, top in yarn_cases:
        d = variant(name, BASE, lambda d, rope=rope, top=top: edit_json(d, "config.json", lambda c: (
            c.__setitem__("rope_scaling", rope), c.update(top))))
        g = convert_both(name, d, "bf16")
        if not g:
            continue
        keys = [k["key"] for k in g["kvs"]]
        scaling = [k for k in keys if k.startswith("llama.rope.scaling.")]
        want = ["llama.rope.scaling.type", "llama.rope.scaling.factor",
                "llama.rope.scaling.original_context_length"] + \
            [f"llama.rope.scaling.yarn_{n}" for n, m in (("ext_factor", "extrapolation_factor"),
                                                         ("attn_factor", "attention_factor"),
                                                         ("beta_fast", "beta_fast"),
                                                         ("beta_slow", "beta_slow"))
             if rope.get(m, rope.get("attn_factor") if m == "attention_factor" else None) is not None]
        check(f"{name}: yarn keys in order, right before freq_base", scaling == want and
              keys.index("llama.rope.freq_base") == keys.index(scaling[-1]) + 1, f"{scaling}")
        check(f"{name}: yarn, factor and original context",
              kv(g, "llama.rope.scaling.type") == "yarn" and
              kv(g, "llama.rope.scaling.factor") == float(rope["factor"]) and
              kv(g, "llama.rope.scaling.original_context_length") ==
              rope.get("original_max_position_embeddings", top.get("original_max_position_embeddings")))
        if name == "rope-yarn-attn-factor":
            check(f"{name}: attn_factor as yarn_attn_factor", abs(kv(g, "llama.rope.scaling.yarn_attn_factor") - 0.9) < 1e-6)
        r = cli("audit", str(d), str(WORK / f"{name}.bf16.ours.gguf"))
        check(f"{name}: the audit passes the conversion", r.returncode == 0, r.stdout[-400:])

    # dynamic NTK scaling: the converter writes nothing of it (llama.cpp
    # does not do it for this architecture), with a warning; linear
    # without a factor: nothing either
    for name, rope in (("rope-dynamic", {"type": "dynamic", "factor": 2.0}),
                       ("rope-linear-no-factor", {"rope_type": "linear"})):
        d = variant(name, BASE, lambda d, rope=rope: edit_json(d, "config.json", lambda c: c.__setitem__(
            "rope_scaling", rope)))
        g = convert_both(name, d, "bf16")
        if g:
            check(f"{name}: no rope.scaling key, no rope_freqs",
                  not any(k["key"].startswith("llama.rope.scaling.") for k in g["kvs"]) and
                  tensor(g, "rope_freqs.weight") is None)
        r = cli("convert", str(d), "-o", str(WORK / f"{name}.again.gguf"), "--force")
        check(f"{name}: the conversion warns that nothing is scaled",
              r.returncode == 0 and ("dynamic NTK" in r.stderr if name == "rope-dynamic"
                                     else "has no factor" in r.stderr), r.stderr.strip())

    # original_max_position_embeddings: inside the rope parameters first, then top level
    def orig_inside(c):
        c["rope_scaling"]["original_max_position_embeddings"] = 64
        c["original_max_position_embeddings"] = 4096
    def orig_top(c):
        c["rope_scaling"].pop("original_max_position_embeddings", None)
        c["original_max_position_embeddings"] = 64
    got = []
    for name, fn in (("orig-ctx-inside", orig_inside), ("orig-ctx-top", orig_top)):
        d = variant(name, BASE, lambda d, fn=fn: edit_json(d, "config.json", fn))
        g = convert_both(name, d, "bf16")
        got.append(tensor(g, "rope_freqs.weight")[1] if g else None)
    check("original_max_position_embeddings changes rope_freqs (inside and at the top level alike)",
          None not in got and got[0] == got[1] != base_freqs)

    # llama3 rope scaling that gives only its type: the converter's defaults
    # (factor 8, low 1, high 4, original context 8192)
    def llama3_bare(c):
        c["rope_scaling"] = {"rope_type": "llama3"}
    d = variant("rope-llama3-defaults", BASE, lambda d: edit_json(d, "config.json", llama3_bare))
    g = convert_both("rope-llama3-defaults", d, "bf16")
    check("rope-llama3-defaults: rope_freqs differs from the base's (factor 8, not 32)",
          g is not None and tensor(g, "rope_freqs.weight")[1] != base_freqs)

    # every sampling default generation_config.json may give, and
    # transformers' name for the repeat penalty
    def sampling(c):
        c.update(top_k=40, top_p=0.9, min_p=0.05, xtc_probability=0.5, xtc_threshold=0.1,
                 temperature=0.7, penalty_last_n=64, repetition_penalty=1.1, mirostat=2,
                 mirostat_tau=5.0, mirostat_eta=0.1, sequence="edkypmxt")
    d = variant("sampling-all", BASE, lambda d: edit_json(d, "generation_config.json", sampling))
    g = convert_both("sampling-all", d, "bf16")
    check("sampling-all: twelve general.sampling keys, repetition_penalty as penalty_repeat",
          g is not None and sum(1 for k in g["kvs"] if k["key"].startswith("general.sampling.")) == 12
          and abs(kv(g, "general.sampling.penalty_repeat") - 1.1) < 1e-6)

    # tokenizer_config.json without add_bos_token, whose bos_token does not name the
    # post-processor's leading <|begin_of_text|>: that token becomes the unset one of
    # bos and cls, so add_bos_token is true (gguf-py's SpecialVocab)
    def bos_as_added_token(t):
        t["bos_token"] = {"__type": "AddedToken", "content": t["bos_token"], "lstrip": False,
                          "normalized": False, "rstrip": False, "single_word": False}
    for name, fn in (("tc-only-chat-template",
                      lambda t: [t.pop(k) for k in list(t) if k != "chat_template"]),
                     ("tc-bos-added-token", bos_as_added_token),
                     ("tc-bos-other-token", lambda t: t.update(bos_token="<|reserved_special_token_0|>")),
                     ("tc-bos-null", lambda t: t.update(bos_token=None))):
        d = variant(name, BASE, lambda d, fn=fn: edit_json(d, "tokenizer_config.json", fn))
        tcfg = json.loads((d / "tokenizer_config.json").read_text(encoding="utf-8"))
        tok = json.loads((d / "tokenizer.json").read_text(encoding="utf-8"))
        first = tok["post_processor"]["processors"][-1]["single"][0]["SpecialToken"]["id"]
        check(f"{name}: no add_bos_token, the post-processor starts with <|begin_of_text|>",
              "add_bos_token" not in tcfg and first == "<|begin_of_text|>", str(tcfg)[:200])
        g = convert_both(name, d, "bf16")
        check(f"{name}: add_bos_token true", g is not None and
              kv(g, "tokenizer.ggml.add_bos_token") is True)
        if name == "tc-bos-null":
            bos_id = next(a["id"] for a in tok["added_tokens"] if a["content"] == first)
            check("tc-bos-null: bos_token_id is <|begin_of_text|>'s",
                  g is not None and kv(g, "tokenizer.ggml.bos_token_id") == bos_id)

    # transformers writes model_max_length = int(1e30) into many
    # tokenizer_config.json files: an integer beyond 64 bits, where nothing
    # reads it (json-glib alone would read it wrong; it must not stop the
    # conversion)
    d = variant("tc-model-max-length-1e30", BASE, lambda d: edit_json(
        d, "tokenizer_config.json", lambda t: t.update(model_max_length=int(1e30))))
    check("tc-model-max-length-1e30: written as 1000000000000000019884624838656",
          '"model_max_length": 1000000000000000019884624838656' in
          (d / "tokenizer_config.json").read_text(encoding="utf-8"))
    check("tc-model-max-length-1e30: converted", convert_both("tc-model-max-length-1e30", d, "bf16") is not None)

    # keys of TextModel.set_gguf_parameters() a Llama config.json seldom has: a
    # LayerNorm epsilon (its first synonym present, unless null) and is_causal: false
    for name, fn, want in (
            ("layer-norm-eps", lambda c: c.update(layer_norm_eps=1e-5), 1e-5),
            ("layer-norm-epsilon", lambda c: c.update(layer_norm_epsilon=2e-5, norm_epsilon=3e-5), 2e-5),
            ("layer-norm-eps-null", lambda c: c.update(layer_norm_eps=None, norm_epsilon=3e-5), None)):
        d = variant(name, BASE, lambda d, fn=fn: edit_json(d, "config.json", fn))
        g = convert_both(name, d, "bf16")
        got = kv(g, "llama.attention.layer_norm_epsilon") if g is not None else "no file"
        check(f"{name}: llama.attention.layer_norm_epsilon is {want}, just after the RMS epsilon",
              g is not None and (got is None if want is None else
                                 abs(got - want) < 1e-12 and
                                 key_index(g, "llama.attention.layer_norm_epsilon") ==
                                 key_index(g, "llama.attention.layer_norm_rms_epsilon") + 1),
              str(got))
    d = variant("non-causal", BASE, lambda d: edit_json(d, "config.json",
                                                        lambda c: c.update(is_causal=False)))
    g = convert_both("non-causal", d, "bf16")
    check("non-causal: llama.attention.causal = false, just after head_count_kv",
          g is not None and kv(g, "llama.attention.causal") is False and
          key_index(g, "llama.attention.causal") == key_index(g, "llama.attention.head_count_kv") + 1)
    if g is not None:
        a = cli("audit", str(d), str(WORK / "non-causal.bf16.ours.gguf"))
        check("non-causal: the audit passes the file (causal as config.json asks)",
              a.returncode == 0, a.stdout[-600:] + a.stderr)
        a = cli("audit", str(base), str(WORK / "non-causal.bf16.ours.gguf"))
        check("non-causal: audited against the causal checkpoint, attention.causal fails",
              a.returncode == 1 and "attention.causal" in a.stdout, a.stdout[-600:])
    d = variant("causal-true", BASE, lambda d: edit_json(d, "config.json",
                                                         lambda c: c.update(is_causal=True)))
    g = convert_both("causal-true", d, "bf16")
    check("causal-true: no llama.attention.causal written (only false is)",
          g is not None and kv(g, "llama.attention.causal") is None)

    # head sizes other than 64 and 128, other bases and factors: rope_freqs values in
    # the band between the two wavelengths, where each float32 rounding shows (torch
    # takes 2π / freq as (1 / freq) · 2π)
    def rope(theta, factor, orig):
        def fn(c):
            c["rope_theta"] = theta
            c["rope_scaling"].update(factor=factor, original_max_position_embeddings=orig)
        return lambda d: edit_json(d, "config.json", fn)
    for name, dims, edit in (
            ("rope-hd96", ["--hidden", "192", "--heads", "2", "--kv-heads", "1"], None),
            ("rope-hd112", ["--hidden", "224", "--heads", "2", "--kv-heads", "2"],
             rope(1000000.0, 16.0, 4096)),
            ("rope-hd256", ["--hidden", "256", "--heads", "1", "--kv-heads", "1"],
             rope(10000.0, 8.0, 8192))):
        d = variant(name, ["--layers", "1", "--intermediate", "96", "--seed", "37"] + dims, edit)
        g = convert_both(name, d, "bf16")
        rf = tensor(g, "rope_freqs.weight") if g else None
        factor = json.loads((d / "config.json").read_text())["rope_scaling"]["factor"]
        band = np.frombuffer(rf[1], "<f4") if rf else np.array([])
        band = band[(band > 1) & (band < factor)]
        check(f"{name}: rope_freqs has values between 1 and the factor", len(band) >= 2, f"{band}")
        real = WORK / f"{name}.bf16.llamacpp.gguf"
        if LLAMACPP is not None:
            r = cli("audit", str(d), str(real))
            check(f"{name}: the audit passes llama.cpp's own file", r.returncode == 0,
                  (r.stdout + r.stderr)[-600:])

    # a head size, base and original context where torch's float32 pow (Sleef, within
    # one ulp) and a correctly rounded one differ for one power on this machine's torch:
    # ours follows the correctly rounded one, and the audit accepts either
    d = variant("rope-pow", ["--layers", "1", "--intermediate", "96", "--seed", "38", "--hidden", "192",
                             "--heads", "2", "--kv-heads", "1"], rope(500000.0, 8.0, 4096))
    convert_both("rope-pow", d, "bf16", llamacpp_judges=False)
    if LLAMACPP is not None:
        real = WORK / "rope-pow.bf16.llamacpp.gguf"
        if real.exists():
            real.unlink()
        code, err = llamacpp.convert(LLAMACPP, d, real, "bf16")
        r = cli("audit", str(d), str(real))
        check("rope-pow: the audit passes llama.cpp's own file", code == 0 and r.returncode == 0,
              err if code else (r.stdout + r.stderr)[-600:])

    # keys transformers' LlamaConfig fills in
    def drop_keys(c):
        for k in ("max_position_embeddings", "rms_norm_eps", "num_key_value_heads"):
            c.pop(k, None)
        c.pop("rope_scaling")
        c.pop("rope_theta")
    mha = ["--layers", "2", "--hidden", "64", "--heads", "4", "--kv-heads", "4",
           "--intermediate", "96", "--seed", "32"]
    d = variant("llama-defaults", mha, lambda d: edit_json(d, "config.json", drop_keys))
    # (transformers' defaults: llama.cpp's converter gets them from AutoConfig)
    g = convert_both("llama-defaults", d, "bf16", llamacpp_judges=False)
    if g:
        check("llama-defaults: context 2048, eps 1e-6, base 10000, 4 kv heads",
              kv(g, "llama.context_length") == 2048 and
              abs(kv(g, "llama.attention.layer_norm_rms_epsilon") - 1e-6) < 1e-12 and
              kv(g, "llama.rope.freq_base") == 10000.0 and
              kv(g, "llama.attention.head_count_kv") == 4)
    r = cli("convert", str(d), "-o", str(WORK / "defaults-dry.gguf"), "--dry-run")
    check("llama-defaults: the plan warns of each default it took",
          all("config.json has no %s" % k in r.stdout + r.stderr
              for k in ("max_position_embeddings", "rms_norm_eps", "rope_theta")),
          (r.stdout + r.stderr)[-800:])

    # MistralForCausalLM: MistralConfig's defaults (8 kv heads, 131072 positions)
    def mistral(c):
        c["architectures"] = ["MistralForCausalLM"]
        c["model_type"] = "mistral"
        for k in ("max_position_embeddings", "num_key_value_heads"):
            c.pop(k)
        c.pop("rope_scaling")
    d = variant("mistral-defaults", ["--layers", "2", "--hidden", "64", "--heads", "8",
                                     "--kv-heads", "8", "--intermediate", "96", "--seed", "33"],
                lambda d: edit_json(d, "config.json", mistral))
    g = convert_both("mistral-defaults", d, "bf16", llamacpp_judges=False)
    if g:
        check("mistral-defaults: context 131072, 8 kv heads",
              kv(g, "llama.context_length") == 131072 and kv(g, "llama.attention.head_count_kv") == 8)

    # tokenizer.json normalizers
    for name, norm, want in (
            ("norm-lowercase", {"type": "Lowercase"}, {"lowercase": True}),
            ("norm-sequence", {"type": "Sequence", "normalizers": [
                {"type": "Lowercase"}, {"type": "StripAccents"},
                {"type": "BertNormalizer", "lowercase": False, "strip_accents": None}]},
             {"lowercase": False}),
            ("norm-nfc", {"type": "NFC"}, {})):
        d = variant(name, BASE, lambda d, norm=norm: edit_json(
            d, "tokenizer.json", lambda t: t.__setitem__("normalizer", norm)))
        g = convert_both(name, d, "bf16")
        if g:
            have = {f: kv(g, f"tokenizer.ggml.normalizer.{f}") for f in ("lowercase", "strip_accents")}
            have = {f: v for f, v in have.items() if v is not None}
            last = g["kvs"][-1]["key"]
            check(f"{name}: normalizer keys {want}, after the chat template", have == want and
                  (not want or last.startswith("tokenizer.ggml.normalizer.")), f"{have}, last {last}")

    # --outtype auto: the first tensor of two or more dimensions in BF16 or F16 decides
    def lm_head_f32(items):
        f32 = np.float32
        for it in items:
            if it[0] == "lm_head.weight":
                it[1] = "F32"
                it[2] = (it[2].astype(np.uint32) << 16).astype("<u4")
        del f32
    untied = BASE[:-2] + ["--untied", "--seed", "34"]
    d = variant("auto-mixed", untied, lambda d: edit_shard(d, lm_head_f32))
    g = convert_both("auto-mixed", d, "auto")
    if g:
        check("auto-mixed: BF16 output although lm_head.weight (first) is F32",
              kv(g, "general.file_type") == 32 and
              next(t for t in g["tensors"] if t["name"] == "output.weight")["type"] == 30)

    # size-1 dimensions are kept (no squeeze): ffn tensors [1, 64] / [64, 1]
    d = variant("ffn-1", ["--layers", "1", "--hidden", "64", "--heads", "4", "--kv-heads", "2",
                          "--intermediate", "1", "--seed", "35"])
    for t in ("bf16", "q8_0"):
        g = convert_both("ffn-1", d, t)
    if g:
        up = next(t for t in g["tensors"] if t["name"] == "blk.0.ffn_up.weight")
        down = next(t for t in g["tensors"] if t["name"] == "blk.0.ffn_down.weight")
        check("ffn-1: dims kept as [64, 1] and [1, 64]; Q8_0 for the first, F16 for rows of 1",
              up["dims"] == [64, 1] and down["dims"] == [1, 64] and up["type"] == 8 and down["type"] == 1,
              f"{up['dims']} {up['type']} {down['dims']} {down['type']}")

    # attention and MLP biases (attention_bias / mlp_bias): F32, q/k biases permuted
    def add_biases(items):
        rng = np.random.default_rng(36)
        extra = []
        for name, dtype, arr in items:
            if name.endswith(("_proj.weight",)) and ".layers." in name:
                vals = rng.standard_normal(arr.shape[0]).astype(np.float32)
                extra.append([name[:-len("weight")] + "bias", "BF16",
                              (vals.view(np.uint32) >> 16).astype("<u2")])
        return items + extra
    d = variant("biases", BASE, lambda d: edit_shard(d, add_biases))
    for t in ("bf16", "q8_0"):
        g = convert_both("biases", d, t)
    if g:
        b = [t for t in g["tensors"] if t["name"].endswith(".bias")]
        check("biases: 14 bias tensors, all F32", len(b) == 14 and all(t["type"] == 0 for t in b),
              f"{[(t['name'], t['type']) for t in b]}")

    # a folder without an index: model*.safetensors only; a global inv_freq is dropped
    def stray(d):
        shutil.copy(d / "model.safetensors", d / "consolidated.safetensors")
        write_safetensors(d / "adapter_model.safetensors",
                          [("base_model.lora_A.weight", "F32", np.zeros((2, 2), "<u4"))])
        edit_shard(d, lambda items: items + [["model.rotary_emb.inv_freq", "F32",
                                              np.ones(8, np.float32).view("<u4")]])
    # (in a folder of the same name as the base, which the model is named after)
    d = variant("stray-files/base", BASE, stray)
    g = convert_both("stray-files", d, "bf16")
    if g and g_base:
        ours = (WORK / "stray-files.bf16.ours.gguf").read_bytes()
        check("stray-files: same file as without them", ours == (WORK / "base.bf16.ours.gguf").read_bytes())

    # exactly 1,000,000 parameters (14660 × 64 embeddings + 61,760 in two
    # layers and the norm): utility.py moves to "M" only above a million
    d = variant("million", BASE + ["--vocab", "14660", "--rope-scaling", "none"])
    g = convert_both("million", d, "bf16")
    if g:
        n = sum(int(np.prod(t["dims"])) for t in g["tensors"])
        check("million: exactly 1,000,000 parameters, size label \"1000K\"",
              n == 1000000 and kv(g, "general.size_label") == "1000K",
              f"{n} parameters, size label {kv(g, 'general.size_label')!r}")

    # more of it: a quoted scalar that goes on at column 0, an escaped
    # space at the end of a line, empty lines after an escaped line break
    card = ('---\n'
            'model_name: "Tiny\n'
            'Model \\ \n'
            '  X"\n'
            "model_creator: 'open\n"
            "quote'\n"
            'description: "a\\\n'
            '\n'
            '  \n'
            '  b"\n'
            '---\n')
    d = variant("card-yaml-2", BASE, lambda d: (d / "README.md").write_text(card, encoding="utf-8"))
    g = convert_both("card-yaml-2", d, "bf16")
    if g:
        check("card-yaml-2: quoted lines at column 0, an escaped space, an escaped break",
              kv(g, "general.name") == "Tiny Model   X" and kv(g, "general.author") == "open quote"
              and kv(g, "general.description") == "a\n\nb",
              repr([kv(g, k) for k in ("general.name", "general.author", "general.description")]))

    # block scalars as PyYAML reads them: a literal keeps its empty lines
    # (they were dropped: "para one\npara two"), "|+" its trailing ones,
    # "|-" none; a folded one joins lines with a space, keeps the breaks of
    # empty lines and folds nothing around a more-indented line
    card = ('---\n'
            'model_name: |\n'
            '  Tiny\n'
            '\n'
            '  Model\n'
            'description: |+\n'
            '  kept\n'
            '\n'
            'license: other\n'
            'license_name: >-\n'
            '  folded\n'
            '  text\n'
            '\n'
            '    indented\n'
            '  end\n'
            'model_creator: |-\n'
            '  no break\n'
            '---\n')
    d = variant("card-block-scalars", BASE, lambda d: (d / "README.md").write_text(card, encoding="utf-8"))
    g = convert_both("card-block-scalars", d, "bf16")
    if g:
        check("card-block-scalars: literal, kept, folded and stripped blocks read as YAML reads them",
              kv(g, "general.name") == "Tiny\n\nModel\n" and kv(g, "general.description") == "kept\n\n"
              and kv(g, "general.license.name") == "folded text\n\n  indented\nend"
              and kv(g, "general.author") == "no break",
              repr([kv(g, k) for k in ("general.name", "general.description", "general.license.name",
                                       "general.author")]))

    # scalars PyYAML types: "language: no" is False (the Norway problem
    # outside a list, which gguf-py's "- no" fix-up misses) and "tags: 2024"
    # an int, so neither is a string or a list and both are left out; a
    # quoted "no" is a string
    card = ('---\n'
            'language: no\n'
            'languages: "no"\n'
            'tags: 2024\n'
            'pipeline_tag: text-generation\n'
            'license: apache-2.0\n'
            '---\n')
    d = variant("card-typed-scalars", BASE, lambda d: (d / "README.md").write_text(card, encoding="utf-8"))
    g = convert_both("card-typed-scalars", d, "bf16")
    if g:
        check("card-typed-scalars: a plain no and 2024 left out, a quoted no kept",
              (kv(g, "general.languages") or {}).get("items") == ["no"] and
              (kv(g, "general.tags") or {}).get("items") == ["text-generation"],
              repr([kv(g, "general.languages"), kv(g, "general.tags")]))

    # more block scalars, each judged by PyYAML itself (what gguf-py reads
    # a card with), in a front matter closed by "---" and in one that runs
    # to the end of the file: spaces beyond the indent on an otherwise
    # empty line, an explicit indentation, "|+" of empty lines only,
    # leading empty lines, chomping
    import yaml  # python3-yaml
    blocks = ["description: |\n  a\n   \n  b\n", "description: >\n  a\n   \n  b\n",
              "description: |2\n    a\n  b\n", "description: |+\n\n\n", "description: |-\n  a\n\n",
              "description: >+\n  a\n  b\n\n\n", "description: >\n  a\n\n\n  b\n  c\n",
              "description: |\n\n  a\n", "description: |\n  a\n  \n  b\n"]
    d = variant("card-blocks", BASE)
    wrong = []
    for block in blocks:
        want = yaml.safe_load(block)["description"] or None
        for end in ("---\n", ""):
            (d / "README.md").write_text("---\n" + block + end, encoding="utf-8")
            r = cli("convert", str(d), "-o", str(WORK / "card-blocks.gguf"), "--dry-run", "--json")
            got = next((m.get("value") for m in json.loads(r.stdout)["metadata"]
                        if m["key"] == "general.description"), None) if r.returncode == 0 else r.stderr
            if got != want:
                wrong.append(f"{block + end!r}: {got!r}, PyYAML {want!r}")
    check(f"card-blocks: {len(blocks)} block scalars, closed and not, as PyYAML reads them", not wrong,
          "; ".join(wrong))

    # Llama 3's pre-tokenizer without model.ignore_merges (false, or absent
    # as older tokenizers saved it): llama.cpp's "smaug-bpe" (the same
    # pattern, merges always applied), not "llama-bpe" (which ignores them
    # for whole-token words). llama.cpp's converter names it by hashing the
    # ids of a check text, which the test runner cannot do for a tiny
    # vocabulary (it gives "llama-bpe"), so ref_convert.py alone judges.
    for name, fn in (("ignore-merges-false", lambda t: t["model"].update(ignore_merges=False)),
                     ("ignore-merges-absent", lambda t: t["model"].pop("ignore_merges"))):
        d = variant(name, BASE, lambda d, fn=fn: edit_json(d, "tokenizer.json", fn))
        g = convert_both(name, d, "bf16", llamacpp_judges=False)
        if g:
            check(f"{name}: tokenizer.ggml.pre is smaug-bpe", kv(g, "tokenizer.ggml.pre") == "smaug-bpe",
                  repr(kv(g, "tokenizer.ggml.pre")))
    if g_base:
        check("base: tokenizer.ggml.pre is llama-bpe (ignore_merges true)",
              kv(g_base, "tokenizer.ggml.pre") == "llama-bpe", repr(kv(g_base, "tokenizer.ggml.pre")))

    # model-card YAML as PyYAML reads it: double-quoted escapes (\u, \x,
    # \U, \t, \", an escaped line break), quoted and plain scalars over
    # several lines (folded: a space, a newline per empty line), a comment
    # after a closing quote
    card = ('---\n'
            'model_name: "Caf\\u00e9 \\x41\\U0001F600 Model\\t\\"q\\""\n'
            'license: other\n'
            'license_name: some very\n'
            '  long license name\n'
            '\n'
            '  with a second paragraph\n'
            'license_link: "https://example.org/a\n'
            '   b \\\n'
            '   c"\n'
            "model_creator: 'It''s\n"
            "  ours'   # the creator\n"
            'description: "first line\n'
            '\n'
            '  after an empty one"\n'
            'tags: [x, "y"]\n'
            '---\n')
    d = variant("card-yaml", BASE, lambda d: (d / "README.md").write_text(card, encoding="utf-8"))
    g = convert_both("card-yaml", d, "bf16")
    if g:
        check("card-yaml: escapes and folded lines read as YAML reads them",
              kv(g, "general.name") == "Café A\U0001F600 Model\t\"q\""
              and kv(g, "general.license.name") == "some very long license name\nwith a second paragraph"
              and kv(g, "general.license.link") == "https://example.org/a b c"
              and kv(g, "general.author") == "It's ours"
              and kv(g, "general.description") == "first line\nafter an empty one",
              repr([kv(g, k) for k in ("general.name", "general.license.name", "general.license.link",
                                       "general.author", "general.description")]))

    # the user's locale stays out of files: a French one writes decimals with a comma
    # (build-aux/install-deps generates fr_FR.UTF-8)
    fr = dict(os.environ, LC_ALL="fr_FR.UTF-8")
    has_fr = subprocess.run(["locale", "-a"], capture_output=True, text=True).stdout.lower()
    check("the fr_FR.UTF-8 locale is installed (build-aux/install-deps makes it)",
          "fr_fr.utf8" in has_fr or "fr_fr.utf-8" in has_fr)
    fr_out = WORK / "base-fr.gguf"
    r = subprocess.run([CLI, "convert", str(base), "-o", str(fr_out), "--outtype", "bf16", "--force"],
                       capture_output=True, text=True, env=fr, timeout=300)
    check("a French locale converts to the same bytes (size label 111K, not a comma)",
          r.returncode == 0 and fr_out.read_bytes() == (WORK / "base.bf16.ours.gguf").read_bytes(),
          r.stderr.strip())
    svg = WORK / "base-fr.svg"
    r = subprocess.run([CLI, "layout", str(fr_out), "-o", str(svg)], capture_output=True, text=True,
                       env=fr, timeout=300)
    bad = re.findall(r'\s(?:x|y|width|height|font-size)="[^"]*,[^"]*"', svg.read_text()) if svg.exists() else ["no file"]
    check("a French locale exports SVG numbers with a dot", r.returncode == 0 and not bad, f"{bad[:3]}")
    r = subprocess.run([CLI, "inspect", str(fr_out)], capture_output=True, text=True, env=fr, timeout=300)
    check("inspect shows float32 values at their shortest: 0.9, 500000, 1e-05",
          all(re.search(p, r.stdout) for p in (r"top_p\s+float32\s+0\.9\n", r"freq_base\s+float32\s+500000\n",
                                               r"epsilon\s+float32\s+1e-05\n")), r.stdout[-600:])

    # an empty folder: the message names no byte offset (a folder has none)
    empty = WORK / "empty-folder"
    empty.mkdir(exist_ok=True)
    r = cli("inspect", str(empty))
    check("an empty folder: a specific message without a byte offset",
          r.returncode == 1 and "the folder has no .safetensors file" in r.stderr and "byte 0" not in r.stderr,
          r.stderr.strip())

    # counts in messages are grouped as the locale groups digits: a comma would read
    # as a decimal comma in French
    r = subprocess.run([CLI, "audit", str(base), str(WORK / "base.bf16.ours.gguf")],
                       capture_output=True, text=True, env=fr, timeout=300)
    line = next((l for l in r.stdout.splitlines() if l.strip().startswith("pass  values")), "")
    check("a French locale groups the audit's counts without commas",
          r.returncode == 0 and line and not re.search(r"\d,\d{3}", line) and re.search(r"\d\D\d{3}", line),
          line)

    # sampling values gguf-py packs although JSON types them otherwise: a bool is a
    # Python int (top_k true is 1, temperature false 0.0), an empty sequence is left out
    def sampling_bools(c):
        c.update(top_k=True, temperature=False, sequence="", mirostat=None)
    d = variant("sampling-bools", BASE, lambda d: edit_json(d, "generation_config.json", sampling_bools))
    r = cli("convert", str(d), "-o", str(WORK / "sampling-bools.gguf"), "--dry-run", "--force")
    out = r.stdout + r.stderr
    check("sampling-bools: top_k true as int32 1, temperature false as 0, no sequence, no mirostat",
          r.returncode == 0 and re.search(r"general\.sampling\.top_k\s+int32\s+1\s", out) and
          re.search(r"general\.sampling\.temp\s+float32\s+0\s", out) and
          "sampling.sequence" not in out and "sampling.mirostat" not in out, out[-800:])

    # no merges anywhere: gguf-py's SpecialVocab warns and writes the file without them
    d = mutated("no-merges", "tokenizer.json", lambda t: t["model"].__setitem__("merges", []))
    r = cli("convert", str(d), "-o", str(WORK / "no-merges.gguf"), "--dry-run", "--force")
    check("no merges: converted, with a warning that the file has none",
          r.returncode == 0 and "has no merges" in r.stdout + r.stderr, (r.stdout + r.stderr)[-600:])

    # ---- refused
    def cfg(fn):
        return lambda d: edit_json(d, "config.json", fn)

    # the early conversions' spelling, which llama.cpp's converter registers too
    d = mutated("architectures-LLaMA", "config.json", lambda c: c.update(architectures=["LLaMAForCausalLM"]))
    g = convert_both("architectures-LLaMA", d, "bf16")
    if g and g_base:
        check("architectures [\"LLaMAForCausalLM\"]: the same tensors and keys as LlamaForCausalLM",
              [t["name"] for t in g["tensors"]] == [t["name"] for t in g_base["tensors"]])

    # llama.cpp's converter reads architectures[0] and nothing after it
    d = mutated("architectures-second-null", "config.json",
                lambda c: c.update(architectures=["LlamaForCausalLM", None]))
    r = cli("convert", str(d), "-o", str(WORK / "architectures-second-null.gguf"), "--dry-run")
    check("architectures [\"LlamaForCausalLM\", null]: converts (only the first is read)",
          r.returncode == 0, r.stderr.strip())

    # JSON that json-glib would read differently from Python: a second value
    # after the file's own (json-glib read the first and dropped the rest,
    # Python refuses the extra data), an integer beyond 64 bits where an
    # integer is read (json-glib read 2^70 as -1 and wrote top_k -1; Python
    # reads it, gguf-py cannot pack it)
    def raw(name, fname, fn):
        d = WORK / name
        shutil.rmtree(d, ignore_errors=True)
        shutil.copytree(WORK / "base", d)
        p = d / fname
        p.write_text(fn(p.read_text(encoding="utf-8")), encoding="utf-8")
        return d

    def set_top_k_raw(text):
        g = json.loads(text)
        g["top_k"] = 12345
        return json.dumps(g).replace("12345", str(2 ** 70))
    for name, fname, fn, want in (
            ("a second object after config.json's", "config.json",
             lambda t: t + '{"vocab_size": 7}', "a second JSON value after the file's own"),
            ("a second object after tokenizer.json's", "tokenizer.json",
             lambda t: t + " {}", "a second JSON value after the file's own"),
            ("vocab_size 2^64", "config.json",
             lambda t: t.replace('"vocab_size": ', '"vocab_size": 18446744073709551616, "x": ', 1),
             "\"vocab_size\" must be a positive integer"),
            ("top_k 2^70 (read as -1)", "generation_config.json", set_top_k_raw,
             "generation_config.json: top_k is 1")):
        expect_refusal(name, raw("refuse-raw-" + re.sub(r"[^a-z0-9]+", "-", name.lower()),
                                 fname, fn), want)

    # a value of the wrong JSON type, or one gguf-py cannot pack, stops llama.cpp's
    # converter (struct.pack raises; a str has no .lower(), …): never taken as absent
    for name, fname, fn, want in (
            ("top_k beyond int32", "generation_config.json",
             lambda g: g.update(top_k=2 ** 40), "top_k is 1099511627776, beyond the range of int32"),
            ("mirostat beyond int32", "generation_config.json",
             lambda g: g.update(mirostat=2 ** 33), "mirostat is 8589934592, beyond the range of int32"),
            ("top_k 1.5", "generation_config.json", lambda g: g.update(top_k=1.5),
             "top_k is 1.5, not an integer"),
            ("top_k 40.0 (struct.pack('<i', 40.0) raises)", "generation_config.json",
             lambda g: g.update(top_k=40.0), "top_k is 40.0, not an integer"),
            ("penalty_last_n 3.7", "generation_config.json", lambda g: g.update(penalty_last_n=3.7),
             "penalty_last_n is 3.7, not an integer"),
            ("temperature \"hot\"", "generation_config.json", lambda g: g.update(temperature="hot"),
             "temperature is \"hot\", not a number"),
            ("temperature beyond float32", "generation_config.json", lambda g: g.update(temperature=1e39),
             "temperature is 1e+39, beyond the range of float32"),
            ("sequence [1, 2]", "generation_config.json", lambda g: g.update(sequence=[1, 2]),
             "sequence is [1,2], not a string"),
            ("architectures a string", "config.json",
             lambda c: c.update(architectures="LlamaForCausalLM"), "\"architectures\" must be a list of strings"),
            ("rope_scaling a string", "config.json", lambda c: c.update(rope_scaling="llama3"),
             "\"rope_scaling\" must be an object"),
            ("rope_type a number", "config.json", lambda c: c["rope_scaling"].update(rope_type=3),
             "\"rope_scaling.rope_type\" must be a string"),
            ("rope factor a string", "config.json", lambda c: c["rope_scaling"].update(factor="8"),
             "\"rope_scaling.factor\" must be a number"),
            ("llama3 rope factor null", "config.json", lambda c: c["rope_scaling"].update(factor=None),
             "\"rope_scaling.factor\" must be a number"),
            ("rms_norm_eps a string", "config.json", lambda c: c.update(rms_norm_eps="x"),
             "\"rms_norm_eps\" must be a number"),
            ("rope_theta a string", "config.json", lambda c: c.update(rope_theta="1e4"),
             "\"rope_theta\" must be a number"),
            ("rope_theta beyond float32", "config.json", lambda c: c.update(rope_theta=1e39),
             "\"rope_theta\" is 1e+39, beyond the range of float32"),
            ("head_dim 0", "config.json", lambda c: c.update(head_dim=0),
             "\"head_dim\" must be a positive integer"),
            ("merges a string", "tokenizer.json", lambda t: t["model"].update(merges="a b"),
             "\"model.merges\" must be a list"),
            ("a negative vocab id", "tokenizer.json", lambda t: t["model"]["vocab"].update(zzzz=-5),
             "token id -5 of \"zzzz\" is negative"),
            ("a negative added token id", "tokenizer.json",
             lambda t: t["added_tokens"][0].update(id=-1), "token id -1 of \"<|begin_of_text|>\" is negative"),
            ("an added token whose content is a number", "tokenizer.json",
             lambda t: t["added_tokens"][2].update(content=5), "\"added_tokens[2].content\" must be a string"),
            ("an added_tokens_decoder id beyond 64 bits", "tokenizer_config.json",
             lambda t: t["added_tokens_decoder"].update({"99999999999999999999": {"content": "<z>"}}),
             "tokenizer_config.json: token id 99999999999999999999 of \"<z>\" is not below")):
        expect_refusal(name, mutated("refuse-" + fname.split(".")[0] + "-" + name.replace(" ", "-"),
                                     fname, fn), want)
    expect_refusal("head_dim that does not fit the tensors",
                   variant("bad-head-dim", BASE, cfg(lambda c: c.__setitem__("head_dim", 32))),
                   "config.json implies")
    expect_refusal("kv heads that do not fit k_proj",
                   variant("bad-kv", BASE, cfg(lambda c: c.__setitem__("num_key_value_heads", 1))),
                   "config.json implies")
    expect_refusal("tie_word_embeddings that is not true or false (the fuzzer's find)",
                   variant("tie-list", BASE, cfg(lambda c: c.__setitem__("tie_word_embeddings", [1, 2]))),
                   "tie_word_embeddings\" must be true or false")
    expect_refusal("a layer past num_hidden_layers",
                   variant("extra-layer", BASE, cfg(lambda c: c.__setitem__("num_hidden_layers", 1))),
                   "no GGUF name")
    expect_refusal("a missing key without a model_type to default it",
                   variant("no-model-type", BASE, cfg(lambda c: (c.pop("model_type"),
                                                                 c.pop("max_position_embeddings")))),
                   "max_position_embeddings")
    expect_refusal("no lm_head and no tie_word_embeddings",
                   variant("no-tie-key", untied, lambda d: (
                       edit_json(d, "config.json", lambda c: c.pop("tie_word_embeddings")),
                       edit_shard(d, lambda items: [i for i in items if i[0] != "lm_head.weight"]))),
                   "does not set tie_word_embeddings")
    expect_refusal("rope type spelt \"Linear\"",
                   variant("rope-Linear", BASE, cfg(lambda c: c.__setitem__(
                       "rope_scaling", {"type": "Linear", "factor": 2.0}))),
                   "\"Linear\" is not supported")
    expect_refusal("yarn rope scaling without the context trained for",
                   variant("rope-yarn-no-orig", BASE, cfg(lambda c: c.__setitem__(
                       "rope_scaling", {"rope_type": "yarn", "factor": 2.0}))),
                   "needs \"rope_scaling.original_max_position_embeddings\"")
    for t in ("yarn", "dynamic"):
        expect_refusal(f"{t} rope scaling without a factor (transformers refuses it too)",
                       variant(f"rope-{t}-no-factor", BASE, cfg(lambda c, t=t: c.__setitem__(
                           "rope_scaling", {"rope_type": t, "original_max_position_embeddings": 64}))),
                       f"\"{t}\" needs a factor")
    expect_refusal("yarn's original context as a float",
                   variant("rope-yarn-orig-float", BASE, cfg(lambda c: c.__setitem__(
                       "rope_scaling", {"rope_type": "yarn", "factor": 2.0,
                                        "original_max_position_embeddings": 4096.0}))),
                   "original_max_position_embeddings\" must be an integer")
    expect_refusal("longrope scaling",
                   variant("rope-longrope", BASE, cfg(lambda c: c.__setitem__(
                       "rope_scaling", {"type": "longrope", "long_factor": [1.0] * 8,
                                        "short_factor": [1.0] * 8}))),
                   "\"longrope\" is not supported")
    expect_refusal("rope parameters per attention type",
                   variant("rope-per-type", BASE, cfg(lambda c: c.__setitem__(
                       "rope_parameters", {"full_attention": {"rope_type": "default"},
                                           "sliding_attention": {"rope_type": "default"}}))),
                   "per attention type")
    expect_refusal("llama3 rope with equal low and high frequency factors",
                   variant("rope-equal-factors", BASE, cfg(lambda c: c["rope_scaling"].update(
                       low_freq_factor=4.0, high_freq_factor=4.0))),
                   "must differ")
    sentencepiece_variants()
    return summary()


# a Llama 2 style checkpoint with a SentencePiece tokenizer.model of 384 pieces
SPM = ["--layers", "2", "--hidden", "64", "--heads", "4", "--kv-heads", "2", "--intermediate", "96",
       "--seed", "37", "--rope-scaling", "none", "--sentencepiece", "llama2"]


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def sp_piece(text, score=0.0, typ=None):
    """a serialized ModelProto.SentencePiece (our own protobuf writing, for hostile cases)"""
    body = b"\x0a" + varint(len(text)) + text + b"\x15" + struct.pack("<f", score)
    if typ is not None:
        body += b"\x18" + varint(typ)
    return b"\x0a" + varint(len(body)) + body


def pieces_end(model):
    """the offset after the last piece (field 1) of a serialized ModelProto
    that starts with its pieces, as sentencepiece writes it"""
    pos = 0
    while model[pos] == 0x0A:
        n, shift, pos = 0, 0, pos + 1
        while True:
            b = model[pos]
            n |= (b & 0x7F) << shift
            shift, pos = shift + 7, pos + 1
            if b < 0x80:
                break
        pos += n
    return pos


def sentencepiece_variants():
    """LlamaModel.set_vocab()'s SentencePiece path (tokenizer.model first, also
    beside a tokenizer.json): Llama 2 and Mistral v0.3 style checkpoints."""
    def kv(g, key):     # arrays as their items
        v = globals()["kv"](g, key)
        return v["items"] if isinstance(v, dict) else v

    d = variant("spm-llama2", SPM)
    g = None
    for t in ("bf16", "q8_0", "f16", "f32"):
        g = convert_both("spm-llama2", d, t) or g
    if g:
        toks, types, scores = kv(g, "tokenizer.ggml.tokens"), kv(g, "tokenizer.ggml.token_type"), \
            kv(g, "tokenizer.ggml.scores")
        check("spm-llama2: model llama, pre default, 384 tokens, scores and types",
              kv(g, "tokenizer.ggml.model") == "llama" and kv(g, "tokenizer.ggml.pre") == "default"
              and len(toks) == len(types) == len(scores) == 384,
              f"{kv(g, 'tokenizer.ggml.model')} {kv(g, 'tokenizer.ggml.pre')} {len(toks or [])}")
        check("spm-llama2: the keys in the converter's order",
              [k["key"] for k in g["kvs"] if k["key"].startswith("tokenizer.")][:5] ==
              ["tokenizer.ggml.model", "tokenizer.ggml.pre", "tokenizer.ggml.tokens",
               "tokenizer.ggml.scores", "tokenizer.ggml.token_type"])
        byte_a = toks.index("<0x41>") if "<0x41>" in toks else None
        check("spm-llama2: <unk> <s> </s> control (added_tokens_decoder), byte pieces typed byte",
              types[:3] == [3, 3, 3] and byte_a is not None and types[byte_a] == 6, f"{types[:8]}")
        check("spm-llama2: bos 1, eos 2, add_bos true, add_eos false",
              (kv(g, "tokenizer.ggml.bos_token_id"), kv(g, "tokenizer.ggml.eos_token_id"),
               kv(g, "tokenizer.ggml.add_bos_token"), kv(g, "tokenizer.ggml.add_eos_token")) ==
              (1, 2, True, False))
    d = variant("spm-llama2-untied", SPM + ["--untied"])
    for t in ("bf16", "q8_0"):
        convert_both("spm-llama2-untied", d, t)

    # config.json's vocab_size beyond the pieces: [PAD<id>] tokens, unused, -10000
    d = variant("spm-padded", SPM + ["--vocab", "400"])
    for t in ("bf16", "q8_0"):
        g = convert_both("spm-padded", d, t)
    if g:
        toks, types, scores = kv(g, "tokenizer.ggml.tokens"), kv(g, "tokenizer.ggml.token_type"), \
            kv(g, "tokenizer.ggml.scores")
        check("spm-padded: [PAD384]..[PAD399], unused, score -10000",
              toks[384:] == [f"[PAD{i}]" for i in range(384, 400)] and set(types[384:]) == {5}
              and set(scores[384:]) == {-10000.0}, f"{toks[380:388]}")

    # added_tokens.json: "<pad>" at 384, user-defined, -1000
    d = variant("spm-added-tokens-json", SPM + ["--spm-added-tokens-json"])
    for t in ("bf16", "q8_0"):
        g = convert_both("spm-added-tokens-json", d, t)
    if g:
        check("spm-added-tokens-json: <pad> at 384, user-defined, score -1000",
              (kv(g, "tokenizer.ggml.tokens")[384], kv(g, "tokenizer.ggml.token_type")[384],
               kv(g, "tokenizer.ggml.scores")[384]) == ("<pad>", 4, -1000.0))

    # no tokenizer.json: SpecialVocab takes the ids from config.json
    d = variant("spm-no-tokenizer-json", SPM + ["--spm-no-tokenizer-json"])
    g = convert_both("spm-no-tokenizer-json", d, "bf16")
    if g:
        check("spm-no-tokenizer-json: bos 1 and eos 2 from config.json, add_bos from tokenizer_config.json",
              (kv(g, "tokenizer.ggml.bos_token_id"), kv(g, "tokenizer.ggml.eos_token_id"),
               kv(g, "tokenizer.ggml.add_bos_token")) == (1, 2, True))

    # Mistral v0.3 style: MistralForCausalLM, [INST]-like control pieces, a
    # user-defined piece named in added_tokens_decoder and one that is not
    d = variant("spm-mistral", SPM[:-1] + ["mistral", "--vocab", "400"])
    for t in ("bf16", "q8_0"):
        g = convert_both("spm-mistral", d, t)
    if g:
        toks, types = kv(g, "tokenizer.ggml.tokens"), kv(g, "tokenizer.ggml.token_type")
        check("spm-mistral: [INST] control, \"\u2581tool\u2581call\" user-defined as \" tool call\", "
              "<tool> normal", "[INST]" in toks and types[toks.index("[INST]")] == 3
              and " tool call" in toks and types[toks.index(" tool call")] == 4
              and "<tool>" in toks and types[toks.index("<tool>")] == 1, f"{toks[:12]} {types[:12]}")

    # a signalling NaN score: gguf-py packs sentencepiece's score through a
    # Python float, which quiets it (payload kept)
    def nan_score(d):
        import sentencepiece
        model = (d / "tokenizer.model").read_bytes()
        piece = sentencepiece.SentencePieceProcessor(model_file=str(d / "tokenizer.model")).IdToPiece(300)
        text = piece.encode("utf-8")
        at = model.index(b"\x0a" + varint(len(text)) + text + b"\x15") + 2 + len(text) + 1
        (d / "tokenizer.model").write_bytes(model[:at] + struct.pack("<I", 0x7F800123) + model[at + 4:])
    d = variant("spm-nan-score", SPM, nan_score)
    g = convert_both("spm-nan-score", d, "bf16")
    if g:
        raw = g["bytes"]
        check("spm-nan-score: the signalling NaN score written quiet (0x7fc00123)",
              struct.pack("<I", 0x7FC00123) in raw and struct.pack("<I", 0x7F800123) not in raw)

    # CodeLlama (vocab_size 32016): a second SpecialVocab, eot 32010 at the end
    d = variant("spm-codellama", SPM + ["--vocab", "32016"])
    g = convert_both("spm-codellama", d, "bf16")
    if g:
        check("spm-codellama: eot_token_id 32010, the last tokenizer key",
              kv(g, "tokenizer.ggml.eot_token_id") == 32010 and
              [k["key"] for k in g["kvs"]][-1] == "tokenizer.ggml.eot_token_id")

    # the plan (--dry-run --json): the keys with their origins, the size exact
    for name in ("spm-llama2", "spm-mistral", "spm-added-tokens-json"):
        r = cli("convert", str(WORK / name), "-o", str(WORK / f"{name}.plan.gguf"), "--dry-run", "--json",
                "--outtype", "bf16")
        try:
            plan = json.loads(r.stdout)
        except ValueError:
            plan = None
        ours = WORK / f"{name}.bf16.ours.gguf"
        origins = {m["key"]: m["origin"] for m in plan["metadata"]} if plan else {}
        check(f"{name}: --dry-run predicts the size exactly, tokenizer keys with their origins",
              plan is not None and ours.is_file() and plan["predicted_size"] == ours.stat().st_size
              and origins.get("tokenizer.ggml.scores", "").startswith("tokenizer.model")
              and "SentencePiece" in origins.get("tokenizer.ggml.pre", "")
              and origins.get("tokenizer.ggml.bos_token_id") == "tokenizer_config.json: bos_token"
              and not (WORK / f"{name}.plan.gguf").exists(),
              f"{r.returncode} {r.stderr.strip()} {plan and plan['predicted_size']} "
              f"{ours.is_file() and ours.stat().st_size} {origins.get('tokenizer.ggml.scores')}")
        if name == "spm-added-tokens-json":
            check(f"{name}: the origin of the tokens names added_tokens.json",
                  "added_tokens.json" in origins.get("tokenizer.ggml.tokens", ""),
                  origins.get("tokenizer.ggml.tokens"))
        r = cli("convert", str(WORK / name), "-o", str(WORK / f"{name}.plan.gguf"), "--dry-run")
        check(f"{name}: no warning about merges in the plan (a SentencePiece model has none)",
              r.returncode == 0 and "merges" not in r.stdout + r.stderr, r.stdout[-300:] + r.stderr)

    # --tokenizer-pre still names the pre-tokenizer
    out = WORK / "spm-pre.gguf"
    if out.exists():
        out.unlink()
    r = cli("convert", str(WORK / "spm-llama2"), "-o", str(out), "--tokenizer-pre", "llama-bpe")
    g = parse_gguf(out) if r.returncode == 0 else None
    check("spm-llama2 --tokenizer-pre llama-bpe: written as given",
          g is not None and kv(g, "tokenizer.ggml.pre") == "llama-bpe", r.stderr)

    # hostile tokenizer.model files: a specific refusal, no output
    good = (WORK / "spm-llama2" / "tokenizer.model").read_bytes()
    unk = sp_piece(b"<unk>", 0.0, 2)
    for name, data, want in (
            ("an empty tokenizer.model", b"", "tokenizer.model: no pieces"),
            ("a tokenizer.model that is not protobuf", b"not a sentencepiece model",
             "tokenizer.model: byte 0: field 13 has wire type 6"),
            ("a tokenizer.model cut inside a varint", b"\x0a\xff\xff",
             "tokenizer.model: byte 1: a varint runs past the end of its message"),
            ("a tokenizer.model with an 11-byte varint", b"\x0a" + b"\xff" * 10 + b"\x01",
             "tokenizer.model: byte 1: a varint longer than 10 bytes"),
            ("a tokenizer.model piece whose length runs past the end", b"\x0a\x10abc",
             "tokenizer.model: byte 1: a length of 16 bytes runs past the end"),
            ("a tokenizer.model piece of length 2^63", b"\x0a" + varint(2 ** 63),
             "tokenizer.model: byte 1: a length of 9223372036854775808 bytes runs past the end"),
            ("a tokenizer.model cut inside its last piece", good[:pieces_end(good) - 3],
             "runs past the end of its message"),
            # cut after its pieces: no trainer spec, so no byte fallback for the byte pieces
            ("a tokenizer.model without its trainer spec", good[:pieces_end(good)],
             "piece 3 \"<0x00>\" is a byte piece, but the trainer spec does not have byte_fallback"),
            ("a tokenizer.model with byte fallback but one byte piece missing",
             good.replace(sp_piece(b"<0x7F>", 0.0, 6), b""),
             "byte_fallback without a byte piece <0x7F> (sentencepiece requires all 256)"),
            ("a tokenizer.model piece as a varint", b"\x08\x01", "a piece (field 1) has wire type 0"),
            ("a tokenizer.model without an unknown piece", sp_piece(b"a"), "no piece is the unknown piece"),
            ("a tokenizer.model with two unknown pieces", unk + sp_piece(b"<unk2>", 0.0, 2),
             "pieces 0 and 1 are both the unknown piece"),
            ("a tokenizer.model with a piece twice", unk + sp_piece(b"a") + sp_piece(b"a"),
             "piece 2 \"a\" is defined twice"),
            ("a tokenizer.model with an empty piece", unk + sp_piece(b""), "a piece without text"),
            ("a tokenizer.model piece that is not UTF-8", unk + sp_piece(b"\xff\xfe"),
             "a piece is not valid UTF-8"),
            ("a tokenizer.model score as a varint", b"\x0a\x05\x0a\x01a\x10\x01",
             "a piece's score (field 2) has wire type 0"),
            ("a tokenizer.model with a group", unk + b"\x1b", "field 3 has wire type 3")):
        dd = WORK / ("spm-refuse-" + re.sub(r"[^a-z0-9]+", "-", name.lower()))
        shutil.rmtree(dd, ignore_errors=True)
        shutil.copytree(WORK / "spm-llama2", dd)
        (dd / "tokenizer.model").write_bytes(data)
        expect_refusal(name, dd, want)
        if LLAMACPP is not None:
            # sentencepiece refuses it too: no file llama.cpp's converter would write
            real = WORK / "spm-refused.llamacpp.gguf"
            code, err = llamacpp.convert(LLAMACPP, dd, real, "bf16")
            check(f"llama.cpp's converter refuses {name} too", code != 0, err)
            if real.exists():
                real.unlink()
    # past 64 MB (sparse): refused before it is read
    dd = WORK / "spm-refuse-huge"
    shutil.rmtree(dd, ignore_errors=True)
    shutil.copytree(WORK / "spm-llama2", dd)
    with open(dd / "tokenizer.model", "wb") as f:
        f.truncate(64 * 1024 * 1024 + 1)
    expect_refusal("a tokenizer.model over 64 MB", dd, "tokenizer.model: 67108865 bytes, more than")
    shutil.rmtree(dd, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
