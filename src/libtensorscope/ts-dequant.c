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
 * type here, an f16 scale having 11 significant bits and a sub-block scale
 * and a quant or grid level at most 12 between them: only the sums with a
 * minimum round.) Bytes are read one by one (little-endian, any alignment).
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "ts-dequant-private.h"
#include "ts-iq-grids.h"
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

/* ------------------------------------------------ 1- and 2-bit types */

/* Q1_0: d (f16), 16 bytes of sign bits (bit j % 8 of byte j / 8 for value
 * j of 128); value = d where the bit is set, else -d */
TS_VECTOR_CLONES static void
dequant_q1_0 (const guint8 *restrict in,
              float        *restrict y,
              gsize                  nb)
{
  for (gsize b = 0; b < nb; b++, in += 18, y += 128)
    {
      guint32 d = ts_f32_bits (half_at (in));

      /* d or -d as ggml selects them, by the sign bit: a branch on
       * random bits ran 5 times slower */
      for (guint j = 0; j < 128; j++)
        y[j] = ts_f32_from_bits (d ^ ((~(guint32) in[2 + j / 8] >> (j % 8) & 1u) << 31));
    }
}

/* Q2_0: d (f16), 16 bytes of 2-bit quants (bits 2 (j % 4) of byte j / 4
 * for value j of 64); value = (q - 1) * d */
TS_VECTOR_CLONES static void
dequant_q2_0 (const guint8 *restrict in,
              float        *restrict y,
              gsize                  nb)
{
  for (gsize b = 0; b < nb; b++, in += 18, y += 64)
    {
      float d = half_at (in);

      for (guint j = 0; j < 64; j++)
        y[j] = (float) ((gint) ((in[2 + j / 4] >> (2 * (j % 4))) & 3u) - 1) * d;
    }
}

/* NVFP4: four unsigned E4M3 scales (one per 16 values), 32 bytes of nibbles
 * (per 16 values 8 bytes: low nibbles values 0-7, high 8-15) indexing the
 * doubled E2M1 values of MXFP4; value = level * (scale / 2) */

/* Half of an unsigned E4M3 scale, as ggml_ue4m3_to_fp32(): bit 7 is not
 * read; 0 and 0x7f (its NaN) give 0; exact */
static inline float
ue4m3_half (guint8 x)
{
  guint e = (x >> 3) & 0x0f, m = x & 7;

  if (x == 0 || x == 0x7f)
    return 0.0f;
  if (e == 0)
    return ldexpf ((float) m, -10);
  return ldexpf ((float) (8 + m), (int) e - 11);
}

TS_VECTOR_CLONES static void
dequant_nvfp4 (const guint8 *restrict in,
               float        *restrict y,
               gsize                  nb)
{
  for (gsize b = 0; b < nb; b++, in += 36)
    for (guint s = 0; s < 4; s++, y += 16)
      {
        const guint8 *qs = in + 4 + 8 * s;
        float d = ue4m3_half (in[s]);

        for (guint j = 0; j < 8; j++)
          {
            y[j] = (float) mxfp4_levels[qs[j] & 0x0f] * d;
            y[j + 8] = (float) mxfp4_levels[qs[j] >> 4] * d;
          }
      }
}

/* ------------------------------------- lattice types (IQ1, IQ2, IQ3) */

/* Each group of 8 (IQ1, IQ2) or 4 (IQ3) values is a point of a fixed grid
 * (ts-iq-grids.h, ggml's tables) times a sub-block scale, with a sign per
 * value (IQ2, IQ3) or a shift by +-1/8 (IQ1). A value is formed as ggml
 * forms it: scale * coordinate * (+-1), or scale * (coordinate + shift). */

/* Coordinate j of a point of a 3-level grid (2 bits each) */
#define LEVEL3(levels, point, j) ((float) (levels)[((point) >> (2 * (j))) & 3])
/* Coordinate j of a point of an 8-level grid (a nibble each) */
#define LEVEL8(levels, point, j) ((float) (levels)[((point) >> (4 * (j))) & 7])
/* The sign of value j under sign bits @signs: 1 or -1, exactly, as
 * arithmetic; a branch on random sign bits ran 4 to 5 times slower */
#define SIGN(signs, j) (1.0f - 2.0f * (float) (((signs) >> (j)) & 1))

/* ggml's ksigns_iq2xs: 7 stored sign bits, and an eighth that makes the
 * number of negative values even */
static inline guint
even_signs (guint32 bits)
{
  guint s = bits & 0x7f, p = s ^ (s >> 4);

  p ^= p >> 2;
  p ^= p >> 1;
  return s | ((p & 1) << 7);
}

/* 8 values of an IQ2 grid point */
static inline void
iq2_group (float         *restrict y,
           float                   db,
           const guint8           *levels,
           guint16                 point,
           guint                   signs)
{
  for (guint j = 0; j < 8; j++)
    y[j] = db * LEVEL3 (levels, point, j) * SIGN (signs, j);
}

/* The scale of an IQ2 sub-block: d (1/2 + s) / 4 */
static inline float
iq2_scale (float d,
           guint s)
{
  return d * (0.5f + (float) s) * 0.25f;
}

/* IQ2_XXS: d (f16), then per 32 values 8 bytes: 4 grid indices, and a
 * 32-bit word (LE) of 4 x 7 sign bits and a 4-bit scale on top */
TS_VECTOR_CLONES static void
dequant_iq2_xxs (const guint8 *restrict in,
                 float        *restrict y,
                 gsize                  nb)
{
  for (gsize b = 0; b < nb; b++, in += 66)
    {
      float d = half_at (in);

      for (guint ib = 0; ib < 8; ib++)
        {
          const guint8 *q = in + 2 + 8 * ib;
          guint32 aux = ts_le_u32 (q + 4);
          float db = iq2_scale (d, aux >> 28);

          for (guint l = 0; l < 4; l++, y += 8)
            iq2_group (y, db, iq2xxs_levels, iq2xxs_points[q[l]], even_signs (aux >> (7 * l)));
        }
    }
}

/* IQ2_XS: d (f16), 32 16-bit words (9-bit grid index, 7 sign bits), 8
 * bytes of two 4-bit scales (low: the first 16 values of 32) */
TS_VECTOR_CLONES static void
dequant_iq2_xs (const guint8 *restrict in,
                float        *restrict y,
                gsize                  nb)
{
  for (gsize b = 0; b < nb; b++, in += 74)
    {
      float d = half_at (in);

      for (guint ib = 0; ib < 8; ib++)
        {
          guint8 s = in[66 + ib];
          float db[2] = { iq2_scale (d, s & 0x0f), iq2_scale (d, s >> 4) };

          for (guint l = 0; l < 4; l++, y += 8)
            {
              guint16 q = ts_le_u16 (in + 2 + 2 * (4 * ib + l));

              iq2_group (y, db[l / 2], iq2xs_levels, iq2xs_points[q & 511], even_signs (q >> 9));
            }
        }
    }
}

/* IQ2_S: d (f16), 32 low bytes of 10-bit grid indices, 32 bytes of 8 sign
 * bits, 8 bytes of the indices' top bits (2 per group), 8 bytes of scales
 * as IQ2_XS's */
TS_VECTOR_CLONES static void
dequant_iq2_s (const guint8 *restrict in,
               float        *restrict y,
               gsize                  nb)
{
  for (gsize b = 0; b < nb; b++, in += 82)
    {
      float d = half_at (in);
      const guint8 *qs = in + 2, *signs = in + 34, *qh = in + 66, *scales = in + 74;

      for (guint ib = 0; ib < 8; ib++)
        {
          float db[2] = { iq2_scale (d, scales[ib] & 0x0f), iq2_scale (d, scales[ib] >> 4) };

          for (guint l = 0; l < 4; l++, y += 8)
            {
              guint idx = qs[4 * ib + l] | (((guint) qh[ib] << (8 - 2 * l)) & 0x300);

              iq2_group (y, db[l / 2], iq2s_levels, iq2s_points[idx], signs[4 * ib + l]);
            }
        }
    }
}

/* 8 values of two IQ3 grid points */
static inline void
iq3_group (float         *restrict y,
           float                   db,
           const guint8           *levels,
           guint16                 point1,
           guint16                 point2,
           guint                   signs)
{
  for (guint j = 0; j < 4; j++)
    {
      y[j] = db * LEVEL8 (levels, point1, j) * SIGN (signs, j);
      y[j + 4] = db * LEVEL8 (levels, point2, j) * SIGN (signs, j + 4);
    }
}

/* IQ3_XXS: d (f16), 64 grid indices (8 per 32 values), then per 32 values a
 * 32-bit word as IQ2_XXS's; the scale is d (1/2 + s) / 2 */
TS_VECTOR_CLONES static void
dequant_iq3_xxs (const guint8 *restrict in,
                 float        *restrict y,
                 gsize                  nb)
{
  for (gsize b = 0; b < nb; b++, in += 98)
    {
      float d = half_at (in);

      for (guint ib = 0; ib < 8; ib++)
        {
          const guint8 *q = in + 2 + 8 * ib;
          guint32 aux = ts_le_u32 (in + 66 + 4 * ib);
          float db = d * (0.5f + (float) (aux >> 28)) * 0.5f;

          for (guint l = 0; l < 4; l++, y += 8)
            iq3_group (y, db, iq3xxs_levels, iq3xxs_points[q[2 * l]], iq3xxs_points[q[2 * l + 1]],
                       even_signs (aux >> (7 * l)));
        }
    }
}

/* IQ3_S: d (f16), 64 low bytes of 9-bit grid indices, 8 bytes of their top
 * bits (one per index), 32 bytes of sign bits, 4 bytes of two 4-bit scales;
 * the scale is d (1 + 2 s) */
TS_VECTOR_CLONES static void
dequant_iq3_s (const guint8 *restrict in,
               float        *restrict y,
               gsize                  nb)
{
  for (gsize b = 0; b < nb; b++, in += 110)
    {
      float d = half_at (in);
      const guint8 *qs = in + 2, *qh = in + 66, *signs = in + 74, *scales = in + 106;

      for (guint ib = 0; ib < 8; ib++)
        {
          const guint8 *q = qs + 8 * ib;
          guint s = ib % 2 ? scales[ib / 2] >> 4 : scales[ib / 2] & 0x0f;
          float db = d * (float) (1 + 2 * s);
          guint h = qh[ib];

          for (guint l = 0; l < 4; l++, y += 8)
            iq3_group (y, db, iq3s_levels,
                       iq3s_points[q[2 * l] | ((h << (8 - 2 * l)) & 256)],
                       iq3s_points[q[2 * l + 1] | ((h << (7 - 2 * l)) & 256)],
                       signs[4 * ib + l]);
        }
    }
}

/* 8 values of an IQ1 grid point: dl (coordinate + delta), delta +-1/8 */
static inline void
iq1_group (float   *restrict y,
           float             dl,
           guint16           point,
           gboolean          negative)
{
  float delta = negative ? -0.125f : 0.125f;

  for (guint j = 0; j < 8; j++)
    y[j] = dl * (LEVEL3 (iq1s_levels, point, j) + delta);
}

/* IQ1_S: d (f16), 32 low bytes of 11-bit grid indices, then per 32 values
 * a 16-bit word: the indices' top bits (3 each), a 3-bit scale s (the
 * scale is d (2 s + 1)) and the sign of delta on top */
TS_VECTOR_CLONES static void
dequant_iq1_s (const guint8 *restrict in,
               float        *restrict y,
               gsize                  nb)
{
  for (gsize b = 0; b < nb; b++, in += 50)
    {
      float d = half_at (in);

      for (guint ib = 0; ib < 8; ib++)
        {
          guint h = ts_le_u16 (in + 34 + 2 * ib);
          float dl = d * (float) (2 * ((h >> 12) & 7) + 1);

          for (guint l = 0; l < 4; l++, y += 8)
            iq1_group (y, dl, iq1s_points[in[2 + 4 * ib + l] | (((h >> (3 * l)) & 7) << 8)],
                       (h & 0x8000) != 0);
        }
    }
}

/* IQ1_M: 32 low bytes of 11-bit grid indices, 16 bytes of a nibble per
 * group (the index's top 3 bits, the sign of delta), 4 16-bit words of 3-bit
 * scales (one per 16 values) whose top nibbles make d (f16) */
TS_VECTOR_CLONES static void
dequant_iq1_m (const guint8 *restrict in,
               float        *restrict y,
               gsize                  nb)
{
  for (gsize b = 0; b < nb; b++, in += 56)
    {
      const guint8 *qs = in, *qh = in + 32;
      guint sc[4];
      float d;

      for (guint k = 0; k < 4; k++)
        sc[k] = ts_le_u16 (in + 48 + 2 * k);
      d = ts_f16_to_f32 ((guint16) ((sc[0] >> 12) | ((sc[1] >> 8) & 0x00f0) |
                                    ((sc[2] >> 4) & 0x0f00) | (sc[3] & 0xf000)));

      for (guint ib = 0; ib < 8; ib++)
        {
          guint shift = 6 * (ib % 2);
          float dl[2] = {
            d * (float) (2 * ((sc[ib / 2] >> shift) & 7) + 1),
            d * (float) (2 * ((sc[ib / 2] >> (shift + 3)) & 7) + 1),
          };

          for (guint l = 0; l < 4; l++, y += 8)
            {
              guint nibble = qh[2 * ib + l / 2] >> (4 * (l % 2));

              iq1_group (y, dl[l / 2], iq1s_points[qs[4 * ib + l] | ((nibble & 7) << 8)],
                         (nibble & 8) != 0);
            }
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
    case TS_DTYPE_Q1_0:   return 0x1p-24 * 1;
    case TS_DTYPE_Q2_0:   return 0x1p-24 * 2;            /* q - 1 */
    case TS_DTYPE_NVFP4:  return 0x1p-10 * 12;           /* UE4M3 2^-9, halved */
    case TS_DTYPE_IQ2_XXS:                               /* d (1/2 + 15) / 4 x 43 */
    case TS_DTYPE_IQ2_XS:
    case TS_DTYPE_IQ2_S:  return 0x1p-24 * (15.5 / 4 * 43);
    case TS_DTYPE_IQ3_XXS: return 0x1p-24 * (15.5 / 2 * 62);
    case TS_DTYPE_IQ3_S:  return 0x1p-24 * (31 * 15);    /* d (1 + 2 15) x 15 */
    case TS_DTYPE_IQ1_S:                                 /* d (2 7 + 1) x (1 + 1/8) */
    case TS_DTYPE_IQ1_M:  return 0x1p-24 * (15 * 1.125);
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
    case TS_DTYPE_Q1_0: dequant_q1_0 (in, out, nb); break;
    case TS_DTYPE_Q2_0: dequant_q2_0 (in, out, nb); break;
    case TS_DTYPE_NVFP4: dequant_nvfp4 (in, out, nb); break;
    case TS_DTYPE_IQ2_XXS: dequant_iq2_xxs (in, out, nb); break;
    case TS_DTYPE_IQ2_XS: dequant_iq2_xs (in, out, nb); break;
    case TS_DTYPE_IQ2_S: dequant_iq2_s (in, out, nb); break;
    case TS_DTYPE_IQ3_XXS: dequant_iq3_xxs (in, out, nb); break;
    case TS_DTYPE_IQ3_S: dequant_iq3_s (in, out, nb); break;
    case TS_DTYPE_IQ1_S: dequant_iq1_s (in, out, nb); break;
    case TS_DTYPE_IQ1_M: dequant_iq1_m (in, out, nb); break;
    default: g_assert_not_reached ();
    }
  return TRUE;
}
