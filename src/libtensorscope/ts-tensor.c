/* ts-tensor.c
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "ts-model-file-private.h"
#include "ts-tensor.h"

struct _TsTensor
{
  GObject     parent_instance;
  char       *name;
  char       *raw_dtype;
  TsDType     dtype;
  guint       n_dims;
  gboolean    reversed_dims;
  guint64     shape[TS_MAX_DIMS];
  TsFilePart *part;
  guint64     offset;
  guint64     size;
  guint64     n_elements;
};

G_DEFINE_FINAL_TYPE (TsTensor, ts_tensor, G_TYPE_OBJECT)

static void
ts_tensor_finalize (GObject *object)
{
  TsTensor *self = (TsTensor *)object;

  g_clear_pointer (&self->name, g_free);
  g_clear_pointer (&self->raw_dtype, g_free);
  g_clear_object (&self->part);

  G_OBJECT_CLASS (ts_tensor_parent_class)->finalize (object);
}

static void
ts_tensor_class_init (TsTensorClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ts_tensor_finalize;
}

static void
ts_tensor_init (TsTensor *self)
{
}

/* @reversed_dims: the file lists dims fastest-varying first (GGUF) */
TsTensor *
_ts_tensor_new (const char    *name,
                TsDType        dtype,
                const char    *raw_dtype,
                guint          n_dims,
                const guint64 *shape,
                gboolean       reversed_dims,
                TsFilePart    *part,
                guint64        offset,
                guint64        size,
                guint64        n_elements)
{
  TsTensor *self = g_object_new (TS_TYPE_TENSOR, NULL);

  g_assert (n_dims <= TS_MAX_DIMS);

  self->name = g_strdup (name);
  self->dtype = dtype;
  self->raw_dtype = g_strdup (raw_dtype ? raw_dtype : ts_dtype_get_name (dtype));
  self->n_dims = n_dims;
  self->reversed_dims = reversed_dims;
  for (guint i = 0; i < n_dims; i++)
    self->shape[i] = shape[i];
  self->part = g_object_ref (part);
  self->offset = offset;
  self->size = size;
  self->n_elements = n_elements;
  return self;
}

const char *
ts_tensor_get_name (TsTensor *self)
{
  g_return_val_if_fail (TS_IS_TENSOR (self), NULL);
  return self->name;
}

TsDType
ts_tensor_get_dtype (TsTensor *self)
{
  g_return_val_if_fail (TS_IS_TENSOR (self), TS_DTYPE_UNKNOWN);
  return self->dtype;
}

const char *
ts_tensor_get_dtype_name (TsTensor *self)
{
  g_return_val_if_fail (TS_IS_TENSOR (self), NULL);
  return ts_dtype_get_name (self->dtype);
}

const char *
ts_tensor_get_raw_dtype (TsTensor *self)
{
  g_return_val_if_fail (TS_IS_TENSOR (self), NULL);
  return self->raw_dtype;
}

guint
ts_tensor_get_n_dims (TsTensor *self)
{
  g_return_val_if_fail (TS_IS_TENSOR (self), 0);
  return self->n_dims;
}

const guint64 *
ts_tensor_get_shape (TsTensor *self)
{
  g_return_val_if_fail (TS_IS_TENSOR (self), NULL);
  return self->shape;
}

/**
 * ts_tensor_get_row_major_shape:
 * @dims: (out caller-allocates): TS_MAX_DIMS slots
 *
 * The shape outermost dimension first, as Safetensors and NumPy state it.
 */
void
ts_tensor_get_row_major_shape (TsTensor *self,
                               guint64  *dims)
{
  g_return_if_fail (TS_IS_TENSOR (self));

  for (guint i = 0; i < self->n_dims; i++)
    dims[i] = self->reversed_dims ? self->shape[self->n_dims - 1 - i] : self->shape[i];
}

char *
ts_tensor_format_shape (TsTensor *self)
{
  GString *s = g_string_new ("[");

  g_return_val_if_fail (TS_IS_TENSOR (self), NULL);

  for (guint i = 0; i < self->n_dims; i++)
    g_string_append_printf (s, "%s%" G_GUINT64_FORMAT, i ? ", " : "", self->shape[i]);
  g_string_append_c (s, ']');
  return g_string_free (s, FALSE);
}

TsFilePart *
ts_tensor_get_part (TsTensor *self)
{
  g_return_val_if_fail (TS_IS_TENSOR (self), NULL);
  return self->part;
}

guint64
ts_tensor_get_offset (TsTensor *self)
{
  g_return_val_if_fail (TS_IS_TENSOR (self), 0);
  return self->offset;
}

guint64
ts_tensor_get_size (TsTensor *self)
{
  g_return_val_if_fail (TS_IS_TENSOR (self), 0);
  return self->size;
}

guint64
ts_tensor_get_n_elements (TsTensor *self)
{
  g_return_val_if_fail (TS_IS_TENSOR (self), 0);
  return self->n_elements;
}

/**
 * ts_tensor_get_data:
 *
 * Returns: the tensor's ts_tensor_get_size() bytes in the mapped file. The
 *   readers have proven they lie inside the file.
 */
const guint8 *
ts_tensor_get_data (TsTensor *self)
{
  const guint8 *contents;

  g_return_val_if_fail (TS_IS_TENSOR (self), NULL);

  contents = ts_file_part_get_contents (self->part);
  if (contents == NULL || self->offset + self->size > ts_file_part_get_size (self->part))
    return NULL;
  return contents + self->offset;
}
