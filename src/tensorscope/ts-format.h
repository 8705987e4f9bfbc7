/* ts-format.h: number formatting shared by the app's views
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* "6,425,499,648": exact, with thousands separators, like the CLI */
char *ts_format_count (guint64 n);
/* "6,425,499,648 bytes (6.4 GB)" */
char *ts_format_bytes (guint64 n);
/* "0.4 s" or, under a second, "38 ms" (a short audit is not "0.0 s") */
char *ts_format_duration (double seconds);
/* valid UTF-8 for display, at most @max_chars characters (0: no limit),
 * with control characters shown as symbols */
char *ts_format_display_text (const char *text,
                              gssize      length,
                              guint       max_chars);

/* strcmp() that takes runs of digits as numbers: "blk.2" before "blk.10" */
int   ts_natural_compare (const char *a,
                          const char *b);

/* @widget's foreground (text) colour in its style */
void     ts_widget_get_color      (GtkWidget *widget,
                                   GdkRGBA   *color);
/* TRUE when @widget's style draws light text (a dark style): pictures
 * drawn in cairo follow it */
gboolean ts_widget_has_dark_style (GtkWidget *widget);

/* Shows a label's whole text as its tooltip when it is ellipsized. The text
 * is looked up when the tooltip is asked for: setting tooltips while binding
 * list rows costs an X round trip per cell and stalls the main loop. */
void  ts_label_add_full_text_tooltip (GtkLabel *label);

/* GTK 4.8's list views take Tab from row to row: leaving a table of
 * 50,000 tensors took 50,000 presses. Makes Tab and Shift+Tab leave
 * @view (a GtkColumnView or GtkListView) as they leave any other widget;
 * the arrow keys still move between rows. */
void  ts_list_leave_on_tab (GtkWidget *view);

G_END_DECLS
