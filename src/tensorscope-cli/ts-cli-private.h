/* ts-cli-private.h
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

gboolean ts_cli_parse   (GOptionContext  *context,
                         int             *argc,
                         char          ***argv,
                         int              min_args,
                         int              max_args,
                         int             *status);
int      ts_cli_fail    (const GError    *error,
                         gboolean         json);
int      ts_cli_usage_error (GOptionContext *context,
                             const char     *message);
void     ts_cli_install_print_handlers (void);
gboolean ts_cli_print_json (const char *text);
/* @node as indented JSON and a newline on stdout */
gboolean ts_cli_print_json_node (JsonNode *node);
/* --jobs N is 0 (the default) to 256; FALSE, said on stderr, if not
 * (a usage error) */
gboolean ts_cli_check_jobs (int jobs);

int      ts_cli_convert (int              argc,
                         char           **argv);
int      ts_cli_audit   (int              argc,
                         char           **argv);
int      ts_cli_layout  (int              argc,
                         char           **argv);

G_END_DECLS
