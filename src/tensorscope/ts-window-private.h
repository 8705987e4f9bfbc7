/* ts-window-private.h: what the UI tests look at
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ts-layout-view.h"
#include "ts-metadata-view.h"
#include "ts-summary-view.h"
#include "ts-tensor-table.h"
#include "ts-window.h"

G_BEGIN_DECLS

/* "empty", "loading", "error" or "model" */
const char     *ts_window_get_page          (TsWindow *self);
const char     *ts_window_get_error_message (TsWindow *self);
TsLayoutView   *ts_window_get_layout_view   (TsWindow *self);
TsTensorTable  *ts_window_get_tensor_table  (TsWindow *self);
TsMetadataView *ts_window_get_metadata_view (TsWindow *self);
TsSummaryView  *ts_window_get_summary_view  (TsWindow *self);
GtkDropTarget  *ts_window_get_drop_target   (TsWindow *self);
gboolean        ts_window_get_drop_active   (TsWindow *self);
/* the in-window notification's text, NULL while it is hidden; @can_show
 * and @can_reload (optional) tell whether its Show or Reload button is there */
const char     *ts_window_get_banner        (TsWindow *self,
                                             gboolean *can_show,
                                             gboolean *can_reload);
/* the main menu's section that holds Open Recent */
GMenuModel     *ts_window_get_recent_section (TsWindow *self);
/* "tensors", "metadata" or "summary" */
void            ts_window_show_view         (TsWindow   *self,
                                             const char *name);

G_END_DECLS
