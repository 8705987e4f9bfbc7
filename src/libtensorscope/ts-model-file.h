/* ts-model-file.h
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "ts-file-part.h"
#include "ts-metadata-entry.h"
#include "ts-tensor.h"

G_BEGIN_DECLS

typedef enum
{
  TS_FORMAT_SAFETENSORS,
  TS_FORMAT_GGUF,
} TsFormat;

const char *ts_format_to_nick (TsFormat format);

/*
 * Threads: a model returned by a load is immutable, and so are its parts
 * (and their regions), tensors and metadata entries: nothing changes them
 * after the reader returns, no signal is ever emitted on them, and every
 * getter, the list models included, may be called from any thread at the
 * same time (the lists are plain arrays, not GListStores, whose get_item
 * moves a cached iterator). The one lazy state, the item index of a large
 * GGUF string array in a TsMetadataEntry, is built once under the entry's
 * mutex. Keep a reference for as long as a worker uses the model.
 *
 * For progress while loading, use TsModelLoader.
 */

#define TS_TYPE_MODEL_FILE (ts_model_file_get_type ())

G_DECLARE_DERIVABLE_TYPE (TsModelFile, ts_model_file, TS, MODEL_FILE, GObject)

struct _TsModelFileClass
{
  GObjectClass parent_class;

  /*< private >*/
  gpointer _reserved[8];
};

/* Loading: sniffs the format. @file is a .gguf, a .safetensors, a sharded
 * checkpoint folder, its model.safetensors.index.json, or one of its shards. */
TsModelFile     *ts_model_file_load             (GFile                *file,
                                                 GCancellable         *cancellable,
                                                 GError              **error);
void             ts_model_file_load_async       (GFile                *file,
                                                 GCancellable         *cancellable,
                                                 GAsyncReadyCallback   callback,
                                                 gpointer              user_data);
TsModelFile     *ts_model_file_load_finish      (GAsyncResult         *result,
                                                 GError              **error);

GFile           *ts_model_file_get_file         (TsModelFile *self);
TsFormat         ts_model_file_get_format       (TsModelFile *self);
const char      *ts_model_file_get_display_name (TsModelFile *self);
char            *ts_model_file_dup_summary      (TsModelFile *self);
/* GListModel of TsFilePart, TsTensor, TsMetadataEntry */
GListModel      *ts_model_file_get_parts        (TsModelFile *self);
GListModel      *ts_model_file_get_tensors      (TsModelFile *self);
GListModel      *ts_model_file_get_metadata     (TsModelFile *self);
/* NULL-terminated */
const char * const *ts_model_file_get_warnings  (TsModelFile *self);

guint64          ts_model_file_get_total_size       (TsModelFile *self);
guint64          ts_model_file_get_parameter_count  (TsModelFile *self);
guint64          ts_model_file_get_tensor_data_size (TsModelFile *self);
/* bytes before the data section, summed over parts */
guint64          ts_model_file_get_before_data_size (TsModelFile *self);
guint            ts_model_file_get_n_tensors        (TsModelFile *self);

TsTensor        *ts_model_file_lookup_tensor    (TsModelFile *self,
                                                 const char  *name);
TsMetadataEntry *ts_model_file_lookup_metadata  (TsModelFile *self,
                                                 const char  *key);

char            *ts_format_thousands            (guint64      n,
                                                 gboolean     localized);
void             ts_string_append_cell          (GString     *out,
                                                 const char  *text,
                                                 int          width);
void             ts_string_append_cells         (GString     *out,
                                                 int          width,
                                                 ...);

G_END_DECLS
