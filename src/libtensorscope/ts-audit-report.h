/* ts-audit-report.h: the result of an audit (SPEC §5)
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/**
 * TsAuditStatus:
 * @TS_AUDIT_PASS: the check holds
 * @TS_AUDIT_WARN: worth a look, but no learned value is lost
 * @TS_AUDIT_FAIL: the check does not hold
 */
typedef enum
{
  TS_AUDIT_PASS,
  TS_AUDIT_WARN,
  TS_AUDIT_FAIL,
} TsAuditStatus;

/**
 * TsAuditMode:
 * @TS_AUDIT_MODE_CONVERSION: a Hugging Face checkpoint against its GGUF conversion
 * @TS_AUDIT_MODE_GGUF: two GGUF files with the same tensor names
 * @TS_AUDIT_MODE_SAFETENSORS: two Safetensors checkpoints (e.g. re-sharded)
 */
typedef enum
{
  TS_AUDIT_MODE_CONVERSION,
  TS_AUDIT_MODE_GGUF,
  TS_AUDIT_MODE_SAFETENSORS,
} TsAuditMode;

/**
 * TsAuditArea:
 * @TS_AUDIT_AREA_BEFORE_DATA: headers, metadata, descriptors, padding
 * @TS_AUDIT_AREA_TENSOR_DATA: the tensor data sections
 * @TS_AUDIT_AREA_AFTER_DATA: bytes after the last tensor that belong to none
 */
typedef enum
{
  TS_AUDIT_AREA_BEFORE_DATA,
  TS_AUDIT_AREA_TENSOR_DATA,
  TS_AUDIT_AREA_AFTER_DATA,
} TsAuditArea;

#define TS_TYPE_AUDIT_STATUS (ts_audit_status_get_type ())
#define TS_TYPE_AUDIT_MODE   (ts_audit_mode_get_type ())
#define TS_TYPE_AUDIT_AREA   (ts_audit_area_get_type ())

GType        ts_audit_status_get_type (void) G_GNUC_CONST;
GType        ts_audit_mode_get_type   (void) G_GNUC_CONST;
GType        ts_audit_area_get_type   (void) G_GNUC_CONST;
const char  *ts_audit_status_to_nick  (TsAuditStatus status);
const char  *ts_audit_mode_to_nick    (TsAuditMode   mode);
const char  *ts_audit_area_to_nick    (TsAuditArea   area);

/* One named check: tensor mapping, shapes, values, one metadata key, … */
#define TS_TYPE_AUDIT_CHECK (ts_audit_check_get_type ())

G_DECLARE_FINAL_TYPE (TsAuditCheck, ts_audit_check, TS, AUDIT_CHECK, GObject)

const char    *ts_audit_check_get_name   (TsAuditCheck *self);
TsAuditStatus  ts_audit_check_get_status (TsAuditCheck *self);
const char    *ts_audit_check_get_detail (TsAuditCheck *self);

/* One source tensor (or none, for generated and extra ones) and its
 * counterpart in the target (or none, for missing and dropped ones). */
#define TS_TYPE_AUDIT_PAIR (ts_audit_pair_get_type ())

G_DECLARE_FINAL_TYPE (TsAuditPair, ts_audit_pair, TS, AUDIT_PAIR, GObject)

/* NULL-terminated, empty for generated and extra tensors */
const char * const *ts_audit_pair_get_source_names (TsAuditPair *self);
/* NULL for missing and dropped tensors */
const char    *ts_audit_pair_get_target_name    (TsAuditPair *self);
/* e.g. "BF16→F32", "permute-q(24 heads), BF16→BF16", "generated", "dropped" */
const char    *ts_audit_pair_get_transform      (TsAuditPair *self);
TsAuditStatus  ts_audit_pair_get_status         (TsAuditPair *self);
/* one sentence saying what is wrong (or right), and why */
const char    *ts_audit_pair_get_detail         (TsAuditPair *self);
const char    *ts_audit_pair_get_source_dtype   (TsAuditPair *self);
const char    *ts_audit_pair_get_target_dtype   (TsAuditPair *self);
/* values compared (0 if the pair was not compared) */
guint64        ts_audit_pair_get_n_values       (TsAuditPair *self);
/* values whose bytes differ from the expected encoding */
guint64        ts_audit_pair_get_n_mismatch     (TsAuditPair *self);
/* first mismatch, in source coordinates (flat row-major index); FALSE if none */
gboolean       ts_audit_pair_get_first_mismatch (TsAuditPair *self,
                                                 guint64     *index,
                                                 double      *source_value,
                                                 double      *expected_value,
                                                 double      *actual_value);
/* the first mismatch in words, as the text report prints it (in the UI's
 * language): "first mismatch at source index 500 [1, 244]: source
 * -0.00303649902, expected -0.00303649902, found 3.38953139e+38 (0xbb47
 * vs 0x7f7f)"; NULL if none */
char          *ts_audit_pair_dup_first_mismatch_text (TsAuditPair *self);
/* the output type rounds (F16, Q8_0, BF16 from F32, …): error statistics
 * against the source values */
gboolean       ts_audit_pair_get_is_lossy       (TsAuditPair *self);
guint64        ts_audit_pair_get_n_changed      (TsAuditPair *self);
double         ts_audit_pair_get_max_abs_error  (TsAuditPair *self);
double         ts_audit_pair_get_max_rel_error  (TsAuditPair *self);

/* One row of the size reconciliation table. */
#define TS_TYPE_AUDIT_SIZE_ROW (ts_audit_size_row_get_type ())

G_DECLARE_FINAL_TYPE (TsAuditSizeRow, ts_audit_size_row, TS, AUDIT_SIZE_ROW, GObject)

TsAuditArea    ts_audit_size_row_get_area         (TsAuditSizeRow *self);
const char    *ts_audit_size_row_get_section      (TsAuditSizeRow *self);
/* the section's name (stable, in the JSON report) in the UI's language */
char          *ts_audit_size_row_dup_section_label (TsAuditSizeRow *self);
const char    *ts_audit_section_word              (const char     *word);
guint64        ts_audit_size_row_get_source_bytes (TsAuditSizeRow *self);
guint64        ts_audit_size_row_get_target_bytes (TsAuditSizeRow *self);
gint64         ts_audit_size_row_get_delta        (TsAuditSizeRow *self);
const char    *ts_audit_size_row_get_explanation  (TsAuditSizeRow *self);

#define TS_TYPE_AUDIT_REPORT (ts_audit_report_get_type ())

G_DECLARE_FINAL_TYPE (TsAuditReport, ts_audit_report, TS, AUDIT_REPORT, GObject)

TsAuditMode  ts_audit_report_get_mode         (TsAuditReport *self);
const char  *ts_audit_report_get_source_name  (TsAuditReport *self);
const char  *ts_audit_report_get_target_name  (TsAuditReport *self);
guint64      ts_audit_report_get_source_size  (TsAuditReport *self);
guint64      ts_audit_report_get_target_size  (TsAuditReport *self);
/* the files the target was read from: more than 1 for a split set */
guint        ts_audit_report_get_target_n_files (TsAuditReport *self);
/* GListModel of TsAuditCheck, TsAuditPair, TsAuditSizeRow */
GListModel  *ts_audit_report_get_checks       (TsAuditReport *self);
GListModel  *ts_audit_report_get_pairs        (TsAuditReport *self);
GListModel  *ts_audit_report_get_size_rows    (TsAuditReport *self);
/* TRUE when no check failed: every learned value is preserved as its
 * output type promises */
gboolean     ts_audit_report_get_passed       (TsAuditReport *self);
guint        ts_audit_report_get_n_decoded    (TsAuditReport *self);
/* wall time of the value comparison, in seconds */
double       ts_audit_report_get_elapsed      (TsAuditReport *self);
guint64      ts_audit_report_get_bytes_read   (TsAuditReport *self);

/* The JSON report documented in docs/audit-json.md */
JsonNode    *ts_audit_report_to_json          (TsAuditReport *self);
/* The same, written to @stream a tensor pair at a time */
gboolean     ts_audit_report_write_json       (TsAuditReport  *self,
                                               GOutputStream  *stream,
                                               GCancellable   *cancellable,
                                               GError        **error);
/* The human-readable report */
char        *ts_audit_report_to_text          (TsAuditReport *self);

G_END_DECLS
