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
#include "ts-file-part.h"
#include "ts-json-private.h"

typedef struct
{
  TsAuditReport    *report;
  TsModelFile      *target;
  const char       *arch;
  GFile            *dir;
  const TsHfConfig *config;
} MetaContext;

static char *
check_name (const char *key)
{
  return g_strconcat ("metadata:", key, NULL);
}

static TsMetadataEntry *
lookup (MetaContext *ctx,
        const char  *suffix,
        char       **key)
{
  *key = g_strconcat (ctx->arch, ".", suffix, NULL);
  return ts_model_file_lookup_metadata (ctx->target, *key);
}

static gboolean
is_number (TsMetadataEntry *entry)
{
  TsValueType t = ts_metadata_entry_get_value_type (entry);

  return t != TS_VALUE_STRING && t != TS_VALUE_ARRAY && t != TS_VALUE_BOOL;
}

static void
check_uint (MetaContext *ctx,
            const char  *suffix,
            guint64      expected,
            const char  *origin)
{
  g_autofree char *key = NULL;
  TsMetadataEntry *entry = lookup (ctx, suffix, &key);
  g_autofree char *name = check_name (key);
  guint64 found;

  if (entry == NULL || !is_number (entry))
    {
      _ts_audit_report_add_check (ctx->report, name, TS_AUDIT_FAIL,
                                  _("the GGUF has no numeric %s; expected %" PRIu64 " (%s)"),
                                  key, expected, origin);
      return;
    }
  found = ts_metadata_entry_get_uint64 (entry);
  if (found == expected)
    _ts_audit_report_add_check (ctx->report, name, TS_AUDIT_PASS,
                                _("%" PRIu64 " (%s)"), found, origin);
  else
    _ts_audit_report_add_check (ctx->report, name, TS_AUDIT_FAIL,
                                _("the GGUF says %" PRIu64 "; expected %" PRIu64 " (%s)"),
                                found, expected, origin);
}

/* The converter writes these as float32: compare as float32. */
static void
check_float (MetaContext *ctx,
             const char  *suffix,
             double       expected,
             const char  *origin)
{
  g_autofree char *key = NULL;
  TsMetadataEntry *entry = lookup (ctx, suffix, &key);
  g_autofree char *name = check_name (key);
  float want = (float) expected, found;
  g_autofree char *want_text = ts_format_float (want, TRUE);
  g_autofree char *found_text = NULL;

  if (entry == NULL || !is_number (entry))
    {
      _ts_audit_report_add_check (ctx->report, name, TS_AUDIT_FAIL,
                                  _("the GGUF has no numeric %s; expected %s (%s)"), key, want_text, origin);
      return;
    }
  found = (float) ts_metadata_entry_get_double (entry);
  found_text = ts_format_float (found, TRUE);
  if (ts_f32_bits (found) == ts_f32_bits (want))
    _ts_audit_report_add_check (ctx->report, name, TS_AUDIT_PASS,
                                "%s (%s)", found_text, origin);
  else
    _ts_audit_report_add_check (ctx->report, name, TS_AUDIT_FAIL,
                                _("the GGUF says %s; expected %s (%s)"), found_text, want_text, origin);
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

static void
check_hparams (MetaContext *ctx)
{
  const TsHfConfig *c = ctx->config;

  check_architecture (ctx);
  check_uint (ctx, "block_count", c->n_layers, "config.json: num_hidden_layers");
  if (c->context_length > 0)
    check_uint (ctx, "context_length", c->context_length, c->context_length_origin);
  check_uint (ctx, "embedding_length", c->hidden_size, "config.json: hidden_size");
  check_uint (ctx, "feed_forward_length", c->intermediate_size, "config.json: intermediate_size");
  check_uint (ctx, "attention.head_count", c->n_heads, "config.json: num_attention_heads");
  check_uint (ctx, "attention.head_count_kv", c->n_kv_heads, c->n_kv_heads_origin);
  check_float (ctx, "rope.freq_base", c->rope_theta, c->rope_theta_origin);
  check_float (ctx, "attention.layer_norm_rms_epsilon", c->rms_norm_eps, c->rms_norm_eps_origin);
}

static void
check_vocab (MetaContext *ctx)
{
  TsMetadataEntry *tokens = ts_model_file_lookup_metadata (ctx->target, "tokenizer.ggml.tokens");
  g_autofree char *key = NULL;
  guint64 n;

  if (lookup (ctx, "vocab_size", &key) != NULL)
    check_uint (ctx, "vocab_size", ctx->config->vocab_size, "config.json: vocab_size");
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
  g_autofree char *contents = NULL;
  gsize len;

  if (!_ts_load_side_file (file, 256 * 1024 * 1024, NULL, &contents, &len, NULL) ||
      !_ts_json_depth_ok (contents, len, TS_JSON_MAX_DEPTH) ||
      !json_parser_load_from_data (parser, contents, (gssize) len, NULL) ||
      json_parser_get_root (parser) == NULL ||
      !JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
    return NULL;
  return json_node_get_object (json_parser_get_root (parser));
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
      if (g_strcmp0 (json_object_get_string_member_with_default (tok, "content", NULL), content) == 0 &&
          json_object_has_member (tok, "id"))
        {
          *id = json_object_get_int_member (tok, "id");
          return TRUE;
        }
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
  if (entry != NULL && is_number (entry) && (gint64) ts_metadata_entry_get_uint64 (entry) == expected)
    _ts_audit_report_add_check (ctx->report, name, TS_AUDIT_PASS,
                                _("%" PRId64 ", as %s says"), expected, origin);
  else if (entry != NULL && is_number (entry))
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

          if (o && g_strcmp0 (json_object_get_string_member_with_default (o, "name", NULL), "default") == 0)
            return g_strdup (json_object_get_string_member_with_default (o, "template", NULL));
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
    _ts_audit_report_add_check (ctx->report, name, found ? TS_AUDIT_WARN : TS_AUDIT_PASS,
                                "%s", found ? _("the source has no chat template, yet the GGUF has one")
                                            : _("the source has no chat template, nor has the GGUF"));
  else if (found == NULL)
    _ts_audit_report_add_check (ctx->report, name, TS_AUDIT_FAIL,
                                "the GGUF has no chat template; tokenizer_config.json has one "
                                "of %" G_GSIZE_FORMAT " bytes", want_len);
  else if (found_len == want_len && memcmp (found, want, want_len) == 0)
    _ts_audit_report_add_check (ctx->report, name, TS_AUDIT_PASS,
                                "identical to the source's (%" G_GSIZE_FORMAT " bytes)", want_len);
  else
    _ts_audit_report_add_check (ctx->report, name, TS_AUDIT_FAIL,
                                "differs from the source's from byte %" G_GSIZE_FORMAT
                                " (GGUF %" G_GSIZE_FORMAT " bytes, source %" G_GSIZE_FORMAT " bytes)",
                                first_difference (found, found_len, want, want_len),
                                found_len, want_len);
}

void
_ts_audit_check_metadata (TsAuditReport    *report,
                          GFile            *dir,
                          const TsHfConfig *config,
                          const TsArch     *arch,
                          TsModelFile      *target)
{
  MetaContext ctx = { report, target, ts_arch_get_name (arch), dir, config };
  g_autoptr(JsonParser) tcfg_parser = json_parser_new_immutable ();
  g_autoptr(JsonParser) tok_parser = json_parser_new_immutable ();
  JsonObject *tcfg = load_object (dir, "tokenizer_config.json", tcfg_parser);
  JsonObject *tokenizer = load_object (dir, "tokenizer.json", tok_parser);

  check_hparams (&ctx);
  check_vocab (&ctx);
  check_special_token (&ctx, tcfg, tokenizer, "bos");
  check_special_token (&ctx, tcfg, tokenizer, "eos");
  check_chat_template (&ctx, tcfg);
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
  guint n_changed = 0, n_removed = 0, n_added = 0, n_same = 0;

  for (guint i = 0; i < g_list_model_get_n_items (sm); i++)
    {
      g_autoptr(TsMetadataEntry) a = g_list_model_get_item (sm, i);
      const char *key = ts_metadata_entry_get_key (a);
      TsMetadataEntry *b = ts_model_file_lookup_metadata (target, key);

      if (b == NULL)
        list_key (removed, &n_removed, key);
      else if (!entries_equal (source, a, target, b))
        list_key (changed, &n_changed, key);
      else
        n_same++;
    }
  for (guint i = 0; i < g_list_model_get_n_items (tm); i++)
    {
      g_autoptr(TsMetadataEntry) b = g_list_model_get_item (tm, i);

      if (ts_model_file_lookup_metadata (source, ts_metadata_entry_get_key (b)) == NULL)
        list_key (added, &n_added, ts_metadata_entry_get_key (b));
    }
  _ts_audit_report_add_check (report, "metadata",
                              n_changed + n_removed + n_added ? TS_AUDIT_WARN : TS_AUDIT_PASS,
                              _("%u keys identical; %u changed%s%s%s; %u removed%s%s%s; %u added%s%s%s"),
                              n_same, n_changed, n_changed ? " (" : "", changed->str, n_changed ? ")" : "",
                              n_removed, n_removed ? " (" : "", removed->str, n_removed ? ")" : "",
                              n_added, n_added ? " (" : "", added->str, n_added ? ")" : "");
}
