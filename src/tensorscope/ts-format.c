/* ts-format.c
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <langinfo.h>
#include <string.h>

#include "ts-format.h"

char *
ts_format_count (guint64 n)
{
  g_autofree char *digits = g_strdup_printf ("%" G_GUINT64_FORMAT, n);
  GString *out = g_string_new (NULL);
  gsize len = strlen (digits);
  /* the locale's separator (a narrow no-break space in French); the C
   * locale has none, and a comma reads better than nothing */
  const char *sep = nl_langinfo (THOUSEP);

  if (sep == NULL || sep[0] == '\0')
    sep = ",";

  for (gsize i = 0; i < len; i++)
    {
      if (i > 0 && (len - i) % 3 == 0)
        g_string_append (out, sep);
      g_string_append_c (out, digits[i]);
    }

  return g_string_free (out, FALSE);
}

char *
ts_format_bytes (guint64 n)
{
  g_autofree char *count = ts_format_count (n);
  g_autofree char *human = g_format_size (n);

  if (n < 1000)
    return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s byte", "%s bytes", n), count);

  /* Translators: exact byte count, then a rounded size */
  return g_strdup_printf (_("%s bytes (%s)"), count, human);
}

char *
ts_format_display_text (const char *text,
                        gssize      length,
                        guint       max_chars)
{
  g_autofree char *valid = NULL;
  GString *out;
  guint n = 0;

  if (text == NULL)
    return g_strdup ("");

  valid = g_utf8_make_valid (text, length);
  out = g_string_new (NULL);

  for (const char *p = valid; *p; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (max_chars > 0 && n++ >= max_chars)
        {
          g_string_append (out, "…");
          break;
        }

      if (max_chars > 0 && c == '\n')
        g_string_append (out, "⏎");
      else if (c < 0x20 && c != '\n' && c != '\t')
        g_string_append_unichar (out, 0x2400 + c);   /* control pictures */
      else
        g_string_append_unichar (out, c);
    }

  return g_string_free (out, FALSE);
}
