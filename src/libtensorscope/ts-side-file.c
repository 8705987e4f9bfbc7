/* ts-side-file.c: reading the small files beside the weights
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * config.json, the tokenizer files, an index, a model card: a checkpoint
 * folder names them, so any of them may be a FIFO (opening it for reading
 * blocks until a writer comes), a link to /dev/zero (endless), or a file
 * far larger than such a file ever is. g_file_load_contents() would block
 * or read until memory runs out; this opens without blocking, insists on a
 * regular file and reads at most @max_size bytes.
 */

#include "config.h"

#include <glib/gi18n-lib.h>

#include <errno.h>
#include <stdlib.h>
#include <fcntl.h>
#include <inttypes.h>
#include <glib/gstdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ts-error.h"
#include "ts-json-private.h"
#include "ts-side-file-private.h"

/**
 * _ts_open_regular:
 * @path: a file name
 * @st: (out): what fstat() says of the file opened
 * @error: return location for a #GError (its message does not name the
 *   file); G_IO_ERROR_NOT_FOUND for a file that is not there
 *
 * Opens @path for reading if it is a regular file, without ever blocking:
 * the name is looked at before it is opened (opening a device may do
 * things), opened with O_NONBLOCK (a pipe put in its place since would
 * hold open() forever, past any cancel), and the descriptor is checked to
 * be the file that was looked at.
 *
 * Returns: the descriptor, or -1
 */
int
_ts_open_regular (const char   *path,
                  struct stat  *st,
                  GError      **error)
{
  GStatBuf before;
  int fd, errsv;

  if (g_stat (path, &before) != 0)
    {
      errsv = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv), "%s", g_strerror (errsv));
      return -1;
    }
  if (S_ISDIR (before.st_mode))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_IS_DIRECTORY, _("a folder, not a file"));
      return -1;
    }
  if (!S_ISREG (before.st_mode))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE,
                   _("not a regular file (a pipe, device or socket)"));
      return -1;
    }
  fd = g_open (path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, 0);
  if (fd < 0 || fstat (fd, st) != 0)
    {
      errsv = errno;
      if (fd >= 0)
        g_close (fd, NULL);
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv), "%s", g_strerror (errsv));
      return -1;
    }
  if (!S_ISREG (st->st_mode) || st->st_dev != before.st_dev || st->st_ino != before.st_ino)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                   _("the file was replaced while it was being opened"));
      g_close (fd, NULL);
      return -1;
    }
  return fd;
}

/**
 * _ts_load_side_file:
 * @file: a local file (links are followed: the Hugging Face cache links
 *   every file of a snapshot to a blob)
 * @max_size: the most bytes the file may hold
 * @cancellable: (nullable): checked between reads
 * @contents: (out): the bytes, NUL-terminated
 * @length: (out) (optional): their number
 * @error: return location for a #GError (its message does not name the
 *   file); G_IO_ERROR_NOT_FOUND for a file that is not there
 *
 * Returns: %TRUE if @file is a regular file of at most @max_size bytes
 */
gboolean
_ts_load_side_file (GFile         *file,
                    gsize          max_size,
                    GCancellable  *cancellable,
                    char         **contents,
                    gsize         *length,
                    GError       **error)
{
  g_autofree char *path = g_file_get_path (file);
  g_autofree char *buf = NULL;
  struct stat st;
  gsize len = 0;
  int fd, errsv;

  if (path == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED, _("not a local file"));
      return FALSE;
    }
  fd = _ts_open_regular (path, &st, error);
  if (fd < 0)
    return FALSE;
  if ((guint64) st.st_size > max_size)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_MESSAGE_TOO_LARGE,
                   _("%" PRIu64 " bytes, more than the %" PRIu64 " such a file may have"),
                   (guint64) st.st_size, (guint64) max_size);
      g_close (fd, NULL);
      return FALSE;
    }
  /* the size may change while reading: never past max_size + 1 */
  buf = g_malloc ((gsize) st.st_size + 1);
  for (;;)
    {
      gsize room = (gsize) st.st_size - len;
      ssize_t n;

      if (room == 0)
        {
          char probe;

          n = read (fd, &probe, 1);
          if (n > 0)
            {
              g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                           _("the file grew while it was read"));
              g_close (fd, NULL);
              return FALSE;
            }
        }
      else
        n = read (fd, buf + len, room);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          errsv = errno;
          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv), "%s", g_strerror (errsv));
          g_close (fd, NULL);
          return FALSE;
        }
      if (n == 0)
        break;
      len += (gsize) n;
      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        {
          g_close (fd, NULL);
          return FALSE;
        }
    }
  g_close (fd, NULL);
  buf[len] = '\0';
  *contents = g_steal_pointer (&buf);
  if (length != NULL)
    *length = len;
  return TRUE;
}

/* @json with ".0" after each integer beyond int64, which json-glib would
 * read wrong without a word (2^70 as -1): a float it reads right, and a
 * key that must be an integer refuses it (gguf-py cannot pack it either).
 * Such integers are common where nothing reads them: transformers writes
 * "model_max_length": 1000000000000000019884624838656. */
static char *
widen_large_integers (const char *json,
                      gsize       len,
                      gsize      *new_len)
{
  GString *out = g_string_sized_new (len + 64);
  gsize unused = G_MAXSIZE;

  for (gsize i = 0; i < len; i++)
    {
      if (json[i] == '"')
        {
          gsize end = MIN (_ts_json_string_end (json, len, i, &unused), len - 1);

          g_string_append_len (out, json + i, end - i + 1);
          i = end;
        }
      else if (_ts_json_is_scalar_char (json[i]))
        {
          gsize end = _ts_json_scalar_end (json, len, i);

          g_string_append_len (out, json + i, end - i);
          if (_ts_json_integer_too_large (json + i, end - i))
            g_string_append (out, ".0");
          i = end - 1;
        }
      else
        g_string_append_c (out, json[i]);
    }
  *new_len = out->len;
  return g_string_free (out, FALSE);
}

/**
 * _ts_load_side_json:
 * @file: a JSON file beside the weights (config.json, tokenizer.json, …)
 * @max_size: the most bytes it may hold
 * @parser: parses it
 * @error: return location for a #GError, whose message starts with the
 *   file's name; G_IO_ERROR_NOT_FOUND for a file that is not there,
 *   G_IO_ERROR_INVALID_DATA for one that is not a JSON object
 *
 * Loads @file as _ts_load_side_file() does, passes it through the JSON
 * guard (each of its rules gives its own message, with the byte where it
 * applies) and parses it, integers beyond int64 as floats.
 *
 * Returns: (transfer none) (nullable): the top-level object, owned by @parser
 */
JsonObject *
_ts_load_side_json (GFile        *file,
                    gsize         max_size,
                    JsonParser   *parser,
                    GError      **error)
{
  g_autofree char *name = ts_file_display_basename (file);
  g_autofree char *contents = NULL;
  g_autoptr(GError) local_error = NULL;
  const char *bad = NULL;
  gsize len, where = 0;
  JsonNode *root;
  gsize large_integer;
  TsJsonCheck check;
  TsJsonExpect expected = TS_JSON_EXPECT_VALUE;

  if (!_ts_load_side_file (file, max_size, NULL, &contents, &len, &local_error))
    {
      g_autoptr(GFile) dir = g_file_get_parent (file);

      /* which folder it was looked for in, not only that it is missing */
      if (g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND) && dir != NULL)
        {
          g_autofree char *folder = g_file_get_parse_name (dir);

          g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, _("%s: there is no such file in %s"),
                       name, folder);
          return NULL;
        }
      g_propagate_prefixed_error (error, g_steal_pointer (&local_error), "%s: ", name);
      return NULL;
    }
  if (!g_utf8_validate_len (contents, len, &bad))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, _("%s: byte %" PRIu64 ": not valid UTF-8"),
                   name, (guint64) (bad - contents));
      return NULL;
    }
  switch ((check = _ts_json_scan (contents, len, TS_JSON_MAX_VALUES, &where, &expected, NULL,
                                  &large_integer)))
    {
    case TS_JSON_OK:
    default:
      break;
    case TS_JSON_NOT_STRICT:
    case TS_JSON_TOO_DEEP:
    case TS_JSON_SYNTAX:
      {
        g_autofree char *problem = _ts_json_describe (check, contents, len, where, expected);

        g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, _("%s: byte %" PRIu64 ": %s"),
                     name, (guint64) where, problem);
        return NULL;
      }
    case TS_JSON_TOO_MANY_VALUES:
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("%s: would take more than %d MB once parsed, more than any real one"),
                   name, TS_JSON_MAX_VALUES / (1000000 / TS_JSON_UNIT_BYTES));
      return NULL;
    case TS_JSON_UNKEPT_ESCAPE:
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("%s: byte %" PRIu64 ": a string holds \\u0000 or an unpaired "
                     "surrogate (\\ud800–\\udfff), which cannot be kept as UTF-8 text"),
                   name, (guint64) where);
      return NULL;
    case TS_JSON_TRAILING:
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("%s: byte %" PRIu64 ": a second JSON value after the file's own"),
                   name, (guint64) where);
      return NULL;
    }
  if (large_integer != G_MAXSIZE)
    {
      char *widened = widen_large_integers (contents, len, &len);

      g_free (contents);
      contents = widened;
    }
  if (!json_parser_load_from_data (parser, contents, (gssize) len, &local_error))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "%s: %s", name, local_error->message);
      return NULL;
    }
  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("%s: the top level is not a JSON object"), name);
      return NULL;
    }
  return json_node_get_object (root);
}

/* The token at @where, for a message: a character, a literal, "a string" */
static char *
json_token_at (const char *json,
               gsize       len,
               gsize       where)
{
  char ch = json[where];

  if (ch == '"')
    return g_strdup (_("a string"));
  if (_ts_json_is_scalar_char (ch))
    {
      gsize end = MIN (_ts_json_scalar_end (json, len, where), where + 24);

      return g_strdup_printf ("'%.*s'", (int) (end - where), json + where);
    }
  if (g_ascii_isprint (ch))
    return g_strdup_printf ("'%c'", ch);
  return g_strdup_printf ("byte 0x%02x", (guchar) ch);
}

char *
_ts_json_describe (TsJsonCheck   check,
                   const char   *json,
                   gsize         len,
                   gsize         where,
                   TsJsonExpect  expected)
{
  static const char * const wanted[] = {
    [TS_JSON_EXPECT_VALUE] = N_("a value"),
    [TS_JSON_EXPECT_VALUE_OR_CLOSE] = N_("a value or ']'"),
    [TS_JSON_EXPECT_KEY_OR_CLOSE] = N_("a string key or '}'"),
    [TS_JSON_EXPECT_KEY] = N_("a string key"),
    [TS_JSON_EXPECT_COLON] = N_("':' after the key"),
    [TS_JSON_EXPECT_NEXT] = N_("',' or the closing bracket"),
    [TS_JSON_EXPECT_LITERAL] = N_("a number, true, false or null"),
    [TS_JSON_EXPECT_QUOTE] = N_("the string's closing quote"),
    [TS_JSON_EXPECT_END] = N_("the end of the text"),
  };
  g_autofree char *token = NULL;

  switch (check)
    {
    case TS_JSON_TOO_DEEP:
      return g_strdup_printf (_("arrays or objects nest deeper than %d levels"), TS_JSON_MAX_DEPTH);
    case TS_JSON_NOT_STRICT:
      token = where < len ? json_token_at (json, len, where) : g_strdup ("?");
      /* TRANSLATORS: %s is a character, as '#' or byte 0xef */
      return g_strdup_printf (_("%s is not JSON outside a string (a comment, a single quote, "
                                "a byte-order mark?)"), token);
    case TS_JSON_SYNTAX:
      if (where >= len)
        return g_strdup_printf (_("the text ends before its JSON value does: %s expected"),
                                _(wanted[expected]));
      token = json_token_at (json, len, where);
      /* TRANSLATORS: "',' or the closing bracket expected, not a string" */
      return g_strdup_printf (_("%s expected, not %s"), _(wanted[expected]), token);
    case TS_JSON_OK:
    case TS_JSON_TOO_MANY_VALUES:
    case TS_JSON_UNKEPT_ESCAPE:
    case TS_JSON_TRAILING:
    default:
      return g_strdup (_("not valid JSON"));
    }
}

GFile *
_ts_output_file_resolve (GFile *target)
{
  g_autofree char *path = g_file_get_path (target);
  GStatBuf lst, st;
  char *real;
  GFile *resolved;

  if (path == NULL || g_lstat (path, &lst) != 0 || !S_ISLNK (lst.st_mode) ||
      g_stat (path, &st) != 0 || !S_ISREG (st.st_mode) || (real = realpath (path, NULL)) == NULL)
    return g_object_ref (target);
  resolved = g_file_new_for_path (real);
  free (real);
  return resolved;
}

/* Python's truth value of a JSON value (FALSE for a missing one) */
gboolean
_ts_json_truthy (JsonNode *node)
{
  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return FALSE;
  if (JSON_NODE_HOLDS_OBJECT (node))
    return json_object_get_size (json_node_get_object (node)) > 0;
  if (JSON_NODE_HOLDS_ARRAY (node))
    return json_array_get_length (json_node_get_array (node)) > 0;
  switch (json_node_get_value_type (node))
    {
    case G_TYPE_STRING:
      return json_node_get_string (node)[0] != '\0';
    case G_TYPE_BOOLEAN:
      return json_node_get_boolean (node);
    case G_TYPE_INT64:
      return json_node_get_int (node) != 0;
    default:
      return json_node_get_double (node) != 0.0;
    }
}
