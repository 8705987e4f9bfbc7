"""llama.cpp's own converter (convert_hf_to_gguf.py and gguf-py) as a judge.

node-llama-cpp (npm, installed by tests/interop/setup-npm.sh) ships the
llama.cpp source it was built from as a git bundle; source_tree() clones it
into a cache folder once.  convert() runs the real converter on a checkpoint
with Debian's python3-torch, python3-numpy and python3-sentencepiece and the
transformers stand-in in llamacpp_shim/.  What differs from a run on a
machine with transformers:
- the BPE pre-tokenizer name is given ("llama-bpe") instead of hashed from a
  sample text encoded by transformers' tokenizer (which needs all of
  transformers); our own recognition of it is tested elsewhere;
- config.json is read as it is, without transformers' defaults;
- torch 1.13 (Debian 12) lacks a few dtypes the converter names in its
  tables (float8_*, uint16/32/64): they get placeholders that match no
  tensor.

usage as a script: llamacpp.py TREE CKPT OUT.gguf OUTTYPE [OPTION...]   (runs the converter)
"""
import os
import runpy
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
PY = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
BUNDLE = Path("node-llama-cpp") / "llama" / "gitRelease.bundle"


class Unavailable(Exception):
    pass


CONVERTER_MODULES = ("torch", "numpy", "sentencepiece", "yaml", "tqdm")


def source_tree(node_modules, cache, modules=CONVERTER_MODULES):
    """The llama.cpp source folder (cloned from node-llama-cpp's bundle into
    CACHE once); raises Unavailable saying what is missing.  MODULES are the
    Python modules the caller needs besides the tree (the converter's by
    default; the headers alone need none)."""
    bundle = Path(node_modules) / BUNDLE
    tree = Path(cache) / "llama.cpp"
    if not bundle.is_file():
        raise Unavailable(f"{bundle} is missing (run tests/interop/setup-npm.sh)")
    for mod in modules:
        r = subprocess.run([PY, "-c", f"import {mod}"], capture_output=True)
        if r.returncode != 0:
            raise Unavailable(f"python module {mod} is missing (build-aux/install-deps installs it)")
    # the cached clone serves while it is the bundle's commit (a new
    # node-llama-cpp brings another llama.cpp)
    try:
        want = subprocess.run(["git", "bundle", "list-heads", str(bundle)], capture_output=True,
                              text=True).stdout.split()[:1]
        have = subprocess.run(["git", "-C", str(tree), "rev-parse", "HEAD"], capture_output=True,
                              text=True).stdout.split()[:1] if tree.is_dir() else []
    except FileNotFoundError:
        raise Unavailable("git is not installed (build-aux/install-deps installs it)")
    if want and want == have and (tree / "convert_hf_to_gguf.py").is_file():
        return tree
    subprocess.run(["rm", "-rf", str(tree)], check=True)
    tmp = tree.with_name("llama.cpp.part")
    subprocess.run(["rm", "-rf", str(tmp)], check=True)
    try:
        r = subprocess.run(["git", "clone", "-q", str(bundle), str(tmp)], capture_output=True, text=True)
    except FileNotFoundError:
        raise Unavailable("git is not installed (build-aux/install-deps installs it)")
    if r.returncode != 0:
        raise Unavailable(f"git clone of {bundle} failed: {r.stderr.strip()[-300:]}")
    os.replace(tmp, tree)
    return tree


def convert(tree, ckpt, out, outtype, extra=()):
    """Runs llama.cpp's converter (EXTRA: more of its options, such as
    --split-max-tensors N); returns (exit status, stderr tail)."""
    env = dict(os.environ, PYTHONPATH=str(HERE / "llamacpp_shim"))
    r = subprocess.run([PY, str(Path(__file__).resolve()), str(tree), str(ckpt), str(out), outtype]
                       + list(extra), env=env, capture_output=True, text=True, timeout=600)
    return r.returncode, r.stderr.strip()[-600:]


def _run(tree, ckpt, out, outtype, *extra):
    tree = Path(tree)
    sys.path.insert(0, str(tree))
    sys.path.insert(1, str(tree / "gguf-py"))
    import torch
    for name in ("float8_e4m3fn", "float8_e5m2", "float8_e8m0fnu", "uint16", "uint32", "uint64"):
        if not hasattr(torch, name):
            setattr(torch, name, type(name, (), {})())
    import conversion.base as base
    base.TextModel.get_vocab_base_pre = lambda self, tokenizer: "llama-bpe"
    sys.argv = [str(tree / "convert_hf_to_gguf.py"), str(ckpt), "--outfile", str(out),
                "--outtype", outtype] + list(extra)
    runpy.run_path(sys.argv[0], run_name="__main__")


if __name__ == "__main__":
    if len(sys.argv) < 5:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        sys.exit(2)
    _run(*sys.argv[1:])
