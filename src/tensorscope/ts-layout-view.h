/* ts-layout-view.h
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "tensorscope.h"

G_BEGIN_DECLS

#define TS_TYPE_LAYOUT_VIEW (ts_layout_view_get_type ())

G_DECLARE_FINAL_TYPE (TsLayoutView, ts_layout_view, TS, LAYOUT_VIEW, GtkWidget)

GtkWidget         *ts_layout_view_new               (void);
TsLayout          *ts_layout_view_get_layout        (TsLayoutView      *self);
void               ts_layout_view_set_layout        (TsLayoutView      *self,
                                                     TsLayout          *layout);
/* the selection over TsTensor items shared with the tensor table */
GtkSelectionModel *ts_layout_view_get_model         (TsLayoutView      *self);
void               ts_layout_view_set_model         (TsLayoutView      *self,
                                                     GtkSelectionModel *model);

/* the band drawn as selected (the selected tensor), or TS_LAYOUT_NO_BAND */
guint              ts_layout_view_get_selected_band (TsLayoutView      *self);
guint              ts_layout_view_get_focus_band    (TsLayoutView      *self);
/* as a click on the band: selects its tensor */
void               ts_layout_view_activate_band     (TsLayoutView      *self,
                                                     guint              band);

/* TRUE while the geometry for the current width and zoom is computed on a
 * worker thread; the previous picture stays on screen meanwhile */
gboolean           ts_layout_view_get_pending       (TsLayoutView      *self);
gboolean           ts_layout_view_get_zoomed        (TsLayoutView      *self);
void               ts_layout_view_zoom_in           (TsLayoutView      *self);
void               ts_layout_view_zoom_out          (TsLayoutView      *self);
void               ts_layout_view_zoom_reset        (TsLayoutView      *self);
/* back to the range before the last zoom into a band */
void               ts_layout_view_zoom_back         (TsLayoutView      *self);
void               ts_layout_view_zoom_to_band      (TsLayoutView      *self,
                                                     guint              band);
void               ts_layout_view_set_zoom_step     (TsLayoutView      *self,
                                                     double             step);

gboolean           ts_layout_view_fit_paned         (GtkPaned          *paned,
                                                     int                max_height);

G_END_DECLS
