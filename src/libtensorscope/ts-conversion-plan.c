/* ts-conversion-plan.c
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Reproduces the decisions of llama.cpp's converter for the llama
 * architecture (SPEC §7): tensor names, order, types and transforms, and
 * every metadata key in file order, without writing a byte.
 */

#include "config.h"

#include <inttypes.h>

#include <glib/gi18n-lib.h>

#include <errno.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <string.h>
#include <sys/statvfs.h>

#include "ts-side-file-private.h"
#include "ts-conversion-plan.h"
#include "ts-conversion-plan-private.h"
#include "ts-error.h"
#include "ts-gguf-file.h"
#include "ts-hf-naming.h"
#include "ts-hf-tokenizer.h"
#include "ts-json-private.h"
#include "ts-map-guard-private.h"
#include "ts-safetensors-file.h"

#define GGUF_ALIGNMENT 32

/* a split set's files: as many as the reader takes, within split.count's
 * 16 bits (llama.cpp's limit, 65,535) */
G_STATIC_ASSERT (TS_MAP_GUARD_MAX <= G_MAXUINT16);

/* ---- TsPlanTensor ---- */

struct _TsPlanTensor
{
  GObject      parent_instance;
  char        *name;
  TsTensor    *source;
  TsTransform  transform;
  TsPermute    permute;
  guint        permute_heads;
  TsDType      dtype;
  guint        n_dims;
  guint64      dims[4];
  guint64      n_elements;
  guint        file;     /* the output file it is in, from 0 */
  guint64      offset;
  guint64      size;
  float       *generated;
};

G_DEFINE_FINAL_TYPE (TsPlanTensor, ts_plan_tensor, G_TYPE_OBJECT)

static void
ts_plan_tensor_finalize (GObject *object)
{
  TsPlanTensor *self = (TsPlanTensor *)object;

  g_clear_pointer (&self->name, g_free);
  g_clear_object (&self->source);
  g_clear_pointer (&self->generated, g_free);

  G_OBJECT_CLASS (ts_plan_tensor_parent_class)->finalize (object);
}

static void
ts_plan_tensor_class_init (TsPlanTensorClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ts_plan_tensor_finalize;
}

static void
ts_plan_tensor_init (TsPlanTensor *self)
{
}

const char *
ts_plan_tensor_get_name (TsPlanTensor *self)
{
  g_return_val_if_fail (TS_IS_PLAN_TENSOR (self), 0);
  return self->name;
}

TsTensor *
ts_plan_tensor_get_source (TsPlanTensor *self)
{
  g_return_val_if_fail (TS_IS_PLAN_TENSOR (self), 0);
  return self->source;
}

TsTransform
ts_plan_tensor_get_transform (TsPlanTensor *self)
{
  g_return_val_if_fail (TS_IS_PLAN_TENSOR (self), 0);
  return self->transform;
}

TsPermute
ts_plan_tensor_get_permute (TsPlanTensor *self)
{
  g_return_val_if_fail (TS_IS_PLAN_TENSOR (self), 0);
  return self->permute;
}

guint
ts_plan_tensor_get_permute_heads (TsPlanTensor *self)
{
  g_return_val_if_fail (TS_IS_PLAN_TENSOR (self), 0);
  return self->permute_heads;
}

TsDType
ts_plan_tensor_get_dtype (TsPlanTensor *self)
{
  g_return_val_if_fail (TS_IS_PLAN_TENSOR (self), 0);
  return self->dtype;
}

guint
ts_plan_tensor_get_n_dims (TsPlanTensor *self)
{
  g_return_val_if_fail (TS_IS_PLAN_TENSOR (self), 0);
  return self->n_dims;
}

const guint64 *
ts_plan_tensor_get_dims (TsPlanTensor *self)
{
  g_return_val_if_fail (TS_IS_PLAN_TENSOR (self), 0);
  return self->dims;
}

guint64
ts_plan_tensor_get_n_elements (TsPlanTensor *self)
{
  g_return_val_if_fail (TS_IS_PLAN_TENSOR (self), 0);
  return self->n_elements;
}

guint
ts_plan_tensor_get_file (TsPlanTensor *self)
{
  g_return_val_if_fail (TS_IS_PLAN_TENSOR (self), 0);
  return self->file;
}

guint64
ts_plan_tensor_get_offset (TsPlanTensor *self)
{
  g_return_val_if_fail (TS_IS_PLAN_TENSOR (self), 0);
  return self->offset;
}

guint64
ts_plan_tensor_get_size (TsPlanTensor *self)
{
  g_return_val_if_fail (TS_IS_PLAN_TENSOR (self), 0);
  return self->size;
}

const float *
ts_plan_tensor_get_generated (TsPlanTensor *self)
{
  g_return_val_if_fail (TS_IS_PLAN_TENSOR (self), 0);
  return self->generated;
}


const char *
ts_transform_to_nick (TsTransform transform)
{
  static const char * const nicks[] = { "copy", "widen", "convert", "quantize", "generate" };

  g_return_val_if_fail ((guint) transform < G_N_ELEMENTS (nicks), NULL);
  return nicks[transform];
}

char *
ts_plan_tensor_describe_transform (TsPlanTensor *self)
{
  if (self->permute_heads > 0)
    return g_strdup_printf ("permute(%u) + %s", self->permute_heads,
                            ts_transform_to_nick (self->transform));
  return g_strdup (ts_transform_to_nick (self->transform));
}

/* ---- TsConversionPlan ---- */

typedef struct
{
  char    *path;
  guint64  size;
  gint64   mtime_ns;   /* whole seconds miss a rewrite within the second */
  gint64   ctime_ns;   /* changes on any write, even if mtime is put back */
  guint64  inode;      /* a file replaced by rename */
} ShardStamp;

/* one output file: all of them, or one of a split set */
typedef struct
{
  guint            first_tensor;
  guint            n_tensors;
  guint64          tensor_bytes;  /* without padding, as llama.cpp's limit counts them */
  TsGgufMetadata  *own_metadata;  /* the split.* keys; NULL for the first file,
                                   * which has the plan's metadata */
  guint64          metadata_end;
  guint64          data_offset;
  guint64          size;
} PlanFile;

#define STAT_NS(ts) ((gint64) (ts).tv_sec * G_GINT64_CONSTANT (1000000000) + (ts).tv_nsec)

struct _TsConversionPlan
{
  GObject          parent_instance;
  GFile           *dir;
  TsModelFile     *source;
  TsHfConfig      *config;
  const TsArch    *arch;
  TsOutType        outtype;
  GListStore      *tensors;
  TsGgufMetadata  *metadata;
  TsHfNaming      *naming;
  GPtrArray       *warnings;
  GArray          *stamps;
  GArray          *files;    /* PlanFile */
  guint64          predicted_size;
};

G_DEFINE_FINAL_TYPE (TsConversionPlan, ts_conversion_plan, G_TYPE_OBJECT)

static void
shard_stamp_clear (gpointer data)
{
  g_free (((ShardStamp *) data)->path);
}

static void
plan_file_clear (gpointer data)
{
  g_clear_pointer (&((PlanFile *) data)->own_metadata, ts_gguf_metadata_free);
}

static void
ts_conversion_plan_finalize (GObject *object)
{
  TsConversionPlan *self = (TsConversionPlan *)object;

  g_clear_object (&self->dir);
  g_clear_object (&self->source);
  g_clear_pointer (&self->config, ts_hf_config_free);
  g_clear_object (&self->tensors);
  g_clear_pointer (&self->metadata, ts_gguf_metadata_free);
  g_clear_pointer (&self->naming, ts_hf_naming_free);
  g_clear_pointer (&self->warnings, g_ptr_array_unref);
  g_clear_pointer (&self->stamps, g_array_unref);
  g_clear_pointer (&self->files, g_array_unref);

  G_OBJECT_CLASS (ts_conversion_plan_parent_class)->finalize (object);
}

static void
ts_conversion_plan_class_init (TsConversionPlanClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ts_conversion_plan_finalize;
}

static void
ts_conversion_plan_init (TsConversionPlan *self)
{
  self->tensors = g_list_store_new (TS_TYPE_PLAN_TENSOR);
  self->warnings = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (self->warnings, NULL);
  self->stamps = g_array_new (FALSE, TRUE, sizeof (ShardStamp));
  g_array_set_clear_func (self->stamps, shard_stamp_clear);
  self->files = g_array_new (FALSE, TRUE, sizeof (PlanFile));
  g_array_set_clear_func (self->files, plan_file_clear);
}

static void G_GNUC_PRINTF (2, 3)
add_warning (TsConversionPlan *self,
             const char       *format,
             ...)
{
  va_list args;

  va_start (args, format);
  g_ptr_array_insert (self->warnings, self->warnings->len - 1, g_strdup_vprintf (format, args));
  va_end (args);
}

void
ts_plan_options_init (TsPlanOptions *options)
{
  memset (options, 0, sizeof *options);
  options->outtype = TS_OUTTYPE_AUTO;
}

static const struct { const char *nick; TsOutType type; guint32 file_type; } outtypes[] = {
  { "auto", TS_OUTTYPE_AUTO, 0 },
  { "f32", TS_OUTTYPE_F32, 0 },
  { "f16", TS_OUTTYPE_F16, 1 },
  { "bf16", TS_OUTTYPE_BF16, 32 },
  { "q8_0", TS_OUTTYPE_Q8_0, 7 },
};

const char *
ts_outtype_to_nick (TsOutType outtype)
{
  for (guint i = 0; i < G_N_ELEMENTS (outtypes); i++)
    if (outtypes[i].type == outtype)
      return outtypes[i].nick;
  return NULL;
}

gboolean
ts_outtype_from_nick (const char *nick,
                      TsOutType  *outtype)
{
  for (guint i = 0; i < G_N_ELEMENTS (outtypes); i++)
    if (g_ascii_strcasecmp (outtypes[i].nick, nick) == 0)
      {
        *outtype = outtypes[i].type;
        return TRUE;
      }
  return FALSE;
}

static guint32
outtype_file_type (TsOutType outtype)
{
  for (guint i = 0; i < G_N_ELEMENTS (outtypes); i++)
    if (outtypes[i].type == outtype)
      return outtypes[i].file_type;
  return 0;
}

static TsDType
outtype_dtype (TsOutType outtype)
{
  switch (outtype)
    {
    case TS_OUTTYPE_F16: return TS_DTYPE_F16;
    case TS_OUTTYPE_BF16: return TS_DTYPE_BF16;
    case TS_OUTTYPE_Q8_0: return TS_DTYPE_Q8_0;
    case TS_OUTTYPE_F32:
    case TS_OUTTYPE_AUTO:
    default:
      return TS_DTYPE_F32;
    }
}

static int
compare_tensor_names (gconstpointer a,
                      gconstpointer b)
{
  return strcmp (ts_tensor_get_name (*(TsTensor * const *) a),
                 ts_tensor_get_name (*(TsTensor * const *) b));
}

/* Each shard in file-name order, its tensors sorted by name as strings. */
static GPtrArray *
source_tensors_in_order (TsModelFile *source)
{
  GListModel *parts = ts_model_file_get_parts (source);
  GListModel *tensors = ts_model_file_get_tensors (source);
  GPtrArray *out = g_ptr_array_new_with_free_func (g_object_unref);
  guint n_parts = g_list_model_get_n_items (parts);
  g_autoptr(GPtrArray) by_part = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);

  /* one pass into a list per part (not one pass per part: a checkpoint
   * may have thousands of shards) */
  for (guint p = 0; p < n_parts; p++)
    g_ptr_array_add (by_part, g_ptr_array_new_with_free_func (g_object_unref));
  for (guint i = 0; i < g_list_model_get_n_items (tensors); i++)
    {
      TsTensor *t = g_list_model_get_item (tensors, i);
      guint p = ts_file_part_get_index (ts_tensor_get_part (t));

      if (p < n_parts)
        g_ptr_array_add (g_ptr_array_index (by_part, p), t);
      else
        g_object_unref (t);
    }
  for (guint p = 0; p < n_parts; p++)
    {
      GPtrArray *in_part = g_ptr_array_index (by_part, p);

      g_ptr_array_sort (in_part, compare_tensor_names);
      for (guint i = 0; i < in_part->len; i++)
        g_ptr_array_add (out, g_object_ref (g_ptr_array_index (in_part, i)));
    }
  return out;
}

static void
set_output_type (TsConversionPlan *self,
                 TsPlanTensor     *pt)
{
  TsDType src = ts_tensor_get_dtype (pt->source);
  TsDType out = outtype_dtype (self->outtype);

  if (ts_arch_keeps_f32 (self->arch, pt->name, pt->n_dims))
    out = TS_DTYPE_F32;
  if (out == TS_DTYPE_Q8_0 && pt->dims[0] % TS_Q8_0_BLOCK != 0)
    {
      out = TS_DTYPE_F16;
      add_warning (self, _("%s: row length %" PRIu64 " is not a multiple of 32; "
                   "stored as F16 instead of Q8_0"), pt->name, pt->dims[0]);
    }
  pt->dtype = out;
  if (out == src)
    pt->transform = TS_TRANSFORM_COPY;
  else if (out == TS_DTYPE_F32)
    pt->transform = TS_TRANSFORM_WIDEN;
  else if (out == TS_DTYPE_Q8_0)
    pt->transform = TS_TRANSFORM_QUANTIZE;
  else
    pt->transform = TS_TRANSFORM_CONVERT;
  ts_dtype_compute_size (out, pt->n_elements, &pt->size);
}

/* GGUF dims: the source shape reversed (llama.cpp's converter no longer
 * squeezes out dimensions of size 1); ts_arch_check_shape() has made sure
 * there are at most two. */
static void
set_dims (TsPlanTensor *pt,
          TsTensor     *source)
{
  guint64 shape[TS_MAX_DIMS];
  guint n = ts_tensor_get_n_dims (source);

  ts_tensor_get_row_major_shape (source, shape);
  pt->n_dims = 0;
  for (guint i = n; i > 0 && pt->n_dims < 4; i--)
    pt->dims[pt->n_dims++] = shape[i - 1];
  pt->n_elements = ts_tensor_get_n_elements (source);
}

static gboolean
add_source_tensor (TsConversionPlan    *self,
                   TsTensor            *t,
                   const TsPlanOptions *options,
                   GError             **error)
{
  g_autoptr(TsPlanTensor) pt = NULL;
  g_autofree char *name = NULL;
  TsPermute permute;
  gboolean dropped;

  name = ts_arch_map_tensor (self->arch, self->config, ts_tensor_get_name (t), &permute, &dropped);
  if (dropped)
    return TRUE;
  if (name == NULL)
    {
      if (options->allow_unknown_tensors)
        {
          add_warning (self, _("%s: no GGUF name for this tensor; left out"),
                       ts_tensor_get_name (t));
          return TRUE;
        }
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   _("%s: tensor '%s' has no GGUF name for the %s architecture; "
                   "refusing to drop it silently"),
                   ts_file_part_get_name (ts_tensor_get_part (t)),
                   ts_tensor_get_name (t), ts_arch_get_name (self->arch));
      return FALSE;
    }
  if (!ts_dtype_is_float (ts_tensor_get_dtype (t)) || ts_tensor_get_dtype (t) == TS_DTYPE_F64)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   _("tensor '%s' is %s; only F32, F16 and BF16 sources are converted"),
                   ts_tensor_get_name (t), ts_tensor_get_raw_dtype (t));
      return FALSE;
    }
  {
    guint64 shape[TS_MAX_DIMS];

    ts_tensor_get_row_major_shape (t, shape);
    if (!ts_arch_check_shape (self->arch, self->config, ts_tensor_get_name (t), shape,
                              ts_tensor_get_n_dims (t), error))
      {
        g_prefix_error (error, "%s: ", ts_file_part_get_name (ts_tensor_get_part (t)));
        return FALSE;
      }
  }
  pt = g_object_new (TS_TYPE_PLAN_TENSOR, NULL);
  pt->name = g_steal_pointer (&name);
  pt->source = g_object_ref (t);
  pt->permute = permute;
  set_dims (pt, t);
  if (permute != TS_PERMUTE_NONE)
    pt->permute_heads = ts_arch_permute_heads (self->config, permute);
  set_output_type (self, pt);
  g_list_store_append (self->tensors, pt);
  return TRUE;
}

static void
add_rope_freqs (TsConversionPlan *self)
{
  g_autoptr(TsPlanTensor) pt = g_object_new (TS_TYPE_PLAN_TENSOR, NULL);
  guint n;

  pt->name = g_strdup ("rope_freqs.weight");
  pt->generated = ts_hf_config_compute_rope_freqs (self->config, &n);
  pt->transform = TS_TRANSFORM_GENERATE;
  pt->dtype = TS_DTYPE_F32;
  pt->n_dims = 1;
  pt->dims[0] = n;
  pt->n_elements = n;
  pt->size = (guint64) n * 4;
  g_list_store_append (self->tensors, pt);
}

static gboolean
check_expected_tensors (TsConversionPlan  *self,
                        GError           **error)
{
  GListModel *tensors = G_LIST_MODEL (self->tensors);
  g_autoptr(GHashTable) present = g_hash_table_new (g_str_hash, g_str_equal);
  static const char * const per_layer[] = {
    "attn_norm.weight", "attn_q.weight", "attn_k.weight", "attn_v.weight",
    "attn_output.weight", "ffn_norm.weight", "ffn_gate.weight", "ffn_up.weight",
    "ffn_down.weight",
  };

  for (guint i = 0; i < g_list_model_get_n_items (tensors); i++)
    {
      g_autoptr(TsPlanTensor) pt = g_list_model_get_item (tensors, i);

      g_hash_table_add (present, (gpointer) pt->name);
    }
  for (guint l = 0; l < self->config->n_layers; l++)
    for (guint i = 0; i < G_N_ELEMENTS (per_layer); i++)
      {
        g_autofree char *name = g_strdup_printf ("blk.%u.%s", l, per_layer[i]);

        if (!g_hash_table_contains (present, name))
          {
            g_set_error (error, TS_FORMAT_ERROR, TS_FORMAT_ERROR_MISSING_TENSOR,
                         _("the checkpoint has no tensor for %s (layer %u of %u)"),
                         name, l, self->config->n_layers);
            return FALSE;
          }
      }
  if (!g_hash_table_contains (present, "token_embd.weight") ||
      !g_hash_table_contains (present, "output_norm.weight"))
    {
      g_set_error (error, TS_FORMAT_ERROR, TS_FORMAT_ERROR_MISSING_TENSOR,
                   _("the checkpoint lacks %s"),
                   !g_hash_table_contains (present, "token_embd.weight") ? "model.embed_tokens.weight"
                   : "model.norm.weight");
      return FALSE;
    }
  if (!self->config->tie_word_embeddings && !g_hash_table_contains (present, "output.weight"))
    {
      g_set_error (error, TS_FORMAT_ERROR, TS_FORMAT_ERROR_MISSING_TENSOR,
                   "%s", self->config->tie_word_embeddings_set
                   ? _("the checkpoint lacks lm_head.weight, and config.json says the embeddings "
                       "are not tied (tie_word_embeddings: false)")
                   : _("the checkpoint lacks lm_head.weight, and config.json does not set "
                       "tie_word_embeddings (transformers then takes the embeddings as untied); "
                       "add \"tie_word_embeddings\": true if the output layer is the embedding"));
      return FALSE;
    }
  return TRUE;
}

static gboolean
build_tensors (TsConversionPlan    *self,
               const TsPlanOptions *options,
               GError             **error)
{
  g_autoptr(GPtrArray) sources = source_tensors_in_order (self->source);

  if (ts_hf_config_has_rope_freqs (self->config))
    add_rope_freqs (self);
  for (guint i = 0; i < sources->len; i++)
    if (!add_source_tensor (self, g_ptr_array_index (sources, i), options, error))
      return FALSE;
  return check_expected_tensors (self, error);
}

static TsOutType
resolve_auto (TsConversionPlan *self)
{
  g_autoptr(GPtrArray) sources = source_tensors_in_order (self->source);

  /* the converter's guess: the type of the first source tensor of two or
   * more dimensions that is BF16 or F16, else F16 */
  for (guint i = 0; i < sources->len; i++)
    {
      TsTensor *t = g_ptr_array_index (sources, i);

      if (ts_tensor_get_n_dims (t) < 2)
        continue;
      if (ts_tensor_get_dtype (t) == TS_DTYPE_BF16)
        return TS_OUTTYPE_BF16;
      if (ts_tensor_get_dtype (t) == TS_DTYPE_F16)
        return TS_OUTTYPE_F16;
    }
  return TS_OUTTYPE_F16;
}

/* a JSON value as a message shows it: a float as a float (40.0, not 40),
 * anything long cut short */
static char *
json_value_text (JsonNode *node)
{
  g_autofree char *text = NULL;

  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_DOUBLE)
    {
      text = ts_format_float (json_node_get_double (node), FALSE);
      if (strspn (text, "-0123456789") == strlen (text))
        return g_strconcat (text, ".0", NULL);
      return g_steal_pointer (&text);
    }
  text = json_to_string (node, FALSE);
  if (g_utf8_strlen (text, -1) > 40)
    {
      g_autofree char *start = g_utf8_substring (text, 0, 40);

      return g_strconcat (start, "…", NULL);
    }
  return g_steal_pointer (&text);
}

/* One general.sampling.* value as gguf-py packs it (struct.pack), which
 * raises for a value of another type or out of range: an int32 takes an
 * integer or a bool (a Python bool is an int), not 40.0; a float32 takes
 * any number or bool; a string is left out when Python calls it false
 * ("", 0, [], …: GGUFWriter.add_string()). A null is left out. */
static gboolean
add_sampling_value (TsGgufMetadata  *md,
                    const char      *gguf_key,
                    TsValueType      type,
                    JsonNode        *node,
                    const char      *origin,
                    GError         **error)
{
  const char *name = origin + strlen ("generation_config.json: ");
  GType vt = JSON_NODE_HOLDS_VALUE (node) ? json_node_get_value_type (node) : G_TYPE_INVALID;
  g_autofree char *text = NULL;

  if (JSON_NODE_HOLDS_NULL (node))
    return TRUE;
  if (type == TS_VALUE_STRING && vt == G_TYPE_STRING)
    ts_gguf_metadata_add_string_nonempty (md, gguf_key, json_node_get_string (node), origin);
  else if (type == TS_VALUE_STRING && !_ts_json_truthy (node))
    return TRUE;
  else if (type == TS_VALUE_INT32 && vt == G_TYPE_INT64 &&
           json_node_get_int (node) >= G_MININT32 && json_node_get_int (node) <= G_MAXINT32)
    ts_gguf_metadata_add_int32 (md, gguf_key, (gint32) json_node_get_int (node), origin);
  else if (type == TS_VALUE_INT32 && vt == G_TYPE_BOOLEAN)
    ts_gguf_metadata_add_int32 (md, gguf_key, json_node_get_boolean (node), origin);
  else if (type == TS_VALUE_FLOAT32 && vt == G_TYPE_BOOLEAN)
    ts_gguf_metadata_add_float32 (md, gguf_key, json_node_get_boolean (node), origin);
  else if (type == TS_VALUE_FLOAT32 && (vt == G_TYPE_DOUBLE || vt == G_TYPE_INT64) &&
           !ts_overflows_float32 (json_node_get_double (node)))
    ts_gguf_metadata_add_float32 (md, gguf_key, (float) json_node_get_double (node), origin);
  else
    {
      text = json_value_text (node);
      if (type == TS_VALUE_INT32 && vt == G_TYPE_INT64)
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                     _("generation_config.json: %s is %s, beyond the range of int32"), name, text);
      else if (type == TS_VALUE_INT32)
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                     _("generation_config.json: %s is %s, not an integer: llama.cpp's converter "
                       "cannot write it as int32"), name, text);
      else if (type == TS_VALUE_FLOAT32 && (vt == G_TYPE_DOUBLE || vt == G_TYPE_INT64))
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                     _("generation_config.json: %s is %s, beyond the range of float32"), name, text);
      else if (type == TS_VALUE_FLOAT32)
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                     _("generation_config.json: %s is %s, not a number: llama.cpp's converter "
                       "cannot write it as float32"), name, text);
      else
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                     _("generation_config.json: %s is %s, not a string: llama.cpp's converter "
                       "cannot write it"), name, text);
      return FALSE;
    }
  return TRUE;
}

/**
 * _ts_sampling_add_metadata:
 * @dir: a checkpoint folder
 * @md: where the keys go
 * @unreadable: (out): set to why generation_config.json is there but
 *   cannot be read (the message starts with the file's name), or NULL
 * @error: return location for a #GError: a value llama.cpp's converter
 *   refuses to write
 *
 * Adds general.sampling.* from @dir's generation_config.json, as llama.cpp's
 * converter writes them, in its order. No file adds nothing, and so does an
 * unreadable one: the converter passes over it.
 *
 * Returns: %FALSE for a value the converter cannot write
 */
gboolean
_ts_sampling_add_metadata (GFile           *dir,
                           TsGgufMetadata  *md,
                           char           **unreadable,
                           GError         **error)
{
  static const struct { const char *hf; const char *gguf; TsValueType type; } keys[] = {
    { "sequence", "general.sampling.sequence", TS_VALUE_STRING },
    { "top_k", "general.sampling.top_k", TS_VALUE_INT32 },
    { "top_p", "general.sampling.top_p", TS_VALUE_FLOAT32 },
    { "min_p", "general.sampling.min_p", TS_VALUE_FLOAT32 },
    { "xtc_probability", "general.sampling.xtc_probability", TS_VALUE_FLOAT32 },
    { "xtc_threshold", "general.sampling.xtc_threshold", TS_VALUE_FLOAT32 },
    { "temperature", "general.sampling.temp", TS_VALUE_FLOAT32 },
    { "penalty_last_n", "general.sampling.penalty_last_n", TS_VALUE_INT32 },
    { "penalty_repeat", "general.sampling.penalty_repeat", TS_VALUE_FLOAT32 },
    { "mirostat", "general.sampling.mirostat", TS_VALUE_INT32 },
    { "mirostat_tau", "general.sampling.mirostat_tau", TS_VALUE_FLOAT32 },
    { "mirostat_eta", "general.sampling.mirostat_eta", TS_VALUE_FLOAT32 },
  };
  g_autoptr(GFile) file = g_file_get_child (dir, "generation_config.json");
  g_autoptr(JsonParser) parser = json_parser_new_immutable ();
  g_autoptr(GError) local_error = NULL;
  JsonObject *obj;

  *unreadable = NULL;
  obj = _ts_load_side_json (file, 16 * 1024 * 1024, parser, &local_error);
  if (obj == NULL)
    {
      if (!g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
        *unreadable = g_strdup (local_error->message);
      return TRUE;
    }
  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    {
      JsonNode *node = json_object_get_member (obj, keys[i].hf);
      g_autofree char *origin = g_strdup_printf ("generation_config.json: %s", keys[i].hf);

      /* the Hugging Face name, when the llama.cpp one is absent */
      if (node == NULL && g_str_equal (keys[i].hf, "penalty_repeat"))
        {
          node = json_object_get_member (obj, "repetition_penalty");
          g_free (origin);
          origin = g_strdup ("generation_config.json: repetition_penalty");
        }
      if (node != NULL && !add_sampling_value (md, keys[i].gguf, keys[i].type, node, origin, error))
        return FALSE;
    }
  return TRUE;
}

/* llama.cpp's converter passes over a generation_config.json it cannot
 * read; a conversion goes on without its sampling defaults too, and says
 * so. A value it cannot write stops it. */
static gboolean
add_sampling (TsConversionPlan  *self,
              GError           **error)
{
  g_autofree char *unreadable = NULL;

  if (!_ts_sampling_add_metadata (self->dir, self->metadata, &unreadable, error))
    return FALSE;
  if (unreadable != NULL)
    add_warning (self, _("%s; its sampling defaults are left out"), unreadable);
  return TRUE;
}

static void
add_hparam (TsGgufMetadata     *md,
            const char         *key,
            const TsArchHparam *hp)
{
  if (hp->type == TS_VALUE_FLOAT32)
    ts_gguf_metadata_add_float32 (md, key, (float) hp->value, hp->origin);
  else if (hp->type == TS_VALUE_BOOL)
    ts_gguf_metadata_add_bool (md, key, hp->value != 0, hp->origin);
  else
    ts_gguf_metadata_add_uint32 (md, key, (guint32) hp->value, hp->origin);
}

static void
add_hyperparameters (TsConversionPlan *self)
{
  TsGgufMetadata *md = self->metadata;
  const TsHfConfig *c = self->config;
  const char *a = ts_arch_get_name (self->arch);
  g_autofree char *k = NULL;
  TsArchHparam hp[TS_ARCH_MAX_HPARAMS];
  guint n = ts_arch_list_hparams (self->arch, c, hp);

#define KEY(suffix) (g_free (k), k = g_strdup_printf ("%s.%s", a, suffix))
  for (guint i = 0; i < n; i++)
    {
      /* TextModel.set_gguf_parameters() writes the rope scaling (linear,
       * yarn) before the base */
      if (g_str_equal (hp[i].suffix, "rope.freq_base") && c->rope_scaling_type != NULL)
        {
          g_autofree char *type_origin = g_strdup_printf ("config.json: %s", c->rope_origin);

          ts_gguf_metadata_add_string (md, KEY ("rope.scaling.type"), c->rope_scaling_type, type_origin);
          for (guint j = 0; j < c->n_rope_scaling; j++)
            add_hparam (md, KEY (c->rope_scaling[j].suffix), &c->rope_scaling[j]);
        }
      add_hparam (md, KEY (hp[i].suffix), &hp[i]);
    }
  if (c->has_head_dim)
    {
      ts_gguf_metadata_add_uint32 (md, KEY ("attention.key_length"), c->head_dim, "config.json: head_dim");
      ts_gguf_metadata_add_uint32 (md, KEY ("attention.value_length"), c->head_dim, "config.json: head_dim");
    }
  ts_gguf_metadata_add_uint32 (md, "general.file_type", outtype_file_type (self->outtype), "output type");
  ts_gguf_metadata_add_uint32 (md, KEY ("vocab_size"), c->vocab_size, "config.json: vocab_size");
  ts_gguf_metadata_add_uint32 (md, KEY ("rope.dimension_count"), c->head_dim,
                               c->has_head_dim ? "config.json: head_dim" : "hidden_size / num_attention_heads");
  ts_gguf_metadata_add_uint32 (md, "general.quantization_version", 2, "ggml quantization version");
#undef KEY
}

static guint64
total_elements (TsConversionPlan *self)
{
  GListModel *tensors = G_LIST_MODEL (self->tensors);
  guint64 total = 0;

  for (guint i = 0; i < g_list_model_get_n_items (tensors); i++)
    {
      g_autoptr(TsPlanTensor) pt = g_list_model_get_item (tensors, i);

      total += pt->n_elements;
    }
  return total;
}

static void
apply_naming_overrides (TsHfNaming          *naming,
                        const TsPlanOptions *options)
{
  const struct { TsHfNamingField field; const char *value; } overrides[] = {
    { TS_HF_NAMING_NAME, options->name },
    { TS_HF_NAMING_FINETUNE, options->finetune },
    { TS_HF_NAMING_SIZE_LABEL, options->size_label },
    { TS_HF_NAMING_LICENSE, options->license },
  };

  for (guint i = 0; i < G_N_ELEMENTS (overrides); i++)
    {
      /* unchanged values keep their derived origin */
      if (overrides[i].value == NULL ||
          g_strcmp0 (overrides[i].value, ts_hf_naming_get (naming, overrides[i].field)) == 0)
        continue;
      ts_hf_naming_override (naming, overrides[i].field, overrides[i].value, "edited by the user");
    }
}

static gboolean
build_metadata (TsConversionPlan    *self,
                const TsPlanOptions *options,
                GError             **error)
{
  const char *detected_pre = NULL;

  self->metadata = ts_gguf_metadata_new ();
  ts_gguf_metadata_add_string (self->metadata, "general.architecture",
                               ts_arch_get_name (self->arch), "config.json: architectures");
  ts_gguf_metadata_add_string (self->metadata, "general.type", "model", "converter");
  if (!add_sampling (self, error))
    return FALSE;
  self->naming = ts_hf_naming_new (self->dir, self->config, total_elements (self));
  apply_naming_overrides (self->naming, options);
  ts_hf_naming_write (self->naming, self->metadata);
  add_hyperparameters (self);
  if (!ts_hf_tokenizer_add_metadata_full (self->dir, self->config, options->tokenizer_pre,
                                          self->metadata, &detected_pre, error))
    return FALSE;
  /* deliberate, but it should be seen: llama.cpp will split text otherwise
   * than the tokenizer files say, and an audit fails the key */
  if (options->tokenizer_pre != NULL && detected_pre != NULL &&
      !g_str_equal (options->tokenizer_pre, detected_pre))
    {
      /* a SentencePiece vocabulary (it has scores) has no pre-tokenizer in
       * llama.cpp: the key is all that differs */
      if (ts_gguf_metadata_contains (self->metadata, "tokenizer.ggml.scores"))
        add_warning (self, _("tokenizer.ggml.pre is \"%s\" as given, not \"%s\": llama.cpp reads no "
                             "pre-tokenizer for a SentencePiece vocabulary, so only the key changes, "
                             "and an audit of the output fails it"),
                     options->tokenizer_pre, detected_pre);
      else
        add_warning (self, _("tokenizer.ggml.pre is \"%s\" as given, not \"%s\" as the tokenizer files "
                             "give: llama.cpp will split text the \"%s\" way, and an audit of the "
                             "output fails this key"),
                     options->tokenizer_pre, detected_pre, options->tokenizer_pre);
    }
  /* gguf-py's SpecialVocab warns and writes the file all the same (a
   * SentencePiece model, with its scores, needs none) */
  if (!ts_gguf_metadata_contains (self->metadata, "tokenizer.ggml.merges") &&
      !ts_gguf_metadata_contains (self->metadata, "tokenizer.ggml.scores"))
    add_warning (self, _("tokenizer.json has no merges (model.merges is missing or empty, and there is no "
                         "merges.txt): the file has no tokenizer.ggml.merges, as llama.cpp's "
                         "converter writes it, and may not tokenize"));
  return TRUE;
}

static PlanFile *
get_file (TsConversionPlan *self,
          guint             file)
{
  return &g_array_index (self->files, PlanFile, file);
}

static TsGgufMetadata *
file_metadata (TsConversionPlan *self,
               guint             file)
{
  return file == 0 ? self->metadata : get_file (self, file)->own_metadata;
}

static void
add_split_keys (TsGgufMetadata *md,
                guint           no,
                guint           count,
                guint           n_tensors)
{
  ts_gguf_metadata_add_uint16 (md, "split.no", no, _("split"));
  ts_gguf_metadata_add_uint16 (md, "split.count", count, _("split"));
  ts_gguf_metadata_add_int32 (md, "split.tensors.count", n_tensors, _("split"));
}

/* Shares the tensors out among the output files as llama.cpp's GGUFWriter
 * does (--split-max-tensors, --split-max-size, --no-tensor-first-split):
 * a file takes tensors in order until the next would pass a limit (the
 * size one counts tensor bytes without padding), and holds at least one.
 * A split set's files all get split.no, split.count and
 * split.tensors.count, after the first file's other keys. */
static gboolean
split_tensors (TsConversionPlan     *self,
               const TsPlanOptions  *options,
               GError              **error)
{
  GListModel *tensors = G_LIST_MODEL (self->tensors);
  guint n_tensors = g_list_model_get_n_items (tensors);
  gboolean splitting = options->split_max_tensors > 0 || options->split_max_size > 0;
  PlanFile empty = { 0 };
  guint n_shards;

  g_array_append_val (self->files, empty);
  if (options->split_no_tensor_first)
    g_array_append_val (self->files, empty);
  for (guint i = 0; i < n_tensors; i++)
    {
      g_autoptr(TsPlanTensor) pt = g_list_model_get_item (tensors, i);
      PlanFile *last = get_file (self, self->files->len - 1);

      if (last->n_tensors > 0 &&
          ((options->split_max_tensors > 0 && last->n_tensors >= options->split_max_tensors) ||
           (options->split_max_size > 0 && last->tensor_bytes + pt->size > options->split_max_size)))
        {
          g_array_append_val (self->files, empty);
          last = get_file (self, self->files->len - 1);
          last->first_tensor = i;
        }
      pt->file = self->files->len - 1;
      last->n_tensors++;
      last->tensor_bytes += pt->size;
    }
  if (self->files->len == 1)
    {
      if (splitting)
        add_warning (self, _("the model fits in one file within the split limits: it is not split"));
      return TRUE;
    }
  /* the audit has the checkpoint's shards open beside the set */
  n_shards = g_list_model_get_n_items (ts_model_file_get_parts (self->source));
  if (self->files->len + n_shards > TS_MAP_GUARD_MAX)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   _("these split limits make %u files, but Tensorscope reads back and audits "
                   "at most %u files at once (this checkpoint's %u included)"),
                   self->files->len, TS_MAP_GUARD_MAX, n_shards);
      return FALSE;
    }
  for (guint k = 0; k < self->files->len; k++)
    {
      if (k > 0)
        get_file (self, k)->own_metadata = ts_gguf_metadata_new ();
      add_split_keys (file_metadata (self, k), k, self->files->len, n_tensors);
    }
  return TRUE;
}

static TsGgufWriter *
create_writer (TsConversionPlan *self,
               guint             file,
               gboolean          set_offsets)
{
  PlanFile *f = get_file (self, file);
  TsGgufWriter *writer = ts_gguf_writer_new (file_metadata (self, file), GGUF_ALIGNMENT);

  for (guint i = f->first_tensor; i < f->first_tensor + f->n_tensors; i++)
    {
      g_autoptr(TsPlanTensor) pt = g_list_model_get_item (G_LIST_MODEL (self->tensors), i);
      guint64 offset = ts_gguf_writer_add_tensor (writer, pt->name, pt->n_dims, pt->dims,
                                                  pt->dtype, pt->size);

      if (set_offsets)
        pt->offset = offset;
    }
  return writer;
}

static void
lay_out (TsConversionPlan *self)
{
  self->predicted_size = 0;
  for (guint k = 0; k < self->files->len; k++)
    {
      g_autoptr(TsGgufWriter) writer = create_writer (self, k, TRUE);
      PlanFile *f = get_file (self, k);

      f->metadata_end = ts_gguf_writer_get_metadata_end (writer);
      f->data_offset = ts_gguf_writer_get_data_offset (writer);
      f->size = ts_gguf_writer_get_total_size (writer);
      self->predicted_size += f->size;
    }
}

static void
stamp_shards (TsConversionPlan *self)
{
  GListModel *parts = ts_model_file_get_parts (self->source);

  for (guint i = 0; i < g_list_model_get_n_items (parts); i++)
    {
      g_autoptr(TsFilePart) part = g_list_model_get_item (parts, i);
      ShardStamp s = { 0 };
      GStatBuf st;

      s.path = g_file_get_path (ts_file_part_get_file (part));
      if (g_stat (s.path, &st) == 0)
        {
          s.size = st.st_size;
          s.mtime_ns = STAT_NS (st.st_mtim);
          s.ctime_ns = STAT_NS (st.st_ctim);
          s.inode = st.st_ino;
        }
      g_array_append_val (self->stamps, s);
    }
}

static gboolean
load_source (TsConversionPlan  *self,
             GCancellable      *cancellable,
             GError           **error)
{
  self->config = ts_hf_config_load (self->dir, error);
  if (self->config == NULL)
    return FALSE;
  self->arch = ts_arch_for_config (self->config, error);
  if (self->arch == NULL)
    return FALSE;
  /* keys config.json leaves to transformers' defaults, as the converter does */
  for (guint i = 0; self->config->defaults_used != NULL && i < self->config->defaults_used->len; i++)
    add_warning (self, "%s", (const char *) g_ptr_array_index (self->config->defaults_used, i));
  if (self->config->rope_type != NULL && g_str_equal (self->config->rope_type, "dynamic"))
    add_warning (self, _("config.json: %s type \"dynamic\" (dynamic NTK) is left out, as llama.cpp's "
                         "converter leaves it: llama.cpp runs this architecture without it, so "
                         "contexts beyond max_position_embeddings are not scaled"),
                 self->config->rope_origin);
  if (self->config->rope_type != NULL && self->config->rope_scaling_type == NULL &&
      g_str_equal (self->config->rope_type, "linear"))
    add_warning (self, _("config.json: %s type \"%s\" has no factor: nothing is scaled, and no "
                         "rope.scaling key is written, as llama.cpp's converter does"),
                 self->config->rope_origin, self->config->rope_type);
  self->source = ts_model_file_load (self->dir, cancellable, error);
  if (self->source == NULL)
    return FALSE;
  if (!TS_IS_SAFETENSORS_FILE (self->source))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   _("the folder holds no Safetensors checkpoint"));
      return FALSE;
    }
  /* what the reader noticed (shards left out, bytes after the data, a
   * total_size that disagrees) is the conversion's to tell too */
  for (const char * const *w = ts_model_file_get_warnings (self->source); *w != NULL; w++)
    add_warning (self, "%s", *w);
  stamp_shards (self);
  return TRUE;
}

/**
 * ts_conversion_plan_new:
 * @dir: a Hugging Face checkpoint folder
 *
 * Reads config.json, the tokenizer files and every shard header, and
 * decides everything the conversion will write. Writes nothing. A
 * @options->tokenizer_pre llama.cpp does not know is refused
 * (%G_IO_ERROR_INVALID_ARGUMENT, see ts_hf_tokenizer_check_pre()); one
 * that differs from the name the tokenizer files give is a warning.
 *
 * Returns: (transfer full): the plan, or %NULL with @error set
 */
TsConversionPlan *
ts_conversion_plan_new (GFile               *dir,
                        const TsPlanOptions *options,
                        GCancellable        *cancellable,
                        GError             **error)
{
  g_autoptr(TsConversionPlan) self = g_object_new (TS_TYPE_CONVERSION_PLAN, NULL);

  g_return_val_if_fail (G_IS_FILE (dir), NULL);
  g_return_val_if_fail (options != NULL, NULL);

  /* a name llama.cpp does not know: a file it would refuse to load */
  if (options->tokenizer_pre != NULL && !ts_hf_tokenizer_check_pre (options->tokenizer_pre, error))
    return NULL;
  self->dir = g_object_ref (dir);
  {
    g_autofree char *path = g_file_get_path (dir);
    g_autofree char *shown = ts_file_display_name (dir);
    GStatBuf st;

    /* a file given where the folder belongs: say that, not that
     * config.json is missing from it */
    if (path != NULL && g_stat (path, &st) == 0 && !S_ISDIR (st.st_mode))
      {
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_DIRECTORY,
                     _("%s is not a folder: give the checkpoint's folder (with config.json and "
                     "the .safetensors files)"), shown);
        return NULL;
      }
  }
  if (!load_source (self, cancellable, error))
    return NULL;
  self->outtype = options->outtype == TS_OUTTYPE_AUTO ? resolve_auto (self) : options->outtype;
  if (!build_tensors (self, options, error) || !build_metadata (self, options, error) ||
      !split_tensors (self, options, error))
    return NULL;
  lay_out (self);
  return g_steal_pointer (&self);
}

typedef struct
{
  GFile        *dir;
  TsPlanOptions options;
  char         *tokenizer_pre;
  char         *name;
  char         *finetune;
  char         *size_label;
  char         *license;
} PlanTaskData;

static void
plan_task_data_free (PlanTaskData *data)
{
  g_object_unref (data->dir);
  g_free (data->tokenizer_pre);
  g_free (data->name);
  g_free (data->finetune);
  g_free (data->size_label);
  g_free (data->license);
  g_free (data);
}

static void
plan_thread (GTask        *task,
             gpointer      source_object,
             gpointer      task_data,
             GCancellable *cancellable)
{
  PlanTaskData *data = task_data;
  GError *error = NULL;
  TsConversionPlan *plan = ts_conversion_plan_new (data->dir, &data->options, cancellable, &error);

  if (plan == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, plan, g_object_unref);
}

void
ts_conversion_plan_new_async (GFile               *dir,
                              const TsPlanOptions *options,
                              GCancellable        *cancellable,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (NULL, cancellable, callback, user_data);
  PlanTaskData *data = g_new0 (PlanTaskData, 1);

  data->dir = g_object_ref (dir);
  data->options = *options;
  data->tokenizer_pre = g_strdup (options->tokenizer_pre);
  data->options.tokenizer_pre = data->tokenizer_pre;
  data->options.name = data->name = g_strdup (options->name);
  data->options.finetune = data->finetune = g_strdup (options->finetune);
  data->options.size_label = data->size_label = g_strdup (options->size_label);
  data->options.license = data->license = g_strdup (options->license);
  g_task_set_source_tag (task, ts_conversion_plan_new_async);
  g_task_set_task_data (task, data, (GDestroyNotify) plan_task_data_free);
  g_task_run_in_thread (task, plan_thread);
}

TsConversionPlan *
ts_conversion_plan_new_finish (GAsyncResult  *result,
                               GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

GFile *
ts_conversion_plan_get_dir (TsConversionPlan *self)
{
  g_return_val_if_fail (TS_IS_CONVERSION_PLAN (self), 0);
  return self->dir;
}

TsModelFile *
ts_conversion_plan_get_source (TsConversionPlan *self)
{
  g_return_val_if_fail (TS_IS_CONVERSION_PLAN (self), 0);
  return self->source;
}

const TsHfConfig *
ts_conversion_plan_get_config (TsConversionPlan *self)
{
  g_return_val_if_fail (TS_IS_CONVERSION_PLAN (self), 0);
  return self->config;
}

const TsArch *
ts_conversion_plan_get_arch (TsConversionPlan *self)
{
  g_return_val_if_fail (TS_IS_CONVERSION_PLAN (self), 0);
  return self->arch;
}

TsOutType
ts_conversion_plan_get_outtype (TsConversionPlan *self)
{
  g_return_val_if_fail (TS_IS_CONVERSION_PLAN (self), 0);
  return self->outtype;
}

GListModel *
ts_conversion_plan_get_tensors (TsConversionPlan *self)
{
  g_return_val_if_fail (TS_IS_CONVERSION_PLAN (self), 0);
  return G_LIST_MODEL (self->tensors);
}

TsGgufMetadata *
ts_conversion_plan_get_metadata (TsConversionPlan *self)
{
  g_return_val_if_fail (TS_IS_CONVERSION_PLAN (self), 0);
  return self->metadata;
}

guint
ts_conversion_plan_get_n_files (TsConversionPlan *self)
{
  g_return_val_if_fail (TS_IS_CONVERSION_PLAN (self), 0);
  return self->files->len;
}

guint
ts_conversion_plan_get_file_n_tensors (TsConversionPlan *self,
                                       guint             file)
{
  g_return_val_if_fail (TS_IS_CONVERSION_PLAN (self), 0);
  g_return_val_if_fail (file < self->files->len, 0);
  return get_file (self, file)->n_tensors;
}

guint64
ts_conversion_plan_get_data_offset (TsConversionPlan *self,
                                    guint             file)
{
  g_return_val_if_fail (TS_IS_CONVERSION_PLAN (self), 0);
  g_return_val_if_fail (file < self->files->len, 0);
  return get_file (self, file)->data_offset;
}

guint64
ts_conversion_plan_get_metadata_end (TsConversionPlan *self,
                                     guint             file)
{
  g_return_val_if_fail (TS_IS_CONVERSION_PLAN (self), 0);
  g_return_val_if_fail (file < self->files->len, 0);
  return get_file (self, file)->metadata_end;
}

guint64
ts_conversion_plan_get_file_size (TsConversionPlan *self,
                                  guint             file)
{
  g_return_val_if_fail (TS_IS_CONVERSION_PLAN (self), 0);
  g_return_val_if_fail (file < self->files->len, 0);
  return get_file (self, file)->size;
}

/* Python's PurePath.stem: the name without its last suffix */
static char *
path_stem (const char *name)
{
  const char *dot = strrchr (name, '.');

  if (dot != NULL && dot > name && dot[1] != '\0')
    return g_strndup (name, dot - name);
  return g_strdup (name);
}

/**
 * ts_conversion_plan_get_output_file:
 * @self: a #TsConversionPlan
 * @target: the output file the user gave
 * @file: which of the plan's output files, from 0
 *
 * Where output file @file goes: @target itself when the model is not
 * split, else the name llama.cpp's converter gives split @file of a set
 * written to @target: for "out.gguf", "out-00001-of-00003.gguf" and so
 * on, in @target's folder.
 *
 * Returns: (transfer full): the file
 */
GFile *
ts_conversion_plan_get_output_file (TsConversionPlan *self,
                                    GFile            *target,
                                    guint             file)
{
  g_autoptr(GFile) parent = NULL;
  g_autofree char *base = NULL;
  g_autofree char *stem = NULL;
  g_autofree char *name = NULL;

  g_return_val_if_fail (TS_IS_CONVERSION_PLAN (self), NULL);
  g_return_val_if_fail (G_IS_FILE (target), NULL);
  g_return_val_if_fail (file < self->files->len, NULL);

  if (self->files->len == 1)
    return g_object_ref (target);
  parent = g_file_get_parent (target);
  base = g_file_get_basename (target);
  stem = path_stem (base);
  name = g_strdup_printf ("%s" TS_GGUF_SPLIT_NAME_FORMAT, stem, file + 1, self->files->len);
  return parent != NULL ? g_file_get_child (parent, name) : g_file_new_for_path (name);
}

guint64
ts_conversion_plan_get_predicted_size (TsConversionPlan *self)
{
  g_return_val_if_fail (TS_IS_CONVERSION_PLAN (self), 0);
  return self->predicted_size;
}


GListModel *
ts_conversion_plan_list_metadata (TsConversionPlan *self)
{
  return ts_gguf_metadata_list_entries (self->metadata);
}

const char * const *
ts_conversion_plan_get_warnings (TsConversionPlan *self)
{
  return (const char * const *) self->warnings->pdata;
}

char *
ts_conversion_plan_get_default_file_name (TsConversionPlan *self)
{
  g_return_val_if_fail (TS_IS_CONVERSION_PLAN (self), NULL);
  return ts_hf_naming_get_file_name (self->naming, ts_outtype_to_nick (self->outtype));
}

/* the name is the model's and the type's: it needs no plan per type */
char *
ts_conversion_plan_get_default_file_name_for (TsConversionPlan *self,
                                              TsOutType         outtype)
{
  g_return_val_if_fail (TS_IS_CONVERSION_PLAN (self), NULL);
  g_return_val_if_fail (ts_outtype_to_nick (outtype) != NULL, NULL);

  if (outtype == TS_OUTTYPE_AUTO)
    outtype = resolve_auto (self);
  return ts_hf_naming_get_file_name (self->naming, ts_outtype_to_nick (outtype));
}

TsGgufWriter *
ts_conversion_plan_create_writer (TsConversionPlan *self,
                                  guint             file)
{
  g_return_val_if_fail (TS_IS_CONVERSION_PLAN (self), NULL);
  g_return_val_if_fail (file < self->files->len, NULL);
  return create_writer (self, file, FALSE);
}

/* the files beside the shards that the plan reads; and every .jinja file
 * in additional_chat_templates/ */
static const char * const side_files[] = {
  "config.json", "generation_config.json", "tokenizer.json", "tokenizer_config.json",
  "special_tokens_map.json", "chat_template.jinja", "tokenizer.model", "added_tokens.json",
  "merges.txt", "README.md", "model.safetensors.index.json", NULL
};

static gboolean
same_file (const GStatBuf *a,
           const char     *path)
{
  GStatBuf b;

  return g_stat (path, &b) == 0 && a->st_dev == b.st_dev && a->st_ino == b.st_ino;
}

/* the name (in the checkpoint folder) of the side file that @st is, if the
 * plan reads it */
static char *
read_side_file (TsConversionPlan *self,
                const GStatBuf   *st)
{
  g_autoptr(GFile) templates = g_file_get_child (self->dir, "additional_chat_templates");
  g_autofree char *templates_path = g_file_get_path (templates);
  g_autoptr(GPtrArray) read = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GDir) listing = NULL;
  const char *name;

  for (guint i = 0; side_files[i] != NULL; i++)
    g_ptr_array_add (read, g_strdup (side_files[i]));
  if (templates_path != NULL && (listing = g_dir_open (templates_path, 0, NULL)) != NULL)
    while ((name = g_dir_read_name (listing)) != NULL)
      if (g_str_has_suffix (name, ".jinja"))
        g_ptr_array_add (read, g_build_filename ("additional_chat_templates", name, NULL));
  for (guint i = 0; i < read->len; i++)
    {
      g_autoptr(GFile) side = g_file_resolve_relative_path (self->dir, g_ptr_array_index (read, i));
      g_autofree char *side_path = g_file_get_path (side);

      if (side_path != NULL && same_file (st, side_path))
        return g_strdup (g_ptr_array_index (read, i));
    }
  return NULL;
}

static gboolean
check_output_file (TsConversionPlan  *self,
                   GFile             *target,
                   gboolean           overwrite,
                   GError           **error)
{
  g_autofree char *path = g_file_get_path (target);
  g_autofree char *shown = ts_file_display_name (target);
  GStatBuf lst, st;

  if (path == NULL || g_lstat (path, &lst) != 0)
    return TRUE; /* nothing there: the write itself will say what is wrong */
  if (g_stat (path, &st) != 0)
    st = lst;    /* a link to nothing */
  if (S_ISDIR (st.st_mode))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_IS_DIRECTORY,
                   _("%s is a folder: give the output file's name"), shown);
      return FALSE;
    }
  if (!S_ISREG (st.st_mode) && !S_ISLNK (st.st_mode))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE,
                   _("%s is not a regular file (a device, pipe or socket): it is never "
                   "replaced"), shown);
      return FALSE;
    }
  if (S_ISREG (st.st_mode))
    {
      g_autofree char *side = NULL;

      for (guint i = 0; i < self->stamps->len; i++)
        {
          ShardStamp *s = &g_array_index (self->stamps, ShardStamp, i);

          if (same_file (&st, s->path))
            {
              g_autofree char *name = g_filename_display_basename (s->path);

              g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                           _("%s is the checkpoint's own %s: the conversion reads it"), shown, name);
              return FALSE;
            }
        }
      if ((side = read_side_file (self, &st)) != NULL)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                       _("%s is the checkpoint's own %s: the conversion reads it"), shown, side);
          return FALSE;
        }
    }
  if (!overwrite)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS,
                   _("%s already exists (use --force to replace it)"), path);
      return FALSE;
    }
  return TRUE;
}

/**
 * ts_conversion_plan_check_target:
 * @self: a #TsConversionPlan
 * @target: the output file (for a split model, the name its files are
 *   named after: see ts_conversion_plan_get_output_file())
 * @overwrite: whether an existing regular file may be replaced
 * @error: return location for a #GError
 *
 * Checks, before any work, what the conversion will put its output files
 * in place of. An existing file (a link too, even one that points nowhere)
 * is replaced only with @overwrite; a folder, a device, a pipe or a socket
 * never is, nor is any file the conversion reads (a shard, config.json, …),
 * under any name.
 *
 * Returns: %TRUE if the output may go to @target
 */
gboolean
ts_conversion_plan_check_target (TsConversionPlan  *self,
                                 GFile             *target,
                                 gboolean           overwrite,
                                 GError           **error)
{
  g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);

  g_return_val_if_fail (TS_IS_CONVERSION_PLAN (self), FALSE);
  g_return_val_if_fail (G_IS_FILE (target), FALSE);

  /* a folder given for the name a set is named after: said as for one file */
  if (self->files->len > 1 &&
      g_file_query_file_type (target, G_FILE_QUERY_INFO_NONE, NULL) == G_FILE_TYPE_DIRECTORY)
    {
      g_autofree char *shown = ts_file_display_name (target);

      g_set_error (error, G_IO_ERROR, G_IO_ERROR_IS_DIRECTORY,
                   _("%s is a folder: give the output file's name"), shown);
      return FALSE;
    }
  for (guint k = 0; k < self->files->len; k++)
    {
      g_autoptr(GFile) file = ts_conversion_plan_get_output_file (self, target, k);
      g_autofree char *path = g_file_get_path (file);
      GStatBuf st;

      if (!check_output_file (self, file, overwrite, error))
        return FALSE;
      /* two names of one file (links): each file written would replace
       * the one before */
      if (path != NULL && g_stat (path, &st) == 0)
        {
          g_autofree char *id = g_strdup_printf ("%" G_GUINT64_FORMAT ":%" G_GUINT64_FORMAT,
                                                 (guint64) st.st_dev, (guint64) st.st_ino);
          const char *other = g_hash_table_lookup (seen, id);

          if (other != NULL)
            {
              g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                           _("%s and %s are the same file: the files of a split set must be "
                           "distinct"), other, path);
              return FALSE;
            }
          g_hash_table_insert (seen, g_steal_pointer (&id), g_strdup (path));
        }
    }
  return TRUE;
}

gboolean
ts_conversion_plan_check_space (TsConversionPlan  *self,
                                GFile             *target,
                                GError           **error)
{
  /* (a split set's files are new names beside @target) */
  g_autoptr(GFile) first = ts_conversion_plan_get_output_file (self, target, 0);
  g_autoptr(GFile) resolved = _ts_output_file_resolve (first);
  g_autoptr(GFile) dir = g_file_get_parent (resolved);
  g_autofree char *path = dir ? g_file_get_path (dir) : NULL;
  struct statvfs st;
  guint64 avail;

  /* (a file system of no blocks, /proc say, is no measure: the write
   * itself will say what is wrong, as where the folder is not there) */
  if (path == NULL || statvfs (path, &st) != 0 || st.f_blocks == 0)
    return TRUE;
  avail = (guint64) st.f_bavail * st.f_frsize;
  if (avail < self->predicted_size)
    {
      g_autofree char *need = g_format_size (self->predicted_size);
      g_autofree char *have = g_format_size (avail);

      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NO_SPACE,
                   _("%s has %s free, but the output needs %s"), path, have, need);
      return FALSE;
    }
  return TRUE;
}

gboolean
ts_conversion_plan_check_unchanged (TsConversionPlan  *self,
                                    GError           **error)
{
  for (guint i = 0; i < self->stamps->len; i++)
    {
      ShardStamp *s = &g_array_index (self->stamps, ShardStamp, i);
      GStatBuf st;

      if (g_stat (s->path, &st) != 0 || (guint64) st.st_size != s->size ||
          STAT_NS (st.st_mtim) != s->mtime_ns || STAT_NS (st.st_ctim) != s->ctime_ns ||
          (guint64) st.st_ino != s->inode)
        {
          g_autofree char *name = g_filename_display_basename (s->path);

          g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                       _("%s changed while it was being converted; the output was discarded"),
                       name);
          return FALSE;
        }
    }
  return TRUE;
}
