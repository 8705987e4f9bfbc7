/* ts-dtype.h
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/**
 * TsDType:
 *
 * One table for the element types of both formats. Safetensors names and
 * ggml type ids map onto the same values where they mean the same bytes.
 */
typedef enum
{
  TS_DTYPE_UNKNOWN = 0,
  TS_DTYPE_F32,
  TS_DTYPE_F16,
  TS_DTYPE_BF16,
  TS_DTYPE_F64,
  TS_DTYPE_I8,
  TS_DTYPE_I16,
  TS_DTYPE_I32,
  TS_DTYPE_I64,
  TS_DTYPE_U8,
  TS_DTYPE_U16,
  TS_DTYPE_U32,
  TS_DTYPE_U64,
  TS_DTYPE_BOOL,
  TS_DTYPE_F8_E4M3,
  TS_DTYPE_F8_E5M2,
  TS_DTYPE_F8_E8M0,
  TS_DTYPE_F4,
  TS_DTYPE_F6_E2M3,
  TS_DTYPE_F6_E3M2,
  TS_DTYPE_Q4_0,
  TS_DTYPE_Q4_1,
  TS_DTYPE_Q5_0,
  TS_DTYPE_Q5_1,
  TS_DTYPE_Q8_0,
  TS_DTYPE_Q8_1,
  TS_DTYPE_Q2_K,
  TS_DTYPE_Q3_K,
  TS_DTYPE_Q4_K,
  TS_DTYPE_Q5_K,
  TS_DTYPE_Q6_K,
  TS_DTYPE_Q8_K,
  TS_DTYPE_IQ2_XXS,
  TS_DTYPE_IQ2_XS,
  TS_DTYPE_IQ3_XXS,
  TS_DTYPE_IQ1_S,
  TS_DTYPE_IQ4_NL,
  TS_DTYPE_IQ3_S,
  TS_DTYPE_IQ2_S,
  TS_DTYPE_IQ4_XS,
  TS_DTYPE_IQ1_M,
  TS_DTYPE_TQ1_0,
  TS_DTYPE_TQ2_0,
  TS_DTYPE_MXFP4,
  TS_DTYPE_NVFP4,
  TS_DTYPE_Q1_0,
  TS_DTYPE_Q2_0,
  TS_DTYPE_N_TYPES
} TsDType;

typedef struct
{
  const char *name;              /* upper-case name, e.g. "BF16", "Q8_0" */
  guint32     block_size;        /* elements per block */
  guint32     type_size;         /* bytes per block */
  gint32      ggml_type;         /* ggml type id, or -1 */
  const char *safetensors_name;  /* Safetensors dtype string, or NULL */
} TsDTypeInfo;

const TsDTypeInfo *ts_dtype_get_info                (TsDType      dtype);
const char        *ts_dtype_get_name                (TsDType      dtype);
TsDType            ts_dtype_from_ggml               (guint32      ggml_type);
TsDType            ts_dtype_from_safetensors_name   (const char  *name);
TsDType            ts_dtype_from_name               (const char  *name);
gboolean           ts_dtype_is_float                (TsDType      dtype);
gboolean           ts_dtype_compute_size            (TsDType      dtype,
                                                     guint64      n_elements,
                                                     guint64     *out_size);

/* Exact conversions, as llama.cpp's converter does them (SPEC §7). */
static inline float
ts_bf16_to_f32 (guint16 h)
{
  union { guint32 u; float f; } v = { .u = (guint32) h << 16 };
  return v.f;
}

static inline guint32
ts_f32_bits (float f)
{
  union { float f; guint32 u; } v = { .f = f };
  return v.u;
}

static inline float
ts_f32_from_bits (guint32 u)
{
  union { guint32 u; float f; } v = { .u = u };
  return v.f;
}

guint16  ts_f32_to_bf16   (float        f);
float    ts_f16_to_f32    (guint16      h);
guint16  ts_f32_to_f16    (float        f);

#define TS_Q8_0_BLOCK 32
#define TS_Q8_0_BYTES 34

void     ts_quantize_q8_0_row   (const float  *x,
                                 guint8       *out,
                                 gsize         n);
void     ts_dequantize_q8_0_row (const guint8 *in,
                                 float        *y,
                                 gsize         n);

gboolean ts_dtype_write_f32     (TsDType       dtype,
                                 const float  *x,
                                 guint8       *out,
                                 gsize         n);

/* Reads @n elements of a float-like dtype (F32, F16, BF16, F64) at @src into
 * @dst as float32. Returns FALSE for other types. */
gboolean ts_dtype_read_f32      (TsDType       dtype,
                                 const guint8 *src,
                                 float        *dst,
                                 gsize         n);

G_END_DECLS
