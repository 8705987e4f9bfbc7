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
 * converter writes them; FALSE if the file is there but unreadable */
gboolean _ts_sampling_add_metadata (GFile           *dir,
                                    TsGgufMetadata  *md,
                                    GError         **error);

G_END_DECLS
