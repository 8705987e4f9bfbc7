/* test-french.c: the app in French (po/fr.po, as built): on every page
 * of every window and in every menu, each Alt+letter names one thing,
 * and the strings on screen are the translated ones
 *
 * Run with LANGUAGE=fr and TS_TEST_LOCALEDIR set to the build's po/ tree
 * (meson does so); LC_ALL=C.UTF-8 is enough for gettext to translate.
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "ts-test-dir.h"
#include "ts-ui-test.h"

#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <gtk/gtk.h>
#include <locale.h>

#include "ts-application.h"
#include "ts-audit-window.h"
#include "ts-convert-wizard.h"
#include "ts-export-dialog.h"
#include "ts-window-private.h"

static TsApplication *app;
static char *fixture_dir;
static char *sample_dir;

static gboolean
wizard_idle (gpointer data)
{
  return !ts_convert_wizard_get_busy (data);
}

/* mapped, drawn, and then its mnemonics each name one widget */
static void
assert_page (GtkWidget  *widget,
             const char *screenshot)
{
  ts_test_save_screenshot (widget, screenshot, 300);
  ts_test_assert_mnemonics_unique (widget);
}

/* the translation is there: a test in English would prove nothing */
static void
test_translated (void)
{
  g_assert_cmpstr (_("_Next"), ==, "_Suivant");
  g_assert_cmpstr (g_dgettext (GETTEXT_PACKAGE, "Open _File…"), !=, "Open _File…");
}

static void
test_main_window (void)
{
  g_autofree char *bad = g_build_filename (fixture_dir, "pas-un-modele.gguf", NULL);
  g_autoptr(GFile) bad_file = g_file_new_for_path (bad);
  g_autoptr(GFile) sample = g_file_new_for_path (sample_dir);
  g_autoptr(GError) error = NULL;
  TsWindow *window = ts_window_new (app);
  TsExportDialog *dialog;

  g_assert_true (g_file_set_contents (bad, "GGUF", 4, &error));
  g_assert_no_error (error);
  gtk_window_present (GTK_WINDOW (window));
  ts_test_wait_for_page (window, "empty");
  assert_page (GTK_WIDGET (window), "fr-window-empty.png");
  g_assert_nonnull (ts_test_find_label (GTK_WIDGET (window), "Ouvrir"));
  ts_test_assert_menu_mnemonics_unique (GTK_WIDGET (window));

  ts_window_open (window, bad_file);
  ts_test_wait_for_page (window, "error");
  assert_page (GTK_WIDGET (window), "fr-window-error.png");

  ts_window_open (window, sample);
  ts_test_wait_for_page (window, "model");
  assert_page (GTK_WIDGET (window), "fr-window-model.png");
  ts_test_assert_menu_mnemonics_unique (GTK_WIDGET (window));

  dialog = ts_export_dialog_new (GTK_WINDOW (window),
                                 ts_layout_view_get_layout (ts_window_get_layout_view (window)), NULL);
  gtk_window_present (GTK_WINDOW (dialog));
  assert_page (GTK_WIDGET (dialog), "fr-export.png");
  gtk_window_destroy (GTK_WINDOW (dialog));
  gtk_window_destroy (GTK_WINDOW (window));
}

/* the source check's details start at one x, whatever the length of a
 * translated title ("Échantillonnage par défaut" is longer than the
 * English one's room) */
static void
assert_findings_aligned (GtkWidget *wizard)
{
  GtkWidget *list = ts_test_find_descendant (wizard, GTK_TYPE_LIST_BOX);
  double x0 = -1;
  guint n = 0;

  g_assert_nonnull (list);
  for (GtkWidget *row = gtk_widget_get_first_child (list); row; row = gtk_widget_get_next_sibling (row))
    {
      GtkWidget *box = gtk_list_box_row_get_child (GTK_LIST_BOX_ROW (row));
      GtkWidget *title = gtk_widget_get_next_sibling (gtk_widget_get_first_child (box));
      GtkWidget *detail = gtk_widget_get_next_sibling (title);
      graphene_point_t p;

      g_assert_true (gtk_widget_compute_point (detail, wizard, &GRAPHENE_POINT_INIT (0, 0), &p));
      g_test_message ("%s: x %.0f", gtk_label_get_text (GTK_LABEL (title)), p.x);
      if (x0 < 0)
        x0 = p.x;
      g_assert_cmpfloat (p.x, ==, x0);
      n++;
    }
  g_assert_cmpuint (n, >=, 5);
}

static gboolean
on_page (TsConvertWizard *wizard,
         const char      *page)
{
  return g_strcmp0 (ts_convert_wizard_get_page (wizard), page) == 0;
}

static gboolean
converting (gpointer data)
{
  return on_page (data, "convert") && g_strcmp0 (ts_convert_wizard_get_convert_state (data), "running") == 0;
}

static gboolean
verified (gpointer data)
{
  return on_page (data, "verify") && g_strcmp0 (ts_convert_wizard_get_verify_state (data), "running") != 0 &&
         !ts_convert_wizard_get_busy (data);
}

static gboolean
audit_finished (gpointer data)
{
  return g_strcmp0 (ts_audit_window_get_page (data), "result") == 0 ||
         g_strcmp0 (ts_audit_window_get_page (data), "error") == 0;
}

/* each page of the wizard, a conversion running and done, then the
 * audit window on its result */
static void
test_wizard_and_audit (void)
{
  g_autofree char *target = g_build_filename (fixture_dir, "sortie.gguf", NULL);
  g_autoptr(GFile) folder = g_file_new_for_path (sample_dir);
  g_autoptr(GFile) target_file = g_file_new_for_path (target);
  TsConvertWizard *wizard = ts_convert_wizard_new (GTK_APPLICATION (app));
  TsAuditWindow *audit;
  GtkWidget *split;

  gtk_window_present (GTK_WINDOW (wizard));
  assert_page (GTK_WIDGET (wizard), "fr-wizard-start.png");
  ts_convert_wizard_set_source (wizard, folder);
  ts_test_wait_until (wizard_idle, wizard, 30, "the source scan");
  assert_page (GTK_WIDGET (wizard), "fr-wizard-source.png");
  assert_findings_aligned (GTK_WIDGET (wizard));

  ts_convert_wizard_go_next (wizard);
  ts_test_wait_until (wizard_idle, wizard, 30, "the options page");
  ts_convert_wizard_set_target_text (wizard, target);
  /* the split size's controls shown too */
  split = ts_test_find_button (GTK_WIDGET (wizard), g_dgettext (GETTEXT_PACKAGE, "S_plit into files of at most"));
  g_assert_nonnull (split);
  gtk_check_button_set_active (GTK_CHECK_BUTTON (split), TRUE);
  assert_page (GTK_WIDGET (wizard), "fr-wizard-options.png");
  gtk_check_button_set_active (GTK_CHECK_BUTTON (split), FALSE);

  ts_convert_wizard_go_next (wizard);
  ts_test_wait_until (wizard_idle, wizard, 30, "the plan");
  g_assert_true (on_page (wizard, "preview"));
  assert_page (GTK_WIDGET (wizard), "fr-wizard-preview.png");

  /* slowed down (64 KiB blocks, 0.1 s each: seconds), to be seen running */
  g_setenv ("TENSORSCOPE_TEST_BLOCK_BYTES", "65536", TRUE);
  g_setenv ("TENSORSCOPE_TEST_BLOCK_DELAY_US", "100000", TRUE);
  ts_convert_wizard_go_next (wizard);
  ts_test_wait_until (converting, wizard, 30, "the conversion");
  assert_page (GTK_WIDGET (wizard), "fr-wizard-converting.png");
  g_assert_true (converting (wizard));
  g_unsetenv ("TENSORSCOPE_TEST_BLOCK_DELAY_US");
  g_unsetenv ("TENSORSCOPE_TEST_BLOCK_BYTES");
  ts_test_wait_until (verified, wizard, 120, "the conversion and its audit");
  g_assert_cmpstr (ts_convert_wizard_get_convert_state (wizard), ==, "done");
  assert_page (GTK_WIDGET (wizard), "fr-wizard-verify.png");
  gtk_window_destroy (GTK_WINDOW (wizard));

  audit = ts_audit_window_new (GTK_APPLICATION (app));
  gtk_window_present (GTK_WINDOW (audit));
  assert_page (GTK_WIDGET (audit), "fr-audit-choose.png");
  ts_audit_window_set_files (audit, folder, target_file);
  ts_audit_window_start (audit);
  ts_test_wait_until (audit_finished, audit, 60, "the audit");
  g_assert_cmpstr (ts_audit_window_get_page (audit), ==, "result");
  assert_page (GTK_WIDGET (audit), "fr-audit-result.png");
  ts_test_assert_menu_mnemonics_unique (GTK_WIDGET (audit));
  gtk_window_destroy (GTK_WINDOW (audit));
}

int
main (int   argc,
      char *argv[])
{
  const char *localedir = g_getenv ("TS_TEST_LOCALEDIR");
  g_autoptr(GFile) folder = NULL;
  g_autoptr(GError) error = NULL;
  TsSampleOptions options;
  int ret;

  g_assert_nonnull (localedir);
  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, localedir);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);
  ts_test_ui_init (&argc, &argv);

  fixture_dir = g_dir_make_tmp (NULL, &error);
  g_assert_no_error (error);
  sample_dir = g_build_filename (fixture_dir, "tiny-llama", NULL);
  folder = g_file_new_for_path (sample_dir);
  ts_sample_options_init (&options);
  g_assert_true (ts_sample_write (folder, &options, NULL, &error));
  g_assert_no_error (error);

  app = ts_application_new ();
  g_application_set_flags (G_APPLICATION (app), G_APPLICATION_HANDLES_OPEN | G_APPLICATION_NON_UNIQUE);
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, &error));
  g_assert_no_error (error);

  g_test_add_func ("/french/translated", test_translated);
  g_test_add_func ("/french/main-window", test_main_window);
  g_test_add_func ("/french/wizard-and-audit", test_wizard_and_audit);

  ret = g_test_run ();

  g_object_unref (app);
  ts_test_remove_tree (fixture_dir);
  g_free (sample_dir);
  g_free (fixture_dir);
  return ret;
}
