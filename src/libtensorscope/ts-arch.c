/* ts-arch.c: the llama architecture as data
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <inttypes.h>

#include <glib/gi18n-lib.h>

#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "ts-side-file-private.h"
#include "ts-arch.h"
#include "ts-json-private.h"
#include "ts-metadata-entry.h"

/* the size of one dimension of a tensor, in terms of config.json */
typedef enum
{
  DIM_NONE,        /* no such dimension */
  DIM_VOCAB,       /* vocab_size */
  DIM_HIDDEN,      /* hidden_size */
  DIM_Q,           /* num_attention_heads * head_dim */
  DIM_KV,          /* num_key_value_heads * head_dim */
  DIM_FFN,         /* intermediate_size */
} Dim;

typedef struct
{
  const char *hf;        /* Hugging Face name (per layer: after "model.layers.N.") */
  const char *gguf;      /* GGUF name (per layer: after "blk.N.") */
  TsPermute   permute;
  Dim         rows;      /* the Hugging Face shape: [rows] or [rows, cols] */
  Dim         cols;
} TensorRule;

struct _TsArch
{
  const char        *name;
  const char * const *hf_architectures;
  const TensorRule  *global_rules;
  const TensorRule  *layer_rules;
  const char * const *dropped_suffixes;
};

static const TensorRule llama_global_rules[] = {
  { "model.embed_tokens.weight", "token_embd.weight", TS_PERMUTE_NONE, DIM_VOCAB, DIM_HIDDEN },
  { "model.norm.weight", "output_norm.weight", TS_PERMUTE_NONE, DIM_HIDDEN, DIM_NONE },
  { "lm_head.weight", "output.weight", TS_PERMUTE_NONE, DIM_VOCAB, DIM_HIDDEN },
  { NULL }
};

/* the optional biases (attention_bias, mlp_bias) are those llama.cpp loads */
static const TensorRule llama_layer_rules[] = {
  { "input_layernorm.weight", "attn_norm.weight", TS_PERMUTE_NONE, DIM_HIDDEN, DIM_NONE },
  { "self_attn.q_proj.weight", "attn_q.weight", TS_PERMUTE_Q, DIM_Q, DIM_HIDDEN },
  { "self_attn.q_proj.bias", "attn_q.bias", TS_PERMUTE_Q, DIM_Q, DIM_NONE },
  { "self_attn.k_proj.weight", "attn_k.weight", TS_PERMUTE_K, DIM_KV, DIM_HIDDEN },
  { "self_attn.k_proj.bias", "attn_k.bias", TS_PERMUTE_K, DIM_KV, DIM_NONE },
  { "self_attn.v_proj.weight", "attn_v.weight", TS_PERMUTE_NONE, DIM_KV, DIM_HIDDEN },
  { "self_attn.v_proj.bias", "attn_v.bias", TS_PERMUTE_NONE, DIM_KV, DIM_NONE },
  { "self_attn.o_proj.weight", "attn_output.weight", TS_PERMUTE_NONE, DIM_HIDDEN, DIM_Q },
  { "self_attn.o_proj.bias", "attn_output.bias", TS_PERMUTE_NONE, DIM_HIDDEN, DIM_NONE },
  { "post_attention_layernorm.weight", "ffn_norm.weight", TS_PERMUTE_NONE, DIM_HIDDEN, DIM_NONE },
  { "mlp.gate_proj.weight", "ffn_gate.weight", TS_PERMUTE_NONE, DIM_FFN, DIM_HIDDEN },
  { "mlp.gate_proj.bias", "ffn_gate.bias", TS_PERMUTE_NONE, DIM_FFN, DIM_NONE },
  { "mlp.up_proj.weight", "ffn_up.weight", TS_PERMUTE_NONE, DIM_FFN, DIM_HIDDEN },
  { "mlp.up_proj.bias", "ffn_up.bias", TS_PERMUTE_NONE, DIM_FFN, DIM_NONE },
  { "mlp.down_proj.weight", "ffn_down.weight", TS_PERMUTE_NONE, DIM_HIDDEN, DIM_FFN },
  { "mlp.down_proj.bias", "ffn_down.bias", TS_PERMUTE_NONE, DIM_HIDDEN, DIM_NONE },
  { NULL }
};

/* (LLaMAForCausalLM: the name of the first Hugging Face conversions) */
static const char * const llama_hf_architectures[] = {
  "LlamaForCausalLM", "MistralForCausalLM", "LLaMAForCausalLM", NULL
};

/* tensors the converter skips, wherever they are */
static const char * const llama_dropped[] = {
  ".rotary_emb.inv_freq", ".attention.masked_bias", ".attention.bias", NULL
};

static const TsArch architectures[] = {
  { "llama", llama_hf_architectures, llama_global_rules, llama_layer_rules, llama_dropped },
};

/* far above any released model (256k tokens, heads of 256) */
#define TS_HF_MAX_VOCAB_SIZE (1u << 24)
#define TS_HF_MAX_HEAD_DIM   (1u << 16)

static gboolean
read_uint (JsonObject *obj,
           const char *name,
           guint64    *out)
{
  JsonNode *node = json_object_get_member (obj, name);

  if (node == NULL || JSON_NODE_TYPE (node) != JSON_NODE_VALUE ||
      json_node_get_value_type (node) != G_TYPE_INT64 || json_node_get_int (node) < 0)
    return FALSE;
  *out = (guint64) json_node_get_int (node);
  return TRUE;
}

/* TextModel.set_gguf_parameters()'s names for a LayerNorm epsilon */
static const char * const layer_norm_eps_keys[] = {
  "layer_norm_eps", "layer_norm_epsilon", "norm_epsilon",
};

static gboolean
read_double (JsonObject *obj,
             const char *name,
             double     *out)
{
  JsonNode *node = json_object_get_member (obj, name);
  GType t;

  if (node == NULL || JSON_NODE_TYPE (node) != JSON_NODE_VALUE)
    return FALSE;
  t = json_node_get_value_type (node);
  if (t != G_TYPE_INT64 && t != G_TYPE_DOUBLE)
    return FALSE;
  *out = json_node_get_double (node);
  return TRUE;
}

/* @obj's member @name as a number, where llama.cpp's converter takes a
 * missing or null one as absent (*@present is then FALSE) and stops at
 * any other type, or at one gguf-py cannot pack as a float32 when
 * @float32. @where is the member's path for messages ("rope_scaling."). */
static gboolean
get_number (JsonObject  *obj,
            const char  *where,
            const char  *name,
            gboolean     float32,
            double      *out,
            gboolean    *present,
            GError     **error)
{
  JsonNode *node = json_object_get_member (obj, name);

  *present = FALSE;
  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return TRUE;
  if (!read_double (obj, name, out))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("config.json: \"%s%s\" must be a number"), where, name);
      return FALSE;
    }
  if (float32 && ts_overflows_float32 (*out))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("config.json: \"%s%s\" is %g, beyond the range of float32"), where, name, *out);
      return FALSE;
    }
  *present = TRUE;
  return TRUE;
}

static gboolean
require_uint (JsonObject  *obj,
              const char  *name,
              guint       *out,
              GError     **error)
{
  guint64 v;

  if (!read_uint (obj, name, &v) || v == 0 || v > G_MAXUINT32)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("config.json: \"%s\" must be a positive integer"), name);
      return FALSE;
    }
  *out = (guint) v;
  return TRUE;
}

static gboolean
read_single_int (JsonObject *obj,
                 const char *name,
                 gint64     *out)
{
  JsonNode *node = json_object_get_member (obj, name);

  if (node == NULL || JSON_NODE_TYPE (node) != JSON_NODE_VALUE ||
      json_node_get_value_type (node) != G_TYPE_INT64)
    return FALSE;
  *out = json_node_get_int (node);
  return TRUE;
}

/* The values transformers' config class fills in for keys a config.json
 * leaves out. llama.cpp's converter reads the config through transformers'
 * AutoConfig (chosen by model_type), so a missing key converts as this
 * default; a model_type transformers does not know gets no defaults. */
typedef struct
{
  const char *model_type;
  const char *class_name;
  guint64     context_length;   /* max_position_embeddings */
  double      rms_norm_eps;
  double      rope_theta;
  guint       n_kv_heads;       /* 0: as many as attention heads */
} ConfigDefaults;

static const ConfigDefaults config_defaults[] = {
  { "llama", "LlamaConfig", 2048, 1e-6, 10000.0, 0 },
  { "mistral", "MistralConfig", 4096 * 32, 1e-6, 10000.0, 8 },
};

static const ConfigDefaults *
defaults_for (const char *model_type)
{
  for (guint i = 0; model_type != NULL && i < G_N_ELEMENTS (config_defaults); i++)
    if (g_str_equal (model_type, config_defaults[i].model_type))
      return &config_defaults[i];
  return NULL;
}

/* The origin of a value config.json leaves to @d's default, which is
 * also noted (@value as text, taken) for the plan to warn about. */
static char *
default_origin (TsHfConfig           *config,
                const ConfigDefaults *d,
                const char           *key,
                char                 *value)
{
  g_autofree char *owned = value;

  if (config->defaults_used == NULL)
    config->defaults_used = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (config->defaults_used,
                   g_strdup_printf (_("config.json has no %s: %s, the default of transformers' %s, "
                                      "as llama.cpp's converter takes it"), key, owned, d->class_name));
  return g_strdup_printf ("transformers %s default; config.json has no %s", d->class_name, key);
}

static gboolean
missing_key (const char  *key,
             GError     **error)
{
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
               _("config.json: \"%s\" is missing, and its model_type names no config "
               "class with a default for it (llama and mistral do)"), key);
  return FALSE;
}

static const char *
string_member (JsonObject *obj,
               const char *name)
{
  JsonNode *node = json_object_get_member (obj, name);

  if (node == NULL || JSON_NODE_TYPE (node) != JSON_NODE_VALUE ||
      json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (node);
}

/* "rope_parameters" or else "rope_scaling": an object, or null (absent) */
static gboolean
rope_object (TsHfConfig  *config,
             JsonObject  *root,
             JsonObject **rp,
             GError     **error)
{
  const char *name = json_object_has_member (root, "rope_parameters") ? "rope_parameters"
                     : json_object_has_member (root, "rope_scaling") ? "rope_scaling" : NULL;
  JsonNode *node = name != NULL ? json_object_get_member (root, name) : NULL;

  *rp = NULL;
  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return TRUE;
  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("config.json: \"%s\" must be an object"), name);
      return FALSE;
    }
  config->rope_origin = g_strdup (name);
  *rp = json_node_get_object (node);
  return TRUE;
}

/* its rope_type, else its type (a null type is absent; a null rope_type
 * stops the converter, which calls .lower() on it) */
static gboolean
rope_type (TsHfConfig  *config,
           JsonObject  *rp,
           GError     **error)
{
  const char *key = json_object_has_member (rp, "rope_type") ? "rope_type" : "type";
  JsonNode *node = json_object_get_member (rp, key);

  if (node == NULL || (JSON_NODE_HOLDS_NULL (node) && g_str_equal (key, "type")))
    return TRUE;
  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("config.json: \"%s.%s\" must be a string"), config->rope_origin, key);
      return FALSE;
    }
  config->rope_type = g_strdup (json_node_get_string (node));
  return TRUE;
}

/* a number of the rope object, else @fallback; the llama3 computation
 * (generate_extra_tensors()) stops at a null one, which .get() returns */
static gboolean
rope_number (TsHfConfig  *config,
             JsonObject  *rp,
             const char  *name,
             gboolean     float32,
             double       fallback,
             double      *out,
             gboolean    *present,
             GError     **error)
{
  g_autofree char *where = g_strdup_printf ("%s.", config->rope_origin);
  gboolean found;

  if (!get_number (rp, where, name, float32, out, &found, error))
    return FALSE;
  if (!found && json_object_has_member (rp, name) && ts_hf_config_has_rope_freqs (config))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("config.json: \"%s%s\" must be a number"), where, name);
      return FALSE;
    }
  if (!found)
    *out = fallback;
  if (present != NULL)
    *present = found;
  return TRUE;
}

static void
add_rope_scaling (TsHfConfig  *config,
                  const char  *suffix,
                  TsValueType  type,
                  double       value,
                  char        *origin)
{
  g_assert (config->n_rope_scaling < TS_HF_MAX_ROPE_SCALING);
  if (config->rope_scaling_origins == NULL)
    config->rope_scaling_origins = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (config->rope_scaling_origins, origin);
  config->rope_scaling[config->n_rope_scaling++] = (TsArchHparam) { suffix, type, value, origin, FALSE };
}

/* What TextModel.set_gguf_parameters() writes of the rope scaling, for a
 * rope_type it knows and a factor that is there: linear, the factor; yarn,
 * the factor, the original context (which it must have: a KeyError stops
 * it without one) and each yarn value the object gives. It writes nothing
 * for the other types: llama3's is the rope_freqs tensor, and "dynamic"
 * (dynamic NTK, which llama.cpp does not do for this architecture) it
 * passes over, as the plan warns (ts-conversion-plan.c, load_source()). */
static gboolean
list_rope_scaling (TsHfConfig  *config,
                   JsonObject  *root,
                   JsonObject  *rp,
                   GError     **error)
{
  static const struct
  {
    const char *suffix;
    const char *member;
    const char *other;   /* read where @member is absent */
  } yarn_values[] = {
    { "rope.scaling.yarn_ext_factor", "extrapolation_factor", NULL },
    { "rope.scaling.yarn_attn_factor", "attention_factor", "attn_factor" },
    { "rope.scaling.yarn_beta_fast", "beta_fast", NULL },
    { "rope.scaling.yarn_beta_slow", "beta_slow", NULL },
  };
  /* the factor and the original context, then these */
  G_STATIC_ASSERT (2 + G_N_ELEMENTS (yarn_values) == TS_HF_MAX_ROPE_SCALING);
  const char *o = config->rope_origin;
  g_autofree char *where = g_strdup_printf ("%s.", o);
  JsonObject *ctx_obj = rp;
  guint64 orig_ctx;

  if (config->rope_type == NULL)
    return TRUE;
  /* transformers' config class refuses these without a factor (and the
   * converter then reads config.json without its defaults): a checkpoint
   * that Hugging Face cannot load either */
  if (!config->has_rope_factor &&
      (g_str_equal (config->rope_type, "yarn") || g_str_equal (config->rope_type, "dynamic")))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("config.json: %s type \"%s\" needs a factor"), o, config->rope_type);
      return FALSE;
    }
  if (!config->has_rope_factor)
    return TRUE;
  if (g_str_equal (config->rope_type, "linear"))
    {
      config->rope_scaling_type = "linear";
      add_rope_scaling (config, "rope.scaling.factor", TS_VALUE_FLOAT32, config->rope_factor,
                        g_strdup_printf ("config.json: %s.factor", o));
      return TRUE;
    }
  if (!g_str_equal (config->rope_type, "yarn"))
    return TRUE;

  /* the top-level value stands in for a missing one only */
  if (!json_object_has_member (rp, "original_max_position_embeddings"))
    ctx_obj = json_object_has_member (root, "original_max_position_embeddings") ? root : NULL;
  if (ctx_obj == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("config.json: yarn rope scaling needs \"%s.original_max_position_embeddings\" "
                     "(or one at the top level), the context the model was trained for"), o);
      return FALSE;
    }
  if (!read_uint (ctx_obj, "original_max_position_embeddings", &orig_ctx) || orig_ctx > G_MAXUINT32)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("config.json: \"%soriginal_max_position_embeddings\" must be an integer "
                     "from 0 to 4294967295"), ctx_obj == rp ? where : "");
      return FALSE;
    }
  config->rope_scaling_type = "yarn";
  add_rope_scaling (config, "rope.scaling.factor", TS_VALUE_FLOAT32, config->rope_factor,
                    g_strdup_printf ("config.json: %s.factor", o));
  add_rope_scaling (config, "rope.scaling.original_context_length", TS_VALUE_UINT32, (double) orig_ctx,
                    ctx_obj == rp ? g_strdup_printf ("config.json: %s.original_max_position_embeddings", o)
                                  : g_strdup ("config.json: original_max_position_embeddings"));
  for (guint i = 0; i < G_N_ELEMENTS (yarn_values); i++)
    {
      const char *member = yarn_values[i].member;
      double value;
      gboolean present;

      if (yarn_values[i].other != NULL && !json_object_has_member (rp, member))
        member = yarn_values[i].other;
      if (!get_number (rp, where, member, TRUE, &value, &present, error))
        return FALSE;
      if (present)
        add_rope_scaling (config, yarn_values[i].suffix, TS_VALUE_FLOAT32, value,
                          g_strdup_printf ("config.json: %s.%s", o, member));
    }
  return TRUE;
}

/* The rope parameters as llama.cpp's converter reads them: the
 * "rope_parameters" object (transformers 5) or else "rope_scaling", with
 * the top-level rope_theta and original_max_position_embeddings standing
 * in for ones it does not have, and "type" for a missing "rope_type".
 * A value of the wrong type stops the converter, so it is refused here. */
static gboolean
read_rope (TsHfConfig  *config,
           JsonObject  *root,
           GError     **error)
{
  JsonObject *rp = NULL;
  gboolean found, top_found;
  double top_context = 8192.0;

  if (!rope_object (config, root, &rp, error))
    return FALSE;
  if (rp != NULL && (json_object_has_member (rp, "full_attention") ||
                     json_object_has_member (rp, "sliding_attention")))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   _("config.json: %s per attention type (full_attention, sliding_attention) "
                   "is not supported for this architecture"), config->rope_origin);
      return FALSE;
    }

  if (rp != NULL && !rope_type (config, rp, error))
    return FALSE;
  /* the converter mirrors a top-level rope_theta only into an object
   * without one: a null one there is no base, which it cannot take */
  if (rp != NULL && json_object_has_member (rp, "rope_theta"))
    {
      if (!get_number (rp, "", "rope_theta", TRUE, &config->rope_theta, &found, error))
        return FALSE;
      if (!found)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                       _("config.json: \"%s.rope_theta\" must be a number"), config->rope_origin);
          return FALSE;
        }
      config->rope_theta_origin = g_strdup_printf ("config.json: %s.rope_theta", config->rope_origin);
    }
  else
    {
      if (!get_number (root, "", "rope_theta", TRUE, &config->rope_theta, &found, error))
        return FALSE;
      if (found)
        config->rope_theta_origin = g_strdup ("config.json: rope_theta");
    }
  if (rp == NULL)
    {
      config->rope_factor = 8.0;
      config->rope_low_freq_factor = 1.0;
      config->rope_high_freq_factor = 4.0;
      config->rope_original_context = 8192.0;
      return TRUE;
    }
  /* the top-level original context stands in for a missing one only */
  top_found = FALSE;
  if (!json_object_has_member (rp, "original_max_position_embeddings") &&
      !get_number (root, "", "original_max_position_embeddings", FALSE, &top_context, &top_found, error))
    return FALSE;
  /* the factor is written as llama.rope.scaling.factor for linear scaling */
  return rope_number (config, rp, "factor", TRUE, 8.0, &config->rope_factor,
                      &config->has_rope_factor, error) &&
         rope_number (config, rp, "low_freq_factor", FALSE, 1.0, &config->rope_low_freq_factor,
                      NULL, error) &&
         rope_number (config, rp, "high_freq_factor", FALSE, 4.0, &config->rope_high_freq_factor,
                      NULL, error) &&
         rope_number (config, rp, "original_max_position_embeddings", FALSE,
                      top_found ? top_context : 8192.0, &config->rope_original_context, NULL, error) &&
         list_rope_scaling (config, root, rp, error);
}

static gboolean
parse_config (TsHfConfig  *config,
              JsonObject  *root,
              GError     **error)
{
  JsonNode *archs = json_object_get_member (root, "architectures");
  const ConfigDefaults *defaults;
  gboolean found;

  if (archs != NULL && !JSON_NODE_HOLDS_NULL (archs))
    {
      JsonArray *list = JSON_NODE_HOLDS_ARRAY (archs) ? json_node_get_array (archs) : NULL;
      JsonNode *first = list != NULL && json_array_get_length (list) > 0
                        ? json_array_get_element (list, 0) : NULL;

      /* the converter takes architectures[0] and nothing else: of a string,
       * its first letter */
      if (list == NULL || (first != NULL && (!JSON_NODE_HOLDS_VALUE (first) ||
                                             json_node_get_value_type (first) != G_TYPE_STRING)))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                       _("config.json: \"architectures\" must be a list of strings"));
          return FALSE;
        }
      if (first != NULL)
        config->architecture = g_strdup (json_node_get_string (first));
    }
  if (config->architecture == NULL)
    config->architecture = g_strdup ("");
  config->model_type = g_strdup (string_member (root, "model_type"));
  config->name_or_path = g_strdup (string_member (root, "_name_or_path"));
  defaults = defaults_for (config->model_type);

  if (!require_uint (root, "num_hidden_layers", &config->n_layers, error) ||
      !require_uint (root, "hidden_size", &config->hidden_size, error) ||
      !require_uint (root, "intermediate_size", &config->intermediate_size, error) ||
      !require_uint (root, "num_attention_heads", &config->n_heads, error) ||
      !require_uint (root, "vocab_size", &config->vocab_size, error))
    return FALSE;
  if (json_object_has_member (root, "num_key_value_heads") &&
      !JSON_NODE_HOLDS_NULL (json_object_get_member (root, "num_key_value_heads")))
    {
      if (!require_uint (root, "num_key_value_heads", &config->n_kv_heads, error))
        return FALSE;
      config->n_kv_heads_origin = g_strdup ("config.json: num_key_value_heads");
    }
  else if (!json_object_has_member (root, "num_key_value_heads") &&
           defaults != NULL && defaults->n_kv_heads > 0)
    {
      config->n_kv_heads = defaults->n_kv_heads;
      config->n_kv_heads_origin = default_origin (config, defaults, "num_key_value_heads",
                                                 g_strdup_printf ("%u", config->n_kv_heads));
    }
  else
    {
      /* transformers' classes take a null or missing count as "one per head" */
      config->n_kv_heads = config->n_heads;
      config->n_kv_heads_origin = g_strdup ("num_attention_heads; config.json gives no num_key_value_heads");
    }
  /* written as attention.key_length when not null: 0 is no head size */
  config->has_head_dim = json_object_has_member (root, "head_dim") &&
                         !JSON_NODE_HOLDS_NULL (json_object_get_member (root, "head_dim"));
  if (config->has_head_dim && !require_uint (root, "head_dim", &config->head_dim, error))
    return FALSE;
  if (!config->has_head_dim)
    config->head_dim = config->hidden_size / config->n_heads;

  if (!read_rope (config, root, error))
    return FALSE;
  if (config->rope_theta_origin == NULL)
    {
      if (defaults == NULL)
        return missing_key ("rope_theta", error);
      config->rope_theta = defaults->rope_theta;
      config->rope_theta_origin = default_origin (config, defaults, "rope_theta",
                                                 ts_format_float (config->rope_theta, FALSE));
    }
  if (read_uint (root, "max_position_embeddings", &config->context_length) &&
      config->context_length <= G_MAXUINT32)
    config->context_length_origin = g_strdup ("config.json: max_position_embeddings");
  else if (json_object_has_member (root, "max_position_embeddings"))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("config.json: \"max_position_embeddings\" must be an integer from 0 to %u"),
                   G_MAXUINT32);
      return FALSE;
    }
  else if (defaults != NULL)
    {
      config->context_length = defaults->context_length;
      config->context_length_origin = default_origin (config, defaults, "max_position_embeddings",
                                                     g_strdup_printf ("%" G_GUINT64_FORMAT, config->context_length));
    }
  else
    return missing_key ("max_position_embeddings", error);
  if (!get_number (root, "", "rms_norm_eps", TRUE, &config->rms_norm_eps, &found, error))
    return FALSE;
  if (found)
    config->rms_norm_eps_origin = g_strdup ("config.json: rms_norm_eps");
  else if (defaults != NULL)
    {
      config->rms_norm_eps = defaults->rms_norm_eps;
      config->rms_norm_eps_origin = default_origin (config, defaults, "rms_norm_eps",
                                                   ts_format_float (config->rms_norm_eps, FALSE));
    }
  else
    return missing_key ("rms_norm_eps", error);

  /* TextModel.set_gguf_parameters(): the first of these config.json has,
   * unless it is null, becomes attention.layer_norm_epsilon; and only a
   * literal is_causal: false becomes attention.causal */
  for (guint i = 0; i < G_N_ELEMENTS (layer_norm_eps_keys); i++)
    {
      JsonNode *node = json_object_get_member (root, layer_norm_eps_keys[i]);

      if (node == NULL)
        continue;
      if (JSON_NODE_HOLDS_NULL (node))
        break;
      if (!get_number (root, "", layer_norm_eps_keys[i], TRUE, &config->layer_norm_eps, &found, error))
        return FALSE;
      config->has_layer_norm_eps = TRUE;
      config->layer_norm_eps_origin = g_strdup_printf ("config.json: %s", layer_norm_eps_keys[i]);
      break;
    }
  {
    JsonNode *node = json_object_get_member (root, "is_causal");

    config->non_causal = node != NULL && JSON_NODE_HOLDS_VALUE (node) &&
                         json_node_get_value_type (node) == G_TYPE_BOOLEAN &&
                         !json_node_get_boolean (node);
  }

  config->tie_word_embeddings_set = json_object_has_member (root, "tie_word_embeddings");
  if (config->tie_word_embeddings_set)
    {
      JsonNode *node = json_object_get_member (root, "tie_word_embeddings");

      if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_BOOLEAN)
        config->tie_word_embeddings = json_node_get_boolean (node);
      else if (!JSON_NODE_HOLDS_NULL (node))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                       _("config.json: \"tie_word_embeddings\" must be true or false"));
          return FALSE;
        }
    }
  config->bos_is_int = read_single_int (root, "bos_token_id", &config->bos_token_id);
  config->eos_is_int = read_single_int (root, "eos_token_id", &config->eos_token_id);

  /* Conversion and the audit allocate one token per vocabulary id and
   * head_dim / 2 rope factors: claims beyond any real model are refused
   * before anything is built from them. */
  if (config->vocab_size > TS_HF_MAX_VOCAB_SIZE || config->head_dim > TS_HF_MAX_HEAD_DIM)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("config.json: vocab_size %u or head size %u is out of range "
                   "(at most %u and %u)"), config->vocab_size, config->head_dim,
                   TS_HF_MAX_VOCAB_SIZE, TS_HF_MAX_HEAD_DIM);
      return FALSE;
    }
  if (config->n_heads % config->n_kv_heads != 0 || config->head_dim % 2 != 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("config.json: %u attention heads cannot be grouped over %u key/value "
                   "heads of even size"), config->n_heads, config->n_kv_heads);
      return FALSE;
    }
  return TRUE;
}

/**
 * ts_hf_config_load:
 * @dir: a Hugging Face checkpoint folder
 *
 * Returns: (transfer full): the parsed config.json
 */
TsHfConfig *
ts_hf_config_load (GFile   *dir,
                   GError **error)
{
  g_autoptr(GFile) file = g_file_get_child (dir, "config.json");
  g_autoptr(JsonParser) parser = json_parser_new_immutable ();
  g_autoptr(TsHfConfig) config = g_new0 (TsHfConfig, 1);
  JsonObject *root = _ts_load_side_json (file, 16 * 1024 * 1024, parser, error);

  if (root == NULL || !parse_config (config, root, error))
    return NULL;
  return g_steal_pointer (&config);
}

void
ts_hf_config_free (TsHfConfig *config)
{
  if (config == NULL)
    return;
  g_free (config->architecture);
  g_free (config->model_type);
  g_free (config->name_or_path);
  g_free (config->rope_type);
  g_free (config->rope_origin);
  g_clear_pointer (&config->rope_scaling_origins, g_ptr_array_unref);
  g_free (config->n_kv_heads_origin);
  g_free (config->context_length_origin);
  g_free (config->rope_theta_origin);
  g_free (config->rms_norm_eps_origin);
  g_free (config->layer_norm_eps_origin);
  g_clear_pointer (&config->defaults_used, g_ptr_array_unref);
  g_free (config);
}

/* the converter compares "llama3" in any case, the other types exactly */
gboolean
ts_hf_config_has_rope_freqs (const TsHfConfig *config)
{
  return config->rope_type != NULL && g_ascii_strcasecmp (config->rope_type, "llama3") == 0;
}

/* Every step in float32, as the converter's torch code does. There a
 * Python number divided by a tensor is the tensor's reciprocal times the
 * number (Tensor.__rtruediv__), two roundings where a division has one:
 * so 2π / freq is (1 / freq) · 2π here, and old_ctx / wavelength is
 * (1 / wavelength) · old_ctx. */
float *
ts_hf_config_compute_rope_freqs (const TsHfConfig *config,
                                 guint            *n_values)
{
  return ts_hf_config_compute_rope_freqs_nudged (config, 0, n_values);
}

/* The same with each base^(i/dim) moved NUDGE ulps (-1, 0 or 1) away from
 * the correctly rounded powf(): torch's float32 pow (Sleef, on its vector
 * path) is within one ulp of it, not always on it, so which of the three a
 * given torch build writes depends on the build and the CPU. */
float *
ts_hf_config_compute_rope_freqs_nudged (const TsHfConfig *config,
                                        int               nudge,
                                        guint            *n_values)
{
  guint dim = config->head_dim;
  float *out = g_new (float, dim / 2);
  float base = (float) config->rope_theta;
  float factor = (float) config->rope_factor;
  float low = (float) config->rope_low_freq_factor;
  float high = (float) config->rope_high_freq_factor;
  float old_ctx = (float) config->rope_original_context;
  float low_wavelen = (float) (config->rope_original_context / config->rope_low_freq_factor);
  float high_wavelen = (float) (config->rope_original_context / config->rope_high_freq_factor);
  float span = (float) (config->rope_high_freq_factor - config->rope_low_freq_factor);
  const float two_pi = (float) (2 * G_PI);

  for (guint i = 0; i < dim / 2; i++)
    {
      float exponent = (float) (2 * i) / (float) dim;
      float power = powf (base, exponent);
      float freq, wavelen;

      if (nudge != 0)
        power = nextafterf (power, nudge > 0 ? INFINITY : 0.0f);
      freq = 1.0f / power;
      wavelen = (1.0f / freq) * two_pi;

      if (wavelen < high_wavelen)
        out[i] = 1.0f;
      else if (wavelen > low_wavelen)
        out[i] = factor;
      else
        {
          float smooth = ((1.0f / wavelen) * old_ctx - low) / span;

          out[i] = 1.0f / ((1.0f - smooth) / factor + smooth);
        }
    }
  (void) high;
  *n_values = dim / 2;
  return out;
}

const TsArch *
ts_arch_for_config (const TsHfConfig  *config,
                    GError           **error)
{
  for (guint i = 0; i < G_N_ELEMENTS (architectures); i++)
    for (guint j = 0; architectures[i].hf_architectures[j]; j++)
      if (g_str_equal (config->architecture, architectures[i].hf_architectures[j]))
        {
          if (config->rope_type != NULL && !ts_hf_config_has_rope_freqs (config) &&
              !g_str_equal (config->rope_type, "linear") &&
              !g_str_equal (config->rope_type, "yarn") &&
              !g_str_equal (config->rope_type, "dynamic") &&
              !g_str_equal (config->rope_type, "default"))
            {
              g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                           _("config.json: %s type \"%s\" is not supported "
                           "(llama3, linear, yarn, dynamic and default are)"), config->rope_origin,
                           config->rope_type);
              return NULL;
            }
          if (ts_hf_config_has_rope_freqs (config) &&
              (config->rope_low_freq_factor == config->rope_high_freq_factor ||
               config->rope_low_freq_factor == 0 || config->rope_high_freq_factor == 0))
            {
              g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                           _("config.json: %s low_freq_factor %g and high_freq_factor %g "
                           "must differ and be non-zero"), config->rope_origin,
                           config->rope_low_freq_factor, config->rope_high_freq_factor);
              return NULL;
            }
          return &architectures[i];
        }
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
               _("config.json: architecture \"%s\" is not supported; Tensorscope "
               "converts LlamaForCausalLM and MistralForCausalLM checkpoints"),
               config->architecture[0] ? config->architecture : "(none)");
  return NULL;
}

const char *
ts_arch_get_name (const TsArch *arch)
{
  return arch->name;
}

static const TensorRule *
find_rule (const TensorRule *rules,
           const char       *name)
{
  for (guint i = 0; rules[i].hf; i++)
    if (g_str_equal (rules[i].hf, name))
      return &rules[i];
  return NULL;
}

/* "model.layers.12.rest" -> 12 and "rest" */
static gboolean
split_layer_name (const char  *hf_name,
                  guint64     *layer,
                  const char **rest)
{
  const char *p;
  char *end;

  if (!g_str_has_prefix (hf_name, "model.layers."))
    return FALSE;
  p = hf_name + strlen ("model.layers.");
  if (!g_ascii_isdigit (*p))
    return FALSE;
  *layer = g_ascii_strtoull (p, &end, 10);
  if (*end != '.')
    return FALSE;
  *rest = end + 1;
  return TRUE;
}

/* the rule for @hf_name; *@layer is its layer, or -1 for a global one */
static const TensorRule *
lookup_rule (const TsArch *arch,
             const char   *hf_name,
             gint64       *layer)
{
  const TensorRule *rule;
  const char *rest;
  guint64 l;

  *layer = -1;
  if ((rule = find_rule (arch->global_rules, hf_name)) != NULL)
    return rule;
  if (!split_layer_name (hf_name, &l, &rest) || l > G_MAXUINT32)
    return NULL;
  *layer = (gint64) l;
  return find_rule (arch->layer_rules, rest);
}

/* The GGUF name of @hf_name, or NULL for a name the architecture has no
 * tensor for (a layer past num_hidden_layers among them). */
char *
ts_arch_map_tensor (const TsArch      *arch,
                    const TsHfConfig  *config,
                    const char        *hf_name,
                    TsPermute         *permute,
                    gboolean          *dropped)
{
  const TensorRule *rule;
  gint64 layer;

  *dropped = FALSE;
  *permute = TS_PERMUTE_NONE;
  for (guint i = 0; arch->dropped_suffixes[i]; i++)
    if (g_str_has_suffix (hf_name, arch->dropped_suffixes[i]))
      {
        *dropped = TRUE;
        return NULL;
      }
  if ((rule = lookup_rule (arch, hf_name, &layer)) == NULL ||
      (layer >= 0 && (guint64) layer >= config->n_layers))
    return NULL;
  *permute = rule->permute;
  if (layer < 0)
    return g_strdup (rule->gguf);
  return g_strdup_printf ("blk.%" G_GINT64_FORMAT ".%s", layer, rule->gguf);
}

static guint64
dim_size (const TsHfConfig *c,
          Dim               dim,
          const char      **what)
{
  switch (dim)
    {
    case DIM_VOCAB:
      *what = "vocab_size";
      return c->vocab_size;
    case DIM_HIDDEN:
      *what = "hidden_size";
      return c->hidden_size;
    case DIM_Q:
      *what = "num_attention_heads × head size";
      return (guint64) c->n_heads * c->head_dim;
    case DIM_KV:
      *what = "num_key_value_heads × head size";
      return (guint64) c->n_kv_heads * c->head_dim;
    case DIM_FFN:
      *what = "intermediate_size";
      return c->intermediate_size;
    case DIM_NONE:
    default:
      *what = "";
      return 0;
    }
}

/**
 * ts_arch_check_shape:
 * @arch: the architecture
 * @config: the checkpoint's config.json
 * @hf_name: a tensor name that ts_arch_map_tensor() maps
 * @shape: (array length=n_dims): its row-major shape
 * @n_dims: its number of dimensions
 * @error: return location for a #GError
 *
 * Checks a tensor's shape against the one config.json implies for it, as
 * llama.cpp checks every tensor it loads: a file that cannot load is
 * refused before it is written.
 *
 * Returns: %TRUE if the shape is the expected one
 */
gboolean
ts_arch_check_shape (const TsArch      *arch,
                     const TsHfConfig  *config,
                     const char        *hf_name,
                     const guint64     *shape,
                     guint              n_dims,
                     GError           **error)
{
  gint64 layer;
  const TensorRule *rule = lookup_rule (arch, hf_name, &layer);
  const char *rows_what, *cols_what;
  guint64 rows, cols;
  g_autoptr(GString) have = g_string_new ("[");

  g_return_val_if_fail (rule != NULL, FALSE);

  rows = dim_size (config, rule->rows, &rows_what);
  cols = dim_size (config, rule->cols, &cols_what);
  if (n_dims == (rule->cols == DIM_NONE ? 1u : 2u) && shape[0] == rows &&
      (rule->cols == DIM_NONE || shape[1] == cols))
    return TRUE;
  for (guint i = 0; i < n_dims; i++)
    g_string_append_printf (have, "%s%" G_GUINT64_FORMAT, i ? ", " : "", shape[i]);
  g_string_append_c (have, ']');
  if (rule->cols == DIM_NONE)
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                 _("tensor '%s' has shape %s, but config.json implies [%" PRIu64 "] "
                 "(%s); llama.cpp could not load it"), hf_name, have->str, rows, rows_what);
  else
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                 _("tensor '%s' has shape %s, but config.json implies [%" PRIu64
                 ", %" PRIu64 "] (%s, %s); llama.cpp could not load it"),
                 hf_name, have->str, rows, cols, rows_what, cols_what);
  return FALSE;
}

/* what gguf-py stores as F32 whatever the output type: anything of at most
 * one dimension, the norms, and every tensor that is not a ".weight" */
/**
 * ts_arch_list_hparams:
 * @arch: a #TsArch
 * @config: the checkpoint's config.json
 * @out: (out caller-allocates): TS_ARCH_MAX_HPARAMS entries
 *
 * The hyperparameters the converter writes from config.json (llama.cpp's
 * TextModel.set_gguf_parameters()), in its order. Linear rope scaling
 * keys go just before rope.freq_base; the head geometry keys depend on
 * whether config.json gives head_dim and are not listed.
 *
 * Returns: the number of entries in @out
 */
guint
ts_arch_list_hparams (const TsArch     *arch,
                      const TsHfConfig *config,
                      TsArchHparam     *out)
{
  const TsHfConfig *c = config;
  const TsArchHparam list[] = {
    { "block_count", TS_VALUE_UINT32, c->n_layers, "config.json: num_hidden_layers", FALSE },
    { "context_length", TS_VALUE_UINT32, (double) c->context_length, c->context_length_origin, FALSE },
    { "embedding_length", TS_VALUE_UINT32, c->hidden_size, "config.json: hidden_size", FALSE },
    { "feed_forward_length", TS_VALUE_UINT32, c->intermediate_size, "config.json: intermediate_size", TRUE },
    { "attention.head_count", TS_VALUE_UINT32, c->n_heads, "config.json: num_attention_heads", TRUE },
    { "attention.head_count_kv", TS_VALUE_UINT32, c->n_kv_heads, c->n_kv_heads_origin, TRUE },
    { "attention.causal", TS_VALUE_BOOL, 0, "config.json: is_causal", FALSE },
    { "rope.freq_base", TS_VALUE_FLOAT32, c->rope_theta, c->rope_theta_origin, FALSE },
    { "attention.layer_norm_rms_epsilon", TS_VALUE_FLOAT32, c->rms_norm_eps, c->rms_norm_eps_origin, FALSE },
    { "attention.layer_norm_epsilon", TS_VALUE_FLOAT32, c->layer_norm_eps, c->layer_norm_eps_origin, FALSE },
  };
  guint n = 0;

  G_STATIC_ASSERT (G_N_ELEMENTS (list) <= TS_ARCH_MAX_HPARAMS);
  g_return_val_if_fail (arch != NULL, 0);

  for (guint i = 0; i < G_N_ELEMENTS (list); i++)
    {
      /* the two that only some config.json files give */
      if ((g_str_equal (list[i].suffix, "attention.causal") && !c->non_causal) ||
          (g_str_equal (list[i].suffix, "attention.layer_norm_epsilon") && !c->has_layer_norm_eps))
        continue;
      out[n++] = list[i];
    }
  return n;
}

gboolean
ts_arch_keeps_f32 (const TsArch *arch,
                   const char   *gguf_name,
                   guint         n_dims)
{
  return n_dims <= 1 || g_str_has_suffix (gguf_name, "_norm.weight") ||
         !g_str_has_suffix (gguf_name, ".weight");
}

guint
ts_arch_permute_heads (const TsHfConfig *config,
                       TsPermute         permute)
{
  switch (permute)
    {
    case TS_PERMUTE_Q:
      return config->n_heads;
    case TS_PERMUTE_K:
      return config->n_kv_heads;
    case TS_PERMUTE_NONE:
    default:
      return 1;
    }
}
