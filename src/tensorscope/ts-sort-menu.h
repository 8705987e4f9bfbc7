/* ts-sort-menu.h: the keyboard's way to sort a column view
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* the column of a view shown in the order of its model */
#define TS_SORT_NONE "none"

#define TS_TYPE_SORT_MENU (ts_sort_menu_get_type ())

G_DECLARE_FINAL_TYPE (TsSortMenu, ts_sort_menu, TS, SORT_MENU, GObject)

/* GTK 4.8's column headers take no focus: @button's menu sorts @view
 * from the keyboard. Its items, "Original Order", one per shown sortable
 * column, then Ascending and Descending, are the actions "sort-column"
 * (a column's id, or TS_SORT_NONE) and "sort-order" ("ascending",
 * "descending") of ts_sort_menu_get_actions(), which the caller inserts
 * under @prefix on a widget around @button. They follow header clicks,
 * and @button's icon shows the direction. */
TsSortMenu   *ts_sort_menu_new         (GtkColumnView       *view,
                                        const char          *prefix,
                                        GtkMenuButton       *button);
/* sorts @column by @compare (which gets @user_data), named @id */
void          ts_sort_menu_add_column  (TsSortMenu          *self,
                                        GtkColumnViewColumn *column,
                                        const char          *id,
                                        GCompareDataFunc     compare,
                                        gpointer             user_data);
/* the section's items again, after columns were shown or hidden (a
 * hidden column the view was sorted by gives back the model's order) */
void          ts_sort_menu_update      (TsSortMenu          *self);
GActionGroup *ts_sort_menu_get_actions (TsSortMenu          *self);
const char   *ts_sort_menu_get_column  (TsSortMenu          *self);
GtkSortType   ts_sort_menu_get_order   (TsSortMenu          *self);
/* @id: a column's id or TS_SORT_NONE; the direction stays (and is kept
 * for the next column while unsorted) */
void          ts_sort_menu_set_column  (TsSortMenu          *self,
                                        const char          *id);
void          ts_sort_menu_set_order   (TsSortMenu          *self,
                                        GtkSortType          order);
void          ts_sort_menu_sort_by     (TsSortMenu          *self,
                                        const char          *id,
                                        GtkSortType          order);
/* TRUE while the view is unsorted on the way from one column to another:
 * the sorter changes again at once, to the new order */
gboolean      ts_sort_menu_is_switching (TsSortMenu         *self);

G_END_DECLS
