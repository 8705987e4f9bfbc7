/* ts-arch.c: the llama architecture as data
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "ts-arch.h"
#include "ts-json-private.h"

typedef struct
{
  const char *hf;        /* Hugging Face name (per layer: after "model.layers.N.") */
  const char *gguf;      /* GGUF name (per layer: after "blk.N.") */
  TsPermute   permute;
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
  { "model.embed_tokens.weight", "token_embd.weight", TS_PERMUTE_NONE },
  { "model.norm.weight", "output_norm.weight", TS_PERMUTE_NONE },
  { "lm_head.weight", "output.weight", TS_PERMUTE_NONE },
  { NULL }
};

static const TensorRule llama_layer_rules[] = {
  { "input_layernorm.weight", "attn_norm.weight", TS_PERMUTE_NONE },
  { "self_attn.q_proj.weight", "attn_q.weight", TS_PERMUTE_Q },
  { "self_attn.q_proj.bias", "attn_q.bias", TS_PERMUTE_Q },
  { "self_attn.k_proj.weight", "attn_k.weight", TS_PERMUTE_K },
  { "self_attn.k_proj.bias", "attn_k.bias", TS_PERMUTE_K },
  { "self_attn.v_proj.weight", "attn_v.weight", TS_PERMUTE_NONE },
  { "self_attn.v_proj.bias", "attn_v.bias", TS_PERMUTE_NONE },
  { "self_attn.o_proj.weight", "attn_output.weight", TS_PERMUTE_NONE },
  { "self_attn.o_proj.bias", "attn_output.bias", TS_PERMUTE_NONE },
  { "post_attention_layernorm.weight", "ffn_norm.weight", TS_PERMUTE_NONE },
  { "mlp.gate_proj.weight", "ffn_gate.weight", TS_PERMUTE_NONE },
  { "mlp.up_proj.weight", "ffn_up.weight", TS_PERMUTE_NONE },
  { "mlp.down_proj.weight", "ffn_down.weight", TS_PERMUTE_NONE },
  { NULL }
};

static const char * const llama_hf_architectures[] = {
  "LlamaForCausalLM", "MistralForCausalLM", NULL
};

static const char * const llama_dropped[] = {
  "self_attn.rotary_emb.inv_freq", NULL
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
                   "config.json: \"%s\" must be a positive integer", name);
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

static void
read_rope_scaling (TsHfConfig *config,
                   JsonObject *root)
{
  JsonNode *node = json_object_get_member (root, "rope_scaling");
  JsonObject *rs;
  const char *type = NULL;

  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    return;
  rs = json_node_get_object (node);
  if (json_object_has_member (rs, "rope_type") &&
      json_node_get_value_type (json_object_get_member (rs, "rope_type")) == G_TYPE_STRING)
    type = json_object_get_string_member (rs, "rope_type");
  else if (json_object_has_member (rs, "type") &&
           json_node_get_value_type (json_object_get_member (rs, "type")) == G_TYPE_STRING)
    type = json_object_get_string_member (rs, "type");
  config->rope_type = type ? g_ascii_strdown (type, -1) : g_strdup ("");
  config->has_rope_factor = read_double (rs, "factor", &config->rope_factor);
  if (!config->has_rope_factor)
    config->rope_factor = 8.0;
  if (!read_double (rs, "low_freq_factor", &config->rope_low_freq_factor))
    config->rope_low_freq_factor = 1.0;
  if (!read_double (rs, "high_freq_factor", &config->rope_high_freq_factor))
    config->rope_high_freq_factor = 4.0;
  /* llama.cpp's converter reads this one from the top level of the config */
  if (!read_double (root, "original_max_position_embeddings", &config->rope_original_context))
    config->rope_original_context = 8192.0;
}

static gboolean
parse_config (TsHfConfig  *config,
              JsonObject  *root,
              GError     **error)
{
  JsonNode *archs = json_object_get_member (root, "architectures");
  guint64 v;

  if (archs != NULL && JSON_NODE_HOLDS_ARRAY (archs) &&
      json_array_get_length (json_node_get_array (archs)) > 0 &&
      json_node_get_value_type (json_array_get_element (json_node_get_array (archs), 0)) == G_TYPE_STRING)
    config->architecture = g_strdup (json_array_get_string_element (json_node_get_array (archs), 0));
  else
    config->architecture = g_strdup ("");
  if (json_object_has_member (root, "model_type") &&
      json_node_get_value_type (json_object_get_member (root, "model_type")) == G_TYPE_STRING)
    config->model_type = g_strdup (json_object_get_string_member (root, "model_type"));
  if (json_object_has_member (root, "_name_or_path") &&
      json_node_get_value_type (json_object_get_member (root, "_name_or_path")) == G_TYPE_STRING)
    config->name_or_path = g_strdup (json_object_get_string_member (root, "_name_or_path"));

  if (!require_uint (root, "num_hidden_layers", &config->n_layers, error) ||
      !require_uint (root, "hidden_size", &config->hidden_size, error) ||
      !require_uint (root, "intermediate_size", &config->intermediate_size, error) ||
      !require_uint (root, "num_attention_heads", &config->n_heads, error) ||
      !require_uint (root, "vocab_size", &config->vocab_size, error))
    return FALSE;
  config->n_kv_heads = config->n_heads;
  if (json_object_has_member (root, "num_key_value_heads") &&
      !require_uint (root, "num_key_value_heads", &config->n_kv_heads, error))
    return FALSE;
  config->has_head_dim = read_uint (root, "head_dim", &v) && v > 0 && v <= G_MAXUINT32;
  config->head_dim = config->has_head_dim ? (guint) v : config->hidden_size / config->n_heads;
  if (!read_uint (root, "max_position_embeddings", &config->context_length))
    config->context_length = 0;
  if (!read_double (root, "rope_theta", &config->rope_theta))
    config->rope_theta = 10000.0;
  if (!read_double (root, "rms_norm_eps", &config->rms_norm_eps))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   "config.json: \"rms_norm_eps\" is missing");
      return FALSE;
    }
  config->tie_word_embeddings = json_object_has_member (root, "tie_word_embeddings") &&
    json_object_get_boolean_member_with_default (root, "tie_word_embeddings", FALSE);
  config->bos_is_int = read_single_int (root, "bos_token_id", &config->bos_token_id);
  config->eos_is_int = read_single_int (root, "eos_token_id", &config->eos_token_id);
  read_rope_scaling (config, root);

  /* Conversion and the audit allocate one token per vocabulary id and
   * head_dim / 2 rope factors: claims beyond any real model are refused
   * before anything is built from them. */
  if (config->vocab_size > TS_HF_MAX_VOCAB_SIZE || config->head_dim > TS_HF_MAX_HEAD_DIM)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   "config.json: vocab_size %u or head size %u is out of range "
                   "(at most %u and %u)", config->vocab_size, config->head_dim,
                   TS_HF_MAX_VOCAB_SIZE, TS_HF_MAX_HEAD_DIM);
      return FALSE;
    }
  if (config->n_heads % config->n_kv_heads != 0 || config->head_dim % 2 != 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   "config.json: %u attention heads cannot be grouped over %u key/value "
                   "heads of even size", config->n_heads, config->n_kv_heads);
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
  g_autofree char *contents = NULL;
  g_autoptr(GError) local_error = NULL;
  gsize len;

  if (!g_file_load_contents (file, NULL, &contents, &len, NULL, &local_error))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                   "config.json: %s", local_error->message);
      return NULL;
    }
  if (len > 16 * 1024 * 1024 ||
      !_ts_json_depth_ok (contents, len, TS_JSON_MAX_DEPTH) ||
      !json_parser_load_from_data (parser, contents, (gssize) len, &local_error) ||
      json_parser_get_root (parser) == NULL ||
      !JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   "config.json: not a JSON object%s%s",
                   local_error ? ": " : "", local_error ? local_error->message : "");
      return NULL;
    }
  if (!parse_config (config, json_node_get_object (json_parser_get_root (parser)), error))
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
  g_free (config);
}

gboolean
ts_hf_config_has_rope_freqs (const TsHfConfig *config)
{
  return config->rope_type != NULL && g_str_equal (config->rope_type, "llama3");
}

/* Every step in float32, as the converter's torch code does. */
float *
ts_hf_config_compute_rope_freqs (const TsHfConfig *config,
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
      float freq = 1.0f / powf (base, exponent);
      float wavelen = two_pi / freq;

      if (wavelen < high_wavelen)
        out[i] = 1.0f;
      else if (wavelen > low_wavelen)
        out[i] = factor;
      else
        {
          float smooth = (old_ctx / wavelen - low) / span;

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
          if (config->rope_type != NULL && config->rope_type[0] != '\0' &&
              !g_str_equal (config->rope_type, "llama3") &&
              !g_str_equal (config->rope_type, "linear") &&
              !g_str_equal (config->rope_type, "default"))
            {
              g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                           "config.json: rope scaling type \"%s\" is not supported "
                           "(llama3 and linear are)", config->rope_type);
              return NULL;
            }
          return &architectures[i];
        }
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
               "config.json: architecture \"%s\" is not supported; Tensorscope "
               "converts LlamaForCausalLM and MistralForCausalLM checkpoints",
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

char *
ts_arch_map_tensor (const TsArch *arch,
                    const char   *hf_name,
                    TsPermute    *permute,
                    gboolean     *dropped)
{
  const TensorRule *rule;
  const char *rest;
  guint64 layer;

  *dropped = FALSE;
  *permute = TS_PERMUTE_NONE;
  if ((rule = find_rule (arch->global_rules, hf_name)) != NULL)
    return g_strdup (rule->gguf);
  if (!split_layer_name (hf_name, &layer, &rest))
    return NULL;
  for (guint i = 0; arch->dropped_suffixes[i]; i++)
    if (g_str_equal (rest, arch->dropped_suffixes[i]))
      {
        *dropped = TRUE;
        return NULL;
      }
  if ((rule = find_rule (arch->layer_rules, rest)) == NULL)
    return NULL;
  *permute = rule->permute;
  return g_strdup_printf ("blk.%" G_GUINT64_FORMAT ".%s", layer, rule->gguf);
}

gboolean
ts_arch_keeps_f32 (const TsArch *arch,
                   const char   *gguf_name,
                   guint         n_dims)
{
  return n_dims <= 1 || g_str_has_suffix (gguf_name, "_norm.weight");
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
