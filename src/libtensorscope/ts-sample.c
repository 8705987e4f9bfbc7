/* ts-sample.c
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <json-glib/json-glib.h>

#include "ts-error.h"
#include "ts-dtype.h"
#include "ts-sample.h"

/* The sample is the README's demo and a test input: a Llama-3-shaped Hugging
 * Face checkpoint small enough to write in a moment, with a real byte-level
 * BPE tokenizer trained on the text below. Every byte of it is a function of
 * the options, so the same seed always gives the same files. */

#define SAMPLE_N_BYTE_TOKENS     256
#define SAMPLE_N_SPECIAL_TOKENS  256
#define SAMPLE_MAX_LAYERS        1024
#define SAMPLE_MAX_HIDDEN        65536
#define SAMPLE_MAX_INTERMEDIATE  (1u << 20)
#define SAMPLE_MAX_VOCAB         (1u << 20)
#define SAMPLE_CHUNK             16384     /* elements per write; even, see sample_fill () */
#define SAMPLE_WEIGHT_STD        0.02
#define SAMPLE_CONTEXT_LENGTH    131072
#define SAMPLE_TRANSFORMERS      "4.45.0"

/* Llama 3's pre-tokenizer regex, as its tokenizer.json spells it. */
#define SAMPLE_LLAMA3_PATTERN \
  "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}|" \
  " ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"

/* Positions among the 256 special tokens (id = vocab_size - 256 + position) */
enum
{
  SPECIAL_BEGIN_OF_TEXT = 0,
  SPECIAL_END_OF_TEXT   = 1,
  SPECIAL_EOM           = 8,
  SPECIAL_EOT           = 9,
};

static const char * const sample_named_specials[] = {
  "<|begin_of_text|>",
  "<|end_of_text|>",
  "<|reserved_special_token_0|>",
  "<|reserved_special_token_1|>",
  "<|finetune_right_pad_id|>",
  "<|reserved_special_token_2|>",
  "<|start_header_id|>",
  "<|end_header_id|>",
  "<|eom_id|>",
  "<|eot_id|>",
  "<|python_tag|>",
};

/* The tokenizer's training text. ASCII only: the pre-tokenizer below
 * implements Llama 3's regex for ASCII. */
static const char sample_corpus[] =
  "A model file is a box of numbers with a label on the lid. The label says what "
  "the numbers mean: how many layers the network has, how wide each layer is, "
  "which words the tokenizer knows, and how every tensor is stored. The numbers "
  "themselves are the weights, billions of them in a large model, and a few "
  "hundred thousand in a small one like this sample.\n"
  "\n"
  "A Hugging Face checkpoint is a folder. It holds config.json, which describes "
  "the architecture; generation_config.json, which holds the default sampling "
  "settings; tokenizer.json, with the vocabulary and the merges of a byte-level "
  "BPE tokenizer; tokenizer_config.json, with the special tokens and the chat "
  "template; and the weights themselves, in one or more Safetensors shards. When "
  "there is more than one shard, an index file maps the name of every tensor to "
  "the shard that holds it.\n"
  "\n"
  "A Safetensors file starts with eight bytes that give the length of a JSON "
  "header. The header lists every tensor by name, with its data type, its shape "
  "and the offsets of its first and last byte in the data section that follows. "
  "Because the header comes first, a reader can show the whole table of contents "
  "of a file of many gigabytes after reading only a few kilobytes, and it can map "
  "the rest of the file into memory without copying it.\n"
  "\n"
  "GGUF is the format of llama.cpp. It keeps the tokenizer and all the settings "
  "inside the same file as the weights, as typed key-value pairs, then lists the "
  "tensors with their types, dimensions and offsets, and finally stores the data, "
  "aligned to 32 bytes. Converting a checkpoint to GGUF renames the tensors, "
  "reorders the rows of the query and key projections so that rotary embeddings "
  "see pairs of numbers side by side, and may quantize the weights to fewer bits.\n"
  "\n"
  "Tokenizers split text into pieces before they learn merges. A piece is usually "
  "a word together with the space in front of it, a short run of digits, or a run "
  "of punctuation. The trainer counts how often each pair of neighbouring symbols "
  "appears, merges the most frequent pair into a new symbol, and repeats until the "
  "vocabulary is full. Frequent words such as the, model, file and tensor become "
  "single tokens; rare words stay split into smaller parts.\n"
  "\n"
  "Llama 3 models have 128,256 tokens, of which 256 are special: they mark the "
  "beginning and the end of a text, the headers of a chat turn, and the end of a "
  "message. They're never produced by splitting ordinary text, and the tokenizer "
  "adds the begin-of-text token in front of every input. A model with "
  "3,212,749,824 parameters in bfloat16 needs 6,425,499,648 bytes; in 8-bit blocks "
  "it needs a little more than half of that.\n"
  "\n"
  "An inspector should check that every tensor fits in its file, that no two "
  "tensors share bytes, that there are no holes between them, and that the index "
  "and the shards agree. It should say which tensor runs past the end of a "
  "truncated download and by how much, and it should recognise a Git LFS pointer "
  "that was saved instead of the weights. We'd rather explain a broken file than "
  "refuse to open it.\n"
  "\n"
  "This folder was written by Tensorscope from a fixed seed. Its weights are "
  "random numbers drawn from a normal distribution with a standard deviation of "
  "0.02, its layer norms are close to 1.0, and its tokenizer was trained on the "
  "paragraphs you've just read. It's small enough to convert in a moment, and it "
  "has the same shape as a real Llama 3.2 checkpoint: grouped-query attention, "
  "rotary scaling, tied embeddings and two shards.\n"
  ;

/* Llama 3.2 Instruct's chat template, verbatim (data, not code). */
static const char sample_chat_template[] =
  "{{- bos_token }}\n"
  "{%- if custom_tools is defined %}\n"
  "    {%- set tools = custom_tools %}\n"
  "{%- endif %}\n"
  "{%- if not tools_in_user_message is defined %}\n"
  "    {%- set tools_in_user_message = true %}\n"
  "{%- endif %}\n"
  "{%- if not date_string is defined %}\n"
  "    {%- if strftime_now is defined %}\n"
  "        {%- set date_string = strftime_now(\"%d %b %Y\") %}\n"
  "    {%- else %}\n"
  "        {%- set date_string = \"26 Jul 2024\" %}\n"
  "    {%- endif %}\n"
  "{%- endif %}\n"
  "{%- if not tools is defined %}\n"
  "    {%- set tools = none %}\n"
  "{%- endif %}\n"
  "\n"
  "{#- This block extracts the system message, so we can slot it into the right place. #}\n"
  "{%- if messages[0]['role'] == 'system' %}\n"
  "    {%- set system_message = messages[0]['content']|trim %}\n"
  "    {%- set messages = messages[1:] %}\n"
  "{%- else %}\n"
  "    {%- set system_message = \"\" %}\n"
  "{%- endif %}\n"
  "\n"
  "{#- System message #}\n"
  "{{- \"<|start_header_id|>system<|end_header_id|>\\n\\n\" }}\n"
  "{%- if tools is not none %}\n"
  "    {{- \"Environment: ipython\\n\" }}\n"
  "{%- endif %}\n"
  "{{- \"Cutting Knowledge Date: December 2023\\n\" }}\n"
  "{{- \"Today Date: \" + date_string + \"\\n\\n\" }}\n"
  "{%- if tools is not none and not tools_in_user_message %}\n"
  "    {{- \"You have access to the following functions. To call a function, please respond with JSON for a function call.\" }}\n"
  "    {{- 'Respond in the format {\"name\": function name, \"parameters\": dictionary of argument name and its value}.' }}\n"
  "    {{- \"Do not use variables.\\n\\n\" }}\n"
  "    {%- for t in tools %}\n"
  "        {{- t | tojson(indent=4) }}\n"
  "        {{- \"\\n\\n\" }}\n"
  "    {%- endfor %}\n"
  "{%- endif %}\n"
  "{{- system_message }}\n"
  "{{- \"<|eot_id|>\" }}\n"
  "\n"
  "{#- Custom tools are passed in a user message with some extra guidance #}\n"
  "{%- if tools_in_user_message and not tools is none %}\n"
  "    {#- Extract the first user message so we can plug it in here #}\n"
  "    {%- if messages | length != 0 %}\n"
  "        {%- set first_user_message = messages[0]['content']|trim %}\n"
  "        {%- set messages = messages[1:] %}\n"
  "    {%- else %}\n"
  "        {{- raise_exception(\"Cannot put tools in the first user message when there's no first user message!\") }}\n"
  "{%- endif %}\n"
  "    {{- '<|start_header_id|>user<|end_header_id|>\\n\\n' -}}\n"
  "    {{- \"Given the following functions, please respond with a JSON for a function call \" }}\n"
  "    {{- \"with its proper arguments that best answers the given prompt.\\n\\n\" }}\n"
  "    {{- 'Respond in the format {\"name\": function name, \"parameters\": dictionary of argument name and its value}.' }}\n"
  "    {{- \"Do not use variables.\\n\\n\" }}\n"
  "    {%- for t in tools %}\n"
  "        {{- t | tojson(indent=4) }}\n"
  "        {{- \"\\n\\n\" }}\n"
  "    {%- endfor %}\n"
  "    {{- first_user_message + \"<|eot_id|>\"}}\n"
  "{%- endif %}\n"
  "\n"
  "{%- for message in messages %}\n"
  "    {%- if not (message.role == 'ipython' or message.role == 'tool' or 'tool_calls' in message) %}\n"
  "        {{- '<|start_header_id|>' + message['role'] + '<|end_header_id|>\\n\\n'+ message['content'] | trim + '<|eot_id|>' }}\n"
  "    {%- elif 'tool_calls' in message %}\n"
  "        {%- if not message.tool_calls|length == 1 %}\n"
  "            {{- raise_exception(\"This model only supports single tool-calls at once!\") }}\n"
  "        {%- endif %}\n"
  "        {%- set tool_call = message.tool_calls[0].function %}\n"
  "        {{- '<|start_header_id|>assistant<|end_header_id|>\\n\\n' -}}\n"
  "        {{- '{\"name\": \"' + tool_call.name + '\", ' }}\n"
  "        {{- '\"parameters\": ' }}\n"
  "        {{- tool_call.arguments | tojson }}\n"
  "        {{- \"}\" }}\n"
  "        {{- \"<|eot_id|>\" }}\n"
  "    {%- elif message.role == \"tool\" or message.role == \"ipython\" %}\n"
  "        {{- \"<|start_header_id|>ipython<|end_header_id|>\\n\\n\" }}\n"
  "        {%- if message.content is mapping or message.content is iterable %}\n"
  "            {{- message.content | tojson }}\n"
  "        {%- else %}\n"
  "            {{- message.content }}\n"
  "        {%- endif %}\n"
  "        {{- \"<|eot_id|>\" }}\n"
  "    {%- endif %}\n"
  "{%- endfor %}\n"
  "{%- if add_generation_prompt %}\n"
  "    {{- '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}\n"
  "{%- endif %}\n"
  ;

typedef struct
{
  GPtrArray  *tokens;         /* id → token in GPT-2's byte-level form */
  GHashTable *ids;            /* token (borrowed from @tokens) → id + 1 */
  GPtrArray  *merges;         /* "left right", in rank order */
  GHashTable *merge_set;      /* the same strings (borrowed), to skip repeats */
  guint       byte_ids[256];  /* byte → id of its token */
} SampleVocab;

typedef struct
{
  GArray *symbols;            /* guint token ids */
  guint   count;              /* occurrences in the corpus */
} SampleWord;

typedef struct
{
  guint64 key;                /* left id << 32 | right id */
  guint64 count;
} SamplePair;

typedef struct
{
  char     *name;
  guint64   shape[2];
  guint     n_dims;
  gboolean  is_norm;
  guint64   n_bytes;
  guint     shard;
  guint64   begin;            /* data offset inside its shard */
} SampleTensor;

typedef struct
{
  GFile *tmp;
  GFile *dest;
} SamplePending;

typedef struct
{
  GFile        *dir;
  GCancellable *cancellable;
  GPtrArray    *pending;      /* SamplePending, renamed into place at the end */
  GFile        *current;      /* the file being written or moved, for errors */
} SampleWriter;

/**
 * ts_sample_options_init:
 * @options: (out caller-allocates): the options to fill
 *
 * Fills @options with the defaults of the built-in demo: seed 42, two layers
 * of width 256 with 8 query and 2 key/value heads (head size 32), an
 * intermediate size of 768, 1,024 tokens (256 byte tokens, 512 learned ones
 * and 256 special ones), two shards, tied embeddings, `head_dim` in
 * config.json and llama3 rope scaling. A folder that is not empty is
 * written into (@replace): the built-in sample is written again into the
 * same cache folder each time it is opened.
 */
void
ts_sample_options_init (TsSampleOptions *options)
{
  g_return_if_fail (options != NULL);

  memset (options, 0, sizeof *options);
  options->seed = 42;
  options->n_layers = 2;
  options->hidden_size = 256;
  options->n_heads = 8;
  options->n_kv_heads = 2;
  options->intermediate_size = 768;
  options->vocab_size = 1024;
  options->n_shards = 2;
  options->tied_embeddings = TRUE;
  options->head_dim_in_config = TRUE;
  options->rope_scaling = TRUE;
  options->replace = TRUE;
}

static gboolean sample_fail (TsSampleField  *field,
                             TsSampleField   which,
                             GError        **error,
                             const char     *format,
                             ...) G_GNUC_PRINTF (4, 5);

/* Sets *@field (when not NULL) to @which, the setting blamed */
static gboolean
sample_fail (TsSampleField  *field,
             TsSampleField   which,
             GError        **error,
             const char     *format,
             ...)
{
  va_list args;

  if (field != NULL)
    *field = which;
  va_start (args, format);
  g_propagate_error (error, g_error_new_valist (G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                                                format, args));
  va_end (args);
  return FALSE;
}

static guint
sample_n_tensors (const TsSampleOptions *options)
{
  /* 9 per layer, the embedding, the final norm and an untied lm_head */
  return 9 * options->n_layers + 2 + (options->tied_embeddings ? 0 : 1);
}

static guint
sample_special_id (const TsSampleOptions *options,
                   guint                  position)
{
  return options->vocab_size - SAMPLE_N_SPECIAL_TOKENS + position;
}

static gboolean
sample_validate_shape (const TsSampleOptions  *o,
                       TsSampleField          *field,
                       GError                **error)
{
  if (o->n_layers == 0 || o->n_layers > SAMPLE_MAX_LAYERS)
    return sample_fail (field, TS_SAMPLE_FIELD_N_LAYERS, error,
                        "The number of layers must be between 1 and %u, not %u",
                        SAMPLE_MAX_LAYERS, o->n_layers);
  if (o->hidden_size == 0 || o->hidden_size > SAMPLE_MAX_HIDDEN)
    return sample_fail (field, TS_SAMPLE_FIELD_HIDDEN_SIZE, error,
                        "The hidden size must be between 1 and %u, not %u",
                        SAMPLE_MAX_HIDDEN, o->hidden_size);
  if (o->n_heads == 0 || o->hidden_size % o->n_heads != 0)
    return sample_fail (field, TS_SAMPLE_FIELD_N_HEADS, error,
                        "The hidden size (%u) must be divisible by the number of "
                        "attention heads (%u)", o->hidden_size, o->n_heads);
  if (o->n_kv_heads == 0 || o->n_heads % o->n_kv_heads != 0)
    return sample_fail (field, TS_SAMPLE_FIELD_N_KV_HEADS, error,
                        "The number of attention heads (%u) must be divisible by "
                        "the number of key/value heads (%u)", o->n_heads, o->n_kv_heads);
  if ((o->hidden_size / o->n_heads) % 2 != 0)
    return sample_fail (field, TS_SAMPLE_FIELD_N_HEADS, error,
                        "The head size (hidden size %u / %u heads = %u) must be even "
                        "for rotary embeddings", o->hidden_size, o->n_heads,
                        o->hidden_size / o->n_heads);
  return TRUE;
}

static gboolean
sample_validate_sizes (const TsSampleOptions  *o,
                       TsSampleField          *field,
                       GError                **error)
{
  guint n_tensors = sample_n_tensors (o);

  if (o->intermediate_size == 0 || o->intermediate_size > SAMPLE_MAX_INTERMEDIATE)
    return sample_fail (field, TS_SAMPLE_FIELD_INTERMEDIATE_SIZE, error,
                        "The intermediate size must be between 1 and %u, not %u",
                        SAMPLE_MAX_INTERMEDIATE, o->intermediate_size);
  if (o->vocab_size <= SAMPLE_N_BYTE_TOKENS + SAMPLE_N_SPECIAL_TOKENS
      || o->vocab_size > SAMPLE_MAX_VOCAB)
    return sample_fail (field, TS_SAMPLE_FIELD_VOCAB_SIZE, error,
                        "The vocabulary size must be between %u and %u (256 byte "
                        "tokens, learned tokens and 256 special tokens), not %u",
                        SAMPLE_N_BYTE_TOKENS + SAMPLE_N_SPECIAL_TOKENS + 1,
                        SAMPLE_MAX_VOCAB, o->vocab_size);
  if (o->n_shards == 0 || o->n_shards > n_tensors)
    return sample_fail (field, TS_SAMPLE_FIELD_N_SHARDS, error,
                        "The number of shards must be between 1 and the number of "
                        "tensors (%u), not %u", n_tensors, o->n_shards);
  return TRUE;
}

/**
 * ts_sample_options_validate:
 * @options: the options to check
 * @field: (out) (optional): the setting the error is about
 * @error: return location for a #GError
 *
 * Checks that @options make a Llama model ts_sample_write() can write: the
 * sizes in range, the hidden size a multiple of the number of heads and
 * that a multiple of the key/value heads, an even head size, room for
 * learned tokens, and no more shards than tensors. A front end names the
 * option of *@field in its message; a setting that fails only with another
 * (the heads, with the hidden size) is blamed on the later one.
 *
 * Returns: %TRUE if they do; else %FALSE with %G_IO_ERROR_INVALID_ARGUMENT
 *   and *@field set
 */
gboolean
ts_sample_options_validate (const TsSampleOptions  *options,
                            TsSampleField          *field,
                            GError                **error)
{
  g_return_val_if_fail (options != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (field != NULL)
    *field = TS_SAMPLE_FIELD_NONE;
  return sample_validate_shape (options, field, error)
         && sample_validate_sizes (options, field, error);
}

static char *
sample_special_name (guint position)
{
  if (position < G_N_ELEMENTS (sample_named_specials))
    return g_strdup (sample_named_specials[position]);

  /* Llama 3 numbers the rest on from 3: ids 128011 … 128255 */
  return g_strdup_printf ("<|reserved_special_token_%u|>",
                          position - (guint) G_N_ELEMENTS (sample_named_specials) + 3);
}

static SampleVocab *
sample_vocab_new (void)
{
  SampleVocab *vocab = g_new0 (SampleVocab, 1);

  vocab->tokens = g_ptr_array_new_with_free_func (g_free);
  vocab->ids = g_hash_table_new (g_str_hash, g_str_equal);
  vocab->merges = g_ptr_array_new_with_free_func (g_free);
  vocab->merge_set = g_hash_table_new (g_str_hash, g_str_equal);
  return vocab;
}

static void
sample_vocab_free (SampleVocab *vocab)
{
  g_clear_pointer (&vocab->merge_set, g_hash_table_unref);
  g_clear_pointer (&vocab->merges, g_ptr_array_unref);
  g_clear_pointer (&vocab->ids, g_hash_table_unref);
  g_clear_pointer (&vocab->tokens, g_ptr_array_unref);
  g_free (vocab);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SampleVocab, sample_vocab_free)

static gboolean
sample_vocab_lookup (SampleVocab *vocab,
                     const char  *token,
                     guint       *id)
{
  gpointer value = g_hash_table_lookup (vocab->ids, token);

  if (value == NULL)
    return FALSE;
  *id = GPOINTER_TO_UINT (value) - 1;
  return TRUE;
}

/* Takes @token; returns its id, new or existing. */
static guint
sample_vocab_add (SampleVocab *vocab,
                  char        *token)
{
  guint id;

  if (sample_vocab_lookup (vocab, token, &id))
    {
      g_free (token);
      return id;
    }
  id = vocab->tokens->len;
  g_ptr_array_add (vocab->tokens, token);
  g_hash_table_insert (vocab->ids, token, GUINT_TO_POINTER (id + 1));
  return id;
}

static guint
sample_vocab_merge (SampleVocab *vocab,
                    guint        left,
                    guint        right)
{
  const char *a = g_ptr_array_index (vocab->tokens, left);
  const char *b = g_ptr_array_index (vocab->tokens, right);
  char *merge = g_strdup_printf ("%s %s", a, b);

  if (g_hash_table_contains (vocab->merge_set, merge))
    g_free (merge);
  else
    {
      g_ptr_array_add (vocab->merges, merge);
      g_hash_table_add (vocab->merge_set, merge);
    }
  return sample_vocab_add (vocab, g_strconcat (a, b, NULL));
}

static gboolean
sample_byte_is_printable (guint b)
{
  return (b >= '!' && b <= '~') || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
}

/* GPT-2's bytes_to_unicode (): a printable byte stands for itself, the
 * others for U+0100 onwards in byte order (so the space is "Ġ"). The byte
 * tokens take ids 0–255 in GPT-2's order: the printable bytes first. */
static void
sample_vocab_add_bytes (SampleVocab *vocab)
{
  guint n_other = 0;

  for (guint pass = 0; pass < 2; pass++)
    for (guint b = 0; b < 256; b++)
      {
        gboolean printable = sample_byte_is_printable (b);
        char utf8[8] = { 0 };

        if (printable != (pass == 0))
          continue;
        g_unichar_to_utf8 (printable ? b : 0x100 + n_other++, utf8);
        vocab->byte_ids[b] = sample_vocab_add (vocab, g_strdup (utf8));
      }
}

/* Llama 3's pre-tokenizer regex, alternative by alternative, for ASCII text
 * (letters, digits and white space as g_ascii_* sees them). Each returns the
 * length of its match at @p, or 0. */
static gsize
sample_match_contraction (const char *s,
                          gsize       len,
                          gsize       p)
{
  static const char * const suffixes[] = { "s", "t", "re", "ve", "m", "ll", "d" };

  if (s[p] != '\'')
    return 0;
  for (guint i = 0; i < G_N_ELEMENTS (suffixes); i++)
    {
      gsize n = strlen (suffixes[i]);

      if (p + 1 + n <= len && g_ascii_strncasecmp (s + p + 1, suffixes[i], n) == 0)
        return 1 + n;
    }
  return 0;
}

static gboolean
sample_is_newline (char c)
{
  return c == '\r' || c == '\n';
}

/* [^\r\n\p{L}\p{N}]?\p{L}+ */
static gsize
sample_match_letters (const char *s,
                      gsize       len,
                      gsize       p)
{
  gsize q = p;

  if (!g_ascii_isalpha (s[q]))
    {
      if (sample_is_newline (s[q]) || g_ascii_isdigit (s[q]))
        return 0;
      q++;
      if (q >= len || !g_ascii_isalpha (s[q]))
        return 0;
    }
  while (q < len && g_ascii_isalpha (s[q]))
    q++;
  return q - p;
}

/* \p{N}{1,3} */
static gsize
sample_match_digits (const char *s,
                     gsize       len,
                     gsize       p)
{
  gsize q = p;

  while (q < len && q - p < 3 && g_ascii_isdigit (s[q]))
    q++;
  return q - p;
}

/*  ?[^\s\p{L}\p{N}]+[\r\n]* */
static gsize
sample_match_punctuation (const char *s,
                          gsize       len,
                          gsize       p)
{
  gsize q = p;
  gsize start;

  if (s[q] == ' ')
    q++;
  start = q;
  while (q < len && !g_ascii_isspace (s[q]) && !g_ascii_isalnum (s[q]))
    q++;
  if (q == start)
    return 0;
  while (q < len && sample_is_newline (s[q]))
    q++;
  return q - p;
}

/* \s*[\r\n]+|\s+(?!\S)|\s+ */
static gsize
sample_match_space (const char *s,
                    gsize       len,
                    gsize       p)
{
  gsize end = p;
  gsize after_newline = 0;

  while (end < len && g_ascii_isspace (s[end]))
    {
      if (sample_is_newline (s[end]))
        after_newline = end + 1;
      end++;
    }
  if (end == p)
    return 0;
  if (after_newline != 0)
    return after_newline - p;     /* up to the run's last line break */
  if (end == len || end - p == 1)
    return end - p;
  return end - p - 1;             /* leave one space to lead the next word */
}

static gsize
sample_piece_length (const char *s,
                     gsize       len,
                     gsize       p)
{
  gsize n;

  if ((n = sample_match_contraction (s, len, p)) > 0
      || (n = sample_match_letters (s, len, p)) > 0
      || (n = sample_match_digits (s, len, p)) > 0
      || (n = sample_match_punctuation (s, len, p)) > 0
      || (n = sample_match_space (s, len, p)) > 0)
    return n;
  return 1;
}

static void
sample_word_clear (gpointer data)
{
  SampleWord *word = data;

  g_clear_pointer (&word->symbols, g_array_unref);
}

static int
sample_compare_strings (const void *a,
                        const void *b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

/* Splits @text into pieces and returns the distinct pieces, in byte order,
 * as arrays of byte-token ids with their number of occurrences. */
static GArray *
sample_collect_words (SampleVocab *vocab,
                      const char  *text)
{
  g_autoptr(GHashTable) counts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autofree gpointer *pieces = NULL;
  GArray *words = g_array_new (FALSE, TRUE, sizeof (SampleWord));
  gsize len = strlen (text);
  guint n_pieces = 0;

  g_array_set_clear_func (words, sample_word_clear);
  for (gsize p = 0; p < len; )
    {
      gsize n = sample_piece_length (text, len, p);
      char *piece = g_strndup (text + p, n);
      guint count = GPOINTER_TO_UINT (g_hash_table_lookup (counts, piece));

      g_hash_table_replace (counts, piece, GUINT_TO_POINTER (count + 1));
      p += n;
    }
  pieces = g_hash_table_get_keys_as_array (counts, &n_pieces);
  qsort (pieces, n_pieces, sizeof (gpointer), sample_compare_strings);
  for (guint i = 0; i < n_pieces; i++)
    {
      const guchar *piece = pieces[i];
      SampleWord word = { g_array_new (FALSE, FALSE, sizeof (guint)), 0 };

      word.count = GPOINTER_TO_UINT (g_hash_table_lookup (counts, piece));
      for (gsize j = 0; piece[j] != '\0'; j++)
        g_array_append_val (word.symbols, vocab->byte_ids[piece[j]]);
      g_array_append_val (words, word);
    }
  return words;
}

static int
sample_compare_pairs (const void *a,
                      const void *b)
{
  guint64 ka = ((const SamplePair *) a)->key;
  guint64 kb = ((const SamplePair *) b)->key;

  return ka < kb ? -1 : ka > kb;
}

/* The most frequent pair of neighbouring symbols, the lowest ids first on a
 * tie (as the Hugging Face trainer breaks ties). FALSE when none is left. */
static gboolean
sample_best_pair (GArray *words,
                  guint  *left,
                  guint  *right)
{
  g_autoptr(GArray) pairs = g_array_new (FALSE, FALSE, sizeof (SamplePair));
  guint64 best_key = 0;
  guint64 best_count = 0;

  for (guint w = 0; w < words->len; w++)
    {
      const SampleWord *word = &g_array_index (words, SampleWord, w);

      for (guint i = 0; i + 1 < word->symbols->len; i++)
        {
          SamplePair pair = { (guint64) g_array_index (word->symbols, guint, i) << 32
                              | g_array_index (word->symbols, guint, i + 1), word->count };

          g_array_append_val (pairs, pair);
        }
    }
  /* qsort() with the NULL data of an empty array is undefined */
  if (pairs->len > 0)
    g_array_sort (pairs, sample_compare_pairs);
  for (guint i = 0, j; i < pairs->len; i = j)
    {
      guint64 count = 0;

      for (j = i; j < pairs->len && g_array_index (pairs, SamplePair, j).key
                                    == g_array_index (pairs, SamplePair, i).key; j++)
        count += g_array_index (pairs, SamplePair, j).count;
      if (count > best_count)
        {
          best_count = count;
          best_key = g_array_index (pairs, SamplePair, i).key;
        }
    }
  *left = (guint) (best_key >> 32);
  *right = (guint) (best_key & G_MAXUINT32);
  return best_count > 0;
}

static void
sample_words_merge (GArray *words,
                    guint   left,
                    guint   right,
                    guint   merged)
{
  for (guint w = 0; w < words->len; w++)
    {
      GArray *symbols = g_array_index (words, SampleWord, w).symbols;
      guint out = 0;

      for (guint i = 0; i < symbols->len; i++, out++)
        {
          guint symbol = g_array_index (symbols, guint, i);

          if (symbol == left && i + 1 < symbols->len
              && g_array_index (symbols, guint, i + 1) == right)
            {
              symbol = merged;
              i++;
            }
          g_array_index (symbols, guint, out) = symbol;
        }
      g_array_set_size (symbols, out);
    }
}

/* Once the corpus has no pair left, the vocabulary grows by joining tokens
 * already in it: every such merge stays valid. */
static void
sample_vocab_extend (SampleVocab *vocab,
                     guint        target)
{
  guint n_base = vocab->tokens->len;

  for (guint a = 0; a < vocab->tokens->len && vocab->tokens->len < target; a++)
    for (guint b = 0; b < n_base && vocab->tokens->len < target; b++)
      {
        g_autofree char *joined = g_strconcat (g_ptr_array_index (vocab->tokens, a),
                                               g_ptr_array_index (vocab->tokens, b), NULL);
        guint id;

        if (!sample_vocab_lookup (vocab, joined, &id))
          sample_vocab_merge (vocab, a, b);
      }
}

static SampleVocab *
sample_vocab_build (guint n_regular)
{
  g_autoptr(SampleVocab) vocab = sample_vocab_new ();
  g_autoptr(GArray) words = NULL;
  guint left;
  guint right;

  sample_vocab_add_bytes (vocab);
  words = sample_collect_words (vocab, sample_corpus);
  while (vocab->tokens->len < n_regular && sample_best_pair (words, &left, &right))
    sample_words_merge (words, left, right, sample_vocab_merge (vocab, left, right));
  sample_vocab_extend (vocab, n_regular);
  g_assert (vocab->tokens->len == n_regular);
  return g_steal_pointer (&vocab);
}

static void
sample_tensor_clear (gpointer data)
{
  SampleTensor *tensor = data;

  g_clear_pointer (&tensor->name, g_free);
}

/* Takes @name. @cols is 0 for a vector (a norm). */
static void
sample_add_tensor (GArray  *tensors,
                   char    *name,
                   guint64  rows,
                   guint64  cols)
{
  SampleTensor tensor = { 0 };

  tensor.name = name;
  tensor.shape[0] = rows;
  tensor.shape[1] = cols;
  tensor.n_dims = cols > 0 ? 2 : 1;
  tensor.is_norm = cols == 0;
  tensor.n_bytes = rows * MAX (cols, 1) * sizeof (guint16);
  g_array_append_val (tensors, tensor);
}

static void
sample_add_layer_tensor (GArray     *tensors,
                         guint       layer,
                         const char *part,
                         guint64     rows,
                         guint64     cols)
{
  sample_add_tensor (tensors, g_strdup_printf ("model.layers.%u.%s.weight", layer, part),
                     rows, cols);
}

/* In the order of the PyTorch module, as save_pretrained () shards them */
static void
sample_add_layer (GArray                *tensors,
                  const TsSampleOptions *o,
                  guint                  layer)
{
  guint64 hidden = o->hidden_size;
  guint64 head_dim = hidden / o->n_heads;
  guint64 ffn = o->intermediate_size;

  sample_add_layer_tensor (tensors, layer, "self_attn.q_proj", o->n_heads * head_dim, hidden);
  sample_add_layer_tensor (tensors, layer, "self_attn.k_proj", o->n_kv_heads * head_dim, hidden);
  sample_add_layer_tensor (tensors, layer, "self_attn.v_proj", o->n_kv_heads * head_dim, hidden);
  sample_add_layer_tensor (tensors, layer, "self_attn.o_proj", hidden, o->n_heads * head_dim);
  sample_add_layer_tensor (tensors, layer, "mlp.gate_proj", ffn, hidden);
  sample_add_layer_tensor (tensors, layer, "mlp.up_proj", ffn, hidden);
  sample_add_layer_tensor (tensors, layer, "mlp.down_proj", hidden, ffn);
  sample_add_layer_tensor (tensors, layer, "input_layernorm", hidden, 0);
  sample_add_layer_tensor (tensors, layer, "post_attention_layernorm", hidden, 0);
}

/* Cuts the tensors, in order, into @n_shards runs of roughly equal bytes:
 * a tensor goes to the next shard when its middle lies past the current
 * shard's share, or when each later shard needs one of those left. */
static void
sample_assign_shards (GArray *tensors,
                      guint   n_shards)
{
  guint64 total = 0;
  guint64 done = 0;
  guint shard = 0;
  guint in_shard = 0;

  for (guint i = 0; i < tensors->len; i++)
    total += g_array_index (tensors, SampleTensor, i).n_bytes;
  for (guint i = 0; i < tensors->len; i++)
    {
      SampleTensor *tensor = &g_array_index (tensors, SampleTensor, i);
      guint shards_after = n_shards - 1 - shard;
      double middle = (double) done + (double) tensor->n_bytes / 2.0;

      if (in_shard > 0 && shards_after > 0
          && (tensors->len - i == shards_after
              || middle > (double) total * (shard + 1) / n_shards))
        {
          shard++;
          in_shard = 0;
        }
      tensor->shard = shard;
      in_shard++;
      done += tensor->n_bytes;
    }
  g_assert (shard == n_shards - 1);
}

static GArray *
sample_build_tensors (const TsSampleOptions *o)
{
  GArray *tensors = g_array_new (FALSE, TRUE, sizeof (SampleTensor));

  g_array_set_clear_func (tensors, sample_tensor_clear);
  sample_add_tensor (tensors, g_strdup ("model.embed_tokens.weight"),
                     o->vocab_size, o->hidden_size);
  for (guint layer = 0; layer < o->n_layers; layer++)
    sample_add_layer (tensors, o, layer);
  sample_add_tensor (tensors, g_strdup ("model.norm.weight"), o->hidden_size, 0);
  if (!o->tied_embeddings)
    sample_add_tensor (tensors, g_strdup ("lm_head.weight"), o->vocab_size, o->hidden_size);
  g_assert (tensors->len == sample_n_tensors (o));
  sample_assign_shards (tensors, o->n_shards);
  return tensors;
}

static int
sample_compare_tensors (gconstpointer a,
                        gconstpointer b)
{
  const SampleTensor *ta = *(const SampleTensor * const *) a;
  const SampleTensor *tb = *(const SampleTensor * const *) b;

  return strcmp (ta->name, tb->name);
}

/* The tensors of @shard (all of them for G_MAXUINT), sorted by name, as
 * borrowed pointers. */
static GPtrArray *
sample_sorted_tensors (GArray *tensors,
                       guint   shard)
{
  GPtrArray *sorted = g_ptr_array_new ();

  for (guint i = 0; i < tensors->len; i++)
    {
      SampleTensor *tensor = &g_array_index (tensors, SampleTensor, i);

      if (shard == G_MAXUINT || tensor->shard == shard)
        g_ptr_array_add (sorted, tensor);
    }
  g_ptr_array_sort (sorted, sample_compare_tensors);
  return sorted;
}

static char *
sample_shard_name (guint shard,
                   guint n_shards)
{
  if (n_shards == 1)
    return g_strdup ("model.safetensors");
  return g_strdup_printf ("model-%05u-of-%05u.safetensors", shard + 1, n_shards);
}

/* Each tensor has its own stream, seeded from the seed and its name, so its
 * values do not depend on the sharding. SplitMix64 (Steele, Lea & Flood). */
static guint64
sample_tensor_state (guint32     seed,
                     const char *name)
{
  guint64 hash = G_GUINT64_CONSTANT (0xcbf29ce484222325);    /* FNV-1a */

  for (const char *p = name; *p != '\0'; p++)
    hash = (hash ^ (guchar) *p) * G_GUINT64_CONSTANT (0x100000001b3);
  return hash ^ ((guint64) seed * G_GUINT64_CONSTANT (0x9e3779b97f4a7c15));
}

static guint64
sample_next (guint64 *state)
{
  guint64 z = (*state += G_GUINT64_CONSTANT (0x9e3779b97f4a7c15));

  z = (z ^ (z >> 30)) * G_GUINT64_CONSTANT (0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * G_GUINT64_CONSTANT (0x94d049bb133111eb);
  return z ^ (z >> 31);
}

/* Uniform in (0, 1], so that log () stays finite */
static double
sample_uniform (guint64 *state)
{
  return (double) ((sample_next (state) >> 11) + 1) / 9007199254740992.0;
}

static guint16
sample_bf16_le (double value)
{
  return GUINT16_TO_LE (ts_f32_to_bf16 ((float) value));
}

/* @n values ~ N(@mean, 0.02²) by Box–Muller, two per pair of draws. An odd
 * @n drops the last sine, which is why SAMPLE_CHUNK is even. */
static void
sample_fill (guint64 *state,
             guint16 *out,
             gsize    n,
             double   mean)
{
  for (gsize i = 0; i < n; i += 2)
    {
      double radius = sqrt (-2.0 * log (sample_uniform (state)));
      double angle = 2.0 * G_PI * sample_uniform (state);

      out[i] = sample_bf16_le (mean + SAMPLE_WEIGHT_STD * radius * cos (angle));
      if (i + 1 < n)
        out[i + 1] = sample_bf16_le (mean + SAMPLE_WEIGHT_STD * radius * sin (angle));
    }
}

static gboolean
sample_write_tensor_data (GOutputStream       *out,
                          guint32              seed,
                          const SampleTensor  *tensor,
                          GCancellable        *cancellable,
                          GError             **error)
{
  g_autofree guint16 *buffer = g_new (guint16, SAMPLE_CHUNK);
  guint64 state = sample_tensor_state (seed, tensor->name);
  guint64 n_elements = tensor->n_bytes / sizeof (guint16);
  double mean = tensor->is_norm ? 1.0 : 0.0;

  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return FALSE;
  for (guint64 done = 0; done < n_elements; )
    {
      gsize n = (gsize) MIN (n_elements - done, SAMPLE_CHUNK);

      sample_fill (&state, buffer, n, mean);
      if (!g_output_stream_write_all (out, buffer, n * sizeof (guint16), NULL,
                                      cancellable, error))
        return FALSE;
      done += n;
    }
  return TRUE;
}

static void
sample_add_int (JsonBuilder *builder,
                const char  *name,
                gint64       value)
{
  json_builder_set_member_name (builder, name);
  json_builder_add_int_value (builder, value);
}

static void
sample_add_double (JsonBuilder *builder,
                   const char  *name,
                   double       value)
{
  json_builder_set_member_name (builder, name);
  json_builder_add_double_value (builder, value);
}

static void
sample_add_bool (JsonBuilder *builder,
                 const char  *name,
                 gboolean     value)
{
  json_builder_set_member_name (builder, name);
  json_builder_add_boolean_value (builder, value);
}

static void
sample_add_string (JsonBuilder *builder,
                   const char  *name,
                   const char  *value)
{
  json_builder_set_member_name (builder, name);
  json_builder_add_string_value (builder, value);
}

static void
sample_add_null (JsonBuilder *builder,
                 const char  *name)
{
  json_builder_set_member_name (builder, name);
  json_builder_add_null_value (builder);
}

static char *
sample_builder_to_json (JsonBuilder *builder,
                        gboolean     pretty)
{
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autoptr(JsonNode) root = json_builder_get_root (builder);

  json_generator_set_pretty (generator, pretty);
  json_generator_set_indent (generator, 2);
  json_generator_set_root (generator, root);
  return json_generator_to_data (generator, NULL);
}

static void
sample_pending_free (gpointer data)
{
  SamplePending *pending = data;

  g_clear_object (&pending->tmp);
  g_clear_object (&pending->dest);
  g_free (pending);
}

static SampleWriter *
sample_writer_new (GFile        *dir,
                   GCancellable *cancellable)
{
  SampleWriter *writer = g_new0 (SampleWriter, 1);

  writer->dir = g_object_ref (dir);
  writer->cancellable = cancellable != NULL ? g_object_ref (cancellable) : NULL;
  writer->pending = g_ptr_array_new_with_free_func (sample_pending_free);
  return writer;
}

/* Whatever was not committed is deleted: no half-written file is left. */
static void
sample_writer_free (SampleWriter *writer)
{
  for (guint i = 0; i < writer->pending->len; i++)
    {
      SamplePending *pending = g_ptr_array_index (writer->pending, i);

      g_file_delete (pending->tmp, NULL, NULL);
    }
  g_clear_pointer (&writer->pending, g_ptr_array_unref);
  g_clear_object (&writer->cancellable);
  g_clear_object (&writer->dir);
  g_clear_object (&writer->current);
  g_free (writer);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SampleWriter, sample_writer_free)

/* A new hidden file beside @name; it takes its name at commit time. */
static GOutputStream *
sample_writer_open (SampleWriter  *writer,
                    const char    *name,
                    GError       **error)
{
  for (guint attempt = 0; ; attempt++)
    {
      g_autofree char *tmp_name = g_strdup_printf (".%s.%08x.tmp", name, g_random_int ());
      g_autoptr(GFile) tmp = g_file_get_child (writer->dir, tmp_name);
      g_autoptr(GError) local_error = NULL;
      g_autoptr(GFile) dest = g_file_get_child (writer->dir, name);
      GFileOutputStream *out;
      SamplePending *pending;

      g_set_object (&writer->current, dest);
      out = g_file_create (tmp, G_FILE_CREATE_NONE, writer->cancellable, &local_error);

      if (out == NULL)
        {
          if (attempt < 100 && g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_EXISTS))
            continue;
          g_propagate_error (error, g_steal_pointer (&local_error));
          return NULL;
        }
      pending = g_new0 (SamplePending, 1);
      pending->tmp = g_steal_pointer (&tmp);
      pending->dest = g_steal_pointer (&dest);
      g_ptr_array_add (writer->pending, pending);
      return G_OUTPUT_STREAM (out);
    }
}

static gboolean
sample_writer_add (SampleWriter  *writer,
                   const char    *name,
                   const char    *data,
                   gsize          len,
                   GError       **error)
{
  g_autoptr(GOutputStream) out = sample_writer_open (writer, name, error);

  return out != NULL
         && g_output_stream_write_all (out, data, len, NULL, writer->cancellable, error)
         && g_output_stream_close (out, writer->cancellable, error);
}

/* Pretty-printed with a final newline, like save_pretrained () */
static gboolean
sample_writer_add_json (SampleWriter  *writer,
                        const char    *name,
                        JsonBuilder   *builder,
                        GError       **error)
{
  g_autofree char *json = sample_builder_to_json (builder, TRUE);
  g_autofree char *text = g_strconcat (json, "\n", NULL);

  return sample_writer_add (writer, name, text, strlen (text), error);
}

/* model.safetensors, its index, or a model-0000K-of-0000N.safetensors
 * shard: the names of the weights save_pretrained () writes */
static gboolean
sample_is_weights_name (const char *name)
{
  return g_regex_match_simple ("^model(\\.safetensors(\\.index\\.json)?|-[0-9]+-of-[0-9]+\\.safetensors)$",
                               name, G_REGEX_DEFAULT, G_REGEX_MATCH_DEFAULT);
}

static gboolean
sample_writer_is_pending (SampleWriter *writer,
                          GFile        *file)
{
  for (guint i = 0; i < writer->pending->len; i++)
    {
      SamplePending *pending = g_ptr_array_index (writer->pending, i);

      if (g_file_equal (pending->dest, file))
        return TRUE;
    }
  return FALSE;
}

/* Shards and an index of an earlier checkpoint in the folder, which the new
 * sample does not write (into @stale): left there, they would contradict it
 * (a loader would take them for its own). Nothing else is touched. */
static gboolean
sample_writer_find_stale (SampleWriter  *writer,
                          GPtrArray     *stale,
                          GError       **error)
{
  g_autoptr(GFileEnumerator) children = NULL;

  children = g_file_enumerate_children (writer->dir, G_FILE_ATTRIBUTE_STANDARD_NAME,
                                        G_FILE_QUERY_INFO_NOFOLLOW_SYMLINKS,
                                        writer->cancellable, error);
  if (children == NULL)
    return FALSE;
  while (TRUE)
    {
      GFileInfo *info;
      GFile *child;

      if (!g_file_enumerator_iterate (children, &info, &child, writer->cancellable, error))
        return FALSE;
      if (info == NULL)
        break;
      if (sample_is_weights_name (g_file_info_get_name (info))
          && !sample_writer_is_pending (writer, child))
        g_ptr_array_add (stale, g_object_ref (child));
    }
  return TRUE;
}

/* Renames every file into place, once all are complete; @replace: then
 * removes the stale weights (after, so that a rename that fails deletes
 * none of the earlier weights) */
static gboolean
sample_writer_commit (SampleWriter  *writer,
                      gboolean       replace,
                      GError       **error)
{
  g_autoptr(GPtrArray) stale = g_ptr_array_new_with_free_func (g_object_unref);

  if (g_cancellable_set_error_if_cancelled (writer->cancellable, error))
    return FALSE;
  if (replace && !sample_writer_find_stale (writer, stale, error))
    return FALSE;
  while (writer->pending->len > 0)
    {
      SamplePending *pending = g_ptr_array_index (writer->pending, 0);

      g_set_object (&writer->current, pending->dest);
      if (!g_file_move (pending->tmp, pending->dest,
                        G_FILE_COPY_OVERWRITE | G_FILE_COPY_NO_FALLBACK_FOR_MOVE,
                        NULL, NULL, NULL, error))
        return FALSE;
      g_ptr_array_remove_index (writer->pending, 0);
    }
  for (guint i = 0; i < stale->len; i++)
    {
      g_set_object (&writer->current, g_ptr_array_index (stale, i));
      if (!g_file_delete (writer->current, writer->cancellable, error))
        return FALSE;
    }
  return TRUE;
}

/* GIO's message names the hidden temporary file, or no file at all
 * ("Error writing to file: No space left on device"): the file the user
 * asked for is named instead, with the reason, which GIO's local-file
 * messages end with after their last ": " */
static void
sample_writer_name_error (SampleWriter  *writer,
                          GError        *error)
{
  g_autofree char *shown = NULL;
  const char *reason;
  char *message;

  if (writer->current == NULL || error->domain != G_IO_ERROR
      || error->code == G_IO_ERROR_CANCELLED)
    return;
  reason = g_strrstr (error->message, ": ");
  reason = reason != NULL ? reason + 2 : error->message;
  shown = ts_file_display_name (writer->current);
  message = g_strdup_printf (_("cannot write %s: %s"), shown, reason);
  g_free (error->message);
  error->message = message;
}

static void
sample_add_eos_ids (JsonBuilder           *builder,
                    const TsSampleOptions *o)
{
  json_builder_set_member_name (builder, "eos_token_id");
  json_builder_begin_array (builder);
  json_builder_add_int_value (builder, sample_special_id (o, SPECIAL_END_OF_TEXT));
  json_builder_add_int_value (builder, sample_special_id (o, SPECIAL_EOM));
  json_builder_add_int_value (builder, sample_special_id (o, SPECIAL_EOT));
  json_builder_end_array (builder);
}

static void
sample_add_rope_scaling (JsonBuilder *builder,
                         gboolean     rope_scaling)
{
  if (!rope_scaling)
    {
      sample_add_null (builder, "rope_scaling");
      return;
    }
  json_builder_set_member_name (builder, "rope_scaling");
  json_builder_begin_object (builder);
  sample_add_double (builder, "factor", 32.0);
  sample_add_double (builder, "high_freq_factor", 4.0);
  sample_add_double (builder, "low_freq_factor", 1.0);
  sample_add_int (builder, "original_max_position_embeddings", 8192);
  sample_add_string (builder, "rope_type", "llama3");
  json_builder_end_object (builder);
}

/* Keys sorted, as transformers writes them */
static JsonBuilder *
sample_config_builder (const TsSampleOptions *o,
                       const char            *name)
{
  JsonBuilder *builder = json_builder_new ();

  json_builder_begin_object (builder);
  sample_add_string (builder, "_name_or_path", name);
  json_builder_set_member_name (builder, "architectures");
  json_builder_begin_array (builder);
  json_builder_add_string_value (builder, "LlamaForCausalLM");
  json_builder_end_array (builder);
  sample_add_bool (builder, "attention_bias", FALSE);
  sample_add_double (builder, "attention_dropout", 0.0);
  sample_add_int (builder, "bos_token_id", sample_special_id (o, SPECIAL_BEGIN_OF_TEXT));
  sample_add_eos_ids (builder, o);
  if (o->head_dim_in_config)
    sample_add_int (builder, "head_dim", o->hidden_size / o->n_heads);
  sample_add_string (builder, "hidden_act", "silu");
  sample_add_int (builder, "hidden_size", o->hidden_size);
  sample_add_double (builder, "initializer_range", 0.02);
  sample_add_int (builder, "intermediate_size", o->intermediate_size);
  sample_add_int (builder, "max_position_embeddings", SAMPLE_CONTEXT_LENGTH);
  sample_add_bool (builder, "mlp_bias", FALSE);
  sample_add_string (builder, "model_type", "llama");
  sample_add_int (builder, "num_attention_heads", o->n_heads);
  sample_add_int (builder, "num_hidden_layers", o->n_layers);
  sample_add_int (builder, "num_key_value_heads", o->n_kv_heads);
  sample_add_int (builder, "pretraining_tp", 1);
  sample_add_double (builder, "rms_norm_eps", 1e-05);
  sample_add_rope_scaling (builder, o->rope_scaling);
  sample_add_double (builder, "rope_theta", 500000.0);
  sample_add_bool (builder, "tie_word_embeddings", o->tied_embeddings);
  sample_add_string (builder, "torch_dtype", "bfloat16");
  sample_add_string (builder, "transformers_version", SAMPLE_TRANSFORMERS);
  sample_add_bool (builder, "use_cache", TRUE);
  sample_add_int (builder, "vocab_size", o->vocab_size);
  json_builder_end_object (builder);
  return builder;
}

static JsonBuilder *
sample_generation_config_builder (const TsSampleOptions *o)
{
  JsonBuilder *builder = json_builder_new ();

  json_builder_begin_object (builder);
  sample_add_int (builder, "bos_token_id", sample_special_id (o, SPECIAL_BEGIN_OF_TEXT));
  sample_add_bool (builder, "do_sample", TRUE);
  sample_add_eos_ids (builder, o);
  sample_add_double (builder, "temperature", 0.6);
  sample_add_double (builder, "top_p", 0.9);
  sample_add_string (builder, "transformers_version", SAMPLE_TRANSFORMERS);
  json_builder_end_object (builder);
  return builder;
}

static gboolean
sample_write_configs (SampleWriter           *writer,
                      const TsSampleOptions  *o,
                      GError                **error)
{
  g_autofree char *name = ts_file_display_basename (writer->dir);
  g_autoptr(JsonBuilder) config = sample_config_builder (o, name);
  g_autoptr(JsonBuilder) generation = sample_generation_config_builder (o);

  return sample_writer_add_json (writer, "config.json", config, error)
         && sample_writer_add_json (writer, "generation_config.json", generation, error);
}

static void
sample_add_added_tokens (JsonBuilder           *builder,
                         const TsSampleOptions *o)
{
  json_builder_set_member_name (builder, "added_tokens");
  json_builder_begin_array (builder);
  for (guint i = 0; i < SAMPLE_N_SPECIAL_TOKENS; i++)
    {
      g_autofree char *content = sample_special_name (i);

      json_builder_begin_object (builder);
      sample_add_int (builder, "id", sample_special_id (o, i));
      sample_add_string (builder, "content", content);
      sample_add_bool (builder, "single_word", FALSE);
      sample_add_bool (builder, "lstrip", FALSE);
      sample_add_bool (builder, "rstrip", FALSE);
      sample_add_bool (builder, "normalized", FALSE);
      sample_add_bool (builder, "special", TRUE);
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);
}

/* A ByteLevel pre-tokenizer or decoder (without the member name) */
static void
sample_add_byte_level (JsonBuilder *builder,
                       gboolean     add_prefix_space,
                       gboolean     use_regex)
{
  json_builder_begin_object (builder);
  sample_add_string (builder, "type", "ByteLevel");
  sample_add_bool (builder, "add_prefix_space", add_prefix_space);
  sample_add_bool (builder, "trim_offsets", TRUE);
  sample_add_bool (builder, "use_regex", use_regex);
  json_builder_end_object (builder);
}

static void
sample_add_pre_tokenizer (JsonBuilder *builder)
{
  json_builder_set_member_name (builder, "pre_tokenizer");
  json_builder_begin_object (builder);
  sample_add_string (builder, "type", "Sequence");
  json_builder_set_member_name (builder, "pretokenizers");
  json_builder_begin_array (builder);
  json_builder_begin_object (builder);
  sample_add_string (builder, "type", "Split");
  json_builder_set_member_name (builder, "pattern");
  json_builder_begin_object (builder);
  sample_add_string (builder, "Regex", SAMPLE_LLAMA3_PATTERN);
  json_builder_end_object (builder);
  sample_add_string (builder, "behavior", "Isolated");
  sample_add_bool (builder, "invert", FALSE);
  json_builder_end_object (builder);
  sample_add_byte_level (builder, FALSE, FALSE);
  json_builder_end_array (builder);
  json_builder_end_object (builder);
}

/* {"SpecialToken": {"id": …, "type_id": …}} or {"Sequence": {…}} */
static void
sample_add_template_piece (JsonBuilder *builder,
                           const char  *kind,
                           const char  *id,
                           gint64       type_id)
{
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, kind);
  json_builder_begin_object (builder);
  sample_add_string (builder, "id", id);
  sample_add_int (builder, "type_id", type_id);
  json_builder_end_object (builder);
  json_builder_end_object (builder);
}

static void
sample_add_bos_special_tokens (JsonBuilder           *builder,
                               const TsSampleOptions *o)
{
  const char *bos = sample_named_specials[SPECIAL_BEGIN_OF_TEXT];

  json_builder_set_member_name (builder, "special_tokens");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, bos);
  json_builder_begin_object (builder);
  sample_add_string (builder, "id", bos);
  json_builder_set_member_name (builder, "ids");
  json_builder_begin_array (builder);
  json_builder_add_int_value (builder, sample_special_id (o, SPECIAL_BEGIN_OF_TEXT));
  json_builder_end_array (builder);
  json_builder_set_member_name (builder, "tokens");
  json_builder_begin_array (builder);
  json_builder_add_string_value (builder, bos);
  json_builder_end_array (builder);
  json_builder_end_object (builder);
  json_builder_end_object (builder);
}

/* Prepends <|begin_of_text|> to every input, as Llama 3 does */
static void
sample_add_post_processor (JsonBuilder           *builder,
                           const TsSampleOptions *o)
{
  const char *bos = sample_named_specials[SPECIAL_BEGIN_OF_TEXT];

  json_builder_set_member_name (builder, "post_processor");
  json_builder_begin_object (builder);
  sample_add_string (builder, "type", "TemplateProcessing");
  json_builder_set_member_name (builder, "single");
  json_builder_begin_array (builder);
  sample_add_template_piece (builder, "SpecialToken", bos, 0);
  sample_add_template_piece (builder, "Sequence", "A", 0);
  json_builder_end_array (builder);
  json_builder_set_member_name (builder, "pair");
  json_builder_begin_array (builder);
  sample_add_template_piece (builder, "SpecialToken", bos, 0);
  sample_add_template_piece (builder, "Sequence", "A", 0);
  sample_add_template_piece (builder, "SpecialToken", bos, 1);
  sample_add_template_piece (builder, "Sequence", "B", 1);
  json_builder_end_array (builder);
  sample_add_bos_special_tokens (builder, o);
  json_builder_end_object (builder);
}

static void
sample_add_model (JsonBuilder *builder,
                  SampleVocab *vocab)
{
  json_builder_set_member_name (builder, "model");
  json_builder_begin_object (builder);
  sample_add_string (builder, "type", "BPE");
  sample_add_null (builder, "dropout");
  sample_add_null (builder, "unk_token");
  sample_add_null (builder, "continuing_subword_prefix");
  sample_add_null (builder, "end_of_word_suffix");
  sample_add_bool (builder, "fuse_unk", FALSE);
  sample_add_bool (builder, "byte_fallback", FALSE);
  sample_add_bool (builder, "ignore_merges", TRUE);
  json_builder_set_member_name (builder, "vocab");
  json_builder_begin_object (builder);
  for (guint id = 0; id < vocab->tokens->len; id++)
    sample_add_int (builder, g_ptr_array_index (vocab->tokens, id), id);
  json_builder_end_object (builder);
  json_builder_set_member_name (builder, "merges");
  json_builder_begin_array (builder);
  for (guint i = 0; i < vocab->merges->len; i++)
    json_builder_add_string_value (builder, g_ptr_array_index (vocab->merges, i));
  json_builder_end_array (builder);
  json_builder_end_object (builder);
}

static JsonBuilder *
sample_tokenizer_builder (const TsSampleOptions *o,
                          SampleVocab           *vocab)
{
  JsonBuilder *builder = json_builder_new ();

  json_builder_begin_object (builder);
  sample_add_string (builder, "version", "1.0");
  sample_add_null (builder, "truncation");
  sample_add_null (builder, "padding");
  sample_add_added_tokens (builder, o);
  sample_add_null (builder, "normalizer");
  sample_add_pre_tokenizer (builder);
  sample_add_post_processor (builder, o);
  json_builder_set_member_name (builder, "decoder");
  sample_add_byte_level (builder, TRUE, TRUE);
  sample_add_model (builder, vocab);
  json_builder_end_object (builder);
  return builder;
}

/* {"content": …, "lstrip": false, "normalized": false, "rstrip": false,
 *  "single_word": false[, "special": true]} */
static void
sample_add_token_object (JsonBuilder *builder,
                         const char  *content,
                         gboolean     with_special)
{
  json_builder_begin_object (builder);
  sample_add_string (builder, "content", content);
  sample_add_bool (builder, "lstrip", FALSE);
  sample_add_bool (builder, "normalized", FALSE);
  sample_add_bool (builder, "rstrip", FALSE);
  sample_add_bool (builder, "single_word", FALSE);
  if (with_special)
    sample_add_bool (builder, "special", TRUE);
  json_builder_end_object (builder);
}

static void
sample_add_added_tokens_decoder (JsonBuilder           *builder,
                                 const TsSampleOptions *o)
{
  json_builder_set_member_name (builder, "added_tokens_decoder");
  json_builder_begin_object (builder);
  for (guint i = 0; i < SAMPLE_N_SPECIAL_TOKENS; i++)
    {
      g_autofree char *id = g_strdup_printf ("%u", sample_special_id (o, i));
      g_autofree char *content = sample_special_name (i);

      json_builder_set_member_name (builder, id);
      sample_add_token_object (builder, content, TRUE);
    }
  json_builder_end_object (builder);
}

static JsonBuilder *
sample_tokenizer_config_builder (const TsSampleOptions *o)
{
  JsonBuilder *builder = json_builder_new ();

  json_builder_begin_object (builder);
  sample_add_bool (builder, "add_bos_token", TRUE);
  sample_add_bool (builder, "add_eos_token", FALSE);
  sample_add_added_tokens_decoder (builder, o);
  sample_add_string (builder, "bos_token", sample_named_specials[SPECIAL_BEGIN_OF_TEXT]);
  sample_add_string (builder, "chat_template", sample_chat_template);
  sample_add_bool (builder, "clean_up_tokenization_spaces", TRUE);
  sample_add_string (builder, "eos_token", sample_named_specials[SPECIAL_EOT]);
  json_builder_set_member_name (builder, "model_input_names");
  json_builder_begin_array (builder);
  json_builder_add_string_value (builder, "input_ids");
  json_builder_add_string_value (builder, "attention_mask");
  json_builder_end_array (builder);
  sample_add_int (builder, "model_max_length", SAMPLE_CONTEXT_LENGTH);
  sample_add_string (builder, "tokenizer_class", "PreTrainedTokenizerFast");
  json_builder_end_object (builder);
  return builder;
}

static JsonBuilder *
sample_special_tokens_map_builder (void)
{
  JsonBuilder *builder = json_builder_new ();

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "bos_token");
  sample_add_token_object (builder, sample_named_specials[SPECIAL_BEGIN_OF_TEXT], FALSE);
  json_builder_set_member_name (builder, "eos_token");
  sample_add_token_object (builder, sample_named_specials[SPECIAL_EOT], FALSE);
  json_builder_end_object (builder);
  return builder;
}

static gboolean
sample_write_tokenizer (SampleWriter           *writer,
                        const TsSampleOptions  *o,
                        GError                **error)
{
  g_autoptr(SampleVocab) vocab = NULL;
  g_autoptr(JsonBuilder) tokenizer = NULL;
  g_autoptr(JsonBuilder) config = sample_tokenizer_config_builder (o);
  g_autoptr(JsonBuilder) map = sample_special_tokens_map_builder ();

  if (g_cancellable_set_error_if_cancelled (writer->cancellable, error))
    return FALSE;
  vocab = sample_vocab_build (o->vocab_size - SAMPLE_N_SPECIAL_TOKENS);
  tokenizer = sample_tokenizer_builder (o, vocab);
  return sample_writer_add_json (writer, "tokenizer.json", tokenizer, error)
         && sample_writer_add_json (writer, "tokenizer_config.json", config, error)
         && sample_writer_add_json (writer, "special_tokens_map.json", map, error);
}

/* {"__metadata__": {"format": "pt"}, name: {"dtype", "shape", "data_offsets"}, …}
 * with the tensors of @sorted in order, padded with spaces to a multiple
 * of 8 bytes. Sets each tensor's begin offset. */
static GString *
sample_shard_header (GPtrArray *sorted)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autofree char *json = NULL;
  GString *header;
  guint64 offset = 0;

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "__metadata__");
  json_builder_begin_object (builder);
  sample_add_string (builder, "format", "pt");
  json_builder_end_object (builder);
  for (guint i = 0; i < sorted->len; i++)
    {
      SampleTensor *tensor = g_ptr_array_index (sorted, i);

      tensor->begin = offset;
      offset += tensor->n_bytes;
      json_builder_set_member_name (builder, tensor->name);
      json_builder_begin_object (builder);
      sample_add_string (builder, "dtype", "BF16");
      json_builder_set_member_name (builder, "shape");
      json_builder_begin_array (builder);
      for (guint d = 0; d < tensor->n_dims; d++)
        json_builder_add_int_value (builder, tensor->shape[d]);
      json_builder_end_array (builder);
      json_builder_set_member_name (builder, "data_offsets");
      json_builder_begin_array (builder);
      json_builder_add_int_value (builder, tensor->begin);
      json_builder_add_int_value (builder, offset);
      json_builder_end_array (builder);
      json_builder_end_object (builder);
    }
  json_builder_end_object (builder);
  json = sample_builder_to_json (builder, FALSE);
  header = g_string_new (json);
  while (header->len % 8 != 0)
    g_string_append_c (header, ' ');
  return header;
}

static gboolean
sample_write_shard (SampleWriter           *writer,
                    const TsSampleOptions  *o,
                    GArray                 *tensors,
                    guint                   shard,
                    GError                **error)
{
  g_autoptr(GPtrArray) sorted = sample_sorted_tensors (tensors, shard);
  g_autoptr(GString) header = sample_shard_header (sorted);
  g_autofree char *name = sample_shard_name (shard, o->n_shards);
  g_autoptr(GOutputStream) out = sample_writer_open (writer, name, error);
  guint64 header_len = GUINT64_TO_LE ((guint64) header->len);

  if (out == NULL
      || !g_output_stream_write_all (out, &header_len, sizeof header_len, NULL,
                                     writer->cancellable, error)
      || !g_output_stream_write_all (out, header->str, header->len, NULL,
                                     writer->cancellable, error))
    return FALSE;
  for (guint i = 0; i < sorted->len; i++)
    if (!sample_write_tensor_data (out, o->seed, g_ptr_array_index (sorted, i),
                                   writer->cancellable, error))
      return FALSE;
  return g_output_stream_close (out, writer->cancellable, error);
}

/* {"metadata": {"total_size": …}, "weight_map": {name: shard, …}} */
static JsonBuilder *
sample_index_builder (const TsSampleOptions *o,
                      GArray                *tensors)
{
  g_autoptr(GPtrArray) sorted = sample_sorted_tensors (tensors, G_MAXUINT);
  JsonBuilder *builder = json_builder_new ();
  guint64 total = 0;

  for (guint i = 0; i < sorted->len; i++)
    total += ((SampleTensor *) g_ptr_array_index (sorted, i))->n_bytes;
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "metadata");
  json_builder_begin_object (builder);
  sample_add_int (builder, "total_size", total);
  json_builder_end_object (builder);
  json_builder_set_member_name (builder, "weight_map");
  json_builder_begin_object (builder);
  for (guint i = 0; i < sorted->len; i++)
    {
      SampleTensor *tensor = g_ptr_array_index (sorted, i);
      g_autofree char *shard = sample_shard_name (tensor->shard, o->n_shards);

      sample_add_string (builder, tensor->name, shard);
    }
  json_builder_end_object (builder);
  json_builder_end_object (builder);
  return builder;
}

static gboolean
sample_write_weights (SampleWriter           *writer,
                      const TsSampleOptions  *o,
                      GError                **error)
{
  g_autoptr(GArray) tensors = sample_build_tensors (o);
  g_autoptr(JsonBuilder) index = NULL;

  for (guint shard = 0; shard < o->n_shards; shard++)
    if (!sample_write_shard (writer, o, tensors, shard, error))
      return FALSE;
  if (o->n_shards == 1)
    return TRUE;
  index = sample_index_builder (o, tensors);
  return sample_writer_add_json (writer, "model.safetensors.index.json", index, error);
}

/* A folder that holds anything (a hidden file too) is refused: a sample
 * written among the files of another checkpoint would make one that
 * contradicts itself. One that does not exist yet is fine. */
static gboolean
sample_check_empty (GFile         *dir,
                    GCancellable  *cancellable,
                    GError       **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autoptr(GFileEnumerator) children =
    g_file_enumerate_children (dir, G_FILE_ATTRIBUTE_STANDARD_NAME, G_FILE_QUERY_INFO_NONE,
                               cancellable, &local_error);
  GFileInfo *info = NULL;

  if (children == NULL)
    {
      if (g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
        return TRUE;
      g_propagate_error (error, g_steal_pointer (&local_error));
      return FALSE;
    }
  if (!g_file_enumerator_iterate (children, &info, NULL, cancellable, error))
    return FALSE;
  if (info != NULL)
    {
      g_autofree char *name = ts_file_display_name (dir);
      g_autofree char *child = g_filename_display_name (g_file_info_get_name (info));

      g_set_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS,
                   _("%s is not empty (it holds %s): a sample is written into a new or empty folder"),
                   name, child);
      return FALSE;
    }
  return TRUE;
}

/* @created: set when @dir is made here, to remove it again if the sample
 * fails (its parents, made too, are left) */
static gboolean
sample_make_directory (GFile         *dir,
                       gboolean      *created,
                       GCancellable  *cancellable,
                       GError       **error)
{
  g_autoptr(GError) local_error = NULL;

  *created = g_file_make_directory_with_parents (dir, cancellable, &local_error);
  if (*created || g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_EXISTS))
    return TRUE;
  g_propagate_error (error, g_steal_pointer (&local_error));
  return FALSE;
}

/**
 * ts_sample_write:
 * @dir: the folder to write into; created if needed
 * @options: what to write, see ts_sample_options_init()
 * @cancellable: (nullable): checked between files and tensors
 * @error: return location for a #GError
 *
 * Writes a small seeded Llama-3-shaped Hugging Face checkpoint into @dir:
 * config.json, generation_config.json, a byte-level BPE tokenizer trained on
 * a built-in text (tokenizer.json, tokenizer_config.json with Llama 3.2's
 * chat template, special_tokens_map.json), and BF16 weights in one
 * `model.safetensors` or in `model-0000K-of-0000N.safetensors` shards with
 * `model.safetensors.index.json`.
 *
 * The output is a function of @options alone: the same seed gives the same
 * bytes. Every file is written under a temporary name and renamed into place
 * once all of them are complete, so an error or a cancellation leaves no
 * partial file behind.
 *
 * A @dir that exists and is not empty is refused unless @options->replace
 * (the default): then the files the sample writes replace those of the
 * same names, `model.safetensors`, `model-*-of-*.safetensors` and
 * `model.safetensors.index.json` files it does not write (an earlier
 * sample's, with other shards) are removed just before, and any other file
 * is left alone.
 *
 * Returns: %TRUE on success; %FALSE with @error set (%G_IO_ERROR_INVALID_ARGUMENT
 *   for options that do not make a Llama model, %G_IO_ERROR_EXISTS for a
 *   folder that is not empty without @options->replace)
 */
gboolean
ts_sample_write (GFile                  *dir,
                 const TsSampleOptions  *options,
                 GCancellable           *cancellable,
                 GError                **error)
{
  SampleWriter *writer;
  gboolean created = FALSE;
  gboolean ok;

  g_return_val_if_fail (G_IS_FILE (dir), FALSE);
  g_return_val_if_fail (options != NULL, FALSE);
  g_return_val_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!ts_sample_options_validate (options, NULL, error)
      || (!options->replace && !sample_check_empty (dir, cancellable, error))
      || !sample_make_directory (dir, &created, cancellable, error))
    return FALSE;

  writer = sample_writer_new (dir, cancellable);
  ok = sample_write_configs (writer, options, error)
       && sample_write_tokenizer (writer, options, error)
       && sample_write_weights (writer, options, error)
       && sample_writer_commit (writer, options->replace, error);
  if (!ok && error != NULL)
    sample_writer_name_error (writer, *error);
  /* the temporary files go first, then the folder made for them */
  sample_writer_free (writer);
  if (!ok && created)
    g_file_delete (dir, NULL, NULL);
  return ok;
}
