/* test-tokenizer.c: tokenizer.* keys (llama.cpp's _set_vocab_gpt2 + SpecialVocab)
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include "ts-hf-tokenizer.h"
#include "ts-metadata-entry.h"
#include "ts-spm-model-private.h"
#include "ts-test-dir.h"

#define LLAMA3_PRE \
  "{\"type\": \"Sequence\", \"pretokenizers\": [" \
  "{\"type\": \"Split\", \"pattern\": {\"Regex\": " \
  "\"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\\\r\\\\n\\\\p{L}\\\\p{N}]?\\\\p{L}+|\\\\p{N}{1,3}" \
  "| ?[^\\\\s\\\\p{L}\\\\p{N}]+[\\\\r\\\\n]*|\\\\s*[\\\\r\\\\n]+|\\\\s+(?!\\\\S)|\\\\s+\"}, " \
  "\"behavior\": \"Isolated\", \"invert\": false}, " \
  "{\"type\": \"ByteLevel\", \"add_prefix_space\": false, \"trim_offsets\": true, \"use_regex\": false}]}"

#define POST_PROCESSOR \
  "{\"type\": \"Sequence\", \"processors\": [" \
  "{\"type\": \"ByteLevel\", \"add_prefix_space\": true, \"trim_offsets\": false, \"use_regex\": true}, " \
  "{\"type\": \"TemplateProcessing\", " \
  "\"single\": [{\"SpecialToken\": {\"id\": \"<|begin_of_text|>\", \"type_id\": 0}}, " \
  "{\"Sequence\": {\"id\": \"A\", \"type_id\": 0}}], " \
  "\"pair\": [{\"SpecialToken\": {\"id\": \"<|begin_of_text|>\", \"type_id\": 0}}, " \
  "{\"Sequence\": {\"id\": \"A\", \"type_id\": 0}}, " \
  "{\"SpecialToken\": {\"id\": \"<|begin_of_text|>\", \"type_id\": 1}}, " \
  "{\"Sequence\": {\"id\": \"B\", \"type_id\": 1}}], \"special_tokens\": {}}]}"

/* ids 0-4 in the vocab, 5-8 added, 9 missing (vocab_size 10) */
#define VOCAB "{\"a\": 0, \"b\": 1, \"\\u0120\": 2, \"ab\": 3, \"\\u0120a\": 4}"
#define ADDED \
  "[{\"id\": 5, \"content\": \"<|begin_of_text|>\", \"special\": true}, " \
  "{\"id\": 6, \"content\": \"<|eot_id|>\", \"special\": true}, " \
  "{\"id\": 7, \"content\": \"<|custom|>\", \"special\": false}, " \
  "{\"id\": 8, \"content\": \"my\\u2581word\", \"special\": false}]"

typedef struct
{
  char  *root;
  GFile *dir;
} Fixture;

static void
fixture_set_up (Fixture       *fixture,
                gconstpointer  user_data)
{
  g_autoptr(GError) error = NULL;

  fixture->root = g_dir_make_tmp (NULL, &error);
  g_assert_no_error (error);
  fixture->dir = g_file_new_for_path (fixture->root);
}

static void
fixture_tear_down (Fixture       *fixture,
                   gconstpointer  user_data)
{
  ts_test_remove_tree (fixture->root);
  g_clear_object (&fixture->dir);
  g_free (fixture->root);
}

static void
write_file (Fixture    *fixture,
            const char *name,
            const char *contents)
{
  g_autofree char *path = g_build_filename (fixture->root, name, NULL);
  g_autoptr(GError) error = NULL;

  g_file_set_contents (path, contents, -1, &error);
  g_assert_no_error (error);
}

static void
write_tokenizer (Fixture    *fixture,
                 const char *merges,
                 const char *pre_tokenizer)
{
  g_autofree char *json = g_strdup_printf (
    "{\"version\": \"1.0\", \"added_tokens\": " ADDED ", \"normalizer\": null, "
    "\"pre_tokenizer\": %s, \"post_processor\": " POST_PROCESSOR ", "
    "\"decoder\": {\"type\": \"ByteLevel\"}, "
    "\"model\": {\"type\": \"BPE\", \"ignore_merges\": true, \"byte_fallback\": false, "
    "\"vocab\": " VOCAB ", \"merges\": %s}}", pre_tokenizer, merges);

  write_file (fixture, "tokenizer.json", json);
}

static void
write_configs (Fixture    *fixture,
               const char *tokenizer_config_extra)
{
  g_autofree char *tcfg = g_strdup_printf (
    "{%s\"bos_token\": \"<|begin_of_text|>\", "
    "\"eos_token\": {\"content\": \"<|eot_id|>\", \"__type\": \"AddedToken\"}, "
    "\"chat_template\": \"{{ bos_token }}{{ messages }}\", \"model_max_length\": 131072}",
    tokenizer_config_extra);

  write_file (fixture, "tokenizer_config.json", tcfg);
  write_file (fixture, "config.json",
              "{\"vocab_size\": 10, \"bos_token_id\": 1, \"eos_token_id\": [6, 7], "
              "\"pad_token_id\": 9, \"unk_token_id\": null}");
}

/* "key=value" lines; arrays as [a,b] */
static char *
dump (TsGgufMetadata *md)
{
  g_autoptr(GListModel) entries = ts_gguf_metadata_list_entries (md);
  g_autoptr(GString) s = g_string_new (NULL);

  for (guint i = 0; i < g_list_model_get_n_items (entries); i++)
    {
      g_autoptr(TsMetadataEntry) e = g_list_model_get_item (entries, i);
      TsValueType type = ts_metadata_entry_get_value_type (e);
      gsize length = 0;
      const char *text = ts_metadata_entry_get_string (e, &length);

      g_string_append_printf (s, "%s=", ts_metadata_entry_get_key (e));
      if (type == TS_VALUE_STRING)
        g_string_append_len (s, text, length);
      else if (type == TS_VALUE_BOOL)
        g_string_append (s, ts_metadata_entry_get_boolean (e) ? "true" : "false");
      else if (type != TS_VALUE_ARRAY)
        g_string_append_printf (s, "%s:%" G_GINT64_FORMAT, ts_value_type_to_nick (type),
                                ts_metadata_entry_get_int64 (e));
      else
        for (guint64 j = 0; j < ts_metadata_entry_get_array_length (e); j++)
          {
            g_autoptr(TsMetadataEntry) item = ts_metadata_entry_get_item (e, j);

            if (ts_metadata_entry_get_array_type (e) == TS_VALUE_STRING)
              {
                text = ts_metadata_entry_get_string (item, &length);
                g_string_append_printf (s, "%s%.*s", j ? "," : "[", (int) length, text);
              }
            else if (ts_metadata_entry_get_array_type (e) == TS_VALUE_FLOAT32)
              g_string_append_printf (s, "%s%g", j ? "," : "[", ts_metadata_entry_get_double (item));
            else
              g_string_append_printf (s, "%s%" G_GINT64_FORMAT, j ? "," : "[", ts_metadata_entry_get_int64 (item));
            if (j + 1 == ts_metadata_entry_get_array_length (e))
              g_string_append_c (s, ']');
          }
      g_string_append_c (s, '\n');
    }
  return g_string_free (g_steal_pointer (&s), FALSE);
}

static char *
convert (Fixture     *fixture,
         const char  *pre,
         GError     **error)
{
  TsHfConfig config = { 0 };
  g_autoptr(TsGgufMetadata) md = ts_gguf_metadata_new ();

  config.vocab_size = 10;
  if (!ts_hf_tokenizer_add_metadata (fixture->dir, &config, pre, md, error))
    {
      g_assert_cmpuint (ts_gguf_metadata_get_n_entries (md), ==, 0);
      return NULL;
    }
  return dump (md);
}

static const char expected_tokens[] =
  "tokenizer.ggml.model=gpt2\n"
  "tokenizer.ggml.pre=llama-bpe\n"
  /* added tokens keep their text, except that "▁" in a user-defined one
   * becomes a space; id 9 is not defined anywhere */
  "tokenizer.ggml.tokens=[a,b,\xc4\xa0,ab,\xc4\xa0" "a,<|begin_of_text|>,<|eot_id|>,<|custom|>,my word,[PAD9]]\n"
  /* 1 normal; 3 control: special, or non-special but shaped <|...|>;
   * 4 user-defined; 5 unused */
  "tokenizer.ggml.token_type=[1,1,1,1,1,3,3,3,4,5]\n";

/* what SpecialVocab adds after the merges: ids found through
 * tokenizer_config.json first (bos, eos in type order), then config.json
 * for types still missing (pad; its bos is ignored, its eos is a list);
 * add_bos from the post-processor's leading special token, add_sep false
 * from its pair template; the chat template verbatim */
static const char expected_specials[] =
  "tokenizer.ggml.bos_token_id=uint32:5\n"
  "tokenizer.ggml.eos_token_id=uint32:6\n"
  "tokenizer.ggml.padding_token_id=uint32:9\n"
  "tokenizer.ggml.add_bos_token=true\n"
  "tokenizer.ggml.add_sep_token=false\n"
  "tokenizer.chat_template={{ bos_token }}{{ messages }}\n";

static void
test_string_merges (Fixture       *fixture,
                    gconstpointer  user_data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *md = NULL;
  g_autofree char *expected = NULL;

  write_tokenizer (fixture, "[\"a b\", \"\\u0120 a\"]", LLAMA3_PRE);
  write_configs (fixture, "");
  md = convert (fixture, NULL, &error);
  g_assert_no_error (error);
  expected = g_strconcat (expected_tokens, "tokenizer.ggml.merges=[a b,\xc4\xa0 a]\n", expected_specials, NULL);
  g_assert_cmpstr (md, ==, expected);
}

static void
test_pair_merges (Fixture       *fixture,
                  gconstpointer  user_data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *md = NULL;
  g_autofree char *expected = NULL;

  /* transformers ≥ 4.45 pairs; a space inside a part is byte-level encoded */
  write_tokenizer (fixture, "[[\"a\", \"b\"], [\"a b\", \"c d\"]]", LLAMA3_PRE);
  /* add_prefix_space comes first of all; an explicit add_bos_token
   * overrides the post-processor's value in place */
  write_configs (fixture, "\"add_prefix_space\": false, \"add_bos_token\": false, ");
  md = convert (fixture, NULL, &error);
  g_assert_no_error (error);
  expected = g_strconcat ("tokenizer.ggml.add_space_prefix=false\n", expected_tokens,
                          "tokenizer.ggml.merges=[a b,a\xc4\xa0" "b c\xc4\xa0" "d]\n", NULL);
  g_assert_true (g_str_has_prefix (md, expected));
  g_assert_nonnull (strstr (md, "tokenizer.ggml.add_bos_token=false\ntokenizer.ggml.add_sep_token=false\n"));
}

static void
test_unknown_pre_tokenizer (Fixture       *fixture,
                            gconstpointer  user_data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *md = NULL;
  g_autofree char *overridden = NULL;

  /* GPT-2's own pre-tokenizer: ByteLevel with its regex */
  write_tokenizer (fixture, "[\"a b\"]",
                   "{\"type\": \"ByteLevel\", \"add_prefix_space\": false, \"use_regex\": true}");
  write_configs (fixture, "");
  md = convert (fixture, NULL, &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED);
  g_assert_null (md);
  g_assert_nonnull (strstr (error->message, "--tokenizer-pre"));
  g_clear_error (&error);

  overridden = convert (fixture, "gpt-2", &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (overridden, "tokenizer.ggml.pre=gpt-2\n"));
}

/* hostile inputs: each a GError naming the file and the field */
static void
test_wrong_types (Fixture       *fixture,
                  gconstpointer  user_data)
{
  static const struct
  {
    const char *file;
    const char *contents;
    const char *words[2];
  } cases[] = {
    { "tokenizer.json", "{\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": \"0\"}}}",
      { "tokenizer.json", "model.vocab" } },
    { "tokenizer.json", "{\"model\": {\"type\": \"BPE\", \"vocab\": {}}, \"added_tokens\": {}}",
      { "tokenizer.json", "added_tokens" } },
    { "tokenizer.json", "{\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0}, \"merges\": [[1, 2]]}}",
      { "tokenizer.json", "model.merges" } },
    { "tokenizer.json", "{\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 10}}}",
      { "tokenizer.json", "vocab_size" } },
    { "tokenizer.json", "{\"model\": \"BPE\"}", { "tokenizer.json", "model" } },
    { "tokenizer.json", "[1, 2]", { "tokenizer.json", "top level" } },
    { "tokenizer.json", "{\"model\": ", { "tokenizer.json", "" } },
    { "tokenizer_config.json", "{\"chat_template\": [{\"name\": 3, \"template\": \"x\"}]}",
      { "tokenizer_config.json", "chat_template" } },
    { "config.json", "{\"pad_token_id\": -1}", { "config.json", "pad_token_id" } },
    /* json-glib would cut the token at U+0000, or write bytes that are not UTF-8 */
    { "tokenizer.json", "{\"model\": {\"type\": \"BPE\", \"vocab\": {\"<pad\\u0000>\": 0}}}",
      { "tokenizer.json: byte 41", "\\u0000" } },
    { "tokenizer_config.json", "{\"bos_token\": \"<\\ud800>\"}",
      { "tokenizer_config.json: byte 16", "unpaired surrogate" } },
    { "config.json", "{\"model_type\": \"llama\\udc00\"}", { "config.json: byte 21", "surrogate" } },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *md = NULL;

      g_test_message ("%s: %s", cases[i].file, cases[i].contents);
      write_tokenizer (fixture, "[\"a b\"]", LLAMA3_PRE);
      write_configs (fixture, "");
      write_file (fixture, cases[i].file, cases[i].contents);
      md = convert (fixture, "llama-bpe", &error);
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
      g_assert_nonnull (strstr (error->message, cases[i].words[0]));
      g_assert_nonnull (strstr (error->message, cases[i].words[1]));
    }
}

static void
test_template_list (Fixture       *fixture,
                    gconstpointer  user_data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *md = NULL;

  write_tokenizer (fixture, "[\"a b\"]", LLAMA3_PRE);
  write_file (fixture, "config.json", "{\"vocab_size\": 10}");
  /* named templates get their own keys and a list; names are sanitised;
   * "default" is tokenizer.chat_template */
  write_file (fixture, "tokenizer_config.json",
              "{\"eos_token\": \"<|eot_id|>\", \"chat_template\": ["
              "{\"name\": \"tool use\", \"template\": \"T\"}, "
              "{\"name\": \"default\", \"template\": \"D\"}, "
              "{\"name\": \"rag\", \"template\": \"R\"}]}");
  md = convert (fixture, NULL, &error);
  g_assert_no_error (error);
  g_test_message ("%s", md);
  /* no bos_token in tokenizer_config.json: the template's leading token
   * becomes the BOS (and the CLS), so add_bos_token is true */
  g_assert_true (g_str_has_suffix (md,
                                   "tokenizer.ggml.bos_token_id=uint32:5\n"
                                   "tokenizer.ggml.eos_token_id=uint32:6\n"
                                   "tokenizer.ggml.add_bos_token=true\n"
                                   "tokenizer.ggml.add_sep_token=false\n"
                                   "tokenizer.chat_template.tool_use=T\n"
                                   "tokenizer.chat_template.rag=R\n"
                                   "tokenizer.chat_templates=[tool_use,rag]\n"
                                   "tokenizer.chat_template=D\n"));
}

/* get_vocab_base()'s reverse vocab: an added token's content moves to the
 * added token's id (leaving its vocab id unused, and an id beyond
 * vocab_size harmless), and of two texts with one id the later one in the
 * file stays, as tests/ref/ref_convert.py derives it */
static void
test_vocab_collisions (Fixture       *fixture,
                       gconstpointer  user_data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *md = NULL;

  write_file (fixture, "tokenizer.json",
              "{\"added_tokens\": ["
              "{\"id\": 5, \"content\": \"<|begin_of_text|>\", \"special\": true}, "
              "{\"id\": 6, \"content\": \"<|eot_id|>\", \"special\": true}, "
              "{\"id\": 7, \"content\": \"big\", \"special\": false}], "
              "\"pre_tokenizer\": " LLAMA3_PRE ", "
              "\"model\": {\"type\": \"BPE\", \"ignore_merges\": true, \"vocab\": {\"a\": 0, \"b\": 1, \"x\": 2, \"y\": 2, "
              "\"<|eot_id|>\": 3, \"big\": 12}, \"merges\": [\"a b\"]}}");
  write_configs (fixture, "");
  md = convert (fixture, NULL, &error);
  g_assert_no_error (error);
  g_test_message ("%s", md);
  g_assert_true (g_str_has_prefix (md,
                                   "tokenizer.ggml.model=gpt2\n"
                                   "tokenizer.ggml.pre=llama-bpe\n"
                                   "tokenizer.ggml.tokens=[a,b,y,[PAD3],[PAD4],<|begin_of_text|>,<|eot_id|>,"
                                   "big,[PAD8],[PAD9]]\n"
                                   "tokenizer.ggml.token_type=[1,1,1,5,5,3,3,4,5,5]\n"));
}

/* added tokens that share an id or a content, as tests/ref/ref_convert.py
 * derives get_vocab_base() (transformers keys added tokens by id); the
 * harness's vocab_size is 10. Each expected line is what ref_convert.py's
 * tokenizer_metadata() gives for the same files. */
static void
test_added_duplicates (Fixture       *fixture,
                       gconstpointer  user_data)
{
  static const struct
  {
    const char *vocab;
    const char *added;
    const char *expected;   /* tokens and types, or NULL for an error */
  } cases[] = {
    /* an added token's content leaves its vocab id for the added one */
    { "{\"a\": 0, \"b\": 1}", "[{\"id\": 1, \"content\": \"a\", \"special\": false}]",
      "tokenizer.ggml.tokens=[[PAD0],a,[PAD2],[PAD3],[PAD4],[PAD5],[PAD6],[PAD7],[PAD8],[PAD9]]\n"
      "tokenizer.ggml.token_type=[5,4,5,5,5,5,5,5,5,5]\n" },
    /* of two added tokens with one id the later one is added; the other
     * text stays where the vocab has it */
    { "{\"X\": 0, \"q\": 1}",
      "[{\"id\": 2, \"content\": \"X\", \"special\": false}, "
      "{\"id\": 2, \"content\": \"Y\", \"special\": false}]",
      "tokenizer.ggml.tokens=[X,q,Y,[PAD3],[PAD4],[PAD5],[PAD6],[PAD7],[PAD8],[PAD9]]\n"
      "tokenizer.ggml.token_type=[1,1,4,5,5,5,5,5,5,5]\n" },
    /* ... so its vocab id must be below vocab_size */
    { "{\"Y\": 12}",
      "[{\"id\": 3, \"content\": \"Y\", \"special\": false}, "
      "{\"id\": 3, \"content\": \"b\", \"special\": false}]", NULL },
    /* the added token for id 0 is the special "Y", whose content the
     * later "Y" at id 1 holds: a0 stays a normal token, and "Y" at 1 is
     * user-defined (its own flag) */
    { "{\"a0\": 0}",
      "[{\"id\": 0, \"content\": \"a\", \"special\": false}, "
      "{\"id\": 0, \"content\": \"Y\", \"special\": true}, "
      "{\"id\": 1, \"content\": \"Y\", \"special\": false}]",
      "tokenizer.ggml.tokens=[a0,Y,[PAD2],[PAD3],[PAD4],[PAD5],[PAD6],[PAD7],[PAD8],[PAD9]]\n"
      "tokenizer.ggml.token_type=[1,4,5,5,5,5,5,5,5,5]\n" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *md = NULL;
      g_autofree char *json = g_strdup_printf (
        "{\"added_tokens\": %s, \"pre_tokenizer\": " LLAMA3_PRE ", "
        "\"model\": {\"type\": \"BPE\", \"vocab\": %s, \"merges\": []}}",
        cases[i].added, cases[i].vocab);

      g_test_message ("vocab %s, added %s", cases[i].vocab, cases[i].added);
      write_file (fixture, "tokenizer.json", json);
      write_file (fixture, "tokenizer_config.json", "{}");
      write_file (fixture, "config.json", "{\"vocab_size\": 10}");
      md = convert (fixture, NULL, &error);
      if (cases[i].expected == NULL)
        {
          g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
          g_assert_nonnull (strstr (error->message, "vocab_size"));
          continue;
        }
      g_assert_no_error (error);
      g_test_message ("%s", md);
      g_assert_nonnull (strstr (md, cases[i].expected));
    }
}

static TsMetadataEntry *
find_entry (TsGgufMetadata *md,
            const char     *key)
{
  g_autoptr(GListModel) entries = ts_gguf_metadata_list_entries (md);

  for (guint i = 0; i < g_list_model_get_n_items (entries); i++)
    {
      g_autoptr(TsMetadataEntry) e = g_list_model_get_item (entries, i);

      if (g_str_equal (ts_metadata_entry_get_key (e), key))
        return g_steal_pointer (&e);
    }
  return NULL;
}

/* a vocab big enough that tokenizer.json's tree is freed on a thread of
 * its own: every token still right, and nothing read after the free (the
 * sanitizer build runs this too) */
static void
test_large_vocab (Fixture       *fixture,
                  gconstpointer  user_data)
{
  const guint n = 20000;
  g_autoptr(GString) json = g_string_new ("{\"added_tokens\": [{\"id\": 19999, \"content\": "
                                          "\"<|eot_id|>\", \"special\": true}], "
                                          "\"pre_tokenizer\": " LLAMA3_PRE ", "
                                          "\"model\": {\"type\": \"BPE\", \"merges\": [\"t 1\"], \"vocab\": {");
  g_autofree char *config = g_strdup_printf ("{\"vocab_size\": %u}", n + 1);
  g_autoptr(TsGgufMetadata) md = ts_gguf_metadata_new ();
  g_autoptr(TsMetadataEntry) tokens = NULL;
  g_autoptr(TsMetadataEntry) types = NULL;
  g_autoptr(GError) error = NULL;
  TsHfConfig hf = { 0 };

  for (guint i = 0; i < n - 1; i++)
    g_string_append_printf (json, "%s\"t%u\": %u", i ? ", " : "", i, i);
  g_string_append (json, "}}}");
  write_file (fixture, "tokenizer.json", json->str);
  write_file (fixture, "config.json", config);
  hf.vocab_size = n + 1;
  g_assert_true (ts_hf_tokenizer_add_metadata (fixture->dir, &hf, NULL, md, &error));
  g_assert_no_error (error);

  tokens = find_entry (md, "tokenizer.ggml.tokens");
  types = find_entry (md, "tokenizer.ggml.token_type");
  g_assert_nonnull (tokens);
  g_assert_nonnull (types);
  g_assert_cmpuint (ts_metadata_entry_get_array_length (tokens), ==, n + 1);
  for (guint i = 0; i < n + 1; i++)
    {
      g_autoptr(TsMetadataEntry) item = ts_metadata_entry_get_item (tokens, i);
      g_autoptr(TsMetadataEntry) type = ts_metadata_entry_get_item (types, i);
      g_autofree char *expected = i < n - 1 ? g_strdup_printf ("t%u", i)
                                : i == n - 1 ? g_strdup ("<|eot_id|>") : g_strdup_printf ("[PAD%u]", i);
      gsize length = 0;
      const char *text = ts_metadata_entry_get_string (item, &length);

      g_assert_cmpmem (text, length, expected, strlen (expected));
      g_assert_cmpint (ts_metadata_entry_get_int64 (type), ==, i < n - 1 ? 1 : i == n - 1 ? 3 : 5);
    }
}

/* ------------------------------------------------------------ SentencePiece */

/* a protobuf varint */
static void
put_varint (GByteArray *b,
            guint64     v)
{
  do
    {
      guint8 byte = (v & 0x7f) | (v > 0x7f ? 0x80 : 0);

      g_byte_array_append (b, &byte, 1);
      v >>= 7;
    }
  while (v != 0);
}

static void
put_bytes (GByteArray *b,
           const char *bytes,
           gsize       n)
{
  g_byte_array_append (b, (const guint8 *) bytes, n);
}

/* a ModelProto.SentencePiece (field 1 of the model); @type 0: none given;
 * @extra: raw fields appended inside it */
static void
put_piece (GByteArray *b,
           const char *text,
           float       score,
           guint       type,
           const char *extra,
           gsize       extra_len)
{
  g_autoptr(GByteArray) p = g_byte_array_new ();
  guint32 bits;

  put_bytes (p, "\x0a", 1);
  put_varint (p, strlen (text));
  put_bytes (p, text, strlen (text));
  memcpy (&bits, &score, 4);
  bits = GUINT32_TO_LE (bits);
  put_bytes (p, "\x15", 1);
  put_bytes (p, (const char *) &bits, 4);
  if (type != 0)
    {
      put_bytes (p, "\x18", 1);
      put_varint (p, type);
    }
  put_bytes (p, extra, extra_len);
  put_bytes (b, "\x0a", 1);
  put_varint (b, p->len);
  g_byte_array_append (b, p->data, p->len);
}

/* the 255 byte pieces other than <0x41> */
static void
put_byte_pieces (GByteArray *b)
{
  for (guint i = 0; i < 256; i++)
    {
      g_autofree char *piece = g_strdup_printf ("<0x%02X>", i);

      if (i != 0x41)
        put_piece (b, piece, 0.0f, TS_SPM_BYTE, NULL, 0);
    }
}

/* <unk> <s> </s>, then pieces of every type, fields the reader skips, a
 * type the schema lacks and a text given twice; byte fallback, with the
 * other 255 byte pieces at the end */
static GByteArray *
small_model (void)
{
  GByteArray *b = g_byte_array_new ();

  /* a trainer_spec first (field 2: model_type 2, byte_fallback 1), and
   * an unknown varint field 99 */
  put_bytes (b, "\x12\x05\x18\x02\x98\x02\x01", 7);
  put_bytes (b, "\x98\x06\x05", 3);
  put_piece (b, "<unk>", 0.0f, TS_SPM_UNKNOWN, NULL, 0);
  put_piece (b, "<s>", 0.0f, TS_SPM_CONTROL, NULL, 0);
  put_piece (b, "</s>", 0.0f, TS_SPM_CONTROL, NULL, 0);
  put_piece (b, "<0x41>", 0.0f, TS_SPM_BYTE, NULL, 0);
  /* a fixed64 and a fixed32 field inside a piece; no type: normal */
  put_piece (b, "\xe2\x96\x81the", -1.5f, 0, "\x39" "12345678" "\x45" "1234", 14);
  put_piece (b, "<tool>", 0.0f, TS_SPM_USER_DEFINED, NULL, 0);
  put_piece (b, "old", -3.0f, TS_SPM_UNUSED, NULL, 0);
  /* type 9: an enum value proto2 keeps among the unknown fields */
  put_piece (b, "x", -2.25f, 9, NULL, 0);
  /* the text given twice: the last one counts */
  put_piece (b, "first", -4.0f, 0, "\x0a\x02yz", 4);
  put_byte_pieces (b);
  /* a normalizer_spec (field 3) after the pieces */
  put_bytes (b, "\x1a\x02\x08\x01", 4);
  return b;
}

static void
test_spm_parse (void)
{
  g_autoptr(GByteArray) b = small_model ();
  g_autoptr(GError) error = NULL;
  g_autoptr(TsSpmModel) model = _ts_spm_model_parse (b->data, b->len, "tokenizer.model", &error);
  static const char *const pieces[] = {
    "<unk>", "<s>", "</s>", "<0x41>", "\xe2\x96\x81the", "<tool>", "old", "x", "yz"
  };
  static const gint32 types[] = { 2, 3, 3, 6, 1, 4, 5, 1, 1 };
  static const float scores[] = { 0, 0, 0, 0, -1.5f, 0, -3.0f, -2.25f, -4.0f };

  g_assert_no_error (error);
  g_assert_nonnull (model);
  g_assert_cmpuint (model->pieces->len, ==, G_N_ELEMENTS (pieces) + 255);
  for (guint i = 0; i < G_N_ELEMENTS (pieces); i++)
    {
      g_assert_cmpstr (g_ptr_array_index (model->pieces, i), ==, pieces[i]);
      g_assert_cmpint (g_array_index (model->types, gint32, i), ==, types[i]);
      g_assert_cmpfloat (g_array_index (model->scores, float, i), ==, scores[i]);
    }
}

static void
test_spm_hostile (void)
{
  g_autoptr(GByteArray) model = small_model ();
  g_autoptr(GByteArray) unk = g_byte_array_new ();
  g_autoptr(GByteArray) two_unk = g_byte_array_new ();
  g_autoptr(GByteArray) twice = g_byte_array_new ();
  g_autoptr(GByteArray) empty_piece = g_byte_array_new ();
  g_autoptr(GByteArray) not_utf8 = g_byte_array_new ();
  g_autoptr(GByteArray) no_unk = g_byte_array_new ();
  g_autoptr(GByteArray) normal_and_control = g_byte_array_new ();
  g_autoptr(GByteArray) no_fallback = g_byte_array_new ();
  g_autoptr(GByteArray) bad_byte = g_byte_array_new ();
  g_autoptr(GByteArray) missing_byte = g_byte_array_new ();
  struct
  {
    const guint8 *data;
    gsize         len;
    const char   *message;
  } cases[] = {
    { (const guint8 *) "", 0, "t.model: no pieces (not a SentencePiece model)" },
    { (const guint8 *) "not a model", 11,
      "t.model: byte 0: field 13 has wire type 6, which a SentencePiece model does not use" },
    { (const guint8 *) "\x0a\xff\xff", 3, "t.model: byte 1: a varint runs past the end of its message" },
    { (const guint8 *) "\x0a\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 12,
      "t.model: byte 1: a varint longer than 10 bytes" },
    { (const guint8 *) "\x0a\x10" "abc", 5,
      "t.model: byte 1: a length of 16 bytes runs past the end of its message (3 bytes left)" },
    { (const guint8 *) "\x0a\x80\x80\x80\x80\x80\x80\x80\x80\x80\x01", 11,
      "t.model: byte 1: a length of 9223372036854775808 bytes runs past the end of its message "
      "(0 bytes left)" },
    /* a length that fits the file but not its piece */
    { (const guint8 *) "\x0a\x03\x0a\x05" "a", 5,
      "t.model: byte 3: a length of 5 bytes runs past the end of its message (1 bytes left)" },
    { (const guint8 *) "\x0a\x03\x15" "ab", 5, "t.model: byte 3: a score runs past the end of its piece" },
    { (const guint8 *) "\x08\x01", 2, "t.model: byte 0: a piece (field 1) has wire type 0" },
    { (const guint8 *) "\x0a\x03\x10\x01\x00", 5, "t.model: byte 2: a piece's score (field 2) has wire type 0" },
    { (const guint8 *) "\x0a\x02\x1d\x00", 4, "t.model: byte 2: a piece's type (field 3) has wire type 5" },
    { (const guint8 *) "\x0a\x02\x0a\x00", 4, "t.model: byte 2: a piece without text" },
    { (const guint8 *) "\x0a\x04\x0a\x02" "a\0", 6, "t.model: byte 4: a piece holds a NUL byte" },
    { (const guint8 *) "\x00", 1, "t.model: byte 0: field number 0 is out of range" },
    { (const guint8 *) "\x1b", 1, "t.model: byte 0: field 3 has wire type 3" },
    { (const guint8 *) "\x21\x01\x02", 3, "t.model: byte 1: a fixed-size value runs past the end" },
    { (const guint8 *) "\x12\x01", 2, "t.model: byte 1: a length of 1 bytes runs past the end" },
    { (const guint8 *) "\x15" "abcd", 5, "t.model: byte 0: the trainer spec (field 2) has wire type 5" },
    { (const guint8 *) "\x12\x02\x98\x02", 4,
      "t.model: byte 4: a varint runs past the end of its message" },
    { (const guint8 *) "\x12\x03\x9d\x02\x01", 5,
      "t.model: byte 2: the trainer spec's byte_fallback (field 35) has wire type 5" },
    { NULL, 0, "t.model: piece 1 \"<0x41>\" is a byte piece, but the trainer spec does not have "
               "byte_fallback" },
    { NULL, 0, "t.model: piece 1 \"<0x4a>\" is a byte piece not of the form <0xXX>" },
    { NULL, 0, "t.model: byte_fallback without a byte piece <0x41> (sentencepiece requires all 256)" },
    { NULL, 0, "t.model: pieces 0 and 1 are both the unknown piece" },
    { NULL, 0, "t.model: piece 2 \"a\" is defined twice" },
    { NULL, 0, "t.model: byte 18: a piece without text" },
    { NULL, 0, "t.model: byte 20: a piece is not valid UTF-8" },
    { NULL, 0, "t.model: no piece is the unknown piece (sentencepiece requires one)" },
    { NULL, 0, "t.model: byte " },   /* the small model cut short */
  };
  guint n = G_N_ELEMENTS (cases);

  put_piece (unk, "<unk>", 0.0f, TS_SPM_UNKNOWN, NULL, 0);
  g_byte_array_append (two_unk, unk->data, unk->len);
  put_piece (two_unk, "<unk2>", 0.0f, TS_SPM_UNKNOWN, NULL, 0);
  g_byte_array_append (twice, unk->data, unk->len);
  put_piece (twice, "a", 0.0f, TS_SPM_NORMAL, NULL, 0);
  put_piece (twice, "a", 0.0f, TS_SPM_USER_DEFINED, NULL, 0);
  g_byte_array_append (empty_piece, unk->data, unk->len);
  put_piece (empty_piece, "", 0.0f, 0, NULL, 0);
  g_byte_array_append (not_utf8, unk->data, unk->len);
  put_piece (not_utf8, "\xff\xfe", 0.0f, 0, NULL, 0);
  put_piece (no_unk, "a", 0.0f, 0, NULL, 0);
  g_byte_array_append (no_fallback, unk->data, unk->len);
  put_piece (no_fallback, "<0x41>", 0.0f, TS_SPM_BYTE, NULL, 0);
  put_bytes (bad_byte, "\x12\x03\x98\x02\x01", 5);
  g_byte_array_append (bad_byte, unk->data, unk->len);
  put_piece (bad_byte, "<0x4a>", 0.0f, TS_SPM_BYTE, NULL, 0);
  g_byte_array_append (missing_byte, unk->data, unk->len);
  put_byte_pieces (missing_byte);
  put_bytes (missing_byte, "\x12\x03\x98\x02\x01", 5);
  cases[n - 9].data = no_fallback->data, cases[n - 9].len = no_fallback->len;
  cases[n - 8].data = bad_byte->data, cases[n - 8].len = bad_byte->len;
  cases[n - 7].data = missing_byte->data, cases[n - 7].len = missing_byte->len;
  cases[n - 6].data = two_unk->data, cases[n - 6].len = two_unk->len;
  cases[n - 5].data = twice->data, cases[n - 5].len = twice->len;
  cases[n - 4].data = empty_piece->data, cases[n - 4].len = empty_piece->len;
  cases[n - 3].data = not_utf8->data, cases[n - 3].len = not_utf8->len;
  cases[n - 2].data = no_unk->data, cases[n - 2].len = no_unk->len;
  cases[n - 1].data = model->data, cases[n - 1].len = model->len - 3;

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(TsSpmModel) m = _ts_spm_model_parse (cases[i].data, cases[i].len, "t.model", &error);

      g_test_message ("case %u: %s", i, cases[i].message);
      g_assert_null (m);
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
      if (!g_str_has_prefix (error->message, cases[i].message))
        g_assert_cmpstr (error->message, ==, cases[i].message);
    }

  /* a normal piece and a control piece may share a text (two tables) */
  g_byte_array_append (normal_and_control, unk->data, unk->len);
  put_piece (normal_and_control, "a", 0.0f, TS_SPM_NORMAL, NULL, 0);
  put_piece (normal_and_control, "a", 0.0f, TS_SPM_CONTROL, NULL, 0);
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(TsSpmModel) m = _ts_spm_model_parse (normal_and_control->data, normal_and_control->len,
                                                   "t.model", &error);

    g_assert_no_error (error);
    g_assert_cmpuint (m->pieces->len, ==, 3);
  }
}

/* more pieces than any real model: refused at the first one too many */
static void
test_spm_too_many (void)
{
  g_autoptr(GByteArray) b = g_byte_array_sized_new ((TS_SPM_MAX_PIECES + 1) * 5);
  g_autoptr(GError) error = NULL;
  g_autoptr(TsSpmModel) m = NULL;
  g_autofree char *message = NULL;

  for (guint i = 0; i <= TS_SPM_MAX_PIECES; i++)
    put_bytes (b, "\x0a\x03\x0a\x01" "a", 5);
  m = _ts_spm_model_parse (b->data, b->len, "t.model", &error);
  g_assert_null (m);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  message = g_strdup_printf ("t.model: byte %u: more than %d pieces, more than any real model has",
                             TS_SPM_MAX_PIECES * 5, TS_SPM_MAX_PIECES);
  g_assert_cmpstr (error->message, ==, message);
}

static void
write_spm (Fixture *fixture)
{
  g_autoptr(GByteArray) b = small_model ();
  g_autofree char *path = g_build_filename (fixture->root, "tokenizer.model", NULL);
  g_autoptr(GError) error = NULL;

  g_file_set_contents (path, (const char *) b->data, b->len, &error);
  g_assert_no_error (error);
}

static char *
convert_spm (Fixture     *fixture,
             guint        vocab_size,
             GError     **error)
{
  TsHfConfig config = { 0 };
  g_autoptr(TsGgufMetadata) md = ts_gguf_metadata_new ();

  config.vocab_size = vocab_size;
  if (!ts_hf_tokenizer_add_metadata (fixture->dir, &config, NULL, md, error))
    {
      g_assert_cmpuint (ts_gguf_metadata_get_n_entries (md), ==, 0);
      return NULL;
    }
  return dump (md);
}

/* _create_vocab_sentencepiece() and a SpecialVocab told the vocabulary
 * size: [PAD<id>] up to vocab_size, added_tokens.json and
 * added_tokens_decoder entries (past vocab_size skipped), ids past it
 * skipped, tokenizer.json (BPE here, not read but for SpecialVocab) */
static void
test_spm_vocab (Fixture       *fixture,
                gconstpointer  user_data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *md = NULL;
  g_autofree char *tokenizer_json = g_build_filename (fixture->root, "tokenizer.json", NULL);
  g_autofree char *config_json = g_build_filename (fixture->root, "config.json", NULL);

  write_spm (fixture);
  write_tokenizer (fixture, "[]", "null");
  write_file (fixture, "added_tokens.json", "{\"<pad>\": 10, \"<far>\": 99}");
  write_file (fixture, "tokenizer_config.json",
              "{\"add_prefix_space\": false, \"add_bos_token\": true, \"bos_token\": \"<|begin_of_text|>\", "
              "\"added_tokens_decoder\": {"
              "\"5\": {\"content\": \"my\u2581tool\", \"special\": false}, "
              "\"6\": {\"content\": \"<|im_end|>\", \"special\": false}, "
              "\"11\": {\"content\": \"[INST]\", \"special\": true}, "
              "\"50\": {\"content\": \"[FAR]\", \"special\": true}}}");
  write_file (fixture, "config.json", "{\"vocab_size\": 12, \"eos_token_id\": 2, \"pad_token_id\": 12}");
  md = convert_spm (fixture, 12, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (md, ==,
                   "tokenizer.ggml.add_space_prefix=false\n"
                   "tokenizer.ggml.model=llama\n"
                   "tokenizer.ggml.pre=default\n"
                   "tokenizer.ggml.tokens=[<unk>,<s>,</s>,<0x41>,\xe2\x96\x81the,my tool,<|im_end|>,x,yz,"
                   "<0x00>,<pad>,[INST]]\n"
                   "tokenizer.ggml.scores=[0,0,0,0,-1.5,-1000,-1000,-2.25,-4,0,-1000,-1000]\n"
                   /* user-defined and type-9 pieces are normal; decoder
                    * entries control (special, or shaped <|...|>) or
                    * user-defined; added_tokens.json user-defined */
                   "tokenizer.ggml.token_type=[2,3,3,6,1,4,3,1,1,6,4,3]\n"
                   /* bos from tokenizer.json's added tokens; eos from
                    * config.json; its pad 12 is past the vocabulary */
                   "tokenizer.ggml.bos_token_id=uint32:5\n"
                   "tokenizer.ggml.eos_token_id=uint32:2\n"
                   "tokenizer.ggml.add_bos_token=true\n"
                   "tokenizer.ggml.add_sep_token=false\n");

  /* without tokenizer.json nor config.json: nothing but the vocabulary
   * and tokenizer_config.json's flags; past the 264 pieces, [PAD<id>] */
  g_clear_pointer (&md, g_free);
  g_assert_no_errno (g_remove (tokenizer_json));
  g_assert_no_errno (g_remove (config_json));
  md = convert_spm (fixture, 266, &error);
  g_assert_no_error (error);
  g_assert_true (strstr (md, "tokenizer.ggml.tokens=[<unk>,<s>,</s>,<0x41>,\xe2\x96\x81the,my tool,"
                         "<|im_end|>,x,yz,<0x00>,<pad>,[INST],<0x03>,") != NULL);
  g_assert_true (strstr (md, ",<0xFF>,[PAD264],[PAD265]]\ntokenizer.ggml.scores=[") != NULL);
  g_assert_true (strstr (md, ",0,-10000,-10000]\ntokenizer.ggml.token_type=[2,3,3,6,1,4,3,1,1,6,4,3,6,") != NULL);
  g_assert_true (g_str_has_suffix (md, ",6,5,5]\ntokenizer.ggml.add_bos_token=true\n"));

  /* a corrupt model: an error naming it, nothing written */
  g_clear_pointer (&md, g_free);
  write_file (fixture, "tokenizer.model", "\x0a\x05");
  md = convert_spm (fixture, 9, &error);
  g_assert_null (md);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_assert_cmpstr (error->message, ==,
                   "tokenizer.model: byte 1: a length of 5 bytes runs past the end of its message "
                   "(0 bytes left)");
  g_clear_error (&error);

  /* a negative added_tokens.json id */
  write_spm (fixture);
  write_file (fixture, "added_tokens.json", "{\"<pad>\": -1}");
  md = convert_spm (fixture, 9, &error);
  g_assert_null (md);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_assert_cmpstr (error->message, ==, "added_tokens.json: token id -1 of \"<pad>\" is negative");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add ("/tokenizer/string-merges", Fixture, NULL, fixture_set_up, test_string_merges,
              fixture_tear_down);
  g_test_add ("/tokenizer/pair-merges", Fixture, NULL, fixture_set_up, test_pair_merges, fixture_tear_down);
  g_test_add ("/tokenizer/unknown-pre-tokenizer", Fixture, NULL, fixture_set_up,
              test_unknown_pre_tokenizer, fixture_tear_down);
  g_test_add ("/tokenizer/wrong-types", Fixture, NULL, fixture_set_up, test_wrong_types, fixture_tear_down);
  g_test_add ("/tokenizer/vocab-collisions", Fixture, NULL, fixture_set_up, test_vocab_collisions,
              fixture_tear_down);
  g_test_add ("/tokenizer/large-vocab", Fixture, NULL, fixture_set_up, test_large_vocab,
              fixture_tear_down);
  g_test_add ("/tokenizer/added-duplicates", Fixture, NULL, fixture_set_up, test_added_duplicates,
              fixture_tear_down);
  g_test_add ("/tokenizer/template-list", Fixture, NULL, fixture_set_up, test_template_list,
              fixture_tear_down);
  g_test_add_func ("/tokenizer/spm/parse", test_spm_parse);
  g_test_add_func ("/tokenizer/spm/hostile", test_spm_hostile);
  g_test_add_func ("/tokenizer/spm/too-many", test_spm_too_many);
  g_test_add ("/tokenizer/spm/vocab", Fixture, NULL, fixture_set_up, test_spm_vocab, fixture_tear_down);
  return g_test_run ();
}
