/* ts-export-dialog.c: options for "Export Layout…", then a file, then the
 * export on a worker thread
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include "ts-application.h"
#include "ts-export-dialog.h"
#include "ts-file-chooser.h"

struct _TsExportDialog
{
  GtkWindow       parent_instance;

  TsLayout       *layout;        /* the view's, read on the main thread only */
  TsLayout       *base;          /* the dialog's own, built on a worker; NULL until then */
  GSettings      *settings;
  GCancellable   *cancellable;
  GCancellable   *base_cancellable;
  GFile          *target;        /* the file being written */
  gboolean        closed;        /* its work stopped, the dialog gone */

  GtkButton      *export_button;
  gboolean        busy;
  gboolean        too_tall;   /* a PNG of more pixels than one may have */
  GtkDropDown    *format_dropdown;
  GtkSpinButton  *width_spin;
  GtkLabel       *unit_label;
  GtkCheckButton *title_check;
  GtkCheckButton *legend_check;
  GtkCheckButton *range_check;
  GtkLabel       *size_label;
  GtkSpinner     *spinner;
  GtkLabel       *status_label;
};

enum {
  EXPORTED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (TsExportDialog, ts_export_dialog, GTK_TYPE_WINDOW)

static const char * const extensions[] = { "svg", "pdf", "png" };

static TsLayoutExportFormat
get_format (TsExportDialog *self)
{
  guint selected = gtk_drop_down_get_selected (self->format_dropdown);

  return selected <= TS_LAYOUT_EXPORT_PNG ? (TsLayoutExportFormat) selected : TS_LAYOUT_EXPORT_SVG;
}

/* The chosen options on the dialog's own layout (an export takes the model
 * and the options from it, and lays them out again on its worker). Before
 * that layout is ready, a fresh one, built here. */
static TsLayout *
create_export_layout (TsExportDialog *self)
{
  TsLayout *layout = self->base ? g_object_ref (self->base)
                                : ts_layout_new (ts_layout_get_model (self->layout));

  ts_layout_set_show_title (layout, gtk_check_button_get_active (self->title_check));
  ts_layout_set_show_legend (layout, gtk_check_button_get_active (self->legend_check));
  if (gtk_check_button_get_active (self->range_check))
    {
      guint64 start, end;

      ts_layout_get_view_range (self->layout, &start, &end);
      ts_layout_set_view_range (layout, start, end);
    }
  else
    ts_layout_reset_view_range (layout);

  return layout;
}

/* The size line: the dialog's layout allocated at the chosen width (a few
 * milliseconds even with 50,000 tensors, unlike building it). */
static void update_export_sensitive (TsExportDialog *self);

static void
on_options_changed (TsExportDialog *self)
{
  g_autoptr(TsLayout) layout = NULL;
  g_autofree char *text = NULL;
  int width = gtk_spin_button_get_value_as_int (self->width_spin);
  gboolean png = get_format (self) == TS_LAYOUT_EXPORT_PNG;
  int height, page_width, page_height;

  gtk_label_set_text (self->unit_label, png ? _("pixels") : _("points"));

  self->too_tall = FALSE;
  if (self->base == NULL)
    {
      gtk_label_set_text (self->size_label, "");
      update_export_sensitive (self);
      return;
    }

  layout = create_export_layout (self);
  ts_layout_allocate (layout, width);
  height = (int) ceil (ts_layout_get_height (layout));
  ts_layout_export_scale (get_format (self), width, height, &page_width, &page_height);
  self->too_tall = png && height > TS_LAYOUT_IMAGE_MAX_SIDE;
  if (self->too_tall)
    /* Translators: the height of the diagram in pixels is over the most
     * a PNG image may have, e.g. "1600 × 40100 pixels: too tall for a
     * PNG image, export it as SVG or PDF"; the export would fail */
    text = g_strdup_printf (_("%d × %d pixels: too tall for a PNG image, export it as SVG or PDF"),
                            width, height);
  else if (page_width != width || page_height != height)
    /* Translators: a diagram too large for a PDF page (at most 14,400
     * points on a side) is scaled down, e.g. "1600 × 17991 points,
     * scaled to 1281 × 14400 to fit a PDF page" */
    text = g_strdup_printf (_("%d × %d points, scaled to %d × %d to fit a PDF page"),
                            width, height, page_width, page_height);
  else
    /* Translators: the size of the exported diagram, e.g. "1600 × 742 pixels" */
    text = g_strdup_printf (png ? _("%d × %d pixels") : _("%d × %d points"), width, height);
  gtk_label_set_text (self->size_label, text);
  /* what would fail is not offered, and the line says why as a warning */
  if (self->too_tall)
    gtk_widget_add_css_class (GTK_WIDGET (self->size_label), "warning");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (self->size_label), "warning");
  update_export_sensitive (self);
}

static void
base_ready (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(TsExportDialog) self = user_data;
  g_autoptr(TsLayout) layout = ts_layout_new_finish (result, NULL);

  /* after dispose, or cancelled by it */
  if (layout == NULL || self->base_cancellable == NULL)
    return;
  self->base = g_steal_pointer (&layout);
  on_options_changed (self);
}

static void
update_export_sensitive (TsExportDialog *self)
{
  gtk_widget_set_sensitive (GTK_WIDGET (self->export_button), !self->busy && !self->too_tall);
}

static void
set_busy (TsExportDialog *self,
          gboolean        busy)
{
  self->busy = busy;
  gtk_spinner_set_spinning (self->spinner, busy);
  update_export_sensitive (self);
}

static void
export_done (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(TsExportDialog) self = user_data;
  g_autoptr(GError) error = NULL;

  if (!ts_layout_export_finish (TS_LAYOUT (object), result, &error))
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) || self->closed)
        return;
      set_busy (self, FALSE);
      gtk_label_set_text (self->status_label, error->message);
      gtk_widget_set_visible (GTK_WIDGET (self->status_label), TRUE);
      return;
    }

  /* written before closing could stop it: the window that asked may be
   * closing too, and is not told */
  if (self->closed)
    return;
  set_busy (self, FALSE);
  g_signal_emit (self, signals[EXPORTED], 0, self->target);
  gtk_window_close (GTK_WINDOW (self));
}

static void
save_settings (TsExportDialog *self)
{
  if (self->settings == NULL)
    return;

  g_settings_set_enum (self->settings, "export-format", get_format (self));
  g_settings_set_int (self->settings, "export-width", gtk_spin_button_get_value_as_int (self->width_spin));
  g_settings_set_boolean (self->settings, "export-title", gtk_check_button_get_active (self->title_check));
  g_settings_set_boolean (self->settings, "export-legend", gtk_check_button_get_active (self->legend_check));
}

void
ts_export_dialog_export_to (TsExportDialog *self,
                            GFile          *file)
{
  g_autoptr(TsLayout) layout = NULL;
  g_autoptr(GFile) target = NULL;
  g_autofree char *basename = NULL;
  TsLayoutExportFormat format;

  g_return_if_fail (TS_IS_EXPORT_DIALOG (self));
  g_return_if_fail (G_IS_FILE (file));

  /* the extension the user typed wins; without one, the chosen format's */
  basename = g_file_get_basename (file);
  if (ts_layout_export_format_from_name (basename, &format))
    target = g_object_ref (file);
  else
    {
      g_autofree char *name = NULL;
      g_autoptr(GFile) parent = g_file_get_parent (file);

      format = get_format (self);
      name = g_strdup_printf ("%s.%s", basename, extensions[format]);
      target = parent != NULL ? g_file_get_child (parent, name) : g_file_new_for_path (name);
    }

  g_set_object (&self->target, target);
  save_settings (self);
  set_busy (self, TRUE);
  gtk_widget_set_visible (GTK_WIDGET (self->status_label), FALSE);

  layout = create_export_layout (self);
  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  self->cancellable = g_cancellable_new ();

  ts_layout_export_async (layout, target, format,
                          gtk_spin_button_get_value_as_int (self->width_spin), 0,
                          self->cancellable, export_done, g_object_ref (self));
}

const char *
ts_export_dialog_get_size_text (TsExportDialog *self)
{
  g_return_val_if_fail (TS_IS_EXPORT_DIALOG (self), NULL);
  return gtk_label_get_text (self->size_label);
}

void
ts_export_dialog_set_width (TsExportDialog *self,
                            int             width)
{
  g_return_if_fail (TS_IS_EXPORT_DIALOG (self));
  gtk_spin_button_set_value (self->width_spin, width);
}

static void
file_chosen (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(TsExportDialog) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) file = ts_file_chooser_run_finish (result, &error);

  if (file == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          gtk_label_set_text (self->status_label, error->message);
          gtk_widget_set_visible (GTK_WIDGET (self->status_label), TRUE);
        }
      return;
    }

  ts_export_dialog_export_to (self, file);
}

static void
on_export_clicked (TsExportDialog *self)
{
  TsModelFile *model = ts_layout_get_model (self->layout);
  g_autofree char *stem = g_strdup (ts_model_file_get_display_name (model));
  g_autofree char *name = NULL;
  char *dot;

  if ((dot = strrchr (stem, '.')) != NULL && dot != stem)
    *dot = '\0';
  name = g_strdup_printf ("%s-layout.%s", stem, extensions[get_format (self)]);
  /* beside the model: a file's folder, or the folder a checkpoint folder is in */
  {
    g_autoptr(GFile) folder = g_file_get_parent (ts_model_file_get_file (model));
    g_autofree char *dir = folder != NULL ? g_file_get_path (folder) : NULL;

    if (dir != NULL)
      {
        char *path = g_build_filename (dir, name, NULL);

        g_free (name);
        name = path;
      }
  }

  ts_file_chooser_run_async (GTK_WINDOW (self), TS_FILE_CHOOSER_SAVE_LAYOUT, name,
                             self->cancellable, file_chosen, g_object_ref (self));
}

TsExportDialog *
ts_export_dialog_new (GtkWindow *parent,
                      TsLayout  *layout,
                      GSettings *settings)
{
  TsExportDialog *self;

  g_return_val_if_fail (TS_IS_LAYOUT (layout), NULL);

  self = g_object_new (TS_TYPE_EXPORT_DIALOG,
                       "transient-for", parent,
                       NULL);
  self->layout = g_object_ref (layout);

  if (settings != NULL)
    {
      self->settings = g_object_ref (settings);
      gtk_drop_down_set_selected (self->format_dropdown, g_settings_get_enum (settings, "export-format"));
      gtk_spin_button_set_value (self->width_spin, g_settings_get_int (settings, "export-width"));
      gtk_check_button_set_active (self->title_check, g_settings_get_boolean (settings, "export-title"));
      gtk_check_button_set_active (self->legend_check, g_settings_get_boolean (settings, "export-legend"));
    }

  gtk_widget_set_sensitive (GTK_WIDGET (self->range_check), ts_layout_is_zoomed (layout));
  gtk_check_button_set_active (self->range_check, ts_layout_is_zoomed (layout));
  on_options_changed (self);
  /* bands for every tensor: tens of milliseconds with 50,000 of them */
  ts_layout_new_async (ts_layout_get_model (layout), self->base_cancellable,
                       base_ready, g_object_ref (self));

  return self;
}

/* Closing stops the export at once: its task holds the dialog, so
 * dispose would come only once the file was written. */
static gboolean
ts_export_dialog_close_request (GtkWindow *window)
{
  TsExportDialog *self = TS_EXPORT_DIALOG (window);

  self->closed = TRUE;
  g_cancellable_cancel (self->cancellable);
  g_cancellable_cancel (self->base_cancellable);
  return GTK_WINDOW_CLASS (ts_export_dialog_parent_class)->close_request (window);
}

static void
ts_export_dialog_dispose (GObject *object)
{
  TsExportDialog *self = (TsExportDialog *) object;

  self->closed = TRUE;
  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_cancellable_cancel (self->base_cancellable);
  g_clear_object (&self->base_cancellable);
  gtk_widget_dispose_template (GTK_WIDGET (self), TS_TYPE_EXPORT_DIALOG);
  g_clear_object (&self->layout);
  g_clear_object (&self->base);
  g_clear_object (&self->settings);
  g_clear_object (&self->target);

  G_OBJECT_CLASS (ts_export_dialog_parent_class)->dispose (object);
}

static void
ts_export_dialog_class_init (TsExportDialogClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = ts_export_dialog_dispose;
  GTK_WINDOW_CLASS (klass)->close_request = ts_export_dialog_close_request;

  /**
   * TsExportDialog::exported:
   * @file: the file written
   */
  signals[EXPORTED] =
    g_signal_new ("exported", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_FILE);

  ts_ensure_resources ();
  gtk_widget_class_set_template_from_resource (widget_class, RESOURCE_PREFIX "/ts-export-dialog.ui");
  gtk_widget_class_bind_template_child (widget_class, TsExportDialog, export_button);
  gtk_widget_class_bind_template_child (widget_class, TsExportDialog, format_dropdown);
  gtk_widget_class_bind_template_child (widget_class, TsExportDialog, width_spin);
  gtk_widget_class_bind_template_child (widget_class, TsExportDialog, unit_label);
  gtk_widget_class_bind_template_child (widget_class, TsExportDialog, title_check);
  gtk_widget_class_bind_template_child (widget_class, TsExportDialog, legend_check);
  gtk_widget_class_bind_template_child (widget_class, TsExportDialog, range_check);
  gtk_widget_class_bind_template_child (widget_class, TsExportDialog, size_label);
  gtk_widget_class_bind_template_child (widget_class, TsExportDialog, spinner);
  gtk_widget_class_bind_template_child (widget_class, TsExportDialog, status_label);
  gtk_widget_class_bind_template_callback (widget_class, on_options_changed);
  gtk_widget_class_bind_template_callback (widget_class, on_export_clicked);

  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
}

/* Enter on the closed Format drop-down exports too, instead of opening it
 * again (Space and Alt+Down still open it); in its open list Enter picks a
 * format, as always. */
static gboolean
on_key_pressed (TsExportDialog        *self,
                guint                  keyval,
                guint                  keycode,
                GdkModifierType        state,
                GtkEventControllerKey *controller)
{
  GtkWidget *focus;

  if (keyval != GDK_KEY_Return && keyval != GDK_KEY_KP_Enter && keyval != GDK_KEY_ISO_Enter)
    return FALSE;
  if ((state & gtk_accelerator_get_default_mod_mask ()) != 0)
    return FALSE;
  focus = gtk_root_get_focus (GTK_ROOT (self));
  if (focus == NULL || gtk_widget_get_ancestor (focus, GTK_TYPE_POPOVER) != NULL ||
      !gtk_widget_is_ancestor (focus, GTK_WIDGET (self->format_dropdown)))
    return FALSE;
  /* not gtk_widget_activate_default (): that activates the focused toggle
   * button when it is one that may receive the default */
  if (gtk_widget_is_sensitive (GTK_WIDGET (self->export_button)))
    gtk_widget_activate (GTK_WIDGET (self->export_button));
  return TRUE;
}

/* Enter in the width field exports, as in any dialog with a default
 * button. GtkSpinButton has no activates-default before GTK 4.14: set it on
 * its text child. */
static void
spin_activates_default (GtkSpinButton *spin)
{
  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (spin));
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (GTK_IS_TEXT (child))
      gtk_text_set_activates_default (GTK_TEXT (child), TRUE);
}

static void
ts_export_dialog_init (TsExportDialog *self)
{
  GtkEventController *key;

  gtk_widget_init_template (GTK_WIDGET (self));
  self->cancellable = g_cancellable_new ();
  self->base_cancellable = g_cancellable_new ();
  spin_activates_default (self->width_spin);
  key = gtk_event_controller_key_new ();
  gtk_event_controller_set_propagation_phase (key, GTK_PHASE_CAPTURE);
  g_signal_connect_object (key, "key-pressed", G_CALLBACK (on_key_pressed), self, G_CONNECT_SWAPPED);
  gtk_widget_add_controller (GTK_WIDGET (self), key);
  /* the first focusable widget would be the Format drop-down, which takes
   * Enter for itself: start on the default button instead */
  gtk_window_set_focus (GTK_WINDOW (self), GTK_WIDGET (self->export_button));
}
