/* ts-array-model.c
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The lists of a loaded model are read by the GUI's list views on the main
 * thread and by workers (layout geometry, exports, conversion, audit) at the
 * same time. GListStore is not safe for that: g_list_store_get_item() moves a
 * cached iterator on every read. This model reads a plain array, so any
 * number of threads may read it once the reader that built it is done.
 */

#include "config.h"

#include "ts-array-model.h"

struct _TsArrayModel
{
  GObject    parent_instance;
  GType      item_type;
  GPtrArray *items;
};

static void list_model_iface_init (GListModelInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (TsArrayModel, ts_array_model, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL, list_model_iface_init))

static GType
ts_array_model_get_item_type (GListModel *model)
{
  return TS_ARRAY_MODEL (model)->item_type;
}

static guint
ts_array_model_get_n_items (GListModel *model)
{
  return TS_ARRAY_MODEL (model)->items->len;
}

static gpointer
ts_array_model_get_item (GListModel *model,
                         guint       position)
{
  TsArrayModel *self = TS_ARRAY_MODEL (model);

  if (position >= self->items->len)
    return NULL;
  return g_object_ref (g_ptr_array_index (self->items, position));
}

static void
list_model_iface_init (GListModelInterface *iface)
{
  iface->get_item_type = ts_array_model_get_item_type;
  iface->get_n_items = ts_array_model_get_n_items;
  iface->get_item = ts_array_model_get_item;
}

static void
ts_array_model_finalize (GObject *object)
{
  TsArrayModel *self = (TsArrayModel *) object;

  g_clear_pointer (&self->items, g_ptr_array_unref);

  G_OBJECT_CLASS (ts_array_model_parent_class)->finalize (object);
}

static void
ts_array_model_class_init (TsArrayModelClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ts_array_model_finalize;
}

static void
ts_array_model_init (TsArrayModel *self)
{
  self->items = g_ptr_array_new_with_free_func (g_object_unref);
}

TsArrayModel *
_ts_array_model_new (GType item_type)
{
  TsArrayModel *self;

  g_return_val_if_fail (g_type_is_a (item_type, G_TYPE_OBJECT), NULL);

  self = g_object_new (TS_TYPE_ARRAY_MODEL, NULL);
  self->item_type = item_type;
  return self;
}

void
_ts_array_model_append (TsArrayModel *self,
                        gpointer      item)
{
  g_return_if_fail (TS_IS_ARRAY_MODEL (self));
  g_return_if_fail (g_type_is_a (G_OBJECT_TYPE (item), self->item_type));

  g_ptr_array_add (self->items, g_object_ref (item));
}
