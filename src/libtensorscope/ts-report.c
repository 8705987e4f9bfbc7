/* ts-report.c: the inspection report as JSON (docs/inspect-json.md)
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>

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
          gpointer     item,
          guint        position,
          gpointer     user_data)
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
            gpointer     item,
            guint        position,
            gpointer     user_data)
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
                    gpointer     item,
                    guint        position,
                    gpointer     user_data)
{
  TsMetadataEntry *e = item;

  json_builder_begin_object (b);
  add_string_member (b, "key", ts_metadata_entry_get_key (e));
  add_string_member (b, "type", ts_value_type_to_nick (ts_metadata_entry_get_value_type (e)));
  json_builder_set_member_name (b, "value");
  add_value (b, e);
  json_builder_end_object (b);
}

/* The report's arrays of model objects, in the order of the report: the
 * tree and the streaming writer both follow this table. */
static const struct
{
  const char  *name;
  GListModel *(*get_list) (TsModelFile *model);
  TsReportBuildFunc add_item;
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
      guint64 file_type;

      add_int_member (b, "gguf_version", ts_gguf_file_get_version (TS_GGUF_FILE (model)));
      add_int_member (b, "alignment", ts_gguf_file_get_alignment (TS_GGUF_FILE (model)));
      /* general.file_type's name, where the file has one llama.cpp names */
      if (ts_gguf_file_get_file_type (TS_GGUF_FILE (model), &file_type) &&
          ts_gguf_file_type_name (file_type) != NULL)
        add_string_member (b, "file_type", ts_gguf_file_type_name (file_type));
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
    ts_report_build_list (b, report_lists[l].name, report_lists[l].get_list (model),
                          report_lists[l].add_item, NULL);
  json_builder_set_member_name (b, "warnings");
  json_builder_begin_array (b);
  for (guint i = 0; warnings[i] != NULL; i++)
    json_builder_add_string_value (b, warnings[i]);
  json_builder_end_array (b);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

/* TsReportWriter: the outer objects and arrays are written here, each
 * member's value and each array item by JsonGenerator, so the text is
 * what ts_report_to_string (…, TRUE) makes of the same tree (the generator
 * puts an item on its own lines, indented by its depth, and its strings
 * never hold a raw newline), while no more than one item is ever held in
 * memory: a 1,000,000-tensor report took 2 GB as a tree. */

#define WRITER_CHUNK   (64 * 1024)
#define WRITER_DEPTH   8

struct _TsReportWriter
{
  GOutputStream *stream;
  GCancellable  *cancellable;
  JsonGenerator *generator;
  GString       *buffer;      /* whole values only, written by the 64 KiB */
  GString       *scratch;
  char          *indent;      /* one level of the generator's indentation */
  guint          depth;
  char           closing[WRITER_DEPTH];   /* '}' or ']' of each open container */
  gboolean       empty[WRITER_DEPTH];     /* nothing in it yet */
  GError        *error;
};

/**
 * ts_report_writer_new:
 * @stream: where to write
 * @cancellable: (nullable): a #GCancellable
 *
 * Returns: (transfer full): a writer of one JSON document to @stream
 */
TsReportWriter *
ts_report_writer_new (GOutputStream *stream,
                      GCancellable  *cancellable)
{
  TsReportWriter *self;
  g_autoptr(GString) indent = g_string_new (NULL);

  g_return_val_if_fail (G_IS_OUTPUT_STREAM (stream), NULL);
  g_return_val_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable), NULL);

  self = g_new0 (TsReportWriter, 1);
  self->stream = g_object_ref (stream);
  self->cancellable = cancellable ? g_object_ref (cancellable) : NULL;
  self->generator = json_generator_new ();
  json_generator_set_pretty (self->generator, TRUE);
  for (guint i = 0; i < json_generator_get_indent (self->generator); i++)
    g_string_append_unichar (indent, json_generator_get_indent_char (self->generator));
  self->indent = g_string_free (g_steal_pointer (&indent), FALSE);
  self->buffer = g_string_sized_new (WRITER_CHUNK + 4096);
  self->scratch = g_string_new (NULL);
  return self;
}

void
ts_report_writer_free (TsReportWriter *self)
{
  if (self == NULL)
    return;
  g_object_unref (self->stream);
  g_clear_object (&self->cancellable);
  g_object_unref (self->generator);
  g_string_free (self->buffer, TRUE);
  g_string_free (self->scratch, TRUE);
  g_free (self->indent);
  g_clear_error (&self->error);
  g_free (self);
}

static void
writer_flush (TsReportWriter *self)
{
  if (self->error == NULL && self->buffer->len > 0 &&
      !g_cancellable_set_error_if_cancelled (self->cancellable, &self->error))
    g_output_stream_write_all (self->stream, self->buffer->str, self->buffer->len,
                               NULL, self->cancellable, &self->error);
  g_string_truncate (self->buffer, 0);
}

static void
writer_newline (TsReportWriter *self)
{
  g_string_append_c (self->buffer, '\n');
  for (guint i = 0; i < self->depth; i++)
    g_string_append (self->buffer, self->indent);
}

/* @value as the generator writes it at the current depth */
static void
writer_value (TsReportWriter *self,
              JsonNode       *value)
{
  g_autofree char *valid = NULL;
  const char *text;

  json_generator_set_root (self->generator, value);
  g_string_truncate (self->scratch, 0);
  json_generator_to_gstring (self->generator, self->scratch);
  /* a string that is not UTF-8 (a file name need not be), which
   * json-glib writes as it is: JSON must be UTF-8 */
  text = self->scratch->str;
  if (!g_utf8_validate_len (text, self->scratch->len, NULL))
    text = valid = g_utf8_make_valid (text, (gssize) self->scratch->len);
  for (const char *p = text; *p != '\0'; p++)
    {
      if (*p == '\n')
        writer_newline (self);
      else
        g_string_append_c (self->buffer, *p);
    }
  if (self->buffer->len >= WRITER_CHUNK)
    writer_flush (self);
}

/* the separator before the next member or item, and the member's name */
static void
writer_next (TsReportWriter *self,
             const char     *member)
{
  if (self->depth > 0)
    {
      if (!self->empty[self->depth])
        g_string_append_c (self->buffer, ',');
      self->empty[self->depth] = FALSE;
      writer_newline (self);
    }
  if (member != NULL)
    {
      g_autoptr(JsonNode) key = json_node_init_string (json_node_alloc (), member);

      writer_value (self, key);
      g_string_append (self->buffer, " : ");
    }
}

static gboolean
writer_check_member (TsReportWriter *self,
                     const char     *member)
{
  gboolean in_object = self->depth > 0 && self->closing[self->depth] == '}';

  /* a name inside an object, none elsewhere */
  return (member != NULL) == in_object;
}

static void
writer_open (TsReportWriter *self,
             const char     *member,
             char            opening,
             char            closing)
{
  g_return_if_fail (self->depth + 1 < WRITER_DEPTH);
  g_return_if_fail (writer_check_member (self, member));

  writer_next (self, member);
  g_string_append_c (self->buffer, opening);
  self->depth++;
  self->closing[self->depth] = closing;
  self->empty[self->depth] = TRUE;
}

static void
writer_close (TsReportWriter *self,
              char            closing)
{
  g_return_if_fail (self->depth > 0 && self->closing[self->depth] == closing);

  self->depth--;
  if (!self->empty[self->depth + 1])
    writer_newline (self);
  g_string_append_c (self->buffer, closing);
}

/**
 * ts_report_writer_begin_object:
 * @self: a writer
 * @member: (nullable): the object's name in the enclosing object; %NULL at
 *   the top and in an array
 *
 * Opens an object, to be closed by ts_report_writer_end_object().
 */
void
ts_report_writer_begin_object (TsReportWriter *self,
                               const char     *member)
{
  g_return_if_fail (self != NULL);

  writer_open (self, member, '{', '}');
}

void
ts_report_writer_end_object (TsReportWriter *self)
{
  g_return_if_fail (self != NULL);

  writer_close (self, '}');
}

/**
 * ts_report_writer_begin_array:
 * @self: a writer
 * @member: (nullable): the array's name in the enclosing object; %NULL at
 *   the top and in an array
 *
 * Opens an array, to be closed by ts_report_writer_end_array().
 */
void
ts_report_writer_begin_array (TsReportWriter *self,
                              const char     *member)
{
  g_return_if_fail (self != NULL);

  writer_open (self, member, '[', ']');
}

void
ts_report_writer_end_array (TsReportWriter *self)
{
  g_return_if_fail (self != NULL);

  writer_close (self, ']');
}

/**
 * ts_report_writer_add:
 * @self: a writer
 * @member: (nullable): the value's name in the enclosing object; %NULL in
 *   an array
 * @value: a value, an object or an array
 *
 * Writes @value whole, as the next member or item.
 */
void
ts_report_writer_add (TsReportWriter *self,
                      const char     *member,
                      JsonNode       *value)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (value != NULL);
  g_return_if_fail (writer_check_member (self, member));

  writer_next (self, member);
  writer_value (self, value);
}

/**
 * ts_report_writer_add_built:
 * @self: a writer
 * @member: (nullable): as for ts_report_writer_add()
 * @builder: a builder holding one complete value
 *
 * Writes the value @builder holds, then resets @builder for the next one.
 */
void
ts_report_writer_add_built (TsReportWriter *self,
                            const char     *member,
                            JsonBuilder    *builder)
{
  g_autoptr(JsonNode) value = NULL;

  g_return_if_fail (self != NULL);
  g_return_if_fail (JSON_IS_BUILDER (builder));

  value = json_builder_get_root (builder);
  g_return_if_fail (value != NULL);

  ts_report_writer_add (self, member, value);
  json_builder_reset (builder);
}

/**
 * ts_report_writer_add_members:
 * @self: a writer
 * @object: members to write
 *
 * Writes each member of @object, in order, as a member of the open object.
 */
void
ts_report_writer_add_members (TsReportWriter *self,
                              JsonObject     *object)
{
  g_autoptr(GList) names = NULL;

  g_return_if_fail (self != NULL);
  g_return_if_fail (object != NULL);

  names = json_object_get_members (object);

  /* in the order they were added, as the generator writes them */
  for (const GList *l = names; l != NULL; l = l->next)
    ts_report_writer_add (self, l->data, json_object_get_member (object, l->data));
}

void
ts_report_writer_add_built_members (TsReportWriter *self,
                                    JsonBuilder    *builder)
{
  g_autoptr(JsonNode) object = NULL;

  g_return_if_fail (self != NULL);
  g_return_if_fail (JSON_IS_BUILDER (builder));

  object = json_builder_get_root (builder);
  g_return_if_fail (object != NULL && JSON_NODE_HOLDS_OBJECT (object));

  ts_report_writer_add_members (self, json_node_get_object (object));
  json_builder_reset (builder);
}

void
ts_report_build_list (JsonBuilder       *builder,
                      const char        *member,
                      GListModel        *list,
                      TsReportBuildFunc  build,
                      gpointer           user_data)
{
  json_builder_set_member_name (builder, member);
  json_builder_begin_array (builder);
  for (guint i = 0; i < g_list_model_get_n_items (list); i++)
    {
      g_autoptr(GObject) item = g_list_model_get_item (list, i);

      build (builder, item, i, user_data);
    }
  json_builder_end_array (builder);
}

void
ts_report_writer_add_list (TsReportWriter    *self,
                           const char        *member,
                           GListModel        *list,
                           JsonBuilder       *builder,
                           TsReportBuildFunc  build,
                           gpointer           user_data)
{
  g_return_if_fail (self != NULL);

  ts_report_writer_begin_array (self, member);
  /* after a write error or a cancel nothing more is written: nor built */
  for (guint i = 0; i < g_list_model_get_n_items (list) && self->error == NULL &&
                    !g_cancellable_is_cancelled (self->cancellable); i++)
    {
      g_autoptr(GObject) item = g_list_model_get_item (list, i);

      build (builder, item, i, user_data);
      ts_report_writer_add_built (self, NULL, builder);
    }
  ts_report_writer_end_array (self);
}

/**
 * ts_report_writer_finish:
 * @self: a writer whose containers are all closed
 * @error: return location for a #GError
 *
 * Writes what is left of the document (with no newline at the end).
 *
 * Returns: %TRUE if the whole document was written
 */
gboolean
ts_report_writer_finish (TsReportWriter  *self,
                         GError         **error)
{
  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (self->depth == 0, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  writer_flush (self);
  if (self->error != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&self->error));
      return FALSE;
    }
  return TRUE;
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
  g_autoptr(TsReportWriter) w = NULL;
  g_autoptr(JsonBuilder) b = json_builder_new ();
  const char * const *warnings;

  g_return_val_if_fail (TS_IS_MODEL_FILE (model), FALSE);
  g_return_val_if_fail (G_IS_OUTPUT_STREAM (stream), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  w = ts_report_writer_new (stream, cancellable);
  ts_report_writer_begin_object (w, NULL);
  json_builder_begin_object (b);
  add_summary (b, model);
  json_builder_end_object (b);
  ts_report_writer_add_built_members (w, b);

  for (guint l = 0; l < G_N_ELEMENTS (report_lists); l++)
    ts_report_writer_add_list (w, report_lists[l].name, report_lists[l].get_list (model), b,
                               report_lists[l].add_item, NULL);

  warnings = ts_model_file_get_warnings (model);
  ts_report_writer_begin_array (w, "warnings");
  for (guint i = 0; warnings[i] != NULL; i++)
    {
      g_autoptr(JsonNode) warning = json_node_init_string (json_node_alloc (), warnings[i]);

      ts_report_writer_add (w, NULL, warning);
    }
  ts_report_writer_end_array (w);
  ts_report_writer_end_object (w);
  return ts_report_writer_finish (w, error);
}

JsonNode *
ts_report_error (const GError *error)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();

  const char *code = "other";

  if (error->domain == TS_FORMAT_ERROR)
    code = ts_format_error_to_nick (error->code);
  else if (error->domain == G_IO_ERROR)
    {
      /* "cancelled", "no-space", "exists", …: what a script can act on */
      g_autoptr(GEnumClass) codes = g_type_class_ref (G_TYPE_IO_ERROR_ENUM);
      GEnumValue *value = g_enum_get_value (codes, error->code);

      if (value != NULL)
        code = value->value_nick;
    }
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "error");
  json_builder_begin_object (b);
  add_string_member (b, "domain", g_quark_to_string (error->domain));
  add_string_member (b, "code", code);
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

  gsize len = 0;
  char *text;

  json_generator_set_pretty (gen, pretty);
  json_generator_set_root (gen, node);
  text = json_generator_to_data (gen, &len);
  /* as writer_value(): JSON is UTF-8 whatever its strings came from */
  return ts_utf8_take_valid (text, (gssize) len);
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
      else if (*p == 0xef && p[1] == 0xbf && (p[2] == 0xbe || p[2] == 0xbf))
        {
          /* U+FFFE, U+FFFF: no character of XML 1.0 either */
          g_string_append_printf (out, "\\uff%02x", 0xc0 | (p[2] & 0x3f));
          p += 2;
        }
      else if (*p >= 0x80)
        {
          /* a character whole, or a byte that begins none (a file name
           * need not be UTF-8): a terminal would show it as garbage, and
           * XML and JSON do not take it at all */
          const char *next = g_utf8_find_next_char ((const char *) p, NULL);
          gsize n = (gsize) (next - (const char *) p);

          if ((gint32) g_utf8_get_char_validated ((const char *) p, (gssize) n) < 0)
            g_string_append_printf (out, "\\x%02x", *p);
          else
            {
              g_string_append_len (out, (const char *) p, (gssize) n);
              p += n - 1;
            }
        }
      else
        g_string_append_c (out, (char) *p);
    }
  return g_string_free (out, FALSE);
}

/* ------------------------------------------------------------------------ */
/* Exports                                                                   */

#define EXPORT_CREATED_KEY "ts-export-created"
#define EXPORT_FILE_KEY    "ts-export-file"

void
ts_export_prefix_error (GError **error,
                        GFile   *file)
{
  g_autofree char *name = NULL;

  if (error == NULL || *error == NULL || file == NULL)
    return;
  name = g_file_get_parse_name (file);
  if (strstr ((*error)->message, name) == NULL)
    g_prefix_error (error, "“%s”: ", name);
}

GOutputStream *
ts_export_stream_open (GFile         *file,
                       GCancellable  *cancellable,
                       GError       **error)
{
  g_autoptr(GFileInfo) info = NULL;
  GFileOutputStream *out;

  g_return_val_if_fail (G_IS_FILE (file), NULL);

  /* GIO opens what it replaces to check it first: a FIFO's open() waits
   * for a reader, for ever */
  info = g_file_query_info (file, G_FILE_ATTRIBUTE_STANDARD_TYPE, G_FILE_QUERY_INFO_NONE,
                            cancellable, NULL);
  if (info != NULL && g_file_info_get_file_type (info) == G_FILE_TYPE_SPECIAL)
    {
      g_autofree char *name = g_file_get_parse_name (file);

      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE,
                   _("“%s” is not a regular file (a pipe, device or socket): choose another name"),
                   name);
      return NULL;
    }
  out = g_file_replace (file, NULL, FALSE, G_FILE_CREATE_REPLACE_DESTINATION, cancellable, error);
  if (out == NULL)
    {
      ts_export_prefix_error (error, file);
      return NULL;
    }
  if (info == NULL)
    g_object_set_data_full (G_OBJECT (out), EXPORT_CREATED_KEY, g_object_ref (file), g_object_unref);
  g_object_set_data_full (G_OBJECT (out), EXPORT_FILE_KEY, g_object_ref (file), g_object_unref);
  return G_OUTPUT_STREAM (out);
}

gboolean
ts_export_stream_close (GOutputStream  *stream,
                        gboolean        complete,
                        GCancellable   *cancellable,
                        GError        **error)
{
  GFile *created;

  g_return_val_if_fail (G_IS_OUTPUT_STREAM (stream), FALSE);

  created = g_object_get_data (G_OBJECT (stream), EXPORT_CREATED_KEY);
  if (complete && g_output_stream_close (stream, cancellable, error))
    return TRUE;
  ts_export_prefix_error (error, g_object_get_data (G_OBJECT (stream), EXPORT_FILE_KEY));

  if (!complete)
    {
      /* closed under a cancelled cancellable, GIO drops its temporary file
       * and leaves a file it was replacing as it was */
      g_autoptr(GCancellable) abandon = g_cancellable_new ();

      g_cancellable_cancel (abandon);
      g_output_stream_close (stream, abandon, NULL);
    }
  if (created != NULL)
    g_file_delete (created, NULL, NULL);
  return FALSE;
}

gboolean
ts_export_replace_contents (GFile         *file,
                            const void    *data,
                            gsize          len,
                            GCancellable  *cancellable,
                            GError       **error)
{
  g_autoptr(GOutputStream) out = ts_export_stream_open (file, cancellable, error);
  gboolean complete;

  if (out == NULL)
    return FALSE;
  complete = g_output_stream_write_all (out, data, len, NULL, cancellable, error);
  if (!complete)
    ts_export_prefix_error (error, file);
  return ts_export_stream_close (out, complete, cancellable, complete ? error : NULL) && complete;
}
