/* ts-safetensors-file.h
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ts-model-file.h"

G_BEGIN_DECLS

#define TS_TYPE_SAFETENSORS_FILE (ts_safetensors_file_get_type ())

G_DECLARE_FINAL_TYPE (TsSafetensorsFile, ts_safetensors_file, TS, SAFETENSORS_FILE, TsModelFile)

/* the checkpoint folder for a sharded model, else NULL */
GFile      *ts_safetensors_file_get_index_file (TsSafetensorsFile *self);
gboolean    ts_safetensors_file_is_sharded     (TsSafetensorsFile *self);

G_END_DECLS
