/* ts-model-loader.h: loads a model on a worker thread and reports progress
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "ts-model-file.h"

G_BEGIN_DECLS

#define TS_TYPE_MODEL_LOADER (ts_model_loader_get_type ())

G_DECLARE_FINAL_TYPE (TsModelLoader, ts_model_loader, TS, MODEL_LOADER, GObject)

TsModelLoader *ts_model_loader_new          (GFile                *file);
GFile         *ts_model_loader_get_file     (TsModelLoader        *self);
double         ts_model_loader_get_fraction (TsModelLoader        *self);
const char    *ts_model_loader_get_message  (TsModelLoader        *self);
void           ts_model_loader_load_async   (TsModelLoader        *self,
                                             GCancellable         *cancellable,
                                             GAsyncReadyCallback   callback,
                                             gpointer              user_data);
TsModelFile   *ts_model_loader_load_finish  (TsModelLoader        *self,
                                             GAsyncResult         *result,
                                             GError              **error);

G_END_DECLS
