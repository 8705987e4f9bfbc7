/* ts-audit.c: prove that a conversion kept every learned value (SPEC §5)
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Tensors are matched by role (the architecture's name mapping), never by
 * position or file order, so a GGUF written by llama.cpp, with its own
 * tensor order, extra keys or another alignment, audits the same as ours.
 */

#include "config.h"

#include <inttypes.h>

#include <glib/gi18n-lib.h>

#include <string.h>

#include "ts-audit-private.h"
#include "ts-dequant-private.h"
#include "ts-model-file-private.h"
#include "ts-error.h"

#define PROGRESS_INTERVAL_US (100 * G_TIME_SPAN_MILLISECOND)
#define ROPE_FREQS_NAME "rope_freqs.weight"

struct _TsAudit
{
  GObject         parent_instance;

  GMutex          lock;
  double          fraction;
  char           *current;
  GMainContext   *context;        /* where properties are notified, or NULL */
  gboolean        idle_pending;
  gint64          last_notify;
  gint64          last_callback;
  guint64         total_bytes;
  TsAuditOptions  options;
};

G_DEFINE_FINAL_TYPE (TsAudit, ts_audit, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_FRACTION,
  PROP_CURRENT_TENSOR,
  N_PROPS
};



static GParamSpec *properties[N_PROPS];

void
ts_audit_options_init (TsAuditOptions *options)
{
  g_return_if_fail (options != NULL);
  memset (options, 0, sizeof *options);
}

static void
ts_audit_finalize (GObject *object)
{
  TsAudit *self = TS_AUDIT (object);

  g_free (self->current);
  g_clear_pointer (&self->context, g_main_context_unref);
  g_mutex_clear (&self->lock);
  G_OBJECT_CLASS (ts_audit_parent_class)->finalize (object);
}

static void
ts_audit_get_property (GObject    *object,
                       guint       prop_id,
                       GValue     *value,
                       GParamSpec *pspec)
{
  TsAudit *self = TS_AUDIT (object);

  switch (prop_id)
    {
    case PROP_FRACTION:
      g_value_set_double (value, ts_audit_get_fraction (self));
      break;
    case PROP_CURRENT_TENSOR:
      g_value_take_string (value, ts_audit_dup_current_tensor (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ts_audit_class_init (TsAuditClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = ts_audit_finalize;
  object_class->get_property = ts_audit_get_property;

  properties[PROP_FRACTION] =
    g_param_spec_double ("fraction", NULL, NULL, 0.0, 1.0, 0.0,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_CURRENT_TENSOR] =
    g_param_spec_string ("current-tensor", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
ts_audit_init (TsAudit *self)
{
  g_mutex_init (&self->lock);
}

double
ts_audit_get_fraction (TsAudit *self)
{
  double fraction;

  g_return_val_if_fail (TS_IS_AUDIT (self), 0.0);

  g_mutex_lock (&self->lock);
  fraction = self->fraction;
  g_mutex_unlock (&self->lock);
  return fraction;
}

char *
ts_audit_dup_current_tensor (TsAudit *self)
{
  char *current;

  g_return_val_if_fail (TS_IS_AUDIT (self), NULL);

  g_mutex_lock (&self->lock);
  current = g_strdup (self->current);
  g_mutex_unlock (&self->lock);
  return current;
}

/* ------------------------------------------------------------ progress */

static gboolean
notify_progress_idle (gpointer data)
{
  TsAudit *self = data;

  g_mutex_lock (&self->lock);
  self->idle_pending = FALSE;
  g_mutex_unlock (&self->lock);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FRACTION]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CURRENT_TENSOR]);
  return G_SOURCE_REMOVE;
}

static void
schedule_notify (TsAudit *self)
{
  g_autoptr(GSource) source = g_idle_source_new ();

  g_source_set_callback (source, notify_progress_idle, g_object_ref (self), g_object_unref);
  g_source_set_static_name (source, "[tensorscope] audit progress");
  g_source_attach (source, self->context);
}

/* Called by the comparison under its lock, so never concurrently. */
static void
set_progress (TsAudit    *self,
              double      fraction,
              const char *tensor,
              gboolean    force)
{
  gint64 now = g_get_monotonic_time ();
  gboolean notify = FALSE;

  g_mutex_lock (&self->lock);
  self->fraction = CLAMP (fraction, 0.0, 1.0);
  if (g_strcmp0 (self->current, tensor) != 0)
    {
      g_free (self->current);
      self->current = g_strdup (tensor);
    }
  if (self->context && !self->idle_pending && (force || now - self->last_notify >= PROGRESS_INTERVAL_US))
    {
      self->idle_pending = notify = TRUE;
      self->last_notify = now;
    }
  g_mutex_unlock (&self->lock);

  if (notify)
    schedule_notify (self);
  if (self->options.progress && (force || now - self->last_callback >= PROGRESS_INTERVAL_US))
    {
      self->last_callback = now;
      self->options.progress (self->fraction, tensor, self->options.progress_data);
    }
}

static void
compare_progress (gpointer    data,
                  guint64     bytes_done,
                  const char *tensor)
{
  TsAudit *self = data;

  set_progress (self, self->total_bytes ? (double) bytes_done / (double) self->total_bytes : 1.0,
                tensor, FALSE);
}

/* ------------------------------------------------------------- the run */

typedef struct
{
  char    *label;
  guint    count;
  guint64  source_bytes;
  guint64  target_bytes;
} SizeGroup;

typedef struct
{
  TsAudit          *audit;
  TsModelFile      *source;
  TsModelFile      *target;
  TsAuditReport    *report;
  TsAuditMode       mode;
  GFile            *dir;
  TsHfConfig       *config;
  const TsArch     *arch;
  TsDType           out_type;       /* from general.file_type, or UNKNOWN */
  const char       *mix_name;       /* general.file_type of llama-quantize's mixes */
  GPtrArray        *jobs;           /* TsCompareJob */
  GHashTable       *claimed;        /* target name → TsAuditPair */
  GPtrArray        *groups;         /* SizeGroup, tensor-data rows */
  SizeGroup         generated;
  SizeGroup         extra;
  SizeGroup         missing;
  SizeGroup         dropped;
  guint             n_source;
  guint             n_matched;
  guint             n_shape_fail;
  guint             n_type_fail;
  guint             n_permuted;
  guint             n_uncompared;   /* pairs not compared: shapes or sizes */
  guint             n_undecodable;  /* pairs in a type the audit cannot decode */
  GString          *uncompared_list;
  GString          *undecodable_list;
  GString          *missing_list;
  GString          *extra_list;
  GString          *shape_list;
  GString          *type_list;
  TsAuditStatus     rope_status;
  char             *rope_detail;    /* the rope-freqs check, once known */
} AuditRun;

static void
size_group_free (gpointer data)
{
  SizeGroup *g = data;

  g_free (g->label);
  g_free (g);
}

static void
audit_run_free (AuditRun *run)
{
  g_clear_object (&run->audit);
  g_clear_object (&run->source);
  g_clear_object (&run->target);
  g_clear_object (&run->report);
  g_clear_object (&run->dir);
  g_clear_pointer (&run->config, ts_hf_config_free);
  g_clear_pointer (&run->jobs, g_ptr_array_unref);
  g_clear_pointer (&run->claimed, g_hash_table_unref);
  g_clear_pointer (&run->groups, g_ptr_array_unref);
  g_string_free (run->missing_list, TRUE);
  g_string_free (run->extra_list, TRUE);
  g_string_free (run->shape_list, TRUE);
  g_string_free (run->type_list, TRUE);
  g_string_free (run->uncompared_list, TRUE);
  g_string_free (run->undecodable_list, TRUE);
  g_free (run->rope_detail);
  g_free (run);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AuditRun, audit_run_free)

static AuditRun *
audit_run_new (TsAudit     *audit,
               TsModelFile *source,
               TsModelFile *target)
{
  AuditRun *run = g_new0 (AuditRun, 1);

  run->audit = g_object_ref (audit);
  run->source = g_object_ref (source);
  run->target = g_object_ref (target);
  run->jobs = g_ptr_array_new_with_free_func ((GDestroyNotify) _ts_compare_job_free);
  run->claimed = g_hash_table_new (g_str_hash, g_str_equal);
  run->groups = g_ptr_array_new_with_free_func (size_group_free);
  run->missing_list = g_string_new (NULL);
  run->extra_list = g_string_new (NULL);
  run->shape_list = g_string_new (NULL);
  run->type_list = g_string_new (NULL);
  run->uncompared_list = g_string_new (NULL);
  run->undecodable_list = g_string_new (NULL);
  return run;
}

static void
list_add (GString    *list,
          guint       count,
          const char *name)
{
  if (count < 8)
    g_string_append_printf (list, "%s%s", list->len ? ", " : "", name);
  else if (count == 8)
    g_string_append (list, ", …");
}

/* A GGUF split file read alone (a file of its set missing, or named
 * otherwise than llama.cpp names them): compared, all the tensors of the
 * other files would count as lost, and the checks would blame them, not
 * the set. Refused, with what the reader said of the set. */
static gboolean
check_whole_set (TsModelFile  *model,
                 GError      **error)
{
  TsMetadataEntry *count = TS_IS_GGUF_FILE (model)
                         ? ts_model_file_lookup_metadata (model, "split.count") : NULL;
  guint n_parts = g_list_model_get_n_items (ts_model_file_get_parts (model));
  const char * const *warnings = ts_model_file_get_warnings (model);
  g_autofree char *name = NULL;
  g_autofree char *why = NULL;

  if (count == NULL || ts_metadata_entry_get_value_type (count) != TS_VALUE_UINT16 ||
      ts_metadata_entry_get_uint64 (count) <= n_parts)
    return TRUE;
  name = ts_file_display_basename (ts_model_file_get_file (model));
  why = warnings != NULL && warnings[0] != NULL ? g_strjoinv ("; ", (char **) warnings)
                                                : g_strdup ("");
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
               _("%s is one file of a split set of %u, and the set could not be read as one "
                 "(%s): an audit compares the whole set"),
               name, (guint) ts_metadata_entry_get_uint64 (count), why);
  return FALSE;
}

static gboolean
choose_mode (AuditRun  *run,
             GError   **error)
{
  gboolean source_gguf = TS_IS_GGUF_FILE (run->source);
  gboolean target_gguf = TS_IS_GGUF_FILE (run->target);

  if (!check_whole_set (run->source, error) || !check_whole_set (run->target, error))
    return FALSE;
  if (!source_gguf && target_gguf)
    run->mode = TS_AUDIT_MODE_CONVERSION;
  else if (source_gguf && target_gguf)
    run->mode = TS_AUDIT_MODE_GGUF;
  else if (!source_gguf && !target_gguf)
    run->mode = TS_AUDIT_MODE_SAFETENSORS;
  else
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   _("an audit compares a checkpoint with its GGUF conversion (source first), "
                   "two GGUF files, or two Safetensors checkpoints"));
      return FALSE;
    }
  run->report = _ts_audit_report_new (run->mode, run->source, run->target);
  return TRUE;
}

static TsDType
file_type_to_dtype (guint64 file_type)
{
  switch (file_type)
    {
    case 0:
      return TS_DTYPE_F32;
    case 1:
      return TS_DTYPE_F16;
    case 7:
      return TS_DTYPE_Q8_0;
    case 32:
      return TS_DTYPE_BF16;
    default:
      return TS_DTYPE_UNKNOWN;
    }
}

/* The checkpoint folder holds config.json and the tokenizer files. */
static gboolean
load_conversion_inputs (AuditRun  *run,
                        GError   **error)
{
  g_autoptr(TsFilePart) part = g_list_model_get_item (ts_model_file_get_parts (run->source), 0);
  TsMetadataEntry *file_type;

  if (part == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, _("the source has no files"));
      return FALSE;
    }
  run->dir = g_file_get_parent (ts_file_part_get_file (part));
  run->config = ts_hf_config_load (run->dir, error);
  if (run->config == NULL)
    return FALSE;
  run->arch = ts_arch_for_config (run->config, error);
  if (run->arch == NULL)
    return FALSE;
  file_type = ts_model_file_lookup_metadata (run->target, "general.file_type");
  run->out_type = file_type ? file_type_to_dtype (ts_metadata_entry_get_uint64 (file_type))
                            : TS_DTYPE_UNKNOWN;
  /* a type of llama-quantize's, where it picks each tensor's type */
  if (file_type != NULL && run->out_type == TS_DTYPE_UNKNOWN)
    run->mix_name = ts_gguf_file_type_name (ts_metadata_entry_get_uint64 (file_type));
  return TRUE;
}

/* --------------------------------------------------------- size groups */

static const char *
tensor_class (const char *target_name,
              TsTensor   *target)
{
  if (g_str_has_suffix (target_name, "_norm.weight"))
    return "norm";
  if (ts_tensor_get_n_dims (target) <= 1)
    return "1-D";
  return "matrix";
}

static void
group_add (AuditRun *run,
           TsTensor *source,
           TsTensor *target,
           const char *target_name)
{
  g_autofree char *key = g_strdup_printf ("%s|%s|%s", tensor_class (target_name, target),
                                          ts_tensor_get_dtype_name (source),
                                          ts_tensor_get_dtype_name (target));
  SizeGroup *group = NULL;

  for (guint i = 0; i < run->groups->len && group == NULL; i++)
    if (g_str_equal (((SizeGroup *) g_ptr_array_index (run->groups, i))->label, key))
      group = g_ptr_array_index (run->groups, i);
  if (group == NULL)
    {
      group = g_new0 (SizeGroup, 1);
      group->label = g_steal_pointer (&key);
      g_ptr_array_add (run->groups, group);
    }
  group->count++;
  group->source_bytes += ts_tensor_get_size (source);
  group->target_bytes += ts_tensor_get_size (target);
}

static void
group_count (SizeGroup *group,
             guint64    source_bytes,
             guint64    target_bytes)
{
  group->count++;
  group->source_bytes += source_bytes;
  group->target_bytes += target_bytes;
}

/* ------------------------------------------------------ tensor matching */

static char *
format_dims (const guint64 *dims,
             guint          n_dims)
{
  GString *s = g_string_new ("[");

  for (guint i = 0; i < n_dims; i++)
    g_string_append_printf (s, "%s%" G_GUINT64_FORMAT, i ? ", " : "", dims[i]);
  g_string_append_c (s, ']');
  return g_string_free (s, FALSE);
}

static gboolean
check_shape (AuditRun    *run,
             TsAuditPair *pair,
             TsTensor    *source,
             TsTensor    *target)
{
  guint64 sdims[TS_MAX_DIMS], tdims[TS_MAX_DIMS];
  guint n = ts_tensor_get_n_dims (source);
  g_autofree char *s = NULL;
  g_autofree char *t = NULL;
  const guint64 *stated = ts_tensor_get_shape (target);

  ts_tensor_get_row_major_shape (source, sdims);
  ts_tensor_get_row_major_shape (target, tdims);
  if (n == ts_tensor_get_n_dims (target) && memcmp (sdims, tdims, n * sizeof (guint64)) == 0)
    return TRUE;
  s = format_dims (sdims, n);
  t = format_dims (stated, ts_tensor_get_n_dims (target));
  if (TS_IS_GGUF_FILE (run->target) && !TS_IS_GGUF_FILE (run->source) &&
      n == ts_tensor_get_n_dims (target) && n > 1 && memcmp (sdims, stated, n * sizeof (guint64)) == 0)
    _ts_audit_pair_set_detail (pair, TS_AUDIT_FAIL, _("shape %s is stated in source order; GGUF dims "
                               "must be reversed (fastest-varying first)"), s);
  else
    {
      /* both in one order, so that equal dims line up */
      g_autofree char *t_rows = format_dims (tdims, ts_tensor_get_n_dims (target));

      _ts_audit_pair_set_detail (pair, TS_AUDIT_FAIL, _("shapes differ: source %s, target %s "
                                 "(both slowest-varying first)"), s, t_rows);
    }
  list_add (run->shape_list, run->n_shape_fail++, ts_tensor_get_name (target));
  return FALSE;
}

/* The type the converter writes for this tensor (SPEC §7). */
static void
check_type (AuditRun    *run,
            TsAuditPair *pair,
            TsTensor    *source,
            TsTensor    *target)
{
  const char *name = ts_tensor_get_name (target);
  guint64 dims[TS_MAX_DIMS];
  guint n_dims = ts_tensor_get_n_dims (source);
  TsDType want;

  if (run->mode != TS_AUDIT_MODE_CONVERSION)
    return;
  ts_tensor_get_row_major_shape (source, dims);
  if (ts_arch_keeps_f32 (run->arch, name, n_dims))
    want = TS_DTYPE_F32;
  else if (run->out_type == TS_DTYPE_Q8_0 && n_dims > 0 && dims[n_dims - 1] % TS_Q8_0_BLOCK != 0)
    want = TS_DTYPE_F16;
  else
    want = run->out_type;
  if (want == TS_DTYPE_UNKNOWN || want == ts_tensor_get_dtype (target))
    return;
  _ts_audit_pair_set_detail (pair, TS_AUDIT_FAIL, _("stored as %s, but the converter stores this "
                             "tensor as %s"), ts_tensor_get_dtype_name (target), ts_dtype_get_name (want));
  list_add (run->type_list, run->n_type_fail++, name);
}

static char *
describe_transform (TsTensor  *source,
                    TsTensor  *target,
                    TsPermute  permute,
                    guint      heads)
{
  const char *s = ts_tensor_get_dtype_name (source);
  const char *t = ts_tensor_get_dtype_name (target);

  if (permute != TS_PERMUTE_NONE)
    return g_strdup_printf ("permute-%s(%u heads), %s→%s", permute == TS_PERMUTE_Q ? "q" : "k",
                            heads, s, t);
  return g_strdup_printf ("%s→%s", s, t);
}

static void
pair_up (AuditRun    *run,
         TsAuditPair *pair,
         TsTensor    *source,
         TsTensor    *target,
         TsPermute    permute)
{
  guint heads = permute != TS_PERMUTE_NONE ? ts_arch_permute_heads (run->config, permute) : 0;
  g_autofree char *detail = NULL;
  TsCompareJob *job;
  TsDType undecodable;

  g_hash_table_insert (run->claimed, (gpointer) ts_tensor_get_name (target), pair);
  run->n_matched++;
  g_free (pair->transform);
  pair->transform = describe_transform (source, target, permute, heads);
  pair->target_dtype = g_strdup (ts_tensor_get_dtype_name (target));
  group_add (run, source, target, ts_tensor_get_name (target));
  check_type (run, pair, source, target);
  if (!check_shape (run, pair, source, target))
    return;
  undecodable = _ts_compare_undecodable_type (ts_tensor_get_dtype (source), ts_tensor_get_dtype (target));
  if (undecodable != TS_DTYPE_UNKNOWN)
    {
      /* no value is known to be lost: the audit cannot tell */
      _ts_audit_pair_set_detail (pair, TS_AUDIT_WARN, _("values not compared: the audit cannot "
                                 "decode %s"), ts_dtype_get_name (undecodable));
      list_add (run->undecodable_list, run->n_undecodable++, ts_tensor_get_name (target));
      return;
    }
  job = _ts_compare_job_new (pair, source, target, heads, &detail);
  if (job == NULL)
    {
      _ts_audit_pair_set_detail (pair, TS_AUDIT_FAIL, _("values not compared: %s"), detail);
      list_add (run->uncompared_list, run->n_uncompared++, ts_tensor_get_name (target));
    }
  else
    {
      /* the permutation check speaks only of tensors whose values it sees */
      run->n_permuted += heads > 0;
      g_ptr_array_add (run->jobs, job);
    }
}

static void
match_missing (AuditRun    *run,
               TsAuditPair *pair,
               TsTensor    *source,
               const char  *target_name)
{
  list_add (run->missing_list, run->missing.count, ts_tensor_get_name (source));
  group_count (&run->missing, ts_tensor_get_size (source), 0);
  g_free (pair->transform);
  pair->transform = g_strdup ("unmatched");
  if (target_name == NULL && run->arch != NULL)
    _ts_audit_pair_set_detail (pair, TS_AUDIT_FAIL, _("the %s architecture has no GGUF name for "
                               "this tensor"), ts_arch_get_name (run->arch));
  else if (target_name == NULL)
    _ts_audit_pair_set_detail (pair, TS_AUDIT_FAIL, _("no counterpart"));
  else if (g_hash_table_contains (run->claimed, target_name))
    _ts_audit_pair_set_detail (pair, TS_AUDIT_FAIL, _("%s is already the counterpart of another "
                               "source tensor"), target_name);
  else
    _ts_audit_pair_set_detail (pair, TS_AUDIT_FAIL, _("the target has no %s"), target_name);
}

static void
match_one (AuditRun *run,
           TsTensor *source)
{
  const char *name = ts_tensor_get_name (source);
  g_autofree char *target_name = NULL;
  g_autoptr(TsAuditPair) pair = NULL;
  TsPermute permute = TS_PERMUTE_NONE;
  gboolean dropped = FALSE;
  TsTensor *target = NULL;

  if (run->mode == TS_AUDIT_MODE_CONVERSION)
    target_name = ts_arch_map_tensor (run->arch, run->config, name, &permute, &dropped);
  else
    target_name = g_strdup (name);
  pair = _ts_audit_pair_new (name, target_name);
  pair->source_dtype = g_strdup (ts_tensor_get_dtype_name (source));
  if (target_name != NULL && !g_hash_table_contains (run->claimed, target_name))
    target = ts_model_file_lookup_tensor (run->target, target_name);

  if (dropped)
    {
      g_free (pair->transform);
      pair->transform = g_strdup ("dropped by the converter");
      group_count (&run->dropped, ts_tensor_get_size (source), 0);
    }
  else if (target != NULL)
    pair_up (run, pair, source, target, permute);
  else
    {
      g_clear_pointer (&pair->target_name, g_free);
      match_missing (run, pair, source, target_name);
    }
  _ts_audit_report_add_pair (run->report, pair);
}

static void
match_tensors (AuditRun *run)
{
  GListModel *tensors = ts_model_file_get_tensors (run->source);

  run->n_source = g_list_model_get_n_items (tensors);
  for (guint i = 0; i < run->n_source; i++)
    {
      g_autoptr(TsTensor) source = g_list_model_get_item (tensors, i);

      match_one (run, source);
    }
}

/* ------------------------------------------------- generated and extra */

static void diagnose_single (TsAuditPair *pair);

/* WANT is computed with the correctly rounded powf(); BELOW and ABOVE with
 * it one ulp lower and higher, as a torch build may give it. A value that
 * matches one of those two counts in *n_pow_ulp, not as a mismatch. */
static void
compare_rope_freqs (TsAuditPair *pair,
                    TsTensor    *target,
                    const float *want,
                    const float *below,
                    const float *above,
                    guint        n,
                    guint       *n_pow_ulp)
{
  const guint8 *data = ts_tensor_get_data (target);

  pair->n_values = n;
  *n_pow_ulp = 0;
  for (guint i = 0; i < n; i++)
    {
      guint32 found;

      memcpy (&found, data + 4 * i, 4);
      found = GUINT32_FROM_LE (found);
      if (found == ts_f32_bits (want[i]))
        continue;
      if (found == ts_f32_bits (below[i]) || found == ts_f32_bits (above[i]))
        {
          (*n_pow_ulp)++;
          continue;
        }
      if (pair->n_mismatch++ > 0)
        continue;
      pair->first_index = pair->first_col = i;
      pair->first_source = pair->first_expected = want[i];
      pair->first_actual = ts_f32_from_bits (found);
      pair->first_expected_bits = ts_f32_bits (want[i]);
      pair->first_actual_bits = found;
      pair->bits_width = 32;
    }
}

static void
check_rope_freqs (AuditRun *run)
{
  TsTensor *target = ts_model_file_lookup_tensor (run->target, ROPE_FREQS_NAME);
  g_autoptr(TsAuditPair) pair = _ts_audit_pair_new (NULL, ROPE_FREQS_NAME);
  g_autofree float *want = NULL, *below = NULL, *above = NULL;
  g_autofree char *exact = NULL;
  guint n = 0, n_pow_ulp = 0;

  if (run->mode != TS_AUDIT_MODE_CONVERSION || !ts_hf_config_has_rope_freqs (run->config))
    return;
  want = ts_hf_config_compute_rope_freqs (run->config, &n);
  below = ts_hf_config_compute_rope_freqs_nudged (run->config, -1, &n);
  above = ts_hf_config_compute_rope_freqs_nudged (run->config, 1, &n);
  g_free (pair->transform);
  pair->transform = g_strdup ("generated from config.json (llama3 rope scaling)");
  pair->source_dtype = g_strdup ("F32");
  if (target == NULL)
    {
      run->rope_status = TS_AUDIT_FAIL;
      run->rope_detail = g_strdup ("config.json asks for llama3 rope scaling, but the target has no "
                                   ROPE_FREQS_NAME);
      return;
    }
  g_hash_table_insert (run->claimed, (gpointer) ts_tensor_get_name (target), pair);
  group_count (&run->generated, 0, ts_tensor_get_size (target));
  pair->target_dtype = g_strdup (ts_tensor_get_dtype_name (target));
  if (ts_tensor_get_dtype (target) != TS_DTYPE_F32 || ts_tensor_get_n_elements (target) != n)
    _ts_audit_pair_set_detail (pair, TS_AUDIT_FAIL, _("expected %u F32 values, found %" PRIu64
                               " %s values"), n, ts_tensor_get_n_elements (target),
                               ts_tensor_get_dtype_name (target));
  /* llama.cpp loads it as a vector of head_dim / 2: its first dimension
   * must be n, any further ones 1 (check_tensor_dims); [1, n] it refuses */
  else if (ts_tensor_get_shape (target)[0] != n)
    _ts_audit_pair_set_detail (pair, TS_AUDIT_FAIL, _("expected a first dimension of %u, found "
                               "%" PRIu64), n, ts_tensor_get_shape (target)[0]);
  else
    compare_rope_freqs (pair, target, want, below, above, n, &n_pow_ulp);
  if (pair->n_mismatch > 0)
    {
      _ts_audit_pair_set_detail (pair, TS_AUDIT_FAIL, _("%" PRIu64 " of %u values differ "
                                 "from the ones recomputed from config.json"), pair->n_mismatch, n);
      diagnose_single (pair);
    }
  run->rope_status = pair->status;
  if (n_pow_ulp == 0)
    exact = g_strdup (_("bit-exact"));
  else
    exact = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                          "bit-exact, but for %u value computed from a power one ulp "
                                          "off the correctly rounded one (torch's float32 pow is within "
                                          "one ulp; which way depends on its build and the CPU)",
                                          "bit-exact, but for %u values computed from a power one ulp "
                                          "off the correctly rounded one (torch's float32 pow is within "
                                          "one ulp; which way depends on its build and the CPU)",
                                          n_pow_ulp),
                             n_pow_ulp);
  run->rope_detail = g_strdup_printf (_("%s: %u values recomputed from config.json (base %g, "
                                      "factor %g), %s"), ROPE_FREQS_NAME, n,
                                      run->config->rope_theta, run->config->rope_factor,
                                      pair->status == TS_AUDIT_PASS ? exact : pair->detail);
  _ts_audit_report_add_pair (run->report, pair);
}

static void
find_extra (AuditRun *run)
{
  GListModel *tensors = ts_model_file_get_tensors (run->target);

  for (guint i = 0; i < g_list_model_get_n_items (tensors); i++)
    {
      g_autoptr(TsTensor) target = g_list_model_get_item (tensors, i);
      g_autoptr(TsAuditPair) pair = NULL;

      if (g_hash_table_contains (run->claimed, ts_tensor_get_name (target)))
        continue;
      pair = _ts_audit_pair_new (NULL, ts_tensor_get_name (target));
      g_free (pair->transform);
      pair->transform = g_strdup ("extra");
      pair->target_dtype = g_strdup (ts_tensor_get_dtype_name (target));
      _ts_audit_pair_set_detail (pair, TS_AUDIT_FAIL, _("no source tensor has this role"));
      list_add (run->extra_list, run->extra.count, ts_tensor_get_name (target));
      group_count (&run->extra, 0, ts_tensor_get_size (target));
      _ts_audit_report_add_pair (run->report, pair);
    }
}

/* ----------------------------------------------------------- diagnosis */

static TsAuditPair *
job_pair (AuditRun     *run,
          TsCompareJob *job)
{
  return g_hash_table_lookup (run->claimed, ts_tensor_get_name (_ts_compare_job_get_target (job)));
}

static gboolean
diagnose_permutation (TsCompareJob *job,
                      TsAuditPair  *pair)
{
  guint heads = _ts_compare_job_get_permute_heads (job);
  guint64 rows = _ts_compare_job_get_n_rows (job);
  TsTensor *source = _ts_compare_job_get_source (job);

  if (heads == 0)
    return FALSE;
  if (_ts_compare_job_matches_variant (job, source, 0, FALSE))
    {
      _ts_audit_pair_set_detail (pair, TS_AUDIT_FAIL, _("the values are the source rows without "
                                 "the Q/K permutation: the permutation was not applied"));
      return TRUE;
    }
  for (guint h = 1; h <= MIN (rows, 4096); h++)
    if (h != heads && rows % h == 0 && (rows / h) % 2 == 0 &&
        _ts_compare_job_matches_variant (job, source, h, FALSE))
      {
        _ts_audit_pair_set_detail (pair, TS_AUDIT_FAIL, _("the values are the source permuted with "
                                   "%u heads instead of %u: wrong head count"), h, heads);
        return TRUE;
      }
  return FALSE;
}

/* The source's other tensors of @source's shape (and type, if
 * @same_type), at most @max: the ones a swapped tensor may have come from */
static GPtrArray *
swap_candidates (AuditRun *run,
                 TsTensor *source,
                 gboolean  same_type,
                 guint     max)
{
  GListModel *tensors = ts_model_file_get_tensors (run->source);
  GPtrArray *found = g_ptr_array_new_with_free_func (g_object_unref);
  guint64 dims[TS_MAX_DIMS], other_dims[TS_MAX_DIMS];

  ts_tensor_get_row_major_shape (source, dims);
  for (guint i = 0; i < g_list_model_get_n_items (tensors) && found->len < max; i++)
    {
      g_autoptr(TsTensor) other = g_list_model_get_item (tensors, i);

      if (other == source || ts_tensor_get_n_dims (other) != ts_tensor_get_n_dims (source) ||
          (same_type && ts_tensor_get_dtype (other) != ts_tensor_get_dtype (source)))
        continue;
      ts_tensor_get_row_major_shape (other, other_dims);
      if (memcmp (dims, other_dims, ts_tensor_get_n_dims (source) * sizeof (guint64)) == 0)
        g_ptr_array_add (found, g_steal_pointer (&other));
    }
  return found;
}

static gboolean
diagnose_swap (AuditRun     *run,
               TsCompareJob *job,
               TsAuditPair  *pair)
{
  g_autoptr(GPtrArray) candidates = swap_candidates (run, _ts_compare_job_get_source (job), TRUE, 256);

  for (guint i = 0; i < candidates->len; i++)
    {
      TsTensor *other = g_ptr_array_index (candidates, i);

      if (_ts_compare_job_matches_variant (job, other, _ts_compare_job_get_permute_heads (job), FALSE) ||
          _ts_compare_job_matches_variant (job, other, 0, FALSE))
        {
          _ts_audit_pair_set_detail (pair, TS_AUDIT_FAIL, _("the values are those of %s: tensors "
                                     "swapped or misnamed"), ts_tensor_get_name (other));
          return TRUE;
        }
    }
  return FALSE;
}

static void
diagnose_single (TsAuditPair *pair)
{
  guint64 x = pair->first_expected_bits ^ pair->first_actual_bits;

  if (pair->n_mismatch == 1 && pair->bits_width > 0 && x != 0 && (x & (x - 1)) == 0)
    _ts_audit_pair_set_detail (pair, TS_AUDIT_FAIL, _("one value differs by one flipped bit "
                               "(bit %d of %u)"), g_bit_nth_lsf (x, -1), pair->bits_width);
}

static void
diagnose (AuditRun     *run,
          TsCompareJob *job,
          TsAuditPair  *pair)
{
  TsTensor *source = _ts_compare_job_get_source (job);
  g_autofree char *n_mismatch = _ts_audit_format_count (pair->n_mismatch);
  g_autofree char *n_values = _ts_audit_format_count (pair->n_values);

  _ts_audit_pair_set_detail (pair, TS_AUDIT_FAIL, _("%s of %s values are not the source's "
                             "values in %s"), n_mismatch, n_values, pair->target_dtype);
  if (diagnose_permutation (job, pair))
    return;
  if (ts_tensor_get_dtype (source) != TS_DTYPE_BF16 &&
      _ts_compare_job_matches_variant (job, source, _ts_compare_job_get_permute_heads (job), TRUE))
    {
      _ts_audit_pair_set_detail (pair, TS_AUDIT_FAIL, _("the values are the source rounded to "
                                 "BF16: precision lost"));
      return;
    }
  if (pair->n_mismatch > 1 && diagnose_swap (run, job, pair))
    return;
  diagnose_single (pair);
}

/* rows a diagnosis of a decoded tensor looks at: enough to tell a
 * quantization of the right values from one of others */
#define DECODED_DIAGNOSIS_ROWS 256

/* Another source (or none permuted) is a diagnosis when its error over
 * the first @rows rows is within the bound and at most half the pair's
 * own there. */
static gboolean
closer_variant (TsCompareJob *job,
                TsTensor     *source,
                guint         heads,
                guint64       rows,
                double        error)
{
  double e = _ts_compare_job_variant_error (job, source, heads, rows);

  return e < TS_AUDIT_DECODED_MAX_ERROR && e <= error / 2;
}

static void
diagnose_decoded (AuditRun     *run,
                  TsCompareJob *job,
                  TsAuditPair  *pair)
{
  TsTensor *source = _ts_compare_job_get_source (job);
  guint heads = _ts_compare_job_get_permute_heads (job);
  g_autoptr(GPtrArray) candidates = NULL;
  guint64 rows = DECODED_DIAGNOSIS_ROWS;
  double error;

  /* whole heads, and the same rows for every variant */
  if (heads > 0 && _ts_compare_job_get_n_rows (job) % heads == 0)
    {
      guint64 per_head = _ts_compare_job_get_n_rows (job) / heads;

      rows = (rows + per_head - 1) / per_head * per_head;
    }
  error = _ts_compare_job_variant_error (job, source, heads, rows);
  if (heads > 0 && closer_variant (job, source, 0, rows, error))
    {
      _ts_audit_pair_set_detail (pair, TS_AUDIT_FAIL, _("the values are a quantization of the "
                                 "source rows without the Q/K permutation: the permutation was not applied"));
      return;
    }
  candidates = swap_candidates (run, source, FALSE, 64);
  for (guint i = 0; i < candidates->len; i++)
    {
      TsTensor *other = g_ptr_array_index (candidates, i);

      if (closer_variant (job, other, heads, rows, error) ||
          (heads > 0 && closer_variant (job, other, 0, rows, error)))
        {
          _ts_audit_pair_set_detail (pair, TS_AUDIT_FAIL, _("the values are a quantization of %s: "
                                     "tensors swapped or misnamed"), ts_tensor_get_name (other));
          return;
        }
    }
}

/* A decoded tensor's values fail: not finite where the source's are, or
 * a row no closer to them than zeros */
static gboolean
decoded_failed (TsAuditPair *pair)
{
  return pair->n_mismatch > 0 || !(pair->worst_row_error < TS_AUDIT_DECODED_MAX_ERROR);
}

/* A tensor in a type the audit decodes but cannot re-derive: its values
 * are measured against the source's, and must be closer to them than
 * zeros are. */
static void
evaluate_decoded (AuditRun     *run,
                  TsCompareJob *job,
                  TsAuditPair  *pair)
{
  if (pair->n_mismatch > 0)
    {
      g_autofree char *count = _ts_audit_format_count (pair->n_mismatch);

      _ts_audit_pair_set_detail (pair, TS_AUDIT_FAIL, _("%s values are NaN or infinite in %s "
                                 "where the source's are finite"), count, pair->target_dtype);
    }
  else if (decoded_failed (pair))
    {
      g_autofree char *row = _ts_audit_format_count (pair->worst_row);

      _ts_audit_pair_set_detail (pair, TS_AUDIT_FAIL, _("row %s is no closer to the source's values "
                                 "than zeros (relative RMS error %.3g; %.3g over the tensor)"),
                                 row, pair->worst_row_error, pair->relative_rms_error);
      diagnose_decoded (run, job, pair);
    }
  else if (pair->worst_row == TS_AUDIT_NO_INDEX)
    /* every row below the type's resolution (told below) */
    _ts_audit_pair_set_detail (pair, TS_AUDIT_PASS, _("decoded from %s: max abs error %.3g (the "
                               "quantizer's rounding is not re-derived)"), pair->target_dtype,
                               pair->max_abs_error);
  else
    _ts_audit_pair_set_detail (pair, TS_AUDIT_PASS, _("decoded from %s: relative RMS error %.3g "
                               "(%.3g in the worst row), max abs error %.3g (the quantizer's rounding "
                               "is not re-derived)"), pair->target_dtype, pair->relative_rms_error,
                               pair->worst_row_error, pair->max_abs_error);
  if (pair->rows_below_resolution > 0)
    {
      g_autofree char *count = _ts_audit_format_count (pair->rows_below_resolution);
      double resolution = _ts_dequantize_resolution (
        ts_tensor_get_dtype (_ts_compare_job_get_target (job)));

      /* TRANSLATORS: "3 rows hold values too small for Q4_K's scales (all
       * below 0.000481): they decode as far from them as zeros, or
       * farther, but no value is off by more than 0.000961" */
      _ts_audit_pair_set_detail (pair, TS_AUDIT_PASS,
                                 g_dngettext (GETTEXT_PACKAGE,
                                              "%s row holds values too small for %s's scales (all below %.3g): "
                                              "it decodes as far from them as zeros, or farther, but no value "
                                              "is off by more than %.3g",
                                              "%s rows hold values too small for %s's scales (all below %.3g): "
                                              "they decode as far from them as zeros, or farther, but no value "
                                              "is off by more than %.3g",
                                              pair->rows_below_resolution),
                                 count, pair->target_dtype, TS_AUDIT_BELOW_RESOLUTION * resolution,
                                 TS_AUDIT_RESOLUTION_MAX_ERROR * resolution);
    }
}

static void
evaluate_jobs (AuditRun *run)
{
  for (guint i = 0; i < run->jobs->len; i++)
    {
      TsCompareJob *job = g_ptr_array_index (run->jobs, i);
      TsAuditPair *pair = job_pair (run, job);

      if (_ts_compare_job_is_decoded (job))
        evaluate_decoded (run, job, pair);
      else if (pair->n_mismatch > 0)
        diagnose (run, job, pair);
    }
}

/* -------------------------------------------------------------- checks */

static void
add_matching_checks (AuditRun *run)
{
  guint expected = run->n_source - run->dropped.count;
  /* a conversion is matched through the architecture's name mapping, the
   * other modes tensor name to tensor name */
  gboolean by_role = run->mode == TS_AUDIT_MODE_CONVERSION;

  if (run->missing.count == 0)
    _ts_audit_report_add_check (run->report, "tensor-mapping", TS_AUDIT_PASS,
                                run->dropped.count
                                ? _("%u / %u source tensors matched by role (the converter drops the others)")
                                : by_role ? _("%u / %u source tensors matched by role")
                                          : _("%u / %u source tensors matched by name"),
                                run->n_matched, expected);
  else
    _ts_audit_report_add_check (run->report, "tensor-mapping", TS_AUDIT_FAIL,
                                by_role ? _("%u / %u source tensors matched by role; no counterpart for %s")
                                        : _("%u / %u source tensors matched by name; no counterpart for %s"),
                                run->n_matched, expected, run->missing_list->str);
  if (run->extra.count == 0)
    _ts_audit_report_add_check (run->report, "extra-tensors", TS_AUDIT_PASS, "%s",
                                run->generated.count ? _("every target tensor has a source or is generated")
                                                     : _("every target tensor has a source"));
  else
    _ts_audit_report_add_check (run->report, "extra-tensors", TS_AUDIT_FAIL,
                                g_dngettext (GETTEXT_PACKAGE, "%u target tensor has no source: %s",
                                             "%u target tensors have no source: %s", run->extra.count),
                                run->extra.count, run->extra_list->str);
  if (run->n_shape_fail > 0)
    _ts_audit_report_add_check (run->report, "shapes", TS_AUDIT_FAIL,
                                g_dngettext (GETTEXT_PACKAGE, "%u shape disagrees: %s",
                                             "%u shapes disagree: %s", run->n_shape_fail),
                                run->n_shape_fail, run->shape_list->str);
  else
    _ts_audit_report_add_check (run->report, "shapes", TS_AUDIT_PASS, "%s",
                                run->mode == TS_AUDIT_MODE_CONVERSION
                                ? _("all shapes agree under the reversed-dimension convention")
                                : _("all shapes agree"));
}

static void
add_type_check (AuditRun *run)
{
  if (run->mode != TS_AUDIT_MODE_CONVERSION)
    return;
  if (run->mix_name != NULL)
    _ts_audit_report_add_check (run->report, "tensor-types", TS_AUDIT_WARN,
                                _("general.file_type is %s, a mix of types llama-quantize chooses "
                                  "tensor by tensor: only the F32 rule for norms and 1-D tensors "
                                  "was checked"), run->mix_name);
  else if (run->out_type == TS_DTYPE_UNKNOWN)
    _ts_audit_report_add_check (run->report, "tensor-types", TS_AUDIT_WARN,
                                _("general.file_type is missing or not F32/F16/BF16/Q8_0: only the "
                                "F32 rule for norms and 1-D tensors was checked"));
  if (run->n_type_fail > 0)
    _ts_audit_report_add_check (run->report, "tensor-types", TS_AUDIT_FAIL,
                                g_dngettext (GETTEXT_PACKAGE,
                                             "%u tensor not stored in the type the converter writes: %s",
                                             "%u tensors not stored in the type the converter writes: %s",
                                             run->n_type_fail),
                                run->n_type_fail, run->type_list->str);
  else if (run->out_type != TS_DTYPE_UNKNOWN)
    _ts_audit_report_add_check (run->report, "tensor-types", TS_AUDIT_PASS,
                                _("norms and 1-D tensors F32, the others %s (general.file_type)"),
                                ts_dtype_get_name (run->out_type));
}

/* the pairs compared exactly (encoded or byte for byte) */
static void
count_value_results (AuditRun *run,
                     guint    *n_exact,
                     guint    *n_failed,
                     guint    *n_perm_failed,
                     guint64  *n_values,
                     GString  *failed)
{
  for (guint i = 0; i < run->jobs->len; i++)
    {
      TsCompareJob *job = g_ptr_array_index (run->jobs, i);
      TsAuditPair *pair = job_pair (run, job);

      if (_ts_compare_job_is_decoded (job))
        {
          *n_perm_failed += _ts_compare_job_get_permute_heads (job) > 0 && decoded_failed (pair);
          continue;
        }
      (*n_exact)++;
      *n_values += pair->n_values;
      if (pair->n_mismatch == 0)
        continue;
      list_add (failed, (*n_failed)++, pair->target_name);
      *n_perm_failed += _ts_compare_job_get_permute_heads (job) > 0;
    }
}

static void
add_lossy_check (AuditRun *run)
{
  guint64 n_changed = 0, n_values = 0;
  double max_abs = 0, max_rel = 0;
  guint n_lossy = 0;

  for (guint i = 0; i < run->jobs->len; i++)
    {
      TsCompareJob *job = g_ptr_array_index (run->jobs, i);
      TsAuditPair *pair = job_pair (run, job);

      if (!pair->lossy || _ts_compare_job_is_decoded (job))
        continue;
      n_lossy++;
      n_values += pair->n_values;
      n_changed += pair->n_changed;
      max_abs = MAX (max_abs, pair->max_abs_error);
      max_rel = MAX (max_rel, pair->max_rel_error);
    }
  if (n_lossy > 0)
    {
      g_autofree char *changed = _ts_audit_format_count (n_changed);
      g_autofree char *values = _ts_audit_format_count (n_values);
      g_autofree char *detail = NULL;

      detail = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                             "%u tensor in a type that rounds: %s of %s values changed, "
                                             "max abs error %.3g, max rel error %.3g (the rounding itself "
                                             "is checked exactly)",
                                             "%u tensors in a type that rounds: %s of %s values changed, "
                                             "max abs error %.3g, max rel error %.3g (the rounding itself "
                                             "is checked exactly)", n_lossy),
                                n_lossy, changed, values, max_abs, max_rel);
      /* a passed check beside an error of 100 % needs saying why */
      if (max_rel >= 1.0)
        _ts_audit_report_add_check (run->report, "lossy-rounding", TS_AUDIT_PASS, "%s; %s", detail,
                                    _("a value too small for its type (or for its Q8_0 block's scale) "
                                      "rounds to 0, a relative error of 1"));
      else
        _ts_audit_report_add_check (run->report, "lossy-rounding", TS_AUDIT_PASS, "%s", detail);
    }
}

/* Pairs not compared: a failure if their types could be compared, a
 * warning if a type is one the audit does not decode */
static void
add_not_compared_check (AuditRun *run)
{
  g_autoptr(GString) detail = g_string_new (NULL);

  if (run->n_uncompared > 0)
    g_string_append_printf (detail, g_dngettext (GETTEXT_PACKAGE,
                                                 "%u tensor pair could not be compared value by value "
                                                 "(see the tensors): %s",
                                                 "%u tensor pairs could not be compared value by value "
                                                 "(see the tensors): %s", run->n_uncompared),
                            run->n_uncompared, run->uncompared_list->str);
  if (run->n_undecodable > 0)
    {
      if (detail->len > 0)
        g_string_append (detail, "; ");
      g_string_append_printf (detail, g_dngettext (GETTEXT_PACKAGE,
                                                   "%u tensor is in a type the audit cannot decode, so its "
                                                   "values were not compared: %s",
                                                   "%u tensors are in types the audit cannot decode, so "
                                                   "their values were not compared: %s", run->n_undecodable),
                              run->n_undecodable, run->undecodable_list->str);
    }
  if (detail->len > 0)
    _ts_audit_report_add_check (run->report, "not-compared",
                                run->n_uncompared > 0 ? TS_AUDIT_FAIL : TS_AUDIT_WARN, "%s", detail->str);
}

/* Tensors in a type decoded but not re-derived (K-quants, Q4_0, …): how
 * far from the source they are, per type. */
static void
add_quantized_check (AuditRun *run)
{
  g_autoptr(GString) failed = g_string_new (NULL);
  g_autoptr(GString) types = g_string_new (NULL);
  guint count[TS_DTYPE_N_TYPES] = { 0 };
  double worst[TS_DTYPE_N_TYPES] = { 0 };
  guint64 below[TS_DTYPE_N_TYPES] = { 0 };
  guint64 n_below = 0;
  guint n_decoded = 0, n_failed = 0;

  for (guint i = 0; i < run->jobs->len; i++)
    {
      TsCompareJob *job = g_ptr_array_index (run->jobs, i);
      TsAuditPair *pair = job_pair (run, job);
      TsDType dtype = ts_tensor_get_dtype (_ts_compare_job_get_target (job));

      if (!_ts_compare_job_is_decoded (job))
        continue;
      n_decoded++;
      count[dtype]++;
      below[dtype] += pair->rows_below_resolution;
      n_below += pair->rows_below_resolution;
      if (decoded_failed (pair))
        list_add (failed, n_failed++, pair->target_name);
      else
        worst[dtype] = MAX (worst[dtype], pair->worst_row_error);
    }
  if (n_decoded == 0)
    return;
  for (guint t = 0; t < TS_DTYPE_N_TYPES; t++)
    {
      if (count[t] == 0)
        continue;
      g_string_append_printf (types, "%s%s: ", types->len ? "; " : "", ts_dtype_get_name (t));
      /* TRANSLATORS: after a type name: "Q4_K: 12 tensors, a row's relative RMS error at most 0.0934" */
      g_string_append_printf (types, g_dngettext (GETTEXT_PACKAGE,
                                                  "%u tensor, a row's relative RMS error at most %.3g",
                                                  "%u tensors, a row's relative RMS error at most %.3g",
                                                  count[t]),
                              count[t], worst[t]);
      if (below[t] > 0)
        {
          g_autofree char *rows = _ts_audit_format_count (below[t]);

          /* TRANSLATORS: after "Q4_K: 12 tensors, a row's relative RMS error at most 0.0934" */
          g_string_append_printf (types, g_dngettext (GETTEXT_PACKAGE,
                                                      " (and %s row below the type's resolution, within it)",
                                                      " (and %s rows below the type's resolution, within it)",
                                                      below[t]),
                                  rows);
        }
    }
  if (n_failed > 0)
    _ts_audit_report_add_check (run->report, "quantized", TS_AUDIT_FAIL,
                                g_dngettext (GETTEXT_PACKAGE,
                                             "%u quantized tensor has values no closer to its source than zeros: %s",
                                             "%u quantized tensors have values no closer to their source than zeros: %s",
                                             n_failed),
                                n_failed, failed->str);
  else if (n_below > 0)
    _ts_audit_report_add_check (run->report, "quantized", TS_AUDIT_PASS,
                                g_dngettext (GETTEXT_PACKAGE,
                                             "%u tensor in a type the audit decodes but cannot re-derive "
                                             "(the quantizer chooses its rounding): every row closer to "
                                             "its source than zeros (relative RMS error below 1) or, where "
                                             "its values are all below the type's resolution, within it: %s",
                                             "%u tensors in types the audit decodes but cannot re-derive "
                                             "(the quantizer chooses their rounding): every row closer to "
                                             "its source than zeros (relative RMS error below 1) or, where "
                                             "its values are all below the type's resolution, within it: %s",
                                             n_decoded),
                                n_decoded, types->str);
  else
    _ts_audit_report_add_check (run->report, "quantized", TS_AUDIT_PASS,
                                g_dngettext (GETTEXT_PACKAGE,
                                             "%u tensor in a type the audit decodes but cannot re-derive "
                                             "(the quantizer chooses its rounding): every row closer to "
                                             "its source than zeros (relative RMS error below 1): %s",
                                             "%u tensors in types the audit decodes but cannot re-derive "
                                             "(the quantizer chooses their rounding): every row closer to "
                                             "its source than zeros (relative RMS error below 1): %s",
                                             n_decoded),
                                n_decoded, types->str);
}

static void
add_value_checks (AuditRun *run)
{
  g_autoptr(GString) failed = g_string_new (NULL);
  guint n_exact = 0, n_failed = 0, n_perm_failed = 0;
  guint64 n_values = 0;

  count_value_results (run, &n_exact, &n_failed, &n_perm_failed, &n_values, failed);
  if (run->n_permuted > 0)
    _ts_audit_report_add_check (run->report, "permutation",
                                n_perm_failed ? TS_AUDIT_FAIL : TS_AUDIT_PASS,
                                n_perm_failed
                                ? g_dngettext (GETTEXT_PACKAGE,
                                               "%u Q/K tensor compared through the row permutation "
                                               "(%u query heads, %u key/value heads); some do not "
                                               "match, see the tensors",
                                               "%u Q/K tensors compared through the row permutation "
                                               "(%u query heads, %u key/value heads); some do not "
                                               "match, see the tensors", run->n_permuted)
                                : g_dngettext (GETTEXT_PACKAGE,
                                               "%u Q/K tensor compared through the row permutation "
                                               "(%u query heads, %u key/value heads)",
                                               "%u Q/K tensors compared through the row permutation "
                                               "(%u query heads, %u key/value heads)", run->n_permuted),
                                run->n_permuted, run->config->n_heads, run->config->n_kv_heads);
  if (n_failed == 0 && n_exact == 0 && run->jobs->len > 0)
    _ts_audit_report_add_check (run->report, "values", TS_AUDIT_WARN,
                                _("no value was compared exactly: every tensor is in a quantized "
                                  "type (see the quantized check)"));
  else if (n_failed == 0 && run->jobs->len == 0)
    /* nothing to vouch for: the pairing checks say why */
    _ts_audit_report_add_check (run->report, "values", TS_AUDIT_WARN,
                                _("no value was compared: no tensor of the target has a source "
                                "tensor it can be compared with (see the other checks)"));
  else if (n_failed == 0)
    {
      g_autofree char *count = _ts_audit_format_count (n_values);

      _ts_audit_report_add_check (run->report, "values", TS_AUDIT_PASS,
                                  g_dngettext (GETTEXT_PACKAGE,
                                               "all %s values of %u tensor are exactly what their "
                                               "output type promises",
                                               "all %s values of %u tensors are exactly what their "
                                               "output type promises", n_exact),
                                  count, n_exact);
    }
  else
    _ts_audit_report_add_check (run->report, "values", TS_AUDIT_FAIL,
                                g_dngettext (GETTEXT_PACKAGE, "%u tensor holds values other than promised: %s",
                                             "%u tensors hold values other than promised: %s", n_failed),
                                n_failed, failed->str);
  add_not_compared_check (run);
  add_lossy_check (run);
  add_quantized_check (run);
  if (run->rope_detail != NULL)
    _ts_audit_report_add_check (run->report, "rope-freqs", run->rope_status, "%s", run->rope_detail);
}

/* ---------------------------------------------------- size reconciliation */

typedef struct
{
  guint64 header;
  guint64 tokenizer;
  guint64 metadata;
  guint64 descriptors;
  guint64 padding;
  guint64 unexplained;
  guint64 data;
  guint64 tensors;
  gboolean split_files;  /* a GGUF split set: split.* keys in every file */
} Layout;

static void
measure_regions (TsModelFile *model,
                 Layout      *l)
{
  GListModel *parts = ts_model_file_get_parts (model);

  for (guint i = 0; i < g_list_model_get_n_items (parts); i++)
    {
      g_autoptr(TsFilePart) part = g_list_model_get_item (parts, i);
      GListModel *regions = ts_file_part_get_regions (part);

      for (guint j = 0; j < g_list_model_get_n_items (regions); j++)
        {
          g_autoptr(TsRegion) r = g_list_model_get_item (regions, j);
          guint64 len = ts_region_get_length (r);

          switch (ts_region_get_kind (r))
            {
            case TS_REGION_LENGTH_PREFIX:
            case TS_REGION_FIXED_HEADER:
              l->header += len;
              break;
            case TS_REGION_METADATA:
              l->metadata += len;
              break;
            case TS_REGION_JSON_HEADER:
            case TS_REGION_TENSOR_INFO:
              l->descriptors += len;
              break;
            case TS_REGION_PADDING:
              l->padding += len;
              break;
            case TS_REGION_TENSOR_DATA:
              l->data += len;
              break;
            case TS_REGION_UNEXPLAINED:
            case TS_REGION_N_KINDS:
            default:
              l->unexplained += len;
              break;
            }
        }
    }
}

static void
measure (TsModelFile *model,
         Layout      *l)
{
  GListModel *metadata = ts_model_file_get_metadata (model);
  GListModel *tensors = ts_model_file_get_tensors (model);

  memset (l, 0, sizeof *l);
  measure_regions (model, l);
  l->split_files = TS_IS_GGUF_FILE (model) &&
                   g_list_model_get_n_items (ts_model_file_get_parts (model)) > 1;
  if (TS_IS_GGUF_FILE (model))
    for (guint i = 0; i < g_list_model_get_n_items (metadata); i++)
      {
        g_autoptr(TsMetadataEntry) e = g_list_model_get_item (metadata, i);

        if (g_str_has_prefix (ts_metadata_entry_get_key (e), "tokenizer."))
          l->tokenizer += ts_metadata_entry_get_length (e);
      }
  l->tokenizer = MIN (l->tokenizer, l->metadata);
  l->metadata -= l->tokenizer;
  for (guint i = 0; i < g_list_model_get_n_items (tensors); i++)
    {
      g_autoptr(TsTensor) t = g_list_model_get_item (tensors, i);

      l->tensors += ts_tensor_get_size (t);
    }
}

static void
add_before_rows (TsAuditReport *report,
                 const Layout  *s,
                 const Layout  *t)
{
  TsAuditArea area = TS_AUDIT_AREA_BEFORE_DATA;

  _ts_audit_report_add_size_row (report, area, "header", s->header, t->header,
                                 _("Safetensors 8-byte length prefixes; GGUF magic, version and counts"));
  _ts_audit_report_add_size_row (report, area, "tokenizer metadata", s->tokenizer, t->tokenizer,
                                 _("tokenizer.* keys: vocabulary, token types, merges, special ids, "
                                 "chat template"));
  _ts_audit_report_add_size_row (report, area, "other metadata", s->metadata, t->metadata,
                                 s->split_files || t->split_files
                                 ? _("general.* and architecture keys; split.* keys in each file "
                                     "of a split set")
                                 : _("general.* and architecture keys"));
  _ts_audit_report_add_size_row (report, area, "descriptors", s->descriptors, t->descriptors,
                                 _("tensor descriptors (Safetensors: the JSON headers with "
                                 "__metadata__ and space padding)"));
  _ts_audit_report_add_size_row (report, area, "padding", s->padding, t->padding,
                                 _("zero padding up to the aligned start of the data"));
}

/* Bytes no format rule accounts for: a reader lets them be only after the
 * last tensor (a gap or an overlap is an error) */
static void
add_after_rows (TsAuditReport *report,
                const Layout  *s,
                const Layout  *t)
{
  if (s->unexplained || t->unexplained)
    _ts_audit_report_add_size_row (report, TS_AUDIT_AREA_AFTER_DATA, "unexplained",
                                   s->unexplained, t->unexplained,
                                   _("bytes after the last tensor that belong to no tensor"));
}

static void
add_group_row (TsAuditReport *report,
               SizeGroup     *g,
               const char    *section,
               const char    *what)
{
  g_autofree char *explanation = NULL;

  if (g->count == 0)
    return;
  explanation = g_strdup_printf ("%u %s", g->count, what);
  _ts_audit_report_add_size_row (report, TS_AUDIT_AREA_TENSOR_DATA, section,
                                 g->source_bytes, g->target_bytes, explanation);
}

static void
add_type_group_rows (AuditRun *run)
{
  for (guint i = 0; i < run->groups->len; i++)
    {
      SizeGroup *g = g_ptr_array_index (run->groups, i);
      g_auto(GStrv) parts = g_strsplit (g->label, "|", 3);
      g_autofree char *section = g_strdup_printf ("%s %s→%s", parts[0], parts[1], parts[2]);
      const char *cls = ts_audit_section_word (parts[0]);
      /* TRANSLATORS: "5 norm tensors BF16→F32": the class, then the types */
      g_autofree char *what = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s tensor %s→%s",
                                                            "%s tensors %s→%s", g->count),
                                               cls, parts[1], parts[2]);

      add_group_row (run->report, g, section, what);
    }
}

static gint64
sum_deltas (TsAuditReport *report,
            TsAuditArea    area,
            gboolean       all)
{
  GListModel *rows = ts_audit_report_get_size_rows (report);
  gint64 sum = 0;

  for (guint i = 0; i < g_list_model_get_n_items (rows); i++)
    {
      g_autoptr(TsAuditSizeRow) row = g_list_model_get_item (rows, i);

      if (all || ts_audit_size_row_get_area (row) == area)
        sum += ts_audit_size_row_get_delta (row);
    }
  return sum;
}

/* The rows must sum to the difference in size. Bytes of the target that
 * belong to no tensor are no part of a conversion: llama.cpp ignores them,
 * but a file that carries them is not what the converter writes. */
static void
add_size_check (AuditRun     *run,
                const Layout *target)
{
  gint64 total = (gint64) (ts_model_file_get_total_size (run->target) -
                           ts_model_file_get_total_size (run->source));
  gint64 sum = sum_deltas (run->report, 0, TRUE);
  gint64 before = sum_deltas (run->report, TS_AUDIT_AREA_BEFORE_DATA, FALSE);
  gint64 data = sum_deltas (run->report, TS_AUDIT_AREA_TENSOR_DATA, FALSE);
  gint64 after = sum_deltas (run->report, TS_AUDIT_AREA_AFTER_DATA, FALSE);

  g_autofree char *t = _ts_audit_format_delta (total);
  g_autofree char *b = _ts_audit_format_delta (before);
  g_autofree char *d = _ts_audit_format_delta (data);
  g_autofree char *a = _ts_audit_format_delta (after);
  g_autofree char *s = _ts_audit_format_delta (sum);
  g_autofree char *stray = _ts_format_count (target->unexplained);

  if (sum != total)
    _ts_audit_report_add_check (run->report, "size-reconciliation", TS_AUDIT_FAIL,
                                _("the rows sum to %s bytes, but the sizes differ by %s"), s, t);
  else if (target->unexplained > 0)
    _ts_audit_report_add_check (run->report, "size-reconciliation", TS_AUDIT_WARN,
                                _("%s bytes = %s before the data, %s tensor data, %s after it; "
                                "%s bytes after the target's last tensor belong to no tensor "
                                "(llama.cpp ignores them; the converter writes none)"),
                                t, b, d, a, stray);
  else
    _ts_audit_report_add_check (run->report, "size-reconciliation", TS_AUDIT_PASS,
                                _("%s bytes = %s before the data, %s tensor data; every byte "
                                "accounted for"), t, b, d);
}

/* what the tensors of a size row are, in words */
static const char *
group_row_what (const char *section,
                guint       count)
{
  if (g_str_equal (section, "generated"))
    return g_dngettext (GETTEXT_PACKAGE, "generated tensor, recomputed from config.json",
                        "generated tensors, recomputed from config.json", count);
  if (g_str_equal (section, "dropped"))
    return g_dngettext (GETTEXT_PACKAGE, "source tensor the converter drops",
                        "source tensors the converter drops", count);
  if (g_str_equal (section, "missing"))
    return g_dngettext (GETTEXT_PACKAGE, "source tensor without a counterpart",
                        "source tensors without a counterpart", count);
  return g_dngettext (GETTEXT_PACKAGE, "target tensor without a source",
                      "target tensors without a source", count);
}

static void
reconcile_sizes (AuditRun *run)
{
  Layout s, t;

  measure (run->source, &s);
  measure (run->target, &t);
  add_before_rows (run->report, &s, &t);
  add_type_group_rows (run);
  {
    const struct { SizeGroup *group; const char *section; } rows[] = {
      { &run->generated, "generated" }, { &run->dropped, "dropped" },
      { &run->missing, "missing" }, { &run->extra, "extra" },
    };

    for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
      add_group_row (run->report, rows[i].group, rows[i].section,
                     group_row_what (rows[i].section, rows[i].group->count));
  }
  _ts_audit_report_add_size_row (run->report, TS_AUDIT_AREA_TENSOR_DATA, "alignment padding",
                                 s.data - s.tensors, t.data - t.tensors,
                                 _("zero padding after each tensor up to the alignment"));
  add_after_rows (run->report, &s, &t);
  add_size_check (run, &t);
}

/* ------------------------------------------------------- same files */

/* What tells @file from any other: its device and inode (links followed),
 * so that a link or another spelling of the path is the same file; its
 * URI where those cannot be had */
static char *
file_identity (GFile *file)
{
  g_autoptr(GFileInfo) info =
    g_file_query_info (file, G_FILE_ATTRIBUTE_UNIX_DEVICE "," G_FILE_ATTRIBUTE_UNIX_INODE,
                       G_FILE_QUERY_INFO_NONE, NULL, NULL);

  if (info != NULL && g_file_info_has_attribute (info, G_FILE_ATTRIBUTE_UNIX_DEVICE) &&
      g_file_info_has_attribute (info, G_FILE_ATTRIBUTE_UNIX_INODE))
    return g_strdup_printf ("%" G_GUINT32_FORMAT ":%" G_GUINT64_FORMAT,
                            g_file_info_get_attribute_uint32 (info, G_FILE_ATTRIBUTE_UNIX_DEVICE),
                            g_file_info_get_attribute_uint64 (info, G_FILE_ATTRIBUTE_UNIX_INODE));
  return g_file_get_uri (file);
}

/* An audit of a file (or checkpoint) against itself, under any name,
 * passes whatever the file holds: say so */
static void
check_same_files (AuditRun *run)
{
  GListModel *source = ts_model_file_get_parts (run->source);
  GListModel *target = ts_model_file_get_parts (run->target);
  guint n = g_list_model_get_n_items (source);
  g_autoptr(GHashTable) targets = NULL;

  if (n == 0 || n != g_list_model_get_n_items (target))
    return;
  targets = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(TsFilePart) part = g_list_model_get_item (target, i);

      g_hash_table_add (targets, file_identity (ts_file_part_get_file (part)));
    }
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(TsFilePart) part = g_list_model_get_item (source, i);
      g_autofree char *identity = file_identity (ts_file_part_get_file (part));

      if (!g_hash_table_contains (targets, identity))
        return;
    }
  if (n == 1)
    _ts_audit_report_add_check (run->report, "same-files", TS_AUDIT_WARN, "%s",
                                _("source and target are the same file: it was compared with "
                                  "itself, so the result proves nothing"));
  else
    _ts_audit_report_add_check (run->report, "same-files", TS_AUDIT_WARN,
                                g_dngettext (GETTEXT_PACKAGE,
                                             "source and target are the same %u file: they were "
                                             "compared with themselves, so the result proves nothing",
                                             "source and target are the same %u files: they were "
                                             "compared with themselves, so the result proves nothing",
                                             n), n);
}

/* ------------------------------------------------------------- driver */

static guint64
total_bytes (GPtrArray *jobs)
{
  guint64 total = 0;

  for (guint i = 0; i < jobs->len; i++)
    total += _ts_compare_job_get_bytes (g_ptr_array_index (jobs, i));
  return total;
}

static gboolean
compare_values (AuditRun      *run,
                GCancellable  *cancellable,
                GError       **error)
{
  guint n_jobs = run->audit->options.n_jobs;
  gint64 start = g_get_monotonic_time ();

  if (n_jobs == 0)
    n_jobs = g_get_num_processors ();
  run->audit->total_bytes = total_bytes (run->jobs);
  if (!_ts_compare_run (run->jobs, n_jobs, compare_progress, run->audit, cancellable, error))
    return FALSE;
  _ts_audit_report_set_timing (run->report, (g_get_monotonic_time () - start) / (double) G_USEC_PER_SEC,
                               run->audit->total_bytes);
  set_progress (run->audit, 1.0, NULL, TRUE);
  return TRUE;
}

/* A file cut short on disk while it was read gave zeros instead of its
 * bytes (see ts-map-guard.c): no report can stand on that. */
static gboolean
check_unchanged (TsModelFile  *model,
                 GError      **error)
{
  GListModel *parts = ts_model_file_get_parts (model);

  for (guint i = 0; i < g_list_model_get_n_items (parts); i++)
    {
      g_autoptr(TsFilePart) part = g_list_model_get_item (parts, i);

      if (ts_file_part_is_damaged (part))
        {
          g_set_error (error, TS_FORMAT_ERROR, TS_FORMAT_ERROR_IO,
                       _("%s: the file was cut short on disk while it was being read "
                       "(is a program rewriting it?); audit again once it is complete"),
                       ts_file_part_get_name (part));
          return FALSE;
        }
    }
  return TRUE;
}

static TsAuditReport *
audit_execute (AuditRun      *run,
               GCancellable  *cancellable,
               GError       **error)
{
  if (!choose_mode (run, error))
    return NULL;
  check_same_files (run);
  if (run->mode == TS_AUDIT_MODE_CONVERSION && !load_conversion_inputs (run, error))
    return NULL;
  match_tensors (run);
  check_rope_freqs (run);
  find_extra (run);
  if (!compare_values (run, cancellable, error))
    return NULL;
  evaluate_jobs (run);
  add_matching_checks (run);
  add_type_check (run);
  add_value_checks (run);
  if (run->mode == TS_AUDIT_MODE_CONVERSION)
    _ts_audit_check_metadata (run->report, run->dir, run->config, run->arch, run->target);
  else
    _ts_audit_compare_metadata (run->report, run->source, run->target);
  reconcile_sizes (run);
  if (!check_unchanged (run->source, error) || !check_unchanged (run->target, error))
    return NULL;
  return g_object_ref (run->report);
}

static TsAudit *
ts_audit_new (const TsAuditOptions *options)
{
  TsAudit *self = g_object_new (TS_TYPE_AUDIT, NULL);

  if (options != NULL)
    self->options = *options;
  return self;
}

/**
 * ts_audit_run:
 * @source: a checkpoint or GGUF file
 * @target: its conversion, or the file to compare it with
 * @options: (nullable): options, or %NULL for the defaults
 *
 * Audits synchronously, on the calling thread and `n_jobs - 1` helpers.
 *
 * Returns: (transfer full): the report, or %NULL with @error set if the
 *   audit could not run (the report says whether the conversion passed)
 */
TsAuditReport *
ts_audit_run (TsModelFile           *source,
              TsModelFile           *target,
              const TsAuditOptions  *options,
              GCancellable          *cancellable,
              GError               **error)
{
  g_autoptr(TsAudit) audit = NULL;
  g_autoptr(AuditRun) run = NULL;

  g_return_val_if_fail (TS_IS_MODEL_FILE (source), NULL);
  g_return_val_if_fail (TS_IS_MODEL_FILE (target), NULL);
  g_return_val_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable), NULL);
  g_return_val_if_fail (!error || !*error, NULL);

  audit = ts_audit_new (options);
  run = audit_run_new (audit, source, target);
  return audit_execute (run, cancellable, error);
}

static void
ts_audit_run_thread (GTask        *task,
                     gpointer      source_object,
                     gpointer      task_data,
                     GCancellable *cancellable)
{
  AuditRun *run = task_data;
  GError *error = NULL;
  TsAuditReport *report = audit_execute (run, cancellable, &error);

  if (report == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, report, g_object_unref);
}

/**
 * ts_audit_run_async:
 *
 * Audits on a worker thread. Progress is told through @options' callback
 * (on a worker thread) and through the returned object's properties (in
 * the thread-default main context of the caller).
 *
 * Returns: (transfer none): the running audit; it stays alive at least
 *   until @callback runs
 */
TsAudit *
ts_audit_run_async (TsModelFile           *source,
                    TsModelFile           *target,
                    const TsAuditOptions  *options,
                    GCancellable          *cancellable,
                    GAsyncReadyCallback    callback,
                    gpointer               user_data)
{
  g_autoptr(TsAudit) audit = NULL;
  g_autoptr(GTask) task = NULL;

  g_return_val_if_fail (TS_IS_MODEL_FILE (source), NULL);
  g_return_val_if_fail (TS_IS_MODEL_FILE (target), NULL);
  g_return_val_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable), NULL);

  audit = ts_audit_new (options);
  audit->context = g_main_context_ref_thread_default ();
  task = g_task_new (audit, cancellable, callback, user_data);
  g_task_set_source_tag (task, ts_audit_run_async);
  g_task_set_task_data (task, audit_run_new (audit, source, target), (GDestroyNotify) audit_run_free);
  g_task_run_in_thread (task, ts_audit_run_thread);
  return audit;
}

/**
 * ts_audit_run_finish:
 *
 * Returns: (transfer full): the report, or %NULL with @error set
 */
TsAuditReport *
ts_audit_run_finish (GAsyncResult  *result,
                     GError       **error)
{
  g_return_val_if_fail (G_IS_TASK (result), NULL);
  g_return_val_if_fail (g_task_is_valid (result, g_task_get_source_object (G_TASK (result))), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == ts_audit_run_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}
