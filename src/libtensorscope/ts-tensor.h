/* ts-tensor.h
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib-object.h>

#include "ts-dtype.h"
#include "ts-file-part.h"

G_BEGIN_DECLS

#define TS_MAX_DIMS 8

#define TS_TYPE_TENSOR (ts_tensor_get_type ())

G_DECLARE_FINAL_TYPE (TsTensor, ts_tensor, TS, TENSOR, GObject)

const char    *ts_tensor_get_name         (TsTensor *self);
TsDType        ts_tensor_get_dtype        (TsTensor *self);
/* "unknown" for unknown types; ts_tensor_get_raw_dtype() has the file's word */
const char    *ts_tensor_get_dtype_name   (TsTensor *self);
const char    *ts_tensor_get_raw_dtype    (TsTensor *self);
guint          ts_tensor_get_n_dims       (TsTensor *self);
/* dims as the file states them (GGUF: fastest-varying first) */
const guint64 *ts_tensor_get_shape        (TsTensor *self);
/* dims outermost first (Safetensors order), whatever the format */
void           ts_tensor_get_row_major_shape (TsTensor *self,
                                              guint64  *dims);
char          *ts_tensor_format_shape     (TsTensor *self);
TsFilePart    *ts_tensor_get_part         (TsTensor *self);
/* absolute byte offset in its part */
guint64        ts_tensor_get_offset       (TsTensor *self);
guint64        ts_tensor_get_size         (TsTensor *self);
guint64        ts_tensor_get_n_elements   (TsTensor *self);
/* the tensor's bytes inside the part's mapping */
const guint8  *ts_tensor_get_data         (TsTensor *self);

G_END_DECLS
