/* ts-test-dir.c
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gstdio.h>

#include "ts-test-dir.h"

void
ts_test_dir_setup (TsTestDir     *fixture,
                   gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  /* NULL: GLib's own template, a fresh name under the temporary folder */
  fixture->dir = g_dir_make_tmp (NULL, &error);
  g_assert_no_error (error);
}

void
ts_test_remove_tree (const char *path)
{
  g_autoptr(GDir) dir = NULL;
  const char *name;

  if (!g_file_test (path, G_FILE_TEST_IS_DIR) || g_file_test (path, G_FILE_TEST_IS_SYMLINK))
    {
      g_unlink (path);
      return;
    }
  dir = g_dir_open (path, 0, NULL);
  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);

      ts_test_remove_tree (child);
    }
  g_rmdir (path);
}

guint
ts_test_count_entries (const char *path)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  guint n = 0;

  while (dir != NULL && g_dir_read_name (dir) != NULL)
    n++;
  return n;
}

void
ts_test_dir_teardown (TsTestDir     *fixture,
                      gconstpointer  data)
{
  ts_test_remove_tree (fixture->dir);
  g_clear_pointer (&fixture->dir, g_free);
}

TsModelFile *
ts_test_load_model (const char *path)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  TsModelFile *model = ts_model_file_load (file, NULL, &error);

  g_assert_no_error (error);
  g_assert_nonnull (model);
  return model;
}
