/* bench-gui.c: time to first frame, and main-loop stalls, of the real window
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Usage: bench-gui MODEL...   (under a display; see bench-gui.sh)
 *
 * For each MODEL: opens it in a TsWindow and prints the time from
 * ts_window_open() to the model page and to the first frame painted after
 * it, and to the first frame with the layout's picture (computed on a
 * worker thread, so possibly a frame or two later). For models with at
 * least 1,000 tensors it then scrolls the tensor
 * table (page steps, then jumps as when dragging the scrollbar), sweeps the
 * pointer over the layout (motion events delivered to the view's motion
 * controller) and zooms in and out, and prints the longest main-loop stall
 * of each phase: the longest gap between two dispatches of a 1 ms
 * high-priority timeout, less its 1 ms period. The frame time (before-paint
 * to after-paint of the frame clock) is printed too.
 */

#include "config.h"

#include <gtk/gtk.h>

#include "ts-window-private.h"

#define TARGET_OPEN_MS   300.0
#define TARGET_STALL_MS  16.0
#define SCROLL_STEPS     240
#define SCROLL_JUMPS     60
#define HOVER_STEPS      240
#define ZOOM_STEPS       8

static gint64 last_dispatch;
static gint64 max_stall;
static GArray *frame_times;   /* gint64 µs, for the median and the 95th percentile */
static gint64 paint_start;
static gint64 max_frame;
static guint  n_paints;
static gint64 last_paint;

static double
ms (gint64 us)
{
  return us / 1000.0;
}

static gboolean
stall_probe (gpointer data)
{
  gint64 now = g_get_monotonic_time ();

  if (last_dispatch != 0)
    max_stall = MAX (max_stall, now - last_dispatch - 1000);
  last_dispatch = now;
  return G_SOURCE_CONTINUE;
}

static void
reset_probe (void)
{
  last_dispatch = 0;
  max_stall = 0;
  max_frame = 0;
  g_array_set_size (frame_times, 0);
}

static void
on_before_paint (GdkFrameClock *clock)
{
  paint_start = g_get_monotonic_time ();
}

static void
on_after_paint (GdkFrameClock *clock)
{
  last_paint = g_get_monotonic_time ();
  if (paint_start != 0)
    {
      gint64 t = last_paint - paint_start;

      max_frame = MAX (max_frame, t);
      g_array_append_val (frame_times, t);
    }
  n_paints++;
}

/* Runs the main loop until @done returns TRUE or @timeout_ms passes. */
static gboolean
wait_for (gboolean (*done) (gpointer),
          gpointer   data,
          guint      timeout_ms)
{
  gint64 end = g_get_monotonic_time () + timeout_ms * 1000;

  while (!done (data))
    {
      if (g_get_monotonic_time () > end)
        return FALSE;
      g_main_context_iteration (NULL, TRUE);
    }
  return TRUE;
}

static gboolean
is_model_page (gpointer data)
{
  const char *page = ts_window_get_page (data);

  return g_strcmp0 (page, "model") == 0 || g_strcmp0 (page, "error") == 0;
}

static guint wanted_paints;

static gboolean
painted (gpointer data)
{
  return n_paints >= wanted_paints;
}

static void
wait_frames (guint n)
{
  wanted_paints = n_paints + n;
  wait_for (painted, NULL, 5000);
}

static GtkWidget *
find_widget (GtkWidget *root,
             GType      type)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (root, type))
    return root;
  for (GtkWidget *child = gtk_widget_get_first_child (root); child; child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_widget (child, type);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static int
compare_gint64 (gconstpointer a,
                gconstpointer b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;

  return x < y ? -1 : x > y;
}

static double
frame_percentile (double p)
{
  if (frame_times->len == 0)
    return 0;
  g_array_sort (frame_times, compare_gint64);
  return ms (g_array_index (frame_times, gint64, (guint) (p * (frame_times->len - 1))));
}

/* The target is the max stall; the frame median and 95th percentile tell a
 * steady cost from a one-off hiccup on a busy machine. */
static void
report_phase (const char *what,
              guint       frames)
{
  g_print ("  %-34s %4u frames   max stall %6.1f ms   frame p50 %5.1f / p95 %5.1f / max %5.1f ms"
           "   target ≤ %.0f ms  %s\n",
           what, frames, ms (max_stall), frame_percentile (0.5), frame_percentile (0.95),
           ms (max_frame), TARGET_STALL_MS, ms (max_stall) <= TARGET_STALL_MS ? "OK" : "OVER");
}

static void
bench_scroll (TsWindow *window)
{
  GtkWidget *view = find_widget (GTK_WIDGET (ts_window_get_tensor_table (window)), GTK_TYPE_COLUMN_VIEW);
  GtkAdjustment *adj = gtk_scrollable_get_vadjustment (GTK_SCROLLABLE (view));
  GRand *rand = g_rand_new_with_seed (5);
  guint start = n_paints;

  reset_probe ();
  for (guint i = 0; i < SCROLL_STEPS; i++)
    {
      gtk_adjustment_set_value (adj, gtk_adjustment_get_value (adj) + gtk_adjustment_get_page_size (adj) / 2);
      wait_frames (1);
    }
  report_phase ("scroll table, half-page steps", n_paints - start);

  start = n_paints;
  reset_probe ();
  for (guint i = 0; i < SCROLL_JUMPS; i++)
    {
      double upper = gtk_adjustment_get_upper (adj) - gtk_adjustment_get_page_size (adj);

      gtk_adjustment_set_value (adj, g_rand_double_range (rand, 0, MAX (upper, 0)));
      wait_frames (1);
    }
  report_phase ("scroll table, scrollbar jumps", n_paints - start);
  g_rand_free (rand);
}

static GtkEventController *
find_motion_controller (GtkWidget *widget)
{
  g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (widget);

  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr(GtkEventController) c = g_list_model_get_item (controllers, i);

      if (GTK_IS_EVENT_CONTROLLER_MOTION (c))
        return c;
    }
  return NULL;
}

static void
bench_hover (TsWindow *window)
{
  TsLayoutView *view = ts_window_get_layout_view (window);
  GtkEventController *motion = find_motion_controller (GTK_WIDGET (view));
  TsLayout *layout = ts_layout_view_get_layout (view);
  guint start = n_paints;
  double x0, x1;

  g_assert (motion != NULL);
  ts_layout_get_strip_extent (layout, &x0, &x1);
  reset_probe ();
  /* a pointer sweeping the strips: four motion events per frame, each
   * over a different tensor band */
  for (guint i = 0; i < HOVER_STEPS; i++)
    {
      for (guint k = 0; k < 4; k++)
        {
          double t = ((i * 4 + k) % 240) / 240.0;
          guint band = (i * 4 + k) % ts_layout_get_n_bands (layout);
          const TsLayoutBand *b = ts_layout_get_band (layout, band);
          double y = b->visible ? b->y + b->height / 2 : 40;

          g_signal_emit_by_name (motion, "motion", x0 + t * (x1 - x0), y);
        }
      wait_frames (1);
    }
  report_phase ("hover layout, 4 moves per frame", n_paints - start);
}

/* The view lays out and draws on a worker; TRUE once its picture is of
 * the current width and zoom. */
static gboolean
picture_ready (gpointer data)
{
  TsLayoutView *view = data;

  return !ts_layout_view_get_pending (view) &&
         ts_layout_get_height (ts_layout_view_get_layout (view)) > 0;
}

static void
bench_zoom (TsWindow *window)
{
  TsLayoutView *view = ts_window_get_layout_view (window);
  guint start = n_paints;
  gint64 slowest = 0;

  reset_probe ();
  for (guint i = 0; i <= ZOOM_STEPS; i++)
    {
      gint64 t0 = g_get_monotonic_time ();

      if (i < ZOOM_STEPS)
        ts_layout_view_zoom_in (view);
      else
        ts_layout_view_zoom_reset (view);
      if (!wait_for (picture_ready, view, 5000))
        g_error ("zoom step %u: no picture after 5 s", i);
      /* the frame that shows it */
      wait_frames (1);
      slowest = MAX (slowest, last_paint - t0);
    }
  report_phase ("zoom layout in 8× and back", n_paints - start);
  g_print ("  %-34s %8.1f ms   (not a target: the picture follows, the old one stays meanwhile)\n",
           "zoom step → new picture, slowest", ms (slowest));
}

/* BENCH_GUI_PHASES=scroll,hover,zoom (default: all) runs only some phases,
 * e.g. under `perf record`. */
static gboolean
want_phase (const char *phase)
{
  const char *phases = g_getenv ("BENCH_GUI_PHASES");
  g_auto(GStrv) list = NULL;

  if (phases == NULL || phases[0] == '\0')
    return TRUE;
  list = g_strsplit (phases, ",", -1);
  return g_strv_contains ((const char * const *) list, phase);
}

static void
bench_model (GtkWindow  *window,
             const char *path)
{
  g_autoptr(GFile) file = g_file_new_for_commandline_arg (path);
  g_autofree char *name = g_file_get_basename (file);
  gint64 t0, t_page, t_frame, t_picture;
  TsModelFile *model;

  reset_probe ();
  t0 = g_get_monotonic_time ();
  ts_window_open (TS_WINDOW (window), file);
  if (!wait_for (is_model_page, window, 60000))
    g_error ("%s: not loaded after 60 s", path);
  t_page = g_get_monotonic_time ();
  wait_frames (1);
  t_frame = last_paint;

  model = ts_window_get_model (TS_WINDOW (window));
  if (model == NULL)
    g_error ("%s: %s", path, ts_window_get_error_message (TS_WINDOW (window)));

  g_print ("%s: %u part(s), %u tensors, %s\n", name,
           g_list_model_get_n_items (ts_model_file_get_parts (model)),
           ts_model_file_get_n_tensors (model),
           g_format_size (ts_model_file_get_total_size (model)));
  g_print ("  %-34s %8.1f ms\n", "open → model page shown", ms (t_page - t0));
  g_print ("  %-34s %8.1f ms   target ≤ %.0f ms  %s\n", "open → first frame of layout+table",
           ms (t_frame - t0), TARGET_OPEN_MS, ms (t_frame - t0) <= TARGET_OPEN_MS ? "OK" : "OVER");
  g_print ("  %-34s %8.1f ms   (not a target: the load itself)\n",
           "longest main-loop stall, opening", ms (max_stall));

  /* the layout's geometry and pixels come from a worker thread: the first
   * frame may show the table and an empty layout; say when it filled in */
  if (!picture_ready (ts_window_get_layout_view (TS_WINDOW (window))))
    {
      if (!wait_for (picture_ready, ts_window_get_layout_view (TS_WINDOW (window)), 10000))
        g_error ("%s: the layout was never drawn", path);
      wait_frames (1);
      t_picture = last_paint;
    }
  else
    t_picture = t_frame;
  g_print ("  %-34s %8.1f ms   target ≤ %.0f ms  %s\n", "open → layout picture painted",
           ms (t_picture - t0), TARGET_OPEN_MS, ms (t_picture - t0) <= TARGET_OPEN_MS ? "OK" : "OVER");

  wait_frames (10);
  if (ts_model_file_get_n_tensors (model) >= 1000)
    {
      if (want_phase ("scroll"))
        bench_scroll (TS_WINDOW (window));
      if (want_phase ("hover"))
        bench_hover (TS_WINDOW (window));
      if (want_phase ("zoom"))
        bench_zoom (TS_WINDOW (window));
    }
}

int
main (int    argc,
      char **argv)
{
  GtkWindow *window;
  GdkFrameClock *clock;

  gtk_init ();
  frame_times = g_array_new (FALSE, FALSE, sizeof (gint64));
  if (argc < 2)
    {
      g_printerr ("usage: bench-gui MODEL...\n");
      return 2;
    }

  window = GTK_WINDOW (ts_window_new (NULL));
  gtk_window_set_default_size (window, 1280, 800);
  gtk_window_present (window);
  while (!gtk_widget_get_mapped (GTK_WIDGET (window)))
    g_main_context_iteration (NULL, TRUE);

  clock = gtk_widget_get_frame_clock (GTK_WIDGET (window));
  g_signal_connect (clock, "before-paint", G_CALLBACK (on_before_paint), NULL);
  g_signal_connect (clock, "after-paint", G_CALLBACK (on_after_paint), NULL);
  g_timeout_add_full (G_PRIORITY_HIGH, 1, stall_probe, NULL, NULL);
  wait_frames (2);

  for (int i = 1; i < argc; i++)
    bench_model (window, argv[i]);

  gtk_window_destroy (window);
  return 0;
}
