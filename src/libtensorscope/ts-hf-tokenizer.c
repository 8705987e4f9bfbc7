/* ts-hf-tokenizer.c: tokenizer.* keys of a SentencePiece (Llama 2, Mistral)
 * or byte-level BPE (Llama 3) tokenizer
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What llama.cpp's converter writes for a Hugging Face tokenizer.json that
 * is byte-level BPE: LlamaModel.set_vocab() (add_space_prefix), then
 * TextModel._set_vocab_gpt2() (model, pre, tokens, token types from
 * get_vocab_base()) and gguf-py's SpecialVocab (merges, special token ids,
 * add_* flags, chat template). For a SentencePiece tokenizer.model, which
 * LlamaModel.set_vocab() tries first: _set_vocab_sentencepiece() (model,
 * pre, tokens, scores, token types from _create_vocab_sentencepiece()) and
 * a SpecialVocab without merges. Values are checked where the Python code
 * would fail on a wrong type; those failures are errors naming the file and
 * the field here.
 */

#include "config.h"

#include <inttypes.h>

#include <glib/gi18n-lib.h>

#include <errno.h>

#include <string.h>

#include "ts-error.h"
#include "ts-side-file-private.h"
#include "ts-hf-tokenizer.h"
#include "ts-json-private.h"
#include "ts-spm-model-private.h"

#define MAX_JSON_SIZE (256 * 1024 * 1024)

/* gguf.TokenType */
enum
{
  TOKEN_NORMAL       = 1,
  TOKEN_UNKNOWN      = 2,
  TOKEN_CONTROL      = 3,
  TOKEN_USER_DEFINED = 4,
  TOKEN_UNUSED       = 5,
  TOKEN_BYTE         = 6,
};

/* Llama 3's pre-tokenizer split pattern, as in Meta's tokenizer.json */
static const char llama3_pattern[] =
  "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}"
  "| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

typedef struct
{
  const char *content;
  gint64      id;
  gboolean    special;
  const char *file;     /* where it comes from, for messages */
  const char *key;      /* its added_tokens_decoder key as written, or NULL */
} AddedToken;

typedef struct
{
  char    *type;        /* "bos", "eos", ... */
  guint32  id;
  char    *origin;
} SpecialId;

typedef struct
{
  char     *type;
  gboolean  value;
  char     *origin;
} AddFlag;

typedef struct
{
  GFile            *dir;
  const TsHfConfig *config;
  JsonParser       *tok_parser;
  JsonObject       *tok;          /* tokenizer.json */
  guint             n_vocab;      /* members of its model.vocab, once read */
  JsonParser       *tcfg_parser;
  JsonObject       *tcfg;         /* tokenizer_config.json, or NULL */
  JsonParser       *cfg_parser;
  JsonObject       *cfg;          /* config.json, or NULL */
  GArray           *added;        /* AddedToken */
  GPtrArray        *types;        /* special token types SpecialVocab looks for */
  GArray           *ids;          /* SpecialId, in the order they were found */
  GArray           *add_flags;    /* AddFlag, in the order they were first set */
  GPtrArray        *merges;
  const char       *merges_origin;
  JsonNode         *chat_template;
  const char       *chat_template_origin;
  GArray           *named_templates;  /* NamedTemplate, of a list-form template */
  char             *default_template;
  gboolean          granite_add_bos;   /* add_bos_token = false still to write */
  guint             n_vocab_limit;     /* SpecialVocab's n_vocab: ids from here on are
                                        * skipped; 0 for none */
  int               normalizer[2];     /* lowercase, strip_accents: -1 unset, 0, 1 */
} Tok;

static gpointer
unref_in_thread (gpointer data)
{
  g_object_unref (data);
  return NULL;
}

/* a vocab this big makes a tree that takes milliseconds to free */
#define BACKGROUND_FREE_MIN_VOCAB 16384

/* what a SpecialVocab reads: the special ids, the add flags, the token
 * types and the chat templates */
static void
clear_special_vocab (Tok *t)
{
  for (guint i = 0; t->ids != NULL && i < t->ids->len; i++)
    {
      g_free (g_array_index (t->ids, SpecialId, i).type);
      g_free (g_array_index (t->ids, SpecialId, i).origin);
    }
  for (guint i = 0; t->add_flags != NULL && i < t->add_flags->len; i++)
    {
      g_free (g_array_index (t->add_flags, AddFlag, i).type);
      g_free (g_array_index (t->add_flags, AddFlag, i).origin);
    }
  g_clear_pointer (&t->ids, g_array_unref);
  g_clear_pointer (&t->add_flags, g_array_unref);
  g_clear_pointer (&t->types, g_ptr_array_unref);
  g_clear_pointer (&t->chat_template, json_node_unref);
  g_clear_pointer (&t->named_templates, g_array_unref);
  g_clear_pointer (&t->default_template, g_free);
}

static void
tok_clear (Tok *t)
{
  g_clear_object (&t->tcfg_parser);
  g_clear_object (&t->cfg_parser);
  g_clear_pointer (&t->added, g_array_unref);
  g_clear_pointer (&t->merges, g_ptr_array_unref);
  clear_special_vocab (t);

  /* Last: nothing points into tokenizer.json's tree any more. Llama 3's
   * (128,256 vocab entries, 280,147 merges) takes ~40 ms to free, which a
   * conversion would wait for before writing its first byte; a thread of
   * its own frees a tree that large while the caller goes on. */
  t->tok = NULL;
  if (t->tok_parser != NULL && t->n_vocab >= BACKGROUND_FREE_MIN_VOCAB)
    {
      /* where no thread can be made, the caller waits for the free */
      GThread *thread = g_thread_try_new ("ts-free-tokenizer", unref_in_thread, t->tok_parser, NULL);

      if (thread != NULL)
        {
          t->tok_parser = NULL;
          g_thread_unref (thread);
        }
    }
  g_clear_object (&t->tok_parser);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Tok, tok_clear)

/* ------------------------------------------------------------ JSON access */

static gboolean
invalid (GError    **error,
         const char *file,
         const char *field,
         const char *expected)
{
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
               _("%s: \"%s\" must be %s"), file, field, expected);
  return FALSE;
}

static gboolean
node_is_null (JsonNode *node)
{
  return node == NULL || JSON_NODE_HOLDS_NULL (node);
}

static gboolean
node_is_string (JsonNode *node)
{
  return node != NULL && JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING;
}

static gboolean
node_is_int (JsonNode *node)
{
  return node != NULL && JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_INT64;
}

static gboolean
node_is_bool (JsonNode *node)
{
  return node != NULL && JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_BOOLEAN;
}

static gboolean
node_equals_string (JsonNode   *node,
                    const char *s)
{
  return s != NULL && node_is_string (node) && g_str_equal (json_node_get_string (node), s);
}

static JsonNode *
member (JsonObject *obj,
        const char *name)
{
  return obj != NULL ? json_object_get_member (obj, name) : NULL;
}

/* @obj's member @name as an object; NULL (no error) when absent or null */
static gboolean
get_object (JsonObject  *obj,
            const char  *name,
            const char  *file,
            const char  *field,
            JsonObject **out,
            GError     **error)
{
  JsonNode *node = member (obj, name);

  *out = NULL;
  if (node_is_null (node))
    return TRUE;
  if (!JSON_NODE_HOLDS_OBJECT (node))
    return invalid (error, file, field, _("an object"));
  *out = json_node_get_object (node);
  return TRUE;
}

static gboolean
get_array (JsonObject  *obj,
           const char  *name,
           const char  *file,
           const char  *field,
           JsonArray  **out,
           GError     **error)
{
  JsonNode *node = member (obj, name);

  *out = NULL;
  if (node_is_null (node))
    return TRUE;
  if (!JSON_NODE_HOLDS_ARRAY (node))
    return invalid (error, file, field, _("an array"));
  *out = json_node_get_array (node);
  return TRUE;
}

static gboolean
get_string (JsonObject  *obj,
            const char  *name,
            const char  *file,
            const char  *field,
            const char **out,
            GError     **error)
{
  JsonNode *node = member (obj, name);

  *out = NULL;
  if (node_is_null (node))
    return TRUE;
  if (!node_is_string (node))
    return invalid (error, file, field, _("a string"));
  *out = json_node_get_string (node);
  return TRUE;
}

/* the object at @index of @array */
static gboolean
array_object (JsonArray   *array,
              guint        index,
              const char  *file,
              const char  *field,
              JsonObject **out,
              GError     **error)
{
  JsonNode *node = json_array_get_element (array, index);

  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      g_autofree char *item = g_strdup_printf ("%s[%u]", field, index);

      return invalid (error, file, item, _("an object"));
    }
  *out = json_node_get_object (node);
  return TRUE;
}

/* ------------------------------------------------------------ files */

static gboolean
load_text (GFile       *file,
           char       **contents,
           gsize       *length,
           GError     **error)
{
  g_autofree char *name = ts_file_display_basename (file);
  GError *local_error = NULL;

  if (!_ts_load_side_file (file, MAX_JSON_SIZE, NULL, contents, length, &local_error))
    {
      g_propagate_prefixed_error (error, local_error, "%s: ", name);
      return FALSE;
    }
  if (!g_utf8_validate (*contents, *length, NULL))
    {
      g_clear_pointer (contents, g_free);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, _("%s: not valid UTF-8"), name);
      return FALSE;
    }
  return TRUE;
}

/* @name in the checkpoint folder, parsed; a missing optional file leaves
 * *out NULL */
static gboolean
load_json (GFile       *dir,
           const char  *name,
           gboolean     required,
           JsonParser **parser,
           JsonObject **out,
           GError     **error)
{
  g_autoptr(GFile) file = g_file_get_child (dir, name);

  *out = NULL;
  if (!required && !g_file_query_exists (file, NULL))
    return TRUE;
  *parser = json_parser_new ();
  *out = _ts_load_side_json (file, MAX_JSON_SIZE, *parser, error);
  return *out != NULL;
}

/* ------------------------------------------------------------ vocabulary */

/* LlamaModel.set_vocab() tries the Llama 2 style BPE (byte_fallback,
 * "Sequence" decoder) after SentencePiece (tokenizer.model, read below)
 * and before byte-level BPE; it writes other keys, so it is refused here. */
static gboolean
check_byte_level_bpe (Tok     *t,
                      GError **error)
{
  JsonObject *model = NULL;
  JsonObject *decoder = NULL;
  const char *type = NULL;
  const char *decoder_type = NULL;

  if (!get_object (t->tok, "model", "tokenizer.json", "model", &model, error) ||
      !get_string (model, "type", "tokenizer.json", "model.type", &type, error) ||
      !get_object (t->tok, "decoder", "tokenizer.json", "decoder", &decoder, error) ||
      !get_string (decoder, "type", "tokenizer.json", "decoder.type", &decoder_type, error))
    return FALSE;
  if (model == NULL)
    return invalid (error, "tokenizer.json", "model", _("an object"));
  if (g_strcmp0 (type, "BPE") != 0 ||
      (_ts_json_truthy (member (model, "byte_fallback")) && g_strcmp0 (decoder_type, "Sequence") == 0))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   _("tokenizer.json: a %s%s tokenizer is not supported (only byte-level BPE)"),
                   type ? type : "typeless", _ts_json_truthy (member (model, "byte_fallback")) ? " byte-fallback" : "");
      return FALSE;
    }
  return TRUE;
}

static gboolean
node_has_string (JsonObject *obj,
                 const char *name,
                 const char *value)
{
  return node_equals_string (member (obj, name), value);
}

static gboolean
node_is_false (JsonNode *node)
{
  return node_is_bool (node) && !json_node_get_boolean (node);
}

/**
 * ts_hf_tokenizer_is_llama3_pre_tokenizer:
 * @pre_tokenizer: (nullable): tokenizer.json's "pre_tokenizer"
 *
 * llama.cpp recognises a pre-tokenizer by hashing how it splits a check
 * text; we compare the definition instead: a Sequence of Llama 3's Split
 * regex (isolated, not inverted) and a ByteLevel step without prefix space
 * or regex of its own.
 *
 * Returns: whether it is Llama 3's pre-tokenizer ("llama-bpe")
 */
gboolean
ts_hf_tokenizer_is_llama3_pre_tokenizer (JsonNode *pre_tokenizer)
{
  JsonArray *steps;
  JsonObject *split, *byte_level, *pattern;

  if (pre_tokenizer == NULL || !JSON_NODE_HOLDS_OBJECT (pre_tokenizer) ||
      !node_has_string (json_node_get_object (pre_tokenizer), "type", "Sequence") ||
      member (json_node_get_object (pre_tokenizer), "pretokenizers") == NULL ||
      !JSON_NODE_HOLDS_ARRAY (member (json_node_get_object (pre_tokenizer), "pretokenizers")))
    return FALSE;
  steps = json_node_get_array (member (json_node_get_object (pre_tokenizer), "pretokenizers"));
  if (json_array_get_length (steps) != 2 ||
      !JSON_NODE_HOLDS_OBJECT (json_array_get_element (steps, 0)) ||
      !JSON_NODE_HOLDS_OBJECT (json_array_get_element (steps, 1)))
    return FALSE;
  split = json_array_get_object_element (steps, 0);
  byte_level = json_array_get_object_element (steps, 1);
  if (!node_has_string (split, "type", "Split") || !node_has_string (split, "behavior", "Isolated") ||
      !node_is_false (member (split, "invert")) ||
      member (split, "pattern") == NULL || !JSON_NODE_HOLDS_OBJECT (member (split, "pattern")))
    return FALSE;
  pattern = json_node_get_object (member (split, "pattern"));
  return node_has_string (pattern, "Regex", llama3_pattern) &&
         node_has_string (byte_level, "type", "ByteLevel") &&
         node_is_false (member (byte_level, "add_prefix_space")) &&
         node_is_false (member (byte_level, "use_regex"));
}

static gboolean
negative_id (GError    **error,
             const char *file,
             const char *id,
             const char *text)
{
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
               _("%s: token id %s of \"%s\" is negative"), file, id, text);
  return FALSE;
}

/* one entry of added_tokens (@key NULL: its id is its "id") or of
 * added_tokens_decoder (@key: the id as written, @id its value) */
static gboolean
add_added_token (Tok        *t,
                 JsonObject *obj,
                 const char *file,
                 const char *field,
                 const char *key,
                 gint64      id,
                 GError    **error)
{
  AddedToken token = { NULL, id, FALSE, file, key };
  JsonNode *special = member (obj, "special");
  g_autofree char *content_field = g_strdup_printf ("%s.content", field);
  g_autofree char *id_text = NULL;

  if (!get_string (obj, "content", file, content_field, &token.content, error))
    return FALSE;
  if (token.content == NULL)
    return invalid (error, file, field, _("an object with a string \"content\""));
  if (key == NULL && !node_is_int (member (obj, "id")))
    return invalid (error, file, field, _("an object with an integer \"id\""));
  if (key == NULL)
    token.id = json_node_get_int (member (obj, "id"));
  id_text = key != NULL ? g_strdup (key) : g_strdup_printf ("%" G_GINT64_FORMAT, token.id);
  if (token.id < 0)
    return negative_id (error, file, id_text, token.content);
  if (!node_is_null (special) && !node_is_bool (special))
    return invalid (error, file, field, _("an object with a boolean \"special\""));
  token.special = _ts_json_truthy (special);
  g_array_append_val (t->added, token);
  return TRUE;
}

/* the ids of the added tokens so far, as a set (a list search made a
 * config of 800,000 added tokens take minutes) */
static GHashTable *
added_ids (Tok *t)
{
  GHashTable *ids = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);

  for (guint i = 0; i < t->added->len; i++)
    g_hash_table_add (ids, g_memdup2 (&g_array_index (t->added, AddedToken, i).id, sizeof (gint64)));
  return ids;
}

/* tokenizer.json's added_tokens (all SpecialVocab looks at) */
static gboolean
load_json_added_tokens (Tok     *t,
                        GError **error)
{
  JsonArray *list = NULL;

  t->added = g_array_new (FALSE, FALSE, sizeof (AddedToken));
  if (!get_array (t->tok, "added_tokens", "tokenizer.json", "added_tokens", &list, error))
    return FALSE;
  for (guint i = 0; list != NULL && i < json_array_get_length (list); i++)
    {
      g_autofree char *field = g_strdup_printf ("added_tokens[%u]", i);
      JsonObject *obj;

      if (!array_object (list, i, "tokenizer.json", "added_tokens", &obj, error) ||
          !add_added_token (t, obj, "tokenizer.json", field, NULL, 0, error))
        return FALSE;
    }
  return TRUE;
}

/* the id an added_tokens_decoder key names: an id beyond 64 bits stays
 * beyond any vocab_size (strtoll clamps it; messages show the key as
 * written) */
static gboolean
decoder_id (const char *key,
            gint64     *id)
{
  char *end = NULL;

  errno = 0;
  *id = g_ascii_strtoll (key, &end, 10);
  if (end == key || *end != '\0')
    return FALSE;
  if (errno == ERANGE)
    *id = *id < 0 ? -1 : G_MAXINT64;
  return TRUE;
}

/* tokenizer.json's added_tokens, and tokenizer_config.json's
 * added_tokens_decoder for ids tokenizer.json lacks (transformers adds
 * those to the fast tokenizer) */
static gboolean
load_added_tokens (Tok     *t,
                   GError **error)
{
  JsonObject *decoder = NULL;
  g_autoptr(GList) ids = NULL;
  g_autoptr(GHashTable) known = NULL;

  if (!load_json_added_tokens (t, error))
    return FALSE;
  if (!get_object (t->tcfg, "added_tokens_decoder", "tokenizer_config.json",
                   "added_tokens_decoder", &decoder, error))
    return FALSE;
  ids = decoder ? json_object_get_members (decoder) : NULL;
  known = added_ids (t);
  for (GList *l = ids; l != NULL; l = l->next)
    {
      g_autofree char *field = g_strdup_printf ("added_tokens_decoder.%s", (const char *) l->data);
      gint64 id;
      JsonNode *node = json_object_get_member (decoder, l->data);

      if (!decoder_id (l->data, &id) || !JSON_NODE_HOLDS_OBJECT (node))
        return invalid (error, "tokenizer_config.json", "added_tokens_decoder",
                        _("an object of token ids to objects"));
      if (g_hash_table_contains (known, &id))
        continue;
      if (!add_added_token (t, json_node_get_object (node), "tokenizer_config.json",
                            field, l->data, id, error))
        return FALSE;
      g_hash_table_add (known, g_memdup2 (&id, sizeof id));
    }
  return TRUE;
}

/* does_token_look_special(): added tokens that ought to be control tokens */
static gboolean
looks_special (const char *token)
{
  static const char *const names[] = { "<pad>", "<mask>", "<2mass>", "[@BOS@]" };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if (g_str_equal (token, names[i]))
      return TRUE;
  return (g_str_has_prefix (token, "<|") && g_str_has_suffix (token, "|>")) ||
         (g_str_has_prefix (token, "<\xef\xbd\x9c") && g_str_has_suffix (token, "\xef\xbd\x9c>")) ||
         (g_str_has_prefix (token, "<unused") && g_str_has_suffix (token, ">"));
}

/* tokenizer.vocab of a fast tokenizer, by id (reverse_vocab in
 * get_vocab_base()): the model's vocab, with added tokens taking precedence
 * for their content and for their id. Filled straight from model.vocab
 * (128,256 members in Llama 3), without a text -> id table in between. */
typedef struct
{
  const char **reverse;     /* id -> text, NULL where there is none */
  guint        n;           /* config.json's vocab_size */
  GHashTable  *added;       /* content -> the AddedToken that has it */
  const char  *too_large;   /* the first text whose id is not below n, or negative */
  gint64       too_large_id;
  gboolean     ok;
} VocabWalk;

static gboolean
id_too_large (GError    **error,
              const char *file,
              const char *id,
              const char *text,
              guint       n)
{
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
               _("%s: token id %s of \"%s\" is not below config.json's vocab_size %u"),
               file, id, text, n);
  return FALSE;
}

/* one member of model.vocab: with the node at hand, no second lookup by
 * name. A text that is also an added token's content has the added
 * token's id instead. Of two texts with one id the later one in the file
 * stays, as in a dict comprehension over the vocab in file order
 * (transformers' own order is the Rust tokenizer's hash order). */
static void
add_vocab_entry (JsonObject  *object,
                 const gchar *name,
                 JsonNode    *node,
                 gpointer     data)
{
  VocabWalk *walk = data;
  gint64 id;

  if (!walk->ok || walk->too_large != NULL)
    return;
  if (!node_is_int (node))
    {
      walk->ok = FALSE;
      return;
    }
  id = json_node_get_int (node);
  if (id < 0)
    {
      walk->too_large = name;
      walk->too_large_id = id;
      return;
    }
  if (g_hash_table_size (walk->added) > 0 && g_hash_table_contains (walk->added, name))
    return;
  if (id >= (gint64) walk->n)
    {
      walk->too_large = name;
      walk->too_large_id = id;
    }
  else if (id >= 0)
    walk->reverse[id] = name;
}

/* reverse[id] for every id below vocab_size, and added_at[id] for the ids
 * an added token holds */
static gboolean
reverse_vocab (Tok                *t,
               const char        **reverse,
               const AddedToken  **added_at,
               GError            **error)
{
  JsonObject *model = json_object_get_object_member (t->tok, "model");
  JsonObject *vocab = NULL;
  g_autoptr(GHashTable) by_id = g_hash_table_new (g_int64_hash, g_int64_equal);
  g_autoptr(GHashTable) added = g_hash_table_new (g_str_hash, g_str_equal);
  VocabWalk walk = { reverse, t->config->vocab_size, added, NULL, 0, TRUE };

  /* of two added tokens with one id, the later one is the added token
   * (transformers keys them by id, and the other one's text stays a plain
   * vocab entry); of two with one content, the later one holds it */
  for (guint i = 0; i < t->added->len; i++)
    {
      AddedToken *a = &g_array_index (t->added, AddedToken, i);

      g_hash_table_insert (by_id, &a->id, a);
    }
  for (guint i = 0; i < t->added->len; i++)
    {
      AddedToken *a = &g_array_index (t->added, AddedToken, i);

      if (g_hash_table_lookup (by_id, &a->id) == a)
        g_hash_table_insert (added, (gpointer) a->content, a);
    }
  if (!get_object (model, "vocab", "tokenizer.json", "model.vocab", &vocab, error))
    return FALSE;
  if (vocab == NULL)
    return invalid (error, "tokenizer.json", "model.vocab", _("an object"));
  t->n_vocab = json_object_get_size (vocab);
  json_object_foreach_member (vocab, add_vocab_entry, &walk);
  if (!walk.ok)
    return invalid (error, "tokenizer.json", "model.vocab", _("an object of integer ids"));
  if (walk.too_large != NULL)
    {
      g_autofree char *id = g_strdup_printf ("%" G_GINT64_FORMAT, walk.too_large_id);

      if (walk.too_large_id < 0)
        return negative_id (error, "tokenizer.json", id, walk.too_large);
      return id_too_large (error, "tokenizer.json", id, walk.too_large, walk.n);
    }
  for (guint i = 0; i < t->added->len; i++)
    {
      AddedToken *a = &g_array_index (t->added, AddedToken, i);

      if (g_hash_table_lookup (added, a->content) != a)
        continue;
      if (a->id >= (gint64) walk.n)
        {
          g_autofree char *id = a->key != NULL ? g_strdup (a->key)
                                : g_strdup_printf ("%" G_GINT64_FORMAT, a->id);

          return id_too_large (error, a->file, id, a->content, walk.n);
        }
      if (a->id >= 0)
        {
          reverse[a->id] = a->content;
          added_at[a->id] = a;
        }
    }
  return TRUE;
}

static void
append_token (const char  *token,
              gboolean     is_added,
              gboolean     special,
              GPtrArray   *tokens,
              GArray      *types)
{
  gint32 type = TOKEN_NORMAL;

  if (is_added && (special || looks_special (token)))
    type = TOKEN_CONTROL;
  else if (is_added)
    {
      /* user-defined tokens are stored pre-normalized: "▁" is a space */
      g_auto(GStrv) pieces = g_strsplit (token, "\xe2\x96\x81", -1);

      g_ptr_array_add (tokens, g_strjoinv (" ", pieces));
      type = TOKEN_USER_DEFINED;
      g_array_append_val (types, type);
      return;
    }
  g_ptr_array_add (tokens, g_strdup (token));
  g_array_append_val (types, type);
}

/* get_vocab_base(): one token per id below vocab_size, "[PAD<id>]" (unused)
 * for ids without one */
static gboolean
build_tokens (Tok        *t,
              GPtrArray  *tokens,
              GArray     *types,
              GError    **error)
{
  guint n = t->config->vocab_size;
  g_autofree const char **reverse = g_new0 (const char *, n);
  g_autofree const AddedToken **added_at = g_new0 (const AddedToken *, n);

  if (!reverse_vocab (t, reverse, added_at, error))
    return FALSE;
  for (guint i = 0; i < n; i++)
    {
      gint32 unused = TOKEN_UNUSED;

      if (reverse[i] != NULL)
        {
          append_token (reverse[i], added_at[i] != NULL, added_at[i] != NULL && added_at[i]->special,
                        tokens, types);
          continue;
        }
      g_ptr_array_add (tokens, g_strdup_printf ("[PAD%u]", i));
      g_array_append_val (types, unused);
    }
  return TRUE;
}

/* ------------------------------------------------------------ merges */

/* a pair-form merge ["a b", "c"] -> "aĠb c" (gguf-py keeps the old string
 * form, where a space inside a part must be byte-level encoded) */
static char *
join_merge_pair (JsonArray *pair)
{
  g_autoptr(GString) s = g_string_new (NULL);

  for (guint i = 0; i < json_array_get_length (pair); i++)
    {
      JsonNode *node = json_array_get_element (pair, i);

      if (!node_is_string (node))
        return NULL;
      if (i > 0)
        g_string_append_c (s, ' ');
      for (const char *p = json_node_get_string (node); *p; p++)
        {
          if (*p == ' ')
            g_string_append (s, "\xc4\xa0");
          else
            g_string_append_c (s, *p);
        }
    }
  return g_string_free (g_steal_pointer (&s), FALSE);
}

static gboolean
merges_from_json (JsonArray  *list,
                  GPtrArray  *merges,
                  GError    **error)
{
  JsonNode *first = json_array_get_element (list, 0);
  gboolean strings = node_is_string (first);

  if (!strings && !(JSON_NODE_HOLDS_ARRAY (first) &&
                    json_array_get_length (json_node_get_array (first)) == 2 &&
                    node_is_string (json_array_get_element (json_node_get_array (first), 0))))
    return invalid (error, "tokenizer.json", "model.merges",
                    _("a list of \"a b\" strings or of [\"a\", \"b\"] pairs"));
  for (guint i = 0; i < json_array_get_length (list); i++)
    {
      JsonNode *node = json_array_get_element (list, i);
      char *merge = NULL;

      if (strings && node_is_string (node))
        merge = g_strdup (json_node_get_string (node));
      else if (!strings && JSON_NODE_HOLDS_ARRAY (node))
        merge = join_merge_pair (json_node_get_array (node));
      if (merge == NULL)
        return invalid (error, "tokenizer.json", "model.merges",
                        strings ? _("a list of strings") : _("a list of lists of strings"));
      g_ptr_array_add (merges, merge);
    }
  return TRUE;
}

/* SpecialVocab._try_load_merges_txt(): "a b" lines, an optional leading
 * "#version" comment, malformed lines skipped */
static gboolean
merges_from_txt (Tok        *t,
                 GPtrArray  *merges,
                 GError    **error)
{
  g_autoptr(GFile) file = g_file_get_child (t->dir, "merges.txt");
  g_autofree char *contents = NULL;
  g_auto(GStrv) lines = NULL;
  gsize length;

  if (!g_file_query_exists (file, NULL))
    return TRUE;
  if (!load_text (file, &contents, &length, error))
    return FALSE;
  g_strdelimit (contents, "\r", '\n');
  lines = g_strsplit (contents, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_auto(GStrv) parts = NULL;

      g_strstrip (lines[i]);
      if (lines[i][0] == '\0' || (i == 0 && lines[i][0] == '#'))
        continue;
      parts = g_regex_split_simple ("\\s+", lines[i], 0, 0);
      if (g_strv_length (parts) == 2)
        g_ptr_array_add (merges, g_strdup_printf ("%s %s", parts[0], parts[1]));
    }
  return TRUE;
}

static gboolean
load_merges (Tok     *t,
             GError **error)
{
  JsonNode *node = member (json_object_get_object_member (t->tok, "model"), "merges");

  t->merges = g_ptr_array_new_with_free_func (g_free);
  t->merges_origin = "tokenizer.json: model.merges";
  /* the tokenizers library cannot load any other type */
  if (!node_is_null (node) && !JSON_NODE_HOLDS_ARRAY (node))
    return invalid (error, "tokenizer.json", "model.merges", _("a list"));
  if (node != NULL && JSON_NODE_HOLDS_ARRAY (node) && json_array_get_length (json_node_get_array (node)) > 0)
    return merges_from_json (json_node_get_array (node), t->merges, error);
  t->merges_origin = "merges.txt";
  return merges_from_txt (t, t->merges, error);
}

/* ------------------------------------------------------------ special vocab */

/* the special tokens named by tokenizer_config.json while the
 * post-processor is read (SpecialVocab's special_bos, ...) */
typedef struct
{
  JsonNode *bos, *cls, *eos, *sep;
} Specials;

static void
specials_clear (Specials *s)
{
  g_clear_pointer (&s->bos, json_node_unref);
  g_clear_pointer (&s->cls, json_node_unref);
  g_clear_pointer (&s->eos, json_node_unref);
  g_clear_pointer (&s->sep, json_node_unref);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Specials, specials_clear)

static void
specials_set (JsonNode   **slot,
              JsonNode    *value)
{
  JsonNode *old = *slot;

  *slot = value ? json_node_ref (value) : NULL;
  if (old != NULL)
    json_node_unref (old);
}

static JsonNode *
string_node (const char *s)
{
  return s ? json_node_init_string (json_node_alloc (), s) : NULL;
}

static gboolean
tcfg_truthy (Tok *t)
{
  return t->tcfg != NULL && json_object_get_size (t->tcfg) > 0;
}

/* tokenizer_config[name] = value, as SpecialVocab mutates its copy */
static void
tcfg_set (Tok        *t,
          const char *name,
          JsonNode   *value)
{
  json_object_set_member (t->tcfg, name, value ? json_node_copy (value) : json_node_new (JSON_NODE_NULL));
}

static void
set_add_flag (Tok        *t,
              const char *type,
              gboolean    value,
              const char *origin)
{
  AddFlag flag = { g_strdup (type), value, g_strdup (origin) };

  /* a Python dict: setting a key again keeps its place */
  for (guint i = 0; i < t->add_flags->len; i++)
    {
      AddFlag *f = &g_array_index (t->add_flags, AddFlag, i);

      if (g_str_equal (f->type, type))
        {
          f->value = value;
          g_free (f->origin);
          f->origin = flag.origin;
          g_free (flag.type);
          return;
        }
    }
  g_array_append_val (t->add_flags, flag);
}

/* SpecialVocab._set_special_token(): integers only (a JSON boolean is one
 * in Python), the first one found for a type wins */
static gboolean
set_special_id (Tok         *t,
                const char  *type,
                JsonNode    *value,
                const char  *origin,
                GError     **error)
{
  SpecialId id = { NULL, 0, NULL };
  gint64 v;

  if (!node_is_int (value) && !node_is_bool (value))
    return TRUE;
  v = node_is_int (value) ? json_node_get_int (value) : json_node_get_boolean (value);
  if (v < 0 || v > G_MAXUINT32)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("%s: invalid id %" PRId64 " for special token type %s"), origin, v, type);
      return FALSE;
    }
  /* gguf-py warns and skips an id out of the vocabulary it was given */
  if (t->n_vocab_limit > 0 && v >= t->n_vocab_limit)
    return TRUE;
  for (guint i = 0; i < t->ids->len; i++)
    if (g_str_equal (g_array_index (t->ids, SpecialId, i).type, type))
      return TRUE;
  id.type = g_strdup (type);
  id.id = (guint32) v;
  id.origin = g_strdup (origin);
  g_array_append_val (t->ids, id);
  return TRUE;
}

/* element @index (negative: from the end) of a template's list: its
 * @kind ("SpecialToken", "Sequence") "id" string, NULL if it has none */
static gboolean
template_id (JsonArray   *list,
             int          index,
             const char  *kind,
             const char **out,
             GError     **error)
{
  guint n = json_array_get_length (list);
  JsonNode *item = json_array_get_element (list, index < 0 ? n + index : (guint) index);
  JsonObject *entry = NULL;
  g_autofree char *field = g_strdup_printf ("post_processor: %s.id", kind);

  if (!JSON_NODE_HOLDS_OBJECT (item))
    return invalid (error, "tokenizer.json", "post_processor", _("templates of objects"));
  if (!get_object (json_node_get_object (item), kind, "tokenizer.json", field, &entry, error) ||
      !get_string (entry, "id", "tokenizer.json", field, out, error))
    return FALSE;
  if (*out != NULL && (*out)[0] == '\0')
    *out = NULL;
  return TRUE;
}

static gboolean
special_in (const char *token,
            JsonNode   *a,
            JsonNode   *b)
{
  return node_equals_string (a, token) || node_equals_string (b, token);
}

static void
specials_take (JsonNode **slot,
               JsonNode  *value)
{
  JsonNode *old = *slot;

  *slot = value;
  if (old != NULL)
    json_node_unref (old);
}

static gboolean
has_type (Tok        *t,
          const char *type)
{
  for (guint i = 0; i < t->types->len; i++)
    if (g_str_equal (g_ptr_array_index (t->types, i), type))
      return TRUE;
  return FALSE;
}

/* a trailing special token other than the configured EOS becomes the EOS;
 * the old one is kept as EOT (or EOM) */
static void
template_last (Tok        *t,
               Specials   *sp,
               const char *last)
{
  if (!tcfg_truthy (t))
    specials_take (&sp->eos, string_node (last));
  else if (!node_equals_string (sp->eos, last))
    {
      if (!has_type (t, "eot"))
        {
          g_ptr_array_add (t->types, g_strdup ("eot"));
          tcfg_set (t, "eot_token", sp->eos);
        }
      else if (!has_type (t, "eom"))
        {
          g_ptr_array_add (t->types, g_strdup ("eom"));
          tcfg_set (t, "eom_token", sp->eos);
        }
      specials_take (&sp->eos, string_node (last));
      tcfg_set (t, "eos_token", sp->eos);
    }
  set_add_flag (t, "eos", node_equals_string (sp->eos, last), "tokenizer.json: post_processor");
}

/* TemplateProcessing "single": a leading special token means add_bos, a
 * trailing one add_eos */
static gboolean
template_single (Tok         *t,
                 Specials    *sp,
                 JsonArray   *single,
                 const char **first,
                 const char **last,
                 GError     **error)
{
  *first = *last = NULL;
  if (single == NULL || json_array_get_length (single) <= 1)
    return TRUE;
  if (!template_id (single, 0, "SpecialToken", first, error))
    return FALSE;
  if (*first != NULL)
    {
      if (!tcfg_truthy (t))
        specials_take (&sp->bos, string_node (*first));
      else if (!special_in (*first, sp->bos, sp->cls))
        {
          /* the leading token names whichever of bos and cls is unset */
          if (!_ts_json_truthy (sp->bos))
            {
              specials_take (&sp->bos, string_node (*first));
              tcfg_set (t, "bos_token", sp->bos);
            }
          if (!_ts_json_truthy (sp->cls))
            {
              specials_take (&sp->cls, string_node (*first));
              tcfg_set (t, "cls_token", sp->cls);
            }
        }
      set_add_flag (t, "bos", special_in (*first, sp->bos, sp->cls), "tokenizer.json: post_processor");
    }
  if (!template_id (single, -1, "SpecialToken", last, error))
    return FALSE;
  if (*last != NULL)
    template_last (t, sp, *last);
  return TRUE;
}

/* TemplateProcessing "pair": A [sep] [eos] B decides add_sep */
static gboolean
template_pair (Tok         *t,
               Specials    *sp,
               JsonArray   *pair,
               const char  *first,
               const char  *last,
               GError     **error)
{
  guint n = pair ? json_array_get_length (pair) : 0;
  guint start = 0, stop = n;
  const char *id = NULL, *a = NULL, *b = NULL;
  gboolean add_sep = FALSE;

  if (n == 0)
    return TRUE;
  if (first != NULL && !template_id (pair, 0, "SpecialToken", &id, error))
    return FALSE;
  start = first != NULL && g_strcmp0 (id, first) == 0 ? 1 : 0;
  if (last != NULL && !template_id (pair, -1, "SpecialToken", &id, error))
    return FALSE;
  stop = last != NULL && g_strcmp0 (id, last) == 0 ? n - 1 : n;
  if (stop <= start)
    return TRUE;
  if (!template_id (pair, start, "Sequence", &a, error) ||
      !template_id (pair, stop - 1, "Sequence", &b, error))
    return FALSE;
  if (g_strcmp0 (a, "A") != 0 || g_strcmp0 (b, "B") != 0 || stop - start < 3)
    return TRUE;
  if (!template_id (pair, start + 1, "SpecialToken", &id, error))
    return FALSE;
  add_sep = id != NULL && special_in (id, sp->sep, sp->eos) && last == NULL;
  if (stop - start == 4)
    {
      if (!template_id (pair, start + 2, "SpecialToken", &id, error))
        return FALSE;
      add_sep = add_sep || (id != NULL && special_in (id, sp->sep, sp->eos));
    }
  set_add_flag (t, "sep", add_sep, "tokenizer.json: post_processor");
  if (add_sep && !_ts_json_truthy (sp->sep) && tcfg_truthy (t))
    tcfg_set (t, "sep_token", sp->eos);
  return TRUE;
}

/* RobertaProcessing: bos, eos and sep are all added; its cls/sep name the
 * tokens when tokenizer_config.json does not */
static gboolean
roberta_processing (Tok         *t,
                    Specials    *sp,
                    JsonObject  *processor,
                    GError     **error)
{
  static const char *const names[2] = { "cls", "sep" };
  JsonNode **slots[2] = { &sp->cls, &sp->sep };
  JsonNode *fallbacks[2] = { sp->bos, sp->eos };

  set_add_flag (t, "bos", TRUE, "tokenizer.json: post_processor");
  set_add_flag (t, "eos", TRUE, "tokenizer.json: post_processor");
  set_add_flag (t, "sep", TRUE, "tokenizer.json: post_processor");
  for (guint i = 0; i < 2; i++)
    {
      JsonNode *given = member (processor, names[i]);
      JsonNode *value = fallbacks[i];
      g_autofree char *key = g_strdup_printf ("%s_token", names[i]);

      if (_ts_json_truthy (*slots[i]) || !tcfg_truthy (t))
        continue;
      if (given != NULL && (!JSON_NODE_HOLDS_ARRAY (given) || json_array_get_length (json_node_get_array (given)) == 0))
        return invalid (error, "tokenizer.json", "post_processor: RobertaProcessing", _("[token, id] lists"));
      if (given != NULL)
        value = json_array_get_element (json_node_get_array (given), 0);
      specials_set (slots[i], value);
      tcfg_set (t, key, value);
    }
  return TRUE;
}

static gboolean
read_processor (Tok         *t,
                Specials    *sp,
                JsonObject  *processor,
                GError     **error)
{
  JsonArray *single = NULL, *pair = NULL;
  const char *first = NULL, *last = NULL;

  if (node_has_string (processor, "type", "RobertaProcessing"))
    return roberta_processing (t, sp, processor, error);
  if (!node_has_string (processor, "type", "TemplateProcessing"))
    return TRUE;
  return get_array (processor, "single", "tokenizer.json", "post_processor: single", &single, error) &&
         get_array (processor, "pair", "tokenizer.json", "post_processor: pair", &pair, error) &&
         template_single (t, sp, single, &first, &last, error) &&
         template_pair (t, sp, pair, first, last, error);
}

static gboolean
read_post_processor (Tok       *t,
                     Specials  *sp,
                     GError   **error)
{
  JsonNode *node = member (t->tok, "post_processor");
  JsonArray *processors = NULL;
  JsonObject *pp;

  if (!_ts_json_truthy (node))
    return TRUE;
  if (!JSON_NODE_HOLDS_OBJECT (node))
    return invalid (error, "tokenizer.json", "post_processor", _("an object"));
  pp = json_node_get_object (node);
  if (member (pp, "processors") == NULL)
    return read_processor (t, sp, pp, error);
  if (!JSON_NODE_HOLDS_ARRAY (member (pp, "processors")))
    return invalid (error, "tokenizer.json", "post_processor.processors", _("an array"));
  processors = json_node_get_array (member (pp, "processors"));
  for (guint i = 0; i < json_array_get_length (processors); i++)
    {
      JsonObject *processor;

      if (!array_object (processors, i, "tokenizer.json", "post_processor.processors", &processor, error) ||
          !read_processor (t, sp, processor, error))
        return FALSE;
    }
  return TRUE;
}

/* ------------------------------------------------------------ chat template */

/* a text file as Python reads it: universal newlines */
static gboolean
load_template_file (GFile   *file,
                    char   **out,
                    GError **error)
{
  g_autofree char *contents = NULL;
  g_auto(GStrv) crlf = NULL;
  gsize length;

  if (!load_text (file, &contents, &length, error))
    return FALSE;
  crlf = g_strsplit (contents, "\r\n", -1);
  *out = g_strjoinv ("\n", crlf);
  g_strdelimit (*out, "\r", '\n');
  return TRUE;
}

static JsonNode *
template_choice (const char *name,
                 const char *text)
{
  JsonObject *obj = json_object_new ();
  JsonNode *node = json_node_new (JSON_NODE_OBJECT);

  json_object_set_string_member (obj, "name", name);
  json_object_set_string_member (obj, "template", text);
  json_node_take_object (node, obj);
  return node;
}

static int
compare_strings (gconstpointer a,
                 gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

/* additional_chat_templates/NAME.jinja, sorted by name (gguf-py takes them in
 * directory order) */
static gboolean
add_additional_templates (GFile      *dir,
                          JsonArray  *list,
                          GError    **error)
{
  g_autoptr(GFile) folder = g_file_get_child (dir, "additional_chat_templates");
  g_autoptr(GFileEnumerator) e = g_file_enumerate_children (folder, G_FILE_ATTRIBUTE_STANDARD_NAME,
                                                            G_FILE_QUERY_INFO_NONE, NULL, NULL);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  GFileInfo *info;

  while (e != NULL && (info = g_file_enumerator_next_file (e, NULL, NULL)) != NULL)
    {
      const char *name = g_file_info_get_name (info);

      if (name[0] != '.' && g_str_has_suffix (name, ".jinja"))
        g_ptr_array_add (names, g_strdup (name));
      g_object_unref (info);
    }
  g_ptr_array_sort (names, compare_strings);
  for (guint i = 0; i < names->len; i++)
    {
      const char *name = g_ptr_array_index (names, i);
      g_autoptr(GFile) file = g_file_get_child (folder, name);
      g_autofree char *text = NULL;
      g_autofree char *stem = g_strndup (name, strlen (name) - strlen (".jinja"));

      if (!load_template_file (file, &text, error))
        return FALSE;
      json_array_add_element (list, template_choice (stem, text));
    }
  return TRUE;
}

/* chat_template.jinja (with additional_chat_templates/), else
 * chat_template.json's "chat_template" */
static gboolean
load_alt_template (Tok        *t,
                   JsonNode  **out,
                   GError    **error)
{
  g_autoptr(GFile) jinja = g_file_get_child (t->dir, "chat_template.jinja");
  g_autofree char *text = NULL;
  JsonArray *list;
  g_autoptr(JsonParser) parser = NULL;
  JsonObject *obj = NULL;

  *out = NULL;
  if (g_file_query_exists (jinja, NULL))
    {
      if (!load_template_file (jinja, &text, error))
        return FALSE;
      list = json_array_new ();
      json_array_add_element (list, template_choice ("default", text));
      if (!add_additional_templates (t->dir, list, error))
        return (json_array_unref (list), FALSE);
      *out = json_array_get_length (list) > 1 ? json_node_init_array (json_node_alloc (), list) : string_node (text);
      json_array_unref (list);
      t->chat_template_origin = "chat_template.jinja";
      return TRUE;
    }
  if (!load_json (t->dir, "chat_template.json", FALSE, &parser, &obj, error))
    return FALSE;
  if (member (obj, "chat_template") != NULL)
    *out = json_node_copy (member (obj, "chat_template"));
  t->chat_template_origin = "chat_template.json: chat_template";
  return TRUE;
}

typedef struct
{
  char *name;
  char *text;
} NamedTemplate;

static void
named_template_clear (gpointer p)
{
  NamedTemplate *n = p;

  g_free (n->name);
  g_free (n->text);
}

/* every character but ASCII letters and digits becomes "_" */
static char *
sanitize_template_name (const char *name)
{
  GString *s = g_string_new (NULL);

  for (const char *p = name; *p; p = g_utf8_next_char (p))
    g_string_append_c (s, g_ascii_isalnum (*p) ? *p : '_');
  return g_string_free (s, FALSE);
}

/* GGUFWriter.add_chat_template() for the list form: named templates get
 * their own keys, "default" is tokenizer.chat_template */
static gboolean
collect_named_templates (JsonArray   *list,
                         GArray      *named,
                         char       **default_text,
                         GError     **error)
{
  /* name -> its index in @named, plus one */
  g_autoptr(GHashTable) index = g_hash_table_new (g_str_hash, g_str_equal);

  for (guint i = 0; i < json_array_get_length (list); i++)
    {
      JsonObject *choice;
      const char *name = NULL, *text = NULL;
      g_autofree char *clean = NULL;
      NamedTemplate entry;
      guint j;

      if (!array_object (list, i, "tokenizer_config.json", "chat_template", &choice, error) ||
          !get_string (choice, "name", "tokenizer_config.json", "chat_template[].name", &name, error) ||
          !get_string (choice, "template", "tokenizer_config.json", "chat_template[].template", &text, error))
        return FALSE;
      clean = sanitize_template_name (name ? name : "");
      if (clean[0] == '\0' || text == NULL)
        continue;
      if (g_str_equal (clean, "default"))
        {
          g_free (*default_text);
          *default_text = g_strdup (text);
          continue;
        }
      j = GPOINTER_TO_UINT (g_hash_table_lookup (index, clean));
      entry.name = g_steal_pointer (&clean);
      entry.text = g_strdup (text);
      if (j > 0)
        {
          /* the same name again: its entry keeps its place; the key
           * (the name in @named) moves to the new entry's copy before the
           * old one is freed */
          g_hash_table_replace (index, entry.name, GUINT_TO_POINTER (j));
          named_template_clear (&g_array_index (named, NamedTemplate, j - 1));
          g_array_index (named, NamedTemplate, j - 1) = entry;
        }
      else
        {
          g_array_append_val (named, entry);
          g_hash_table_insert (index, entry.name, GUINT_TO_POINTER (named->len));
        }
    }
  return TRUE;
}

static gboolean
read_chat_template (Tok     *t,
                    GError **error)
{
  JsonNode *alt = NULL;
  JsonNode *node;

  if (!load_alt_template (t, &alt, error))
    return FALSE;
  node = member (t->tcfg, "chat_template");
  if (node != NULL)
    {
      g_clear_pointer (&alt, json_node_unref);
      alt = json_node_copy (node);
      t->chat_template_origin = "tokenizer_config.json: chat_template";
    }
  /* gguf-py ignores a template that is neither a string nor a list */
  if (alt != NULL && (node_is_string (alt) || JSON_NODE_HOLDS_ARRAY (alt)))
    t->chat_template = g_steal_pointer (&alt);
  g_clear_pointer (&alt, json_node_unref);
  if (t->chat_template == NULL || !JSON_NODE_HOLDS_ARRAY (t->chat_template))
    return TRUE;
  t->named_templates = g_array_new (FALSE, FALSE, sizeof (NamedTemplate));
  g_array_set_clear_func (t->named_templates, named_template_clear);
  return collect_named_templates (json_node_get_array (t->chat_template), t->named_templates,
                                  &t->default_template, error);
}

/* ------------------------------------------------------------ special ids */

static JsonNode *
added_token_id (Tok        *t,
                const char *content)
{
  for (guint i = 0; i < t->added->len; i++)
    {
      AddedToken *a = &g_array_index (t->added, AddedToken, i);

      if (g_str_equal (a->content, content))
        return json_node_init_int (json_node_alloc (), a->id);
    }
  return NULL;
}

/* tokenizer_config.json's add_<type>_token booleans and <type>_token names,
 * looked up among tokenizer.json's added tokens */
static gboolean
read_config_tokens (Tok     *t,
                    GError **error)
{
  for (guint i = 0; i < t->types->len; i++)
    {
      const char *type = g_ptr_array_index (t->types, i);
      g_autofree char *add_key = g_strdup_printf ("add_%s_token", type);
      g_autofree char *key = g_strdup_printf ("%s_token", type);
      g_autofree char *origin = g_strdup_printf ("tokenizer_config.json: %s", key);
      g_autofree char *add_origin = g_strdup_printf ("tokenizer_config.json: %s", add_key);
      g_autoptr(JsonNode) id = NULL;
      JsonNode *entry = member (t->tcfg, key);
      const char *content = NULL;

      if (node_is_bool (member (t->tcfg, add_key)))
        set_add_flag (t, type, json_node_get_boolean (member (t->tcfg, add_key)), add_origin);
      if (node_is_string (entry))
        content = json_node_get_string (entry);
      else if (entry != NULL && JSON_NODE_HOLDS_OBJECT (entry) &&
               node_is_string (member (json_node_get_object (entry), "content")))
        content = json_node_get_string (member (json_node_get_object (entry), "content"));
      if (content == NULL)
        continue;
      id = added_token_id (t, content);
      if (!set_special_id (t, type, id, origin, error))
        return FALSE;
    }
  return TRUE;
}

/* SpecialVocab._try_load_from_config_json(): <type>_token_id, at the top
 * level or in text_config */
static gboolean
read_config_ids (Tok     *t,
                 GError **error)
{
  for (guint i = 0; t->cfg != NULL && i < t->types->len; i++)
    {
      const char *type = g_ptr_array_index (t->types, i);
      g_autofree char *key = g_strdup_printf ("%s_token_id", type);
      g_autofree char *origin = g_strdup_printf ("config.json: %s", key);
      JsonNode *value = member (t->cfg, key);

      if (node_is_null (value) && member (t->cfg, "text_config") != NULL)
        {
          JsonObject *text_config = NULL;

          if (!get_object (t->cfg, "text_config", "config.json", "text_config", &text_config, error))
            return FALSE;
          value = member (text_config, key);
          g_free (origin);
          origin = g_strdup_printf ("config.json: text_config.%s", key);
        }
      if (!set_special_id (t, type, value, origin, error))
        return FALSE;
    }
  return TRUE;
}

/* SpecialVocab's default special_token_types */
static const char *const default_special_types[] = { "bos", "eos", "unk", "sep", "pad", "cls", "mask", NULL };

static gboolean
read_special_vocab (Tok               *t,
                    const char *const *types,
                    GError           **error)
{
  g_auto(Specials) sp = { NULL, NULL, NULL, NULL };

  t->types = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; types[i] != NULL; i++)
    g_ptr_array_add (t->types, g_strdup (types[i]));
  t->ids = g_array_new (FALSE, FALSE, sizeof (SpecialId));
  t->add_flags = g_array_new (FALSE, FALSE, sizeof (AddFlag));
  if (t->tok != NULL && json_object_get_size (t->tok) > 0)
    {
      specials_set (&sp.bos, member (t->tcfg, "bos_token"));
      specials_set (&sp.cls, member (t->tcfg, "cls_token"));
      specials_set (&sp.eos, member (t->tcfg, "eos_token"));
      specials_set (&sp.sep, member (t->tcfg, "sep_token"));
      /* a cls/sep token stands in for a missing bos/eos */
      if (!_ts_json_truthy (sp.bos) && _ts_json_truthy (sp.cls) && tcfg_truthy (t))
        {
          tcfg_set (t, "bos_token", sp.cls);
          specials_set (&sp.bos, sp.cls);
        }
      if (!_ts_json_truthy (sp.eos) && _ts_json_truthy (sp.sep) && tcfg_truthy (t))
        {
          tcfg_set (t, "eos_token", sp.sep);
          specials_set (&sp.eos, sp.sep);
        }
      if (!read_post_processor (t, &sp, error))
        return FALSE;
    }
  if (tcfg_truthy (t) && (!read_chat_template (t, error) || !read_config_tokens (t, error)))
    return FALSE;
  return read_config_ids (t, error);
}

/* ------------------------------------------------------------ pre-tokenizer names */

/* The pre-tokenizer names llama.cpp knows, sorted: those its
 * src/llama-vocab.cpp compares tokenizer_pre with (llama_vocab::impl::load()
 * throws "unknown pre-tokenizer type" for any other name of a BPE
 * vocabulary), as of the llama.cpp that node-llama-cpp 3.21.1 ships.
 * tests/check_pre_names.py holds this list to that source, so that it
 * cannot drift from it unseen. */
static const char * const known_pre_names[] = {
  "a.x-4.0", "afmoe", "bailingmoe", "bailingmoe2", "bloom", "chameleon", "chatglm-bpe",
  "codeshell", "cohere2moe", "command-r", "dbrx", "deepseek-coder", "deepseek-llm",
  "deepseek-r1-qwen", "deepseek-v3", "default", "exaone", "exaone-moe", "exaone4", "f2llmv2",
  "falcon", "falcon-h1", "falcon3", "gemma4", "gigachat", "glm4", "gpt-2", "gpt-4o",
  "gpt3-finnish", "granite-docling", "granite-embed-multi-311m", "granite-embed-multi-97m",
  "grok-2", "hunyuan", "hunyuan-dense", "jais", "jais-2", "jina-de", "jina-es", "jina-v1-en",
  "jina-v2-code", "jina-v2-de", "jina-v2-es", "jina-v5-nano", "joyai-llm", "kanana2", "kimi-k2",
  "kormo", "laguna", "lfm2", "llada-moe", "llama-bpe", "llama-v3", "llama3", "llama4", "megrez",
  "mellum", "mellum2", "midm-2.0", "minerva-7b", "minicpm5", "minimax-m2", "modern-bert", "mpt",
  "olmo", "phi-2", "pixtral", "poro-chat", "qwen2", "qwen35", "refact", "roberta-bpe",
  "sarvam-moe", "seed-coder", "smaug-bpe", "smollm", "solar-open", "stablelm2", "starcoder",
  "superbpe", "talkie", "tekken", "tiny_aya", "trillion", "viking", "whitespace", "youtu", NULL
};

/**
 * ts_hf_tokenizer_get_pre_names:
 *
 * Returns: (transfer none) (array zero-terminated=1): the pre-tokenizer
 *   names llama.cpp knows (tokenizer.ggml.pre), sorted
 */
const char * const *
ts_hf_tokenizer_get_pre_names (void)
{
  return known_pre_names;
}

/**
 * ts_hf_tokenizer_check_pre:
 * @name: a pre-tokenizer name to write as tokenizer.ggml.pre
 * @error: return location for a #GError
 *
 * llama.cpp refuses to load a byte-level BPE vocabulary whose
 * tokenizer.ggml.pre it does not know, and falls back to its default
 * pre-tokenizer, warning that generation quality is degraded, when the
 * name is empty.
 *
 * Returns: %TRUE if llama.cpp knows @name; else %FALSE with
 *   %G_IO_ERROR_INVALID_ARGUMENT saying how to list the names it knows
 */
gboolean
ts_hf_tokenizer_check_pre (const char  *name,
                           GError     **error)
{
  g_return_val_if_fail (name != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (g_strv_contains (known_pre_names, name))
    return TRUE;
  if (name[0] == '\0')
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                 _("the pre-tokenizer name is empty (llama.cpp would fall back to its default "
                   "pre-tokenizer and warn that generation quality is degraded); "
                   "\"tensorscope-cli convert --tokenizer-pre help\" lists the names llama.cpp knows"));
  else
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                 _("llama.cpp does not know the pre-tokenizer \"%s\" and would refuse to load the "
                   "file; the names it knows are those its src/llama-vocab.cpp compares "
                   "tokenizer_pre with, and \"tensorscope-cli convert --tokenizer-pre help\" lists "
                   "them (Llama 3's is \"llama-bpe\")"), name);
  return FALSE;
}

/* ------------------------------------------------------------ writing */

static const char *
special_id_key (const char *type)
{
  static const char *const keys[][2] = {
    { "bos", "tokenizer.ggml.bos_token_id" }, { "eos", "tokenizer.ggml.eos_token_id" },
    { "unk", "tokenizer.ggml.unknown_token_id" }, { "sep", "tokenizer.ggml.seperator_token_id" },
    { "pad", "tokenizer.ggml.padding_token_id" }, { "mask", "tokenizer.ggml.mask_token_id" },
    { "eot", "tokenizer.ggml.eot_token_id" }, { "eom", "tokenizer.ggml.eom_token_id" },
  };

  /* no GGUFWriter.add_cls_token_id: gguf-py skips the cls id */
  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    if (g_str_equal (keys[i][0], type))
      return keys[i][1];
  return NULL;
}

static const char *
add_flag_key (const char *type)
{
  if (g_str_equal (type, "bos"))
    return "tokenizer.ggml.add_bos_token";
  if (g_str_equal (type, "eos"))
    return "tokenizer.ggml.add_eos_token";
  if (g_str_equal (type, "sep"))
    return "tokenizer.ggml.add_sep_token";
  return NULL;
}

/* LlamaModel.set_vocab(): "granite small models" (vocab 49152) never add
 * BOS; the later write keeps the key's first place */
static void
write_special_tokens (Tok            *t,
                      TsGgufMetadata *md)
{
  gboolean granite = t->config->vocab_size == 49152;
  gboolean wrote_add_bos = FALSE;

  for (guint i = 0; i < t->ids->len; i++)
    {
      SpecialId *id = &g_array_index (t->ids, SpecialId, i);

      if (special_id_key (id->type) != NULL)
        ts_gguf_metadata_add_uint32 (md, special_id_key (id->type), id->id, id->origin);
    }
  for (guint i = 0; i < t->add_flags->len; i++)
    {
      AddFlag *f = &g_array_index (t->add_flags, AddFlag, i);
      gboolean is_bos = g_str_equal (f->type, "bos");

      if (add_flag_key (f->type) == NULL)
        continue;
      wrote_add_bos = wrote_add_bos || is_bos;
      ts_gguf_metadata_add_bool (md, add_flag_key (f->type), (granite && is_bos) ? FALSE : f->value,
                                 (granite && is_bos) ? "converter: vocab_size 49152" : f->origin);
    }
  t->granite_add_bos = granite && !wrote_add_bos;
}

static void
write_chat_template (Tok            *t,
                     TsGgufMetadata *md)
{
  GArray *named = t->named_templates;

  if (t->chat_template == NULL)
    return;
  if (node_is_string (t->chat_template))
    {
      ts_gguf_metadata_add_string_nonempty (md, "tokenizer.chat_template", json_node_get_string (t->chat_template),
                           t->chat_template_origin);
      return;
    }
  for (guint i = 0; i < named->len; i++)
    {
      NamedTemplate *n = &g_array_index (named, NamedTemplate, i);
      g_autofree char *key = g_strdup_printf ("tokenizer.chat_template.%s", n->name);

      ts_gguf_metadata_add_string_nonempty (md, key, n->text, t->chat_template_origin);
    }
  if (named->len > 0)
    {
      g_autofree const char **names = g_new0 (const char *, named->len);

      for (guint i = 0; i < named->len; i++)
        names[i] = g_array_index (named, NamedTemplate, i).name;
      ts_gguf_metadata_add_string_array (md, "tokenizer.chat_templates", names, NULL, named->len,
                                         t->chat_template_origin);
    }
  ts_gguf_metadata_add_string_nonempty (md, "tokenizer.chat_template", t->default_template, t->chat_template_origin);
}

/* ------------------------------------------------------------ entry point */

static gboolean
load_files (Tok     *t,
            GError **error)
{
  return load_json (t->dir, "tokenizer.json", TRUE, &t->tok_parser, &t->tok, error) &&
         load_json (t->dir, "tokenizer_config.json", FALSE, &t->tcfg_parser, &t->tcfg, error) &&
         load_json (t->dir, "config.json", FALSE, &t->cfg_parser, &t->cfg, error);
}

/* The name llama.cpp's converter gives tokenizer.json's pre-tokenizer, or
 * NULL when only a name given by hand can say which one it is */
static const char *
detect_pre (Tok         *t,
            const char **origin)
{
  JsonNode *model, *ignore_merges;

  if (!ts_hf_tokenizer_is_llama3_pre_tokenizer (member (t->tok, "pre_tokenizer")))
    return NULL;
  model = member (t->tok, "model");
  ignore_merges = model != NULL && JSON_NODE_HOLDS_OBJECT (model)
                  ? member (json_node_get_object (model), "ignore_merges") : NULL;
  /* llama.cpp's "llama-bpe" also ignores the merges for a word that is
   * a token of its own, as Llama 3's tokenizer.json asks; one saved
   * without that (a fine-tune's, by older tokenizers) splits such a
   * word by the merges, which is llama.cpp's "smaug-bpe": the same
   * pattern, the merges always (its converter finds it so by hashing
   * when the vocabulary is Llama 3's) */
  if (node_is_bool (ignore_merges) && json_node_get_boolean (ignore_merges))
    {
      *origin = "tokenizer.json: pre_tokenizer (Llama 3)";
      return TS_HF_TOKENIZER_PRE_LLAMA_BPE;
    }
  *origin = "tokenizer.json: pre_tokenizer (Llama 3), without model.ignore_merges";
  return TS_HF_TOKENIZER_PRE_SMAUG_BPE;
}

static gboolean
choose_pre (Tok         *t,
            const char  *tokenizer_pre,
            const char **pre,
            const char **origin,
            const char **detected,
            GError     **error)
{
  const char *detected_origin = NULL;

  *detected = detect_pre (t, &detected_origin);
  if (tokenizer_pre != NULL)
    {
      *pre = tokenizer_pre;
      *origin = "--tokenizer-pre";
      return TRUE;
    }
  if (*detected != NULL)
    {
      *pre = *detected;
      *origin = detected_origin;
      return TRUE;
    }
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
               _("tokenizer.json: the pre-tokenizer is not Llama 3's and llama.cpp identifies "
               "pre-tokenizers by name; pass --tokenizer-pre NAME with the name llama.cpp "
               "uses for it (e.g. \"llama-bpe\", \"qwen2\", \"gpt-2\")"));
  return FALSE;
}

/* SpecialVocab._parse_normalizer(): the lowercase and strip_accents flags
 * of tokenizer.json's normalizer; in a Sequence, a later normalizer wins,
 * and a BertNormalizer's null unsets a flag */
static const char * const normalizer_flags[2] = { "lowercase", "strip_accents" };

static gboolean
parse_normalizer (Tok       *t,
                  JsonNode  *node,
                  GError   **error)
{
  JsonObject *n;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("tokenizer.json: a normalizer must be an object"));
      return FALSE;
    }
  n = json_node_get_object (node);
  if (node_has_string (n, "type", "Lowercase"))
    t->normalizer[0] = 1;
  else if (node_has_string (n, "type", "StripAccents"))
    t->normalizer[1] = 1;
  else if (node_has_string (n, "type", "BertNormalizer"))
    for (guint i = 0; i < G_N_ELEMENTS (normalizer_flags); i++)
      {
        JsonNode *flag = member (n, normalizer_flags[i]);

        if (flag == NULL)
          continue;
        if (node_is_null (flag))
          t->normalizer[i] = -1;
        else if (JSON_NODE_HOLDS_VALUE (flag) && json_node_get_value_type (flag) == G_TYPE_BOOLEAN)
          t->normalizer[i] = json_node_get_boolean (flag);
        else
          {
            g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                         _("tokenizer.json: the BertNormalizer's \"%s\" must be true, false "
                         "or null"), normalizer_flags[i]);
            return FALSE;
          }
      }
  else if (node_has_string (n, "type", "Sequence"))
    {
      JsonNode *list = member (n, "normalizers");
      JsonArray *a;

      if (node_is_null (list))
        return TRUE;
      if (!JSON_NODE_HOLDS_ARRAY (list))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                       _("tokenizer.json: a Sequence normalizer's \"normalizers\" must be a list"));
          return FALSE;
        }
      a = json_node_get_array (list);
      for (guint i = 0; i < json_array_get_length (a); i++)
        if (!parse_normalizer (t, json_array_get_element (a, i), error))
          return FALSE;
    }
  return TRUE;
}

static gboolean
read_normalizer (Tok     *t,
                 GError **error)
{
  JsonNode *node = member (t->tok, "normalizer");

  t->normalizer[0] = t->normalizer[1] = -1;
  /* gguf-py looks only at a normalizer Python takes as true */
  return !_ts_json_truthy (node) || parse_normalizer (t, node, error);
}

/* written by SpecialVocab.add_to_gguf(), after the chat template */
static void
write_normalizer (Tok            *t,
                  TsGgufMetadata *md)
{
  for (guint i = 0; i < G_N_ELEMENTS (normalizer_flags); i++)
    if (t->normalizer[i] >= 0)
      {
        g_autofree char *key = g_strdup_printf ("tokenizer.ggml.normalizer.%s", normalizer_flags[i]);

        ts_gguf_metadata_add_bool (md, key, t->normalizer[i], "tokenizer.json: normalizer");
      }
}

/* LlamaModel.set_vocab()'s add_space_prefix, before any vocabulary */
static void
write_space_prefix (Tok            *t,
                    TsGgufMetadata *md)
{
  JsonNode *prefix = member (t->tcfg, "add_prefix_space");

  if (!node_is_null (prefix))
    ts_gguf_metadata_add_bool (md, "tokenizer.ggml.add_space_prefix", _ts_json_truthy (prefix),
                               "tokenizer_config.json: add_prefix_space");
}

/* LlamaModel.set_vocab()'s add_space_prefix, then _set_vocab_gpt2() */
static void
write_vocab (Tok            *t,
             const char     *pre,
             const char     *pre_origin,
             GPtrArray      *tokens,
             GArray         *types,
             TsGgufMetadata *md)
{
  write_space_prefix (t, md);
  ts_gguf_metadata_add_string (md, "tokenizer.ggml.model", "gpt2", "converter: byte-level BPE");
  ts_gguf_metadata_add_string (md, "tokenizer.ggml.pre", pre, pre_origin);
  ts_gguf_metadata_add_string_array (md, "tokenizer.ggml.tokens", (const char **) tokens->pdata, NULL,
                                     tokens->len, "tokenizer.json: model.vocab, added_tokens");
  ts_gguf_metadata_add_int32_array (md, "tokenizer.ggml.token_type", (const gint32 *) types->data,
                                    types->len, "tokenizer.json: added_tokens (special)");
  if (t->merges->len > 0)
    ts_gguf_metadata_add_string_array (md, "tokenizer.ggml.merges", (const char **) t->merges->pdata,
                                       NULL, t->merges->len, t->merges_origin);
}

/* ------------------------------------------------------------ SentencePiece */

/* Path.is_file(): a regular file, symbolic links followed */
static gboolean
is_regular_file (GFile *file)
{
  return g_file_query_file_type (file, G_FILE_QUERY_INFO_NONE, NULL) == G_FILE_TYPE_REGULAR;
}

/**
 * ts_hf_tokenizer_is_sentencepiece:
 * @dir: a checkpoint folder
 *
 * LlamaModel.set_vocab() reads a tokenizer.model that is a file (a link to
 * one too) with sentencepiece, whatever else the folder holds.
 *
 * Returns: whether @dir's tokenizer is a SentencePiece model
 */
gboolean
ts_hf_tokenizer_is_sentencepiece (GFile *dir)
{
  g_autoptr(GFile) spm = g_file_get_child (dir, "tokenizer.model");

  return is_regular_file (spm);
}

/* the vocabulary _create_vocab_sentencepiece() builds */
typedef struct
{
  GPtrArray *tokens;
  GArray    *scores;    /* float */
  GArray    *types;     /* gint32, gguf.TokenType */
  GString   *origin;    /* the files it comes from */
} SpmVocab;

static void
spm_vocab_clear (SpmVocab *v)
{
  g_clear_pointer (&v->tokens, g_ptr_array_unref);
  g_clear_pointer (&v->scores, g_array_unref);
  g_clear_pointer (&v->types, g_array_unref);
  if (v->origin != NULL)
    g_string_free (g_steal_pointer (&v->origin), TRUE);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (SpmVocab, spm_vocab_clear)

static void
spm_vocab_set (SpmVocab   *v,
               guint       id,
               char       *token,
               float       score,
               gint32      type)
{
  g_free (g_ptr_array_index (v->tokens, id));
  g_ptr_array_index (v->tokens, id) = token;
  g_array_index (v->scores, float, id) = score;
  g_array_index (v->types, gint32, id) = type;
}

/* a score as gguf-py packs it: sentencepiece's float became a Python
 * float (a double) and struct.pack() makes it a float again, which quiets
 * a signalling NaN (its payload stays) */
static float
python_float32 (float score)
{
  guint32 bits;

  memcpy (&bits, &score, sizeof bits);
  if ((bits & 0x7f800000u) == 0x7f800000u && (bits & 0x007fffffu) != 0)
    bits |= 0x00400000u;
  memcpy (&score, &bits, sizeof bits);
  return score;
}

/* the pieces of tokenizer.model: control, unknown, unused and byte pieces
 * keep their type, normal and user-defined ones are normal tokens */
static void
spm_vocab_add_pieces (SpmVocab   *v,
                      TsSpmModel *model)
{
  for (guint i = 0; i < model->pieces->len && i < v->tokens->len; i++)
    {
      gint32 type = g_array_index (model->types, gint32, i);
      gint32 token_type = TOKEN_NORMAL;

      if (type == TS_SPM_UNKNOWN)
        token_type = TOKEN_UNKNOWN;
      else if (type == TS_SPM_CONTROL)
        token_type = TOKEN_CONTROL;
      else if (type == TS_SPM_UNUSED)
        token_type = TOKEN_UNUSED;
      else if (type == TS_SPM_BYTE)
        token_type = TOKEN_BYTE;
      spm_vocab_set (v, i, g_strdup (g_ptr_array_index (model->pieces, i)),
                     python_float32 (g_array_index (model->scores, float, i)), token_type);
    }
}

/* added_tokens.json: { text: id }, user-defined tokens; ids past the
 * vocabulary are skipped */
static gboolean
spm_vocab_add_added_json (Tok       *t,
                          SpmVocab  *v,
                          GError   **error)
{
  g_autoptr(JsonParser) parser = NULL;
  JsonObject *added = NULL;
  g_autoptr(GList) names = NULL;
  gboolean used = FALSE;

  if (!load_json (t->dir, "added_tokens.json", FALSE, &parser, &added, error))
    return FALSE;
  names = added != NULL ? json_object_get_members (added) : NULL;
  for (GList *l = names; l != NULL; l = l->next)
    {
      JsonNode *node = json_object_get_member (added, l->data);
      gint64 id;

      if (!node_is_int (node))
        return invalid (error, "added_tokens.json", l->data, _("an integer token id"));
      id = json_node_get_int (node);
      if (id < 0)
        {
          g_autofree char *text = g_strdup_printf ("%" G_GINT64_FORMAT, id);

          return negative_id (error, "added_tokens.json", text, l->data);
        }
      if (id >= (gint64) v->tokens->len)
        continue;
      spm_vocab_set (v, (guint) id, g_strdup (l->data), -1000.0f, TOKEN_USER_DEFINED);
      used = TRUE;
    }
  if (used)
    g_string_append (v->origin, ", added_tokens.json");
  return TRUE;
}

/* tokenizer_config.json's added_tokens_decoder: special ones (or ones that
 * look special) are control tokens, the others user-defined, with "▁"
 * stored as a space */
static gboolean
spm_vocab_add_decoder (Tok       *t,
                       SpmVocab  *v,
                       GError   **error)
{
  JsonObject *decoder = NULL;
  g_autoptr(GList) ids = NULL;
  gboolean used = FALSE;

  if (!get_object (t->tcfg, "added_tokens_decoder", "tokenizer_config.json",
                   "added_tokens_decoder", &decoder, error))
    return FALSE;
  ids = decoder != NULL ? json_object_get_members (decoder) : NULL;
  for (GList *l = ids; l != NULL; l = l->next)
    {
      g_autofree char *field = g_strdup_printf ("added_tokens_decoder.%s", (const char *) l->data);
      g_autofree char *content_field = g_strdup_printf ("%s.content", field);
      JsonNode *node = json_object_get_member (decoder, l->data);
      const char *content = NULL;
      JsonObject *obj;
      gint64 id;

      if (!decoder_id (l->data, &id) || !JSON_NODE_HOLDS_OBJECT (node))
        return invalid (error, "tokenizer_config.json", "added_tokens_decoder",
                        _("an object of token ids to objects"));
      obj = json_node_get_object (node);
      if (!get_string (obj, "content", "tokenizer_config.json", content_field, &content, error))
        return FALSE;
      if (content == NULL)
        return invalid (error, "tokenizer_config.json", field, _("an object with a string \"content\""));
      if (id < 0)
        return negative_id (error, "tokenizer_config.json", l->data, content);
      if (id >= (gint64) v->tokens->len)
        continue;
      if (_ts_json_truthy (member (obj, "special")) || looks_special (content))
        spm_vocab_set (v, (guint) id, g_strdup (content), -1000.0f, TOKEN_CONTROL);
      else
        {
          g_auto(GStrv) pieces = g_strsplit (content, "\xe2\x96\x81", -1);

          spm_vocab_set (v, (guint) id, g_strjoinv (" ", pieces), -1000.0f, TOKEN_USER_DEFINED);
        }
      used = TRUE;
    }
  if (used)
    g_string_append (v->origin, ", tokenizer_config.json: added_tokens_decoder");
  return TRUE;
}

/* _create_vocab_sentencepiece(): config.json's vocab_size tokens (the
 * model's piece count for a vocab_size of 0), "[PAD<id>]" (unused, score
 * -10000) where neither the model nor an added token gives one. Its
 * padding of the list up to vocab_size never happens: the list starts
 * that long. */
static gboolean
build_spm_vocab (Tok         *t,
                 TsSpmModel  *model,
                 SpmVocab    *v,
                 GError     **error)
{
  guint n = t->config->vocab_size > 0 ? t->config->vocab_size : model->pieces->len;

  v->tokens = g_ptr_array_new_full (n, g_free);
  v->scores = g_array_sized_new (FALSE, FALSE, sizeof (float), n);
  v->types = g_array_sized_new (FALSE, FALSE, sizeof (gint32), n);
  v->origin = g_string_new ("tokenizer.model");
  for (guint i = 0; i < n; i++)
    {
      float score = -10000.0f;
      gint32 type = TOKEN_UNUSED;

      g_ptr_array_add (v->tokens, g_strdup_printf ("[PAD%u]", i));
      g_array_append_val (v->scores, score);
      g_array_append_val (v->types, type);
    }
  spm_vocab_add_pieces (v, model);
  return spm_vocab_add_added_json (t, v, error) && spm_vocab_add_decoder (t, v, error);
}

/* _set_vocab_sentencepiece()'s keys, after LlamaModel.set_vocab()'s
 * add_space_prefix */
static void
write_spm_vocab (Tok            *t,
                 const char     *tokenizer_pre,
                 SpmVocab       *v,
                 TsGgufMetadata *md)
{
  write_space_prefix (t, md);
  ts_gguf_metadata_add_string (md, "tokenizer.ggml.model", "llama", "converter: SentencePiece (tokenizer.model)");
  ts_gguf_metadata_add_string (md, "tokenizer.ggml.pre", tokenizer_pre ? tokenizer_pre : TS_HF_TOKENIZER_PRE_DEFAULT,
                               tokenizer_pre ? "--tokenizer-pre" : "converter: SentencePiece (tokenizer.model)");
  ts_gguf_metadata_add_string_array (md, "tokenizer.ggml.tokens", (const char **) v->tokens->pdata, NULL,
                                     v->tokens->len, v->origin->str);
  ts_gguf_metadata_add_float32_array (md, "tokenizer.ggml.scores", (const float *) v->scores->data,
                                      v->scores->len, v->origin->str);
  ts_gguf_metadata_add_int32_array (md, "tokenizer.ggml.token_type", (const gint32 *) v->types->data,
                                    v->types->len, v->origin->str);
}

/* LlamaModel.set_vocab() for CodeLlama (vocab_size 32016): a second
 * SpecialVocab of the types prefix, suffix, middle and eot, from a fresh
 * tokenizer_config.json, with 32007-32010 for those not given. gguf-py has
 * no key for the first three; the flags it reads again (from tokenizer.json's
 * post-processor alone, as tokenizer_config.json's add_bos_token is not one
 * of these types) are written over the first ones in place. Its chat
 * template and normalizer are the first ones again. */
static gboolean
add_codellama_specials (Tok            *t,
                        TsGgufMetadata *md,
                        GError        **error)
{
  static const char *const types[] = { "prefix", "suffix", "middle", "eot", NULL };
  const char *origin = "converter: CodeLlama (vocab_size 32016)";

  clear_special_vocab (t);
  g_clear_object (&t->tcfg_parser);
  t->n_vocab_limit = 0;
  if (!load_json (t->dir, "tokenizer_config.json", FALSE, &t->tcfg_parser, &t->tcfg, error) ||
      !read_special_vocab (t, types, error))
    return FALSE;
  for (guint i = 0; types[i] != NULL; i++)
    {
      g_autoptr(JsonNode) id = json_node_init_int (json_node_alloc (), 32007 + i);

      if (!set_special_id (t, types[i], id, origin, error))
        return FALSE;
    }
  for (guint i = 0; i < t->ids->len; i++)
    {
      SpecialId *id = &g_array_index (t->ids, SpecialId, i);

      if (special_id_key (id->type) != NULL)
        ts_gguf_metadata_set_uint32 (md, special_id_key (id->type), id->id, id->origin);
    }
  for (guint i = 0; i < t->add_flags->len; i++)
    {
      AddFlag *f = &g_array_index (t->add_flags, AddFlag, i);

      if (add_flag_key (f->type) != NULL)
        ts_gguf_metadata_set_bool (md, add_flag_key (f->type), f->value, f->origin);
    }
  return TRUE;
}

/* LlamaModel.set_vocab() with a tokenizer.model: _set_vocab_sentencepiece()
 * and a SpecialVocab told the vocabulary's size, without merges;
 * tokenizer.json is optional and read only by SpecialVocab */
static gboolean
add_sentencepiece (Tok             *t,
                   GFile           *spm,
                   const char      *tokenizer_pre,
                   TsGgufMetadata  *md,
                   GError         **error)
{
  g_autoptr(TsSpmModel) model = NULL;
  g_auto(SpmVocab) v = { NULL, NULL, NULL, NULL };

  if (!load_json (t->dir, "tokenizer.json", FALSE, &t->tok_parser, &t->tok, error) ||
      !load_json (t->dir, "tokenizer_config.json", FALSE, &t->tcfg_parser, &t->tcfg, error) ||
      !load_json (t->dir, "config.json", FALSE, &t->cfg_parser, &t->cfg, error))
    return FALSE;
  model = _ts_spm_model_load (spm, error);
  if (model == NULL || !build_spm_vocab (t, model, &v, error) ||
      !load_json_added_tokens (t, error))
    return FALSE;
  t->n_vocab_limit = v.tokens->len;
  if (!read_normalizer (t, error) || !read_special_vocab (t, default_special_types, error))
    return FALSE;

  /* nothing below fails: CodeLlama's second SpecialVocab reads the files
   * the first one read without an error */
  write_spm_vocab (t, tokenizer_pre, &v, md);
  write_special_tokens (t, md);
  write_chat_template (t, md);
  write_normalizer (t, md);
  if (t->config->vocab_size == 32016 && !add_codellama_specials (t, md, error))
    return FALSE;
  if (t->granite_add_bos)
    ts_gguf_metadata_add_bool (md, "tokenizer.ggml.add_bos_token", FALSE, "converter: vocab_size 49152");
  return TRUE;
}

/**
 * ts_hf_tokenizer_add_metadata_full:
 * @dir: the checkpoint folder
 * @config: its config.json
 * @tokenizer_pre: (nullable): tokenizer.ggml.pre to write, or NULL to
 *   recognise the Llama 3 pre-tokenizer (a SentencePiece model's is
 *   "default")
 * @md: where to append the keys
 * @detected_pre: (out) (optional) (transfer none): the name the tokenizer
 *   files give, the one written without @tokenizer_pre; %NULL when only a
 *   name given by hand can say which pre-tokenizer it is
 * @error: return location for a #GError
 *
 * Appends the tokenizer keys of a SentencePiece tokenizer.model (tried
 * first, as LlamaModel.set_vocab() does) or of a byte-level BPE
 * tokenizer.json, in the order and with the values llama.cpp's converter
 * writes. Nothing is appended on error. @tokenizer_pre is written as it
 * is: see ts_hf_tokenizer_check_pre().
 *
 * Returns: %TRUE on success
 */
gboolean
ts_hf_tokenizer_add_metadata_full (GFile             *dir,
                                   const TsHfConfig  *config,
                                   const char        *tokenizer_pre,
                                   TsGgufMetadata    *md,
                                   const char       **detected_pre,
                                   GError           **error)
{
  g_auto(Tok) t = { 0 };
  g_autoptr(GPtrArray) tokens = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GArray) types = g_array_new (FALSE, FALSE, sizeof (gint32));
  const char *pre = NULL, *pre_origin = NULL, *detected = NULL;
  g_autoptr(GFile) spm = NULL;

  g_return_val_if_fail (G_IS_FILE (dir), FALSE);
  g_return_val_if_fail (config != NULL, FALSE);
  g_return_val_if_fail (md != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (detected_pre != NULL)
    *detected_pre = NULL;
  t.dir = dir;
  t.config = config;
  spm = g_file_get_child (dir, "tokenizer.model");
  if (is_regular_file (spm))
    {
      if (!add_sentencepiece (&t, spm, tokenizer_pre, md, error))
        return FALSE;
      if (detected_pre != NULL)
        *detected_pre = TS_HF_TOKENIZER_PRE_DEFAULT;
      return TRUE;
    }
  if (!load_files (&t, error) || !check_byte_level_bpe (&t, error) ||
      !choose_pre (&t, tokenizer_pre, &pre, &pre_origin, &detected, error) ||
      !load_added_tokens (&t, error) || !build_tokens (&t, tokens, types, error) ||
      !load_merges (&t, error) || !read_normalizer (&t, error) ||
      !read_special_vocab (&t, default_special_types, error))
    return FALSE;

  write_vocab (&t, pre, pre_origin, tokens, types, md);
  write_special_tokens (&t, md);
  write_chat_template (&t, md);
  write_normalizer (&t, md);
  if (t.granite_add_bos)
    ts_gguf_metadata_add_bool (md, "tokenizer.ggml.add_bos_token", FALSE, "converter: vocab_size 49152");
  if (detected_pre != NULL)
    *detected_pre = detected;
  return TRUE;
}

/**
 * ts_hf_tokenizer_add_metadata:
 *
 * ts_hf_tokenizer_add_metadata_full() without the detected name.
 *
 * Returns: %TRUE on success
 */
gboolean
ts_hf_tokenizer_add_metadata (GFile            *dir,
                              const TsHfConfig *config,
                              const char       *tokenizer_pre,
                              TsGgufMetadata   *md,
                              GError          **error)
{
  return ts_hf_tokenizer_add_metadata_full (dir, config, tokenizer_pre, md, NULL, error);
}
