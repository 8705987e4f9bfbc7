/* ts-audit-window.h: "Audit a Conversion…": pick two files, audit them
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "ts-audit-pane.h"

G_BEGIN_DECLS

#define TS_TYPE_AUDIT_WINDOW (ts_audit_window_get_type ())

G_DECLARE_FINAL_TYPE (TsAuditWindow, ts_audit_window, TS, AUDIT_WINDOW, GtkWindow)

/* @app may be NULL (tests) */
TsAuditWindow *ts_audit_window_new        (GtkApplication *app);
/* A checkpoint folder, a Safetensors or GGUF file as @source; a GGUF (or a
 * file of the source's format) as @target. Either may be NULL to keep the
 * current choice. */
void           ts_audit_window_set_files  (TsAuditWindow  *self,
                                           GFile          *source,
                                           GFile          *target);
/* loads both files and audits them on worker threads */
void           ts_audit_window_start      (TsAuditWindow  *self);
void           ts_audit_window_go_back    (TsAuditWindow  *self);
/* "choose", "running", "result" or "error" */
const char    *ts_audit_window_get_page   (TsAuditWindow  *self);
const char    *ts_audit_window_get_error_message (TsAuditWindow *self);
TsAuditPane   *ts_audit_window_get_pane   (TsAuditWindow  *self);

G_END_DECLS
