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
 * product is fused into a sum. (The products themselves are exact for every
 * type here, an f16 scale having 11 significant bits, a sub-block scale at
 * most 7 and a quant at most 5: only the sums with a minimum round.) Bytes are read one by one (little-endian,
 * any alignment).
 */

#include "config.h"

#include <string.h>

#include "ts-dequant-private.h"
#include "ts-le-private.h"
#include "ts-vector-private.h"

static inline float
half_at (const guint8 *p)
{
  return ts_f16_to_f32 (ts_le_u16 (p));
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
      guint32 qh = ts_le_u32 (in + 2);

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
      guint32 qh = ts_le_u32 (in + 4);

      for (guint j = 0; j < 16; j++)
        {
          guint q0 = (qs[j] & 0x0fu) | (((qh >> j) & 1u) << 4);
          guint q1 = (qs[j] >> 4) | (((qh >> (j + 16)) & 1u) << 4);

          y[j] = (float) q0 * d + m;
          y[j + 16] = (float) q1 * d + m;
        }
    }
}

/* ---------------------------------------------- 256-value K blocks */

/* Q2_K: 16 bytes of scales (low nibble: scale, high nibble: minimum of a
 * 16-value sub-block), 64 bytes of 2-bit quants, d, dmin (f16). Value o
 * takes bits 2 * (o / 32 % 4) of byte 32 * (o / 128) + o % 32;
 * value = (d * scale) * q - (dmin * min) */
TS_VECTOR_CLONES static void
dequant_q2_k (const guint8 *restrict in,
              float        *restrict y,
              gsize                  nb)
{
  for (gsize b = 0; b < nb; b++, in += 84, y += 256)
    {
      const guint8 *sc = in;
      float d = half_at (in + 80);
      float dmin = half_at (in + 82);
      float dl[16], ml[16];

      for (guint s = 0; s < 16; s++)
        {
          dl[s] = d * (float) (sc[s] & 0x0f);
          ml[s] = dmin * (float) (sc[s] >> 4);
        }
      for (guint o = 0; o < 256; o += 16)
        {
          const guint8 *q = in + 16 + 32 * (o / 128) + o % 32;
          guint shift = 2 * (o / 32 % 4);

          for (guint l = 0; l < 16; l++)
            y[o + l] = dl[o / 16] * (float) ((q[l] >> shift) & 3) - ml[o / 16];
        }
    }
}

/* Q3_K: 32 bytes of high bits (bit o / 32 of byte o % 32, set: no offset,
 * clear: minus 4), 64 bytes of low 2 bits (as Q2_K), 12 bytes of 16 6-bit
 * scales, d (f16); value = (d * (scale - 32)) * (q - offset) */
TS_VECTOR_CLONES static void
dequant_q3_k (const guint8 *restrict in,
              float        *restrict y,
              gsize                  nb)
{
  for (gsize b = 0; b < nb; b++, in += 110, y += 256)
    {
      const guint8 *hm = in;
      const guint8 *sc = in + 96;
      float d = half_at (in + 108);
      float dl[16];

      /* scale s: low 4 bits from the nibbles of bytes 0-7 (s < 8: low,
       * else high), high 2 bits from bytes 8-11 */
      for (guint s = 0; s < 16; s++)
        {
          guint lo = (sc[s % 8] >> (4 * (s / 8))) & 0x0fu;
          guint hi = (sc[8 + s % 4] >> (2 * (s / 4))) & 3u;

          dl[s] = d * (float) ((gint) (lo | (hi << 4)) - 32);
        }
      for (guint o = 0; o < 256; o += 16)
        {
          const guint8 *q = in + 32 + 32 * (o / 128) + o % 32;
          const guint8 *h = hm + o % 32;
          guint shift = 2 * (o / 32 % 4);
          guint bit = o / 32;

          for (guint l = 0; l < 16; l++)
            {
              gint v = (gint) ((q[l] >> shift) & 3) - (gint) ((((h[l] >> bit) & 1u) ^ 1u) << 2);

              y[o + l] = dl[o / 16] * (float) v;
            }
        }
    }
}

/* The 8 6-bit scales and minimums of Q4_K and Q5_K, packed in 12 bytes. */
static inline void
scale_min_k4 (const guint8 *p,
              guint         j,
              guint        *sc,
              guint        *m)
{
  if (j < 4)
    {
      *sc = p[j] & 63u;
      *m = p[j + 4] & 63u;
    }
  else
    {
      *sc = (p[j + 4] & 0x0fu) | ((guint) (p[j - 4] >> 6) << 4);
      *m = (guint) (p[j + 4] >> 4) | ((guint) (p[j] >> 6) << 4);
    }
}

/* The 8 sub-block scales of a Q4_K or Q5_K block: d (f16 at 0) times each
 * scale, dmin (f16 at 2) times each minimum (12 bytes at 4) */
static inline void
k4_scales (const guint8 *in,
           float        *dl,
           float        *ml)
{
  float d = half_at (in);
  float dmin = half_at (in + 2);

  for (guint s = 0; s < 8; s++)
    {
      guint sc, m;

      scale_min_k4 (in + 4, s, &sc, &m);
      dl[s] = d * (float) sc;
      ml[s] = dmin * (float) m;
    }
}

/* Q4_K: d, dmin (f16), 12 bytes of scales and minimums of 32-value
 * sub-blocks, 128 bytes of nibbles (64 values per 32 bytes: low nibbles,
 * then high); value = (d * scale) * q - (dmin * min) */
TS_VECTOR_CLONES static void
dequant_q4_k (const guint8 *restrict in,
              float        *restrict y,
              gsize                  nb)
{
  for (gsize b = 0; b < nb; b++, in += 144, y += 256)
    {
      float dl[8], ml[8];

      k4_scales (in, dl, ml);
      for (guint g = 0; g < 4; g++)
        {
          const guint8 *q = in + 16 + 32 * g;
          float *yg = y + 64 * g;

          for (guint l = 0; l < 32; l++)
            {
              yg[l] = dl[2 * g] * (float) (q[l] & 0x0f) - ml[2 * g];
              yg[l + 32] = dl[2 * g + 1] * (float) (q[l] >> 4) - ml[2 * g + 1];
            }
        }
    }
}

/* Q5_K: Q4_K with a fifth bit: bit o / 32 of byte o % 32 of 32 bytes
 * between the scales and the nibbles */
TS_VECTOR_CLONES static void
dequant_q5_k (const guint8 *restrict in,
              float        *restrict y,
              gsize                  nb)
{
  for (gsize b = 0; b < nb; b++, in += 176, y += 256)
    {
      const guint8 *qh = in + 16;
      float dl[8], ml[8];

      k4_scales (in, dl, ml);
      for (guint g = 0; g < 4; g++)
        {
          const guint8 *q = in + 48 + 32 * g;
          float *yg = y + 64 * g;

          for (guint l = 0; l < 32; l++)
            {
              guint q0 = (q[l] & 0x0fu) | (((qh[l] >> (2 * g)) & 1u) << 4);
              guint q1 = (guint) (q[l] >> 4) | (((qh[l] >> (2 * g + 1)) & 1u) << 4);

              yg[l] = dl[2 * g] * (float) q0 - ml[2 * g];
              yg[l + 32] = dl[2 * g + 1] * (float) q1 - ml[2 * g + 1];
            }
        }
    }
}

/* Q6_K: 128 bytes of low nibbles, 64 bytes of high 2 bits, 16 signed 8-bit
 * scales of 16-value sub-blocks, d (f16). In each half of 128 values, value
 * 32 * g + l: nibble g / 2 of byte 32 * (g % 2) + l of the half's 64 low
 * bytes, bits 2 * g of byte l of its 32 high bytes;
 * value = (d * scale) * (q - 32) */
TS_VECTOR_CLONES static void
dequant_q6_k (const guint8 *restrict in,
              float        *restrict y,
              gsize                  nb)
{
  for (gsize b = 0; b < nb; b++, in += 210, y += 256)
    {
      float d = half_at (in + 208);
      float dl[16];

      for (guint s = 0; s < 16; s++)
        dl[s] = d * (float) (gint8) in[192 + s];
      for (guint half = 0; half < 2; half++)
        {
          const guint8 *ql = in + 64 * half;
          const guint8 *qh = in + 128 + 32 * half;

          for (guint g = 0; g < 4; g++)
            {
              const guint8 *lo = ql + 32 * (g % 2);
              guint o = 128 * half + 32 * g;

              for (guint l = 0; l < 32; l++)
                {
                  guint q = ((guint) (lo[l] >> (4 * (g / 2))) & 0x0fu) |
                            (((guint) (qh[l] >> (2 * g)) & 3u) << 4);

                  y[o + l] = dl[(o + l) / 16] * (float) ((gint) q - 32);
                }
            }
        }
    }
}

/* ------------------------------------------ non-linear and ternary */

/* The 16 levels of IQ4_NL and IQ4_XS (ggml's kvalues_iq4nl) */
static const gint8 iq4nl_levels[16] = {
  -127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113,
};

/* IQ4_NL: d (f16), 16 bytes of nibbles (low: values 0-15, high: 16-31)
 * indexing the levels; value = d * level */
TS_VECTOR_CLONES static void
dequant_iq4_nl (const guint8 *restrict in,
                float        *restrict y,
                gsize                  nb)
{
  for (gsize b = 0; b < nb; b++, in += 18, y += 32)
    {
      const guint8 *qs = in + 2;
      float d = half_at (in);

      for (guint j = 0; j < 16; j++)
        {
          y[j] = d * (float) iq4nl_levels[qs[j] & 0x0f];
          y[j + 16] = d * (float) iq4nl_levels[qs[j] >> 4];
        }
    }
}

/* IQ4_XS: d (f16), the high 2 bits of 8 6-bit scales (16 bits LE), their
 * low nibbles (4 bytes), 8 sub-blocks of 32 values as IQ4_NL's nibbles;
 * value = (d * (scale - 32)) * level */
TS_VECTOR_CLONES static void
dequant_iq4_xs (const guint8 *restrict in,
                float        *restrict y,
                gsize                  nb)
{
  for (gsize b = 0; b < nb; b++, in += 136, y += 256)
    {
      float d = half_at (in);
      guint scales_h = (guint) in[2] | ((guint) in[3] << 8);

      for (guint s = 0; s < 8; s++)
        {
          const guint8 *qs = in + 8 + 16 * s;
          guint ls = ((guint) (in[4 + s / 2] >> (4 * (s % 2))) & 0x0fu) |
                     (((scales_h >> (2 * s)) & 3u) << 4);
          float dl = d * (float) ((gint) ls - 32);
          float *ys = y + 32 * s;

          for (guint j = 0; j < 16; j++)
            {
              ys[j] = dl * (float) iq4nl_levels[qs[j] & 0x0f];
              ys[j + 16] = dl * (float) iq4nl_levels[qs[j] >> 4];
            }
        }
    }
}

/* A base-3 digit of a TQ1_0 byte (a fixed-point fraction of 3^5): multiply
 * by 3^n modulo 256, then the top of three times that */
static inline gint
trit (guint8 byte,
      guint8 pow3)
{
  guint8 q = (guint8) (byte * pow3);

  return (gint) (((guint) q * 3u) >> 8) - 1;
}

/* TQ1_0: 48 bytes of 5 trits each (the first 32 bytes give values 0-159,
 * digit n of byte m being value 32 * n + m; the next 16 values 160-239,
 * likewise by 16), 4 bytes of 4 trits (values 240-255), d (f16);
 * value = (trit - 1) * d */
TS_VECTOR_CLONES static void
dequant_tq1_0 (const guint8 *restrict in,
               float        *restrict y,
               gsize                  nb)
{
  static const guint8 pow3[5] = { 1, 3, 9, 27, 81 };

  for (gsize b = 0; b < nb; b++, in += 54, y += 256)
    {
      float d = half_at (in + 52);

      for (guint n = 0; n < 5; n++)
        for (guint m = 0; m < 32; m++)
          y[32 * n + m] = (float) trit (in[m], pow3[n]) * d;
      for (guint n = 0; n < 5; n++)
        for (guint m = 0; m < 16; m++)
          y[160 + 16 * n + m] = (float) trit (in[32 + m], pow3[n]) * d;
      for (guint n = 0; n < 4; n++)
        for (guint m = 0; m < 4; m++)
          y[240 + 4 * n + m] = (float) trit (in[48 + m], pow3[n]) * d;
    }
}

/* TQ2_0: 64 bytes of 2-bit quants (as Q2_K's, without sub-block scales),
 * d (f16); value = (q - 1) * d */
TS_VECTOR_CLONES static void
dequant_tq2_0 (const guint8 *restrict in,
               float        *restrict y,
               gsize                  nb)
{
  for (gsize b = 0; b < nb; b++, in += 66, y += 256)
    {
      float d = half_at (in + 64);

      for (guint o = 0; o < 256; o += 32)
        {
          const guint8 *q = in + 32 * (o / 128);
          guint shift = 2 * (o / 32 % 4);

          for (guint l = 0; l < 32; l++)
            y[o + l] = (float) ((gint) ((q[l] >> shift) & 3u) - 1) * d;
        }
    }
}

/* E2M1 values doubled (ggml's kvalues_mxfp4) */
static const gint8 mxfp4_levels[16] = {
  0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12,
};

/* Half of an E8M0 scale (2^(e - 127) / 2), as ggml_e8m0_to_fp32_half():
 * exact, subnormal for e < 2, never NaN */
static inline float
e8m0_half (guint8 e)
{
  if (e < 2)
    return ts_f32_from_bits (0x00200000u << e);
  return ts_f32_from_bits ((guint32) (e - 1) << 23);
}

/* MXFP4: an E8M0 scale byte, 16 bytes of nibbles (low: values 0-15, high:
 * 16-31) indexing the doubled E2M1 values; value = level * (scale / 2) */
TS_VECTOR_CLONES static void
dequant_mxfp4 (const guint8 *restrict in,
               float        *restrict y,
               gsize                  nb)
{
  for (gsize b = 0; b < nb; b++, in += 17, y += 32)
    {
      const guint8 *qs = in + 1;
      float d = e8m0_half (in[0]);

      for (guint j = 0; j < 16; j++)
        {
          y[j] = (float) mxfp4_levels[qs[j] & 0x0f] * d;
          y[j + 16] = (float) mxfp4_levels[qs[j] >> 4] * d;
        }
    }
}

/* ------------------------------------------------------- dispatch */

double
_ts_dequantize_resolution (TsDType dtype)
{
  /* the largest |level| times the largest sub-block scale, plus the
   * largest minimum, in units of the block scale(s) */
  switch ((int) dtype)
    {
    case TS_DTYPE_Q4_0:   return 0x1p-24 * 8;            /* q - 8 */
    case TS_DTYPE_Q4_1:   return 0x1p-24 * (15 + 1);     /* q d + m */
    case TS_DTYPE_Q5_0:   return 0x1p-24 * 16;           /* q - 16 */
    case TS_DTYPE_Q5_1:   return 0x1p-24 * (31 + 1);
    case TS_DTYPE_Q8_0:   return 0x1p-24 * 128;
    case TS_DTYPE_Q2_K:   return 0x1p-24 * (15 * 3 + 15); /* 4-bit scales and minimums */
    case TS_DTYPE_Q3_K:   return 0x1p-24 * (32 * 4);     /* scale - 32, q - 4 */
    case TS_DTYPE_Q4_K:   return 0x1p-24 * (63 * 15 + 63); /* 6-bit scales and minimums */
    case TS_DTYPE_Q5_K:   return 0x1p-24 * (63 * 31 + 63);
    case TS_DTYPE_Q6_K:   return 0x1p-24 * (128 * 32);   /* 8-bit scales, q - 32 */
    case TS_DTYPE_IQ4_NL: return 0x1p-24 * 127;
    case TS_DTYPE_IQ4_XS: return 0x1p-24 * (32 * 127);   /* scale - 32 */
    case TS_DTYPE_TQ1_0:  return 0x1p-24 * 1;
    case TS_DTYPE_TQ2_0:  return 0x1p-24 * 2;            /* q - 1 */
    case TS_DTYPE_MXFP4:  return 0x1p-128 * 12;
    default:              return 0;
    }
}

gboolean
_ts_dequantize_supported (TsDType dtype)
{
  return _ts_dequantize_resolution (dtype) > 0;
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
    case TS_DTYPE_Q2_K: dequant_q2_k (in, out, nb); break;
    case TS_DTYPE_Q3_K: dequant_q3_k (in, out, nb); break;
    case TS_DTYPE_Q4_K: dequant_q4_k (in, out, nb); break;
    case TS_DTYPE_Q5_K: dequant_q5_k (in, out, nb); break;
    case TS_DTYPE_Q6_K: dequant_q6_k (in, out, nb); break;
    case TS_DTYPE_IQ4_NL: dequant_iq4_nl (in, out, nb); break;
    case TS_DTYPE_IQ4_XS: dequant_iq4_xs (in, out, nb); break;
    case TS_DTYPE_TQ1_0: dequant_tq1_0 (in, out, nb); break;
    case TS_DTYPE_TQ2_0: dequant_tq2_0 (in, out, nb); break;
    case TS_DTYPE_MXFP4: dequant_mxfp4 (in, out, nb); break;
    default: g_assert_not_reached ();
    }
  return TRUE;
}
