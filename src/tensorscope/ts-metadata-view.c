/* ts-metadata-view.c: metadata keys and values, long strings in full, and
 * huge arrays page by page
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "ts-application.h"
#include "ts-format.h"
#include "ts-metadata-view.h"

#define PAGE_SIZE        500
#define CELL_MAX_CHARS   160
#define ITEM_MAX_CHARS   2000
#define ARRAY_PREVIEW    4

struct _TsMetadataView
{
  GtkWidget           parent_instance;

  TsModelFile        *model;
  GtkFilterListModel *filter_model;
  GtkSingleSelection *selection;
  GtkCustomFilter    *filter;
  char               *query;

  TsMetadataEntry    *array;          /* the array shown, or NULL */
  guint64             page_start;
  guint64             found_index;
  GCancellable       *search_cancellable;
  guint               scroll_to;
  guint               scroll_id;

  GtkSearchEntry     *search_entry;
  GtkLabel           *count_label;
  GtkColumnView      *column_view;
  GtkColumnViewColumn *key_column;
  GtkColumnViewColumn *type_column;
  GtkColumnViewColumn *value_column;
  GtkLabel           *key_label;
  GtkLabel           *info_label;
  GtkStack           *detail_stack;
  GtkTextView        *text_view;
  GtkButton          *prev_button;
  GtkButton          *next_button;
  GtkLabel           *page_label;
  GtkSpinButton      *index_spin;
  GtkAdjustment      *index_adjustment;
  GtkSearchEntry     *item_search;
  GtkLabel           *search_status;
  GtkListView        *item_list;
};

G_DEFINE_FINAL_TYPE (TsMetadataView, ts_metadata_view, GTK_TYPE_WIDGET)

GtkWidget *
ts_metadata_view_new (void)
{
  return g_object_new (TS_TYPE_METADATA_VIEW, NULL);
}

/* ------------------------------------------------------------------------ */
/* Text of values                                                            */

static char *
type_text (TsMetadataEntry *entry)
{
  TsValueType type = ts_metadata_entry_get_value_type (entry);

  if (type == TS_VALUE_ARRAY)
    return g_strdup_printf ("array[%s]",
                            ts_value_type_to_nick (ts_metadata_entry_get_array_type (entry)));

  return g_strdup (ts_value_type_to_nick (type));
}

static char *
item_text (TsMetadataEntry *array,
           guint64          index,
           guint            max_chars)
{
  g_autoptr(TsMetadataEntry) item = NULL;
  g_autofree char *text = NULL;

  if (ts_metadata_entry_get_array_type (array) == TS_VALUE_STRING)
    {
      gsize len = 0;
      const char *s = ts_metadata_entry_get_item_string (array, index, &len);

      return ts_format_display_text (s, len, max_chars);
    }

  if (!(item = ts_metadata_entry_get_item (array, index)))
    return g_strdup ("");
  text = ts_metadata_entry_to_string (item);
  return ts_format_display_text (text, -1, max_chars);
}

static char *
value_text (TsMetadataEntry *entry,
            guint            max_chars)
{
  TsValueType type = ts_metadata_entry_get_value_type (entry);

  if (type == TS_VALUE_STRING)
    {
      gsize len = 0;
      const char *s = ts_metadata_entry_get_string (entry, &len);

      return ts_format_display_text (s, len, max_chars);
    }

  if (type == TS_VALUE_ARRAY)
    {
      guint64 n = ts_metadata_entry_get_array_length (entry);
      g_autofree char *count = ts_format_count (n);
      GString *out = g_string_new (NULL);

      /* Translators: "128,256 items: [a, b, c, …]" */
      g_string_append_printf (out, g_dngettext (GETTEXT_PACKAGE, "%s item: [", "%s items: [", n),
                              count);
      for (guint64 i = 0; i < n && i < ARRAY_PREVIEW; i++)
        {
          g_autofree char *item = item_text (entry, i, 24);
          g_string_append_printf (out, "%s%s", i > 0 ? ", " : "", item);
        }
      g_string_append (out, n > ARRAY_PREVIEW ? ", …]" : "]");
      return g_string_free (out, FALSE);
    }

  {
    g_autofree char *text = ts_metadata_entry_to_string (entry);
    return ts_format_display_text (text, -1, max_chars);
  }
}

/* ------------------------------------------------------------------------ */
/* Table                                                                     */

typedef enum { CELL_KEY, CELL_TYPE, CELL_VALUE } Cell;

static void
setup_cell (GtkSignalListItemFactory *factory,
            GtkListItem              *item,
            gpointer                  user_data)
{
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  /* a key keeps both ends: "llama.attention.…_rms_epsilon" */
  gtk_label_set_ellipsize (GTK_LABEL (label), GPOINTER_TO_UINT (user_data) == CELL_KEY
                                              ? PANGO_ELLIPSIZE_MIDDLE : PANGO_ELLIPSIZE_END);
  if (GPOINTER_TO_UINT (user_data) == CELL_VALUE)
    gtk_widget_add_css_class (label, "metadata-value");
  else if (GPOINTER_TO_UINT (user_data) == CELL_TYPE)
    gtk_widget_add_css_class (label, "dim-label");
  else
    ts_label_add_full_text_tooltip (GTK_LABEL (label));
  gtk_list_item_set_child (item, label);
}

static void
bind_cell (GtkSignalListItemFactory *factory,
           GtkListItem              *item,
           gpointer                  user_data)
{
  TsMetadataEntry *entry = gtk_list_item_get_item (item);
  GtkWidget *label = gtk_list_item_get_child (item);
  g_autofree char *text = NULL;

  switch ((Cell) GPOINTER_TO_UINT (user_data))
    {
    case CELL_KEY:
      text = g_strdup (ts_metadata_entry_get_key (entry));
      break;
    case CELL_TYPE:
      text = type_text (entry);
      break;
    case CELL_VALUE:
      text = value_text (entry, CELL_MAX_CHARS);
      break;
    default:
      g_assert_not_reached ();
    }

  gtk_label_set_text (GTK_LABEL (label), text);
}

static void
add_column_factory (GtkColumnViewColumn *column,
                    Cell                 cell)
{
  g_autoptr(GtkListItemFactory) factory = gtk_signal_list_item_factory_new ();

  g_signal_connect (factory, "setup", G_CALLBACK (setup_cell), GUINT_TO_POINTER (cell));
  g_signal_connect (factory, "bind", G_CALLBACK (bind_cell), GUINT_TO_POINTER (cell));
  gtk_column_view_column_set_factory (column, factory);
}

static gboolean
filter_entry (gpointer item,
              gpointer user_data)
{
  TsMetadataView *self = user_data;
  TsMetadataEntry *entry = item;
  const char *s;
  gsize len;

  if (self->query == NULL || self->query[0] == '\0')
    return TRUE;
  if (strcasestr (ts_metadata_entry_get_key (entry), self->query) != NULL)
    return TRUE;

  /* string values too (a chat template is a few KB; arrays are not searched) */
  if ((s = ts_metadata_entry_get_string (entry, &len)) != NULL)
    {
      g_autofree char *copy = g_strndup (s, len);
      return strcasestr (copy, self->query) != NULL;
    }

  return FALSE;
}

static void
update_count (TsMetadataView *self)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->filter_model));
  guint total = self->model != NULL ? g_list_model_get_n_items (ts_model_file_get_metadata (self->model)) : 0;
  g_autofree char *count = ts_format_count (n);
  g_autofree char *total_text = ts_format_count (total);
  g_autofree char *text = NULL;

  /* as the tensor table counts: "2 of 30 entries" while a filter is on */
  if (self->query != NULL && self->query[0] != '\0')
    /* Translators: "2 of 30 entries" */
    text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s of %s entry", "%s of %s entries", total),
                            count, total_text);
  else
    text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s entry", "%s entries", n), count);

  gtk_label_set_text (self->count_label, text);
}

static void
on_search_changed (TsMetadataView *self,
                   GtkSearchEntry *entry)
{
  g_free (self->query);
  self->query = g_strdup (gtk_editable_get_text (GTK_EDITABLE (entry)));
  gtk_filter_changed (GTK_FILTER (self->filter), GTK_FILTER_CHANGE_DIFFERENT);
  update_count (self);
}

/* ------------------------------------------------------------------------ */
/* Array browser                                                             */

static void
setup_item (GtkSignalListItemFactory *factory,
            GtkListItem              *item,
            gpointer                  user_data)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  GtkWidget *index = gtk_label_new (NULL);
  GtkWidget *value = gtk_label_new (NULL);

  gtk_label_set_xalign (GTK_LABEL (index), 1);
  gtk_label_set_width_chars (GTK_LABEL (index), 8);
  gtk_widget_add_css_class (index, "dim-label");
  gtk_widget_add_css_class (index, "numeric");
  gtk_label_set_xalign (GTK_LABEL (value), 0);
  gtk_label_set_ellipsize (GTK_LABEL (value), PANGO_ELLIPSIZE_END);
  gtk_widget_add_css_class (value, "monospace");
  gtk_box_append (GTK_BOX (box), index);
  gtk_box_append (GTK_BOX (box), value);
  gtk_list_item_set_child (item, box);
}

static void
bind_item (GtkSignalListItemFactory *factory,
           GtkListItem              *item,
           gpointer                  user_data)
{
  TsMetadataView *self = user_data;
  GtkWidget *box = gtk_list_item_get_child (item);
  GtkStringObject *string = gtk_list_item_get_item (item);
  g_autofree char *index = ts_format_count (self->page_start + gtk_list_item_get_position (item));

  gtk_label_set_text (GTK_LABEL (gtk_widget_get_first_child (box)), index);
  gtk_label_set_text (GTK_LABEL (gtk_widget_get_last_child (box)),
                      gtk_string_object_get_string (string));
}

static void
fill_page (TsMetadataView *self)
{
  guint64 n = ts_metadata_entry_get_array_length (self->array);
  guint64 end = MIN (self->page_start + PAGE_SIZE, n);
  g_autoptr(GtkStringList) strings = gtk_string_list_new (NULL);
  g_autofree char *first = ts_format_count (n > 0 ? self->page_start : 0);
  g_autofree char *last = ts_format_count (n > 0 ? end - 1 : 0);
  g_autofree char *total = ts_format_count (n);
  g_autofree char *page = NULL;
  GtkSingleSelection *selection;

  for (guint64 i = self->page_start; i < end; i++)
    {
      g_autofree char *text = item_text (self->array, i, ITEM_MAX_CHARS);
      gtk_string_list_append (strings, text);
    }

  selection = gtk_single_selection_new (G_LIST_MODEL (g_steal_pointer (&strings)));
  gtk_single_selection_set_autoselect (selection, FALSE);
  gtk_single_selection_set_can_unselect (selection, TRUE);
  gtk_list_view_set_model (self->item_list, GTK_SELECTION_MODEL (selection));
  g_object_unref (selection);

  /* Translators: "0–499 of 128,256", the items shown */
  page = g_strdup_printf (_("%s–%s of %s"), first, last, total);
  gtk_label_set_text (self->page_label, page);
  gtk_widget_set_sensitive (GTK_WIDGET (self->prev_button), self->page_start > 0);
  gtk_widget_set_sensitive (GTK_WIDGET (self->next_button), end < n);
}

static gboolean
scroll_idle (gpointer user_data)
{
  TsMetadataView *self = user_data;

  self->scroll_id = 0;
  gtk_widget_activate_action (GTK_WIDGET (self->item_list), "list.scroll-to-item", "u", self->scroll_to);
  return G_SOURCE_REMOVE;
}

void
ts_metadata_view_go_to_index (TsMetadataView *self,
                              guint64         index)
{
  guint64 n;
  guint pos;

  g_return_if_fail (TS_IS_METADATA_VIEW (self));

  if (self->array == NULL || (n = ts_metadata_entry_get_array_length (self->array)) == 0)
    return;

  index = MIN (index, n - 1);
  if (index < self->page_start || index >= self->page_start + PAGE_SIZE)
    {
      self->page_start = index - index % PAGE_SIZE;
      fill_page (self);
    }

  pos = (guint) (index - self->page_start);
  gtk_single_selection_set_selected (GTK_SINGLE_SELECTION (gtk_list_view_get_model (self->item_list)), pos);
  gtk_spin_button_set_value (self->index_spin, (double) index);

  /* a page just filled has no rows allocated yet: scroll once it has */
  self->scroll_to = pos;
  if (self->scroll_id == 0)
    self->scroll_id = g_idle_add_full (G_PRIORITY_LOW, scroll_idle, self, NULL);
}

guint64
ts_metadata_view_get_page_start (TsMetadataView *self)
{
  g_return_val_if_fail (TS_IS_METADATA_VIEW (self), 0);

  return self->page_start;
}

static void
on_prev_page (TsMetadataView *self)
{
  if (self->array == NULL || self->page_start == 0)
    return;

  self->page_start -= MIN (self->page_start, PAGE_SIZE);
  fill_page (self);
}

static void
on_next_page (TsMetadataView *self)
{
  if (self->array == NULL ||
      self->page_start + PAGE_SIZE >= ts_metadata_entry_get_array_length (self->array))
    return;

  self->page_start += PAGE_SIZE;
  fill_page (self);
}

static void
on_index_activate (TsMetadataView *self)
{
  gtk_spin_button_update (self->index_spin);
  ts_metadata_view_go_to_index (self, (guint64) gtk_spin_button_get_value (self->index_spin));
}

/* Searching a 280k-item array decodes every item: on a worker thread,
 * from the item after the last match, wrapping around once. */
typedef struct
{
  TsMetadataEntry *array;
  char            *needle;
  guint64          start;
} SearchData;

static void
search_data_free (gpointer data)
{
  SearchData *sd = data;

  g_clear_object (&sd->array);
  g_free (sd->needle);
  g_free (sd);
}

static void
search_worker (GTask        *task,
               gpointer      source_object,
               gpointer      task_data,
               GCancellable *cancellable)
{
  SearchData *sd = task_data;
  guint64 n = ts_metadata_entry_get_array_length (sd->array);

  for (guint64 k = 0; k < n; k++)
    {
      guint64 i = (sd->start + k) % n;
      g_autofree char *text = item_text (sd->array, i, 0);

      if (k % 4096 == 0 && g_task_return_error_if_cancelled (task))
        return;

      if (strcasestr (text, sd->needle) != NULL)
        {
          g_task_return_pointer (task, g_memdup2 (&i, sizeof i), g_free);
          return;
        }
    }

  g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, _("No item contains “%s”"),
                           sd->needle);
}

static void
search_done (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(TsMetadataView) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree guint64 *index = g_task_propagate_pointer (G_TASK (result), &error);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;

  gtk_widget_set_visible (GTK_WIDGET (self->search_status), error != NULL);
  if (error != NULL)
    {
      gtk_label_set_text (self->search_status, error->message);
      return;
    }

  self->found_index = *index;
  ts_metadata_view_go_to_index (self, *index);
}

static void
on_item_search (TsMetadataView *self)
{
  const char *needle = gtk_editable_get_text (GTK_EDITABLE (self->item_search));
  g_autoptr(GTask) task = NULL;
  SearchData *sd;

  if (self->array == NULL || needle[0] == '\0')
    return;

  g_cancellable_cancel (self->search_cancellable);
  g_clear_object (&self->search_cancellable);
  self->search_cancellable = g_cancellable_new ();

  sd = g_new0 (SearchData, 1);
  sd->array = g_object_ref (self->array);
  sd->needle = g_strdup (needle);
  sd->start = self->found_index == G_MAXUINT64 ? self->page_start : self->found_index + 1;

  task = g_task_new (NULL, self->search_cancellable, search_done, g_object_ref (self));
  g_task_set_source_tag (task, on_item_search);
  g_task_set_task_data (task, sd, search_data_free);
  g_task_run_in_thread (task, search_worker);
}

/* ------------------------------------------------------------------------ */
/* Detail pane                                                               */

static void
show_entry (TsMetadataView  *self,
            TsMetadataEntry *entry)
{
  g_autofree char *type = NULL;
  g_autofree char *size = NULL;
  g_autofree char *range = NULL;
  g_autofree char *start = NULL;
  g_autofree char *end = NULL;
  g_autofree char *info = NULL;

  g_cancellable_cancel (self->search_cancellable);
  g_clear_object (&self->array);
  gtk_widget_set_visible (GTK_WIDGET (self->search_status), FALSE);

  if (entry == NULL)
    {
      gtk_label_set_text (self->key_label, "");
      gtk_label_set_text (self->info_label, "");
      gtk_stack_set_visible_child_name (self->detail_stack, "empty");
      return;
    }

  type = type_text (entry);
  size = ts_format_bytes (ts_metadata_entry_get_length (entry));
  start = ts_format_count (ts_metadata_entry_get_offset (entry));
  end = ts_format_count (ts_metadata_entry_get_offset (entry) + ts_metadata_entry_get_length (entry));
  if (ts_metadata_entry_get_length (entry) == 0)
    /* a Safetensors __metadata__ string: text inside the JSON header,
     * with no byte range of its own */
    info = g_strdup_printf (_("%s · inside the JSON header"), type);
  else
    /* Translators: type · size · absolute byte range of the entry */
    info = g_strdup_printf (_("%s · %s · bytes %s – %s"), type, size, start, end);
  gtk_label_set_text (self->key_label, ts_metadata_entry_get_key (entry));
  gtk_label_set_text (self->info_label, info);

  if (ts_metadata_entry_get_value_type (entry) == TS_VALUE_ARRAY)
    {
      guint64 n = ts_metadata_entry_get_array_length (entry);

      self->array = g_object_ref (entry);
      self->page_start = 0;
      self->found_index = G_MAXUINT64;
      /* the last array's search is not this one's */
      gtk_editable_set_text (GTK_EDITABLE (self->item_search), "");
      gtk_adjustment_set_upper (self->index_adjustment, n > 0 ? (double) (n - 1) : 0);
      gtk_spin_button_set_value (self->index_spin, 0);
      fill_page (self);
      gtk_stack_set_visible_child_name (self->detail_stack, "array");
    }
  else
    {
      g_autofree char *text = value_text (entry, 0);

      gtk_text_buffer_set_text (gtk_text_view_get_buffer (self->text_view), text, -1);
      gtk_stack_set_visible_child_name (self->detail_stack, "text");
    }
}

/* a value as text for the clipboard: a string as it is (made valid
 * UTF-8), anything else as displayed */
static char *
copy_text (TsMetadataEntry *entry)
{
  return ts_metadata_entry_get_value_type (entry) == TS_VALUE_STRING
         ? ts_metadata_entry_dup_string (entry) : ts_metadata_entry_to_string (entry);
}

/* The most bytes Ctrl+C puts on the clipboard. Above 262,144 GTK sends
 * X11 clipboard data in pieces (INCR), and a reader that stops halfway
 * (a paste cut short, a clipboard manager giving up) then freezes the
 * window for good: GTK (4.8 to at least 4.22) waits for it on the main
 * thread. */
#define COPY_MAX_BYTES 256000

/* Ctrl+C: the focused array item, from the items list; else the selected
 * entry's whole value (an array, a line an item), up to COPY_MAX_BYTES */
static void
copy_value_action (GtkWidget  *widget,
                   const char *action_name,
                   GVariant   *parameter)
{
  TsMetadataView *self = TS_METADATA_VIEW (widget);
  TsMetadataEntry *entry = gtk_single_selection_get_selected_item (self->selection);
  GtkWidget *focus = gtk_root_get_focus (gtk_widget_get_root (widget));
  g_autofree char *text = NULL;

  if (self->array != NULL && focus != NULL &&
      (focus == GTK_WIDGET (self->item_list) || gtk_widget_is_ancestor (focus, GTK_WIDGET (self->item_list))))
    {
      guint pos = gtk_single_selection_get_selected (GTK_SINGLE_SELECTION (gtk_list_view_get_model (self->item_list)));
      g_autoptr(TsMetadataEntry) item = NULL;

      if (pos == GTK_INVALID_LIST_POSITION)
        return;
      item = ts_metadata_entry_get_item (self->array, self->page_start + pos);
      text = copy_text (item);
    }
  else if (entry == NULL)
    return;
  else if (ts_metadata_entry_get_value_type (entry) == TS_VALUE_ARRAY)
    {
      guint64 n = ts_metadata_entry_get_array_length (entry);
      GString *out = g_string_new (NULL);
      guint64 i;

      /* room kept for the last line */
      for (i = 0; i < n; i++)
        {
          g_autoptr(TsMetadataEntry) item = ts_metadata_entry_get_item (entry, i);
          g_autofree char *item_text = copy_text (item);

          if (out->len + strlen (item_text) + 1 > COPY_MAX_BYTES - 200)
            break;
          g_string_append (out, item_text);
          g_string_append_c (out, '\n');
        }
      if (i < n)
        {
          g_autofree char *more = ts_format_count (n - i);

          /* Translators: the last line of a copied array cut short */
          g_string_append_printf (out, g_dngettext (GETTEXT_PACKAGE, "… and %s more item, not copied\n",
                                                    "… and %s more items, not copied\n", n - i),
                                  more);
        }
      text = g_string_free (out, FALSE);
    }
  else
    text = copy_text (entry);
  /* a string longer than that: its first COPY_MAX_BYTES, whole characters */
  if (strlen (text) > COPY_MAX_BYTES)
    {
      const char *end = g_utf8_find_prev_char (text, text + COPY_MAX_BYTES + 1);

      text[end - text] = '\0';
    }
  gdk_clipboard_set_text (gtk_widget_get_clipboard (widget), text);
}

static void
on_selection_changed (TsMetadataView *self)
{
  show_entry (self, gtk_single_selection_get_selected_item (self->selection));
}

/* ------------------------------------------------------------------------ */
/* API                                                                       */

void
ts_metadata_view_set_model_file (TsMetadataView *self,
                                 TsModelFile    *model)
{
  g_return_if_fail (TS_IS_METADATA_VIEW (self));
  g_return_if_fail (!model || TS_IS_MODEL_FILE (model));

  if (!g_set_object (&self->model, model))
    return;

  gtk_editable_set_text (GTK_EDITABLE (self->search_entry), "");
  gtk_filter_list_model_set_model (self->filter_model,
                                   model != NULL ? ts_model_file_get_metadata (model) : NULL);
  update_count (self);
  on_selection_changed (self);
}

void
ts_metadata_view_focus_search (TsMetadataView *self)
{
  g_return_if_fail (TS_IS_METADATA_VIEW (self));

  gtk_widget_grab_focus (GTK_WIDGET (self->search_entry));
}

/* the search entry's text (its search-changed signal comes a moment later) */
void
ts_metadata_view_set_filter_text (TsMetadataView *self,
                                  const char     *text)
{
  g_return_if_fail (TS_IS_METADATA_VIEW (self));

  gtk_editable_set_text (GTK_EDITABLE (self->search_entry), text);
}

const char *
ts_metadata_view_get_count_text (TsMetadataView *self)
{
  g_return_val_if_fail (TS_IS_METADATA_VIEW (self), NULL);

  return gtk_label_get_text (self->count_label);
}

guint
ts_metadata_view_get_n_rows (TsMetadataView *self)
{
  g_return_val_if_fail (TS_IS_METADATA_VIEW (self), 0);

  return g_list_model_get_n_items (G_LIST_MODEL (self->filter_model));
}

gboolean
ts_metadata_view_select_key (TsMetadataView *self,
                             const char     *key)
{
  guint n;

  g_return_val_if_fail (TS_IS_METADATA_VIEW (self), FALSE);

  n = g_list_model_get_n_items (G_LIST_MODEL (self->selection));
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(TsMetadataEntry) entry = g_list_model_get_item (G_LIST_MODEL (self->selection), i);

      if (g_strcmp0 (ts_metadata_entry_get_key (entry), key) == 0)
        {
          gtk_single_selection_set_selected (self->selection, i);
          return TRUE;
        }
    }

  return FALSE;
}

/* ------------------------------------------------------------------------ */
/* GObject                                                                   */

static void
ts_metadata_view_dispose (GObject *object)
{
  TsMetadataView *self = (TsMetadataView *) object;
  GtkWidget *child;

  g_cancellable_cancel (self->search_cancellable);
  g_clear_object (&self->search_cancellable);
  g_clear_handle_id (&self->scroll_id, g_source_remove);
  gtk_widget_dispose_template (GTK_WIDGET (self), TS_TYPE_METADATA_VIEW);
  /* the unnamed template roots (toolbars) too */
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
  g_clear_object (&self->selection);
  g_clear_object (&self->filter);
  g_clear_object (&self->array);
  g_clear_object (&self->model);
  g_clear_pointer (&self->query, g_free);

  G_OBJECT_CLASS (ts_metadata_view_parent_class)->dispose (object);
}

static void
ts_metadata_view_class_init (TsMetadataViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = ts_metadata_view_dispose;

  ts_ensure_resources ();
  gtk_widget_class_set_template_from_resource (widget_class, RESOURCE_PREFIX "/ts-metadata-view.ui");
  gtk_widget_class_bind_template_child (widget_class, TsMetadataView, search_entry);
  gtk_widget_class_bind_template_child (widget_class, TsMetadataView, count_label);
  gtk_widget_class_bind_template_child (widget_class, TsMetadataView, column_view);
  gtk_widget_class_bind_template_child (widget_class, TsMetadataView, key_column);
  gtk_widget_class_bind_template_child (widget_class, TsMetadataView, type_column);
  gtk_widget_class_bind_template_child (widget_class, TsMetadataView, value_column);
  gtk_widget_class_bind_template_child (widget_class, TsMetadataView, key_label);
  gtk_widget_class_bind_template_child (widget_class, TsMetadataView, info_label);
  gtk_widget_class_bind_template_child (widget_class, TsMetadataView, detail_stack);
  gtk_widget_class_bind_template_child (widget_class, TsMetadataView, text_view);
  gtk_widget_class_bind_template_child (widget_class, TsMetadataView, prev_button);
  gtk_widget_class_bind_template_child (widget_class, TsMetadataView, next_button);
  gtk_widget_class_bind_template_child (widget_class, TsMetadataView, page_label);
  gtk_widget_class_bind_template_child (widget_class, TsMetadataView, index_spin);
  gtk_widget_class_bind_template_child (widget_class, TsMetadataView, index_adjustment);
  gtk_widget_class_bind_template_child (widget_class, TsMetadataView, item_search);
  gtk_widget_class_bind_template_child (widget_class, TsMetadataView, search_status);
  gtk_widget_class_bind_template_child (widget_class, TsMetadataView, item_list);
  gtk_widget_class_bind_template_callback (widget_class, on_search_changed);
  gtk_widget_class_bind_template_callback (widget_class, on_prev_page);
  gtk_widget_class_bind_template_callback (widget_class, on_next_page);
  gtk_widget_class_bind_template_callback (widget_class, on_index_activate);
  gtk_widget_class_bind_template_callback (widget_class, on_item_search);

  /* the search box and the value's text take Ctrl+C first, for their selection */
  gtk_widget_class_install_action (widget_class, "metadata.copy-value", NULL, copy_value_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_c, GDK_CONTROL_MASK,
                                       "metadata.copy-value", NULL);

  gtk_widget_class_set_css_name (widget_class, "metadataview");
}

static void
ts_metadata_view_init (TsMetadataView *self)
{
  g_autoptr(GtkListItemFactory) item_factory = gtk_signal_list_item_factory_new ();

  gtk_widget_init_template (GTK_WIDGET (self));
  /* "0–499 of 128,256" may be cut short in a narrow window */
  ts_label_add_full_text_tooltip (self->page_label);

  add_column_factory (self->key_column, CELL_KEY);
  add_column_factory (self->type_column, CELL_TYPE);
  add_column_factory (self->value_column, CELL_VALUE);

  self->filter = gtk_custom_filter_new (filter_entry, self, NULL);
  self->filter_model = gtk_filter_list_model_new (NULL, g_object_ref (GTK_FILTER (self->filter)));
  self->selection = gtk_single_selection_new (G_LIST_MODEL (self->filter_model));
  gtk_single_selection_set_autoselect (self->selection, FALSE);
  gtk_single_selection_set_can_unselect (self->selection, TRUE);
  gtk_column_view_set_model (self->column_view, GTK_SELECTION_MODEL (self->selection));
  g_signal_connect_object (self->selection, "notify::selected-item",
                           G_CALLBACK (on_selection_changed), self, G_CONNECT_SWAPPED);

  g_signal_connect (item_factory, "setup", G_CALLBACK (setup_item), self);
  g_signal_connect (item_factory, "bind", G_CALLBACK (bind_item), self);
  gtk_list_view_set_factory (self->item_list, item_factory);
  self->found_index = G_MAXUINT64;
  /* the keys, and the 500 items of a page: Tab goes on to the detail */
  ts_list_leave_on_tab (GTK_WIDGET (self->column_view));
  ts_list_leave_on_tab (GTK_WIDGET (self->item_list));
}
