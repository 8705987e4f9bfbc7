/* test-faults.c: cancelling the converter's async API at random points
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Whenever a cancellation lands, the result must agree with the disk: a run
 * that reports success has written the whole file, a run that reports an
 * error has left nothing at the target path and no temporary file.
 */

#include "config.h"

#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "tensorscope.h"
#include "ts-conversion-plan.h"
#include "ts-converter.h"
#include "ts-test-dir.h"

typedef struct
{
  char             *dir;
  char             *out_dir;
  TsConversionPlan *plan;
} Fixture;

typedef struct
{
  GMainLoop *loop;
  gboolean   ok;
  GError    *error;
} Result;

static void
fixture_setup (Fixture       *fx,
               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) ckpt = NULL;
  TsSampleOptions options;
  TsPlanOptions plan_options;

  fx->dir = g_dir_make_tmp (NULL, &error);
  g_assert_no_error (error);
  fx->out_dir = g_build_filename (fx->dir, "out", NULL);
  g_mkdir (fx->out_dir, 0700);
  ckpt = g_file_new_build_filename (fx->dir, "ckpt", NULL);
  ts_sample_options_init (&options);
  options.n_layers = 4;
  options.hidden_size = 512;
  options.n_heads = 8;
  options.n_kv_heads = 2;
  options.intermediate_size = 2048;
  options.n_shards = 2;
  g_assert_true (ts_sample_write (ckpt, &options, NULL, &error));
  g_assert_no_error (error);
  ts_plan_options_init (&plan_options);
  plan_options.outtype = TS_OUTTYPE_Q8_0;
  fx->plan = ts_conversion_plan_new (ckpt, &plan_options, NULL, &error);
  g_assert_no_error (error);
}

static void
fixture_teardown (Fixture       *fx,
                  gconstpointer  data)
{
  g_clear_object (&fx->plan);
  ts_test_remove_tree (fx->dir);
  g_free (fx->out_dir);
  g_free (fx->dir);
}

static void
on_converted (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  Result *r = user_data;

  r->ok = ts_converter_run_finish (TS_CONVERTER (source), result, &r->error);
  g_main_loop_quit (r->loop);
}

static gboolean
cancel_cb (gpointer data)
{
  g_cancellable_cancel (data);
  return G_SOURCE_REMOVE;
}

/* The outcome and the disk agree; returns whether the run was cancelled. */
static gboolean
check_outcome (Fixture    *fx,
               Result     *r,
               const char *path)
{
  if (r->ok)
    {
      GStatBuf st;

      g_assert_no_error (r->error);
      g_assert_cmpint (g_stat (path, &st), ==, 0);
      g_assert_cmpuint ((guint64) st.st_size, ==, ts_conversion_plan_get_predicted_size (fx->plan));
      g_unlink (path);
      g_assert_cmpuint (ts_test_count_entries (fx->out_dir), ==, 0);
      return FALSE;
    }
  g_assert_error (r->error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  g_assert_cmpuint (ts_test_count_entries (fx->out_dir), ==, 0);
  g_clear_error (&r->error);
  return TRUE;
}

static void
test_random_cancel (Fixture       *fx,
                    gconstpointer  data)
{
  g_autofree char *path = g_build_filename (fx->out_dir, "out.gguf", NULL);
  g_autoptr(GFile) target = g_file_new_for_path (path);
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  gint64 start = g_get_monotonic_time ();
  guint span_ms, cancelled = 0;

  /* one whole run, to spread the cancellations over its duration */
  {
    g_autoptr(TsConverter) converter = ts_converter_new (fx->plan);
    g_autoptr(GError) error = NULL;

    ts_converter_set_jobs (converter, 2);
    g_assert_true (ts_converter_run (converter, target, FALSE, NULL, &error));
    g_assert_no_error (error);
    g_unlink (path);
  }
  span_ms = MAX ((g_get_monotonic_time () - start) / 1000, 20);

  for (guint i = 0; i < 20; i++)
    {
      g_autoptr(TsConverter) converter = ts_converter_new (fx->plan);
      g_autoptr(GCancellable) cancellable = g_cancellable_new ();
      guint delay = g_test_rand_int_range (0, span_ms * 11 / 10 + 1);
      Result r = { loop, FALSE, NULL };

      ts_converter_set_jobs (converter, 2);
      ts_converter_run_async (converter, target, FALSE, cancellable, on_converted, &r);
      g_timeout_add_full (G_PRIORITY_HIGH, delay, cancel_cb, g_object_ref (cancellable),
                          g_object_unref);
      g_main_loop_run (loop);
      g_test_message ("run %u: cancel after %u of ~%u ms: %s", i, delay, span_ms,
                      r.ok ? "finished" : "cancelled");
      cancelled += check_outcome (fx, &r, path);
      /* the timeout may still be pending after a quick finish */
      while (g_main_context_iteration (NULL, FALSE))
        ;
    }
  g_test_message ("%u of 20 runs cancelled", cancelled);
}

/* A cancellation that arrives after the file was committed, before the
 * result reaches the caller: the run succeeded, and must say so. */
static void
test_cancel_after_commit (Fixture       *fx,
                          gconstpointer  data)
{
  g_autofree char *path = g_build_filename (fx->out_dir, "late.gguf", NULL);
  g_autoptr(GFile) target = g_file_new_for_path (path);
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  g_autoptr(TsConverter) converter = ts_converter_new (fx->plan);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  Result r = { loop, FALSE, NULL };
  gint64 deadline = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;

  ts_converter_run_async (converter, target, FALSE, cancellable, on_converted, &r);
  /* the main loop is not run: the result waits while the target appears */
  while (!g_file_test (path, G_FILE_TEST_EXISTS) && g_get_monotonic_time () < deadline)
    g_usleep (1000);
  g_assert_true (g_file_test (path, G_FILE_TEST_EXISTS));
  g_cancellable_cancel (cancellable);
  g_main_loop_run (loop);
  g_assert_false (check_outcome (fx, &r, path));
}

/* the fixture's plan converted to out/@name, and loaded */
static TsModelFile *
convert_and_load (Fixture    *fx,
                  const char *name,
                  char      **path)
{
  g_autoptr(GFile) out = NULL;
  g_autoptr(TsConverter) converter = ts_converter_new (fx->plan);
  g_autoptr(GError) error = NULL;
  TsModelFile *model;

  *path = g_build_filename (fx->out_dir, name, NULL);
  out = g_file_new_for_path (*path);
  g_assert_true (ts_converter_run (converter, out, FALSE, NULL, &error));
  g_assert_no_error (error);
  model = ts_model_file_load (out, NULL, &error);
  g_assert_no_error (error);
  return model;
}

/* Another program cuts a GGUF short while it is open (mapped): reading it
 * must not kill the process with SIGBUS, the part says it was damaged, and
 * an audit refuses to report on zeros. */
static void
test_truncated_under_mapping (Fixture       *fx,
                              gconstpointer  data)
{
  g_autofree char *path = NULL;
  g_autoptr(TsModelFile) target = convert_and_load (fx, "cut.gguf", &path);
  g_autoptr(TsModelFile) source = NULL;
  g_autoptr(TsTensor) last = NULL;
  g_autoptr(TsFilePart) part = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(TsAuditReport) report = NULL;
  GListModel *tensors;
  const guint8 *bytes;
  guint64 sum = 0;

  source = ts_model_file_load (ts_conversion_plan_get_dir (fx->plan), NULL, &error);
  g_assert_no_error (error);
  tensors = ts_model_file_get_tensors (target);
  last = g_list_model_get_item (tensors, g_list_model_get_n_items (tensors) - 1);
  part = g_list_model_get_item (ts_model_file_get_parts (target), 0);
  g_assert_false (ts_file_part_is_damaged (part));

  g_assert_cmpint (truncate (path, 4096), ==, 0);
  bytes = ts_tensor_get_data (last);
  for (guint64 i = 0; i < ts_tensor_get_size (last); i++)
    sum += bytes[i];
  g_assert_cmpuint (sum, ==, 0);
  g_assert_true (ts_file_part_is_damaged (part));

  report = ts_audit_run (source, target, NULL, NULL, &error);
  g_assert_null (report);
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "cut short"));
}

/* A cut inside the last page raises no fault (the rest of the page reads
 * zeros): the part still says it is damaged, from the file's size. */
static void
test_truncated_in_last_page (Fixture       *fx,
                             gconstpointer  data)
{
  g_autofree char *path = NULL;
  g_autoptr(TsModelFile) target = convert_and_load (fx, "cut.gguf", &path);
  g_autoptr(TsFilePart) part = NULL;

  part = g_list_model_get_item (ts_model_file_get_parts (target), 0);
  g_assert_false (ts_file_part_is_damaged (part));
  g_assert_cmpint (truncate (path, (off_t) ts_file_part_get_size (part) - 20), ==, 0);
  g_assert_true (ts_file_part_is_damaged (part));
}

/* The guard takes only faults on its own pages: a SIGBUS sent to the
 * process still ends it, as it did before any file was mapped. */
static void
test_sent_sigbus_still_kills (Fixture       *fx,
                              gconstpointer  data)
{
  if (g_test_subprocess ())
    {
      g_autofree char *path = NULL;
      g_autoptr(TsModelFile) target = convert_and_load (fx, "kill.gguf", &path);

      g_assert_nonnull (target);
      raise (SIGBUS);
      g_print ("survived\n");
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_failed ();
  g_test_trap_assert_stdout_unmatched ("*survived*");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add ("/faults/converter/random-cancel", Fixture, NULL, fixture_setup,
              test_random_cancel, fixture_teardown);
  g_test_add ("/faults/converter/cancel-after-commit", Fixture, NULL, fixture_setup,
              test_cancel_after_commit, fixture_teardown);
  g_test_add ("/faults/mapping/truncated", Fixture, NULL, fixture_setup,
              test_truncated_under_mapping, fixture_teardown);
  g_test_add ("/faults/mapping/truncated-in-last-page", Fixture, NULL, fixture_setup,
              test_truncated_in_last_page, fixture_teardown);
  g_test_add ("/faults/mapping/sent-sigbus-still-kills", Fixture, NULL, fixture_setup,
              test_sent_sigbus_still_kills, fixture_teardown);

  return g_test_run ();
}
