/* test-naming.c: general.* naming keys (gguf-py's metadata.py rules)
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Expected values were derived by reading gguf-py's gguf/metadata.py
 * (get_model_id_components, id_to_title, apply_metadata_heuristic) and
 * gguf/utility.py (model_weight_count_rounded_notation, naming_convention).
 */

#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include "ts-hf-naming.h"
#include "ts-metadata-entry.h"
#include "ts-test-dir.h"

/* ------------------------------------------------------------ model ids */

typedef struct
{
  const char *id;
  guint64     total;
  const char *full_name, *organization, *basename, *finetune, *version, *size_label;
} IdCase;

static const IdCase id_cases[] = {
  /* SPEC §7's example: leading word + version form the basename */
  { "Llama-3.2-3B-Instruct", 3212749824, "Llama-3.2-3B-Instruct", NULL, "Llama-3.2", "Instruct", NULL, "3B" },
  /* without a parameter count the size is never questioned */
  { "Llama-3.2-3B-Instruct", 0, "Llama-3.2-3B-Instruct", NULL, "Llama-3.2", "Instruct", NULL, "3B" },
  /* |3e9 - 3.3e6| > 7/8 * 3.3e6: "3B" is taken for a context length, so it
   * becomes a lower-cased finetune and the size label is left unset */
  { "Llama-3.2-3B-Instruct", 3300000, "Llama-3.2-3B-Instruct", NULL, "Llama-3.2", "3b-Instruct", NULL, NULL },
  /* one untyped word: "too ambiguous", basename dropped */
  { "tiny", 0, "tiny", NULL, NULL, NULL, NULL, NULL },
  { "my-model-7b", 0, "my-model-7b", NULL, "my-model", NULL, NULL, "7B" },
  { "my-model-7b", 1000000, "my-model-7b", NULL, "my-model", "7b", NULL, NULL },
  /* empty parts (double dash) are removed first */
  { "my-model--7b", 0, "my-model--7b", NULL, "my-model", NULL, NULL, "7B" },
  /* org/name; "hf" is untyped after the size, so a finetune */
  { "meta-llama/Llama-2-7b-hf", 6738415616, "Llama-2-7b-hf", "meta-llama", "Llama-2", "hf", NULL, "7B" },
  /* "8x7B": float("8x7") fails, the label stays; a version after the size
   * is not part of the basename */
  { "Mixtral-8x7B-v0.1", 46702792704, "Mixtral-8x7B-v0.1", NULL, "Mixtral", NULL, "v0.1", "8x7B" },
  /* bloom's "7b1" notation normalises to "7.1B" */
  { "bloom-7b1", 0, "bloom-7b1", NULL, "bloom", NULL, NULL, "7.1B" },
  /* a quant type part is recognised (and upper-cased) but written nowhere */
  { "Qwen2.5-Coder-7B-Instruct-Q4_K_M", 7615616512, "Qwen2.5-Coder-7B-Instruct-Q4_K_M", NULL,
    "Qwen2.5-Coder", "Instruct", NULL, "7B" },
  /* MoE total + active: "26B" is followed by an "A4B" that matches, and
   * "A4B" itself cannot be parsed as a number, so both stay size labels */
  { "Qwen-26B-A4B-Chat", 26000000000, "Qwen-26B-A4B-Chat", NULL, "Qwen", "Chat", NULL, "26B-A4B" },
  { "Qwen-26B-A4B-Chat", 4000000000, "Qwen-26B-A4B-Chat", NULL, "Qwen", "Chat", NULL, "26B-A4B" },
  /* "262K" is far from 8e9: a context length, lower-cased into the finetune */
  { "Llama-3-8B-262K", 8030261248, "Llama-3-8B-262K", NULL, "Llama-3", "262k", NULL, "8B" },
  { "gemma-2-9b-it", 9241705984, "gemma-2-9b-it", NULL, "gemma-2", "it", NULL, "9B" },
  /* with a count, "4k" is a context length and the word label "mini" is the
   * only size label left, so it stays */
  { "Phi-3-mini-4k-instruct", 3821079552, "Phi-3-mini-4k-instruct", NULL, "Phi-3", "4k-instruct", NULL, "mini" },
  /* without one, "4K" is numeric, "mini" loses its size label and, still at
   * the start, joins the basename */
  { "Phi-3-mini-4k-instruct", 0, "Phi-3-mini-4k-instruct", NULL, "Phi-3-mini", "instruct", NULL, "4K" },
  { "Mistral-7B-Instruct-v0.2", 7241732096, "Mistral-7B-Instruct-v0.2", NULL, "Mistral", "Instruct", "v0.2", "7B" },
  /* "V2" is a version inside the basename; nothing else: ambiguous */
  { "deepseek-ai/DeepSeek-V2-Lite", 15706484224, "DeepSeek-V2-Lite", "deepseek-ai", NULL, NULL, NULL, NULL },
  /* an organization starting with "." is a relative path */
  { "./models/llama", 0, "models/llama", NULL, NULL, NULL, NULL, NULL },
  /* a space: a sentence, the whole id is the name */
  { "Some Model Name", 0, "Some Model Name", NULL, NULL, NULL, NULL, NULL },
  { "TinyLlama-1.1B-Chat-v1.0", 1100048384, "TinyLlama-1.1B-Chat-v1.0", NULL, "TinyLlama", "Chat", "v1.0", "1.1B" },
  { "model-Q8_0", 0, "model-Q8_0", NULL, NULL, NULL, NULL, NULL },
  { "Llama-3.2-3B-Instruct-BF16", 0, "Llama-3.2-3B-Instruct-BF16", NULL, "Llama-3.2", "Instruct", NULL, "3B" },
  /* versions at the start all join the basename */
  { "OLMo-2-1124-7B", 7298011136, "OLMo-2-1124-7B", NULL, "OLMo-2-1124", NULL, NULL, "7B" },
  { "llama-7b-v2", 0, "llama-7b-v2", NULL, "llama", NULL, "v2", "7B" },
  /* a size word is only a size label after the first part */
  { "xl-model", 0, "xl-model", NULL, NULL, NULL, NULL, NULL },
  { "gpt2-xl", 1557611200, "gpt2-xl", NULL, "gpt2", NULL, NULL, "xl" },
  /* gguf-py raises IndexError on the one-digit part after "7B" when it has
   * a count; without one it is a version */
  { "Foo-7B-1", 0, "Foo-7B-1", NULL, "Foo", NULL, "1", "7B" },
  { "A-8x22B", 0, "A-8x22B", NULL, "A", NULL, NULL, "8x22B" },
  { "Meta-Llama-3-70B-Instruct", 70553706496, "Meta-Llama-3-70B-Instruct", NULL, "Meta-Llama-3", "Instruct", NULL, "70B" },
};

static void
test_model_id (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (id_cases); i++)
    {
      const IdCase *c = &id_cases[i];
      TsHfModelId id;

      g_test_message ("%s (%" G_GUINT64_FORMAT ")", c->id, c->total);
      ts_hf_model_id_parse (c->id, c->total, &id);
      g_assert_cmpstr (id.full_name, ==, c->full_name);
      g_assert_cmpstr (id.organization, ==, c->organization);
      g_assert_cmpstr (id.basename, ==, c->basename);
      g_assert_cmpstr (id.finetune, ==, c->finetune);
      g_assert_cmpstr (id.version, ==, c->version);
      g_assert_cmpstr (id.size_label, ==, c->size_label);
      ts_hf_model_id_clear (&id);
    }
}

static void
test_id_to_title (void)
{
  static const char *const cases[][2] = {
    { "Llama-3.2-3B-Instruct", "Llama 3.2 3B Instruct" },
    { "tiny", "Tiny" },
    { "meta-llama", "Meta Llama" },
    /* words starting with a digit and v<number> versions keep their case */
    { "my-model-7b", "My Model 7b" },
    { "gemma-2-9b-it", "Gemma 2 9b It" },
    { "mistral-v0.2", "Mistral v0.2" },
    /* str.title(): a letter after a digit or an apostrophe is capitalised */
    { "abc1def", "Abc1Def" },
    { "o'neil", "O'Neil" },
    { "iq4_xs", "Iq4_Xs" },
    /* words with capitals are kept as they are */
    { "DeepSeek-V2", "DeepSeek V2" },
    { "  lead-trail  ", "Lead Trail" },
    { "x  y", "X Y" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *title = ts_hf_naming_id_to_title (cases[i][0]);

      g_assert_cmpstr (title, ==, cases[i][1]);
    }
}

static void
test_size_label (void)
{
  static const struct
  {
    guint64     n;
    const char *label;
  } cases[] = {
    { 3212749824, "3.2B" },
    { 3300000, "3.3M" },
    { 753000000, "753M" },
    { 123456, "123K" },
    /* round(0.5) is 0 in Python: no digit, so two decimals */
    { 500, "0.50K" },
    /* 9.96 rounds to 10: two digits, no decimals */
    { 9960000, "10M" },
    { 999999, "1000K" },
    /* strictly above a power of 1000 moves to the next suffix (utility.py
     * compares with >): exactly a million is still in thousands */
    { 1000000, "1000K" },
    { 1000001, "1.0M" },
    { 1000000000, "1000M" },
    { 1000000000000, "1000B" },
    { 1500000000000, "1.5T" },
    { 2500, "2.5K" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *label = ts_hf_naming_size_label (cases[i].n);

      g_assert_cmpstr (label, ==, cases[i].label);
    }
}

/* ------------------------------------------------------------ folders */

typedef struct
{
  char *root;
} Fixture;

static void
fixture_set_up (Fixture       *fixture,
                gconstpointer  user_data)
{
  g_autoptr(GError) error = NULL;

  fixture->root = g_dir_make_tmp (NULL, &error);
  g_assert_no_error (error);
}

static void
fixture_tear_down (Fixture       *fixture,
                   gconstpointer  user_data)
{
  ts_test_remove_tree (fixture->root);
  g_free (fixture->root);
}

/* a model folder @name under the fixture, with @readme as README.md */
static GFile *
make_model_dir (Fixture    *fixture,
                const char *name,
                const char *readme)
{
  g_autofree char *path = g_build_filename (fixture->root, name, NULL);

  g_assert_cmpint (g_mkdir_with_parents (path, 0700), ==, 0);
  if (readme != NULL)
    {
      g_autofree char *file = g_build_filename (path, "README.md", NULL);
      g_autoptr(GError) error = NULL;

      g_file_set_contents (file, readme, -1, &error);
      g_assert_no_error (error);
    }
  return g_file_new_for_path (path);
}

/* "key=value" lines of the naming keys, arrays as [a,b] */
static char *
dump (TsGgufMetadata *md)
{
  g_autoptr(GListModel) entries = ts_gguf_metadata_list_entries (md);
  g_autoptr(GString) s = g_string_new (NULL);

  for (guint i = 0; i < g_list_model_get_n_items (entries); i++)
    {
      g_autoptr(TsMetadataEntry) e = g_list_model_get_item (entries, i);
      gsize length = 0;
      const char *text;

      g_string_append_printf (s, "%s=", ts_metadata_entry_get_key (e));
      text = ts_metadata_entry_get_string (e, &length);
      if (ts_metadata_entry_get_value_type (e) == TS_VALUE_STRING)
        g_string_append_len (s, text, length);
      else if (ts_metadata_entry_get_value_type (e) == TS_VALUE_UINT32)
        g_string_append_printf (s, "%" G_GUINT64_FORMAT, ts_metadata_entry_get_uint64 (e));
      else
        {
          g_string_append_c (s, '[');
          for (guint64 j = 0; j < ts_metadata_entry_get_array_length (e); j++)
            {
              const char *item = ts_metadata_entry_get_item_string (e, j, &length);

              g_string_append_printf (s, "%s%.*s", j ? "," : "", (int) length, item);
            }
          g_string_append_c (s, ']');
        }
      g_string_append_c (s, '\n');
    }
  return g_string_free (g_steal_pointer (&s), FALSE);
}

static char *
naming_of (GFile      *dir,
           const char *name_or_path,
           guint64     total)
{
  TsHfConfig config = { 0 };
  g_autoptr(TsGgufMetadata) md = ts_gguf_metadata_new ();

  config.name_or_path = (char *) name_or_path;
  ts_hf_naming_add_metadata (dir, &config, total, md);
  return dump (md);
}

static char *
file_name_of (GFile      *dir,
              const char *name_or_path,
              guint64     total,
              const char *outtype)
{
  TsHfConfig config = { 0 };

  config.name_or_path = (char *) name_or_path;
  return ts_hf_naming_default_file_name (dir, &config, total, outtype);
}

static void
test_folder_names (Fixture       *fixture,
                   gconstpointer  user_data)
{
  g_autoptr(GFile) llama = make_model_dir (fixture, "Llama-3.2-3B-Instruct", NULL);
  g_autoptr(GFile) tiny = make_model_dir (fixture, "tiny", NULL);
  g_autoptr(GFile) mine = make_model_dir (fixture, "my-model-7b", NULL);
  g_autofree char *a = naming_of (llama, NULL, 3212749824);
  g_autofree char *b = naming_of (tiny, NULL, 3300000);
  g_autofree char *c = naming_of (mine, NULL, 0);
  g_autofree char *fa = file_name_of (llama, NULL, 3212749824, "bf16");
  g_autofree char *fb = file_name_of (tiny, NULL, 3300000, "F16");
  g_autofree char *fc = file_name_of (mine, NULL, 0, "q8_0");

  /* set_gguf_meta_model() order: name, (author, version, organization),
   * finetune, basename, ..., size_label */
  g_assert_cmpstr (a, ==, "general.name=Llama 3.2 3B Instruct\ngeneral.finetune=Instruct\n"
                          "general.basename=Llama-3.2\ngeneral.size_label=3B\n");
  /* no size in the name: the size label comes from the element count */
  g_assert_cmpstr (b, ==, "general.name=Tiny\ngeneral.size_label=3.3M\n");
  g_assert_cmpstr (c, ==, "general.name=My Model 7b\ngeneral.basename=my-model\ngeneral.size_label=7B\n");
  g_assert_cmpstr (fa, ==, "Llama-3.2-3B-Instruct-BF16.gguf");
  /* no basename: the name, spaces turned into dashes */
  g_assert_cmpstr (fb, ==, "Tiny-3.3M-F16.gguf");
  g_assert_cmpstr (fc, ==, "my-model-7B-Q8_0.gguf");
}

static void
test_name_or_path (Fixture       *fixture,
                   gconstpointer  user_data)
{
  g_autoptr(GFile) dir = make_model_dir (fixture, "checkpoint", NULL);
  g_autofree char *hf = naming_of (dir, "meta-llama/Llama-3.2-3B-Instruct", 3212749824);
  g_autofree char *path = naming_of (dir, "/home/me/models/Llama-3.2-3B", 3212749824);
  g_autofree char *empty = naming_of (dir, "", 1000);

  /* _name_or_path wins over the folder and brings the organization */
  g_assert_cmpstr (hf, ==, "general.name=Llama 3.2 3B Instruct\ngeneral.organization=Meta Llama\n"
                           "general.finetune=Instruct\ngeneral.basename=Llama-3.2\n"
                           "general.size_label=3B\n");
  /* more than one "/": a local path, ignored; the folder gives the name */
  g_assert_cmpstr (path, ==, "general.name=Checkpoint\ngeneral.size_label=3.2B\n");
  /* "" is a name (not None) that gguf-py's add_string() does not write */
  g_assert_cmpstr (empty, ==, "general.size_label=1.0K\n");
}

static void
test_model_card (Fixture       *fixture,
                 gconstpointer  user_data)
{
  static const char readme[] =
    "---\n"
    "license:\n"
    "- apache-2.0\n"
    "- mit\n"
    "model_name: Card Name\n"
    "model_creator: ACME Labs   # a comment\n"
    "language: [en, 'fr']\n"
    "tags:\n"
    "  - chat\n"
    "  - \"llama\"\n"
    "pipeline_tag: text-generation\n"
    "url: https://example.org\n"
    "base_model:\n"
    "- meta-llama/Llama-3.2-3B\n"
    "- name: Other Base\n"
    "  organization: Someone\n"
    "- https://huggingface.co/acme/Thing-v2\n"
    "datasets: acme/tiny-stories-v2\n"
    "model-index:\n"
    "  - name: ignored\n"
    "---\n"
    "# Text\n";
  g_autoptr(GFile) dir = make_model_dir (fixture, "Llama-3.2-3B-Instruct", readme);
  g_autofree char *md = naming_of (dir, NULL, 3212749824);

  /* card fields first, the folder fills the rest; url goes to source.url;
   * the license list is joined with commas; string base models are parsed
   * as ids (name, organization, version, repo_url), mappings copied */
  g_assert_cmpstr (md, ==,
                   "general.name=Card Name\n"
                   "general.author=ACME Labs\n"
                   "general.finetune=Instruct\n"
                   "general.basename=Llama-3.2\n"
                   "general.size_label=3B\n"
                   "general.license=apache-2.0,mit\n"
                   "general.source.url=https://example.org\n"
                   "general.base_model.count=3\n"
                   "general.base_model.0.name=Llama 3.2 3B\n"
                   "general.base_model.0.organization=Meta Llama\n"
                   "general.base_model.0.repo_url=https://huggingface.co/meta-llama/Llama-3.2-3B\n"
                   "general.base_model.1.name=Other Base\n"
                   "general.base_model.1.organization=Someone\n"
                   "general.base_model.2.name=Thing v2\n"
                   "general.base_model.2.version=v2\n"
                   "general.base_model.2.organization=Acme\n"
                   "general.base_model.2.repo_url=https://huggingface.co/acme/Thing-v2\n"
                   "general.dataset.count=1\n"
                   "general.dataset.0.name=Tiny Stories v2\n"
                   "general.dataset.0.version=v2\n"
                   "general.dataset.0.organization=Acme\n"
                   "general.dataset.0.repo_url=https://huggingface.co/acme/tiny-stories-v2\n"
                   "general.tags=[chat,llama,text-generation]\n"
                   "general.languages=[en,fr]\n");
}

static void
test_card_edge_cases (Fixture       *fixture,
                      gconstpointer  user_data)
{
  /* a base_model key without a value still writes a count of 0; no front
   * matter at all (first line not "---") is no card */
  g_autoptr(GFile) a = make_model_dir (fixture, "alpha-7b", "---\nbase_model:\nname: ''\n---\n");
  g_autoptr(GFile) b = make_model_dir (fixture, "beta-7b", "# Title\n---\nname: Nope\n---\n");
  g_autofree char *ma = naming_of (a, NULL, 0);
  g_autofree char *mb = naming_of (b, NULL, 0);

  /* name '' from the card is set, so not replaced, and not written */
  g_assert_cmpstr (ma, ==, "general.basename=alpha\ngeneral.size_label=7B\ngeneral.base_model.count=0\n");
  g_assert_cmpstr (mb, ==, "general.name=Beta 7b\ngeneral.basename=beta\ngeneral.size_label=7B\n");
}

/* A quote never closed is an error to PyYAML (llama.cpp's converter
 * stops there): no value, not the text with its quote */
static void
test_card_unterminated_quote (Fixture       *fixture,
                              gconstpointer  user_data)
{
  g_autoptr(GFile) dir = make_model_dir (fixture, "gamma-7b",
                                         "---\nmodel_name: \"open\n  more\nlicense: mit\n---\n");
  g_autofree char *md = naming_of (dir, NULL, 0);

  g_assert_null (strstr (md, "open"));
  g_assert_nonnull (strstr (md, "general.name=Gamma 7b\n"));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/naming/model-id", test_model_id);
  g_test_add_func ("/naming/id-to-title", test_id_to_title);
  g_test_add_func ("/naming/size-label", test_size_label);
  g_test_add ("/naming/folder-names", Fixture, NULL, fixture_set_up, test_folder_names, fixture_tear_down);
  g_test_add ("/naming/name-or-path", Fixture, NULL, fixture_set_up, test_name_or_path, fixture_tear_down);
  g_test_add ("/naming/model-card", Fixture, NULL, fixture_set_up, test_model_card, fixture_tear_down);
  g_test_add ("/naming/card-unterminated-quote", Fixture, NULL, fixture_set_up,
              test_card_unterminated_quote, fixture_tear_down);
  g_test_add ("/naming/card-edge-cases", Fixture, NULL, fixture_set_up, test_card_edge_cases,
              fixture_tear_down);
  return g_test_run ();
}
