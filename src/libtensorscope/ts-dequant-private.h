/* ts-dequant-private.h: ggml's block types decoded to float32
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

#include "ts-dtype.h"

G_BEGIN_DECLS

/* TRUE if _ts_dequantize() decodes @dtype */
gboolean _ts_dequantize_supported (TsDType dtype);

/* Decodes @n values (@n a multiple of the type's block size) of @dtype from
 * @in (n / block_size * type_size bytes) into @out, giving the float32 bits
 * ggml's dequantize_row_*() give (any NaN where they give a NaN: which
 * payload survives NaN + NaN is not defined). Returns FALSE (writing nothing) if the type
 * is not supported. Any input bytes are valid: never reads outside @in, never
 * crashes on NaN/Inf/subnormal scales. */
gboolean _ts_dequantize           (TsDType       dtype,
                                   const guint8 *in,
                                   float        *out,
                                   gsize         n);

/* The type's resolution: the largest magnitude a block decodes to when its
 * scales (d, and dmin or m where it has one) are the smallest positive
 * ones (f16: 2^-24; MXFP4's E8M0: 2^-127, halved; NVFP4's unsigned E4M3:
 * 2^-9, halved). Values far below it
 * cannot be told apart by the type's scales; 0 if not supported. */
double   _ts_dequantize_resolution (TsDType dtype);

G_END_DECLS
