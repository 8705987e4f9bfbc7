/* ts-test-dir.h: a scratch folder per test, and loading what is written
 * there
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

#include "tensorscope.h"

G_BEGIN_DECLS

typedef struct
{
  char *dir;
} TsTestDir;

/* g_test_add() setup and teardown: a new empty folder, removed with
 * everything in it afterwards */
void ts_test_dir_setup    (TsTestDir     *fixture,
                           gconstpointer  data);
void ts_test_dir_teardown (TsTestDir     *fixture,
                           gconstpointer  data);
/* removes @path and, for a folder, everything below it */
void ts_test_remove_tree  (const char    *path);
/* the number of entries in the folder @path (0 if it cannot be read) */
guint ts_test_count_entries (const char *path);
/* loads @path, asserting it loads */
TsModelFile *ts_test_load_model (const char *path);

G_END_DECLS
