/* ts-side-file-private.h: reading the small files beside the weights
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "ts-json-private.h"

G_BEGIN_DECLS

struct stat;

int      _ts_open_regular   (const char    *path,
                             struct stat   *st,
                             GError       **error);

gboolean _ts_load_side_file (GFile         *file,
                             gsize          max_size,
                             GCancellable  *cancellable,
                             char         **contents,
                             gsize         *length,
                             GError       **error);

JsonObject *_ts_load_side_json (GFile        *file,
                                gsize         max_size,
                                JsonParser   *parser,
                                GError      **error);
gboolean    _ts_json_truthy    (JsonNode     *node);

/* The file an output to @target is written as: where @target is a
 * symbolic link to a file, that file (the output replaces it, on its file
 * system, as cp does), else @target itself (a link to nothing is
 * replaced). */
GFile      *_ts_output_file_resolve (GFile *target);

G_END_DECLS
