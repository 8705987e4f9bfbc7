"""Reference vectors for ggml's block types, from llama.cpp's own gguf-py.

usage: dequant_vectors.py GGUF_PY OUT [NODE_MODULES CACHE]

GGUF_PY is llama.cpp's gguf-py folder (its quants.py reproduces ggml's
dequantize_row_*() in numpy, bit for bit). For every type OUT gets blocks of
seeded random bytes, blocks whose scales are special (NaN, infinities,
subnormals, zeros, the extremes) and, where gguf-py can quantize the type,
blocks quantized from random floats; with them the float32 values gguf-py
decodes them to.  With NODE_MODULES (node-llama-cpp's; CACHE: where
llama_quantize.py keeps llama.cpp's source), the types gguf-py does not
decode (Q1_0, Q2_0) are decoded by ggml's own to_float, from node-llama-cpp's
prebuilt library.

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
    "IQ2_XXS": [0],
    "IQ2_XS": [0],
    "IQ2_S": [0],
    "IQ3_XXS": [0],
    "IQ3_S": [0],
    "IQ1_S": [0],
    # IQ1_M's f16 is the top nibbles of the 16-bit words at 48, 50, 52, 54
    "IQ1_M": ["iq1m"],
}
E8M0_SCALES = {"MXFP4": [0]}
# decoded by ggml's library, not gguf-py: (values, bytes) per block, and the
# f16 scales' offsets
GGML_ONLY = {"Q1_0": (128, 18, [0]), "Q2_0": (64, 18, [0])}
# NVFP4: an unsigned E4M3 scale per 16 values, bytes 0-3 (bit 7 unread;
# 0x7f is its NaN, decoded as 0)
UE4M3_SCALES = {"NVFP4": [0, 1, 2, 3]}

# f16 bit patterns: quiet and signalling NaNs of both signs, infinities,
# zeros, subnormals, the smallest normal, the largest finite, ordinary
SPECIAL_F16 = [0x7e00, 0x7c01, 0xfe00, 0xfd55, 0x7c00, 0xfc00, 0x0000, 0x8000,
               0x0001, 0x03ff, 0x8001, 0x0400, 0x7bff, 0xfbff, 0x3c00, 0x1400]
SPECIAL_E8M0 = [0, 1, 2, 3, 126, 127, 128, 200, 253, 254, 255]
SPECIAL_UE4M3 = [0x00, 0x01, 0x07, 0x08, 0x38, 0x7e, 0x7f, 0x80, 0x81, 0xfe, 0xff]


def put_scale(row, off, bits, width):
    """Writes a scale's bits at OFF (or, for "iq1m", into the top nibbles
    of IQ1_M's four 16-bit scale words)"""
    if off == "iq1m":
        for k in range(4):
            hi = 49 + 2 * k
            row[hi] = (row[hi] & 0x0f) | (((bits >> (4 * k)) & 0x0f) << 4)
        return
    row[off:off + width] = np.frombuffer(bits.to_bytes(width, "little"), dtype=np.uint8)

RANDOM_BLOCKS = 300
QUANTIZED_BLOCKS = 64


def blocks_for(name, qtype, quants, rng, block_size, type_size):
    parts = [rng.integers(0, 256, size=(RANDOM_BLOCKS, type_size), dtype=np.uint8)]

    if name in F16_SCALES or name in GGML_ONLY:
        offsets = F16_SCALES[name] if name in F16_SCALES else GGML_ONLY[name][2]
        specials, width = SPECIAL_F16, 2
    elif name in E8M0_SCALES:
        offsets, specials, width = E8M0_SCALES[name], SPECIAL_E8M0, 1
    else:
        offsets, specials, width = UE4M3_SCALES[name], SPECIAL_UE4M3, 1
    if len(offsets) <= 2:
        combos = list(itertools.product(specials, repeat=len(offsets)))
    else:  # every pair, repeated over the scales
        combos = [tuple((a, b)[k % 2] for k in range(len(offsets)))
                  for a, b in itertools.product(specials, repeat=2)]
    special = rng.integers(0, 256, size=(len(combos), type_size), dtype=np.uint8)
    for row, combo in zip(special, combos):
        for off, bits in zip(offsets, combo):
            put_scale(row, off, bits, width)
    parts.append(special)

    if quants is None:
        return np.concatenate(parts, axis=0)
    # realistic blocks: random floats of several magnitudes, quantized
    floats = rng.standard_normal((QUANTIZED_BLOCKS, block_size)).astype(np.float32)
    floats *= np.float32(10.0) ** rng.integers(-6, 4, size=(QUANTIZED_BLOCKS, 1)).astype(np.float32)
    try:
        parts.append(np.asarray(quants.quantize(floats, qtype), dtype=np.uint8).reshape((-1, type_size)))
    except NotImplementedError:
        pass
    return np.concatenate(parts, axis=0)


def main():
    if len(sys.argv) not in (3, 5):
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    sys.path.insert(0, sys.argv[1])
    from gguf import quants
    from gguf.constants import GGML_QUANT_SIZES, GGMLQuantizationType

    rng = np.random.default_rng(20260)
    names = list(F16_SCALES) + list(E8M0_SCALES) + list(UE4M3_SCALES)
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
    if len(sys.argv) == 5:
        import llama_quantize
        llama = llama_quantize.Llama.get(sys.argv[3], sys.argv[4])
        for name, (block_size, type_size, _) in GGML_ONLY.items():
            blocks = blocks_for(name, None, None, rng, block_size, type_size)
            values = llama.dequantize(blocks.tobytes(), name)
            assert values.size == blocks.shape[0] * block_size
            out.append(struct.pack("<I", len(name)) + name.encode())
            out.append(struct.pack("<III", blocks.shape[0], type_size, block_size))
            out.append(blocks.tobytes())
            out.append(values.astype("<f4").tobytes())
        out[1] = struct.pack("<I", len(names) + len(GGML_ONLY))
    with open(sys.argv[2], "wb") as f:
        f.write(b"".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
