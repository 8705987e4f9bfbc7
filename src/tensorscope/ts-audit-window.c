/* ts-audit-window.c: "Audit a Conversion…": pick a source and a converted
 * file, load both and audit them on worker threads, show the audit pane
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>

#include "ts-application.h"
#include "ts-audit-window.h"
#include "ts-file-chooser.h"

struct _TsAuditWindow
{
  GtkWindow       parent_instance;

  GFile          *source_file;
  GFile          *target_file;
  TsModelFile    *source;
  TsModelFile    *target;
  TsAudit        *audit;           /* while running, for its progress */
  GCancellable   *cancellable;     /* the running audit; replaced by a new one */
  GCancellable   *choosers;        /* the file choosers: only closing cancels them */
  char           *error_message;
  gboolean        choosing_target;

  GtkStack       *stack;
  GtkButton      *back_button;
  GtkButton      *start_button;
  GtkLabel       *source_label;
  GtkLabel       *target_label;
  GtkLabel       *running_label;
  GtkProgressBar *progress_bar;
  GtkLabel       *current_label;
  GtkLabel       *error_label;
  TsAuditPane    *pane;
};

G_DEFINE_FINAL_TYPE (TsAuditWindow, ts_audit_window, GTK_TYPE_WINDOW)

static void
show_page (TsAuditWindow *self,
           const char    *name)
{
  gtk_stack_set_visible_child_name (self->stack, name);
  gtk_widget_set_visible (GTK_WIDGET (self->back_button), !g_str_equal (name, "choose"));
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "audit.back", !g_str_equal (name, "choose"));
}

static void
set_label_file (GtkLabel *label,
                GFile    *file)
{
  g_autofree char *name = file ? g_file_get_parse_name (file) : NULL;

  gtk_label_set_text (label, name ? name : _("None chosen"));
  gtk_widget_set_tooltip_text (GTK_WIDGET (label), name);
}

void
ts_audit_window_set_files (TsAuditWindow *self,
                           GFile         *source,
                           GFile         *target)
{
  g_return_if_fail (TS_IS_AUDIT_WINDOW (self));

  if (source != NULL)
    g_set_object (&self->source_file, source);
  if (target != NULL)
    g_set_object (&self->target_file, target);
  set_label_file (self->source_label, self->source_file);
  set_label_file (self->target_label, self->target_file);
  gtk_widget_set_sensitive (GTK_WIDGET (self->start_button),
                            self->source_file != NULL && self->target_file != NULL);
}

static void
fail (TsAuditWindow *self,
      const GError  *error)
{
  g_free (self->error_message);
  self->error_message = g_strdup (error->message);
  gtk_label_set_text (self->error_label, error->message);
  g_clear_object (&self->audit);
  show_page (self, "error");
}

static void
on_audit_progress (TsAuditWindow *self)
{
  g_autofree char *tensor = NULL;

  if (self->audit == NULL)
    return;
  tensor = ts_audit_dup_current_tensor (self->audit);
  gtk_progress_bar_set_fraction (self->progress_bar, ts_audit_get_fraction (self->audit));
  gtk_label_set_text (self->current_label, tensor ? tensor : "");
}

static void
audit_done (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(TsAuditWindow) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(TsAuditReport) report = ts_audit_run_finish (result, &error);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) || self->audit != (TsAudit *) object)
    return;
  g_clear_object (&self->audit);
  if (report == NULL)
    {
      fail (self, error);
      return;
    }

  ts_audit_pane_set_report (self->pane, report, self->source, self->target);
  show_page (self, "result");
}

static void
run_audit (TsAuditWindow *self)
{
  TsAuditOptions options;

  ts_audit_options_init (&options);
  gtk_label_set_text (self->running_label, _("Comparing Every Value…"));
  self->audit = g_object_ref (ts_audit_run_async (self->source, self->target, &options,
                                                  self->cancellable, audit_done,
                                                  g_object_ref (self)));
  g_signal_connect_object (self->audit, "notify::fraction", G_CALLBACK (on_audit_progress),
                           self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->audit, "notify::current-tensor", G_CALLBACK (on_audit_progress),
                           self, G_CONNECT_SWAPPED);
}

static void load_next (TsAuditWindow *self,
                       GCancellable  *cancellable);

static void
load_done (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(TsAuditWindow) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(TsModelFile) model = ts_model_file_load_finish (result, &error);
  GCancellable *cancellable = g_task_get_cancellable (G_TASK (result));

  /* a newer start replaced the cancellable: this result is stale */
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) || cancellable != self->cancellable)
    return;
  if (model == NULL)
    {
      fail (self, error);
      return;
    }

  if (self->source == NULL)
    self->source = g_steal_pointer (&model);
  else
    self->target = g_steal_pointer (&model);
  load_next (self, cancellable);
}

static void
load_next (TsAuditWindow *self,
           GCancellable  *cancellable)
{
  if (self->source == NULL)
    ts_model_file_load_async (self->source_file, cancellable, load_done, g_object_ref (self));
  else if (self->target == NULL)
    ts_model_file_load_async (self->target_file, cancellable, load_done, g_object_ref (self));
  else
    run_audit (self);
}

void
ts_audit_window_start (TsAuditWindow *self)
{
  g_return_if_fail (TS_IS_AUDIT_WINDOW (self));
  g_return_if_fail (self->source_file != NULL && self->target_file != NULL);

  g_cancellable_cancel (self->cancellable);
  g_set_object (&self->cancellable, g_cancellable_new ());
  g_clear_object (&self->source);
  g_clear_object (&self->target);
  g_clear_object (&self->audit);

  gtk_label_set_text (self->running_label, _("Reading Both Files…"));
  gtk_progress_bar_set_fraction (self->progress_bar, 0.0);
  gtk_label_set_text (self->current_label, "");
  show_page (self, "running");
  load_next (self, self->cancellable);
}

/* back to choosing the files, the audit stopped */
void
ts_audit_window_go_back (TsAuditWindow *self)
{
  g_return_if_fail (TS_IS_AUDIT_WINDOW (self));

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->audit);
  show_page (self, "choose");
}

static void
on_back_clicked (TsAuditWindow *self)
{
  ts_audit_window_go_back (self);
}

static void
back_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  ts_audit_window_go_back (TS_AUDIT_WINDOW (widget));
}

static void
file_chosen (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(TsAuditWindow) self = user_data;
  g_autoptr(GFile) file = ts_file_chooser_run_finish (result, NULL);

  if (file == NULL)
    return;
  ts_audit_window_set_files (self, self->choosing_target ? NULL : file,
                             self->choosing_target ? file : NULL);
}

static void
choose (TsAuditWindow     *self,
        TsFileChooserMode  mode,
        gboolean           target)
{
  self->choosing_target = target;
  /* not the audit's cancellable, which Back cancels */
  ts_file_chooser_run_async (GTK_WINDOW (self), mode, NULL, self->choosers,
                             file_chosen, g_object_ref (self));
}

static void on_choose_source_folder (TsAuditWindow *self) { choose (self, TS_FILE_CHOOSER_OPEN_FOLDER, FALSE); }
static void on_choose_source_file (TsAuditWindow *self) { choose (self, TS_FILE_CHOOSER_OPEN_FILE, FALSE); }
static void on_choose_target (TsAuditWindow *self) { choose (self, TS_FILE_CHOOSER_OPEN_GGUF, TRUE); }

const char *
ts_audit_window_get_page (TsAuditWindow *self)
{
  g_return_val_if_fail (TS_IS_AUDIT_WINDOW (self), NULL);

  return gtk_stack_get_visible_child_name (self->stack);
}

const char *
ts_audit_window_get_error_message (TsAuditWindow *self)
{
  g_return_val_if_fail (TS_IS_AUDIT_WINDOW (self), NULL);

  return self->error_message;
}

TsAuditPane *
ts_audit_window_get_pane (TsAuditWindow *self)
{
  g_return_val_if_fail (TS_IS_AUDIT_WINDOW (self), NULL);

  return self->pane;
}

TsAuditWindow *
ts_audit_window_new (GtkApplication *app)
{
  return g_object_new (TS_TYPE_AUDIT_WINDOW, "application", app, NULL);
}

/* Closing stops the audit at once: its tasks hold the window, so dispose
 * would come only once the audit had run to its end. */
static gboolean
ts_audit_window_close_request (GtkWindow *window)
{
  g_cancellable_cancel (TS_AUDIT_WINDOW (window)->cancellable);
  g_cancellable_cancel (TS_AUDIT_WINDOW (window)->choosers);
  return GTK_WINDOW_CLASS (ts_audit_window_parent_class)->close_request (window);
}

static void
ts_audit_window_dispose (GObject *object)
{
  TsAuditWindow *self = (TsAuditWindow *) object;

  /* closing the window stops its work */
  g_cancellable_cancel (self->cancellable);
  g_cancellable_cancel (self->choosers);
  gtk_widget_dispose_template (GTK_WIDGET (self), TS_TYPE_AUDIT_WINDOW);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->choosers);
  g_clear_object (&self->audit);
  g_clear_object (&self->source);
  g_clear_object (&self->target);
  g_clear_object (&self->source_file);
  g_clear_object (&self->target_file);
  g_clear_pointer (&self->error_message, g_free);

  G_OBJECT_CLASS (ts_audit_window_parent_class)->dispose (object);
}

static void
ts_audit_window_class_init (TsAuditWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  GTK_WINDOW_CLASS (klass)->close_request = ts_audit_window_close_request;
  object_class->dispose = ts_audit_window_dispose;

  ts_ensure_resources ();
  g_type_ensure (TS_TYPE_AUDIT_PANE);
  gtk_widget_class_set_template_from_resource (widget_class, RESOURCE_PREFIX "/ts-audit-window.ui");
  gtk_widget_class_bind_template_child (widget_class, TsAuditWindow, stack);
  gtk_widget_class_bind_template_child (widget_class, TsAuditWindow, back_button);
  gtk_widget_class_bind_template_child (widget_class, TsAuditWindow, start_button);
  gtk_widget_class_bind_template_child (widget_class, TsAuditWindow, source_label);
  gtk_widget_class_bind_template_child (widget_class, TsAuditWindow, target_label);
  gtk_widget_class_bind_template_child (widget_class, TsAuditWindow, running_label);
  gtk_widget_class_bind_template_child (widget_class, TsAuditWindow, progress_bar);
  gtk_widget_class_bind_template_child (widget_class, TsAuditWindow, current_label);
  gtk_widget_class_bind_template_child (widget_class, TsAuditWindow, error_label);
  gtk_widget_class_bind_template_child (widget_class, TsAuditWindow, pane);
  gtk_widget_class_bind_template_callback (widget_class, ts_audit_window_start);
  gtk_widget_class_bind_template_callback (widget_class, on_back_clicked);
  gtk_widget_class_bind_template_callback (widget_class, on_choose_source_folder);
  gtk_widget_class_bind_template_callback (widget_class, on_choose_source_file);
  gtk_widget_class_bind_template_callback (widget_class, on_choose_target);
  gtk_widget_class_install_action (widget_class, "audit.back", NULL, back_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_w, GDK_CONTROL_MASK, "window.close", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
  /* as the wizard's Back: the help window lists it for both */
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Left, GDK_ALT_MASK, "audit.back", NULL);
}

static void
ts_audit_window_init (TsAuditWindow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->cancellable = g_cancellable_new ();
  self->choosers = g_cancellable_new ();
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "audit.back", FALSE);
}
