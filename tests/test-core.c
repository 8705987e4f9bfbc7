/* test-core.c: number conversions, permutation and generated tensors
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <fcntl.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utime.h>

#include "ts-arch.h"
#include "ts-le-private.h"
#include "ts-conversion-plan.h"
#include "ts-dtype.h"
#include "ts-error.h"
#include "ts-hf-tokenizer.h"
#include "ts-json-private.h"
#include "ts-model-file-private.h"
#include "ts-report.h"
#include "ts-sample.h"
#include "ts-test-bytes.h"
#include "ts-test-dir.h"

/* Expected bit patterns worked out by hand from IEEE 754. */
static void
test_f16 (void)
{
  g_assert_cmphex (ts_f32_to_f16 (1.0f), ==, 0x3c00);
  g_assert_cmphex (ts_f32_to_f16 (-2.0f), ==, 0xc000);
  g_assert_cmphex (ts_f32_to_f16 (65504.0f), ==, 0x7bff);
  g_assert_cmphex (ts_f32_to_f16 (65519.99f), ==, 0x7bff);   /* rounds down */
  g_assert_cmphex (ts_f32_to_f16 (65520.0f), ==, 0x7c00);    /* tie to even: Inf */
  g_assert_cmphex (ts_f32_to_f16 (-1e6f), ==, 0xfc00);
  g_assert_cmphex (ts_f32_to_f16 (ldexpf (1.0f, -24)), ==, 0x0001); /* smallest subnormal */
  g_assert_cmphex (ts_f32_to_f16 (ldexpf (1.0f, -25)), ==, 0x0000); /* tie to even: 0 */
  g_assert_cmphex (ts_f32_to_f16 (ldexpf (3.0f, -26)), ==, 0x0001); /* above the tie */
  g_assert_cmphex (ts_f32_to_f16 (-0.0f), ==, 0x8000);
  /* 1 + 2^-11 is halfway between 1 and 1 + 2^-10: even is 1 */
  g_assert_cmphex (ts_f32_to_f16 (1.0f + ldexpf (1.0f, -11)), ==, 0x3c00);
  g_assert_cmphex (ts_f32_to_f16 (1.0f + 3 * ldexpf (1.0f, -11)), ==, 0x3c02);
  g_assert_cmphex (ts_f32_to_f16 (INFINITY), ==, 0x7c00);
  /* NaN payload kept: the top mantissa bits move over */
  g_assert_cmphex (ts_f32_to_f16 (ts_f32_from_bits (0x7fc00000)), ==, 0x7e00);
  g_assert_cmphex (ts_f32_to_f16 (ts_f32_from_bits (0x7f800001)), ==, 0x7c01);
  for (guint32 h = 0; h < 0x10000; h++)
    if ((h & 0x7c00) != 0x7c00)
      g_assert_cmphex (ts_f32_to_f16 (ts_f16_to_f32 ((guint16) h)), ==, h);

  /* every F16 value decoded, one at a time and as a row (the vector loop
   * the audit reads F16 tensors with), to the bits of its definition:
   * (-1)^s 2^(e - 15) (1 + m / 1024), 2^-14 (m / 1024) for e = 0, and
   * infinity or the NaN of the same payload for e = 31 */
  {
    g_autofree guint8 *row = g_malloc (2 * 0x10000);
    g_autofree float *decoded = g_new (float, 0x10000);

    for (guint32 h = 0; h < 0x10000; h++)
      {
        row[2 * h] = h & 0xff;
        row[2 * h + 1] = h >> 8;
      }
    g_assert_true (ts_dtype_read_f32 (TS_DTYPE_F16, row, decoded, 0x10000));
    for (guint32 h = 0; h < 0x10000; h++)
      {
        guint32 e = (h >> 10) & 0x1f, m = h & 0x3ff;
        double magnitude = e == 0 ? ldexp (m, -24) : ldexp (1024 + m, (int) e - 25);
        guint32 want = e == 0x1f ? 0x7f800000u | (m << 13) : ts_f32_bits ((float) magnitude);

        want |= (h & 0x8000u) << 16;
        g_assert_cmphex (ts_f32_bits (decoded[h]), ==, want);
        g_assert_cmphex (ts_f32_bits (ts_f16_to_f32 ((guint16) h)), ==, want);
      }
  }
}

/* The F16 and BF16 encodings of @x by their definitions, in double
 * arithmetic: round to nearest, ties to even (nearbyint() in the default
 * rounding mode) at the format's precision, overflow to infinity; NaNs
 * keep their top payload bits (F16: a NaN still, BF16: made quiet) */
static guint16
f16_by_definition (float x)
{
  guint32 u = ts_f32_bits (x);
  guint16 sign = (u >> 16) & 0x8000;
  double ax = fabs ((double) x);

  if (isnan (x))
    {
      guint16 payload = (u >> 13) & 0x3ff;

      return sign | 0x7c00 | (payload != 0 ? payload : 1);
    }
  if (ax >= 65520.0)
    return sign | 0x7c00;
  if (ax < 0x1p-14)
    return sign | (guint16) nearbyint (ax * 0x1p24);
  {
    int e = ilogb (ax);
    double m = nearbyint (ldexp (ax, 10 - e));

    return sign | (guint16) (((e + 15) << 10) + ((guint32) m - 1024));
  }
}

static guint16
bf16_by_definition (float x)
{
  guint32 u = ts_f32_bits (x);
  guint16 sign = (u >> 16) & 0x8000;
  double ax = fabs ((double) x);

  if (isnan (x))
    return (u >> 16) | 0x40;
  if (isinf (x))
    return sign | 0x7f80;
  if (ax < 0x1p-126)
    return sign | (guint16) nearbyint (ldexp (ax, 133));
  {
    int e = ilogb (ax);
    double m = nearbyint (ldexp (ax, 7 - e));

    return sign | (guint16) (((e + 127) << 7) + ((guint32) m - 128));
  }
}

/* The encoders the converter and the audit use (ts_dtype_write_f32(), a
 * vector loop of branch-free code), against the definitions: every
 * sign, exponent and kept mantissa, each with the dropped bits that decide
 * the rounding (none, least, just under half, half, just over half, most)
 * and the scalar functions on the same values */
static void
test_encode_sweep (void)
{
  static const guint32 f16_low[] = { 0, 1, 0x7ff, 0xfff, 0x1000, 0x1001, 0x1800, 0x1fff };
  static const guint32 bf16_low[] = { 0, 1, 0x7fff, 0x8000, 0x8001, 0xc000, 0xffff };
  const gsize n = 1 << 16;
  g_autofree float *x = g_new (float, n);
  g_autofree guint8 *out = g_malloc (2 * n);
  guint64 n_checked = 0;

  /* F16: 2^19 sign, exponent and top-10 mantissa patterns, a row of 2^16 at
   * a time, for each choice of the 13 dropped bits */
  for (guint32 high = 0; high < (1u << 19); high += n)
    for (guint l = 0; l < G_N_ELEMENTS (f16_low); l++)
      {
        for (gsize i = 0; i < n; i++)
          x[i] = ts_f32_from_bits (((high + (guint32) i) << 13) | f16_low[l]);
        g_assert_true (ts_dtype_write_f32 (TS_DTYPE_F16, x, out, n));
        for (gsize i = 0; i < n; i++)
          {
            guint16 want = f16_by_definition (x[i]);

            if (ts_le_u16 (out + 2 * i) != want || ts_f32_to_f16 (x[i]) != want)
              g_error ("F16 of 0x%08x: row 0x%04x, scalar 0x%04x, defined 0x%04x",
                       ts_f32_bits (x[i]), ts_le_u16 (out + 2 * i), ts_f32_to_f16 (x[i]), want);
            n_checked++;
          }
      }

  /* BF16: all 2^16 top halves, each with the dropped halves of the list */
  for (guint l = 0; l < G_N_ELEMENTS (bf16_low); l++)
    {
      for (gsize i = 0; i < n; i++)
        x[i] = ts_f32_from_bits (((guint32) i << 16) | bf16_low[l]);
      g_assert_true (ts_dtype_write_f32 (TS_DTYPE_BF16, x, out, n));
      for (gsize i = 0; i < n; i++)
        {
          guint16 want = bf16_by_definition (x[i]);

          if (ts_le_u16 (out + 2 * i) != want || ts_f32_to_bf16 (x[i]) != want)
            g_error ("BF16 of 0x%08x: row 0x%04x, scalar 0x%04x, defined 0x%04x",
                     ts_f32_bits (x[i]), ts_le_u16 (out + 2 * i), ts_f32_to_bf16 (x[i]), want);
          n_checked++;
        }
    }
  g_test_message ("%" G_GUINT64_FORMAT " values encoded", n_checked);
  g_assert_cmpuint (n_checked, ==, (8u << 19) + 7u * 65536u);
}

static void
test_bf16 (void)
{
  g_assert_cmphex (ts_f32_to_bf16 (1.0f), ==, 0x3f80);
  /* 1 + 2^-8 is a tie: even stays 1.0; 1 + 3*2^-8 rounds up */
  g_assert_cmphex (ts_f32_to_bf16 (1.0f + ldexpf (1.0f, -8)), ==, 0x3f80);
  g_assert_cmphex (ts_f32_to_bf16 (1.0f + 3 * ldexpf (1.0f, -8)), ==, 0x3f82);
  g_assert_cmphex (ts_f32_to_bf16 (ts_f32_from_bits (0x7f7fffff)), ==, 0x7f80); /* max float -> Inf */
  /* a signalling NaN gains the quiet bit */
  g_assert_cmphex (ts_f32_to_bf16 (ts_f32_from_bits (0x7f810000)), ==, 0x7fc1);
  g_assert_cmphex (ts_f32_to_bf16 (ts_f32_from_bits (0xffc00001)), ==, 0xffc0);
  for (guint32 h = 0; h < 0x10000; h++)
    {
      guint16 back = ts_f32_to_bf16 (ts_bf16_to_f32 ((guint16) h));
      gboolean snan = (h & 0x7f80) == 0x7f80 && (h & 0x7f) != 0 && !(h & 0x40);

      g_assert_cmphex (back, ==, snan ? (h | 0x40) : h);
    }
}

static void
test_q8_0 (void)
{
  float x[32], y[32];
  guint8 q[34];

  for (guint i = 0; i < 32; i++)
    x[i] = (float) i - 15.5f;
  ts_quantize_q8_0_row (x, q, 32);
  /* d = 15.5 / 127 as F16 */
  g_assert_cmphex (q[0] | (q[1] << 8), ==, ts_f32_to_f16 (15.5f / 127.0f));
  g_assert_cmpint ((gint8) q[2], ==, -127);
  g_assert_cmpint ((gint8) q[33], ==, 127);
  ts_dequantize_q8_0_row (q, y, 32);
  for (guint i = 0; i < 32; i++)
    g_assert_cmpfloat (fabsf (y[i] - x[i]), <=, 15.5f / 127.0f);

  /* all zeros: d = 0, q = 0 */
  memset (x, 0, sizeof x);
  ts_quantize_q8_0_row (x, q, 32);
  for (guint i = 0; i < 34; i++)
    g_assert_cmpint (q[i], ==, 0);

  /* half away from zero: 0.5 * 127 / 127 -> 1 * (1/d) */
  for (guint i = 0; i < 32; i++)
    x[i] = i == 0 ? 127.0f : (i == 1 ? 0.5f : -0.5f);
  ts_quantize_q8_0_row (x, q, 32);
  g_assert_cmpint ((gint8) q[3], ==, 1);
  g_assert_cmpint ((gint8) q[4], ==, -1);
}

/* gguf-py's formula, written out again from SPEC §7 */
static void
reference_q8_0_block (const float *x,
                      guint8      *o)
{
  float amax = 0.0f, d, id;
  guint16 dh;

  for (guint i = 0; i < 32; i++)
    amax = fabsf (x[i]) > amax ? fabsf (x[i]) : amax;
  d = amax / 127.0f;
  id = d == 0.0f ? 0.0f : 1.0f / d;
  dh = ts_f32_to_f16 (d);
  o[0] = dh & 0xff;
  o[1] = dh >> 8;
  for (guint i = 0; i < 32; i++)
    {
      float v = x[i] * id, a = fabsf (v), fl = floorf (a);
      float b = fl + floorf (2.0f * (a - fl));

      o[2 + i] = (guint8) (gint8) (v < 0 ? -b : b);
    }
}

static void
test_q8_0_random (void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (7);

  for (guint n = 0; n < 200000; n++)
    {
      float x[32];
      guint8 got[34], want[34];
      float scale = ldexpf (1.0f, g_rand_int_range (rand, -140, 100));

      for (guint i = 0; i < 32; i++)
        {
          x[i] = (float) g_rand_double_range (rand, -1.0, 1.0) * scale;
          /* exact ties after scaling: k + 0.5 steps of d */
          if (n % 3 == 0)
            x[i] = (float) (g_rand_int_range (rand, -254, 255)) * 0.5f;
        }
      ts_quantize_q8_0_row (x, got, 32);
      reference_q8_0_block (x, want);
      g_assert_cmpmem (got, 34, want, 34);
    }
}

/* SPEC §7's worked example: dim 32, base 500000, factor 32, 1, 4, 8192 */
static void
test_rope_freqs (void)
{
  TsHfConfig config = { 0 };
  g_autofree float *f = NULL;
  guint n;

  config.head_dim = 32;
  config.rope_theta = 500000.0;
  config.rope_factor = 32.0;
  config.rope_low_freq_factor = 1.0;
  config.rope_high_freq_factor = 4.0;
  config.rope_original_context = 8192.0;
  f = ts_hf_config_compute_rope_freqs (&config, &n);
  g_assert_cmpuint (n, ==, 16);
  for (guint i = 0; i < 8; i++)
    g_assert_cmpfloat (f[i], ==, 1.0f);
  g_assert_cmphex (ts_f32_bits (f[8]), ==, 0x4052b46f);
  for (guint i = 9; i < 16; i++)
    g_assert_cmpfloat (f[i], ==, 32.0f);
}

static void
test_permutation (void)
{
  /* head size 8: new rows 0..7 take old rows 0,4,1,5,2,6,3,7 */
  static const guint64 expected[] = { 0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11, 15 };

  for (guint r = 0; r < G_N_ELEMENTS (expected); r++)
    g_assert_cmpuint (ts_permuted_source_row (r, 8), ==, expected[r]);
}

static void
test_dtype_table (void)
{
  guint64 size;

  g_assert_cmpint (ts_dtype_from_ggml (30), ==, TS_DTYPE_BF16);
  g_assert_cmpint (ts_dtype_from_ggml (8), ==, TS_DTYPE_Q8_0);
  g_assert_cmpint (ts_dtype_from_ggml (4), ==, TS_DTYPE_UNKNOWN);
  g_assert_cmpint (ts_dtype_from_safetensors_name ("F8_E4M3"), ==, TS_DTYPE_F8_E4M3);
  g_assert_true (ts_dtype_compute_size (TS_DTYPE_Q4_K, 512, &size));
  g_assert_cmpuint (size, ==, 288);
  g_assert_false (ts_dtype_compute_size (TS_DTYPE_Q8_0, 33, &size));
  g_assert_false (ts_dtype_compute_size (TS_DTYPE_F64, G_MAXUINT64 / 4, &size));
}

static void
test_format_count (void)
{
  g_autofree char *a = _ts_format_count (1459729952);
  g_autofree char *b = _ts_format_count (999);

  g_assert_cmpstr (a, ==, "1,459,729,952");
  g_assert_cmpstr (b, ==, "999");
}

/* metadata floats at their shortest, read back exactly, with a dot */
static void
test_format_float (void)
{
  static const struct { double value; gboolean single; const char *text; } cases[] = {
    { 0.9f, TRUE, "0.9" },
    { 0.6f, TRUE, "0.6" },
    { 500000.0f, TRUE, "500000" },
    { 1e-5f, TRUE, "1e-05" },
    { 1e11f, TRUE, "100000000000" },
    { 10000.0, FALSE, "10000" },
    { 0.0, FALSE, "0" },
    { -2.5, FALSE, "-2.5" },
  };
  /* just below powers of ten, where log10 rounds up */
  static const double tricky[] = { 999.9999999999999, 99.99999999999999, 0.0009999999999999998,
                                   999999999999999.5, 1e-45, 5e-324, 1.7976931348623157e308 };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *text = ts_format_float (cases[i].value, cases[i].single);

      g_assert_cmpstr (text, ==, cases[i].text);
    }
  for (guint i = 0; i < G_N_ELEMENTS (tricky); i++)
    {
      g_autofree char *text = ts_format_float (tricky[i], FALSE);

      g_assert_cmpfloat (g_ascii_strtod (text, NULL), ==, tricky[i]);
    }
}

/* the guard before json-glib: escapes it cannot keep are found, with where
 * they are; every other escape, a surrogate pair included, passes */
static void
test_json_escapes (void)
{
  static const struct { const char *json; TsJsonCheck check; gsize where; } cases[] = {
    { "{\"a\": \"x\\u0041\\n\\\"\\\\\"}", TS_JSON_OK, 0 },
    { "{\"a\": \"\\ud83d\\ude00\"}", TS_JSON_OK, 0 },              /* a pair: U+1F600 */
    { "{\"a\": \"\\uD83D\\uDE00\"}", TS_JSON_OK, 0 },
    { "{\"a\": \"\\\\u0000\"}", TS_JSON_OK, 0 },                  /* an escaped backslash, then text */
    { "{\"a\": \"<pad\\u0000>\"}", TS_JSON_UNKEPT_ESCAPE, 11 },
    { "{\"a\\u0000b\": 1}", TS_JSON_UNKEPT_ESCAPE, 3 },           /* in a key too */
    { "{\"a\": \"<\\ud800>\"}", TS_JSON_UNKEPT_ESCAPE, 8 },        /* a high half alone */
    { "{\"a\": \"\\ud800\\u0041\"}", TS_JSON_UNKEPT_ESCAPE, 7 },   /* followed by no low half */
    { "{\"a\": \"\\ud800\"}", TS_JSON_UNKEPT_ESCAPE, 7 },          /* at the string's end */
    { "{\"a\": \"\\udc00\"}", TS_JSON_UNKEPT_ESCAPE, 7 },          /* a low half alone */
    { "{\"a\": \"ok\", \"b\": [\"\\udfff\"]}", TS_JSON_UNKEPT_ESCAPE, 19 },
    { "{\"a\": \"\\ud800", TS_JSON_UNKEPT_ESCAPE, 7 },             /* cut short */
    /* one value, and nothing after it but white space */
    { " {} \n", TS_JSON_OK, 0 },
    { "{} {}", TS_JSON_TRAILING, 3 },
    { "[1]2", TS_JSON_TRAILING, 3 },
    { "1 2", TS_JSON_TRAILING, 2 },
    { "\"a\" x", TS_JSON_TRAILING, 4 },
    { "true", TS_JSON_OK, 0 },
  };
  /* integers json-glib reads right (G_MAXSIZE), and where the first one it
   * reads wrong is */
  static const struct { const char *json; gsize at; } integers[] = {
    { "{\"a\": 9223372036854775807}", G_MAXSIZE },
    { "{\"a\": -9223372036854775808}", G_MAXSIZE },
    { "{\"a\": 1e400, \"b\": 12345678901234567890.5}", G_MAXSIZE },   /* not integers */
    { "{\"a\": \"12345678901234567890\"}", G_MAXSIZE },              /* a string */
    { "{\"a\": 9223372036854775808}", 6 },
    { "{\"a\": -9223372036854775809}", 6 },
    { "[0, 1180591620717411303424, 1e99999]", 4 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      gsize where = 0;
      TsJsonCheck check = _ts_json_check (cases[i].json, strlen (cases[i].json), 100, &where, NULL);

      g_test_message ("%s", cases[i].json);
      g_assert_cmpint (check, ==, cases[i].check);
      if (check == TS_JSON_UNKEPT_ESCAPE)
        {
          g_assert_cmpuint (where, ==, cases[i].where);
          g_assert_cmpint (cases[i].json[where], ==, '\\');
        }
      if (check == TS_JSON_TRAILING)
        g_assert_cmpuint (where, ==, cases[i].where);
    }
  for (guint i = 0; i < G_N_ELEMENTS (integers); i++)
    {
      gsize large = 0;

      g_test_message ("%s", integers[i].json);
      g_assert_cmpint (_ts_json_scan (integers[i].json, strlen (integers[i].json), 100, NULL, NULL, NULL, &large),
                       ==, TS_JSON_OK);
      g_assert_cmpuint (large, ==, integers[i].at);
    }

  /* -0, which serde_json reads as a float, is found where asked for */
  {
    const char *json = "{\"shape\": [2, -0, -0.5, -0e1]}";
    gsize negative_zero = 0;

    g_assert_cmpint (_ts_json_scan (json, strlen (json), 100, NULL, NULL, &negative_zero, NULL), ==, TS_JSON_OK);
    g_assert_cmpuint (negative_zero, ==, 14);
  }
}

/* JSON's grammar, and where a fault is: the index of the token it has no
 * place for (or of the end), with what it wanted; numbers as JSON writes
 * them (json-glib reads 01, 1., .5 and 0x10; Python's json and serde_json
 * do not) */
static void
test_json_grammar (void)
{
  static const struct { const char *json; TsJsonCheck check; gsize where; TsJsonExpect expected; } cases[] = {
    { "{\"a\": [1, 2.5, -0.5e-3, 1E+9, true, false, null, \"x\", {}, []]}", TS_JSON_OK, 0, 0 },
    { "[]", TS_JSON_OK, 0, 0 },
    { " 0 ", TS_JSON_OK, 0, 0 },
    { "[\"__metadata__\": 1]", TS_JSON_SYNTAX, 15, TS_JSON_EXPECT_NEXT },   /* '[' for '{' */
    { "{\"a\":1,,\"b\":2}", TS_JSON_SYNTAX, 7, TS_JSON_EXPECT_KEY },
    { "{\"a\":1 \"b\":2}", TS_JSON_SYNTAX, 7, TS_JSON_EXPECT_NEXT },
    { "{\"a\" 1}", TS_JSON_SYNTAX, 5, TS_JSON_EXPECT_COLON },
    { "{1: 2}", TS_JSON_SYNTAX, 1, TS_JSON_EXPECT_KEY_OR_CLOSE },
    { "{\"a\": 1,}", TS_JSON_SYNTAX, 8, TS_JSON_EXPECT_KEY },
    { "[1,]", TS_JSON_SYNTAX, 3, TS_JSON_EXPECT_VALUE },
    { "[1}", TS_JSON_SYNTAX, 2, TS_JSON_EXPECT_NEXT },
    { "{\"a\": ]", TS_JSON_SYNTAX, 6, TS_JSON_EXPECT_VALUE },
    { "]", TS_JSON_SYNTAX, 0, TS_JSON_EXPECT_VALUE },
    { "{\"a\": tru}", TS_JSON_SYNTAX, 6, TS_JSON_EXPECT_LITERAL },
    { "{\"a\": 01}", TS_JSON_SYNTAX, 6, TS_JSON_EXPECT_LITERAL },
    { "{\"a\": 1.}", TS_JSON_SYNTAX, 6, TS_JSON_EXPECT_LITERAL },
    { "{\"a\": .5}", TS_JSON_SYNTAX, 6, TS_JSON_EXPECT_LITERAL },
    { "{\"a\": 0x10}", TS_JSON_SYNTAX, 6, TS_JSON_EXPECT_LITERAL },
    { "{\"a\": +1}", TS_JSON_SYNTAX, 6, TS_JSON_EXPECT_LITERAL },
    { "{\"a\": 1e}", TS_JSON_SYNTAX, 6, TS_JSON_EXPECT_LITERAL },
    { "{\"a\": -}", TS_JSON_SYNTAX, 6, TS_JSON_EXPECT_LITERAL },
    { "{\"a\": NaN}", TS_JSON_SYNTAX, 6, TS_JSON_EXPECT_LITERAL },
    { "{\"a\": 1", TS_JSON_SYNTAX, 7, TS_JSON_EXPECT_NEXT },                 /* the end, too soon */
    { "{\"a\": \"x", TS_JSON_SYNTAX, 8, TS_JSON_EXPECT_QUOTE },
    { "", TS_JSON_SYNTAX, 0, TS_JSON_EXPECT_VALUE },
    { "  ", TS_JSON_SYNTAX, 2, TS_JSON_EXPECT_VALUE },
    { "{\"a\": #}", TS_JSON_NOT_STRICT, 6, 0 },
    { "{'a': 1}", TS_JSON_NOT_STRICT, 1, 0 },
    /* after the value: a stray character is not a second value */
    { "{\"a\":1}}", TS_JSON_SYNTAX, 7, TS_JSON_EXPECT_END },
    { "{},", TS_JSON_SYNTAX, 2, TS_JSON_EXPECT_END },
    /* the first fault wins: an escape before it, or the fault before an escape */
    { "{\"a\":\"\\u0000\"} {}", TS_JSON_UNKEPT_ESCAPE, 6, 0 },
    { "{\"a\":\"\\u0000\", 'b':1}", TS_JSON_UNKEPT_ESCAPE, 6, 0 },
    { "{\"a\" \"\\u0000\"}", TS_JSON_SYNTAX, 5, TS_JSON_EXPECT_COLON },
    { "\xef\xbb\xbf{}", TS_JSON_NOT_STRICT, 0, 0 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      gsize where = 12345;
      TsJsonExpect expected = (TsJsonExpect) 99;
      gsize len = strlen (cases[i].json);
      TsJsonCheck check = _ts_json_check (cases[i].json, len, 100, &where, &expected);
      g_autofree char *text = NULL;

      g_test_message ("%s", cases[i].json);
      g_assert_cmpint (check, ==, cases[i].check);
      if (check == TS_JSON_OK)
        continue;
      g_assert_cmpuint (where, ==, cases[i].where);
      if (check == TS_JSON_SYNTAX)
        g_assert_cmpint (expected, ==, cases[i].expected);
      text = _ts_json_describe (check, cases[i].json, len, where, expected);
      g_test_message ("  %s", text);
      g_assert_true (text != NULL && *text != '\0');
    }

  /* nested 128 deep is JSON enough; 129 is not, at the 129th bracket */
  {
    g_autoptr(GString) deep = g_string_new (NULL);
    gsize where = 0;

    for (guint d = 0; d < TS_JSON_MAX_DEPTH; d++)
      g_string_append_c (deep, '[');
    for (guint d = 0; d < TS_JSON_MAX_DEPTH; d++)
      g_string_append_c (deep, ']');
    g_assert_cmpint (_ts_json_check (deep->str, deep->len, 1000, &where, NULL), ==, TS_JSON_OK);
    g_string_prepend_c (deep, '[');
    g_string_append_c (deep, ']');
    g_assert_cmpint (_ts_json_check (deep->str, deep->len, 1000, &where, NULL), ==, TS_JSON_TOO_DEEP);
    g_assert_cmpuint (where, ==, TS_JSON_MAX_DEPTH);
  }

  /* the messages say what was wanted and what was found */
  {
    const char *json = "{\"a\":1 \"b\":2}";
    gsize where = 0;
    TsJsonExpect expected = 0;
    g_autofree char *text = NULL;

    g_assert_cmpint (_ts_json_check (json, strlen (json), 100, &where, &expected), ==, TS_JSON_SYNTAX);
    text = _ts_json_describe (TS_JSON_SYNTAX, json, strlen (json), where, expected);
    g_assert_cmpstr (text, ==, "',' or the closing bracket expected, not a string");
  }
}

/* the built-in sample in @n_shards shards, at @path */
static void
write_sharded_sample (const char *path,
                      guint       n_shards)
{
  g_autoptr(GFile) dir = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  TsSampleOptions options;

  ts_sample_options_init (&options);
  options.n_shards = n_shards;
  g_assert_true (ts_sample_write (dir, &options, NULL, &error));
  g_assert_no_error (error);
}

/* a load that may fail (ts_test_load_model() asserts it does not) */
static TsModelFile *
load_path (const char  *path,
           GError     **error)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);

  return ts_model_file_load (file, NULL, error);
}

static gboolean
has_warning (TsModelFile *model,
             const char  *part,
             const char  *other)
{
  const char * const *warnings = ts_model_file_get_warnings (model);

  for (guint i = 0; warnings != NULL && warnings[i] != NULL; i++)
    if (strstr (warnings[i], part) != NULL && strstr (warnings[i], other) != NULL)
      return TRUE;
  return FALSE;
}

/* One shard of a checkpoint that cannot be read whole (a sibling gone, the
 * index broken) is read alone, with a warning that says why; a config.json
 * is said not to be a model */
static TsFilePart *
part_of (TsModelFile *model,
         guint        i)
{
  return g_list_model_get_item (ts_model_file_get_parts (model), i);
}

/* A part says whether the file at its path is still the one read: not
 * for a late notice of the change that made it, but for any change
 * since: its time, its bytes in place, another file renamed over it, and
 * the file gone */
static void
test_changed_on_disk (TsTestDir     *fx,
                      gconstpointer  data)
{
  g_autofree char *sample = g_build_filename (fx->dir, "sample", NULL);
  g_autofree char *shard1 = g_build_filename (sample, "model-00001-of-00002.safetensors", NULL);
  g_autofree char *shard2 = g_build_filename (sample, "model-00002-of-00002.safetensors", NULL);
  g_autofree char *copy = g_build_filename (sample, "copy.tmp", NULL);
  g_autofree char *contents = NULL;
  gsize len = 0;

  write_sharded_sample (sample, 2);
  g_assert_true (g_file_get_contents (shard2, &contents, &len, NULL));

  for (guint change = 0; change < 5; change++)
    {
      g_autoptr(TsModelFile) model = ts_test_load_model (shard1);
      g_autoptr(TsFilePart) part1 = part_of (model, 0);
      g_autoptr(TsFilePart) part2 = part_of (model, 1);

      g_assert_false (ts_file_part_changed_on_disk (part1));
      g_assert_false (ts_file_part_changed_on_disk (part2));
      /* past the clock's tick (the kernel's file times are coarse) */
      g_usleep (30000);
      switch (change)
        {
        case 0:   /* touched: another modification time */
          {
            struct utimbuf times = { 1000000000, 1000000000 };

            g_assert_cmpint (g_utime (shard2, &times), ==, 0);
          }
          break;
        case 1:   /* the same bytes written again in place (same size) */
          {
            int fd = g_open (shard2, O_WRONLY, 0);

            g_assert_cmpint (fd, >=, 0);
            g_assert_cmpint (write (fd, contents, 8), ==, 8);
            g_assert_cmpint (close (fd), ==, 0);
            /* a new time, whatever the clock's resolution */
            {
              struct utimbuf times = { 2000000000, 2000000000 };

              g_assert_cmpint (g_utime (shard2, &times), ==, 0);
            }
          }
          break;
        case 2:   /* written in place, its time set back as cp -p or rsync -t do */
          {
            struct stat st;
            struct timespec times[2];
            int fd;

            g_assert_cmpint (stat (shard2, &st), ==, 0);
            times[0] = st.st_atim;
            times[1] = st.st_mtim;   /* to the nanosecond: only the change time tells */
            fd = g_open (shard2, O_WRONLY, 0);
            g_assert_cmpint (fd, >=, 0);
            g_assert_cmpint (write (fd, contents, 8), ==, 8);
            g_assert_cmpint (close (fd), ==, 0);
            g_assert_cmpint (utimensat (AT_FDCWD, shard2, times, 0), ==, 0);
            g_assert_cmpint (stat (shard2, &st), ==, 0);
            g_assert_cmpint (st.st_mtim.tv_nsec, ==, times[1].tv_nsec);
          }
          break;
        case 3:   /* another file, the same bytes, renamed over it */
          g_assert_true (g_file_set_contents (copy, contents, len, NULL));
          g_assert_cmpint (g_rename (copy, shard2), ==, 0);
          break;
        default:  /* gone */
          g_assert_cmpint (g_unlink (shard2), ==, 0);
          break;
        }
      g_test_message ("change %u", change);
      g_assert_false (ts_file_part_changed_on_disk (part1));
      g_assert_true (ts_file_part_changed_on_disk (part2));
    }
}

static void
test_shard_alone (TsTestDir     *fx,
                  gconstpointer  data)
{
  g_autofree char *sample = g_build_filename (fx->dir, "sample", NULL);
  g_autofree char *shard1 = g_build_filename (sample, "model-00001-of-00002.safetensors", NULL);
  g_autofree char *shard2 = g_build_filename (sample, "model-00002-of-00002.safetensors", NULL);
  g_autofree char *index = g_build_filename (sample, "model.safetensors.index.json", NULL);
  g_autofree char *config = g_build_filename (sample, "config.json", NULL);
  g_autoptr(GError) error = NULL;

  write_sharded_sample (sample, 2);

  /* whole: both parts, no warning */
  {
    g_autoptr(TsModelFile) whole = ts_test_load_model (shard1);

    g_assert_cmpuint (g_list_model_get_n_items (ts_model_file_get_parts (whole)), ==, 2);
    g_assert_false (has_warning (whole, "read alone", ""));
  }

  /* a config.json */
  {
    g_autoptr(TsModelFile) model = load_path (config, &error);

    g_assert_null (model);
    g_assert_error (error, TS_FORMAT_ERROR, TS_FORMAT_ERROR_UNKNOWN_FORMAT);
    g_assert_nonnull (strstr (error->message, "config.json: a JSON file, not a model"));
    g_clear_error (&error);
  }

  /* the second shard gone */
  g_assert_cmpint (g_unlink (shard2), ==, 0);
  {
    g_autoptr(TsModelFile) alone = ts_test_load_model (shard1);

    g_assert_cmpuint (g_list_model_get_n_items (ts_model_file_get_parts (alone)), ==, 1);
    g_assert_true (has_warning (alone, "model-00001-of-00002.safetensors: read alone",
                                "model-00002-of-00002.safetensors, which is not in the folder"));
  }
  /* opened through the index, the folder is refused: a rule about its
   * files, with no byte offset to give */
  {
    g_autoptr(TsModelFile) model = load_path (index, &error);

    g_assert_null (model);
    g_assert_error (error, TS_FORMAT_ERROR, TS_FORMAT_ERROR_MISSING_SHARD);
    g_assert_cmpstr (error->message, ==, "model.safetensors.index.json: the index names the shard "
                                         "model-00002-of-00002.safetensors, which is not in the folder");
    g_clear_error (&error);
  }

  /* the index broken */
  g_assert_true (g_file_set_contents (index, "{\"weight_map\": {\"a\": 1,,}}", -1, &error));
  g_assert_no_error (error);
  {
    g_autoptr(TsModelFile) alone = ts_test_load_model (shard1);

    g_assert_true (has_warning (alone, "model-00001-of-00002.safetensors: read alone, as the "
                                "folder's index cannot be read",
                                "model.safetensors.index.json: byte 23: a string key expected, not ','"));
  }
  /* a rule of the index's content, which json-glib cannot place: no byte
   * offset, rather than a wrong one (it said "byte 0") */
  g_assert_true (g_file_set_contents (index, "{\"weight_map\": {\"a\": 1}}", -1, &error));
  g_assert_no_error (error);
  {
    g_autoptr(TsModelFile) model = load_path (index, &error);

    g_assert_null (model);
    g_assert_error (error, TS_FORMAT_ERROR, TS_FORMAT_ERROR_INVALID_INDEX);
    g_assert_cmpstr (error->message, ==, "model.safetensors.index.json: weight_map entry \"a\" "
                                         "is not a file name");
    g_clear_error (&error);
  }
}

/* A GGUF file cut off right after its fixed header is told where it ends,
 * inside the first metadata key, not blamed on its counts */
static void
test_gguf_cut_after_header (TsTestDir     *fx,
                            gconstpointer  data)
{
  g_autofree char *path = g_build_filename (fx->dir, "cut.gguf", NULL);
  guint8 header[24] = { 'G', 'G', 'U', 'F', 3, 0, 0, 0, 21, 0, 0, 0, 0, 0, 0, 0, 3 };
  g_autoptr(GError) error = NULL;
  g_autoptr(TsModelFile) model = NULL;

  g_assert_true (g_file_set_contents (path, (const char *) header, sizeof header, &error));
  model = load_path (path, &error);
  g_assert_null (model);
  g_assert_error (error, TS_FORMAT_ERROR, TS_FORMAT_ERROR_TRUNCATED);
  g_assert_cmpstr (error->message, ==, "cut.gguf: byte 24: the file ends inside the metadata key "
                   "(8 bytes needed, 0 left; truncated download?)");
}

static char *
load_error_message (const char *dir,
                    const char *name,
                    const char *contents,
                    gsize       len)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(TsModelFile) model = NULL;

  g_assert_true (g_file_set_contents (path, contents, (gssize) len, &error));
  model = load_path (path, &error);
  g_assert_null (model);
  g_assert_nonnull (error);
  return g_strdup (error->message);
}

/* Safetensors files cut short say how long they are and what is missing,
 * in the singular for one byte */
static void
test_safetensors_cut_messages (TsTestDir     *fx,
                               gconstpointer  data)
{
  static const char header[] = "{\"t\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[0,4]}}";
  guint64 len = GUINT64_TO_LE (sizeof header - 1);
  g_autoptr(GString) file = g_string_new_len ((const char *) &len, 8);
  g_autofree char *short_header = NULL;
  g_autofree char *five = NULL;
  g_autofree char *one_missing = NULL;

  g_string_append (file, header);
  g_string_append_len (file, "\1\2\3", 3);   /* one byte short of the tensor */
  one_missing = load_error_message (fx->dir, "one.safetensors", file->str, file->len);
  g_assert_cmpstr (one_missing, ==, "one.safetensors: byte 61: tensor 't' ends at byte 65 but the file "
                   "has 64 bytes (1 byte missing: truncated download?)");
  five = load_error_message (fx->dir, "five.safetensors", file->str, 5);
  g_assert_cmpstr (five, ==, "five.safetensors: byte 0: the file is 5 bytes long: it ends inside "
                   "the 8-byte header length");
  short_header = load_error_message (fx->dir, "short.safetensors", file->str, 20);
  g_assert_cmpstr (short_header, ==, "short.safetensors: byte 0: the first 8 bytes say the JSON header "
                   "is 53 bytes long, but only 12 bytes follow them (truncated download?)");
}

/* cells padded to terminal columns, not bytes */
static void
test_append_cell (void)
{
  static const struct { const char *text; int width; const char *expected; } cases[] = {
    { "BF16→F32", 10, "BF16→F32  " },          /* "→" is 3 bytes, 1 column */
    { "[string × 1024]", 17, "[string × 1024]  " },
    { "…", -3, "  …" },
    { "日本", 6, "日本  " },                    /* wide: 2 columns each */
    { "e\xcc\x81", 3, "e\xcc\x81  " },          /* a combining accent: none */
    { "toolong", 3, "toolong" },
    { "", -2, "  " },
    { "\xff\xfe", 4, "\xff\xfe  " },            /* not UTF-8: a column a byte */
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GString) out = g_string_new (NULL);

      ts_string_append_cell (out, cases[i].text, cases[i].width);
      g_assert_cmpstr (out->str, ==, cases[i].expected);
    }
}

/* a path that is not there: one short sentence, not GIO's with the path twice */
static void
test_missing_file (void)
{
  g_autoptr(GFile) file = g_file_new_for_path ("/nonexistent-folder-of-tensorscope/model.gguf");
  g_autoptr(GError) error = NULL;
  g_autoptr(TsModelFile) model = ts_model_file_load (file, NULL, &error);

  g_assert_null (model);
  g_assert_error (error, TS_FORMAT_ERROR, TS_FORMAT_ERROR_IO);
  g_assert_cmpstr (error->message, ==,
                   "model.gguf: there is no such file in /nonexistent-folder-of-tensorscope");
}

/* The streamed report is the tree's text, byte for byte, on models with
 * every kind of value: the CLI prints the stream, the fuzzers the tree. */
static void
check_report_stream (const char *path)
{
  g_autoptr(TsModelFile) model = ts_test_load_model (path);
  g_autoptr(JsonNode) tree = ts_report_inspect (model);
  g_autofree char *expected = ts_report_to_string (tree, TRUE);
  g_autoptr(GOutputStream) out = g_memory_output_stream_new_resizable ();
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;

  g_test_message ("%s", path);
  g_assert_true (ts_report_write_inspect (model, out, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (g_output_stream_write_all (out, "", 1, NULL, NULL, &error));
  g_assert_true (g_output_stream_close (out, NULL, &error));
  text = g_memory_output_stream_steal_data (G_MEMORY_OUTPUT_STREAM (out));
  g_assert_cmpstr (text, ==, expected);
}

static void
put_gguf_kv (GByteArray *out,
             const char *key,
             guint32     type)
{
  ts_test_put_str (out, key);
  ts_test_put_u32 (out, type);
}

static char *
write_report_gguf (const char *dir)
{
  static const guint32 u32s[] = { 7, 0, 4294967295u };
  g_autoptr(GByteArray) b = g_byte_array_new ();
  g_autoptr(GError) error = NULL;
  char *path = g_build_filename (dir, "values.gguf", NULL);
  guint64 n_tensors = 3000;
  double nan_value = NAN;
  float f = 0.1f;

  g_byte_array_append (b, (const guint8 *) "GGUF", 4);
  ts_test_put_u32 (b, 3);
  ts_test_put_u64 (b, n_tensors);
  ts_test_put_u64 (b, 9);
  put_gguf_kv (b, "general.architecture", 8);
  ts_test_put_str (b, "llama");
  put_gguf_kv (b, "controls \x7f \xc2\x9b \x1b[2J \xc3\xa9 \xf0\x9f\x98\x80", 8);
  ts_test_put_str (b, "\"quoted\" \\ \x01 \xe2\x80\xa8 <&>");
  put_gguf_kv (b, "u64.big", 10);
  ts_test_put_u64 (b, G_MAXUINT64);
  put_gguf_kv (b, "i8", 1);
  g_byte_array_append (b, (const guint8 *) "\xfe", 1);
  put_gguf_kv (b, "f32", 6);
  g_byte_array_append (b, (const guint8 *) &f, 4);
  put_gguf_kv (b, "f64.nan", 12);
  g_byte_array_append (b, (const guint8 *) &nan_value, 8);
  put_gguf_kv (b, "flag", 7);
  g_byte_array_append (b, (const guint8 *) "\1", 1);
  put_gguf_kv (b, "u32s", 9);               /* 3 items, all shown */
  ts_test_put_u32 (b, 4);
  ts_test_put_u64 (b, G_N_ELEMENTS (u32s));
  for (guint i = 0; i < G_N_ELEMENTS (u32s); i++)
    ts_test_put_u32 (b, u32s[i]);
  put_gguf_kv (b, "nested", 9);             /* [[], ["a"] x 11]: 8 shown */
  ts_test_put_u32 (b, 9);
  ts_test_put_u64 (b, 12);
  ts_test_put_u32 (b, 8);
  ts_test_put_u64 (b, 0);
  for (guint i = 0; i < 11; i++)
    {
      ts_test_put_u32 (b, 8);
      ts_test_put_u64 (b, 1);
      ts_test_put_str (b, "a");
    }
  for (guint64 i = 0; i < n_tensors; i++)
    {
      g_autofree char *name = g_strdup_printf ("blk.%" G_GUINT64_FORMAT ".\xc3\xa9\xc2\x85", i);

      ts_test_put_str (b, name);
      ts_test_put_u32 (b, 2);
      ts_test_put_u64 (b, 8);
      ts_test_put_u64 (b, 1);
      ts_test_put_u32 (b, 0);
      ts_test_put_u64 (b, 32 * i);
    }
  while (b->len % 32 != 0)
    g_byte_array_append (b, (const guint8 *) "", 1);
  g_byte_array_set_size (b, b->len + 32 * n_tensors);
  g_file_set_contents (path, (const char *) b->data, b->len, &error);
  g_assert_no_error (error);
  return path;
}

/* an unknown dtype, metadata and bytes after the last tensor: warnings */
static char *
write_report_safetensors (const char *dir)
{
  const char *json =
    "{\"__metadata__\":{\"format\":\"pt\",\"note\":\"\\u007f\\u0085\\u00e9\"},"
    "\"a\":{\"dtype\":\"XQ9\",\"shape\":[2],\"data_offsets\":[0,2]},"
    "\"b\":{\"dtype\":\"F32\",\"shape\":[],\"data_offsets\":[2,6]}}";
  g_autoptr(GByteArray) b = g_byte_array_new ();
  g_autoptr(GString) header = g_string_new (json);
  g_autoptr(GError) error = NULL;
  char *path = g_build_filename (dir, "warnings.safetensors", NULL);

  while (header->len % 8 != 0)
    g_string_append_c (header, ' ');
  ts_test_put_u64 (b, header->len);
  g_byte_array_append (b, (const guint8 *) header->str, header->len);
  g_byte_array_set_size (b, b->len + 6 + 3);
  g_file_set_contents (path, (const char *) b->data, b->len, &error);
  g_assert_no_error (error);
  return path;
}

static void
test_report_stream (TsTestDir     *fx,
                    gconstpointer  data)
{
  g_autofree char *sample = g_build_filename (fx->dir, "sample", NULL);
  g_autofree char *gguf = write_report_gguf (fx->dir);
  g_autofree char *st = write_report_safetensors (fx->dir);

  write_sharded_sample (sample, 3);

  check_report_stream (sample);
  check_report_stream (gguf);
  check_report_stream (st);
}

/* the plan's tokenizer.ggml.pre */
static char *
plan_pre (TsConversionPlan *plan)
{
  g_autoptr(GListModel) metadata = ts_conversion_plan_list_metadata (plan);

  for (guint i = 0; i < g_list_model_get_n_items (metadata); i++)
    {
      g_autoptr(TsMetadataEntry) e = g_list_model_get_item (metadata, i);

      if (g_str_equal (ts_metadata_entry_get_key (e), "tokenizer.ggml.pre"))
        return ts_metadata_entry_dup_string (e);
    }
  return NULL;
}

/* The plan refuses a tokenizer_pre llama.cpp does not know (it would not
 * load the file), and warns about a known one that is not the name the
 * tokenizer files give */
static void
test_plan_tokenizer_pre (TsTestDir     *fx,
                         gconstpointer  data)
{
  static const char * const refused[] = { "bogus", "", "LLAMA-BPE", "llama-bpe " };
  g_autofree char *sample = g_build_filename (fx->dir, "sample", NULL);
  g_autoptr(GFile) dir = g_file_new_for_path (sample);
  g_autoptr(GError) error = NULL;
  TsSampleOptions sample_options;

  ts_sample_options_init (&sample_options);
  g_assert_true (ts_sample_write (dir, &sample_options, NULL, &error));
  g_assert_no_error (error);

  for (guint i = 0; i < G_N_ELEMENTS (refused); i++)
    {
      g_autoptr(TsConversionPlan) plan = NULL;
      TsPlanOptions options;

      ts_plan_options_init (&options);
      options.tokenizer_pre = refused[i];
      plan = ts_conversion_plan_new (dir, &options, NULL, &error);
      g_assert_null (plan);
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
      g_assert_nonnull (strstr (error->message, "--tokenizer-pre help"));
      g_clear_error (&error);
      g_assert_false (ts_hf_tokenizer_check_pre (refused[i], NULL));
    }

  {
    static const struct { const char *pre; gboolean warned; } cases[] = {
      { NULL, FALSE }, { "llama-bpe", FALSE }, { "qwen2", TRUE }, { "smaug-bpe", TRUE },
    };

    for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
      {
        g_autoptr(TsConversionPlan) plan = NULL;
        g_autofree char *pre = NULL;
        gboolean warned = FALSE;
        TsPlanOptions options;

        ts_plan_options_init (&options);
        options.tokenizer_pre = cases[i].pre;
        plan = ts_conversion_plan_new (dir, &options, NULL, &error);
        g_assert_no_error (error);
        for (const char * const *w = ts_conversion_plan_get_warnings (plan); *w; w++)
          warned = warned || (strstr (*w, "tokenizer.ggml.pre") && strstr (*w, "\"llama-bpe\""));
        g_assert_cmpint (warned, ==, cases[i].warned);
        pre = plan_pre (plan);
        g_assert_cmpstr (pre, ==, cases[i].pre ? cases[i].pre : "llama-bpe");
      }
  }
}

/* The wizard names its target for the type chosen from the one plan it
 * has: that name is the one a plan for that type gives, "auto" included
 * (BF16 for the BF16 sample) */
static void
test_plan_default_names (TsTestDir     *fx,
                         gconstpointer  data)
{
  static const struct { TsOutType type; const char *suffix; } types[] = {
    { TS_OUTTYPE_AUTO, "-BF16.gguf" }, { TS_OUTTYPE_F32, "-F32.gguf" }, { TS_OUTTYPE_F16, "-F16.gguf" },
    { TS_OUTTYPE_BF16, "-BF16.gguf" }, { TS_OUTTYPE_Q8_0, "-Q8_0.gguf" },
  };
  g_autofree char *sample = g_build_filename (fx->dir, "sample", NULL);
  g_autoptr(GFile) dir = g_file_new_for_path (sample);
  g_autoptr(GError) error = NULL;
  g_autoptr(TsConversionPlan) plan_f32 = NULL;
  TsSampleOptions sample_options;
  TsPlanOptions options;

  ts_sample_options_init (&sample_options);
  g_assert_true (ts_sample_write (dir, &sample_options, NULL, &error));
  g_assert_no_error (error);
  ts_plan_options_init (&options);
  options.outtype = TS_OUTTYPE_F32;
  plan_f32 = ts_conversion_plan_new (dir, &options, NULL, &error);
  g_assert_no_error (error);

  for (guint i = 0; i < G_N_ELEMENTS (types); i++)
    {
      g_autoptr(TsConversionPlan) plan = NULL;
      g_autofree char *name = NULL;
      g_autofree char *name_for = NULL;

      options.outtype = types[i].type;
      plan = ts_conversion_plan_new (dir, &options, NULL, &error);
      g_assert_no_error (error);
      name = ts_conversion_plan_get_default_file_name (plan);
      name_for = ts_conversion_plan_get_default_file_name_for (plan_f32, types[i].type);
      g_assert_true (g_str_has_suffix (name, types[i].suffix));
      g_assert_cmpstr (name_for, ==, name);
    }
}

static void
build_counted (JsonBuilder *b,
               gpointer     item,
               guint        position,
               gpointer     user_data)
{
  guint *n_built = user_data;

  (*n_built)++;
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "name");
  json_builder_add_string_value (b, "an item of the list, some fifty bytes long");
  json_builder_end_object (b);
}

/* A writer whose stream has failed (a full disk) builds no more of a
 * list: it built all 100,000 items of one after its first write failed */
static void
test_report_stream_stops (void)
{
  guint8 room[4096];
  g_autoptr(GOutputStream) out = g_memory_output_stream_new (room, sizeof room, NULL, NULL);
  g_autoptr(GListStore) list = g_list_store_new (G_TYPE_OBJECT);
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(TsReportWriter) w = ts_report_writer_new (out, NULL);
  g_autoptr(GError) error = NULL;
  guint n_built = 0;

  for (guint i = 0; i < 100000; i++)
    {
      g_autoptr(GObject) item = g_object_new (G_TYPE_OBJECT, NULL);

      g_list_store_append (list, item);
    }
  ts_report_writer_begin_object (w, NULL);
  ts_report_writer_add_list (w, "items", G_LIST_MODEL (list), b, build_counted, &n_built);
  ts_report_writer_end_object (w);
  g_assert_false (ts_report_writer_finish (w, &error));
  g_assert_nonnull (error);
  g_test_message ("%u of 100,000 built: %s", n_built, error->message);
  g_assert_cmpuint (n_built, <, 10000);
}

/* Text that is not UTF-8 (a file name need not be) comes out valid, with
 * U+FFFD for the bad byte, from the helper and from a JSON report */
static void
test_utf8_take_valid (void)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *same = NULL;
  g_autofree char *fixed = NULL;
  g_autofree char *json = NULL;
  char *text = g_strdup ("Lama-mod\xc3\xa8le");

  same = ts_utf8_take_valid (text, -1);
  g_assert_true (same == text);
  g_assert_null (ts_utf8_take_valid (NULL, -1));
  fixed = ts_utf8_take_valid (g_strdup ("Lama\xff-3B"), -1);
  g_assert_cmpstr (fixed, ==, "Lama\xef\xbf\xbd-3B");

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "path");
  json_builder_add_string_value (b, "/models/bad\xff\xfe.gguf");
  json_builder_end_object (b);
  root = json_builder_get_root (b);
  json = ts_report_to_string (root, FALSE);
  g_assert_true (g_utf8_validate (json, -1, NULL));
  g_assert_nonnull (strstr (json, "bad\xef\xbf\xbd\xef\xbf\xbd.gguf"));
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/f16", test_f16);
  g_test_add_func ("/core/utf8-take-valid", test_utf8_take_valid);
  g_test_add_func ("/core/bf16", test_bf16);
  g_test_add_func ("/core/encode-sweep", test_encode_sweep);
  g_test_add_func ("/core/q8_0", test_q8_0);
  g_test_add_func ("/core/q8_0-random", test_q8_0_random);
  g_test_add_func ("/core/rope-freqs", test_rope_freqs);
  g_test_add_func ("/core/format-float", test_format_float);
  g_test_add_func ("/core/permutation", test_permutation);
  g_test_add_func ("/core/dtype-table", test_dtype_table);
  g_test_add_func ("/core/format-count", test_format_count);
  g_test_add_func ("/core/json-escapes", test_json_escapes);
  g_test_add_func ("/core/json-grammar", test_json_grammar);
  g_test_add_func ("/core/append-cell", test_append_cell);
  g_test_add_func ("/core/missing-file", test_missing_file);
  g_test_add_func ("/core/report-stream-stops", test_report_stream_stops);
  g_test_add ("/core/report-stream", TsTestDir, NULL, ts_test_dir_setup,
              test_report_stream, ts_test_dir_teardown);
  g_test_add ("/core/shard-alone", TsTestDir, NULL, ts_test_dir_setup,
              test_shard_alone, ts_test_dir_teardown);
  g_test_add ("/core/changed-on-disk", TsTestDir, NULL, ts_test_dir_setup,
              test_changed_on_disk, ts_test_dir_teardown);
  g_test_add ("/core/gguf-cut-after-header", TsTestDir, NULL, ts_test_dir_setup,
              test_gguf_cut_after_header, ts_test_dir_teardown);
  g_test_add ("/core/safetensors-cut-messages", TsTestDir, NULL, ts_test_dir_setup,
              test_safetensors_cut_messages, ts_test_dir_teardown);
  g_test_add ("/core/plan-tokenizer-pre", TsTestDir, NULL, ts_test_dir_setup,
              test_plan_tokenizer_pre, ts_test_dir_teardown);
  g_test_add ("/plan/default-names", TsTestDir, NULL, ts_test_dir_setup,
              test_plan_default_names, ts_test_dir_teardown);
  return g_test_run ();
}
