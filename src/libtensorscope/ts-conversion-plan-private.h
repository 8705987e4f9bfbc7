/* ts-conversion-plan-private.h: what the conversion plan shares with the audit
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "ts-gguf-metadata.h"

G_BEGIN_DECLS

/* general.sampling.* from DIR/generation_config.json, as llama.cpp's
 * converter writes them. A file that is there but unreadable adds
 * nothing and sets *@unreadable to why (the converter passes over it);
 * FALSE for a value the converter refuses to write. */
gboolean _ts_sampling_add_metadata (GFile           *dir,
                                    TsGgufMetadata  *md,
                                    char           **unreadable,
                                    GError         **error);

G_END_DECLS
