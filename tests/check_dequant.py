#!/usr/bin/env python3
"""ggml's block types decoded bit for bit as llama.cpp decodes them: writes
reference vectors with llama.cpp's own gguf-py (tests/ref/dequant_vectors.py;
gguf-py's quants.py reproduces ggml's dequantize_row_*()), from the llama.cpp
source node-llama-cpp ships (tests/ref/llamacpp.py), and, for the types
gguf-py lacks (Q1_0, Q2_0), with ggml's own to_float from node-llama-cpp's
prebuilt library (tests/ref/llama_quantize.py); then runs test-dequant on
them. Without that source the check fails: it is the only judge. Also checks
that the IQ grids in the tree (src/libtensorscope/ts-iq-grids.h) are what
build-aux/gen-iq-grids.py makes of that source's ggml-common.h.

usage: check_dequant.py TEST_DEQUANT WORKDIR NODE_MODULES
"""
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE / "ref"))
from tscheck import check, summary  # noqa: E402
import llamacpp  # noqa: E402

PY = llamacpp.PY


def main():
    if len(sys.argv) != 4:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    test, work, node_modules = sys.argv[1], Path(sys.argv[2]), sys.argv[3]
    work.mkdir(parents=True, exist_ok=True)
    try:
        tree = llamacpp.source_tree(node_modules, work)
    except llamacpp.Unavailable as e:
        check("llama.cpp's gguf-py is at hand", False, str(e))
        return summary()
    check("llama.cpp's gguf-py is at hand", True)

    # the IQ1-IQ3 grids in the tree are ggml's, point for point
    grids = work / "ts-iq-grids.h"
    r = subprocess.run([PY, str(ROOT / "build-aux" / "gen-iq-grids.py"),
                        str(tree / "ggml" / "src" / "ggml-common.h"), str(grids)],
                       capture_output=True, text=True, timeout=60)
    check("gen-iq-grids.py reads ggml-common.h", r.returncode == 0, r.stderr.strip()[-600:])
    ours = (ROOT / "src" / "libtensorscope" / "ts-iq-grids.h").read_bytes()
    check("src/libtensorscope/ts-iq-grids.h is what gen-iq-grids.py makes of this llama.cpp's ggml-common.h",
          r.returncode == 0 and grids.read_bytes() == ours,
          "regenerate it: build-aux/gen-iq-grids.py LLAMA_CPP/ggml/src/ggml-common.h src/libtensorscope/ts-iq-grids.h")

    vectors = work / "dequant-vectors.bin"
    r = subprocess.run([PY, str(HERE / "ref" / "dequant_vectors.py"), str(tree / "gguf-py"), str(vectors),
                        node_modules, str(work)],
                       capture_output=True, text=True, timeout=600)
    check("gguf-py (and, for Q1_0 and Q2_0, which it lacks, ggml's own to_float) wrote the reference vectors",
          r.returncode == 0 and vectors.is_file(),
          r.stderr.strip()[-600:])
    if r.returncode != 0:
        return summary()

    env = dict(os.environ, TS_DEQUANT_VECTORS=str(vectors))
    r = subprocess.run([test, "--verbose"], env=env, capture_output=True, text=True, timeout=600)
    sys.stdout.write(r.stdout)
    sys.stderr.write(r.stderr)
    check("test-dequant: every value bit-identical to the judge's", r.returncode == 0,
          f"exit {r.returncode}")
    return summary()


if __name__ == "__main__":
    sys.exit(main())
