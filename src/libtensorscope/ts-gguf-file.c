/* ts-gguf-file.c: the GGUF v2/v3 reader
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Follows the rules of llama.cpp's own parser: every count and length read
 * from the file is proven to fit in the bytes that remain before anything
 * is allocated from it, and each failed rule has its own error code.
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <inttypes.h>
#include <string.h>

#include "ts-error.h"
#include "ts-gguf-file.h"
#include "ts-model-file-private.h"

#define GGUF_FIXED_HEADER_SIZE 24
#define GGUF_DEFAULT_ALIGNMENT 32
#define GGUF_MAX_NAME          64
#define GGUF_MAX_DIMS          4
#define GGUF_MAX_DEPTH         8
/* ids beyond any ggml type: newer ids below it are shown as unknown */
#define GGUF_TYPE_LIMIT        1024

struct _TsGgufFile
{
  TsModelFile parent_instance;
  guint32     version;
  guint32     alignment;
  guint64     metadata_end;
  guint64     tensor_info_end;
};

G_DEFINE_FINAL_TYPE (TsGgufFile, ts_gguf_file, TS_TYPE_MODEL_FILE)

TsModelFile *_ts_gguf_file_load (GFile *file, TsLoadProgress *progress,
                                 GCancellable *cancellable, GError **error);

static void
ts_gguf_file_class_init (TsGgufFileClass *klass)
{
}

static void
ts_gguf_file_init (TsGgufFile *self)
{
  self->alignment = GGUF_DEFAULT_ALIGNMENT;
}

static gboolean G_GNUC_PRINTF (4, 5)
fail (GError   **error,
      TsCursor  *cursor,
      int        code,
      const char *format,
      ...)
{
  g_autofree char *msg = NULL;
  g_autofree char *pos = _ts_format_count (cursor->pos);
  va_list args;

  va_start (args, format);
  msg = g_strdup_vprintf (format, args);
  va_end (args);
  if (cursor->context != NULL)
    {
      char *with_context = g_strconcat (cursor->context, msg, NULL);

      g_free (msg);
      msg = with_context;
    }
  g_set_error (error, TS_FORMAT_ERROR, code, _("%s: byte %s: %s"), cursor->name, pos, msg);
  return FALSE;
}

static inline guint64
remaining (const TsCursor *c)
{
  return c->size - c->pos;
}

static gboolean
read_bytes (TsCursor    *c,
            void        *out,
            gsize        n,
            const char  *what,
            GError     **error)
{
  if (remaining (c) < n)
    return fail (error, c, TS_FORMAT_ERROR_TRUNCATED,
                 _("the file ends inside the %s (%" PRIu64 " bytes needed, "
                   "%" PRIu64 " left; truncated download?)"),
                 what, (guint64) n, remaining (c));
  memcpy (out, c->data + c->pos, n);
  c->pos += n;
  return TRUE;
}

static gboolean
read_u32 (TsCursor *c, guint32 *v, const char *what, GError **error)
{
  if (!read_bytes (c, v, 4, what, error))
    return FALSE;
  *v = GUINT32_FROM_LE (*v);
  return TRUE;
}

static gboolean
read_u64 (TsCursor *c, guint64 *v, const char *what, GError **error)
{
  if (!read_bytes (c, v, 8, what, error))
    return FALSE;
  *v = GUINT64_FROM_LE (*v);
  return TRUE;
}

/* A key or tensor name with a NUL byte in it: llama.cpp keeps the whole
 * string when it reads the file but looks keys up, and names tensors, by
 * the text before the NUL, so "general.alignment\0x" would be found as
 * general.alignment there while it is another key here. The two views of
 * the file would differ, so it is refused. */
static gboolean
check_no_nul (TsCursor    *c,
              guint64      offset,
              const char  *text,
              guint64      len,
              const char  *what,
              GError     **error)
{
  const char *nul = memchr (text, '\0', len);
  g_autofree char *before = NULL;

  if (nul == NULL)
    return TRUE;
  before = g_utf8_make_valid (text, nul - text);
  c->pos = offset;
  return fail (error, c, TS_FORMAT_ERROR_NUL_IN_NAME,
               _("%s '%s…' holds a NUL byte at byte %" PRIu64 " of its %" PRIu64 ": "
               "llama.cpp reads it only up to there, as '%s'"),
               what, before, (guint64) (nul - text), len, before);
}

/* A GGUF string: u64 length + bytes. Returns a pointer into the mapping. */
static gboolean
read_string (TsCursor     *c,
             const char  **str,
             guint64      *len,
             const char   *what,
             GError      **error)
{
  guint64 start = c->pos;

  /* defined on failure too: -O3 inlining otherwise warns at every caller */
  *str = NULL;
  *len = 0;
  if (!read_u64 (c, len, what, error))
    return FALSE;
  if (*len > remaining (c))
    {
      c->pos = start;
      return fail (error, c, TS_FORMAT_ERROR_STRING_PAST_EOF,
                   _("%s: string length %" PRIu64 " runs past the end "
                   "of the file (%" PRIu64 " bytes left)"),
                   what, *len, remaining (c) - 8);
    }
  *str = (const char *) c->data + c->pos;
  c->pos += *len;
  return TRUE;
}

gboolean
_ts_gguf_skip_value (TsCursor     *c,
                     TsValueType   type,
                     guint         depth,
                     GError      **error)
{
  const char *s;
  guint64 len;
  guint32 elem_type = 0;
  guint64 count = 0;
  guint64 start;
  gsize elem_size;

  if ((guint) type >= TS_VALUE_N_TYPES)
    return fail (error, c, TS_FORMAT_ERROR_INVALID_VALUE_TYPE,
                 _("value type %u is not a GGUF type (0-12)"), (guint) type);

  if (type == TS_VALUE_STRING)
    return read_string (c, &s, &len, _("string value"), error);

  if (type != TS_VALUE_ARRAY)
    {
      elem_size = ts_value_type_get_size (type);
      if (remaining (c) < elem_size)
        return fail (error, c, TS_FORMAT_ERROR_TRUNCATED,
                     _("the file ends inside a %s value"), ts_value_type_to_nick (type));
      c->pos += elem_size;
      return TRUE;
    }

  if (depth > GGUF_MAX_DEPTH)
    return fail (error, c, TS_FORMAT_ERROR_NESTING_TOO_DEEP,
                 _("arrays nested deeper than %d levels"), GGUF_MAX_DEPTH);

  start = c->pos;
  if (!read_u32 (c, &elem_type, _("array element type"), error) ||
      !read_u64 (c, &count, _("array length"), error))
    return FALSE;
  if (elem_type >= TS_VALUE_N_TYPES)
    {
      c->pos = start;
      return fail (error, c, TS_FORMAT_ERROR_INVALID_VALUE_TYPE,
                   _("array element type %u is not a GGUF type (0-12)"), elem_type);
    }

  /* The smallest encoding of one element bounds the count before any walk. */
  elem_size = ts_value_type_get_size (elem_type);
  {
    guint64 min_size = elem_size ? elem_size : (elem_type == TS_VALUE_STRING ? 8 : 12);
    guint64 needed;

    if (!ts_mul_u64 (count, min_size, &needed) || needed > remaining (c))
      {
        c->pos = start;
        return fail (error, c, TS_FORMAT_ERROR_ARRAY_PAST_EOF,
                     _("array of %" PRIu64 " %s items cannot fit in the "
                     "%" PRIu64 " bytes left (truncated download?)"),
                     count, ts_value_type_to_nick (elem_type), remaining (c));
      }
    if (elem_size)
      {
        c->pos += needed;
        return TRUE;
      }
  }

  for (guint64 i = 0; i < count; i++)
    if (!_ts_gguf_skip_value (c, elem_type, depth + 1, error))
      return FALSE;
  return TRUE;
}

static gboolean
read_header (TsGgufFile  *self,
             TsCursor    *c,
             guint64     *n_tensors,
             guint64     *n_kv,
             GError     **error)
{
  char magic[4];

  if (!read_bytes (c, magic, 4, _("magic"), error))
    return FALSE;
  if (memcmp (magic, "GGUF", 4) != 0)
    {
      c->pos = 0;
      return fail (error, c, TS_FORMAT_ERROR_BAD_MAGIC,
                   _("bad magic: expected \"GGUF\""));
    }
  if (!read_u32 (c, &self->version, _("version"), error))
    return FALSE;
  if (self->version < 2 || self->version > 3)
    {
      guint32 swapped = GUINT32_SWAP_LE_BE (self->version);

      c->pos = 4;
      /* a file written for a big-endian machine (gguf-py --bigendian)
       * reads as version 0x03000000; llama.cpp refuses it too */
      if (swapped >= 1 && swapped <= 3)
        return fail (error, c, TS_FORMAT_ERROR_UNSUPPORTED_VERSION,
                     _("the file is a big-endian GGUF (its version reads %u with the bytes "
                       "swapped); only little-endian GGUF files are read"),
                     swapped);
      return fail (error, c, TS_FORMAT_ERROR_UNSUPPORTED_VERSION,
                   _("GGUF version %u is not supported (versions 2 and 3 are)"),
                   self->version);
    }
  if (!read_u64 (c, n_tensors, _("tensor count"), error) ||
      !read_u64 (c, n_kv, _("metadata count"), error))
    return FALSE;

  if (*n_tensors > TS_MAX_TENSORS)
    {
      c->pos = 8;
      return fail (error, c, TS_FORMAT_ERROR_COUNT_TOO_LARGE,
                   _("tensor count %" PRIu64 " is more than the %u tensors Tensorscope reads "
                     "(no real model holds more than a few tens of thousands)"),
                   *n_tensors, TS_MAX_TENSORS);
    }
  if (*n_kv > TS_MAX_METADATA)
    {
      c->pos = 16;
      return fail (error, c, TS_FORMAT_ERROR_COUNT_TOO_LARGE,
                   _("metadata count %" PRIu64 " is more than the %u entries Tensorscope reads "
                     "(real files hold a few dozen)"),
                   *n_kv, TS_MAX_METADATA);
    }
  /* Counts that the rest of the file cannot hold are not refused here:
   * entries and descriptors are read (and stored) only as far as the file
   * goes, and a file cut short is told at the byte where it ends, inside
   * the entry or descriptor it cuts, not blamed on a count. */
  return TRUE;
}

static gboolean
check_alignment (TsGgufFile      *self,
                 TsCursor        *c,
                 TsMetadataEntry *entry,
                 GError         **error)
{
  guint64 value = ts_metadata_entry_get_uint64 (entry);

  if (ts_metadata_entry_get_value_type (entry) != TS_VALUE_UINT32)
    {
      c->pos = ts_metadata_entry_get_offset (entry);
      return fail (error, c, TS_FORMAT_ERROR_BAD_ALIGNMENT,
                   _("general.alignment must be a uint32, not %s"),
                   ts_value_type_to_nick (ts_metadata_entry_get_value_type (entry)));
    }
  if (value == 0 || (value & (value - 1)) != 0)
    {
      c->pos = ts_metadata_entry_get_offset (entry);
      return fail (error, c, TS_FORMAT_ERROR_BAD_ALIGNMENT,
                   _("general.alignment %" PRIu64 " is not a non-zero "
                   "power of two"), value);
    }
  self->alignment = (guint32) value;
  return TRUE;
}

static gboolean
read_metadata (TsGgufFile    *self,
               TsCursor      *c,
               GBytes        *bytes,
               guint64        n_kv,
               GCancellable  *cancellable,
               GError       **error)
{
  TsModelFile *model = TS_MODEL_FILE (self);

  for (guint64 i = 0; i < n_kv; i++)
    {
      g_autoptr(TsMetadataEntry) entry = NULL;
      g_autofree char *key = NULL;
      guint64 entry_offset = c->pos;
      guint64 value_offset, key_len;
      const char *key_data;
      guint32 type = 0;
      guint32 array_type = 0;
      guint64 array_length = 0;

      if (i % 256 == 0 && g_cancellable_set_error_if_cancelled (cancellable, error))
        return FALSE;
      _ts_model_file_progress (model, 0.0, 0.4, i, n_kv,
                               _("Reading metadata: entry %" PRIu64 " of %" PRIu64),
                               i + 1, n_kv);
      if (!read_string (c, &key_data, &key_len, _("metadata key"), error))
        return FALSE;
      if (key_len == 0)
        {
          c->pos = entry_offset;
          return fail (error, c, TS_FORMAT_ERROR_EMPTY_KEY,
                       _("metadata entry #%" PRIu64 " has an empty key"), i);
        }
      key = g_utf8_make_valid (key_data, (gssize) key_len);
      if (!check_no_nul (c, entry_offset, key_data, key_len, _("metadata key"), error))
        return FALSE;
      if (ts_model_file_lookup_metadata (model, key) != NULL)
        {
          c->pos = entry_offset;
          if (!g_utf8_validate_len (key_data, (gsize) key_len, NULL))
            {
              /* two different byte strings that read as the same text */
              g_autoptr(GString) raw = g_string_new (NULL);

              for (guint64 b = 0; b < key_len; b++)
                if (g_ascii_isprint (key_data[b]) && key_data[b] != '\\')
                  g_string_append_c (raw, key_data[b]);
                else
                  g_string_append_printf (raw, "\\x%02x", (guchar) key_data[b]);
              return fail (error, c, TS_FORMAT_ERROR_DUPLICATE_KEY,
                           _("metadata key '%s' is not valid UTF-8 and reads as '%s', "
                           "the same as an earlier key"), raw->str, key);
            }
          return fail (error, c, TS_FORMAT_ERROR_DUPLICATE_KEY,
                       _("metadata key '%s' appears twice"), key);
        }
      if (!read_u32 (c, &type, _("metadata value type"), error))
        return FALSE;
      value_offset = c->pos;
      if (type >= TS_VALUE_N_TYPES)
        {
          c->pos -= 4;
          return fail (error, c, TS_FORMAT_ERROR_INVALID_VALUE_TYPE,
                       _("metadata key '%s': value type %u is not a GGUF type (0-12)"),
                       key, type);
        }
      if (type == TS_VALUE_ARRAY && remaining (c) >= 12)
        {
          memcpy (&array_type, c->data + c->pos, 4);
          memcpy (&array_length, c->data + c->pos + 4, 8);
          array_type = GUINT32_FROM_LE (array_type);
          array_length = GUINT64_FROM_LE (array_length);
        }
      {
        g_autofree char *context = g_strdup_printf (_("metadata key '%s': "), key);
        gboolean ok;

        c->context = context;
        ok = _ts_gguf_skip_value (c, type, 1, error);
        c->context = NULL;
        if (!ok)
          return FALSE;
      }
      entry = _ts_metadata_entry_new_gguf (key, type, bytes, entry_offset,
                                           value_offset, c->pos,
                                           array_type, array_length);
      if (g_str_equal (key, "general.alignment") &&
          !check_alignment (self, c, entry, error))
        return FALSE;
      _ts_model_file_add_metadata (model, entry);
    }
  return TRUE;
}

typedef struct
{
  char    *name;
  guint32  n_dims;
  guint64  dims[GGUF_MAX_DIMS];
  guint32  ggml_type;
  TsDType  dtype;
  guint64  offset;       /* relative to the data section */
  guint64  n_elements;
  guint64  size;         /* G_MAXUINT64 while unknown */
  guint64  info_offset;  /* where its descriptor starts */
} TensorInfo;

static void
tensor_info_clear (gpointer data)
{
  TensorInfo *ti = data;

  g_free (ti->name);
}

static gboolean
read_tensor_info (TsGgufFile  *self,
                  TsCursor    *c,
                  GHashTable  *seen,
                  TensorInfo  *ti,
                  GError     **error)
{
  const char *name;
  guint64 name_len;

  ti->info_offset = c->pos;
  if (!read_string (c, &name, &name_len, _("tensor name"), error))
    return FALSE;
  ti->name = g_utf8_make_valid (name, (gssize) name_len);
  if (!check_no_nul (c, ti->info_offset, name, name_len, _("tensor name"), error))
    return FALSE;
  if (name_len >= GGUF_MAX_NAME)
    {
      c->pos = ti->info_offset;
      return fail (error, c, TS_FORMAT_ERROR_NAME_TOO_LONG,
                   _("tensor name '%s' is %" PRIu64 " bytes long (at most %d)"),
                   ti->name, name_len, GGUF_MAX_NAME - 1);
    }
  if (g_hash_table_contains (seen, ti->name))
    {
      c->pos = ti->info_offset;
      return fail (error, c, TS_FORMAT_ERROR_DUPLICATE_TENSOR,
                   _("tensor '%s' is described twice"), ti->name);
    }
  if (!read_u32 (c, &ti->n_dims, _("tensor dimension count"), error))
    return FALSE;
  if (ti->n_dims > GGUF_MAX_DIMS)
    {
      c->pos -= 4;
      return fail (error, c, TS_FORMAT_ERROR_TOO_MANY_DIMS,
                   _("tensor '%s' has %u dimensions (at most %d)"),
                   ti->name, ti->n_dims, GGUF_MAX_DIMS);
    }
  ti->n_elements = 1;
  for (guint d = 0; d < ti->n_dims; d++)
    {
      if (!read_u64 (c, &ti->dims[d], _("tensor dimensions"), error))
        return FALSE;
      if (ti->dims[d] > (guint64) G_MAXINT64)
        {
          c->pos -= 8;
          return fail (error, c, TS_FORMAT_ERROR_INVALID_DIM,
                       _("tensor '%s': dimension %u is negative (%" PRId64 ")"),
                       ti->name, d, (gint64) ti->dims[d]);
        }
      if (!ts_mul_u64 (ti->n_elements, ti->dims[d], &ti->n_elements) ||
          ti->n_elements > (guint64) G_MAXINT64)
        {
          c->pos -= 8;
          return fail (error, c, TS_FORMAT_ERROR_OVERFLOW,
                       _("tensor '%s': the element count overflows 64 bits"), ti->name);
        }
    }
  if (!read_u32 (c, &ti->ggml_type, _("tensor type"), error))
    return FALSE;
  if (ti->ggml_type >= GGUF_TYPE_LIMIT)
    {
      c->pos -= 4;
      return fail (error, c, TS_FORMAT_ERROR_INVALID_TYPE,
                   _("tensor '%s': ggml type %u is out of range"), ti->name, ti->ggml_type);
    }
  ti->dtype = ts_dtype_from_ggml (ti->ggml_type);
  if (!read_u64 (c, &ti->offset, _("tensor offset"), error))
    return FALSE;

  ti->size = G_MAXUINT64;
  if (ti->dtype != TS_DTYPE_UNKNOWN)
    {
      const TsDTypeInfo *info = ts_dtype_get_info (ti->dtype);
      guint64 ne0 = ti->n_dims > 0 ? ti->dims[0] : 1;

      if (ne0 % info->block_size != 0)
        {
          c->pos = ti->info_offset;
          return fail (error, c, TS_FORMAT_ERROR_BLOCK_MISALIGNED,
                       _("tensor '%s': row length %" PRIu64 " is not a "
                       "multiple of the %s block size %u"),
                       ti->name, ne0, info->name, info->block_size);
        }
      if (!ts_dtype_compute_size (ti->dtype, ti->n_elements, &ti->size))
        {
          c->pos = ti->info_offset;
          return fail (error, c, TS_FORMAT_ERROR_OVERFLOW,
                       _("tensor '%s': the byte size overflows 64 bits"), ti->name);
        }
    }
  if (ti->offset % self->alignment != 0)
    {
      c->pos -= 8;
      return fail (error, c, TS_FORMAT_ERROR_UNALIGNED_OFFSET,
                   _("tensor '%s': offset %" PRIu64 " is not a multiple "
                   "of the alignment %u"), ti->name, ti->offset, self->alignment);
    }
  g_hash_table_add (seen, ti->name);
  return TRUE;
}

static guint64
align_up (guint64 v, guint64 alignment)
{
  return (v + alignment - 1) / alignment * alignment;
}

/* Offsets must follow each other exactly, each tensor padded to the
 * alignment, as llama.cpp requires. Unknown types take the room up to the
 * next tensor (or the end of the file). */
static gboolean
check_data_layout (TsGgufFile  *self,
                   TsCursor    *c,
                   GArray      *infos,
                   guint64      data_start,
                   guint64     *data_end,
                   GError     **error)
{
  guint64 expected = 0;
  guint64 data_size = c->size > data_start ? c->size - data_start : 0;

  for (guint i = 0; i < infos->len; i++)
    {
      TensorInfo *ti = &g_array_index (infos, TensorInfo, i);
      guint64 end;

      c->pos = ti->info_offset;
      if (ti->offset < expected)
        return fail (error, c, TS_FORMAT_ERROR_DATA_OVERLAP,
                     _("tensor '%s' at data offset %" PRIu64 " overlaps the "
                     "previous tensor, which ends at %" PRIu64),
                     ti->name, ti->offset, expected);
      if (ti->offset > expected)
        return fail (error, c, TS_FORMAT_ERROR_DATA_GAP,
                     _("tensor '%s' has data offset %" PRIu64 ", expected %"
                     PRIu64 " (a gap between tensors)"),
                     ti->name, ti->offset, expected);
      if (ti->size == G_MAXUINT64)
        {
          guint64 next = i + 1 < infos->len
            ? g_array_index (infos, TensorInfo, i + 1).offset : data_size;

          ti->size = next > ti->offset ? next - ti->offset : 0;
        }
      if (!ts_add_u64 (ti->offset, ti->size, &end) || end > data_size)
        {
          g_autofree char *abs_end = _ts_format_count (data_start + ti->offset + ti->size);
          g_autofree char *fsize = _ts_format_count (c->size);

          return fail (error, c, TS_FORMAT_ERROR_DATA_PAST_EOF,
                       _("tensor '%s' ends at byte %s but the file has %s bytes "
                       "(truncated download?)"), ti->name, abs_end, fsize);
        }
      expected = align_up (end, self->alignment);
    }
  *data_end = MIN (data_start + expected, c->size);
  return TRUE;
}

static void
add_regions (TsGgufFile *self,
             TsFilePart *part,
             guint64     data_start,
             guint64     data_end,
             gboolean    has_tensors)
{
  guint64 size = ts_file_part_get_size (part);
  guint64 pad_end = MIN (data_start, size);

  _ts_file_part_add_region (part, TS_REGION_FIXED_HEADER, 0, GGUF_FIXED_HEADER_SIZE);
  _ts_file_part_add_region (part, TS_REGION_METADATA, GGUF_FIXED_HEADER_SIZE,
                            self->metadata_end - GGUF_FIXED_HEADER_SIZE);
  _ts_file_part_add_region (part, TS_REGION_TENSOR_INFO, self->metadata_end,
                            self->tensor_info_end - self->metadata_end);
  if (pad_end > self->tensor_info_end)
    _ts_file_part_add_region (part, TS_REGION_PADDING, self->tensor_info_end,
                              pad_end - self->tensor_info_end);
  if (has_tensors && data_end > data_start)
    _ts_file_part_add_region (part, TS_REGION_TENSOR_DATA, data_start,
                              data_end - data_start);
  else
    data_end = pad_end;
  if (size > data_end)
    {
      g_autofree char *n = _ts_format_count (size - data_end);
      g_autofree char *at = _ts_format_count (data_end);

      _ts_file_part_add_region (part, TS_REGION_UNEXPLAINED, data_end, size - data_end);
      _ts_model_file_add_warning (TS_MODEL_FILE (self),
                                  _("%s: %s bytes after the last tensor (from byte %s) "
                                  "are not explained by the format"),
                                  ts_file_part_get_name (part), n, at);
    }
}

static gboolean
load_tensors (TsGgufFile    *self,
              TsCursor      *c,
              TsFilePart    *part,
              guint64        n_tensors,
              GCancellable  *cancellable,
              GError       **error)
{
  /* grown as descriptors are proven to exist, never sized from the count */
  g_autoptr(GArray) infos = g_array_new (FALSE, TRUE, sizeof (TensorInfo));
  g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  guint64 data_start, data_end = 0;

  g_array_set_clear_func (infos, tensor_info_clear);
  for (guint64 i = 0; i < n_tensors; i++)
    {
      TensorInfo ti = { 0 };

      if (i % 1024 == 0 && g_cancellable_set_error_if_cancelled (cancellable, error))
        return FALSE;
      _ts_model_file_progress (TS_MODEL_FILE (self), 0.4, 0.8, i, n_tensors,
                               _("Reading tensor descriptors: %" PRIu64 " of %" PRIu64),
                               i + 1, n_tensors);
      if (!read_tensor_info (self, c, seen, &ti, error))
        {
          tensor_info_clear (&ti);
          return FALSE;
        }
      g_array_append_val (infos, ti);
    }
  self->tensor_info_end = c->pos;
  data_start = align_up (c->pos, self->alignment);
  if (!check_data_layout (self, c, infos, data_start, &data_end, error))
    return FALSE;

  _ts_file_part_set_data_offset (part, MIN (data_start, c->size));
  add_regions (self, part, data_start, data_end, infos->len > 0);

  for (guint i = 0; i < infos->len; i++)
    {
      TensorInfo *ti = &g_array_index (infos, TensorInfo, i);
      g_autoptr(TsTensor) tensor = NULL;
      g_autofree char *raw = NULL;

      if (i % 1024 == 0 && g_cancellable_set_error_if_cancelled (cancellable, error))
        return FALSE;
      _ts_model_file_progress (TS_MODEL_FILE (self), 0.8, 1.0, i, infos->len,
                               _("Indexing tensors: %u of %u"), i + 1, infos->len);
      if (ti->dtype == TS_DTYPE_UNKNOWN)
        {
          raw = g_strdup_printf ("ggml type %u", ti->ggml_type);
          _ts_model_file_add_warning (TS_MODEL_FILE (self),
                                      _("%s: tensor '%s' has ggml type %u, which this "
                                      "version does not know; shown as unknown"),
                                      c->name, ti->name, ti->ggml_type);
        }
      /* An empty tensor may sit where the data section would start when
       * the file ends before that padding (llama.cpp accepts it): it is
       * placed at the end of the file, so every tensor lies inside it. */
      tensor = _ts_tensor_new (ti->name, ti->dtype, raw, ti->n_dims, ti->dims, TRUE,
                               part, MIN (data_start + ti->offset, c->size), ti->size,
                               ti->n_elements);
      _ts_model_file_add_tensor (TS_MODEL_FILE (self), tensor);
    }
  return TRUE;
}

/* One GGUF file, as part @index of the model it makes. */
static TsGgufFile *
load_file (GFile           *file,
           guint            index,
           TsLoadProgress  *progress,
           GCancellable    *cancellable,
           GError         **error)
{
  g_autoptr(TsGgufFile) self = g_object_new (TS_TYPE_GGUF_FILE, NULL);
  g_autoptr(TsFilePart) part = NULL;
  g_autoptr(GBytes) bytes = NULL;
  TsCursor cursor = { 0 };
  guint64 n_tensors = 0, n_kv = 0;

  part = _ts_file_part_open (file, index, error);
  if (part == NULL)
    return NULL;
  _ts_model_file_set_file (TS_MODEL_FILE (self), file);
  _ts_model_file_set_progress (TS_MODEL_FILE (self), progress);

  cursor.name = ts_file_part_get_name (part);
  cursor.data = ts_file_part_get_contents (part);
  cursor.size = ts_file_part_get_size (part);
  cursor.pos = 0;
  /* the metadata entries keep the part (and with it the mapping's SIGBUS
   * guard, see ts-map-guard.c) alive, not only the mapping */
  bytes = ts_file_part_get_mapping (part)
    ? g_bytes_new_with_free_func (ts_file_part_get_contents (part), ts_file_part_get_size (part),
                                  g_object_unref, g_object_ref (part))
    : g_bytes_new_static ("", 0);

  if (!read_header (self, &cursor, &n_tensors, &n_kv, error) ||
      !read_metadata (self, &cursor, bytes, n_kv, cancellable, error))
    return NULL;
  self->metadata_end = cursor.pos;
  if (!load_tensors (self, &cursor, part, n_tensors, cancellable, error))
    return NULL;

  _ts_model_file_add_part (TS_MODEL_FILE (self), part);
  return g_steal_pointer (&self);
}

/* ---- split sets ----
 *
 * llama.cpp's gguf-split (and llama-quantize --keep-split) write a large
 * model as NAME-00001-of-00003.gguf, NAME-00002-of-00003.gguf, …: each a
 * whole GGUF file holding some of the tensors, the first also the model's
 * metadata, and each the keys split.no (from 0) and split.count (uint16),
 * the first also split.tensors.count (int32). llama.cpp loads such a set
 * from its first file, finding the others by name; opened at any of its
 * files, Tensorscope reads the whole set, one part per file. */


/* split.no or split.count: FALSE if @model lacks it; a value of another
 * type than uint16, which llama.cpp refuses, is G_MAXUINT */
static gboolean
get_split_key (TsModelFile *model,
               const char  *key,
               guint       *value)
{
  TsMetadataEntry *entry = ts_model_file_lookup_metadata (model, key);

  if (entry == NULL)
    return FALSE;
  *value = ts_metadata_entry_get_value_type (entry) == TS_VALUE_UINT16
         ? (guint) ts_metadata_entry_get_uint64 (entry)
         : G_MAXUINT;
  return TRUE;
}

/* Does @name end in a split file's "-00002-of-00003.gguf"? Then the
 * number it gives (from 0), the count, and where that suffix starts. */
static gboolean
parse_split_name (const char *name,
                  guint      *no,
                  guint      *count,
                  gsize      *prefix_len)
{
  static const char pattern[] = "-#####-of-#####.gguf";
  gsize len = strlen (name), plen = sizeof pattern - 1;
  const char *tail;
  guint values[2] = { 0, 0 };

  if (len <= plen)
    return FALSE;
  tail = name + len - plen;
  for (gsize i = 0, v = 0; i < plen; i++)
    {
      if (pattern[i] != '#')
        {
          if (tail[i] != pattern[i])
            return FALSE;
          if (i > 0 && pattern[i - 1] == '#')
            v++;
          continue;
        }
      if (!g_ascii_isdigit (tail[i]))
        return FALSE;
      values[v] = values[v] * 10 + (guint) g_ascii_digit_value (tail[i]);
    }
  if (values[0] == 0)
    return FALSE;
  *no = values[0] - 1;
  *count = values[1];
  *prefix_len = len - plen;
  return TRUE;
}

/* The name of file @no (from 0) of the set whose files start with
 * @prefix. */
static char *
split_name (const char *prefix,
            guint       no,
            guint       count)
{
  return g_strdup_printf ("%s" TS_GGUF_SPLIT_NAME_FORMAT, prefix, no + 1, count);
}

/* @file, named as split @no (from 0) of @count, must say it is that split
 * in its split.no and split.count */
static gboolean
check_split_position (TsModelFile  *file,
                      const char   *name,
                      guint         no,
                      guint         count,
                      GError      **error)
{
  guint file_no = G_MAXUINT, file_count = 0;

  if (get_split_key (file, "split.no", &file_no) && file_no == no &&
      get_split_key (file, "split.count", &file_count) && file_count == count)
    return TRUE;
  g_set_error (error, TS_FORMAT_ERROR, TS_FORMAT_ERROR_INVALID_SPLIT,
               _("%s: its name makes it split %u of %u, but its split.no and split.count "
                 "(uint16) do not say so"), name, no + 1, count);
  return FALSE;
}

/* Moves @split's part, tensors and warnings into @model, the set's first
 * file: split @no of @count must say so, and hold no tensor @model has. */
static gboolean
merge_split (TsModelFile  *model,
             TsModelFile  *split,
             guint         no,
             guint         count,
             GError      **error)
{
  g_autoptr(TsFilePart) part = g_list_model_get_item (ts_model_file_get_parts (split), 0);
  GListModel *tensors = ts_model_file_get_tensors (split);
  const char * const *warnings = ts_model_file_get_warnings (split);

  if (!check_split_position (split, ts_file_part_get_name (part), no, count, error))
    return FALSE;
  for (guint i = 0; i < g_list_model_get_n_items (tensors); i++)
    {
      g_autoptr(TsTensor) tensor = g_list_model_get_item (tensors, i);

      if (_ts_model_file_has_tensor (model, ts_tensor_get_name (tensor)))
        {
          TsTensor *first = ts_model_file_lookup_tensor (model, ts_tensor_get_name (tensor));

          g_set_error (error, TS_FORMAT_ERROR, TS_FORMAT_ERROR_DUPLICATE_TENSOR,
                       _("%s: tensor '%s' is in %s too"), ts_file_part_get_name (part),
                       ts_tensor_get_name (tensor), ts_file_part_get_name (ts_tensor_get_part (first)));
          return FALSE;
        }
      _ts_model_file_add_tensor (model, tensor);
    }
  _ts_model_file_add_part (model, part);
  for (guint i = 0; warnings[i] != NULL; i++)
    _ts_model_file_add_warning (model, "%s", warnings[i]);
  /* llama.cpp reads the model's metadata from the first file only */
  {
    GListModel *metadata = ts_model_file_get_metadata (split);
    guint n_other = 0;

    for (guint i = 0; i < g_list_model_get_n_items (metadata); i++)
      {
        g_autoptr(TsMetadataEntry) entry = g_list_model_get_item (metadata, i);

        if (!g_str_has_prefix (ts_metadata_entry_get_key (entry), "split."))
          n_other++;
      }
    if (n_other > 0)
      _ts_model_file_add_warning (model,
                                  g_dngettext (GETTEXT_PACKAGE,
                                               "%s: %u metadata key besides split.* is not "
                                               "shown: llama.cpp reads a split set's metadata "
                                               "from its first file only",
                                               "%s: %u metadata keys besides split.* are not "
                                               "shown: llama.cpp reads a split set's metadata "
                                               "from its first file only", n_other),
                                  ts_file_part_get_name (part), n_other);
  }
  return TRUE;
}

/* @model is file @no of a set of @count, opened as @file: the whole set,
 * or @model alone, with a warning, where the set is not all there. */
static TsModelFile *
load_split_set (TsModelFile     *model,
                GFile           *file,
                guint            no,
                guint            count,
                TsLoadProgress  *progress,
                GCancellable    *cancellable,
                GError         **error)
{
  g_autoptr(TsModelFile) first = NULL;
  g_autoptr(GFile) dir = g_file_get_parent (file);
  g_autofree char *name = g_file_get_basename (file);
  g_autofree char *shown = ts_file_display_basename (file);
  g_autofree char *prefix = NULL;
  g_autofree char *first_name = NULL;
  g_autofree char *first_shown = NULL;
  g_autoptr(GString) missing = g_string_new (NULL);
  guint n_missing = 0, name_no = 0, name_count = 0;
  gsize prefix_len = 0;
  TsMetadataEntry *n_tensors;

  if (!parse_split_name (name, &name_no, &name_count, &prefix_len) || dir == NULL)
    {
      g_autofree char *suffix = g_strdup_printf (TS_GGUF_SPLIT_NAME_FORMAT, no + 1, count);

      if (g_str_equal (name, suffix))
        _ts_model_file_add_warning (model,
                                    _("%s: split %u of %u by its split.no and split.count, but "
                                      "its name has no model name before the split number, as "
                                      "llama.cpp's split files do: read alone"),
                                    shown, no + 1, count);
      else
        _ts_model_file_add_warning (model,
                                    _("%s: split %u of %u by its split.no and split.count, but "
                                      "its name does not end in %s as llama.cpp's split files "
                                      "do: read alone"), shown, no + 1, count, suffix);
      return g_object_ref (model);
    }
  if (!check_split_position (model, shown, name_no, name_count, error))
    return NULL;
  prefix = g_strndup (name, prefix_len);
  first_name = split_name (prefix, 0, count);
  first_shown = g_filename_display_name (first_name);
  for (guint i = 0; i < count; i++)
    {
      g_autofree char *sibling = split_name (prefix, i, count);
      g_autoptr(GFile) path = g_file_get_child (dir, sibling);

      /* a cancelled query answers "unknown", not "missing" */
      if (i % 256 == 0 && g_cancellable_set_error_if_cancelled (cancellable, error))
        return NULL;
      if (i != no && g_file_query_file_type (path, G_FILE_QUERY_INFO_NONE, cancellable) != G_FILE_TYPE_REGULAR)
        {
          if (n_missing++ < 3)
            {
              g_autofree char *sibling_shown = g_filename_display_name (sibling);

              g_string_append_printf (missing, "%s%s", missing->len ? ", " : "", sibling_shown);
            }
        }
    }
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;
  if (n_missing > 0)
    {
      _ts_model_file_add_warning (model,
                                  g_dngettext (GETTEXT_PACKAGE,
                                               "%s: split %u of %u, and %u file of the set is "
                                               "not a file in its folder (%s%s): read alone",
                                               "%s: split %u of %u, and %u files of the set are "
                                               "not files in its folder (%s%s): read alone",
                                               n_missing),
                                  shown, no + 1, count, n_missing, missing->str,
                                  n_missing > 3 ? ", …" : "");
      return g_object_ref (model);
    }

  /* the set from its first file, whose metadata is the model's; the file
   * opened was read with the progress already, the others report as
   * splits of the set */
  if (no == 0)
    first = g_object_ref (model);
  else
    {
      g_autoptr(GFile) path = g_file_get_child (dir, first_name);

      if ((first = TS_MODEL_FILE (load_file (path, 0, NULL, cancellable, error))) == NULL ||
          !check_split_position (first, first_shown, 0, count, error))
        return NULL;
    }
  _ts_model_file_set_progress (first, progress);
  for (guint i = 1; i < count; i++)
    {
      g_autofree char *sibling = split_name (prefix, i, count);
      g_autoptr(GFile) path = g_file_get_child (dir, sibling);
      g_autoptr(TsGgufFile) split = NULL;

      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        return NULL;
      _ts_model_file_progress (first, 0.0, 1.0, i, count,
                               _("Reading split %u of %u"), i + 1, count);
      /* the file opened is read already */
      if (i == no)
        {
          g_autoptr(TsFilePart) part = g_list_model_get_item (ts_model_file_get_parts (model), 0);

          _ts_file_part_set_index (part, i);
          split = TS_GGUF_FILE (g_object_ref (model));
        }
      else if ((split = load_file (path, i, NULL, cancellable, error)) == NULL)
        return NULL;
      if (!merge_split (first, TS_MODEL_FILE (split), i, count, error))
        return NULL;
    }
  /* llama.cpp refuses a set without this key, and one that does not hold
   * as many tensors as it says */
  n_tensors = ts_model_file_lookup_metadata (first, "split.tensors.count");
  if (n_tensors == NULL || ts_metadata_entry_get_value_type (n_tensors) != TS_VALUE_INT32)
    _ts_model_file_add_warning (first,
                                _("%s: split.tensors.count is missing or not an int32: "
                                  "llama.cpp refuses such a split set"), first_shown);
  else if (ts_metadata_entry_get_int64 (n_tensors) != (gint64) ts_model_file_get_n_tensors (first))
    {
      g_autofree char *value = ts_metadata_entry_to_string (n_tensors);

      g_set_error (error, TS_FORMAT_ERROR, TS_FORMAT_ERROR_INVALID_SPLIT,
                   _("%s: split.tensors.count is %s, but the %u files of the set hold %u "
                     "tensors"), first_shown, value, count, ts_model_file_get_n_tensors (first));
      return NULL;
    }
  return g_steal_pointer (&first);
}

TsModelFile *
_ts_gguf_file_load (GFile           *file,
                    TsLoadProgress  *progress,
                    GCancellable    *cancellable,
                    GError         **error)
{
  g_autoptr(TsModelFile) model = TS_MODEL_FILE (load_file (file, 0, progress, cancellable, error));
  guint no = 0, count = 0;

  if (model == NULL)
    return NULL;
  if (!get_split_key (model, "split.count", &count))
    return g_steal_pointer (&model);
  if (count == G_MAXUINT)
    {
      g_autofree char *name = ts_file_display_basename (file);

      _ts_model_file_add_warning (model,
                                  _("%s: split.count is not a uint16, and llama.cpp refuses the "
                                    "file: read alone"), name);
      return g_steal_pointer (&model);
    }
  if (count < 2)
    return g_steal_pointer (&model);
  if (!get_split_key (model, "split.no", &no) || no >= count)
    {
      g_autofree char *name = ts_file_display_basename (file);

      _ts_model_file_add_warning (model,
                                  _("%s: split.count is %u, but split.no is missing or not a "
                                    "split of those (a uint16 below split.count): read alone"),
                                  name, count);
      return g_steal_pointer (&model);
    }
  return load_split_set (model, file, no, count, progress, cancellable, error);
}

guint32
ts_gguf_file_get_version (TsGgufFile *self)
{
  g_return_val_if_fail (TS_IS_GGUF_FILE (self), 0);
  return self->version;
}

guint32
ts_gguf_file_get_alignment (TsGgufFile *self)
{
  g_return_val_if_fail (TS_IS_GGUF_FILE (self), 0);
  return self->alignment;
}

const char *
ts_gguf_file_type_name (guint64 file_type)
{
  /* llama.h's enum llama_ftype; 4 to 6 and 33 to 35 were removed */
  static const char * const names[] = {
    [0] = "F32", [1] = "F16", [2] = "Q4_0", [3] = "Q4_1", [7] = "Q8_0", [8] = "Q5_0",
    [9] = "Q5_1", [10] = "Q2_K", [11] = "Q3_K_S", [12] = "Q3_K_M", [13] = "Q3_K_L",
    [14] = "Q4_K_S", [15] = "Q4_K_M", [16] = "Q5_K_S", [17] = "Q5_K_M", [18] = "Q6_K",
    [19] = "IQ2_XXS", [20] = "IQ2_XS", [21] = "Q2_K_S", [22] = "IQ3_XS", [23] = "IQ3_XXS",
    [24] = "IQ1_S", [25] = "IQ4_NL", [26] = "IQ3_S", [27] = "IQ3_M", [28] = "IQ2_S",
    [29] = "IQ2_M", [30] = "IQ4_XS", [31] = "IQ1_M", [32] = "BF16", [36] = "TQ1_0",
    [37] = "TQ2_0", [38] = "MXFP4_MOE", [39] = "NVFP4", [40] = "Q1_0", [41] = "Q2_0",
  };

  return file_type < G_N_ELEMENTS (names) ? names[file_type] : NULL;
}

gboolean
ts_gguf_file_get_file_type (TsGgufFile *self,
                            guint64    *file_type)
{
  TsMetadataEntry *entry;

  g_return_val_if_fail (TS_IS_GGUF_FILE (self), FALSE);
  entry = ts_model_file_lookup_metadata (TS_MODEL_FILE (self), "general.file_type");
  if (entry == NULL)
    return FALSE;
  switch (ts_metadata_entry_get_value_type (entry))
    {
    case TS_VALUE_UINT8: case TS_VALUE_UINT16: case TS_VALUE_UINT32: case TS_VALUE_UINT64:
      break;
    case TS_VALUE_INT8: case TS_VALUE_INT16: case TS_VALUE_INT32: case TS_VALUE_INT64:
      if (ts_metadata_entry_get_int64 (entry) < 0)
        return FALSE;
      break;
    case TS_VALUE_FLOAT32: case TS_VALUE_BOOL: case TS_VALUE_STRING: case TS_VALUE_ARRAY:
    case TS_VALUE_FLOAT64: case TS_VALUE_N_TYPES:
    default:
      return FALSE;
    }
  *file_type = ts_metadata_entry_get_uint64 (entry);
  return TRUE;
}

guint64
ts_gguf_file_get_metadata_end (TsGgufFile *self)
{
  g_return_val_if_fail (TS_IS_GGUF_FILE (self), 0);
  return self->metadata_end;
}

guint64
ts_gguf_file_get_tensor_info_end (TsGgufFile *self)
{
  g_return_val_if_fail (TS_IS_GGUF_FILE (self), 0);
  return self->tensor_info_end;
}
