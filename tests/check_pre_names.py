#!/usr/bin/env python3
"""`tensorscope-cli convert --tokenizer-pre NAME`: the names it takes are the
ones llama.cpp knows, those its src/llama-vocab.cpp compares tokenizer_pre
with (it refuses to load a file with any other), read from the llama.cpp
source node-llama-cpp ships (tests/ref/llamacpp.py), so that the core's list
cannot drift from it unseen; an unknown or empty name is a usage error that
writes nothing, and a known name other than the one tokenizer.json gives is
written with a warning. Without that source the check fails: it is the only
judge of the list.

usage: check_pre_names.py CLI WORKDIR NODE_MODULES
"""
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "ref"))
from tscheck import check, summary, leftovers  # noqa: E402
import llamacpp  # noqa: E402


def run(cli, *args):
    return subprocess.run([cli] + list(args), capture_output=True, text=True, timeout=120)


def llama_vocab_names(tree):
    """The names in src/llama-vocab.cpp's `tokenizer_pre == "..."` comparisons."""
    text = (tree / "src" / "llama-vocab.cpp").read_text(encoding="utf-8")
    return set(re.findall(r'tokenizer_pre\s*==\s*"([^"]*)"', text))


def main():
    if len(sys.argv) != 4:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    cli, work, node_modules = sys.argv[1], Path(sys.argv[2]), sys.argv[3]
    work.mkdir(parents=True, exist_ok=True)
    ckpt, out_dir = work / "llama3", work / "out"
    shutil.rmtree(ckpt, ignore_errors=True)
    shutil.rmtree(out_dir, ignore_errors=True)

    r = run(cli, "convert", "--tokenizer-pre", "help")
    ours = r.stdout.splitlines()
    check("--tokenizer-pre help: exit 0, one name a line, sorted, no repeats",
          r.returncode == 0 and len(ours) > 0 and ours == sorted(set(ours)),
          "exit %d: %s" % (r.returncode, (r.stderr or r.stdout)[-300:]))

    try:
        tree = llamacpp.source_tree(node_modules, work, modules=())
    except llamacpp.Unavailable as e:
        check("llama.cpp's source is at hand", False, str(e))
        tree = None
    if tree is not None:
        theirs = llama_vocab_names(tree)
        check("llama-vocab.cpp compares tokenizer_pre with names (the parse found them)",
              len(theirs) > 20 and "llama-bpe" in theirs, sorted(theirs))
        check("the names we take are exactly those llama-vocab.cpp knows",
              set(ours) == theirs,
              "only ours: %s; only llama.cpp's: %s"
              % (sorted(set(ours) - theirs), sorted(theirs - set(ours))))

    r = run(cli, "sample", str(ckpt), "--shards", "1")
    check("sample written", r.returncode == 0, r.stderr)
    out_dir.mkdir()

    # names llama.cpp would refuse (or, empty, load with a degraded default)
    for name in ("bogus", "", "LLAMA-BPE", "llama-bpe "):
        out = out_dir / "refused.gguf"
        for dry in ((), ("--dry-run",)):
            r = run(cli, "convert", str(ckpt), "-o", str(out), "--tokenizer-pre", name, *dry)
            check("--tokenizer-pre %r%s: a usage error naming the option, nothing written"
                  % (name, " (dry run)" if dry else ""),
                  r.returncode == 2 and "--tokenizer-pre" in r.stderr
                  and "--tokenizer-pre help" in r.stderr
                  and not out.exists() and not leftovers(out_dir),
                  "exit %d: %s" % (r.returncode, r.stderr.strip()[-400:]))

    # a name llama.cpp knows, not the one tokenizer.json gives: written, and said
    out = out_dir / "qwen2.gguf"
    r = run(cli, "convert", str(ckpt), "-o", str(out), "--tokenizer-pre", "qwen2")
    warnings = [line for line in r.stderr.splitlines() if line.startswith("warning:")]
    check("--tokenizer-pre qwen2 on a Llama 3 tokenizer: written, with a warning naming both",
          r.returncode == 0 and out.exists()
          and any("qwen2" in w and "llama-bpe" in w for w in warnings),
          "exit %d: %s" % (r.returncode, r.stderr.strip()[-400:]))
    r = run(cli, "inspect", str(out))
    check("... and its tokenizer.ggml.pre is qwen2",
          re.search(r"^tokenizer\.ggml\.pre\s+string\s+qwen2$", r.stdout, re.M) is not None,
          r.stdout[-300:])
    r = run(cli, "convert", str(ckpt), "--dry-run", "--tokenizer-pre", "qwen2")
    check("... the dry run warns too", r.returncode == 0 and "warning:" in r.stderr
          and "qwen2" in r.stderr, r.stderr.strip()[-300:])

    # a SentencePiece vocabulary (Llama 2's): llama.cpp reads no
    # pre-tokenizer for it, and the warning says only the key changes
    spm = work / "llama2"
    shutil.rmtree(spm, ignore_errors=True)
    g = subprocess.run(["/usr/bin/python3", str(HERE / "ref" / "gen_checkpoint.py"), str(spm),
                        "--rope-scaling", "none", "--sentencepiece", "llama2"],
                       capture_output=True, text=True, timeout=300)
    check("a Llama 2 checkpoint with a SentencePiece tokenizer.model written", g.returncode == 0,
          g.stderr[-300:])
    if g.returncode == 0:
        r = run(cli, "convert", str(spm), "--dry-run", "--tokenizer-pre", "llama-bpe")
        warnings = [line for line in r.stderr.splitlines() if line.startswith("warning:")]
        check("--tokenizer-pre llama-bpe on a SentencePiece vocabulary: the warning says llama.cpp "
              "reads no pre-tokenizer for it, not that text is split the llama-bpe way",
              r.returncode == 0 and any("reads no pre-tokenizer for a SentencePiece vocabulary" in w
                                        for w in warnings)
              and not any("split text" in w for w in warnings), r.stderr.strip()[-400:])
        shutil.rmtree(spm, ignore_errors=True)

    # the name it gives: no warning
    r = run(cli, "convert", str(ckpt), "-o", str(out_dir / "same.gguf"), "--tokenizer-pre", "llama-bpe")
    check("--tokenizer-pre llama-bpe (the name tokenizer.json gives): no warning",
          r.returncode == 0 and "warning:" not in r.stderr, r.stderr.strip()[-300:])

    r = run(cli, "convert", "--help")
    check("convert --help calls --tokenizer-pre an override",
          re.search(r"--tokenizer-pre=NAME\s+Override", r.stdout) is not None, r.stdout)

    shutil.rmtree(out_dir, ignore_errors=True)
    shutil.rmtree(ckpt, ignore_errors=True)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
