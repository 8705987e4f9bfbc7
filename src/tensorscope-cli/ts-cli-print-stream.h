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

/* Standard output as g_print() writes it (control characters escaped, the
 * console's character set), for text too long to hold in one string. */
GOutputStream *ts_cli_print_stream_new (void);

G_END_DECLS
