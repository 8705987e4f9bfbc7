/* test-wizard-stall.c: the wizard's window stays responsive while it converts
 * a checkpoint of more than two gigabytes
 *
 * A high-priority 1 ms timeout stamps every main-loop iteration; the longest
 * gap between two stamps while the Convert page is up is the longest stall a
 * user could have felt. Issue 6 allows 50 ms.
 *
 * Of a gap, the kernel tells how long the main thread was runnable but had
 * no processor: it waited behind other programs (the converter's workers run
 * at a lower priority, which check_convert.py checks), or the machine's
 * hypervisor held the processor (steal time). That share is the machine's
 * load, not a stall of the application's making; what is left (the main
 * thread working, or blocked) is what the 50 ms limit is for. Both figures
 * are printed. On a kernel without /proc/thread-self/schedstat the whole
 * gap counts.
 *
 * The test body runs in a subprocess so that the parent removes the 4 GB of
 * files even when an assertion aborts it.
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <gtk/gtk.h>
#include <stdlib.h>
#include <unistd.h>

#include "ts-application.h"
#include "ts-convert-wizard.h"
#include "ts-test-dir.h"
#include "ts-ui-test.h"

#define MAX_STALL_US       (50 * 1000)
/* "a multi-GB conversion" */
#define MIN_CHECKPOINT     (G_GUINT64_CONSTANT (2) << 30)
#define FIXTURE_DIR_ENV    "TS_STALL_FIXTURE_DIR"

static char *fixture_dir;

/* g_test_message () of a subprocess does not reach the log: stderr does */
#define note(...) g_printerr ("# " __VA_ARGS__)

/* ------------------------------------------------------------------------ */
/* What the kernel tells of the main thread and the machine                  */

typedef struct
{
  gint64  now;            /* monotonic, µs */
  guint64 run_ns;         /* the main thread on a processor */
  guint64 wait_ns;        /* the main thread runnable, waiting for one */
  guint64 steal_ns;       /* all processors, taken by the hypervisor */
} SchedSample;

static guint64
read_u64 (const char **p)
{
  char *end;
  guint64 v;

  errno = 0;
  v = g_ascii_strtoull (*p, &end, 10);
  if (end == *p || errno != 0)
    return 0;
  *p = end;
  return v;
}

/* the numbers of a /proc file, read again from its start */
static gboolean
read_proc (int         fd,
           char       *buf,
           gsize       size)
{
  ssize_t n;

  if (fd < 0)
    return FALSE;
  n = pread (fd, buf, size - 1, 0);
  if (n <= 0)
    return FALSE;
  buf[n] = '\0';
  return TRUE;
}

static void
sched_sample (int          schedstat_fd,
              int          stat_fd,
              SchedSample *sample)
{
  char buf[512];

  *sample = (SchedSample) { .now = g_get_monotonic_time () };
  /* "run_ns wait_ns timeslices" */
  if (read_proc (schedstat_fd, buf, sizeof buf))
    {
      const char *p = buf;

      sample->run_ns = read_u64 (&p);
      sample->wait_ns = read_u64 (&p);
    }
  /* "cpu  user nice system idle iowait irq softirq steal ..." in ticks */
  if (read_proc (stat_fd, buf, sizeof buf) && g_str_has_prefix (buf, "cpu "))
    {
      const char *p = buf + 4;
      guint64 steal = 0;

      for (int i = 0; i < 8; i++)
        steal = read_u64 (&p);
      sample->steal_ns = steal * (G_GUINT64_CONSTANT (1000000000) / (guint64) sysconf (_SC_CLK_TCK));
    }
}

/* ------------------------------------------------------------------------ */
/* The stall recorder                                                        */

typedef struct
{
  guint       source;
  gboolean    paused;
  int         schedstat_fd;
  int         stat_fd;
  SchedSample last;       /* .now 0: the next tick starts a new interval */
  gint64      max_gap;    /* the longest gap, µs */
  gint64      max_stall;  /* the longest gap less the machine's share, µs */
  guint64     n_ticks;
  guint64     n_over;     /* stalls over MAX_STALL_US */
} StallRecorder;

static gboolean
stall_tick (gpointer data)
{
  StallRecorder *recorder = data;
  SchedSample now;

  sched_sample (recorder->schedstat_fd, recorder->stat_fd, &now);
  if (recorder->paused)
    {
      recorder->last.now = 0;
      return G_SOURCE_CONTINUE;
    }
  if (recorder->last.now != 0)
    {
      gint64 gap = now.now - recorder->last.now;
      gint64 run = (gint64) (now.run_ns - recorder->last.run_ns) / 1000;
      gint64 wait = (gint64) (now.wait_ns - recorder->last.wait_ns) / 1000;
      /* the hypervisor's share of the rest, at most (steal of the other
       * processors counts too: it is counted in ticks of 10 ms anyway) */
      gint64 steal = CLAMP ((gint64) (now.steal_ns - recorder->last.steal_ns) / 1000,
                            0, MAX (gap - wait - run, 0));
      gint64 stall = MAX (gap - wait - steal, 0);

      recorder->max_gap = MAX (recorder->max_gap, gap);
      recorder->max_stall = MAX (recorder->max_stall, stall);
      recorder->n_over += stall > MAX_STALL_US;
      recorder->n_ticks++;
      if (gap > MAX_STALL_US / 2)
        note ("main loop: %.1f ms gap after %" G_GUINT64_FORMAT " ticks: %.1f ms working, "
              "%.1f ms waiting for a processor, %.1f ms stolen, %.1f ms blocked\n",
              gap / 1000.0, recorder->n_ticks, run / 1000.0, wait / 1000.0, steal / 1000.0,
              MAX (gap - run - wait - steal, 0) / 1000.0);
    }
  recorder->last = now;
  return G_SOURCE_CONTINUE;
}

static void
stall_recorder_start (StallRecorder *recorder)
{
  *recorder = (StallRecorder) { 0 };
  /* opened by the main thread: thread-self is this thread for good */
  recorder->schedstat_fd = open ("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
  recorder->stat_fd = open ("/proc/stat", O_RDONLY | O_CLOEXEC);
  if (recorder->schedstat_fd < 0)
    note ("no /proc/thread-self/schedstat: a gap counts whole\n");
  /* above the frame clock, the progress timeouts and GTask callbacks, so a
   * tick runs as soon as the loop gets back to dispatching */
  recorder->source = g_timeout_add_full (G_PRIORITY_HIGH, 1, stall_tick, recorder, NULL);
}

/* A screenshot is the test's own work, not the app's: not a stall. */
static void
stall_recorder_pause (StallRecorder *recorder,
                      gboolean       paused)
{
  if (paused)
    stall_tick (recorder);
  recorder->paused = paused;
  recorder->last.now = 0;
}

static void
stall_recorder_stop (StallRecorder *recorder)
{
  stall_tick (recorder);
  g_clear_handle_id (&recorder->source, g_source_remove);
  if (recorder->schedstat_fd >= 0)
    close (recorder->schedstat_fd);
  if (recorder->stat_fd >= 0)
    close (recorder->stat_fd);
}

/* ------------------------------------------------------------------------ */
/* Helpers                                                                   */

static gboolean wizard_idle (gpointer data) { return !ts_convert_wizard_get_busy (data); }

static gboolean
conversion_progressed (gpointer data)
{
  TsConverter *converter = ts_convert_wizard_get_converter (data);

  return converter == NULL || ts_converter_get_fraction (converter) > 0.4;
}

static gboolean
conversion_ended (gpointer data)
{
  return g_strcmp0 (ts_convert_wizard_get_convert_state (data), "running") != 0;
}

static guint64
dir_size (const char *path)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;
  guint64 size = 0;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);
      GStatBuf st;

      if (g_stat (child, &st) == 0 && S_ISREG (st.st_mode))
        size += st.st_size;
    }
  return size;
}

/* ------------------------------------------------------------------------ */
/* The test                                                                  */

/* A checkpoint the user has had for a while: on the disk, not still being
 * written back (that writeback would be the test's own load on the disk) */
static void
flush_folder (const char *path)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;

  g_assert_nonnull (dir);
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);
      int fd = g_open (child, O_RDONLY | O_CLOEXEC, 0);

      g_assert_cmpint (fd, >=, 0);
      g_assert_cmpint (fsync (fd), ==, 0);
      close (fd);
    }
}

/* About 2.4 GB of BF16 in two shards: 26 layers of a 2048-wide model with a
 * 5632-wide feed-forward. */
static void
write_big_checkpoint (const char *dir)
{
  g_autoptr(GFile) folder = g_file_new_for_path (dir);
  g_autoptr(GError) error = NULL;
  TsSampleOptions options;
  gint64 start = g_get_monotonic_time ();

  ts_sample_options_init (&options);
  options.n_layers = 26;
  options.hidden_size = 2048;
  options.n_heads = 16;
  options.n_kv_heads = 4;
  options.intermediate_size = 5632;
  options.vocab_size = 8192;
  g_assert_true (ts_sample_write (folder, &options, NULL, &error));
  g_assert_no_error (error);
  flush_folder (dir);
  note ("checkpoint: %" G_GUINT64_FORMAT " bytes, written in %.1f s\n", dir_size (dir),
        (g_get_monotonic_time () - start) / (double) G_USEC_PER_SEC);
  g_assert_cmpuint (dir_size (dir), >=, MIN_CHECKPOINT);
}

static void
convert_without_stalls (void)
{
  g_autofree char *dir = g_build_filename (fixture_dir, "big-checkpoint", NULL);
  g_autofree char *out_path = g_build_filename (fixture_dir, "big-BF16.gguf", NULL);
  g_autoptr(GFile) folder = g_file_new_for_path (dir);
  g_autoptr(GFile) out = g_file_new_for_path (out_path);
  g_autoptr(TsApplication) app = ts_application_new ();
  g_autoptr(GError) error = NULL;
  TsConvertWizard *wizard;
  StallRecorder recorder;
  GStatBuf st;
  gint64 start;
  double seconds;

  g_application_set_flags (G_APPLICATION (app), G_APPLICATION_NON_UNIQUE);
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, &error));
  g_assert_no_error (error);
  write_big_checkpoint (dir);

  wizard = ts_convert_wizard_new (GTK_APPLICATION (app));
  gtk_window_present (GTK_WINDOW (wizard));
  ts_convert_wizard_set_source (wizard, folder);
  ts_test_wait_until (wizard_idle, wizard, 60, "the source scan");
  g_assert_true (ts_convert_wizard_can_go_next (wizard));
  ts_convert_wizard_go_next (wizard);
  ts_convert_wizard_set_outtype (wizard, TS_OUTTYPE_BF16);
  ts_convert_wizard_set_target (wizard, out);
  ts_convert_wizard_go_next (wizard);
  ts_test_wait_until (wizard_idle, wizard, 60, "the plan");
  g_assert_cmpstr (ts_convert_wizard_get_page (wizard), ==, "preview");
  /* a user reads the preview before pressing Convert: it has drawn */
  ts_test_run_for (1000);

  /* the Convert page, from the click on Convert to the end of the writing */
  stall_recorder_start (&recorder);
  start = g_get_monotonic_time ();
  ts_convert_wizard_go_next (wizard);
  g_assert_cmpstr (ts_convert_wizard_get_page (wizard), ==, "convert");

  ts_test_wait_until (conversion_progressed, wizard, 120, "conversion progress");
  if (ts_convert_wizard_get_converter (wizard) != NULL)
    {
      stall_recorder_pause (&recorder, TRUE);
      ts_test_save_screenshot (GTK_WIDGET (wizard), "wizard-4-convert-big.png", 0);
      stall_recorder_pause (&recorder, FALSE);
    }
  ts_test_wait_until (conversion_ended, wizard, 240, "the conversion");
  stall_recorder_stop (&recorder);
  seconds = (g_get_monotonic_time () - start) / (double) G_USEC_PER_SEC;

  g_assert_cmpstr (ts_convert_wizard_get_convert_state (wizard), ==, "done");
  g_assert_cmpint (g_stat (out_path, &st), ==, 0);
  note ("converted %" G_GUINT64_FORMAT " bytes in %.1f s; %" G_GUINT64_FORMAT
        " main-loop ticks, longest gap %.1f ms, longest stall of the application's %.1f ms, "
        "%" G_GUINT64_FORMAT " over %d ms\n",
        (guint64) st.st_size, seconds, recorder.n_ticks, recorder.max_gap / 1000.0,
        recorder.max_stall / 1000.0, recorder.n_over, MAX_STALL_US / 1000);
  g_assert_cmpuint (st.st_size, >=, MIN_CHECKPOINT);
  /* the loop really ran: a stalled loop ticks rarely, not never */
  g_assert_cmpuint (recorder.n_ticks, >, 10);

  /* ASan and UBSan slow everything down; the conversion above still ran */
  if (g_getenv ("TS_SANITIZER") != NULL)
    note ("TS_SANITIZER is set: the stall limit is not checked\n");
  else
    g_assert_cmpint (recorder.max_stall, <, MAX_STALL_US);

  /* closing the window cancels the audit that started by itself */
  gtk_window_destroy (GTK_WINDOW (wizard));
}

static void
test_wizard_no_stall (void)
{
  if (g_test_subprocess ())
    {
      convert_without_stalls ();
      return;
    }

  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDOUT | G_TEST_SUBPROCESS_INHERIT_STDERR);
  /* four gigabytes are not left behind, whatever happened */
  ts_test_remove_tree (fixture_dir);
  g_test_trap_assert_passed ();
}

static gboolean
is_subprocess (int    argc,
               char **argv)
{
  for (int i = 1; i < argc; i++)
    if (g_str_equal (argv[i], "--GTestSubprocess"))
      return TRUE;
  return FALSE;
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GError) error = NULL;
  int ret;

  /* the subprocess works in its parent's directory, which the parent
   * removes; the environment is set before GTK starts any thread */
  if (is_subprocess (argc, argv))
    fixture_dir = g_strdup (g_getenv (FIXTURE_DIR_ENV));
  else
    {
      fixture_dir = g_dir_make_tmp (NULL, &error);
      g_assert_no_error (error);
      g_setenv (FIXTURE_DIR_ENV, fixture_dir, TRUE);
    }
  g_assert_nonnull (fixture_dir);

  ts_test_ui_init (&argc, &argv);
  g_test_add_func ("/wizard/no-stall", test_wizard_no_stall);

  ret = g_test_run ();

  if (!g_test_subprocess ())
    ts_test_remove_tree (fixture_dir);
  g_free (fixture_dir);
  return ret;
}
