/* ts-json-private.h: a guard in front of json-glib for JSON from files
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* json-glib parses nested arrays and objects recursively: a Safetensors
 * header of a million '[' overflows the stack of whatever thread opens it.
 * Real headers, indexes, configs and tokenizers nest fewer than 10 levels. */
#define TS_JSON_MAX_DEPTH 128

/* The index of the quote that ends the string opening at @start (or @len
 * if it runs to the end), escapes skipped. */
static inline gsize
_ts_json_string_end (const char *json,
                     gsize       len,
                     gsize       start)
{
  gsize i;

  for (i = start + 1; i < len && json[i] != '"'; i++)
    if (json[i] == '\\')
      i++;
  return i;
}

/* json-glib keeps a parsed document as a tree of about 80 bytes a value:
 * "[0,0,0,…]" costs 40 times its size. The largest real tokenizer.json
 * files hold about 2 million values (Llama 3's: about 1 million); twice
 * that is the most any JSON from a model folder may hold, so that no file
 * makes the parse take more than ~350 MB. */
#define TS_JSON_MAX_VALUES 4000000
/* a Safetensors header: ~7 values a tensor, so a million tensors (no real
 * shard has more than a few thousand) fit */
#define TS_JSON_MAX_HEADER_VALUES 8000000

typedef enum
{
  TS_JSON_OK,
  TS_JSON_NOT_STRICT,       /* a character JSON does not allow, or nested too deep */
  TS_JSON_TOO_MANY_VALUES,  /* more than the values asked for */
} TsJsonCheck;

/* The guard in front of json-glib, one linear scan without allocation:
 * outside strings, nothing but JSON's own characters, arrays and objects
 * nested at most TS_JSON_MAX_DEPTH deep, and at most @max_values values
 * (counted from the commas and brackets). json-glib also takes comments
 * and single-quoted strings, whose brackets this count cannot see, so
 * those are refused (a '[' after "/" "*" would otherwise recurse unseen). */
static inline TsJsonCheck
_ts_json_check (const char *json,
                gsize       len,
                guint64     max_values)
{
  guint depth = 0;
  guint64 values = 1;

  for (gsize i = 0; i < len; i++)
    {
      char ch = json[i];

      if (ch == '"')
        i = _ts_json_string_end (json, len, i);
      else if (ch == '[' || ch == '{')
        {
          if (++depth > TS_JSON_MAX_DEPTH)
            return TS_JSON_NOT_STRICT;
          if (++values > max_values)
            return TS_JSON_TOO_MANY_VALUES;
        }
      else if (ch == ']' || ch == '}')
        {
          if (depth > 0)
            depth--;
        }
      else if (ch == ',')
        {
          if (++values > max_values)
            return TS_JSON_TOO_MANY_VALUES;
        }
      else if (!(g_ascii_isalnum (ch) || ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' ||
                 ch == ':' || ch == '-' || ch == '+' || ch == '.'))
        return TS_JSON_NOT_STRICT;
    }
  return TS_JSON_OK;
}

G_END_DECLS
