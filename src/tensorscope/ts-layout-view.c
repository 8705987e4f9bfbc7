/* ts-layout-view.c: the interactive layout diagram
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>

#include "ts-format.h"
#include "ts-layout-view.h"

/* the widest band whose selection also gets a mark above it, in pixels */
#define SELECTION_MARK_MAX_WIDTH 16.0

/* TsLayout computes the geometry and draws the static picture; this widget
 * adds hover, selection and focus on top of it, tooltips, zoom and keyboard
 * navigation.
 *
 * For 50,000 tensors, laying the bands out and drawing them takes tens of
 * milliseconds, so neither happens on the main thread: every change of
 * width, zoom or scale factor sends a private copy of the layout to a GTask
 * worker, which allocates it, orders the bands for the keyboard and draws
 * the picture into pixels. Meanwhile the view keeps showing (and
 * hit-testing) the previous picture; a newer request cancels an older one,
 * so a stale result is never applied. The result's geometry is swapped
 * into the view's layout in O(1), and hit-testing is a bsearch on it. */

#define MIN_WIDTH     360
#define NAT_WIDTH     1000

/* 64 Mpx (256 MB): a bigger picture (hundreds of shards) is kept as a
 * cairo recording instead, drawn on the main thread */
#define MAX_TEXTURE_PIXELS (64 * 1024 * 1024)

typedef struct
{
  guint64 start;
  guint64 end;
} Range;

struct _TsLayoutView
{
  GtkWidget          parent_instance;

  TsLayout          *layout;
  GtkSelectionModel *model;
  GskRenderNode     *node;         /* the static picture of the geometry shown */
  GArray            *history;      /* Range: where zoom-back returns to */
  GArray            *nav;          /* band ids in keyboard order */

  GCancellable      *cancellable;  /* the geometry request in flight */
  double             requested_width;
  int                requested_scale;
  gboolean           pending;

  double             pointer_x;
  double             zoom_step;
  Range              pinch_start;
  double             pinch_x;

  guint              hover_band;
  guint              selected_band;
  guint              focus_band;
  guint              scroll_band;   /* to bring into view once laid out */
  guint              handled_keyval; /* the key pressed last, if the view took it */
};

enum {
  PROP_0,
  PROP_LAYOUT,
  PROP_MODEL,
  PROP_ZOOMED,
  PROP_PENDING,
  N_PROPS
};

enum {
  SELECT_HIDDEN_TENSOR,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

static void update_accessible (TsLayoutView *self);

G_DEFINE_FINAL_TYPE (TsLayoutView, ts_layout_view, GTK_TYPE_WIDGET)

GtkWidget *
ts_layout_view_new (void)
{
  return g_object_new (TS_TYPE_LAYOUT_VIEW, NULL);
}

/* ------------------------------------------------------------------------ */
/* Geometry, on a worker thread                                              */

/* Keyboard order: each strip left to right, a data region replaced by its
 * visible tensors. Runs on the worker, on the request's copy. */
static void
build_nav (TsLayout *layout,
           GArray   *nav)
{
  guint n = ts_layout_get_n_bands (layout);
  const TsLayoutBand *prev = NULL;

  /* Band ids run strip by strip, regions before tensors, so a stable sort
   * on (part, x) gives that order. */
  g_array_set_size (nav, 0);
  for (guint i = 0; i < n; i++)
    {
      const TsLayoutBand *b = ts_layout_get_band (layout, i);
      gboolean has_tensors = FALSE;

      if (!b->visible)
        continue;
      if (b->type == TS_LAYOUT_BAND_REGION && b->kind == TS_REGION_TENSOR_DATA)
        {
          for (guint j = i + 1; j < n && !has_tensors; j++)
            {
              const TsLayoutBand *t = ts_layout_get_band (layout, j);
              if (t->part != b->part)
                break;
              has_tensors = t->parent == b->id && t->visible;
            }
          if (has_tensors)
            continue;
        }
      g_array_append_val (nav, i);
    }

  /* tensors come after all regions of their part: put them in x order */
  for (guint i = 1; i < nav->len; i++)
    {
      guint cur = g_array_index (nav, guint, i);
      const TsLayoutBand *b = ts_layout_get_band (layout, cur);
      guint j = i;

      while (j > 0)
        {
          prev = ts_layout_get_band (layout, g_array_index (nav, guint, j - 1));
          if (prev->part < b->part || (prev->part == b->part && prev->x <= b->x))
            break;
          g_array_index (nav, guint, j) = g_array_index (nav, guint, j - 1);
          j--;
        }
      g_array_index (nav, guint, j) = cur;
    }
}

/* The static picture in device pixels: a cairo node would keep a recording
 * that every frame replays (50,000 tensor bands on each hover move); a
 * texture is blitted. NULL when too big for one texture. */
static cairo_surface_t *
render_picture (TsLayout *layout,
                int       scale)
{
  int pw = (int) ceil (ts_layout_get_width (layout) * scale);
  int ph = (int) ceil (ts_layout_get_height (layout) * scale);
  cairo_surface_t *surface;
  cairo_t *cr;

  /* a checkpoint of two hundred shards is taller than an image surface
   * can be (at a scale of 2, from a hundred) */
  if (pw <= 0 || ph <= 0 || (gint64) pw * ph > MAX_TEXTURE_PIXELS ||
      pw > TS_LAYOUT_IMAGE_MAX_SIDE || ph > TS_LAYOUT_IMAGE_MAX_SIDE)
    return NULL;

  surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, pw, ph);
  if (cairo_surface_status (surface) != CAIRO_STATUS_SUCCESS)
    {
      /* out of memory: the view records its picture instead */
      cairo_surface_destroy (surface);
      return NULL;
    }
  cairo_surface_set_device_scale (surface, scale, scale);
  cr = cairo_create (surface);
  ts_layout_draw (layout, cr);
  cairo_destroy (cr);
  cairo_surface_flush (surface);
  return surface;
}

typedef struct
{
  TsLayout        *layout;    /* a private copy, allocated by the worker */
  double           width;
  int              scale;
  GArray          *nav;
  cairo_surface_t *surface;
} GeometryRequest;

static void
geometry_request_free (gpointer data)
{
  GeometryRequest *req = data;

  g_clear_object (&req->layout);
  g_clear_pointer (&req->nav, g_array_unref);
  g_clear_pointer (&req->surface, cairo_surface_destroy);
  g_free (req);
}

static void
geometry_worker (GTask        *task,
                 gpointer      source_object,
                 gpointer      task_data,
                 GCancellable *cancellable)
{
  GeometryRequest *req = task_data;

  ts_layout_allocate (req->layout, req->width);
  if (g_task_return_error_if_cancelled (task))
    return;
  build_nav (req->layout, req->nav);
  if (g_task_return_error_if_cancelled (task))
    return;
  req->surface = render_picture (req->layout, req->scale);
  g_task_return_boolean (task, TRUE);
}

static GskRenderNode *
texture_node_for_surface (cairo_surface_t *surface,
                          double           width,
                          double           height)
{
  int pw = cairo_image_surface_get_width (surface);
  int ph = cairo_image_surface_get_height (surface);
  int stride = cairo_image_surface_get_stride (surface);
  g_autoptr(GdkTexture) texture = NULL;
  g_autoptr(GBytes) bytes = NULL;

  /* the texture keeps the surface's pixels, uncopied;
   * CAIRO_FORMAT_ARGB32 is GDK_MEMORY_DEFAULT */
  bytes = g_bytes_new_with_free_func (cairo_image_surface_get_data (surface),
                                      (gsize) stride * ph,
                                      (GDestroyNotify) cairo_surface_destroy, surface);
  texture = gdk_memory_texture_new (pw, ph, GDK_MEMORY_DEFAULT, bytes, stride);
  return gsk_texture_node_new (texture, &GRAPHENE_RECT_INIT (0, 0, width, height));
}

static void
set_pending (TsLayoutView *self,
             gboolean      pending)
{
  if (self->pending == pending)
    return;

  self->pending = pending;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PENDING]);
}

/* Scrolls the scrolled window around the view so that @band_id (with its
 * strip's heading above and its label row below) shows; again once the
 * geometry in progress arrives. Keyboard focus and a selection made in the
 * table had been left off screen. */
static void
scroll_to_band (TsLayoutView *self,
                guint         band_id)
{
  GtkWidget *viewport = gtk_widget_get_ancestor (GTK_WIDGET (self), GTK_TYPE_VIEWPORT);
  const TsLayoutBand *band;
  GtkAdjustment *adj;
  double top, bottom, value, page;

  /* kept for the geometry in progress, if any */
  self->scroll_band = self->pending ? band_id : TS_LAYOUT_NO_BAND;
  if (viewport == NULL || self->layout == NULL || band_id == TS_LAYOUT_NO_BAND)
    return;
  band = ts_layout_get_band (self->layout, band_id);
  if (!band->visible)
    return;
  adj = gtk_scrollable_get_vadjustment (GTK_SCROLLABLE (viewport));
  value = gtk_adjustment_get_value (adj);
  page = gtk_adjustment_get_page_size (adj);
  top = MAX (0, band->y - 36);
  bottom = band->y + band->height + 40;
  if (top < value)
    gtk_adjustment_set_value (adj, top);
  else if (bottom > value + page)
    gtk_adjustment_set_value (adj, MIN (top, bottom - page));
}

static void
apply_geometry (TsLayoutView    *self,
                GeometryRequest *req)
{
  double old_height = ts_layout_get_height (self->layout);
  guint old_focus = self->focus_band;

  ts_layout_take_geometry (self->layout, req->layout);
  g_clear_pointer (&self->nav, g_array_unref);
  self->nav = g_steal_pointer (&req->nav);
  g_clear_pointer (&self->node, gsk_render_node_unref);
  if (req->surface != NULL)
    self->node = texture_node_for_surface (g_steal_pointer (&req->surface),
                                           ts_layout_get_width (self->layout),
                                           ts_layout_get_height (self->layout));

  if (self->focus_band != TS_LAYOUT_NO_BAND &&
      !ts_layout_get_band (self->layout, self->focus_band)->visible)
    self->focus_band = TS_LAYOUT_NO_BAND;

  set_pending (self, FALSE);
  if (ts_layout_get_height (self->layout) != old_height)
    gtk_widget_queue_resize (GTK_WIDGET (self));
  gtk_widget_queue_draw (GTK_WIDGET (self));
  if (self->scroll_band != TS_LAYOUT_NO_BAND)
    scroll_to_band (self, self->scroll_band);

  /* the view took the focus before it had bands (as the window opens on
   * it): the first band has it now, as when the focus comes later */
  if (self->focus_band == TS_LAYOUT_NO_BAND && self->nav->len > 0 &&
      gtk_widget_has_focus (GTK_WIDGET (self)))
    self->focus_band = g_array_index (self->nav, guint, 0);
  if (self->focus_band != old_focus)
    update_accessible (self);
}

static void
geometry_done (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  /* released here, on the main thread: a task's source object may be
   * released on the worker, and a widget must not be finalized there */
  g_autoptr(TsLayoutView) self = user_data;
  g_autoptr(GError) error = NULL;

  /* a cancelled request was replaced (or the view disposed): its
   * result is stale, and self must not be touched */
  if (!g_task_propagate_boolean (G_TASK (result), &error))
    return;

  apply_geometry (self, g_task_get_task_data (G_TASK (result)));
}

static void
cancel_request (TsLayoutView *self)
{
  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  self->requested_width = -1;
}

/* Cancels any request in flight and lays the current view range out for
 * @width; the previous picture stays until the new one arrives. */
static void
request_geometry (TsLayoutView *self,
                  double        width)
{
  g_autoptr(GTask) task = NULL;
  GeometryRequest *req;

  g_assert (self->layout != NULL);

  cancel_request (self);
  self->cancellable = g_cancellable_new ();
  self->requested_width = width;
  self->requested_scale = gtk_widget_get_scale_factor (GTK_WIDGET (self));

  req = g_new0 (GeometryRequest, 1);
  req->layout = ts_layout_copy (self->layout);
  req->width = width;
  req->scale = self->requested_scale;
  req->nav = g_array_new (FALSE, FALSE, sizeof (guint));

  task = g_task_new (NULL, self->cancellable, geometry_done, g_object_ref (self));
  g_task_set_source_tag (task, request_geometry);
  g_task_set_task_data (task, req, geometry_request_free);
  g_task_run_in_thread (task, geometry_worker);
  set_pending (self, TRUE);
}

/* The view range or the layout changed: lay out again at the current
 * width, or at the next allocation if there is none yet. */
static void
view_changed (TsLayoutView *self)
{
  int width = gtk_widget_get_width (GTK_WIDGET (self));

  self->hover_band = TS_LAYOUT_NO_BAND;
  if (self->layout != NULL && width > 0)
    request_geometry (self, MAX (width, MIN_WIDTH));
  else
    {
      cancel_request (self);
      gtk_widget_queue_resize (GTK_WIDGET (self));
    }
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ZOOMED]);
}

static void
ts_layout_view_measure (GtkWidget      *widget,
                        GtkOrientation  orientation,
                        int             for_size,
                        int            *minimum,
                        int            *natural,
                        int            *minimum_baseline,
                        int            *natural_baseline)
{
  TsLayoutView *self = TS_LAYOUT_VIEW (widget);

  if (self->layout == NULL)
    {
      *minimum = *natural = 0;
      return;
    }

  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    {
      *minimum = MIN_WIDTH;
      *natural = NAT_WIDTH;
      return;
    }

  /* the height of the geometry shown (0 before the first arrives): the
   * label rows hardly depend on the width, and a new geometry of another
   * height queues a resize */
  *minimum = *natural = (int) ceil (ts_layout_get_height (self->layout));
}

static GtkSizeRequestMode
ts_layout_view_get_request_mode (GtkWidget *widget)
{
  return GTK_SIZE_REQUEST_HEIGHT_FOR_WIDTH;
}

static void
ts_layout_view_size_allocate (GtkWidget *widget,
                              int        width,
                              int        height,
                              int        baseline)
{
  TsLayoutView *self = TS_LAYOUT_VIEW (widget);
  double w = MAX (width, MIN_WIDTH);

  if (self->layout != NULL &&
      (w != self->requested_width ||
       gtk_widget_get_scale_factor (widget) != self->requested_scale))
    request_geometry (self, w);
}

/* ------------------------------------------------------------------------ */
/* Drawing                                                                   */

static void
append_outline (GtkSnapshot        *snapshot,
                const TsLayoutBand *band,
                double              inset,
                double              line_width,
                const GdkRGBA      *color)
{
  GskRoundedRect outline;
  float w = line_width;
  const GdkRGBA colors[4] = { *color, *color, *color, *color };
  const float widths[4] = { w, w, w, w };

  gsk_rounded_rect_init_from_rect (&outline,
                                   &GRAPHENE_RECT_INIT (band->x - inset, band->y - inset,
                                                        band->width + 2 * inset,
                                                        band->height + 2 * inset),
                                   2);
  gtk_snapshot_append_border (snapshot, &outline, widths, colors);
}

/* Only for a picture too big for one texture: a recording of the layout,
 * replayed by the renderer. */
static GskRenderNode *
record_picture (TsLayoutView *self)
{
  double w = ts_layout_get_width (self->layout);
  double h = ts_layout_get_height (self->layout);
  g_autoptr(GtkSnapshot) snapshot = NULL;
  cairo_t *cr;

  if (w <= 0 || h <= 0)
    return NULL;

  snapshot = gtk_snapshot_new ();
  cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, w, h));
  ts_layout_draw (self->layout, cr);
  cairo_destroy (cr);
  return gtk_snapshot_free_to_node (g_steal_pointer (&snapshot));
}

static void
ts_layout_view_snapshot (GtkWidget   *widget,
                         GtkSnapshot *snapshot)
{
  TsLayoutView *self = TS_LAYOUT_VIEW (widget);
  static const GdkRGBA selected_color = { 0.11, 0.44, 0.85, 1.0 };   /* #1c71d8 */
  /* opaque: 60% of it had 2:1 on white, 2.4:1 on the dark ground, and
   * a focus indicator needs 3:1 */
  static const GdkRGBA focus_color = { 0.21, 0.52, 0.89, 1.0 };     /* #3584e4 */
  GdkRGBA hover_color;

  if (self->layout == NULL)
    return;

  /* no texture for the geometry shown: it is too big for one */
  if (self->node == NULL && !self->pending)
    self->node = record_picture (self);

  if (self->node != NULL)
    gtk_snapshot_append_node (snapshot, self->node);

  if (self->selected_band != TS_LAYOUT_NO_BAND)
    {
      const TsLayoutBand *b = ts_layout_get_band (self->layout, self->selected_band);
      if (b->visible)
        {
          append_outline (snapshot, b, 3, 2.5, &selected_color);
          /* a mark above a band too narrow for its outline to show; above a
           * wide one it would only cover its layer's label */
          if (b->width < SELECTION_MARK_MAX_WIDTH)
            gtk_snapshot_append_color (snapshot, &selected_color,
                                       &GRAPHENE_RECT_INIT (b->x + b->width / 2 - 5, b->y - 9, 10, 4));
        }
    }

  if (self->hover_band != TS_LAYOUT_NO_BAND && self->hover_band != self->selected_band)
    {
      const TsLayoutBand *b = ts_layout_get_band (self->layout, self->hover_band);

      /* the text colour: a fixed near-black vanished on a dark ground */
      ts_widget_get_color (widget, &hover_color);
      hover_color.alpha *= 0.85;
      if (b->visible)
        append_outline (snapshot, b, 1, 1.5, &hover_color);
    }

  if (self->focus_band != TS_LAYOUT_NO_BAND && gtk_widget_has_visible_focus (widget))
    {
      const TsLayoutBand *b = ts_layout_get_band (self->layout, self->focus_band);
      if (b->visible)
        append_outline (snapshot, b, 6, 2, &focus_color);
    }
}

/* ------------------------------------------------------------------------ */
/* Selection                                                                 */

static TsTensor *
get_selected_tensor (TsLayoutView *self)
{
  g_autoptr(GtkBitset) selection = NULL;
  guint n;

  if (self->model == NULL)
    return NULL;

  n = g_list_model_get_n_items (G_LIST_MODEL (self->model));
  selection = gtk_selection_model_get_selection_in_range (self->model, 0, n);
  if (gtk_bitset_is_empty (selection))
    return NULL;

  return g_list_model_get_item (G_LIST_MODEL (self->model), gtk_bitset_get_minimum (selection));
}

static gboolean
band_in_view_range (TsLayoutView       *self,
                    const TsLayoutBand *band)
{
  guint64 start, end;

  ts_layout_get_view_range (self->layout, &start, &end);
  return band->offset < end && band->offset + MAX (band->length, 1) > start;
}

static void
on_selection_changed (TsLayoutView *self)
{
  g_autoptr(TsTensor) tensor = get_selected_tensor (self);
  guint band = TS_LAYOUT_NO_BAND;

  if (tensor != NULL && self->layout != NULL)
    band = ts_layout_find_tensor (self->layout, tensor);

  if (band == self->selected_band)
    return;

  self->selected_band = band;
  if (band == TS_LAYOUT_NO_BAND)
    update_accessible (self);   /* the focus band is no longer the selected one */
  else
    {
      self->focus_band = band;
      update_accessible (self);
      /* a selection made in the table must be seen: leave a zoom that hides
       * it (by bytes: the geometry may still be on its way) */
      if (!band_in_view_range (self, ts_layout_get_band (self->layout, band)))
        {
          g_array_set_size (self->history, 0);
          ts_layout_reset_view_range (self->layout);
          view_changed (self);
        }
      scroll_to_band (self, band);
    }
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/* A screen reader says the view's name ("Byte layout of …") and, as its
 * description, the band with the keyboard focus; Orca reads a changed
 * description of the focused widget, so moving between bands is heard.
 * Called wherever the focused band changes. */
static void
update_accessible (TsLayoutView *self)
{
  g_autofree char *description = NULL;

  if (self->layout == NULL || self->focus_band == TS_LAYOUT_NO_BAND)
    {
      gtk_accessible_reset_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION);
      return;
    }

  description = ts_layout_dup_band_description (self->layout,
                                                ts_layout_get_band (self->layout, self->focus_band));
  /* the selected band is told by its shade of blue on screen */
  if (self->focus_band == self->selected_band)
    {
      /* Translators: a band of the layout diagram, as a screen reader
       * says it, when its tensor is the one selected in the table */
      g_autofree char *selected = g_strdup_printf (_("%s (selected)"), description);

      g_free (description);
      description = g_steal_pointer (&selected);
    }
  gtk_accessible_update_property (GTK_ACCESSIBLE (self),
                                  GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, description,
                                  -1);
}

void
ts_layout_view_activate_band (TsLayoutView *self,
                              guint         band_id)
{
  const TsLayoutBand *band;
  guint n;

  g_return_if_fail (TS_IS_LAYOUT_VIEW (self));
  g_return_if_fail (self->layout != NULL);

  band = ts_layout_get_band (self->layout, band_id);
  self->focus_band = band_id;
  update_accessible (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));

  if (band->type != TS_LAYOUT_BAND_TENSOR || self->model == NULL)
    return;

  /* The shared model is the table's sorted, filtered view: find the row. */
  n = g_list_model_get_n_items (G_LIST_MODEL (self->model));
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(TsTensor) tensor = g_list_model_get_item (G_LIST_MODEL (self->model), i);

      if (tensor == band->tensor)
        {
          gtk_selection_model_select_item (self->model, i, TRUE);
          return;
        }
    }

  /* filtered out of the table: let the owner widen the filter */
  g_signal_emit (self, signals[SELECT_HIDDEN_TENSOR], 0, band->tensor);
}

guint
ts_layout_view_get_selected_band (TsLayoutView *self)
{
  g_return_val_if_fail (TS_IS_LAYOUT_VIEW (self), TS_LAYOUT_NO_BAND);

  return self->selected_band;
}

guint
ts_layout_view_get_focus_band (TsLayoutView *self)
{
  g_return_val_if_fail (TS_IS_LAYOUT_VIEW (self), TS_LAYOUT_NO_BAND);

  return self->focus_band;
}

/* ------------------------------------------------------------------------ */
/* Zoom                                                                      */

gboolean
ts_layout_view_get_pending (TsLayoutView *self)
{
  g_return_val_if_fail (TS_IS_LAYOUT_VIEW (self), FALSE);

  return self->pending;
}

gboolean
ts_layout_view_get_zoomed (TsLayoutView *self)
{
  g_return_val_if_fail (TS_IS_LAYOUT_VIEW (self), FALSE);

  return self->layout != NULL && ts_layout_is_zoomed (self->layout);
}

static void
push_history (TsLayoutView *self)
{
  Range range;

  ts_layout_get_view_range (self->layout, &range.start, &range.end);
  g_array_append_val (self->history, range);
}

static void
zoom_around (TsLayoutView *self,
             double        factor,
             double        x)
{
  if (self->layout == NULL)
    return;

  ts_layout_zoom_at (self->layout, factor, x);
  view_changed (self);
}

static double
center_x (TsLayoutView *self)
{
  double x0, x1;

  ts_layout_get_strip_extent (self->layout, &x0, &x1);
  return (x0 + x1) / 2;
}

/* A zoom step (keys, buttons) is a range Alt+Left goes back to, as a zoom
 * into a band is; the small steps of the wheel and of a pinch are not. */
static void
zoom_step (TsLayoutView *self,
           double        factor)
{
  guint64 start, end, new_start, new_end;

  if (self->layout == NULL)
    return;
  ts_layout_get_view_range (self->layout, &start, &end);
  zoom_around (self, factor, center_x (self));
  ts_layout_get_view_range (self->layout, &new_start, &new_end);
  if (new_start != start || new_end != end)
    {
      Range range = { start, end };

      g_array_append_val (self->history, range);
    }
}

void
ts_layout_view_zoom_in (TsLayoutView *self)
{
  g_return_if_fail (TS_IS_LAYOUT_VIEW (self));

  zoom_step (self, self->zoom_step);
}

void
ts_layout_view_zoom_out (TsLayoutView *self)
{
  g_return_if_fail (TS_IS_LAYOUT_VIEW (self));

  zoom_step (self, 1.0 / self->zoom_step);
}

void
ts_layout_view_zoom_reset (TsLayoutView *self)
{
  g_return_if_fail (TS_IS_LAYOUT_VIEW (self));

  if (self->layout == NULL)
    return;

  g_array_set_size (self->history, 0);
  ts_layout_reset_view_range (self->layout);
  view_changed (self);
}

void
ts_layout_view_zoom_back (TsLayoutView *self)
{
  Range range;

  g_return_if_fail (TS_IS_LAYOUT_VIEW (self));

  if (self->layout == NULL)
    return;

  if (self->history->len == 0)
    {
      ts_layout_view_zoom_reset (self);
      return;
    }

  range = g_array_index (self->history, Range, self->history->len - 1);
  g_array_set_size (self->history, self->history->len - 1);
  ts_layout_set_view_range (self->layout, range.start, range.end);
  view_changed (self);
}

void
ts_layout_view_zoom_to_band (TsLayoutView *self,
                             guint         band_id)
{
  const TsLayoutBand *band;
  guint64 margin;

  g_return_if_fail (TS_IS_LAYOUT_VIEW (self));
  g_return_if_fail (self->layout != NULL);

  band = ts_layout_get_band (self->layout, band_id);
  /* a little context on both sides, so the neighbours show */
  margin = band->length / 20;
  push_history (self);
  ts_layout_set_view_range (self->layout,
                            band->offset > margin ? band->offset - margin : 0,
                            band->offset + band->length + margin);
  self->focus_band = band_id;
  update_accessible (self);
  view_changed (self);
}

void
ts_layout_view_set_zoom_step (TsLayoutView *self,
                              double        step)
{
  g_return_if_fail (TS_IS_LAYOUT_VIEW (self));

  self->zoom_step = CLAMP (step, 1.1, 8.0);
}

/* ------------------------------------------------------------------------ */
/* Input                                                                     */

static void
set_hover (TsLayoutView *self,
           guint         band)
{
  if (band == self->hover_band)
    return;

  self->hover_band = band;
  gtk_widget_set_cursor_from_name (GTK_WIDGET (self), band != TS_LAYOUT_NO_BAND ? "pointer" : NULL);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
on_motion (TsLayoutView             *self,
           double                    x,
           double                    y,
           GtkEventControllerMotion *motion)
{
  const TsLayoutBand *band;

  self->pointer_x = x;
  if (self->layout == NULL)
    return;

  band = ts_layout_hit_test (self->layout, x, y);
  set_hover (self, band != NULL ? band->id : TS_LAYOUT_NO_BAND);
}

static void
on_leave (TsLayoutView             *self,
          GtkEventControllerMotion *motion)
{
  set_hover (self, TS_LAYOUT_NO_BAND);
}

static void
on_pressed (TsLayoutView    *self,
            int              n_press,
            double           x,
            double           y,
            GtkGestureClick *gesture)
{
  const TsLayoutBand *band;

  if (self->layout == NULL)
    return;

  gtk_widget_grab_focus (GTK_WIDGET (self));
  if (!(band = ts_layout_hit_test (self->layout, x, y)))
    return;

  if (n_press == 2)
    ts_layout_view_zoom_to_band (self, band->id);
  else if (n_press == 1)
    ts_layout_view_activate_band (self, band->id);
}

static gboolean
on_scroll (TsLayoutView             *self,
           double                    dx,
           double                    dy,
           GtkEventControllerScroll *scroll)
{
  GdkModifierType state = gtk_event_controller_get_current_event_state (GTK_EVENT_CONTROLLER (scroll));

  /* plain scrolling scrolls the page; Ctrl+scroll zooms at the pointer */
  if (!(state & GDK_CONTROL_MASK) || self->layout == NULL || dy == 0)
    return FALSE;

  zoom_around (self, dy < 0 ? 1.25 : 0.8, self->pointer_x);
  return TRUE;
}

static void
on_pinch_begin (TsLayoutView   *self,
                GdkEventSequence *sequence,
                GtkGestureZoom *gesture)
{
  double x = 0, y = 0;

  if (self->layout == NULL)
    return;

  ts_layout_get_view_range (self->layout, &self->pinch_start.start, &self->pinch_start.end);
  gtk_gesture_get_bounding_box_center (GTK_GESTURE (gesture), &x, &y);
  self->pinch_x = x;
}

static void
on_pinch_scale_changed (TsLayoutView   *self,
                        double          scale,
                        GtkGestureZoom *gesture)
{
  if (self->layout == NULL || scale <= 0)
    return;

  ts_layout_set_view_range (self->layout, self->pinch_start.start, self->pinch_start.end);
  zoom_around (self, scale, self->pinch_x);
}

static gboolean
ts_layout_view_query_tooltip (GtkWidget  *widget,
                              int         x,
                              int         y,
                              gboolean    keyboard_mode,
                              GtkTooltip *tooltip)
{
  TsLayoutView *self = TS_LAYOUT_VIEW (widget);
  const TsLayoutBand *band = NULL;
  g_autofree char *text = NULL;

  if (self->layout == NULL)
    return FALSE;

  if (keyboard_mode && self->focus_band != TS_LAYOUT_NO_BAND)
    band = ts_layout_get_band (self->layout, self->focus_band);
  else if (!keyboard_mode)
    band = ts_layout_hit_test (self->layout, x, y);

  if (band == NULL || !band->visible)
    return FALSE;

  text = ts_layout_dup_band_description (self->layout, band);
  gtk_tooltip_set_text (tooltip, text);
  gtk_tooltip_set_tip_area (tooltip, &(GdkRectangle) {
                              (int) band->x, (int) band->y,
                              MAX (1, (int) band->width), (int) band->height });
  return TRUE;
}

static void
move_focus (TsLayoutView *self,
            int           delta)
{
  gint pos = -1;

  if (self->layout == NULL || self->nav->len == 0)
    return;

  for (guint i = 0; i < self->nav->len; i++)
    if (g_array_index (self->nav, guint, i) == self->focus_band)
      pos = i;

  if (pos < 0)
    pos = delta > 0 ? 0 : self->nav->len - 1;
  else
    pos = CLAMP (pos + delta, 0, (gint) self->nav->len - 1);

  self->focus_band = g_array_index (self->nav, guint, pos);
  update_accessible (self);
  scroll_to_band (self, self->focus_band);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/* The view takes its keys before the window, whose own handler shows
 * the focus on a key press: the window opens with the diagram focused,
 * and the arrow keys moved a focus outline nobody could see. */
static void
show_focus (TsLayoutView *self)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));

  if (GTK_IS_WINDOW (root))
    gtk_window_set_focus_visible (GTK_WINDOW (root), TRUE);
}

/* The window hides the focus again on the release of a key that left the
 * focus on the widget it was on (before the view hears the release): for
 * the window, moving between bands is such a key, and the outline showed
 * only while the key was held down. */
static void
on_key_released (TsLayoutView          *self,
                 guint                  keyval,
                 guint                  keycode,
                 GdkModifierType        state,
                 GtkEventControllerKey *key)
{
  if (keyval == self->handled_keyval)
    show_focus (self);
  self->handled_keyval = 0;
}

static gboolean
on_key_pressed (TsLayoutView          *self,
                guint                  keyval,
                guint                  keycode,
                GdkModifierType        state,
                GtkEventControllerKey *key)
{
  self->handled_keyval = 0;
  if (self->layout == NULL || (state & (GDK_CONTROL_MASK | GDK_ALT_MASK)))
    return FALSE;

  switch (keyval)
    {
    case GDK_KEY_Left:
    case GDK_KEY_KP_Left:
      move_focus (self, -1);
      break;
    case GDK_KEY_Right:
    case GDK_KEY_KP_Right:
      move_focus (self, 1);
      break;
    case GDK_KEY_Home:
      move_focus (self, -(gint) self->nav->len);
      break;
    case GDK_KEY_End:
      move_focus (self, self->nav->len);
      break;
    case GDK_KEY_space:
      if (self->focus_band != TS_LAYOUT_NO_BAND)
        ts_layout_view_activate_band (self, self->focus_band);
      break;
    case GDK_KEY_Return:
    case GDK_KEY_KP_Enter:
      if (self->focus_band != TS_LAYOUT_NO_BAND)
        ts_layout_view_zoom_to_band (self, self->focus_band);
      break;
    case GDK_KEY_BackSpace:
      ts_layout_view_zoom_back (self);
      break;
    default:
      return FALSE;
    }
  self->handled_keyval = keyval;
  show_focus (self);
  return TRUE;
}

/* ------------------------------------------------------------------------ */
/* GObject                                                                   */

TsLayout *
ts_layout_view_get_layout (TsLayoutView *self)
{
  g_return_val_if_fail (TS_IS_LAYOUT_VIEW (self), NULL);

  return self->layout;
}

void
ts_layout_view_set_layout (TsLayoutView *self,
                           TsLayout     *layout)
{
  g_autofree char *label = NULL;

  g_return_if_fail (TS_IS_LAYOUT_VIEW (self));
  g_return_if_fail (!layout || TS_IS_LAYOUT (layout));

  if (!g_set_object (&self->layout, layout))
    return;

  /* nothing of the old layout's geometry applies: blank until the first
   * picture of the new one arrives */
  cancel_request (self);
  set_pending (self, FALSE);
  g_clear_pointer (&self->node, gsk_render_node_unref);
  g_array_set_size (self->nav, 0);
  g_array_set_size (self->history, 0);
  self->selected_band = self->hover_band = self->focus_band = TS_LAYOUT_NO_BAND;
  self->scroll_band = TS_LAYOUT_NO_BAND;
  update_accessible (self);
  if (layout != NULL)
    ts_layout_set_dark (layout, ts_widget_has_dark_style (GTK_WIDGET (self)));
  /* a plan's layout (the wizard's preview) has no model: its view keeps
   * the label it was given */
  if (layout != NULL && ts_layout_get_model (layout) != NULL)
    {
      label = g_strdup_printf (_("Byte layout of %s"),
                               ts_model_file_get_display_name (ts_layout_get_model (layout)));
      gtk_accessible_update_property (GTK_ACCESSIBLE (self),
                                      GTK_ACCESSIBLE_PROPERTY_LABEL, label,
                                      -1);
    }
  on_selection_changed (self);
  view_changed (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LAYOUT]);
}

GtkSelectionModel *
ts_layout_view_get_model (TsLayoutView *self)
{
  g_return_val_if_fail (TS_IS_LAYOUT_VIEW (self), NULL);

  return self->model;
}

void
ts_layout_view_set_model (TsLayoutView      *self,
                          GtkSelectionModel *model)
{
  g_return_if_fail (TS_IS_LAYOUT_VIEW (self));
  g_return_if_fail (!model || GTK_IS_SELECTION_MODEL (model));

  if (self->model == model)
    return;

  if (self->model != NULL)
    g_signal_handlers_disconnect_by_func (self->model, on_selection_changed, self);

  g_set_object (&self->model, model);

  if (model != NULL)
    g_signal_connect_object (model, "selection-changed",
                             G_CALLBACK (on_selection_changed), self,
                             G_CONNECT_SWAPPED);

  on_selection_changed (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MODEL]);
}

static void
ts_layout_view_focus_changed (TsLayoutView *self)
{
  if (gtk_widget_has_focus (GTK_WIDGET (self)) && self->focus_band == TS_LAYOUT_NO_BAND)
    move_focus (self, 1);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
ts_layout_view_dispose (GObject *object)
{
  TsLayoutView *self = (TsLayoutView *) object;

  cancel_request (self);
  ts_layout_view_set_model (self, NULL);
  g_clear_object (&self->layout);
  g_clear_pointer (&self->node, gsk_render_node_unref);

  G_OBJECT_CLASS (ts_layout_view_parent_class)->dispose (object);
}

static void
ts_layout_view_finalize (GObject *object)
{
  TsLayoutView *self = (TsLayoutView *) object;

  g_clear_pointer (&self->history, g_array_unref);
  g_clear_pointer (&self->nav, g_array_unref);

  G_OBJECT_CLASS (ts_layout_view_parent_class)->finalize (object);
}

static void
ts_layout_view_get_property (GObject    *object,
                             guint       prop_id,
                             GValue     *value,
                             GParamSpec *pspec)
{
  TsLayoutView *self = TS_LAYOUT_VIEW (object);

  switch (prop_id)
    {
    case PROP_LAYOUT:
      g_value_set_object (value, self->layout);
      break;
    case PROP_MODEL:
      g_value_set_object (value, self->model);
      break;
    case PROP_ZOOMED:
      g_value_set_boolean (value, ts_layout_view_get_zoomed (self));
      break;
    case PROP_PENDING:
      g_value_set_boolean (value, self->pending);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ts_layout_view_set_property (GObject      *object,
                             guint         prop_id,
                             const GValue *value,
                             GParamSpec   *pspec)
{
  TsLayoutView *self = TS_LAYOUT_VIEW (object);

  switch (prop_id)
    {
    case PROP_LAYOUT:
      ts_layout_view_set_layout (self, g_value_get_object (value));
      break;
    case PROP_MODEL:
      ts_layout_view_set_model (self, g_value_get_object (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

/* the picture follows the style: light text on a dark ground in a dark one */
static void
ts_layout_view_css_changed (GtkWidget         *widget,
                            GtkCssStyleChange *change)
{
  TsLayoutView *self = TS_LAYOUT_VIEW (widget);

  GTK_WIDGET_CLASS (ts_layout_view_parent_class)->css_changed (widget, change);
  if (self->layout != NULL &&
      ts_layout_get_dark (self->layout) != ts_widget_has_dark_style (widget))
    {
      ts_layout_set_dark (self->layout, ts_widget_has_dark_style (widget));
      view_changed (self);
    }
}

static void
ts_layout_view_class_init (TsLayoutViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = ts_layout_view_dispose;
  object_class->finalize = ts_layout_view_finalize;
  object_class->get_property = ts_layout_view_get_property;
  object_class->set_property = ts_layout_view_set_property;

  widget_class->measure = ts_layout_view_measure;
  widget_class->get_request_mode = ts_layout_view_get_request_mode;
  widget_class->size_allocate = ts_layout_view_size_allocate;
  widget_class->snapshot = ts_layout_view_snapshot;
  widget_class->css_changed = ts_layout_view_css_changed;
  widget_class->query_tooltip = ts_layout_view_query_tooltip;

  properties[PROP_LAYOUT] =
    g_param_spec_object ("layout", NULL, NULL, TS_TYPE_LAYOUT,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_MODEL] =
    g_param_spec_object ("model", NULL, NULL, GTK_TYPE_SELECTION_MODEL,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_ZOOMED] =
    g_param_spec_boolean ("zoomed", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * TsLayoutView:pending:
   *
   * Whether the geometry for the current width and zoom is being computed
   * on a worker thread; the previous picture is shown meanwhile.
   */
  properties[PROP_PENDING] =
    g_param_spec_boolean ("pending", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * TsLayoutView::select-hidden-tensor:
   *
   * A tensor band was clicked whose tensor is not in the model (filtered
   * out of the table).
   */
  signals[SELECT_HIDDEN_TENSOR] =
    g_signal_new ("select-hidden-tensor", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, TS_TYPE_TENSOR);

  gtk_widget_class_set_css_name (widget_class, "layoutview");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

static void
on_scale_factor_changed (TsLayoutView *self)
{
  /* size_allocate sees the new scale and asks for new pixels */
  gtk_widget_queue_allocate (GTK_WIDGET (self));
}

static void
ts_layout_view_init (TsLayoutView *self)
{
  GtkEventController *controller;
  GtkGesture *gesture;

  self->history = g_array_new (FALSE, FALSE, sizeof (Range));
  self->nav = g_array_new (FALSE, FALSE, sizeof (guint));
  self->hover_band = self->selected_band = self->focus_band = TS_LAYOUT_NO_BAND;
  self->scroll_band = TS_LAYOUT_NO_BAND;
  self->requested_width = -1;
  self->zoom_step = 2.0;

  gtk_widget_set_focusable (GTK_WIDGET (self), TRUE);
  gtk_widget_set_has_tooltip (GTK_WIDGET (self), TRUE);
  g_signal_connect (self, "notify::has-focus", G_CALLBACK (ts_layout_view_focus_changed), NULL);

  controller = gtk_event_controller_motion_new ();
  g_signal_connect_swapped (controller, "motion", G_CALLBACK (on_motion), self);
  g_signal_connect_swapped (controller, "leave", G_CALLBACK (on_leave), self);
  gtk_widget_add_controller (GTK_WIDGET (self), controller);

  gesture = gtk_gesture_click_new ();
  g_signal_connect_swapped (gesture, "pressed", G_CALLBACK (on_pressed), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (gesture));

  controller = gtk_event_controller_scroll_new (GTK_EVENT_CONTROLLER_SCROLL_VERTICAL);
  g_signal_connect_swapped (controller, "scroll", G_CALLBACK (on_scroll), self);
  gtk_widget_add_controller (GTK_WIDGET (self), controller);

  gesture = gtk_gesture_zoom_new ();
  g_signal_connect_swapped (gesture, "begin", G_CALLBACK (on_pinch_begin), self);
  g_signal_connect_swapped (gesture, "scale-changed", G_CALLBACK (on_pinch_scale_changed), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (gesture));

  controller = gtk_event_controller_key_new ();
  g_signal_connect_swapped (controller, "key-pressed", G_CALLBACK (on_key_pressed), self);
  g_signal_connect_swapped (controller, "key-released", G_CALLBACK (on_key_released), self);
  gtk_widget_add_controller (GTK_WIDGET (self), controller);

  /* the cached picture is in device pixels */
  g_signal_connect (self, "notify::scale-factor", G_CALLBACK (on_scale_factor_changed), NULL);
}

/**
 * ts_layout_view_fit_paned:
 * @paned: a vertical paned whose start child holds a layout view, in a
 *   scrolled window that propagates its natural height
 * @max_height: the most the start child may take
 *
 * Moves the divider so that the start child takes its natural height at
 * the paned's width (the whole diagram, nothing to scroll), or
 * @max_height where that is less. The paned keeps either side at its
 * minimum, whatever is set.
 *
 * Returns: FALSE, and nothing moved, while the paned has no size
 */
gboolean
ts_layout_view_fit_paned (GtkPaned *paned,
                          int       max_height)
{
  GtkWidget *start = gtk_paned_get_start_child (paned);
  int width = gtk_widget_get_width (GTK_WIDGET (paned));
  int natural = 0;

  if (start == NULL || width <= 0 || gtk_widget_get_height (GTK_WIDGET (paned)) <= 0)
    return FALSE;
  gtk_widget_measure (start, GTK_ORIENTATION_VERTICAL, width, NULL, &natural, NULL, NULL);
  gtk_paned_set_position (paned, MIN (natural, max_height));
  return TRUE;
}
