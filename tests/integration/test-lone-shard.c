/* test-lone-shard.c: the app asks for the folder of a shard it sees alone
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gstdio.h>

#include "ts-file-chooser.h"

static char *
make_dir (void)
{
  g_autoptr(GError) error = NULL;
  char *dir = g_dir_make_tmp (NULL, &error);

  g_assert_no_error (error);
  return dir;
}

static GFile *
touch (const char *dir,
       const char *name)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autoptr(GError) error = NULL;

  g_file_set_contents (path, "x", 1, &error);
  g_assert_no_error (error);
  return g_file_new_for_path (path);
}

static void
remove_dir (const char *dir)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_remove (path);
    }
  g_rmdir (dir);
}

/* What the document portal shows: only the chosen shard. */
static void
test_alone (void)
{
  g_autofree char *dir = make_dir ();
  g_autoptr(GFile) first = touch (dir, "model-00001-of-00002.safetensors");
  g_autoptr(GFile) third = touch (dir, "model-00003-of-00004.safetensors");

  g_assert_true (ts_file_chooser_is_lone_shard (first));
  g_assert_true (ts_file_chooser_is_lone_shard (third));
  remove_dir (dir);
}

static void
test_with_siblings (void)
{
  g_autofree char *dir = make_dir ();
  g_autoptr(GFile) first = touch (dir, "model-00001-of-00002.safetensors");
  g_autoptr(GFile) second = touch (dir, "model-00002-of-00002.safetensors");

  g_assert_false (ts_file_chooser_is_lone_shard (first));
  g_assert_false (ts_file_chooser_is_lone_shard (second));
  remove_dir (dir);
}

static void
test_with_index (void)
{
  g_autofree char *dir = make_dir ();
  g_autoptr(GFile) second = touch (dir, "model-00002-of-00003.safetensors");
  g_autoptr(GFile) index = touch (dir, "model.safetensors.index.json");

  g_assert_false (ts_file_chooser_is_lone_shard (second));
  remove_dir (dir);
}

static void
test_not_a_shard (void)
{
  const char *names[] = {
    "model.safetensors",
    "model-00001-of-00001.safetensors",  /* a set of one */
    "model-00001-of-00002.gguf",
    "model-of-00002.safetensors",
    "model-00001-of-00002.safetensors.part",
    "-of-2.safetensors",
  };
  g_autofree char *dir = make_dir ();

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autoptr(GFile) file = touch (dir, names[i]);

      g_assert_false (ts_file_chooser_is_lone_shard (file));
    }
  remove_dir (dir);
}

static void
test_sandbox_only (void)
{
  g_autofree char *dir = make_dir ();
  g_autoptr(GFile) first = touch (dir, "model-00001-of-00002.safetensors");

  if (!g_file_test ("/.flatpak-info", G_FILE_TEST_EXISTS))
    {
      g_unsetenv ("TS_FORCE_SANDBOX");
      g_assert_false (ts_file_chooser_should_ask_for_folder (first));
    }
  g_setenv ("TS_FORCE_SANDBOX", "1", TRUE);
  g_assert_true (ts_file_chooser_should_ask_for_folder (first));
  g_unsetenv ("TS_FORCE_SANDBOX");
  remove_dir (dir);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/lone-shard/alone", test_alone);
  g_test_add_func ("/lone-shard/with-siblings", test_with_siblings);
  g_test_add_func ("/lone-shard/with-index", test_with_index);
  g_test_add_func ("/lone-shard/not-a-shard", test_not_a_shard);
  g_test_add_func ("/lone-shard/sandbox-only", test_sandbox_only);

  return g_test_run ();
}
