/* ts-audit-pane.h: the result of an audit — checks, tensors, sizes
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "tensorscope.h"

G_BEGIN_DECLS

#define TS_TYPE_AUDIT_PANE (ts_audit_pane_get_type ())

G_DECLARE_FINAL_TYPE (TsAuditPane, ts_audit_pane, TS, AUDIT_PANE, GtkBox)

TsAuditPane   *ts_audit_pane_new               (void);
/* @source and @target are the audited files; their layouts go into the
 * HTML report */
void           ts_audit_pane_set_report        (TsAuditPane    *self,
                                                TsAuditReport  *report,
                                                TsModelFile    *source,
                                                TsModelFile    *target);
TsAuditReport *ts_audit_pane_get_report        (TsAuditPane    *self);

/* the per-tensor table: only failed pairs, and a name filter */
void           ts_audit_pane_set_failures_only (TsAuditPane    *self,
                                                gboolean        failures_only);
void           ts_audit_pane_set_filter_text   (TsAuditPane    *self,
                                                const char     *text);
/* (transfer none): the per-tensor rows as shown (TsAuditPair) */
GListModel    *ts_audit_pane_get_pair_rows     (TsAuditPane    *self);
/* "checks", "tensors" or "sizes" */
void           ts_audit_pane_show_view         (TsAuditPane    *self,
                                                const char     *name);

/* Writes the report as JSON or as a self-contained HTML page (chosen by
 * @file's extension, HTML unless it ends in .json) on a worker thread. */
void           ts_audit_pane_export_async      (TsAuditPane         *self,
                                                GFile               *file,
                                                GCancellable        *cancellable,
                                                GAsyncReadyCallback  callback,
                                                gpointer             user_data);
gboolean       ts_audit_pane_export_finish     (TsAuditPane         *self,
                                                GAsyncResult        *result,
                                                GError             **error);

/* The HTML report, with both files' layout diagrams inline as SVG. Slow
 * for big files: call it from a worker thread. */
char          *ts_audit_report_render_html     (TsAuditReport       *report,
                                                TsModelFile         *source,
                                                TsModelFile         *target,
                                                GError             **error);

/* the text shown instead of an empty tensor table, NULL while it has rows */
const char  *ts_audit_pane_get_pairs_placeholder (TsAuditPane *self);

G_END_DECLS
