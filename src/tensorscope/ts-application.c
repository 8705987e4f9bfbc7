/* ts-application.c
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <glib-unix.h>
#include <signal.h>

#include "ts-application.h"
#include "ts-audit-window.h"
#include "ts-convert-wizard.h"
#include "ts-resources.h"
#include "ts-window.h"

#define MAX_RECENT 10

struct _TsApplication
{
  GtkApplication  parent_instance;

  GSettings      *settings;
  GMenu          *recent_menu;
  guint           stop_signal_ids[3];
};

G_DEFINE_FINAL_TYPE (TsApplication, ts_application, GTK_TYPE_APPLICATION)

void
ts_ensure_resources (void)
{
  static gsize initialized;

  if (g_once_init_enter (&initialized))
    {
      ts_register_resource ();
      g_once_init_leave (&initialized, 1);
    }
}

TsApplication *
ts_application_new (void)
{
  return g_object_new (TS_TYPE_APPLICATION,
                       "application-id", APP_ID,
                       "flags", G_APPLICATION_HANDLES_OPEN,
                       "resource-base-path", RESOURCE_PREFIX,
                       NULL);
}

GSettings *
ts_application_get_settings (TsApplication *self)
{
  g_return_val_if_fail (TS_IS_APPLICATION (self), NULL);

  if (self->settings == NULL)
    self->settings = g_settings_new ("io.github.tensorscope.Tensorscope");

  return self->settings;
}

/* An empty window (no model, not loading) is reused for the next file. */
static TsWindow *
find_empty_window (TsApplication *self)
{
  for (GList *l = gtk_application_get_windows (GTK_APPLICATION (self)); l; l = l->next)
    {
      if (TS_IS_WINDOW (l->data) && ts_window_is_empty (l->data))
        return l->data;
    }

  return NULL;
}

/* a window that shows @file already */
static TsWindow *
find_window_showing (TsApplication *self,
                     GFile         *file)
{
  for (GList *l = gtk_application_get_windows (GTK_APPLICATION (self)); l; l = l->next)
    {
      TsModelFile *model = TS_IS_WINDOW (l->data) ? ts_window_get_model (l->data) : NULL;

      if (model != NULL && g_file_equal (ts_model_file_get_file (model), file))
        return l->data;
    }

  return NULL;
}

/* Opens @file in the window that shows it already (read again: it may
 * have changed, as after a conversion onto it), else in an empty window,
 * else in a new one. */
void
ts_application_open_file (TsApplication *self,
                          GFile         *file)
{
  TsWindow *window;

  g_return_if_fail (TS_IS_APPLICATION (self));
  g_return_if_fail (G_IS_FILE (file));

  if (!(window = find_window_showing (self, file)) && !(window = find_empty_window (self)))
    window = ts_window_new (self);

  ts_window_open (window, file);
  gtk_window_present (GTK_WINDOW (window));
}

static void
ts_application_activate (GApplication *app)
{
  TsApplication *self = TS_APPLICATION (app);
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (self));

  if (window == NULL)
    window = GTK_WINDOW (ts_window_new (self));

  gtk_window_present (window);
}

static void
ts_application_open (GApplication  *app,
                     GFile        **files,
                     int            n_files,
                     const char    *hint)
{
  for (int i = 0; i < n_files; i++)
    ts_application_open_file (TS_APPLICATION (app), files[i]);
}

/* The Open Recent submenu: model files this app opened, newest first. */
static int
compare_recent (gconstpointer a,
                gconstpointer b)
{
  GDateTime *ma = gtk_recent_info_get_modified ((GtkRecentInfo *) a);
  GDateTime *mb = gtk_recent_info_get_modified ((GtkRecentInfo *) b);

  return -g_date_time_compare (ma, mb);
}

static void
update_recent_menu (TsApplication    *self,
                    GtkRecentManager *manager)
{
  GList *items = gtk_recent_manager_get_items (manager);
  const char *app_name = g_get_application_name ();
  g_autoptr(GPtrArray) shown = g_ptr_array_new ();
  g_autoptr(GHashTable) names = g_hash_table_new (g_str_hash, g_str_equal);

  g_menu_remove_all (self->recent_menu);
  items = g_list_sort (items, compare_recent);

  /* the newest ones of this app whose files are still there */
  for (GList *l = items; l != NULL && shown->len < MAX_RECENT; l = l->next)
    {
      GtkRecentInfo *info = l->data;
      const char *name = gtk_recent_info_get_display_name (info);

      if (app_name == NULL || !gtk_recent_info_has_application (info, app_name) ||
          !gtk_recent_info_exists (info))
        continue;
      g_ptr_array_add (shown, info);
      g_hash_table_insert (names, (gpointer) name,
                           GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (names, name)) + 1));
    }

  for (guint i = 0; i < shown->len; i++)
    {
      GtkRecentInfo *info = g_ptr_array_index (shown, i);
      const char *name = gtk_recent_info_get_display_name (info);
      g_autoptr(GMenuItem) item = NULL;
      g_autofree char *label = NULL;

      /* two of the same name: say where each is */
      if (GPOINTER_TO_UINT (g_hash_table_lookup (names, name)) > 1)
        {
          g_autoptr(GFile) file = g_file_new_for_uri (gtk_recent_info_get_uri (info));
          g_autoptr(GFile) parent = g_file_get_parent (file);
          g_autofree char *where = parent ? g_file_get_parse_name (parent) : NULL;

          /* Translators: a recent file's name and its folder */
          label = where ? g_strdup_printf (_("%s — %s"), name, where) : g_strdup (name);
        }
      else
        label = g_strdup (name);
      item = g_menu_item_new (label, NULL);
      g_menu_item_set_action_and_target (item, "app.open-recent", "s",
                                         gtk_recent_info_get_uri (info));
      g_menu_append_item (self->recent_menu, item);
    }

  g_list_free_full (items, (GDestroyNotify) gtk_recent_info_unref);
}

GMenuModel *
ts_application_get_recent_menu (TsApplication *self)
{
  g_return_val_if_fail (TS_IS_APPLICATION (self), NULL);

  return G_MENU_MODEL (self->recent_menu);
}

static void
open_recent_action (GSimpleAction *action,
                    GVariant      *parameter,
                    gpointer       user_data)
{
  g_autoptr(GFile) file = g_file_new_for_uri (g_variant_get_string (parameter, NULL));

  ts_application_open_file (TS_APPLICATION (user_data), file);
}

static void
new_window_action (GSimpleAction *action,
                   GVariant      *parameter,
                   gpointer       user_data)
{
  gtk_window_present (GTK_WINDOW (ts_window_new (TS_APPLICATION (user_data))));
}

static void
quit_action (GSimpleAction *action,
             GVariant      *parameter,
             gpointer       user_data)
{
  GList *windows = g_list_copy (gtk_application_get_windows (GTK_APPLICATION (user_data)));

  /* Closing saves each window's state; destroying would skip that. */
  for (GList *l = windows; l != NULL; l = l->next)
    gtk_window_close (l->data);

  g_list_free (windows);
}

static void
about_action (GSimpleAction *action,
              GVariant      *parameter,
              gpointer       user_data)
{
  static const char *authors[] = { "The Tensorscope authors", NULL };
  GtkWindow *parent = gtk_application_get_active_window (GTK_APPLICATION (user_data));

  gtk_show_about_dialog (parent,
                         "program-name", _("Tensorscope"),
                         "logo-icon-name", APP_ID,
                         "version", PACKAGE_VERSION,
                         "comments", _("Inspect, convert and audit Safetensors and GGUF model files"),
                         "authors", authors,
                         "copyright", "© 2026 The Tensorscope authors",
                         "license-type", GTK_LICENSE_GPL_3_0,
                         NULL);
}

/* The model of the window the action came from, if it shows one: its
 * checkpoint folder (one with a config.json, for a Safetensors model) or
 * its GGUF file, so that the wizard and the audit start from it. */
static TsModelFile *
active_model (GtkApplication *app)
{
  GtkWindow *window = gtk_application_get_active_window (app);

  return TS_IS_WINDOW (window) ? ts_window_get_model (TS_WINDOW (window)) : NULL;
}

static GFile *
checkpoint_folder (TsModelFile *model)
{
  GFile *file;
  g_autoptr(GFile) dir = NULL;
  g_autoptr(GFile) config = NULL;

  if (model == NULL || ts_model_file_get_format (model) != TS_FORMAT_SAFETENSORS)
    return NULL;
  file = ts_model_file_get_file (model);
  dir = g_file_query_file_type (file, G_FILE_QUERY_INFO_NONE, NULL) == G_FILE_TYPE_DIRECTORY
        ? g_object_ref (file) : g_file_get_parent (file);
  if (dir == NULL)
    return NULL;
  config = g_file_get_child (dir, "config.json");
  return g_file_query_exists (config, NULL) ? g_steal_pointer (&dir) : NULL;
}

static void
convert_action (GSimpleAction *action,
                GVariant      *parameter,
                gpointer       user_data)
{
  /* asked before the new window becomes the active one */
  g_autoptr(GFile) folder = checkpoint_folder (active_model (GTK_APPLICATION (user_data)));
  TsConvertWizard *wizard = ts_convert_wizard_new (GTK_APPLICATION (user_data));

  if (folder != NULL)
    ts_convert_wizard_set_source (wizard, folder);
  gtk_window_present (GTK_WINDOW (wizard));
}

static void
audit_action (GSimpleAction *action,
              GVariant      *parameter,
              gpointer       user_data)
{
  TsModelFile *model = active_model (GTK_APPLICATION (user_data));
  g_autoptr(GFile) folder = checkpoint_folder (model);
  TsAuditWindow *window = ts_audit_window_new (GTK_APPLICATION (user_data));

  if (model != NULL && ts_model_file_get_format (model) == TS_FORMAT_GGUF)
    ts_audit_window_set_files (window, NULL, ts_model_file_get_file (model));
  else if (folder != NULL)
    ts_audit_window_set_files (window, folder, NULL);
  gtk_window_present (GTK_WINDOW (window));
}

static const GActionEntry app_actions[] = {
  { .name = "open-recent", .activate = open_recent_action, .parameter_type = "s" },
  { .name = "new-window", .activate = new_window_action },
  { .name = "quit", .activate = quit_action },
  { .name = "about", .activate = about_action },
  { .name = "convert", .activate = convert_action },
  { .name = "audit", .activate = audit_action },
};

static void
load_css (void)
{
  g_autoptr(GtkCssProvider) provider = gtk_css_provider_new ();
  GdkDisplay *display = gdk_display_get_default ();

  if (display == NULL)
    return;

  gtk_css_provider_load_from_resource (provider, RESOURCE_PREFIX "/style.css");
  gtk_style_context_add_provider_for_display (display, GTK_STYLE_PROVIDER (provider),
                                              GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
}

/* SIGTERM (a logout, systemctl stop), SIGINT (Ctrl+C in a terminal) or
 * SIGHUP (a closed terminal) does what Ctrl+Q does: every window closes,
 * which cancels its conversion or audit, and the application exits once
 * the converter has removed its temporary file (a wizard holds it until
 * then). Killed by the signal's default action instead, it would leave
 * the hidden .part file, full size, in the target's folder. GLib calls
 * this from the main loop, not from the signal handler. */
static gboolean
on_stop_signal (gpointer user_data)
{
  TsApplication *self = user_data;

  /* once: the watches go, and GLib gives the signals their default action
   * back, so that a second one ends an application that does not quit */
  for (guint i = 0; i < G_N_ELEMENTS (self->stop_signal_ids); i++)
    g_clear_handle_id (&self->stop_signal_ids[i], g_source_remove);
  g_action_group_activate_action (G_ACTION_GROUP (self), "quit", NULL);
  return G_SOURCE_REMOVE;
}

static void
watch_stop_signals (TsApplication *self)
{
  static const int signals[] = { SIGTERM, SIGINT, SIGHUP };

  G_STATIC_ASSERT (G_N_ELEMENTS (signals) == G_N_ELEMENTS (self->stop_signal_ids));
  for (guint i = 0; i < G_N_ELEMENTS (signals); i++)
    {
      struct sigaction action;

      /* a signal the app was started to ignore (nohup) stays ignored */
      if (sigaction (signals[i], NULL, &action) == 0 && action.sa_handler == SIG_IGN)
        continue;
      self->stop_signal_ids[i] = g_unix_signal_add (signals[i], on_stop_signal, self);
    }
}

static void
ts_application_startup (GApplication *app)
{
  TsApplication *self = TS_APPLICATION (app);
  GtkRecentManager *manager;
  static const char *quit_accels[] = { "<Control>q", NULL };
  static const char *new_window_accels[] = { "<Control>n", NULL };
  static const char *convert_accels[] = { "<Control><Shift>c", NULL };
  static const char *audit_accels[] = { "<Control><Shift>a", NULL };
  /* the window's own actions: set here, the menus show them */
  static const struct { const char *action; const char *accels[2]; } window_accels[] = {
    { "win.open", { "<Control>o", NULL } },
    { "win.open-folder", { "<Control><Shift>o", NULL } },
    { "win.export", { "<Control>e", NULL } },
  };

  ts_ensure_resources ();
  G_APPLICATION_CLASS (ts_application_parent_class)->startup (app);

  g_set_application_name (_("Tensorscope"));
  gtk_window_set_default_icon_name (APP_ID);
  load_css ();

  g_action_map_add_action_entries (G_ACTION_MAP (self), app_actions,
                                   G_N_ELEMENTS (app_actions), self);
  gtk_application_set_accels_for_action (GTK_APPLICATION (self), "app.quit", quit_accels);
  gtk_application_set_accels_for_action (GTK_APPLICATION (self), "app.new-window",
                                         new_window_accels);
  gtk_application_set_accels_for_action (GTK_APPLICATION (self), "app.convert", convert_accels);
  gtk_application_set_accels_for_action (GTK_APPLICATION (self), "app.audit", audit_accels);
  for (guint i = 0; i < G_N_ELEMENTS (window_accels); i++)
    gtk_application_set_accels_for_action (GTK_APPLICATION (self), window_accels[i].action,
                                           window_accels[i].accels);

  manager = gtk_recent_manager_get_default ();
  g_signal_connect_object (manager, "changed", G_CALLBACK (update_recent_menu), self,
                           G_CONNECT_SWAPPED);
  update_recent_menu (self, manager);
  watch_stop_signals (self);
}

static void
ts_application_dispose (GObject *object)
{
  TsApplication *self = (TsApplication *) object;

  for (guint i = 0; i < G_N_ELEMENTS (self->stop_signal_ids); i++)
    g_clear_handle_id (&self->stop_signal_ids[i], g_source_remove);
  g_clear_object (&self->settings);
  g_clear_object (&self->recent_menu);

  G_OBJECT_CLASS (ts_application_parent_class)->dispose (object);
}

static void
ts_application_class_init (TsApplicationClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GApplicationClass *app_class = G_APPLICATION_CLASS (klass);

  object_class->dispose = ts_application_dispose;
  app_class->startup = ts_application_startup;
  app_class->activate = ts_application_activate;
  app_class->open = ts_application_open;
}

static void
ts_application_init (TsApplication *self)
{
  self->recent_menu = g_menu_new ();
}
