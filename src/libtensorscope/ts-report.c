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
add_part (JsonBuilder *b,
          gpointer     item)
{
  TsFilePart *part = item;
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

static void
add_tensor (JsonBuilder *b,
            gpointer     item)
{
  TsTensor *t = item;
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

static void
add_metadata_entry (JsonBuilder *b,
                    gpointer     item)
{
  TsMetadataEntry *e = item;

  json_builder_begin_object (b);
  add_string_member (b, "key", ts_metadata_entry_get_key (e));
  add_string_member (b, "type", ts_value_type_to_nick (ts_metadata_entry_get_value_type (e)));
  json_builder_set_member_name (b, "value");
  add_value (b, e);
  json_builder_end_object (b);
}

typedef void (*AddItemFunc) (JsonBuilder *b,
                             gpointer     item);

/* The report's arrays of model objects, in the order of the report: the
 * tree and the streaming writer both follow this table. */
static const struct
{
  const char  *name;
  GListModel *(*get_list) (TsModelFile *model);
  AddItemFunc  add_item;
} report_lists[] = {
  { "parts", ts_model_file_get_parts, add_part },
  { "metadata", ts_model_file_get_metadata, add_metadata_entry },
  { "tensors", ts_model_file_get_tensors, add_tensor },
};

/* the members before the arrays */
static void
add_summary (JsonBuilder *b,
             TsModelFile *model)
{
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
  add_summary (b, model);
  for (guint l = 0; l < G_N_ELEMENTS (report_lists); l++)
    {
      GListModel *list = report_lists[l].get_list (model);

      json_builder_set_member_name (b, report_lists[l].name);
      json_builder_begin_array (b);
      for (guint i = 0; i < g_list_model_get_n_items (list); i++)
        {
          g_autoptr(GObject) item = g_list_model_get_item (list, i);

          report_lists[l].add_item (b, item);
        }
      json_builder_end_array (b);
    }
  json_builder_set_member_name (b, "warnings");
  json_builder_begin_array (b);
  for (guint i = 0; warnings[i] != NULL; i++)
    json_builder_add_string_value (b, warnings[i]);
  json_builder_end_array (b);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

/* The streaming writer: the report's outer object and arrays are written
 * here, each member's value and each array item by JsonGenerator, so the
 * text is what ts_report_to_string (…, TRUE) makes of ts_report_inspect()
 * (the generator puts each item on its own lines, indented by its depth;
 * its strings never hold a raw newline), while no more than one item is
 * ever held in memory: a 1,000,000-tensor report took 2 GB as a tree. */

#define WRITER_CHUNK   (64 * 1024)
#define WRITER_DEPTH   4

typedef struct
{
  GOutputStream *stream;
  GCancellable  *cancellable;
  JsonGenerator *generator;
  JsonBuilder   *builder;
  GString       *buffer;      /* whole items only, written by the KiB */
  GString       *scratch;
  char          *indent;      /* one level of the generator's indentation */
  guint          depth;
  gboolean       empty[WRITER_DEPTH];
  GError        *error;
} ReportWriter;

static void
writer_flush (ReportWriter *w)
{
  if (w->error == NULL && w->buffer->len > 0)
    g_output_stream_write_all (w->stream, w->buffer->str, w->buffer->len,
                               NULL, w->cancellable, &w->error);
  g_string_truncate (w->buffer, 0);
}

static void
writer_newline (ReportWriter *w)
{
  g_string_append_c (w->buffer, '\n');
  for (guint i = 0; i < w->depth; i++)
    g_string_append (w->buffer, w->indent);
}

static void
writer_open (ReportWriter *w,
             char          bracket)
{
  g_assert (w->depth + 1 < WRITER_DEPTH);

  g_string_append_c (w->buffer, bracket);
  w->empty[++w->depth] = TRUE;
}

static void
writer_close (ReportWriter *w,
              char          bracket)
{
  g_assert (w->depth > 0);

  w->depth--;
  if (!w->empty[w->depth + 1])
    writer_newline (w);
  g_string_append_c (w->buffer, bracket);
}

/* the separator before the next member or item of the open container */
static void
writer_next (ReportWriter *w)
{
  if (!w->empty[w->depth])
    g_string_append_c (w->buffer, ',');
  w->empty[w->depth] = FALSE;
  writer_newline (w);
}

/* @node as the generator writes it at the current depth */
static void
writer_node (ReportWriter *w,
             JsonNode     *node)
{
  json_generator_set_root (w->generator, node);
  g_string_truncate (w->scratch, 0);
  json_generator_to_gstring (w->generator, w->scratch);
  for (const char *p = w->scratch->str; *p != '\0'; p++)
    {
      if (*p == '\n')
        writer_newline (w);
      else
        g_string_append_c (w->buffer, *p);
    }
  if (w->buffer->len >= WRITER_CHUNK)
    writer_flush (w);
}

/* the name of the next member of the open object */
static void
writer_key (ReportWriter *w,
            const char   *name)
{
  g_autoptr(JsonNode) key = json_node_init_string (json_node_alloc (), name);

  writer_next (w);
  writer_node (w, key);
  g_string_append (w->buffer, " : ");
}

/* the array @name: the items of @list, built and written one at a time */
static void
writer_list (ReportWriter *w,
             const char   *name,
             GListModel   *list,
             AddItemFunc   add_item)
{
  writer_key (w, name);
  writer_open (w, '[');
  for (guint i = 0; i < g_list_model_get_n_items (list) && w->error == NULL; i++)
    {
      g_autoptr(GObject) item = g_list_model_get_item (list, i);
      g_autoptr(JsonNode) node = NULL;

      json_builder_reset (w->builder);
      add_item (w->builder, item);
      node = json_builder_get_root (w->builder);
      writer_next (w);
      writer_node (w, node);
      if (i % 1024 == 0)
        g_cancellable_set_error_if_cancelled (w->cancellable, &w->error);
    }
  writer_close (w, ']');
}

static void
writer_warnings (ReportWriter       *w,
                 const char * const *warnings)
{
  writer_key (w, "warnings");
  writer_open (w, '[');
  for (guint i = 0; warnings[i] != NULL; i++)
    {
      g_autoptr(JsonNode) node = json_node_init_string (json_node_alloc (), warnings[i]);

      writer_next (w);
      writer_node (w, node);
    }
  writer_close (w, ']');
}

static void
writer_summary (ReportWriter *w,
                TsModelFile  *model)
{
  g_autoptr(JsonNode) root = NULL;
  JsonObject *object;
  g_autoptr(GList) names = NULL;

  json_builder_reset (w->builder);
  json_builder_begin_object (w->builder);
  add_summary (w->builder, model);
  json_builder_end_object (w->builder);
  root = json_builder_get_root (w->builder);
  object = json_node_get_object (root);
  /* in the order they were added, as the generator writes them */
  names = json_object_get_members (object);
  for (const GList *l = names; l != NULL; l = l->next)
    {
      writer_key (w, l->data);
      writer_node (w, json_object_get_member (object, l->data));
    }
}

/**
 * ts_report_write_inspect:
 * @model: a model
 * @stream: where to write
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Writes the report of ts_report_inspect() to @stream, byte for byte as
 * ts_report_to_string (…, TRUE) writes it (with no newline at the end), one
 * item (a part, a metadata entry, a tensor) at a time: the memory it takes
 * does not grow with the model. Every write holds whole UTF-8 characters.
 *
 * Returns: %TRUE if the whole report was written
 */
gboolean
ts_report_write_inspect (TsModelFile    *model,
                         GOutputStream  *stream,
                         GCancellable   *cancellable,
                         GError        **error)
{
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(GString) buffer = g_string_sized_new (WRITER_CHUNK + 4096);
  g_autoptr(GString) scratch = g_string_new (NULL);
  g_autoptr(GString) indent = g_string_new (NULL);
  ReportWriter w = { 0 };

  g_return_val_if_fail (TS_IS_MODEL_FILE (model), FALSE);
  g_return_val_if_fail (G_IS_OUTPUT_STREAM (stream), FALSE);
  g_return_val_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  json_generator_set_pretty (generator, TRUE);
  for (guint i = 0; i < json_generator_get_indent (generator); i++)
    g_string_append_unichar (indent, json_generator_get_indent_char (generator));
  w.stream = stream;
  w.cancellable = cancellable;
  w.generator = generator;
  w.builder = builder;
  w.buffer = buffer;
  w.scratch = scratch;
  w.indent = indent->str;

  writer_open (&w, '{');
  writer_summary (&w, model);
  for (guint l = 0; l < G_N_ELEMENTS (report_lists); l++)
    writer_list (&w, report_lists[l].name, report_lists[l].get_list (model),
                 report_lists[l].add_item);
  writer_warnings (&w, ts_model_file_get_warnings (model));
  writer_close (&w, '}');
  writer_flush (&w);

  if (w.error != NULL)
    {
      g_propagate_error (error, w.error);
      return FALSE;
    }
  return TRUE;
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
