/* ts-report.h
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <json-glib/json-glib.h>

#include "ts-model-file.h"

G_BEGIN_DECLS

/* The inspection report documented in docs/inspect-json.md. */
JsonNode *ts_report_inspect      (TsModelFile  *model);
/* {"error": {"domain", "code", "message"}} */
JsonNode *ts_report_error        (const GError *error);
char     *ts_report_to_string    (JsonNode     *node,
                                  gboolean      pretty);

G_END_DECLS
