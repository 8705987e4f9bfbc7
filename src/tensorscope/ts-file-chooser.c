/* ts-file-chooser.c
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>

#include "ts-file-chooser.h"

static const char *
title_for_mode (TsFileChooserMode mode)
{
  switch (mode)
    {
    case TS_FILE_CHOOSER_OPEN_FILE:   return _("Open Model File");
    case TS_FILE_CHOOSER_OPEN_FOLDER: return _("Open Checkpoint Folder");
    case TS_FILE_CHOOSER_SAVE_LAYOUT: return _("Export Layout");
    case TS_FILE_CHOOSER_SAVE_GGUF:   return _("Save the GGUF File As");
    case TS_FILE_CHOOSER_SAVE_REPORT: return _("Export Audit Report");
    case TS_FILE_CHOOSER_OPEN_GGUF:   return _("Choose the GGUF File to Audit");
    default:                          g_assert_not_reached ();
    }
}

/* the folder of @initial_name when it is a path to one that exists: the
 * chooser starts there, with the name alone in its name field */
static GFile *
initial_folder (const char *initial_name)
{
  g_autofree char *dir = NULL;

  if (initial_name == NULL || !g_path_is_absolute (initial_name))
    return NULL;
  dir = g_path_get_dirname (initial_name);
  if (!g_file_test (dir, G_FILE_TEST_IS_DIR))
    return NULL;
  return g_file_new_for_path (dir);
}

static GListStore *
create_filters (TsFileChooserMode mode)
{
  GListStore *filters = g_list_store_new (GTK_TYPE_FILE_FILTER);
  g_autoptr(GtkFileFilter) main_filter = gtk_file_filter_new ();
  g_autoptr(GtkFileFilter) all = gtk_file_filter_new ();

  if (mode == TS_FILE_CHOOSER_OPEN_FILE)
    {
      gtk_file_filter_set_name (main_filter, _("Model Files"));
      gtk_file_filter_add_suffix (main_filter, "gguf");
      gtk_file_filter_add_suffix (main_filter, "safetensors");
      gtk_file_filter_add_pattern (main_filter, "*.index.json");
    }
  else if (mode == TS_FILE_CHOOSER_SAVE_GGUF || mode == TS_FILE_CHOOSER_OPEN_GGUF)
    {
      gtk_file_filter_set_name (main_filter, _("GGUF Files"));
      gtk_file_filter_add_suffix (main_filter, "gguf");
    }
  else if (mode == TS_FILE_CHOOSER_SAVE_REPORT)
    {
      gtk_file_filter_set_name (main_filter, _("Reports (HTML, JSON)"));
      gtk_file_filter_add_suffix (main_filter, "html");
      gtk_file_filter_add_suffix (main_filter, "json");
    }
  else
    {
      gtk_file_filter_set_name (main_filter, _("Diagrams (SVG, PDF, PNG)"));
      gtk_file_filter_add_suffix (main_filter, "svg");
      gtk_file_filter_add_suffix (main_filter, "pdf");
      gtk_file_filter_add_suffix (main_filter, "png");
    }
  gtk_file_filter_set_name (all, _("All Files"));
  gtk_file_filter_add_pattern (all, "*");

  g_list_store_append (filters, main_filter);
  g_list_store_append (filters, all);
  return filters;
}

#if GTK_CHECK_VERSION (4, 10, 0)

/* GtkFileDialog and GtkFileLauncher are newer than GDK_VERSION_MAX_ALLOWED
 * (4.8): this branch is the guarded use the version macros are there to
 * force. build-aux/check-newer-headers raises the version macros to its
 * headers' own and defines TS_NEWER_HEADERS_CHECK, so that a real
 * deprecation in this branch still shows there. */
#ifndef TS_NEWER_HEADERS_CHECK
G_GNUC_BEGIN_IGNORE_DEPRECATIONS
#endif

/* a dismissed dialog (file or application chooser) is a cancellation;
 * takes @error */
static void
return_dialog_error (GTask  *task,
                     GError *error)
{
  if (g_error_matches (error, GTK_DIALOG_ERROR, GTK_DIALOG_ERROR_DISMISSED) ||
      g_error_matches (error, GTK_DIALOG_ERROR, GTK_DIALOG_ERROR_CANCELLED))
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED, "%s", error->message);
      g_error_free (error);
    }
  else
    g_task_return_error (task, error);
}

static void
dialog_done (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  TsFileChooserMode mode = GPOINTER_TO_UINT (g_task_get_task_data (task));
  GError *error = NULL;
  GFile *file;

  if (mode == TS_FILE_CHOOSER_OPEN_FILE || mode == TS_FILE_CHOOSER_OPEN_GGUF)
    file = gtk_file_dialog_open_finish (GTK_FILE_DIALOG (object), result, &error);
  else if (mode == TS_FILE_CHOOSER_OPEN_FOLDER)
    file = gtk_file_dialog_select_folder_finish (GTK_FILE_DIALOG (object), result, &error);
  else
    file = gtk_file_dialog_save_finish (GTK_FILE_DIALOG (object), result, &error);

  if (file != NULL)
    g_task_return_pointer (task, file, g_object_unref);
  else
    return_dialog_error (task, error);
}

void
ts_file_chooser_run_async (GtkWindow           *parent,
                           TsFileChooserMode    mode,
                           const char          *initial_name,
                           GCancellable        *cancellable,
                           GAsyncReadyCallback  callback,
                           gpointer             user_data)
{
  g_autoptr(GtkFileDialog) dialog = gtk_file_dialog_new ();
  g_autoptr(GListStore) filters = NULL;
  GTask *task = g_task_new (NULL, cancellable, callback, user_data);

  g_task_set_source_tag (task, ts_file_chooser_run_async);
  g_task_set_task_data (task, GUINT_TO_POINTER (mode), NULL);
  gtk_file_dialog_set_title (dialog, title_for_mode (mode));
  gtk_file_dialog_set_modal (dialog, TRUE);

  if (mode != TS_FILE_CHOOSER_OPEN_FOLDER)
    {
      filters = create_filters (mode);
      gtk_file_dialog_set_filters (dialog, G_LIST_MODEL (filters));
    }

  if (mode == TS_FILE_CHOOSER_OPEN_FILE || mode == TS_FILE_CHOOSER_OPEN_GGUF)
    gtk_file_dialog_open (dialog, parent, cancellable, dialog_done, task);
  else if (mode == TS_FILE_CHOOSER_OPEN_FOLDER)
    gtk_file_dialog_select_folder (dialog, parent, cancellable, dialog_done, task);
  else
    {
      g_autoptr(GFile) folder = initial_folder (initial_name);
      g_autofree char *name = initial_name ? g_filename_display_basename (initial_name) : NULL;

      if (folder != NULL)
        gtk_file_dialog_set_initial_folder (dialog, folder);
      gtk_file_dialog_set_initial_name (dialog, name);
      gtk_file_dialog_save (dialog, parent, cancellable, dialog_done, task);
    }
}

static void
launcher_done (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GError *error = NULL;

  if (gtk_file_launcher_launch_finish (GTK_FILE_LAUNCHER (object), result, &error))
    g_task_return_boolean (task, TRUE);
  else
    return_dialog_error (task, error);
}

static void
start_launch (GtkWindow    *parent,
              GFile        *file,
              GCancellable *cancellable,
              GTask        *task)
{
  g_autoptr(GtkFileLauncher) launcher = gtk_file_launcher_new (file);

  gtk_file_launcher_launch (launcher, parent, cancellable, launcher_done, task);
}

#ifndef TS_NEWER_HEADERS_CHECK
G_GNUC_END_IGNORE_DEPRECATIONS
#endif

#else /* GTK 4.8 */

static void
show_uri_done (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GError *error = NULL;

  if (gtk_show_uri_full_finish (GTK_WINDOW (object), result, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

static void
start_launch (GtkWindow    *parent,
              GFile        *file,
              GCancellable *cancellable,
              GTask        *task)
{
  g_autofree char *uri = g_file_get_uri (file);

  gtk_show_uri_full (parent, uri, GDK_CURRENT_TIME, cancellable, show_uri_done, task);
}

static const char *
accept_label (TsFileChooserMode mode)
{
  switch (mode)
    {
    case TS_FILE_CHOOSER_SAVE_LAYOUT:
    case TS_FILE_CHOOSER_SAVE_REPORT: return _("_Export");
    case TS_FILE_CHOOSER_SAVE_GGUF:   return _("_Select");
    case TS_FILE_CHOOSER_OPEN_FILE:
    case TS_FILE_CHOOSER_OPEN_FOLDER:
    case TS_FILE_CHOOSER_OPEN_GGUF:
    default:                          return _("_Open");
    }
}

static void
native_response (GtkNativeDialog *native,
                 int              response,
                 gpointer         user_data)
{
  g_autoptr(GTask) task = user_data;

  if (response == GTK_RESPONSE_ACCEPT)
    g_task_return_pointer (task, gtk_file_chooser_get_file (GTK_FILE_CHOOSER (native)),
                           g_object_unref);
  else
    g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED,
                             "%s", _("The file chooser was dismissed"));

  gtk_native_dialog_destroy (native);
  g_object_unref (native);
}

void
ts_file_chooser_run_async (GtkWindow           *parent,
                           TsFileChooserMode    mode,
                           const char          *initial_name,
                           GCancellable        *cancellable,
                           GAsyncReadyCallback  callback,
                           gpointer             user_data)
{
  static const GtkFileChooserAction actions[] = {
    GTK_FILE_CHOOSER_ACTION_OPEN,
    GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER,
    GTK_FILE_CHOOSER_ACTION_SAVE,
    GTK_FILE_CHOOSER_ACTION_SAVE,
    GTK_FILE_CHOOSER_ACTION_SAVE,
    GTK_FILE_CHOOSER_ACTION_OPEN,
  };
  GtkFileChooserNative *native;
  GTask *task;

  g_return_if_fail (!parent || GTK_IS_WINDOW (parent));

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, ts_file_chooser_run_async);

  native = gtk_file_chooser_native_new (title_for_mode (mode), parent, actions[mode],
                                        accept_label (mode), _("_Cancel"));
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (native), TRUE);

  if (mode != TS_FILE_CHOOSER_OPEN_FOLDER)
    {
      g_autoptr(GListStore) filters = create_filters (mode);

      for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (filters)); i++)
        {
          g_autoptr(GtkFileFilter) filter = g_list_model_get_item (G_LIST_MODEL (filters), i);
          gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (native), filter);
        }
    }

  if (actions[mode] == GTK_FILE_CHOOSER_ACTION_SAVE && initial_name != NULL)
    {
      g_autoptr(GFile) folder = initial_folder (initial_name);
      g_autofree char *name = g_filename_display_basename (initial_name);

      if (folder != NULL)
        gtk_file_chooser_set_current_folder (GTK_FILE_CHOOSER (native), folder, NULL);
      gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (native), name);
    }

  g_signal_connect (native, "response", G_CALLBACK (native_response), task);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (native));
}

#endif

GFile *
ts_file_chooser_run_finish (GAsyncResult  *result,
                            GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

void
ts_file_launch_async (GtkWindow           *parent,
                      GFile               *file,
                      GCancellable        *cancellable,
                      GAsyncReadyCallback  callback,
                      gpointer             user_data)
{
  GTask *task;

  g_return_if_fail (GTK_IS_WINDOW (parent));
  g_return_if_fail (G_IS_FILE (file));

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, ts_file_launch_async);
  start_launch (parent, file, cancellable, task);
}

gboolean
ts_file_launch_finish (GAsyncResult  *result,
                       GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

/* ------------------------------------------------------------------------ */
/* One shard in the sandbox                                                  */

/* Splits "model-00002-of-00004.safetensors" into the text before the part
 * number, the number's width, the part and the total. */
static gboolean
parse_shard_name (const char *name,
                  char      **prefix,
                  int        *width,
                  guint64    *part,
                  guint64    *total)
{
  const char *of = g_strrstr (name, "-of-");
  const char *digits;
  char *end = NULL;

  g_assert (name != NULL);

  if (of == NULL || !g_str_has_suffix (name, ".safetensors"))
    return FALSE;
  *total = g_ascii_strtoull (of + 4, &end, 10);
  if (end == of + 4 || !g_str_equal (end, ".safetensors"))
    return FALSE;
  for (digits = of; digits > name && g_ascii_isdigit (digits[-1]); digits--)
    ;
  if (digits == of || digits == name || digits[-1] != '-')
    return FALSE;
  *part = g_ascii_strtoull (digits, NULL, 10);
  *width = (int) (of - digits);
  *prefix = g_strndup (name, digits - name);
  return *total >= 2 && *part >= 1 && *part <= *total;
}

gboolean
ts_file_chooser_is_lone_shard (GFile *file)
{
  g_autofree char *name = NULL;
  g_autofree char *prefix = NULL;
  g_autofree char *other_name = NULL;
  g_autoptr(GFile) dir = NULL;
  g_autoptr(GFile) index = NULL;
  g_autoptr(GFile) other = NULL;
  guint64 part, total;
  int width;

  g_return_val_if_fail (G_IS_FILE (file), FALSE);

  name = g_file_get_basename (file);
  dir = g_file_get_parent (file);
  if (name == NULL || dir == NULL || !parse_shard_name (name, &prefix, &width, &part, &total))
    return FALSE;

  index = g_file_get_child (dir, "model.safetensors.index.json");
  if (g_file_query_exists (index, NULL))
    return FALSE;

  /* any one other shard of the set tells the folder is really there */
  other_name = g_strdup_printf ("%s%0*" G_GUINT64_FORMAT "-of-%s", prefix, width,
                                part == 1 ? (guint64) 2 : (guint64) 1,
                                g_strrstr (name, "-of-") + 4);
  other = g_file_get_child (dir, other_name);
  return !g_file_query_exists (other, NULL);
}

gboolean
ts_file_chooser_should_ask_for_folder (GFile *file)
{
  g_return_val_if_fail (G_IS_FILE (file), FALSE);

  /* The document portal exports only the file the user chose: the other
   * shards and the index next to it are out of reach. Outside a sandbox a
   * lone shard is an incomplete download, and opening it alone is right. */
  if (!g_file_test ("/.flatpak-info", G_FILE_TEST_EXISTS) &&
      g_getenv ("TS_FORCE_SANDBOX") == NULL)
    return FALSE;

  return ts_file_chooser_is_lone_shard (file);
}
