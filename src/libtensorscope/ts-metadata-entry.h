/* ts-metadata-entry.h
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

/* GGUF value types, with GGUF's numbering. */
typedef enum
{
  TS_VALUE_UINT8   = 0,
  TS_VALUE_INT8    = 1,
  TS_VALUE_UINT16  = 2,
  TS_VALUE_INT16   = 3,
  TS_VALUE_UINT32  = 4,
  TS_VALUE_INT32   = 5,
  TS_VALUE_FLOAT32 = 6,
  TS_VALUE_BOOL    = 7,
  TS_VALUE_STRING  = 8,
  TS_VALUE_ARRAY   = 9,
  TS_VALUE_UINT64  = 10,
  TS_VALUE_INT64   = 11,
  TS_VALUE_FLOAT64 = 12,
  TS_VALUE_N_TYPES
} TsValueType;

const char *ts_value_type_to_nick     (TsValueType type);
/* byte size of a fixed-size type, 0 for string and array */
gsize       ts_value_type_get_size    (TsValueType type);

#define TS_TYPE_METADATA_ENTRY (ts_metadata_entry_get_type ())

G_DECLARE_FINAL_TYPE (TsMetadataEntry, ts_metadata_entry, TS, METADATA_ENTRY, GObject)

/* An entry points into the file's mapping; values are decoded on demand, so a
 * 128k-token array costs nothing until its items are read. */
const char      *ts_metadata_entry_get_key         (TsMetadataEntry *self);
TsValueType      ts_metadata_entry_get_value_type  (TsMetadataEntry *self);
/* absolute byte range of the whole key/value pair in the file */
guint64          ts_metadata_entry_get_offset      (TsMetadataEntry *self);
guint64          ts_metadata_entry_get_length      (TsMetadataEntry *self);

/* Scalars (any numeric type converts; bool reads as 0/1). */
guint64          ts_metadata_entry_get_uint64      (TsMetadataEntry *self);
gint64           ts_metadata_entry_get_int64       (TsMetadataEntry *self);
double           ts_metadata_entry_get_double      (TsMetadataEntry *self);
gboolean         ts_metadata_entry_get_boolean     (TsMetadataEntry *self);
/* string values as stored (not necessarily UTF-8); NULL for non-strings */
const char      *ts_metadata_entry_get_string      (TsMetadataEntry *self,
                                                    gsize           *length);
/* a string value as valid UTF-8 (invalid bytes replaced); NULL for non-strings */
char            *ts_metadata_entry_dup_string      (TsMetadataEntry *self);
/* any value as display text; arrays summarised */
char            *ts_metadata_entry_to_string       (TsMetadataEntry *self);

/* Arrays */
TsValueType      ts_metadata_entry_get_array_type   (TsMetadataEntry *self);
guint64          ts_metadata_entry_get_array_length (TsMetadataEntry *self);
/* a new entry (empty key) for item @index */
TsMetadataEntry *ts_metadata_entry_get_item         (TsMetadataEntry *self,
                                                     guint64          index);
/* fast paths for the common large arrays */
const char      *ts_metadata_entry_get_item_string  (TsMetadataEntry *self,
                                                     guint64          index,
                                                     gsize           *length);
/* raw little-endian elements of a fixed-size-type array, or NULL */
const guint8    *ts_metadata_entry_get_array_data   (TsMetadataEntry *self);

char            *ts_format_float                     (double           d,
                                                      gboolean         single);

G_END_DECLS
