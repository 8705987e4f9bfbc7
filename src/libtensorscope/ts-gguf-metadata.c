/* ts-gguf-metadata.c
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "ts-gguf-metadata.h"
#include "ts-model-file-private.h"

struct _TsGgufMetadata
{
  GByteArray *data;
  GPtrArray  *keys;
  GPtrArray  *origins;
  GArray     *offsets;     /* where each pair starts in @data */
  GHashTable *key_set;
};

TsGgufMetadata *
ts_gguf_metadata_new (void)
{
  TsGgufMetadata *self = g_new0 (TsGgufMetadata, 1);

  self->data = g_byte_array_new ();
  self->keys = g_ptr_array_new_with_free_func (g_free);
  self->origins = g_ptr_array_new_with_free_func (g_free);
  self->offsets = g_array_new (FALSE, FALSE, sizeof (guint64));
  self->key_set = g_hash_table_new (g_str_hash, g_str_equal);
  return self;
}

void
ts_gguf_metadata_free (TsGgufMetadata *self)
{
  if (self == NULL)
    return;
  g_byte_array_unref (self->data);
  g_hash_table_unref (self->key_set);
  g_ptr_array_unref (self->keys);
  g_ptr_array_unref (self->origins);
  g_array_unref (self->offsets);
  g_free (self);
}

static void
put_u32 (TsGgufMetadata *self, guint32 v)
{
  v = GUINT32_TO_LE (v);
  g_byte_array_append (self->data, (const guint8 *) &v, 4);
}

static void
put_u64 (TsGgufMetadata *self, guint64 v)
{
  v = GUINT64_TO_LE (v);
  g_byte_array_append (self->data, (const guint8 *) &v, 8);
}

static void
put_string (TsGgufMetadata *self, const char *s, gsize len)
{
  put_u64 (self, len);
  g_byte_array_append (self->data, (const guint8 *) s, len);
}

static void
begin_pair (TsGgufMetadata *self,
            const char     *key,
            TsValueType     type,
            const char     *origin)
{
  guint64 offset = self->data->len;
  char *k = g_strdup (key);

  g_return_if_fail (!g_hash_table_contains (self->key_set, key));

  g_ptr_array_add (self->keys, k);
  g_hash_table_add (self->key_set, k);
  g_ptr_array_add (self->origins, g_strdup (origin ? origin : ""));
  g_array_append_val (self->offsets, offset);
  put_string (self, key, strlen (key));
  put_u32 (self, type);
}

void
ts_gguf_metadata_add_string (TsGgufMetadata *self,
                             const char     *key,
                             const char     *value,
                             const char     *origin)
{
  begin_pair (self, key, TS_VALUE_STRING, origin);
  put_string (self, value, strlen (value));
}

void
ts_gguf_metadata_add_string_nonempty (TsGgufMetadata *self,
                                      const char     *key,
                                      const char     *value,
                                      const char     *origin)
{
  if (value != NULL && value[0] != '\0')
    ts_gguf_metadata_add_string (self, key, value, origin);
}

void
ts_gguf_metadata_add_uint16 (TsGgufMetadata *self,
                             const char     *key,
                             guint16         value,
                             const char     *origin)
{
  guint16 le = GUINT16_TO_LE (value);

  begin_pair (self, key, TS_VALUE_UINT16, origin);
  g_byte_array_append (self->data, (const guint8 *) &le, 2);
}

void
ts_gguf_metadata_add_uint32 (TsGgufMetadata *self,
                             const char     *key,
                             guint32         value,
                             const char     *origin)
{
  begin_pair (self, key, TS_VALUE_UINT32, origin);
  put_u32 (self, value);
}

void
ts_gguf_metadata_add_int32 (TsGgufMetadata *self,
                            const char     *key,
                            gint32          value,
                            const char     *origin)
{
  begin_pair (self, key, TS_VALUE_INT32, origin);
  put_u32 (self, (guint32) value);
}

void
ts_gguf_metadata_add_uint64 (TsGgufMetadata *self,
                             const char     *key,
                             guint64         value,
                             const char     *origin)
{
  begin_pair (self, key, TS_VALUE_UINT64, origin);
  put_u64 (self, value);
}

void
ts_gguf_metadata_add_float32 (TsGgufMetadata *self,
                              const char     *key,
                              float           value,
                              const char     *origin)
{
  begin_pair (self, key, TS_VALUE_FLOAT32, origin);
  put_u32 (self, ts_f32_bits (value));
}

void
ts_gguf_metadata_add_bool (TsGgufMetadata *self,
                           const char     *key,
                           gboolean        value,
                           const char     *origin)
{
  guint8 b = value ? 1 : 0;

  begin_pair (self, key, TS_VALUE_BOOL, origin);
  g_byte_array_append (self->data, &b, 1);
}

void
ts_gguf_metadata_add_string_array (TsGgufMetadata *self,
                                   const char     *key,
                                   const char    **values,
                                   const gsize    *lengths,
                                   gsize           n,
                                   const char     *origin)
{
  begin_pair (self, key, TS_VALUE_ARRAY, origin);
  put_u32 (self, TS_VALUE_STRING);
  put_u64 (self, n);
  for (gsize i = 0; i < n; i++)
    put_string (self, values[i], lengths ? lengths[i] : strlen (values[i]));
}

void
ts_gguf_metadata_add_int32_array (TsGgufMetadata *self,
                                  const char     *key,
                                  const gint32   *values,
                                  gsize           n,
                                  const char     *origin)
{
  begin_pair (self, key, TS_VALUE_ARRAY, origin);
  put_u32 (self, TS_VALUE_INT32);
  put_u64 (self, n);
  for (gsize i = 0; i < n; i++)
    put_u32 (self, (guint32) values[i]);
}

void
ts_gguf_metadata_add_float32_array (TsGgufMetadata *self,
                                    const char     *key,
                                    const float    *values,
                                    gsize           n,
                                    const char     *origin)
{
  begin_pair (self, key, TS_VALUE_ARRAY, origin);
  put_u32 (self, TS_VALUE_FLOAT32);
  put_u64 (self, n);
  for (gsize i = 0; i < n; i++)
    put_u32 (self, ts_f32_bits (values[i]));
}

/* the index of @key's pair if it holds a value of @type, else -1 (a key
 * of another type is a caller's error) */
static gint
find_pair (TsGgufMetadata *self,
           const char     *key,
           TsValueType     type)
{
  if (!g_hash_table_contains (self->key_set, key))
    return -1;
  for (guint i = 0; i < self->keys->len; i++)
    if (g_str_equal (g_ptr_array_index (self->keys, i), key))
      {
        guint64 at = g_array_index (self->offsets, guint64, i) + 8 + strlen (key);
        guint32 have;

        memcpy (&have, self->data->data + at, 4);
        g_return_val_if_fail (GUINT32_FROM_LE (have) == (guint32) type, -1);
        return (gint) i;
      }
  return -1;
}

static void
replace_value (TsGgufMetadata *self,
               guint           index,
               const void     *value,
               gsize           size,
               const char     *origin)
{
  const char *key = g_ptr_array_index (self->keys, index);
  guint64 at = g_array_index (self->offsets, guint64, index) + 8 + strlen (key) + 4;

  memcpy (self->data->data + at, value, size);
  g_free (g_ptr_array_index (self->origins, index));
  g_ptr_array_index (self->origins, index) = g_strdup (origin ? origin : "");
}

void
ts_gguf_metadata_set_uint32 (TsGgufMetadata *self,
                             const char     *key,
                             guint32         value,
                             const char     *origin)
{
  gint index = find_pair (self, key, TS_VALUE_UINT32);
  guint32 le = GUINT32_TO_LE (value);

  if (index < 0)
    ts_gguf_metadata_add_uint32 (self, key, value, origin);
  else
    replace_value (self, index, &le, 4, origin);
}

void
ts_gguf_metadata_set_bool (TsGgufMetadata *self,
                           const char     *key,
                           gboolean        value,
                           const char     *origin)
{
  gint index = find_pair (self, key, TS_VALUE_BOOL);
  guint8 b = value ? 1 : 0;

  if (index < 0)
    ts_gguf_metadata_add_bool (self, key, value, origin);
  else
    replace_value (self, index, &b, 1, origin);
}

guint
ts_gguf_metadata_get_n_entries (TsGgufMetadata *self)
{
  return self->keys->len;
}

gboolean
ts_gguf_metadata_contains (TsGgufMetadata *self,
                           const char     *key)
{
  return g_hash_table_contains (self->key_set, key);
}

const char *
ts_gguf_metadata_get_origin (TsGgufMetadata *self,
                             guint           index)
{
  g_return_val_if_fail (index < self->origins->len, NULL);
  return g_ptr_array_index (self->origins, index);
}

/**
 * ts_gguf_metadata_get_bytes:
 *
 * Returns: (transfer full): a copy of the serialised pairs
 */
GBytes *
ts_gguf_metadata_get_bytes (TsGgufMetadata *self)
{
  return g_bytes_new (self->data->data, self->data->len);
}

gsize
ts_gguf_metadata_get_size (TsGgufMetadata *self)
{
  return self->data->len;
}

GListModel *
ts_gguf_metadata_list_entries (TsGgufMetadata *self)
{
  g_autoptr(GBytes) bytes = ts_gguf_metadata_get_bytes (self);
  GListStore *store = g_list_store_new (TS_TYPE_METADATA_ENTRY);
  gsize size;
  const guint8 *data = g_bytes_get_data (bytes, &size);

  for (guint i = 0; i < self->keys->len; i++)
    {
      guint64 start = g_array_index (self->offsets, guint64, i);
      const char *key = g_ptr_array_index (self->keys, i);
      guint64 value_offset = start + 8 + strlen (key) + 4;
      TsCursor cursor = { key, data, size, value_offset };
      guint32 type, array_type = 0;
      guint64 array_length = 0;
      g_autoptr(TsMetadataEntry) entry = NULL;

      memcpy (&type, data + value_offset - 4, 4);
      type = GUINT32_FROM_LE (type);
      if (type == TS_VALUE_ARRAY)
        {
          memcpy (&array_type, data + value_offset, 4);
          memcpy (&array_length, data + value_offset + 4, 8);
          array_type = GUINT32_FROM_LE (array_type);
          array_length = GUINT64_FROM_LE (array_length);
        }
      if (!_ts_gguf_skip_value (&cursor, type, 1, NULL))
        g_assert_not_reached ();
      entry = _ts_metadata_entry_new_gguf (key, type, bytes, start, value_offset,
                                           cursor.pos, array_type, array_length);
      g_list_store_append (store, entry);
    }
  return G_LIST_MODEL (store);
}
