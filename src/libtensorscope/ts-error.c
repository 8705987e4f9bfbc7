/* ts-error.c
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "ts-error.h"

G_DEFINE_QUARK (ts-format-error-quark, ts_format_error)

static const char * const error_nicks[] = {
  [TS_FORMAT_ERROR_IO] = "io",
  [TS_FORMAT_ERROR_UNKNOWN_FORMAT] = "unknown-format",
  [TS_FORMAT_ERROR_LFS_POINTER] = "lfs-pointer",
  [TS_FORMAT_ERROR_TRUNCATED] = "truncated",
  [TS_FORMAT_ERROR_HEADER_TOO_LARGE] = "header-too-large",
  [TS_FORMAT_ERROR_HEADER_PAST_EOF] = "header-past-eof",
  [TS_FORMAT_ERROR_HEADER_NOT_UTF8] = "header-not-utf8",
  [TS_FORMAT_ERROR_HEADER_INVALID_JSON] = "header-invalid-json",
  [TS_FORMAT_ERROR_HEADER_NOT_OBJECT] = "header-not-object",
  [TS_FORMAT_ERROR_INVALID_TENSOR_ENTRY] = "invalid-tensor-entry",
  [TS_FORMAT_ERROR_INVALID_METADATA] = "invalid-metadata",
  [TS_FORMAT_ERROR_OFFSETS_REVERSED] = "offsets-reversed",
  [TS_FORMAT_ERROR_SIZE_MISMATCH] = "size-mismatch",
  [TS_FORMAT_ERROR_DATA_GAP] = "data-gap",
  [TS_FORMAT_ERROR_DATA_OVERLAP] = "data-overlap",
  [TS_FORMAT_ERROR_DUPLICATE_KEY] = "duplicate-key",
  [TS_FORMAT_ERROR_DUPLICATE_TENSOR] = "duplicate-tensor",
  [TS_FORMAT_ERROR_OVERFLOW] = "overflow",
  [TS_FORMAT_ERROR_DATA_PAST_EOF] = "data-past-eof",
  [TS_FORMAT_ERROR_INVALID_INDEX] = "invalid-index",
  [TS_FORMAT_ERROR_UNSAFE_SHARD_NAME] = "unsafe-shard-name",
  [TS_FORMAT_ERROR_MISSING_SHARD] = "missing-shard",
  [TS_FORMAT_ERROR_MISSING_TENSOR] = "missing-tensor",
  [TS_FORMAT_ERROR_WRONG_SHARD] = "wrong-shard",
  [TS_FORMAT_ERROR_BAD_MAGIC] = "bad-magic",
  [TS_FORMAT_ERROR_UNSUPPORTED_VERSION] = "unsupported-version",
  [TS_FORMAT_ERROR_COUNT_TOO_LARGE] = "count-too-large",
  [TS_FORMAT_ERROR_STRING_PAST_EOF] = "string-past-eof",
  [TS_FORMAT_ERROR_ARRAY_PAST_EOF] = "array-past-eof",
  [TS_FORMAT_ERROR_EMPTY_KEY] = "empty-key",
  [TS_FORMAT_ERROR_INVALID_VALUE_TYPE] = "invalid-value-type",
  [TS_FORMAT_ERROR_NESTING_TOO_DEEP] = "nesting-too-deep",
  [TS_FORMAT_ERROR_NAME_TOO_LONG] = "name-too-long",
  [TS_FORMAT_ERROR_TOO_MANY_DIMS] = "too-many-dims",
  [TS_FORMAT_ERROR_INVALID_DIM] = "invalid-dim",
  [TS_FORMAT_ERROR_INVALID_TYPE] = "invalid-type",
  [TS_FORMAT_ERROR_BLOCK_MISALIGNED] = "block-misaligned",
  [TS_FORMAT_ERROR_BAD_ALIGNMENT] = "bad-alignment",
  [TS_FORMAT_ERROR_UNALIGNED_OFFSET] = "unaligned-offset",
  [TS_FORMAT_ERROR_NUL_IN_NAME] = "nul-in-name",
  [TS_FORMAT_ERROR_INVALID_SPLIT] = "invalid-split",
};

/**
 * ts_format_error_to_nick:
 * @code: a #TsFormatError
 *
 * Returns: the stable lower-case name of @code, as printed by `--json`.
 */
const char *
ts_format_error_to_nick (TsFormatError code)
{
  if ((guint) code < G_N_ELEMENTS (error_nicks) && error_nicks[code] != NULL)
    return error_nicks[code];
  return "unknown";
}

/**
 * ts_utf8_take_valid:
 * @text: (transfer full) (nullable): text that may not be UTF-8
 * @length: its length in bytes, or -1 if nul-terminated
 *
 * A file's name need not be UTF-8; messages, labels, JSON and GGUF strings
 * must be. @text as it is when it is valid UTF-8, else a copy with U+FFFD
 * for each invalid sequence, as GLib's display names have it (@text is
 * freed).
 *
 * Returns: (transfer full) (nullable): valid UTF-8
 */
char *
ts_utf8_take_valid (char   *text,
                    gssize  length)
{
  char *valid;

  if (text == NULL || g_utf8_validate (text, length, NULL))
    return text;
  valid = g_utf8_make_valid (text, length);
  g_free (text);
  return valid;
}

/* @file's path, or its name alone for @base, to show */
static char *
display_name (GFile    *file,
              gboolean  base)
{
  g_autofree char *path = g_file_get_path (file);

  if (path != NULL)
    return base ? g_filename_display_basename (path) : g_filename_display_name (path);
  return ts_utf8_take_valid (base ? g_file_get_basename (file) : g_file_get_parse_name (file), -1);
}

/**
 * ts_file_display_name:
 * @file: a #GFile
 *
 * Returns: (transfer full): @file's path (or URI) to show, valid UTF-8
 */
char *
ts_file_display_name (GFile *file)
{
  return display_name (file, FALSE);
}

/**
 * ts_file_display_basename:
 * @file: a #GFile
 *
 * Returns: (transfer full): @file's name to show, valid UTF-8
 */
char *
ts_file_display_basename (GFile *file)
{
  return display_name (file, TRUE);
}
