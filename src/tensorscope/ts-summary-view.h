/* ts-summary-view.h
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "tensorscope.h"

G_BEGIN_DECLS

#define TS_TYPE_SUMMARY_VIEW (ts_summary_view_get_type ())

G_DECLARE_FINAL_TYPE (TsSummaryView, ts_summary_view, TS, SUMMARY_VIEW, GtkWidget)

GtkWidget *ts_summary_view_new            (void);
void       ts_summary_view_set_model_file (TsSummaryView *self,
                                           TsModelFile   *model);
/* the value shown for a row title, for tests; NULL if there is none */
const char *ts_summary_view_lookup        (TsSummaryView *self,
                                           const char    *title);

G_END_DECLS
