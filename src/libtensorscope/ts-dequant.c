/* ts-dequant.c: ggml's block types decoded to float32
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Each kernel reads the block layout of ggml-common.h and rounds as ggml's
 * reference dequantize_row_*() in ggml-quants.c does: the same products are
 * formed in float32, in the same order (a scale times a sub-block scale
 * first, then times the quant, then the minimum subtracted), so that the
 * results are the same bits. The project builds with -ffp-contract=off: no
 * product is fused into a sum. Bytes are read one by one (little-endian,
 * any alignment).
 */

#include "config.h"

#include <string.h>

#include "ts-dequant-private.h"
#include "ts-vector-private.h"

static inline float
half_at (const guint8 *p)
{
  return ts_f16_to_f32 ((guint16) (p[0] | (p[1] << 8)));
}

static inline guint32
u32_at (const guint8 *p)
{
  return (guint32) p[0] | ((guint32) p[1] << 8) |
         ((guint32) p[2] << 16) | ((guint32) p[3] << 24);
}

/* ------------------------------------------------ 32-value blocks */

/* Q4_0: d (f16), 16 bytes of 4-bit quants: low nibbles are values 0-15,
 * high nibbles 16-31; value = (q - 8) * d */
TS_VECTOR_CLONES static void
dequant_q4_0 (const guint8 *restrict in,
              float        *restrict y,
              gsize                  nb)
{
  for (gsize b = 0; b < nb; b++, in += 18, y += 32)
    {
      const guint8 *qs = in + 2;
      float d = half_at (in);

      for (guint j = 0; j < 16; j++)
        {
          y[j] = (float) ((gint) (qs[j] & 0x0f) - 8) * d;
          y[j + 16] = (float) ((gint) (qs[j] >> 4) - 8) * d;
        }
    }
}

/* Q4_1: d, m (f16), 16 bytes of nibbles; value = q * d + m */
TS_VECTOR_CLONES static void
dequant_q4_1 (const guint8 *restrict in,
              float        *restrict y,
              gsize                  nb)
{
  for (gsize b = 0; b < nb; b++, in += 20, y += 32)
    {
      const guint8 *qs = in + 4;
      float d = half_at (in);
      float m = half_at (in + 2);

      for (guint j = 0; j < 16; j++)
        {
          y[j] = (float) (qs[j] & 0x0f) * d + m;
          y[j + 16] = (float) (qs[j] >> 4) * d + m;
        }
    }
}

/* Q5_0: d (f16), 32 fifth bits (bit i for value i), 16 bytes of nibbles;
 * value = (q - 16) * d */
TS_VECTOR_CLONES static void
dequant_q5_0 (const guint8 *restrict in,
              float        *restrict y,
              gsize                  nb)
{
  for (gsize b = 0; b < nb; b++, in += 22, y += 32)
    {
      const guint8 *qs = in + 6;
      float d = half_at (in);
      guint32 qh = u32_at (in + 2);

      for (guint j = 0; j < 16; j++)
        {
          gint q0 = (gint) ((qs[j] & 0x0fu) | (((qh >> j) & 1u) << 4));
          gint q1 = (gint) ((qs[j] >> 4) | (((qh >> (j + 16)) & 1u) << 4));

          y[j] = (float) (q0 - 16) * d;
          y[j + 16] = (float) (q1 - 16) * d;
        }
    }
}

/* Q5_1: d, m (f16), 32 fifth bits, 16 bytes of nibbles; value = q * d + m */
TS_VECTOR_CLONES static void
dequant_q5_1 (const guint8 *restrict in,
              float        *restrict y,
              gsize                  nb)
{
  for (gsize b = 0; b < nb; b++, in += 24, y += 32)
    {
      const guint8 *qs = in + 8;
      float d = half_at (in);
      float m = half_at (in + 2);
      guint32 qh = u32_at (in + 4);

      for (guint j = 0; j < 16; j++)
        {
          guint q0 = (qs[j] & 0x0fu) | (((qh >> j) & 1u) << 4);
          guint q1 = (qs[j] >> 4) | (((qh >> (j + 16)) & 1u) << 4);

          y[j] = (float) q0 * d + m;
          y[j + 16] = (float) q1 * d + m;
        }
    }
}

/* ------------------------------------------------------- dispatch */

gboolean
_ts_dequantize_supported (TsDType dtype)
{
  switch (dtype)
    {
    case TS_DTYPE_Q4_0: case TS_DTYPE_Q4_1: case TS_DTYPE_Q5_0:
    case TS_DTYPE_Q5_1: case TS_DTYPE_Q8_0:
      return TRUE;
    case TS_DTYPE_UNKNOWN: case TS_DTYPE_F32: case TS_DTYPE_F16:
    case TS_DTYPE_BF16: case TS_DTYPE_F64:
    case TS_DTYPE_I8: case TS_DTYPE_I16: case TS_DTYPE_I32: case TS_DTYPE_I64:
    case TS_DTYPE_U8: case TS_DTYPE_U16: case TS_DTYPE_U32: case TS_DTYPE_U64:
    case TS_DTYPE_BOOL: case TS_DTYPE_F8_E4M3: case TS_DTYPE_F8_E5M2:
    case TS_DTYPE_F8_E8M0: case TS_DTYPE_F4: case TS_DTYPE_F6_E2M3:
    case TS_DTYPE_F6_E3M2: case TS_DTYPE_Q8_1:
    case TS_DTYPE_Q2_K: case TS_DTYPE_Q3_K: case TS_DTYPE_Q4_K:
    case TS_DTYPE_Q5_K: case TS_DTYPE_Q6_K:
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

gboolean
_ts_dequantize (TsDType       dtype,
                const guint8 *in,
                float        *out,
                gsize         n)
{
  const TsDTypeInfo *info = ts_dtype_get_info (dtype);
  gsize nb;

  if (!_ts_dequantize_supported (dtype))
    return FALSE;
  g_return_val_if_fail (n % info->block_size == 0, FALSE);
  g_return_val_if_fail (n == 0 || (in != NULL && out != NULL), FALSE);

  nb = n / info->block_size;
  switch ((int) dtype)
    {
    case TS_DTYPE_Q4_0: dequant_q4_0 (in, out, nb); break;
    case TS_DTYPE_Q4_1: dequant_q4_1 (in, out, nb); break;
    case TS_DTYPE_Q5_0: dequant_q5_0 (in, out, nb); break;
    case TS_DTYPE_Q5_1: dequant_q5_1 (in, out, nb); break;
    case TS_DTYPE_Q8_0: ts_dequantize_q8_0_row (in, out, n); break;
    default: g_assert_not_reached ();
    }
  return TRUE;
}
