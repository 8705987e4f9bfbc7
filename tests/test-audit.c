/* test-audit.c: the audit's library API (the conversion cases, against an
 * independent converter and with planted faults, are in check_audit.py)
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "ts-test-bytes.h"
#include "ts-test-dir.h"

#include <string.h>
#include <unistd.h>

#include "tensorscope.h"

typedef TsTestDir Fixture;

static char *
write_sample (Fixture    *f,
              const char *name,
              guint       shards,
              guint32     seed)
{
  char *path = g_build_filename (f->dir, name, NULL);
  g_autoptr(GFile) dir = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  TsSampleOptions options;

  ts_sample_options_init (&options);
  options.n_shards = shards;
  options.seed = seed;
  g_assert_true (ts_sample_write (dir, &options, NULL, &error));
  g_assert_no_error (error);
  return path;
}

/* ------------------------------------------------------- a tiny GGUF */

static void
pad_to (GByteArray *b,
        guint       alignment)
{
  static const guint8 zero[64] = { 0 };

  g_byte_array_append (b, zero, (alignment - b->len % alignment) % alignment);
}

typedef struct
{
  const char *name;
  guint64     ne0;
  guint64     ne1;
  guint32     type;
  gsize       size;
} TinyTensor;

static const TinyTensor tiny[] = {
  { "a.f32", 8, 4, 0, 8 * 4 * 4 },
  { "b.bf16", 16, 2, 30, 16 * 2 * 2 },
  { "c.q8_0", 64, 2, 8, 4 * 34 },
  { "d.i32", 5, 1, 26, 5 * 4 },
};

static guint8
tiny_byte (guint tensor,
           gsize i)
{
  /* keep Q8_0 scales finite: byte 1 of each block's F16 scale small */
  if (tiny[tensor].type == 8 && i % 34 == 1)
    return 0x20;
  return (guint8) (i * 7 + tensor * 31 + 1);
}

/* Writes the tiny GGUF with @alignment, tensors in @reversed order, and
 * one bit of byte @flip of tensor @flip_tensor flipped (-1: none). */
static char *
write_tiny_gguf (Fixture    *f,
                 const char *name,
                 guint       alignment,
                 gboolean    reversed,
                 int         flip_tensor,
                 gsize       flip)
{
  g_autoptr(GByteArray) b = g_byte_array_new ();
  char *path = g_build_filename (f->dir, name, NULL);
  g_autoptr(GError) error = NULL;
  guint n = G_N_ELEMENTS (tiny);
  guint64 offset = 0;

  g_byte_array_append (b, (const guint8 *) "GGUF", 4);
  ts_test_put_u32 (b, 3);
  ts_test_put_u64 (b, n);
  ts_test_put_u64 (b, 2);
  ts_test_put_str (b, "general.architecture");
  ts_test_put_u32 (b, 8);
  ts_test_put_str (b, "tiny");
  ts_test_put_str (b, "general.alignment");
  ts_test_put_u32 (b, 4);
  ts_test_put_u32 (b, alignment);
  for (guint k = 0; k < n; k++)
    {
      guint i = reversed ? n - 1 - k : k;

      ts_test_put_str (b, tiny[i].name);
      ts_test_put_u32 (b, 2);
      ts_test_put_u64 (b, tiny[i].ne0);
      ts_test_put_u64 (b, tiny[i].ne1);
      ts_test_put_u32 (b, tiny[i].type);
      ts_test_put_u64 (b, offset);
      offset += (tiny[i].size + alignment - 1) / alignment * alignment;
    }
  pad_to (b, alignment);
  for (guint k = 0; k < n; k++)
    {
      guint i = reversed ? n - 1 - k : k;

      for (gsize j = 0; j < tiny[i].size; j++)
        {
          guint8 v = tiny_byte (i, j);

          if ((int) i == flip_tensor && j == flip)
            v ^= 0x04;
          g_byte_array_append (b, &v, 1);
        }
      pad_to (b, alignment);
    }
  g_assert_true (g_file_set_contents (path, (const char *) b->data, b->len, &error));
  g_assert_no_error (error);
  return path;
}

/* ------------------------------------------------------------ helpers */

static void
assert_sizes_sum (TsAuditReport *report)
{
  GListModel *rows = ts_audit_report_get_size_rows (report);
  gint64 sum = 0;

  for (guint i = 0; i < g_list_model_get_n_items (rows); i++)
    {
      g_autoptr(TsAuditSizeRow) row = g_list_model_get_item (rows, i);

      g_assert_cmpint (ts_audit_size_row_get_delta (row), ==,
                       (gint64) (ts_audit_size_row_get_target_bytes (row) -
                                 ts_audit_size_row_get_source_bytes (row)));
      sum += ts_audit_size_row_get_delta (row);
    }
  g_assert_cmpint (sum, ==, (gint64) (ts_audit_report_get_target_size (report) -
                                      ts_audit_report_get_source_size (report)));
}

static TsAuditPair *
find_pair (TsAuditReport *report,
           const char    *target)
{
  GListModel *pairs = ts_audit_report_get_pairs (report);

  for (guint i = 0; i < g_list_model_get_n_items (pairs); i++)
    {
      g_autoptr(TsAuditPair) pair = g_list_model_get_item (pairs, i);

      if (g_strcmp0 (ts_audit_pair_get_target_name (pair), target) == 0)
        return pair;  /* the report keeps it alive */
    }
  return NULL;
}

static TsAuditCheck *
find_check (TsAuditReport *report,
            const char    *name)
{
  GListModel *checks = ts_audit_report_get_checks (report);

  for (guint i = 0; i < g_list_model_get_n_items (checks); i++)
    {
      g_autoptr(TsAuditCheck) check = g_list_model_get_item (checks, i);

      if (g_str_equal (ts_audit_check_get_name (check), name))
        return check;
    }
  return NULL;
}

static TsAuditReport *
audit_paths (const char *a,
             const char *b,
             guint       jobs)
{
  g_autoptr(TsModelFile) source = ts_test_load_model (a);
  g_autoptr(TsModelFile) target = ts_test_load_model (b);
  g_autoptr(GError) error = NULL;
  TsAuditOptions options;
  TsAuditReport *report;

  ts_audit_options_init (&options);
  options.n_jobs = jobs;
  report = ts_audit_run (source, target, &options, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (report);
  assert_sizes_sum (report);
  return report;
}

/* -------------------------------------------------------------- tests */

static void
test_resharded (Fixture       *f,
                gconstpointer  data)
{
  g_autofree char *one = write_sample (f, "one", 1, 7);
  g_autofree char *three = write_sample (f, "three", 3, 7);
  g_autoptr(TsAuditReport) report = audit_paths (one, three, 2);
  GListModel *pairs = ts_audit_report_get_pairs (report);

  g_assert_cmpint (ts_audit_report_get_mode (report), ==, TS_AUDIT_MODE_SAFETENSORS);
  g_assert_true (ts_audit_report_get_passed (report));
  g_assert_cmpuint (g_list_model_get_n_items (pairs), >, 0);
  for (guint i = 0; i < g_list_model_get_n_items (pairs); i++)
    {
      g_autoptr(TsAuditPair) pair = g_list_model_get_item (pairs, i);

      g_assert_cmpint (ts_audit_pair_get_status (pair), ==, TS_AUDIT_PASS);
      g_assert_cmpuint (ts_audit_pair_get_n_values (pair), >, 0);
      g_assert_false (ts_audit_pair_get_first_mismatch (pair, NULL, NULL, NULL, NULL));
    }
}

static void
test_other_seed (Fixture       *f,
                 gconstpointer  data)
{
  g_autofree char *a = write_sample (f, "a", 1, 7);
  g_autofree char *b = write_sample (f, "b", 2, 8);
  g_autoptr(TsAuditReport) report = audit_paths (a, b, 1);
  TsAuditPair *pair = find_pair (report, "model.embed_tokens.weight");
  guint64 index = 99;
  double s, e, v;

  g_assert_false (ts_audit_report_get_passed (report));
  g_assert_cmpint (ts_audit_check_get_status (find_check (report, "values")), ==, TS_AUDIT_FAIL);
  g_assert_nonnull (pair);
  g_assert_cmpint (ts_audit_pair_get_status (pair), ==, TS_AUDIT_FAIL);
  g_assert_cmpuint (ts_audit_pair_get_n_mismatch (pair), >, 0);
  g_assert_true (ts_audit_pair_get_first_mismatch (pair, &index, &s, &e, &v));
  g_assert_cmpfloat (e, !=, v);
}

static void
test_gguf_rewritten (Fixture       *f,
                     gconstpointer  data)
{
  g_autofree char *a = write_tiny_gguf (f, "a.gguf", 32, FALSE, -1, 0);
  g_autofree char *b = write_tiny_gguf (f, "b.gguf", 64, TRUE, -1, 0);
  g_autoptr(TsAuditReport) report = audit_paths (a, b, 2);

  g_assert_cmpint (ts_audit_report_get_mode (report), ==, TS_AUDIT_MODE_GGUF);
  g_assert_true (ts_audit_report_get_passed (report));
  /* general.alignment changed: a warning, not a failure */
  g_assert_cmpint (ts_audit_check_get_status (find_check (report, "metadata")), ==, TS_AUDIT_WARN);
  g_assert_cmpuint (ts_audit_pair_get_n_values (find_pair (report, "c.q8_0")), ==, 128);
  g_assert_cmpuint (ts_audit_pair_get_n_values (find_pair (report, "d.i32")), ==, 5);
}

static void
test_gguf_flipped (Fixture       *f,
                   gconstpointer  data)
{
  struct { int tensor; gsize byte; const char *name; guint64 index; } cases[] = {
    { 0, 4 * 9 + 2, "a.f32", 9 },           /* row 1, column 1 */
    { 1, 2 * 17, "b.bf16", 17 },
    { 2, 34 + 2 + 3, "c.q8_0", 35 },        /* second block's fourth quant */
    { 3, 4 * 2, "d.i32", 2 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *a = write_tiny_gguf (f, "a.gguf", 32, FALSE, -1, 0);
      g_autofree char *b = write_tiny_gguf (f, "b.gguf", 32, TRUE, cases[i].tensor, cases[i].byte);
      g_autoptr(TsAuditReport) report = audit_paths (a, b, 2);
      TsAuditPair *pair = find_pair (report, cases[i].name);
      guint64 index;

      g_assert_false (ts_audit_report_get_passed (report));
      g_assert_cmpuint (ts_audit_pair_get_n_mismatch (pair), ==, 1);
      g_assert_true (ts_audit_pair_get_first_mismatch (pair, &index, NULL, NULL, NULL));
      g_assert_cmpuint (index, ==, cases[i].index);
    }
}

typedef struct
{
  GMainLoop     *loop;
  TsAuditReport *report;
  GError        *error;
  guint          n_notify;
  double         last_fraction;
  gint           n_callback;
  double         callback_fraction;
} AsyncState;

static void
on_fraction (GObject    *audit,
             GParamSpec *pspec,
             gpointer    data)
{
  AsyncState *state = data;

  g_assert_true (g_main_context_is_owner (g_main_context_default ()));
  state->n_notify++;
  state->last_fraction = ts_audit_get_fraction (TS_AUDIT (audit));
}

static void
on_progress (double      fraction,
             const char *tensor,
             gpointer    data)
{
  AsyncState *state = data;

  g_atomic_int_inc (&state->n_callback);
  state->callback_fraction = fraction;
}

static void
on_done (GObject      *object,
         GAsyncResult *result,
         gpointer      data)
{
  AsyncState *state = data;

  g_assert_true (TS_IS_AUDIT (object));
  state->report = ts_audit_run_finish (result, &state->error);
  g_main_loop_quit (state->loop);
}

static void
test_async (Fixture       *f,
            gconstpointer  data)
{
  g_autofree char *one = write_sample (f, "one", 1, 3);
  g_autofree char *two = write_sample (f, "two", 2, 3);
  g_autoptr(TsModelFile) source = ts_test_load_model (one);
  g_autoptr(TsModelFile) target = ts_test_load_model (two);
  AsyncState state = { g_main_loop_new (NULL, FALSE) };
  TsAuditOptions options;
  TsAudit *audit;

  ts_audit_options_init (&options);
  options.progress = on_progress;
  options.progress_data = &state;
  audit = ts_audit_run_async (source, target, &options, NULL, on_done, &state);
  g_signal_connect (audit, "notify::fraction", G_CALLBACK (on_fraction), &state);
  g_main_loop_run (state.loop);
  /* the last notification is queued before the result */
  while (g_main_context_iteration (NULL, FALSE))
    ;

  g_assert_no_error (state.error);
  g_assert_true (ts_audit_report_get_passed (state.report));
  g_assert_cmpuint (state.n_notify, >=, 1);
  g_assert_cmpfloat (state.last_fraction, ==, 1.0);
  g_assert_cmpint (g_atomic_int_get (&state.n_callback), >=, 1);
  g_assert_cmpfloat (state.callback_fraction, ==, 1.0);
  g_clear_object (&state.report);
  g_main_loop_unref (state.loop);
}

static void
test_cancelled (Fixture       *f,
                gconstpointer  data)
{
  g_autofree char *one = write_sample (f, "one", 1, 3);
  g_autoptr(TsModelFile) source = ts_test_load_model (one);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(TsAuditReport) report = NULL;
  g_autoptr(GError) error = NULL;

  g_cancellable_cancel (cancellable);
  report = ts_audit_run (source, source, NULL, cancellable, &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_null (report);
}

static void
test_wrong_direction (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *one = write_sample (f, "one", 1, 3);
  g_autofree char *gguf = write_tiny_gguf (f, "a.gguf", 32, FALSE, -1, 0);
  g_autoptr(TsModelFile) checkpoint = ts_test_load_model (one);
  g_autoptr(TsModelFile) model = ts_test_load_model (gguf);
  g_autoptr(TsAuditReport) report = NULL;
  g_autoptr(GError) error = NULL;

  report = ts_audit_run (model, checkpoint, NULL, NULL, &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED);
  g_assert_null (report);
}

static void
test_renderings (Fixture       *f,
                 gconstpointer  data)
{
  g_autofree char *a = write_tiny_gguf (f, "a.gguf", 32, FALSE, -1, 0);
  g_autofree char *b = write_tiny_gguf (f, "b.gguf", 32, FALSE, 1, 0);
  g_autoptr(TsAuditReport) report = audit_paths (a, b, 1);
  g_autoptr(JsonNode) node = ts_audit_report_to_json (report);
  g_autofree char *text = ts_audit_report_to_text (report);
  JsonObject *root = json_node_get_object (node);
  JsonArray *tensors = json_object_get_array_member (root, "tensors");
  JsonObject *size = json_object_get_object_member (root, "size");

  g_assert_false (json_object_get_boolean_member (root, "passed"));
  g_assert_cmpstr (json_object_get_string_member (root, "mode"), ==, "gguf-to-gguf");
  g_assert_cmpuint (json_array_get_length (tensors), ==, G_N_ELEMENTS (tiny));
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (root, "checks")), >, 0);
  g_assert_cmpint (json_object_get_int_member (size, "delta"), ==, 0);
  g_assert_nonnull (strstr (text, "FAIL"));
  g_assert_nonnull (strstr (text, "first mismatch at source index 0"));
  /* the text report's line is the one the app shows under a failed
   * pair's detail; a pair with no mismatch has none */
  {
    GListModel *pairs = ts_audit_report_get_pairs (report);
    guint n_with = 0;

    for (guint i = 0; i < g_list_model_get_n_items (pairs); i++)
      {
        g_autoptr(TsAuditPair) pair = g_list_model_get_item (pairs, i);
        g_autofree char *mismatch = ts_audit_pair_dup_first_mismatch_text (pair);
        g_autofree char *line = NULL;

        g_assert_cmpint (mismatch != NULL, ==, ts_audit_pair_get_first_mismatch (pair, NULL, NULL, NULL, NULL));
        if (mismatch == NULL)
          continue;
        n_with++;
        g_assert_true (g_str_has_prefix (mismatch, "first mismatch at source index 0 [0, 0]: source "));
        line = g_strdup_printf ("          %s\n", mismatch);
        g_assert_nonnull (strstr (text, line));
      }
    g_assert_cmpuint (n_with, ==, 1);
  }

  /* the streamed JSON is the tree's text, byte for byte */
  {
    g_autofree char *expected = ts_report_to_string (node, TRUE);
    g_autoptr(GOutputStream) out = g_memory_output_stream_new_resizable ();
    g_autoptr(GError) error = NULL;
    g_autofree char *streamed = NULL;

    g_assert_true (ts_audit_report_write_json (report, out, NULL, &error));
    g_assert_no_error (error);
    g_assert_true (g_output_stream_write_all (out, "", 1, NULL, NULL, &error));
    g_assert_true (g_output_stream_close (out, NULL, &error));
    streamed = g_memory_output_stream_steal_data (G_MEMORY_OUTPUT_STREAM (out));
    g_assert_nonnull (strstr (streamed, "\"first_mismatch\" : {"));
    g_assert_cmpstr (streamed, ==, expected);
  }
}

/* Source and target the same file(s), under any name: a warning that the
 * result proves nothing; two files of the same bytes: none */
static void
test_same_files (Fixture       *f,
                 gconstpointer  data)
{
  g_autofree char *one = write_sample (f, "one", 2, 3);
  g_autofree char *other = write_sample (f, "other", 2, 3);
  g_autofree char *gguf = write_tiny_gguf (f, "a.gguf", 32, FALSE, -1, 0);
  g_autofree char *copy = write_tiny_gguf (f, "b.gguf", 32, FALSE, -1, 0);
  g_autofree char *sym = g_build_filename (f->dir, "link.gguf", NULL);
  g_autofree char *hard = g_build_filename (f->dir, "hard.gguf", NULL);
  g_autofree char *dir_link = g_build_filename (f->dir, "one-link", NULL);
  g_autofree char *through_link = g_build_filename (f->dir, "one-link", "model-00001-of-00002.safetensors", NULL);
  g_autoptr(GFile) sym_file = g_file_new_for_path (sym);
  g_autoptr(GFile) dir_link_file = g_file_new_for_path (dir_link);
  g_autoptr(GError) error = NULL;
  const struct { const char *source, *target; guint n_files; } cases[] = {
    { gguf, gguf, 1 },
    { gguf, sym, 1 },                   /* a symbolic link */
    { sym, hard, 1 },                   /* a hard link */
    { one, one, 2 },
    { one, dir_link, 2 },               /* a link to the folder */
    { dir_link, through_link, 2 },      /* one of its shards, through the link */
    { gguf, copy, 0 },                  /* the same bytes, another file */
    { one, other, 0 },
  };

  g_assert_true (g_file_make_symbolic_link (sym_file, gguf, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpint (link (gguf, hard), ==, 0);
  g_assert_true (g_file_make_symbolic_link (dir_link_file, one, NULL, &error));
  g_assert_no_error (error);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(TsAuditReport) report = audit_paths (cases[i].source, cases[i].target, 1);
      TsAuditCheck *check = find_check (report, "same-files");

      g_test_message ("%s against %s", cases[i].source, cases[i].target);
      /* a warning: the values are what they are */
      g_assert_true (ts_audit_report_get_passed (report));
      if (cases[i].n_files == 0)
        {
          g_assert_null (check);
          continue;
        }
      g_assert_nonnull (check);
      g_assert_cmpint (ts_audit_check_get_status (check), ==, TS_AUDIT_WARN);
      g_assert_nonnull (strstr (ts_audit_check_get_detail (check), "proves nothing"));
      if (cases[i].n_files > 1)
        g_assert_nonnull (strstr (ts_audit_check_get_detail (check), "same 2 files"));
    }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add ("/audit/safetensors/resharded", Fixture, NULL, ts_test_dir_setup, test_resharded, ts_test_dir_teardown);
  g_test_add ("/audit/safetensors/other-seed", Fixture, NULL, ts_test_dir_setup, test_other_seed, ts_test_dir_teardown);
  g_test_add ("/audit/gguf/rewritten", Fixture, NULL, ts_test_dir_setup, test_gguf_rewritten, ts_test_dir_teardown);
  g_test_add ("/audit/gguf/flipped", Fixture, NULL, ts_test_dir_setup, test_gguf_flipped, ts_test_dir_teardown);
  g_test_add ("/audit/async", Fixture, NULL, ts_test_dir_setup, test_async, ts_test_dir_teardown);
  g_test_add ("/audit/cancelled", Fixture, NULL, ts_test_dir_setup, test_cancelled, ts_test_dir_teardown);
  g_test_add ("/audit/wrong-direction", Fixture, NULL, ts_test_dir_setup, test_wrong_direction, ts_test_dir_teardown);
  g_test_add ("/audit/same-files", Fixture, NULL, ts_test_dir_setup, test_same_files, ts_test_dir_teardown);
  g_test_add ("/audit/renderings", Fixture, NULL, ts_test_dir_setup, test_renderings, ts_test_dir_teardown);
  return g_test_run ();
}
