/* ts-vector-private.h: hot loops built for more than one CPU
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "config.h"

/* The hot loops, built twice on x86-64: for the baseline (SSE2) and for
 * AVX2, picked at load time by the CPU that runs them (an ifunc). AVX2
 * alone brings no FMA, and the project builds with -ffp-contract=off:
 * the clones round every product and sum as the baseline does. */
#if defined(HAVE_FUNC_ATTRIBUTE_IFUNC) && defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__has_attribute)
#if __has_attribute (target_clones)
#define TS_VECTOR_CLONES __attribute__ ((target_clones ("avx2", "default")))
#endif
#endif
#ifndef TS_VECTOR_CLONES
#define TS_VECTOR_CLONES
#endif
