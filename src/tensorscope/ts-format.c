/* ts-format.c
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "ts-format.h"
#include "ts-model-file.h"

char *
ts_format_count (guint64 n)
{
  return ts_format_thousands (n, TRUE);
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
ts_format_duration (double seconds)
{
  if (seconds >= 0.9995)
    /* Translators: a duration in seconds, one decimal */
    return g_strdup_printf (_("%.1f s"), seconds);

  /* Translators: a duration under a second, in milliseconds */
  return g_strdup_printf (_("%u ms"), seconds > 0 ? (guint) (seconds * 1000 + 0.5) : 0u);
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

static gboolean
on_label_query_tooltip (GtkWidget  *label,
                        int         x,
                        int         y,
                        gboolean    keyboard,
                        GtkTooltip *tooltip,
                        gpointer    user_data)
{
  const char *text = gtk_label_get_text (GTK_LABEL (label));

  if (text == NULL || *text == '\0' ||
      !pango_layout_is_ellipsized (gtk_label_get_layout (GTK_LABEL (label))))
    return FALSE;
  gtk_tooltip_set_text (tooltip, text);
  return TRUE;
}

void
ts_label_add_full_text_tooltip (GtkLabel *label)
{
  g_return_if_fail (GTK_IS_LABEL (label));

  gtk_widget_set_has_tooltip (GTK_WIDGET (label), TRUE);
  g_signal_connect (label, "query-tooltip", G_CALLBACK (on_label_query_tooltip), NULL);
}

int
ts_natural_compare (const char *a,
                    const char *b)
{
  const char *a0 = a, *b0 = b;

  while (*a != '\0' && *b != '\0')
    {
      if (g_ascii_isdigit (*a) && g_ascii_isdigit (*b))
        {
          const char *ea, *eb;
          gsize la, lb;
          int r;

          /* leading zeros do not count; then the longer run is larger */
          while (*a == '0' && g_ascii_isdigit (a[1]))
            a++;
          while (*b == '0' && g_ascii_isdigit (b[1]))
            b++;
          for (ea = a; g_ascii_isdigit (*ea); ea++)
            ;
          for (eb = b; g_ascii_isdigit (*eb); eb++)
            ;
          la = (gsize) (ea - a);
          lb = (gsize) (eb - b);
          if (la != lb)
            return la < lb ? -1 : 1;
          if ((r = strncmp (a, b, la)) != 0)
            return r;
          a = ea;
          b = eb;
          continue;
        }
      if (*a != *b)
        return (guchar) *a < (guchar) *b ? -1 : 1;
      a++;
      b++;
    }
  if (*a != *b)
    return (guchar) *a < (guchar) *b ? -1 : 1;
  /* "a01" and "a1" are equal as numbers, but not the same name */
  return strcmp (a0, b0);
}

void
ts_widget_get_color (GtkWidget *widget,
                     GdkRGBA   *color)
{
  g_return_if_fail (GTK_IS_WIDGET (widget));
  g_return_if_fail (color != NULL);

  /* the one place that asks for a widget's colour: GTK 4.10 replaced the
   * style context call */
#if GTK_CHECK_VERSION (4, 10, 0)
  gtk_widget_get_color (widget, color);
#else
  gtk_style_context_get_color (gtk_widget_get_style_context (widget), color);
#endif
}

gboolean
ts_widget_has_dark_style (GtkWidget *widget)
{
  GdkRGBA fg;

  ts_widget_get_color (widget, &fg);
  return 0.2126 * fg.red + 0.7152 * fg.green + 0.0722 * fg.blue > 0.5;
}

/* TRUE once the focus is outside @view */
static gboolean
focus_left (GtkWidget *view)
{
  GtkWidget *focus = gtk_root_get_focus (gtk_widget_get_root (view));

  return focus != NULL && focus != view && !gtk_widget_is_ancestor (focus, view);
}

static gboolean
on_list_key_pressed (GtkEventControllerKey *key,
                     guint                  keyval,
                     guint                  keycode,
                     GdkModifierType        state,
                     gpointer               user_data)
{
  GtkWidget *view = gtk_event_controller_get_widget (GTK_EVENT_CONTROLLER (key));
  GtkDirectionType dir;
  gboolean moved;

  if ((state & (GDK_CONTROL_MASK | GDK_ALT_MASK)) != 0)
    return FALSE;
  if (keyval == GDK_KEY_ISO_Left_Tab || ((keyval == GDK_KEY_Tab || keyval == GDK_KEY_KP_Tab) &&
                                         (state & GDK_SHIFT_MASK) != 0))
    dir = GTK_DIR_TAB_BACKWARD;
  else if (keyval == GDK_KEY_Tab || keyval == GDK_KEY_KP_Tab)
    dir = GTK_DIR_TAB_FORWARD;
  else
    return FALSE;

  /* the next (or previous) widget that takes the focus, outside the list:
   * the siblings after (before) it, then after its parent (the filter box
   * comes before it), and so on up; past the end of the window, its first
   * (last) widget. Not a hidden page of a stack, which GTK counts as
   * visible: the focus would vanish there. */
  for (GtkWidget *w = view; gtk_widget_get_parent (w) != NULL; w = gtk_widget_get_parent (w))
    for (GtkWidget *sib = dir == GTK_DIR_TAB_FORWARD ? gtk_widget_get_next_sibling (w)
                                                    : gtk_widget_get_prev_sibling (w);
         sib != NULL;
         sib = dir == GTK_DIR_TAB_FORWARD ? gtk_widget_get_next_sibling (sib)
                                          : gtk_widget_get_prev_sibling (sib))
      if (gtk_widget_get_mapped (sib) && gtk_widget_child_focus (sib, dir) && focus_left (view))
        return TRUE;
  gtk_widget_set_can_focus (view, FALSE);
  gtk_root_set_focus (gtk_widget_get_root (view), NULL);
  moved = gtk_widget_child_focus (GTK_WIDGET (gtk_widget_get_root (view)), dir);
  gtk_widget_set_can_focus (view, TRUE);
  return moved;
}

void
ts_list_leave_on_tab (GtkWidget *view)
{
  GtkEventController *key;

  g_return_if_fail (GTK_IS_COLUMN_VIEW (view) || GTK_IS_LIST_VIEW (view));

  key = gtk_event_controller_key_new ();
  gtk_event_controller_set_name (key, "leave-on-tab");
  gtk_event_controller_set_propagation_phase (key, GTK_PHASE_CAPTURE);
  g_signal_connect (key, "key-pressed", G_CALLBACK (on_list_key_pressed), NULL);
  gtk_widget_add_controller (view, key);
}
