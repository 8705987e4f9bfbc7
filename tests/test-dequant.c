/* test-dequant.c: ggml's block types decoded as llama.cpp's gguf-py does
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The vectors come from tests/ref/dequant_vectors.py (llama.cpp's own
 * gguf-py, not our code); tests/check_dequant.py writes them and names the
 * file in TS_DEQUANT_VECTORS.
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "ts-dequant-private.h"
#include "ts-dtype.h"

typedef struct
{
  const guint8 *p;
  const guint8 *end;
} Reader;

static guint32
read_u32 (Reader *r)
{
  guint32 v;

  g_assert_cmpint (r->end - r->p, >=, 4);
  v = (guint32) r->p[0] | ((guint32) r->p[1] << 8) |
      ((guint32) r->p[2] << 16) | ((guint32) r->p[3] << 24);
  r->p += 4;
  return v;
}

static const guint8 *
read_bytes (Reader *r,
            gsize   n)
{
  const guint8 *p = r->p;

  g_assert_cmpuint ((gsize) (r->end - r->p), >=, n);
  r->p += n;
  return p;
}

/* Values of @out that are not gguf-py's (@values: little-endian float32),
 * compared as bits, except that a NaN matches any NaN. The payload of a NaN
 * is not part of the result: where a sum meets two NaNs (Q4_1's
 * NaN * q + NaN), IEEE 754 leaves open which one comes out, x86 returns its
 * first operand and a compiler may swap the operands of a commutative
 * operation, so ggml's own C, numpy and we may each keep a different one. */
static gsize
count_differences (const char   *name,
                   const float  *out,
                   const guint8 *values,
                   gsize         n,
                   gsize         block_size)
{
  gsize n_bad = 0, n_payloads = 0;

  for (gsize i = 0; i < n; i++)
    {
      const guint8 *v = values + 4 * i;
      guint32 want = (guint32) v[0] | ((guint32) v[1] << 8) |
                     ((guint32) v[2] << 16) | ((guint32) v[3] << 24);
      guint32 got = ts_f32_bits (out[i]);

      if (got != want && isnan (out[i]) && isnan (ts_f32_from_bits (want)))
        {
          if (n_payloads++ < 2)
            g_test_message ("%s: block %" G_GSIZE_FORMAT " value %" G_GSIZE_FORMAT
                            ": NaN 0x%08x, gguf-py's NaN 0x%08x",
                            name, i / block_size, i % block_size, got, want);
        }
      else if (got != want)
        {
          if (n_bad < 8)
            g_test_message ("%s: block %" G_GSIZE_FORMAT " value %" G_GSIZE_FORMAT
                            ": got 0x%08x (%g), gguf-py 0x%08x (%g)",
                            name, i / block_size, i % block_size,
                            got, out[i], want, ts_f32_from_bits (want));
          n_bad++;
        }
    }
  if (n_payloads > 0)
    g_test_message ("%s: %" G_GSIZE_FORMAT " NaNs with another payload than gguf-py's",
                    name, n_payloads);
  return n_bad;
}

/* One type's vectors: decoded from a buffer of exactly the input's size into
 * one of exactly the output's size (AddressSanitizer sees any read or write
 * beyond), every value compared with gguf-py's. */
static void
check_type (const char   *name,
            TsDType       dtype,
            const guint8 *blocks,
            const guint8 *values,
            gsize         n_blocks,
            gsize         block_size,
            gsize         type_size)
{
  gsize n = n_blocks * block_size;
  g_autofree guint8 *in = g_memdup2 (blocks, n_blocks * type_size);
  g_autofree float *out = g_new (float, n);
  gsize n_bad;

  g_assert_true (_ts_dequantize (dtype, in, out, n));
  n_bad = count_differences (name, out, values, n, block_size);
  g_test_message ("%s: %" G_GSIZE_FORMAT " blocks, %" G_GSIZE_FORMAT " values, %"
                  G_GSIZE_FORMAT " differ", name, n_blocks, n, n_bad);
  g_assert_cmpuint (n_bad, ==, 0);

  /* one block at a time, from the last: no state carried between blocks */
  memset (out, 0, n * sizeof (float));
  for (gsize b = n_blocks; b-- > 0;)
    g_assert_true (_ts_dequantize (dtype, in + b * type_size, out + b * block_size, block_size));
  g_assert_cmpuint (count_differences (name, out, values, n, block_size), ==, 0);
}

static void
test_vectors (void)
{
  const char *path = g_getenv ("TS_DEQUANT_VECTORS");
  g_autoptr(GError) error = NULL;
  g_autofree char *contents = NULL;
  gboolean seen[TS_DTYPE_N_TYPES] = { FALSE, };
  gsize length;
  guint32 n_types;
  Reader r;

  if (path == NULL)
    {
      g_test_message ("TS_DEQUANT_VECTORS is not set: run through tests/check_dequant.py");
      g_test_fail ();
      return;
    }
  g_file_get_contents (path, &contents, &length, &error);
  g_assert_no_error (error);
  r.p = (const guint8 *) contents;
  r.end = r.p + length;
  g_assert_cmpmem (read_bytes (&r, 8), 8, "TSDQ0001", 8);

  n_types = read_u32 (&r);
  g_assert_cmpuint (n_types, >, 0);
  for (guint32 t = 0; t < n_types; t++)
    {
      guint32 name_len = read_u32 (&r);
      g_autofree char *name = g_strndup ((const char *) read_bytes (&r, name_len), name_len);
      TsDType dtype = ts_dtype_from_name (name);
      const TsDTypeInfo *info = ts_dtype_get_info (dtype);
      guint32 n_blocks = read_u32 (&r);
      guint32 type_size = read_u32 (&r);
      guint32 block_size = read_u32 (&r);
      const guint8 *blocks, *values;

      g_assert_cmpint (dtype, !=, TS_DTYPE_UNKNOWN);
      g_assert_cmpuint (type_size, ==, info->type_size);
      g_assert_cmpuint (block_size, ==, info->block_size);
      g_assert_cmpuint (n_blocks, >=, 100);
      blocks = read_bytes (&r, (gsize) n_blocks * type_size);
      values = read_bytes (&r, (gsize) n_blocks * block_size * 4);
      g_assert_true (_ts_dequantize_supported (dtype));
      g_assert_false (seen[dtype]);
      seen[dtype] = TRUE;
      check_type (name, dtype, blocks, values, n_blocks, block_size, type_size);
    }
  g_assert_true (r.p == r.end);

  /* every type we claim to decode was checked against gguf-py */
  for (guint d = 0; d < TS_DTYPE_N_TYPES; d++)
    if (_ts_dequantize_supported (d) && !seen[d])
      {
        g_test_message ("%s is supported but has no reference vectors", ts_dtype_get_name (d));
        g_test_fail ();
      }
}

/* A type we do not decode: FALSE, and the output left as it was. */
static void
test_unsupported (void)
{
  static const TsDType types[] = {
    TS_DTYPE_Q8_K, TS_DTYPE_Q8_1, TS_DTYPE_F32, TS_DTYPE_UNKNOWN,
    TS_DTYPE_N_TYPES,
  };
  guint8 in[4096];
  float out[512];
  guint8 sentinel[sizeof out];

  memset (in, 0x3c, sizeof in);
  memset (out, 0xa5, sizeof out);
  memset (sentinel, 0xa5, sizeof sentinel);
  for (guint i = 0; i < G_N_ELEMENTS (types); i++)
    {
      g_test_message ("%s", ts_dtype_get_name (types[i]));
      g_assert_false (_ts_dequantize_supported (types[i]));
      g_assert_false (_ts_dequantize (types[i], in, out, 256));
      g_assert_cmpmem (out, sizeof out, sentinel, sizeof sentinel);
    }

  /* and a supported one writes: the check above can tell */
  g_assert_true (_ts_dequantize_supported (TS_DTYPE_Q4_0));
  g_assert_true (_ts_dequantize (TS_DTYPE_Q4_0, in, out, 256));
  g_assert_true (memcmp (out, sentinel, sizeof out) != 0);
}

/* Zero values: nothing read, nothing written. */
static void
test_empty (void)
{
  for (guint d = 0; d < TS_DTYPE_N_TYPES; d++)
    if (_ts_dequantize_supported (d))
      g_assert_true (_ts_dequantize (d, NULL, NULL, 0));
}

/* The resolution is the largest magnitude a block decodes to with its
 * scales at their smallest magnitude (f16 +-2^-24; MXFP4's E8M0 byte 0;
 * NVFP4's UE4M3 byte 1; IQ1_M's f16 spread over four words), whatever its other bytes: random blocks (with the seed, 20000 of each
 * type) reach it and never pass it. A minimum adds to a level when dmin or
 * m is negative. */
static void
test_resolution (void)
{
  static const struct
  {
    TsDType dtype;
    gint    scales[2];   /* byte offsets of the f16 scales, -1: none */
  } types[] = {
    { TS_DTYPE_Q4_0, { 0, -1 } },    { TS_DTYPE_Q4_1, { 0, 2 } },
    { TS_DTYPE_Q5_0, { 0, -1 } },    { TS_DTYPE_Q5_1, { 0, 2 } },
    { TS_DTYPE_Q8_0, { 0, -1 } },    { TS_DTYPE_Q2_K, { 80, 82 } },
    { TS_DTYPE_Q3_K, { 108, -1 } },  { TS_DTYPE_Q4_K, { 0, 2 } },
    { TS_DTYPE_Q5_K, { 0, 2 } },     { TS_DTYPE_Q6_K, { 208, -1 } },
    { TS_DTYPE_IQ4_NL, { 0, -1 } },  { TS_DTYPE_IQ4_XS, { 0, -1 } },
    { TS_DTYPE_TQ1_0, { 52, -1 } },  { TS_DTYPE_TQ2_0, { 64, -1 } },
    { TS_DTYPE_MXFP4, { -1, -1 } },  { TS_DTYPE_NVFP4, { -1, -1 } },
    { TS_DTYPE_IQ2_XXS, { 0, -1 } }, { TS_DTYPE_IQ2_XS, { 0, -1 } },
    { TS_DTYPE_IQ2_S, { 0, -1 } },   { TS_DTYPE_IQ3_XXS, { 0, -1 } },
    { TS_DTYPE_IQ3_S, { 0, -1 } },   { TS_DTYPE_IQ1_S, { 0, -1 } },
    { TS_DTYPE_IQ1_M, { -1, -1 } },  { TS_DTYPE_Q1_0, { 0, -1 } },
    { TS_DTYPE_Q2_0, { 0, -1 } },
  };
  g_autoptr(GRand) rand = g_rand_new_with_seed (29);
  guint n_supported = 0;

  for (guint d = 0; d < TS_DTYPE_N_TYPES; d++)
    n_supported += _ts_dequantize_supported (d);
  g_assert_cmpuint (n_supported, ==, G_N_ELEMENTS (types));
  g_assert_cmpfloat (_ts_dequantize_resolution (TS_DTYPE_Q8_K), ==, 0);
  g_assert_cmpfloat (_ts_dequantize_resolution (TS_DTYPE_F32), ==, 0);

  for (guint i = 0; i < G_N_ELEMENTS (types); i++)
    {
      const TsDTypeInfo *info = ts_dtype_get_info (types[i].dtype);
      double resolution = _ts_dequantize_resolution (types[i].dtype);
      guint8 block[256];
      float out[256];
      double largest = 0;

      g_test_message ("%s", info->name);
      g_assert_cmpfloat (resolution, >, 0);
      g_assert_cmpuint (info->type_size, <=, sizeof block);
      for (guint n = 0; n < 20000; n++)
        {
          for (guint b = 0; b < info->type_size; b++)
            block[b] = (guint8) g_rand_int_range (rand, 0, 256);
          for (guint k = 0; k < 2; k++)
            if (types[i].scales[k] >= 0)
              {
                block[types[i].scales[k]] = 1;
                block[types[i].scales[k] + 1] = g_rand_boolean (rand) ? 0x80 : 0;
              }
          if (types[i].dtype == TS_DTYPE_MXFP4)
            block[0] = 0;
          if (types[i].dtype == TS_DTYPE_NVFP4)   /* UE4M3 2^-9, bit 7 unread */
            for (guint k = 0; k < 4; k++)
              block[k] = g_rand_boolean (rand) ? 0x81 : 0x01;
          if (types[i].dtype == TS_DTYPE_IQ1_M)   /* d's nibbles atop 4 words */
            for (guint k = 0; k < 4; k++)
              block[49 + 2 * k] = (block[49 + 2 * k] & 0x0f) |
                                  (k == 0 ? 0x10 : k == 3 && g_rand_boolean (rand) ? 0x80 : 0);
          g_assert_true (_ts_dequantize (types[i].dtype, block, out, info->block_size));
          for (guint v = 0; v < info->block_size; v++)
            largest = MAX (largest, fabs (out[v]));
        }
      g_test_message ("largest %g of %g", largest, resolution);
      g_assert_cmpfloat (largest, ==, resolution);
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/dequant/vectors", test_vectors);
  g_test_add_func ("/dequant/unsupported", test_unsupported);
  g_test_add_func ("/dequant/empty", test_empty);
  g_test_add_func ("/dequant/resolution", test_resolution);
  return g_test_run ();
}
