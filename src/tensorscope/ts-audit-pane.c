/* ts-audit-pane.c: the result of an audit — checks, tensors, sizes — and
 * its export as JSON or as a self-contained HTML page
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "ts-application.h"
#include "ts-audit-pane.h"
#include "ts-file-chooser.h"
#include "ts-format.h"
#include "ts-sort-menu.h"

#define HTML_DIAGRAM_WIDTH 1100

struct _TsAuditPane
{
  GtkBox               parent_instance;

  TsAuditReport       *report;
  TsModelFile         *source;
  TsModelFile         *target;
  GCancellable        *cancellable;   /* export */
  GtkCustomFilter     *pair_filter;
  GtkFilterListModel  *pair_rows;
  GtkSortListModel    *sorted_pairs;  /* pair_rows in the header's order */
  char                *filter_text;

  GtkImage            *status_icon;
  GtkLabel            *title_label;
  GtkLabel            *subtitle_label;
  GtkLabel            *export_status_label;
  GtkMenuButton       *export_button;
  GtkStack            *view_stack;
  GtkColumnView       *checks_view;
  GtkColumnView       *pairs_view;
  GtkColumnView       *sizes_view;
  GtkSearchEntry      *search_entry;
  GtkCheckButton      *failures_check;
  GtkMenuButton       *pairs_sort_button;
  TsSortMenu          *pairs_sort;   /* the keyboard's way to sort the pairs */
  GtkLabel            *pairs_count_label;
  GtkStack            *pairs_stack;
  GtkLabel            *pairs_empty_label;
  GtkLabel            *sizes_total_label;
};

G_DEFINE_FINAL_TYPE (TsAuditPane, ts_audit_pane, GTK_TYPE_BOX)

/* ------------------------------------------------------------------------ */
/* Cells                                                                     */

typedef char *(*CellTextFunc) (gpointer item);
typedef TsAuditStatus (*CellStatusFunc) (gpointer item);

typedef struct
{
  CellTextFunc   text;
  CellStatusFunc status;
  const char    *css_class;
  gboolean       wrap;
  float          xalign;
  CellTextFunc   secondary;   /* a dim line under the text, where there is one */
} Column;

static const char *
status_label (TsAuditStatus status)
{
  switch (status)
    {
    case TS_AUDIT_PASS: return _("Passed");
    case TS_AUDIT_WARN: return _("Warning");
    case TS_AUDIT_FAIL: return _("Failed");
    default:            g_assert_not_reached ();
    }
}

static const char *
status_icon_name (TsAuditStatus status)
{
  switch (status)
    {
    case TS_AUDIT_PASS: return "emblem-ok-symbolic";
    case TS_AUDIT_WARN: return "dialog-warning-symbolic";
    case TS_AUDIT_FAIL: return "dialog-error-symbolic";
    default:            g_assert_not_reached ();
    }
}

static void
set_wrap (GtkLabel *label)
{
  gtk_label_set_wrap (label, TRUE);
  gtk_label_set_wrap_mode (label, PANGO_WRAP_WORD_CHAR);
  /* a narrow minimum, so that names beside it keep their width */
  gtk_label_set_width_chars (label, 16);
  gtk_label_set_max_width_chars (label, 60);
}

/* Cells take the width of their text where the window has room, and are
 * ellipsized (the full text in a tooltip) only where it has not; Detail
 * columns wrap, the tensors' with a dim line under it where a tensor has
 * a first mismatch. */
static void
setup_cell (GtkSignalListItemFactory *factory,
            GtkListItem              *item,
            Column                   *column)
{
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_xalign (GTK_LABEL (label), column->xalign);
  if (column->wrap)
    set_wrap (GTK_LABEL (label));
  else
    {
      /* a tensor name keeps its end (the role; the GGUF name says the
       * layer), a transform its start ("permute-k(2 heads)") */
      gtk_label_set_ellipsize (GTK_LABEL (label),
                               g_strcmp0 (column->css_class, "tensor-name") == 0 ? PANGO_ELLIPSIZE_START
                               : g_strcmp0 (column->css_class, "transform") == 0 ? PANGO_ELLIPSIZE_END
                               : PANGO_ELLIPSIZE_MIDDLE);
      ts_label_add_full_text_tooltip (GTK_LABEL (label));
      /* a tensor name keeps 24 characters at least (a GGUF name whole,
       * "blk.0.attn_output.weight"): a narrow window (the wizard's 600 px)
       * scrolls the table sideways rather than cut it to "…ttn_k.weight",
       * its layer gone */
      if (g_strcmp0 (column->css_class, "tensor-name") == 0)
        gtk_label_set_width_chars (GTK_LABEL (label), 24);
    }
  if (column->css_class != NULL)
    gtk_widget_add_css_class (label, column->css_class);

  if (column->status != NULL)
    {
      GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);

      gtk_box_append (GTK_BOX (box), gtk_image_new ());
      gtk_box_append (GTK_BOX (box), label);
      gtk_widget_add_css_class (box, "audit-status");
      gtk_list_item_set_child (item, box);
      return;
    }

  if (column->secondary != NULL)
    {
      GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
      GtkWidget *secondary = gtk_label_new (NULL);

      gtk_label_set_xalign (GTK_LABEL (secondary), column->xalign);
      set_wrap (GTK_LABEL (secondary));
      gtk_widget_add_css_class (secondary, "dim-label");
      gtk_widget_add_css_class (secondary, "caption");
      gtk_box_append (GTK_BOX (box), label);
      gtk_box_append (GTK_BOX (box), secondary);
      gtk_list_item_set_child (item, box);
      return;
    }

  gtk_list_item_set_child (item, label);
}

static void
bind_cell (GtkSignalListItemFactory *factory,
           GtkListItem              *item,
           Column                   *column)
{
  GtkWidget *child = gtk_list_item_get_child (item);
  gpointer row = gtk_list_item_get_item (item);

  if (column->status != NULL)
    {
      TsAuditStatus status = column->status (row);
      GtkWidget *image = gtk_widget_get_first_child (child);
      GtkWidget *label = gtk_widget_get_next_sibling (image);

      gtk_image_set_from_icon_name (GTK_IMAGE (image), status_icon_name (status));
      gtk_label_set_text (GTK_LABEL (label), status_label (status));
      gtk_widget_remove_css_class (child, "pass");
      gtk_widget_remove_css_class (child, "warn");
      gtk_widget_remove_css_class (child, "fail");
      gtk_widget_add_css_class (child, ts_audit_status_to_nick (status));
      return;
    }

  if (column->secondary != NULL)
    {
      g_autofree char *text = column->text (row);
      g_autofree char *secondary = column->secondary (row);
      GtkWidget *label = gtk_widget_get_first_child (child);
      GtkWidget *line = gtk_widget_get_next_sibling (label);

      gtk_label_set_text (GTK_LABEL (label), text != NULL ? text : "");
      gtk_label_set_text (GTK_LABEL (line), secondary != NULL ? secondary : "");
      gtk_widget_set_visible (line, secondary != NULL);
      return;
    }

  {
    g_autofree char *text = column->text (row);

    gtk_label_set_text (GTK_LABEL (child), text != NULL ? text : "");
  }
}

static GtkColumnViewColumn *
add_column (GtkColumnView  *view,
            const char     *title,
            const Column   *spec,
            gboolean        expand,
            int             fixed_width)
{
  g_autoptr(GtkListItemFactory) factory = gtk_signal_list_item_factory_new ();
  g_autoptr(GtkColumnViewColumn) column = NULL;
  Column *copy = g_memdup2 (spec, sizeof *spec);

  g_signal_connect_data (factory, "setup", G_CALLBACK (setup_cell), copy,
                         (GClosureNotify) (void (*) (void)) g_free, 0);
  g_signal_connect (factory, "bind", G_CALLBACK (bind_cell), copy);

  column = gtk_column_view_column_new (title, g_object_ref (factory));
  gtk_column_view_column_set_expand (column, expand);
  gtk_column_view_column_set_resizable (column, TRUE);
  if (fixed_width > 0)
    gtk_column_view_column_set_fixed_width (column, fixed_width);
  gtk_column_view_append_column (view, column);
  return column;
}

/* Checks */

/* the checks' names (docs/audit-json.md), as a person reads them */
static const struct { const char *name; const char *title; } check_titles[] = {
  { "same-files", N_("Same files") },
  { "tensor-mapping", N_("Tensor mapping") },
  { "extra-tensors", N_("Extra tensors") },
  { "shapes", N_("Shapes") },
  { "tensor-types", N_("Tensor types") },
  { "permutation", N_("Q/K permutation") },
  { "values", N_("Values") },
  { "lossy-rounding", N_("Rounding") },
  { "not-compared", N_("Not compared") },
  { "quantized", N_("Quantized tensors") },
  { "rope-freqs", N_("RoPE frequencies") },
  { "metadata", N_("Metadata") },
  { "size-reconciliation", N_("Size reconciliation") },
};

#define METADATA_PREFIX "metadata:"

static char *
check_title (gpointer item)
{
  const char *name = ts_audit_check_get_name (item);

  if (g_str_has_prefix (name, METADATA_PREFIX))
    /* Translators: the audit's check of one metadata key, "Key general.name" */
    return g_strdup_printf (_("Key %s"), name + strlen (METADATA_PREFIX));
  for (guint i = 0; i < G_N_ELEMENTS (check_titles); i++)
    if (g_str_equal (name, check_titles[i].name))
      return g_strdup (g_dgettext (GETTEXT_PACKAGE, check_titles[i].title));
  return g_strdup (name);
}

/* the name the JSON report and the docs give it, under the title (a key's
 * title says it already) */
static char *
check_name_line (gpointer item)
{
  const char *name = ts_audit_check_get_name (item);
  g_autofree char *title = check_title (item);

  if (g_str_has_prefix (name, METADATA_PREFIX) || g_str_equal (title, name))
    return NULL;
  return g_strdup (name);
}
static char *check_detail (gpointer item) { return g_strdup (ts_audit_check_get_detail (item)); }
static TsAuditStatus check_status (gpointer item) { return ts_audit_check_get_status (item); }

/* Tensor pairs */

static char *
pair_source (gpointer item)
{
  const char * const *names = ts_audit_pair_get_source_names (item);

  if (names == NULL || names[0] == NULL)
    return g_strdup ("—");
  return g_strjoinv (", ", (char **) names);
}

static char *
pair_target (gpointer item)
{
  const char *name = ts_audit_pair_get_target_name (item);

  return g_strdup (name != NULL ? name : "—");
}

static char *pair_transform (gpointer item) { return g_strdup (ts_audit_pair_get_transform (item)); }

/* names in natural order ("blk.2" before "blk.10"), a pair without one
 * (a tensor the converter dropped, or one it made) last */
static int
compare_names (const char *a,
               const char *b)
{
  if (a == NULL || b == NULL)
    return (a == NULL) - (b == NULL);
  return ts_natural_compare (a, b);
}

static int
compare_pair_sources (gconstpointer a,
                      gconstpointer b,
                      gpointer      user_data)
{
  const char * const *na = ts_audit_pair_get_source_names ((TsAuditPair *) a);
  const char * const *nb = ts_audit_pair_get_source_names ((TsAuditPair *) b);

  return compare_names (na != NULL ? na[0] : NULL, nb != NULL ? nb[0] : NULL);
}

static int
compare_pair_targets (gconstpointer a,
                      gconstpointer b,
                      gpointer      user_data)
{
  return compare_names (ts_audit_pair_get_target_name ((TsAuditPair *) a),
                        ts_audit_pair_get_target_name ((TsAuditPair *) b));
}

static int
compare_pair_transforms (gconstpointer a,
                         gconstpointer b,
                         gpointer      user_data)
{
  return g_strcmp0 (ts_audit_pair_get_transform ((TsAuditPair *) a),
                    ts_audit_pair_get_transform ((TsAuditPair *) b));
}

/* failures first */
static int
compare_pair_status (gconstpointer a,
                     gconstpointer b,
                     gpointer      user_data)
{
  return (int) ts_audit_pair_get_status ((TsAuditPair *) b) - (int) ts_audit_pair_get_status ((TsAuditPair *) a);
}
static char *pair_detail (gpointer item) { return g_strdup (ts_audit_pair_get_detail (item)); }
static TsAuditStatus pair_status (gpointer item) { return ts_audit_pair_get_status (item); }
/* where a failed tensor's values first differ, as the text report says it */
static char *pair_first_mismatch (gpointer item) { return ts_audit_pair_dup_first_mismatch_text (item); }

/* Size rows */

static char *
size_area (gpointer item)
{
  switch (ts_audit_size_row_get_area (item))
    {
    case TS_AUDIT_AREA_BEFORE_DATA:
      return g_strdup (_("Before the data"));
    case TS_AUDIT_AREA_AFTER_DATA:
      return g_strdup (_("After the data"));
    case TS_AUDIT_AREA_TENSOR_DATA:
    default:
      return g_strdup (_("Tensor data"));
    }
}

static char *size_section (gpointer item) { return ts_audit_size_row_dup_section_label (item); }
static char *size_source (gpointer item) { return ts_format_count (ts_audit_size_row_get_source_bytes (item)); }
static char *size_target (gpointer item) { return ts_format_count (ts_audit_size_row_get_target_bytes (item)); }
static char *size_explanation (gpointer item) { return g_strdup (ts_audit_size_row_get_explanation (item)); }

static char *
format_delta (gint64 delta)
{
  g_autofree char *count = ts_format_count (delta < 0 ? (guint64) -delta : (guint64) delta);

  /* U+2212 MINUS SIGN lines up with the plus sign in tabular figures */
  return g_strdup_printf ("%s%s", delta < 0 ? "−" : delta > 0 ? "+" : "", count);
}

static char *size_delta (gpointer item) { return format_delta (ts_audit_size_row_get_delta (item)); }

static void
build_columns (TsAuditPane *self)
{
  add_column (self->checks_view, _("Check"),
              &(Column) { check_title, NULL, "heading", FALSE, 0, check_name_line }, FALSE, 0);
  add_column (self->checks_view, _("Result"),
              &(Column) { NULL, check_status, NULL, FALSE, 0 }, FALSE, 100);
  add_column (self->checks_view, _("Detail"),
              &(Column) { check_detail, NULL, NULL, TRUE, 0 }, TRUE, 0);

  ts_sort_menu_add_column (self->pairs_sort,
                           add_column (self->pairs_view, _("Source Tensor"),
                                       &(Column) { pair_source, NULL, "tensor-name", FALSE, 0 }, FALSE, 0),
                           "source", compare_pair_sources, NULL);
  ts_sort_menu_add_column (self->pairs_sort,
                           add_column (self->pairs_view, _("GGUF Tensor"),
                                       &(Column) { pair_target, NULL, "tensor-name", FALSE, 0 }, FALSE, 0),
                           "target", compare_pair_targets, NULL);
  /* in the order of the GGUF's names at first: the source's order is its
   * writer's (layer 2, 1, 0, the embedding, …) */
  ts_sort_menu_sort_by (self->pairs_sort, "target", GTK_SORT_ASCENDING);
  ts_sort_menu_add_column (self->pairs_sort,
                           add_column (self->pairs_view, _("Transform"),
                                       &(Column) { pair_transform, NULL, "transform", FALSE, 0 }, FALSE, 0),
                           "transform", compare_pair_transforms, NULL);
  ts_sort_menu_add_column (self->pairs_sort,
                           add_column (self->pairs_view, _("Result"),
                                       &(Column) { NULL, pair_status, NULL, FALSE, 0 }, FALSE, 100),
                           "result", compare_pair_status, NULL);
  add_column (self->pairs_view, _("Detail"),
              &(Column) { pair_detail, NULL, NULL, TRUE, 0, pair_first_mismatch }, TRUE, 0);

  add_column (self->sizes_view, _("Area"),
              &(Column) { size_area, NULL, NULL, FALSE, 0 }, FALSE, 0);
  add_column (self->sizes_view, _("Section"),
              &(Column) { size_section, NULL, "heading", FALSE, 0 }, FALSE, 0);
  add_column (self->sizes_view, _("Source Bytes"),
              &(Column) { size_source, NULL, "numeric", FALSE, 1.0 }, FALSE, 0);
  add_column (self->sizes_view, _("GGUF Bytes"),
              &(Column) { size_target, NULL, "numeric", FALSE, 1.0 }, FALSE, 0);
  add_column (self->sizes_view, _("Difference"),
              &(Column) { size_delta, NULL, "numeric", FALSE, 1.0 }, FALSE, 0);
  add_column (self->sizes_view, _("Explanation"),
              &(Column) { size_explanation, NULL, NULL, TRUE, 0 }, TRUE, 0);
}

/* ------------------------------------------------------------------------ */
/* Filtering                                                                 */

static gboolean
pair_matches (gpointer item,
              gpointer user_data)
{
  TsAuditPane *self = user_data;
  const char * const *names;
  const char *target;

  if (gtk_check_button_get_active (self->failures_check) &&
      ts_audit_pair_get_status (item) != TS_AUDIT_FAIL)
    return FALSE;
  if (self->filter_text == NULL || self->filter_text[0] == '\0')
    return TRUE;

  target = ts_audit_pair_get_target_name (item);
  if (target != NULL && strstr (target, self->filter_text) != NULL)
    return TRUE;
  names = ts_audit_pair_get_source_names (item);
  for (guint i = 0; names != NULL && names[i] != NULL; i++)
    if (strstr (names[i], self->filter_text) != NULL)
      return TRUE;
  return FALSE;
}

static void
update_pairs_count (TsAuditPane *self)
{
  guint shown = g_list_model_get_n_items (G_LIST_MODEL (self->pair_rows));
  guint total = self->report ? g_list_model_get_n_items (ts_audit_report_get_pairs (self->report)) : 0;
  g_autofree char *text = NULL;

  /* Translators: "12 of 255 tensor pairs" */
  text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u of %u tensor pair",
                                       "%u of %u tensor pairs", total),
                          shown, total);
  gtk_label_set_text (self->pairs_count_label, text);

  /* an empty table says why */
  if (shown == 0 && total > 0)
    {
      g_autofree char *why = NULL;

      if (self->filter_text != NULL && self->filter_text[0] != '\0')
        why = g_strdup_printf (_("No tensor pair matches “%s”."), self->filter_text);
      else
        why = g_strdup (_("No tensor failed: every value is what its output type promises."));
      gtk_label_set_text (self->pairs_empty_label, why);
      gtk_stack_set_visible_child_name (self->pairs_stack, "empty");
    }
  else
    gtk_stack_set_visible_child_name (self->pairs_stack, "list");
}

const char *
ts_audit_pane_get_pairs_placeholder (TsAuditPane *self)
{
  g_return_val_if_fail (TS_IS_AUDIT_PANE (self), NULL);

  if (g_strcmp0 (gtk_stack_get_visible_child_name (self->pairs_stack), "empty") != 0)
    return NULL;
  return gtk_label_get_text (self->pairs_empty_label);
}

static void
on_filter_changed (TsAuditPane *self)
{
  g_free (self->filter_text);
  self->filter_text = g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->search_entry)));
  gtk_filter_changed (GTK_FILTER (self->pair_filter), GTK_FILTER_CHANGE_DIFFERENT);
  update_pairs_count (self);
}

void
ts_audit_pane_set_failures_only (TsAuditPane *self,
                                 gboolean     failures_only)
{
  g_return_if_fail (TS_IS_AUDIT_PANE (self));

  gtk_check_button_set_active (self->failures_check, failures_only);
}

void
ts_audit_pane_set_filter_text (TsAuditPane *self,
                               const char  *text)
{
  g_return_if_fail (TS_IS_AUDIT_PANE (self));

  gtk_editable_set_text (GTK_EDITABLE (self->search_entry), text ? text : "");
  on_filter_changed (self);
}

GListModel *
ts_audit_pane_get_pair_rows (TsAuditPane *self)
{
  g_return_val_if_fail (TS_IS_AUDIT_PANE (self), NULL);

  return G_LIST_MODEL (self->sorted_pairs);
}

void
ts_audit_pane_show_view (TsAuditPane *self,
                         const char  *name)
{
  g_return_if_fail (TS_IS_AUDIT_PANE (self));

  gtk_stack_set_visible_child_name (self->view_stack, name);
}

/* ------------------------------------------------------------------------ */
/* The report                                                                */

static guint
count_status (GListModel    *model,
              TsAuditStatus  status,
              TsAuditStatus (*get_status) (gpointer))
{
  guint n = 0;

  for (guint i = 0; i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr(GObject) item = g_list_model_get_item (model, i);

      n += get_status (item) == status;
    }
  return n;
}

static void
update_banner (TsAuditPane *self)
{
  GListModel *checks = ts_audit_report_get_checks (self->report);
  GListModel *pairs = ts_audit_report_get_pairs (self->report);
  guint n_checks = g_list_model_get_n_items (checks);
  guint n_failed = count_status (checks, TS_AUDIT_FAIL, check_status);
  guint n_warned = count_status (checks, TS_AUDIT_WARN, check_status);
  guint n_bad_pairs = count_status (pairs, TS_AUDIT_FAIL, pair_status);
  gboolean passed = ts_audit_report_get_passed (self->report);
  g_autofree char *title = NULL;
  g_autofree char *subtitle = NULL;
  g_autofree char *source_size = g_format_size (ts_audit_report_get_source_size (self->report));
  g_autofree char *target_size = g_format_size (ts_audit_report_get_target_size (self->report));
  guint n_target_files = ts_audit_report_get_target_n_files (self->report);
  g_autofree char *duration = ts_format_duration (ts_audit_report_get_elapsed (self->report));

  if (passed && n_warned == 0)
    title = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "All %u check passed",
                                          "All %u checks passed", n_checks), n_checks);
  else if (passed)
    {
      /* a warning is no failure, but not a check that passed either */
      guint n_passed = n_checks - n_warned;
      g_autofree char *passed_text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u check passed",
                                                                   "%u checks passed", n_passed),
                                                      n_passed);
      g_autofree char *warned_text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u warning",
                                                                   "%u warnings", n_warned),
                                                      n_warned);

      /* Translators: the audit's headline when it passed with warnings:
       * "34 checks passed" and "1 warning" */
      title = g_strdup_printf (C_("audit headline", "%s, %s"), passed_text, warned_text);
    }
  else
    title = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                          "%u of %u checks failed: %u tensor differs",
                                          "%u of %u checks failed: %u tensors differ",
                                          n_bad_pairs),
                             n_failed, n_checks, n_bad_pairs);
  /* a split set is named by its first file: how many there are is said */
  if (n_target_files > 1 && ts_audit_report_get_target_name (self->report) != NULL)
    {
      /* Translators: a split set's size in the audit's subtitle, "18.7 MB in 23 files" */
      g_autofree char *in_files = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s in %u file",
                                                                "%s in %u files", n_target_files),
                                                   target_size, n_target_files);

      g_free (target_size);
      target_size = g_steal_pointer (&in_files);
    }
  /* Translators: source → target, sizes, warnings, time */
  subtitle = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                           "%s (%s) → %s (%s) · %u warning · compared in %s",
                                           "%s (%s) → %s (%s) · %u warnings · compared in %s",
                                           n_warned),
                              ts_audit_report_get_source_name (self->report), source_size,
                              ts_audit_report_get_target_name (self->report), target_size,
                              n_warned, duration);

  gtk_label_set_text (self->title_label, title);
  gtk_label_set_text (self->subtitle_label, subtitle);
  {
    /* passed with warnings: the headline's icon is a warning's, as it
     * is on the warned check's row */
    TsAuditStatus status = !passed ? TS_AUDIT_FAIL : n_warned > 0 ? TS_AUDIT_WARN : TS_AUDIT_PASS;

    gtk_image_set_from_icon_name (self->status_icon, status_icon_name (status));
    gtk_widget_remove_css_class (GTK_WIDGET (self->status_icon), "pass");
    gtk_widget_remove_css_class (GTK_WIDGET (self->status_icon), "warn");
    gtk_widget_remove_css_class (GTK_WIDGET (self->status_icon), "fail");
    gtk_widget_add_css_class (GTK_WIDGET (self->status_icon), ts_audit_status_to_nick (status));
    gtk_accessible_update_property (GTK_ACCESSIBLE (self->status_icon),
                                    GTK_ACCESSIBLE_PROPERTY_LABEL, status_label (status),
                                    -1);
  }
}

static void
update_sizes_total (TsAuditPane *self)
{
  GListModel *rows = ts_audit_report_get_size_rows (self->report);
  guint64 source = ts_audit_report_get_source_size (self->report);
  guint64 target = ts_audit_report_get_target_size (self->report);
  gint64 sum = 0;
  gint64 expected = (gint64) target - (gint64) source;
  g_autofree char *sum_text = NULL;
  g_autofree char *expected_text = NULL;
  g_autofree char *text = NULL;

  for (guint i = 0; i < g_list_model_get_n_items (rows); i++)
    {
      g_autoptr(TsAuditSizeRow) row = g_list_model_get_item (rows, i);

      sum += ts_audit_size_row_get_delta (row);
    }
  sum_text = format_delta (sum);
  expected_text = format_delta (expected);
  if (sum == expected)
    /* Translators: the size reconciliation's total */
    text = g_strdup_printf (_("✓ The differences sum to %s bytes: exactly the file-size difference (GGUF − source)."),
                            sum_text);
  else
    text = g_strdup_printf (_("✗ The differences sum to %s bytes, but the files differ by %s bytes."),
                            sum_text, expected_text);
  gtk_label_set_text (self->sizes_total_label, text);
}

void
ts_audit_pane_set_report (TsAuditPane   *self,
                          TsAuditReport *report,
                          TsModelFile   *source,
                          TsModelFile   *target)
{
  g_autoptr(GtkNoSelection) checks = NULL;
  g_autoptr(GtkNoSelection) pairs = NULL;
  g_autoptr(GtkNoSelection) sizes = NULL;

  g_return_if_fail (TS_IS_AUDIT_PANE (self));
  g_return_if_fail (TS_IS_AUDIT_REPORT (report));
  g_return_if_fail (!source || TS_IS_MODEL_FILE (source));
  g_return_if_fail (!target || TS_IS_MODEL_FILE (target));

  g_set_object (&self->report, report);
  g_set_object (&self->source, source);
  g_set_object (&self->target, target);

  checks = gtk_no_selection_new (g_object_ref (ts_audit_report_get_checks (report)));
  gtk_column_view_set_model (self->checks_view, GTK_SELECTION_MODEL (checks));

  gtk_filter_list_model_set_model (self->pair_rows, ts_audit_report_get_pairs (report));
  pairs = gtk_no_selection_new (g_object_ref (G_LIST_MODEL (self->sorted_pairs)));
  gtk_column_view_set_model (self->pairs_view, GTK_SELECTION_MODEL (pairs));

  sizes = gtk_no_selection_new (g_object_ref (ts_audit_report_get_size_rows (report)));
  gtk_column_view_set_model (self->sizes_view, GTK_SELECTION_MODEL (sizes));

  update_banner (self);
  update_pairs_count (self);
  update_sizes_total (self);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "audit.export-html", TRUE);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "audit.export-json", TRUE);

  /* a failing audit opens on the tensors that differ */
  if (!ts_audit_report_get_passed (report))
    {
      ts_audit_pane_set_failures_only (self, TRUE);
      ts_audit_pane_show_view (self, "tensors");
    }
}

TsAuditReport *
ts_audit_pane_get_report (TsAuditPane *self)
{
  g_return_val_if_fail (TS_IS_AUDIT_PANE (self), NULL);

  return self->report;
}

/* ------------------------------------------------------------------------ */
/* HTML                                                                      */

static const char html_style[] =
  "body { font-family: Cantarell, 'Segoe UI', sans-serif; color: #241f31; margin: 2em auto;"
  " max-width: 1180px; padding: 0 1.5em; line-height: 1.45; }\n"
  "h1 { font-size: 1.7em; margin-bottom: 0.2em; }\n"
  "h2 { margin-top: 2em; border-bottom: 1px solid #deddda; padding-bottom: 0.2em; }\n"
  ".sub { color: #5e5c64; margin-top: 0; }\n"
  ".verdict { font-size: 1.25em; font-weight: bold; padding: 0.6em 1em; border-radius: 8px; }\n"
  ".verdict.pass { background: #e3f5e8; color: #1c6b34; }\n"
  ".verdict.fail { background: #fbe4e4; color: #a51d2d; }\n"
  "table { border-collapse: collapse; width: 100%; font-size: 0.92em; }\n"
  "th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid #deddda; vertical-align: top; }\n"
  "th { background: #f6f5f4; }\n"
  "td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }\n"
  "td.name { font-family: monospace; }\n"
  "td.pass { color: #1c6b34; font-weight: bold; }\n"
  "td.warn { color: #9c6e03; font-weight: bold; }\n"
  "td.fail { color: #a51d2d; font-weight: bold; }\n"
  ".where { color: #5e5c64; font-size: 0.9em; }\n"
  "figure { margin: 1.5em 0; }\n"
  "figcaption { font-weight: bold; margin-bottom: 0.4em; }\n"
  "figure svg { width: 100%; height: auto; border: 1px solid #deddda; }\n"
  "footer { margin-top: 3em; color: #77767b; font-size: 0.85em; }\n";

static void
append_escaped (GString    *out,
                const char *text)
{
  g_autofree char *escaped = NULL;

  if (text == NULL)
    return;
  /* the report quotes file contents: make sure it is valid UTF-8 first */
  if (!g_utf8_validate (text, -1, NULL))
    {
      g_autofree char *valid = g_utf8_make_valid (text, -1);

      escaped = g_markup_escape_text (valid, -1);
    }
  else
    escaped = g_markup_escape_text (text, -1);
  g_string_append (out, escaped);
}

static void
append_cell (GString    *out,
             const char *css_class,
             const char *text)
{
  if (css_class != NULL)
    g_string_append_printf (out, "<td class=\"%s\">", css_class);
  else
    g_string_append (out, "<td>");
  append_escaped (out, text);
  g_string_append (out, "</td>");
}

static void
append_table_head (GString            *out,
                   const char * const *titles)
{
  g_string_append (out, "<table>\n<thead><tr>");
  for (guint i = 0; titles[i] != NULL; i++)
    {
      g_string_append (out, "<th>");
      append_escaped (out, titles[i]);
      g_string_append (out, "</th>");
    }
  g_string_append (out, "</tr></thead>\n<tbody>\n");
}

static void
append_checks (GString       *out,
               TsAuditReport *report)
{
  GListModel *checks = ts_audit_report_get_checks (report);
  const char *titles[] = { _("Check"), _("Result"), _("Detail"), NULL };

  append_table_head (out, titles);
  for (guint i = 0; i < g_list_model_get_n_items (checks); i++)
    {
      g_autoptr(TsAuditCheck) check = g_list_model_get_item (checks, i);
      TsAuditStatus status = ts_audit_check_get_status (check);

      g_string_append (out, "<tr class=\"check\">");
      append_cell (out, NULL, ts_audit_check_get_name (check));
      append_cell (out, ts_audit_status_to_nick (status), status_label (status));
      append_cell (out, NULL, ts_audit_check_get_detail (check));
      g_string_append (out, "</tr>\n");
    }
  g_string_append (out, "</tbody>\n</table>\n");
}

static void
append_pairs (GString       *out,
              TsAuditReport *report)
{
  GListModel *pairs = ts_audit_report_get_pairs (report);
  const char *titles[] = { _("Source Tensor"), _("GGUF Tensor"), _("Transform"),
                           _("Result"), _("Detail"), NULL };

  append_table_head (out, titles);
  for (guint i = 0; i < g_list_model_get_n_items (pairs); i++)
    {
      g_autoptr(TsAuditPair) pair = g_list_model_get_item (pairs, i);
      TsAuditStatus status = ts_audit_pair_get_status (pair);
      g_autofree char *source = pair_source (pair);
      g_autofree char *target = pair_target (pair);
      g_autofree char *mismatch = ts_audit_pair_dup_first_mismatch_text (pair);

      g_string_append (out, "<tr class=\"pair\">");
      append_cell (out, "name", source);
      append_cell (out, "name", target);
      append_cell (out, NULL, ts_audit_pair_get_transform (pair));
      append_cell (out, ts_audit_status_to_nick (status), status_label (status));
      g_string_append (out, "<td>");
      append_escaped (out, ts_audit_pair_get_detail (pair));
      /* where the values first differ, as the window and the text report
       * say it */
      if (mismatch != NULL)
        {
          g_string_append (out, "<br/><span class=\"where\">");
          append_escaped (out, mismatch);
          g_string_append (out, "</span>");
        }
      g_string_append (out, "</td></tr>\n");
    }
  g_string_append (out, "</tbody>\n</table>\n");
}

static void
append_sizes (GString       *out,
              TsAuditReport *report)
{
  GListModel *rows = ts_audit_report_get_size_rows (report);
  const char *titles[] = { _("Area"), _("Section"), _("Source Bytes"), _("GGUF Bytes"),
                           _("Difference"), _("Explanation"), NULL };
  gint64 sum = 0;
  g_autofree char *sum_text = NULL;

  append_table_head (out, titles);
  for (guint i = 0; i < g_list_model_get_n_items (rows); i++)
    {
      g_autoptr(TsAuditSizeRow) row = g_list_model_get_item (rows, i);
      g_autofree char *area = size_area (row);
      g_autofree char *source = size_source (row);
      g_autofree char *target = size_target (row);
      g_autofree char *delta = size_delta (row);

      sum += ts_audit_size_row_get_delta (row);
      g_string_append (out, "<tr class=\"size\">");
      append_cell (out, NULL, area);
      append_cell (out, NULL, ts_audit_size_row_get_section (row));
      append_cell (out, "num", source);
      append_cell (out, "num", target);
      append_cell (out, "num", delta);
      append_cell (out, NULL, ts_audit_size_row_get_explanation (row));
      g_string_append (out, "</tr>\n");
    }
  sum_text = format_delta (sum);
  g_string_append (out, "<tr><th colspan=\"4\">");
  append_escaped (out, _("Total: the file-size difference"));
  g_string_append (out, "</th><td class=\"num\"><strong>");
  append_escaped (out, sum_text);
  g_string_append (out, "</strong></td><td></td></tr>\n</tbody>\n</table>\n");
}

/* Cairo's SVG has an XML prolog and ids (glyphs, clips, surfaces) that
 * would clash between two diagrams in one page: drop the one, prefix the
 * others. */
static char *
inline_svg (GBytes     *svg,
            const char *prefix)
{
  g_autofree char *text = g_strndup (g_bytes_get_data (svg, NULL), g_bytes_get_size (svg));
  const char *start = strstr (text, "<svg");
  g_autoptr(GString) out = NULL;
  g_autofree char *id_attr = g_strdup_printf ("id=\"%s", prefix);
  g_autofree char *href = g_strdup_printf ("href=\"#%s", prefix);
  g_autofree char *url = g_strdup_printf ("url(#%s", prefix);

  if (start == NULL)
    return g_strdup ("");
  out = g_string_new (start);
  g_string_replace (out, "id=\"", id_attr, 0);
  g_string_replace (out, "href=\"#", href, 0);
  g_string_replace (out, "url(#", url, 0);
  return g_string_free (g_steal_pointer (&out), FALSE);
}

static gboolean
append_diagram (GString      *out,
                TsModelFile  *model,
                const char   *caption,
                const char   *prefix,
                GError      **error)
{
  g_autoptr(TsLayout) layout = ts_layout_new (model);
  g_autoptr(GBytes) svg = NULL;
  g_autofree char *inlined = NULL;

  svg = ts_layout_render (layout, TS_LAYOUT_EXPORT_SVG, HTML_DIAGRAM_WIDTH, 0, error);
  if (svg == NULL)
    return FALSE;
  inlined = inline_svg (svg, prefix);
  g_string_append (out, "<figure>\n<figcaption>");
  append_escaped (out, caption);
  g_string_append (out, "</figcaption>\n");
  g_string_append (out, inlined);
  g_string_append (out, "\n</figure>\n");
  return TRUE;
}

char *
ts_audit_report_render_html (TsAuditReport  *report,
                             TsModelFile    *source,
                             TsModelFile    *target,
                             GError        **error)
{
  g_autoptr(GString) out = g_string_new (NULL);
  g_autofree char *title = NULL;
  g_autofree char *source_caption = NULL;
  g_autofree char *target_caption = NULL;
  g_autofree char *footer = NULL;
  gboolean passed;

  g_return_val_if_fail (TS_IS_AUDIT_REPORT (report), NULL);
  g_return_val_if_fail (TS_IS_MODEL_FILE (source), NULL);
  g_return_val_if_fail (TS_IS_MODEL_FILE (target), NULL);

  passed = ts_audit_report_get_passed (report);
  /* Translators: HTML report title: "Audit: <source> → <target>" */
  title = g_strdup_printf (_("Audit: %s → %s"), ts_audit_report_get_source_name (report),
                           ts_audit_report_get_target_name (report));

  /* Translators: this translation's language as HTML names it (fr,
   * pt-BR, …): the report's text is in it */
  g_string_append_printf (out, "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"%s\">\n"
                               "<head>\n<meta charset=\"utf-8\"/>\n<title>",
                          C_("html lang", "en"));
  append_escaped (out, title);
  g_string_append_printf (out, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>", html_style);
  append_escaped (out, title);
  g_string_append (out, "</h1>\n<p class=\"sub\">");
  append_escaped (out, _("Every learned value of the source, compared with its counterpart in the converted file (Tensorscope audit)."));
  g_string_append_printf (out, "</p>\n<p class=\"verdict %s\">", passed ? "pass" : "fail");
  if (passed && ts_audit_report_get_n_decoded (report) > 0)
    append_escaped (out, _("All checks passed: every value compared exactly is what its output type "
                           "promises, and every row of the quantized tensors is closer to its source than zeros."));
  else
    append_escaped (out, passed ? _("All checks passed: every learned value is preserved as its output type promises.")
                                : _("Some checks failed: not every learned value is preserved."));
  if (passed)
    {
      guint n_warned = count_status (ts_audit_report_get_checks (report), TS_AUDIT_WARN, check_status);

      if (n_warned > 0)
        {
          g_autofree char *warned = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                                                  " (%u of them is a warning: see below.)",
                                                                  " (%u of them are warnings: see below.)",
                                                                  n_warned), n_warned);

          append_escaped (out, warned);
        }
    }
  g_string_append (out, "</p>\n<h2>");
  append_escaped (out, _("Checks"));
  g_string_append (out, "</h2>\n");
  append_checks (out, report);

  g_string_append (out, "<h2>");
  append_escaped (out, _("Size Reconciliation"));
  g_string_append (out, "</h2>\n");
  append_sizes (out, report);

  g_string_append (out, "<h2>");
  append_escaped (out, _("Layouts"));
  g_string_append (out, "</h2>\n");
  source_caption = g_strdup_printf (_("Source: %s"), ts_audit_report_get_source_name (report));
  target_caption = g_strdup_printf (_("Converted: %s"), ts_audit_report_get_target_name (report));
  if (!append_diagram (out, source, source_caption, "src-", error) ||
      !append_diagram (out, target, target_caption, "dst-", error))
    return NULL;

  g_string_append (out, "<h2>");
  append_escaped (out, _("Tensors"));
  g_string_append (out, "</h2>\n");
  append_pairs (out, report);

  g_string_append (out, "<footer>");
  footer = g_strdup_printf (_("Generated by Tensorscope %s."), PACKAGE_VERSION);
  append_escaped (out, footer);
  g_string_append (out, "</footer>\n</body>\n</html>\n");

  return g_string_free (g_steal_pointer (&out), FALSE);
}

/* ------------------------------------------------------------------------ */
/* Export                                                                    */

typedef struct
{
  TsAuditReport *report;
  TsModelFile   *source;
  TsModelFile   *target;
  GFile         *file;
} ExportData;

static void
export_data_free (gpointer data)
{
  ExportData *ed = data;

  g_clear_object (&ed->report);
  g_clear_object (&ed->source);
  g_clear_object (&ed->target);
  g_clear_object (&ed->file);
  g_free (ed);
}

static gboolean
is_json (GFile *file)
{
  g_autofree char *name = g_file_get_basename (file);
  g_autofree char *lower = g_ascii_strdown (name, -1);

  return g_str_has_suffix (lower, ".json");
}

static void
export_worker (GTask        *task,
               gpointer      source_object,
               gpointer      task_data,
               GCancellable *cancellable)
{
  ExportData *ed = task_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;

  if (is_json (ed->file))
    {
      /* written as it is made, as the CLI's audit --json: the whole tree
       * of a large model's pairs would take a gigabyte */
      g_autoptr(GOutputStream) out = ts_export_stream_open (ed->file, cancellable, &error);
      gboolean complete = out != NULL &&
                          ts_audit_report_write_json (ed->report, out, cancellable, &error) &&
                          g_output_stream_write_all (out, "\n", 1, NULL, cancellable, &error);

      if (!complete && out != NULL)
        ts_export_prefix_error (&error, ed->file);
      if (out != NULL && !ts_export_stream_close (out, complete, cancellable, complete ? &error : NULL))
        complete = FALSE;
      if (!complete)
        g_task_return_error (task, g_steal_pointer (&error));
      else
        g_task_return_boolean (task, TRUE);
      return;
    }

  if ((text = ts_audit_report_render_html (ed->report, ed->source, ed->target, &error)) == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  if (g_task_return_error_if_cancelled (task))
    return;
  if (!ts_export_replace_contents (ed->file, text, strlen (text), cancellable, &error))
    g_task_return_error (task, g_steal_pointer (&error));
  else
    g_task_return_boolean (task, TRUE);
}

void
ts_audit_pane_export_async (TsAuditPane         *self,
                            GFile               *file,
                            GCancellable        *cancellable,
                            GAsyncReadyCallback  callback,
                            gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  ExportData *ed;

  g_return_if_fail (TS_IS_AUDIT_PANE (self));
  g_return_if_fail (G_IS_FILE (file));
  g_return_if_fail (self->report != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, ts_audit_pane_export_async);

  if (!is_json (file) && (self->source == NULL || self->target == NULL))
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                               "%s", _("The HTML report needs both audited files"));
      return;
    }

  ed = g_new0 (ExportData, 1);
  ed->report = g_object_ref (self->report);
  ed->source = self->source ? g_object_ref (self->source) : NULL;
  ed->target = self->target ? g_object_ref (self->target) : NULL;
  ed->file = g_object_ref (file);
  g_task_set_task_data (task, ed, export_data_free);
  g_task_run_in_thread (task, export_worker);
}

gboolean
ts_audit_pane_export_finish (TsAuditPane   *self,
                             GAsyncResult  *result,
                             GError       **error)
{
  g_return_val_if_fail (TS_IS_AUDIT_PANE (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

static void
show_export_status (TsAuditPane *self,
                    const char  *text)
{
  gtk_label_set_text (self->export_status_label, text);
  gtk_widget_set_visible (GTK_WIDGET (self->export_status_label), text != NULL);
}

static void
export_done (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(GFile) file = user_data;
  TsAuditPane *self = TS_AUDIT_PANE (object);
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  g_autofree char *name = g_file_get_parse_name (file);

  if (!ts_audit_pane_export_finish (self, result, &error))
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        return;
      text = g_strdup_printf (_("Could not save the report: %s"), error->message);
    }
  else
    text = g_strdup_printf (_("Report saved to %s"), name);

  gtk_widget_set_sensitive (GTK_WIDGET (self->export_button), TRUE);
  show_export_status (self, text);
}

static void
file_chosen (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(TsAuditPane) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) file = ts_file_chooser_run_finish (result, &error);

  if (file == NULL)
    return;

  gtk_widget_set_sensitive (GTK_WIDGET (self->export_button), FALSE);
  show_export_status (self, _("Saving the report…"));
  ts_audit_pane_export_async (self, file, self->cancellable, export_done, g_object_ref (file));
}

static void
export_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  TsAuditPane *self = TS_AUDIT_PANE (widget);
  gboolean json = g_str_equal (action_name, "audit.export-json");
  g_autofree char *base = NULL;
  g_autofree char *name = NULL;
  const char *dot;

  if (self->report == NULL)
    return;

  base = g_strdup (ts_audit_report_get_target_name (self->report));
  if ((dot = strrchr (base, '.')) != NULL)
    base[dot - base] = '\0';
  name = g_strdup_printf ("%s-audit.%s", base, json ? "json" : "html");
  ts_file_chooser_run_async (GTK_WINDOW (gtk_widget_get_root (widget)),
                             TS_FILE_CHOOSER_SAVE_REPORT, name, self->cancellable,
                             file_chosen, g_object_ref (self));
}

/* ------------------------------------------------------------------------ */
/* GObject                                                                   */

TsAuditPane *
ts_audit_pane_new (void)
{
  return g_object_new (TS_TYPE_AUDIT_PANE, NULL);
}

static void
ts_audit_pane_dispose (GObject *object)
{
  TsAuditPane *self = (TsAuditPane *) object;

  g_cancellable_cancel (self->cancellable);
  /* before the view goes: it asks the view's sorter no more */
  g_clear_object (&self->pairs_sort);
  gtk_widget_dispose_template (GTK_WIDGET (self), TS_TYPE_AUDIT_PANE);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->report);
  g_clear_object (&self->source);
  g_clear_object (&self->target);
  g_clear_object (&self->sorted_pairs);
  g_clear_object (&self->pair_rows);
  g_clear_object (&self->pair_filter);

  G_OBJECT_CLASS (ts_audit_pane_parent_class)->dispose (object);
}

static void
ts_audit_pane_finalize (GObject *object)
{
  TsAuditPane *self = (TsAuditPane *) object;

  g_free (self->filter_text);

  G_OBJECT_CLASS (ts_audit_pane_parent_class)->finalize (object);
}

static void
ts_audit_pane_class_init (TsAuditPaneClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = ts_audit_pane_dispose;
  object_class->finalize = ts_audit_pane_finalize;

  ts_ensure_resources ();
  gtk_widget_class_set_template_from_resource (widget_class, RESOURCE_PREFIX "/ts-audit-pane.ui");
  gtk_widget_class_bind_template_child (widget_class, TsAuditPane, status_icon);
  gtk_widget_class_bind_template_child (widget_class, TsAuditPane, title_label);
  gtk_widget_class_bind_template_child (widget_class, TsAuditPane, subtitle_label);
  gtk_widget_class_bind_template_child (widget_class, TsAuditPane, export_status_label);
  gtk_widget_class_bind_template_child (widget_class, TsAuditPane, export_button);
  gtk_widget_class_bind_template_child (widget_class, TsAuditPane, view_stack);
  gtk_widget_class_bind_template_child (widget_class, TsAuditPane, checks_view);
  gtk_widget_class_bind_template_child (widget_class, TsAuditPane, pairs_view);
  gtk_widget_class_bind_template_child (widget_class, TsAuditPane, sizes_view);
  gtk_widget_class_bind_template_child (widget_class, TsAuditPane, search_entry);
  gtk_widget_class_bind_template_child (widget_class, TsAuditPane, failures_check);
  gtk_widget_class_bind_template_child (widget_class, TsAuditPane, pairs_sort_button);
  gtk_widget_class_bind_template_child (widget_class, TsAuditPane, pairs_count_label);
  gtk_widget_class_bind_template_child (widget_class, TsAuditPane, pairs_stack);
  gtk_widget_class_bind_template_child (widget_class, TsAuditPane, pairs_empty_label);
  gtk_widget_class_bind_template_child (widget_class, TsAuditPane, sizes_total_label);
  gtk_widget_class_bind_template_callback (widget_class, on_filter_changed);

  gtk_widget_class_install_action (widget_class, "audit.export-html", NULL, export_action);
  gtk_widget_class_install_action (widget_class, "audit.export-json", NULL, export_action);
}

static void
ts_audit_pane_init (TsAuditPane *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));

  self->cancellable = g_cancellable_new ();
  self->pair_filter = gtk_custom_filter_new (pair_matches, self, NULL);
  self->pair_rows = gtk_filter_list_model_new (NULL, g_object_ref (GTK_FILTER (self->pair_filter)));
  self->pairs_sort = ts_sort_menu_new (self->pairs_view, "pairs", self->pairs_sort_button);
  gtk_widget_insert_action_group (GTK_WIDGET (self), "pairs", ts_sort_menu_get_actions (self->pairs_sort));
  build_columns (self);
  self->sorted_pairs = gtk_sort_list_model_new (g_object_ref (G_LIST_MODEL (self->pair_rows)),
                                                g_object_ref (gtk_column_view_get_sorter (self->pairs_view)));
  ts_list_leave_on_tab (GTK_WIDGET (self->checks_view));
  ts_list_leave_on_tab (GTK_WIDGET (self->pairs_view));
  ts_list_leave_on_tab (GTK_WIDGET (self->sizes_view));
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "audit.export-html", FALSE);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "audit.export-json", FALSE);
}
