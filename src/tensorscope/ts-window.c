/* ts-window.c: one window per model
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>

#include "ts-export-dialog.h"
#include "ts-file-chooser.h"
#include "ts-format.h"
#include "ts-window-private.h"

#define BANNER_TIMEOUT_S  6

struct _TsWindow
{
  GtkApplicationWindow  parent_instance;

  GSettings            *settings;
  TsModelFile          *model;
  GFile                *file;            /* the file shown or being loaded */
  GFile                *exported;        /* the last export, for "Show" */
  GtkWindow            *export_dialog;   /* weak: the one open, if any */
  GCancellable         *cancellable;     /* loading, choosers, sample */
  char                 *previous_page;   /* to return to when loading is cancelled */
  TsModelLoader        *loader;          /* the load in flight, if any */
  GBinding             *fraction_binding;
  GBinding             *message_binding;
  guint                 banner_id;
  GPtrArray            *monitors;        /* GFileMonitor of each file shown */

  GtkLabel             *title_label;
  GtkLabel             *subtitle_label;
  GtkStack             *stack;
  GtkSpinner           *loading_spinner;
  GtkLabel             *loading_label;
  GtkProgressBar       *loading_progress;
  GtkLabel             *loading_message;
  GtkLabel             *error_title;
  GtkLabel             *error_message;
  GtkLabel             *error_rule;
  GtkWidget            *error_open_button;
  GtkPaned             *paned;
  /* the most the diagram pane takes, as the user last dragged it (here or
   * in an earlier window), or -1: FIT_SHARE % of the paned */
  int                   chosen_height;
  gboolean              height_chosen;   /* dragged in this window: stored on close */
  gboolean              divider_moved;   /* dragged since the model showed: left there */
  gboolean              pointer_down;    /* a button or touch is down in the paned */
  gboolean              placing_divider;
  guint                 divider_id;
  GtkLabel             *range_label;
  GtkWidget            *export_button;
  TsLayoutView         *layout_view;
  GtkStack             *view_stack;
  TsTensorTable        *tensor_table;
  TsMetadataView       *metadata_view;
  TsSummaryView        *summary_view;
  GtkRevealer          *drop_revealer;
  GtkRevealer          *banner_revealer;
  GtkLabel             *banner_label;
  GtkWidget            *banner_show_button;
  GtkWidget            *banner_reload_button;
  GtkWidget            *error_retry_button;
  GMenu                *recent_section;
  gboolean              recent_added;
  GtkDropTarget        *drop_target;
};

G_DEFINE_FINAL_TYPE (TsWindow, ts_window, GTK_TYPE_APPLICATION_WINDOW)

typedef enum
{
  BANNER_MESSAGE,   /* an error, wrapped whole */
  BANNER_EXPORTED,  /* a file written, with Show */
  BANNER_CHANGED,   /* the file shown changed on disk, with Reload; stays */
} BannerKind;

/* A load in flight: its cancellable tells a stale result from the current
 * one. It does not keep the window: one closed while it loads (or the
 * application quit) goes at once, not when the reader's thread returns. */
typedef struct
{
  TsWindow     *self;    /* weak */
  GCancellable *cancellable;
} LoadData;

static void
load_data_free (LoadData *data)
{
  g_clear_weak_pointer (&data->self);
  g_clear_object (&data->cancellable);
  g_free (data);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (LoadData, load_data_free)

/* ------------------------------------------------------------------------ */
/* Pages                                                                     */

static void
set_titles (TsWindow   *self,
            const char *title,
            const char *subtitle)
{
  gtk_window_set_title (GTK_WINDOW (self), title);
  gtk_label_set_text (self->title_label, title);
  gtk_label_set_text (self->subtitle_label, subtitle != NULL ? subtitle : "");
  gtk_widget_set_visible (GTK_WIDGET (self->subtitle_label), subtitle != NULL && subtitle[0] != '\0');
}

static void
update_actions (TsWindow *self)
{
  gboolean has_model = self->model != NULL &&
                       g_strcmp0 (gtk_stack_get_visible_child_name (self->stack), "model") == 0;
  gboolean zoomed = has_model && ts_layout_view_get_zoomed (self->layout_view);

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.export", has_model);
  gtk_widget_set_visible (self->export_button, has_model);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.find", has_model);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.zoom-in", has_model);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.zoom-out", zoomed);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.zoom-reset", zoomed);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.zoom-back", zoomed);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.reload", self->file != NULL);
  /* Escape stops a load, and only a load */
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.cancel-load",
                                 g_strcmp0 (gtk_stack_get_visible_child_name (self->stack), "loading") == 0);
}

/* Detaches the loading page from the loader; the load itself is stopped
 * by cancelling its cancellable. */
static void
clear_loader (TsWindow *self)
{
  if (self->fraction_binding != NULL)
    g_binding_unbind (self->fraction_binding);
  if (self->message_binding != NULL)
    g_binding_unbind (self->message_binding);
  g_clear_object (&self->fraction_binding);
  g_clear_object (&self->message_binding);
  g_clear_object (&self->loader);
}

static void
show_page (TsWindow   *self,
           const char *name)
{
  if (g_strcmp0 (name, "loading") != 0)
    {
      clear_loader (self);
      gtk_spinner_set_spinning (self->loading_spinner, FALSE);
    }
  gtk_stack_set_visible_child_name (self->stack, name);
  update_actions (self);
}

static void
add_to_recent (TsWindow *self,
               GFile    *file)
{
  g_autofree char *uri = g_file_get_uri (file);

  if (g_file_query_file_type (file, G_FILE_QUERY_INFO_NONE, NULL) == G_FILE_TYPE_DIRECTORY)
    {
      GtkRecentData data = {
        .display_name = NULL,
        .mime_type = (char *) "inode/directory",
        .app_name = (char *) g_get_application_name (),
        .app_exec = (char *) "tensorscope %u",
      };
      gtk_recent_manager_add_full (gtk_recent_manager_get_default (), uri, &data);
    }
  else
    gtk_recent_manager_add_item (gtk_recent_manager_get_default (), uri);
}

static void show_banner    (TsWindow   *self,
                            const char *text,
                            BannerKind  kind);
static void dismiss_banner (TsWindow   *self);

static void
clear_monitors (TsWindow *self)
{
  for (guint i = 0; self->monitors != NULL && i < self->monitors->len; i++)
    {
      GFileMonitor *monitor = g_ptr_array_index (self->monitors, i);

      g_signal_handlers_disconnect_by_data (monitor, self);
      g_file_monitor_cancel (monitor);
    }
  g_clear_pointer (&self->monitors, g_ptr_array_unref);
}

/* an event may come late, for a change made before the file was read:
 * the files themselves say whether one is not what was read */
static gboolean
model_changed_on_disk (TsModelFile *model)
{
  GListModel *parts = ts_model_file_get_parts (model);

  for (guint i = 0; i < g_list_model_get_n_items (parts); i++)
    {
      g_autoptr(TsFilePart) part = g_list_model_get_item (parts, i);

      if (ts_file_part_changed_on_disk (part))
        return TRUE;
    }
  return FALSE;
}

/* A file shown was rewritten, replaced, moved or deleted: what the window
 * shows may no longer be what is on disk. (The bytes it reads stay
 * valid: it maps the file it opened, which a replacement does not touch.) */
static void
on_file_changed (TsWindow          *self,
                 GFile             *file,
                 GFile             *other,
                 GFileMonitorEvent  event,
                 GFileMonitor      *monitor)
{
  g_autofree char *text = NULL;

  switch (event)
    {
    case G_FILE_MONITOR_EVENT_CHANGES_DONE_HINT:
    case G_FILE_MONITOR_EVENT_DELETED:
    case G_FILE_MONITOR_EVENT_CREATED:
    case G_FILE_MONITOR_EVENT_RENAMED:
    case G_FILE_MONITOR_EVENT_MOVED_IN:
    case G_FILE_MONITOR_EVENT_MOVED_OUT:
      break;
    case G_FILE_MONITOR_EVENT_CHANGED:            /* CHANGES_DONE_HINT follows */
    case G_FILE_MONITOR_EVENT_ATTRIBUTE_CHANGED:
    case G_FILE_MONITOR_EVENT_PRE_UNMOUNT:
    case G_FILE_MONITOR_EVENT_UNMOUNTED:
    case G_FILE_MONITOR_EVENT_MOVED:
    default:
      return;
    }
  if (self->model == NULL || !model_changed_on_disk (self->model))
    return;
  /* Translators: the file name of the model shown */
  text = g_strdup_printf (_("“%s” changed on disk since it was opened"),
                          ts_model_file_get_display_name (self->model));
  show_banner (self, text, BANNER_CHANGED);
}

/* watches every file of @model: a GGUF, or each shard of a checkpoint */
static void
watch_files (TsWindow    *self,
             TsModelFile *model)
{
  GListModel *parts = ts_model_file_get_parts (model);

  clear_monitors (self);
  self->monitors = g_ptr_array_new_with_free_func (g_object_unref);
  for (guint i = 0; i < g_list_model_get_n_items (parts); i++)
    {
      g_autoptr(TsFilePart) part = g_list_model_get_item (parts, i);
      GFileMonitor *monitor = g_file_monitor_file (ts_file_part_get_file (part),
                                                   G_FILE_MONITOR_WATCH_MOVES, NULL, NULL);

      if (monitor == NULL)
        continue;   /* a file system without notifications: nothing to say */
      g_signal_connect_object (monitor, "changed", G_CALLBACK (on_file_changed), self,
                               G_CONNECT_SWAPPED);
      g_ptr_array_add (self->monitors, monitor);
    }
}

/* ------------------------------------------------------------------------ */
/* The diagram pane                                                          */

/* The share of the paned (the diagram and the tables below it) the
 * diagram's side takes at most where no height was chosen: the rest keeps
 * rows of the table in view. */
#define FIT_SHARE 60

/* The diagram's side takes the diagram's height, nothing to scroll, up to
 * the height the user chose or, where none was, FIT_SHARE % of the paned.
 * A new geometry (another model, width or zoom) or a resized window
 * places it again; after a drag since the model showed it stays where it
 * was put. (The paned does not resize that side itself: the .ui's
 * resize-start-child is false, so a taller window goes to the tables.) */
static gboolean
place_divider (gpointer user_data)
{
  TsWindow *self = user_data;
  int most = self->chosen_height > 0 ? self->chosen_height
                                     : gtk_widget_get_height (GTK_WIDGET (self->paned)) * FIT_SHARE / 100;

  self->divider_id = 0;
  if (self->model == NULL || self->divider_moved || ts_layout_view_get_pending (self->layout_view))
    return G_SOURCE_REMOVE;
  self->placing_divider = TRUE;
  ts_layout_view_fit_paned (self->paned, most);
  self->placing_divider = FALSE;
  return G_SOURCE_REMOVE;
}

/* after the allocation that changed the sizes, not inside it */
static void
queue_place_divider (TsWindow *self)
{
  if (self->divider_id == 0)
    self->divider_id = g_idle_add (place_divider, self);
}

/* A button or a touch down anywhere in the paned: a move of the divider
 * meanwhile is a drag of its handle. Seen in the capture phase, passed on. */
static gboolean
on_paned_event (TsWindow *self,
                GdkEvent *event)
{
  switch ((int) gdk_event_get_event_type (event))
    {
    case GDK_BUTTON_PRESS:
    case GDK_TOUCH_BEGIN:
      self->pointer_down = TRUE;
      break;
    case GDK_BUTTON_RELEASE:
    case GDK_TOUCH_END:
    case GDK_TOUCH_CANCEL:
      self->pointer_down = FALSE;
      break;
    default:
      break;
    }
  return GDK_EVENT_PROPAGATE;
}

/* The user's moves only: a drag of the handle, or F8 and the arrow keys
 * (the paned has the focus then); not ours, nor the paned's own clamp to
 * a window grown shorter. That height is theirs, kept for later windows. */
static void
on_divider_moved (TsWindow *self)
{
  if (self->placing_divider || self->model == NULL ||
      !(self->pointer_down || gtk_widget_has_focus (GTK_WIDGET (self->paned))))
    return;
  self->chosen_height = gtk_paned_get_position (self->paned);
  self->height_chosen = TRUE;
  self->divider_moved = TRUE;
}

static void
set_model (TsWindow    *self,
           TsModelFile *model,
           TsLayout    *layout)
{
  g_autofree char *subtitle = ts_model_file_dup_summary (model);

  /* the header bar already says what this is; exports keep the title */
  ts_layout_set_show_title (layout, FALSE);

  g_set_object (&self->model, model);
  /* the pane fits the new diagram once its geometry is there */
  self->divider_moved = FALSE;
  queue_place_divider (self);

  ts_tensor_table_set_model_file (self->tensor_table, model);
  ts_layout_view_set_layout (self->layout_view, layout);
  ts_layout_view_set_model (self->layout_view, ts_tensor_table_get_selection (self->tensor_table));
  ts_metadata_view_set_model_file (self->metadata_view, model);
  ts_summary_view_set_model_file (self->summary_view, model);

  set_titles (self, ts_model_file_get_display_name (model), subtitle);
  add_to_recent (self, ts_model_file_get_file (model));
  watch_files (self, model);
  show_page (self, "model");
  /* the keyboard starts on the diagram, not on the hidden Cancel of the
   * loading page (GTK's fallback for it depends on what else showed) */
  {
    GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (self));
    GtkWidget *page = gtk_stack_get_child_by_name (self->stack, "model");

    if (focus == NULL || !gtk_widget_is_ancestor (focus, page))
      gtk_widget_grab_focus (GTK_WIDGET (self->layout_view));
  }
}

static void
show_error (TsWindow     *self,
            GFile        *file,
            const GError *error)
{
  g_autofree char *name = ts_file_display_basename (file);
  g_autofree char *title = g_strdup_printf (_("Could Not Open “%s”"), name);

  gtk_label_set_text (self->error_title, title);
  gtk_label_set_text (self->error_message, error->message);

  if (error->domain == TS_FORMAT_ERROR)
    {
      g_autofree char *rule = g_strdup_printf (_("rule: %s"), ts_format_error_to_nick (error->code));
      gtk_label_set_text (self->error_rule, rule);
    }
  else
    gtk_label_set_text (self->error_rule, "");
  /* a file that is neither format (a picture, a text) is not a model half
   * downloaded or a shard still missing: reading it again cannot help */
  gtk_widget_set_visible (self->error_retry_button,
                          !g_error_matches (error, TS_FORMAT_ERROR, TS_FORMAT_ERROR_UNKNOWN_FORMAT));

  g_clear_object (&self->model);
  set_titles (self, name, g_error_matches (error, TS_FORMAT_ERROR, TS_FORMAT_ERROR_IO) &&
                          !g_file_query_exists (file, NULL)
                          ? _("No such file") : _("Not a readable model file"));
  show_page (self, "error");
  /* the suggested action; the message and rule are selectable with the
   * mouse but no focus stop (focused, they would start fully selected) */
  gtk_widget_grab_focus (self->error_open_button);
}

/* ------------------------------------------------------------------------ */
/* Loading                                                                   */

static void
replace_cancellable (TsWindow *self)
{
  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  self->cancellable = g_cancellable_new ();
}

static void
layout_done (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(LoadData) data = user_data;
  g_autoptr(TsLayout) layout = ts_layout_new_finish (result, NULL);
  TsWindow *self = data->self;

  if (self == NULL || layout == NULL || g_cancellable_is_cancelled (data->cancellable) ||
      data->cancellable != self->cancellable)
    return;

  set_model (self, ts_layout_get_model (layout), layout);
}

static void
load_done (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(LoadData) data = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(TsModelFile) model = ts_model_loader_load_finish (TS_MODEL_LOADER (object), result, &error);
  TsWindow *self = data->self;

  /* gone, cancelled, or replaced by a newer request: never apply a stale result */
  if (self == NULL || g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) ||
      g_cancellable_is_cancelled (data->cancellable) ||
      data->cancellable != self->cancellable)
    return;

  if (model == NULL)
    show_error (self, self->file, error);
  else
    {
      GCancellable *cancellable = data->cancellable;

      /* the layout's bands (50,000 tensors: tens of ms) are built off the main loop too */
      ts_layout_new_async (model, cancellable, layout_done, g_steal_pointer (&data));
    }
}

static void file_chosen (GObject      *object,
                         GAsyncResult *result,
                         gpointer      user_data);

void
ts_window_open (TsWindow *self,
                GFile    *file)
{
  g_autofree char *name = NULL;
  g_autofree char *text = NULL;
  LoadData *data;

  g_return_if_fail (TS_IS_WINDOW (self));
  g_return_if_fail (G_IS_FILE (file));

  /* In the Flatpak sandbox the document portal shows only this shard, not
   * its index or the other shards: ask for the checkpoint's folder. */
  if (ts_file_chooser_should_ask_for_folder (file))
    {
      ts_file_chooser_run_async (GTK_WINDOW (self), TS_FILE_CHOOSER_OPEN_FOLDER, NULL,
                                 NULL, file_chosen, g_object_ref (self));
      return;
    }

  if (g_strcmp0 (gtk_stack_get_visible_child_name (self->stack), "loading") != 0)
    {
      g_free (self->previous_page);
      self->previous_page = g_strdup (gtk_stack_get_visible_child_name (self->stack));
    }

  g_set_object (&self->file, file);
  replace_cancellable (self);
  clear_loader (self);
  clear_monitors (self);
  if (gtk_widget_get_visible (self->banner_reload_button))
    dismiss_banner (self);

  name = ts_file_display_basename (file);
  text = g_strdup_printf (_("Opening “%s”…"), name);
  gtk_label_set_text (self->loading_label, text);
  gtk_spinner_set_spinning (self->loading_spinner, TRUE);
  show_page (self, "loading");

  /* the reader's progress, throttled and delivered on this main loop */
  self->loader = ts_model_loader_new (file);
  self->fraction_binding = g_object_ref (g_object_bind_property (self->loader, "fraction",
                                                                 self->loading_progress, "fraction",
                                                                 G_BINDING_SYNC_CREATE));
  self->message_binding = g_object_ref (g_object_bind_property (self->loader, "message",
                                                                self->loading_message, "label",
                                                                G_BINDING_SYNC_CREATE));

  data = g_new0 (LoadData, 1);
  g_set_weak_pointer (&data->self, self);
  data->cancellable = g_object_ref (self->cancellable);
  ts_model_loader_load_async (self->loader, self->cancellable, load_done, data);
}

gboolean
ts_window_is_empty (TsWindow *self)
{
  g_return_val_if_fail (TS_IS_WINDOW (self), FALSE);

  return g_strcmp0 (gtk_stack_get_visible_child_name (self->stack), "empty") == 0;
}

TsModelFile *
ts_window_get_model (TsWindow *self)
{
  g_return_val_if_fail (TS_IS_WINDOW (self), NULL);

  return self->model;
}

/* ------------------------------------------------------------------------ */
/* Actions                                                                   */

static void
file_chosen (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(TsWindow) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) file = ts_file_chooser_run_finish (result, &error);

  if (file != NULL)
    ts_window_open (self, file);
  else if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    g_warning ("File chooser failed: %s", error->message);
}

static void
open_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  TsWindow *self = TS_WINDOW (widget);
  TsFileChooserMode mode = g_str_equal (action_name, "win.open-folder")
    ? TS_FILE_CHOOSER_OPEN_FOLDER : TS_FILE_CHOOSER_OPEN_FILE;

  ts_file_chooser_run_async (GTK_WINDOW (self), mode, NULL, NULL, file_chosen, g_object_ref (self));
}

static void
sample_worker (GTask        *task,
               gpointer      source_object,
               gpointer      task_data,
               GCancellable *cancellable)
{
  GFile *dir = task_data;
  TsSampleOptions options;
  GError *error = NULL;

  ts_sample_options_init (&options);
  if (ts_sample_write (dir, &options, cancellable, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

static void
sample_done (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(TsWindow) self = user_data;
  g_autoptr(GError) error = NULL;
  GFile *dir = g_task_get_task_data (G_TASK (result));

  if (!g_task_propagate_boolean (G_TASK (result), &error))
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        show_error (self, dir, error);
      return;
    }

  ts_window_open (self, dir);
}

/* The sample is written to the cache on a worker, then opened like any folder. */
static void
open_sample_action (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *parameter)
{
  TsWindow *self = TS_WINDOW (widget);
  g_autofree char *path = g_build_filename (g_get_user_cache_dir (), "tensorscope", "sample", NULL);
  g_autoptr(GTask) task = NULL;

  replace_cancellable (self);
  task = g_task_new (NULL, self->cancellable, sample_done, g_object_ref (self));
  g_task_set_source_tag (task, open_sample_action);
  g_task_set_task_data (task, g_file_new_for_path (path), g_object_unref);
  g_task_run_in_thread (task, sample_worker);
}

static void
cancel_load_action (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *parameter)
{
  TsWindow *self = TS_WINDOW (widget);
  const char *page = self->previous_page;

  g_cancellable_cancel (self->cancellable);
  if (page == NULL || g_str_equal (page, "loading") || (g_str_equal (page, "model") && self->model == NULL))
    page = "empty";
  if (g_str_equal (page, "empty"))
    set_titles (self, _("Tensorscope"), NULL);
  else if (self->model != NULL)
    {
      g_autofree char *subtitle = ts_model_file_dup_summary (self->model);
      set_titles (self, ts_model_file_get_display_name (self->model), subtitle);
      g_set_object (&self->file, ts_model_file_get_file (self->model));
    }
  show_page (self, page);
}

static void
reload_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  TsWindow *self = TS_WINDOW (widget);
  g_autoptr(GFile) file = self->file != NULL ? g_object_ref (self->file) : NULL;

  if (file != NULL)
    ts_window_open (self, file);
}

static void
dismiss_banner (TsWindow *self)
{
  g_clear_handle_id (&self->banner_id, g_source_remove);
  gtk_revealer_set_reveal_child (self->banner_revealer, FALSE);
}

static gboolean
banner_timeout (gpointer user_data)
{
  TsWindow *self = user_data;

  self->banner_id = 0;
  gtk_revealer_set_reveal_child (self->banner_revealer, FALSE);
  return G_SOURCE_REMOVE;
}

/* the in-window notification */
static void
show_banner (TsWindow   *self,
             const char *text,
             BannerKind  kind)
{
  gboolean names_file = kind != BANNER_MESSAGE;

  /* a file name is ellipsized on one line; an error wraps, whole */
  gtk_label_set_ellipsize (self->banner_label, names_file ? PANGO_ELLIPSIZE_MIDDLE : PANGO_ELLIPSIZE_NONE);
  gtk_label_set_wrap (self->banner_label, !names_file);
  gtk_label_set_text (self->banner_label, text);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->banner_label), text);
  gtk_widget_set_visible (self->banner_show_button, kind == BANNER_EXPORTED);
  gtk_widget_set_visible (self->banner_reload_button, kind == BANNER_CHANGED);
  gtk_revealer_set_reveal_child (self->banner_revealer, TRUE);
  g_clear_handle_id (&self->banner_id, g_source_remove);
  if (kind != BANNER_CHANGED)
    self->banner_id = g_timeout_add_seconds (BANNER_TIMEOUT_S, banner_timeout, self);
}

static void
on_exported (TsWindow *self,
             GFile    *file)
{
  g_autofree char *name = ts_file_display_basename (file);
  g_autofree char *text = g_strdup_printf (_("Exported “%s”"), name);

  g_set_object (&self->exported, file);
  show_banner (self, text, BANNER_EXPORTED);
}

static void
export_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  TsWindow *self = TS_WINDOW (widget);
  TsLayout *layout = ts_layout_view_get_layout (self->layout_view);
  TsExportDialog *dialog;

  if (layout == NULL)
    return;

  dialog = ts_export_dialog_new (GTK_WINDOW (self), layout, self->settings);
  g_signal_connect_object (dialog, "exported", G_CALLBACK (on_exported), self, G_CONNECT_SWAPPED);
  /* closed with this window, which stops its export */
  g_set_weak_pointer (&self->export_dialog, GTK_WINDOW (dialog));
  gtk_window_present (GTK_WINDOW (dialog));
}

/* the file being opened: a later export may replace self->exported */
typedef struct
{
  TsWindow *self;
  GFile    *file;
} Launch;

static void
launch_free (Launch *launch)
{
  g_object_unref (launch->self);
  g_object_unref (launch->file);
  g_free (launch);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Launch, launch_free)

static void
export_launched (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(Launch) launch = user_data;
  g_autoptr(GError) error = NULL;

  /* a closed window (disposed: no file exported any more) says nothing */
  if (!ts_file_launch_finish (result, &error) &&
      !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) &&
      launch->self->exported != NULL)
    {
      g_autofree char *name = ts_file_display_basename (launch->file);
      g_autofree char *text = NULL;

      /* GIO's words for a file gone ("Error when getting information for
       * file …: No such file or directory") name its whole path again */
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
        text = g_strdup_printf (_("Could not open “%s”: it is no longer there"), name);
      else
        text = g_strdup_printf (_("Could not open “%s”: %s"), name, error->message);

      show_banner (launch->self, text, BANNER_MESSAGE);
    }
}

static void
show_export_action (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *parameter)
{
  TsWindow *self = TS_WINDOW (widget);
  Launch *launch;

  if (self->exported == NULL)
    return;

  launch = g_new0 (Launch, 1);
  launch->self = g_object_ref (self);
  launch->file = g_object_ref (self->exported);
  ts_file_launch_async (GTK_WINDOW (self), launch->file, NULL, export_launched, launch);
  dismiss_banner (self);
}

static void
dismiss_banner_action (GtkWidget  *widget,
                       const char *action_name,
                       GVariant   *parameter)
{
  dismiss_banner (TS_WINDOW (widget));
}

static void
find_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  TsWindow *self = TS_WINDOW (widget);
  const char *view = gtk_stack_get_visible_child_name (self->view_stack);

  if (g_strcmp0 (view, "metadata") == 0)
    ts_metadata_view_focus_search (self->metadata_view);
  else
    {
      gtk_stack_set_visible_child_name (self->view_stack, "tensors");
      ts_tensor_table_focus_search (self->tensor_table);
    }
}

static void
zoom_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  TsWindow *self = TS_WINDOW (widget);

  if (g_str_equal (action_name, "win.zoom-in"))
    ts_layout_view_zoom_in (self->layout_view);
  else if (g_str_equal (action_name, "win.zoom-out"))
    ts_layout_view_zoom_out (self->layout_view);
  else if (g_str_equal (action_name, "win.zoom-back"))
    ts_layout_view_zoom_back (self->layout_view);
  else
    ts_layout_view_zoom_reset (self->layout_view);
}

static void
on_zoom_changed (TsWindow *self)
{
  TsLayout *layout = ts_layout_view_get_layout (self->layout_view);
  g_autofree char *text = NULL;

  if (layout == NULL)
    return;

  if (ts_layout_is_zoomed (layout))
    {
      guint64 start, end;
      g_autofree char *a = NULL;
      g_autofree char *b = NULL;
      double factor;

      ts_layout_get_view_range (layout, &start, &end);
      a = ts_format_count (start);
      b = ts_format_count (end);
      factor = (double) ts_layout_get_max_part_size (layout) / (double) MAX (end - start, 1);
      /* Translators: the byte range shown and the magnification */
      text = g_strdup_printf (factor < 10 ? _("bytes %s – %s · %.1f×") : _("bytes %s – %s · %.0f×"),
                              a, b, factor);
    }
  else
    text = g_strdup (_("whole file, to scale"));

  gtk_label_set_text (self->range_label, text);
  update_actions (self);
}

static void
on_select_hidden_tensor (TsWindow     *self,
                         TsTensor     *tensor,
                         TsLayoutView *view)
{
  ts_tensor_table_select_tensor (self->tensor_table, tensor);
}

/* ------------------------------------------------------------------------ */
/* Drag and drop                                                             */

static GdkDragAction
on_drop_enter (TsWindow      *self,
               double         x,
               double         y,
               GtkDropTarget *target)
{
  gtk_revealer_set_reveal_child (self->drop_revealer, TRUE);
  gtk_widget_add_css_class (GTK_WIDGET (self->stack), "drop-active");
  return GDK_ACTION_COPY;
}

static void
on_drop_leave (TsWindow      *self,
               GtkDropTarget *target)
{
  gtk_revealer_set_reveal_child (self->drop_revealer, FALSE);
  gtk_widget_remove_css_class (GTK_WIDGET (self->stack), "drop-active");
}

static gboolean
on_drop (TsWindow      *self,
         const GValue  *value,
         double         x,
         double         y,
         GtkDropTarget *target)
{
  g_autoptr(GSList) files = NULL;
  GtkApplication *app = gtk_window_get_application (GTK_WINDOW (self));

  on_drop_leave (self, target);

  if (G_VALUE_HOLDS (value, GDK_TYPE_FILE_LIST))
    files = g_slist_copy (gdk_file_list_get_files (g_value_get_boxed (value)));
  else if (G_VALUE_HOLDS (value, G_TYPE_FILE))
    files = g_slist_prepend (NULL, g_value_get_object (value));

  if (files == NULL)
    return FALSE;

  /* the first file replaces this window's model, the others get windows */
  ts_window_open (self, files->data);
  for (GSList *l = files->next; l != NULL && app != NULL; l = l->next)
    {
      TsWindow *other = ts_window_new (TS_APPLICATION (app));
      ts_window_open (other, l->data);
      gtk_window_present (GTK_WINDOW (other));
    }

  return TRUE;
}

/* ------------------------------------------------------------------------ */
/* Private API for tests                                                     */

const char *
ts_window_get_page (TsWindow *self)
{
  return gtk_stack_get_visible_child_name (self->stack);
}

const char *
ts_window_get_error_message (TsWindow *self)
{
  return gtk_label_get_text (self->error_message);
}

TsLayoutView *
ts_window_get_layout_view (TsWindow *self)
{
  return self->layout_view;
}

TsTensorTable *
ts_window_get_tensor_table (TsWindow *self)
{
  return self->tensor_table;
}

TsMetadataView *
ts_window_get_metadata_view (TsWindow *self)
{
  return self->metadata_view;
}

TsSummaryView *
ts_window_get_summary_view (TsWindow *self)
{
  return self->summary_view;
}

GtkDropTarget *
ts_window_get_drop_target (TsWindow *self)
{
  return self->drop_target;
}

gboolean
ts_window_get_drop_active (TsWindow *self)
{
  return gtk_revealer_get_reveal_child (self->drop_revealer);
}

const char *
ts_window_get_banner (TsWindow *self,
                      gboolean *can_show,
                      gboolean *can_reload)
{
  g_return_val_if_fail (TS_IS_WINDOW (self), NULL);

  if (can_show != NULL)
    *can_show = gtk_widget_get_visible (self->banner_show_button);
  if (can_reload != NULL)
    *can_reload = gtk_widget_get_visible (self->banner_reload_button);
  if (!gtk_revealer_get_reveal_child (self->banner_revealer))
    return NULL;
  return gtk_label_get_text (self->banner_label);
}

void
ts_window_show_view (TsWindow   *self,
                     const char *name)
{
  gtk_stack_set_visible_child_name (self->view_stack, name);
}

/* ------------------------------------------------------------------------ */
/* GObject                                                                   */

TsWindow *
ts_window_new (TsApplication *app)
{
  return g_object_new (TS_TYPE_WINDOW, "application", app, NULL);
}

static void
load_settings (TsWindow *self)
{
  GtkApplication *app = gtk_window_get_application (GTK_WINDOW (self));

  if (TS_IS_APPLICATION (app))
    self->settings = g_object_ref (ts_application_get_settings (TS_APPLICATION (app)));
  else
    self->settings = g_settings_new ("io.github.tensorscope.Tensorscope");

  gtk_window_set_default_size (GTK_WINDOW (self),
                               g_settings_get_int (self->settings, "window-width"),
                               g_settings_get_int (self->settings, "window-height"));
  if (g_settings_get_boolean (self->settings, "window-maximized"))
    gtk_window_maximize (GTK_WINDOW (self));
  {
    g_autoptr(GVariant) chosen = g_settings_get_user_value (self->settings, "layout-pane-height");

    self->chosen_height = chosen != NULL ? g_variant_get_int32 (chosen) : -1;
  }
  self->placing_divider = TRUE;
  gtk_paned_set_position (self->paned, g_settings_get_int (self->settings, "layout-pane-height"));
  self->placing_divider = FALSE;
  ts_layout_view_set_zoom_step (self->layout_view, g_settings_get_double (self->settings, "zoom-step"));
}

static gboolean
ts_window_close_request (GtkWindow *window)
{
  TsWindow *self = TS_WINDOW (window);
  int width, height;

  gtk_window_get_default_size (window, &width, &height);
  g_settings_delay (self->settings);
  if (!gtk_window_is_maximized (window) && width > 0 && height > 0)
    {
      g_settings_set_int (self->settings, "window-width", width);
      g_settings_set_int (self->settings, "window-height", height);
    }
  g_settings_set_boolean (self->settings, "window-maximized", gtk_window_is_maximized (window));
  if (self->height_chosen)
    g_settings_set_int (self->settings, "layout-pane-height", CLAMP (self->chosen_height, 120, 4000));
  g_settings_apply (self->settings);

  /* a load (or a chooser) still running stops with the window, and so
   * does an export of its layout */
  g_cancellable_cancel (self->cancellable);
  if (self->export_dialog != NULL)
    gtk_window_close (self->export_dialog);
  return GTK_WINDOW_CLASS (ts_window_parent_class)->close_request (window);
}

/* The Open Recent submenu is the application's; the "application"
 * property is set only after constructed(), so it is added when it is. */
static void
on_application_changed (TsWindow *self)
{
  GtkApplication *app = gtk_window_get_application (GTK_WINDOW (self));

  if (TS_IS_APPLICATION (app) && !self->recent_added)
    {
      g_menu_prepend_submenu (self->recent_section, _("Open _Recent"),
                              ts_application_get_recent_menu (TS_APPLICATION (app)));
      self->recent_added = TRUE;
    }
}

static void
ts_window_constructed (GObject *object)
{
  TsWindow *self = TS_WINDOW (object);

  G_OBJECT_CLASS (ts_window_parent_class)->constructed (object);

  load_settings (self);
  g_signal_connect (self, "notify::application", G_CALLBACK (on_application_changed), NULL);
  on_application_changed (self);
}

GMenuModel *
ts_window_get_recent_section (TsWindow *self)
{
  g_return_val_if_fail (TS_IS_WINDOW (self), NULL);
  return G_MENU_MODEL (self->recent_section);
}

static void
ts_window_dispose (GObject *object)
{
  TsWindow *self = (TsWindow *) object;

  /* workers still running finish into a cancelled request and drop it */
  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_handle_id (&self->banner_id, g_source_remove);
  g_clear_handle_id (&self->divider_id, g_source_remove);
  clear_monitors (self);
  if (self->export_dialog != NULL)
    gtk_window_close (self->export_dialog);
  g_clear_weak_pointer (&self->export_dialog);

  clear_loader (self);
  gtk_widget_dispose_template (GTK_WIDGET (self), TS_TYPE_WINDOW);

  g_clear_object (&self->model);
  g_clear_object (&self->file);
  g_clear_object (&self->exported);
  g_clear_object (&self->settings);
  g_clear_pointer (&self->previous_page, g_free);

  G_OBJECT_CLASS (ts_window_parent_class)->dispose (object);
}

static void
ts_window_class_init (TsWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  GtkWindowClass *window_class = GTK_WINDOW_CLASS (klass);

  object_class->constructed = ts_window_constructed;
  object_class->dispose = ts_window_dispose;
  window_class->close_request = ts_window_close_request;

  g_type_ensure (TS_TYPE_LAYOUT_VIEW);
  g_type_ensure (TS_TYPE_TENSOR_TABLE);
  g_type_ensure (TS_TYPE_METADATA_VIEW);
  g_type_ensure (TS_TYPE_SUMMARY_VIEW);

  ts_ensure_resources ();
  gtk_widget_class_set_template_from_resource (widget_class, RESOURCE_PREFIX "/ts-window.ui");
  gtk_widget_class_bind_template_child (widget_class, TsWindow, title_label);
  gtk_widget_class_bind_template_child (widget_class, TsWindow, subtitle_label);
  gtk_widget_class_bind_template_child (widget_class, TsWindow, stack);
  gtk_widget_class_bind_template_child (widget_class, TsWindow, loading_spinner);
  gtk_widget_class_bind_template_child (widget_class, TsWindow, loading_label);
  gtk_widget_class_bind_template_child (widget_class, TsWindow, loading_progress);
  gtk_widget_class_bind_template_child (widget_class, TsWindow, loading_message);
  gtk_widget_class_bind_template_child (widget_class, TsWindow, error_title);
  gtk_widget_class_bind_template_child (widget_class, TsWindow, error_message);
  gtk_widget_class_bind_template_child (widget_class, TsWindow, error_rule);
  gtk_widget_class_bind_template_child (widget_class, TsWindow, error_open_button);
  gtk_widget_class_bind_template_child (widget_class, TsWindow, paned);
  gtk_widget_class_bind_template_child (widget_class, TsWindow, range_label);
  gtk_widget_class_bind_template_child (widget_class, TsWindow, export_button);
  gtk_widget_class_bind_template_child (widget_class, TsWindow, layout_view);
  gtk_widget_class_bind_template_child (widget_class, TsWindow, view_stack);
  gtk_widget_class_bind_template_child (widget_class, TsWindow, tensor_table);
  gtk_widget_class_bind_template_child (widget_class, TsWindow, metadata_view);
  gtk_widget_class_bind_template_child (widget_class, TsWindow, summary_view);
  gtk_widget_class_bind_template_child (widget_class, TsWindow, drop_revealer);
  gtk_widget_class_bind_template_child (widget_class, TsWindow, banner_revealer);
  gtk_widget_class_bind_template_child (widget_class, TsWindow, banner_label);
  gtk_widget_class_bind_template_child (widget_class, TsWindow, banner_show_button);
  gtk_widget_class_bind_template_child (widget_class, TsWindow, banner_reload_button);
  gtk_widget_class_bind_template_child (widget_class, TsWindow, error_retry_button);
  gtk_widget_class_bind_template_child (widget_class, TsWindow, recent_section);
  gtk_widget_class_bind_template_callback (widget_class, on_zoom_changed);
  gtk_widget_class_bind_template_callback (widget_class, queue_place_divider);
  gtk_widget_class_bind_template_callback (widget_class, on_divider_moved);
  gtk_widget_class_bind_template_callback (widget_class, on_select_hidden_tensor);

  gtk_widget_class_install_action (widget_class, "win.open", NULL, open_action);
  gtk_widget_class_install_action (widget_class, "win.open-folder", NULL, open_action);
  gtk_widget_class_install_action (widget_class, "win.open-sample", NULL, open_sample_action);
  gtk_widget_class_install_action (widget_class, "win.cancel-load", NULL, cancel_load_action);
  gtk_widget_class_install_action (widget_class, "win.reload", NULL, reload_action);
  gtk_widget_class_install_action (widget_class, "win.export", NULL, export_action);
  gtk_widget_class_install_action (widget_class, "win.show-export", NULL, show_export_action);
  gtk_widget_class_install_action (widget_class, "win.dismiss-banner", NULL, dismiss_banner_action);
  gtk_widget_class_install_action (widget_class, "win.find", NULL, find_action);
  gtk_widget_class_install_action (widget_class, "win.zoom-in", NULL, zoom_action);
  gtk_widget_class_install_action (widget_class, "win.zoom-out", NULL, zoom_action);
  gtk_widget_class_install_action (widget_class, "win.zoom-reset", NULL, zoom_action);
  gtk_widget_class_install_action (widget_class, "win.zoom-back", NULL, zoom_action);

  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_w, GDK_CONTROL_MASK, "window.close", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "win.cancel-load", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_f, GDK_CONTROL_MASK, "win.find", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_plus, GDK_CONTROL_MASK, "win.zoom-in", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_equal, GDK_CONTROL_MASK, "win.zoom-in", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_KP_Add, GDK_CONTROL_MASK, "win.zoom-in", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_minus, GDK_CONTROL_MASK, "win.zoom-out", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_KP_Subtract, GDK_CONTROL_MASK, "win.zoom-out", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_0, GDK_CONTROL_MASK, "win.zoom-reset", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_KP_0, GDK_CONTROL_MASK, "win.zoom-reset", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Left, GDK_ALT_MASK, "win.zoom-back", NULL);
}

static void
ts_window_init (TsWindow *self)
{
  GType types[] = { GDK_TYPE_FILE_LIST, G_TYPE_FILE };

  gtk_widget_init_template (GTK_WIDGET (self));

#ifdef DEVELOPMENT
  gtk_widget_add_css_class (GTK_WIDGET (self), "devel");
#endif

  /* on the whole window: drop anywhere, whatever page is showing */
  self->drop_target = gtk_drop_target_new (G_TYPE_INVALID, GDK_ACTION_COPY);
  gtk_drop_target_set_gtypes (self->drop_target, types, G_N_ELEMENTS (types));
  g_signal_connect_swapped (self->drop_target, "enter", G_CALLBACK (on_drop_enter), self);
  g_signal_connect_swapped (self->drop_target, "leave", G_CALLBACK (on_drop_leave), self);
  g_signal_connect_swapped (self->drop_target, "drop", G_CALLBACK (on_drop), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (self->drop_target));

  /* whether a move of the divider is a drag of its handle */
  {
    GtkEventController *legacy = gtk_event_controller_legacy_new ();

    gtk_event_controller_set_propagation_phase (legacy, GTK_PHASE_CAPTURE);
    g_signal_connect_swapped (legacy, "event", G_CALLBACK (on_paned_event), self);
    gtk_widget_add_controller (GTK_WIDGET (self->paned), legacy);
  }

  show_page (self, "empty");
  on_zoom_changed (self);
}
