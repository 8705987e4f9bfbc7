/* fuzz-common.c: shared helpers of the libFuzzer targets
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>

#include "fuzz-common.h"

static char *work_dir;

/* Criticals (a g_return_if_fail() in the library or json-glib) and warnings
 * abort, so libFuzzer records the input; G_BREAKPOINT's SIGTRAP would not. */
static void
fatal_log_handler (const char     *domain,
                   GLogLevelFlags  level,
                   const char     *message,
                   gpointer        user_data)
{
  g_log_default_handler (domain, level, message, user_data);
  if (level & (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING))
    abort ();
}

static void
remove_work_dir (void)
{
  g_autoptr(GDir) dir = NULL;
  const char *name;

  if (work_dir == NULL)
    return;
  dir = g_dir_open (work_dir, 0, NULL);
  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename (work_dir, name, NULL);

      g_unlink (path);
    }
  g_rmdir (work_dir);
}

void
ts_fuzz_init (void)
{
  const char *base = g_file_test ("/dev/shm", G_FILE_TEST_IS_DIR) ? "/dev/shm" : g_get_tmp_dir ();
  /* six 'X's: the part g_mkdtemp() replaces with a unique name */
  g_autofree char *placeholder = g_strnfill (6, 'X');
  g_autofree char *leaf = g_strconcat ("tsfuzz-", placeholder, NULL);
  g_autofree char *tmpl = g_build_filename (base, leaf, NULL);

  if (work_dir != NULL)
    return;
  g_log_set_default_handler (fatal_log_handler, NULL);
  work_dir = g_mkdtemp (g_steal_pointer (&tmpl));
  if (work_dir == NULL)
    g_error ("cannot create a work folder in %s: %s", base, g_strerror (errno));
  atexit (remove_work_dir);
}

GFile *
ts_fuzz_fresh_dir (void)
{
  g_autoptr(GDir) dir = g_dir_open (work_dir, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename (work_dir, name, NULL);

      if (g_unlink (path) != 0)
        g_error ("cannot remove %s: %s", path, g_strerror (errno));
    }
  return g_file_new_for_path (work_dir);
}

GFile *
ts_fuzz_write_file (GFile        *dir,
                    const char   *name,
                    const guint8 *data,
                    gsize         size)
{
  GFile *file = g_file_get_child (dir, name);
  g_autofree char *path = g_file_get_path (file);
  g_autoptr(GError) error = NULL;

  if (!g_file_set_contents (path, (const char *) data, (gssize) size, &error))
    g_error ("%s", error->message);
  return file;
}

/* Only [A-Za-z0-9._-], at most 64 bytes, never "." or "..". */
static char *
sanitize_name (const guint8 *s,
               gsize         len,
               const char   *fallback)
{
  GString *name = g_string_new (NULL);

  for (gsize i = 0; i < len && name->len < 64; i++)
    if (g_ascii_isalnum (s[i]) || s[i] == '.' || s[i] == '_' || s[i] == '-')
      g_string_append_c (name, (char) s[i]);
  if (name->len == 0 || g_str_equal (name->str, ".") || g_str_equal (name->str, ".."))
    g_string_assign (name, fallback);
  return g_string_free (name, FALSE);
}

guint
ts_fuzz_write_pieces (GFile        *dir,
                      const guint8 *data,
                      gsize         size,
                      const char   *default_name)
{
  const gsize sep_len = strlen (TS_FUZZ_SEPARATOR);
  gsize start = 0;
  guint n = 0;

  while (start <= size && n < 16)
    {
      const guint8 *end = memmem (data + start, size - start, TS_FUZZ_SEPARATOR, sep_len);
      gsize piece_len = end ? (gsize) (end - (data + start)) : size - start;
      const guint8 *piece = data + start;
      const guint8 *nl = memchr (piece, '\n', piece_len);
      g_autofree char *fallback = g_strdup_printf ("%s%u", default_name, n);
      g_autofree char *name = NULL;
      g_autoptr(GFile) file = NULL;

      if (nl == NULL)
        name = sanitize_name (piece, 0, fallback);
      else
        name = sanitize_name (piece, nl - piece, fallback);
      if (nl != NULL)
        file = ts_fuzz_write_file (dir, name, nl + 1, piece_len - (nl + 1 - piece));
      else
        file = ts_fuzz_write_file (dir, name, piece, piece_len);
      n++;
      if (end == NULL)
        break;
      start += piece_len + sep_len;
    }
  return n;
}

static void
check_pointer (const void   *p,
               guint64       len,
               const guint8 *base,
               guint64       size)
{
  const guint8 *q = p;

  ts_fuzz_assert (q != NULL);
  ts_fuzz_assert (q >= base);
  ts_fuzz_assert ((guint64) (q - base) <= size);
  ts_fuzz_assert (len <= size - (guint64) (q - base));
}

void
ts_fuzz_walk_metadata (TsMetadataEntry *entry,
                       const guint8    *base,
                       guint64          size,
                       guint            depth,
                       guint64         *budget)
{
  TsValueType type = ts_metadata_entry_get_value_type (entry);
  g_autofree char *text = ts_metadata_entry_to_string (entry);

  ts_fuzz_assert (text != NULL);
  ts_fuzz_assert (depth < 64);
  (void) ts_metadata_entry_get_uint64 (entry);
  (void) ts_metadata_entry_get_int64 (entry);
  (void) ts_metadata_entry_get_double (entry);
  (void) ts_metadata_entry_get_boolean (entry);
  if (base != NULL)
    check_pointer (base + ts_metadata_entry_get_offset (entry),
                   ts_metadata_entry_get_length (entry), base, size);

  if (type == TS_VALUE_STRING)
    {
      gsize len = 0;
      const char *s = ts_metadata_entry_get_string (entry, &len);
      g_autofree char *valid = ts_metadata_entry_dup_string (entry);

      ts_fuzz_assert (s != NULL && valid != NULL);
      ts_fuzz_assert (g_utf8_validate (valid, -1, NULL));
      if (base != NULL)
        check_pointer (s, len, base, size);
    }
  else if (type == TS_VALUE_ARRAY)
    {
      TsValueType item_type = ts_metadata_entry_get_array_type (entry);
      guint64 n = ts_metadata_entry_get_array_length (entry);
      const guint8 *raw = ts_metadata_entry_get_array_data (entry);

      if (raw != NULL && base != NULL)
        check_pointer (raw, n * ts_value_type_get_size (item_type), base, size);
      for (guint64 i = 0; i < n && *budget > 0; i++, (*budget)--)
        {
          g_autoptr(TsMetadataEntry) item = NULL;

          if (item_type == TS_VALUE_STRING)
            {
              gsize len = 0;
              const char *s = ts_metadata_entry_get_item_string (entry, i, &len);

              ts_fuzz_assert (s != NULL);
              if (base != NULL)
                check_pointer (s, len, base, size);
            }
          item = ts_metadata_entry_get_item (entry, i);
          ts_fuzz_assert (item != NULL);
          ts_fuzz_assert (ts_metadata_entry_get_value_type (item) == item_type);
          ts_fuzz_walk_metadata (item, base, size, depth + 1, budget);
        }
    }
}

static void
check_regions (TsFilePart *part)
{
  GListModel *regions = ts_file_part_get_regions (part);
  guint n = g_list_model_get_n_items (regions);
  guint64 expected = 0;

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(TsRegion) r = g_list_model_get_item (regions, i);

      ts_fuzz_assert ((guint) ts_region_get_kind (r) < TS_REGION_N_KINDS);
      ts_fuzz_assert (ts_region_get_offset (r) == expected);
      ts_fuzz_assert (ts_region_get_end (r) >= ts_region_get_offset (r));
      expected = ts_region_get_end (r);
    }
  ts_fuzz_assert (expected == ts_file_part_get_size (part));
  ts_fuzz_assert (ts_file_part_get_data_offset (part) <= ts_file_part_get_size (part));
}

static void
check_tensor (TsTensor *t)
{
  TsFilePart *part = ts_tensor_get_part (t);
  guint64 size = ts_file_part_get_size (part);
  guint64 dims[TS_MAX_DIMS];
  g_autofree char *shape = ts_tensor_format_shape (t);

  ts_fuzz_assert (ts_tensor_get_name (t) != NULL && shape != NULL);
  ts_fuzz_assert (ts_tensor_get_dtype_name (t) != NULL);
  ts_fuzz_assert (ts_tensor_get_n_dims (t) <= TS_MAX_DIMS);
  ts_tensor_get_row_major_shape (t, dims);
  ts_fuzz_assert (ts_tensor_get_offset (t) <= size);
  ts_fuzz_assert (ts_tensor_get_size (t) <= size - ts_tensor_get_offset (t));
  if (ts_tensor_get_size (t) > 0)
    check_pointer (ts_tensor_get_data (t), ts_tensor_get_size (t),
                   ts_file_part_get_contents (part), size);
}

static void
walk_layout (TsModelFile *model)
{
  g_autoptr(TsLayout) layout = ts_layout_new (model);
  guint n;

  ts_layout_allocate (layout, 800);
  n = ts_layout_get_n_bands (layout);
  for (guint i = 0; i < n && i < 256; i++)
    {
      const TsLayoutBand *band = ts_layout_get_band (layout, i);
      g_autofree char *desc = ts_layout_dup_band_description (layout, band);

      ts_fuzz_assert (band->id == i);
      ts_fuzz_assert (desc != NULL);
    }
  (void) ts_layout_hit_test (layout, 400, 40);
  (void) ts_layout_x_to_offset (layout, 400);
}

void
ts_fuzz_walk_model (TsModelFile *model)
{
  GListModel *parts = ts_model_file_get_parts (model);
  GListModel *tensors = ts_model_file_get_tensors (model);
  GListModel *metadata = ts_model_file_get_metadata (model);
  g_autoptr(JsonNode) report = NULL;
  g_autofree char *text = NULL;
  const guint8 *base = NULL;
  guint64 base_size = 0;
  guint64 budget = 100000;
  guint64 data_size = 0;

  ts_fuzz_assert (g_list_model_get_n_items (parts) > 0);
  for (guint i = 0; i < g_list_model_get_n_items (parts); i++)
    {
      g_autoptr(TsFilePart) part = g_list_model_get_item (parts, i);

      check_regions (part);
    }
  for (guint i = 0; i < g_list_model_get_n_items (tensors); i++)
    {
      g_autoptr(TsTensor) t = g_list_model_get_item (tensors, i);

      check_tensor (t);
      data_size += ts_tensor_get_size (t);
      ts_fuzz_assert (ts_model_file_lookup_tensor (model, ts_tensor_get_name (t)) == t);
    }
  ts_fuzz_assert (data_size == ts_model_file_get_tensor_data_size (model));
  if (ts_model_file_get_format (model) == TS_FORMAT_GGUF)
    {
      g_autoptr(TsFilePart) part = g_list_model_get_item (parts, 0);

      base = ts_file_part_get_contents (part);
      base_size = ts_file_part_get_size (part);
    }
  for (guint i = 0; i < g_list_model_get_n_items (metadata); i++)
    {
      g_autoptr(TsMetadataEntry) e = g_list_model_get_item (metadata, i);

      ts_fuzz_walk_metadata (e, base, base_size, 0, &budget);
    }
  (void) ts_model_file_get_total_size (model);
  (void) ts_model_file_get_before_data_size (model);
  (void) ts_model_file_get_warnings (model);

  report = ts_report_inspect (model);
  text = ts_report_to_string (report, FALSE);
  ts_fuzz_assert (text != NULL);
  walk_layout (model);
}
