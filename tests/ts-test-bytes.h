/* ts-test-bytes.h: little-endian fields for test fixtures written byte by
 * byte (GGUF headers, Safetensors length prefixes), independently of the
 * library's own writer
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

void ts_test_put_u32 (GByteArray *out,
                      guint32     v);
void ts_test_put_u64 (GByteArray *out,
                      guint64     v);
/* a GGUF string: u64 length, then the bytes */
void ts_test_put_str (GByteArray *out,
                      const char *s);

G_END_DECLS
