/* ts-summary-view.c: the numbers of a model, exactly as the CLI prints them
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>

#include "ts-application.h"
#include "ts-format.h"
#include "ts-summary-view.h"

struct _TsSummaryView
{
  GtkWidget   parent_instance;

  GtkGrid    *grid;
  GHashTable *values;    /* title -> GtkLabel */
  int         row;
};

G_DEFINE_FINAL_TYPE (TsSummaryView, ts_summary_view, GTK_TYPE_WIDGET)

GtkWidget *
ts_summary_view_new (void)
{
  return g_object_new (TS_TYPE_SUMMARY_VIEW, NULL);
}

static void
add_section (TsSummaryView *self,
             const char    *title)
{
  GtkWidget *label = gtk_label_new (title);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_widget_add_css_class (label, "heading");
  gtk_widget_add_css_class (label, "summary-section");
  gtk_grid_attach (self->grid, label, 0, self->row++, 3, 1);
}

static void
add_row (TsSummaryView *self,
         const char    *title,
         const char    *value,
         const char    *note)
{
  GtkWidget *title_label = gtk_label_new (title);
  GtkWidget *value_label = gtk_label_new (value);

  gtk_label_set_xalign (GTK_LABEL (title_label), 1);
  gtk_label_set_yalign (GTK_LABEL (title_label), 0);
  gtk_widget_add_css_class (title_label, "dim-label");
  gtk_label_set_xalign (GTK_LABEL (value_label), 0);
  gtk_label_set_selectable (GTK_LABEL (value_label), TRUE);
  /* selectable with the mouse; as a focus stop it would start fully
   * selected. Nor a stop for Tab: GTK 4.8's selectable label claims a
   * Tab it cannot take, and the focus stuck on the view switcher. */
  gtk_widget_set_focusable (value_label, FALSE);
  gtk_widget_set_can_focus (value_label, FALSE);
  gtk_label_set_wrap (GTK_LABEL (value_label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (value_label), PANGO_WRAP_WORD_CHAR);
  gtk_widget_add_css_class (value_label, "numeric");
  gtk_widget_set_hexpand (value_label, note == NULL);
  gtk_grid_attach (self->grid, title_label, 0, self->row, 1, 1);
  gtk_grid_attach (self->grid, value_label, 1, self->row, note != NULL ? 1 : 2, 1);

  if (note != NULL)
    {
      GtkWidget *note_label = gtk_label_new (note);

      gtk_label_set_xalign (GTK_LABEL (note_label), 0);
      gtk_widget_set_hexpand (note_label, TRUE);
      gtk_widget_add_css_class (note_label, "dim-label");
      gtk_grid_attach (self->grid, note_label, 2, self->row, 1, 1);
    }

  if (!g_hash_table_contains (self->values, title))
    g_hash_table_insert (self->values, g_strdup (title), value_label);
  self->row++;
}

/* A value each file of a GGUF split set has its own: the first file's is
 * shown, and said to be */
static void
add_file_row (TsSummaryView *self,
              const char    *title,
              const char    *value,
              guint          n_parts)
{
  g_autofree char *in_first = n_parts > 1 ? g_strdup_printf (_("%s (in the first file)"), value) : NULL;

  add_row (self, title, in_first != NULL ? in_first : value, NULL);
}

static void
add_bytes_row (TsSummaryView *self,
               const char    *title,
               guint64        bytes,
               guint64        of_total)
{
  g_autofree char *value = ts_format_bytes (bytes);
  g_autofree char *note = NULL;

  if (of_total > 0)
    /* Translators: share of the total size */
    note = g_strdup_printf (_("%.3f %% of all bytes"), 100.0 * (double) bytes / (double) of_total);
  add_row (self, title, value, note);
}

static void
add_types (TsSummaryView *self,
           TsModelFile   *model)
{
  guint64 counts[TS_DTYPE_N_TYPES] = { 0 }, bytes[TS_DTYPE_N_TYPES] = { 0 };
  GListModel *tensors = ts_model_file_get_tensors (model);
  guint n = g_list_model_get_n_items (tensors);

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(TsTensor) t = g_list_model_get_item (tensors, i);
      TsDType d = ts_tensor_get_dtype (t);

      if ((guint) d >= TS_DTYPE_N_TYPES)
        d = TS_DTYPE_UNKNOWN;
      counts[d]++;
      bytes[d] += ts_tensor_get_size (t);
    }

  for (guint d = 0; d < TS_DTYPE_N_TYPES; d++)
    {
      g_autofree char *count = NULL;
      g_autofree char *size = NULL;
      g_autofree char *value = NULL;

      if (counts[d] == 0)
        continue;
      count = ts_format_count (counts[d]);
      size = ts_format_bytes (bytes[d]);
      value = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s tensor, %s", "%s tensors, %s", counts[d]),
                               count, size);
      add_row (self, d == TS_DTYPE_UNKNOWN ? _("unknown") : ts_dtype_get_name (d), value, NULL);
    }
}

static void
add_part (TsSummaryView *self,
          TsFilePart    *part)
{
  GListModel *regions = ts_file_part_get_regions (part);
  guint n = g_list_model_get_n_items (regions);
  g_autofree char *size = ts_format_bytes (ts_file_part_get_size (part));

  add_section (self, ts_file_part_get_name (part));
  add_row (self, _("Size"), size, NULL);

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(TsRegion) region = g_list_model_get_item (regions, i);
      g_autofree char *start = ts_format_count (ts_region_get_offset (region));
      g_autofree char *end = ts_format_count (ts_region_get_end (region));
      g_autofree char *length = ts_format_bytes (ts_region_get_length (region));
      g_autofree char *range = g_strdup_printf (_("bytes %s – %s"), start, end);

      add_row (self, ts_layout_get_kind_label (ts_region_get_kind (region)), length, range);
    }
}

static void
clear (TsSummaryView *self)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->grid))) != NULL)
    gtk_grid_remove (self->grid, child);
  g_hash_table_remove_all (self->values);
  self->row = 0;
}

void
ts_summary_view_set_model_file (TsSummaryView *self,
                                TsModelFile   *model)
{
  GListModel *parts;
  guint n_parts;
  guint64 total;
  g_autofree char *format = NULL;
  g_autofree char *path = NULL;
  g_autofree char *tensors = NULL;
  g_autofree char *params = NULL;
  g_autofree char *n_meta = NULL;
  const char * const *warnings;

  g_return_if_fail (TS_IS_SUMMARY_VIEW (self));

  clear (self);
  if (model == NULL)
    return;

  parts = ts_model_file_get_parts (model);
  n_parts = g_list_model_get_n_items (parts);
  total = ts_model_file_get_total_size (model);

  if (TS_IS_GGUF_FILE (model) && n_parts > 1)
    /* a set llama.cpp's gguf-split wrote */
    format = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "GGUF version %u, split into %u file",
                                           "GGUF version %u, split into %u files", n_parts),
                              ts_gguf_file_get_version (TS_GGUF_FILE (model)), n_parts);
  else if (TS_IS_GGUF_FILE (model))
    format = g_strdup_printf (_("GGUF version %u"), ts_gguf_file_get_version (TS_GGUF_FILE (model)));
  else
    format = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "Safetensors, %u file", "Safetensors, %u files", n_parts),
                              n_parts);
  path = g_file_get_parse_name (ts_model_file_get_file (model));
  tensors = ts_format_count (ts_model_file_get_n_tensors (model));
  params = ts_format_count (ts_model_file_get_parameter_count (model));
  n_meta = ts_format_count (g_list_model_get_n_items (ts_model_file_get_metadata (model)));

  add_section (self, _("Model"));
  add_row (self, _("Format"), format, NULL);
  add_row (self, _("Location"), path, NULL);
  add_bytes_row (self, _("Total size"), total, 0);
  add_bytes_row (self, _("Before the data"), ts_model_file_get_before_data_size (model), total);
  add_bytes_row (self, _("Tensor data"), ts_model_file_get_tensor_data_size (model), total);
  add_row (self, _("Tensors"), tensors, NULL);
  add_row (self, _("Parameters"), params, NULL);
  add_row (self, _("Metadata entries"), n_meta, NULL);

  if (TS_IS_GGUF_FILE (model))
    {
      TsGgufFile *gguf = TS_GGUF_FILE (model);
      g_autofree char *alignment = g_strdup_printf ("%u", ts_gguf_file_get_alignment (gguf));
      g_autofree char *meta_end = ts_format_count (ts_gguf_file_get_metadata_end (gguf));
      g_autofree char *info_end = ts_format_count (ts_gguf_file_get_tensor_info_end (gguf));
      guint64 file_type;

      if (ts_gguf_file_get_file_type (gguf, &file_type))
        {
          const char *name = ts_gguf_file_type_name (file_type);
          g_autofree char *number = g_strdup_printf ("%" G_GUINT64_FORMAT, file_type);
          /* TRANSLATORS: "Q4_K_M (general.file_type 15)", llama.cpp's name of the
           * file's type, and the number the file stores */
          g_autofree char *text = g_strdup_printf (_("%s (general.file_type %s)"),
                                                   name ? name : _("unknown"), number);

          add_row (self, _("File type"), text, NULL);
        }
      add_file_row (self, _("Alignment"), alignment, n_parts);
      add_file_row (self, _("Metadata ends at"), meta_end, n_parts);
      add_file_row (self, _("Descriptors end at"), info_end, n_parts);
    }

  add_section (self, _("Types"));
  add_types (self, model);

  for (guint i = 0; i < n_parts; i++)
    {
      g_autoptr(TsFilePart) part = g_list_model_get_item (parts, i);
      add_part (self, part);
    }

  warnings = ts_model_file_get_warnings (model);
  if (warnings != NULL && warnings[0] != NULL)
    {
      add_section (self, _("Warnings"));
      for (guint i = 0; warnings[i] != NULL; i++)
        add_row (self, "⚠", warnings[i], NULL);
    }
}

const char *
ts_summary_view_lookup (TsSummaryView *self,
                        const char    *title)
{
  GtkLabel *label;

  g_return_val_if_fail (TS_IS_SUMMARY_VIEW (self), NULL);

  label = g_hash_table_lookup (self->values, title);
  return label != NULL ? gtk_label_get_text (label) : NULL;
}

static void
ts_summary_view_dispose (GObject *object)
{
  TsSummaryView *self = (TsSummaryView *) object;
  GtkWidget *child;

  gtk_widget_dispose_template (GTK_WIDGET (self), TS_TYPE_SUMMARY_VIEW);
  /* the unnamed template roots (toolbars) too */
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
  g_clear_pointer (&self->values, g_hash_table_unref);

  G_OBJECT_CLASS (ts_summary_view_parent_class)->dispose (object);
}

static void
ts_summary_view_class_init (TsSummaryViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = ts_summary_view_dispose;

  ts_ensure_resources ();
  gtk_widget_class_set_template_from_resource (widget_class, RESOURCE_PREFIX "/ts-summary-view.ui");
  gtk_widget_class_bind_template_child (widget_class, TsSummaryView, grid);
  gtk_widget_class_set_css_name (widget_class, "summaryview");
}

static void
ts_summary_view_init (TsSummaryView *self)
{
  self->values = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  gtk_widget_init_template (GTK_WIDGET (self));
}
