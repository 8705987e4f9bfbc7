/* ts-tensor-table.h
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "tensorscope.h"

G_BEGIN_DECLS

#define TS_TYPE_TENSOR_TABLE (ts_tensor_table_get_type ())

G_DECLARE_FINAL_TYPE (TsTensorTable, ts_tensor_table, TS, TENSOR_TABLE, GtkWidget)

GtkWidget         *ts_tensor_table_new             (void);
void               ts_tensor_table_set_model_file  (TsTensorTable *self,
                                                    TsModelFile   *model);
/* the sorted, filtered rows; shared with the layout view */
GtkSelectionModel *ts_tensor_table_get_selection   (TsTensorTable *self);
guint              ts_tensor_table_get_n_rows      (TsTensorTable *self);
/* filters at once (the search entry waits for typing to pause) */
void               ts_tensor_table_set_filter_text (TsTensorTable *self,
                                                    const char    *text);
void               ts_tensor_table_focus_search    (TsTensorTable *self);
/* column ids: "name", "type", "shape", "elements", "bytes", "offset", "part";
 * the table's sort-column (a column id, or "none" for the file's order)
 * and sort-order properties, and its table.sort-column and
 * table.sort-order actions, follow this and header clicks alike */
void               ts_tensor_table_sort_by         (TsTensorTable *self,
                                                    const char    *column,
                                                    GtkSortType    order);
/* selects @tensor, clearing the filter if it hides it, and scrolls to it */
void               ts_tensor_table_select_tensor   (TsTensorTable *self,
                                                    TsTensor      *tensor);

G_END_DECLS
