/* ts-model-file-private.h: what the format readers use to build a model
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ts-metadata-entry.h"
#include "ts-model-file.h"

G_BEGIN_DECLS

/* The most tensors a model (all its files) may hold. Each costs about
 * 400 bytes once read, and a GGUF descriptor only 33 bytes of file: ten
 * million of them in a 330 MB file took 4.4 GB. No real model has more
 * than a few tens of thousands. */
#define TS_MAX_TENSORS (1u << 20)

/* The most metadata entries a GGUF file may hold, as many as tensors. Each
 * costs about 230 bytes once read and only 13 of file: five million of them
 * in a 100 MB file took 1.1 GB. Real files hold a few dozen (the vocabulary
 * is one array). */
#define TS_MAX_METADATA (1u << 20)

/* Bounds of a mapped file that every reader walks with. */
typedef struct
{
  const char   *name;   /* file name for messages */
  const guint8 *data;
  guint64       size;
  guint64       pos;
  const char   *context; /* what is being read ("metadata key 'x': "), or NULL:
                          * put before the rule in an error's message */
} TsCursor;

/* Where a reader reports how far it is; see TsModelLoader. @func runs on
 * the loading thread and must be thread-safe. */
typedef void (*TsLoadProgressFunc) (double      fraction,
                                    const char *message,
                                    gpointer    user_data);

typedef struct
{
  TsLoadProgressFunc func;
  gpointer           user_data;
  gint64             last_report;   /* monotonic µs */
} TsLoadProgress;

TsModelFile  *_ts_model_file_load_with_progress (GFile           *file,
                                                 TsLoadProgress  *progress,
                                                 GCancellable    *cancellable,
                                                 GError         **error);
/* Readers: set while loading, so helpers can report through the model. */
void          _ts_model_file_set_progress  (TsModelFile     *self,
                                            TsLoadProgress  *progress);
/* Reports @done of @total steps (0 ≤ @done ≤ @total, @total > 0) of the
 * current stage, mapped into [@stage_start, @stage_end] of the whole load.
 * Throttled to one report per ~100 ms; the message is only formatted then. */
void          _ts_model_file_progress      (TsModelFile     *self,
                                            double           stage_start,
                                            double           stage_end,
                                            guint64          done,
                                            guint64          total,
                                            const char      *format,
                                            ...) G_GNUC_PRINTF (6, 7);

void          _ts_model_file_set_file      (TsModelFile     *self,
                                            GFile           *file);
void          _ts_model_file_add_part      (TsModelFile     *self,
                                            TsFilePart      *part);
void          _ts_model_file_add_tensor    (TsModelFile     *self,
                                            TsTensor        *tensor);
void          _ts_model_file_add_metadata  (TsModelFile     *self,
                                            TsMetadataEntry *entry);
void          _ts_model_file_add_warning   (TsModelFile     *self,
                                            const char      *format,
                                            ...) G_GNUC_PRINTF (2, 3);
gboolean      _ts_model_file_has_tensor    (TsModelFile     *self,
                                            const char      *name);

TsFilePart   *_ts_file_part_new            (GFile           *file,
                                            guint            index,
                                            GMappedFile     *mapping,
                                            guint64          size);
void          _ts_file_part_add_region     (TsFilePart      *self,
                                            TsRegionKind     kind,
                                            guint64          offset,
                                            guint64          length);
void          _ts_file_part_set_data_offset (TsFilePart     *self,
                                             guint64         offset);
/* a file read alone first, then found to be part @index of a set */
void          _ts_file_part_set_index      (TsFilePart      *self,
                                            guint            index);
/* Maps @file read-only; an empty file gives a valid part with no bytes. */
TsFilePart   *_ts_file_part_open           (GFile           *file,
                                            guint            index,
                                            GError         **error);

TsTensor     *_ts_tensor_new               (const char      *name,
                                            TsDType          dtype,
                                            const char      *raw_dtype,
                                            guint            n_dims,
                                            const guint64   *shape,
                                            gboolean         reversed_dims,
                                            TsFilePart      *part,
                                            guint64          offset,
                                            guint64          size,
                                            guint64          n_elements);

TsMetadataEntry *_ts_metadata_entry_new_gguf   (const char      *key,
                                                TsValueType      type,
                                                GBytes          *bytes,
                                                guint64          entry_offset,
                                                guint64          value_offset,
                                                guint64          end_offset,
                                                TsValueType      array_type,
                                                guint64          array_length);
TsMetadataEntry *_ts_metadata_entry_new_string (const char      *key,
                                                const char      *value);

/* Overflow-checked arithmetic on file-provided numbers. */
static inline gboolean
ts_mul_u64 (guint64 a, guint64 b, guint64 *out)
{
  return !__builtin_mul_overflow (a, b, out);
}

static inline gboolean
ts_add_u64 (guint64 a, guint64 b, guint64 *out)
{
  return !__builtin_add_overflow (a, b, out);
}

/* "1,234,567": thousands separators for messages, locale-independent */
char *_ts_format_count (guint64 n);

G_END_DECLS

G_BEGIN_DECLS

/* Walks over one GGUF value of @type at @cursor->pos, proving it fits in the
 * remaining bytes without allocating anything. */
gboolean _ts_gguf_skip_value (TsCursor     *cursor,
                              TsValueType   type,
                              guint         depth,
                              GError      **error);

G_END_DECLS
