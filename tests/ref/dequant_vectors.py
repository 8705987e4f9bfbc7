"""Reference vectors for ggml's block types, from llama.cpp's own gguf-py.

usage: dequant_vectors.py GGUF_PY OUT

GGUF_PY is llama.cpp's gguf-py folder (its quants.py reproduces ggml's
dequantize_row_*() in numpy, bit for bit). For every type OUT gets blocks of
seeded random bytes, blocks whose scales are special (NaN, infinities,
subnormals, zeros, the extremes) and, where gguf-py can quantize the type,
blocks quantized from random floats; with them the float32 values gguf-py
decodes them to.

OUT is binary, little-endian:
  "TSDQ0001", u32 number of types, then per type:
  u32 name length, the name (ggml's, e.g. "Q4_K"), u32 blocks,
  u32 bytes per block, u32 values per block, the blocks' bytes,
  the values as float32.
"""
import itertools
import struct
import sys

import numpy as np

# ggml's type name -> the byte offsets of its f16 scales in a block
# (ggml-common.h); MXFP4's scale is one E8M0 byte at offset 0
F16_SCALES = {
    "Q4_0": [0],
    "Q4_1": [0, 2],
    "Q5_0": [0],
    "Q5_1": [0, 2],
    "Q8_0": [0],
    "Q2_K": [80, 82],
    "Q3_K": [108],
    "Q4_K": [0, 2],
    "Q5_K": [0, 2],
    "Q6_K": [208],
    "IQ4_NL": [0],
    "IQ4_XS": [0],
    "TQ1_0": [52],
    "TQ2_0": [64],
}
E8M0_SCALES = {"MXFP4": [0]}

# f16 bit patterns: quiet and signalling NaNs of both signs, infinities,
# zeros, subnormals, the smallest normal, the largest finite, ordinary
SPECIAL_F16 = [0x7e00, 0x7c01, 0xfe00, 0xfd55, 0x7c00, 0xfc00, 0x0000, 0x8000,
               0x0001, 0x03ff, 0x8001, 0x0400, 0x7bff, 0xfbff, 0x3c00, 0x1400]
SPECIAL_E8M0 = [0, 1, 2, 3, 126, 127, 128, 200, 253, 254, 255]

RANDOM_BLOCKS = 300
QUANTIZED_BLOCKS = 64


def blocks_for(name, qtype, quants, rng, block_size, type_size):
    parts = [rng.integers(0, 256, size=(RANDOM_BLOCKS, type_size), dtype=np.uint8)]

    offsets = F16_SCALES.get(name)
    specials, width = SPECIAL_F16, 2
    if offsets is None:
        offsets, specials, width = E8M0_SCALES[name], SPECIAL_E8M0, 1
    combos = list(itertools.product(specials, repeat=len(offsets)))
    special = rng.integers(0, 256, size=(len(combos), type_size), dtype=np.uint8)
    for row, combo in zip(special, combos):
        for off, bits in zip(offsets, combo):
            row[off:off + width] = np.frombuffer(bits.to_bytes(width, "little"), dtype=np.uint8)
    parts.append(special)

    # realistic blocks: random floats of several magnitudes, quantized
    floats = rng.standard_normal((QUANTIZED_BLOCKS, block_size)).astype(np.float32)
    floats *= np.float32(10.0) ** rng.integers(-6, 4, size=(QUANTIZED_BLOCKS, 1)).astype(np.float32)
    try:
        parts.append(np.asarray(quants.quantize(floats, qtype), dtype=np.uint8).reshape((-1, type_size)))
    except NotImplementedError:
        pass
    return np.concatenate(parts, axis=0)


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    sys.path.insert(0, sys.argv[1])
    from gguf import quants
    from gguf.constants import GGML_QUANT_SIZES, GGMLQuantizationType

    rng = np.random.default_rng(20260)
    names = list(F16_SCALES) + list(E8M0_SCALES)
    out = [b"TSDQ0001", struct.pack("<I", len(names))]
    for name in names:
        qtype = GGMLQuantizationType[name]
        block_size, type_size = GGML_QUANT_SIZES[qtype]
        with np.errstate(all="ignore"):
            blocks = blocks_for(name, qtype, quants, rng, block_size, type_size)
            values = quants.dequantize(blocks, qtype)
        values = np.ascontiguousarray(values, dtype=np.float32).reshape(-1)
        assert values.size == blocks.shape[0] * block_size
        out.append(struct.pack("<I", len(name)) + name.encode())
        out.append(struct.pack("<III", blocks.shape[0], type_size, block_size))
        out.append(blocks.tobytes())
        out.append(values.astype("<f4").tobytes())
    with open(sys.argv[2], "wb") as f:
        f.write(b"".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
