/* ts-convert-wizard.h: Source → Options → Preview → Convert → Verify
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "tensorscope.h"
#include "ts-audit-pane.h"
#include "ts-converter.h"

G_BEGIN_DECLS

#define TS_TYPE_CONVERT_WIZARD (ts_convert_wizard_get_type ())

G_DECLARE_FINAL_TYPE (TsConvertWizard, ts_convert_wizard, TS, CONVERT_WIZARD, GtkWindow)

/* @app may be NULL (tests) */
TsConvertWizard *ts_convert_wizard_new            (GtkApplication  *app);
/* Page 1: reads the checkpoint folder on a worker thread. */
void             ts_convert_wizard_set_source     (TsConvertWizard *self,
                                                   GFile           *dir);

/* What the UI tests drive and look at. */

/* "source", "options", "preview", "convert" or "verify" */
const char      *ts_convert_wizard_get_page       (TsConvertWizard *self);
/* a worker (reading, planning, converting, auditing) is running */
gboolean         ts_convert_wizard_get_busy       (TsConvertWizard *self);
gboolean         ts_convert_wizard_can_go_next    (TsConvertWizard *self);
void             ts_convert_wizard_go_next        (TsConvertWizard *self);
void             ts_convert_wizard_go_back        (TsConvertWizard *self);
/* why the source cannot be converted, or NULL */
const char      *ts_convert_wizard_get_problem    (TsConvertWizard *self);
/* the finding rows of page 1, e.g. "Weights: 2 shards, 3.3 MB" */
char            *ts_convert_wizard_dup_findings   (TsConvertWizard *self);
TsConversionPlan *ts_convert_wizard_get_plan      (TsConvertWizard *self);
/* 0 until computed */
guint64          ts_convert_wizard_get_predicted_size (TsConvertWizard *self,
                                                       TsOutType        outtype);
TsOutType        ts_convert_wizard_get_outtype    (TsConvertWizard *self);
void             ts_convert_wizard_set_outtype    (TsConvertWizard *self,
                                                   TsOutType        outtype);
void             ts_convert_wizard_set_target     (TsConvertWizard *self,
                                                   GFile           *target);
void             ts_convert_wizard_set_target_text (TsConvertWizard *self,
                                                    const char      *text);
GFile           *ts_convert_wizard_get_target     (TsConvertWizard *self);
const char      *ts_convert_wizard_get_target_message (TsConvertWizard *self);
TsLayout        *ts_convert_wizard_get_preview_layout (TsConvertWizard *self);
/* @field: "name", "finetune", "size-label" or "license" */
void             ts_convert_wizard_set_naming     (TsConvertWizard *self,
                                                   const char      *field,
                                                   const char      *value);
const char      *ts_convert_wizard_get_naming     (TsConvertWizard *self,
                                                   const char      *field);
/* page 4: "running", "done", "cancelled" or "failed" */
const char      *ts_convert_wizard_get_convert_state (TsConvertWizard *self);
const char      *ts_convert_wizard_get_error_message (TsConvertWizard *self);
/* (nullable): while converting */
TsConverter     *ts_convert_wizard_get_converter  (TsConvertWizard *self);
void             ts_convert_wizard_cancel_conversion (TsConvertWizard *self);
void             ts_convert_wizard_stop_audit        (TsConvertWizard *self);
/* page 5: "running", "result" or "error" */
const char      *ts_convert_wizard_get_verify_state (TsConvertWizard *self);
TsAuditPane     *ts_convert_wizard_get_audit_pane (TsConvertWizard *self);

G_END_DECLS
