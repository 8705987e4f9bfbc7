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

/* TRUE if no array or object of @json nests deeper than @max_depth (strings
 * skipped); a linear scan without allocation, run before the parser. */
static inline gboolean
_ts_json_depth_ok (const char *json,
                   gsize       len,
                   guint       max_depth)
{
  guint depth = 0;

  for (gsize i = 0; i < len; i++)
    {
      char ch = json[i];

      if (ch == '"')
        {
          for (i++; i < len && json[i] != '"'; i++)
            if (json[i] == '\\')
              i++;
        }
      else if (ch == '[' || ch == '{')
        {
          if (++depth > max_depth)
            return FALSE;
        }
      else if ((ch == ']' || ch == '}') && depth > 0)
        depth--;
    }
  return TRUE;
}

G_END_DECLS
