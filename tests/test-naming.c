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

#include "ts-hf-naming.h"
#include "ts-metadata-entry.h"

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
    { 1500000000000, "1.5T" },
    { 2500, "2.5K" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *label = ts_hf_naming_size_label (cases[i].n);

      g_assert_cmpstr (label, ==, cases[i].label);
    }
}
