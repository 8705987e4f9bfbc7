/* ts-metadata-view.h
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "tensorscope.h"

G_BEGIN_DECLS

#define TS_TYPE_METADATA_VIEW (ts_metadata_view_get_type ())

G_DECLARE_FINAL_TYPE (TsMetadataView, ts_metadata_view, TS, METADATA_VIEW, GtkWidget)

GtkWidget *ts_metadata_view_new            (void);
void       ts_metadata_view_set_model_file (TsMetadataView *self,
                                            TsModelFile    *model);
void       ts_metadata_view_focus_search   (TsMetadataView *self);
guint      ts_metadata_view_get_n_rows     (TsMetadataView *self);
void       ts_metadata_view_set_filter_text (TsMetadataView *self,
                                             const char     *text);
const char *ts_metadata_view_get_count_text (TsMetadataView *self);
/* shows the entry with @key in the detail pane; FALSE if there is none */
gboolean   ts_metadata_view_select_key     (TsMetadataView *self,
                                            const char     *key);
/* the array browser: first index of the page shown, and going to an item */
guint64    ts_metadata_view_get_page_start (TsMetadataView *self);
void       ts_metadata_view_go_to_index    (TsMetadataView *self,
                                            guint64         index);

G_END_DECLS
