/* ts-ui-test.c
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "ts-ui-test.h"
#include "ts-test-dir.h"
#include "ts-window-private.h"

static char *isolated_home;

static void
remove_isolated_home (void)
{
  if (isolated_home != NULL)
    ts_test_remove_tree (isolated_home);
}

void
ts_test_ui_init (int    *argc,
                 char ***argv)
{
  static const struct { const char *var, *dir; } dirs[] = {
    { "XDG_CONFIG_HOME", "config" }, { "XDG_DATA_HOME", "data" },
    { "XDG_CACHE_HOME", "cache" }, { "XDG_STATE_HOME", "state" },
  };
  g_autoptr(GError) error = NULL;

  isolated_home = g_dir_make_tmp (NULL, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < G_N_ELEMENTS (dirs); i++)
    {
      g_autofree char *path = g_build_filename (isolated_home, dirs[i].dir, NULL);

      g_assert_cmpint (g_mkdir_with_parents (path, 0700), ==, 0);
      g_setenv (dirs[i].var, path, TRUE);
    }
  atexit (remove_isolated_home);
  gtk_test_init (argc, argv, NULL);
  /* GLib read the folders once already, maybe: it reads them again */
  g_assert_true (g_str_has_prefix (g_get_user_config_dir (), isolated_home));
}

static gboolean
quit_loop (gpointer data)
{
  g_main_loop_quit (data);
  return G_SOURCE_REMOVE;
}

void
ts_test_run_for (guint ms)
{
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);

  g_timeout_add (ms, quit_loop, loop);
  g_main_loop_run (loop);
}

static gboolean
set_flag (gpointer data)
{
  *(gboolean *) data = TRUE;
  return G_SOURCE_REMOVE;
}

void
ts_test_wait_until (TsTestCondition  condition,
                    gpointer         data,
                    guint            seconds,
                    const char      *what)
{
  gboolean timed_out = FALSE;
  guint id = g_timeout_add_seconds (seconds, set_flag, &timed_out);

  while (!timed_out && !condition (data))
    g_main_context_iteration (NULL, TRUE);
  if (!timed_out)
    g_source_remove (id);
  if (!condition (data))
    g_error ("timed out after %u s waiting for %s", seconds, what);
}

static GskRenderNode *
snapshot_widget (GtkWidget *widget,
                 int        width,
                 int        height)
{
  g_autoptr(GdkPaintable) paintable = gtk_widget_paintable_new (widget);
  GtkSnapshot *snapshot = gtk_snapshot_new ();

  gdk_paintable_snapshot (paintable, GDK_SNAPSHOT (snapshot), width, height);
  return gtk_snapshot_free_to_node (snapshot);
}

GdkTexture *
ts_test_render_widget (GtkWidget  *widget,
                       const char *name)
{
  g_autoptr(GskRenderNode) node = NULL;
  int width = 0, height = 0;

  for (guint i = 0; i < 200 && node == NULL; i++)
    {
      width = gtk_widget_get_width (widget);
      height = gtk_widget_get_height (widget);
      if (gtk_widget_get_mapped (widget) && width > 0 && height > 0)
        node = snapshot_widget (widget, width, height);
      if (node == NULL)
        ts_test_run_for (50);
    }
  if (node == NULL)
    g_error ("%s: the widget was never drawn (%d × %d)", name, width, height);
  return gsk_renderer_render_texture (gtk_native_get_renderer (gtk_widget_get_native (widget)),
                                      node, &GRAPHENE_RECT_INIT (0, 0, width, height));
}

void
ts_test_save_screenshot (GtkWidget  *widget,
                         const char *name,
                         guint       settle_ms)
{
  g_autoptr(GdkTexture) texture = NULL;

  if (settle_ms > 0)
    ts_test_run_for (settle_ms);
  texture = ts_test_render_widget (widget, name);
  ts_test_save_texture (texture, name);
}

void
ts_test_save_texture (GdkTexture *texture,
                      const char *name)
{
  const char *dir = g_getenv ("TS_SCREENSHOT_DIR");
  g_autofree char *path = NULL;

  if (dir == NULL)
    dir = g_get_tmp_dir ();
  g_mkdir_with_parents (dir, 0755);
  path = g_build_filename (dir, name, NULL);
  g_assert_true (gdk_texture_save_to_png (texture, path));
  g_test_message ("screenshot: %s", path);
}

typedef gboolean (*WidgetMatch) (GtkWidget     *widget,
                                 gconstpointer  data);

/* @widget or its first descendant (depth first) that @match takes; with
 * @visible_only, hidden widgets and what they hold are passed over */
static GtkWidget *
find_widget (GtkWidget     *widget,
             WidgetMatch    match,
             gconstpointer  data,
             gboolean       visible_only)
{
  if (visible_only && !gtk_widget_get_visible (widget))
    return NULL;
  if (match (widget, data))
    return widget;
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_widget (c, match, data, visible_only);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static gboolean
is_of_type (GtkWidget     *widget,
            gconstpointer  data)
{
  return G_TYPE_CHECK_INSTANCE_TYPE (widget, GPOINTER_TO_SIZE (data));
}

static gboolean
is_button_labelled (GtkWidget     *widget,
                    gconstpointer  data)
{
  /* (a check button is no GtkButton in GTK 4) */
  if (GTK_IS_CHECK_BUTTON (widget))
    return g_strcmp0 (gtk_check_button_get_label (GTK_CHECK_BUTTON (widget)), data) == 0;
  return GTK_IS_BUTTON (widget) && g_strcmp0 (gtk_button_get_label (GTK_BUTTON (widget)), data) == 0;
}

static gboolean
is_label_with (GtkWidget     *widget,
               gconstpointer  data)
{
  return GTK_IS_LABEL (widget) && strstr (gtk_label_get_text (GTK_LABEL (widget)), data) != NULL;
}

GtkWidget *
ts_test_find_descendant (GtkWidget *widget,
                         GType      type)
{
  return find_widget (widget, is_of_type, GSIZE_TO_POINTER (type), FALSE);
}

GtkWidget *
ts_test_find_button (GtkWidget  *widget,
                     const char *label)
{
  return find_widget (widget, is_button_labelled, label, FALSE);
}

GtkWidget *
ts_test_find_label (GtkWidget  *widget,
                    const char *text)
{
  return find_widget (widget, is_label_with, text, TRUE);
}

static char *
describe_widget (GtkWidget *widget)
{
  if (widget == NULL)
    return g_strdup ("nothing");
  if (GTK_IS_BUTTON (widget) && gtk_button_get_label (GTK_BUTTON (widget)) != NULL)
    return g_strdup_printf ("%s \"%s\"", G_OBJECT_TYPE_NAME (widget), gtk_button_get_label (GTK_BUTTON (widget)));
  if (GTK_IS_LABEL (widget))
    return g_strdup_printf ("%s \"%s\"", G_OBJECT_TYPE_NAME (widget), gtk_label_get_text (GTK_LABEL (widget)));
  return g_strdup (G_OBJECT_TYPE_NAME (widget));
}

void
ts_test_assert_tab_moves (GtkWindow *window,
                          guint      n)
{
  static const GtkDirectionType directions[] = { GTK_DIR_TAB_FORWARD, GTK_DIR_TAB_BACKWARD };

  for (guint d = 0; d < G_N_ELEMENTS (directions); d++)
    for (guint i = 0; i < n; i++)
      {
        GtkWidget *before = gtk_root_get_focus (GTK_ROOT (window));
        GtkWidget *after;

        gtk_widget_child_focus (GTK_WIDGET (window), directions[d]);
        after = gtk_root_get_focus (GTK_ROOT (window));
        if (after == NULL || after == before)
          {
            g_autofree char *what = describe_widget (before);

            g_error ("%s press %u left the focus on %s", d == 0 ? "Tab" : "Shift+Tab", i + 1, what);
          }
      }
}

gboolean
ts_test_send_key (GtkWidget       *view,
                  guint            keyval,
                  GdkModifierType  state)
{
  g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (view);
  gboolean handled = FALSE;

  /* what the key controller on the list gets (in the capture phase) of a
   * key pressed in one of its rows */
  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr(GtkEventController) c = g_list_model_get_item (controllers, i);

      if (GTK_IS_EVENT_CONTROLLER_KEY (c) && !handled)
        g_signal_emit_by_name (c, "key-pressed", keyval, 0, state, &handled);
    }
  return handled;
}

static gboolean
focus_is_in (GtkWidget *view)
{
  GtkWidget *focus = gtk_root_get_focus (gtk_widget_get_root (view));

  return focus != NULL && (focus == view || gtk_widget_is_ancestor (focus, view));
}

void
ts_test_assert_tab_leaves (GtkWidget *view)
{
  static const struct { guint keyval; GdkModifierType state; } tabs[] = {
    { GDK_KEY_Tab, 0 }, { GDK_KEY_ISO_Left_Tab, GDK_SHIFT_MASK },
  };

  for (guint i = 0; i < G_N_ELEMENTS (tabs); i++)
    {
      g_assert_true (gtk_widget_grab_focus (view));
      g_assert_true (focus_is_in (view));
      g_assert_true (ts_test_send_key (view, tabs[i].keyval, tabs[i].state));
      g_assert_nonnull (gtk_root_get_focus (gtk_widget_get_root (view)));
      g_assert_false (focus_is_in (view));
      /* somewhere shown: not a hidden page of a stack */
      g_assert_true (gtk_widget_get_mapped (gtk_root_get_focus (gtk_widget_get_root (view))));
    }
  gtk_widget_grab_focus (view);
  g_assert_false (ts_test_send_key (view, GDK_KEY_Down, 0));
}

/* what a screen reader names: GTK's own parts of these are named by them */
static gboolean
is_control (GtkWidget *widget)
{
  return GTK_IS_BUTTON (widget) || GTK_IS_MENU_BUTTON (widget) || GTK_IS_CHECK_BUTTON (widget) ||
         GTK_IS_ENTRY (widget) || GTK_IS_SEARCH_ENTRY (widget) || GTK_IS_SPIN_BUTTON (widget) ||
         GTK_IS_DROP_DOWN (widget) || GTK_IS_PROGRESS_BAR (widget) || GTK_IS_DRAWING_AREA (widget) ||
         GTK_IS_TEXT_VIEW (widget) || GTK_IS_COLUMN_VIEW (widget) || GTK_IS_LIST_VIEW (widget) ||
         (gtk_widget_get_focusable (widget) && !g_str_has_prefix (G_OBJECT_TYPE_NAME (widget), "Gtk"));
}

static gboolean
is_compound (GtkWidget *widget)
{
  return GTK_IS_MENU_BUTTON (widget) || GTK_IS_DROP_DOWN (widget) || GTK_IS_SPIN_BUTTON (widget) ||
         GTK_IS_ENTRY (widget) || GTK_IS_SEARCH_ENTRY (widget) || GTK_IS_COLUMN_VIEW (widget) ||
         GTK_IS_LIST_VIEW (widget) || GTK_IS_WINDOW_CONTROLS (widget) || GTK_IS_POPOVER (widget);
}

/* a label of its own, or one it is labelled by; a button is labelled by
 * its child, which for an icon is a nameless image: it needs a label (a
 * menu button with a text has its button named by that) */
static gboolean
is_named (GtkWidget *widget)
{
  GtkAccessible *accessible = GTK_ACCESSIBLE (widget);

  if (gtk_test_accessible_has_property (accessible, GTK_ACCESSIBLE_PROPERTY_LABEL))
    return TRUE;
  if (GTK_IS_MENU_BUTTON (widget))
    return gtk_menu_button_get_label (GTK_MENU_BUTTON (widget)) != NULL;
  return !GTK_IS_BUTTON (widget) && !GTK_IS_MENU_BUTTON (widget) &&
         gtk_test_accessible_has_relation (accessible, GTK_ACCESSIBLE_RELATION_LABELLED_BY);
}

void
ts_test_assert_named (GtkWidget *widget)
{
  if (is_control (widget) && !is_named (widget))
    {
      const char *tooltip = gtk_widget_get_tooltip_text (widget);
      GtkWidget *parent = gtk_widget_get_parent (widget);

      g_error ("a %s (in a %s; tooltip \"%s\") has no accessible name", G_OBJECT_TYPE_NAME (widget),
               parent != NULL ? G_OBJECT_TYPE_NAME (parent) : "nothing", tooltip != NULL ? tooltip : "");
    }
  if (is_compound (widget))
    return;
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c; c = gtk_widget_get_next_sibling (c))
    ts_test_assert_named (c);
}

static void
collect_mnemonics (GtkWidget  *widget,
                   GHashTable *seen)
{
  if (!gtk_widget_get_mapped (widget))
    return;
  /* (a popover menu's items without one say 0) */
  if (GTK_IS_LABEL (widget) &&
      gtk_label_get_mnemonic_keyval (GTK_LABEL (widget)) != GDK_KEY_VoidSymbol &&
      gtk_label_get_mnemonic_keyval (GTK_LABEL (widget)) != 0)
    {
      guint keyval = gdk_keyval_to_lower (gtk_label_get_mnemonic_keyval (GTK_LABEL (widget)));
      const char *text = gtk_label_get_label (GTK_LABEL (widget));
      const char *other = g_hash_table_lookup (seen, GUINT_TO_POINTER (keyval));

      if (other != NULL)
        g_error ("Alt+%s is the mnemonic of \"%s\" and of \"%s\"", gdk_keyval_name (keyval), other, text);
      g_hash_table_insert (seen, GUINT_TO_POINTER (keyval), (gpointer) text);
    }
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c; c = gtk_widget_get_next_sibling (c))
    collect_mnemonics (c, seen);
}

void
ts_test_assert_mnemonics_unique (GtkWidget *widget)
{
  g_autoptr(GHashTable) seen = g_hash_table_new (NULL, NULL);

  collect_mnemonics (widget, seen);
}

/* every menu button's menu, open: its mnemonics, and those of its
 * submenus, each name one item */
void
ts_test_assert_menu_mnemonics_unique (GtkWidget *widget)
{
  if (GTK_IS_MENU_BUTTON (widget) && gtk_widget_is_drawable (widget))
    {
      GtkMenuButton *button = GTK_MENU_BUTTON (widget);
      GtkPopover *popover;

      gtk_menu_button_popup (button);
      ts_test_run_for (300);
      popover = gtk_menu_button_get_popover (button);
      g_assert_nonnull (popover);
      g_assert_true (gtk_widget_get_mapped (GTK_WIDGET (popover)));
      g_test_message ("menu of %s", gtk_widget_get_tooltip_text (widget) ? gtk_widget_get_tooltip_text (widget)
                                                                             : G_OBJECT_TYPE_NAME (widget));
      ts_test_assert_mnemonics_unique (GTK_WIDGET (popover));
      gtk_menu_button_popdown (button);
      ts_test_run_for (100);
      return;
    }
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c; c = gtk_widget_get_next_sibling (c))
    ts_test_assert_menu_mnemonics_unique (c);
}

gboolean
ts_test_activate_shortcut (GtkWidget  *widget,
                           const char *trigger)
{
  g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (widget);
  g_autoptr(GtkShortcutTrigger) wanted = gtk_shortcut_trigger_parse_string (trigger);

  g_assert_nonnull (wanted);
  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr(GObject) c = g_list_model_get_item (controllers, i);

      if (!GTK_IS_SHORTCUT_CONTROLLER (c))
        continue;
      for (guint j = 0; j < g_list_model_get_n_items (G_LIST_MODEL (c)); j++)
        {
          g_autoptr(GtkShortcut) shortcut = g_list_model_get_item (G_LIST_MODEL (c), j);

          if (gtk_shortcut_trigger_equal (gtk_shortcut_get_trigger (shortcut), wanted))
            return gtk_shortcut_action_activate (gtk_shortcut_get_action (shortcut),
                                                 GTK_SHORTCUT_ACTION_EXCLUSIVE, widget,
                                                 gtk_shortcut_get_arguments (shortcut));
        }
    }
  g_error ("no shortcut of %s is %s", G_OBJECT_TYPE_NAME (widget), trigger);
  return FALSE;
}

typedef struct
{
  TsWindow   *window;
  const char *page;
} PageWait;

static gboolean
page_shows (gpointer data)
{
  PageWait *wait = data;

  return g_strcmp0 (ts_window_get_page (wait->window), wait->page) == 0;
}

void
ts_test_wait_for_page (TsWindow   *window,
                       const char *page)
{
  PageWait wait = { window, page };

  ts_test_wait_until (page_shows, &wait, 30, page);
}

GtkWidget *
ts_test_find_menu_button (GtkWidget  *widget,
                          const char *tooltip)
{
  if (GTK_IS_MENU_BUTTON (widget) && g_strcmp0 (gtk_widget_get_tooltip_text (widget), tooltip) == 0)
    return widget;
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = ts_test_find_menu_button (c, tooltip);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* WCAG relative luminance of an 8-bit sRGB colour */
static double
relative_luminance (guint r,
                    guint g,
                    guint b)
{
  const guint channels[3] = { r, g, b };
  const double weights[3] = { 0.2126, 0.7152, 0.0722 };
  double l = 0;

  for (guint i = 0; i < 3; i++)
    {
      double c = channels[i] / 255.0;

      c = c <= 0.04045 ? c / 12.92 : pow ((c + 0.055) / 1.055, 2.4);
      l += weights[i] * c;
    }
  return l;
}

double
ts_test_rect_contrast (GdkTexture            *texture,
                       const graphene_rect_t *rect)
{
  g_autoptr(GHashTable) counts = g_hash_table_new (NULL, NULL);
  int width = gdk_texture_get_width (texture);
  int height = gdk_texture_get_height (texture);
  g_autofree guint32 *pixels = g_new (guint32, (gsize) width * height);
  int x0 = MAX (0, (int) rect->origin.x);
  int y0 = MAX (0, (int) rect->origin.y);
  int x1 = MIN (width, (int) (rect->origin.x + rect->size.width));
  int y1 = MIN (height, (int) (rect->origin.y + rect->size.height));
  guint32 ground = 0;
  guint best = 0;
  double ground_l, text_l;

  g_assert_cmpint (x0, <, x1);
  g_assert_cmpint (y0, <, y1);

  /* premultiplied ARGB, native endian; opaque there */
  gdk_texture_download (texture, (guchar *) pixels, (gsize) width * 4);
  for (int y = y0; y < y1; y++)
    for (int x = x0; x < x1; x++)
      {
        guint32 p = pixels[(gsize) y * width + x] | 0xff000000;
        guint n = GPOINTER_TO_UINT (g_hash_table_lookup (counts, GUINT_TO_POINTER (p))) + 1;

        g_hash_table_insert (counts, GUINT_TO_POINTER (p), GUINT_TO_POINTER (n));
        if (n > best)
          {
            best = n;
            ground = p;
          }
      }

  ground_l = relative_luminance ((ground >> 16) & 0xff, (ground >> 8) & 0xff, ground & 0xff);
  text_l = ground_l;
  for (int y = y0; y < y1; y++)
    for (int x = x0; x < x1; x++)
      {
        guint32 p = pixels[(gsize) y * width + x];
        double l = relative_luminance ((p >> 16) & 0xff, (p >> 8) & 0xff, p & 0xff);

        if (fabs (l - ground_l) > fabs (text_l - ground_l))
          text_l = l;
      }
  return (MAX (ground_l, text_l) + 0.05) / (MIN (ground_l, text_l) + 0.05);
}

static double
pixel_luminance (GdkTexture *texture,
                 int         x,
                 int         y)
{
  int width = gdk_texture_get_width (texture);
  int height = gdk_texture_get_height (texture);
  g_autofree guint32 *pixels = g_new (guint32, (gsize) width * height);
  guint32 p;

  g_assert_cmpint (x, >=, 0);
  g_assert_cmpint (y, >=, 0);
  g_assert_cmpint (x, <, width);
  g_assert_cmpint (y, <, height);
  gdk_texture_download (texture, (guchar *) pixels, (gsize) width * 4);
  p = pixels[(gsize) y * width + x];
  return relative_luminance ((p >> 16) & 0xff, (p >> 8) & 0xff, p & 0xff);
}

double
ts_test_pixel_contrast (GdkTexture *a,
                        GdkTexture *b,
                        int         x,
                        int         y)
{
  double la = pixel_luminance (a, x, y);
  double lb = pixel_luminance (b, x, y);

  return (MAX (la, lb) + 0.05) / (MIN (la, lb) + 0.05);
}

double
ts_test_text_contrast (GtkWidget *label)
{
  GtkWidget *window = GTK_WIDGET (gtk_widget_get_root (label));
  g_autoptr(GdkTexture) texture = ts_test_render_widget (window, "the label's window");
  graphene_rect_t bounds, frame;
  double sx, sy;

  g_assert_true (gtk_widget_get_mapped (label));
  g_assert_true (gtk_widget_compute_bounds (label, window, &bounds));
  /* the window's picture starts at its bounds (with the frame's shadow
   * around the window) and is scaled to the window's size */
  g_assert_true (gtk_widget_compute_bounds (window, window, &frame));
  sx = gdk_texture_get_width (texture) / frame.size.width;
  sy = gdk_texture_get_height (texture) / frame.size.height;
  return ts_test_rect_contrast (texture, &GRAPHENE_RECT_INIT ((bounds.origin.x - frame.origin.x) * sx,
                                                              (bounds.origin.y - frame.origin.y) * sy,
                                                              bounds.size.width * sx,
                                                              bounds.size.height * sy));
}

GtkWindow *
ts_test_find_toplevel (GType type)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWindow) toplevel = g_list_model_get_item (toplevels, i);

      if (G_TYPE_CHECK_INSTANCE_TYPE (toplevel, type) && gtk_widget_get_visible (GTK_WIDGET (toplevel)))
        return toplevel;
    }
  return NULL;
}
