/* test-large.c: files over 4 GiB in the readers and the layout geometry
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Sparse files (a few hundred bytes on disk) whose tensors start and end
 * beyond 2^32 and 2^33 bytes: the readers' offsets and sizes, and the
 * layout's bands (exact byte ranges, proportional widths, hit-testing and
 * x-to-offset), must hold the full 64-bit values.
 */

#include "config.h"

#include "ts-test-bytes.h"
#include "ts-test-dir.h"

#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "tensorscope.h"

#define GiB (G_GUINT64_CONSTANT (1) << 30)

typedef TsTestDir Fixture;

/* Writes @head and makes the file @size bytes long with a hole. */
static char *
write_sparse (Fixture    *fx,
              const char *name,
              GByteArray *head,
              guint64     size)
{
  char *path = g_build_filename (fx->dir, name, NULL);
  g_autoptr(GError) error = NULL;

  g_file_set_contents (path, (const char *) head->data, head->len, &error);
  g_assert_no_error (error);
  g_assert_cmpint (truncate (path, (off_t) size), ==, 0);
  return path;
}

typedef struct
{
  const char *name;
  guint64     offset;   /* absolute */
  guint64     size;
} Expected;

static const TsLayoutBand *
tensor_band (TsLayout   *layout,
             const char *name)
{
  for (guint i = 0; i < ts_layout_get_n_bands (layout); i++)
    {
      const TsLayoutBand *b = ts_layout_get_band (layout, i);

      if (b->type == TS_LAYOUT_BAND_TENSOR && g_str_equal (ts_tensor_get_name (b->tensor), name))
        return b;
    }
  g_assert_not_reached ();
  return NULL;
}

/* Tensors and bands carry the exact ranges; a tensor's band is as wide as
 * its share of the file (allowing for the minimum width of tiny bands). */
static void
check_model (TsModelFile    *model,
             const Expected *want,
             guint           n,
             guint64         file_size)
{
  g_autoptr(TsLayout) layout = ts_layout_new (model);
  const TsLayoutBand *ref = NULL;
  double x0, x1;

  g_assert_cmpuint (ts_model_file_get_total_size (model), ==, file_size);
  ts_layout_allocate (layout, 1200);
  ts_layout_get_strip_extent (layout, &x0, &x1);
  g_assert_cmpuint (ts_layout_get_max_part_size (layout), ==, file_size);

  for (guint i = 0; i < n; i++)
    {
      TsTensor *t = ts_model_file_lookup_tensor (model, want[i].name);
      const TsLayoutBand *b = tensor_band (layout, want[i].name);
      double share = (double) want[i].size / (double) file_size * (x1 - x0);
      g_autofree char *desc = ts_layout_dup_band_description (layout, b);

      g_assert_nonnull (t);
      g_assert_cmpuint (ts_tensor_get_offset (t), ==, want[i].offset);
      g_assert_cmpuint (ts_tensor_get_size (t), ==, want[i].size);
      g_assert_cmpuint (b->offset, ==, want[i].offset);
      g_assert_cmpuint (b->length, ==, want[i].size);
      g_assert_nonnull (desc);
      if (share > 20)
        {
          guint64 mid;

          /* tiny bands are widened to stay visible, which takes a few
           * pixels from the big ones: within 5 % of the true share, and
           * the big bands in the exact ratio of their sizes */
          g_assert_cmpfloat_with_epsilon (b->width, share, share * 0.05);
          if (ref == NULL)
            ref = b;
          g_assert_cmpfloat_with_epsilon (b->width / ref->width,
                                          (double) b->length / (double) ref->length, 1e-3);
          /* the middle of the band maps back into the tensor */
          mid = ts_layout_x_to_offset (layout, b->x + b->width / 2);
          g_assert_cmpuint (mid, >=, want[i].offset);
          g_assert_cmpuint (mid, <, want[i].offset + want[i].size);
          g_assert_true (ts_layout_hit_test (layout, b->x + b->width / 2, b->y + b->height / 2) == b);
        }
    }
}

static void
test_safetensors (Fixture       *fx,
                  gconstpointer  data)
{
  /* data offsets: 4 GiB - 8 of U8, 4 F32 across 2^32, 8 GiB of BF16, 15 F64 */
  guint64 sizes[] = { 4 * GiB - 8, 16, 8 * GiB, 120 };
  const char *names[] = { "below_4g", "across_4g", "big_8g", "above_8g" };
  g_autofree char *json = g_strdup_printf (
    "{\"below_4g\":{\"dtype\":\"U8\",\"shape\":[%" G_GUINT64_FORMAT "],\"data_offsets\":[0,%" G_GUINT64_FORMAT "]},"
    "\"across_4g\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT "]},"
    "\"big_8g\":{\"dtype\":\"BF16\",\"shape\":[65536,65536],\"data_offsets\":[%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT "]},"
    "\"above_8g\":{\"dtype\":\"F64\",\"shape\":[3,5],\"data_offsets\":[%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT "]}}",
    sizes[0], sizes[0],
    sizes[0], sizes[0] + sizes[1],
    sizes[0] + sizes[1], sizes[0] + sizes[1] + sizes[2],
    sizes[0] + sizes[1] + sizes[2], sizes[0] + sizes[1] + sizes[2] + sizes[3]);
  g_autoptr(GByteArray) head = g_byte_array_new ();
  g_autoptr(GString) header = g_string_new (json);
  g_autoptr(TsModelFile) model = NULL;
  g_autofree char *path = NULL;
  Expected want[4];
  guint64 offset, total;

  while (header->len % 8 != 0)
    g_string_append_c (header, ' ');
  ts_test_put_u64 (head, header->len);
  g_byte_array_append (head, (const guint8 *) header->str, header->len);
  offset = 8 + header->len;
  for (guint i = 0; i < 4; i++)
    {
      want[i] = (Expected) { names[i], offset, sizes[i] };
      offset += sizes[i];
    }
  total = offset;
  path = write_sparse (fx, "large.safetensors", head, total);
  model = ts_test_load_model (path);
  g_assert_cmpuint (want[2].offset, >, G_GUINT64_CONSTANT (1) << 32);
  g_assert_cmpuint (want[3].offset, >, G_GUINT64_CONSTANT (1) << 33);
  check_model (model, want, 4, total);
}

static void
test_gguf (Fixture       *fx,
           gconstpointer  data)
{
  /* F16 [2^31 - 16]: 4 GiB - 32; F32 [64] across 2^32; F16 [2^32] 8 GiB; F32 [8] */
  struct { const char *name; guint64 ne; guint32 type; guint64 size; } ts[] = {
    { "token_embd.weight", (G_GUINT64_CONSTANT (1) << 31) - 16, 1, 4 * GiB - 32 },
    { "blk.0.attn_norm.weight", 64, 0, 256 },
    { "blk.0.attn_q.weight", G_GUINT64_CONSTANT (1) << 32, 1, 8 * GiB },
    { "output_norm.weight", 8, 0, 32 },
  };
  g_autoptr(GByteArray) head = g_byte_array_new ();
  g_autoptr(TsModelFile) model = NULL;
  g_autofree char *path = NULL;
  Expected want[4];
  guint64 rel = 0, data_start;

  g_byte_array_append (head, (const guint8 *) "GGUF", 4);
  ts_test_put_u32 (head, 3);
  ts_test_put_u64 (head, G_N_ELEMENTS (ts));
  ts_test_put_u64 (head, 1);
  ts_test_put_str (head, "general.architecture");
  ts_test_put_u32 (head, 8);
  ts_test_put_str (head, "llama");
  for (guint i = 0; i < G_N_ELEMENTS (ts); i++)
    {
      ts_test_put_str (head, ts[i].name);
      ts_test_put_u32 (head, 1);
      ts_test_put_u64 (head, ts[i].ne);
      ts_test_put_u32 (head, ts[i].type);
      ts_test_put_u64 (head, rel);
      rel += (ts[i].size + 31) / 32 * 32;
    }
  while (head->len % 32 != 0)
    g_byte_array_append (head, (const guint8 *) "", 1);
  data_start = head->len;
  rel = 0;
  for (guint i = 0; i < G_N_ELEMENTS (ts); i++)
    {
      want[i] = (Expected) { ts[i].name, data_start + rel, ts[i].size };
      rel += (ts[i].size + 31) / 32 * 32;
    }
  path = write_sparse (fx, "large.gguf", head, data_start + rel);
  model = ts_test_load_model (path);
  g_assert_cmpuint (want[2].offset, >, G_GUINT64_CONSTANT (1) << 32);
  g_assert_cmpuint (want[3].offset, >, G_GUINT64_CONSTANT (1) << 33);
  check_model (model, want, 4, data_start + rel);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add ("/large/safetensors", Fixture, NULL, ts_test_dir_setup, test_safetensors, ts_test_dir_teardown);
  g_test_add ("/large/gguf", Fixture, NULL, ts_test_dir_setup, test_gguf, ts_test_dir_teardown);

  return g_test_run ();
}
