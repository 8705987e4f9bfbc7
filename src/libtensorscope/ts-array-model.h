/* ts-array-model.h: a GListModel over a GPtrArray that never changes once built
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define TS_TYPE_ARRAY_MODEL (ts_array_model_get_type ())

G_DECLARE_FINAL_TYPE (TsArrayModel, ts_array_model, TS, ARRAY_MODEL, GObject)

TsArrayModel *_ts_array_model_new    (GType         item_type);
/* Only while the owner is being built, on one thread; emits nothing. */
void          _ts_array_model_append (TsArrayModel *self,
                                      gpointer      item);

G_END_DECLS
