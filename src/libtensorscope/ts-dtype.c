/* ts-dtype.c
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "ts-dtype.h"
#include "ts-le-private.h"
#include "ts-vector-private.h"

/* Block sizes and bytes per block follow ggml's type traits; sub-byte
 * Safetensors types are expressed as blocks of whole bytes. */
static const TsDTypeInfo dtype_infos[TS_DTYPE_N_TYPES] = {
  [TS_DTYPE_UNKNOWN]  = { "unknown",  0,   0,   -1, NULL },
  [TS_DTYPE_F32]      = { "F32",      1,   4,    0, "F32" },
  [TS_DTYPE_F16]      = { "F16",      1,   2,    1, "F16" },
  [TS_DTYPE_BF16]     = { "BF16",     1,   2,   30, "BF16" },
  [TS_DTYPE_F64]      = { "F64",      1,   8,   28, "F64" },
  [TS_DTYPE_I8]       = { "I8",       1,   1,   24, "I8" },
  [TS_DTYPE_I16]      = { "I16",      1,   2,   25, "I16" },
  [TS_DTYPE_I32]      = { "I32",      1,   4,   26, "I32" },
  [TS_DTYPE_I64]      = { "I64",      1,   8,   27, "I64" },
  [TS_DTYPE_U8]       = { "U8",       1,   1,   -1, "U8" },
  [TS_DTYPE_U16]      = { "U16",      1,   2,   -1, "U16" },
  [TS_DTYPE_U32]      = { "U32",      1,   4,   -1, "U32" },
  [TS_DTYPE_U64]      = { "U64",      1,   8,   -1, "U64" },
  [TS_DTYPE_BOOL]     = { "BOOL",     1,   1,   -1, "BOOL" },
  [TS_DTYPE_F8_E4M3]  = { "F8_E4M3",  1,   1,   -1, "F8_E4M3" },
  [TS_DTYPE_F8_E5M2]  = { "F8_E5M2",  1,   1,   -1, "F8_E5M2" },
  [TS_DTYPE_F8_E8M0]  = { "F8_E8M0",  1,   1,   -1, "F8_E8M0" },
  [TS_DTYPE_F4]       = { "F4",       2,   1,   -1, "F4" },
  [TS_DTYPE_F6_E2M3]  = { "F6_E2M3",  4,   3,   -1, "F6_E2M3" },
  [TS_DTYPE_F6_E3M2]  = { "F6_E3M2",  4,   3,   -1, "F6_E3M2" },
  [TS_DTYPE_Q4_0]     = { "Q4_0",     32,  18,   2, NULL },
  [TS_DTYPE_Q4_1]     = { "Q4_1",     32,  20,   3, NULL },
  [TS_DTYPE_Q5_0]     = { "Q5_0",     32,  22,   6, NULL },
  [TS_DTYPE_Q5_1]     = { "Q5_1",     32,  24,   7, NULL },
  [TS_DTYPE_Q8_0]     = { "Q8_0",     32,  34,   8, NULL },
  [TS_DTYPE_Q8_1]     = { "Q8_1",     32,  36,   9, NULL },
  [TS_DTYPE_Q2_K]     = { "Q2_K",     256, 84,  10, NULL },
  [TS_DTYPE_Q3_K]     = { "Q3_K",     256, 110, 11, NULL },
  [TS_DTYPE_Q4_K]     = { "Q4_K",     256, 144, 12, NULL },
  [TS_DTYPE_Q5_K]     = { "Q5_K",     256, 176, 13, NULL },
  [TS_DTYPE_Q6_K]     = { "Q6_K",     256, 210, 14, NULL },
  [TS_DTYPE_Q8_K]     = { "Q8_K",     256, 292, 15, NULL },
  [TS_DTYPE_IQ2_XXS]  = { "IQ2_XXS",  256, 66,  16, NULL },
  [TS_DTYPE_IQ2_XS]   = { "IQ2_XS",   256, 74,  17, NULL },
  [TS_DTYPE_IQ3_XXS]  = { "IQ3_XXS",  256, 98,  18, NULL },
  [TS_DTYPE_IQ1_S]    = { "IQ1_S",    256, 50,  19, NULL },
  [TS_DTYPE_IQ4_NL]   = { "IQ4_NL",   32,  18,  20, NULL },
  [TS_DTYPE_IQ3_S]    = { "IQ3_S",    256, 110, 21, NULL },
  [TS_DTYPE_IQ2_S]    = { "IQ2_S",    256, 82,  22, NULL },
  [TS_DTYPE_IQ4_XS]   = { "IQ4_XS",   256, 136, 23, NULL },
  [TS_DTYPE_IQ1_M]    = { "IQ1_M",    256, 56,  29, NULL },
  [TS_DTYPE_TQ1_0]    = { "TQ1_0",    256, 54,  34, NULL },
  [TS_DTYPE_TQ2_0]    = { "TQ2_0",    256, 66,  35, NULL },
  [TS_DTYPE_MXFP4]    = { "MXFP4",    32,  17,  39, NULL },
  [TS_DTYPE_NVFP4]    = { "NVFP4",    64,  36,  40, NULL },
  [TS_DTYPE_Q1_0]     = { "Q1_0",     128, 18,  41, NULL },
  [TS_DTYPE_Q2_0]     = { "Q2_0",     64,  18,  42, NULL },
};

const TsDTypeInfo *
ts_dtype_get_info (TsDType dtype)
{
  if ((guint) dtype >= TS_DTYPE_N_TYPES)
    dtype = TS_DTYPE_UNKNOWN;
  return &dtype_infos[dtype];
}

const char *
ts_dtype_get_name (TsDType dtype)
{
  return ts_dtype_get_info (dtype)->name;
}

TsDType
ts_dtype_from_ggml (guint32 ggml_type)
{
  for (guint i = 1; i < TS_DTYPE_N_TYPES; i++)
    if (dtype_infos[i].ggml_type >= 0 && (guint32) dtype_infos[i].ggml_type == ggml_type)
      return i;
  return TS_DTYPE_UNKNOWN;
}

TsDType
ts_dtype_from_safetensors_name (const char *name)
{
  g_return_val_if_fail (name != NULL, TS_DTYPE_UNKNOWN);

  for (guint i = 1; i < TS_DTYPE_N_TYPES; i++)
    if (dtype_infos[i].safetensors_name != NULL &&
        strcmp (dtype_infos[i].safetensors_name, name) == 0)
      return i;
  return TS_DTYPE_UNKNOWN;
}

TsDType
ts_dtype_from_name (const char *name)
{
  g_return_val_if_fail (name != NULL, TS_DTYPE_UNKNOWN);

  for (guint i = 1; i < TS_DTYPE_N_TYPES; i++)
    if (g_ascii_strcasecmp (dtype_infos[i].name, name) == 0)
      return i;
  return TS_DTYPE_UNKNOWN;
}

gboolean
ts_dtype_is_float (TsDType dtype)
{
  return dtype == TS_DTYPE_F32 || dtype == TS_DTYPE_F16 ||
         dtype == TS_DTYPE_BF16 || dtype == TS_DTYPE_F64;
}

/**
 * ts_dtype_compute_size:
 * @dtype: a known element type
 * @n_elements: element count
 * @out_size: (out): the byte size
 *
 * Returns: %FALSE if @dtype is unknown, @n_elements is not a whole number
 *   of blocks, or the size overflows 64 bits.
 */
gboolean
ts_dtype_compute_size (TsDType  dtype,
                       guint64  n_elements,
                       guint64 *out_size)
{
  const TsDTypeInfo *info = ts_dtype_get_info (dtype);

  if (info->block_size == 0 || n_elements % info->block_size != 0)
    return FALSE;
  return !__builtin_mul_overflow (n_elements / info->block_size,
                                  (guint64) info->type_size, out_size);
}

/* The encoders below choose among their cases with masks, not branches:
 * gcc keeps a loop of them in vector registers, and random bits cost no
 * mispredictions. A mask is all ones where @cond holds. */
static inline guint32
mask_if (gboolean cond)
{
  return 0u - (guint32) !!cond;
}

/* gguf-py: NaNs made quiet, then round-to-nearest-even on the bits (no
 * value but a NaN carries past 32 bits: the largest is -Inf, 0xff800000) */
static inline guint16
f32_to_bf16 (guint32 u)
{
  guint32 nan = mask_if ((u & 0x7fffffffu) > 0x7f800000u);
  guint32 quiet = (u >> 16) | 0x40u;
  guint32 rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;

  return (guint16) ((quiet & nan) | (rounded & ~nan));
}

guint16
ts_f32_to_bf16 (float f)
{
  return f32_to_bf16 (ts_f32_bits (f));
}

/* Exact, every payload kept, and without a branch, so that a loop of it
 * runs in vector registers: the exponent rebiased by 112, by 224 more for
 * infinities and NaNs; a subnormal m 2^-24 as (2^-14 + m 2^-24) - 2^-14,
 * both exact in float. */
static inline float
f16_to_f32 (guint16 h)
{
  guint32 sign = (guint32) (h & 0x8000u) << 16;
  guint32 bits = (guint32) (h & 0x7fffu) << 13;
  guint32 exp = bits & 0x0f800000u;
  guint32 normal = bits + (112u << 23);
  guint32 special = bits + (224u << 23);
  guint32 subnormal = ts_f32_bits (ts_f32_from_bits (normal + (1u << 23)) - 0x1p-14f);
  /* masks, not ?:, which gcc 12 left as branches */
  guint32 is_special = 0u - (guint32) (exp == 0x0f800000u);
  guint32 is_subnormal = 0u - (guint32) (exp == 0);

  return ts_f32_from_bits (sign | (special & is_special) | (subnormal & is_subnormal) |
                           (normal & ~(is_special | is_subnormal)));
}

float
ts_f16_to_f32 (guint16 h)
{
  return f16_to_f32 (h);
}

TS_VECTOR_CLONES static void
f16_row_to_f32 (const guint8 *restrict src,
                float        *restrict dst,
                gsize                   n)
{
  for (gsize i = 0; i < n; i++)
    dst[i] = f16_to_f32 (ts_le_u16 (src + 2 * i));
}

/* numpy's float32 -> float16 cast (what llama.cpp's converter uses):
 * round-to-nearest-even, overflow to infinity, subnormals kept, NaN
 * payload kept (its top 10 bits, and a NaN still: 0x7c01 where they are
 * all 0). A normal result rounds on the bits: 0xfff plus the kept bit's
 * parity carries exactly when the dropped 13 bits are above half, or at
 * half of an odd one; a carry out of the mantissa is the next power of
 * two, up to infinity. Below 2^-14, |x| + 1/2 in float arithmetic rounds
 * |x| to a multiple of 2^-24 (the ulp of 1/2), to nearest even, as the
 * subnormal result needs (in the default rounding mode, to nearest). */
static inline guint16
f32_to_f16 (guint32 f)
{
  guint32 sign = (f >> 16) & 0x8000u;
  guint32 a = f & 0x7fffffffu;
  guint32 payload = (a & 0x007fffffu) >> 13;
  guint32 nan_h = 0x7c00u | payload | (guint32) (payload == 0);
  guint32 normal = (a - (112u << 23) + 0xfffu + ((a >> 13) & 1u)) >> 13;
  guint32 subnormal = ts_f32_bits (ts_f32_from_bits (a) + 0.5f) - 0x3f000000u;
  guint32 is_nan = mask_if (a > 0x7f800000u);
  guint32 is_inf = mask_if (a >= 0x47800000u) & ~is_nan;
  guint32 is_sub = mask_if (a < 0x38800000u);
  guint32 is_normal = ~(is_nan | is_inf | is_sub);

  return (guint16) (sign | (nan_h & is_nan) | (0x7c00u & is_inf) |
                    (subnormal & is_sub) | (normal & is_normal));
}

guint16
ts_f32_to_f16 (float value)
{
  return f32_to_f16 (ts_f32_bits (value));
}

TS_VECTOR_CLONES static void
f32_row_to_f16 (const float *restrict x,
                guint8      *restrict out,
                gsize                 n)
{
  for (gsize i = 0; i < n; i++)
    {
      guint16 h = GUINT16_TO_LE (f32_to_f16 (ts_f32_bits (x[i])));

      memcpy (out + 2 * i, &h, 2);
    }
}

TS_VECTOR_CLONES static void
f32_row_to_bf16 (const float *restrict x,
                 guint8      *restrict out,
                 gsize                 n)
{
  for (gsize i = 0; i < n; i++)
    {
      guint16 h = GUINT16_TO_LE (f32_to_bf16 (ts_f32_bits (x[i])));

      memcpy (out + 2 * i, &h, 2);
    }
}

/**
 * ts_dtype_write_f32:
 * @dtype: F32, F16, BF16 or Q8_0
 * @x: @n float32 values
 * @out: (out): their encoding, little endian
 * @n: the number of values (a multiple of 32 for Q8_0)
 *
 * Encodes as llama.cpp's converter does (numpy's casts, gguf-py's BF16
 * and Q8_0). @x and @out must not overlap. Returns FALSE for other types.
 */
gboolean
ts_dtype_write_f32 (TsDType      dtype,
                    const float *x,
                    guint8      *out,
                    gsize        n)
{
  switch ((int) dtype)
    {
    case TS_DTYPE_F32:
      for (gsize i = 0; i < n; i++)
        {
          guint32 u = GUINT32_TO_LE (ts_f32_bits (x[i]));

          memcpy (out + 4 * i, &u, 4);
        }
      return TRUE;
    case TS_DTYPE_F16:
      f32_row_to_f16 (x, out, n);
      return TRUE;
    case TS_DTYPE_BF16:
      f32_row_to_bf16 (x, out, n);
      return TRUE;
    case TS_DTYPE_Q8_0:
      ts_quantize_q8_0_row (x, out, n);
      return TRUE;
    default:
      return FALSE;
    }
}

/* x86's float -> int32 conversion gives INT32_MIN for NaN and out-of-range
 * values; numpy's float32 -> int8 cast keeps the low byte of that. */
static inline gint8
to_int8_like_numpy (float q)
{
  gint32 v;

  if (isnan (q) || q >= 2147483648.0f || q < -2147483648.0f)
    v = G_MININT32;
  else
    v = (gint32) q;
  return (gint8) (guint8) ((guint32) v & 0xffu);
}

/* gguf-py's np_roundf: round half away from zero, in float32 */
static inline float
roundf_away (float n)
{
  float a = fabsf (n);
  float floored = floorf (a);
  float b = floored + floorf (2.0f * (a - floored));

  if (isnan (n))
    return n;
  if (n > 0.0f)
    return b;
  if (n < 0.0f)
    return -b;
  return 0.0f;
}

/* One Q8_0 block the way gguf-py computes it, for any input. */
static void
quantize_block_exact (const float *blk,
                      guint8      *o)
{
  float amax = 0.0f;
  float d, id;
  guint16 dh;

  for (guint i = 0; i < TS_Q8_0_BLOCK; i++)
    {
      float a = fabsf (blk[i]);

      if (isnan (a) || isnan (amax))
        amax = NAN;
      else if (a > amax)
        amax = a;
    }
  d = amax / 127.0f;
  id = (d == 0.0f) ? 0.0f : 1.0f / d;
  dh = ts_f32_to_f16 (d);
  o[0] = dh & 0xff;
  o[1] = dh >> 8;
  for (guint i = 0; i < TS_Q8_0_BLOCK; i++)
    o[2 + i] = (guint8) to_int8_like_numpy (roundf_away (blk[i] * id));
}

/* The common case, all values finite: |x * id| <= 127.5 so truncation to
 * int is exact and rounding half away from zero needs no libm call. Gives
 * the same bytes as quantize_block_exact(). */
static inline gboolean
quantize_block_finite (const float *blk,
                       guint8      *o)
{
  guint32 max_bits = 0;
  gint8 q[TS_Q8_0_BLOCK];
  float d, id;
  guint16 dh;

  /* No early exit and integer compares, so that both loops stay in vector
   * registers: without the sign, finite floats order like their bits, and
   * a NaN or an infinity is any bit pattern from 0x7f800000 up. */
  for (guint i = 0; i < TS_Q8_0_BLOCK; i++)
    {
      guint32 b = ts_f32_bits (blk[i]) & 0x7fffffffu;

      max_bits = b > max_bits ? b : max_bits;
    }
  if (max_bits >= 0x7f800000u)
    return FALSE;
  d = ts_f32_from_bits (max_bits) / 127.0f;
  id = (d == 0.0f) ? 0.0f : 1.0f / d;
  if (!(id <= G_MAXFLOAT))
    return FALSE;
  dh = ts_f32_to_f16 (d);
  o[0] = dh & 0xff;
  o[1] = dh >> 8;
  for (guint i = 0; i < TS_Q8_0_BLOCK; i++)
    {
      float v = blk[i] * id;
      gint32 t = (gint32) v;
      float frac = v - (float) t;

      t += (frac >= 0.5f) - (frac <= -0.5f);
      q[i] = (gint8) t;
    }
  memcpy (o + 2, q, sizeof q);
  return TRUE;
}

/* llama.cpp's converter's Q8_0 (gguf-py quants.py), bit for bit. */
TS_VECTOR_CLONES void
ts_quantize_q8_0_row (const float *x,
                      guint8      *out,
                      gsize        n)
{
  g_assert (n % TS_Q8_0_BLOCK == 0);

  for (gsize b = 0; b < n / TS_Q8_0_BLOCK; b++)
    if (!quantize_block_finite (x + b * TS_Q8_0_BLOCK, out + b * TS_Q8_0_BYTES))
      quantize_block_exact (x + b * TS_Q8_0_BLOCK, out + b * TS_Q8_0_BYTES);
}

/* restrict and clones: the compiler keeps the 32 products of a block in
 * vector registers (1.5 Gvalues/s without, as many as memcpy moves with) */
TS_VECTOR_CLONES static void
q8_0_to_f32 (const guint8 *restrict in,
             float        *restrict y,
             gsize                  nb)
{
  for (gsize b = 0; b < nb; b++, in += TS_Q8_0_BYTES, y += TS_Q8_0_BLOCK)
    {
      float d = f16_to_f32 (ts_le_u16 (in));

      for (guint i = 0; i < TS_Q8_0_BLOCK; i++)
        y[i] = d * (float) (gint8) in[2 + i];
    }
}

void
ts_dequantize_q8_0_row (const guint8 *in,
                        float        *y,
                        gsize         n)
{
  g_assert (n % TS_Q8_0_BLOCK == 0);

  q8_0_to_f32 (in, y, n / TS_Q8_0_BLOCK);
}

/* restrict: the compiler may keep this loop in vector registers without
 * checking for overlap first */
TS_VECTOR_CLONES static void
bf16_to_f32 (const guint8 *restrict src,
             float        *restrict dst,
             gsize                   n)
{
  for (gsize i = 0; i < n; i++)
    dst[i] = ts_bf16_to_f32 (ts_le_u16 (src + 2 * i));
}

gboolean
ts_dtype_read_f32 (TsDType       dtype,
                   const guint8 *src,
                   float        *dst,
                   gsize         n)
{
  switch (dtype)
    {
    case TS_DTYPE_F32:
      memcpy (dst, src, n * sizeof (float));
      return TRUE;
    case TS_DTYPE_BF16:
      bf16_to_f32 (src, dst, n);
      return TRUE;
    case TS_DTYPE_F16:
      f16_row_to_f32 (src, dst, n);
      return TRUE;
    case TS_DTYPE_F64:
      for (gsize i = 0; i < n; i++)
        {
          double d;

          memcpy (&d, src + 8 * i, sizeof d);
          dst[i] = (float) d;
        }
      return TRUE;
    case TS_DTYPE_UNKNOWN:
    case TS_DTYPE_I8: case TS_DTYPE_I16: case TS_DTYPE_I32: case TS_DTYPE_I64:
    case TS_DTYPE_U8: case TS_DTYPE_U16: case TS_DTYPE_U32: case TS_DTYPE_U64:
    case TS_DTYPE_BOOL: case TS_DTYPE_F8_E4M3: case TS_DTYPE_F8_E5M2:
    case TS_DTYPE_F8_E8M0: case TS_DTYPE_F4: case TS_DTYPE_F6_E2M3:
    case TS_DTYPE_F6_E3M2: case TS_DTYPE_Q4_0: case TS_DTYPE_Q4_1:
    case TS_DTYPE_Q5_0: case TS_DTYPE_Q5_1: case TS_DTYPE_Q8_0:
    case TS_DTYPE_Q8_1: case TS_DTYPE_Q2_K: case TS_DTYPE_Q3_K:
    case TS_DTYPE_Q4_K: case TS_DTYPE_Q5_K: case TS_DTYPE_Q6_K:
    case TS_DTYPE_Q8_K: case TS_DTYPE_IQ2_XXS: case TS_DTYPE_IQ2_XS:
    case TS_DTYPE_IQ3_XXS: case TS_DTYPE_IQ1_S: case TS_DTYPE_IQ4_NL:
    case TS_DTYPE_IQ3_S: case TS_DTYPE_IQ2_S: case TS_DTYPE_IQ4_XS:
    case TS_DTYPE_IQ1_M: case TS_DTYPE_TQ1_0: case TS_DTYPE_TQ2_0:
    case TS_DTYPE_MXFP4: case TS_DTYPE_NVFP4: case TS_DTYPE_Q1_0:
    case TS_DTYPE_Q2_0: case TS_DTYPE_N_TYPES:
    default:
      return FALSE;
    }
}
