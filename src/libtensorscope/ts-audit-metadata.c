/* ts-audit-metadata.c: metadata that must follow from the source
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <inttypes.h>

#include <glib/gi18n-lib.h>

#include <string.h>

#include "ts-side-file-private.h"
#include "ts-audit-private.h"
#include "ts-conversion-plan-private.h"
#include "ts-file-part.h"
#include "ts-gguf-metadata.h"
#include "ts-hf-tokenizer.h"
#include "ts-json-private.h"
#include "ts-model-file-private.h"

/* the largest vocabulary whose tokenizer metadata the audit rebuilds */
#define AUDIT_MAX_COMPARED_TOKENS (1u << 20)

typedef struct
{
  TsAuditReport    *report;
  TsModelFile      *target;
  const char       *arch;
  const TsArch     *arch_table;
  GFile            *dir;
  const TsHfConfig *config;
} MetaContext;

static char *
check_name (const char *key)
{
  return g_strconcat ("metadata:", key, NULL);
}

/* ENTRY's value as text, at most 120 characters of it (a string in a
 * hostile file may be as long as the file) */
/* @obj's member @name if it is a string, else NULL (json-glib's own
 * accessors are criticals on a member of another kind: hostile input) */
static const char *
string_member (JsonObject *obj,
               const char *name)
{
  JsonNode *node = json_object_get_member (obj, name);

  return node != NULL && JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING
         ? json_node_get_string (node) : NULL;
}

static gboolean
int_member (JsonObject *obj,
            const char *name,
            gint64     *out)
{
  JsonNode *node = json_object_get_member (obj, name);

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_INT64)
    return FALSE;
  *out = json_node_get_int (node);
  return TRUE;
}

static char *
value_text (TsMetadataEntry *entry)
{
  g_autofree char *text = ts_metadata_entry_to_string (entry);

  if (g_utf8_strlen (text, -1) <= 120)
    return g_steal_pointer (&text);
  {
    g_autofree char *head = g_utf8_substring (text, 0, 119);

    return g_strconcat (head, "…", NULL);
  }
}

static TsMetadataEntry *
lookup (MetaContext *ctx,
        const char  *suffix,
        char       **key)
{
  *key = g_strconcat (ctx->arch, ".", suffix, NULL);
  return ts_model_file_lookup_metadata (ctx->target, *key);
}

/* llama.cpp reads a key as one GGUF type only and refuses to load a file
 * that gives another (llama-model-loader.cpp, "has wrong type") */
static gboolean
check_type (MetaContext     *ctx,
            TsMetadataEntry *entry,
            const char      *key,
            TsValueType      want)
{
  g_autofree char *name = NULL;
  TsValueType t = ts_metadata_entry_get_value_type (entry);

  if (t == want)
    return TRUE;
  name = check_name (key);
  _ts_audit_report_add_check (ctx->report, name, TS_AUDIT_FAIL,
                              _("a %s value: llama.cpp reads %s only as %s and refuses to load "
                              "the file"), ts_value_type_to_nick (t), key, ts_value_type_to_nick (want));
  return FALSE;
}

/* A per-layer key (llama.cpp's get_key_or_arr) may also be an array with
 * one item for each layer: it must hold EXPECTED for every one. */
static void
check_per_layer_array (MetaContext     *ctx,
                       TsMetadataEntry *entry,
                       const char      *key,
                       guint64          expected,
                       const char      *origin)
{
  g_autofree char *name = check_name (key);
  TsValueType et = ts_metadata_entry_get_array_type (entry);
  guint64 n = ts_metadata_entry_get_array_length (entry);

  if (et != TS_VALUE_UINT32 && et != TS_VALUE_INT32)
    {
      _ts_audit_report_add_check (ctx->report, name, TS_AUDIT_FAIL,
                                  _("an array of %s: llama.cpp reads a per-layer %s only as "
                                  "uint32 or int32 items and refuses to load the file"),
                                  ts_value_type_to_nick (et), key);
      return;
    }
  if (n != ctx->config->n_layers)
    {
      _ts_audit_report_add_check (ctx->report, name, TS_AUDIT_FAIL,
                                  _("an array of %" PRIu64 " items, but the model has %u layers: "
                                  "llama.cpp refuses to load the file"), n, ctx->config->n_layers);
      return;
    }
  for (guint64 i = 0; i < n; i++)
    {
      g_autoptr(TsMetadataEntry) item = ts_metadata_entry_get_item (entry, i);
      gint64 v = ts_metadata_entry_get_int64 (item);

      if (v < 0 || (guint64) v != expected)
        {
          _ts_audit_report_add_check (ctx->report, name, TS_AUDIT_FAIL,
                                      _("layer %" PRIu64 " has %" PRId64 "; expected %" PRIu64 " (%s)"),
                                      i, v, expected, origin);
          return;
        }
    }
  _ts_audit_report_add_check (ctx->report, name, TS_AUDIT_PASS,
                              _("%" PRIu64 " for each of the %" PRIu64 " layers, as an array (%s)"),
                              expected, n, origin);
}

/* The entry of @suffix, or NULL and a failed check saying what was
 * expected; *@key and *@name are set either way. */
static TsMetadataEntry *
lookup_expected (MetaContext  *ctx,
                 const char   *suffix,
                 const char   *want_text,
                 const char   *origin,
                 char        **key,
                 char        **name)
{
  TsMetadataEntry *entry = lookup (ctx, suffix, key);

  *name = check_name (*key);
  if (entry == NULL)
    _ts_audit_report_add_check (ctx->report, *name, TS_AUDIT_FAIL,
                                _("the GGUF has no %s; expected %s (%s)"), *key, want_text, origin);
  return entry;
}

/* the check of a value found, as expected or not */
static void
report_value (MetaContext *ctx,
              const char  *name,
              gboolean     as_expected,
              const char  *found_text,
              const char  *want_text,
              const char  *origin)
{
  if (as_expected)
    _ts_audit_report_add_check (ctx->report, name, TS_AUDIT_PASS, "%s (%s)", found_text, origin);
  else
    _ts_audit_report_add_check (ctx->report, name, TS_AUDIT_FAIL,
                                _("the GGUF says %s; expected %s (%s)"), found_text, want_text, origin);
}

static void
check_uint_full (MetaContext *ctx,
                 const char  *suffix,
                 guint64      expected,
                 const char  *origin,
                 gboolean     per_layer)
{
  g_autofree char *key = NULL;
  g_autofree char *name = NULL;
  g_autofree char *want_text = g_strdup_printf ("%" PRIu64, expected);
  g_autofree char *found_text = NULL;
  TsMetadataEntry *entry = lookup_expected (ctx, suffix, want_text, origin, &key, &name);

  if (entry == NULL)
    return;
  if (per_layer && ts_metadata_entry_get_value_type (entry) == TS_VALUE_ARRAY)
    {
      check_per_layer_array (ctx, entry, key, expected, origin);
      return;
    }
  if (!check_type (ctx, entry, key, TS_VALUE_UINT32))
    return;
  found_text = g_strdup_printf ("%" PRIu64, ts_metadata_entry_get_uint64 (entry));
  report_value (ctx, name, ts_metadata_entry_get_uint64 (entry) == expected, found_text, want_text, origin);
}

static void
check_uint (MetaContext *ctx,
            const char  *suffix,
            guint64      expected,
            const char  *origin)
{
  check_uint_full (ctx, suffix, expected, origin, FALSE);
}

/* The converter writes these as float32: compare as float32. */
static void
check_float (MetaContext *ctx,
             const char  *suffix,
             double       expected,
             const char  *origin)
{
  float want = (float) expected, found;
  g_autofree char *want_text = ts_format_float (want, TRUE);
  g_autofree char *found_text = NULL;
  g_autofree char *key = NULL;
  g_autofree char *name = NULL;
  TsMetadataEntry *entry = lookup_expected (ctx, suffix, want_text, origin, &key, &name);

  if (entry == NULL || !check_type (ctx, entry, key, TS_VALUE_FLOAT32))
    return;
  found = (float) ts_metadata_entry_get_double (entry);
  found_text = ts_format_float (found, TRUE);
  report_value (ctx, name, ts_f32_bits (found) == ts_f32_bits (want), found_text, want_text, origin);
}

static void
check_bool (MetaContext *ctx,
            const char  *suffix,
            gboolean     expected,
            const char  *origin)
{
  const char *want = expected ? "true" : "false";
  g_autofree char *key = NULL;
  g_autofree char *name = NULL;
  TsMetadataEntry *entry = lookup_expected (ctx, suffix, want, origin, &key, &name);
  gboolean found;

  if (entry == NULL || !check_type (ctx, entry, key, TS_VALUE_BOOL))
    return;
  found = ts_metadata_entry_get_boolean (entry);
  report_value (ctx, name, found == expected, found ? "true" : "false", want, origin);
}

static void
check_architecture (MetaContext *ctx)
{
  TsMetadataEntry *entry = ts_model_file_lookup_metadata (ctx->target, "general.architecture");
  g_autofree char *found = entry ? ts_metadata_entry_dup_string (entry) : NULL;

  if (found != NULL && g_str_equal (found, ctx->arch))
    _ts_audit_report_add_check (ctx->report, "metadata:general.architecture", TS_AUDIT_PASS,
                                _("\"%s\", as config.json's architecture implies"), found);
  else
    _ts_audit_report_add_check (ctx->report, "metadata:general.architecture", TS_AUDIT_FAIL,
                                _("the GGUF says %s%s%s, but config.json's architecture is \"%s\""),
                                found ? "\"" : "", found ? found : "nothing",
                                found ? "\"" : "", ctx->arch);
}

/* one key the converter writes, in the type llama.cpp reads */
static void
check_hparam (MetaContext        *ctx,
              const TsArchHparam *hp)
{
  if (hp->type == TS_VALUE_FLOAT32)
    check_float (ctx, hp->suffix, hp->value, hp->origin);
  else if (hp->type == TS_VALUE_BOOL)
    check_bool (ctx, hp->suffix, hp->value != 0, hp->origin);
  else
    check_uint_full (ctx, hp->suffix, (guint64) hp->value, hp->origin, hp->per_layer);
}

/* the hyperparameters the converter writes, in the type llama.cpp reads */
static void
check_hparams (MetaContext *ctx)
{
  TsArchHparam hp[TS_ARCH_MAX_HPARAMS];
  guint n = ts_arch_list_hparams (ctx->arch_table, ctx->config, hp);

  check_architecture (ctx);
  for (guint i = 0; i < n; i++)
    check_hparam (ctx, &hp[i]);
}

/* A key that may be missing (llama.cpp then takes its default) but must
 * not say anything else. */
static void
check_uint_if_present (MetaContext *ctx,
                       const char  *suffix,
                       guint64      expected,
                       const char  *origin)
{
  g_autofree char *key = NULL;

  if (lookup (ctx, suffix, &key) != NULL)
    check_uint (ctx, suffix, expected, origin);
}

/* Rope and attention geometry: llama.cpp takes n_embd / n_head where
 * these keys are missing, so a head size of its own must be written. */
static void
check_geometry (MetaContext *ctx)
{
  const TsHfConfig *c = ctx->config;
  gboolean own_head_dim = c->n_heads > 0 && c->head_dim != c->hidden_size / c->n_heads;
  g_autofree char *key = NULL;

  if (own_head_dim)
    {
      check_uint (ctx, "rope.dimension_count", c->head_dim, "config.json: head_dim");
      check_uint (ctx, "attention.key_length", c->head_dim, "config.json: head_dim");
      check_uint (ctx, "attention.value_length", c->head_dim, "config.json: head_dim");
    }
  else
    {
      const char *origin = c->has_head_dim ? "config.json: head_dim"
                                           : "config.json: hidden_size / num_attention_heads";

      check_uint_if_present (ctx, "rope.dimension_count", c->head_dim, origin);
      check_uint_if_present (ctx, "attention.key_length", c->head_dim, origin);
      check_uint_if_present (ctx, "attention.value_length", c->head_dim, origin);
    }

  /* linear and yarn rope scaling are metadata; llama3's is the rope_freqs
   * tensor */
  if (c->rope_scaling_type != NULL)
    {
      g_autofree char *type = NULL;
      TsMetadataEntry *entry = lookup (ctx, "rope.scaling.type", &key);
      g_autofree char *name = check_name (key);

      type = entry ? ts_metadata_entry_dup_string (entry) : NULL;
      _ts_audit_report_add_check (ctx->report, name,
                                  g_strcmp0 (type, c->rope_scaling_type) == 0 ? TS_AUDIT_PASS : TS_AUDIT_FAIL,
                                  _("\"%s\"; config.json's %s asks for %s scaling"),
                                  type ? type : _("nothing"), c->rope_origin, c->rope_scaling_type);
      for (guint j = 0; j < c->n_rope_scaling; j++)
        check_hparam (ctx, &c->rope_scaling[j]);
    }
  else
    {
      TsMetadataEntry *entry = lookup (ctx, "rope.scaling.type", &key);
      g_autofree char *type = NULL;
      gboolean factor_neutral = TRUE;

      /* llama.cpp takes a factor without a type as linear scaling, and
       * rope.scale_linear as the factor's old name; 0 and 1 scale nothing */
      for (guint i = 0; i < 2; i++)
        {
          const char *suffix = i == 0 ? "rope.scaling.factor" : "rope.scale_linear";
          g_autofree char *factor_key = NULL;
          TsMetadataEntry *factor = lookup (ctx, suffix, &factor_key);
          double value;

          if (factor == NULL)
            continue;
          if (!check_type (ctx, factor, factor_key, TS_VALUE_FLOAT32))
            {
              factor_neutral = FALSE;
              continue;
            }
          value = ts_metadata_entry_get_double (factor);
          if (value != 0.0 && value != 1.0)
            {
              g_autofree char *name = check_name (factor_key);
              g_autofree char *text = value_text (factor);

              factor_neutral = FALSE;
              _ts_audit_report_add_check (ctx->report, name, TS_AUDIT_FAIL,
                                          _("%s: llama.cpp would scale the rope positions by it, "
                                          "which config.json does not ask for"), text);
            }
        }
      if (entry != NULL && check_type (ctx, entry, key, TS_VALUE_STRING))
        {
          g_autofree char *name = check_name (key);

          type = ts_metadata_entry_dup_string (entry);
          if (g_str_equal (type, "linear") && factor_neutral)
            /* llama.cpp's own default when the key is missing */
            _ts_audit_report_add_check (ctx->report, name, TS_AUDIT_PASS,
                                        _("\"linear\" with a factor of 1 (or none): no scaling, as "
                                        "config.json gives"));
          else if (!g_str_equal (type, "none") && !g_str_equal (type, "linear"))
            _ts_audit_report_add_check (ctx->report, name, TS_AUDIT_FAIL,
                                        _("the GGUF asks for \"%s\" rope scaling, which config.json "
                                        "does not"), type);
        }
    }
}

/* Keys llama.cpp reads for every architecture (llama_model_base::
 * load_hparams) that the converter does not write for a Llama checkpoint:
 * any value but the one that changes nothing makes llama.cpp compute
 * something else than the source model. */
typedef enum
{
  NEUTRAL_TRUE,
  NEUTRAL_ZERO,
  NEUTRAL_ONE,
  NEUTRAL_ZERO_OR_EMBEDDING,
} Neutral;

static const struct
{
  const char *suffix;
  TsValueType type;
  Neutral     neutral;
} read_by_llama_cpp[] = {
  { "attention.causal",          TS_VALUE_BOOL,    NEUTRAL_TRUE },
  { "rope.scaling.attn_factor",  TS_VALUE_FLOAT32, NEUTRAL_ONE },
  { "rope.scaling.alpha",        TS_VALUE_FLOAT32, NEUTRAL_ZERO },
  { "pooling_type",              TS_VALUE_UINT32,  NEUTRAL_ZERO },
  { "expert_count",              TS_VALUE_UINT32,  NEUTRAL_ZERO },
  { "expert_used_count",         TS_VALUE_UINT32,  NEUTRAL_ZERO },
  { "expert_group_count",        TS_VALUE_UINT32,  NEUTRAL_ZERO },
  { "expert_group_used_count",   TS_VALUE_UINT32,  NEUTRAL_ZERO },
  { "nextn_predict_layers",      TS_VALUE_UINT32,  NEUTRAL_ZERO },
  { "embedding_length_out",      TS_VALUE_UINT32,  NEUTRAL_ZERO_OR_EMBEDDING },
};

/* the architecture's keys the checks above compare with the source,
 * besides the hyperparameters of ts_arch_list_hparams() */
static const char * const checked_suffixes[] = {
  "rope.dimension_count", "attention.key_length", "attention.value_length", "vocab_size",
  "rope.scaling.type", "rope.scaling.factor", "rope.scale_linear", NULL
};

static gboolean
is_hparam (const TsArchHparam *hp,
           guint               n,
           const char         *suffix)
{
  for (guint i = 0; i < n; i++)
    if (g_str_equal (hp[i].suffix, suffix))
      return TRUE;
  return FALSE;
}

static void
check_read_key (MetaContext     *ctx,
                TsMetadataEntry *entry,
                const char      *key,
                guint            k)
{
  g_autofree char *name = check_name (key);
  g_autofree char *text = value_text (entry);
  gboolean neutral = FALSE;
  const char *neutral_text = NULL;

  if (!check_type (ctx, entry, key, read_by_llama_cpp[k].type))
    return;
  switch (read_by_llama_cpp[k].neutral)
    {
    case NEUTRAL_TRUE:
      neutral = ts_metadata_entry_get_boolean (entry);
      neutral_text = "true";
      break;
    case NEUTRAL_ZERO:
      neutral = ts_metadata_entry_get_double (entry) == 0.0;
      neutral_text = "0";
      break;
    case NEUTRAL_ONE:
      neutral = ts_metadata_entry_get_double (entry) == 1.0;
      neutral_text = "1";
      break;
    case NEUTRAL_ZERO_OR_EMBEDDING:
      neutral = ts_metadata_entry_get_uint64 (entry) == 0 ||
                ts_metadata_entry_get_uint64 (entry) == ctx->config->hidden_size;
      neutral_text = _("0 or the embedding length");
      break;
    default:
      g_assert_not_reached ();
    }
  if (neutral)
    _ts_audit_report_add_check (ctx->report, name, TS_AUDIT_PASS,
                                _("%s: what llama.cpp assumes without the key"), text);
  else
    _ts_audit_report_add_check (ctx->report, name, TS_AUDIT_FAIL,
                                _("%s: llama.cpp reads this key and computes otherwise for any "
                                "value but %s; the converter does not write it, and config.json "
                                "does not ask for it"), text, neutral_text);
}

/* Every key of the architecture that the checks above do not compare:
 * the ones llama.cpp is known to read must hold the value that changes
 * nothing, and any other is pointed out. */
static void
check_other_arch_keys (MetaContext *ctx)
{
  GListModel *have = ts_model_file_get_metadata (ctx->target);
  gsize prefix_len = strlen (ctx->arch) + 1;
  TsArchHparam hp[TS_ARCH_MAX_HPARAMS];
  guint n_hp = ts_arch_list_hparams (ctx->arch_table, ctx->config, hp);

  for (guint i = 0; i < g_list_model_get_n_items (have); i++)
    {
      g_autoptr(TsMetadataEntry) entry = g_list_model_get_item (have, i);
      const char *key = ts_metadata_entry_get_key (entry);
      const char *suffix;
      guint k;

      if (!g_str_has_prefix (key, ctx->arch) || key[prefix_len - 1] != '.')
        continue;
      suffix = key + prefix_len;
      if (g_strv_contains (checked_suffixes, suffix) || is_hparam (hp, n_hp, suffix) ||
          is_hparam (ctx->config->rope_scaling, ctx->config->n_rope_scaling, suffix))
        continue;
      for (k = 0; k < G_N_ELEMENTS (read_by_llama_cpp); k++)
        if (g_str_equal (suffix, read_by_llama_cpp[k].suffix))
          break;
      if (k < G_N_ELEMENTS (read_by_llama_cpp))
        check_read_key (ctx, entry, key, k);
      else
        {
          g_autofree char *name = check_name (key);
          g_autofree char *text = value_text (entry);

          _ts_audit_report_add_check (ctx->report, name, TS_AUDIT_WARN,
                                      _("%s; the converter does not write this key for this "
                                      "checkpoint, and the audit does not know what llama.cpp "
                                      "does with it"), text);
        }
    }
}

/* The token count config.json implies: where the source's tokenizer
 * cannot be read, the one check left on the token list. */
static void
check_token_count (MetaContext *ctx)
{
  TsMetadataEntry *tokens = ts_model_file_lookup_metadata (ctx->target, "tokenizer.ggml.tokens");
  guint64 n;

  if (tokens == NULL || ts_metadata_entry_get_value_type (tokens) != TS_VALUE_ARRAY)
    {
      _ts_audit_report_add_check (ctx->report, "metadata:tokenizer.ggml.tokens", TS_AUDIT_FAIL,
                                  _("the GGUF has no token list"));
      return;
    }
  n = ts_metadata_entry_get_array_length (tokens);
  _ts_audit_report_add_check (ctx->report, "metadata:tokenizer.ggml.tokens",
                              n == ctx->config->vocab_size ? TS_AUDIT_PASS : TS_AUDIT_FAIL,
                              _("%" PRIu64 " tokens; config.json vocab_size is %u"),
                              n, ctx->config->vocab_size);
}

/* ------------------------------------------------------ tokenizer files */

static JsonObject *
load_object (GFile       *dir,
             const char  *name,
             JsonParser  *parser)
{
  g_autoptr(GFile) file = g_file_get_child (dir, name);

  return _ts_load_side_json (file, 256 * 1024 * 1024, parser, NULL);
}

/* "bos_token": "<|x|>" or {"content": "<|x|>", …} */
static const char *
special_token_content (JsonObject *tcfg,
                       const char *member)
{
  JsonNode *node = tcfg ? json_object_get_member (tcfg, member) : NULL;

  if (node == NULL)
    return NULL;
  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    return json_node_get_string (node);
  if (JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonNode *content = json_object_get_member (json_node_get_object (node), "content");

      if (content && JSON_NODE_HOLDS_VALUE (content) &&
          json_node_get_value_type (content) == G_TYPE_STRING)
        return json_node_get_string (content);
    }
  return NULL;
}

static gboolean
find_added_token (JsonObject *tokenizer,
                  const char *content,
                  gint64     *id)
{
  JsonNode *node = tokenizer ? json_object_get_member (tokenizer, "added_tokens") : NULL;
  JsonArray *added;

  if (node == NULL || !JSON_NODE_HOLDS_ARRAY (node) || content == NULL)
    return FALSE;
  added = json_node_get_array (node);
  for (guint i = 0; i < json_array_get_length (added); i++)
    {
      JsonNode *item = json_array_get_element (added, i);
      JsonObject *tok;

      if (!JSON_NODE_HOLDS_OBJECT (item))
        continue;
      tok = json_node_get_object (item);
      if (g_strcmp0 (string_member (tok, "content"), content) == 0 && int_member (tok, "id", id))
        return TRUE;
    }
  return FALSE;
}

static void
check_special_token (MetaContext *ctx,
                     JsonObject  *tcfg,
                     JsonObject  *tokenizer,
                     const char  *which)
{
  g_autofree char *member = g_strconcat (which, "_token", NULL);
  g_autofree char *key = g_strconcat ("tokenizer.ggml.", which, "_token_id", NULL);
  g_autofree char *name = check_name (key);
  const char *content = special_token_content (tcfg, member);
  TsMetadataEntry *entry = ts_model_file_lookup_metadata (ctx->target, key);
  gboolean is_bos = g_str_equal (which, "bos");
  gboolean from_config = is_bos ? ctx->config->bos_is_int : ctx->config->eos_is_int;
  gint64 expected = is_bos ? ctx->config->bos_token_id : ctx->config->eos_token_id;
  g_autofree char *origin = NULL;

  if (find_added_token (tokenizer, content, &expected))
    origin = g_strdup_printf ("tokenizer_config.json's %s \"%s\" (a tokenizer.json added token)",
                              member, content);
  else if (from_config)
    origin = g_strdup_printf ("config.json %s_token_id", which);
  else
    {
      _ts_audit_report_add_check (ctx->report, name, entry ? TS_AUDIT_WARN : TS_AUDIT_PASS,
                                  entry ? _("the source names no %s token, yet the GGUF has one")
                                        : _("the source names no %s token"), which);
      return;
    }
  if (entry != NULL && !check_type (ctx, entry, key, TS_VALUE_UINT32))
    return;
  if (entry != NULL && (gint64) ts_metadata_entry_get_uint64 (entry) == expected)
    _ts_audit_report_add_check (ctx->report, name, TS_AUDIT_PASS,
                                _("%" PRId64 ", as %s says"), expected, origin);
  else if (entry != NULL)
    _ts_audit_report_add_check (ctx->report, name, TS_AUDIT_FAIL,
                                _("the GGUF says %" PRIu64 ", but %s is %" PRId64),
                                ts_metadata_entry_get_uint64 (entry), origin, expected);
  else
    _ts_audit_report_add_check (ctx->report, name, TS_AUDIT_FAIL,
                                _("the GGUF has no %s; %s is %" PRId64), key, origin, expected);
}

/* tokenizer_config.json's chat_template (a string, or a list whose
 * "default" entry the converter writes), else chat_template.jinja */
static char *
expected_chat_template (GFile      *dir,
                        JsonObject *tcfg)
{
  JsonNode *node = tcfg ? json_object_get_member (tcfg, "chat_template") : NULL;
  g_autoptr(GFile) jinja = g_file_get_child (dir, "chat_template.jinja");
  char *contents = NULL;

  if (node && JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    return g_strdup (json_node_get_string (node));
  if (node && JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *list = json_node_get_array (node);

      for (guint i = 0; i < json_array_get_length (list); i++)
        {
          JsonNode *item = json_array_get_element (list, i);
          JsonObject *o = JSON_NODE_HOLDS_OBJECT (item) ? json_node_get_object (item) : NULL;

          if (o && g_strcmp0 (string_member (o, "name"), "default") == 0)
            return g_strdup (string_member (o, "template"));
        }
      return NULL;
    }
  if (_ts_load_side_file (jinja, 16 * 1024 * 1024, NULL, &contents, NULL, NULL))
    return contents;
  return NULL;
}

static gsize
first_difference (const char *a,
                  gsize       len_a,
                  const char *b,
                  gsize       len_b)
{
  gsize i = 0;

  while (i < len_a && i < len_b && a[i] == b[i])
    i++;
  return i;
}

static void
check_chat_template (MetaContext *ctx,
                     JsonObject  *tcfg)
{
  const char *name = "metadata:tokenizer.chat_template";
  g_autofree char *want = expected_chat_template (ctx->dir, tcfg);
  TsMetadataEntry *entry = ts_model_file_lookup_metadata (ctx->target, "tokenizer.chat_template");
  const char *found = NULL;
  gsize found_len = 0, want_len = want ? strlen (want) : 0;

  if (entry != NULL)
    found = ts_metadata_entry_get_string (entry, &found_len);
  if (want == NULL)
    _ts_audit_report_add_check (ctx->report, name, found ? TS_AUDIT_FAIL : TS_AUDIT_PASS,
                                "%s", found ? _("the source has no chat template, yet the GGUF has one: "
                                                "llama.cpp would format chats with it")
                                            : _("the source has no chat template, nor has the GGUF"));
  else if (found == NULL)
    _ts_audit_report_add_check (ctx->report, name, TS_AUDIT_FAIL,
                                _("the GGUF has no chat template; tokenizer_config.json has one "
                                "of %" PRIu64 " bytes"), (guint64) want_len);
  else if (found_len == want_len && memcmp (found, want, want_len) == 0)
    _ts_audit_report_add_check (ctx->report, name, TS_AUDIT_PASS,
                                _("identical to the source's (%" PRIu64 " bytes)"), (guint64) want_len);
  else
    _ts_audit_report_add_check (ctx->report, name, TS_AUDIT_FAIL,
                                _("differs from the source's from byte %" PRIu64
                                " (GGUF %" PRIu64 " bytes, source %" PRIu64 " bytes)"),
                                (guint64) first_difference (found, found_len, want, want_len),
                                (guint64) found_len, (guint64) want_len);
}

/* ------------------------------------------------- tokenizer metadata */

/* TEXT (valid UTF-8) with its control characters, quotes and
 * backslashes escaped, and the rest as it is */
static char *
quote (const char *text)
{
  static const char keep[] =      /* every byte from 0x80 */
    "\x80\x81\x82\x83\x84\x85\x86\x87\x88\x89\x8a\x8b\x8c\x8d\x8e\x8f"
    "\x90\x91\x92\x93\x94\x95\x96\x97\x98\x99\x9a\x9b\x9c\x9d\x9e\x9f"
    "\xa0\xa1\xa2\xa3\xa4\xa5\xa6\xa7\xa8\xa9\xaa\xab\xac\xad\xae\xaf"
    "\xb0\xb1\xb2\xb3\xb4\xb5\xb6\xb7\xb8\xb9\xba\xbb\xbc\xbd\xbe\xbf"
    "\xc0\xc1\xc2\xc3\xc4\xc5\xc6\xc7\xc8\xc9\xca\xcb\xcc\xcd\xce\xcf"
    "\xd0\xd1\xd2\xd3\xd4\xd5\xd6\xd7\xd8\xd9\xda\xdb\xdc\xdd\xde\xdf"
    "\xe0\xe1\xe2\xe3\xe4\xe5\xe6\xe7\xe8\xe9\xea\xeb\xec\xed\xee\xef"
    "\xf0\xf1\xf2\xf3\xf4\xf5\xf6\xf7\xf8\xf9\xfa\xfb\xfc\xfd\xfe\xff";

  return g_strescape (text, keep);
}

/* The first way in which ENTRY (the GGUF's) differs from WANT. */
static char *
describe_difference (TsMetadataEntry *entry,
                     TsMetadataEntry *want)
{
  TsValueType t = ts_metadata_entry_get_value_type (entry);
  g_autofree char *found_text = NULL, *want_text = NULL;

  if (t != ts_metadata_entry_get_value_type (want) ||
      (t == TS_VALUE_ARRAY &&
       ts_metadata_entry_get_array_type (entry) != ts_metadata_entry_get_array_type (want)))
    return g_strdup_printf (_("a value of another type (%s, expected %s)"),
                            ts_value_type_to_nick (t),
                            ts_value_type_to_nick (ts_metadata_entry_get_value_type (want)));
  if (t == TS_VALUE_ARRAY)
    {
      guint64 n = ts_metadata_entry_get_array_length (entry);
      guint64 m = ts_metadata_entry_get_array_length (want);

      for (guint64 i = 0; i < MIN (n, m); i++)
        {
          g_autoptr(TsMetadataEntry) a = ts_metadata_entry_get_item (entry, i);
          g_autoptr(TsMetadataEntry) b = ts_metadata_entry_get_item (want, i);
          g_autofree char *sa = value_text (a);
          g_autofree char *sb = value_text (b);
          gboolean differ = !g_str_equal (sa, sb);

          if (ts_metadata_entry_get_array_type (entry) == TS_VALUE_STRING)
            {
              /* strings by their bytes (two invalid UTF-8 ones may print
               * alike), and quoted (an empty one prints as nothing) */
              gsize la, lb;
              const char *ra = ts_metadata_entry_get_item_string (entry, i, &la);
              const char *rb = ts_metadata_entry_get_item_string (want, i, &lb);

              differ = la != lb || memcmp (ra, rb, la) != 0;
              if (differ)
                {
                  g_autofree char *qa = quote (sa);
                  g_autofree char *qb = quote (sb);

                  return g_strdup_printf (_("item %" PRIu64 " is \"%s\" (%" PRIu64 " bytes), expected "
                                          "\"%s\" (%" PRIu64 " bytes)"),
                                          i, qa, (guint64) la, qb, (guint64) lb);
                }
            }
          else if (differ)
            return g_strdup_printf (_("item %" PRIu64 " is %s, expected %s"), i, sa, sb);
        }
      return g_strdup_printf (_("%" PRIu64 " items, expected %" PRIu64), n, m);
    }
  found_text = value_text (entry);
  want_text = value_text (want);
  return g_strdup_printf (_("%s, expected %s"), found_text, want_text);
}

static gboolean
entry_bytes_equal (TsModelFile     *target,
                   TsMetadataEntry *entry,
                   GBytes          *want_bytes,
                   TsMetadataEntry *want)
{
  g_autoptr(TsFilePart) part = g_list_model_get_item (ts_model_file_get_parts (target), 0);
  gsize size;
  const guint8 *data = g_bytes_get_data (want_bytes, &size);

  return ts_metadata_entry_get_length (entry) == ts_metadata_entry_get_length (want) &&
         memcmp (ts_file_part_get_contents (part) + ts_metadata_entry_get_offset (entry),
                 data + ts_metadata_entry_get_offset (want),
                 ts_metadata_entry_get_length (want)) == 0;
}

/* llama.cpp's token types (gguf-py's TokenType) */
static const char *
token_type_name (gint32 type)
{
  switch (type)
    {
    case 1: return _("normal");
    case 2: return _("unknown");
    case 3: return _("control");
    case 4: return _("user-defined");
    case 5: return _("unused");
    case 6: return _("byte");
    default: return _("undefined");
    }
}

/* the types llama.cpp's converter has given padding and added tokens over
 * time: control, user-defined, unused (before mid-2024 padding was
 * user-defined, and added tokens user-defined or control by other rules) */
static gboolean
is_filing_type (gint32 type)
{
  return type == 3 || type == 4 || type == 5;
}

static const guint8 *
int32_array (TsMetadataEntry *entry)
{
  if (entry == NULL || ts_metadata_entry_get_value_type (entry) != TS_VALUE_ARRAY ||
      ts_metadata_entry_get_array_type (entry) != TS_VALUE_INT32)
    return NULL;
  return ts_metadata_entry_get_array_data (entry);
}

static gint32
int32_item (const guint8 *data,
            guint64       index)
{
  gint32 v;

  memcpy (&v, data + 4 * index, 4);
  return GINT32_FROM_LE (v);
}

/* item INDEX of the expected token list, quoted for a message */
static char *
token_text (TsMetadataEntry *tokens,
            guint64          index)
{
  gsize len;
  const char *raw = ts_metadata_entry_get_item_string (tokens, index, &len);
  g_autofree char *text = g_utf8_make_valid (raw, (gssize) len);
  g_autofree char *head = g_utf8_strlen (text, -1) > 40 ? g_utf8_substring (text, 0, 40) : NULL;

  return quote (head ? head : text);
}

/* The tokens whose kind llama.cpp acts on: every special id, the source's
 * or the GGUF's, and every added token a chat template writes
 * (<|start_header_id|>, say). Their type must be what the source gives. */
typedef struct
{
  GHashTable *ids;        /* special token ids, as GSIZE_TO_POINTER (id + 1) */
  GPtrArray  *templates;  /* the source's chat templates (their entries) */
} WorkingTokens;

static void
working_tokens_init (WorkingTokens  *w,
                     TsGgufMetadata *md,
                     TsModelFile    *target)
{
  g_autoptr(GListModel) wanted = ts_gguf_metadata_list_entries (md);
  GListModel *lists[2] = { wanted, ts_model_file_get_metadata (target) };

  w->ids = g_hash_table_new (g_direct_hash, g_direct_equal);
  w->templates = g_ptr_array_new_with_free_func (g_object_unref);
  for (guint l = 0; l < G_N_ELEMENTS (lists); l++)
    for (guint i = 0; i < g_list_model_get_n_items (lists[l]); i++)
      {
        g_autoptr(TsMetadataEntry) e = g_list_model_get_item (lists[l], i);
        const char *key = ts_metadata_entry_get_key (e);
        TsValueType type = ts_metadata_entry_get_value_type (e);

        if (g_str_has_prefix (key, "tokenizer.ggml.") && g_str_has_suffix (key, "_token_id") &&
            type == TS_VALUE_UINT32)
          g_hash_table_add (w->ids, GSIZE_TO_POINTER ((gsize) ts_metadata_entry_get_uint64 (e) + 1));
        else if (l == 0 && g_str_has_prefix (key, "tokenizer.chat_template") && type == TS_VALUE_STRING)
          g_ptr_array_add (w->templates, g_object_ref (e));
      }
}

static void
working_tokens_clear (WorkingTokens *w)
{
  g_clear_pointer (&w->ids, g_hash_table_unref);
  g_clear_pointer (&w->templates, g_ptr_array_unref);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (WorkingTokens, working_tokens_clear)

static gboolean
is_working_token (WorkingTokens *w,
                  guint64        index,
                  const char    *text,
                  gsize          len)
{
  g_autofree char *needle = NULL;

  if (g_hash_table_contains (w->ids, GSIZE_TO_POINTER ((gsize) index + 1)))
    return TRUE;
  if (len < 2 || memchr (text, 0, len) != NULL)
    return FALSE;
  needle = g_strndup (text, len);
  for (guint i = 0; i < w->templates->len; i++)
    {
      gsize tlen;
      const char *template = ts_metadata_entry_get_string (g_ptr_array_index (w->templates, i), &tlen);

      if (g_strstr_len (template, (gssize) tlen, needle) != NULL)
        return TRUE;
    }
  return FALSE;
}

/* Token types that differ from what the converter writes today are a
 * warning when every difference is one older converters made: padding and
 * added tokens typed user-defined (as converters did before mid-2024), or
 * otherwise among control, user-defined and unused if the token is neither
 * a special token nor one a chat template writes. Any other difference (a
 * normal token typed control, the BOS typed unused) changes how llama.cpp
 * tokenizes, detokenizes or starts and stops, and fails. */
static void
check_token_types (MetaContext     *ctx,
                   const char      *name,
                   TsMetadataEntry *entry,
                   TsMetadataEntry *want,
                   TsMetadataEntry *want_tokens,
                   TsGgufMetadata  *md)
{
  const guint8 *have = int32_array (entry), *expect = int32_array (want);
  guint64 n = ts_metadata_entry_get_array_length (want);
  guint64 n_differ = 0;
  g_autofree char *how = describe_difference (entry, want);
  g_autofree char *count = NULL;
  g_auto(WorkingTokens) working = { NULL, NULL };

  if (have == NULL || expect == NULL || ts_metadata_entry_get_array_length (entry) != n ||
      want_tokens == NULL || ts_metadata_entry_get_array_length (want_tokens) < n)
    {
      _ts_audit_report_add_check (ctx->report, name, TS_AUDIT_FAIL,
                                  _("differs from the source tokenizer's: %s"), how);
      return;
    }
  working_tokens_init (&working, md, ctx->target);
  for (guint64 i = 0; i < n; i++)
    {
      gint32 a = int32_item (have, i), b = int32_item (expect, i);
      gsize len = 0;
      const char *raw;

      if (a == b)
        continue;
      raw = ts_metadata_entry_get_item_string (want_tokens, i, &len);
      /* user-defined for control or unused: what converters before mid-2024
       * wrote for every added and padding token */
      if (!is_filing_type (a) || !is_filing_type (b) ||
          (!(a == 4 && (b == 3 || b == 5)) && is_working_token (&working, i, raw, len)))
        {
          g_autofree char *text = token_text (want_tokens, i);

          _ts_audit_report_add_check (ctx->report, name, TS_AUDIT_FAIL,
                                      _("token %" PRIu64 " (\"%s\") is typed %s (%d), but the source "
                                      "tokenizer makes it %s (%d): llama.cpp would handle it as "
                                      "another kind of token"),
                                      i, text, token_type_name (a), a, token_type_name (b), b);
          return;
        }
      n_differ++;
    }
  _ts_audit_report_add_check (ctx->report, name, TS_AUDIT_WARN,
                              g_dngettext (GETTEXT_PACKAGE,
                                           "%s: %s token typed otherwise than the converter types it "
                                           "today, a padding or added token (older llama.cpp "
                                           "converters typed those so)",
                                           "%s: %s tokens typed otherwise than the converter types them "
                                           "today, all padding or added tokens (older llama.cpp "
                                           "converters typed those so)", n_differ),
                              how, (count = _ts_format_count (n_differ)));
}

/* What llama.cpp takes for a flag the GGUF does not have, for a BPE
 * ("gpt2") tokenizer with the pre-tokenizer PRE or a SentencePiece
 * ("llama") one (llama-vocab.cpp); FALSE for another tokenizer model */
static gboolean
llama_cpp_default_flag (const char *key,
                        const char *model,
                        const char *pre,
                        gboolean   *value)
{
  static const char * const bos_pres[] = {
    "llama3", "llama-v3", "llama-bpe", "falcon3", "falcon-h1", "pixtral", "midm-2.0",
    "lfm2", "jina-v5-nano", "tekken", "chameleon", NULL
  };

  if (g_strcmp0 (model, "llama") == 0)
    {
      if (g_str_equal (key, "tokenizer.ggml.add_bos_token") ||
          g_str_equal (key, "tokenizer.ggml.add_space_prefix"))
        *value = TRUE;
      else if (g_str_equal (key, "tokenizer.ggml.add_eos_token") ||
               g_str_equal (key, "tokenizer.ggml.add_sep_token"))
        *value = FALSE;
      else
        return FALSE;
      return TRUE;
    }
  if (g_strcmp0 (model, "gpt2") != 0)
    return FALSE;
  if (g_str_equal (key, "tokenizer.ggml.add_bos_token"))
    *value = pre != NULL && g_strv_contains (bos_pres, pre);
  else if (g_str_equal (key, "tokenizer.ggml.add_eos_token") ||
           g_str_equal (key, "tokenizer.ggml.add_sep_token") ||
           g_str_equal (key, "tokenizer.ggml.add_space_prefix"))
    *value = FALSE;
  else
    return FALSE;
  return TRUE;
}

/* The special ids llama.cpp adds to the tokens that end generation, and
 * the texts it finds each one by when the GGUF does not give it
 * (llama-vocab.cpp): an id pointing at such a token changes nothing. */
static const struct
{
  const char *key;
  const char *texts[12];
} eog_ids[] = {
  { "tokenizer.ggml.eot_token_id", { "<|eot_id|>", "<|im_end|>", "<|end|>", "<end_of_turn>",
    "<|endoftext|>", "<|end_of_text|>", "<EOT>", "_<EOT>", "[EOT]", "<｜end▁of▁sentence｜>",
    "<end_of_utterance>", NULL } },
  { "tokenizer.ggml.eom_token_id", { "<|eom_id|>", NULL } },
  { "tokenizer.ggml.fim_pad_token_id", { "<|fim_pad|>", "<fim-pad>", "<fim_pad>", "<PAD>", "[PAD]", NULL } },
  { "tokenizer.ggml.fim_rep_token_id", { "<|fim_repo|>", "<|repo_name|>", "<fim-repo>", "<REPO>",
    "<reponame>", NULL } },
  { "tokenizer.ggml.fim_sep_token_id", { "<|file_sep|>", NULL } },
};

static gboolean
token_is_one_of (TsMetadataEntry   *tokens,
                 guint64            id,
                 const char * const *texts)
{
  gsize len;
  const char *raw = ts_metadata_entry_get_item_string (tokens, id, &len);

  for (guint i = 0; texts[i] != NULL; i++)
    if (strlen (texts[i]) == len && memcmp (texts[i], raw, len) == 0)
      return TRUE;
  return FALSE;
}

/* Whether @key makes token @id end generation where llama.cpp would not
 * already: it ends at these texts whatever the ids say, and at the
 * token it finds for the key by its text */
static gboolean
adds_eog (const char      *key,
          TsMetadataEntry *tokens,
          guint64          id)
{
  static const char * const always[] = {
    "<|eot_id|>", "<|im_end|>", "<|end|>", "<|return|>", "<|call|>", "<|flush|>", "<|calls|>",
    "<end_of_turn>", "<|endoftext|>", "</s>", "<|eom_id|>", "<EOT>", "_<EOT>", "[EOT]", "[EOS]",
    "<|end_of_text|>", "<end_of_utterance>", "<eos>", "<turn|>", "<|tool_response>",
    "<｜end▁of▁sentence｜>", "[e~[", NULL
  };

  for (guint i = 0; i < G_N_ELEMENTS (eog_ids); i++)
    if (g_str_equal (key, eog_ids[i].key))
      return !token_is_one_of (tokens, id, always) && !token_is_one_of (tokens, id, eog_ids[i].texts);
  return FALSE;
}

/* A special token id the source does not give: pointing at a token of the
 * vocabulary's own (a word) it makes llama.cpp stop at, or hide, that word;
 * as an end-of-generation id, at any token llama.cpp does not already end
 * generation at, it stops there */
static void
check_extra_token_id (MetaContext     *ctx,
                      TsMetadataEntry *entry,
                      const char      *key,
                      TsMetadataEntry *want_types,
                      TsMetadataEntry *want_tokens)
{
  g_autofree char *name = check_name (key);
  const guint8 *types = int32_array (want_types);
  guint64 id;
  g_autofree char *text = NULL;
  gint32 type;

  if (!check_type (ctx, entry, key, TS_VALUE_UINT32))
    return;
  id = ts_metadata_entry_get_uint64 (entry);
  if (types == NULL || want_tokens == NULL ||
      id >= ts_metadata_entry_get_array_length (want_types) ||
      id >= ts_metadata_entry_get_array_length (want_tokens))
    {
      _ts_audit_report_add_check (ctx->report, name, TS_AUDIT_WARN,
                                  _("%" PRIu64 ", outside the vocabulary (llama.cpp ignores it); "
                                  "the source's tokenizer files do not give this key"), id);
      return;
    }
  type = int32_item (types, id);
  text = token_text (want_tokens, id);
  if (type == 1)
    _ts_audit_report_add_check (ctx->report, name, TS_AUDIT_FAIL,
                                _("%" PRIu64 " (\"%s\", a normal token of the vocabulary): the source's "
                                "tokenizer files do not give this key, and llama.cpp would treat "
                                "that token as special"), id, text);
  else if (adds_eog (key, want_tokens, id))
    _ts_audit_report_add_check (ctx->report, name, TS_AUDIT_FAIL,
                                _("%" PRIu64 " (\"%s\", a %s token): the source's tokenizer files do "
                                "not give this key, and llama.cpp would end generation at that "
                                "token"), id, text, token_type_name (type));
  else
    _ts_audit_report_add_check (ctx->report, name, TS_AUDIT_WARN,
                                _("%" PRIu64 " (\"%s\", a %s token); the source's tokenizer files do "
                                "not give this key"), id, text, token_type_name (type));
}

/* The tokenizer the GGUF must carry is what the source's tokenizer files
 * give, read as the converter reads them (the tests hold that reading to
 * llama.cpp's own converter): the tokens, their types, the merges and the
 * flags, compared key by key, byte for byte. The special token ids the
 * audit derives itself (above) and the chat template are left to their
 * own checks. */
static void
check_tokenizer (MetaContext *ctx)
{
  static const char * const own_checks[] = {
    "tokenizer.ggml.bos_token_id", "tokenizer.ggml.eos_token_id", "tokenizer.chat_template", NULL
  };
  g_autoptr(TsGgufMetadata) md = ts_gguf_metadata_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) want_bytes = NULL;
  g_autoptr(GListModel) wanted = NULL;
  g_autofree char *pre = NULL;
  TsMetadataEntry *pre_entry = ts_model_file_lookup_metadata (ctx->target, "tokenizer.ggml.pre");
  TsMetadataEntry *tokens = ts_model_file_lookup_metadata (ctx->target, "tokenizer.ggml.tokens");
  GListModel *have = ts_model_file_get_metadata (ctx->target);
  gboolean pre_given = FALSE;
  g_autoptr(TsMetadataEntry) want_tokens = NULL;
  g_autoptr(TsMetadataEntry) want_types = NULL;
  g_autofree char *want_model = NULL;
  g_autofree char *have_pre = NULL;

  /* The expected token list has config.json's vocab_size entries, padded
   * with [PADn] tokens: build it only for a GGUF that holds as many, so
   * that what this check allocates stays in proportion to the files (a
   * config.json saying 16 million tokens beside a small GGUF took 1.3 GB) */
  if (tokens == NULL || ts_metadata_entry_get_value_type (tokens) != TS_VALUE_ARRAY ||
      ts_metadata_entry_get_array_length (tokens) != ctx->config->vocab_size)
    {
      check_token_count (ctx);
      return;
    }
  /* and only up to a size no real vocabulary comes near (the largest have
   * about 260,000 tokens): ~100 bytes a token, empty ones 8 in the GGUF */
  if (ctx->config->vocab_size > AUDIT_MAX_COMPARED_TOKENS)
    {
      check_token_count (ctx);
      _ts_audit_report_add_check (ctx->report, "metadata:tokenizer", TS_AUDIT_WARN,
                                  _("the tokenizer is not compared: %u tokens, more than the %u "
                                  "this audit compares"), ctx->config->vocab_size,
                                  (guint) AUDIT_MAX_COMPARED_TOKENS);
      return;
    }

  if (!ts_hf_tokenizer_add_metadata (ctx->dir, ctx->config, NULL, md, &error) &&
      g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED) && pre_entry != NULL &&
      ts_metadata_entry_get_value_type (pre_entry) == TS_VALUE_STRING)
    {
      /* a pre-tokenizer only a name identifies: the conversion's choice */
      g_clear_error (&error);
      g_clear_pointer (&md, ts_gguf_metadata_free);
      md = ts_gguf_metadata_new ();
      pre = ts_metadata_entry_dup_string (pre_entry);
      pre_given = TRUE;
      ts_hf_tokenizer_add_metadata (ctx->dir, ctx->config, pre, md, &error);
    }
  if (error != NULL && ts_hf_tokenizer_is_sentencepiece (ctx->dir))
    {
      /* a tokenizer.model llama.cpp's converter cannot read either: no
       * conversion of this source has a tokenizer to hold to it */
      _ts_audit_report_add_check (ctx->report, "metadata:tokenizer", TS_AUDIT_FAIL,
                                  _("the source's tokenizer cannot be read (llama.cpp's converter "
                                    "stops there too): %s"), error->message);
      check_token_count (ctx);
      return;
    }
  if (error != NULL)
    {
      /* a tokenizer the converter does not read (a Llama 2 style BPE
       * tokenizer.json, say): the GGUF may still be right, and only its
       * token count is checked */
      _ts_audit_report_add_check (ctx->report, "metadata:tokenizer", TS_AUDIT_WARN,
                                  _("not compared with the source's tokenizer files: %s"),
                                  error->message);
      check_token_count (ctx);
      return;
    }

  want_bytes = ts_gguf_metadata_get_bytes (md);
  wanted = ts_gguf_metadata_list_entries (md);
  for (guint i = 0; i < g_list_model_get_n_items (wanted); i++)
    {
      g_autoptr(TsMetadataEntry) want = g_list_model_get_item (wanted, i);
      const char *key = ts_metadata_entry_get_key (want);

      if (g_str_equal (key, "tokenizer.ggml.tokens"))
        g_set_object (&want_tokens, want);
      else if (g_str_equal (key, "tokenizer.ggml.token_type"))
        g_set_object (&want_types, want);
      else if (g_str_equal (key, "tokenizer.ggml.model"))
        want_model = ts_metadata_entry_dup_string (want);
    }
  if (pre_entry != NULL && ts_metadata_entry_get_value_type (pre_entry) == TS_VALUE_STRING)
    have_pre = ts_metadata_entry_dup_string (pre_entry);
  for (guint i = 0; i < g_list_model_get_n_items (wanted); i++)
    {
      g_autoptr(TsMetadataEntry) want = g_list_model_get_item (wanted, i);
      const char *key = ts_metadata_entry_get_key (want);
      TsMetadataEntry *entry = ts_model_file_lookup_metadata (ctx->target, key);
      g_autofree char *name = check_name (key);
      /* the vocabulary, merges and scores (learned) and the tokenizer
       * model; for the rest llama.cpp has defaults, right only for some
       * sources */
      gboolean required = g_str_equal (key, "tokenizer.ggml.tokens") ||
                          g_str_equal (key, "tokenizer.ggml.merges") ||
                          g_str_equal (key, "tokenizer.ggml.scores") ||
                          g_str_equal (key, "tokenizer.ggml.model");
      gboolean dflt;

      if (!g_str_has_prefix (key, "tokenizer.") || g_strv_contains (own_checks, key))
        continue;
      if (entry == NULL && required)
        _ts_audit_report_add_check (ctx->report, name, TS_AUDIT_FAIL, _("the GGUF has no %s"), key);
      else if (entry == NULL)
        {
          /* llama.cpp takes its default: right only where that is what
           * the source gives */
          g_autofree char *text = value_text (want);

          if (llama_cpp_default_flag (key, want_model, have_pre, &dflt) &&
              ts_metadata_entry_get_value_type (want) == TS_VALUE_BOOL &&
              dflt == ts_metadata_entry_get_boolean (want))
            _ts_audit_report_add_check (ctx->report, name, TS_AUDIT_PASS,
                                        _("the GGUF has no %s; llama.cpp's default, %s, is what the "
                                        "source gives"), key, text);
          else
            _ts_audit_report_add_check (ctx->report, name, TS_AUDIT_FAIL,
                                        _("the GGUF has no %s, so llama.cpp takes a default of its "
                                        "own; the source gives %s"), key, text);
        }
      else if (entry_bytes_equal (ctx->target, entry, want_bytes, want))
        {
          if (g_str_equal (key, "tokenizer.ggml.tokens"))
            _ts_audit_report_add_check (ctx->report, name, TS_AUDIT_PASS,
                                        _("%" PRIu64 " tokens (config.json vocab_size), identical to "
                                          "the source tokenizer's"),
                                        ts_metadata_entry_get_array_length (want));
          else if (ts_metadata_entry_get_value_type (want) == TS_VALUE_ARRAY)
            _ts_audit_report_add_check (ctx->report, name, TS_AUDIT_PASS,
                                        _("%" PRIu64 " items, identical to the source tokenizer's"),
                                        ts_metadata_entry_get_array_length (want));
          else
            {
              g_autofree char *text = value_text (want);

              /* a name the audit cannot hold to the source: llama.cpp splits
               * text by it, so it may be wrong unseen */
              if (pre_given && g_str_equal (key, "tokenizer.ggml.pre"))
                _ts_audit_report_add_check (ctx->report, name, TS_AUDIT_WARN,
                                            _("%s: the source's pre-tokenizer has no name the audit "
                                              "recognises, so it cannot tell whether llama.cpp splits "
                                              "text as the source does"), text);
              else
                _ts_audit_report_add_check (ctx->report, name, TS_AUDIT_PASS,
                                            _("%s, as the source tokenizer gives"), text);
            }
        }
      else if (g_str_equal (key, "tokenizer.ggml.token_type"))
        check_token_types (ctx, name, entry, want, want_tokens, md);
      else
        {
          g_autofree char *how = describe_difference (entry, want);

          _ts_audit_report_add_check (ctx->report, name, TS_AUDIT_FAIL,
                                      _("differs from the source tokenizer's: %s"), how);
        }
    }

  /* tokenizer keys the source does not give */
  for (guint i = 0; i < g_list_model_get_n_items (have); i++)
    {
      g_autoptr(TsMetadataEntry) entry = g_list_model_get_item (have, i);
      const char *key = ts_metadata_entry_get_key (entry);

      if (g_str_has_prefix (key, "tokenizer.") && !ts_gguf_metadata_contains (md, key) &&
          !g_strv_contains (own_checks, key))
        {
          g_autofree char *name = check_name (key);
          g_autofree char *text = value_text (entry);
          gboolean dflt;

          if (g_str_has_prefix (key, "tokenizer.chat_template"))
            _ts_audit_report_add_check (ctx->report, name, TS_AUDIT_FAIL,
                                        _("%s: a chat template the source does not have, which "
                                        "llama.cpp would offer"), text);
          else if (g_str_has_prefix (key, "tokenizer.ggml.") && g_str_has_suffix (key, "_token_id"))
            check_extra_token_id (ctx, entry, key, want_types, want_tokens);
          else if (llama_cpp_default_flag (key, want_model, have_pre, &dflt))
            {
              /* llama.cpp would take its default without the key */
              if (ts_metadata_entry_get_value_type (entry) == TS_VALUE_BOOL &&
                  ts_metadata_entry_get_boolean (entry) == dflt)
                _ts_audit_report_add_check (ctx->report, name, TS_AUDIT_PASS,
                                            _("%s: not in the source's tokenizer files, and what "
                                              "llama.cpp takes without the key"), text);
              else
                _ts_audit_report_add_check (ctx->report, name, TS_AUDIT_FAIL,
                                            _("%s: not in the source's tokenizer files, and not what "
                                              "llama.cpp takes without the key, so it tokenizes or "
                                              "detokenizes otherwise"), text);
            }
          else if (g_str_equal (key, "tokenizer.ggml.suppress_tokens"))
            _ts_audit_report_add_check (ctx->report, name, TS_AUDIT_FAIL,
                                        _("%s: not in the source's tokenizer files; llama.cpp's "
                                          "samplers would never pick these tokens"), text);
          else
            _ts_audit_report_add_check (ctx->report, name, TS_AUDIT_WARN,
                                        _("%s; the source's tokenizer files do not give this key"),
                                        text);
        }
    }
}

/* general.sampling.*: llama-cli and llama-server take these for their
 * sampling defaults (common_init_sampler_from_model), so each must be what
 * generation_config.json gives: another value fails. Older converters wrote
 * none, so a missing one is a warning (llama.cpp's own defaults apply), and
 * so is an extra one (llama.cpp's converter takes them from a --metadata
 * file too). */
static void
check_sampling (MetaContext *ctx)
{
  g_autoptr(TsGgufMetadata) md = ts_gguf_metadata_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *unreadable = NULL;
  g_autoptr(GBytes) want_bytes = NULL;
  g_autoptr(GListModel) wanted = NULL;
  GListModel *have = ts_model_file_get_metadata (ctx->target);

  /* a value llama.cpp's converter refuses, or a file it passes over (both
   * messages name the file) */
  if (!_ts_sampling_add_metadata (ctx->dir, md, &unreadable, &error) || unreadable != NULL)
    {
      _ts_audit_report_add_check (ctx->report, "metadata:general.sampling", TS_AUDIT_WARN,
                                  _("%s; the sampling defaults are not compared"),
                                  error != NULL ? error->message : unreadable);
      return;
    }
  want_bytes = ts_gguf_metadata_get_bytes (md);
  wanted = ts_gguf_metadata_list_entries (md);
  for (guint i = 0; i < g_list_model_get_n_items (wanted); i++)
    {
      g_autoptr(TsMetadataEntry) want = g_list_model_get_item (wanted, i);
      const char *key = ts_metadata_entry_get_key (want);
      TsMetadataEntry *entry = ts_model_file_lookup_metadata (ctx->target, key);
      g_autofree char *name = check_name (key);
      g_autofree char *text = value_text (want);

      if (entry == NULL)
        _ts_audit_report_add_check (ctx->report, name, TS_AUDIT_WARN,
                                    _("the GGUF has no %s: llama.cpp's own default applies, not "
                                      "generation_config.json's %s"), key, text);
      else if (entry_bytes_equal (ctx->target, entry, want_bytes, want))
        _ts_audit_report_add_check (ctx->report, name, TS_AUDIT_PASS,
                                    _("%s, as generation_config.json gives"), text);
      else
        {
          g_autofree char *how = describe_difference (entry, want);

          _ts_audit_report_add_check (ctx->report, name, TS_AUDIT_FAIL,
                                      _("%s: not generation_config.json's, and llama.cpp samples "
                                        "with it by default"), how);
        }
    }
  for (guint i = 0; i < g_list_model_get_n_items (have); i++)
    {
      g_autoptr(TsMetadataEntry) entry = g_list_model_get_item (have, i);
      const char *key = ts_metadata_entry_get_key (entry);

      if (g_str_has_prefix (key, "general.sampling.") && !ts_gguf_metadata_contains (md, key))
        {
          g_autofree char *name = check_name (key);
          g_autofree char *text = value_text (entry);

          /* llama.cpp's converter also takes these from a --metadata
           * file: the user's choice, which the source does not make */
          _ts_audit_report_add_check (ctx->report, name, TS_AUDIT_WARN,
                                      _("%s: generation_config.json does not give it, and llama.cpp "
                                        "samples with it by default"), text);
        }
    }
}

void
_ts_audit_check_metadata (TsAuditReport    *report,
                          GFile            *dir,
                          const TsHfConfig *config,
                          const TsArch     *arch,
                          TsModelFile      *target)
{
  MetaContext ctx = { report, target, ts_arch_get_name (arch), arch, dir, config };
  g_autoptr(JsonParser) tcfg_parser = json_parser_new_immutable ();
  g_autoptr(JsonParser) tok_parser = json_parser_new_immutable ();
  JsonObject *tcfg = load_object (dir, "tokenizer_config.json", tcfg_parser);
  JsonObject *tokenizer = load_object (dir, "tokenizer.json", tok_parser);
  g_autofree char *vocab_key = NULL;

  check_hparams (&ctx);
  check_geometry (&ctx);
  check_other_arch_keys (&ctx);
  if (lookup (&ctx, "vocab_size", &vocab_key) != NULL)
    check_uint (&ctx, "vocab_size", config->vocab_size, "config.json: vocab_size");
  check_special_token (&ctx, tcfg, tokenizer, "bos");
  check_special_token (&ctx, tcfg, tokenizer, "eos");
  check_chat_template (&ctx, tcfg);
  check_sampling (&ctx);
  /* one parsed tokenizer.json at a time: a Llama 3 one takes ~100 MB */
  g_clear_object (&tok_parser);
  check_tokenizer (&ctx);
}

/* ------------------------------------------------- same-format metadata */

static gboolean
entries_equal (TsModelFile     *source,
               TsMetadataEntry *a,
               TsModelFile     *target,
               TsMetadataEntry *b)
{
  g_autoptr(TsFilePart) pa = g_list_model_get_item (ts_model_file_get_parts (source), 0);
  g_autoptr(TsFilePart) pb = g_list_model_get_item (ts_model_file_get_parts (target), 0);
  g_autofree char *sa = NULL, *sb = NULL;

  if (ts_metadata_entry_get_value_type (a) != ts_metadata_entry_get_value_type (b))
    return FALSE;
  if (TS_IS_GGUF_FILE (source) && TS_IS_GGUF_FILE (target))
    return ts_metadata_entry_get_length (a) == ts_metadata_entry_get_length (b) &&
           memcmp (ts_file_part_get_contents (pa) + ts_metadata_entry_get_offset (a),
                   ts_file_part_get_contents (pb) + ts_metadata_entry_get_offset (b),
                   ts_metadata_entry_get_length (a)) == 0;
  sa = ts_metadata_entry_to_string (a);
  sb = ts_metadata_entry_to_string (b);
  return g_str_equal (sa, sb);
}

static void
list_key (GString    *list,
          guint      *count,
          const char *key)
{
  if (*count < 6)
    g_string_append_printf (list, "%s%s", list->len ? ", " : "", key);
  else if (*count == 6)
    g_string_append (list, ", …");
  (*count)++;
}

/* split.no, split.count, split.tensors.count: which file of a split set
 * (llama.cpp's gguf-split) a file is, not what the model is */
static gboolean
is_split_key (const char *key)
{
  return g_str_equal (key, "split.no") || g_str_equal (key, "split.count") ||
         g_str_equal (key, "split.tensors.count");
}

void
_ts_audit_compare_metadata (TsAuditReport *report,
                            TsModelFile   *source,
                            TsModelFile   *target)
{
  GListModel *sm = ts_model_file_get_metadata (source);
  GListModel *tm = ts_model_file_get_metadata (target);
  g_autoptr(GString) changed = g_string_new (NULL);
  g_autoptr(GString) removed = g_string_new (NULL);
  g_autoptr(GString) added = g_string_new (NULL);
  guint n_changed = 0, n_removed = 0, n_added = 0, n_same = 0, n_split = 0;
  g_autofree char *same = NULL;
  g_autofree char *detail = NULL;

  for (guint i = 0; i < g_list_model_get_n_items (sm); i++)
    {
      g_autoptr(TsMetadataEntry) a = g_list_model_get_item (sm, i);
      const char *key = ts_metadata_entry_get_key (a);
      TsMetadataEntry *b = ts_model_file_lookup_metadata (target, key);

      if (is_split_key (key))
        n_split++;
      else if (b == NULL)
        list_key (removed, &n_removed, key);
      else if (!entries_equal (source, a, target, b))
        list_key (changed, &n_changed, key);
      else
        n_same++;
    }
  for (guint i = 0; i < g_list_model_get_n_items (tm); i++)
    {
      g_autoptr(TsMetadataEntry) b = g_list_model_get_item (tm, i);
      const char *key = ts_metadata_entry_get_key (b);

      if (is_split_key (key))
        n_split++;
      else if (ts_model_file_lookup_metadata (source, key) == NULL)
        list_key (added, &n_added, key);
    }
  same = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u key identical", "%u keys identical", n_same),
                          n_same);
  /* TRANSLATORS: the first %s is "12 keys identical" */
  detail = g_strdup_printf (_("%s; %u changed%s%s%s; %u removed%s%s%s; %u added%s%s%s"),
                            same, n_changed, n_changed ? " (" : "", changed->str, n_changed ? ")" : "",
                            n_removed, n_removed ? " (" : "", removed->str, n_removed ? ")" : "",
                            n_added, n_added ? " (" : "", added->str, n_added ? ")" : "");
  if (n_split > 0)
    {
      char *with_split = g_strconcat (detail, _("; the split.* keys say which file of a split set "
                                                "a file is, and are not compared"), NULL);

      g_free (detail);
      detail = with_split;
    }
  _ts_audit_report_add_check (report, "metadata",
                              n_changed + n_removed + n_added ? TS_AUDIT_WARN : TS_AUDIT_PASS,
                              "%s", detail);
}
