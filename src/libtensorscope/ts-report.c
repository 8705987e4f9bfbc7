/* ts-report.c: the inspection report as JSON (docs/inspect-json.md)
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "ts-error.h"
#include "ts-gguf-file.h"
#include "ts-report.h"

#define REPORT_ARRAY_ITEMS 8

static void add_value (JsonBuilder *b, TsMetadataEntry *entry);

static void
add_double (JsonBuilder *b,
            double       d)
{
  if (isnan (d))
    json_builder_add_string_value (b, "nan");
  else if (isinf (d))
    json_builder_add_string_value (b, d > 0 ? "inf" : "-inf");
  else
    json_builder_add_double_value (b, d);
}

static void
add_array_value (JsonBuilder     *b,
                 TsMetadataEntry *entry)
{
  guint64 n = ts_metadata_entry_get_array_length (entry);

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "element_type");
  json_builder_add_string_value (b, ts_value_type_to_nick (ts_metadata_entry_get_array_type (entry)));
  json_builder_set_member_name (b, "count");
  json_builder_add_int_value (b, (gint64) n);
  json_builder_set_member_name (b, "items");
  json_builder_begin_array (b);
  for (guint64 i = 0; i < MIN (n, REPORT_ARRAY_ITEMS); i++)
    {
      g_autoptr(TsMetadataEntry) item = ts_metadata_entry_get_item (entry, i);

      add_value (b, item);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
}

static void
add_value (JsonBuilder     *b,
           TsMetadataEntry *entry)
{
  switch (ts_metadata_entry_get_value_type (entry))
    {
    case TS_VALUE_STRING:
      {
        g_autofree char *s = ts_metadata_entry_dup_string (entry);

        json_builder_add_string_value (b, s);
      }
      break;
    case TS_VALUE_ARRAY:
      add_array_value (b, entry);
      break;
    case TS_VALUE_BOOL:
      json_builder_add_boolean_value (b, ts_metadata_entry_get_boolean (entry));
      break;
    case TS_VALUE_FLOAT32:
    case TS_VALUE_FLOAT64:
      add_double (b, ts_metadata_entry_get_double (entry));
      break;
    case TS_VALUE_UINT64:
      if (ts_metadata_entry_get_uint64 (entry) > G_MAXINT64)
        {
          g_autofree char *s = ts_metadata_entry_to_string (entry);

          json_builder_add_string_value (b, s);
          break;
        }
      G_GNUC_FALLTHROUGH;
    case TS_VALUE_UINT8:
    case TS_VALUE_INT8:
    case TS_VALUE_UINT16:
    case TS_VALUE_INT16:
    case TS_VALUE_UINT32:
    case TS_VALUE_INT32:
    case TS_VALUE_INT64:
      json_builder_add_int_value (b, ts_metadata_entry_get_int64 (entry));
      break;
    case TS_VALUE_N_TYPES:
    default:
      json_builder_add_null_value (b);
    }
}

static void
add_int_member (JsonBuilder *b,
                const char  *name,
                guint64      v)
{
  json_builder_set_member_name (b, name);
  json_builder_add_int_value (b, (gint64) v);
}

static void
add_string_member (JsonBuilder *b,
                   const char  *name,
                   const char  *v)
{
  json_builder_set_member_name (b, name);
  json_builder_add_string_value (b, v);
}

static void
add_parts (JsonBuilder *b,
           TsModelFile *model)
{
  GListModel *parts = ts_model_file_get_parts (model);

  json_builder_set_member_name (b, "parts");
  json_builder_begin_array (b);
  for (guint i = 0; i < g_list_model_get_n_items (parts); i++)
    {
      g_autoptr(TsFilePart) part = g_list_model_get_item (parts, i);
      g_autofree char *path = g_file_get_path (ts_file_part_get_file (part));
      GListModel *regions = ts_file_part_get_regions (part);

      json_builder_begin_object (b);
      add_string_member (b, "path", path);
      add_string_member (b, "name", ts_file_part_get_name (part));
      add_int_member (b, "size", ts_file_part_get_size (part));
      add_int_member (b, "data_offset", ts_file_part_get_data_offset (part));
      json_builder_set_member_name (b, "regions");
      json_builder_begin_array (b);
      for (guint j = 0; j < g_list_model_get_n_items (regions); j++)
        {
          g_autoptr(TsRegion) r = g_list_model_get_item (regions, j);

          json_builder_begin_object (b);
          add_string_member (b, "kind", ts_region_kind_to_nick (ts_region_get_kind (r)));
          add_int_member (b, "offset", ts_region_get_offset (r));
          add_int_member (b, "length", ts_region_get_length (r));
          json_builder_end_object (b);
        }
      json_builder_end_array (b);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
}

static void
add_tensors (JsonBuilder *b,
             TsModelFile *model)
{
  GListModel *tensors = ts_model_file_get_tensors (model);

  json_builder_set_member_name (b, "tensors");
  json_builder_begin_array (b);
  for (guint i = 0; i < g_list_model_get_n_items (tensors); i++)
    {
      g_autoptr(TsTensor) t = g_list_model_get_item (tensors, i);
      const guint64 *shape = ts_tensor_get_shape (t);

      json_builder_begin_object (b);
      add_string_member (b, "name", ts_tensor_get_name (t));
      add_string_member (b, "dtype", ts_tensor_get_dtype_name (t));
      if (ts_tensor_get_dtype (t) == TS_DTYPE_UNKNOWN)
        add_string_member (b, "raw_dtype", ts_tensor_get_raw_dtype (t));
      json_builder_set_member_name (b, "shape");
      json_builder_begin_array (b);
      for (guint d = 0; d < ts_tensor_get_n_dims (t); d++)
        json_builder_add_int_value (b, (gint64) shape[d]);
      json_builder_end_array (b);
      add_int_member (b, "part", ts_file_part_get_index (ts_tensor_get_part (t)));
      add_int_member (b, "offset", ts_tensor_get_offset (t));
      add_int_member (b, "size", ts_tensor_get_size (t));
      add_int_member (b, "elements", ts_tensor_get_n_elements (t));
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
}

static void
add_metadata (JsonBuilder *b,
              TsModelFile *model)
{
  GListModel *metadata = ts_model_file_get_metadata (model);

  json_builder_set_member_name (b, "metadata");
  json_builder_begin_array (b);
  for (guint i = 0; i < g_list_model_get_n_items (metadata); i++)
    {
      g_autoptr(TsMetadataEntry) e = g_list_model_get_item (metadata, i);

      json_builder_begin_object (b);
      add_string_member (b, "key", ts_metadata_entry_get_key (e));
      add_string_member (b, "type", ts_value_type_to_nick (ts_metadata_entry_get_value_type (e)));
      json_builder_set_member_name (b, "value");
      add_value (b, e);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
}

/**
 * ts_report_inspect:
 *
 * Returns: (transfer full): the inspection report of @model
 */
JsonNode *
ts_report_inspect (TsModelFile *model)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  const char * const *warnings = ts_model_file_get_warnings (model);

  g_return_val_if_fail (TS_IS_MODEL_FILE (model), NULL);

  json_builder_begin_object (b);
  add_string_member (b, "format", ts_format_to_nick (ts_model_file_get_format (model)));
  if (TS_IS_GGUF_FILE (model))
    {
      add_int_member (b, "gguf_version", ts_gguf_file_get_version (TS_GGUF_FILE (model)));
      add_int_member (b, "alignment", ts_gguf_file_get_alignment (TS_GGUF_FILE (model)));
    }
  add_int_member (b, "total_size", ts_model_file_get_total_size (model));
  add_int_member (b, "tensor_count", ts_model_file_get_n_tensors (model));
  add_int_member (b, "parameter_count", ts_model_file_get_parameter_count (model));
  add_int_member (b, "tensor_data_size", ts_model_file_get_tensor_data_size (model));
  add_int_member (b, "before_data_size", ts_model_file_get_before_data_size (model));
  add_parts (b, model);
  add_metadata (b, model);
  add_tensors (b, model);
  json_builder_set_member_name (b, "warnings");
  json_builder_begin_array (b);
  for (guint i = 0; warnings[i] != NULL; i++)
    json_builder_add_string_value (b, warnings[i]);
  json_builder_end_array (b);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

JsonNode *
ts_report_error (const GError *error)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "error");
  json_builder_begin_object (b);
  add_string_member (b, "domain", g_quark_to_string (error->domain));
  add_string_member (b, "code", error->domain == TS_FORMAT_ERROR
                                ? ts_format_error_to_nick (error->code) : "other");
  add_string_member (b, "message", error->message);
  json_builder_end_object (b);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

char *
ts_report_to_string (JsonNode *node,
                     gboolean  pretty)
{
  g_autoptr(JsonGenerator) gen = json_generator_new ();

  json_generator_set_pretty (gen, pretty);
  json_generator_set_root (gen, node);
  return json_generator_to_data (gen, NULL);
}

/* Names and values come from the files, which may hold terminal control
 * sequences (ESC [ 2 J clears the screen, ESC ] 0 ; … BEL sets the window
 * title), or characters XML 1.0 does not allow even as &#x1;. */
char *
ts_escape_controls (const char *text)
{
  GString *out = g_string_sized_new (strlen (text));

  for (const guchar *p = (const guchar *) text; *p; p++)
    {
      if (*p < 0x20 && *p != '\n' && *p != '\t')
        g_string_append_printf (out, "\\x%02x", *p);
      else if (*p == 0x7f)
        g_string_append (out, "\\u007f");
      else if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)
        g_string_append_printf (out, "\\u%04x", *++p);
      else
        g_string_append_c (out, (char) *p);
    }
  return g_string_free (out, FALSE);
}
