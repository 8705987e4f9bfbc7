/* ts-model-file.c
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>

#include <langinfo.h>
#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>

#include "ts-array-model.h"
#include "ts-error.h"
#include "ts-gguf-file.h"
#include "ts-model-file-private.h"
#include "ts-safetensors-file.h"

/* Implemented by the readers */
TsModelFile *_ts_gguf_file_load        (GFile *file, TsLoadProgress *progress,
                                        GCancellable *cancellable, GError **error);
TsModelFile *_ts_safetensors_file_load (GFile *file, TsLoadProgress *progress,
                                        GCancellable *cancellable, GError **error);

#define PROGRESS_INTERVAL_US (100 * G_TIME_SPAN_MILLISECOND)

typedef struct
{
  GFile      *file;
  char       *display_name;
  TsArrayModel *parts;
  TsArrayModel *tensors;
  TsArrayModel *metadata;
  GHashTable *tensor_by_name;
  GHashTable *metadata_by_key;
  GPtrArray  *warnings;
  guint64     parameter_count;
  guint64     tensor_data_size;
  TsLoadProgress *progress;     /* only while a reader builds the model */
} TsModelFilePrivate;

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (TsModelFile, ts_model_file, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_FILE,
  PROP_DISPLAY_NAME,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

const char *
ts_format_to_nick (TsFormat format)
{
  return format == TS_FORMAT_GGUF ? "gguf" : "safetensors";
}

static void
ts_model_file_finalize (GObject *object)
{
  TsModelFile *self = (TsModelFile *)object;
  TsModelFilePrivate *priv = ts_model_file_get_instance_private (self);

  g_clear_object (&priv->file);
  g_clear_pointer (&priv->display_name, g_free);
  g_clear_object (&priv->parts);
  g_clear_object (&priv->tensors);
  g_clear_object (&priv->metadata);
  g_clear_pointer (&priv->tensor_by_name, g_hash_table_unref);
  g_clear_pointer (&priv->metadata_by_key, g_hash_table_unref);
  g_clear_pointer (&priv->warnings, g_ptr_array_unref);

  G_OBJECT_CLASS (ts_model_file_parent_class)->finalize (object);
}

static void
ts_model_file_get_property (GObject    *object,
                            guint       prop_id,
                            GValue     *value,
                            GParamSpec *pspec)
{
  TsModelFile *self = TS_MODEL_FILE (object);

  switch (prop_id)
    {
    case PROP_FILE:
      g_value_set_object (value, ts_model_file_get_file (self));
      break;
    case PROP_DISPLAY_NAME:
      g_value_set_string (value, ts_model_file_get_display_name (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ts_model_file_class_init (TsModelFileClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = ts_model_file_finalize;
  object_class->get_property = ts_model_file_get_property;

  properties[PROP_FILE] =
    g_param_spec_object ("file", NULL, NULL, G_TYPE_FILE,
                         (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  properties[PROP_DISPLAY_NAME] =
    g_param_spec_string ("display-name", NULL, NULL, NULL,
                         (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
ts_model_file_init (TsModelFile *self)
{
  TsModelFilePrivate *priv = ts_model_file_get_instance_private (self);

  priv->parts = _ts_array_model_new (TS_TYPE_FILE_PART);
  priv->tensors = _ts_array_model_new (TS_TYPE_TENSOR);
  priv->metadata = _ts_array_model_new (TS_TYPE_METADATA_ENTRY);
  priv->tensor_by_name = g_hash_table_new (g_str_hash, g_str_equal);
  priv->metadata_by_key = g_hash_table_new (g_str_hash, g_str_equal);
  priv->warnings = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (priv->warnings, NULL);
}

void
_ts_model_file_set_file (TsModelFile *self,
                         GFile       *file)
{
  TsModelFilePrivate *priv = ts_model_file_get_instance_private (self);

  g_set_object (&priv->file, file);
  g_clear_pointer (&priv->display_name, g_free);
  priv->display_name = ts_file_display_basename (file);
}

void
_ts_model_file_add_part (TsModelFile *self,
                         TsFilePart  *part)
{
  TsModelFilePrivate *priv = ts_model_file_get_instance_private (self);

  _ts_array_model_append (priv->parts, part);
}

void
_ts_model_file_add_tensor (TsModelFile *self,
                           TsTensor    *tensor)
{
  TsModelFilePrivate *priv = ts_model_file_get_instance_private (self);

  _ts_array_model_append (priv->tensors, tensor);
  g_hash_table_insert (priv->tensor_by_name,
                       (gpointer) ts_tensor_get_name (tensor), tensor);
  priv->parameter_count += ts_tensor_get_n_elements (tensor);
  priv->tensor_data_size += ts_tensor_get_size (tensor);
}

gboolean
_ts_model_file_has_tensor (TsModelFile *self,
                           const char  *name)
{
  TsModelFilePrivate *priv = ts_model_file_get_instance_private (self);

  return g_hash_table_contains (priv->tensor_by_name, name);
}

void
_ts_model_file_add_metadata (TsModelFile     *self,
                             TsMetadataEntry *entry)
{
  TsModelFilePrivate *priv = ts_model_file_get_instance_private (self);

  _ts_array_model_append (priv->metadata, entry);
  g_hash_table_insert (priv->metadata_by_key,
                       (gpointer) ts_metadata_entry_get_key (entry), entry);
}

void
_ts_model_file_add_warning (TsModelFile *self,
                            const char  *format,
                            ...)
{
  TsModelFilePrivate *priv = ts_model_file_get_instance_private (self);
  va_list args;

  va_start (args, format);
  g_ptr_array_insert (priv->warnings, priv->warnings->len - 1,
                      g_strdup_vprintf (format, args));
  va_end (args);
}

void
_ts_model_file_set_progress (TsModelFile    *self,
                             TsLoadProgress *progress)
{
  TsModelFilePrivate *priv = ts_model_file_get_instance_private (self);

  priv->progress = progress;
}

void
_ts_model_file_progress (TsModelFile *self,
                         double       stage_start,
                         double       stage_end,
                         guint64      done,
                         guint64      total,
                         const char  *format,
                         ...)
{
  TsModelFilePrivate *priv = ts_model_file_get_instance_private (self);
  TsLoadProgress *progress = priv->progress;
  g_autofree char *message = NULL;
  gint64 now;
  va_list args;

  if (progress == NULL || progress->func == NULL)
    return;
  /* called once per tensor: the clock is the only cost when throttled */
  now = g_get_monotonic_time ();
  if (now - progress->last_report < PROGRESS_INTERVAL_US)
    return;
  progress->last_report = now;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  progress->func (stage_start + (stage_end - stage_start) * ((double) done / (double) MAX (total, 1)),
                  message, progress->user_data);
}

/* Is @data a Git LFS pointer file instead of the real contents? */
static gboolean
is_lfs_pointer (const guint8 *data,
                gsize         len)
{
  static const char prefix[] = "version https://git-lfs";

  return len >= sizeof prefix - 1 && len < 1024 &&
         memcmp (data, prefix, sizeof prefix - 1) == 0;
}

static TsModelFile *
sniff_and_load (GFile           *file,
                TsLoadProgress  *progress,
                GCancellable    *cancellable,
                GError         **error)
{
  g_autoptr(GFileInfo) info = NULL;
  g_autoptr(GFileInputStream) stream = NULL;
  g_autofree char *name = ts_file_display_basename (file);
  g_autoptr(GError) local_error = NULL;
  guint8 head[64];
  gsize n_read = 0;

  info = g_file_query_info (file, G_FILE_ATTRIBUTE_STANDARD_TYPE,
                            G_FILE_QUERY_INFO_NONE, cancellable, &local_error);
  /* GIO's own words name the file twice, by its whole path */
  if (info == NULL && g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
    {
      g_autoptr(GFile) dir = g_file_get_parent (file);
      g_autofree char *where = dir != NULL ? g_file_get_parse_name (dir) : g_strdup ("/");

      g_set_error (error, TS_FORMAT_ERROR, TS_FORMAT_ERROR_IO,
                   _("%s: there is no such file in %s"), name, where);
      return NULL;
    }
  if (info == NULL)
    {
      g_set_error (error, TS_FORMAT_ERROR, TS_FORMAT_ERROR_IO,
                   "%s: %s", name, local_error->message);
      return NULL;
    }
  if (g_file_info_get_file_type (info) == G_FILE_TYPE_SYMBOLIC_LINK)
    {
      /* GIO gives the link itself where it leads nowhere: say why */
      g_autofree char *path = g_file_get_path (file);
      GStatBuf st;
      int errsv = path != NULL && g_stat (path, &st) != 0 ? errno : ENOENT;

      if (errsv == ELOOP)
        g_set_error (error, TS_FORMAT_ERROR, TS_FORMAT_ERROR_IO,
                     _("%s: a link in a loop of links, which never reaches a file"), name);
      else
        g_set_error (error, TS_FORMAT_ERROR, TS_FORMAT_ERROR_IO,
                     _("%s: a link to nothing: %s"), name, g_strerror (errsv));
      return NULL;
    }
  if (g_file_info_get_file_type (info) == G_FILE_TYPE_DIRECTORY)
    return _ts_safetensors_file_load (file, progress, cancellable, error);
  /* a FIFO would block the read below until some writer came */
  if (g_file_info_get_file_type (info) != G_FILE_TYPE_REGULAR)
    {
      g_set_error (error, TS_FORMAT_ERROR, TS_FORMAT_ERROR_IO,
                   _("%s: not a regular file (a pipe, device or socket)"), name);
      return NULL;
    }

  stream = g_file_read (file, cancellable, &local_error);
  if (stream == NULL ||
      !g_input_stream_read_all (G_INPUT_STREAM (stream), head, sizeof head,
                                &n_read, cancellable, &local_error))
    {
      g_set_error (error, TS_FORMAT_ERROR, TS_FORMAT_ERROR_IO,
                   "%s: %s", name, local_error->message);
      return NULL;
    }

  /* said plainly, not as a field it ends inside of */
  if (n_read == 0)
    {
      g_set_error (error, TS_FORMAT_ERROR, TS_FORMAT_ERROR_TRUNCATED,
                   _("%s: byte 0: the file is empty (a download that has not started, or was cut "
                     "off?)"), name);
      return NULL;
    }
  if (n_read >= 4 && memcmp (head, "GGUF", 4) == 0)
    return _ts_gguf_file_load (file, progress, cancellable, error);
  if (is_lfs_pointer (head, n_read))
    {
      g_set_error (error, TS_FORMAT_ERROR, TS_FORMAT_ERROR_LFS_POINTER,
                   _("%s: byte 0: this is a Git LFS pointer file, not the model "
                   "data; fetch the real file (git lfs pull)"), name);
      return NULL;
    }
  /* config.json, tokenizer.json: a model's side files, not a model */
  if (g_str_has_suffix (name, ".json") && !g_str_has_suffix (name, ".index.json"))
    {
      g_set_error (error, TS_FORMAT_ERROR, TS_FORMAT_ERROR_UNKNOWN_FORMAT,
                   _("%s: a JSON file, not a model: open the checkpoint's folder, its "
                     "model.safetensors.index.json, or a .safetensors or .gguf file"), name);
      return NULL;
    }
  if (g_str_has_suffix (name, ".json") ||
      g_str_has_suffix (name, ".safetensors") ||
      (n_read >= 9 && head[8] == '{'))
    return _ts_safetensors_file_load (file, progress, cancellable, error);
  if (g_str_has_suffix (name, ".gguf"))
    return _ts_gguf_file_load (file, progress, cancellable, error);

  g_set_error (error, TS_FORMAT_ERROR, TS_FORMAT_ERROR_UNKNOWN_FORMAT,
               _("%s: byte 0: neither a GGUF file (no \"GGUF\" magic) nor a "
               "Safetensors file (no JSON header after the 8-byte length)"), name);
  return NULL;
}

/**
 * ts_model_file_load:
 * @file: a .gguf or .safetensors file, a sharded checkpoint folder, its
 *   index, or one of its shards
 *
 * Opens and validates a model, touching only its headers.
 *
 * Returns: (transfer full): a #TsGgufFile or #TsSafetensorsFile
 */
TsModelFile *
ts_model_file_load (GFile         *file,
                    GCancellable  *cancellable,
                    GError       **error)
{
  g_return_val_if_fail (G_IS_FILE (file), NULL);
  g_return_val_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable), NULL);

  return _ts_model_file_load_with_progress (file, NULL, cancellable, error);
}

/* ts_model_file_load() reporting to @progress (nullable) on this thread. */
TsModelFile *
_ts_model_file_load_with_progress (GFile           *file,
                                   TsLoadProgress  *progress,
                                   GCancellable    *cancellable,
                                   GError         **error)
{
  TsModelFile *model;

  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;
  model = sniff_and_load (file, progress, cancellable, error);
  if (model != NULL)
    _ts_model_file_set_progress (model, NULL);
  return model;
}

static void
load_thread (GTask        *task,
             gpointer      source_object,
             gpointer      task_data,
             GCancellable *cancellable)
{
  GFile *file = task_data;
  GError *error = NULL;
  TsModelFile *model = ts_model_file_load (file, cancellable, &error);

  if (model == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, model, g_object_unref);
}

void
ts_model_file_load_async (GFile               *file,
                          GCancellable        *cancellable,
                          GAsyncReadyCallback  callback,
                          gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (G_IS_FILE (file));
  g_return_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, ts_model_file_load_async);
  g_task_set_task_data (task, g_object_ref (file), g_object_unref);
  g_task_set_return_on_cancel (task, FALSE);
  g_task_run_in_thread (task, load_thread);
}

TsModelFile *
ts_model_file_load_finish (GAsyncResult  *result,
                           GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == ts_model_file_load_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

GFile *
ts_model_file_get_file (TsModelFile *self)
{
  TsModelFilePrivate *priv = ts_model_file_get_instance_private (self);

  g_return_val_if_fail (TS_IS_MODEL_FILE (self), NULL);
  return priv->file;
}

TsFormat
ts_model_file_get_format (TsModelFile *self)
{
  g_return_val_if_fail (TS_IS_MODEL_FILE (self), TS_FORMAT_SAFETENSORS);
  return TS_IS_GGUF_FILE (self) ? TS_FORMAT_GGUF : TS_FORMAT_SAFETENSORS;
}

const char *
ts_model_file_get_display_name (TsModelFile *self)
{
  TsModelFilePrivate *priv = ts_model_file_get_instance_private (self);

  g_return_val_if_fail (TS_IS_MODEL_FILE (self), NULL);
  return priv->display_name;
}

/**
 * ts_model_file_dup_summary:
 * @self: a model
 *
 * Returns: one line for the window and the exported diagram: the format,
 *   the size and the tensor count, "GGUF v3 · 6.4 GB · 255 tensors"
 */
char *
ts_model_file_dup_summary (TsModelFile *self)
{
  g_autofree char *size = NULL;
  g_autofree char *count = NULL;
  g_autofree char *format = NULL;
  guint n_parts;

  g_return_val_if_fail (TS_IS_MODEL_FILE (self), NULL);

  size = g_format_size (ts_model_file_get_total_size (self));
  count = _ts_format_count (ts_model_file_get_n_tensors (self));
  n_parts = g_list_model_get_n_items (ts_model_file_get_parts (self));
  if (TS_IS_GGUF_FILE (self) && n_parts > 1)
    /* Translators: a GGUF model llama.cpp's gguf-split wrote as several files */
    format = g_strdup_printf (_("GGUF v%u, %u files"), ts_gguf_file_get_version (TS_GGUF_FILE (self)),
                              n_parts);
  else if (TS_IS_GGUF_FILE (self))
    format = g_strdup_printf ("GGUF v%u", ts_gguf_file_get_version (TS_GGUF_FILE (self)));
  else if (n_parts > 1)
    format = g_strdup_printf (_("Safetensors, %u shards"), n_parts);
  else
    format = g_strdup ("Safetensors");

  /* Translators: "GGUF v3 · 6.4 GB · 255 tensors" */
  return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s · %s · %s tensor", "%s · %s · %s tensors",
                                       ts_model_file_get_n_tensors (self)),
                          format, size, count);
}

GListModel *
ts_model_file_get_parts (TsModelFile *self)
{
  TsModelFilePrivate *priv = ts_model_file_get_instance_private (self);

  g_return_val_if_fail (TS_IS_MODEL_FILE (self), NULL);
  return G_LIST_MODEL (priv->parts);
}

GListModel *
ts_model_file_get_tensors (TsModelFile *self)
{
  TsModelFilePrivate *priv = ts_model_file_get_instance_private (self);

  g_return_val_if_fail (TS_IS_MODEL_FILE (self), NULL);
  return G_LIST_MODEL (priv->tensors);
}

GListModel *
ts_model_file_get_metadata (TsModelFile *self)
{
  TsModelFilePrivate *priv = ts_model_file_get_instance_private (self);

  g_return_val_if_fail (TS_IS_MODEL_FILE (self), NULL);
  return G_LIST_MODEL (priv->metadata);
}

const char * const *
ts_model_file_get_warnings (TsModelFile *self)
{
  TsModelFilePrivate *priv = ts_model_file_get_instance_private (self);

  g_return_val_if_fail (TS_IS_MODEL_FILE (self), NULL);
  return (const char * const *) priv->warnings->pdata;
}

guint64
ts_model_file_get_total_size (TsModelFile *self)
{
  TsModelFilePrivate *priv = ts_model_file_get_instance_private (self);
  guint n = g_list_model_get_n_items (G_LIST_MODEL (priv->parts));
  guint64 total = 0;

  g_return_val_if_fail (TS_IS_MODEL_FILE (self), 0);

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(TsFilePart) part = g_list_model_get_item (G_LIST_MODEL (priv->parts), i);

      total += ts_file_part_get_size (part);
    }
  return total;
}

guint64
ts_model_file_get_before_data_size (TsModelFile *self)
{
  TsModelFilePrivate *priv = ts_model_file_get_instance_private (self);
  guint n = g_list_model_get_n_items (G_LIST_MODEL (priv->parts));
  guint64 total = 0;

  g_return_val_if_fail (TS_IS_MODEL_FILE (self), 0);

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(TsFilePart) part = g_list_model_get_item (G_LIST_MODEL (priv->parts), i);

      total += ts_file_part_get_data_offset (part);
    }
  return total;
}

guint64
ts_model_file_get_parameter_count (TsModelFile *self)
{
  TsModelFilePrivate *priv = ts_model_file_get_instance_private (self);

  g_return_val_if_fail (TS_IS_MODEL_FILE (self), 0);
  return priv->parameter_count;
}

guint64
ts_model_file_get_tensor_data_size (TsModelFile *self)
{
  TsModelFilePrivate *priv = ts_model_file_get_instance_private (self);

  g_return_val_if_fail (TS_IS_MODEL_FILE (self), 0);
  return priv->tensor_data_size;
}

guint
ts_model_file_get_n_tensors (TsModelFile *self)
{
  TsModelFilePrivate *priv = ts_model_file_get_instance_private (self);

  g_return_val_if_fail (TS_IS_MODEL_FILE (self), 0);
  return g_list_model_get_n_items (G_LIST_MODEL (priv->tensors));
}

/**
 * ts_model_file_lookup_tensor:
 *
 * Returns: (transfer none) (nullable): the tensor called @name
 */
TsTensor *
ts_model_file_lookup_tensor (TsModelFile *self,
                             const char  *name)
{
  TsModelFilePrivate *priv = ts_model_file_get_instance_private (self);

  g_return_val_if_fail (TS_IS_MODEL_FILE (self), NULL);
  return g_hash_table_lookup (priv->tensor_by_name, name);
}

/**
 * ts_model_file_lookup_metadata:
 *
 * Returns: (transfer none) (nullable): the entry with @key
 */
TsMetadataEntry *
ts_model_file_lookup_metadata (TsModelFile *self,
                               const char  *key)
{
  TsModelFilePrivate *priv = ts_model_file_get_instance_private (self);

  g_return_val_if_fail (TS_IS_MODEL_FILE (self), NULL);
  return g_hash_table_lookup (priv->metadata_by_key, key);
}

/**
 * ts_format_thousands:
 * @n: a count
 * @localized: use the locale's thousands separator (a comma where the
 *   locale has none); %FALSE always uses a comma, for messages that tests
 *   and scripts read
 *
 * Returns: (transfer full): @n with thousands separators, e.g. "1,459,729,952"
 */
char *
ts_format_thousands (guint64  n,
                     gboolean localized)
{
  g_autofree char *digits = g_strdup_printf ("%" G_GUINT64_FORMAT, n);
  const char *sep = localized ? nl_langinfo (THOUSEP) : ",";
  GString *s = g_string_new (NULL);
  gsize len = strlen (digits);

  if (sep == NULL || sep[0] == '\0')
    sep = ",";
  for (gsize i = 0; i < len; i++)
    {
      if (i > 0 && (len - i) % 3 == 0)
        g_string_append (s, sep);
      g_string_append_c (s, digits[i]);
    }
  return g_string_free (s, FALSE);
}

/**
 * ts_string_append_cell:
 * @out: a string
 * @text: the cell's text (UTF-8)
 * @width: the columns it fills on a terminal: left-aligned if positive,
 *   right-aligned if negative
 *
 * Appends @text padded with spaces to @width columns of a terminal, where
 * printf's "%-40s" counts bytes ("→" is three, "×" two): a wide character
 * takes two columns, a combining one none. Longer text is not cut.
 */
void
ts_string_append_cell (GString    *out,
                       const char *text,
                       int         width)
{
  guint columns = 0;
  guint want = (guint) ABS (width);

  if (text == NULL)
    text = "";
  if (g_utf8_validate (text, -1, NULL))
    for (const char *p = text; *p != '\0'; p = g_utf8_next_char (p))
      {
        gunichar c = g_utf8_get_char (p);

        columns += g_unichar_iszerowidth (c) ? 0 : g_unichar_iswide (c) ? 2 : 1;
      }
  else
    columns = (guint) strlen (text);
  if (width < 0)
    for (guint i = columns; i < want; i++)
      g_string_append_c (out, ' ');
  g_string_append (out, text);
  if (width > 0)
    for (guint i = columns; i < want; i++)
      g_string_append_c (out, ' ');
}

/**
 * ts_string_append_cells:
 * @out: a string
 * @width: the first cell's width (as in ts_string_append_cell())
 * @...: its text, then more widths and texts, ended by a width of 0
 *
 * Appends a row of cells padded to their widths, one space between them.
 */
void
ts_string_append_cells (GString *out,
                        int      width,
                        ...)
{
  va_list args;
  gboolean first = TRUE;

  va_start (args, width);
  for (; width != 0; width = va_arg (args, int), first = FALSE)
    {
      if (!first)
        g_string_append_c (out, ' ');
      ts_string_append_cell (out, va_arg (args, const char *), width);
    }
  va_end (args);
}

/* for messages: grouped as the user's locale groups digits */
char *
_ts_format_count (guint64 n)
{
  return ts_format_thousands (n, TRUE);
}
