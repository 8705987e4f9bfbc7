/* test-layout.c: TsLayout geometry, hit-testing and exports
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "ts-test-bytes.h"
#include "ts-test-dir.h"

#include <glib/gstdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tensorscope.h"

#define EPSILON 1e-6

/* ------------------------------------------------------------------------ */
/* Fixtures, written byte by byte                                            */

typedef struct
{
  const char *name;
  guint       n_dims;
  guint64     dims[2];
  guint32     type;      /* ggml: 0 F32, 1 F16 */
  guint64     size;
} GgufTensor;

/* A GGUF v3 file: 24-byte header, one metadata entry (45 bytes), the
 * descriptors, padding to 32, then the tensors (each a multiple of 32). */
static char *
write_gguf (const char       *dir,
            const GgufTensor *tensors,
            guint             n_tensors,
            guint64          *out_meta_end,
            guint64          *out_info_end,
            guint64          *out_data_start)
{
  g_autoptr(GByteArray) out = g_byte_array_new ();
  g_autofree char *path = g_build_filename (dir, "fixture.gguf", NULL);
  g_autoptr(GError) error = NULL;
  guint64 offset = 0;

  g_byte_array_append (out, (const guint8 *) "GGUF", 4);
  ts_test_put_u32 (out, 3);
  ts_test_put_u64 (out, n_tensors);
  ts_test_put_u64 (out, 1);
  ts_test_put_str (out, "general.architecture");
  ts_test_put_u32 (out, 8);
  ts_test_put_str (out, "llama");
  *out_meta_end = out->len;

  for (guint i = 0; i < n_tensors; i++)
    {
      ts_test_put_str (out, tensors[i].name);
      ts_test_put_u32 (out, tensors[i].n_dims);
      for (guint d = 0; d < tensors[i].n_dims; d++)
        ts_test_put_u64 (out, tensors[i].dims[d]);
      ts_test_put_u32 (out, tensors[i].type);
      ts_test_put_u64 (out, offset);
      offset += (tensors[i].size + 31) / 32 * 32;
    }
  *out_info_end = out->len;

  while (out->len % 32 != 0)
    g_byte_array_append (out, (const guint8 *) "", 1);
  *out_data_start = out->len;

  for (guint64 i = 0; i < offset; i++)
    {
      guint8 b = (guint8) (i * 7);
      g_byte_array_append (out, &b, 1);
    }

  g_file_set_contents (path, (const char *) out->data, out->len, &error);
  g_assert_no_error (error);
  return g_steal_pointer (&path);
}

static const GgufTensor small_gguf[] = {
  { "token_embd.weight",      2, { 8, 16 }, 0, 8 * 16 * 4 },
  { "blk.0.attn_q.weight",    2, { 8, 8 },  1, 8 * 8 * 2 },
  { "blk.0.attn_norm.weight", 1, { 8 },     0, 8 * 4 },
};

/* output.weight between two tensors of layer 0, as a shard order can put it */
static const GgufTensor split_layer_gguf[] = {
  { "blk.0.attn_q.weight",    2, { 16, 16 }, 0, 16 * 16 * 4 },
  { "output.weight",          2, { 16, 16 }, 0, 16 * 16 * 4 },
  { "blk.0.ffn_up.weight",    2, { 16, 16 }, 0, 16 * 16 * 4 },
};

/* one large tensor next to tiny sections: the minimum-width case */
static const GgufTensor big_gguf[] = {
  { "token_embd.weight",      2, { 1024, 512 }, 0, 1024 * 512 * 4 },
  { "blk.0.attn_norm.weight", 1, { 8 },         0, 8 * 4 },
  { "blk.0.ffn_up.weight",    2, { 8, 8 },      0, 8 * 8 * 4 },
  { "output_norm.weight",     1, { 8 },         0, 8 * 4 },
};

static const char *safetensors_json =
  "{\"__metadata__\":{\"format\":\"pt\"},"
  "\"model.embed_tokens.weight\":{\"dtype\":\"F32\",\"shape\":[4,2],\"data_offsets\":[0,32]},"
  "\"model.layers.0.self_attn.q_proj.weight\":{\"dtype\":\"BF16\",\"shape\":[4,4],\"data_offsets\":[32,64]},"
  "\"model.layers.0.mlp.down_proj.weight\":{\"dtype\":\"F16\",\"shape\":[2,4],\"data_offsets\":[64,80]},"
  "\"model.norm.weight\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[80,96]}}";

static char *
write_safetensors (const char *dir,
                   guint64    *out_header_len)
{
  g_autoptr(GByteArray) out = g_byte_array_new ();
  g_autofree char *path = g_build_filename (dir, "fixture.safetensors", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) json = g_string_new (safetensors_json);

  while (json->len % 8 != 0)
    g_string_append_c (json, ' ');
  *out_header_len = json->len;

  ts_test_put_u64 (out, json->len);
  g_byte_array_append (out, (const guint8 *) json->str, json->len);
  for (guint i = 0; i < 96; i++)
    {
      guint8 b = (guint8) i;
      g_byte_array_append (out, &b, 1);
    }

  g_file_set_contents (path, (const char *) out->data, out->len, &error);
  g_assert_no_error (error);
  return g_steal_pointer (&path);
}

typedef TsTestDir Fixture;

static TsModelFile *
load_small_gguf (Fixture *fx,
                 guint64 *meta_end,
                 guint64 *info_end,
                 guint64 *data_start)
{
  g_autofree char *path = write_gguf (fx->dir, small_gguf, G_N_ELEMENTS (small_gguf),
                                      meta_end, info_end, data_start);
  return ts_test_load_model (path);
}

static TsModelFile *
load_big_gguf (Fixture *fx)
{
  guint64 a, b, c;
  g_autofree char *path = write_gguf (fx->dir, big_gguf, G_N_ELEMENTS (big_gguf), &a, &b, &c);
  return ts_test_load_model (path);
}

/* ------------------------------------------------------------------------ */
/* Helpers                                                                   */

static const TsLayoutBand *
find_region (TsLayout     *layout,
             guint         part,
             TsRegionKind  kind)
{
  for (guint i = 0; i < ts_layout_get_n_bands (layout); i++)
    {
      const TsLayoutBand *b = ts_layout_get_band (layout, i);
      if (b->type == TS_LAYOUT_BAND_REGION && b->part == part && b->kind == kind)
        return b;
    }
  return NULL;
}

static const TsLayoutBand *
find_tensor_band (TsLayout   *layout,
                  const char *name)
{
  for (guint i = 0; i < ts_layout_get_n_bands (layout); i++)
    {
      const TsLayoutBand *b = ts_layout_get_band (layout, i);
      if (b->type == TS_LAYOUT_BAND_TENSOR && g_str_equal (ts_tensor_get_name (b->tensor), name))
        return b;
    }
  return NULL;
}

/* Visible region bands of each strip are contiguous in x, start at the
 * strip's left edge, and tensor bands tile their data region exactly. */
static void
assert_tiling (TsLayout *layout)
{
  guint n = ts_layout_get_n_bands (layout);
  double x0, x1;
  const TsLayoutBand *prev = NULL;

  ts_layout_get_strip_extent (layout, &x0, &x1);

  for (guint i = 0; i < n; i++)
    {
      const TsLayoutBand *b = ts_layout_get_band (layout, i);

      if (b->type != TS_LAYOUT_BAND_REGION || !b->visible)
        continue;

      g_assert_cmpfloat (b->width, >, 0);
      g_assert_cmpfloat (b->x + b->width, <=, x1 + EPSILON);
      if (prev != NULL && prev->part == b->part)
        g_assert_cmpfloat_with_epsilon (prev->x + prev->width, b->x, EPSILON);
      else
        g_assert_cmpfloat_with_epsilon (b->x, x0, EPSILON);
      prev = b;

      if (b->kind == TS_REGION_TENSOR_DATA)
        {
          double x = b->x;
          guint n_children = 0;

          for (guint j = 0; j < n; j++)
            {
              const TsLayoutBand *t = ts_layout_get_band (layout, j);

              if (t->type != TS_LAYOUT_BAND_TENSOR || t->parent != b->id || !t->visible)
                continue;
              g_assert_cmpfloat_with_epsilon (t->x, x, EPSILON);
              g_assert_cmpfloat_with_epsilon (t->y, b->y, EPSILON);
              g_assert_cmpfloat_with_epsilon (t->height, b->height, EPSILON);
              x += t->width;
              n_children++;
            }
          if (n_children > 0)
            g_assert_cmpfloat_with_epsilon (x, b->x + b->width, 1e-3);
        }
    }
}

/* ------------------------------------------------------------------------ */
/* Tests                                                                     */

static void
test_roles (void)
{
  static const struct { const char *name; TsTensorRole role; gint layer; } cases[] = {
    { "model.embed_tokens.weight", TS_TENSOR_ROLE_EMBEDDING, -1 },
    { "token_embd.weight", TS_TENSOR_ROLE_EMBEDDING, -1 },
    { "model.layers.3.self_attn.q_proj.weight", TS_TENSOR_ROLE_ATTENTION, 3 },
    { "blk.12.attn_k.weight", TS_TENSOR_ROLE_ATTENTION, 12 },
    { "blk.0.attn_output.weight", TS_TENSOR_ROLE_ATTENTION, 0 },
    { "model.layers.27.mlp.down_proj.weight", TS_TENSOR_ROLE_FEED_FORWARD, 27 },
    { "blk.5.ffn_gate.weight", TS_TENSOR_ROLE_FEED_FORWARD, 5 },
    { "model.layers.0.input_layernorm.weight", TS_TENSOR_ROLE_NORM, 0 },
    { "model.layers.4.post_attention_layernorm.weight", TS_TENSOR_ROLE_NORM, 4 },
    { "blk.4.attn_norm.weight", TS_TENSOR_ROLE_NORM, 4 },
    { "blk.4.ffn_norm.weight", TS_TENSOR_ROLE_NORM, 4 },
    { "model.norm.weight", TS_TENSOR_ROLE_NORM, -1 },
    { "output_norm.weight", TS_TENSOR_ROLE_NORM, -1 },
    { "lm_head.weight", TS_TENSOR_ROLE_OUTPUT, -1 },
    { "output.weight", TS_TENSOR_ROLE_OUTPUT, -1 },
    { "rope_freqs.weight", TS_TENSOR_ROLE_OTHER, -1 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      gint layer = 99;
      TsTensorRole role = ts_tensor_role_from_name (cases[i].name, &layer);

      g_test_message ("%s", cases[i].name);
      g_assert_cmpint (role, ==, cases[i].role);
      g_assert_cmpint (layer, ==, cases[i].layer);
    }
}

static void
test_gguf_bands (Fixture       *fx,
                 gconstpointer  data)
{
  guint64 meta_end, info_end, data_start;
  g_autoptr(TsModelFile) model = load_small_gguf (fx, &meta_end, &info_end, &data_start);
  g_autoptr(TsLayout) layout = ts_layout_new (model);
  const TsLayoutBand *b;
  guint64 offset;

  /* the fixture, by hand: 24 + 45 bytes, then 57 + 59 + 54 of descriptors */
  g_assert_cmpuint (meta_end, ==, 69);
  g_assert_cmpuint (info_end, ==, 239);
  g_assert_cmpuint (data_start, ==, 256);

  b = find_region (layout, 0, TS_REGION_FIXED_HEADER);
  g_assert_nonnull (b);
  g_assert_cmpuint (b->offset, ==, 0);
  g_assert_cmpuint (b->length, ==, 24);
  g_assert_true (strstr (b->label, "24 bytes") != NULL);

  b = find_region (layout, 0, TS_REGION_METADATA);
  g_assert_nonnull (b);
  g_assert_cmpuint (b->offset, ==, 24);
  g_assert_cmpuint (b->length, ==, 45);

  b = find_region (layout, 0, TS_REGION_TENSOR_INFO);
  g_assert_nonnull (b);
  g_assert_cmpuint (b->offset, ==, 69);
  g_assert_cmpuint (b->length, ==, 170);

  b = find_region (layout, 0, TS_REGION_PADDING);
  g_assert_nonnull (b);
  g_assert_cmpuint (b->offset, ==, 239);
  g_assert_cmpuint (b->length, ==, 17);

  b = find_region (layout, 0, TS_REGION_TENSOR_DATA);
  g_assert_nonnull (b);
  g_assert_cmpuint (b->offset, ==, 256);
  g_assert_cmpuint (b->length, ==, 672);

  offset = 256;
  for (guint i = 0; i < G_N_ELEMENTS (small_gguf); i++)
    {
      const TsLayoutBand *t = find_tensor_band (layout, small_gguf[i].name);

      g_assert_nonnull (t);
      g_assert_cmpuint (t->offset, ==, offset);
      g_assert_cmpuint (t->length, ==, small_gguf[i].size);
      g_assert_cmpuint (t->parent, ==, b->id);
      g_assert_cmpuint (ts_layout_find_tensor (layout, t->tensor), ==, t->id);
      offset += (small_gguf[i].size + 31) / 32 * 32;
    }
  g_assert_cmpint (find_tensor_band (layout, "blk.0.attn_q.weight")->role, ==, TS_TENSOR_ROLE_ATTENTION);
  g_assert_cmpint (find_tensor_band (layout, "blk.0.attn_q.weight")->layer, ==, 0);

  /* 5 regions + 3 tensors, nothing else */
  g_assert_cmpuint (ts_layout_get_n_bands (layout), ==, 8);
  g_assert_cmpuint (ts_layout_get_max_part_size (layout), ==, 928);
}

/* the colour drawn at (@x, @y) */
static guint32
pixel_at (TsLayout *layout,
          double    x,
          double    y)
{
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24, 1000, 400);
  cairo_t *cr = cairo_create (surface);
  guint32 rgb;

  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_paint (cr);
  ts_layout_draw (layout, cr);
  cairo_destroy (cr);
  cairo_surface_flush (surface);
  rgb = ((guint32 *) (gpointer) cairo_image_surface_get_data (surface))
          [(int) y * cairo_image_surface_get_stride (surface) / 4 + (int) x] & 0xffffff;
  cairo_surface_destroy (surface);
  return rgb;
}

/* the colour drawn at the centre of @band */
static guint32
pixel_at_band (TsLayout           *layout,
               const TsLayoutBand *band)
{
  return pixel_at (layout, band->x + band->width / 2, band->y + band->height / 2);
}

/* The layer bracket above the bars covers the layer's tensors only: not
 * an output.weight that sits between two of them */
static void
test_layer_brackets (Fixture       *fx,
                     gconstpointer  data)
{
  guint64 a, b, c;
  g_autofree char *path = write_gguf (fx->dir, split_layer_gguf, G_N_ELEMENTS (split_layer_gguf),
                                      &a, &b, &c);
  g_autoptr(TsModelFile) model = ts_test_load_model (path);
  g_autoptr(TsLayout) layout = ts_layout_new (model);
  const TsLayoutBand *q, *output, *up;
  double ruler_y;

  ts_layout_set_view_range (layout, c, c + 3 * 1024);   /* the three tensors, wide */
  ts_layout_allocate (layout, 1000);
  q = find_tensor_band (layout, "blk.0.attn_q.weight");
  output = find_tensor_band (layout, "output.weight");
  up = find_tensor_band (layout, "blk.0.ffn_up.weight");
  g_assert_cmpint (q->layer, ==, 0);
  g_assert_cmpint (output->layer, <, 0);
  g_assert_cmpint (up->layer, ==, 0);
  ruler_y = q->y - 6;   /* inside the 15-pixel ruler just above the bars */
  g_assert_cmphex (pixel_at (layout, q->x + q->width / 2, ruler_y), !=, 0xffffff);
  g_assert_cmphex (pixel_at (layout, up->x + up->width / 2, ruler_y), !=, 0xffffff);
  g_assert_cmphex (pixel_at (layout, output->x + output->width / 2, ruler_y), ==, 0xffffff);

  /* the bracket says "layer 0" where it fits, the bare number where not */
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(GBytes) wide = ts_layout_render (layout, TS_LAYOUT_EXPORT_SVG, 1000, 0, &error);
    g_autoptr(GBytes) narrow = NULL;

    g_assert_no_error (error);
    narrow = ts_layout_render (layout, TS_LAYOUT_EXPORT_SVG, 110, 0, &error);
    g_assert_no_error (error);
    g_assert_nonnull (g_strstr_len (g_bytes_get_data (wide, NULL), g_bytes_get_size (wide), ">layer 0<"));
    g_assert_null (g_strstr_len (g_bytes_get_data (narrow, NULL), g_bytes_get_size (narrow), ">layer 0<"));
    g_assert_nonnull (g_strstr_len (g_bytes_get_data (narrow, NULL), g_bytes_get_size (narrow), ">0<"));
  }

  /* zoomed into the attention tensor, the legend names only what is drawn */
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(GBytes) svg = NULL;
    const char *text;
    gsize size;

    ts_layout_set_view_range (layout, c, c + 1024);
    ts_layout_set_show_legend (layout, TRUE);
    svg = ts_layout_render (layout, TS_LAYOUT_EXPORT_SVG, 1000, 0, &error);
    g_assert_no_error (error);
    text = g_bytes_get_data (svg, &size);
    g_assert_nonnull (g_strstr_len (text, size, ">Attention<"));
    g_assert_null (g_strstr_len (text, size, ">Output<"));
    g_assert_null (g_strstr_len (text, size, ">Feed-forward<"));
    g_assert_null (g_strstr_len (text, size, ">GGUF header<"));
    g_assert_null (g_strstr_len (text, size, ">Metadata<"));
  }
}

/* On a dark ground the header takes a light grey: its near-black
 * vanished there */
static void
test_dark_header (Fixture       *fx,
                  gconstpointer  data)
{
  guint64 meta_end, info_end, data_start;
  g_autoptr(TsModelFile) model = load_small_gguf (fx, &meta_end, &info_end, &data_start);
  g_autoptr(TsLayout) layout = ts_layout_new (model);
  const TsLayoutBand *b;

  ts_layout_set_view_range (layout, 0, 24);
  ts_layout_allocate (layout, 1000);
  b = find_region (layout, 0, TS_REGION_FIXED_HEADER);
  g_assert_nonnull (b);
  g_assert_true (b->visible);
  g_assert_cmphex (pixel_at_band (layout, b), ==, 0x3d3846);
  ts_layout_set_dark (layout, TRUE);
  ts_layout_allocate (layout, 1000);
  g_assert_cmphex (pixel_at_band (layout, b), ==, 0xdeddda);
}

static void
test_safetensors_bands (Fixture       *fx,
                        gconstpointer  data)
{
  guint64 header_len;
  g_autofree char *path = write_safetensors (fx->dir, &header_len);
  g_autoptr(TsModelFile) model = ts_test_load_model (path);
  g_autoptr(TsLayout) layout = ts_layout_new (model);
  static const struct { const char *name; guint64 begin, end; TsTensorRole role; } expected[] = {
    { "model.embed_tokens.weight", 0, 32, TS_TENSOR_ROLE_EMBEDDING },
    { "model.layers.0.self_attn.q_proj.weight", 32, 64, TS_TENSOR_ROLE_ATTENTION },
    { "model.layers.0.mlp.down_proj.weight", 64, 80, TS_TENSOR_ROLE_FEED_FORWARD },
    { "model.norm.weight", 80, 96, TS_TENSOR_ROLE_NORM },
  };
  const TsLayoutBand *b;

  g_assert_cmpuint (header_len % 8, ==, 0);

  b = find_region (layout, 0, TS_REGION_LENGTH_PREFIX);
  g_assert_nonnull (b);
  g_assert_cmpuint (b->offset, ==, 0);
  g_assert_cmpuint (b->length, ==, 8);

  b = find_region (layout, 0, TS_REGION_JSON_HEADER);
  g_assert_nonnull (b);
  g_assert_cmpuint (b->offset, ==, 8);
  g_assert_cmpuint (b->length, ==, header_len);

  b = find_region (layout, 0, TS_REGION_TENSOR_DATA);
  g_assert_nonnull (b);
  g_assert_cmpuint (b->offset, ==, 8 + header_len);
  g_assert_cmpuint (b->length, ==, 96);

  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    {
      const TsLayoutBand *t = find_tensor_band (layout, expected[i].name);

      g_assert_nonnull (t);
      g_assert_cmpuint (t->offset, ==, 8 + header_len + expected[i].begin);
      g_assert_cmpuint (t->length, ==, expected[i].end - expected[i].begin);
      g_assert_cmpint (t->role, ==, expected[i].role);
    }

  ts_layout_allocate (layout, 900);
  assert_tiling (layout);
}

static void
test_tiling_and_min_width (Fixture       *fx,
                           gconstpointer  data)
{
  g_autoptr(TsModelFile) model = load_big_gguf (fx);
  g_autoptr(TsLayout) layout = ts_layout_new (model);
  static const double widths[] = { 400, 800, 1600, 5000 };

  for (guint w = 0; w < G_N_ELEMENTS (widths); w++)
    {
      const TsLayoutBand *header, *data_band, *norm;
      double x0, x1;

      ts_layout_allocate (layout, widths[w]);
      ts_layout_get_strip_extent (layout, &x0, &x1);
      assert_tiling (layout);

      /* 24 bytes of a 2 MB file: at true scale far below a pixel */
      header = find_region (layout, 0, TS_REGION_FIXED_HEADER);
      g_assert_true (header->visible);
      g_assert_cmpfloat (header->width, >=, 6.0 - EPSILON);
      g_assert_true (strstr (header->label, "24 bytes") != NULL);
      g_assert_cmpfloat ((double) header->length / 2.1e6 * (x1 - x0), <, 1.0);

      /* every region visible, the last one ending at the right edge */
      data_band = find_region (layout, 0, TS_REGION_TENSOR_DATA);
      g_assert_cmpfloat_with_epsilon (data_band->x + data_band->width, x1, 1e-6);

      /* tiny tensors stay visible */
      norm = find_tensor_band (layout, "blk.0.attn_norm.weight");
      g_assert_true (norm->visible);
      g_assert_cmpfloat (norm->width, >=, 2.0 - EPSILON);

      /* the big tensor still takes nearly all of the data band */
      g_assert_cmpfloat (find_tensor_band (layout, "token_embd.weight")->width, >, 0.9 * data_band->width);
      g_assert_cmpfloat (ts_layout_get_height (layout), >, 0);
    }
}

static void
test_zoom_ranges (Fixture       *fx,
                  gconstpointer  data)
{
  g_autoptr(TsModelFile) model = load_big_gguf (fx);
  g_autoptr(TsLayout) layout = ts_layout_new (model);
  guint64 size = ts_layout_get_max_part_size (layout);
  const TsLayoutBand *norm, *embd, *header;
  guint64 start, end;
  double x0, x1;

  g_assert_false (ts_layout_is_zoomed (layout));
  ts_layout_get_view_range (layout, &start, &end);
  g_assert_cmpuint (start, ==, 0);
  g_assert_cmpuint (end, ==, size);

  /* clamped to the file, widened to at least 16 bytes */
  ts_layout_set_view_range (layout, 100, size * 2);
  ts_layout_get_view_range (layout, &start, &end);
  g_assert_cmpuint (start, ==, 100);
  g_assert_cmpuint (end, ==, size);
  ts_layout_set_view_range (layout, 1000, 1001);
  ts_layout_get_view_range (layout, &start, &end);
  g_assert_cmpuint (end - start, ==, 16);
  g_assert_cmpuint (start, <=, 1000);
  g_assert_cmpuint (end, >=, 1001);
  ts_layout_set_view_range (layout, size, size);
  ts_layout_get_view_range (layout, &start, &end);
  g_assert_cmpuint (end, ==, size);
  g_assert_cmpuint (end - start, ==, 16);

  /* zoom into one small tensor: it fills the strip, the rest is hidden */
  ts_layout_allocate (layout, 1000);
  norm = find_tensor_band (layout, "blk.0.attn_norm.weight");
  ts_layout_set_view_range (layout, norm->offset, norm->offset + norm->length);
  g_assert_true (ts_layout_is_zoomed (layout));
  ts_layout_allocate (layout, 1000);
  ts_layout_get_strip_extent (layout, &x0, &x1);
  norm = find_tensor_band (layout, "blk.0.attn_norm.weight");
  embd = find_tensor_band (layout, "token_embd.weight");
  header = find_region (layout, 0, TS_REGION_FIXED_HEADER);
  g_assert_true (norm->visible);
  g_assert_cmpfloat_with_epsilon (norm->x, x0, EPSILON);
  g_assert_cmpfloat_with_epsilon (norm->width, x1 - x0, EPSILON);
  g_assert_false (embd->visible);
  g_assert_false (header->visible);
  assert_tiling (layout);

  /* zoom at a point keeps that byte under the pointer */
  ts_layout_reset_view_range (layout);
  ts_layout_allocate (layout, 1000);
  {
    double x = x0 + (x1 - x0) * 0.25;
    guint64 before = ts_layout_x_to_offset (layout, x);
    guint64 after;

    ts_layout_zoom_at (layout, 4.0, x);
    ts_layout_get_view_range (layout, &start, &end);
    g_assert_cmpuint (end - start, ==, size / 4);
    ts_layout_allocate (layout, 1000);
    after = ts_layout_x_to_offset (layout, x);
    g_assert_cmpuint (after > before ? after - before : before - after, <, size / 1000);

    /* zooming out past the whole file stops at the whole file */
    ts_layout_zoom_at (layout, 0.01, x);
    g_assert_false (ts_layout_is_zoomed (layout));
  }
}

static const TsLayoutBand *
linear_hit (TsLayout *layout,
            double    x,
            double    y)
{
  const TsLayoutBand *found = NULL;

  for (guint i = 0; i < ts_layout_get_n_bands (layout); i++)
    {
      const TsLayoutBand *b = ts_layout_get_band (layout, i);

      if (!b->visible || x < b->x || x >= b->x + b->width || y < b->y || y >= b->y + b->height)
        continue;
      /* tensor bands are inside their region: the innermost wins */
      if (found == NULL || b->type == TS_LAYOUT_BAND_TENSOR)
        found = b;
    }

  return found;
}

static void
test_hit_testing (Fixture       *fx,
                  gconstpointer  data)
{
  g_autoptr(TsModelFile) model = load_big_gguf (fx);
  g_autoptr(TsLayout) layout = ts_layout_new (model);
  g_autoptr(GRand) rand = g_rand_new_with_seed (42);
  const TsLayoutBand *header;

  for (guint zoom = 0; zoom < 2; zoom++)
    {
      if (zoom == 1)
        ts_layout_set_view_range (layout, 0, ts_layout_get_max_part_size (layout) / 3);
      ts_layout_allocate (layout, 1000);

      /* the centre of every visible band hits that band (or a tensor in it) */
      for (guint i = 0; i < ts_layout_get_n_bands (layout); i++)
        {
          const TsLayoutBand *b = ts_layout_get_band (layout, i);
          const TsLayoutBand *hit;

          if (!b->visible)
            continue;
          hit = ts_layout_hit_test (layout, b->x + b->width / 2, b->y + b->height / 2);
          g_assert_nonnull (hit);
          if (b->type == TS_LAYOUT_BAND_TENSOR)
            g_assert_cmpuint (hit->id, ==, b->id);
          else
            g_assert_true (hit->id == b->id || hit->parent == b->id);
        }

      /* random points agree with a linear scan */
      for (guint i = 0; i < 5000; i++)
        {
          double x = g_rand_double_range (rand, -10, 1010);
          double y = g_rand_double_range (rand, 0, ts_layout_get_height (layout));

          g_assert_true (ts_layout_hit_test (layout, x, y) == linear_hit (layout, x, y));
        }
    }

  /* outside the strips: nothing */
  ts_layout_reset_view_range (layout);
  ts_layout_allocate (layout, 1000);
  header = find_region (layout, 0, TS_REGION_FIXED_HEADER);
  g_assert_null (ts_layout_hit_test (layout, header->x + 1, header->y - 30));
  g_assert_null (ts_layout_hit_test (layout, -5, header->y + 5));
  g_assert_null (ts_layout_hit_test (layout, 2000, header->y + 5));
}

/* SVG: the text layer as XML, every region label in it */
typedef struct
{
  GString  *text;
  gboolean  in_text;
  gboolean  saw_svg;
} SvgScan;

static void
svg_start (GMarkupParseContext  *context,
           const char           *element,
           const char          **names,
           const char          **values,
           gpointer              user_data,
           GError              **error)
{
  SvgScan *scan = user_data;

  if (g_str_equal (element, "svg"))
    scan->saw_svg = TRUE;
  scan->in_text = g_str_equal (element, "text") || g_str_equal (element, "title");
}

static void
svg_end (GMarkupParseContext  *context,
         const char           *element,
         gpointer              user_data,
         GError              **error)
{
  SvgScan *scan = user_data;

  if (scan->in_text)
    g_string_append_c (scan->text, '\n');
  scan->in_text = FALSE;
}

static void
svg_text (GMarkupParseContext  *context,
          const char           *text,
          gsize                 len,
          gpointer              user_data,
          GError              **error)
{
  SvgScan *scan = user_data;

  if (scan->in_text)
    g_string_append_len (scan->text, text, len);
}

static void
check_svg (TsLayout *layout,
           GBytes   *svg)
{
  static const GMarkupParser parser = { svg_start, svg_end, svg_text, NULL, NULL };
  SvgScan scan = { g_string_new (NULL), FALSE, FALSE };
  g_autoptr(GMarkupParseContext) context = g_markup_parse_context_new (&parser, 0, &scan, NULL);
  g_autoptr(GError) error = NULL;
  gsize len;
  const char *data = g_bytes_get_data (svg, &len);
  guint n_checked = 0;

  g_assert_true (g_markup_parse_context_parse (context, data, len, &error));
  g_assert_true (g_markup_parse_context_end_parse (context, &error));
  g_assert_no_error (error);
  g_assert_true (scan.saw_svg);

  /* every band of the diagram is labelled: region labels always, tensor
   * names where they fit; ts_layout_render() drew a copy at its width */
  ts_layout_allocate (layout, 1200);
  for (guint i = 0; i < ts_layout_get_n_bands (layout); i++)
    {
      const TsLayoutBand *b = ts_layout_get_band (layout, i);

      if (b->type != TS_LAYOUT_BAND_REGION || !b->visible)
        continue;
      g_test_message ("label: %s", b->label);
      g_assert_nonnull (strstr (scan.text->str, b->label));
      n_checked++;
    }
  g_assert_cmpuint (n_checked, >=, 5);
  g_assert_nonnull (strstr (scan.text->str, "token_embd.weight"));
  g_assert_nonnull (strstr (scan.text->str, ts_model_file_get_display_name (ts_layout_get_model (layout))));

  g_string_free (scan.text, TRUE);
}

/* A GGUF without tensors has 0 bytes of descriptors: no band, so no
 * label (its leader line ran from the corner of the diagram), and the
 * padding after it keeps its label (it was the one left out) */
static void
test_empty_region (Fixture       *fx,
                   gconstpointer  data)
{
  static const GMarkupParser parser = { svg_start, svg_end, svg_text, NULL, NULL };
  guint64 meta_end, info_end, data_start;
  g_autofree char *path = write_gguf (fx->dir, NULL, 0, &meta_end, &info_end, &data_start);
  g_autoptr(TsModelFile) model = ts_test_load_model (path);
  g_autoptr(TsLayout) layout = ts_layout_new (model);
  g_autoptr(GBytes) svg = NULL;
  g_autoptr(GError) error = NULL;
  SvgScan scan = { g_string_new (NULL), FALSE, FALSE };
  g_autoptr(GMarkupParseContext) context = g_markup_parse_context_new (&parser, 0, &scan, NULL);
  const TsLayoutBand *info;
  const TsLayoutBand *padding;
  gsize len;
  const char *text;

  g_assert_cmpuint (info_end, ==, meta_end);
  g_assert_cmpuint (data_start, >, info_end);
  ts_layout_allocate (layout, 1200);
  info = find_region (layout, 0, TS_REGION_TENSOR_INFO);
  padding = find_region (layout, 0, TS_REGION_PADDING);
  g_assert_nonnull (info);
  g_assert_nonnull (padding);
  g_assert_cmpuint (info->length, ==, 0);
  g_assert_false (info->visible);
  g_assert_true (padding->visible);
  /* each band drawn is found where it is drawn (the binary search went
   * astray on the hidden band between them) */
  for (guint i = 0; i < ts_layout_get_n_bands (layout); i++)
    {
      const TsLayoutBand *b = ts_layout_get_band (layout, i);

      if (b->visible)
        g_assert_true (ts_layout_hit_test (layout, b->x + b->width / 2, b->y + b->height / 2) == b);
    }

  svg = ts_layout_render (layout, TS_LAYOUT_EXPORT_SVG, 1200, 0, &error);
  g_assert_no_error (error);
  text = g_bytes_get_data (svg, &len);
  g_assert_true (g_markup_parse_context_parse (context, text, len, &error));
  g_assert_true (g_markup_parse_context_end_parse (context, &error));
  g_assert_no_error (error);
  g_test_message ("%s", scan.text->str);
  g_assert_nonnull (strstr (scan.text->str, padding->label));
  g_assert_null (strstr (scan.text->str, info->label));
  g_string_free (scan.text, TRUE);
}

static cairo_status_t
read_bytes (void          *closure,
            unsigned char *data,
            unsigned int   length)
{
  GInputStream *stream = closure;

  return g_input_stream_read_all (stream, data, length, NULL, NULL, NULL)
    ? CAIRO_STATUS_SUCCESS : CAIRO_STATUS_READ_ERROR;
}

static void
check_png (GBytes *png,
           int     width,
           int     height)
{
  g_autoptr(GInputStream) stream = g_memory_input_stream_new_from_bytes (png);
  cairo_surface_t *surface = cairo_image_surface_create_from_png_stream (read_bytes, stream);
  g_autoptr(GHashTable) colors = g_hash_table_new (NULL, NULL);
  const guint8 *pixels;
  int stride;

  g_assert_cmpint (cairo_surface_status (surface), ==, CAIRO_STATUS_SUCCESS);
  g_assert_cmpint (cairo_image_surface_get_width (surface), ==, width);
  if (height > 0)
    g_assert_cmpint (cairo_image_surface_get_height (surface), ==, height);

  /* not blank: many colours, and more than a sliver of non-white */
  pixels = cairo_image_surface_get_data (surface);
  stride = cairo_image_surface_get_stride (surface);
  {
    guint64 non_white = 0, total = 0;

    for (int y = 0; y < cairo_image_surface_get_height (surface); y++)
      for (int x = 0; x < width; x++)
        {
          guint32 px = *(const guint32 *) (pixels + y * stride + x * 4);

          g_hash_table_add (colors, GUINT_TO_POINTER (px));
          non_white += (px & 0xffffff) != 0xffffff;
          total++;
        }
    g_assert_cmpuint (g_hash_table_size (colors), >, 20);
    g_assert_cmpfloat ((double) non_white / total, >, 0.05);
  }

  cairo_surface_destroy (surface);
}

static void
check_pdf (GBytes *pdf,
           int     width)
{
  gsize len;
  const char *data = g_bytes_get_data (pdf, &len);
  g_autofree char *text = g_strndup (data, len);
  g_autoptr(GRegex) regex = g_regex_new ("/MediaBox \\[ *0 0 ([0-9.]+) ([0-9.]+) *\\]", G_REGEX_RAW, 0, NULL);
  g_autoptr(GMatchInfo) match = NULL;
  g_autofree char *w = NULL;

  g_assert_true (len > 1000);
  g_assert_true (g_str_has_prefix (text, "%PDF-"));
  /* g_strndup stops at the first NUL; search the raw bytes */
  g_assert_true (g_regex_match_full (regex, data, len, 0, 0, &match, NULL));
  w = g_match_info_fetch (match, 1);
  g_assert_cmpint (atoi (w), ==, width);
  g_assert_nonnull (memmem (data, len, "/Font", 5));
}

static void
test_exports (Fixture       *fx,
              gconstpointer  data)
{
  g_autoptr(TsModelFile) model = load_big_gguf (fx);
  g_autoptr(TsLayout) layout = ts_layout_new (model);
  g_autoptr(GBytes) svg = NULL;
  g_autoptr(GBytes) png = NULL;
  g_autoptr(GBytes) png_fixed = NULL;
  g_autoptr(GBytes) pdf = NULL;
  g_autoptr(GError) error = NULL;
  TsLayoutExportFormat format;

  g_assert_true (ts_layout_export_format_from_name ("a.SVG", &format));
  g_assert_cmpint (format, ==, TS_LAYOUT_EXPORT_SVG);
  g_assert_true (ts_layout_export_format_from_name ("x/y.pdf", &format));
  g_assert_cmpint (format, ==, TS_LAYOUT_EXPORT_PDF);
  g_assert_true (ts_layout_export_format_from_name ("b.png", &format));
  g_assert_cmpint (format, ==, TS_LAYOUT_EXPORT_PNG);
  g_assert_false (ts_layout_export_format_from_name ("c.jpg", &format));
  g_assert_false (ts_layout_export_format_from_name ("noext", &format));

  svg = ts_layout_render (layout, TS_LAYOUT_EXPORT_SVG, 1200, 0, &error);
  g_assert_no_error (error);
  check_svg (layout, svg);

  png = ts_layout_render (layout, TS_LAYOUT_EXPORT_PNG, 1000, 0, &error);
  g_assert_no_error (error);
  check_png (png, 1000, 0);

  png_fixed = ts_layout_render (layout, TS_LAYOUT_EXPORT_PNG, 640, 480, &error);
  g_assert_no_error (error);
  check_png (png_fixed, 640, 480);

  pdf = ts_layout_render (layout, TS_LAYOUT_EXPORT_PDF, 842, 0, &error);
  g_assert_no_error (error);
  check_pdf (pdf, 842);

  /* for people who want to look at them: the build dir keeps a copy */
  if (g_getenv ("TS_TEST_ARTIFACTS") != NULL)
    {
      g_autofree char *p1 = g_build_filename (g_getenv ("TS_TEST_ARTIFACTS"), "layout.svg", NULL);
      g_autofree char *p2 = g_build_filename (g_getenv ("TS_TEST_ARTIFACTS"), "layout.png", NULL);
      g_autofree char *p3 = g_build_filename (g_getenv ("TS_TEST_ARTIFACTS"), "layout.pdf", NULL);

      g_file_set_contents (p1, g_bytes_get_data (svg, NULL), g_bytes_get_size (svg), NULL);
      g_file_set_contents (p2, g_bytes_get_data (png, NULL), g_bytes_get_size (png), NULL);
      g_file_set_contents (p3, g_bytes_get_data (pdf, NULL), g_bytes_get_size (pdf), NULL);
    }
}

static void
export_done (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  GError **error = user_data;

  ts_layout_export_finish (TS_LAYOUT (object), result, error);
  if (*error == NULL)
    *error = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_EXISTS, "done");
}

static void
test_export_async (Fixture       *fx,
                   gconstpointer  data)
{
  g_autoptr(TsModelFile) model = load_big_gguf (fx);
  g_autoptr(TsLayout) layout = ts_layout_new (model);
  g_autofree char *path = g_build_filename (fx->dir, "out.png", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  g_autofree char *contents = NULL;
  gsize len;

  /* the worker draws a copy: changing the layout meanwhile is allowed */
  ts_layout_export_async (layout, file, TS_LAYOUT_EXPORT_PNG, 800, 0, NULL, export_done, &error);
  ts_layout_set_view_range (layout, 0, 100);
  ts_layout_allocate (layout, 300);
  while (error == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS);   /* i.e. success */

  g_assert_true (g_file_get_contents (path, &contents, &len, NULL));
  {
    g_autoptr(GBytes) bytes = g_bytes_new_take (g_steal_pointer (&contents), len);
    check_png (bytes, 800, 0);
  }
}

static void
test_export_cancelled (Fixture       *fx,
                       gconstpointer  data)
{
  g_autoptr(TsModelFile) model = load_big_gguf (fx);
  g_autoptr(TsLayout) layout = ts_layout_new (model);
  g_autofree char *path = g_build_filename (fx->dir, "cancelled.svg", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GError) error = NULL;

  g_cancellable_cancel (cancellable);
  g_assert_false (ts_layout_export (layout, file, TS_LAYOUT_EXPORT_SVG, 600, 0, cancellable, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
}

static void
test_description (Fixture       *fx,
                  gconstpointer  data)
{
  guint64 a, b, c;
  g_autoptr(TsModelFile) model = load_small_gguf (fx, &a, &b, &c);
  g_autoptr(TsLayout) layout = ts_layout_new (model);
  const TsLayoutBand *band = find_tensor_band (layout, "blk.0.attn_q.weight");
  g_autofree char *text = ts_layout_dup_band_description (layout, band);

  /* name, role, type, byte range, exact size, share of the file */
  g_assert_nonnull (strstr (text, "blk.0.attn_q.weight"));
  g_assert_nonnull (strstr (text, "Attention"));
  g_assert_nonnull (strstr (text, "F16"));
  g_assert_nonnull (strstr (text, "768 – 896"));
  g_assert_nonnull (strstr (text, "128 bytes"));
  g_assert_nonnull (strstr (text, "13.79 %"));
}

/* A narrow diagram keeps its labels inside the strips' extent and draws a
 * strip's byte range only where the heading leaves room: at 400 px
 * "Tensor data · 8 bytes" ran past the right edge, and each heading was
 * drawn over its range. */
static void
test_narrow_labels (Fixture       *fx,
                    gconstpointer  data)
{
  /* a 56-byte header and one tensor of 8 bytes: the data's label sits at
   * the right end; the long name makes a long heading */
  g_autofree char *path = g_build_filename (fx->dir, "a-rather-long-checkpoint-name-for-a-heading.safetensors", NULL);
  g_autoptr(GByteArray) out = g_byte_array_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(TsModelFile) model = NULL;
  g_autoptr(TsLayout) layout = NULL;
  g_autoptr(GBytes) svg_narrow = NULL;
  g_autoptr(GBytes) svg_wide = NULL;
  const char header[] = "{\"w\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}";
  gsize padded = (sizeof header - 1 + 7) / 8 * 8;
  cairo_surface_t *surface;
  cairo_t *cr;
  double x0, x1;
  guint32 *pixels;
  int stride, width = 400, height;

  ts_test_put_u64 (out, padded);
  g_byte_array_append (out, (const guint8 *) header, sizeof header - 1);
  while (out->len < 8 + padded)
    g_byte_array_append (out, (const guint8 *) " ", 1);
  g_byte_array_append (out, (const guint8 *) "\0\0\200\77\0\0\0\100", 8);
  g_file_set_contents (path, (const char *) out->data, out->len, &error);
  g_assert_no_error (error);
  model = ts_test_load_model (path);
  layout = ts_layout_new (model);

  ts_layout_allocate (layout, width);
  ts_layout_get_strip_extent (layout, &x0, &x1);
  height = (int) ceil (ts_layout_get_height (layout));
  surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24, width, height);
  cr = cairo_create (surface);
  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_paint (cr);
  ts_layout_draw (layout, cr);
  cairo_destroy (cr);
  cairo_surface_flush (surface);
  pixels = (guint32 *) (gpointer) cairo_image_surface_get_data (surface);
  stride = cairo_image_surface_get_stride (surface) / 4;
  for (int y = 0; y < height; y++)
    for (int x = (int) ceil (x1) + 1; x < width; x++)
      if ((pixels[y * stride + x] & 0xffffff) != 0xffffff)
        g_error ("drawn right of the strips (x1 = %g) at (%d, %d)", x1, x, y);
  cairo_surface_destroy (surface);

  /* the range: left out beside the long heading at 400 px, drawn at 1600 */
  svg_narrow = ts_layout_render (layout, TS_LAYOUT_EXPORT_SVG, 400, 0, &error);
  g_assert_no_error (error);
  svg_wide = ts_layout_render (layout, TS_LAYOUT_EXPORT_SVG, 1600, 0, &error);
  g_assert_no_error (error);
  g_assert_null (g_strstr_len (g_bytes_get_data (svg_narrow, NULL), g_bytes_get_size (svg_narrow),
                               ">bytes 0 – 72<"));
  g_assert_nonnull (g_strstr_len (g_bytes_get_data (svg_wide, NULL), g_bytes_get_size (svg_wide),
                                  ">bytes 0 – 72<"));
}

/* 20,000 tensors of 32 bytes, a few hundredths of a pixel each: ffn_up
 * of layers 0-9,999, then attn_q of layers 10,000-19,999 */
#define MANY_TENSORS 20000

static TsModelFile *
load_many_tensors (Fixture *fx)
{
  g_autofree GgufTensor *tensors = g_new0 (GgufTensor, MANY_TENSORS);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *path = NULL;
  guint64 a, b, c;

  for (guint i = 0; i < MANY_TENSORS; i++)
    {
      char *name = g_strdup_printf ("blk.%u.%s.weight", i, i < MANY_TENSORS / 2 ? "ffn_up" : "attn_q");

      g_ptr_array_add (names, name);
      tensors[i] = (GgufTensor) { name, 1, { 8 }, 0, 32 };
    }
  path = write_gguf (fx->dir, tensors, MANY_TENSORS, &a, &b, &c);
  return ts_test_load_model (path);
}

/* Bands narrower than a pixel are drawn by the pixel: a run of one role
 * in its exact colour (no seams, no blend with the ground), the layers'
 * ruler as one stripe; the SVG has a rectangle and a title per cell, not
 * per tensor (a million tensors made 250 MB), and still accounts for
 * every tensor; hit-testing still finds each band. */
static void
test_many_tensors (Fixture       *fx,
                   gconstpointer  data)
{
  g_autoptr(TsModelFile) model = load_many_tensors (fx);
  g_autoptr(TsLayout) layout = ts_layout_new (model);
  g_autoptr(GBytes) svg = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GRegex) title_regex = g_regex_new ("<title>([^<]*)</title>", 0, 0, NULL);
  g_autoptr(GRegex) cell_regex = g_regex_new ("^([0-9,. ]+) tensors$", 0, 0, NULL);
  g_autoptr(GMatchInfo) match = NULL;
  const TsLayoutBand *ffn, *attn, *data_region;
  const char *text, *bands;
  guint n_rects = 0, n_titled = 0;
  gsize len;

  ts_layout_allocate (layout, 1000);
  data_region = find_region (layout, 0, TS_REGION_TENSOR_DATA);
  g_assert_cmpfloat (data_region->width / MANY_TENSORS, <, 0.05);
  ffn = find_tensor_band (layout, "blk.2500.ffn_up.weight");
  attn = find_tensor_band (layout, "blk.17500.attn_q.weight");
  g_assert_cmphex (pixel_at_band (layout, ffn), ==, ts_layout_get_role_color (TS_TENSOR_ROLE_FEED_FORWARD));
  g_assert_cmphex (pixel_at_band (layout, attn), ==, ts_layout_get_role_color (TS_TENSOR_ROLE_ATTENTION));
  g_assert_cmphex (pixel_at (layout, ffn->x, ffn->y - 6), ==, 0xdeddda);
  g_assert_cmphex (pixel_at (layout, attn->x, attn->y - 6), ==, 0xdeddda);

  for (guint i = 0; i < ts_layout_get_n_bands (layout); i += 97)
    {
      const TsLayoutBand *b = ts_layout_get_band (layout, i);

      if (b->type == TS_LAYOUT_BAND_TENSOR && b->width > 0)
        g_assert_cmpuint (ts_layout_hit_test (layout, b->x + b->width / 2, b->y + 1)->id, ==, b->id);
    }

  svg = ts_layout_render (layout, TS_LAYOUT_EXPORT_SVG, 1200, 0, &error);
  g_assert_no_error (error);
  text = g_bytes_get_data (svg, &len);
  g_test_message ("SVG of %u tensors: %" G_GSIZE_FORMAT " bytes", MANY_TENSORS, len);
  g_assert_cmpuint (len, <, 1024 * 1024);
  bands = strstr (text, "<g id=\"bands\"");
  g_assert_nonnull (bands);
  for (const char *p = bands; (p = strstr (p, "<rect ")) != NULL; p++)
    n_rects++;
  g_assert_cmpuint (n_rects, <, 2 * 1200);

  /* every tensor once: by its name, or counted in a cell's title */
  g_regex_match (title_regex, bands, 0, &match);
  for (; g_match_info_matches (match); g_match_info_next (match, NULL))
    {
      g_autofree char *title = g_match_info_fetch (match, 1);
      g_autoptr(GMatchInfo) cell = NULL;

      if (g_str_has_prefix (title, "blk."))
        n_titled++;
      else if (g_regex_match (cell_regex, title, 0, &cell))
        {
          g_autofree char *count = g_match_info_fetch (cell, 1);
          g_autoptr(GString) digits = g_string_new (NULL);

          for (const char *d = count; *d; d++)
            if (g_ascii_isdigit (*d))
              g_string_append_c (digits, *d);
          n_titled += atoi (digits->str);
        }
    }
  g_assert_cmpuint (n_titled, ==, MANY_TENSORS);
}

/* A checkpoint of 240 shards is 35,856 pixels tall at 1,200: more than a
 * PNG (cairo's image surface) can be. The export says so and what to do,
 * not cairo's "invalid value (typically too big)"; SVG takes it. */
static void
test_png_too_tall (Fixture       *fx,
                   gconstpointer  data)
{
  g_autofree char *path = g_build_filename (fx->dir, "shards", NULL);
  g_autoptr(GFile) dir = g_file_new_for_path (path);
  g_autoptr(TsModelFile) model = NULL;
  g_autoptr(TsLayout) layout = NULL;
  g_autoptr(GBytes) png = NULL;
  g_autoptr(GBytes) svg = NULL;
  g_autoptr(GError) error = NULL;
  TsSampleOptions options;

  ts_sample_options_init (&options);
  options.n_layers = 30;
  options.n_shards = 240;
  options.hidden_size = 16;
  options.n_heads = 2;
  options.n_kv_heads = 1;
  options.intermediate_size = 16;
  options.vocab_size = 1024;
  g_assert_true (ts_sample_write (dir, &options, NULL, &error));
  g_assert_no_error (error);
  model = ts_test_load_model (path);
  layout = ts_layout_new (model);
  ts_layout_allocate (layout, 1200);
  g_assert_cmpfloat (ts_layout_get_height (layout), >, 32767);

  png = ts_layout_render (layout, TS_LAYOUT_EXPORT_PNG, 1200, 0, &error);
  g_assert_null (png);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "SVG or PDF"));
  g_clear_error (&error);

  /* a height that fits: the picture is scaled down into it */
  png = ts_layout_render (layout, TS_LAYOUT_EXPORT_PNG, 1200, 20000, &error);
  g_assert_no_error (error);
  g_assert_nonnull (png);
  svg = ts_layout_render (layout, TS_LAYOUT_EXPORT_SVG, 1200, 0, &error);
  g_assert_no_error (error);
  g_assert_nonnull (svg);
}

/* A narrow picture of a normal model draws some tensors a few to a pixel:
 * the SVG's hover layer still names each of them (it named only the first
 * and the last of each cell: 29 of 278 names of a 30-layer GGUF at 400
 * pixels were nowhere), and says a small size once ("192 bytes", not
 * "192 bytes (192 bytes)") */
/* Names with Unicode noncharacters, which cairo refuses as invalid UTF-8
 * (and its context then draws nothing more), in a file whose name is not
 * UTF-8: the window's diagram draws */
static const GgufTensor nonchar_gguf[] = {
  { "a\xef\xbf\xbe" "b", 2, { 64, 64 }, 0, 64 * 64 * 4 },         /* U+FFFE */
  { "c\xf4\x8f\xbf\xbf" "d", 2, { 64, 64 }, 0, 64 * 64 * 4 },    /* U+10FFFF */
  { "e\xef\xb7\x90" "f", 2, { 64, 64 }, 0, 64 * 64 * 4 },         /* U+FDD0 */
};

static void
test_noncharacters (Fixture       *fx,
                    gconstpointer  data)
{
  guint64 a, b, c;
  g_autofree char *path = write_gguf (fx->dir, nonchar_gguf, G_N_ELEMENTS (nonchar_gguf), &a, &b, &c);
  /* in a file whose name on disk is not UTF-8 either */
  g_autofree char *odd_path = g_build_filename (fx->dir, "m\xff\xfe.gguf", NULL);
  g_autoptr(TsModelFile) model = NULL;
  g_autoptr(TsLayout) layout = NULL;
  cairo_surface_t *surface;
  cairo_t *cr;

  g_assert_cmpint (g_rename (path, odd_path), ==, 0);
  model = ts_test_load_model (odd_path);
  layout = ts_layout_new (model);
  ts_layout_allocate (layout, 800);
  surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24, 800, (int) ceil (ts_layout_get_height (layout)));
  cr = cairo_create (surface);
  ts_layout_draw (layout, cr);
  g_assert_cmpstr (cairo_status_to_string (cairo_status (cr)), ==,
                   cairo_status_to_string (CAIRO_STATUS_SUCCESS));
  cairo_destroy (cr);
  cairo_surface_destroy (surface);
}

/* too many tensors for each to get a band of its own: two big ones, then
 * 300 of 1 kB, a few to a pixel */
#define N_CROWDED 302

static void
test_narrow_names (Fixture       *fx,
                   gconstpointer  data)
{
  GgufTensor crowded[N_CROWDED] = {
    { "token_embd.weight", 2, { 1024, 256 }, 0, 1024 * 256 * 4 },
    { "output.weight",     2, { 1024, 256 }, 0, 1024 * 256 * 4 },
  };
  g_auto(GStrv) names = g_new0 (char *, N_CROWDED - 2 + 1);
  guint64 a, b, c;
  g_autofree char *path = NULL;
  g_autoptr(TsModelFile) model = NULL;
  g_autoptr(TsLayout) layout = NULL;
  g_autoptr(GBytes) svg = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;

  for (guint i = 2; i < N_CROWDED; i++)
    {
      names[i - 2] = g_strdup_printf ("blk.%u.attn_norm.weight", i);
      crowded[i] = (GgufTensor) { names[i - 2], 1, { 256 }, 0, 1024 };
    }
  path = write_gguf (fx->dir, crowded, N_CROWDED, &a, &b, &c);
  model = ts_test_load_model (path);
  layout = ts_layout_new (model);
  svg = ts_layout_render (layout, TS_LAYOUT_EXPORT_SVG, 400, 0, &error);
  g_assert_no_error (error);
  text = g_strndup (g_bytes_get_data (svg, NULL), g_bytes_get_size (svg));

  /* some share a pixel, three or more */
  g_assert_true (g_regex_match_simple (">([3-9]|[1-9][0-9]) tensors</title>", text, 0, 0));
  for (guint i = 0; i < N_CROWDED; i++)
    if (strstr (text, crowded[i].name) == NULL)
      g_error ("%s is named nowhere in the SVG", crowded[i].name);
  g_assert_false (g_regex_match_simple ("(?<![0-9,])([0-9]{1,3}) bytes \\(\\1 bytes\\)", text, 0, 0));
}

/* Under a layer's bracket a band is named within the layer: both of two
 * equal bands, where "blk.0.ffn_gate.weight" did not fit and the shorter
 * "blk.0.ffn_up.weight" did, so the one read "ffn_gate.weight" and its
 * twin "blk.0.ffn_up.weight"; a tensor of no layer keeps its full name */
static void
test_in_layer_labels (Fixture       *fx,
                      gconstpointer  data)
{
  static const GgufTensor tensors[] = {
    { "token_embd.weight",     2, { 64, 64 }, 0, 64 * 64 * 4 },
    { "blk.0.ffn_gate.weight", 2, { 64, 64 }, 0, 64 * 64 * 4 },
    { "blk.0.ffn_up.weight",   2, { 64, 64 }, 0, 64 * 64 * 4 },
    { "blk.12.ffn_up.weight",  2, { 64, 64 }, 0, 64 * 64 * 4 },
  };
  guint64 a, b, c;
  g_autofree char *path = write_gguf (fx->dir, tensors, G_N_ELEMENTS (tensors), &a, &b, &c);
  g_autoptr(TsModelFile) model = ts_test_load_model (path);
  g_autoptr(TsLayout) layout = ts_layout_new (model);
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) svg = ts_layout_render (layout, TS_LAYOUT_EXPORT_SVG, 900, 0, &error);
  g_autofree char *text = NULL;

  g_assert_no_error (error);
  text = g_strndup (g_bytes_get_data (svg, NULL), g_bytes_get_size (svg));
  g_assert_nonnull (strstr (text, ">token_embd.weight</text>"));
  g_assert_nonnull (strstr (text, ">ffn_gate.weight</text>"));
  g_assert_nonnull (strstr (text, ">ffn_up.weight</text>"));
  g_assert_null (strstr (text, ">blk.0.ffn_up.weight</text>"));
  g_assert_null (strstr (text, ">blk.12.ffn_up.weight</text>"));
  /* the full name stays in the band's title (the tooltip) */
  g_assert_nonnull (strstr (text, "blk.12.ffn_up.weight"));
  /* and the brackets say which layer */
  g_assert_nonnull (strstr (text, ">layer 0</text>"));
  g_assert_nonnull (strstr (text, ">layer 12</text>"));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/layout/roles", test_roles);
  g_test_add ("/layout/bands/gguf", Fixture, NULL, ts_test_dir_setup, test_gguf_bands, ts_test_dir_teardown);
  g_test_add ("/layout/dark-header", Fixture, NULL, ts_test_dir_setup, test_dark_header, ts_test_dir_teardown);
  g_test_add ("/layout/layer-brackets", Fixture, NULL, ts_test_dir_setup, test_layer_brackets, ts_test_dir_teardown);
  g_test_add ("/layout/bands/safetensors", Fixture, NULL, ts_test_dir_setup, test_safetensors_bands, ts_test_dir_teardown);
  g_test_add ("/layout/tiling-min-width", Fixture, NULL, ts_test_dir_setup, test_tiling_and_min_width, ts_test_dir_teardown);
  g_test_add ("/layout/zoom", Fixture, NULL, ts_test_dir_setup, test_zoom_ranges, ts_test_dir_teardown);
  g_test_add ("/layout/hit-test", Fixture, NULL, ts_test_dir_setup, test_hit_testing, ts_test_dir_teardown);
  g_test_add ("/layout/description", Fixture, NULL, ts_test_dir_setup, test_description, ts_test_dir_teardown);
  g_test_add ("/layout/in-layer-labels", Fixture, NULL, ts_test_dir_setup, test_in_layer_labels, ts_test_dir_teardown);
  g_test_add ("/layout/narrow-names", Fixture, NULL, ts_test_dir_setup, test_narrow_names, ts_test_dir_teardown);
  g_test_add ("/layout/noncharacters", Fixture, NULL, ts_test_dir_setup, test_noncharacters, ts_test_dir_teardown);
  g_test_add ("/layout/narrow-labels", Fixture, NULL, ts_test_dir_setup, test_narrow_labels, ts_test_dir_teardown);
  g_test_add ("/layout/empty-region", Fixture, NULL, ts_test_dir_setup, test_empty_region, ts_test_dir_teardown);
  g_test_add ("/layout/many-tensors", Fixture, NULL, ts_test_dir_setup, test_many_tensors, ts_test_dir_teardown);
  g_test_add ("/layout/png-too-tall", Fixture, NULL, ts_test_dir_setup, test_png_too_tall, ts_test_dir_teardown);
  g_test_add ("/layout/export", Fixture, NULL, ts_test_dir_setup, test_exports, ts_test_dir_teardown);
  g_test_add ("/layout/export-async", Fixture, NULL, ts_test_dir_setup, test_export_async, ts_test_dir_teardown);
  g_test_add ("/layout/export-cancelled", Fixture, NULL, ts_test_dir_setup, test_export_cancelled, ts_test_dir_teardown);

  return g_test_run ();
}
