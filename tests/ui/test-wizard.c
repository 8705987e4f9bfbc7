/* test-wizard.c: the conversion wizard and the audit pane, end to end,
 * under a virtual display
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <signal.h>
#include <sys/resource.h>

#include "ts-test-dir.h"
#include "ts-ui-test.h"

#include <glib/gstdio.h>
#include <math.h>
#include <gtk/gtk.h>
#include <string.h>

#include "ts-application.h"
#include "ts-gguf-writer.h"
#include "ts-audit-window.h"
#include "ts-convert-wizard.h"
#include "ts-format.h"
#include "ts-layout-view.h"
#include "ts-window.h"

static TsApplication *app;
static char *fixture_dir;
static char *sample_dir;
static char *converted_path;

/* ------------------------------------------------------------------------ */
/* Helpers                                                                   */

static gboolean wizard_idle (gpointer data) { return !ts_convert_wizard_get_busy (data); }

static void
render_png (GtkWidget  *widget,
            const char *name)
{
  ts_test_save_screenshot (widget, name, 0);
}

/* Renders @widget as it is on screen into <screenshot dir>/@name, after
 * transitions finish. */
static void
save_screenshot (GtkWidget  *widget,
                 const char *name)
{
  ts_test_save_screenshot (widget, name, 400);
}

static const char * const convert_keys[] = {
  "convert-outtype", "convert-split", "convert-split-size", "convert-split-unit",
};

/* the options a first conversion is offered */
static void
reset_convert_options (void)
{
  g_autoptr(GSettings) settings = g_settings_new ("io.github.tensorscope.Tensorscope");

  for (guint i = 0; i < G_N_ELEMENTS (convert_keys); i++)
    g_settings_reset (settings, convert_keys[i]);
}

/* a wizard on @dir, offering the options the last conversion left */
static TsConvertWizard *
open_wizard_as_left (const char *dir)
{
  g_autoptr(GFile) folder = g_file_new_for_path (dir);
  TsConvertWizard *wizard = ts_convert_wizard_new (GTK_APPLICATION (app));

  gtk_window_present (GTK_WINDOW (wizard));
  g_assert_cmpstr (ts_convert_wizard_get_page (wizard), ==, "source");
  g_assert_false (ts_convert_wizard_can_go_next (wizard));
  ts_convert_wizard_set_source (wizard, folder);
  ts_test_wait_until (wizard_idle, wizard, 30, "the source scan");
  return wizard;
}

/* a wizard on @dir, as for a first conversion */
static TsConvertWizard *
open_wizard (const char *dir)
{
  reset_convert_options ();
  return open_wizard_as_left (dir);
}

/* every table and list of @widget lets one Tab leave it (GTK 4.8's went
 * from row to row); those shown are tried */
static void
assert_lists_leave_on_tab (GtkWidget *widget)
{
  /* a drop-down's list is in its popover, which Escape or a choice closes */
  if (GTK_IS_DROP_DOWN (widget))
    return;
  if (GTK_IS_COLUMN_VIEW (widget) || GTK_IS_LIST_VIEW (widget))
    {
      g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (widget);
      gboolean found = FALSE;

      for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
        {
          g_autoptr(GtkEventController) c = g_list_model_get_item (controllers, i);

          found |= g_strcmp0 (gtk_event_controller_get_name (c), "leave-on-tab") == 0;
        }
      g_assert_true (found);
      if (gtk_widget_is_drawable (widget))
        ts_test_assert_tab_leaves (widget);
      return;
    }
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c; c = gtk_widget_get_next_sibling (c))
    assert_lists_leave_on_tab (c);
}

/* the focus is on a button shown, labelled @label (or on any widget
 * shown, for NULL) */
static void
assert_focus_on_button (TsConvertWizard *wizard,
                        const char      *label)
{
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (wizard));

  g_assert_nonnull (focus);
  g_assert_true (gtk_widget_is_drawable (focus));
  if (label == NULL)
    return;
  g_assert_true (GTK_IS_BUTTON (focus));
  g_assert_cmpstr (gtk_button_get_label (GTK_BUTTON (focus)), ==, label);
}

/* the first label on screen under @widget whose text holds @text */
static GtkWidget *
find_mapped_label (GtkWidget  *widget,
                   const char *text)
{
  if (!gtk_widget_get_mapped (widget))
    return NULL;
  if (GTK_IS_LABEL (widget) && strstr (gtk_label_get_text (GTK_LABEL (widget)), text) != NULL)
    return widget;
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_mapped_label (c, text);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* @label's text (found under @widget by its @text) reads at 4.5:1 or
 * more (WCAG AA) against its ground, in the light style and in the dark
 * one: Adwaita's status colours in GTK 4.8 did not (its error red is
 * 2.3:1 on the dark ground, its success green 2:1 on the light one) */
static void
assert_readable_light_and_dark (GtkWidget  *widget,
                                const char *text)
{
  GtkSettings *settings = gtk_settings_get_default ();
  GtkWidget *label = find_mapped_label (widget, text);

  g_assert_nonnull (label);
  for (guint dark = 0; dark < 2; dark++)
    {
      double contrast;

      g_object_set (settings, "gtk-application-prefer-dark-theme", (gboolean) dark, NULL);
      ts_test_run_for (300);
      contrast = ts_test_text_contrast (label);
      g_test_message ("\"%s\" in the %s style: %.2f:1", text, dark ? "dark" : "light", contrast);
      g_assert_cmpfloat (contrast, >=, 4.5);
    }
  g_object_set (settings, "gtk-application-prefer-dark-theme", FALSE, NULL);
  ts_test_run_for (300);
}

static void
write_sample (const char            *dir,
              const TsSampleOptions *options)
{
  g_autoptr(GFile) folder = g_file_new_for_path (dir);
  g_autoptr(GError) error = NULL;

  g_assert_true (ts_sample_write (folder, options, NULL, &error));
  g_assert_no_error (error);
}

/* ------------------------------------------------------------------------ */
/* HTML well-formedness                                                      */

typedef struct
{
  guint n_svg;
  guint n_check_rows;
  guint n_pair_rows;
  guint depth;
} HtmlStats;

static void
html_start (GMarkupParseContext  *context,
            const char           *element,
            const char          **names,
            const char          **values,
            gpointer              user_data,
            GError              **error)
{
  HtmlStats *stats = user_data;

  stats->depth++;
  if (g_str_equal (element, "svg"))
    stats->n_svg++;
  if (g_str_equal (element, "tr"))
    for (guint i = 0; names[i] != NULL; i++)
      if (g_str_equal (names[i], "class"))
        {
          stats->n_check_rows += g_str_equal (values[i], "check");
          stats->n_pair_rows += g_str_equal (values[i], "pair");
        }
}

static void
html_end (GMarkupParseContext  *context,
          const char           *element,
          gpointer              user_data,
          GError              **error)
{
  ((HtmlStats *) user_data)->depth--;
}

static void
check_html (const char    *path,
            TsAuditReport *report)
{
  static const GMarkupParser parser = { html_start, html_end, NULL, NULL, NULL };
  g_autofree char *html = NULL;
  g_autoptr(GMarkupParseContext) context = NULL;
  g_autoptr(GError) error = NULL;
  HtmlStats stats = { 0 };
  GListModel *checks = ts_audit_report_get_checks (report);
  GListModel *pairs = ts_audit_report_get_pairs (report);
  const char *cursor;
  guint n_svg_text = 0;

  g_assert_true (g_file_get_contents (path, &html, NULL, NULL));
  g_assert_true (g_str_has_prefix (html, "<!DOCTYPE html>"));

  /* the whole page is well-formed XML: the two inline SVGs too */
  context = g_markup_parse_context_new (&parser, 0, &stats, NULL);
  g_markup_parse_context_parse (context, html, -1, &error);
  g_assert_no_error (error);
  g_markup_parse_context_end_parse (context, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (stats.depth, ==, 0);

  for (cursor = html; (cursor = strstr (cursor, "<svg")) != NULL; cursor++)
    n_svg_text++;
  g_assert_cmpuint (n_svg_text, ==, 2);
  g_assert_cmpuint (stats.n_svg, ==, 2);
  /* no XML prolog inside the page, and no id shared by the two diagrams */
  g_assert_null (strstr (html, "<?xml"));
  g_assert_nonnull (strstr (html, "id=\"src-"));
  g_assert_nonnull (strstr (html, "id=\"dst-"));

  g_assert_cmpuint (stats.n_check_rows, ==, g_list_model_get_n_items (checks));
  g_assert_cmpuint (stats.n_pair_rows, ==, g_list_model_get_n_items (pairs));
  for (guint i = 0; i < g_list_model_get_n_items (checks); i++)
    {
      g_autoptr(TsAuditCheck) check = g_list_model_get_item (checks, i);
      g_autofree char *escaped = g_markup_escape_text (ts_audit_check_get_name (check), -1);

      g_assert_nonnull (strstr (html, escaped));
    }
  g_assert_nonnull (strstr (html, "<td class=\"name\">blk.0.attn_q.weight</td>"));
  /* no warning, none said */
  g_assert_null (strstr (html, "see below.)"));
  g_assert_nonnull (strstr (html, "<td class=\"name\">model.layers.0.self_attn.q_proj.weight</td>"));
}

typedef struct
{
  gboolean done;
  gboolean ok;
  GError  *error;
} ExportWait;

static void
export_done (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  ExportWait *wait = user_data;

  wait->ok = ts_audit_pane_export_finish (TS_AUDIT_PANE (object), result, &wait->error);
  wait->done = TRUE;
}

static gboolean export_finished (gpointer data) { return ((ExportWait *) data)->done; }

static void
export_report (TsAuditPane *pane,
               const char  *path)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  ExportWait wait = { 0 };

  ts_audit_pane_export_async (pane, file, NULL, export_done, &wait);
  ts_test_wait_until (export_finished, &wait, 30, "the report export");
  g_assert_no_error (wait.error);
  g_assert_true (wait.ok);
}

static gboolean
on_preview_page (gpointer data)
{
  return g_strcmp0 (ts_convert_wizard_get_page (data), "preview") == 0;
}

static GtkWidget *
find_entry_with_text (GtkWidget  *root,
                      const char *text)
{
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found;

      if (GTK_IS_ENTRY (child) &&
          g_strcmp0 (gtk_editable_get_text (GTK_EDITABLE (child)), text) == 0)
        return child;
      if ((found = find_entry_with_text (child, text)) != NULL)
        return found;
    }
  return NULL;
}

/* Exports @path with files limited to 512 bytes (RLIMIT_FSIZE: a write
 * past it fails with EFBIG, as on a full disk): the export must fail and
 * leave @path as it was (absent, or holding @before), and no temporary
 * file beside it. */
static void
export_report_disk_full (TsAuditPane *pane,
                         const char  *path,
                         const char  *before)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autofree char *dir_path = g_path_get_dirname (path);
  g_autoptr(GDir) dir = NULL;
  g_autofree char *contents = NULL;
  ExportWait wait = { 0 };
  struct rlimit saved, small;
  const char *name;

  signal (SIGXFSZ, SIG_IGN);
  g_assert_cmpint (getrlimit (RLIMIT_FSIZE, &saved), ==, 0);
  small = saved;
  small.rlim_cur = 512;
  g_assert_cmpint (setrlimit (RLIMIT_FSIZE, &small), ==, 0);
  ts_audit_pane_export_async (pane, file, NULL, export_done, &wait);
  ts_test_wait_until (export_finished, &wait, 30, "the report export");
  g_assert_cmpint (setrlimit (RLIMIT_FSIZE, &saved), ==, 0);

  g_assert_false (wait.ok);
  g_assert_nonnull (wait.error);
  g_test_message ("%s: %s", path, wait.error->message);
  g_clear_error (&wait.error);
  if (before == NULL)
    g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  else
    {
      g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
      g_assert_cmpstr (contents, ==, before);
    }
  dir = g_dir_open (dir_path, 0, NULL);
  g_assert_nonnull (dir);
  while ((name = g_dir_read_name (dir)) != NULL)
    g_assert_false (g_str_has_prefix (name, ".goutputstream"));
}

/* ------------------------------------------------------------------------ */
/* Tests                                                                     */

/* The preview's diagram drew the file before it existed: same bands. */
static void
check_predicted_layout (TsConversionPlan *plan,
                        TsModelFile      *output)
{
  g_autoptr(TsLayout) predicted = ts_layout_new_for_plan (plan, NULL);
  g_autoptr(TsLayout) actual = ts_layout_new (output);

  g_assert_null (ts_layout_get_model (predicted));
  g_assert_cmpuint (ts_layout_get_n_bands (predicted), ==, ts_layout_get_n_bands (actual));
  g_assert_cmpuint (ts_layout_get_max_part_size (predicted), ==, ts_layout_get_max_part_size (actual));
  for (guint i = 0; i < ts_layout_get_n_bands (actual); i++)
    {
      const TsLayoutBand *p = ts_layout_get_band (predicted, i);
      const TsLayoutBand *a = ts_layout_get_band (actual, i);

      g_assert_cmpint (p->type, ==, a->type);
      g_assert_cmpuint (p->part, ==, a->part);
      g_assert_cmpint (p->kind, ==, a->kind);
      g_assert_cmpint (p->role, ==, a->role);
      g_assert_cmpuint (p->offset, ==, a->offset);
      g_assert_cmpuint (p->length, ==, a->length);
      if (a->type == TS_LAYOUT_BAND_TENSOR)
        g_assert_cmpstr (p->label, ==, ts_tensor_get_name (a->tensor));
    }

  /* and it renders like any other layout */
  ts_layout_allocate (predicted, 900);
  {
    g_autoptr(GBytes) svg = ts_layout_render (predicted, TS_LAYOUT_EXPORT_SVG, 900, 0, NULL);
    const TsLayoutBand *last = ts_layout_get_band (predicted, ts_layout_get_n_bands (predicted) - 1);
    g_autofree char *description = ts_layout_dup_band_description (predicted, last);

    g_assert_nonnull (svg);
    g_assert_cmpint (last->type, ==, TS_LAYOUT_BAND_TENSOR);
    g_assert_nonnull (strstr (description, last->label));
  }
}

static gboolean on_verify_done (gpointer data);

/* whether the preview's tensor table shows the File column (a split set's) */
static gboolean
plan_file_column_visible (TsConvertWizard *wizard)
{
  GtkWidget *view = ts_test_find_descendant (GTK_WIDGET (wizard), GTK_TYPE_COLUMN_VIEW);
  GListModel *columns = gtk_column_view_get_columns (GTK_COLUMN_VIEW (view));

  for (guint i = 0; i < g_list_model_get_n_items (columns); i++)
    {
      g_autoptr(GtkColumnViewColumn) column = g_list_model_get_item (columns, i);

      if (g_strcmp0 (gtk_column_view_column_get_title (column), "File") == 0)
        return gtk_column_view_column_get_visible (column);
    }
  g_assert_not_reached ();
}

/* the Options page's split controls */
typedef struct
{
  GtkWidget *check;
  GtkWidget *spin;
  GtkWidget *drop;
} SplitControls;

static SplitControls
find_split_controls (TsConvertWizard *wizard)
{
  SplitControls c;

  c.check = ts_test_find_button (GTK_WIDGET (wizard), "S_plit into files of at most");
  c.spin = ts_test_find_descendant (GTK_WIDGET (wizard), GTK_TYPE_SPIN_BUTTON);
  c.drop = ts_test_find_descendant (GTK_WIDGET (wizard), GTK_TYPE_DROP_DOWN);
  g_assert_nonnull (c.check);
  g_assert_nonnull (c.spin);
  g_assert_nonnull (c.drop);
  return c;
}

/* Next to the Options page of @wizard: its split controls */
static SplitControls
go_to_options (TsConvertWizard *wizard)
{
  ts_convert_wizard_go_next (wizard);
  ts_test_wait_until (wizard_idle, wizard, 30, "the options page");
  g_assert_cmpstr (ts_convert_wizard_get_page (wizard), ==, "options");
  return find_split_controls (wizard);
}

/* the options page set to split @target_path into files of at most 1 MB */
static void
choose_split (TsConvertWizard *wizard,
              const char      *target_path,
              gboolean         screenshot)
{
  SplitControls c = go_to_options (wizard);
  GtkWidget *check = c.check, *spin = c.spin, *drop = c.drop;

  ts_convert_wizard_set_outtype (wizard, TS_OUTTYPE_BF16);
  ts_convert_wizard_set_target_text (wizard, target_path);
  g_assert_false (gtk_widget_get_sensitive (spin));
  g_assert_false (gtk_widget_get_sensitive (drop));
  gtk_check_button_set_active (GTK_CHECK_BUTTON (check), TRUE);
  g_assert_true (gtk_widget_get_sensitive (spin));
  g_assert_true (gtk_widget_get_sensitive (drop));
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (spin), 1);
  gtk_drop_down_set_selected (GTK_DROP_DOWN (drop), 0);  /* MB */
  if (screenshot)
    {
      ts_test_assert_mnemonics_unique (GTK_WIDGET (wizard));
      ts_test_assert_named (GTK_WIDGET (wizard));
      save_screenshot (GTK_WIDGET (wizard), "wizard-split-options.png");
    }
  ts_convert_wizard_go_next (wizard);
  ts_test_wait_until (wizard_idle, wizard, 30, "the plan");
  g_assert_cmpstr (ts_convert_wizard_get_page (wizard), ==, "preview");
}

static gboolean
diagram_drawn (gpointer data)
{
  TsLayout *layout = ts_layout_view_get_layout (data);

  return layout != NULL && !ts_layout_view_get_pending (data) && ts_layout_get_height (layout) > 0;
}

/* The preview's diagram is the main window's: it takes the focus, the
 * arrow keys go from band to band (each said to a screen reader), Enter
 * zooms into one and Backspace back out */
static void
assert_preview_keyboard (TsConvertWizard *wizard)
{
  GtkWidget *view = ts_test_find_descendant (GTK_WIDGET (wizard), TS_TYPE_LAYOUT_VIEW);
  guint first;

  g_assert_nonnull (view);
  ts_test_wait_until (diagram_drawn, view, 20, "the diagram's geometry");
  g_assert_true (ts_layout_view_get_layout (TS_LAYOUT_VIEW (view)) == ts_convert_wizard_get_preview_layout (wizard));
  g_assert_true (gtk_widget_grab_focus (view));
  g_assert_true (ts_test_send_key (view, GDK_KEY_Home, 0));
  first = ts_layout_view_get_focus_band (TS_LAYOUT_VIEW (view));
  g_assert_cmpuint (first, !=, TS_LAYOUT_NO_BAND);
  g_assert_true (ts_test_send_key (view, GDK_KEY_Right, 0));
  g_assert_cmpuint (ts_layout_view_get_focus_band (TS_LAYOUT_VIEW (view)), !=, first);
  g_assert_true (gtk_test_accessible_has_property (GTK_ACCESSIBLE (view), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION));
  g_assert_true (gtk_test_accessible_has_property (GTK_ACCESSIBLE (view), GTK_ACCESSIBLE_PROPERTY_LABEL));
  g_assert_true (ts_test_send_key (view, GDK_KEY_Return, 0));
  ts_test_wait_until (diagram_drawn, view, 20, "the zoomed diagram");
  g_assert_true (ts_layout_view_get_zoomed (TS_LAYOUT_VIEW (view)));
  save_screenshot (GTK_WIDGET (wizard), "wizard-split-preview-zoomed.png");
  save_screenshot (view, "wizard-split-preview-zoomed-view.png");
  g_assert_true (ts_test_send_key (view, GDK_KEY_BackSpace, 0));
  ts_test_wait_until (diagram_drawn, view, 20, "the diagram zoomed out");
  g_assert_false (ts_layout_view_get_zoomed (TS_LAYOUT_VIEW (view)));
}

/* Split into files of at most 1 MB (the sample is 3.6 MB): the preview
 * draws one strip per file and names them, the set is written as
 * llama.cpp names it, with nothing else beside it, read back whole from
 * its first file, and passes the audit */
static void
test_wizard_split (void)
{
  g_autofree char *out_dir = g_build_filename (fixture_dir, "split-out", NULL);
  g_autofree char *target_path = g_build_filename (out_dir, "split.gguf", NULL);
  g_autoptr(TsModelFile) output = NULL;
  g_autoptr(GError) error = NULL;
  TsConvertWizard *wizard;
  TsConversionPlan *plan;
  TsLayout *preview;
  guint n_files, first = 0, n_strips = 0;

  g_assert_cmpint (g_mkdir_with_parents (out_dir, 0755), ==, 0);
  wizard = open_wizard (sample_dir);
  choose_split (wizard, target_path, TRUE);
  g_assert_null (ts_convert_wizard_get_target_message (wizard));
  /* nothing of the set is there yet: Convert, not Replace */
  g_assert_nonnull (ts_test_find_button (GTK_WIDGET (wizard), "Con_vert"));
  g_assert_null (ts_test_find_button (GTK_WIDGET (wizard), "_Replace"));
  plan = ts_convert_wizard_get_plan (wizard);
  n_files = ts_conversion_plan_get_n_files (plan);
  g_test_message ("%u files", n_files);
  g_assert_cmpuint (n_files, >=, 3);
  /* each file at most 1,000,000 bytes of tensors, or one tensor */
  for (guint k = 0; k < n_files; k++)
    {
      guint n = ts_conversion_plan_get_file_n_tensors (plan, k);
      guint64 bytes = 0;

      for (guint i = first; i < first + n; i++)
        {
          g_autoptr(TsPlanTensor) pt = g_list_model_get_item (ts_conversion_plan_get_tensors (plan), i);

          g_assert_cmpuint (ts_plan_tensor_get_file (pt), ==, k);
          bytes += ts_plan_tensor_get_size (pt);
        }
      g_assert_true (n == 1 || bytes <= 1000000);
      first += n;
    }
  preview = ts_convert_wizard_get_preview_layout (wizard);
  for (guint i = 0; i < ts_layout_get_n_bands (preview); i++)
    n_strips = MAX (n_strips, ts_layout_get_band (preview, i)->part + 1);
  g_assert_cmpuint (n_strips, ==, n_files);
  g_assert_true (plan_file_column_visible (wizard));
  {
    g_autofree char *first_name = g_strdup_printf ("split-00001-of-%05u.gguf", n_files);
    g_autofree char *said = g_strdup_printf ("Split into %u files: %s", n_files, first_name);

    g_assert_nonnull (ts_test_find_label (GTK_WIDGET (wizard), said));
  }
  save_screenshot (GTK_WIDGET (wizard), "wizard-split-preview.png");
  assert_preview_keyboard (wizard);

  ts_convert_wizard_go_next (wizard);
  ts_test_wait_until (on_verify_done, wizard, 60, "the conversion and its audit");
  g_assert_cmpstr (ts_convert_wizard_get_convert_state (wizard), ==, "done");
  g_assert_cmpstr (ts_convert_wizard_get_verify_state (wizard), ==, "result");
  g_assert_true (ts_audit_report_get_passed (ts_audit_pane_get_report (ts_convert_wizard_get_audit_pane (wizard))));
  /* the set, and nothing else: no split.gguf, no temporary file */
  g_assert_cmpuint (ts_test_count_entries (out_dir), ==, n_files);
  for (guint k = 0; k < n_files; k++)
    {
      g_autofree char *name = g_strdup_printf ("split-%05u-of-%05u.gguf", k + 1, n_files);
      g_autofree char *path = g_build_filename (out_dir, name, NULL);
      GStatBuf st;

      g_assert_cmpint (g_stat (path, &st), ==, 0);
      g_assert_cmpuint ((guint64) st.st_size, ==, ts_conversion_plan_get_file_size (plan, k));
    }
  {
    g_autofree char *said = g_strdup_printf ("and %u more files", n_files - 1);
    /* the audit's subtitle names the set's first file and counts them */
    g_autofree char *counted = g_strdup_printf (" in %u files)", n_files);

    g_assert_nonnull (ts_test_find_label (GTK_WIDGET (wizard), said));
    g_assert_nonnull (ts_test_find_label (GTK_WIDGET (wizard), counted));
  }
  save_screenshot (GTK_WIDGET (wizard), "wizard-split-verify.png");
  {
    g_autofree char *name = g_strdup_printf ("split-00001-of-%05u.gguf", n_files);
    g_autofree char *path = g_build_filename (out_dir, name, NULL);
    g_autoptr(GFile) file = g_file_new_for_path (path);

    output = ts_model_file_load (file, NULL, &error);
    g_assert_no_error (error);
  }
  g_assert_cmpuint (g_list_model_get_n_items (ts_model_file_get_parts (output)), ==, n_files);
  check_predicted_layout (plan, output);

  gtk_window_destroy (GTK_WINDOW (wizard));

  /* again to the same set: each of its files is there, and Replace says so */
  wizard = open_wizard (sample_dir);
  choose_split (wizard, target_path, FALSE);
  g_assert_nonnull (ts_test_find_button (GTK_WIDGET (wizard), "_Replace"));
  {
    g_autofree char *said = g_strdup_printf ("%u files of the set exist", n_files);

    g_assert_nonnull (ts_test_find_label (GTK_WIDGET (wizard), said));
  }
  gtk_window_destroy (GTK_WINDOW (wizard));
}

/* The options page offers the options of the last conversion started:
 * not those of a wizard closed before converting, and not after a
 * reset, the defaults */
static void
test_wizard_remembers_options (void)
{
  g_autofree char *out_dir = g_build_filename (fixture_dir, "remember-out", NULL);
  g_autofree char *target_path = g_build_filename (out_dir, "split.gguf", NULL);
  TsConvertWizard *wizard;
  SplitControls c;

  g_assert_cmpint (g_mkdir_with_parents (out_dir, 0755), ==, 0);
  /* converted as Q8_0 in files of at most 1 MB */
  wizard = open_wizard (sample_dir);
  c = go_to_options (wizard);
  ts_convert_wizard_set_outtype (wizard, TS_OUTTYPE_Q8_0);
  ts_convert_wizard_set_target_text (wizard, target_path);
  g_assert_false (gtk_check_button_get_active (GTK_CHECK_BUTTON (c.check)));
  g_assert_cmpint (gtk_spin_button_get_value_as_int (GTK_SPIN_BUTTON (c.spin)), ==, 45);
  g_assert_cmpuint (gtk_drop_down_get_selected (GTK_DROP_DOWN (c.drop)), ==, 1);
  gtk_check_button_set_active (GTK_CHECK_BUTTON (c.check), TRUE);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (c.spin), 1);
  gtk_drop_down_set_selected (GTK_DROP_DOWN (c.drop), 0);  /* MB */
  ts_convert_wizard_go_next (wizard);
  ts_test_wait_until (wizard_idle, wizard, 30, "the plan");
  g_assert_cmpuint (ts_conversion_plan_get_n_files (ts_convert_wizard_get_plan (wizard)), >, 1);
  ts_convert_wizard_go_next (wizard);
  ts_test_wait_until (on_verify_done, wizard, 60, "the conversion and its audit");
  g_assert_cmpstr (ts_convert_wizard_get_convert_state (wizard), ==, "done");
  gtk_window_destroy (GTK_WINDOW (wizard));

  /* offered again; then F16 and no split, looked at and closed */
  for (guint round = 0; round < 2; round++)
    {
      wizard = open_wizard_as_left (sample_dir);
      c = go_to_options (wizard);
      g_assert_true (ts_convert_wizard_get_outtype (wizard) == TS_OUTTYPE_Q8_0);
      g_assert_true (gtk_check_button_get_active (GTK_CHECK_BUTTON (c.check)));
      g_assert_true (gtk_widget_get_sensitive (c.spin));
      g_assert_cmpint (gtk_spin_button_get_value_as_int (GTK_SPIN_BUTTON (c.spin)), ==, 1);
      g_assert_cmpuint (gtk_drop_down_get_selected (GTK_DROP_DOWN (c.drop)), ==, 0);
      /* planned so: named as a Q8_0 file, and split */
      ts_convert_wizard_go_next (wizard);
      ts_test_wait_until (wizard_idle, wizard, 30, "the plan");
      {
        TsConversionPlan *plan = ts_convert_wizard_get_plan (wizard);
        g_autofree char *target = g_file_get_basename (ts_convert_wizard_get_target (wizard));

        g_assert_true (ts_conversion_plan_get_outtype (plan) == TS_OUTTYPE_Q8_0);
        g_assert_cmpuint (ts_conversion_plan_get_n_files (plan), >, 1);
        g_assert_nonnull (strstr (target, "Q8_0"));
      }
      ts_convert_wizard_go_back (wizard);
      ts_convert_wizard_set_outtype (wizard, TS_OUTTYPE_F16);
      gtk_check_button_set_active (GTK_CHECK_BUTTON (c.check), FALSE);
      ts_convert_wizard_go_next (wizard);
      ts_test_wait_until (wizard_idle, wizard, 30, "the plan");
      gtk_window_destroy (GTK_WINDOW (wizard));
    }

  /* a reset offers the defaults */
  wizard = open_wizard (sample_dir);
  c = go_to_options (wizard);
  g_assert_true (ts_convert_wizard_get_outtype (wizard) == TS_OUTTYPE_AUTO);
  g_assert_false (gtk_check_button_get_active (GTK_CHECK_BUTTON (c.check)));
  gtk_window_destroy (GTK_WINDOW (wizard));
}

static gboolean
sizes_known (gpointer data)
{
  return ts_convert_wizard_get_predicted_size (data, TS_OUTTYPE_Q8_0) > 0 &&
         ts_convert_wizard_get_predicted_size (data, TS_OUTTYPE_F32) > 0;
}

static gboolean
on_verify_done (gpointer data)
{
  const char *state = ts_convert_wizard_get_verify_state (data);

  return g_strcmp0 (ts_convert_wizard_get_page (data), "verify") == 0 &&
         g_strcmp0 (state, "running") != 0 && !ts_convert_wizard_get_busy (data);
}

/* narrow enough to sit beside another window on a 1366-pixel screen */
static void
assert_fits_half_screen (GtkWidget *window)
{
  int min_width = 0;

  gtk_widget_measure (window, GTK_ORIENTATION_HORIZONTAL, -1, &min_width, NULL, NULL, NULL);
  g_test_message ("minimum width: %d", min_width);
  g_assert_cmpint (min_width, <=, 683);
}

/* The audit's tensor table shows the pairs sorted by their GGUF names in
 * natural order (blk.2 before blk.10), not in the source's order */
static const char *
first_source_name (TsAuditPair *pair)
{
  const char * const *names = ts_audit_pair_get_source_names (pair);

  return names != NULL ? names[0] : NULL;
}

/* the source names of the rows, in order, @sign = 1 ascending or -1
 * descending (a row without one, a tensor made from config.json, is
 * last, or first when descending) */
static void
assert_sources_sorted (GListModel *rows,
                       int         sign)
{
  for (guint i = 1; i < g_list_model_get_n_items (rows); i++)
    {
      g_autoptr(TsAuditPair) a = g_list_model_get_item (rows, i - 1);
      g_autoptr(TsAuditPair) b = g_list_model_get_item (rows, i);
      const char *na = first_source_name (a);
      const char *nb = first_source_name (b);

      if (na != NULL && nb != NULL)
        g_assert_cmpint (sign * ts_natural_compare (na, nb), <=, 0);
    }
}

/* GTK 4.8's headers take no focus: the Sort Tensors menu sorts the pairs
 * (its actions, as its items activate them), and gives the GGUF order
 * back */
static void
assert_pairs_sort_from_keyboard (TsAuditPane *pane)
{
  GListModel *rows = ts_audit_pane_get_pair_rows (pane);

  ts_audit_pane_show_view (pane, "tensors");
  ts_test_run_for (300);
  /* the button is there, shown, with the columns in its menu */
  {
    GtkWidget *sort = ts_test_find_menu_button (GTK_WIDGET (pane), "Sort Tensors");

    g_assert_nonnull (sort);
    g_assert_true (gtk_widget_is_drawable (sort));
    gtk_menu_button_popup (GTK_MENU_BUTTON (sort));
    ts_test_run_for (300);
    g_assert_nonnull (ts_test_find_label (GTK_WIDGET (gtk_menu_button_get_popover (GTK_MENU_BUTTON (sort))),
                                          "Source Tensor"));
    g_assert_nonnull (ts_test_find_label (GTK_WIDGET (gtk_menu_button_get_popover (GTK_MENU_BUTTON (sort))),
                                          "Descending"));
    save_screenshot (GTK_WIDGET (gtk_widget_get_root (GTK_WIDGET (pane))), "audit-pane-sort-menu.png");
    gtk_menu_button_popdown (GTK_MENU_BUTTON (sort));
  }
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (pane), "pairs.sort-column", "s", "source"));
  assert_sources_sorted (rows, 1);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (pane), "pairs.sort-order", "s", "descending"));
  assert_sources_sorted (rows, -1);
  {
    g_autoptr(TsAuditPair) first = g_list_model_get_item (rows, 0);
    g_autoptr(TsAuditPair) second = g_list_model_get_item (rows, 1);
    g_autoptr(TsAuditPair) last = g_list_model_get_item (rows, g_list_model_get_n_items (rows) - 1);

    /* rope_freqs first, then from the last name down: the order says
     * something */
    g_assert_null (first_source_name (first));
    g_assert_cmpstr (ts_audit_pair_get_target_name (first), ==, "rope_freqs.weight");
    g_assert_cmpint (ts_natural_compare (first_source_name (second), first_source_name (last)), >, 0);
  }
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (pane), "pairs.sort-order", "s", "ascending"));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (pane), "pairs.sort-column", "s", "target"));
}

static void
assert_pairs_in_gguf_order (TsAuditPane *pane)
{
  GListModel *rows = ts_audit_pane_get_pair_rows (pane);
  g_autofree char *previous = NULL;
  guint n_layers_seen = 0;

  for (guint i = 0; i < g_list_model_get_n_items (rows); i++)
    {
      g_autoptr(TsAuditPair) pair = g_list_model_get_item (rows, i);
      const char *name = ts_audit_pair_get_target_name (pair);
      int layer;

      g_assert_nonnull (name);
      if (previous != NULL)
        {
          /* blk.N. by its number, then the names after the blocks */
          if (sscanf (previous, "blk.%d.", &layer) == 1 && g_str_has_prefix (name, "blk."))
            g_assert_cmpint (layer, <=, atoi (name + 4));
          else
            g_assert_false (g_str_has_prefix (name, "blk."));
        }
      n_layers_seen += g_str_has_prefix (name, "blk.");
      g_free (previous);
      previous = g_strdup (name);
    }
  /* blk.10 and blk.11 are among them: as plain strings they would sort
   * before blk.2 */
  g_assert_cmpuint (n_layers_seen, >, 9 * 10);
}

static void
test_wizard_end_to_end (void)
{
  TsConvertWizard *wizard = open_wizard (sample_dir);
  g_autofree char *findings = ts_convert_wizard_dup_findings (wizard);
  g_autofree char *target_path = NULL;
  g_autofree char *html_path = g_build_filename (fixture_dir, "audit.html", NULL);
  g_autofree char *json_path = g_build_filename (fixture_dir, "audit.json", NULL);
  g_autoptr(TsModelFile) output = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  TsConversionPlan *plan;
  TsAuditPane *pane;
  TsAuditReport *report;
  TsMetadataEntry *license;
  GFile *target;
  GStatBuf st;
  g_autofree char *license_value = NULL;

  /* 1. Source: what was found, and Next enabled */
  g_test_message ("findings:\n%s", findings);
  g_assert_null (ts_convert_wizard_get_problem (wizard));
  g_assert_true (ts_convert_wizard_can_go_next (wizard));
  g_assert_nonnull (strstr (findings, "Weights: 2 Safetensors files"));
  g_assert_nonnull (strstr (findings, "Architecture: llama"));
  g_assert_nonnull (strstr (findings, "Source types: BF16"));
  /* Enter goes on: the focus is on Next, not on Choose Folder… */
  g_assert_true (gtk_root_get_focus (GTK_ROOT (wizard)) == ts_test_find_button (GTK_WIDGET (wizard), "_Next"));
  save_screenshot (GTK_WIDGET (wizard), "wizard-1-source.png");
  ts_test_assert_mnemonics_unique (GTK_WIDGET (wizard));

  /* 2. Options: a predicted size per output type, default name, naming */
  ts_convert_wizard_go_next (wizard);
  g_assert_cmpstr (ts_convert_wizard_get_page (wizard), ==, "options");
  ts_test_wait_until (sizes_known, wizard, 30, "the predicted sizes");
  g_assert_cmpuint (ts_convert_wizard_get_predicted_size (wizard, TS_OUTTYPE_F32), >,
                    ts_convert_wizard_get_predicted_size (wizard, TS_OUTTYPE_BF16));
  g_assert_cmpuint (ts_convert_wizard_get_predicted_size (wizard, TS_OUTTYPE_BF16), >,
                    ts_convert_wizard_get_predicted_size (wizard, TS_OUTTYPE_Q8_0));
  g_assert_cmpuint (ts_convert_wizard_get_predicted_size (wizard, TS_OUTTYPE_F16), ==,
                    ts_convert_wizard_get_predicted_size (wizard, TS_OUTTYPE_BF16));
  g_assert_cmpuint (ts_convert_wizard_get_predicted_size (wizard, TS_OUTTYPE_AUTO), ==,
                    ts_convert_wizard_get_predicted_size (wizard, TS_OUTTYPE_BF16));
  g_assert_cmpstr (ts_convert_wizard_get_naming (wizard, "name"), !=, "");
  ts_convert_wizard_set_outtype (wizard, TS_OUTTYPE_BF16);
  ts_convert_wizard_set_naming (wizard, "license", "apache-2.0");
  save_screenshot (GTK_WIDGET (wizard), "wizard-2-options.png");
  ts_test_assert_mnemonics_unique (GTK_WIDGET (wizard));

  /* 3. Preview: the plan, with the edit applied; Enter in the field just
   * edited goes on, as Next does */
  {
    GtkWidget *entry = find_entry_with_text (GTK_WIDGET (wizard), "apache-2.0");

    g_assert_nonnull (entry);
    gtk_widget_grab_focus (entry);
    /* what Enter does: its key binding emits the text widget's activate */
    g_signal_emit_by_name (gtk_editable_get_delegate (GTK_EDITABLE (entry)), "activate");
    /* a button activated by a key is shown pressed, then clicked */
    ts_test_wait_until (on_preview_page, wizard, 5, "Enter in the license field");
  }
  ts_test_wait_until (wizard_idle, wizard, 30, "the plan");
  g_assert_cmpstr (ts_convert_wizard_get_page (wizard), ==, "preview");
  /* Next was insensitive while the plan was built, which left the focus
   * nowhere: it is back on the button that goes on, so Enter converts */
  assert_focus_on_button (wizard, "Con_vert");
  /* one file: no File column */
  g_assert_false (plan_file_column_visible (wizard));
  plan = ts_convert_wizard_get_plan (wizard);
  g_assert_nonnull (plan);
  g_assert_cmpint (ts_conversion_plan_get_outtype (plan), ==, TS_OUTTYPE_BF16);
  target = ts_convert_wizard_get_target (wizard);
  target_path = g_file_get_path (target);
  g_assert_true (g_str_has_suffix (target_path, "-BF16.gguf"));
  g_assert_false (g_file_test (target_path, G_FILE_TEST_EXISTS));
  save_screenshot (GTK_WIDGET (wizard), "wizard-3-preview.png");
  ts_test_assert_mnemonics_unique (GTK_WIDGET (wizard));
  assert_lists_leave_on_tab (GTK_WIDGET (wizard));
  assert_fits_half_screen (GTK_WIDGET (wizard));

  /* 4. Convert, then 5. Verify: the audit runs by itself */
  ts_convert_wizard_go_next (wizard);
  g_assert_cmpstr (ts_convert_wizard_get_page (wizard), ==, "convert");
  /* Convert hides while it writes: the page's own button has the focus */
  assert_focus_on_button (wizard, "_Stop Conversion");
  ts_test_assert_mnemonics_unique (GTK_WIDGET (wizard));
  ts_test_wait_until (on_verify_done, wizard, 60, "the conversion and its audit");
  ts_test_run_for (300);
  assert_focus_on_button (wizard, NULL);
  g_assert_cmpstr (ts_convert_wizard_get_convert_state (wizard), ==, "done");
  g_assert_cmpstr (ts_convert_wizard_get_verify_state (wizard), ==, "result");
  assert_fits_half_screen (GTK_WIDGET (wizard));
  {
    int w, h;

    /* how the result looks at half a 1366-pixel screen */
    gtk_window_get_default_size (GTK_WINDOW (wizard), &w, &h);
    gtk_window_set_default_size (GTK_WINDOW (wizard), 683, h);
    ts_test_run_for (400);
    save_screenshot (GTK_WIDGET (wizard), "wizard-5-verify-narrow.png");
    gtk_window_set_default_size (GTK_WINDOW (wizard), w, h);
    ts_test_run_for (200);
  }
  /* every control of every page has a name for a screen reader: the
   * output types, the target field, the diagram, the progress bars */
  ts_test_assert_named (GTK_WIDGET (wizard));
  /* one Tab leaves each of the audit's tables, as the preview's */
  ts_audit_pane_show_view (ts_convert_wizard_get_audit_pane (wizard), "checks");
  ts_test_run_for (300);
  assert_lists_leave_on_tab (GTK_WIDGET (wizard));
  /* Tab goes round the page: the audit's selectable subtitle held it */
  gtk_widget_grab_focus (ts_test_find_button (GTK_WIDGET (wizard), "_Open Output"));
  ts_test_assert_tab_moves (GTK_WINDOW (wizard), 10);
  g_assert_true (g_file_test (target_path, G_FILE_TEST_IS_REGULAR));
  g_assert_cmpint (g_stat (target_path, &st), ==, 0);
  g_assert_cmpuint (ts_conversion_plan_get_predicted_size (plan), ==, (guint64) st.st_size);

  pane = ts_convert_wizard_get_audit_pane (wizard);
  report = ts_audit_pane_get_report (pane);
  g_assert_nonnull (report);
  g_assert_true (ts_audit_report_get_passed (report));
  for (guint i = 0; i < g_list_model_get_n_items (ts_audit_report_get_checks (report)); i++)
    {
      g_autoptr(TsAuditCheck) check = g_list_model_get_item (ts_audit_report_get_checks (report), i);

      g_assert_cmpint (ts_audit_check_get_status (check), !=, TS_AUDIT_FAIL);
    }
  g_assert_cmpuint (g_list_model_get_n_items (ts_audit_pane_get_pair_rows (pane)), ==,
                    g_list_model_get_n_items (ts_audit_report_get_pairs (report)));
  assert_pairs_in_gguf_order (pane);
  assert_pairs_sort_from_keyboard (pane);
  assert_pairs_in_gguf_order (pane);
  /* the checks by a title a person reads, the name the JSON report and
   * the docs give each under it; a metadata key's check by its key */
  ts_audit_pane_show_view (pane, "checks");
  ts_test_run_for (300);
  {
    GtkWidget *title = ts_test_find_label (GTK_WIDGET (pane), "Tensor mapping");
    GtkWidget *name = ts_test_find_label (GTK_WIDGET (pane), "tensor-mapping");

    g_assert_nonnull (title);
    g_assert_nonnull (name);
    g_assert_true (gtk_widget_get_next_sibling (title) == name);
    g_assert_nonnull (ts_test_find_label (GTK_WIDGET (pane), "Key general.architecture"));
    g_assert_null (ts_test_find_label (GTK_WIDGET (pane), "metadata:general.architecture"));
  }
  g_assert_null (ts_audit_pane_get_pairs_placeholder (pane));
  ts_audit_pane_set_failures_only (pane, TRUE);
  g_assert_cmpuint (g_list_model_get_n_items (ts_audit_pane_get_pair_rows (pane)), ==, 0);
  /* not a blank table: it says why there is nothing to show */
  g_assert_nonnull (strstr (ts_audit_pane_get_pairs_placeholder (pane), "No tensor failed"));
  ts_audit_pane_show_view (pane, "tensors");
  save_screenshot (GTK_WIDGET (wizard), "audit-pane-no-failures.png");
  ts_audit_pane_set_failures_only (pane, FALSE);
  g_assert_null (ts_audit_pane_get_pairs_placeholder (pane));
  ts_audit_pane_show_view (pane, "checks");
  save_screenshot (GTK_WIDGET (wizard), "wizard-5-verify.png");
  ts_test_assert_mnemonics_unique (GTK_WIDGET (wizard));
  ts_audit_pane_show_view (pane, "tensors");
  save_screenshot (GTK_WIDGET (wizard), "audit-pane-tensors.png");
  assert_readable_light_and_dark (GTK_WIDGET (pane), "Passed");
  ts_audit_pane_show_view (pane, "sizes");
  save_screenshot (GTK_WIDGET (wizard), "audit-pane-sizes.png");
  ts_audit_pane_show_view (pane, "checks");

  /* the edited license is in the file; the rest is the converter's */
  output = ts_model_file_load (target, NULL, &error);
  g_assert_no_error (error);
  license = ts_model_file_lookup_metadata (output, "general.license");
  g_assert_nonnull (license);
  license_value = ts_metadata_entry_dup_string (license);
  g_assert_cmpstr (license_value, ==, "apache-2.0");

  check_predicted_layout (plan, output);

  /* the reports */
  export_report (pane, html_path);
  check_html (html_path, report);
  export_report (pane, json_path);
  json_parser_load_from_file (parser, json_path, &error);
  g_assert_no_error (error);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)));

  /* a full disk: nothing half-written, an existing report kept */
  {
    g_autofree char *new_html = g_build_filename (fixture_dir, "audit-new.html", NULL);
    g_autofree char *new_json = g_build_filename (fixture_dir, "audit-new.json", NULL);
    g_autofree char *old_json = NULL;

    export_report_disk_full (pane, new_html, NULL);
    export_report_disk_full (pane, new_json, NULL);
    g_assert_true (g_file_get_contents (json_path, &old_json, NULL, NULL));
    export_report_disk_full (pane, json_path, old_json);
  }

  converted_path = g_steal_pointer (&target_path);
  gtk_window_destroy (GTK_WINDOW (wizard));
}

typedef struct
{
  TsConvertWizard *wizard;
  gint64           cancelled_at;
  gboolean         screenshot;
} CancelState;

static gboolean
conversion_halfway (gpointer data)
{
  TsConverter *converter = ts_convert_wizard_get_converter (data);

  return converter != NULL && ts_converter_get_fraction (converter) > 0.02;
}

static gboolean
conversion_stopped (gpointer data)
{
  return g_strcmp0 (ts_convert_wizard_get_convert_state (data), "running") != 0;
}

/* A wizard converting a checkpoint of @n_layers to F32 at @out, paced by
 * a converter test hook (20 ms after each 4 MiB block) so that it is far
 * from done however fast the disk; returned once the progress shows. */
static TsConvertWizard *
start_paced_conversion (const char *dir,
                        guint       n_layers,
                        GFile      *out)
{
  TsSampleOptions options;
  TsConvertWizard *wizard;

  g_setenv ("TENSORSCOPE_TEST_BLOCK_DELAY_US", "20000", TRUE);
  ts_sample_options_init (&options);
  options.n_layers = n_layers;
  options.hidden_size = 1024;
  options.n_heads = 16;
  options.n_kv_heads = 4;
  options.intermediate_size = 2816;
  options.vocab_size = 8192;
  write_sample (dir, &options);

  wizard = open_wizard (dir);
  ts_convert_wizard_go_next (wizard);
  ts_convert_wizard_set_outtype (wizard, TS_OUTTYPE_F32);
  ts_convert_wizard_set_target (wizard, out);
  ts_convert_wizard_go_next (wizard);
  ts_test_wait_until (wizard_idle, wizard, 30, "the plan");
  g_assert_cmpstr (ts_convert_wizard_get_page (wizard), ==, "preview");
  ts_convert_wizard_go_next (wizard);
  g_assert_cmpstr (ts_convert_wizard_get_page (wizard), ==, "convert");
  ts_test_wait_until (conversion_halfway, wizard, 30, "conversion progress");
  return wizard;
}

/* Stop Conversion shows, can be pressed, and so has the progress bar */
static void
assert_can_stop (TsConvertWizard *wizard)
{
  GtkWidget *stop = ts_test_find_button (GTK_WIDGET (wizard), "_Stop Conversion");

  g_assert_nonnull (stop);
  g_assert_true (gtk_widget_get_visible (stop));
  g_assert_true (gtk_widget_is_sensitive (stop));
  g_assert_true (gtk_widget_get_visible (ts_test_find_descendant (GTK_WIDGET (wizard), GTK_TYPE_PROGRESS_BAR)));
}

/* a widget of the wizard's template (or of its audit pane's) by its id */
static GtkWidget *
wizard_child (TsConvertWizard *wizard,
              const char      *id)
{
  GObject *child = gtk_widget_get_template_child (GTK_WIDGET (wizard), TS_TYPE_CONVERT_WIZARD, id);

  g_assert_nonnull (child);
  return GTK_WIDGET (child);
}

/* A conversion that fails (the disk fills up, through the converter's
 * write hook): the page says so, nothing is left at the target or beside
 * it, Convert Again is offered, and the header's button closes */
static void
test_wizard_failed (void)
{
  g_autofree char *dir = g_build_filename (fixture_dir, "failed-sample", NULL);
  g_autofree char *out_dir = g_build_filename (fixture_dir, "failed-out", NULL);
  g_autofree char *out_path = g_build_filename (out_dir, "full.gguf", NULL);
  g_autoptr(GFile) out = g_file_new_for_path (out_path);
  TsSampleOptions options;
  TsConvertWizard *wizard;

  g_assert_cmpint (g_mkdir_with_parents (out_dir, 0755), ==, 0);
  ts_sample_options_init (&options);
  write_sample (dir, &options);
  wizard = open_wizard (dir);
  ts_convert_wizard_go_next (wizard);
  ts_convert_wizard_set_target (wizard, out);
  ts_convert_wizard_go_next (wizard);
  ts_test_wait_until (wizard_idle, wizard, 30, "the plan");
  g_assert_cmpstr (ts_convert_wizard_get_page (wizard), ==, "preview");
  g_setenv ("TENSORSCOPE_TEST_FAIL_WRITES_AFTER", "65536", TRUE);
  ts_convert_wizard_go_next (wizard);
  g_unsetenv ("TENSORSCOPE_TEST_FAIL_WRITES_AFTER");
  ts_test_wait_until (conversion_stopped, wizard, 30, "the conversion to fail");
  ts_test_run_for (200);

  g_assert_cmpstr (ts_convert_wizard_get_convert_state (wizard), ==, "failed");
  /* what happened, and what is at the target: nothing (it said "Writing
   * …/full.gguf" still) */
  g_assert_nonnull (ts_test_find_label (GTK_WIDGET (wizard), "No space left on device"));
  g_assert_nonnull (ts_test_find_label (GTK_WIDGET (wizard), "No partial or temporary file is left behind."));
  g_assert_nonnull (ts_test_find_label (GTK_WIDGET (wizard), "full.gguf was not written"));
  g_assert_null (ts_test_find_label (GTK_WIDGET (wizard), "Writing "));
  g_assert_false (g_file_test (out_path, G_FILE_TEST_EXISTS));
  g_assert_cmpuint (ts_test_count_entries (out_dir), ==, 0);
  g_assert_true (ts_convert_wizard_can_go_next (wizard));
  g_assert_cmpstr (gtk_button_get_label (GTK_BUTTON (wizard_child (wizard, "cancel_button"))), ==, "_Close");
  save_screenshot (GTK_WIDGET (wizard), "wizard-4-failed.png");
  gtk_window_destroy (GTK_WINDOW (wizard));
}

static void
test_wizard_cancel (void)
{
  g_autofree char *dir = g_build_filename (fixture_dir, "big-sample", NULL);
  g_autofree char *out_dir = g_build_filename (fixture_dir, "cancel-out", NULL);
  g_autofree char *out_path = g_build_filename (out_dir, "big.gguf", NULL);
  g_autoptr(GFile) out = g_file_new_for_path (out_path);
  TsConvertWizard *wizard;
  TsConverter *converter;
  gint64 cancelled_at;
  double latency;

  /* big enough that the F32 output (780 MB) takes a while to write */
  g_assert_cmpint (g_mkdir_with_parents (out_dir, 0755), ==, 0);
  wizard = start_paced_conversion (dir, 16, out);

  /* mid-way: the progress shows, then Stop */
  converter = ts_convert_wizard_get_converter (wizard);
  g_assert_nonnull (converter);
  g_assert_cmpfloat (ts_converter_get_fraction (converter), <, 1.0);
  /* let the page finish sliding in (180 ms) and a frame paint; the
   * paced conversion is far from done */
  ts_test_run_for (300);
  g_assert_nonnull (ts_convert_wizard_get_converter (wizard));
  g_test_message ("screenshot at %.0f %%", 100 * ts_converter_get_fraction (converter));
  render_png (GTK_WIDGET (wizard), "wizard-4-convert.png");
  cancelled_at = g_get_monotonic_time ();
  ts_convert_wizard_cancel_conversion (wizard);
  ts_test_wait_until (conversion_stopped, wizard, 5, "the conversion to stop");
  latency = (g_get_monotonic_time () - cancelled_at) / (double) G_USEC_PER_SEC;
  g_test_message ("stopped %.3f s after Stop", latency);
  g_assert_cmpfloat (latency, <, 1.0);

  g_assert_cmpstr (ts_convert_wizard_get_convert_state (wizard), ==, "cancelled");
  /* nothing is left to cancel: the header's button closes, and says so */
  g_assert_cmpstr (gtk_button_get_label (GTK_BUTTON (wizard_child (wizard, "cancel_button"))), ==, "_Close");
  g_assert_false (g_file_test (out_path, G_FILE_TEST_EXISTS));
  /* no part-filled bar beside "Nothing was written" */
  g_assert_false (gtk_widget_get_visible (ts_test_find_descendant (GTK_WIDGET (wizard), GTK_TYPE_PROGRESS_BAR)));
  g_assert_nonnull (ts_test_find_label (GTK_WIDGET (wizard), "big.gguf was not written"));
  g_assert_nonnull (ts_test_find_label (GTK_WIDGET (wizard), "Nothing was written"));
  /* no temporary file either */
  g_assert_cmpuint (ts_test_count_entries (out_dir), ==, 0);
  save_screenshot (GTK_WIDGET (wizard), "wizard-4-cancelled.png");
  ts_test_assert_mnemonics_unique (GTK_WIDGET (wizard));
  g_unsetenv ("TENSORSCOPE_TEST_BLOCK_DELAY_US");

  /* Back leads to the preview again, and Convert from there converts */
  ts_convert_wizard_go_back (wizard);
  g_assert_cmpstr (ts_convert_wizard_get_page (wizard), ==, "preview");
  g_setenv ("TENSORSCOPE_TEST_BLOCK_DELAY_US", "20000", TRUE);
  ts_convert_wizard_go_next (wizard);
  g_unsetenv ("TENSORSCOPE_TEST_BLOCK_DELAY_US");
  g_assert_cmpstr (ts_convert_wizard_get_convert_state (wizard), ==, "running");
  g_assert_cmpstr (gtk_button_get_label (GTK_BUTTON (wizard_child (wizard, "cancel_button"))), ==, "_Cancel");
  /* a second run can be stopped too: the first Stop left the button
   * insensitive */
  assert_can_stop (wizard);
  ts_convert_wizard_cancel_conversion (wizard);
  ts_test_wait_until (conversion_stopped, wizard, 10, "the second stop");
  g_assert_cmpstr (ts_convert_wizard_get_convert_state (wizard), ==, "cancelled");

  /* Convert Again, after Stop, runs the same plan once more: to the end */
  g_assert_true (ts_convert_wizard_can_go_next (wizard));
  ts_convert_wizard_go_next (wizard);
  g_assert_cmpstr (ts_convert_wizard_get_convert_state (wizard), ==, "running");
  assert_can_stop (wizard);
  ts_test_wait_until (conversion_stopped, wizard, 60, "the conversion after Convert Again");
  g_assert_cmpstr (ts_convert_wizard_get_convert_state (wizard), ==, "done");
  g_assert_true (g_file_test (out_path, G_FILE_TEST_EXISTS));
  ts_test_wait_until (on_verify_done, wizard, 60, "the audit after Convert Again");

  gtk_window_destroy (GTK_WINDOW (wizard));
}

static gboolean
no_part_file (gpointer data)
{
  return ts_test_count_entries (data) == 1;
}

/* Closing the wizard (its Cancel button, Escape, or quitting) while it
 * converts stops the conversion: nothing replaces the file already at the
 * target, and no temporary file stays. The conversion's task holds the
 * wizard, so this cannot wait for dispose. */
static void
test_wizard_close_while_converting (void)
{
  g_autofree char *dir = g_build_filename (fixture_dir, "close-sample", NULL);
  g_autofree char *out_dir = g_build_filename (fixture_dir, "close-out", NULL);
  g_autofree char *out_path = g_build_filename (out_dir, "existing.gguf", NULL);
  g_autoptr(GFile) out = g_file_new_for_path (out_path);
  g_autofree char *contents = NULL;
  TsConvertWizard *wizard;

  g_assert_cmpint (g_mkdir_with_parents (out_dir, 0755), ==, 0);
  g_assert_true (g_file_set_contents (out_path, "an older file", -1, NULL));
  wizard = start_paced_conversion (dir, 8, out);
  g_object_add_weak_pointer (G_OBJECT (wizard), (gpointer *) &wizard);
  g_assert_cmpuint (ts_test_count_entries (out_dir), ==, 2);
  /* the file to be replaced is named on the page that converts */
  g_assert_nonnull (ts_test_find_label (GTK_WIDGET (wizard), "existing.gguf"));

  gtk_window_close (GTK_WINDOW (wizard));
  /* the converter removes its temporary file within a second... */
  ts_test_wait_until (no_part_file, out_dir, 5, "the temporary file to go");
  /* ...and, paced at 20 ms a block, would otherwise still be writing */
  ts_test_run_for (1500);
  g_assert_true (g_file_get_contents (out_path, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, "an older file");
  g_assert_cmpuint (ts_test_count_entries (out_dir), ==, 1);
  g_assert_null (wizard);
  g_unsetenv ("TENSORSCOPE_TEST_BLOCK_DELAY_US");
}

static void
copy_file (const char *from,
           const char *to)
{
  g_autofree char *contents = NULL;
  gsize len;

  g_assert_true (g_file_get_contents (from, &contents, &len, NULL));
  g_assert_true (g_file_set_contents (to, contents, len, NULL));
}

static void
test_wizard_broken_source (void)
{
  g_autofree char *dir = g_build_filename (fixture_dir, "broken", NULL);
  g_autofree char *shard = g_build_filename (dir, "model-00002-of-00002.safetensors", NULL);
  TsSampleOptions options;
  TsConvertWizard *wizard;
  const char *problem;

  ts_sample_options_init (&options);
  write_sample (dir, &options);
  g_assert_cmpint (g_remove (shard), ==, 0);

  wizard = open_wizard (dir);
  problem = ts_convert_wizard_get_problem (wizard);
  g_test_message ("problem: %s", problem);
  g_assert_nonnull (problem);
  g_assert_nonnull (strstr (problem, "model-00002-of-00002.safetensors"));
  g_assert_false (ts_convert_wizard_can_go_next (wizard));
  ts_convert_wizard_go_next (wizard);
  g_assert_cmpstr (ts_convert_wizard_get_page (wizard), ==, "source");
  /* the weights' row has no tick: its icon says what is wrong */
  {
    GtkWidget *title = ts_test_find_label (GTK_WIDGET (wizard), "Weights");
    GtkWidget *icon = title != NULL ? gtk_widget_get_prev_sibling (title) : NULL;

    g_assert_true (GTK_IS_IMAGE (icon));
    g_assert_cmpstr (gtk_image_get_icon_name (GTK_IMAGE (icon)), ==, "dialog-error-symbolic");
    g_assert_null (gtk_test_accessible_check_property (GTK_ACCESSIBLE (icon), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                                       "Missing"));
  }
  save_screenshot (GTK_WIDGET (wizard), "wizard-1-broken-source.png");
  assert_readable_light_and_dark (GTK_WIDGET (wizard), "This folder cannot be converted");
  assert_readable_light_and_dark (GTK_WIDGET (wizard), "model-00002-of-00002.safetensors");

  gtk_window_destroy (GTK_WINDOW (wizard));
}

/* The Options page says what the target path holds before Next: a file
 * to replace is a warning; a folder, one of the checkpoint's own files or
 * a folder that is not there is an error, and Next stays off. */
static void
test_wizard_target_checks (void)
{
  TsConvertWizard *wizard = open_wizard (sample_dir);
  g_autofree char *shard = g_build_filename (sample_dir, "model-00001-of-00002.safetensors", NULL);
  g_autofree char *missing = g_build_filename (fixture_dir, "no-such-folder", "x.gguf", NULL);
  g_autofree char *existing = g_build_filename (fixture_dir, "existing.gguf", NULL);
  static const char *const words[] = { "is a folder", "checkpoint's own", "does not exist", "will replace it" };
  const char *paths[] = { fixture_dir, shard, missing, existing };

  g_assert_true (g_file_set_contents (existing, "old", 3, NULL));
  ts_convert_wizard_go_next (wizard);
  g_assert_cmpstr (ts_convert_wizard_get_page (wizard), ==, "options");
  /* the default target: the end-to-end test may have written it */
  g_test_message ("default target: %s", ts_convert_wizard_get_target_message (wizard));
  g_assert_true (ts_convert_wizard_can_go_next (wizard));
  for (guint i = 0; i < G_N_ELEMENTS (paths); i++)
    {
      g_autoptr(GFile) file = g_file_new_for_path (paths[i]);
      const char *message;

      ts_convert_wizard_set_target (wizard, file);
      message = ts_convert_wizard_get_target_message (wizard);
      g_test_message ("%s: %s", paths[i], message);
      g_assert_nonnull (message);
      g_assert_nonnull (strstr (message, words[i]));
      /* only a file to replace may go on */
      g_assert_cmpint (ts_convert_wizard_can_go_next (wizard), ==, i == G_N_ELEMENTS (paths) - 1);
      /* a screen reader hears the field invalid, or not, and the message */
      {
        GtkWidget *entry = ts_test_find_descendant (GTK_WIDGET (wizard), GTK_TYPE_ENTRY);
        g_autofree char *wrong = NULL;

        g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (entry)), ==, paths[i]);
        wrong = gtk_test_accessible_check_state (GTK_ACCESSIBLE (entry), GTK_ACCESSIBLE_STATE_INVALID,
                                                 i == G_N_ELEMENTS (paths) - 1 ? GTK_ACCESSIBLE_INVALID_FALSE
                                                                               : GTK_ACCESSIBLE_INVALID_TRUE);
        g_assert_null (wrong);
        g_assert_true (gtk_test_accessible_has_relation (GTK_ACCESSIBLE (entry),
                                                         GTK_ACCESSIBLE_RELATION_DESCRIBED_BY));
      }
      if (i == 1)
        save_screenshot (GTK_WIDGET (wizard), "wizard-2-target-refused.png");
      /* an error (label.error) and a warning (label.warning) */
      if (i == 0 || i == G_N_ELEMENTS (paths) - 1)
        assert_readable_light_and_dark (GTK_WIDGET (wizard), words[i]);
    }
  /* split, the existing file is replaced where the whole output fits in
   * one file (written under its plain name), and not where a set named
   * after it is written */
  {
    SplitControls c = find_split_controls (wizard);
    const char *message;

    ts_test_wait_until (sizes_known, wizard, 30, "the predicted sizes");
    gtk_check_button_set_active (GTK_CHECK_BUTTON (c.check), TRUE);
    gtk_spin_button_set_value (GTK_SPIN_BUTTON (c.spin), 45);
    gtk_drop_down_set_selected (GTK_DROP_DOWN (c.drop), 1);  /* GB */
    message = ts_convert_wizard_get_target_message (wizard);
    g_test_message ("split at 45 GB: %s", message);
    g_assert_nonnull (message);
    g_assert_nonnull (strstr (message, "will replace it"));
    gtk_spin_button_set_value (GTK_SPIN_BUTTON (c.spin), 1);
    gtk_drop_down_set_selected (GTK_DROP_DOWN (c.drop), 0);  /* MB */
    g_assert_null (ts_convert_wizard_get_target_message (wizard));
    gtk_check_button_set_active (GTK_CHECK_BUTTON (c.check), FALSE);
    g_assert_nonnull (strstr (ts_convert_wizard_get_target_message (wizard), "will replace it"));
  }
  /* as typed: a folder's name with its "/", a file where a folder should
   * be, "~" for the home folder, a name alone next to the checkpoint
   * folder, and a name without .gguf (a warning) */
  {
    g_autofree char *slash = g_strconcat (fixture_dir, "/new-folder/", NULL);
    g_autofree char *under_file = g_build_filename (existing, "x.gguf", NULL);
    g_autofree char *no_ext = g_build_filename (fixture_dir, "model-out", NULL);
    const struct { const char *text; const char *word; gboolean next; } typed[] = {
      { slash, "names a folder", FALSE },
      { under_file, "is a file, not a folder", FALSE },
      { "~/home-model.gguf", NULL, TRUE },
      { "next-to-the-folder.gguf", NULL, TRUE },
      { no_ext, "does not end in .gguf", TRUE },
    };

    for (guint i = 0; i < G_N_ELEMENTS (typed); i++)
      {
        const char *message;

        ts_convert_wizard_set_target_text (wizard, typed[i].text);
        message = ts_convert_wizard_get_target_message (wizard);
        g_test_message ("%s: %s", typed[i].text, message);
        if (typed[i].word == NULL)
          g_assert_null (message);
        else
          g_assert_nonnull (strstr (message, typed[i].word));
        g_assert_cmpint (ts_convert_wizard_can_go_next (wizard), ==, typed[i].next);
      }
    /* where "~" and a name alone lead */
    ts_convert_wizard_set_target_text (wizard, "next-to-the-folder.gguf");
    ts_convert_wizard_go_next (wizard);
    ts_test_wait_until (wizard_idle, wizard, 30, "the plan");
    {
      g_autofree char *want = g_build_filename (fixture_dir, "next-to-the-folder.gguf", NULL);
      g_autofree char *got = g_file_get_path (ts_convert_wizard_get_target (wizard));

      g_assert_cmpstr (got, ==, want);
    }
    ts_convert_wizard_go_back (wizard);
    ts_convert_wizard_set_target_text (wizard, "~/home-model.gguf");
    ts_convert_wizard_go_next (wizard);
    ts_test_wait_until (wizard_idle, wizard, 30, "the plan");
    {
      g_autofree char *want = g_build_filename (g_get_home_dir (), "home-model.gguf", NULL);
      g_autofree char *got = g_file_get_path (ts_convert_wizard_get_target (wizard));

      g_assert_cmpstr (got, ==, want);
    }
    ts_convert_wizard_go_back (wizard);
    {
      g_autoptr(GFile) back = g_file_new_for_path (existing);

      ts_convert_wizard_set_target (wizard, back);
    }
  }

  /* the preview names the file it will write */
  ts_convert_wizard_go_next (wizard);
  ts_test_wait_until (wizard_idle, wizard, 30, "the plan");
  g_assert_cmpstr (ts_convert_wizard_get_page (wizard), ==, "preview");
  g_assert_cmpstr (ts_layout_get_title (ts_convert_wizard_get_preview_layout (wizard)), ==,
                   "existing.gguf (predicted)");
  /* and the button that would replace it says so, in red */
  {
    GtkWidget *replace = ts_test_find_button (GTK_WIDGET (wizard), "_Replace");

    g_assert_nonnull (replace);
    g_assert_true (gtk_widget_get_visible (replace));
    g_assert_true (gtk_widget_has_css_class (replace, "destructive-action"));
    g_assert_null (ts_test_find_button (GTK_WIDGET (wizard), "Con_vert"));
    /* Enter in a field never replaces a file */
    g_assert_null (gtk_window_get_default_widget (GTK_WINDOW (wizard)));
    save_screenshot (GTK_WIDGET (wizard), "wizard-3-preview-replace.png");
    ts_test_assert_mnemonics_unique (GTK_WIDGET (wizard));
  }
  /* in a short window the diagram gives way: the tables keep 55 % */
  {
    GtkWidget *paned = ts_test_find_descendant (GTK_WIDGET (wizard), GTK_TYPE_PANED);

    gtk_window_set_default_size (GTK_WINDOW (wizard), 700, 500);
    ts_test_run_for (500);
    g_test_message ("paned at %d of %d", gtk_paned_get_position (GTK_PANED (paned)),
                    gtk_widget_get_height (paned));
    g_assert_cmpint (gtk_paned_get_position (GTK_PANED (paned)), <=,
                     gtk_widget_get_height (paned) * 45 / 100 + 1);
    /* and the diagram would have taken more: the limit is what held it */
    {
      int natural = 0;

      gtk_widget_measure (gtk_paned_get_start_child (GTK_PANED (paned)), GTK_ORIENTATION_VERTICAL,
                          gtk_widget_get_width (paned), NULL, &natural, NULL, NULL);
      g_assert_cmpint (natural, >, gtk_widget_get_height (paned) * 45 / 100 + 1);
    }
    save_screenshot (GTK_WIDGET (wizard), "wizard-3-preview-short.png");
  }
  ts_convert_wizard_go_back (wizard);
  gtk_window_destroy (GTK_WINDOW (wizard));
}

/* ------------------------------------------------------------------------ */
/* A small window                                                            */

typedef struct
{
  int width;    /* what is drawn of the window; 0 × 0: its minimum */
  int height;
} WindowSize;

static const WindowSize minimum_size = { 0, 0 };
static const WindowSize size_600x560 = { 600, 560 };

typedef struct
{
  GtkWidget *window;
  int        width;
  int        height;
} SizeWait;

static gboolean
is_shown (gpointer data)
{
  return gtk_widget_get_mapped (data) && gtk_widget_get_width (data) > 0;
}

static gboolean
has_size (gpointer data)
{
  SizeWait *wait = data;

  return gtk_widget_get_width (wait->window) == wait->width &&
         gtk_widget_get_height (wait->window) == wait->height;
}

/* Resizes @wizard so that what is drawn of it is @size (the default size
 * counts the margins of the window's shadow too), or to its minimum;
 * @shown gets the size drawn */
static void
resize_wizard (TsConvertWizard  *wizard,
               const WindowSize *size,
               WindowSize       *shown)
{
  GtkWidget *widget = GTK_WIDGET (wizard);
  GdkSurface *surface = gtk_native_get_surface (GTK_NATIVE (wizard));
  SizeWait wait = { widget, size->width, size->height };
  int margin_x, margin_y;

  ts_test_wait_until (is_shown, widget, 10, "the window to show");
  margin_x = gdk_surface_get_width (surface) - gtk_widget_get_width (widget);
  margin_y = gdk_surface_get_height (surface) - gtk_widget_get_height (widget);
  if (size->width == 0)
    {
      int min_width, min_height;

      gtk_widget_measure (widget, GTK_ORIENTATION_HORIZONTAL, -1, &min_width, NULL, NULL, NULL);
      gtk_widget_measure (widget, GTK_ORIENTATION_VERTICAL, min_width, &min_height, NULL, NULL, NULL);
      wait.width = min_width - margin_x;
      wait.height = min_height - margin_y;
    }
  gtk_window_set_default_size (GTK_WINDOW (wizard), wait.width + margin_x, wait.height + margin_y);
  ts_test_wait_until (has_size, &wait, 10, "the window to take its size");
  shown->width = wait.width;
  shown->height = wait.height;
}

static GtkWidget *
pane_child (TsAuditPane *pane,
            const char  *id)
{
  GObject *child = gtk_widget_get_template_child (GTK_WIDGET (pane), TS_TYPE_AUDIT_PANE, id);

  g_assert_nonnull (child);
  return GTK_WIDGET (child);
}

static gboolean
pages_still (gpointer data)
{
  return !gtk_stack_get_transition_running (GTK_STACK (wizard_child (data, "stack")));
}

/* the page has slid in: its widgets are where they stay */
static void
wait_for_page (TsConvertWizard *wizard)
{
  ts_test_wait_until (pages_still, wizard, 5, "the page to slide in");
  ts_test_run_for (100);
}

/* the window is still @shown: the page has not made it larger */
static void
assert_window_is (TsConvertWizard  *wizard,
                  const WindowSize *shown)
{
  g_test_message ("page %s at %d × %d", ts_convert_wizard_get_page (wizard),
                  gtk_widget_get_width (GTK_WIDGET (wizard)), gtk_widget_get_height (GTK_WIDGET (wizard)));
  g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (wizard)), ==, shown->width);
  g_assert_cmpint (gtk_widget_get_height (GTK_WIDGET (wizard)), ==, shown->height);
}

/* @widget is shown whole inside the window, at least @min_width ×
 * @min_height */
static void
assert_inside (TsConvertWizard *wizard,
               GtkWidget       *widget,
               const char      *what,
               int              min_width,
               int              min_height)
{
  int width = gtk_widget_get_width (GTK_WIDGET (wizard));
  int height = gtk_widget_get_height (GTK_WIDGET (wizard));
  graphene_rect_t r;

  g_assert_nonnull (widget);
  if (!gtk_widget_is_drawable (widget))
    g_error ("%s is not shown", what);
  g_assert_true (gtk_widget_compute_bounds (widget, GTK_WIDGET (wizard), &r));
  g_test_message ("%s: %.0f × %.0f at %.0f, %.0f", what, r.size.width, r.size.height, r.origin.x, r.origin.y);
  if (r.origin.x < 0 || r.origin.y < 0 ||
      r.origin.x + r.size.width > width || r.origin.y + r.size.height > height)
    g_error ("%s (%.0f × %.0f at %.0f, %.0f) is not inside the %d × %d window",
             what, r.size.width, r.size.height, r.origin.x, r.origin.y, width, height);
  if (r.size.width < min_width || r.size.height < min_height)
    g_error ("%s is %.0f × %.0f, less than %d × %d", what, r.size.width, r.size.height, min_width, min_height);
}

/* the header bar's buttons and title are shown whole, side by side */
static void
assert_header_fits (TsConvertWizard *wizard)
{
  static const char * const ids[] = { "cancel_button", "back_button", "next_button" };
  GtkWidget *title = gtk_widget_get_parent (wizard_child (wizard, "subtitle_label"));
  graphene_rect_t title_bounds;

  assert_inside (wizard, title, "the title", 0, 0);
  g_assert_true (gtk_widget_compute_bounds (title, GTK_WIDGET (wizard), &title_bounds));
  for (guint i = 0; i < G_N_ELEMENTS (ids); i++)
    {
      GtkWidget *button = wizard_child (wizard, ids[i]);
      graphene_rect_t bounds;
      int natural;

      if (!gtk_widget_get_visible (button))
        continue;
      gtk_widget_measure (button, GTK_ORIENTATION_HORIZONTAL, -1, NULL, &natural, NULL, NULL);
      assert_inside (wizard, button, ids[i], natural, 0);
      g_assert_true (gtk_widget_compute_bounds (button, GTK_WIDGET (wizard), &bounds));
      g_assert_false (graphene_rect_intersection (&bounds, &title_bounds, NULL));
    }
}

/* the rows of the table @view (a column view) shown whole in its
 * scrolled window, each in @rows */
static void
get_rows_shown (GtkWidget *view,
                GPtrArray *rows)
{
  GtkWidget *list = ts_test_find_descendant (view, GTK_TYPE_LIST_VIEW);
  graphene_rect_t area, row;

  /* the list under the column titles is as tall as the part shown */
  g_assert_nonnull (list);
  g_assert_true (gtk_widget_compute_bounds (list, view, &area));
  for (GtkWidget *c = gtk_widget_get_first_child (list); c != NULL; c = gtk_widget_get_next_sibling (c))
    if (gtk_widget_get_child_visible (c) && gtk_widget_is_drawable (c) &&
        gtk_widget_compute_bounds (c, view, &row) &&
        row.origin.y >= area.origin.y && row.origin.y + row.size.height <= area.origin.y + area.size.height)
      g_ptr_array_add (rows, c);
}

/* the table @view shows @min_rows rows at least, in a scrolled window
 * shown whole, at least @min_width wide */
static void
assert_table_shown (TsConvertWizard *wizard,
                    GtkWidget       *view,
                    const char      *what,
                    int              min_width,
                    guint            min_rows)
{
  g_autoptr(GPtrArray) rows = g_ptr_array_new ();

  assert_inside (wizard, gtk_widget_get_ancestor (view, GTK_TYPE_SCROLLED_WINDOW), what, min_width, 0);
  get_rows_shown (view, rows);
  g_test_message ("%s: %u rows shown", what, rows->len);
  if (rows->len < min_rows)
    g_error ("%s shows %u rows, not %u", what, rows->len, min_rows);
}

/* In the rows shown of @view, the cells of the column titled @title are
 * readable: as wide as their whole text, or @min_width at least; and
 * aligned as @xalign says (numbers at their end: 1), unless it is
 * negative. (A row holds its cells in the order of the columns.) */
static void
assert_column_readable (GtkWidget  *view,
                        const char *title,
                        int         min_width,
                        float       xalign)
{
  GListModel *columns = gtk_column_view_get_columns (GTK_COLUMN_VIEW (view));
  g_autoptr(GPtrArray) rows = g_ptr_array_new ();
  guint index = G_MAXUINT;
  guint n_shown = 0;

  /* a hidden column (the preview's File, for one file) has no cells */
  for (guint i = 0; i < g_list_model_get_n_items (columns); i++)
    {
      g_autoptr(GtkColumnViewColumn) column = g_list_model_get_item (columns, i);

      if (!gtk_column_view_column_get_visible (column))
        continue;
      if (g_strcmp0 (gtk_column_view_column_get_title (column), title) == 0)
        index = n_shown;
      n_shown++;
    }
  g_assert_cmpuint (index, !=, G_MAXUINT);
  get_rows_shown (view, rows);
  g_assert_cmpuint (rows->len, >, 0);
  for (guint r = 0; r < rows->len; r++)
    {
      GtkWidget *cell = gtk_widget_get_first_child (rows->pdata[r]);
      GtkWidget *label;
      int natural;

      for (guint i = 0; i < index && cell != NULL; i++)
        cell = gtk_widget_get_next_sibling (cell);
      g_assert_nonnull (cell);
      label = ts_test_find_descendant (cell, GTK_TYPE_LABEL);
      g_assert_nonnull (label);
      gtk_widget_measure (label, GTK_ORIENTATION_HORIZONTAL, -1, NULL, &natural, NULL, NULL);
      if (gtk_widget_get_width (label) < MIN (natural, min_width))
        g_error ("%s: “%s” is %d px wide, its text %d px", title, gtk_label_get_text (GTK_LABEL (label)),
                 gtk_widget_get_width (label), natural);
      if (xalign >= 0)
        g_assert_cmpfloat (gtk_label_get_xalign (GTK_LABEL (label)), ==, xalign);
    }
}

/* what every page has: the header bar and the steps, whole; and no page
 * makes the window larger than @shown */
static void
assert_page_fits (TsConvertWizard  *wizard,
                  const WindowSize *shown,
                  const char       *screenshot)
{
  assert_window_is (wizard, shown);
  assert_header_fits (wizard);
  assert_inside (wizard, wizard_child (wizard, "steps_box"), "the steps", 0, 0);
  save_screenshot (GTK_WIDGET (wizard), screenshot);
}

static char *
small_screenshot_name (GtkWidget  *wizard,
                       const char *page)
{
  return g_strdup_printf ("wizard-small-%dx%d-%s.png", gtk_widget_get_width (wizard),
                          gtk_widget_get_height (wizard), page);
}

/* Preview: the summary, the diagram down to its bar and first labels, and
 * a few rows of each table with readable columns */
static void
assert_preview_fits (TsConvertWizard  *wizard,
                     const WindowSize *shown,
                     const char       *name)
{
  GtkWidget *area = wizard_child (wizard, "layout_view");
  GtkWidget *diagram = gtk_widget_get_ancestor (area, GTK_TYPE_SCROLLED_WINDOW);
  GtkWidget *tensors = wizard_child (wizard, "plan_tensors_view");
  GtkWidget *metadata = wizard_child (wizard, "plan_metadata_view");
  GtkStack *tables = GTK_STACK (gtk_widget_get_ancestor (tensors, GTK_TYPE_STACK));
  TsLayout *layout = ts_convert_wizard_get_preview_layout (wizard);
  const TsLayoutBand *first;
  g_autofree char *screenshot = small_screenshot_name (GTK_WIDGET (wizard), name);
  g_autofree char *metadata_name = NULL;
  int width = gtk_widget_get_width (GTK_WIDGET (wizard));

  g_assert_cmpstr (ts_convert_wizard_get_page (wizard), ==, "preview");
  wait_for_page (wizard);
  ts_test_wait_until (diagram_drawn, area, 20, "the diagram's geometry");
  /* (the geometry of the width shown: the bands are the view's) */
  first = ts_layout_get_band (layout, 0);
  gtk_stack_set_visible_child_name (tables, "tensors");
  assert_inside (wizard, wizard_child (wizard, "preview_summary_label"), "the summary", width, 0);
  assert_inside (wizard, diagram, "the diagram", width, 150);
  assert_inside (wizard, ts_test_find_descendant (wizard_child (wizard, "preview_paned"), GTK_TYPE_STACK_SWITCHER),
                 "the table switcher", 0, 0);
  /* the diagram shows its bar, and is drawn for the width it has */
  g_assert_true (first->visible);
  g_assert_cmpfloat (first->y + first->height, <=, gtk_widget_get_height (diagram));
  g_assert_cmpint (gtk_widget_get_width (area), ==, gtk_widget_get_width (diagram));
  assert_table_shown (wizard, tensors, "the tensor mapping", width, 4);
  assert_column_readable (tensors, "Hugging Face Tensor", 250, -1);
  assert_column_readable (tensors, "GGUF Tensor", G_MAXINT, -1);
  assert_column_readable (tensors, "Transform", G_MAXINT, -1);
  assert_column_readable (tensors, "Data Offset", G_MAXINT, 1);
  assert_page_fits (wizard, shown, screenshot);

  gtk_stack_set_visible_child_name (tables, "metadata");
  ts_test_run_for (100);
  assert_table_shown (wizard, metadata, "the metadata", width, 4);
  assert_column_readable (metadata, "Key", 250, -1);
  assert_column_readable (metadata, "Value", 200, -1);
  g_free (screenshot);
  metadata_name = g_strconcat (name, "-metadata", NULL);
  screenshot = small_screenshot_name (GTK_WIDGET (wizard), metadata_name);
  save_screenshot (GTK_WIDGET (wizard), screenshot);
  gtk_stack_set_visible_child_name (tables, "tensors");

  /* the divider dragged to either end squeezes neither side away */
  {
    GtkPaned *paned = GTK_PANED (wizard_child (wizard, "preview_paned"));
    int position = gtk_paned_get_position (paned);
    int max_position;

    gtk_paned_set_position (paned, 0);
    ts_test_run_for (200);
    assert_inside (wizard, diagram, "the diagram, the divider up", width, 150);
    g_object_get (paned, "max-position", &max_position, NULL);
    gtk_paned_set_position (paned, max_position);
    ts_test_run_for (200);
    assert_table_shown (wizard, tensors, "the tensor mapping, the divider down", width, 4);
    assert_inside (wizard, wizard_child (wizard, "preview_summary_label"), "the summary", width, 0);
    assert_window_is (wizard, shown);
    gtk_paned_set_position (paned, position);
    ts_test_run_for (200);
  }
}

/* Every page, at the smallest window the wizard allows and at 600 × 560:
 * nothing cut, overlapping, squeezed or out of the window; the tables
 * scroll, with rows in view, and the preview's diagram keeps its bar and
 * first labels in view. Before, the preview's diagram was cut to 94 px at
 * the smallest (above the end of its bar) and to 132 px at 600 × 560
 * (through its labels), a drag of the divider could take either side
 * away, the Transform and Value columns were squeezed below their text
 * ("Tin…" for "Tiny Llama"), the audit's tensor names to "…ttn_k.weight",
 * and the Verify page widened the window. */
static void
test_wizard_small_window (gconstpointer data)
{
  const WindowSize *size = data;
  g_autofree char *path = g_build_filename (fixture_dir, "small-window.gguf", NULL);
  g_autofree char *existing = g_build_filename (fixture_dir, "small-window-existing.gguf", NULL);
  g_autoptr(GFile) target = g_file_new_for_path (path);
  g_autoptr(GFile) replaced = g_file_new_for_path (existing);
  TsConvertWizard *wizard = open_wizard (sample_dir);
  GtkWidget *window = GTK_WIDGET (wizard);
  GtkWidget *content = gtk_window_get_child (GTK_WINDOW (wizard));
  g_autofree char *screenshot = NULL;
  WindowSize shown;
  TsAuditPane *pane;

  resize_wizard (wizard, size, &shown);
  g_test_message ("the window is %d × %d", shown.width, shown.height);

  /* 1. Source: the folder chosen, with its button */
  wait_for_page (wizard);
  assert_inside (wizard, wizard_child (wizard, "drop_box"), "the folder", 0, 0);
  screenshot = small_screenshot_name (window, "1-source");
  assert_page_fits (wizard, &shown, screenshot);

  /* 2. Options: no wider than the window (it scrolls down) */
  ts_convert_wizard_go_next (wizard);
  ts_test_wait_until (sizes_known, wizard, 30, "the predicted sizes");
  wait_for_page (wizard);
  {
    graphene_rect_t bounds;

    g_assert_true (gtk_widget_compute_bounds (wizard_child (wizard, "type_list"), window, &bounds));
    g_assert_cmpfloat (bounds.origin.x, >=, 0);
    g_assert_cmpfloat (bounds.origin.x + bounds.size.width, <=, shown.width);
  }
  g_free (screenshot);
  screenshot = small_screenshot_name (window, "2-options");
  assert_page_fits (wizard, &shown, screenshot);

  /* 3. Preview, of a file to replace (the summary says so: a line more),
   * then of a new one */
  g_assert_true (g_file_set_contents (existing, "old", 3, NULL));
  ts_convert_wizard_set_target (wizard, replaced);
  ts_convert_wizard_go_next (wizard);
  ts_test_wait_until (wizard_idle, wizard, 30, "the plan");
  g_assert_nonnull (ts_test_find_button (window, "_Replace"));
  assert_preview_fits (wizard, &shown, "3-preview-replace");
  ts_convert_wizard_go_back (wizard);
  ts_convert_wizard_set_target (wizard, target);
  ts_convert_wizard_go_next (wizard);
  ts_test_wait_until (wizard_idle, wizard, 30, "the plan");
  assert_preview_fits (wizard, &shown, "3-preview");

  /* 4. Convert, paced so that the page is seen while it writes: the
   * sample is one 4 MiB block, which ended 300 ms after its first progress,
   * sooner than the page slid in on a loaded machine; in 32 KiB blocks
   * it takes some 8 s */
  g_setenv ("TENSORSCOPE_TEST_BLOCK_DELAY_US", "150000", TRUE);
  g_setenv ("TENSORSCOPE_TEST_BLOCK_BYTES", "32768", TRUE);
  ts_convert_wizard_go_next (wizard);
  g_unsetenv ("TENSORSCOPE_TEST_BLOCK_DELAY_US");
  g_unsetenv ("TENSORSCOPE_TEST_BLOCK_BYTES");
  ts_test_wait_until (conversion_halfway, wizard, 30, "conversion progress");
  wait_for_page (wizard);
  g_assert_cmpstr (ts_convert_wizard_get_convert_state (wizard), ==, "running");
  assert_inside (wizard, wizard_child (wizard, "convert_progress"), "the progress bar", 400, 0);
  assert_inside (wizard, wizard_child (wizard, "stop_button"), "Stop Conversion", 200, 0);
  g_free (screenshot);
  screenshot = small_screenshot_name (window, "4-convert");
  assert_window_is (wizard, &shown);
  assert_header_fits (wizard);
  render_png (window, screenshot);

  /* 5. Verify: its buttons, rows of the audit's tables, names whole */
  ts_test_wait_until (on_verify_done, wizard, 60, "the conversion and its audit");
  wait_for_page (wizard);
  g_assert_cmpstr (ts_convert_wizard_get_verify_state (wizard), ==, "result");
  pane = ts_convert_wizard_get_audit_pane (wizard);
  ts_audit_pane_show_view (pane, "checks");
  ts_test_run_for (300);
  assert_inside (wizard, wizard_child (wizard, "open_output_button"), "Open Output", 0, 0);
  assert_inside (wizard, pane_child (pane, "export_button"), "Export Report", 0, 0);
  assert_table_shown (wizard, pane_child (pane, "checks_view"), "the checks", shown.width, 3);
  g_free (screenshot);
  screenshot = small_screenshot_name (window, "5-verify");
  assert_page_fits (wizard, &shown, screenshot);
  ts_audit_pane_show_view (pane, "tensors");
  ts_test_run_for (300);
  assert_inside (wizard, pane_child (pane, "search_entry"), "the filter", 0, 0);
  assert_inside (wizard, pane_child (pane, "pairs_count_label"), "the pair count", 0, 0);
  assert_table_shown (wizard, pane_child (pane, "pairs_view"), "the tensor pairs", shown.width, 3);
  assert_column_readable (pane_child (pane, "pairs_view"), "Source Tensor", 180, -1);
  assert_column_readable (pane_child (pane, "pairs_view"), "GGUF Tensor", G_MAXINT, -1);
  g_free (screenshot);
  screenshot = small_screenshot_name (window, "5-verify-tensors");
  assert_page_fits (wizard, &shown, screenshot);

  /* the smallest window is the one the .ui states, whatever the page:
   * its content at 600 × 454, under the header bar */
  if (size->width == 0)
    {
      int request_width, request_height;

      gtk_widget_get_size_request (content, &request_width, &request_height);
      g_assert_cmpint (request_width, ==, 600);
      g_assert_cmpint (gtk_widget_get_width (content), ==, request_width);
      g_assert_cmpint (gtk_widget_get_height (content), ==, request_height);
    }

  gtk_window_destroy (GTK_WINDOW (wizard));
  g_assert_cmpint (g_remove (path), ==, 0);
  g_assert_cmpint (g_remove (existing), ==, 0);
}

static gboolean
on_verify_page (gpointer data)
{
  return g_strcmp0 (ts_convert_wizard_get_page (data), "verify") == 0;
}

/* Stop the Audit stops the audit only: the file stays, Done closes */
static void
test_wizard_stop_audit (void)
{
  TsConvertWizard *wizard = open_wizard (sample_dir);
  g_autofree char *path = g_build_filename (fixture_dir, "stop-audit.gguf", NULL);
  g_autoptr(GFile) target = g_file_new_for_path (path);

  ts_convert_wizard_go_next (wizard);
  ts_convert_wizard_set_target (wizard, target);
  ts_convert_wizard_go_next (wizard);
  ts_test_wait_until (wizard_idle, wizard, 30, "the plan");
  g_assert_cmpstr (ts_convert_wizard_get_page (wizard), ==, "preview");
  ts_convert_wizard_go_next (wizard);
  /* checked after each main loop dispatch: the audit has just started */
  ts_test_wait_until (on_verify_page, wizard, 60, "the conversion");
  g_assert_cmpstr (ts_convert_wizard_get_verify_state (wizard), ==, "running");
  g_assert_false (ts_convert_wizard_can_go_next (wizard));
  ts_convert_wizard_stop_audit (wizard);
  g_assert_cmpstr (ts_convert_wizard_get_verify_state (wizard), ==, "stopped");
  g_assert_false (ts_convert_wizard_get_busy (wizard));
  g_assert_true (ts_convert_wizard_can_go_next (wizard));
  /* the stopped run's late callbacks change nothing */
  ts_test_run_for (500);
  g_assert_cmpstr (ts_convert_wizard_get_verify_state (wizard), ==, "stopped");
  g_assert_false (ts_convert_wizard_get_busy (wizard));
  g_assert_true (g_file_test (path, G_FILE_TEST_IS_REGULAR));
  save_screenshot (GTK_WIDGET (wizard), "wizard-5-audit-stopped.png");
  /* Audit Now runs it after all, to its result */
  g_signal_emit_by_name (ts_test_find_button (GTK_WIDGET (wizard), "_Audit Now"), "clicked");
  g_assert_cmpstr (ts_convert_wizard_get_verify_state (wizard), ==, "running");
  ts_test_wait_until (on_verify_done, wizard, 60, "the audit started again");
  g_assert_cmpstr (ts_convert_wizard_get_verify_state (wizard), ==, "result");
  g_object_add_weak_pointer (G_OBJECT (wizard), (gpointer *) &wizard);
  ts_convert_wizard_go_next (wizard);   /* Done */
  ts_test_run_for (100);
  g_assert_null (wizard);
  g_assert_true (g_file_test (path, G_FILE_TEST_IS_REGULAR));
}

static gboolean
window_shows_model (gpointer data)
{
  return ts_window_get_model (data) != NULL;
}

/* a window showing the model, the active one */
static TsWindow *
show_in_window (const char *path)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  TsWindow *window = ts_window_new (TS_APPLICATION (app));

  gtk_window_present (GTK_WINDOW (window));
  ts_window_open (window, file);
  ts_test_wait_until (window_shows_model, window, 20, path);
  g_assert_true (gtk_application_get_active_window (GTK_APPLICATION (app)) == GTK_WINDOW (window));
  return window;
}

static TsAuditWindow *find_audit_window (void);

/* From a window that shows a checkpoint, Convert starts from its folder;
 * from one that shows a GGUF, Audit has it as the file to check */
static void
test_from_open_model (void)
{
  g_autofree char *base = g_path_get_basename (converted_path);
  TsWindow *window = show_in_window (sample_dir);
  TsConvertWizard *wizard;
  TsAuditWindow *audit;

  g_action_group_activate_action (G_ACTION_GROUP (app), "convert", NULL);
  wizard = TS_CONVERT_WIZARD (ts_test_find_toplevel (TS_TYPE_CONVERT_WIZARD));
  g_assert_nonnull (wizard);
  ts_test_wait_until (wizard_idle, wizard, 30, "the source scan");
  g_assert_null (ts_convert_wizard_get_problem (wizard));
  g_assert_true (ts_convert_wizard_can_go_next (wizard));
  gtk_window_destroy (GTK_WINDOW (wizard));
  gtk_window_destroy (GTK_WINDOW (window));

  window = show_in_window (converted_path);
  g_action_group_activate_action (G_ACTION_GROUP (app), "audit", NULL);
  audit = find_audit_window ();
  g_assert_nonnull (audit);
  g_assert_nonnull (ts_test_find_label (GTK_WIDGET (audit), base));
  gtk_window_destroy (GTK_WINDOW (audit));
  gtk_window_destroy (GTK_WINDOW (window));
}

static TsAuditWindow *
find_audit_window (void)
{
  for (GList *l = gtk_application_get_windows (GTK_APPLICATION (app)); l != NULL; l = l->next)
    if (TS_IS_AUDIT_WINDOW (l->data))
      return l->data;
  return NULL;
}

/* The GGUF button asks for a GGUF file to audit, showing GGUF files */
static void
check_gguf_chooser (TsAuditWindow *window)
{
  GtkWidget *button = ts_test_find_button (GTK_WIDGET (window), "_GGUF…");
  GtkWindow *chooser = NULL;
  GtkFileFilter *filter;

  g_assert_nonnull (button);
  g_assert_null (ts_test_find_toplevel (GTK_TYPE_FILE_CHOOSER));
  gtk_widget_activate (button);
  for (guint i = 0; i < 50 && (chooser = ts_test_find_toplevel (GTK_TYPE_FILE_CHOOSER)) == NULL; i++)
    ts_test_run_for (100);
  g_assert_nonnull (chooser);
  g_assert_cmpstr (gtk_window_get_title (chooser), ==, "Choose the GGUF File to Audit");
#if !GTK_CHECK_VERSION (4, 10, 0)
  /* GTK 4.8's chooser is a GtkFileChooser window, read with its 4.8 API */
  g_assert_cmpint (gtk_file_chooser_get_action (GTK_FILE_CHOOSER (chooser)), ==, GTK_FILE_CHOOSER_ACTION_OPEN);
  filter = gtk_file_chooser_get_filter (GTK_FILE_CHOOSER (chooser));
  g_assert_nonnull (filter);
  g_assert_cmpstr (gtk_file_filter_get_name (filter), ==, "GGUF Files");
#else
  (void) filter;
#endif
  save_screenshot (GTK_WIDGET (chooser), "audit-choose-gguf.png");
  gtk_window_close (chooser);
  for (guint i = 0; i < 50 && ts_test_find_toplevel (GTK_TYPE_FILE_CHOOSER) != NULL; i++)
    ts_test_run_for (100);
  g_assert_null (ts_test_find_toplevel (GTK_TYPE_FILE_CHOOSER));
  /* dismissed: nothing chosen */
  g_assert_cmpstr (ts_audit_window_get_page (window), ==, "choose");
}

/* After Back, a file picked in a chooser is the one the audit takes (the
 * choosers used the audit's cancellable, which Back cancels) */
static void
check_choose_after_back (TsAuditWindow *window,
                         const char    *path)
{
#if !GTK_CHECK_VERSION (4, 10, 0)
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autofree char *name = g_path_get_basename (path);
  GtkWidget *button = ts_test_find_button (GTK_WIDGET (window), "_GGUF…");
  GtkWindow *chooser = NULL;

  ts_audit_window_go_back (window);
  g_assert_cmpstr (ts_audit_window_get_page (window), ==, "choose");
  g_assert_null (ts_test_find_label (GTK_WIDGET (window), name));
  gtk_widget_activate (button);
  for (guint i = 0; i < 50 && (chooser = ts_test_find_toplevel (GTK_TYPE_FILE_CHOOSER)) == NULL; i++)
    ts_test_run_for (100);
  g_assert_nonnull (chooser);
  /* GTK 4.8's chooser is a GtkFileChooserDialog: pick the file, accept */
  g_assert_true (gtk_file_chooser_set_file (GTK_FILE_CHOOSER (chooser), file, NULL));
  ts_test_run_for (500);   /* the chooser loads the folder to select the file in */
  gtk_dialog_response (GTK_DIALOG (chooser), GTK_RESPONSE_ACCEPT);
  for (guint i = 0; i < 50 && ts_test_find_label (GTK_WIDGET (window), name) == NULL; i++)
    ts_test_run_for (100);
  g_assert_nonnull (ts_test_find_label (GTK_WIDGET (window), name));
#else
  (void) window;
  (void) path;
#endif
}

static gboolean
audit_finished (gpointer data)
{
  const char *page = ts_audit_window_get_page (data);

  return g_strcmp0 (page, "result") == 0 || g_strcmp0 (page, "error") == 0;
}

static void
test_audit_corrupted (void)
{
  g_autofree char *path = g_build_filename (fixture_dir, "corrupted.gguf", NULL);
  g_autoptr(GFile) source = g_file_new_for_path (sample_dir);
  g_autoptr(GFile) target = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  g_autoptr(TsModelFile) model = NULL;
  g_autofree char *contents = NULL;
  TsAuditWindow *window;
  TsAuditPane *pane;
  GListModel *rows;
  TsTensor *tensor;
  guint64 offset;
  gsize len;

  g_assert_nonnull (converted_path);
  copy_file (converted_path, path);

  /* flip one byte in the middle of one tensor's data */
  model = ts_model_file_load (target, NULL, &error);
  g_assert_no_error (error);
  tensor = ts_model_file_lookup_tensor (model, "blk.1.ffn_down.weight");
  g_assert_nonnull (tensor);
  offset = ts_tensor_get_offset (tensor) + ts_tensor_get_size (tensor) / 2;
  g_clear_object (&model);
  g_assert_true (g_file_get_contents (path, &contents, &len, NULL));
  g_assert_cmpuint (offset, <, len);
  contents[offset] ^= 0x40;
  g_assert_true (g_file_set_contents (path, contents, len, NULL));

  /* from the menu */
  g_action_group_activate_action (G_ACTION_GROUP (app), "audit", NULL);
  window = find_audit_window ();
  g_assert_nonnull (window);
  g_assert_cmpstr (ts_audit_window_get_page (window), ==, "choose");
  check_gguf_chooser (window);
  ts_audit_window_set_files (window, source, target);
  save_screenshot (GTK_WIDGET (window), "audit-choose.png");
  /* a screen reader says what each choice is for, and what it holds */
  {
    const char *buttons[] = { "_Folder…", "F_ile…", "_GGUF…" };

    for (guint i = 0; i < G_N_ELEMENTS (buttons); i++)
      g_assert_true (gtk_test_accessible_has_relation (GTK_ACCESSIBLE (ts_test_find_button (GTK_WIDGET (window), buttons[i])),
                                                       GTK_ACCESSIBLE_RELATION_DESCRIBED_BY));
  }
  ts_test_assert_mnemonics_unique (GTK_WIDGET (window));
  ts_audit_window_start (window);
  ts_test_wait_until (audit_finished, window, 60, "the audit");
  g_assert_cmpstr (ts_audit_window_get_page (window), ==, "result");
  /* the back button (an icon), the progress bar, the audit's tables */
  ts_test_assert_named (GTK_WIDGET (window));

  pane = ts_audit_window_get_pane (window);
  g_assert_false (ts_audit_report_get_passed (ts_audit_pane_get_report (pane)));
  /* a failed audit opens on its failures: exactly the corrupted tensor */
  rows = ts_audit_pane_get_pair_rows (pane);
  g_assert_cmpuint (g_list_model_get_n_items (rows), ==, 1);
  {
    g_autoptr(TsAuditPair) pair = g_list_model_get_item (rows, 0);

    g_test_message ("failing pair: %s", ts_audit_pair_get_detail (pair));
    g_assert_cmpstr (ts_audit_pair_get_target_name (pair), ==, "blk.1.ffn_down.weight");
    g_assert_cmpint (ts_audit_pair_get_status (pair), ==, TS_AUDIT_FAIL);
    g_assert_cmpuint (ts_audit_pair_get_n_mismatch (pair), >=, 1);
    /* where the values first differ is on screen, under the detail, as
     * the text report says it: index, coordinates, values and bits */
    {
      g_autofree char *mismatch = ts_audit_pair_dup_first_mismatch_text (pair);
      GtkWidget *label = ts_test_find_label (GTK_WIDGET (pane), "first mismatch at source index ");

      g_test_message ("first mismatch: %s", mismatch);
      g_assert_nonnull (mismatch);
      g_assert_true (g_str_has_prefix (mismatch, "first mismatch at source index "));
      g_assert_nonnull (strstr (mismatch, " vs 0x"));
      g_assert_nonnull (label);
      g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (label)), ==, mismatch);
      g_assert_nonnull (ts_test_find_label (GTK_WIDGET (pane), ts_audit_pair_get_detail (pair)));
    }
  }
  save_screenshot (GTK_WIDGET (window), "audit-pane-failed.png");
  /* the HTML report says where too, under the failed tensor's detail */
  {
    g_autoptr(TsAuditPair) pair = g_list_model_get_item (rows, 0);
    g_autofree char *mismatch = ts_audit_pair_dup_first_mismatch_text (pair);
    g_autofree char *escaped = g_markup_escape_text (mismatch, -1);
    g_autofree char *expected = g_strdup_printf ("<br/><span class=\"where\">%s</span></td>", escaped);
    g_autofree char *html_path = g_build_filename (fixture_dir, "audit-failed.html", NULL);
    g_autofree char *html = NULL;

    export_report (pane, html_path);
    g_assert_true (g_file_get_contents (html_path, &html, NULL, NULL));
    g_assert_nonnull (strstr (html, expected));
  }
  ts_test_assert_mnemonics_unique (GTK_WIDGET (window));
  assert_readable_light_and_dark (GTK_WIDGET (pane), "Failed");
  /* a long source name keeps its end: the role (the GGUF name says the layer) */
  {
    GtkWidget *name = ts_test_find_label (GTK_WIDGET (pane), "model.layers.1.mlp.down_proj.weight");

    g_assert_nonnull (name);
    g_assert_cmpint (gtk_label_get_ellipsize (GTK_LABEL (name)), ==, PANGO_ELLIPSIZE_START);
  }
  ts_audit_pane_show_view (pane, "checks");
  save_screenshot (GTK_WIDGET (window), "audit-pane-failed-checks.png");

  /* Alt+Left goes back, as the help window says; there, it does nothing */
  g_assert_true (ts_test_activate_shortcut (GTK_WIDGET (window), "<Alt>Left"));
  g_assert_cmpstr (ts_audit_window_get_page (window), ==, "choose");
  g_assert_false (ts_test_activate_shortcut (GTK_WIDGET (window), "<Alt>Left"));
  /* Back, then another GGUF from the chooser: the one converted */
  check_choose_after_back (window, converted_path);

  gtk_window_destroy (GTK_WINDOW (window));
}

/* Q4_0 of 32 values, nearest level against the block's largest magnitude
 * (llama.cpp's rule, near enough: the audit measures, it does not
 * re-derive) */
static void
quantize_q4_0_block (const float *x,
                     guint8      *out)
{
  float max = 0, d, id;
  guint16 h;

  for (guint i = 0; i < 32; i++)
    if (fabsf (x[i]) > fabsf (max))
      max = x[i];
  d = max / -8;
  id = d != 0 ? 1 / d : 0;
  h = ts_f32_to_f16 (d);
  out[0] = h & 0xff;
  out[1] = h >> 8;
  for (guint i = 0; i < 16; i++)
    {
      guint lo = (guint) MIN (15, (gint8) (x[i] * id + 8.5f));
      guint hi = (guint) MIN (15, (gint8) (x[i + 16] * id + 8.5f));

      out[2 + i] = (guint8) (lo | (hi << 4));
    }
}

/* @source (a GGUF) with every matrix quantized to Q4_0, written through
 * the core's GGUF writer; the other tensors as they are */
static void
write_q4_0_copy (const char *source,
                 const char *target)
{
  g_autoptr(GFile) file = g_file_new_for_path (source);
  g_autoptr(GFile) out = g_file_new_for_path (target);
  g_autoptr(GError) error = NULL;
  g_autoptr(TsModelFile) model = ts_model_file_load (file, NULL, &error);
  g_autoptr(TsGgufMetadata) md = ts_gguf_metadata_new ();
  g_autoptr(GPtrArray) blobs = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  g_autoptr(GArray) offsets = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_autoptr(GBytes) header = NULL;
  GListModel *tensors;
  TsGgufWriter *writer;

  g_assert_no_error (error);
  ts_gguf_metadata_add_string (md, "general.architecture", "llama", "test");
  writer = ts_gguf_writer_new (md, 32);
  tensors = ts_model_file_get_tensors (model);
  for (guint i = 0; i < g_list_model_get_n_items (tensors); i++)
    {
      g_autoptr(TsTensor) t = g_list_model_get_item (tensors, i);
      guint64 n = ts_tensor_get_n_elements (t);
      const guint64 *dims = ts_tensor_get_shape (t);
      TsDType dtype = ts_tensor_get_dtype (t);
      GBytes *blob;
      guint64 offset;

      if (ts_tensor_get_n_dims (t) == 2 && dims[0] % 32 == 0)
        {
          g_autofree float *x = g_new (float, n);
          guint8 *q = g_malloc (n / 32 * 18);

          g_assert_true (ts_dtype_read_f32 (dtype, ts_tensor_get_data (t), x, n));
          for (guint64 b = 0; b < n / 32; b++)
            quantize_q4_0_block (x + 32 * b, q + 18 * b);
          blob = g_bytes_new_take (q, n / 32 * 18);
          dtype = TS_DTYPE_Q4_0;
        }
      else
        blob = g_bytes_new (ts_tensor_get_data (t), ts_tensor_get_size (t));
      offset = ts_gguf_writer_add_tensor (writer, ts_tensor_get_name (t), ts_tensor_get_n_dims (t),
                                          dims, dtype, g_bytes_get_size (blob));
      g_ptr_array_add (blobs, blob);
      g_array_append_val (offsets, offset);
    }
  g_assert_true (ts_gguf_writer_open (writer, out, TRUE, &error));
  g_assert_no_error (error);
  header = ts_gguf_writer_build_header (writer);
  g_assert_true (ts_gguf_writer_pwrite (writer, g_bytes_get_data (header, NULL),
                                        g_bytes_get_size (header), 0, &error));
  for (guint i = 0; i < blobs->len; i++)
    g_assert_true (ts_gguf_writer_pwrite (writer, g_bytes_get_data (blobs->pdata[i], NULL),
                                          g_bytes_get_size (blobs->pdata[i]),
                                          ts_gguf_writer_get_data_offset (writer) +
                                          g_array_index (offsets, guint64, i), &error));
  g_assert_true (ts_gguf_writer_commit (writer, &error));
  g_assert_no_error (error);
  ts_gguf_writer_free (writer);
}

/* A quantized file (Q4_0) against the GGUF it came from: the audit
 * decodes its matrices and measures them; the pane says so, per tensor
 * and in the quantized check */
static void
test_audit_quantized (void)
{
  g_autofree char *path = g_build_filename (fixture_dir, "quantized.gguf", NULL);
  g_autoptr(GFile) source = NULL;
  g_autoptr(GFile) target = g_file_new_for_path (path);
  TsAuditWindow *window;
  TsAuditPane *pane;
  TsAuditReport *report;
  GListModel *checks;
  guint n_decoded = 0;
  gboolean quantized_check = FALSE;

  g_assert_nonnull (converted_path);
  source = g_file_new_for_path (converted_path);
  write_q4_0_copy (converted_path, path);

  g_action_group_activate_action (G_ACTION_GROUP (app), "audit", NULL);
  window = find_audit_window ();
  g_assert_nonnull (window);
  ts_audit_window_set_files (window, source, target);
  ts_audit_window_start (window);
  ts_test_wait_until (audit_finished, window, 60, "the audit");
  g_assert_cmpstr (ts_audit_window_get_page (window), ==, "result");
  pane = ts_audit_window_get_pane (window);
  report = ts_audit_pane_get_report (pane);
  g_assert_true (ts_audit_report_get_passed (report));

  checks = ts_audit_report_get_checks (report);
  for (guint i = 0; i < g_list_model_get_n_items (checks); i++)
    {
      g_autoptr(TsAuditCheck) check = g_list_model_get_item (checks, i);

      if (g_str_equal (ts_audit_check_get_name (check), "quantized"))
        {
          quantized_check = TRUE;
          g_assert_cmpint (ts_audit_check_get_status (check), ==, TS_AUDIT_PASS);
          g_assert_nonnull (strstr (ts_audit_check_get_detail (check), "Q4_0: "));
        }
    }
  g_assert_true (quantized_check);
  /* the headline does not say "All 7 checks passed" over a warning (the
   * metadata check's: the quantized copy keeps few keys) */
  {
    guint n_checks = g_list_model_get_n_items (checks);
    guint n_warned = 0;
    g_autofree char *headline = NULL;

    for (guint i = 0; i < n_checks; i++)
      {
        g_autoptr(TsAuditCheck) check = g_list_model_get_item (checks, i);

        n_warned += ts_audit_check_get_status (check) == TS_AUDIT_WARN;
      }
    g_assert_cmpuint (n_warned, ==, 1);
    headline = g_strdup_printf ("%u checks passed, 1 warning", n_checks - 1);
    g_assert_nonnull (ts_test_find_label (GTK_WIDGET (pane), headline));
    g_assert_null (ts_test_find_label (GTK_WIDGET (pane), "All "));
    /* nor its icon a plain tick: a warning's, named so */
    {
      GtkWidget *icon = ts_test_find_descendant (GTK_WIDGET (pane), GTK_TYPE_IMAGE);

      g_assert_true (gtk_widget_has_css_class (icon, "audit-status-icon"));
      g_assert_cmpstr (gtk_image_get_icon_name (GTK_IMAGE (icon)), ==, "dialog-warning-symbolic");
      g_assert_true (gtk_widget_has_css_class (icon, "warn"));
      g_assert_null (gtk_test_accessible_check_property (GTK_ACCESSIBLE (icon), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                                         "Warning"));
    }
  }
  save_screenshot (GTK_WIDGET (window), "audit-pane-quantized-checks.png");

  ts_audit_pane_show_view (pane, "tensors");
  {
    GListModel *rows = ts_audit_pane_get_pair_rows (pane);

    for (guint i = 0; i < g_list_model_get_n_items (rows); i++)
      {
        g_autoptr(TsAuditPair) pair = g_list_model_get_item (rows, i);

        if (g_strcmp0 (ts_audit_pair_get_target_dtype (pair), "Q4_0") != 0)
          continue;
        n_decoded++;
        g_assert_cmpint (ts_audit_pair_get_status (pair), ==, TS_AUDIT_PASS);
        g_assert_true (g_str_has_prefix (ts_audit_pair_get_detail (pair), "decoded from Q4_0: relative RMS error"));
        /* the detail is on screen, not only in the model */
        if (n_decoded == 1)
          g_assert_nonnull (ts_test_find_label (GTK_WIDGET (pane), ts_audit_pair_get_detail (pair)));
      }
  }
  g_assert_cmpuint (n_decoded, >, 0);
  save_screenshot (GTK_WIDGET (window), "audit-pane-quantized.png");

  /* the HTML report's verdict says that a check is a warning */
  {
    g_autofree char *html_path = g_build_filename (fixture_dir, "quantized.html", NULL);
    g_autofree char *html = NULL;

    export_report (pane, html_path);
    g_assert_true (g_file_get_contents (html_path, &html, NULL, NULL));
    g_assert_nonnull (strstr (html, "(1 of them is a warning: see below.)"));
  }
  gtk_window_destroy (GTK_WINDOW (window));
}

static gboolean
window_gone (gpointer data)
{
  return *(gpointer *) data == NULL;
}

/* Closing the audit window stops its audit at once (the audit's task held
 * the window, which lived, and audited, until the end) */
static void
test_audit_close_while_running (void)
{
  g_autoptr(GFile) source = g_file_new_for_path (sample_dir);
  g_autoptr(GFile) target = NULL;
  TsAuditWindow *window;
  gint64 closed_at;

  g_assert_nonnull (converted_path);
  target = g_file_new_for_path (converted_path);
  /* paced: half a second after each chunk compared, seconds in all */
  g_setenv ("TENSORSCOPE_TEST_AUDIT_CHUNK_DELAY_US", "500000", TRUE);
  g_action_group_activate_action (G_ACTION_GROUP (app), "audit", NULL);
  window = find_audit_window ();
  g_assert_nonnull (window);
  g_object_add_weak_pointer (G_OBJECT (window), (gpointer *) &window);
  ts_audit_window_set_files (window, source, target);
  ts_audit_window_start (window);
  ts_test_run_for (700);
  g_assert_cmpstr (ts_audit_window_get_page (window), ==, "running");

  closed_at = g_get_monotonic_time ();
  gtk_window_close (GTK_WINDOW (window));
  ts_test_wait_until (window_gone, &window, 5, "the audit window to go");
  g_test_message ("gone %.3f s after closing", (g_get_monotonic_time () - closed_at) / 1e6);
  g_assert_cmpint (g_get_monotonic_time () - closed_at, <, 1500 * 1000);
  g_unsetenv ("TENSORSCOPE_TEST_AUDIT_CHUNK_DELAY_US");
}

/* Stop, then at once Convert Again to the same target, several times: a
 * run still winding down is never raced by the next one (Convert Again
 * waits for it), each stop leaves no temporary file, and closing during
 * the last run leaves the file that was there before untouched */
static void
test_wizard_restart_same_target (void)
{
  g_autofree char *dir = g_build_filename (fixture_dir, "restart-sample", NULL);
  g_autofree char *out_dir = g_build_filename (fixture_dir, "restart-out", NULL);
  g_autofree char *out_path = g_build_filename (out_dir, "restart.gguf", NULL);
  g_autoptr(GFile) out = g_file_new_for_path (out_path);
  TsConvertWizard *wizard;

  g_assert_cmpint (g_mkdir_with_parents (out_dir, 0755), ==, 0);
  wizard = start_paced_conversion (dir, 8, out);
  g_object_add_weak_pointer (G_OBJECT (wizard), (gpointer *) &wizard);
  for (guint i = 0; i < 3; i++)
    {
      ts_convert_wizard_cancel_conversion (wizard);
      /* winding down: nothing to start yet */
      g_assert_false (ts_convert_wizard_can_go_next (wizard));
      ts_convert_wizard_go_next (wizard);
      ts_test_wait_until (conversion_stopped, wizard, 10, "the conversion to stop");
      g_assert_cmpstr (ts_convert_wizard_get_convert_state (wizard), ==, "cancelled");
      g_assert_cmpuint (ts_test_count_entries (out_dir), ==, 0);
      g_assert_true (ts_convert_wizard_can_go_next (wizard));
      ts_convert_wizard_go_next (wizard);
      g_assert_cmpstr (ts_convert_wizard_get_convert_state (wizard), ==, "running");
      g_assert_nonnull (ts_convert_wizard_get_converter (wizard));
    }
  ts_test_wait_until (conversion_halfway, wizard, 30, "conversion progress");
  g_assert_cmpuint (ts_test_count_entries (out_dir), ==, 1);
  gtk_window_close (GTK_WINDOW (wizard));
  ts_test_wait_until (window_gone, &wizard, 5, "the wizard to go");
  g_assert_cmpuint (ts_test_count_entries (out_dir), ==, 0);
  g_unsetenv ("TENSORSCOPE_TEST_BLOCK_DELAY_US");
}

static gboolean
stop_signal_watched (int signum)
{
  struct sigaction action;

  g_assert_cmpint (sigaction (signum, NULL, &action), ==, 0);
  return action.sa_handler != SIG_DFL && action.sa_handler != SIG_IGN;
}

static gboolean sigterm_raised;

static gboolean
raise_sigterm (gpointer data)
{
  g_test_message ("SIGTERM, %.0f %% converted",
                  100 * ts_converter_get_fraction (ts_convert_wizard_get_converter (data)));
  sigterm_raised = TRUE;
  raise (SIGTERM);
  return G_SOURCE_REMOVE;
}

static gboolean
pointer_cleared (gpointer data)
{
  return *(gpointer *) data == NULL;
}

static gboolean
application_stuck (gpointer data)
{
  g_error ("the application did not quit within 20 s of SIGTERM");
  return G_SOURCE_REMOVE;
}

/* SIGTERM while converting (a logout, systemctl stop; SIGINT and SIGHUP
 * too) does what Ctrl+Q does: the conversion stops, the converter removes
 * its temporary file, and the application quits. The default action would
 * end the process at once, leaving the hidden .part file behind. Run
 * last: the application's main loop runs, and ends, here. */
static void
test_quit_on_sigterm (void)
{
  g_autofree char *dir = g_build_filename (fixture_dir, "sigterm-sample", NULL);
  g_autofree char *out_dir = g_build_filename (fixture_dir, "sigterm-out", NULL);
  g_autofree char *out_path = g_build_filename (out_dir, "sigterm.gguf", NULL);
  g_autoptr(GFile) out = g_file_new_for_path (out_path);
  TsConvertWizard *wizard;
  guint stuck_id;
  gint64 started;
  int status;

  /* caught, not left to the default action (which the raise below would
   * take: the test would end there) */
  g_assert_true (stop_signal_watched (SIGTERM));
  g_assert_true (stop_signal_watched (SIGINT));
  /* ignored when the application started (main() did so, as nohup does):
   * still ignored, not taken over */
  {
    struct sigaction action;

    g_assert_cmpint (sigaction (SIGHUP, NULL, &action), ==, 0);
    g_assert_true (action.sa_handler == SIG_IGN);
  }

  g_assert_cmpint (g_mkdir_with_parents (out_dir, 0755), ==, 0);
  wizard = start_paced_conversion (dir, 8, out);
  g_object_add_weak_pointer (G_OBJECT (wizard), (gpointer *) &wizard);
  /* the hidden temporary file is there, being written */
  g_assert_cmpuint (ts_test_count_entries (out_dir), ==, 1);
  g_assert_false (g_file_test (out_path, G_FILE_TEST_EXISTS));

  /* the application's own main loop, as the app runs it: it presents the
   * wizard (the active window) and returns when the application quits */
  g_timeout_add (300, raise_sigterm, wizard);
  stuck_id = g_timeout_add_seconds (20, application_stuck, NULL);
  started = g_get_monotonic_time ();
  status = g_application_run (G_APPLICATION (app), 0, NULL);
  g_test_message ("quit %.3f s after the main loop started", (g_get_monotonic_time () - started) / 1e6);
  g_source_remove (stuck_id);
  g_assert_true (sigterm_raised);
  g_assert_cmpint (status, ==, 0);

  g_assert_null (gtk_application_get_windows (GTK_APPLICATION (app)));
  /* the wizard goes as soon as its workers' callbacks have run: one still
   * computing (the predicted sizes, slow under the sanitizers) when the
   * application quit holds it until the main context runs again */
  ts_test_wait_until (pointer_cleared, &wizard, 10, "the wizard to be finalized");
  /* the signals have their default action back: a second one would end
   * an application that did not quit */
  g_assert_false (stop_signal_watched (SIGTERM));
  g_assert_false (stop_signal_watched (SIGINT));
  /* no temporary file, and no output: it was not finished */
  g_assert_cmpuint (ts_test_count_entries (out_dir), ==, 0);
  g_assert_false (g_file_test (out_path, G_FILE_TEST_EXISTS));
  /* and none later: the writer was stopped, not left to finish */
  ts_test_run_for (1500);
  g_assert_cmpuint (ts_test_count_entries (out_dir), ==, 0);
  g_unsetenv ("TENSORSCOPE_TEST_BLOCK_DELAY_US");
}

/* A checkpoint in a folder whose path is not UTF-8 (a file name need not
 * be): the wizard shows the path by its display name (an entry and Pango
 * take nothing else, and warned, fatal here) and still writes next to the
 * checkpoint, in the folder the display name only stands for */
static void
test_wizard_name_not_utf8 (void)
{
  g_autofree char *parent = g_build_filename (fixture_dir, "odd\xff", NULL);
  g_autofree char *dir = g_build_filename (parent, "Tiny\xfe-Llama", NULL);
  g_autofree char *target_path = NULL;
  g_autofree char *target_dir = NULL;
  TsSampleOptions options;
  TsConvertWizard *wizard;
  GFile *target;

  g_assert_cmpint (g_mkdir (parent, 0755), ==, 0);
  ts_sample_options_init (&options);
  write_sample (dir, &options);
  wizard = open_wizard (dir);
  g_assert_null (ts_convert_wizard_get_problem (wizard));
  g_assert_nonnull (find_mapped_label (GTK_WIDGET (wizard), "Tiny\ufffd-Llama"));
  ts_convert_wizard_go_next (wizard);
  ts_test_wait_until (sizes_known, wizard, 30, "the predicted sizes");
  ts_convert_wizard_set_outtype (wizard, TS_OUTTYPE_Q8_0);
  ts_test_run_for (200);
  /* the name from the folder's is UTF-8, as GGUF's strings are */
  g_assert_true (g_utf8_validate (ts_convert_wizard_get_naming (wizard, "name"), -1, NULL));
  g_assert_null (ts_convert_wizard_get_target_message (wizard));

  ts_convert_wizard_go_next (wizard);
  ts_test_wait_until (on_preview_page, wizard, 30, "the plan");
  ts_test_wait_until (wizard_idle, wizard, 30, "the plan");
  target = ts_convert_wizard_get_target (wizard);
  g_assert_nonnull (target);
  target_path = g_file_get_path (target);
  target_dir = g_path_get_dirname (target_path);
  g_assert_cmpstr (target_dir, ==, parent);
  g_assert_true (g_str_has_suffix (target_path, "-Q8_0.gguf"));
  ts_convert_wizard_go_next (wizard);
  ts_test_wait_until (on_verify_done, wizard, 60, "the conversion and its audit");
  g_assert_cmpstr (ts_convert_wizard_get_convert_state (wizard), ==, "done");
  g_assert_true (ts_audit_report_get_passed (ts_audit_pane_get_report (ts_convert_wizard_get_audit_pane (wizard))));
  g_assert_true (g_file_test (target_path, G_FILE_TEST_IS_REGULAR));
  gtk_window_destroy (GTK_WINDOW (wizard));
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GError) error = NULL;
  TsSampleOptions options;
  int ret;

  ts_test_ui_init (&argc, &argv);

  fixture_dir = g_dir_make_tmp (NULL, &error);
  g_assert_no_error (error);
  sample_dir = g_build_filename (fixture_dir, "tiny-llama", NULL);
  ts_sample_options_init (&options);
  /* layers 10 and 11 too: the audit's table sorts blk.2 before blk.10 */
  options.n_layers = 12;
  write_sample (sample_dir, &options);

  /* started as nohup starts it: SIGHUP ignored (it must stay so) */
  signal (SIGHUP, SIG_IGN);
  app = ts_application_new ();
  g_application_set_flags (G_APPLICATION (app), G_APPLICATION_HANDLES_OPEN | G_APPLICATION_NON_UNIQUE);
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, &error));
  g_assert_no_error (error);

  /* in order: the audit of a corrupted file uses the converted one */
  g_test_add_func ("/wizard/end-to-end", test_wizard_end_to_end);
  g_test_add_func ("/wizard/cancel", test_wizard_cancel);
  g_test_add_func ("/wizard/failed", test_wizard_failed);
  g_test_add_func ("/wizard/close-while-converting", test_wizard_close_while_converting);
  g_test_add_func ("/wizard/broken-source", test_wizard_broken_source);
  g_test_add_func ("/wizard/target-checks", test_wizard_target_checks);
  g_test_add_func ("/wizard/stop-audit", test_wizard_stop_audit);
  g_test_add_data_func ("/wizard/small-window", &minimum_size, test_wizard_small_window);
  g_test_add_data_func ("/wizard/small-window-600x560", &size_600x560, test_wizard_small_window);
  g_test_add_func ("/wizard/from-open-model", test_from_open_model);
  g_test_add_func ("/wizard/audit-corrupted", test_audit_corrupted);
  g_test_add_func ("/wizard/audit-quantized", test_audit_quantized);
  g_test_add_func ("/wizard/audit-close-while-running", test_audit_close_while_running);
  g_test_add_func ("/wizard/restart-same-target", test_wizard_restart_same_target);
  g_test_add_func ("/wizard/split", test_wizard_split);
  g_test_add_func ("/wizard/name-not-utf8", test_wizard_name_not_utf8);
  g_test_add_func ("/wizard/remembers-options", test_wizard_remembers_options);
  /* last: the application quits */
  g_test_add_func ("/wizard/quit-on-sigterm", test_quit_on_sigterm);

  ret = g_test_run ();

  g_object_unref (app);
  ts_test_remove_tree (fixture_dir);
  g_free (converted_path);
  g_free (sample_dir);
  g_free (fixture_dir);
  return ret;
}
