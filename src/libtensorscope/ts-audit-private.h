/* ts-audit-private.h: what the audit's pieces share
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ts-arch.h"
#include "ts-audit.h"
#include "ts-gguf-file.h"

G_BEGIN_DECLS

#define TS_AUDIT_NO_INDEX G_MAXUINT64

/* A decoded tensor fails when the error of a row is as large as its
 * values: zeros would be as close, and every type decoded can write zeros
 * (a block scale of 0), so no quantizer that rounds to the nearest level
 * is so far from it. Row by row, so that rows zeroed or taken from
 * another tensor do not hide among good ones.
 *
 * Except a row whose values are all below TS_AUDIT_BELOW_RESOLUTION times
 * the type's resolution (_ts_dequantize_resolution()): its block scales
 * are a few units of their last place, rounded by up to half of one, or
 * round to 0, and the nearest levels of a quantizer may decode as far from
 * the values as zeros, or farther. Such a row passes when every decoded
 * value is within TS_AUDIT_RESOLUTION_MAX_ERROR times the resolution of
 * the source's. */
#define TS_AUDIT_DECODED_MAX_ERROR 1.0
#define TS_AUDIT_BELOW_RESOLUTION 8.0
#define TS_AUDIT_RESOLUTION_MAX_ERROR 16.0

typedef enum
{
  TS_AUDIT_COMPARISON_NONE,
  TS_AUDIT_COMPARISON_BYTES,    /* same type: bytes equal */
  TS_AUDIT_COMPARISON_ENCODED,  /* the source encoded as the target type */
  TS_AUDIT_COMPARISON_DECODED,  /* the target decoded, error measured */
} TsAuditComparison;

struct _TsAuditPair
{
  GObject        parent_instance;

  GStrv          source_names;
  char          *target_name;
  char          *transform;
  char          *detail;
  char          *source_dtype;
  char          *target_dtype;
  TsAuditStatus  status;
  gboolean       lossy;
  guint64        n_values;
  guint64        n_mismatch;
  guint64        n_changed;
  double         max_abs_error;
  double         max_rel_error;
  double         rms_error;           /* lossy pairs, over the finite values */
  double         relative_rms_error;  /* rms_error / RMS of the source */
  double         worst_row_error;     /* the largest relative RMS error of a row */
  guint64        worst_row;           /* its row (source coordinates) */
  guint64        rows_below_resolution; /* rows as far as zeros or farther,
                                         * below the type's resolution and
                                         * within it: not in worst_row */
  TsAuditComparison comparison;

  /* first mismatch, source coordinates */
  guint64        first_index;
  guint64        first_row;
  guint64        first_col;
  double         first_source;
  double         first_expected;
  double         first_actual;
  guint64        first_expected_bits;
  guint64        first_actual_bits;
  guint          bits_width;          /* 0: no bit patterns to show */
};

TsAuditPair    *_ts_audit_pair_new       (const char     *source_name,
                                          const char     *target_name);
void            _ts_audit_pair_set_detail (TsAuditPair   *pair,
                                          TsAuditStatus   status,
                                          const char     *format,
                                          ...) G_GNUC_PRINTF (3, 4);

TsAuditReport  *_ts_audit_report_new     (TsAuditMode     mode,
                                          TsModelFile    *source,
                                          TsModelFile    *target);
void            _ts_audit_report_add_check (TsAuditReport *self,
                                          const char     *name,
                                          TsAuditStatus   status,
                                          const char     *format,
                                          ...) G_GNUC_PRINTF (4, 5);
void            _ts_audit_report_add_pair (TsAuditReport *self,
                                          TsAuditPair    *pair);
void            _ts_audit_report_add_size_row (TsAuditReport *self,
                                          TsAuditArea     area,
                                          const char     *section,
                                          guint64         source_bytes,
                                          guint64         target_bytes,
                                          const char     *explanation);
void            _ts_audit_report_set_timing (TsAuditReport *self,
                                          double          elapsed,
                                          guint64         bytes_read);

/* digits grouped with commas, whatever the locale ("+350,208") */
char           *_ts_audit_format_count   (guint64         value);
char           *_ts_audit_format_delta   (gint64          value);

/* ts-audit-compare.c: the value comparison */
typedef struct _TsCompareJob TsCompareJob;

typedef void (*TsCompareProgress) (gpointer    user_data,
                                   guint64     bytes_done,
                                   const char *tensor);

/* The side's type that keeps a pair from being compared because the
 * audit does not decode it (a block type such as Q8_K); UNKNOWN if the
 * pair can be compared, or cannot for another reason */
TsDType         _ts_compare_undecodable_type (TsDType     sdt,
                                          TsDType         tdt);
/* NULL (and @detail set) if the pair cannot be compared value by value */
TsCompareJob   *_ts_compare_job_new      (TsAuditPair    *pair,
                                          TsTensor       *source,
                                          TsTensor       *target,
                                          guint           permute_heads,
                                          char          **detail);
void            _ts_compare_job_free     (TsCompareJob   *job);
guint64         _ts_compare_job_get_bytes (TsCompareJob  *job);
/* compares all jobs on @n_jobs threads (the caller's included); the
 * results land in each job's pair */
gboolean        _ts_compare_run          (GPtrArray      *jobs,
                                          guint           n_jobs,
                                          TsCompareProgress progress,
                                          gpointer        progress_data,
                                          GCancellable   *cancellable,
                                          GError        **error);
/* After a mismatch: do the target values equal @source's under another
 * transform? (@permute_heads 0: no permutation; @pre_round_bf16: source
 * rounded to BF16 first) */
gboolean        _ts_compare_job_matches_variant (TsCompareJob *job,
                                          TsTensor       *source,
                                          guint           permute_heads,
                                          gboolean        pre_round_bf16);
guint64         _ts_compare_job_get_n_rows (TsCompareJob *job);
TsTensor       *_ts_compare_job_get_source (TsCompareJob *job);
TsTensor       *_ts_compare_job_get_target (TsCompareJob *job);
guint           _ts_compare_job_get_permute_heads (TsCompareJob *job);
/* TRUE if the target is only decoded (TS_AUDIT_COMPARISON_DECODED) */
gboolean        _ts_compare_job_is_decoded (TsCompareJob *job);
/* a decoded target's relative RMS error against @source under another
 * permutation (0: none), over its first @max_rows rows (the caller makes
 * them whole heads, the same rows for every variant); NAN if they cannot
 * be compared */
double          _ts_compare_job_variant_error (TsCompareJob *job,
                                          TsTensor       *source,
                                          guint           permute_heads,
                                          guint64         max_rows);

/* ts-audit-metadata.c: what config.json and the tokenizer files say */
void            _ts_audit_check_metadata (TsAuditReport  *report,
                                          GFile          *dir,
                                          const TsHfConfig *config,
                                          const TsArch   *arch,
                                          TsModelFile    *target);
void            _ts_audit_compare_metadata (TsAuditReport *report,
                                          TsModelFile    *source,
                                          TsModelFile    *target);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TsCompareJob, _ts_compare_job_free)

G_END_DECLS
