/* test-sample.c
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include <json-glib/json-glib.h>

#include "ts-sample.h"

/* A fresh folder per test, removed with everything in it afterwards. */
typedef struct
{
  GFile *root;
} Fixture;

static void
fixture_set_up (Fixture       *fixture,
                gconstpointer  user_data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = g_dir_make_tmp (NULL, &error);

  g_assert_no_error (error);
  fixture->root = g_file_new_for_path (path);
}

static void
delete_recursively (GFile *file)
{
  g_autoptr(GFileEnumerator) children =
    g_file_enumerate_children (file, G_FILE_ATTRIBUTE_STANDARD_NAME,
                               G_FILE_QUERY_INFO_NOFOLLOW_SYMLINKS, NULL, NULL);
  GFile *child;

  while (children != NULL
         && g_file_enumerator_iterate (children, NULL, &child, NULL, NULL)
         && child != NULL)
    delete_recursively (child);
  g_file_delete (file, NULL, NULL);
}

static void
fixture_tear_down (Fixture       *fixture,
                   gconstpointer  user_data)
{
  delete_recursively (fixture->root);
  g_clear_object (&fixture->root);
}

/* Writes a sample into @root/@parent/tiny-llama and returns that folder. The
 * folder's name is in config.json, so it is the same for every sample. */
static GFile *
write_sample (Fixture               *fixture,
              const char            *parent,
              const TsSampleOptions *options)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) up = g_file_get_child (fixture->root, parent);
  GFile *dir = g_file_get_child (up, "tiny-llama");

  g_assert_true (ts_sample_write (dir, options, NULL, &error));
  g_assert_no_error (error);
  return dir;
}

static int
compare_names (gconstpointer a,
               gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

/* The names of the files in @dir, sorted; none if @dir does not exist */
static GPtrArray *
list_files (GFile *dir)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GFileEnumerator) children =
    g_file_enumerate_children (dir, G_FILE_ATTRIBUTE_STANDARD_NAME,
                               G_FILE_QUERY_INFO_NONE, NULL, &error);
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  GFileInfo *info;

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
    return names;
  g_assert_no_error (error);
  while (g_file_enumerator_iterate (children, &info, NULL, NULL, &error) && info != NULL)
    g_ptr_array_add (names, g_strdup (g_file_info_get_name (info)));
  g_assert_no_error (error);
  g_ptr_array_sort (names, compare_names);
  return names;
}

static GBytes *
load (GFile      *dir,
      const char *name)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) file = g_file_get_child (dir, name);
  GBytes *bytes = g_file_load_bytes (file, NULL, NULL, &error);

  g_assert_no_error (error);
  return bytes;
}

static JsonObject *
load_json (GFile      *dir,
           const char *name)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = load (dir, name);
  g_autoptr(JsonParser) parser = json_parser_new ();
  gsize len;
  const char *data = g_bytes_get_data (bytes, &len);

  json_parser_load_from_data (parser, data, len, &error);
  g_assert_no_error (error);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)));
  return json_object_ref (json_node_get_object (json_parser_get_root (parser)));
}

static void
test_deterministic (Fixture       *fixture,
                    gconstpointer  user_data)
{
  TsSampleOptions options;
  g_autoptr(GFile) a = NULL;
  g_autoptr(GFile) b = NULL;
  g_autoptr(GFile) c = NULL;
  g_autoptr(GPtrArray) names_a = NULL;
  g_autoptr(GPtrArray) names_b = NULL;

  ts_sample_options_init (&options);
  a = write_sample (fixture, "a", &options);
  b = write_sample (fixture, "b", &options);
  options.seed = 43;
  c = write_sample (fixture, "c", &options);

  names_a = list_files (a);
  names_b = list_files (b);
  g_assert_cmpuint (names_a->len, ==, 8);
  g_assert_cmpuint (names_a->len, ==, names_b->len);
  for (guint i = 0; i < names_a->len; i++)
    {
      const char *name = g_ptr_array_index (names_a, i);
      g_autoptr(GBytes) bytes_a = load (a, name);
      g_autoptr(GBytes) bytes_b = load (b, name);
      g_autoptr(GBytes) bytes_c = load (c, name);

      g_assert_cmpstr (name, ==, g_ptr_array_index (names_b, i));
      g_assert_true (g_bytes_equal (bytes_a, bytes_b));
      /* The seed drives the weights only */
      if (g_str_has_suffix (name, ".safetensors"))
        g_assert_false (g_bytes_equal (bytes_a, bytes_c));
      else
        g_assert_true (g_bytes_equal (bytes_a, bytes_c));
    }
}

/* Parses a Safetensors header and checks that the data tiles the file. */
static JsonObject *
load_safetensors_header (GFile      *dir,
                         const char *name)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = load (dir, name);
  g_autoptr(JsonParser) parser = json_parser_new ();
  gsize size;
  const guint8 *data = g_bytes_get_data (bytes, &size);
  guint64 header_len;

  g_assert_cmpuint (size, >=, 8);
  memcpy (&header_len, data, 8);
  header_len = GUINT64_FROM_LE (header_len);
  g_assert_cmpuint (header_len % 8, ==, 0);
  g_assert_cmpuint (8 + header_len, <=, size);
  json_parser_load_from_data (parser, (const char *) data + 8, header_len, &error);
  g_assert_no_error (error);
  return json_object_ref (json_node_get_object (json_parser_get_root (parser)));
}

/* Checks the tensors of one shard against the weight map; returns their
 * number and adds their bytes to @total. */
static guint
check_shard (GFile      *dir,
             const char *shard,
             JsonObject *weight_map,
             guint64    *total)
{
  g_autoptr(JsonObject) header = load_safetensors_header (dir, shard);
  g_autoptr(GList) names = json_object_get_members (header);
  JsonObject *metadata = json_object_get_object_member (header, "__metadata__");
  guint n = 0;

  g_assert_cmpstr (json_object_get_string_member (metadata, "format"), ==, "pt");
  for (GList *l = names; l != NULL; l = l->next)
    {
      JsonObject *entry;
      JsonArray *offsets;

      if (g_str_equal (l->data, "__metadata__"))
        continue;
      entry = json_object_get_object_member (header, l->data);
      offsets = json_object_get_array_member (entry, "data_offsets");
      g_assert_cmpstr (json_object_get_string_member (entry, "dtype"), ==, "BF16");
      g_assert_true (json_object_has_member (weight_map, l->data));
      g_assert_cmpstr (json_object_get_string_member (weight_map, l->data), ==, shard);
      *total += json_array_get_int_element (offsets, 1) - json_array_get_int_element (offsets, 0);
      n++;
    }
  return n;
}

static void
add_shard_names (GHashTable *shards,
                 JsonObject *weight_map)
{
  g_autoptr(GList) values = json_object_get_values (weight_map);

  for (GList *l = values; l != NULL; l = l->next)
    g_hash_table_add (shards, (gpointer) json_node_get_string (l->data));
}

static void
test_index (Fixture       *fixture,
            gconstpointer  user_data)
{
  TsSampleOptions options;
  g_autoptr(GFile) dir = NULL;
  g_autoptr(JsonObject) index = NULL;
  g_autoptr(GHashTable) shards = g_hash_table_new (g_str_hash, g_str_equal);
  JsonObject *weight_map;
  JsonObject *metadata;
  GHashTableIter iter;
  gpointer shard;
  guint64 total = 0;
  guint n_tensors = 0;

  ts_sample_options_init (&options);
  options.n_shards = 3;
  options.tied_embeddings = FALSE;
  dir = write_sample (fixture, "index", &options);
  index = load_json (dir, "model.safetensors.index.json");
  weight_map = json_object_get_object_member (index, "weight_map");
  g_assert_cmpuint (json_object_get_size (weight_map), ==, 9 * options.n_layers + 3);
  add_shard_names (shards, weight_map);
  g_assert_cmpuint (g_hash_table_size (shards), ==, 3);
  g_assert_true (g_hash_table_contains (shards, "model-00002-of-00003.safetensors"));
  g_hash_table_iter_init (&iter, shards);
  while (g_hash_table_iter_next (&iter, &shard, NULL))
    n_tensors += check_shard (dir, shard, weight_map, &total);
  g_assert_cmpuint (n_tensors, ==, json_object_get_size (weight_map));
  metadata = json_object_get_object_member (index, "metadata");
  g_assert_cmpuint (total, ==, json_object_get_int_member (metadata, "total_size"));
}

static void
test_single_shard (Fixture       *fixture,
                   gconstpointer  user_data)
{
  TsSampleOptions options;
  g_autoptr(GFile) dir = NULL;
  g_autoptr(GFile) index = NULL;
  g_autoptr(JsonObject) header = NULL;

  ts_sample_options_init (&options);
  options.n_shards = 1;
  dir = write_sample (fixture, "single", &options);
  index = g_file_get_child (dir, "model.safetensors.index.json");
  g_assert_false (g_file_query_exists (index, NULL));
  header = load_safetensors_header (dir, "model.safetensors");
  /* 9 per layer, embedding, final norm, __metadata__ */
  g_assert_cmpuint (json_object_get_size (header), ==, 9 * options.n_layers + 3);
}

static gint64
added_token_id (JsonArray  *added,
                const char *content)
{
  for (guint i = 0; i < json_array_get_length (added); i++)
    {
      JsonObject *token = json_array_get_object_element (added, i);

      if (g_strcmp0 (json_object_get_string_member (token, "content"), content) == 0)
        return json_object_get_int_member (token, "id");
    }
  return -1;
}

static void
check_merges (JsonObject *model)
{
  JsonObject *vocab = json_object_get_object_member (model, "vocab");
  JsonArray *merges = json_object_get_array_member (model, "merges");

  g_assert_cmpuint (json_array_get_length (merges), >, 0);
  for (guint i = 0; i < json_array_get_length (merges); i++)
    {
      g_auto(GStrv) parts = g_strsplit (json_array_get_string_element (merges, i), " ", -1);
      g_autofree char *joined = NULL;

      g_assert_cmpuint (g_strv_length (parts), ==, 2);
      joined = g_strconcat (parts[0], parts[1], NULL);
      g_assert_true (json_object_has_member (vocab, parts[0]));
      g_assert_true (json_object_has_member (vocab, parts[1]));
      g_assert_true (json_object_has_member (vocab, joined));
      g_assert_cmpint (json_object_get_int_member (vocab, joined), >=, 256);
    }
}

static void
test_tokenizer (Fixture       *fixture,
                gconstpointer  user_data)
{
  TsSampleOptions options;
  g_autoptr(GFile) dir = NULL;
  g_autoptr(JsonObject) tokenizer = NULL;
  g_autoptr(JsonObject) config = NULL;
  g_autoptr(JsonObject) tokenizer_config = NULL;
  JsonObject *model;
  JsonArray *added;
  JsonArray *eos;
  const char *bos;
  gint64 vocab_size;

  ts_sample_options_init (&options);
  dir = write_sample (fixture, "tokenizer", &options);
  tokenizer = load_json (dir, "tokenizer.json");
  config = load_json (dir, "config.json");
  tokenizer_config = load_json (dir, "tokenizer_config.json");
  model = json_object_get_object_member (tokenizer, "model");
  added = json_object_get_array_member (tokenizer, "added_tokens");
  vocab_size = json_object_get_int_member (config, "vocab_size");

  g_assert_cmpstr (json_object_get_string_member (model, "type"), ==, "BPE");
  g_assert_cmpint (vocab_size, ==, options.vocab_size);
  g_assert_cmpuint (json_object_get_size (json_object_get_object_member (model, "vocab")), ==,
                    vocab_size - 256);
  g_assert_cmpuint (json_array_get_length (added), ==, 256);
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (model, "vocab"),
                                               "Ġ"), ==, 220);
  check_merges (model);

  g_assert_cmpint (added_token_id (added, "<|begin_of_text|>"), ==, vocab_size - 256);
  g_assert_cmpint (added_token_id (added, "<|reserved_special_token_247|>"), ==, vocab_size - 1);
  bos = json_object_get_string_member (tokenizer_config, "bos_token");
  g_assert_cmpint (json_object_get_int_member (config, "bos_token_id"), ==,
                   added_token_id (added, bos));
  eos = json_object_get_array_member (config, "eos_token_id");
  g_assert_cmpuint (json_array_get_length (eos), ==, 3);
  g_assert_cmpint (json_array_get_int_element (eos, 0), ==,
                   added_token_id (added, "<|end_of_text|>"));
  g_assert_cmpint (json_array_get_int_element (eos, 1), ==, added_token_id (added, "<|eom_id|>"));
  g_assert_cmpint (json_array_get_int_element (eos, 2), ==, added_token_id (added, "<|eot_id|>"));
  g_assert_cmpstr (json_object_get_string_member (tokenizer_config, "eos_token"), ==, "<|eot_id|>");
  g_assert_cmpuint (strlen (json_object_get_string_member (tokenizer_config, "chat_template")),
                    ==, 3827);
}

static void
test_invalid (Fixture       *fixture,
              gconstpointer  user_data)
{
  struct { guint hidden, heads, kv_heads, vocab, shards; TsSampleField field; } cases[] = {
    { 250, 8, 2, 1024, 2, TS_SAMPLE_FIELD_N_HEADS },      /* hidden not divisible by heads */
    { 256, 8, 3, 1024, 2, TS_SAMPLE_FIELD_N_KV_HEADS },   /* heads not divisible by kv heads */
    { 24, 8, 2, 1024, 2, TS_SAMPLE_FIELD_N_HEADS },       /* head size 3 is odd */
    { 256, 8, 2, 512, 2, TS_SAMPLE_FIELD_VOCAB_SIZE },    /* no room for learned tokens */
    { 256, 8, 2, 1024, 0, TS_SAMPLE_FIELD_N_SHARDS },     /* no shard */
    { 256, 8, 2, 1024, 21, TS_SAMPLE_FIELD_N_SHARDS },    /* more shards than the 20 tensors */
    { 0, 8, 2, 1024, 2, TS_SAMPLE_FIELD_HIDDEN_SIZE },
  };
  g_autoptr(GFile) dir = g_file_get_child (fixture->root, "invalid");

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      TsSampleOptions options;
      TsSampleField field;

      ts_sample_options_init (&options);
      options.hidden_size = cases[i].hidden;
      options.n_heads = cases[i].heads;
      options.n_kv_heads = cases[i].kv_heads;
      options.vocab_size = cases[i].vocab;
      options.n_shards = cases[i].shards;
      g_assert_false (ts_sample_write (dir, &options, NULL, &error));
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
      g_clear_error (&error);
      /* the setting a front end names */
      g_assert_false (ts_sample_options_validate (&options, &field, &error));
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
      g_assert_cmpint (field, ==, cases[i].field);
    }
  {
    TsSampleOptions options;
    TsSampleField field = TS_SAMPLE_FIELD_N_SHARDS;

    ts_sample_options_init (&options);
    g_assert_true (ts_sample_options_validate (&options, &field, NULL));
    g_assert_cmpint (field, ==, TS_SAMPLE_FIELD_NONE);
  }
  g_assert_false (g_file_query_exists (dir, NULL));
}

static gpointer
cancel_later (gpointer data)
{
  GCancellable *cancellable = data;

  g_usleep (GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (cancellable), "delay")));
  g_cancellable_cancel (cancellable);
  return NULL;
}

/* Cancelled at some point, the writer leaves either nothing or everything */
static void
test_cancelled (Fixture       *fixture,
                gconstpointer  user_data)
{
  static const guint delays[] = { 0, 2000, 10000, 40000, 400000 };
  TsSampleOptions options;

  ts_sample_options_init (&options);
  options.n_layers = 4;
  options.n_shards = 4;
  for (guint i = 0; i < G_N_ELEMENTS (delays); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GCancellable) cancellable = g_cancellable_new ();
      g_autofree char *name = g_strdup_printf ("cancelled-%u", i);
      g_autoptr(GFile) dir = g_file_get_child (fixture->root, name);
      g_autoptr(GPtrArray) names = NULL;
      GThread *thread;
      gboolean done;

      g_object_set_data (G_OBJECT (cancellable), "delay", GUINT_TO_POINTER (delays[i]));
      thread = g_thread_new ("cancel", cancel_later, cancellable);
      done = ts_sample_write (dir, &options, cancellable, &error);
      g_thread_join (thread);
      names = list_files (dir);
      if (done)
        g_assert_cmpuint (names->len, ==, 10);
      else
        {
          g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
          g_assert_cmpuint (names->len, ==, 0);
        }
    }
}

/* A failed rename deletes the temporary files not yet renamed */
static void
test_commit_failure (Fixture       *fixture,
                     gconstpointer  user_data)
{
  TsSampleOptions options;
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) dir = g_file_get_child (fixture->root, "blocked");
  g_autoptr(GFile) blocker = g_file_get_child (dir, "model.safetensors.index.json");
  g_autoptr(GFile) inside = g_file_get_child (blocker, "file");
  g_autoptr(GPtrArray) names = NULL;

  g_assert_true (g_file_make_directory_with_parents (blocker, NULL, NULL));
  g_assert_true (g_file_set_contents (g_file_peek_path (inside), "x", 1, NULL));
  ts_sample_options_init (&options);
  g_assert_false (ts_sample_write (dir, &options, NULL, &error));
  g_assert_nonnull (error);
  names = list_files (dir);
  for (guint i = 0; i < names->len; i++)
    g_assert_false (g_str_has_prefix (g_ptr_array_index (names, i), "."));
}

static void
put_file (GFile      *dir,
          const char *name,
          const char *contents)
{
  g_autoptr(GFile) file = g_file_get_child (dir, name);
  g_autoptr(GError) error = NULL;

  g_file_replace_contents (file, contents, strlen (contents), NULL, FALSE, G_FILE_CREATE_NONE,
                           NULL, NULL, &error);
  g_assert_no_error (error);
}

/* @names, sorted, joined by spaces */
static char *
join_names (GPtrArray *names)
{
  g_ptr_array_add (names, NULL);
  return g_strjoinv (" ", (char **) names->pdata);
}

/* Without replace, a folder that holds anything is refused and left as it
 * is; a new or empty one is written */
static void
test_refuse_non_empty (Fixture       *fixture,
                       gconstpointer  user_data)
{
  g_autoptr(GFile) fresh = g_file_get_child (fixture->root, "fresh");
  g_autoptr(GFile) empty = g_file_get_child (fixture->root, "empty");
  g_autoptr(GFile) hidden = g_file_get_child (fixture->root, "hidden");
  g_autoptr(GFile) used = g_file_get_child (fixture->root, "used");
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) names = NULL;
  g_autofree char *joined = NULL;
  TsSampleOptions options;

  ts_sample_options_init (&options);
  g_assert_true (options.replace);
  options.replace = FALSE;

  g_assert_true (ts_sample_write (fresh, &options, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_make_directory (empty, NULL, NULL));
  g_assert_true (ts_sample_write (empty, &options, NULL, &error));
  g_assert_no_error (error);
  {
    g_autoptr(GPtrArray) written = list_files (empty);

    g_assert_cmpuint (written->len, ==, 8);
  }

  /* a second sample into the first */
  g_assert_false (ts_sample_write (fresh, &options, NULL, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS);
  g_assert_nonnull (strstr (error->message, "not empty"));
  g_clear_error (&error);

  g_assert_true (g_file_make_directory (hidden, NULL, NULL));
  put_file (hidden, ".keep", "");
  g_assert_false (ts_sample_write (hidden, &options, NULL, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS);
  g_clear_error (&error);
  names = list_files (hidden);
  joined = join_names (names);
  g_assert_cmpstr (joined, ==, ".keep");

  g_assert_true (g_file_make_directory (used, NULL, NULL));
  put_file (used, "config.json", "{\"model_type\": \"mistral\"}");
  g_assert_false (ts_sample_write (used, &options, NULL, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS);
  g_clear_error (&error);
  {
    g_autoptr(GBytes) config = load (used, "config.json");
    g_autoptr(GPtrArray) used_names = list_files (used);
    g_autofree char *used_joined = join_names (used_names);

    g_assert_cmpstr (used_joined, ==, "config.json");
    g_assert_cmpmem (g_bytes_get_data (config, NULL), g_bytes_get_size (config),
                     "{\"model_type\": \"mistral\"}", strlen ("{\"model_type\": \"mistral\"}"));
  }
}

/* With replace (the default), a sample written over another with other
 * shards leaves none of the earlier shards or index, and nothing else is
 * removed */
static void
test_replace (Fixture       *fixture,
              gconstpointer  user_data)
{
  static const char *const config_files =
    "config.json generation_config.json special_tokens_map.json tokenizer.json tokenizer_config.json";
  g_autoptr(GFile) dir = g_file_get_child (fixture->root, "again");
  g_autoptr(GError) error = NULL;
  TsSampleOptions options;
  struct { guint shards; const char *weights; } steps[] = {
    { 3, "model-00001-of-00003.safetensors model-00002-of-00003.safetensors "
         "model-00003-of-00003.safetensors model.safetensors.index.json" },
    { 1, "model.safetensors" },
    { 2, "model-00001-of-00002.safetensors model-00002-of-00002.safetensors "
         "model.safetensors.index.json" },
  };
  /* not the weights of a checkpoint: left alone */
  static const char *const kept[] = {
    "README.md", "model.safetensors.bak", "model-notes.safetensors", "adapter_model.safetensors",
  };

  ts_sample_options_init (&options);
  for (guint i = 0; i < G_N_ELEMENTS (steps); i++)
    {
      g_autoptr(GPtrArray) names = NULL;
      g_autoptr(GPtrArray) want = g_ptr_array_new_with_free_func (g_free);
      g_autofree char *joined = NULL;
      g_autofree char *want_joined = NULL;
      g_auto(GStrv) config_names = g_strsplit (config_files, " ", -1);
      g_auto(GStrv) weight_names = g_strsplit (steps[i].weights, " ", -1);

      options.n_shards = steps[i].shards;
      g_assert_true (ts_sample_write (dir, &options, NULL, &error));
      g_assert_no_error (error);
      if (i == 0)
        for (guint k = 0; k < G_N_ELEMENTS (kept); k++)
          put_file (dir, kept[k], kept[k]);

      for (guint k = 0; config_names[k]; k++)
        g_ptr_array_add (want, g_strdup (config_names[k]));
      for (guint k = 0; weight_names[k]; k++)
        g_ptr_array_add (want, g_strdup (weight_names[k]));
      for (guint k = 0; k < G_N_ELEMENTS (kept); k++)
        g_ptr_array_add (want, g_strdup (kept[k]));
      g_ptr_array_sort (want, compare_names);
      want_joined = join_names (want);
      names = list_files (dir);
      joined = join_names (names);
      g_assert_cmpstr (joined, ==, want_joined);
    }
  for (guint k = 0; k < G_N_ELEMENTS (kept); k++)
    {
      g_autoptr(GBytes) bytes = load (dir, kept[k]);

      g_assert_cmpmem (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes), kept[k], strlen (kept[k]));
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add ("/sample/deterministic", Fixture, NULL,
              fixture_set_up, test_deterministic, fixture_tear_down);
  g_test_add ("/sample/index", Fixture, NULL,
              fixture_set_up, test_index, fixture_tear_down);
  g_test_add ("/sample/single-shard", Fixture, NULL,
              fixture_set_up, test_single_shard, fixture_tear_down);
  g_test_add ("/sample/tokenizer", Fixture, NULL,
              fixture_set_up, test_tokenizer, fixture_tear_down);
  g_test_add ("/sample/invalid", Fixture, NULL,
              fixture_set_up, test_invalid, fixture_tear_down);
  g_test_add ("/sample/cancelled", Fixture, NULL,
              fixture_set_up, test_cancelled, fixture_tear_down);
  g_test_add ("/sample/commit-failure", Fixture, NULL,
              fixture_set_up, test_commit_failure, fixture_tear_down);
  g_test_add ("/sample/refuse-non-empty", Fixture, NULL,
              fixture_set_up, test_refuse_non_empty, fixture_tear_down);
  g_test_add ("/sample/replace", Fixture, NULL,
              fixture_set_up, test_replace, fixture_tear_down);

  return g_test_run ();
}
