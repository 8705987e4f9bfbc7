/* ts-audit.h: prove that a conversion kept every learned value (SPEC §5)
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "ts-audit-report.h"
#include "ts-model-file.h"

G_BEGIN_DECLS

/**
 * TsAuditProgressFunc:
 * @fraction: 0.0 … 1.0 of the bytes to compare
 * @current_tensor: (nullable): the tensor being compared
 * @user_data: the options' @progress_data
 *
 * Called from a worker thread, never from two threads at once, at most
 * every ~100 ms and once more with 1.0 at the end.
 */
typedef void (*TsAuditProgressFunc) (double      fraction,
                                     const char *current_tensor,
                                     gpointer    user_data);

typedef struct
{
  /* worker threads comparing values; 0: one per processor */
  guint                n_jobs;
  TsAuditProgressFunc  progress;
  gpointer             progress_data;

  /*< private >*/
  gpointer             _reserved[4];
} TsAuditOptions;

void ts_audit_options_init (TsAuditOptions *options);

/**
 * TsAudit:
 *
 * A running audit. Its #TsAudit:fraction and #TsAudit:current-tensor
 * properties change in the main context that started it (throttled to
 * ~100 ms), so they can be bound to a progress bar.
 */
#define TS_TYPE_AUDIT (ts_audit_get_type ())

G_DECLARE_FINAL_TYPE (TsAudit, ts_audit, TS, AUDIT, GObject)

double         ts_audit_get_fraction        (TsAudit  *self);
/* thread-safe copy of the tensor being compared */
char          *ts_audit_dup_current_tensor  (TsAudit  *self);

/* Returns the (transfer none) audit object, which is also the source
 * object of the result, so callers may ref it to bind its progress. */
TsAudit       *ts_audit_run_async           (TsModelFile           *source,
                                             TsModelFile           *target,
                                             const TsAuditOptions  *options,
                                             GCancellable          *cancellable,
                                             GAsyncReadyCallback    callback,
                                             gpointer               user_data);
TsAuditReport *ts_audit_run_finish          (GAsyncResult          *result,
                                             GError               **error);
TsAuditReport *ts_audit_run                 (TsModelFile           *source,
                                             TsModelFile           *target,
                                             const TsAuditOptions  *options,
                                             GCancellable          *cancellable,
                                             GError               **error);

G_END_DECLS
