/* ts-map-guard-private.h: a file truncated under its mapping
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* how many mappings can be guarded at once */
#define TS_MAP_GUARD_MAX 8192

/* Reading a page of a mapped file that another program has since cut
 * short raises SIGBUS, which would kill the process. A guarded range
 * instead gets a page of zeros where the file ended, and the range is
 * flagged damaged. Returns a handle, or -1 when every slot is taken (the
 * caller must then not read the range). A file cut within its last page
 * reads zeros there with no fault: readers also compare the file's size
 * on disk with the mapping's. */
int      _ts_map_guard_add        (const void *start,
                                   gsize       length);
gboolean _ts_map_guard_is_damaged (int         handle);
void     _ts_map_guard_remove     (int         handle);

G_END_DECLS
