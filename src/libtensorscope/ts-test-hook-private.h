/* ts-test-hook-private.h: settings the test suite gives through the
 * environment (TENSORSCOPE_TEST_*), and the pauses some of them ask for
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* The number the variable @name holds, or @fallback where it is not set.
 * Read it where work starts, not on a worker thread that runs while a
 * test changes the environment. */
static inline guint64
_ts_test_hook (const char *name,
               guint64     fallback)
{
  const char *value = g_getenv (name);

  return value != NULL ? g_ascii_strtoull (value, NULL, 10) : fallback;
}

/* Waits @delay_us (a test hook's pause: work slow enough to act on while
 * it runs), or less if @cancellable is cancelled meanwhile. */
static inline void
_ts_test_pause (guint64       delay_us,
                GCancellable *cancellable)
{
  for (guint64 waited = 0; waited < delay_us && !g_cancellable_is_cancelled (cancellable); waited += 10000)
    g_usleep (10000);
}

G_END_DECLS
