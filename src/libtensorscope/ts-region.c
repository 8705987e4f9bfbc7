/* ts-region.c
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "ts-region.h"

struct _TsRegion
{
  GObject      parent_instance;
  TsRegionKind kind;
  guint64      offset;
  guint64      length;
};

G_DEFINE_FINAL_TYPE (TsRegion, ts_region, G_TYPE_OBJECT)

static const char * const kind_nicks[] = {
  [TS_REGION_LENGTH_PREFIX] = "length-prefix",
  [TS_REGION_JSON_HEADER] = "json-header",
  [TS_REGION_FIXED_HEADER] = "fixed-header",
  [TS_REGION_METADATA] = "metadata",
  [TS_REGION_TENSOR_INFO] = "tensor-info",
  [TS_REGION_PADDING] = "padding",
  [TS_REGION_TENSOR_DATA] = "tensor-data",
  [TS_REGION_UNEXPLAINED] = "unexplained",
};

const char *
ts_region_kind_to_nick (TsRegionKind kind)
{
  g_return_val_if_fail ((guint) kind < TS_REGION_N_KINDS, NULL);
  return kind_nicks[kind];
}

static void
ts_region_class_init (TsRegionClass *klass)
{
}

static void
ts_region_init (TsRegion *self)
{
}

TsRegion *
ts_region_new (TsRegionKind kind,
               guint64      offset,
               guint64      length)
{
  TsRegion *self = g_object_new (TS_TYPE_REGION, NULL);

  self->kind = kind;
  self->offset = offset;
  self->length = length;
  return self;
}

TsRegionKind
ts_region_get_kind (TsRegion *self)
{
  g_return_val_if_fail (TS_IS_REGION (self), 0);
  return self->kind;
}

guint64
ts_region_get_offset (TsRegion *self)
{
  g_return_val_if_fail (TS_IS_REGION (self), 0);
  return self->offset;
}

guint64
ts_region_get_length (TsRegion *self)
{
  g_return_val_if_fail (TS_IS_REGION (self), 0);
  return self->length;
}

guint64
ts_region_get_end (TsRegion *self)
{
  g_return_val_if_fail (TS_IS_REGION (self), 0);
  return self->offset + self->length;
}
