/* ts-converter.h: executes a conversion plan
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "ts-conversion-plan.h"

G_BEGIN_DECLS

#define TS_TYPE_CONVERTER (ts_converter_get_type ())

G_DECLARE_FINAL_TYPE (TsConverter, ts_converter, TS, CONVERTER, GObject)

TsConverter *ts_converter_new               (TsConversionPlan    *plan);
/* worker threads; 0 (the default): three per processor, at most 24 */
void         ts_converter_set_jobs          (TsConverter         *self,
                                             guint                jobs);
/* Writes the plan's GGUF to @target. Nothing is left at @target (nor any
 * temporary file) unless it succeeds. */
gboolean     ts_converter_run               (TsConverter         *self,
                                             GFile               *target,
                                             gboolean             overwrite,
                                             GCancellable        *cancellable,
                                             GError             **error);
void         ts_converter_run_async         (TsConverter         *self,
                                             GFile               *target,
                                             gboolean             overwrite,
                                             GCancellable        *cancellable,
                                             GAsyncReadyCallback  callback,
                                             gpointer             user_data);
gboolean     ts_converter_run_finish        (TsConverter         *self,
                                             GAsyncResult        *result,
                                             GError             **error);

/* Progress, safe to read from any thread. The "progress" property is
 * notified on the main context that started the run, at most every 100 ms. */
guint64      ts_converter_get_bytes_done    (TsConverter         *self);
guint64      ts_converter_get_bytes_total   (TsConverter         *self);
double       ts_converter_get_fraction      (TsConverter         *self);
char        *ts_converter_dup_current_tensor (TsConverter        *self);

G_END_DECLS
