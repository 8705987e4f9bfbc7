/* bench-dequant.c: how fast the audit decodes each GGUF block type to f32
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * For every type the audit decodes, _ts_dequantize() of 4 Mi values of
 * seeded random blocks (every bit pattern a file can hold, scales
 * included), the best of 7 rounds after a warm-up. The baselines, in the
 * same run and on the same output buffer: memcpy of the f32 output's size,
 * and F16 → F32 (the plainest decode). Prints values per second, input
 * bytes per second and the ratio of each type's time to F16's.
 *
 * Then the converter's encoders, ts_dtype_write_f32() of the same number
 * of float32 values (uniform in [-1, 1], as weights are, with one value in
 * 64 a random bit pattern: NaNs, infinities, subnormals), against memcpy of
 * the float32 input and F32 (a copy through the encoder).
 *
 *   bench-dequant [N_VALUES]
 */

#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ts-dequant-private.h"
#include "ts-dtype.h"

#define ROUNDS 7

typedef gboolean (*DecodeFunc) (TsDType       dtype,
                                const guint8 *in,
                                float        *out,
                                gsize         n);

static gboolean
copy_f32 (TsDType       dtype,
          const guint8 *in,
          float        *out,
          gsize         n)
{
  memcpy (out, in, n * sizeof (float));
  return TRUE;
}

/* F16 and BF16, as the audit reads them */
static gboolean
read_float (TsDType       dtype,
            const guint8 *in,
            float        *out,
            gsize         n)
{
  return ts_dtype_read_f32 (dtype, in, out, n);
}

/* The best of ROUNDS timed calls, in seconds */
static double
best_time (DecodeFunc    decode,
           TsDType       dtype,
           const guint8 *in,
           float        *out,
           gsize         n)
{
  double best = G_MAXDOUBLE;

  if (!decode (dtype, in, out, n))  /* warm-up, and a check */
    g_error ("%s: not decoded", ts_dtype_get_name (dtype));
  for (guint r = 0; r < ROUNDS; r++)
    {
      gint64 t0 = g_get_monotonic_time ();

      decode (dtype, in, out, n);
      best = MIN (best, (g_get_monotonic_time () - t0) / 1e6);
    }
  return best;
}

/* the encoders: the best of ROUNDS calls of ts_dtype_write_f32(), seconds */
static double
best_encode_time (TsDType      dtype,
                  const float *in,
                  guint8      *out,
                  gsize        n)
{
  double best = G_MAXDOUBLE;

  if (!ts_dtype_write_f32 (dtype, in, out, n))
    g_error ("%s: not encoded", ts_dtype_get_name (dtype));
  for (guint r = 0; r < ROUNDS; r++)
    {
      gint64 t0 = g_get_monotonic_time ();

      ts_dtype_write_f32 (dtype, in, out, n);
      best = MIN (best, (g_get_monotonic_time () - t0) / 1e6);
    }
  return best;
}

static guint8 *
random_bytes (GRand *rand,
              gsize  len)
{
  guint8 *bytes = g_malloc (len);

  for (gsize i = 0; i < len; i++)
    bytes[i] = (guint8) g_rand_int (rand);
  return bytes;
}

static void
encode (GRand        *rand,
        gsize         n,
        const guint8 *random_bits)
{
  static const TsDType types[] = { TS_DTYPE_F32, TS_DTYPE_F16, TS_DTYPE_BF16, TS_DTYPE_Q8_0 };
  g_autofree float *x = g_new (float, n);
  g_autofree guint8 *out = g_malloc (n * sizeof (float));
  double t_copy, t_f32 = 0;

  for (gsize i = 0; i < n; i++)
    if (g_rand_int_range (rand, 0, 64) == 0)
      memcpy (&x[i], random_bits + 4 * i, 4);
    else
      x[i] = (float) g_rand_double_range (rand, -1.0, 1.0);
  {
    gint64 t0;

    memcpy (out, x, n * sizeof (float));
    t_copy = G_MAXDOUBLE;
    for (guint r = 0; r < ROUNDS; r++)
      {
        t0 = g_get_monotonic_time ();
        memcpy (out, x, n * sizeof (float));
        t_copy = MIN (t_copy, (g_get_monotonic_time () - t0) / 1e6);
      }
  }

  printf ("\nencoding %zu float32 values (ts_dtype_write_f32), best of %d rounds\n", n, ROUNDS);
  printf ("%-9s %10s %10s %10s %12s\n", "type", "ms", "Mvalues/s", "out GB/s", "time / F32");
  printf ("%-9s %10.2f %10.0f %10.2f %12s\n", "memcpy", t_copy * 1e3, n / t_copy / 1e6,
          n * sizeof (float) / t_copy / 1e9, "");
  for (guint i = 0; i < G_N_ELEMENTS (types); i++)
    {
      const TsDTypeInfo *info = ts_dtype_get_info (types[i]);
      gsize out_len = n / info->block_size * info->type_size;
      double secs = best_encode_time (types[i], x, out, n);

      if (types[i] == TS_DTYPE_F32)
        t_f32 = secs;
      printf ("%-9s %10.2f %10.0f %10.2f %11.2fx\n", info->name, secs * 1e3, n / secs / 1e6,
              out_len / secs / 1e9, secs / t_f32);
    }
}

int
main (int   argc,
      char *argv[])
{
  gsize n = argc > 1 ? g_ascii_strtoull (argv[1], NULL, 10) : 4 * 1024 * 1024;
  g_autoptr(GRand) rand = g_rand_new_with_seed (20261201);
  g_autofree float *out = NULL;
  g_autofree guint8 *f32_in = NULL;
  double t_copy, t_f16 = 0;

  /* a multiple of every block size (256 at most) */
  n = MAX (n / 256, 1) * 256;
  out = g_new (float, n);
  f32_in = random_bytes (rand, n * sizeof (float));
  t_copy = best_time (copy_f32, TS_DTYPE_F32, f32_in, out, n);

  printf ("%zu values a call, best of %d rounds\n", n, ROUNDS);
  printf ("%-9s %10s %10s %10s %12s\n", "type", "ms", "Mvalues/s", "in GB/s", "time / F16");
  printf ("%-9s %10.2f %10.0f %10.2f %12s\n", "memcpy", t_copy * 1e3, n / t_copy / 1e6,
          n * sizeof (float) / t_copy / 1e9, "");

  /* F16 and BF16 first (F16 is the others' yardstick), then every block
   * type in ggml's order */
  for (guint i = 0; i < TS_DTYPE_N_TYPES; i++)
    {
      TsDType type = i == 0 ? TS_DTYPE_F16 : i == 1 ? TS_DTYPE_BF16 : (TsDType) i;
      const TsDTypeInfo *info = ts_dtype_get_info (type);
      gboolean is_float = i < 2;
      g_autofree guint8 *in = NULL;
      gsize in_len;
      double secs;

      if (!is_float && !_ts_dequantize_supported (type))
        continue;
      in_len = n / info->block_size * info->type_size;
      in = random_bytes (rand, in_len);
      secs = best_time (is_float ? read_float : _ts_dequantize, type, in, out, n);
      if (type == TS_DTYPE_F16)
        t_f16 = secs;
      printf ("%-9s %10.2f %10.0f %10.2f %11.2fx\n", info->name, secs * 1e3, n / secs / 1e6,
              in_len / secs / 1e9, secs / t_f16);
    }

  encode (rand, n, (const guint8 *) f32_in);

  return EXIT_SUCCESS;
}
