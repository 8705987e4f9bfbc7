/* ts-metadata-entry.c
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ts-metadata-entry.h"
#include "ts-model-file-private.h"

struct _TsMetadataEntry
{
  GObject      parent_instance;
  char        *key;
  TsValueType  type;

  /* GGUF: the value's bytes inside the mapped file */
  GBytes      *bytes;
  guint64      entry_offset;
  guint64      value_offset;
  guint64      end_offset;
  TsValueType  array_type;
  guint64      array_length;

  /* Safetensors __metadata__: an owned string */
  char        *string;

  /* offsets of the items of a string/array array, built on first access */
  GMutex       index_lock;
  guint64     *item_offsets;
};

G_DEFINE_FINAL_TYPE (TsMetadataEntry, ts_metadata_entry, G_TYPE_OBJECT)

static const char * const type_nicks[] = {
  "uint8", "int8", "uint16", "int16", "uint32", "int32", "float32", "bool",
  "string", "array", "uint64", "int64", "float64",
};

static const gsize type_sizes[] = { 1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8 };

const char *
ts_value_type_to_nick (TsValueType type)
{
  if ((guint) type >= TS_VALUE_N_TYPES)
    return "invalid";
  return type_nicks[type];
}

gsize
ts_value_type_get_size (TsValueType type)
{
  if ((guint) type >= TS_VALUE_N_TYPES)
    return 0;
  return type_sizes[type];
}

static void
ts_metadata_entry_finalize (GObject *object)
{
  TsMetadataEntry *self = (TsMetadataEntry *)object;

  g_clear_pointer (&self->key, g_free);
  g_clear_pointer (&self->bytes, g_bytes_unref);
  g_clear_pointer (&self->string, g_free);
  g_clear_pointer (&self->item_offsets, g_free);
  g_mutex_clear (&self->index_lock);

  G_OBJECT_CLASS (ts_metadata_entry_parent_class)->finalize (object);
}

static void
ts_metadata_entry_class_init (TsMetadataEntryClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ts_metadata_entry_finalize;
}

static void
ts_metadata_entry_init (TsMetadataEntry *self)
{
  g_mutex_init (&self->index_lock);
}

TsMetadataEntry *
_ts_metadata_entry_new_gguf (const char  *key,
                             TsValueType  type,
                             GBytes      *bytes,
                             guint64      entry_offset,
                             guint64      value_offset,
                             guint64      end_offset,
                             TsValueType  array_type,
                             guint64      array_length)
{
  TsMetadataEntry *self = g_object_new (TS_TYPE_METADATA_ENTRY, NULL);

  self->key = g_strdup (key);
  self->type = type;
  self->bytes = g_bytes_ref (bytes);
  self->entry_offset = entry_offset;
  self->value_offset = value_offset;
  self->end_offset = end_offset;
  self->array_type = array_type;
  self->array_length = array_length;
  return self;
}

TsMetadataEntry *
_ts_metadata_entry_new_string (const char *key,
                               const char *value)
{
  TsMetadataEntry *self = g_object_new (TS_TYPE_METADATA_ENTRY, NULL);

  self->key = g_strdup (key);
  self->type = TS_VALUE_STRING;
  self->string = g_strdup (value);
  return self;
}

static const guint8 *
value_data (TsMetadataEntry *self)
{
  return (const guint8 *) g_bytes_get_data (self->bytes, NULL) + self->value_offset;
}

static guint64
read_u64 (const guint8 *p)
{
  guint64 v;

  memcpy (&v, p, sizeof v);
  return GUINT64_FROM_LE (v);
}

const char *
ts_metadata_entry_get_key (TsMetadataEntry *self)
{
  g_return_val_if_fail (TS_IS_METADATA_ENTRY (self), NULL);
  return self->key;
}

TsValueType
ts_metadata_entry_get_value_type (TsMetadataEntry *self)
{
  g_return_val_if_fail (TS_IS_METADATA_ENTRY (self), TS_VALUE_UINT8);
  return self->type;
}

guint64
ts_metadata_entry_get_offset (TsMetadataEntry *self)
{
  g_return_val_if_fail (TS_IS_METADATA_ENTRY (self), 0);
  return self->entry_offset;
}

guint64
ts_metadata_entry_get_length (TsMetadataEntry *self)
{
  g_return_val_if_fail (TS_IS_METADATA_ENTRY (self), 0);
  return self->end_offset - self->entry_offset;
}

/* A float value as an integer: truncated, saturated at the int64 range, NaN
 * as 0 (a plain cast is undefined behaviour outside that range). */
static gint64
double_to_int64 (double d)
{
  if (isnan (d))
    return 0;
  if (d >= 9223372036854775808.0)
    return G_MAXINT64;
  if (d < -9223372036854775808.0)
    return G_MININT64;
  return (gint64) d;
}

/* Decodes a fixed-size scalar into the widest matching C types. */
static gboolean
read_scalar (TsMetadataEntry *self,
             guint64         *u,
             gint64          *i,
             double          *d)
{
  const guint8 *p;
  guint8 buf[8] = { 0 };
  gsize size = ts_value_type_get_size (self->type);

  if (self->bytes == NULL || size == 0)
    return FALSE;
  p = value_data (self);
  memcpy (buf, p, size);

#define LE(T, N) ({ T _v; memcpy (&_v, buf, sizeof _v); (T) GUINT##N##_FROM_LE (_v); })
  switch (self->type)
    {
    case TS_VALUE_UINT8:  *u = buf[0]; *i = buf[0]; *d = buf[0]; break;
    case TS_VALUE_BOOL:   *u = buf[0] != 0; *i = *u; *d = *u; break;
    case TS_VALUE_INT8:   *i = (gint8) buf[0]; *u = (guint64) *i; *d = *i; break;
    case TS_VALUE_UINT16: *u = LE (guint16, 16); *i = (gint64) *u; *d = (double) *u; break;
    case TS_VALUE_INT16:  *i = (gint16) LE (guint16, 16); *u = (guint64) *i; *d = (double) *i; break;
    case TS_VALUE_UINT32: *u = LE (guint32, 32); *i = (gint64) *u; *d = (double) *u; break;
    case TS_VALUE_INT32:  *i = (gint32) LE (guint32, 32); *u = (guint64) *i; *d = (double) *i; break;
    case TS_VALUE_UINT64: *u = LE (guint64, 64); *i = (gint64) *u; *d = (double) *u; break;
    case TS_VALUE_INT64:  *i = (gint64) LE (guint64, 64); *u = (guint64) *i; *d = (double) *i; break;
    case TS_VALUE_FLOAT32:
      *d = ts_f32_from_bits (LE (guint32, 32));
      *i = double_to_int64 (*d); *u = (guint64) *i;
      break;
    case TS_VALUE_FLOAT64:
      {
        guint64 bits = LE (guint64, 64);

        memcpy (d, &bits, sizeof *d);
        *i = double_to_int64 (*d); *u = (guint64) *i;
      }
      break;
    case TS_VALUE_STRING:
    case TS_VALUE_ARRAY:
    case TS_VALUE_N_TYPES:
    default:
      return FALSE;
    }
#undef LE
  return TRUE;
}

guint64
ts_metadata_entry_get_uint64 (TsMetadataEntry *self)
{
  guint64 u = 0; gint64 i = 0; double d = 0;

  g_return_val_if_fail (TS_IS_METADATA_ENTRY (self), 0);
  read_scalar (self, &u, &i, &d);
  return u;
}

gint64
ts_metadata_entry_get_int64 (TsMetadataEntry *self)
{
  guint64 u = 0; gint64 i = 0; double d = 0;

  g_return_val_if_fail (TS_IS_METADATA_ENTRY (self), 0);
  read_scalar (self, &u, &i, &d);
  return i;
}

double
ts_metadata_entry_get_double (TsMetadataEntry *self)
{
  guint64 u = 0; gint64 i = 0; double d = 0;

  g_return_val_if_fail (TS_IS_METADATA_ENTRY (self), 0);
  read_scalar (self, &u, &i, &d);
  return d;
}

gboolean
ts_metadata_entry_get_boolean (TsMetadataEntry *self)
{
  return ts_metadata_entry_get_uint64 (self) != 0;
}

const char *
ts_metadata_entry_get_string (TsMetadataEntry *self,
                              gsize           *length)
{
  const guint8 *p;

  g_return_val_if_fail (TS_IS_METADATA_ENTRY (self), NULL);

  if (self->type != TS_VALUE_STRING)
    return NULL;
  if (self->string != NULL)
    {
      if (length)
        *length = strlen (self->string);
      return self->string;
    }
  p = value_data (self);
  if (length)
    *length = (gsize) read_u64 (p);
  return (const char *) p + 8;
}

char *
ts_metadata_entry_dup_string (TsMetadataEntry *self)
{
  gsize len = 0;
  const char *s = ts_metadata_entry_get_string (self, &len);

  if (s == NULL)
    return NULL;
  return g_utf8_make_valid (s, (gssize) len);
}

TsValueType
ts_metadata_entry_get_array_type (TsMetadataEntry *self)
{
  g_return_val_if_fail (TS_IS_METADATA_ENTRY (self), TS_VALUE_UINT8);
  return self->array_type;
}

guint64
ts_metadata_entry_get_array_length (TsMetadataEntry *self)
{
  g_return_val_if_fail (TS_IS_METADATA_ENTRY (self), 0);
  return self->type == TS_VALUE_ARRAY ? self->array_length : 0;
}

const guint8 *
ts_metadata_entry_get_array_data (TsMetadataEntry *self)
{
  g_return_val_if_fail (TS_IS_METADATA_ENTRY (self), NULL);

  if (self->type != TS_VALUE_ARRAY || ts_value_type_get_size (self->array_type) == 0)
    return NULL;
  return value_data (self) + 12;
}

/* For arrays of variable-size items: one offset per item, found by walking
 * the (already validated) bytes once, on first use. */
static const guint64 *
ensure_item_offsets (TsMetadataEntry *self)
{
  g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&self->index_lock);
  TsCursor cursor = { 0 };
  guint64 *offsets;
  gsize size;

  if (self->item_offsets != NULL)
    return self->item_offsets;

  cursor.name = self->key;
  cursor.data = g_bytes_get_data (self->bytes, &size);
  cursor.size = size;
  cursor.pos = self->value_offset + 12;
  offsets = g_new (guint64, self->array_length);
  for (guint64 i = 0; i < self->array_length; i++)
    {
      offsets[i] = cursor.pos;
      if (!_ts_gguf_skip_value (&cursor, self->array_type, 1, NULL))
        g_error ("metadata array %s changed after validation", self->key);
    }
  self->item_offsets = offsets;
  return offsets;
}

/* The first items of an array of strings or arrays are found by walking
 * from the first, without the index: a report shows 8 of them, and the
 * index of a 16,777,216-string array took 128 MB. */
#define WALKED_ITEMS 64

static guint64
item_offset (TsMetadataEntry *self,
             guint64          index)
{
  gsize item_size = ts_value_type_get_size (self->array_type);
  TsCursor cursor = { 0 };
  gsize size;

  if (item_size != 0)
    return self->value_offset + 12 + index * item_size;
  if (index >= WALKED_ITEMS)
    return ensure_item_offsets (self)[index];

  cursor.name = self->key;
  cursor.data = g_bytes_get_data (self->bytes, &size);
  cursor.size = size;
  cursor.pos = self->value_offset + 12;
  for (guint64 i = 0; i < index; i++)
    if (!_ts_gguf_skip_value (&cursor, self->array_type, 1, NULL))
      g_error ("metadata array %s changed after validation", self->key);
  return cursor.pos;
}

/**
 * ts_metadata_entry_get_item:
 *
 * Returns: (transfer full): a new entry with an empty key for item @index
 */
TsMetadataEntry *
ts_metadata_entry_get_item (TsMetadataEntry *self,
                            guint64          index)
{
  TsCursor cursor = { 0 };
  guint64 offset;
  gsize size;
  const guint8 *data;
  TsValueType sub_type = TS_VALUE_UINT8;
  guint64 sub_length = 0;

  g_return_val_if_fail (TS_IS_METADATA_ENTRY (self), NULL);
  g_return_val_if_fail (self->type == TS_VALUE_ARRAY, NULL);
  g_return_val_if_fail (index < self->array_length, NULL);

  offset = item_offset (self, index);
  data = g_bytes_get_data (self->bytes, &size);
  cursor = (TsCursor) { self->key, data, size, offset };
  if (!_ts_gguf_skip_value (&cursor, self->array_type, 1, NULL))
    g_error ("metadata array %s changed after validation", self->key);
  if (self->array_type == TS_VALUE_ARRAY)
    {
      guint32 t;

      memcpy (&t, data + offset, 4);
      sub_type = GUINT32_FROM_LE (t);
      sub_length = read_u64 (data + offset + 4);
    }
  return _ts_metadata_entry_new_gguf ("", self->array_type, self->bytes,
                                      offset, offset, cursor.pos,
                                      sub_type, sub_length);
}

const char *
ts_metadata_entry_get_item_string (TsMetadataEntry *self,
                                   guint64          index,
                                   gsize           *length)
{
  const guint8 *p;

  g_return_val_if_fail (TS_IS_METADATA_ENTRY (self), NULL);
  g_return_val_if_fail (self->type == TS_VALUE_ARRAY, NULL);

  if (self->array_type != TS_VALUE_STRING || index >= self->array_length)
    return NULL;
  p = (const guint8 *) g_bytes_get_data (self->bytes, NULL) + item_offset (self, index);
  if (length)
    *length = (gsize) read_u64 (p);
  return (const char *) p + 8;
}

/**
 * ts_format_float:
 * @d: a value
 * @single: %TRUE if it is a float32
 *
 * Returns: the fewest significant digits that read back as the same float32
 *   (or double): 0.9 rather than 0.899999976, 500000 rather than 5e+05,
 *   with a dot whatever the locale
 */
char *
ts_format_float (double   d,
                 gboolean single)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  char format[8];

  for (int digits = 1; digits <= (single ? 9 : 17); digits++)
    {
      double back;

      g_snprintf (format, sizeof format, "%%.%dg", digits);
      g_ascii_formatd (buf, sizeof buf, format, d);
      back = g_ascii_strtod (buf, NULL);
      if (single ? (float) back == (float) d : back == d)
        {
          /* 500000 rather than 5e+05 where plain decimals are short: as
           * many decimals as those digits need, the exponent read from the
           * digits themselves (log10 rounds up just below a power of ten) */
          double mag = fabs (d);

          if (mag >= 1e-4 && mag < 1e15)
            {
              char sci[G_ASCII_DTOSTR_BUF_SIZE];
              g_autoptr(GString) fixed = g_string_new (NULL);
              g_autoptr(GString) mantissa = g_string_new (NULL);
              const char *p;
              int exponent;

              /* the same digits, moved: "1.5e+05" -> "150000" (printing the
               * value with %f would show the double's own digits instead,
               * 99999997952 for the float32 1e11) */
              g_snprintf (format, sizeof format, "%%.%de", digits - 1);
              g_ascii_formatd (sci, sizeof sci, format, d);
              for (p = sci; *p != '\0' && *p != 'e'; p++)
                if (g_ascii_isdigit (*p))
                  g_string_append_c (mantissa, *p);
              exponent = *p == 'e' ? atoi (p + 1) : 0;
              if (sci[0] == '-')
                g_string_append_c (fixed, '-');
              if (exponent >= 0)
                {
                  for (int k = 0; k <= exponent; k++)
                    g_string_append_c (fixed, k < (int) mantissa->len ? mantissa->str[k] : '0');
                  if ((int) mantissa->len > exponent + 1)
                    g_string_append_printf (fixed, ".%s", mantissa->str + exponent + 1);
                }
              else
                {
                  g_string_append (fixed, "0.");
                  for (int k = 0; k < -exponent - 1; k++)
                    g_string_append_c (fixed, '0');
                  g_string_append (fixed, mantissa->str);
                }
              back = g_ascii_strtod (fixed->str, NULL);
              if (single ? (float) back == (float) d : back == d)
                g_strlcpy (buf, fixed->str, sizeof buf);
            }
          break;
        }
    }
  return g_strdup (buf);
}

char *
ts_metadata_entry_to_string (TsMetadataEntry *self)
{
  guint64 u = 0; gint64 i = 0; double d = 0;

  g_return_val_if_fail (TS_IS_METADATA_ENTRY (self), NULL);

  switch (self->type)
    {
    case TS_VALUE_STRING:
      return ts_metadata_entry_dup_string (self);
    case TS_VALUE_ARRAY:
      return g_strdup_printf ("[%s × %" G_GUINT64_FORMAT "]",
                              ts_value_type_to_nick (self->array_type),
                              self->array_length);
    case TS_VALUE_BOOL:
      return g_strdup (ts_metadata_entry_get_boolean (self) ? "true" : "false");
    case TS_VALUE_FLOAT32:
    case TS_VALUE_FLOAT64:
      read_scalar (self, &u, &i, &d);
      return ts_format_float (d, self->type == TS_VALUE_FLOAT32);
    case TS_VALUE_INT8:
    case TS_VALUE_INT16:
    case TS_VALUE_INT32:
    case TS_VALUE_INT64:
      read_scalar (self, &u, &i, &d);
      return g_strdup_printf ("%" G_GINT64_FORMAT, i);
    case TS_VALUE_UINT8:
    case TS_VALUE_UINT16:
    case TS_VALUE_UINT32:
    case TS_VALUE_UINT64:
      read_scalar (self, &u, &i, &d);
      return g_strdup_printf ("%" G_GUINT64_FORMAT, u);
    case TS_VALUE_N_TYPES:
    default:
      return g_strdup ("");
    }
}
