/* ts-map-guard-private.h: a file truncated under its mapping
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Reading a page of a mapped file that another program has since cut
 * short raises SIGBUS, which would kill the process. A guarded range
 * instead gets a page of zeros where the file ended, and *@damaged is set
 * (atomically) so the reader can report the change. Returns a handle for
 * _ts_map_guard_remove(), or -1 when every slot is taken (the range is
 * then unguarded, as before). */
int  _ts_map_guard_add    (const void *start,
                           gsize       length,
                           gint       *damaged);
void _ts_map_guard_remove (int         handle);

G_END_DECLS
