/* ts-tensor-table.c: the tensors of a model in a sortable, filterable table
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "ts-application.h"
#include "ts-format.h"
#include "ts-sort-menu.h"
#include "ts-tensor-table.h"

typedef enum
{
  COLUMN_NAME,
  COLUMN_TYPE,
  COLUMN_SHAPE,
  COLUMN_ELEMENTS,
  COLUMN_BYTES,
  COLUMN_OFFSET,
  COLUMN_PART,
  N_COLUMNS
} Column;

static const char * const column_ids[N_COLUMNS] = {
  "name", "type", "shape", "elements", "bytes", "offset", "part",
};
/* the sort-column of a table in the order of the file */
#define SORT_NONE TS_SORT_NONE

struct _TsTensorTable
{
  GtkWidget           parent_instance;

  TsModelFile        *model;
  GtkSortListModel   *sort_model;
  GtkFilterListModel *filter_model;
  GtkSingleSelection *selection;
  GtkCustomFilter    *filter;
  char               *query;
  gboolean            order_changed;

  GtkSearchEntry     *search_entry;
  GtkLabel           *count_label;
  GtkStack           *stack;
  GtkColumnView      *column_view;
  GtkColumnViewColumn *columns[N_COLUMNS];
  GtkLabel           *summary_label;
  GtkLabel           *no_match_hint;
  GtkMenuButton      *sort_button;
  /* the keyboard's way to sort; its column and order are the table's
   * sort-column and sort-order */
  TsSortMenu         *sort_menu;
  /* the widest number of each numeric column, in characters: its cells
   * are never narrower, so no number loses its leading digits */
  guint               number_chars[N_COLUMNS];
};

G_DEFINE_FINAL_TYPE (TsTensorTable, ts_tensor_table, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_SORT_COLUMN,
  PROP_SORT_ORDER,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

GtkWidget *
ts_tensor_table_new (void)
{
  return g_object_new (TS_TYPE_TENSOR_TABLE, NULL);
}

/* ------------------------------------------------------------------------ */
/* Cells                                                                     */

/* Cells are GtkInscriptions, not GtkLabels: an inscription's size comes
 * from its character counts, never from its text, so binding a row while
 * scrolling only redraws it; a label would queue a resize, and the column
 * view would measure every cell of every column again on each scroll step
 * of a 50,000-row table. The widths below fit the widest values a real
 * checkpoint has ("[128256, 3072]", "6,425,000,000"). */
static const struct
{
  guint min_chars;
  guint nat_chars;
  float xalign;
  GtkInscriptionOverflow overflow;
} cell_specs[N_COLUMNS] = {
  [COLUMN_NAME]     = { 40, 44, 0.0, GTK_INSCRIPTION_OVERFLOW_ELLIPSIZE_MIDDLE },
  [COLUMN_TYPE]     = { 4, 7, 0.0, GTK_INSCRIPTION_OVERFLOW_ELLIPSIZE_END },
  [COLUMN_SHAPE]    = { 14, 15, 0.0, GTK_INSCRIPTION_OVERFLOW_ELLIPSIZE_END },
  [COLUMN_ELEMENTS] = { 8, 13, 1.0, GTK_INSCRIPTION_OVERFLOW_ELLIPSIZE_START },
  [COLUMN_BYTES]    = { 8, 13, 1.0, GTK_INSCRIPTION_OVERFLOW_ELLIPSIZE_START },
  [COLUMN_OFFSET]   = { 8, 14, 1.0, GTK_INSCRIPTION_OVERFLOW_ELLIPSIZE_START },
  [COLUMN_PART]     = { 8, 24, 0.0, GTK_INSCRIPTION_OVERFLOW_ELLIPSIZE_MIDDLE },
};

static char *
cell_text (TsTensor *tensor,
           Column    column)
{
  switch (column)
    {
    case COLUMN_SHAPE:    return ts_tensor_format_shape (tensor);
    case COLUMN_ELEMENTS: return ts_format_count (ts_tensor_get_n_elements (tensor));
    case COLUMN_BYTES:    return ts_format_count (ts_tensor_get_size (tensor));
    case COLUMN_OFFSET:   return ts_format_count (ts_tensor_get_offset (tensor));
    case COLUMN_NAME:
    case COLUMN_TYPE:
    case COLUMN_PART:
    case N_COLUMNS:
    default:              g_assert_not_reached ();
    }
}

static gboolean
query_cell_tooltip (GtkWidget  *cell,
                    int         x,
                    int         y,
                    gboolean    keyboard_mode,
                    GtkTooltip *tooltip,
                    gpointer    user_data)
{
  const char *text = gtk_inscription_get_text (GTK_INSCRIPTION (cell));

  if (text == NULL || text[0] == '\0')
    return FALSE;
  gtk_tooltip_set_text (tooltip, text);
  return TRUE;
}

static void
setup_cell (GtkSignalListItemFactory *factory,
            GtkListItem              *item,
            gpointer                  user_data)
{
  Column column = GPOINTER_TO_UINT (user_data);
  GtkInscription *cell = GTK_INSCRIPTION (gtk_inscription_new (NULL));

  gtk_inscription_set_min_chars (cell, cell_specs[column].min_chars);
  gtk_inscription_set_nat_chars (cell, cell_specs[column].nat_chars);
  gtk_inscription_set_xalign (cell, cell_specs[column].xalign);
  gtk_inscription_set_text_overflow (cell, cell_specs[column].overflow);
  if (column != COLUMN_NAME && column != COLUMN_TYPE && column != COLUMN_PART)
    gtk_widget_add_css_class (GTK_WIDGET (cell), "numeric");
  if (column == COLUMN_NAME || column == COLUMN_PART)
    {
      if (column == COLUMN_NAME)
        gtk_widget_add_css_class (GTK_WIDGET (cell), "tensor-name");
      /* the full text, asked for on hover: setting a tooltip text on every
       * bind costs more than the rest of a scroll step */
      gtk_widget_set_has_tooltip (GTK_WIDGET (cell), TRUE);
      g_signal_connect (cell, "query-tooltip", G_CALLBACK (query_cell_tooltip), NULL);
    }
  gtk_list_item_set_child (item, GTK_WIDGET (cell));
}

static void
bind_cell (GtkSignalListItemFactory *factory,
           GtkListItem              *item,
           gpointer                  user_data)
{
  Column column = GPOINTER_TO_UINT (user_data);
  TsTensor *tensor = gtk_list_item_get_item (item);
  GtkInscription *cell = GTK_INSCRIPTION (gtk_list_item_get_child (item));
  TsTensorTable *self = g_object_get_data (G_OBJECT (factory), "table");
  g_autofree char *text = NULL;
  /* a numeric column is as wide as its widest number, no wider: the room
   * goes to the names */
  if (self->number_chars[column] > 0 && gtk_inscription_get_min_chars (cell) != self->number_chars[column])
    {
      gtk_inscription_set_min_chars (cell, self->number_chars[column]);
      gtk_inscription_set_nat_chars (cell, self->number_chars[column]);
    }

  /* the strings the tensor owns are shown as they are */
  if (column == COLUMN_NAME)
    gtk_inscription_set_text (cell, ts_tensor_get_name (tensor));
  else if (column == COLUMN_TYPE)
    gtk_inscription_set_text (cell, ts_tensor_get_dtype_name (tensor));
  else if (column == COLUMN_PART)
    gtk_inscription_set_text (cell, ts_file_part_get_name (ts_tensor_get_part (tensor)));
  else
    gtk_inscription_set_text (cell, (text = cell_text (tensor, column)));
}

/* ------------------------------------------------------------------------ */
/* Sorting and filtering                                                     */

#define CMP(a, b) ((a) < (b) ? -1 : (a) > (b) ? 1 : 0)

static int
compare_tensors (gconstpointer a,
                 gconstpointer b,
                 gpointer      user_data)
{
  Column column = GPOINTER_TO_UINT (user_data);
  TsTensor *ta = (TsTensor *) a;
  TsTensor *tb = (TsTensor *) b;

  switch (column)
    {
    case COLUMN_NAME:
      return ts_natural_compare (ts_tensor_get_name (ta), ts_tensor_get_name (tb));
    case COLUMN_TYPE:
      return g_strcmp0 (ts_tensor_get_dtype_name (ta), ts_tensor_get_dtype_name (tb));
    case COLUMN_SHAPE:
      {
        guint64 da[TS_MAX_DIMS] = { 0 }, db[TS_MAX_DIMS] = { 0 };
        int r = CMP (ts_tensor_get_n_dims (ta), ts_tensor_get_n_dims (tb));

        if (r != 0)
          return r;
        ts_tensor_get_row_major_shape (ta, da);
        ts_tensor_get_row_major_shape (tb, db);
        for (guint i = 0; i < ts_tensor_get_n_dims (ta) && i < TS_MAX_DIMS; i++)
          if ((r = CMP (da[i], db[i])) != 0)
            return r;
        return 0;
      }
    case COLUMN_ELEMENTS:
      return CMP (ts_tensor_get_n_elements (ta), ts_tensor_get_n_elements (tb));
    case COLUMN_BYTES:
      return CMP (ts_tensor_get_size (ta), ts_tensor_get_size (tb));
    case COLUMN_OFFSET:
      {
        int r = CMP (ts_file_part_get_index (ts_tensor_get_part (ta)),
                     ts_file_part_get_index (ts_tensor_get_part (tb)));
        return r != 0 ? r : CMP (ts_tensor_get_offset (ta), ts_tensor_get_offset (tb));
      }
    case COLUMN_PART:
      return CMP (ts_file_part_get_index (ts_tensor_get_part (ta)),
                  ts_file_part_get_index (ts_tensor_get_part (tb)));
    case N_COLUMNS:
    default:
      g_assert_not_reached ();
    }
}

static gboolean
filter_tensor (gpointer item,
               gpointer user_data)
{
  TsTensorTable *self = user_data;

  if (self->query == NULL || self->query[0] == '\0')
    return TRUE;

  return strcasestr (ts_tensor_get_name (item), self->query) != NULL;
}

static void
update_count (TsTensorTable *self)
{
  guint shown = g_list_model_get_n_items (G_LIST_MODEL (self->filter_model));
  guint total = self->model != NULL ? ts_model_file_get_n_tensors (self->model) : 0;
  g_autofree char *shown_text = ts_format_count (shown);
  g_autofree char *total_text = ts_format_count (total);
  g_autofree char *text = NULL;

  if (self->query != NULL && self->query[0] != '\0')
    /* Translators: "12 of 255 tensors" */
    text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s of %s tensor", "%s of %s tensors", total),
                            shown_text, total_text);
  else
    text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s tensor", "%s tensors", total),
                            total_text);

  gtk_label_set_text (self->count_label, text);
  gtk_stack_set_visible_child_name (self->stack, shown == 0 && total > 0 ? "no-match" : "table");
}

static void
apply_filter (TsTensorTable *self,
              const char    *text)
{
  GtkFilterChange change = GTK_FILTER_CHANGE_DIFFERENT;
  g_autofree char *old = g_steal_pointer (&self->query);

  self->query = g_strdup (text != NULL ? text : "");
  if (g_strcmp0 (old, self->query) == 0)
    return;

  /* No query, no filter: the rows pass straight through. A filter that
   * matches everything would still test 50,000 rows, incrementally, with
   * the table emptied and refilled meanwhile. */
  if (self->query[0] == '\0')
    gtk_filter_list_model_set_filter (self->filter_model, NULL);
  else if (old == NULL || old[0] == '\0')
    {
      gtk_filter_changed (GTK_FILTER (self->filter), GTK_FILTER_CHANGE_DIFFERENT);
      gtk_filter_list_model_set_filter (self->filter_model, GTK_FILTER (self->filter));
    }
  else
    {
      /* typing narrows the match, deleting widens it: let GTK skip work */
      if (strstr (self->query, old) != NULL)
        change = GTK_FILTER_CHANGE_MORE_STRICT;
      else if (strstr (old, self->query) != NULL)
        change = GTK_FILTER_CHANGE_LESS_STRICT;
      gtk_filter_changed (GTK_FILTER (self->filter), change);
    }
  update_count (self);
}

static void
on_search_changed (TsTensorTable  *self,
                   GtkSearchEntry *entry)
{
  apply_filter (self, gtk_editable_get_text (GTK_EDITABLE (entry)));
}

static void
on_stop_search (TsTensorTable  *self,
                GtkSearchEntry *entry)
{
  gtk_editable_set_text (GTK_EDITABLE (entry), "");
  apply_filter (self, "");
}

/* ------------------------------------------------------------------------ */
/* What to try when a filter matches nothing: a layer's part of a name as
 * the format spells it (Hugging Face's "layers.3.", llama.cpp's "blk.3.") */
static void
set_no_match_hint (TsTensorTable *self,
                   TsModelFile   *model)
{
  g_autofree char *hint = NULL;
  gboolean gguf = model != NULL && ts_model_file_get_format (model) == TS_FORMAT_GGUF;

  /* Translators: the second example is "blk.3." or "layers.3.", a part of
   * the names of layer 3's tensors */
  hint = g_strdup_printf (_("Try a part of a name, such as “attn” or “%s”"), gguf ? "blk.3." : "layers.3.");
  gtk_label_set_text (self->no_match_hint, hint);
}

/* Per data type: tensors, parameters and bytes. */
static void
update_summary (TsTensorTable *self)
{
  g_autoptr(GString) text = g_string_new (NULL);
  guint64 counts[TS_DTYPE_N_TYPES] = { 0 }, bytes[TS_DTYPE_N_TYPES] = { 0 };
  GListModel *tensors;
  g_autofree char *params = NULL;
  g_autofree char *data = NULL;
  guint n;

  if (self->model == NULL)
    {
      gtk_label_set_text (self->summary_label, "");
      return;
    }

  tensors = ts_model_file_get_tensors (self->model);
  n = g_list_model_get_n_items (tensors);
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(TsTensor) t = g_list_model_get_item (tensors, i);
      TsDType dtype = ts_tensor_get_dtype (t);

      if ((guint) dtype >= TS_DTYPE_N_TYPES)
        dtype = TS_DTYPE_UNKNOWN;
      counts[dtype]++;
      bytes[dtype] += ts_tensor_get_size (t);
    }

  params = ts_format_count (ts_model_file_get_parameter_count (self->model));
  data = g_format_size (ts_model_file_get_tensor_data_size (self->model));
  g_string_append_printf (text, _("%s parameters · %s of tensor data"), params, data);

  for (guint d = 0; d < TS_DTYPE_N_TYPES; d++)
    {
      g_autofree char *size = NULL;
      g_autofree char *count = NULL;

      if (counts[d] == 0)
        continue;
      size = g_format_size (bytes[d]);
      count = ts_format_count (counts[d]);
      g_string_append (text, "   ·   ");
      /* Translators: per data type, its tensors' count and their total
       * size: "BF16: 20 tensors, 3.5 MB" */
      g_string_append_printf (text, g_dngettext (GETTEXT_PACKAGE, "%s: %s tensor, %s",
                                                 "%s: %s tensors, %s", (gulong) counts[d]),
                              d == TS_DTYPE_UNKNOWN ? _("unknown") : ts_dtype_get_name (d),
                              count, size);
    }

  gtk_label_set_text (self->summary_label, text->str);
}

/* ------------------------------------------------------------------------ */
/* API                                                                       */

static void
update_number_chars (TsTensorTable *self)
{
  GListModel *tensors = self->model != NULL ? ts_model_file_get_tensors (self->model) : NULL;
  guint64 max[N_COLUMNS] = { 0 };
  guint n = tensors != NULL ? g_list_model_get_n_items (tensors) : 0;

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(TsTensor) tensor = g_list_model_get_item (tensors, i);

      max[COLUMN_ELEMENTS] = MAX (max[COLUMN_ELEMENTS], ts_tensor_get_n_elements (tensor));
      max[COLUMN_BYTES] = MAX (max[COLUMN_BYTES], ts_tensor_get_size (tensor));
      max[COLUMN_OFFSET] = MAX (max[COLUMN_OFFSET], ts_tensor_get_offset (tensor));
    }
  for (Column c = COLUMN_ELEMENTS; c <= COLUMN_OFFSET; c++)
    {
      g_autofree char *widest = ts_format_count (max[c]);

      self->number_chars[c] = (guint) g_utf8_strlen (widest, -1);
    }
}

void
ts_tensor_table_set_model_file (TsTensorTable *self,
                                TsModelFile   *model)
{
  gboolean many_parts;
  guint n;

  g_return_if_fail (TS_IS_TENSOR_TABLE (self));
  g_return_if_fail (!model || TS_IS_MODEL_FILE (model));

  if (!g_set_object (&self->model, model))
    return;

  /* no query for a new model, before its rows arrive: they go straight
   * to the table, unfiltered */
  gtk_editable_set_text (GTK_EDITABLE (self->search_entry), "");
  apply_filter (self, "");

  /* big models sort and filter in chunks, so the main loop never stalls */
  n = model != NULL ? ts_model_file_get_n_tensors (model) : 0;
  gtk_sort_list_model_set_incremental (self->sort_model, n > 20000);
  gtk_filter_list_model_set_incremental (self->filter_model, n > 20000);

  update_number_chars (self);
  set_no_match_hint (self, model);
  many_parts = model != NULL &&
               g_list_model_get_n_items (ts_model_file_get_parts (model)) > 1;
  if (gtk_column_view_column_get_visible (self->columns[COLUMN_PART]) != many_parts)
    {
      gtk_column_view_column_set_visible (self->columns[COLUMN_PART], many_parts);
      ts_sort_menu_update (self->sort_menu);
    }

  gtk_sort_list_model_set_model (self->sort_model,
                                 model != NULL ? ts_model_file_get_tensors (model) : NULL);
  update_count (self);
  update_summary (self);
}

GtkSelectionModel *
ts_tensor_table_get_selection (TsTensorTable *self)
{
  g_return_val_if_fail (TS_IS_TENSOR_TABLE (self), NULL);

  return GTK_SELECTION_MODEL (self->selection);
}

guint
ts_tensor_table_get_n_rows (TsTensorTable *self)
{
  g_return_val_if_fail (TS_IS_TENSOR_TABLE (self), 0);

  return g_list_model_get_n_items (G_LIST_MODEL (self->selection));
}

void
ts_tensor_table_set_filter_text (TsTensorTable *self,
                                 const char    *text)
{
  g_return_if_fail (TS_IS_TENSOR_TABLE (self));

  gtk_editable_set_text (GTK_EDITABLE (self->search_entry), text != NULL ? text : "");
  apply_filter (self, text);
}

void
ts_tensor_table_focus_search (TsTensorTable *self)
{
  g_return_if_fail (TS_IS_TENSOR_TABLE (self));

  gtk_widget_grab_focus (GTK_WIDGET (self->search_entry));
}

void
ts_tensor_table_sort_by (TsTensorTable *self,
                         const char    *column,
                         GtkSortType    order)
{
  g_return_if_fail (TS_IS_TENSOR_TABLE (self));

  ts_sort_menu_sort_by (self->sort_menu, column, order);
}

static GtkWidget *
find_list_view (GtkWidget *widget)
{
  for (GtkWidget *child = gtk_widget_get_first_child (widget);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (GTK_IS_LIST_VIEW (child))
      return child;

  return NULL;
}

static guint
find_position (GListModel *list,
               gpointer    item)
{
  guint n = g_list_model_get_n_items (list);

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(GObject) other = g_list_model_get_item (list, i);
      if (other == item)
        return i;
    }

  return GTK_INVALID_LIST_POSITION;
}

static void
scroll_to_row (TsTensorTable *self,
               guint          pos)
{
  GtkWidget *list_view;

  if (pos >= g_list_model_get_n_items (G_LIST_MODEL (self->selection)))
    return;
  /* GTK 4.8 has no gtk_column_view_scroll_to(); its list view has the action */
  if ((list_view = find_list_view (GTK_WIDGET (self->column_view))) != NULL)
    gtk_widget_activate_action (list_view, "list.scroll-to-item", "u", pos);
}

/* A new order shows its first row, or the selected one. Left alone, the
 * list view keeps its top row in view wherever the sort moved it: sorting
 * by size from the top of the table landed at its end. */
static void
show_new_order (TsTensorTable *self)
{
  guint selected = gtk_single_selection_get_selected (self->selection);

  if (ts_sort_menu_is_switching (self->sort_menu))
    return;   /* the new order comes next */
  if (gtk_sort_list_model_get_pending (self->sort_model) > 0)
    {
      self->order_changed = TRUE;   /* the rest arrives in chunks */
      return;
    }
  self->order_changed = FALSE;
  scroll_to_row (self, selected != GTK_INVALID_LIST_POSITION ? selected : 0);
}

/* a row selected from elsewhere (a band of the layout) comes into view */
static void
on_selected (TsTensorTable *self)
{
  guint selected = gtk_single_selection_get_selected (self->selection);

  if (selected != GTK_INVALID_LIST_POSITION)
    scroll_to_row (self, selected);
}

static void
on_sort_pending (TsTensorTable *self)
{
  if (self->order_changed)
    show_new_order (self);
}

/* From the filter box (Down, or Enter) to the first match: selected,
 * shown and focused. The list view's own move from outside would land on
 * the row it last had focus on, whatever the filter left there. */
static gboolean
focus_first_row (TsTensorTable *self)
{
  GtkWidget *list_view = find_list_view (GTK_WIDGET (self->column_view));
  GtkWidget *row;

  if (ts_tensor_table_get_n_rows (self) == 0 || list_view == NULL)
    return FALSE;
  gtk_single_selection_set_selected (self->selection, 0);
  scroll_to_row (self, 0);
  /* at the top, the list view's first child is row 0. In newer GTK
   * a row that takes the focus is where the arrow keys go on from; 4.8's
   * list view keeps the row it had for that. */
  row = gtk_widget_get_first_child (list_view);
  if (row == NULL || !gtk_widget_grab_focus (row))
    gtk_widget_grab_focus (GTK_WIDGET (self->column_view));
  return TRUE;
}

static gboolean
on_search_key_pressed (TsTensorTable         *self,
                       guint                  keyval,
                       guint                  keycode,
                       GdkModifierType        state,
                       GtkEventControllerKey *key)
{
  if ((keyval != GDK_KEY_Down && keyval != GDK_KEY_KP_Down) ||
      (state & (GDK_SHIFT_MASK | GDK_CONTROL_MASK | GDK_ALT_MASK)))
    return FALSE;
  return focus_first_row (self);
}

static void
on_search_activate (TsTensorTable *self)
{
  focus_first_row (self);
}

void
ts_tensor_table_select_tensor (TsTensorTable *self,
                               TsTensor      *tensor)
{
  guint pos;

  g_return_if_fail (TS_IS_TENSOR_TABLE (self));
  g_return_if_fail (TS_IS_TENSOR (tensor));

  if ((pos = find_position (G_LIST_MODEL (self->selection), tensor)) == GTK_INVALID_LIST_POSITION)
    {
      ts_tensor_table_set_filter_text (self, "");
      pos = find_position (G_LIST_MODEL (self->selection), tensor);
    }
  if (pos == GTK_INVALID_LIST_POSITION)
    return;

  gtk_single_selection_set_selected (self->selection, pos);
  scroll_to_row (self, pos);   /* also when it was selected already */
}

/* ------------------------------------------------------------------------ */
/* GObject                                                                   */

static void
ts_tensor_table_get_property (GObject    *object,
                              guint       prop_id,
                              GValue     *value,
                              GParamSpec *pspec)
{
  TsTensorTable *self = TS_TENSOR_TABLE (object);

  switch (prop_id)
    {
    /* (a table disposed has no menu, and says its defaults) */
    case PROP_SORT_COLUMN:
      g_value_set_string (value, self->sort_menu != NULL ? ts_sort_menu_get_column (self->sort_menu)
                                                         : SORT_NONE);
      break;

    case PROP_SORT_ORDER:
      g_value_set_enum (value, self->sort_menu != NULL ? ts_sort_menu_get_order (self->sort_menu)
                                                       : GTK_SORT_ASCENDING);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ts_tensor_table_set_property (GObject      *object,
                              guint         prop_id,
                              const GValue *value,
                              GParamSpec   *pspec)
{
  TsTensorTable *self = TS_TENSOR_TABLE (object);

  switch (prop_id)
    {
    case PROP_SORT_COLUMN:
      if (self->sort_menu != NULL)
        ts_sort_menu_set_column (self->sort_menu, g_value_get_string (value));
      break;

    case PROP_SORT_ORDER:
      if (self->sort_menu != NULL)
        ts_sort_menu_set_order (self->sort_menu, g_value_get_enum (value));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

/* the sort menu's column and order are the table's */
static void
on_sort_column_changed (TsTensorTable *self)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SORT_COLUMN]);
}

static void
on_sort_order_changed (TsTensorTable *self)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SORT_ORDER]);
}

static void
ts_tensor_table_dispose (GObject *object)
{
  TsTensorTable *self = (TsTensorTable *) object;
  GtkWidget *child;

  /* removing the columns changes the sorter: no more row updates */
  if (self->filter_model != NULL)
    g_signal_handlers_disconnect_by_data (self->filter_model, self);
  if (self->selection != NULL)
    g_signal_handlers_disconnect_by_data (self->selection, self);
  if (self->sort_model != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->sort_model, self);
      g_signal_handlers_disconnect_by_data (gtk_sort_list_model_get_sorter (self->sort_model), self);
    }
  /* before the view goes: it asks the view's sorter no more */
  g_clear_object (&self->sort_menu);
  gtk_widget_dispose_template (GTK_WIDGET (self), TS_TYPE_TENSOR_TABLE);
  /* the unnamed template roots (toolbars) too */
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
  g_clear_object (&self->selection);
  g_clear_object (&self->filter);
  g_clear_object (&self->model);
  g_clear_pointer (&self->query, g_free);

  G_OBJECT_CLASS (ts_tensor_table_parent_class)->dispose (object);
}

static void
ts_tensor_table_class_init (TsTensorTableClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = ts_tensor_table_dispose;
  object_class->get_property = ts_tensor_table_get_property;
  object_class->set_property = ts_tensor_table_set_property;

  /* the column the rows are sorted by: a column id (see
   * ts_tensor_table_sort_by()), or "none" for the order of the file;
   * header clicks change it too */
  properties[PROP_SORT_COLUMN] =
    g_param_spec_string ("sort-column", NULL, NULL,
                         SORT_NONE,
                         (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  properties[PROP_SORT_ORDER] =
    g_param_spec_enum ("sort-order", NULL, NULL,
                       GTK_TYPE_SORT_TYPE, GTK_SORT_ASCENDING,
                       (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  g_object_class_install_properties (object_class, N_PROPS, properties);

  ts_ensure_resources ();
  gtk_widget_class_set_template_from_resource (widget_class, RESOURCE_PREFIX "/ts-tensor-table.ui");
  gtk_widget_class_bind_template_child (widget_class, TsTensorTable, search_entry);
  gtk_widget_class_bind_template_child (widget_class, TsTensorTable, count_label);
  gtk_widget_class_bind_template_child (widget_class, TsTensorTable, stack);
  gtk_widget_class_bind_template_child (widget_class, TsTensorTable, column_view);
  gtk_widget_class_bind_template_child_full (widget_class, "name_column", FALSE,
                                             G_STRUCT_OFFSET (TsTensorTable, columns[COLUMN_NAME]));
  gtk_widget_class_bind_template_child_full (widget_class, "type_column", FALSE,
                                             G_STRUCT_OFFSET (TsTensorTable, columns[COLUMN_TYPE]));
  gtk_widget_class_bind_template_child_full (widget_class, "shape_column", FALSE,
                                             G_STRUCT_OFFSET (TsTensorTable, columns[COLUMN_SHAPE]));
  gtk_widget_class_bind_template_child_full (widget_class, "elements_column", FALSE,
                                             G_STRUCT_OFFSET (TsTensorTable, columns[COLUMN_ELEMENTS]));
  gtk_widget_class_bind_template_child_full (widget_class, "bytes_column", FALSE,
                                             G_STRUCT_OFFSET (TsTensorTable, columns[COLUMN_BYTES]));
  gtk_widget_class_bind_template_child_full (widget_class, "offset_column", FALSE,
                                             G_STRUCT_OFFSET (TsTensorTable, columns[COLUMN_OFFSET]));
  gtk_widget_class_bind_template_child_full (widget_class, "part_column", FALSE,
                                             G_STRUCT_OFFSET (TsTensorTable, columns[COLUMN_PART]));
  gtk_widget_class_bind_template_child (widget_class, TsTensorTable, summary_label);
  gtk_widget_class_bind_template_child (widget_class, TsTensorTable, no_match_hint);
  gtk_widget_class_bind_template_child (widget_class, TsTensorTable, sort_button);
  gtk_widget_class_bind_template_callback (widget_class, on_search_changed);
  gtk_widget_class_bind_template_callback (widget_class, on_stop_search);

  gtk_widget_class_set_css_name (widget_class, "tensortable");
}

static void
ts_tensor_table_init (TsTensorTable *self)
{
  GtkSorter *sorter;

  gtk_widget_init_template (GTK_WIDGET (self));
  set_no_match_hint (self, NULL);
  self->sort_menu = ts_sort_menu_new (self->column_view, "table", self->sort_button);
  gtk_widget_insert_action_group (GTK_WIDGET (self), "table", ts_sort_menu_get_actions (self->sort_menu));
  g_signal_connect_object (self->sort_menu, "notify::column",
                           G_CALLBACK (on_sort_column_changed), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->sort_menu, "notify::order",
                           G_CALLBACK (on_sort_order_changed), self, G_CONNECT_SWAPPED);

  for (guint i = 0; i < N_COLUMNS; i++)
    {
      g_autoptr(GtkListItemFactory) factory = gtk_signal_list_item_factory_new ();


      g_object_set_data (G_OBJECT (factory), "table", self);
      g_signal_connect (factory, "setup", G_CALLBACK (setup_cell), GUINT_TO_POINTER (i));
      g_signal_connect (factory, "bind", G_CALLBACK (bind_cell), GUINT_TO_POINTER (i));
      gtk_column_view_column_set_factory (self->columns[i], factory);
      ts_sort_menu_add_column (self->sort_menu, self->columns[i], column_ids[i],
                               compare_tensors, GUINT_TO_POINTER (i));
    }

  /* tensors → sorted (by the clicked header) → filtered → selection */
  sorter = gtk_column_view_get_sorter (self->column_view);
  self->sort_model = gtk_sort_list_model_new (NULL, g_object_ref (sorter));
  self->filter = gtk_custom_filter_new (filter_tensor, self, NULL);
  /* the filter is set while there is a query (apply_filter) */
  self->filter_model = gtk_filter_list_model_new (G_LIST_MODEL (self->sort_model), NULL);
  self->selection = gtk_single_selection_new (G_LIST_MODEL (self->filter_model));
  gtk_single_selection_set_autoselect (self->selection, FALSE);
  gtk_single_selection_set_can_unselect (self->selection, TRUE);
  gtk_column_view_set_model (self->column_view, GTK_SELECTION_MODEL (self->selection));

  g_signal_connect_object (self->filter_model, "items-changed",
                           G_CALLBACK (update_count), self, G_CONNECT_SWAPPED);
  /* connected after the sort model's own handler: the rows are in their
   * new order (or on their way, in chunks) when these run */
  g_signal_connect_object (sorter, "changed",
                           G_CALLBACK (show_new_order), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->sort_model, "notify::pending",
                           G_CALLBACK (on_sort_pending), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->selection, "notify::selected",
                           G_CALLBACK (on_selected), self, G_CONNECT_SWAPPED);

  {
    GtkEventController *key = gtk_event_controller_key_new ();

    gtk_event_controller_set_name (key, "down-to-rows");
    gtk_event_controller_set_propagation_phase (key, GTK_PHASE_CAPTURE);
    g_signal_connect_object (key, "key-pressed", G_CALLBACK (on_search_key_pressed), self, G_CONNECT_SWAPPED);
    gtk_widget_add_controller (GTK_WIDGET (self->search_entry), key);
    g_signal_connect_object (self->search_entry, "activate", G_CALLBACK (on_search_activate), self,
                             G_CONNECT_SWAPPED);
  }
  ts_list_leave_on_tab (GTK_WIDGET (self->column_view));
}
