/* ts-export-dialog.h
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "tensorscope.h"

G_BEGIN_DECLS

#define TS_TYPE_EXPORT_DIALOG (ts_export_dialog_get_type ())

G_DECLARE_FINAL_TYPE (TsExportDialog, ts_export_dialog, TS, EXPORT_DIALOG, GtkWindow)

/* @layout: the layout shown, for its model and zoomed range */
TsExportDialog *ts_export_dialog_new         (GtkWindow      *parent,
                                              TsLayout       *layout,
                                              GSettings      *settings);
/* Exports to @file without asking for a name (what "Export…" does once a
 * file is chosen); emits ::exported or shows the error in the dialog. */
void            ts_export_dialog_export_to   (TsExportDialog *self,
                                              GFile          *file);
/* The diagram's size as the dialog shows it ("1600 × 742 points"); empty
 * while the dialog's layout is still being built on a worker. */
const char     *ts_export_dialog_get_size_text (TsExportDialog *self);
/* Sets the width, as typing it into the dialog does. */
void            ts_export_dialog_set_width   (TsExportDialog *self,
                                              int             width);

G_END_DECLS
