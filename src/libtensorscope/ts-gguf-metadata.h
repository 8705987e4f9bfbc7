/* ts-gguf-metadata.h: GGUF key/value pairs being built for a new file
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "ts-metadata-entry.h"

G_BEGIN_DECLS

typedef struct _TsGgufMetadata TsGgufMetadata;

/* Key/value pairs serialised in GGUF's encoding as they are added, in order,
 * each with where its value came from ("config.json: rope_theta"). */
TsGgufMetadata *ts_gguf_metadata_new              (void);
void            ts_gguf_metadata_free             (TsGgufMetadata *self);

void            ts_gguf_metadata_add_string       (TsGgufMetadata *self,
                                                   const char     *key,
                                                   const char     *value,
                                                   const char     *origin);
/* gguf-py's add_string() writes nothing for a missing or empty string */
void            ts_gguf_metadata_add_string_nonempty (TsGgufMetadata *self,
                                                   const char     *key,
                                                   const char     *value,
                                                   const char     *origin);
void            ts_gguf_metadata_add_uint16       (TsGgufMetadata *self,
                                                   const char     *key,
                                                   guint16         value,
                                                   const char     *origin);
void            ts_gguf_metadata_add_uint32       (TsGgufMetadata *self,
                                                   const char     *key,
                                                   guint32         value,
                                                   const char     *origin);
void            ts_gguf_metadata_add_int32        (TsGgufMetadata *self,
                                                   const char     *key,
                                                   gint32          value,
                                                   const char     *origin);
void            ts_gguf_metadata_add_uint64       (TsGgufMetadata *self,
                                                   const char     *key,
                                                   guint64         value,
                                                   const char     *origin);
void            ts_gguf_metadata_add_float32      (TsGgufMetadata *self,
                                                   const char     *key,
                                                   float           value,
                                                   const char     *origin);
void            ts_gguf_metadata_add_bool         (TsGgufMetadata *self,
                                                   const char     *key,
                                                   gboolean        value,
                                                   const char     *origin);
/* @values: @n strings, each @lengths[i] bytes (or NUL-terminated if
 * @lengths is NULL) */
void            ts_gguf_metadata_add_string_array (TsGgufMetadata *self,
                                                   const char     *key,
                                                   const char    **values,
                                                   const gsize    *lengths,
                                                   gsize           n,
                                                   const char     *origin);
void            ts_gguf_metadata_add_int32_array  (TsGgufMetadata *self,
                                                   const char     *key,
                                                   const gint32   *values,
                                                   gsize           n,
                                                   const char     *origin);
void            ts_gguf_metadata_add_float32_array (TsGgufMetadata *self,
                                                   const char     *key,
                                                   const float    *values,
                                                   gsize           n,
                                                   const char     *origin);
/* gguf-py's GGUFWriter writing a key again: the pair keeps its place and
 * takes the new value (and origin); a new key is appended */
void            ts_gguf_metadata_set_uint32       (TsGgufMetadata *self,
                                                   const char     *key,
                                                   guint32         value,
                                                   const char     *origin);
void            ts_gguf_metadata_set_bool         (TsGgufMetadata *self,
                                                   const char     *key,
                                                   gboolean        value,
                                                   const char     *origin);

guint           ts_gguf_metadata_get_n_entries    (TsGgufMetadata *self);
gboolean        ts_gguf_metadata_contains         (TsGgufMetadata *self,
                                                   const char     *key);
const char     *ts_gguf_metadata_get_origin       (TsGgufMetadata *self,
                                                   guint           index);
/* the serialised pairs, as they follow GGUF's fixed header */
GBytes         *ts_gguf_metadata_get_bytes        (TsGgufMetadata *self);
/* the length of those bytes, without copying them */
gsize           ts_gguf_metadata_get_size         (TsGgufMetadata *self);
/* (transfer full): a GListModel of TsMetadataEntry reading the pairs back */
GListModel     *ts_gguf_metadata_list_entries     (TsGgufMetadata *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TsGgufMetadata, ts_gguf_metadata_free)

G_END_DECLS
