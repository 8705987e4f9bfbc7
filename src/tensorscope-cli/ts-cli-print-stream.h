/* ts-cli-print-stream.h
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define TS_TYPE_CLI_PRINT_STREAM (ts_cli_print_stream_get_type ())

G_DECLARE_FINAL_TYPE (TsCliPrintStream, ts_cli_print_stream, TS, CLI_PRINT_STREAM, GOutputStream)

/* Standard output as ts_cli_print_json() writes it (control characters
 * escaped, UTF-8 in any locale), for a report too long to hold in one
 * string. */
GOutputStream *ts_cli_print_stream_new (void);

/* ts_report_write_inspect(), ts_audit_report_write_json(), … */
typedef gboolean (*TsCliJsonWriter) (gpointer       object,
                                     GOutputStream *stream,
                                     GCancellable  *cancellable,
                                     GError       **error);

/* Writes the JSON report of @object with @write to standard output, then a
 * newline; FALSE, said on standard error, when it could not */
gboolean       ts_cli_print_json_report (gpointer        object,
                                         TsCliJsonWriter write);

G_END_DECLS
