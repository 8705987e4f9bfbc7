/* ts-region.h
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

typedef enum
{
  TS_REGION_LENGTH_PREFIX,   /* Safetensors: 8-byte header length */
  TS_REGION_JSON_HEADER,     /* Safetensors: JSON header incl. space padding */
  TS_REGION_FIXED_HEADER,    /* GGUF: magic, version, counts */
  TS_REGION_METADATA,        /* GGUF: key/value pairs */
  TS_REGION_TENSOR_INFO,     /* GGUF: tensor descriptors */
  TS_REGION_PADDING,         /* GGUF: alignment padding before the data */
  TS_REGION_TENSOR_DATA,     /* tensor data section */
  TS_REGION_UNEXPLAINED,     /* bytes no rule accounts for */
  TS_REGION_N_KINDS
} TsRegionKind;

const char *ts_region_kind_to_nick  (TsRegionKind kind);

#define TS_TYPE_REGION (ts_region_get_type ())

G_DECLARE_FINAL_TYPE (TsRegion, ts_region, TS, REGION, GObject)

TsRegion     *ts_region_new         (TsRegionKind kind,
                                     guint64      offset,
                                     guint64      length);
TsRegionKind  ts_region_get_kind    (TsRegion    *self);
guint64       ts_region_get_offset  (TsRegion    *self);
guint64       ts_region_get_length  (TsRegion    *self);
guint64       ts_region_get_end     (TsRegion    *self);

G_END_DECLS
