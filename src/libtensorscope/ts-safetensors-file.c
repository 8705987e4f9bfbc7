/* ts-safetensors-file.c: the Safetensors reader, single files and shards
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Validates with the reference crate's rules: header length bounded, a JSON
 * object without duplicate keys, every tensor's size equal to its byte
 * range, and the tensors tiling the data section with no gap or overlap.
 */

#include "config.h"

#include <inttypes.h>

#include <glib/gi18n-lib.h>
#include <json-glib/json-glib.h>
#include <string.h>

#include "ts-side-file-private.h"
#include "ts-error.h"
#include "ts-json-private.h"
#include "ts-model-file-private.h"
#include "ts-safetensors-file.h"

#define ST_MAX_HEADER   100000000
#define INDEX_SUFFIX    ".safetensors.index.json"
#define DEFAULT_INDEX   "model.safetensors.index.json"

struct _TsSafetensorsFile
{
  TsModelFile parent_instance;
  GFile      *index_file;
};

G_DEFINE_FINAL_TYPE (TsSafetensorsFile, ts_safetensors_file, TS_TYPE_MODEL_FILE)

TsModelFile *_ts_safetensors_file_load (GFile *file, TsLoadProgress *progress,
                                        GCancellable *cancellable, GError **error);

static void
ts_safetensors_file_finalize (GObject *object)
{
  TsSafetensorsFile *self = (TsSafetensorsFile *)object;

  g_clear_object (&self->index_file);

  G_OBJECT_CLASS (ts_safetensors_file_parent_class)->finalize (object);
}

static void
ts_safetensors_file_class_init (TsSafetensorsFileClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ts_safetensors_file_finalize;
}

static void
ts_safetensors_file_init (TsSafetensorsFile *self)
{
}

static gboolean G_GNUC_PRINTF (5, 6)
fail_at (GError     **error,
         const char  *file_name,
         guint64      offset,
         int          code,
         const char  *format,
         ...)
{
  g_autofree char *msg = NULL;
  g_autofree char *pos = _ts_format_count (offset);
  va_list args;

  va_start (args, format);
  msg = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (error, TS_FORMAT_ERROR, code, _("%s: byte %s: %s"), file_name, pos, msg);
  return FALSE;
}

/* a rule of the folder's files rather than of a byte in one: "NAME: RULE" */
static gboolean G_GNUC_PRINTF (4, 5)
fail_in (GError     **error,
         const char  *file_name,
         int          code,
         const char  *format,
         ...)
{
  g_autofree char *msg = NULL;
  va_list args;

  va_start (args, format);
  msg = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (error, TS_FORMAT_ERROR, code, "%s: %s", file_name, msg);
  return FALSE;
}

/* json-glib keeps the last of duplicate members silently, so the header's
 * objects are scanned once for repeated keys before parsing. */
static void
clear_key_set (gpointer data)
{
  if (data != NULL)
    g_hash_table_unref (data);
}

/* A key as json-glib will store it: "\u0061" and "a" are the same key.
 * Malformed escapes are kept as written (the JSON parser reports them). */
static char *
decode_key (const char *raw,
            gsize       len)
{
  GString *out;

  if (memchr (raw, '\\', len) == NULL)
    return g_strndup (raw, len);
  out = g_string_sized_new (len);
  for (gsize i = 0; i < len; i++)
    {
      gunichar c;

      if (raw[i] != '\\' || i + 1 >= len)
        {
          g_string_append_c (out, raw[i]);
          continue;
        }
      switch (raw[++i])
        {
        case 'b': g_string_append_c (out, '\b'); break;
        case 'f': g_string_append_c (out, '\f'); break;
        case 'n': g_string_append_c (out, '\n'); break;
        case 'r': g_string_append_c (out, '\r'); break;
        case 't': g_string_append_c (out, '\t'); break;
        case 'u':
          if (i + 4 >= len || !g_ascii_isxdigit (raw[i + 1]) || !g_ascii_isxdigit (raw[i + 2]) ||
              !g_ascii_isxdigit (raw[i + 3]) || !g_ascii_isxdigit (raw[i + 4]))
            {
              g_string_append (out, "\\u");
              break;
            }
          c = (g_ascii_xdigit_value (raw[i + 1]) << 12) | (g_ascii_xdigit_value (raw[i + 2]) << 8) |
              (g_ascii_xdigit_value (raw[i + 3]) << 4) | g_ascii_xdigit_value (raw[i + 4]);
          i += 4;
          /* a surrogate pair is one character; a lone surrogate stays raw */
          if (c >= 0xd800 && c < 0xdc00 && i + 6 < len && raw[i + 1] == '\\' && raw[i + 2] == 'u')
            {
              char hex[5] = { raw[i + 3], raw[i + 4], raw[i + 5], raw[i + 6], 0 };
              gunichar lo = (gunichar) g_ascii_strtoull (hex, NULL, 16);

              if (lo >= 0xdc00 && lo < 0xe000)
                {
                  c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
                  i += 6;
                }
            }
          if (c == 0)
            i = len;            /* json-glib's C string keys end at U+0000 */
          else if (g_unichar_validate (c))
            g_string_append_unichar (out, c);
          else
            g_string_append_len (out, raw + i - 5, 6);
          break;
        default:                /* \" \\ \/ and anything malformed */
          g_string_append_c (out, raw[i]);
          break;
        }
    }
  return g_string_free (out, FALSE);
}

static gboolean
check_duplicate_keys (const char  *json,
                      gsize        len,
                      const char  *file_name,
                      guint64      base,
                      GError     **error)
{
  g_autoptr(GPtrArray) stack = g_ptr_array_new_with_free_func (clear_key_set);
  gboolean expect_key = FALSE;

  for (gsize i = 0; i < len; i++)
    {
      char ch = json[i];

      if (ch == '{')
        {
          g_ptr_array_add (stack, g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL));
          expect_key = TRUE;
        }
      else if (ch == '[')
        {
          g_ptr_array_add (stack, NULL);
          expect_key = FALSE;
        }
      else if ((ch == '}' || ch == ']') && stack->len > 0)
        g_ptr_array_remove_index (stack, stack->len - 1);
      else if (ch == ',')
        expect_key = stack->len > 0 && g_ptr_array_index (stack, stack->len - 1) != NULL;
      else if (ch == '"')
        {
          gsize start = ++i;
          GHashTable *keys;

          while (i < len && json[i] != '"')
            i += (json[i] == '\\') ? 2 : 1;
          if (i >= len)
            return TRUE; /* the JSON parser reports it */
          keys = stack->len > 0 ? g_ptr_array_index (stack, stack->len - 1) : NULL;
          if (expect_key && keys != NULL)
            {
              char *key = decode_key (json + start, i - start);

              if (!g_hash_table_add (keys, key))
                return fail_at (error, file_name, base + start - 1,
                                TS_FORMAT_ERROR_DUPLICATE_KEY,
                                _("the JSON header has the key \"%s\" twice"), key);
            }
          expect_key = FALSE;
        }
    }
  return TRUE;
}

static int
compare_names (gconstpointer a,
               gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

static gboolean
get_uint (JsonNode *node,
          guint64  *out)
{
  gint64 v;

  if (node == NULL || JSON_NODE_TYPE (node) != JSON_NODE_VALUE ||
      json_node_get_value_type (node) != G_TYPE_INT64)
    return FALSE;
  v = json_node_get_int (node);
  if (v < 0)
    return FALSE;
  *out = (guint64) v;
  return TRUE;
}

typedef struct
{
  TsTensor *tensor;      /* owned */
  guint64   begin;
  guint64   end;
} Entry;

static void
entry_clear (gpointer data)
{
  Entry *e = data;

  g_clear_object (&e->tensor);
}

static int
compare_entries (gconstpointer a,
                 gconstpointer b)
{
  const Entry *ea = a, *eb = b;

  if (ea->begin != eb->begin)
    return ea->begin < eb->begin ? -1 : 1;
  if (ea->end != eb->end)
    return ea->end < eb->end ? -1 : 1;
  return 0;
}

static gboolean
parse_metadata (TsModelFile  *model,
                const char   *file_name,
                JsonNode     *node,
                GError      **error)
{
  JsonObject *obj;
  g_autoptr(GList) members = NULL;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    return fail_at (error, file_name, 8, TS_FORMAT_ERROR_INVALID_METADATA,
                    _("__metadata__ must be an object of strings"));
  obj = json_node_get_object (node);
  members = json_object_get_members (obj);
  for (GList *l = members; l; l = l->next)
    {
      JsonNode *v = json_object_get_member (obj, l->data);
      g_autoptr(TsMetadataEntry) entry = NULL;

      if (JSON_NODE_TYPE (v) != JSON_NODE_VALUE ||
          json_node_get_value_type (v) != G_TYPE_STRING)
        return fail_at (error, file_name, 8, TS_FORMAT_ERROR_INVALID_METADATA,
                        _("__metadata__ value of \"%s\" is not a string"),
                        (const char *) l->data);
      if (ts_model_file_lookup_metadata (model, l->data) != NULL)
        continue; /* same metadata in another shard */
      entry = _ts_metadata_entry_new_string (l->data, json_node_get_string (v));
      _ts_model_file_add_metadata (model, entry);
    }
  return TRUE;
}

static gboolean
parse_tensor_entry (TsModelFile  *model,
                    TsFilePart   *part,
                    const char   *name,
                    JsonNode     *node,
                    guint64       data_start,
                    Entry        *out,
                    GError      **error)
{
  const char *file_name = ts_file_part_get_name (part);
  JsonObject *obj;
  JsonArray *shape, *offsets;
  guint64 dims[TS_MAX_DIMS], n_elements = 1, size;
  const char *dtype_name;
  TsDType dtype;
  guint n_dims;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    return fail_at (error, file_name, 8, TS_FORMAT_ERROR_INVALID_TENSOR_ENTRY,
                    _("tensor '%s' is not an object"), name);
  obj = json_node_get_object (node);
  if (!json_object_has_member (obj, "dtype") ||
      JSON_NODE_TYPE (json_object_get_member (obj, "dtype")) != JSON_NODE_VALUE ||
      json_node_get_value_type (json_object_get_member (obj, "dtype")) != G_TYPE_STRING ||
      !json_object_has_member (obj, "shape") ||
      !JSON_NODE_HOLDS_ARRAY (json_object_get_member (obj, "shape")) ||
      !json_object_has_member (obj, "data_offsets") ||
      !JSON_NODE_HOLDS_ARRAY (json_object_get_member (obj, "data_offsets")))
    return fail_at (error, file_name, 8, TS_FORMAT_ERROR_INVALID_TENSOR_ENTRY,
                    _("tensor '%s' needs \"dtype\" (a string), \"shape\" and "
                    "\"data_offsets\" (arrays)"), name);

  dtype_name = json_object_get_string_member (obj, "dtype");
  shape = json_object_get_array_member (obj, "shape");
  offsets = json_object_get_array_member (obj, "data_offsets");
  n_dims = json_array_get_length (shape);
  if (n_dims > TS_MAX_DIMS)
    return fail_at (error, file_name, 8, TS_FORMAT_ERROR_INVALID_TENSOR_ENTRY,
                    _("tensor '%s' has %u dimensions (at most %d)"), name, n_dims, TS_MAX_DIMS);
  for (guint i = 0; i < n_dims; i++)
    {
      if (!get_uint (json_array_get_element (shape, i), &dims[i]))
        return fail_at (error, file_name, 8, TS_FORMAT_ERROR_INVALID_TENSOR_ENTRY,
                        _("tensor '%s': shape[%u] is not an integer from 0 to 2^63 − 1"), name, i);
      if (!ts_mul_u64 (n_elements, dims[i], &n_elements))
        return fail_at (error, file_name, 8, TS_FORMAT_ERROR_OVERFLOW,
                        _("tensor '%s': the element count of its shape overflows 64 bits"), name);
    }
  if (json_array_get_length (offsets) != 2 ||
      !get_uint (json_array_get_element (offsets, 0), &out->begin) ||
      !get_uint (json_array_get_element (offsets, 1), &out->end))
    return fail_at (error, file_name, 8, TS_FORMAT_ERROR_INVALID_TENSOR_ENTRY,
                    _("tensor '%s': data_offsets must be two integers from 0 to 2^63 − 1"), name);
  if (out->end < out->begin)
    return fail_at (error, file_name, 8, TS_FORMAT_ERROR_OFFSETS_REVERSED,
                    _("tensor '%s': data_offsets end %" PRIu64 " is before "
                    "begin %" PRIu64), name, out->end, out->begin);

  dtype = ts_dtype_from_safetensors_name (dtype_name);
  if (dtype == TS_DTYPE_UNKNOWN)
    {
      size = out->end - out->begin;
      _ts_model_file_add_warning (model, _("%s: tensor '%s' has dtype \"%s\", which "
                                  "this version does not know; shown as unknown"),
                                  file_name, name, dtype_name);
    }
  else if (!ts_dtype_compute_size (dtype, n_elements, &size))
    {
      if (ts_dtype_get_info (dtype)->block_size > 1 &&
          n_elements % ts_dtype_get_info (dtype)->block_size != 0)
        return fail_at (error, file_name, 8, TS_FORMAT_ERROR_SIZE_MISMATCH,
                        _("tensor '%s': %" PRIu64 " %s elements do not fill "
                        "whole bytes"), name, n_elements, dtype_name);
      return fail_at (error, file_name, 8, TS_FORMAT_ERROR_OVERFLOW,
                      _("tensor '%s': its byte size overflows 64 bits"), name);
    }
  if (size != out->end - out->begin)
    return fail_at (error, file_name, 8, TS_FORMAT_ERROR_SIZE_MISMATCH,
                    _("tensor '%s': shape × %s is %" PRIu64 " bytes but "
                    "data_offsets span %" PRIu64), name, dtype_name, size,
                    out->end - out->begin);
  if (!ts_add_u64 (data_start, out->end, &size))
    return fail_at (error, file_name, 8, TS_FORMAT_ERROR_OVERFLOW,
                    _("tensor '%s': data_offsets overflow 64 bits"), name);

  out->tensor = _ts_tensor_new (name, dtype, dtype_name, n_dims, dims, FALSE, part,
                                data_start + out->begin, out->end - out->begin,
                                n_elements);
  return TRUE;
}

/* Sorted by begin, the tensors must tile [0, data size) exactly. */
static gboolean
check_tiling (GArray      *entries,
              const char  *file_name,
              guint64      data_start,
              guint64      file_size,
              guint64     *data_end,
              GError     **error)
{
  guint64 expected = 0;

  g_array_sort (entries, compare_entries);
  for (guint i = 0; i < entries->len; i++)
    {
      Entry *e = &g_array_index (entries, Entry, i);
      const char *name = ts_tensor_get_name (e->tensor);

      if (e->begin < expected)
        return fail_at (error, file_name, data_start + e->begin, TS_FORMAT_ERROR_DATA_OVERLAP,
                        _("tensor '%s' starts at data offset %" PRIu64
                        ", inside the previous tensor (which ends at %" PRIu64 ")"),
                        name, e->begin, expected);
      if (e->begin > expected)
        return fail_at (error, file_name, data_start + expected, TS_FORMAT_ERROR_DATA_GAP,
                        _("%" PRIu64 " bytes at data offset %" PRIu64
                        " belong to no tensor (before '%s')"),
                        e->begin - expected, expected, name);
      if (data_start + e->end > file_size)
        {
          g_autofree char *end = _ts_format_count (data_start + e->end);
          g_autofree char *size = _ts_format_count (file_size);
          g_autofree char *missing = _ts_format_count (data_start + e->end - file_size);

          return fail_at (error, file_name, data_start + e->begin, TS_FORMAT_ERROR_DATA_PAST_EOF,
                          g_dngettext (GETTEXT_PACKAGE,
                                       "tensor '%s' ends at byte %s but the file has %s bytes "
                                       "(%s byte missing: truncated download?)",
                                       "tensor '%s' ends at byte %s but the file has %s bytes "
                                       "(%s bytes missing: truncated download?)",
                                       (gulong) MIN (data_start + e->end - file_size, G_MAXULONG)),
                          name, end, size, missing);
        }
      expected = e->end;
    }
  *data_end = data_start + expected;
  return TRUE;
}

static gboolean
parse_header_json (const char   *file_name,
                   const char   *json,
                   guint64       len,
                   JsonParser   *parser,
                   GError      **error)
{
  g_autoptr(GError) local_error = NULL;
  const char *bad = NULL;
  TsJsonCheck check;
  TsJsonExpect expected = TS_JSON_EXPECT_VALUE;
  gsize where = 0, negative_zero, large_integer;
  guint64 blank;

  if (!g_utf8_validate_len (json, len, &bad))
    return fail_at (error, file_name, 8 + (bad - json), TS_FORMAT_ERROR_HEADER_NOT_UTF8,
                    _("the JSON header is not valid UTF-8"));
  /* no JSON value at all: not an object (the header is not NUL-terminated) */
  for (blank = 0; blank < len && _ts_json_is_space (json[blank]); blank++)
    ;
  if (blank == len)
    return fail_at (error, file_name, 8, TS_FORMAT_ERROR_HEADER_NOT_OBJECT,
                    len == 0 ? _("the JSON header is empty") : _("the JSON header holds only white space"));
  check = _ts_json_scan (json, len, TS_JSON_MAX_HEADER_VALUES, &where, &expected, &negative_zero,
                         &large_integer);
  if (check == TS_JSON_NOT_STRICT || check == TS_JSON_TOO_DEEP || check == TS_JSON_SYNTAX)
    {
      g_autofree char *problem = _ts_json_describe (check, json, len, where, expected);

      return fail_at (error, file_name, 8 + where, TS_FORMAT_ERROR_HEADER_INVALID_JSON,
                      _("the JSON header is not valid JSON: %s"), problem);
    }
  if (check == TS_JSON_TOO_MANY_VALUES)
    return fail_at (error, file_name, 8, TS_FORMAT_ERROR_HEADER_TOO_LARGE,
                    _("the JSON header would take more than %d MB once parsed, more than "
                    "the 1,048,576 tensors a model may hold take"),
                    TS_JSON_MAX_HEADER_VALUES / (1000000 / TS_JSON_UNIT_BYTES));
  if (check == TS_JSON_UNKEPT_ESCAPE)
    return fail_at (error, file_name, 8 + where, TS_FORMAT_ERROR_HEADER_INVALID_JSON,
                    _("a string of the JSON header holds \\u0000 or an unpaired surrogate "
                    "(\\ud800–\\udfff), which cannot be kept as UTF-8 text"));
  if (check == TS_JSON_TRAILING)
    return fail_at (error, file_name, 8 + where, TS_FORMAT_ERROR_HEADER_INVALID_JSON,
                    _("the JSON header goes on after its object: a second JSON value starts here"));
  /* json-glib reads such an integer wrong without a word (2^70 as -1) */
  if (large_integer != G_MAXSIZE)
    return fail_at (error, file_name, 8 + large_integer, TS_FORMAT_ERROR_HEADER_INVALID_JSON,
                    _("an integer of the JSON header is beyond the 64-bit range"));
  /* serde_json reads -0 as a float, which no shape or offset may be */
  if (negative_zero != G_MAXSIZE)
    return fail_at (error, file_name, 8 + negative_zero, TS_FORMAT_ERROR_HEADER_INVALID_JSON,
                    _("the JSON header writes a number as -0, which the reference reader takes "
                    "for a float, not an integer"));
  if (!check_duplicate_keys (json, len, file_name, 8, error))
    return FALSE;
  if (!json_parser_load_from_data (parser, json, (gssize) len, &local_error))
    return fail_at (error, file_name, 8, TS_FORMAT_ERROR_HEADER_INVALID_JSON,
                    _("the header is not valid JSON: %s"), local_error->message);
  if (json_parser_get_root (parser) == NULL ||
      !JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
    return fail_at (error, file_name, 8, TS_FORMAT_ERROR_HEADER_NOT_OBJECT,
                    _("the JSON header is not an object"));
  return TRUE;
}

/* The first byte after any white space is "{" */
static gboolean
starts_as_json (const guint8 *data,
                guint64       size)
{
  for (guint64 i = 0; i < size && i < 4096; i++)
    if (!g_ascii_isspace (data[i]))
      return data[i] == '{';
  return FALSE;
}

/* Reads one .safetensors file into @model as part @index of @n_parts. */
static gboolean
load_part (TsModelFile   *model,
           GFile         *file,
           guint          index,
           guint          n_parts,
           GCancellable  *cancellable,
           GError       **error)
{
  double lo = (double) index / n_parts;
  double hi = (double) (index + 1) / n_parts;
  guint n_members, k = 0;
  g_autoptr(TsFilePart) part = NULL;
  g_autoptr(JsonParser) parser = json_parser_new_immutable ();
  g_autoptr(GArray) entries = g_array_new (FALSE, TRUE, sizeof (Entry));
  g_autoptr(GList) members = NULL;
  const guint8 *data;
  const char *name;
  guint64 size, header_len, data_start, data_end = 0;
  JsonObject *root;

  g_array_set_clear_func (entries, entry_clear);
  part = _ts_file_part_open (file, index, error);
  if (part == NULL)
    return FALSE;
  name = ts_file_part_get_name (part);
  data = ts_file_part_get_contents (part);
  size = ts_file_part_get_size (part);

  if (size >= 23 && memcmp (data, "version https://git-lfs", 23) == 0)
    return fail_at (error, name, 0, TS_FORMAT_ERROR_LFS_POINTER,
                    _("this is a Git LFS pointer file, not the model data; "
                    "fetch the real file (git lfs pull)"));
  if (size < 8)
    return fail_at (error, name, 0, TS_FORMAT_ERROR_TRUNCATED,
                    g_dngettext (GETTEXT_PACKAGE,
                                 "the file is %u byte long: it ends inside the 8-byte header length",
                                 "the file is %u bytes long: it ends inside the 8-byte header length",
                                 (gulong) size),
                    (guint) size);
  memcpy (&header_len, data, 8);
  header_len = GUINT64_FROM_LE (header_len);
  if (header_len > ST_MAX_HEADER && memcmp (data, "GGUF", 4) == 0)
    return fail_at (error, name, 0, TS_FORMAT_ERROR_HEADER_TOO_LARGE,
                    _("this is a GGUF file, not a Safetensors one (it starts with \"GGUF\")"));
  /* a side file an index names as a shard (config.json): its first bytes
   * read as a length of exabytes */
  if (header_len > ST_MAX_HEADER && starts_as_json (data, size))
    return fail_at (error, name, 0, TS_FORMAT_ERROR_HEADER_TOO_LARGE,
                    _("this is a JSON file, not a Safetensors one (it starts with \"{\", "
                      "not an 8-byte header length)"));
  if (header_len > ST_MAX_HEADER)
    return fail_at (error, name, 0, TS_FORMAT_ERROR_HEADER_TOO_LARGE,
                    _("header length %" PRIu64 " exceeds the limit of "
                    "100,000,000 bytes"), header_len);
  if (8 + header_len > size)
    return fail_at (error, name, 0, TS_FORMAT_ERROR_HEADER_PAST_EOF,
                    g_dngettext (GETTEXT_PACKAGE,
                                 "the first 8 bytes say the JSON header is %" PRIu64 " bytes long, "
                                 "but only %" PRIu64 " byte follows them (truncated download?)",
                                 "the first 8 bytes say the JSON header is %" PRIu64 " bytes long, "
                                 "but only %" PRIu64 " bytes follow them (truncated download?)",
                                 (gulong) (size - 8)),
                    header_len, size - 8);
  _ts_model_file_progress (model, lo, hi, 0, 1, _("Reading the header of %s (file %u of %u)"),
                           name, index + 1, n_parts);
  if (!parse_header_json (name, (const char *) data + 8, header_len, parser, error))
    return FALSE;
  data_start = 8 + header_len;

  root = json_node_get_object (json_parser_get_root (parser));
  members = json_object_get_members (root);
  n_members = g_list_length (members);
  if (n_members - json_object_has_member (root, "__metadata__") +
      g_list_model_get_n_items (ts_model_file_get_tensors (model)) > TS_MAX_TENSORS)
    return fail_at (error, name, 8, TS_FORMAT_ERROR_COUNT_TOO_LARGE,
                    n_parts == 1
                    ? _("the header lists %u tensors, more than the %u Tensorscope reads "
                        "(no real model holds more than a few tens of thousands)")
                    : _("with this file's %u tensors, the model holds more than the %u "
                        "Tensorscope reads (no real model holds more than a few tens of "
                        "thousands)"),
                    n_members - json_object_has_member (root, "__metadata__"), TS_MAX_TENSORS);
  for (GList *l = members; l; l = l->next, k++)
    {
      Entry e = { 0 };

      if (k % 1024 == 0 && g_cancellable_set_error_if_cancelled (cancellable, error))
        return FALSE;
      _ts_model_file_progress (model, lo, hi, k, n_members, _("Reading %s: tensor %u of %u"),
                               name, k + 1, n_members);
      if (g_str_equal (l->data, "__metadata__"))
        {
          if (!parse_metadata (model, name, json_object_get_member (root, l->data), error))
            return FALSE;
          continue;
        }
      if (!parse_tensor_entry (model, part, l->data, json_object_get_member (root, l->data),
                               data_start, &e, error))
        return FALSE;
      g_array_append_val (entries, e);
    }
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return FALSE;
  if (!check_tiling (entries, name, data_start, size, &data_end, error))
    return FALSE;

  _ts_file_part_set_data_offset (part, data_start);
  _ts_file_part_add_region (part, TS_REGION_LENGTH_PREFIX, 0, 8);
  _ts_file_part_add_region (part, TS_REGION_JSON_HEADER, 8, header_len);
  if (data_end > data_start)
    _ts_file_part_add_region (part, TS_REGION_TENSOR_DATA, data_start, data_end - data_start);
  if (size > data_end)
    {
      g_autofree char *n = _ts_format_count (size - data_end);
      g_autofree char *at = _ts_format_count (data_end);

      _ts_file_part_add_region (part, TS_REGION_UNEXPLAINED, data_end, size - data_end);
      /* shown, not refused, so that what is in the file can be seen */
      _ts_model_file_add_warning (model, _("%s: %s bytes after the last tensor (from "
                                  "byte %s) belong to no tensor; the safetensors library "
                                  "refuses such a file (MetadataIncompleteBuffer)"), name, n, at);
    }

  for (guint i = 0; i < entries->len; i++)
    {
      TsTensor *tensor = g_array_index (entries, Entry, i).tensor;

      if (_ts_model_file_has_tensor (model, ts_tensor_get_name (tensor)))
        {
          TsTensor *other = ts_model_file_lookup_tensor (model, ts_tensor_get_name (tensor));

          return fail_at (error, name, ts_tensor_get_offset (tensor),
                          TS_FORMAT_ERROR_DUPLICATE_TENSOR,
                          _("tensor '%s' is also in %s"), ts_tensor_get_name (tensor),
                          ts_file_part_get_name (ts_tensor_get_part (other)));
        }
      _ts_model_file_add_tensor (model, tensor);
    }
  _ts_model_file_add_part (model, part);
  return TRUE;
}

/* A shard name from an index must be a plain file name in its folder. */
static gboolean
is_safe_shard_name (const char *name)
{
  return name[0] != '\0' && strchr (name, '/') == NULL && strchr (name, '\\') == NULL &&
         !g_str_equal (name, ".") && !g_str_equal (name, "..");
}

typedef struct
{
  GHashTable *weight_map;  /* tensor name -> shard name (owned by parser) */
  GPtrArray  *shards;      /* sorted unique shard names */
  gboolean    has_total;
  guint64     total_size;
} IndexInfo;

static void
index_info_clear (IndexInfo *info)
{
  g_clear_pointer (&info->weight_map, g_hash_table_unref);
  g_clear_pointer (&info->shards, g_ptr_array_unref);
}

static gboolean
parse_index (GFile        *index_file,
             JsonParser   *parser,
             IndexInfo    *info,
             GCancellable *cancellable,
             GError      **error)
{
  g_autofree char *name = ts_file_display_basename (index_file);
  g_autofree char *contents = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autoptr(GList) members = NULL;
  g_autoptr(GHashTable) shard_set = NULL;
  JsonObject *root, *map;
  JsonNode *meta;
  TsJsonCheck check;
  TsJsonExpect expected = TS_JSON_EXPECT_VALUE;
  gsize len, where = 0;

  if (!_ts_load_side_file (index_file, ST_MAX_HEADER, cancellable, &contents, &len, &local_error))
    return fail_in (error, name, TS_FORMAT_ERROR_IO, "%s", local_error->message);
  if (len > ST_MAX_HEADER)
    return fail_in (error, name, TS_FORMAT_ERROR_INVALID_INDEX,
                    _("the index is larger than 100,000,000 bytes"));
  if (strspn (contents, " \t\n\r") == len)
    return fail_in (error, name, TS_FORMAT_ERROR_INVALID_INDEX,
                    len == 0 ? _("the index is empty") : _("the index holds only white space"));
  check = _ts_json_check (contents, len, TS_JSON_MAX_VALUES, &where, &expected);
  if (check == TS_JSON_NOT_STRICT || check == TS_JSON_TOO_DEEP || check == TS_JSON_SYNTAX)
    {
      g_autofree char *problem = _ts_json_describe (check, contents, len, where, expected);

      return fail_at (error, name, where, TS_FORMAT_ERROR_INVALID_INDEX,
                      _("the index is not valid JSON: %s"), problem);
    }
  if (check == TS_JSON_TOO_MANY_VALUES)
    return fail_in (error, name, TS_FORMAT_ERROR_INVALID_INDEX,
                    _("the index would take more than %d MB once parsed, more than any real one"),
                    TS_JSON_MAX_VALUES / (1000000 / TS_JSON_UNIT_BYTES));
  if (check == TS_JSON_UNKEPT_ESCAPE)
    return fail_at (error, name, where, TS_FORMAT_ERROR_INVALID_INDEX,
                    _("a string of the index holds \\u0000 or an unpaired surrogate "
                    "(\\ud800–\\udfff), which cannot be kept as UTF-8 text"));
  if (check == TS_JSON_TRAILING)
    return fail_at (error, name, where, TS_FORMAT_ERROR_INVALID_INDEX,
                    _("the index goes on after its object: a second JSON value starts here"));
  if (!json_parser_load_from_data (parser, contents, (gssize) len, &local_error))
    return fail_in (error, name, TS_FORMAT_ERROR_INVALID_INDEX,
                    _("not valid JSON: %s"), local_error->message);
  root = json_parser_get_root (parser) != NULL &&
         JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser))
    ? json_node_get_object (json_parser_get_root (parser)) : NULL;
  if (root == NULL || !json_object_has_member (root, "weight_map") ||
      !JSON_NODE_HOLDS_OBJECT (json_object_get_member (root, "weight_map")))
    return fail_in (error, name, TS_FORMAT_ERROR_INVALID_INDEX,
                    _("the index has no \"weight_map\" object"));

  map = json_object_get_object_member (root, "weight_map");
  info->weight_map = g_hash_table_new (g_str_hash, g_str_equal);
  info->shards = g_ptr_array_new ();
  shard_set = g_hash_table_new (g_str_hash, g_str_equal);
  members = json_object_get_members (map);
  for (GList *l = members; l; l = l->next)
    {
      JsonNode *v = json_object_get_member (map, l->data);
      const char *shard;

      if (JSON_NODE_TYPE (v) != JSON_NODE_VALUE || json_node_get_value_type (v) != G_TYPE_STRING)
        return fail_in (error, name, TS_FORMAT_ERROR_INVALID_INDEX,
                        _("weight_map entry \"%s\" is not a file name"), (const char *) l->data);
      shard = json_node_get_string (v);
      if (!is_safe_shard_name (shard))
        return fail_in (error, name, TS_FORMAT_ERROR_UNSAFE_SHARD_NAME,
                        _("tensor '%s' names the shard \"%s\", which is not a plain file "
                        "name in the checkpoint folder; refusing to open it"),
                        (const char *) l->data, shard);
      g_hash_table_insert (info->weight_map, l->data, (gpointer) shard);
      /* a set, not a search of the list: an index may name a million shards */
      if (g_hash_table_add (shard_set, (gpointer) shard))
        g_ptr_array_add (info->shards, (gpointer) shard);
    }
  if (info->shards->len == 0)
    return fail_in (error, name, TS_FORMAT_ERROR_INVALID_INDEX,
                    _("the index's \"weight_map\" is empty: it names no tensor and no shard"));
  g_ptr_array_sort (info->shards, compare_names);

  meta = json_object_get_member (root, "metadata");
  if (meta != NULL && JSON_NODE_HOLDS_OBJECT (meta) &&
      get_uint (json_object_get_member (json_node_get_object (meta), "total_size"),
                &info->total_size))
    info->has_total = TRUE;
  return TRUE;
}

static gboolean
check_against_index (TsModelFile  *model,
                     const char   *index_name,
                     IndexInfo    *info,
                     GError      **error)
{
  GListModel *tensors = ts_model_file_get_tensors (model);
  guint n = g_list_model_get_n_items (tensors);
  GHashTableIter iter;
  gpointer key, value;

  g_hash_table_iter_init (&iter, info->weight_map);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      TsTensor *t = ts_model_file_lookup_tensor (model, key);

      if (t == NULL)
        return fail_in (error, index_name, TS_FORMAT_ERROR_MISSING_TENSOR,
                        _("the index puts tensor '%s' in %s, but no shard has it"),
                        (const char *) key, (const char *) value);
      if (!g_str_equal (ts_file_part_get_name (ts_tensor_get_part (t)), value))
        return fail_at (error, ts_file_part_get_name (ts_tensor_get_part (t)),
                        ts_tensor_get_offset (t), TS_FORMAT_ERROR_WRONG_SHARD,
                        _("tensor '%s' is in this shard, but the index (%s) puts it in %s"),
                        (const char *) key, index_name, (const char *) value);
    }
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(TsTensor) t = g_list_model_get_item (tensors, i);

      if (!g_hash_table_contains (info->weight_map, ts_tensor_get_name (t)))
        return fail_at (error, ts_file_part_get_name (ts_tensor_get_part (t)),
                        ts_tensor_get_offset (t), TS_FORMAT_ERROR_WRONG_SHARD,
                        _("tensor '%s' is in this shard but not in the index (%s)"),
                        ts_tensor_get_name (t), index_name);
    }
  if (info->has_total && info->total_size != ts_model_file_get_tensor_data_size (model))
    _ts_model_file_add_warning (model, _("%s: metadata.total_size is %" PRIu64
                                " but the tensors take %" PRIu64 " bytes"),
                                index_name, info->total_size,
                                ts_model_file_get_tensor_data_size (model));
  return TRUE;
}

static TsModelFile *
load_sharded (GFile           *index_file,
              TsLoadProgress  *progress,
              GCancellable    *cancellable,
              GError         **error)
{
  g_autoptr(TsSafetensorsFile) self = g_object_new (TS_TYPE_SAFETENSORS_FILE, NULL);
  g_autoptr(JsonParser) parser = json_parser_new_immutable ();
  g_autoptr(GFile) dir = g_file_get_parent (index_file);
  g_autofree char *index_name = ts_file_display_basename (index_file);
  IndexInfo info = { 0 };
  gboolean ok = TRUE;

  _ts_model_file_set_file (TS_MODEL_FILE (self), dir);
  _ts_model_file_set_progress (TS_MODEL_FILE (self), progress);
  self->index_file = g_object_ref (index_file);
  if (!parse_index (index_file, parser, &info, cancellable, error))
    {
      index_info_clear (&info);
      return NULL;
    }
  for (guint i = 0; ok && i < info.shards->len; i++)
    {
      const char *shard = g_ptr_array_index (info.shards, i);
      g_autoptr(GFile) shard_file = g_file_get_child (dir, shard);

      if (!g_file_query_exists (shard_file, cancellable))
        ok = fail_in (error, index_name, TS_FORMAT_ERROR_MISSING_SHARD,
                      _("the index names the shard %s, which is not in the folder"), shard);
      else
        ok = load_part (TS_MODEL_FILE (self), shard_file, i, info.shards->len, cancellable, error);
    }
  ok = ok && check_against_index (TS_MODEL_FILE (self), index_name, &info, error);
  index_info_clear (&info);
  return ok ? TS_MODEL_FILE (g_steal_pointer (&self)) : NULL;
}

/* The shards of a folder without an index, in name order: its
 * model*.safetensors, as llama.cpp's converter takes them (an adapter or a
 * consolidated.safetensors beside them is not part of the model), or every
 * *.safetensors when no name starts with "model". */
static TsModelFile *
load_folder_without_index (GFile           *dir,
                           TsLoadProgress  *progress,
                           GCancellable    *cancellable,
                           GError         **error)
{
  g_autoptr(TsSafetensorsFile) self = g_object_new (TS_TYPE_SAFETENSORS_FILE, NULL);
  g_autoptr(GFileEnumerator) enumerator = NULL;
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) model_names = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *dir_name = ts_file_display_basename (dir);
  GPtrArray *chosen;
  GFileInfo *fi;

  enumerator = g_file_enumerate_children (dir, G_FILE_ATTRIBUTE_STANDARD_NAME,
                                          G_FILE_QUERY_INFO_NONE, cancellable, error);
  if (enumerator == NULL)
    return NULL;
  while ((fi = g_file_enumerator_next_file (enumerator, cancellable, NULL)) != NULL)
    {
      const char *name = g_file_info_get_name (fi);

      if (g_str_has_suffix (name, ".safetensors"))
        {
          g_ptr_array_add (names, g_strdup (name));
          if (g_str_has_prefix (name, "model"))
            g_ptr_array_add (model_names, g_strdup (name));
        }
      g_object_unref (fi);
    }
  if (names->len == 0)
    {
      /* a folder has no byte offset to name */
      g_set_error (error, TS_FORMAT_ERROR, TS_FORMAT_ERROR_UNKNOWN_FORMAT,
                   _("%s: the folder has no .safetensors file and no %s"), dir_name, DEFAULT_INDEX);
      return NULL;
    }
  chosen = model_names->len > 0 ? model_names : names;
  g_ptr_array_sort (chosen, compare_names);
  _ts_model_file_set_file (TS_MODEL_FILE (self), dir);
  _ts_model_file_set_progress (TS_MODEL_FILE (self), progress);
  if (chosen->len < names->len)
    _ts_model_file_add_warning (TS_MODEL_FILE (self),
                                _("%s: no %s; loaded the %u model*.safetensors and left out "
                                "the other %u .safetensors, as llama.cpp's converter does"),
                                dir_name, DEFAULT_INDEX, chosen->len, names->len - chosen->len);
  else if (chosen->len > 1)
    _ts_model_file_add_warning (TS_MODEL_FILE (self),
                                _("%s: %u .safetensors files but no %s; loaded them all"),
                                dir_name, chosen->len, DEFAULT_INDEX);
  for (guint i = 0; i < chosen->len; i++)
    {
      g_autoptr(GFile) f = g_file_get_child (dir, g_ptr_array_index (chosen, i));

      if (!load_part (TS_MODEL_FILE (self), f, i, chosen->len, cancellable, error))
        return NULL;
    }
  return TS_MODEL_FILE (g_steal_pointer (&self));
}

/* The index next to @shard that lists it, if any. An index there that
 * cannot be read is told in *@problem. */
static GFile *
find_index_for_shard (GFile  *shard,
                      char  **problem)
{
  g_autoptr(GFile) dir = g_file_get_parent (shard);
  g_autoptr(GFile) index = NULL;
  g_autofree char *shard_name = g_file_get_basename (shard);
  g_autoptr(JsonParser) parser = json_parser_new_immutable ();
  g_autoptr(GError) local_error = NULL;
  JsonObject *root;
  JsonObject *map;
  g_autoptr(GList) values = NULL;

  if (dir == NULL)
    return NULL;
  index = g_file_get_child (dir, DEFAULT_INDEX);
  if (!g_file_query_exists (index, NULL))
    return NULL;
  root = _ts_load_side_json (index, ST_MAX_HEADER, parser, &local_error);
  if (root == NULL)
    {
      *problem = g_strdup (local_error->message);
      return NULL;
    }
  if (!json_object_has_member (root, "weight_map") ||
      !JSON_NODE_HOLDS_OBJECT (json_object_get_member (root, "weight_map")))
    {
      *problem = g_strdup_printf (_("%s: the index has no \"weight_map\" object"), DEFAULT_INDEX);
      return NULL;
    }
  map = json_object_get_object_member (root, "weight_map");
  values = json_object_get_values (map);
  for (GList *l = values; l; l = l->next)
    if (JSON_NODE_TYPE (l->data) == JSON_NODE_VALUE &&
        json_node_get_value_type (l->data) == G_TYPE_STRING &&
        g_str_equal (json_node_get_string (l->data), shard_name))
      return g_steal_pointer (&index);
  return NULL;
}

TsModelFile *
_ts_safetensors_file_load (GFile           *file,
                           TsLoadProgress  *progress,
                           GCancellable    *cancellable,
                           GError         **error)
{
  g_autoptr(TsSafetensorsFile) self = NULL;
  g_autofree char *name = ts_file_display_basename (file);
  g_autofree char *problem = NULL;
  g_autoptr(GFile) index = NULL;

  if (g_file_query_file_type (file, G_FILE_QUERY_INFO_NONE, cancellable) == G_FILE_TYPE_DIRECTORY)
    {
      index = g_file_get_child (file, DEFAULT_INDEX);
      if (g_file_query_exists (index, cancellable))
        return load_sharded (index, progress, cancellable, error);
      return load_folder_without_index (file, progress, cancellable, error);
    }
  if (g_str_has_suffix (name, ".json"))
    return load_sharded (file, progress, cancellable, error);

  /* a shard opens its whole checkpoint; where that cannot be read (a
   * sibling missing or cut short, a broken index), the shard asked for is
   * read alone, and the model says why */
  index = find_index_for_shard (file, &problem);
  if (index != NULL)
    {
      g_autoptr(GError) whole_error = NULL;
      TsModelFile *whole = load_sharded (index, progress, cancellable, &whole_error);

      if (whole != NULL)
        return whole;
      if (g_error_matches (whole_error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          g_propagate_error (error, g_steal_pointer (&whole_error));
          return NULL;
        }
      problem = g_strdup (whole_error->message);
    }

  self = g_object_new (TS_TYPE_SAFETENSORS_FILE, NULL);
  _ts_model_file_set_file (TS_MODEL_FILE (self), file);
  _ts_model_file_set_progress (TS_MODEL_FILE (self), progress);
  if (!load_part (TS_MODEL_FILE (self), file, 0, 1, cancellable, error))
    return NULL;
  if (index != NULL)
    _ts_model_file_add_warning (TS_MODEL_FILE (self),
                                _("%s: read alone, as the checkpoint it is a shard of cannot be "
                                  "read: %s"), name, problem);
  else if (problem != NULL)
    _ts_model_file_add_warning (TS_MODEL_FILE (self),
                                _("%s: read alone, as the folder's index cannot be read: %s"),
                                name, problem);
  return TS_MODEL_FILE (g_steal_pointer (&self));
}

/**
 * ts_safetensors_file_get_index_file:
 *
 * Returns: (transfer none) (nullable): the index of a sharded checkpoint
 */
GFile *
ts_safetensors_file_get_index_file (TsSafetensorsFile *self)
{
  g_return_val_if_fail (TS_IS_SAFETENSORS_FILE (self), NULL);
  return self->index_file;
}

gboolean
ts_safetensors_file_is_sharded (TsSafetensorsFile *self)
{
  g_return_val_if_fail (TS_IS_SAFETENSORS_FILE (self), FALSE);
  return g_list_model_get_n_items (ts_model_file_get_parts (TS_MODEL_FILE (self))) > 1 ||
         self->index_file != NULL;
}
