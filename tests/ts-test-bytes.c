/* ts-test-bytes.c
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "ts-test-bytes.h"

void
ts_test_put_u32 (GByteArray *out,
                 guint32     v)
{
  guint32 le = GUINT32_TO_LE (v);

  g_byte_array_append (out, (const guint8 *) &le, 4);
}

void
ts_test_put_u64 (GByteArray *out,
                 guint64     v)
{
  guint64 le = GUINT64_TO_LE (v);

  g_byte_array_append (out, (const guint8 *) &le, 8);
}

void
ts_test_put_str (GByteArray *out,
                 const char *s)
{
  ts_test_put_u64 (out, strlen (s));
  g_byte_array_append (out, (const guint8 *) s, strlen (s));
}
