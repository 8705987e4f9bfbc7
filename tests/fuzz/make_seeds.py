#!/usr/bin/python3
"""Build the seed corpora of the libFuzzer targets from the test fixtures.

usage: make_seeds.py OUTDIR VALIDDIR HOSTILEDIR CLI

VALIDDIR and HOSTILEDIR are the outputs of tests/fixtures/gen_valid.py and
gen_hostile.py; CLI is tensorscope-cli (to convert the fixed checkpoint).
Writes:
  OUTDIR/checkpoint/          the fixed checkpoint of fuzz-audit
                              (tests/ref/gen_checkpoint.py, tiny)
  OUTDIR/reference.gguf       its BF16 conversion
  OUTDIR/safetensors/ gguf/ hf-config/ audit/   one seed corpus per target
Nothing here is committed: it is generated at build time.
"""
import hashlib
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

SEP = b"\n#TSFUZZ#\n"
MAX_SEED = 1 << 20
HERE = os.path.dirname(os.path.abspath(__file__))
GEN_CHECKPOINT = os.path.join(HERE, "..", "ref", "gen_checkpoint.py")
TINY = ["--layers", "1", "--hidden", "32", "--heads", "2", "--kv-heads", "1",
        "--intermediate", "64", "--vocab", "384", "--merges", "48"]
HF_FILES = ["config.json", "tokenizer.json", "tokenizer_config.json",
            "generation_config.json", "special_tokens_map.json", "README.md",
            "merges.txt", "chat_template.jinja", "tokenizer.model", "added_tokens.json"]


def put(corpus, data):
    os.makedirs(corpus, exist_ok=True)
    name = hashlib.sha1(data).hexdigest()
    with open(os.path.join(corpus, name), "wb") as f:
        f.write(data)


def pieces(files):
    return SEP.join(name.encode() + b"\n" + data for name, data in files)


def read(path):
    with open(path, "rb") as f:
        return f.read()


# ggml types of 32-value blocks that the audit decodes, with their bytes
# per block: Q4_0, Q4_1, Q5_0, Q5_1, IQ4_NL, MXFP4
RETYPES = {2: 18, 3: 20, 6: 22, 7: 24, 20: 18, 39: 17}


def retyped(cli, path, new_type):
    """The Q8_0 GGUF at PATH with every Q8_0 tensor made NEW_TYPE: its
    descriptor says so, its data is the first bytes of the Q8_0 data (any
    bytes are valid blocks of these types) and the tensors are packed again
    at the file's alignment. Seeds for the audit's decoded comparison."""
    data = read(path)
    info = json.loads(subprocess.run([cli, "inspect", path, "--json"], check=True,
                                     capture_output=True).stdout)
    align = info["alignment"]
    data_start = info["parts"][0]["data_offset"]
    region = next(r for r in info["parts"][0]["regions"] if r["kind"] == "tensor-info")
    head = bytearray(data[:data_start])
    body = bytearray()
    pos = region["offset"]
    for t in info["tensors"]:
        name = t["name"].encode()
        pos = head.index(struct.pack("<Q", len(name)) + name, pos) + 8 + len(name)
        type_at = pos + 4 + 8 * struct.unpack_from("<I", head, pos)[0]
        size = t["size"]
        if t["dtype"] == "Q8_0":
            struct.pack_into("<I", head, type_at, new_type)
            size = t["elements"] // 32 * RETYPES[new_type]
        body += bytes(-len(body) % align)
        struct.pack_into("<Q", head, type_at + 4, len(body))
        body += data[t["offset"]:t["offset"] + size]
        pos = type_at + 4 + 8
    return bytes(head) + bytes(body) + bytes(-len(body) % align)


def walk(top):
    for root, dirs, files in os.walk(top):
        dirs.sort()
        for n in sorted(files):
            p = os.path.join(root, n)
            if os.path.isfile(p) and not os.path.islink(p):
                yield root, n, p


def gguf_seeds(out, dirs, extra):
    for d in dirs:
        for _, n, p in walk(d):
            if n.endswith(".gguf") and os.path.getsize(p) <= MAX_SEED:
                put(os.path.join(out, "gguf"), read(p))
    for p in extra:
        put(os.path.join(out, "gguf"), read(p))


def safetensors_seeds(out, dirs):
    corpus = os.path.join(out, "safetensors")
    for d in dirs:
        for root, n, p in walk(d):
            if n.endswith(".safetensors") and os.path.getsize(p) <= MAX_SEED:
                put(corpus, b"\0" + read(p))
        for root, subdirs, files in os.walk(d):
            shards = sorted(f for f in files if f.endswith(".safetensors"))
            if not shards or sum(os.path.getsize(os.path.join(root, f))
                                 for f in files) > MAX_SEED:
                continue
            listed = [(f, read(os.path.join(root, f))) for f in shards]
            index = "model.safetensors.index.json"
            if index in files:
                body = pieces([(index, read(os.path.join(root, index)))] + listed)
                for mode in (1, 2, 3):
                    put(corpus, bytes([mode]) + body)
            else:
                put(corpus, b"\4" + pieces(listed))


def checkpoint(path, *args):
    subprocess.run([sys.executable, GEN_CHECKPOINT, path] + TINY + list(args),
                   check=True, stdout=subprocess.DEVNULL)


def hf_seeds(out, folders):
    corpus = os.path.join(out, "hf-config")
    for d in folders:
        files = [(n, read(os.path.join(d, n))) for n in HF_FILES
                 if os.path.isfile(os.path.join(d, n))]
        for flags in (0, 1, 2):
            put(corpus, bytes([flags]) + pieces(files))


def main():
    out, valid, hostile, cli = sys.argv[1:5]
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    ckpt = os.path.join(out, "checkpoint")
    ref = os.path.join(out, "reference.gguf")
    checkpoint(ckpt)
    subprocess.run([cli, "convert", ckpt, "-o", ref, "--outtype", "bf16", "-j", "1"],
                   check=True, stdout=subprocess.DEVNULL)

    with tempfile.TemporaryDirectory() as tmp:
        variants = [ckpt]
        for i, args in enumerate([["--pair-merges", "--untied"],
                                  ["--plain-post-processor", "--no-head-dim",
                                   "--rope-scaling", "none"],
                                  ["--model-card", "--name", "meta-llama/Llama-3.2-3B-Instruct"],
                                  ["--pad-vocab", "8", "--tc-no-eos"],
                                  ["--sentencepiece", "llama2", "--rope-scaling", "none"],
                                  ["--sentencepiece", "mistral", "--rope-scaling", "none",
                                   "--vocab", "400", "--spm-added-tokens-json"]]):
            d = os.path.join(tmp, "v%d" % i)
            checkpoint(d, *args)
            variants.append(d)
        # yarn rope scaling, and a model card of block scalars
        d = os.path.join(tmp, "v-yarn")
        checkpoint(d, "--rope-scaling", "none")
        with open(os.path.join(d, "config.json"), encoding="utf-8") as f:
            cfg = json.load(f)
        cfg["rope_scaling"] = {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 8192,
                               "attn_factor": 0.9, "beta_fast": 32, "beta_slow": 1}
        with open(os.path.join(d, "config.json"), "w", encoding="utf-8") as f:
            json.dump(cfg, f)
        with open(os.path.join(d, "README.md"), "w", encoding="utf-8") as f:
            f.write("---\nmodel_name: |\n  Tiny\n\n  Model\ndescription: |+\n  kept\n\n"
                    "license_name: >-\n  folded\n\n    more\n  end\n---\n")
        variants.append(d)
        hf_seeds(out, variants)

        outputs = []
        for t in ("f16", "q8_0", "f32"):
            p = os.path.join(tmp, "ref-%s.gguf" % t)
            subprocess.run([cli, "convert", ckpt, "-o", p, "--outtype", t, "-j", "1"],
                           check=True, stdout=subprocess.DEVNULL)
            outputs.append(p)
        corpus = os.path.join(out, "audit")
        for p in [ref] + outputs:
            for mode in (0, 1):
                put(corpus, bytes([mode]) + read(p))
        for new_type in RETYPES:
            for mode in (0, 1):
                put(corpus, bytes([mode]) + retyped(cli, outputs[1], new_type))
        gguf_seeds(out, [valid, hostile], [ref] + outputs)

    safetensors_seeds(out, [valid, hostile, ckpt])
    for c in ("safetensors", "gguf", "hf-config", "audit"):
        print("%s: %d seeds" % (c, len(os.listdir(os.path.join(out, c)))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
