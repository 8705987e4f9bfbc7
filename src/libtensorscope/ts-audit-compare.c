/* ts-audit-compare.c: value-by-value comparison, straight from the mappings
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Each pair is compared row by row: the source row (through the Q/K
 * permutation, by index, never by copy) is widened to float32 and encoded
 * the way the output type promises, and the encoding must equal the
 * target's bytes. Rows are cut into chunks that worker threads take from
 * a shared counter; each chunk's pages are released once compared, so the
 * resident set stays small however large the files are.
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ts-audit-private.h"
#include "ts-dequant-private.h"
#include "ts-le-private.h"
#include "ts-test-hook-private.h"

#define CHUNK_BYTES (4u << 20)
#define PREFETCH_CHUNKS 4

typedef enum
{
  KIND_ENCODE,   /* widen the source, encode as the target type */
  KIND_BYTES,    /* same type on both sides: bytes must be equal */
  KIND_DECODE,   /* a type the audit decodes but cannot re-derive (a
                  * K-quant, say: its rounding is the quantizer's choice):
                  * the decoded values are measured against the source */
} CompareKind;

typedef struct
{
  guint64 n_mismatch;
  guint64 n_changed;
  double  max_abs;
  double  max_rel;
  double  sum_sq_error;   /* over the values finite on both sides */
  double  sum_sq_source;
  guint64 n_finite;
  double  worst_row_error;   /* the largest relative RMS error of a row */
  guint64 worst_row;         /* its row, in source coordinates */
  guint64 n_below_resolution;   /* rows passed on their absolute error */
  guint64 first_index;
  guint64 first_row;
  guint64 first_col;
  double  first_source;
  double  first_expected;
  double  first_actual;
  guint64 first_expected_bits;
  guint64 first_actual_bits;
} Tally;

struct _TsCompareJob
{
  TsAuditPair  *pair;
  TsTensor     *source;
  TsTensor     *target;
  CompareKind   kind;
  TsDType       sdt;
  TsDType       tdt;
  const guint8 *sdata;
  const guint8 *tdata;
  guint64       n_rows;
  guint64       cols;
  guint64       rows_per_head;   /* 0: no permutation */
  guint         permute_heads;
  gsize         s_row_bytes;
  gsize         t_row_bytes;
  guint         unit_elems;      /* elements per comparison unit (block size) */
  guint         unit_bytes;      /* bytes per unit in the target */
  double        resolution;      /* KIND_DECODE: the target type's */
  gboolean      lossy;
  Tally         tally;
};

typedef struct
{
  float  *src;
  float  *act;
  float  *exp_values;
  guint8 *expected;
} Scratch;

static void
tally_init (Tally *t)
{
  memset (t, 0, sizeof *t);
  t->first_index = TS_AUDIT_NO_INDEX;
  t->worst_row = TS_AUDIT_NO_INDEX;
}

static gboolean
is_encodable (TsDType dtype)
{
  return dtype == TS_DTYPE_F32 || dtype == TS_DTYPE_F16 ||
         dtype == TS_DTYPE_BF16 || dtype == TS_DTYPE_Q8_0;
}

/* Types that hold every value of the source type exactly. */
static gboolean
is_exact (TsDType sdt,
          TsDType tdt)
{
  /* every decoded block value is a float32 */
  if (tdt == TS_DTYPE_F32)
    return sdt == TS_DTYPE_F32 || sdt == TS_DTYPE_F16 || sdt == TS_DTYPE_BF16 ||
           _ts_dequantize_supported (sdt);
  return (tdt == TS_DTYPE_F16 || tdt == TS_DTYPE_BF16) && sdt == tdt;
}

/* Decodes @n elements (whole blocks) of @dtype; FALSE if it cannot. */
static gboolean
decode (TsDType       dtype,
        const guint8 *in,
        float        *out,
        gsize         n)
{
  if (_ts_dequantize_supported (dtype))
    return _ts_dequantize (dtype, in, out, n);
  return ts_dtype_read_f32 (dtype, in, out, n);
}

/* sqrt (sum_sq_error / sum_sq_source): the RMS error over the RMS of the
 * source values */
static double
relative_rms (double sum_sq_error,
              double sum_sq_source)
{
  if (sum_sq_source > 0)
    return sqrt (sum_sq_error / sum_sq_source);
  return sum_sq_error > 0 ? INFINITY : 0;
}

static gboolean
is_decodable (TsDType dtype)
{
  return ts_dtype_is_float (dtype) || _ts_dequantize_supported (dtype);
}

/* ------------------------------------------------------------ job set-up */

static gboolean
job_set_rows (TsCompareJob  *job,
              char         **detail)
{
  guint64 dims[TS_MAX_DIMS];
  guint n_dims = ts_tensor_get_n_dims (job->target);
  guint64 n = ts_tensor_get_n_elements (job->target);

  ts_tensor_get_row_major_shape (job->target, dims);
  job->cols = n_dims > 0 ? dims[n_dims - 1] : 1;
  if (job->permute_heads > 0 && n_dims == 1)
    job->cols = 1;  /* a permuted bias: each element is a row */
  job->n_rows = job->cols > 0 ? n / job->cols : 0;
  if (job->permute_heads > 0 && job->n_rows > 0)
    {
      if (job->n_rows % job->permute_heads != 0 ||
          (job->n_rows / job->permute_heads) % 2 != 0)
        {
          *detail = g_strdup_printf (_("%" PRIu64 " rows cannot be split into %u heads "
                                       "of an even number of rows"), job->n_rows, job->permute_heads);
          return FALSE;
        }
      job->rows_per_head = job->n_rows / job->permute_heads;
    }
  return TRUE;
}

/* How values of @sdt are held to @tdt; FALSE if the audit cannot. */
static gboolean
choose_kind (TsDType      sdt,
             TsDType      tdt,
             CompareKind *kind)
{
  /* a quantized source is decoded and encoded again, unless its type is
   * the target's: re-quantizing decoded blocks need not give their bytes */
  if (ts_dtype_is_float (sdt) && is_encodable (tdt))
    *kind = KIND_ENCODE;
  else if (sdt == tdt && sdt != TS_DTYPE_UNKNOWN)
    *kind = KIND_BYTES;
  else if (is_decodable (sdt) && is_encodable (tdt))
    *kind = KIND_ENCODE;
  else if (is_decodable (sdt) && _ts_dequantize_supported (tdt))
    *kind = KIND_DECODE;
  else
    return FALSE;
  return TRUE;
}

/* A block type the audit does not decode (Q8_K, say) */
static gboolean
is_undecodable_block (TsDType dtype)
{
  const TsDTypeInfo *info = ts_dtype_get_info (dtype);

  return info != NULL && info->block_size > 1 && !is_decodable (dtype);
}

TsDType
_ts_compare_undecodable_type (TsDType sdt,
                              TsDType tdt)
{
  CompareKind kind;

  if (choose_kind (sdt, tdt, &kind))
    return TS_DTYPE_UNKNOWN;
  if (is_undecodable_block (sdt))
    return sdt;
  if (is_undecodable_block (tdt))
    return tdt;
  return TS_DTYPE_UNKNOWN;
}

static gboolean
job_set_kind (TsCompareJob  *job,
              char         **detail)
{
  const TsDTypeInfo *info = ts_dtype_get_info (job->tdt);

  if (!choose_kind (job->sdt, job->tdt, &job->kind))
    {
      *detail = g_strdup_printf (_("cannot compare %s values with %s values"),
                                 ts_dtype_get_name (job->sdt), ts_dtype_get_name (job->tdt));
      return FALSE;
    }
  job->unit_elems = info->block_size;
  job->unit_bytes = info->type_size;
  if (job->cols % job->unit_elems != 0)
    {
      *detail = g_strdup_printf (_("rows of %" PRIu64 " values are not whole %s blocks"),
                                 job->cols, ts_dtype_get_name (job->tdt));
      return FALSE;
    }
  job->lossy = job->kind == KIND_DECODE ||
               (job->kind == KIND_ENCODE && !is_exact (job->sdt, job->tdt));
  if (job->kind == KIND_DECODE)
    job->resolution = _ts_dequantize_resolution (job->tdt);
  return TRUE;
}

static gboolean
job_set_row_bytes (TsCompareJob  *job,
                   char         **detail)
{
  guint64 ssize = ts_tensor_get_size (job->source);
  guint64 tsize = ts_tensor_get_size (job->target);
  const TsDTypeInfo *sinfo = ts_dtype_get_info (job->sdt);

  if (job->n_rows == 0)
    return TRUE;
  job->s_row_bytes = ssize / job->n_rows;
  job->t_row_bytes = tsize / job->n_rows;
  if (ssize % job->n_rows != 0 || tsize % job->n_rows != 0 ||
      job->t_row_bytes != job->cols / job->unit_elems * job->unit_bytes ||
      job->s_row_bytes != job->cols / sinfo->block_size * sinfo->type_size)
    {
      *detail = g_strdup ("byte sizes do not agree with the shapes");
      return FALSE;
    }
  return TRUE;
}

TsCompareJob *
_ts_compare_job_new (TsAuditPair  *pair,
                     TsTensor     *source,
                     TsTensor     *target,
                     guint         permute_heads,
                     char        **detail)
{
  g_autoptr(TsCompareJob) job = g_new0 (TsCompareJob, 1);

  job->pair = pair ? g_object_ref (pair) : NULL;
  job->source = g_object_ref (source);
  job->target = g_object_ref (target);
  job->sdt = ts_tensor_get_dtype (source);
  job->tdt = ts_tensor_get_dtype (target);
  job->sdata = ts_tensor_get_data (source);
  job->tdata = ts_tensor_get_data (target);
  job->permute_heads = permute_heads;
  tally_init (&job->tally);

  if (ts_tensor_get_n_elements (source) != ts_tensor_get_n_elements (target))
    {
      *detail = g_strdup ("element counts differ");
      return NULL;
    }
  if (!job_set_rows (job, detail) || !job_set_kind (job, detail) ||
      !job_set_row_bytes (job, detail))
    return NULL;
  if (pair != NULL)
    {
      pair->n_values = ts_tensor_get_n_elements (target);
      pair->lossy = job->lossy;
      pair->comparison = job->kind == KIND_BYTES ? TS_AUDIT_COMPARISON_BYTES
                       : job->kind == KIND_DECODE ? TS_AUDIT_COMPARISON_DECODED
                       : TS_AUDIT_COMPARISON_ENCODED;
    }
  return g_steal_pointer (&job);
}

void
_ts_compare_job_free (TsCompareJob *job)
{
  if (job == NULL)
    return;
  g_clear_object (&job->pair);
  g_clear_object (&job->source);
  g_clear_object (&job->target);
  g_free (job);
}

guint64
_ts_compare_job_get_bytes (TsCompareJob *job)
{
  return job->n_rows * (job->s_row_bytes + job->t_row_bytes);
}

guint64
_ts_compare_job_get_n_rows (TsCompareJob *job)
{
  return job->n_rows;
}

TsTensor *
_ts_compare_job_get_source (TsCompareJob *job)
{
  return job->source;
}

TsTensor *
_ts_compare_job_get_target (TsCompareJob *job)
{
  return job->target;
}

guint
_ts_compare_job_get_permute_heads (TsCompareJob *job)
{
  return job->permute_heads;
}

gboolean
_ts_compare_job_is_decoded (TsCompareJob *job)
{
  return job->kind == KIND_DECODE;
}

/* ---------------------------------------------------------- row compare */

static inline guint64
source_row (TsCompareJob *job,
            guint64       row)
{
  return job->rows_per_head ? ts_permuted_source_row (row, job->rows_per_head) : row;
}

/* The common conversions, exactly as ts_f32_to_bf16 (ts_bf16_to_f32 (h))
 * and the F32 widening compute them, without a call per element: a
 * BF16 value comes back as itself, a signalling NaN with the quiet bit. */
static gboolean
fast_row_equal (TsCompareJob *job,
                const guint8 *sp,
                const guint8 *tp)
{
  guint32 diff = 0;

  if (job->sdt == job->tdt && job->sdt != TS_DTYPE_BF16)
    return memcmp (sp, tp, job->t_row_bytes) == 0;
  if (job->sdt != TS_DTYPE_BF16)
    return FALSE;
  if (job->tdt == TS_DTYPE_BF16)
    for (gsize i = 0; i < job->cols; i++)
      {
        guint16 h = ts_le_u16 (sp + 2 * i);
        guint16 q = (h & 0x7fffu) > 0x7f80u ? (guint16) (h | 0x40u) : h;

        diff |= (guint32) (q ^ ts_le_u16 (tp + 2 * i));
      }
  else if (job->tdt == TS_DTYPE_F32)
    for (gsize i = 0; i < job->cols; i++)
      diff |= ((guint32) ts_le_u16 (sp + 2 * i) << 16) ^ ts_le_u32 (tp + 4 * i);
  else
    return FALSE;
  return diff == 0;
}

static guint64
unit_bits (TsDType       dtype,
           const guint8 *p)
{
  switch (ts_dtype_get_info (dtype)->type_size)
    {
    case 1:
      return p[0];
    case 2:
      return ts_le_u16 (p);
    case 4:
      return ts_le_u32 (p);
    case 8:
      {
        guint64 v;

        memcpy (&v, p, 8);
        return GUINT64_FROM_LE (v);
      }
    default:
      return 0;
    }
}

static void
record_first (TsCompareJob *job,
              Tally        *t,
              guint64       srow,
              guint64       col,
              double        source_value,
              double        expected_value,
              double        actual_value,
              const guint8 *exp_unit,
              const guint8 *act_unit)
{
  guint64 index = srow * job->cols + col;

  if (index >= t->first_index)
    return;
  t->first_index = index;
  t->first_row = srow;
  t->first_col = col;
  t->first_source = source_value;
  t->first_expected = expected_value;
  t->first_actual = actual_value;
  t->first_expected_bits = exp_unit ? unit_bits (job->tdt, exp_unit) : 0;
  t->first_actual_bits = act_unit ? unit_bits (job->tdt, act_unit) : 0;
}

/* One unit (an element, or a block) differs: count its differing values
 * and remember the first. */
static void
scan_unit (TsCompareJob *job,
           Scratch      *s,
           Tally        *t,
           guint64       srow,
           guint64       u,
           const guint8 *exp_unit,
           const guint8 *act_unit)
{
  guint n = job->unit_elems;
  float *e = s->exp_values, *a = s->act;
  gboolean decodable = decode (job->tdt, exp_unit, e, n) && decode (job->tdt, act_unit, a, n);
  guint counted = 0;

  for (guint i = 0; i < n; i++)
    {
      guint64 col = u * n + i;
      double src;

      if (decodable && ts_f32_bits (e[i]) == ts_f32_bits (a[i]) && n > 1)
        continue;
      src = job->kind == KIND_ENCODE ? s->src[col] : (decodable ? e[i] : NAN);
      record_first (job, t, srow, col, src, decodable ? e[i] : NAN, decodable ? a[i] : NAN,
                    exp_unit, act_unit);
      counted++;
      if (!decodable)
        break;
    }
  /* a block whose values decode equal but whose bytes differ still differs */
  t->n_mismatch += counted > 0 ? (decodable ? counted : n) : 1;
  if (counted == 0)
    record_first (job, t, srow, u * n, NAN, NAN, NAN, exp_unit, act_unit);
}

static void
scan_row (TsCompareJob *job,
          Scratch      *s,
          Tally        *t,
          guint64       srow,
          const guint8 *expected,
          const guint8 *tp)
{
  guint64 n_units = job->cols / job->unit_elems;

  for (guint64 u = 0; u < n_units; u++)
    {
      const guint8 *e = expected + u * job->unit_bytes;
      const guint8 *a = tp + u * job->unit_bytes;

      if (memcmp (e, a, job->unit_bytes) != 0)
        scan_unit (job, s, t, srow, u, e, a);
    }
}

/* Remembers the row with the largest error (the first of equal ones) */
static void
worst_row (Tally   *t,
           guint64  row,
           double   error)
{
  if (t->worst_row == TS_AUDIT_NO_INDEX || error > t->worst_row_error ||
      (error == t->worst_row_error && row < t->worst_row))
    {
      t->worst_row_error = error;
      t->worst_row = row;
    }
}

/* A value not finite on one side (the rare path of tally_errors(), whose
 * running maxima are @max_abs and @max_rel). A decoded value that is not
 * finite where the source's is counts as a mismatch: no quantizer makes
 * one of a finite value (a NaN or infinite block scale does). */
static void
tally_not_finite (TsCompareJob *job,
                  Tally        *t,
                  guint64       srow,
                  gsize         col,
                  double        x,
                  double        a,
                  double       *max_abs,
                  double       *max_rel)
{
  if (isfinite (x) && job->kind == KIND_DECODE)
    {
      t->n_mismatch++;
      record_first (job, t, srow, col, x, NAN, a, NULL, NULL);
    }
  if ((isnan (x) && isnan (a)) || x == a)
    return;
  t->n_changed++;
  if (isnan (x) || isnan (a))
    return;
  *max_abs = MAX (*max_abs, fabs (a - x));
  *max_rel = MAX (*max_rel, x != 0 ? fabs (a - x) / fabs (x) : INFINITY);
}

/* A decoded row as far from the source as zeros, or farther, that is
 * below the type's resolution and within it (TS_AUDIT_BELOW_RESOLUTION) */
static gboolean
below_resolution (TsCompareJob *job,
                  Scratch      *s)
{
  double below = TS_AUDIT_BELOW_RESOLUTION * job->resolution;
  double within = TS_AUDIT_RESOLUTION_MAX_ERROR * job->resolution;

  for (gsize i = 0; i < job->cols; i++)
    {
      double x = s->src[i], a = s->act[i];

      if (!(fabs (x) < below && fabs (a - x) <= within))
        return FALSE;
    }
  return TRUE;
}

/* One pair of finite values: into the sums of squares (accumulators E
 * and S), and the maxima where it changed. Division only where the
 * quotient may be a new maximum: the product is rounded by at most 2^-53,
 * the bound is looser. */
#define TALLY_FINITE(x, a, E, S)                                         \
  G_STMT_START {                                                         \
    double d_ = (a) - (x);                                               \
                                                                         \
    E += d_ * d_;                                                        \
    S += (x) * (x);                                                      \
    if (d_ != 0)                                                         \
      {                                                                  \
        n_changed++;                                                     \
        max_abs = MAX (max_abs, fabs (d_));                              \
        if ((x) == 0)                                                    \
          max_rel = INFINITY;                                            \
        else if (fabs (d_) >= max_rel * fabs (x) * (1 - 0x1p-50))        \
          max_rel = MAX (max_rel, fabs (d_) / fabs (x));                 \
      }                                                                  \
  } G_STMT_END

/* The statistics of a lossy row: values changed, max abs and relative
 * error, and the sums of squares over the values finite on both sides
 * (two of each, alternating, so that the additions need not wait for
 * each other). */
static void
tally_errors (TsCompareJob *job,
              Scratch      *s,
              Tally        *t,
              guint64       srow,
              const guint8 *tp)
{
  double e0 = 0, e1 = 0, s0 = 0, s1 = 0;
  double max_abs = t->max_abs, max_rel = t->max_rel;
  double row_error;
  guint64 n_changed = 0, n_finite = 0;

  decode (job->tdt, tp, s->act, job->cols);
  for (gsize i = 0; i < job->cols; i++)
    {
      double x = s->src[i], a = s->act[i];

      if (G_UNLIKELY (!isfinite (x) || !isfinite (a)))
        {
          tally_not_finite (job, t, srow, i, x, a, &max_abs, &max_rel);
          continue;
        }
      n_finite++;
      if (i & 1)
        TALLY_FINITE (x, a, e1, s1);
      else
        TALLY_FINITE (x, a, e0, s0);
    }
  t->max_abs = max_abs;
  t->max_rel = max_rel;
  t->n_changed += n_changed;
  t->n_finite += n_finite;
  t->sum_sq_error += e0 + e1;
  t->sum_sq_source += s0 + s1;
  row_error = relative_rms (e0 + e1, s0 + s1);
  if (G_UNLIKELY (!(row_error < TS_AUDIT_DECODED_MAX_ERROR)) && job->kind == KIND_DECODE &&
      below_resolution (job, s))
    t->n_below_resolution++;
  else
    worst_row (t, srow, row_error);
}

/* Builds the expected encoding of target row @row; NULL if the fast path
 * already proved it equal. */
static const guint8 *
expected_row (TsCompareJob *job,
              Scratch      *s,
              guint64       srow,
              const guint8 *tp,
              gboolean      pre_round_bf16)
{
  const guint8 *sp = job->sdata + srow * job->s_row_bytes;

  if (job->kind == KIND_BYTES)
    return memcmp (sp, tp, job->t_row_bytes) == 0 ? NULL : sp;
  if (!job->lossy && !pre_round_bf16 && fast_row_equal (job, sp, tp))
    return NULL;
  decode (job->sdt, sp, s->src, job->cols);
  if (pre_round_bf16)
    for (gsize i = 0; i < job->cols; i++)
      s->src[i] = ts_bf16_to_f32 (ts_f32_to_bf16 (s->src[i]));
  if (!ts_dtype_write_f32 (job->tdt, s->src, s->expected, job->cols))
    g_assert_not_reached ();
  return s->expected;
}

static void
compare_row (TsCompareJob *job,
             Scratch      *s,
             Tally        *t,
             guint64       row)
{
  guint64 srow = source_row (job, row);
  const guint8 *tp = job->tdata + row * job->t_row_bytes;
  const guint8 *expected;

  if (job->kind == KIND_DECODE)
    {
      decode (job->sdt, job->sdata + srow * job->s_row_bytes, s->src, job->cols);
      tally_errors (job, s, t, srow, tp);
      return;
    }
  expected = expected_row (job, s, srow, tp, FALSE);
  if (expected == NULL)
    return;
  if (memcmp (expected, tp, job->t_row_bytes) != 0)
    scan_row (job, s, t, srow, expected, tp);
  if (job->lossy)
    tally_errors (job, s, t, srow, tp);
}

static void
scratch_init (Scratch *s,
              gsize    max_cols)
{
  gsize n = MAX (max_cols, 256);

  s->src = g_new (float, n);
  s->act = g_new (float, n);
  s->exp_values = g_new (float, n);
  s->expected = g_malloc (n * 8);
}

static void
scratch_clear (Scratch *s)
{
  g_free (s->src);
  g_free (s->act);
  g_free (s->exp_values);
  g_free (s->expected);
}

/* ------------------------------------------------------------- variants */

gboolean
_ts_compare_job_matches_variant (TsCompareJob *job,
                                 TsTensor     *source,
                                 guint         permute_heads,
                                 gboolean      pre_round_bf16)
{
  g_autofree char *detail = NULL;
  g_autoptr(TsCompareJob) variant = _ts_compare_job_new (NULL, source, job->target,
                                                         permute_heads, &detail);
  Scratch s;
  gboolean equal = TRUE;

  if (variant == NULL || variant->kind == KIND_DECODE ||
      (pre_round_bf16 && variant->kind != KIND_ENCODE))
    return FALSE;
  scratch_init (&s, variant->cols);
  for (guint64 row = 0; row < variant->n_rows && equal; row++)
    {
      guint64 srow = source_row (variant, row);
      const guint8 *tp = variant->tdata + row * variant->t_row_bytes;
      const guint8 *expected = expected_row (variant, &s, srow, tp, pre_round_bf16);

      equal = expected == NULL || memcmp (expected, tp, variant->t_row_bytes) == 0;
    }
  scratch_clear (&s);
  return equal;
}

/* The relative RMS error of a decoded target against @source under
 * another transform (@permute_heads 0: no permutation), over its first
 * @max_rows rows; NAN if the pair cannot be compared so. */
double
_ts_compare_job_variant_error (TsCompareJob *job,
                               TsTensor     *source,
                               guint         permute_heads,
                               guint64       max_rows)
{
  g_autofree char *detail = NULL;
  g_autoptr(TsCompareJob) variant = _ts_compare_job_new (NULL, source, job->target,
                                                         permute_heads, &detail);
  Scratch s;
  Tally t;

  if (variant == NULL || variant->kind != KIND_DECODE)
    return NAN;
  tally_init (&t);
  scratch_init (&s, variant->cols);
  for (guint64 row = 0; row < MIN (variant->n_rows, max_rows); row++)
    compare_row (variant, &s, &t, row);
  scratch_clear (&s);
  return relative_rms (t.sum_sq_error, t.sum_sq_source);
}

/* --------------------------------------------------------------- runner */

typedef struct
{
  TsCompareJob *job;
  guint64       row0;
  guint64       row1;
} Chunk;

typedef struct
{
  GArray            *chunks;
  gint               next;
  GMutex             lock;
  guint64            bytes_done;
  gsize              max_cols;
  long               page_size;
  guint              prefetch_ahead;  /* chunks: threads + PREFETCH_CHUNKS */
  gulong             chunk_delay_us;  /* test hook: a pause after each chunk */
  guint64            chunk_bytes;     /* CHUNK_BYTES, or smaller for the tests */
  TsCompareProgress  progress;
  gpointer           progress_data;
  GCancellable      *cancellable;
} Runner;

static void
add_chunks (Runner       *runner,
            TsCompareJob *job)
{
  guint64 row_bytes = job->s_row_bytes + job->t_row_bytes;
  guint64 step = MAX (1, runner->chunk_bytes / MAX (row_bytes, 1));

  /* a permuted tensor is cut at head boundaries, so a chunk's source
   * rows are the same range as its target rows */
  if (job->rows_per_head > 0)
    step = (step + job->rows_per_head - 1) / job->rows_per_head * job->rows_per_head;
  for (guint64 row = 0; row < job->n_rows; row += step)
    {
      Chunk c = { job, row, MIN (row + step, job->n_rows) };

      g_array_append_val (runner->chunks, c);
    }
  runner->max_cols = MAX (runner->max_cols, job->cols);
}

/* The compared pages are not needed again: drop them from our mapping (the
 * page cache keeps them), so the resident set stays small. */
static void
release_range (Runner       *runner,
               const guint8 *start,
               gsize         length)
{
#ifdef MADV_DONTNEED
  guintptr page = (guintptr) runner->page_size;
  guintptr begin = ((guintptr) start + page - 1) / page * page;
  guintptr end = ((guintptr) start + length) / page * page;

  if (end > begin)
    madvise ((void *) begin, end - begin, MADV_DONTNEED);
#endif
}

/* Ask the kernel to start reading a chunk that a worker will take a little
 * later: a file just written with O_DIRECT (the converter's) is not in the
 * page cache, and page faults alone keep only a shallow queue of reads in
 * flight. Each chunk is asked for once, by the worker that takes the chunk
 * prefetch_ahead before it (or at the start). */
static void
prefetch_range (Runner       *runner,
                const guint8 *start,
                gsize         length)
{
#ifdef MADV_WILLNEED
  guintptr page = (guintptr) runner->page_size;
  guintptr begin = (guintptr) start / page * page;

  madvise ((void *) begin, (guintptr) start + length - begin, MADV_WILLNEED);
#endif
}

static void
prefetch_chunk (Runner      *runner,
                const Chunk *c)
{
  TsCompareJob *job = c->job;
  guint64 rows = c->row1 - c->row0;

  prefetch_range (runner, job->sdata + c->row0 * job->s_row_bytes, rows * job->s_row_bytes);
  prefetch_range (runner, job->tdata + c->row0 * job->t_row_bytes, rows * job->t_row_bytes);
}

static void
tally_merge (Tally       *into,
             const Tally *from)
{
  into->n_mismatch += from->n_mismatch;
  into->n_changed += from->n_changed;
  into->max_abs = MAX (into->max_abs, from->max_abs);
  into->max_rel = MAX (into->max_rel, from->max_rel);
  into->sum_sq_error += from->sum_sq_error;
  into->sum_sq_source += from->sum_sq_source;
  into->n_finite += from->n_finite;
  into->n_below_resolution += from->n_below_resolution;
  if (from->worst_row != TS_AUDIT_NO_INDEX)
    worst_row (into, from->worst_row, from->worst_row_error);
  if (from->first_index < into->first_index)
    {
      Tally sums = *into;

      *into = *from;
      into->n_mismatch = sums.n_mismatch;
      into->n_changed = sums.n_changed;
      into->max_abs = sums.max_abs;
      into->max_rel = sums.max_rel;
      into->sum_sq_error = sums.sum_sq_error;
      into->sum_sq_source = sums.sum_sq_source;
      into->n_finite = sums.n_finite;
      into->worst_row_error = sums.worst_row_error;
      into->worst_row = sums.worst_row;
      into->n_below_resolution = sums.n_below_resolution;
    }
}

static void
finish_chunk (Runner      *runner,
              const Chunk *c,
              const Tally *local)
{
  TsCompareJob *job = c->job;
  guint64 rows = c->row1 - c->row0;

  g_mutex_lock (&runner->lock);
  tally_merge (&job->tally, local);
  runner->bytes_done += rows * (job->s_row_bytes + job->t_row_bytes);
  if (runner->progress)
    runner->progress (runner->progress_data, runner->bytes_done, ts_tensor_get_name (job->target));
  g_mutex_unlock (&runner->lock);

  release_range (runner, job->sdata + c->row0 * job->s_row_bytes, rows * job->s_row_bytes);
  release_range (runner, job->tdata + c->row0 * job->t_row_bytes, rows * job->t_row_bytes);
}

static gpointer
worker (gpointer data)
{
  Runner *runner = data;
  Scratch s;

  scratch_init (&s, runner->max_cols);
  for (;;)
    {
      guint i = (guint) g_atomic_int_add (&runner->next, 1);
      const Chunk *c;
      Tally local;

      if (i >= runner->chunks->len || g_cancellable_is_cancelled (runner->cancellable))
        break;
      c = &g_array_index (runner->chunks, Chunk, i);
      if (i + runner->prefetch_ahead < runner->chunks->len)
        prefetch_chunk (runner, &g_array_index (runner->chunks, Chunk, i + runner->prefetch_ahead));
      tally_init (&local);
      for (guint64 row = c->row0; row < c->row1; row++)
        compare_row (c->job, &s, &local, row);
      finish_chunk (runner, c, &local);
      if (runner->chunk_delay_us > 0)
        g_usleep (runner->chunk_delay_us);
    }
  scratch_clear (&s);
  return NULL;
}

static void
store_results (TsCompareJob *job)
{
  TsAuditPair *pair = job->pair;
  const Tally *t = &job->tally;

  if (pair == NULL)
    return;
  pair->n_mismatch = t->n_mismatch;
  pair->n_changed = t->n_changed;
  pair->max_abs_error = t->max_abs;
  pair->max_rel_error = t->max_rel;
  pair->rms_error = t->n_finite > 0 ? sqrt (t->sum_sq_error / (double) t->n_finite) : 0;
  pair->relative_rms_error = relative_rms (t->sum_sq_error, t->sum_sq_source);
  pair->worst_row_error = t->worst_row_error;
  pair->worst_row = t->worst_row;
  pair->rows_below_resolution = t->n_below_resolution;
  pair->first_index = t->first_index;
  pair->first_row = t->first_row;
  pair->first_col = t->first_col;
  pair->first_source = t->first_source;
  pair->first_expected = t->first_expected;
  pair->first_actual = t->first_actual;
  pair->first_expected_bits = t->first_expected_bits;
  pair->first_actual_bits = t->first_actual_bits;
  pair->bits_width = job->unit_elems == 1 && job->unit_bytes <= 8 ? job->unit_bytes * 8 : 0;
}

gboolean
_ts_compare_run (GPtrArray          *jobs,
                 guint               n_jobs,
                 TsCompareProgress   progress,
                 gpointer            progress_data,
                 GCancellable       *cancellable,
                 GError            **error)
{
  Runner runner = { 0 };
  g_autoptr(GPtrArray) threads = g_ptr_array_new ();

  runner.chunks = g_array_new (FALSE, FALSE, sizeof (Chunk));
  runner.page_size = sysconf (_SC_PAGESIZE);
  runner.progress = progress;
  runner.progress_data = progress_data;
  runner.cancellable = cancellable;
  /* for the UI tests: an audit slow enough to be closed while it runs */
  runner.chunk_delay_us = (gulong) _ts_test_hook ("TENSORSCOPE_TEST_AUDIT_CHUNK_DELAY_US", 0);
  /* for the tests: tensors cut into many chunks, whose tallies merge */
  runner.chunk_bytes = MAX (1, _ts_test_hook ("TENSORSCOPE_TEST_AUDIT_CHUNK_BYTES", CHUNK_BYTES));
  g_mutex_init (&runner.lock);
  for (guint i = 0; i < jobs->len; i++)
    add_chunks (&runner, g_ptr_array_index (jobs, i));

  /* the other workers hold the next chunks: ask PREFETCH_CHUNKS beyond
   * them, and for the first ones before anyone starts */
  runner.prefetch_ahead = MAX (n_jobs, 1) + PREFETCH_CHUNKS;
  for (guint i = 0; i < MIN (runner.prefetch_ahead, runner.chunks->len); i++)
    prefetch_chunk (&runner, &g_array_index (runner.chunks, Chunk, i));
  for (guint i = 1; i < MAX (n_jobs, 1); i++)
    g_ptr_array_add (threads, g_thread_new ("ts-audit", worker, &runner));
  worker (&runner);
  for (guint i = 0; i < threads->len; i++)
    g_thread_join (g_ptr_array_index (threads, i));

  g_mutex_clear (&runner.lock);
  g_array_unref (runner.chunks);
  for (guint i = 0; i < jobs->len; i++)
    store_results (g_ptr_array_index (jobs, i));
  return !g_cancellable_set_error_if_cancelled (cancellable, error);
}
