/* ts-sort-menu.c: the keyboard's way to sort a column view: a menu of its
 * sortable columns and the direction, which follows header clicks
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>

#include "ts-sort-menu.h"

/* a sortable column; its sorter holds it too (and may outlive the menu) */
typedef struct
{
  TsSortMenu          *menu;      /* NULL once the menu is gone */
  guint                index;
  GtkColumnViewColumn *column;    /* (unowned): the view holds it */
  char                *id;
  GCompareDataFunc     compare;
  gpointer             user_data;
} SortColumn;

struct _TsSortMenu
{
  GObject              parent_instance;

  GtkColumnView       *view;
  GtkMenuButton       *button;
  char                *prefix;
  GMenu               *section;
  GSimpleActionGroup  *actions;
  GPtrArray           *columns;       /* SortColumn, rc-boxed */

  /* the view's sorter's primary column (an id or TS_SORT_NONE) and its
   * direction, as the actions show them; the direction stays for the
   * next column while unsorted */
  const char          *column_id;
  GtkSortType          order;
  gboolean             switching_column;
#if !GTK_CHECK_VERSION (4, 10, 0)
  gboolean             probing;
  guint                probe_column;
#endif
};

G_DEFINE_FINAL_TYPE (TsSortMenu, ts_sort_menu, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_COLUMN,
  PROP_ORDER,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
sort_column_clear (SortColumn *c)
{
  g_free (c->id);
}

static void
sort_column_release (gpointer data)
{
  g_rc_box_release_full (data, (GDestroyNotify) sort_column_clear);
}

static int
compare_column (gconstpointer a,
                gconstpointer b,
                gpointer      user_data)
{
  SortColumn *c = user_data;

#if !GTK_CHECK_VERSION (4, 10, 0)
  /* asked by get_primary_sort(), with no items */
  if (G_UNLIKELY (c->menu != NULL && c->menu->probing))
    {
      c->menu->probe_column = c->index;
      return -1;
    }
#endif
  return c->compare (a, b, c->user_data);
}

static SortColumn *
find_column (TsSortMenu          *self,
             GtkColumnViewColumn *column,
             const char          *id)
{
  for (guint i = 0; i < self->columns->len; i++)
    {
      SortColumn *c = g_ptr_array_index (self->columns, i);

      if ((column != NULL && c->column == column) || (id != NULL && g_str_equal (c->id, id)))
        return c;
    }
  return NULL;
}

static GtkColumnViewColumn *
get_primary_sort (TsSortMenu  *self,
                  GtkSortType *order)
{
  GtkSorter *sorter = gtk_column_view_get_sorter (self->view);
#if GTK_CHECK_VERSION (4, 10, 0)
  GtkColumnViewColumn *column;

  /* newer than GDK_VERSION_MAX_ALLOWED: see ts-file-chooser.c */
#ifndef TS_NEWER_HEADERS_CHECK
G_GNUC_BEGIN_IGNORE_DEPRECATIONS
#endif
  column = gtk_column_view_sorter_get_primary_sort_column (GTK_COLUMN_VIEW_SORTER (sorter));
  *order = gtk_column_view_sorter_get_primary_sort_order (GTK_COLUMN_VIEW_SORTER (sorter));
#ifndef TS_NEWER_HEADERS_CHECK
G_GNUC_END_IGNORE_DEPRECATIONS
#endif
  return column;
#else
  GtkOrdering ordering;
  /* two distinct items, never looked at: an item equals itself unasked */
  static const int items[2];

  /* GTK 4.8 keeps the sort columns of its sorter private. The sorter asks
   * its column sorters in turn, the primary (the header with the arrow)
   * first, and turns a descending one's answer around: one comparison in
   * which every column sorter answers "smaller", noting its column, tells
   * the primary column, and the sorter's answer its direction. */
  self->probing = TRUE;
  self->probe_column = G_MAXUINT;
  ordering = gtk_sorter_compare (sorter, (gpointer) &items[0], (gpointer) &items[1]);
  self->probing = FALSE;

  *order = ordering == GTK_ORDERING_LARGER ? GTK_SORT_DESCENDING : GTK_SORT_ASCENDING;
  if (ordering == GTK_ORDERING_EQUAL || self->probe_column >= self->columns->len)
    return NULL;
  return ((SortColumn *) g_ptr_array_index (self->columns, self->probe_column))->column;
#endif
}

/* After every change of the sorter, from a header click or from the
 * menu: the properties, the actions' states and the icon follow it */
static void
sync_state (TsSortMenu *self)
{
  GtkSortType order;
  GtkColumnViewColumn *column;
  SortColumn *c;
  const char *id;
  GAction *action;

  if (self->switching_column)
    return;
  column = get_primary_sort (self, &order);
  c = column != NULL ? find_column (self, column, NULL) : NULL;
  id = c != NULL ? c->id : TS_SORT_NONE;

  if (g_strcmp0 (id, self->column_id) != 0)
    {
      self->column_id = id;
      action = g_action_map_lookup_action (G_ACTION_MAP (self->actions), "sort-column");
      g_simple_action_set_state (G_SIMPLE_ACTION (action), g_variant_new_string (id));
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_COLUMN]);
    }
  if (c != NULL && order != self->order)
    {
      self->order = order;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ORDER]);
    }
  action = g_action_map_lookup_action (G_ACTION_MAP (self->actions), "sort-order");
  g_simple_action_set_state (G_SIMPLE_ACTION (action),
                             g_variant_new_string (self->order == GTK_SORT_DESCENDING ? "descending"
                                                                                    : "ascending"));
  /* no direction for the model's order */
  g_simple_action_set_enabled (G_SIMPLE_ACTION (action), c != NULL);
  if (self->button != NULL)
    gtk_menu_button_set_icon_name (self->button,
                                   c != NULL && order == GTK_SORT_DESCENDING
                                   ? "view-sort-descending-symbolic"
                                   : "view-sort-ascending-symbolic");
}

/* gtk_column_view_sort_by_column() redraws the header of the column it
 * sorts by, not that of the column sorted by before, whose arrow would
 * stay (so in GTK 4.8, and newer GTK's sorter code reads the same);
 * unsorting first redraws that one. A header click redraws both. */
static void
sort_by_column (TsSortMenu          *self,
                GtkColumnViewColumn *column,
                GtkSortType          order)
{
  GtkSortType old_order;
  GtkColumnViewColumn *old = get_primary_sort (self, &old_order);

  /* 50,000 rows are not sorted again into the order they are in */
  if (old == column && (column == NULL || old_order == order))
    return;
  if (old != NULL && old != column && column != NULL)
    {
      self->switching_column = TRUE;
      gtk_column_view_sort_by_column (self->view, NULL, order);
      self->switching_column = FALSE;
    }
  gtk_column_view_sort_by_column (self->view, column, order);
}

void
ts_sort_menu_set_column (TsSortMenu *self,
                         const char *id)
{
  SortColumn *c;

  g_return_if_fail (TS_IS_SORT_MENU (self));

  if (id == NULL || g_str_equal (id, TS_SORT_NONE))
    {
      sort_by_column (self, NULL, self->order);
      return;
    }
  c = find_column (self, NULL, id);
  if (c == NULL)
    {
      g_warning ("The table has no sortable column “%s”", id);
      return;
    }
  sort_by_column (self, c->column, self->order);
}

void
ts_sort_menu_set_order (TsSortMenu  *self,
                        GtkSortType  order)
{
  GtkSortType current;
  GtkColumnViewColumn *column;

  g_return_if_fail (TS_IS_SORT_MENU (self));

  column = get_primary_sort (self, &current);
  if (column != NULL)
    sort_by_column (self, column, order);
  else if (order != self->order)
    {
      /* for the next column chosen */
      self->order = order;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ORDER]);
      sync_state (self);
    }
}

void
ts_sort_menu_sort_by (TsSortMenu  *self,
                      const char  *id,
                      GtkSortType  order)
{
  SortColumn *c;

  g_return_if_fail (TS_IS_SORT_MENU (self));

  c = id != NULL ? find_column (self, NULL, id) : NULL;
  g_return_if_fail (c != NULL || g_strcmp0 (id, TS_SORT_NONE) == 0);
  sort_by_column (self, c != NULL ? c->column : NULL, order);
}

gboolean
ts_sort_menu_is_switching (TsSortMenu *self)
{
  g_return_val_if_fail (TS_IS_SORT_MENU (self), FALSE);
  return self->switching_column;
}

const char *
ts_sort_menu_get_column (TsSortMenu *self)
{
  g_return_val_if_fail (TS_IS_SORT_MENU (self), NULL);
  return self->column_id;
}

GtkSortType
ts_sort_menu_get_order (TsSortMenu *self)
{
  g_return_val_if_fail (TS_IS_SORT_MENU (self), GTK_SORT_ASCENDING);
  return self->order;
}

GActionGroup *
ts_sort_menu_get_actions (TsSortMenu *self)
{
  g_return_val_if_fail (TS_IS_SORT_MENU (self), NULL);
  return G_ACTION_GROUP (self->actions);
}

/* "Original Order", then a radio item per shown column, titled as its
 * header */
void
ts_sort_menu_update (TsSortMenu *self)
{
  g_autofree char *action = NULL;
  g_autoptr(GMenuItem) none = NULL;
  SortColumn *sorted;

  g_return_if_fail (TS_IS_SORT_MENU (self));

  /* a hidden column sorts nothing, and has no item */
  sorted = find_column (self, NULL, self->column_id);
  if (sorted != NULL && !gtk_column_view_column_get_visible (sorted->column))
    ts_sort_menu_set_column (self, TS_SORT_NONE);

  action = g_strconcat (self->prefix, ".sort-column", NULL);
  none = g_menu_item_new (_("Original Order"), NULL);
  g_menu_remove_all (self->section);
  g_menu_item_set_action_and_target (none, action, "s", TS_SORT_NONE);
  g_menu_append_item (self->section, none);
  for (guint i = 0; i < self->columns->len; i++)
    {
      SortColumn *c = g_ptr_array_index (self->columns, i);
      g_autoptr(GMenuItem) item = NULL;

      if (!gtk_column_view_column_get_visible (c->column))
        continue;
      item = g_menu_item_new (gtk_column_view_column_get_title (c->column), NULL);
      g_menu_item_set_action_and_target (item, action, "s", c->id);
      g_menu_append_item (self->section, item);
    }
}

void
ts_sort_menu_add_column (TsSortMenu          *self,
                         GtkColumnViewColumn *column,
                         const char          *id,
                         GCompareDataFunc     compare,
                         gpointer             user_data)
{
  SortColumn *c;
  g_autoptr(GtkCustomSorter) sorter = NULL;

  g_return_if_fail (TS_IS_SORT_MENU (self));
  g_return_if_fail (GTK_IS_COLUMN_VIEW_COLUMN (column));
  g_return_if_fail (id != NULL && !g_str_equal (id, TS_SORT_NONE));
  g_return_if_fail (compare != NULL);

  c = g_rc_box_new0 (SortColumn);
  c->menu = self;
  c->index = self->columns->len;
  c->column = column;
  c->id = g_strdup (id);
  c->compare = compare;
  c->user_data = user_data;
  g_ptr_array_add (self->columns, c);
  sorter = gtk_custom_sorter_new (compare_column, g_rc_box_acquire (c), sort_column_release);
  gtk_column_view_column_set_sorter (column, GTK_SORTER (sorter));
  ts_sort_menu_update (self);
  sync_state (self);
}

static void
change_column (GSimpleAction *action,
               GVariant      *value,
               gpointer       user_data)
{
  ts_sort_menu_set_column (user_data, g_variant_get_string (value, NULL));
}

static void
change_order (GSimpleAction *action,
              GVariant      *value,
              gpointer       user_data)
{
  const char *nick = g_variant_get_string (value, NULL);

  if (g_str_equal (nick, "ascending") || g_str_equal (nick, "descending"))
    ts_sort_menu_set_order (user_data, g_str_equal (nick, "descending") ? GTK_SORT_DESCENDING
                                                                        : GTK_SORT_ASCENDING);
}

TsSortMenu *
ts_sort_menu_new (GtkColumnView *view,
                  const char    *prefix,
                  GtkMenuButton *button)
{
  TsSortMenu *self;
  g_autoptr(GMenu) menu = g_menu_new ();
  g_autoptr(GMenu) order_section = g_menu_new ();
  g_autofree char *order_action = NULL;
  const GActionEntry entries[] = {
    { "sort-column", NULL, "s", "'" TS_SORT_NONE "'", change_column, { 0 } },
    { "sort-order", NULL, "s", "'ascending'", change_order, { 0 } },
  };

  g_return_val_if_fail (GTK_IS_COLUMN_VIEW (view), NULL);
  g_return_val_if_fail (prefix != NULL, NULL);
  g_return_val_if_fail (!button || GTK_IS_MENU_BUTTON (button), NULL);

  self = g_object_new (TS_TYPE_SORT_MENU, NULL);
  self->view = g_object_ref (view);
  self->button = button != NULL ? g_object_ref (button) : NULL;
  self->prefix = g_strdup (prefix);
  g_action_map_add_action_entries (G_ACTION_MAP (self->actions), entries, G_N_ELEMENTS (entries), self);

  order_action = g_strconcat (prefix, ".sort-order", NULL);
  g_menu_append_section (menu, _("Sort By"), G_MENU_MODEL (self->section));
  {
    g_autoptr(GMenuItem) ascending = g_menu_item_new (_("Ascending"), NULL);
    g_autoptr(GMenuItem) descending = g_menu_item_new (_("Descending"), NULL);

    g_menu_item_set_action_and_target (ascending, order_action, "s", "ascending");
    g_menu_item_set_action_and_target (descending, order_action, "s", "descending");
    g_menu_append_item (order_section, ascending);
    g_menu_append_item (order_section, descending);
  }
  g_menu_append_section (menu, NULL, G_MENU_MODEL (order_section));
  if (button != NULL)
    gtk_menu_button_set_menu_model (button, G_MENU_MODEL (menu));

  g_signal_connect_object (gtk_column_view_get_sorter (view), "changed",
                           G_CALLBACK (sync_state), self, G_CONNECT_SWAPPED);
  ts_sort_menu_update (self);
  sync_state (self);
  return self;
}

static void
ts_sort_menu_get_property (GObject    *object,
                           guint       prop_id,
                           GValue     *value,
                           GParamSpec *pspec)
{
  TsSortMenu *self = TS_SORT_MENU (object);

  switch (prop_id)
    {
    case PROP_COLUMN:
      g_value_set_string (value, self->column_id);
      break;

    case PROP_ORDER:
      g_value_set_enum (value, self->order);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ts_sort_menu_set_property (GObject      *object,
                           guint         prop_id,
                           const GValue *value,
                           GParamSpec   *pspec)
{
  TsSortMenu *self = TS_SORT_MENU (object);

  switch (prop_id)
    {
    case PROP_COLUMN:
      ts_sort_menu_set_column (self, g_value_get_string (value));
      break;

    case PROP_ORDER:
      ts_sort_menu_set_order (self, g_value_get_enum (value));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ts_sort_menu_dispose (GObject *object)
{
  TsSortMenu *self = (TsSortMenu *) object;

  /* the actions may stay in a widget's muxer a while: they no longer
   * reach here */
  if (self->actions != NULL)
    {
      g_action_map_remove_action (G_ACTION_MAP (self->actions), "sort-column");
      g_action_map_remove_action (G_ACTION_MAP (self->actions), "sort-order");
    }
  /* the columns' sorters stay with the view: they no longer ask here */
  if (self->view != NULL)
    g_signal_handlers_disconnect_by_data (gtk_column_view_get_sorter (self->view), self);
  for (guint i = 0; self->columns != NULL && i < self->columns->len; i++)
    ((SortColumn *) g_ptr_array_index (self->columns, i))->menu = NULL;
  g_clear_pointer (&self->columns, g_ptr_array_unref);
  g_clear_object (&self->view);
  g_clear_object (&self->button);
  g_clear_object (&self->section);
  g_clear_object (&self->actions);

  G_OBJECT_CLASS (ts_sort_menu_parent_class)->dispose (object);
}

static void
ts_sort_menu_finalize (GObject *object)
{
  TsSortMenu *self = (TsSortMenu *) object;

  g_free (self->prefix);

  G_OBJECT_CLASS (ts_sort_menu_parent_class)->finalize (object);
}

static void
ts_sort_menu_class_init (TsSortMenuClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = ts_sort_menu_dispose;
  object_class->finalize = ts_sort_menu_finalize;
  object_class->get_property = ts_sort_menu_get_property;
  object_class->set_property = ts_sort_menu_set_property;

  /* the column the rows are sorted by: a column's id, or TS_SORT_NONE */
  properties[PROP_COLUMN] =
    g_param_spec_string ("column", NULL, NULL,
                         TS_SORT_NONE,
                         (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  properties[PROP_ORDER] =
    g_param_spec_enum ("order", NULL, NULL,
                       GTK_TYPE_SORT_TYPE, GTK_SORT_ASCENDING,
                       (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
ts_sort_menu_init (TsSortMenu *self)
{
  self->columns = g_ptr_array_new_with_free_func (sort_column_release);
  self->section = g_menu_new ();
  self->actions = g_simple_action_group_new ();
  self->column_id = TS_SORT_NONE;
  self->order = GTK_SORT_ASCENDING;
}
