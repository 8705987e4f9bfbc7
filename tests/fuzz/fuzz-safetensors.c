/* fuzz-safetensors.c: the Safetensors header, index and shard readers
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Input: one mode byte, then either the bytes of a single .safetensors file
 * (mode 0) or pieces "NAME\nCONTENTS" separated by TS_FUZZ_SEPARATOR (an
 * index and its shards), opened as the folder (1), through the index (2),
 * through the first shard (3), or as a folder without an index (4).
 */

#include "config.h"

#include "fuzz-common.h"

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

int
LLVMFuzzerTestOneInput (const guint8 *data,
                        size_t        size)
{
  g_autoptr(GFile) dir = NULL;
  g_autoptr(GFile) target = NULL;
  g_autoptr(TsModelFile) model = NULL;
  g_autoptr(GError) error = NULL;
  guint mode;

  if (size < 1)
    return 0;
  ts_fuzz_init ();
  dir = ts_fuzz_fresh_dir ();
  mode = data[0] % 5;
  data++, size--;

  switch (mode)
    {
    case 0:
      target = ts_fuzz_write_file (dir, "model.safetensors", data, size);
      break;
    case 1:
    case 2:
    case 3:
      ts_fuzz_write_pieces (dir, data, size, "model.safetensors.index.json");
      if (mode == 1)
        target = g_object_ref (dir);
      else if (mode == 2)
        target = g_file_get_child (dir, "model.safetensors.index.json");
      else
        target = g_file_get_child (dir, "model-00001-of-00002.safetensors");
      break;
    default:
      ts_fuzz_write_pieces (dir, data, size, "shard.safetensors");
      {
        g_autoptr(GFile) index = g_file_get_child (dir, "model.safetensors.index.json");

        g_file_delete (index, NULL, NULL);
      }
      target = g_object_ref (dir);
      break;
    }

  model = ts_model_file_load (target, NULL, &error);
  if (model == NULL)
    {
      ts_fuzz_assert (error != NULL && error->message != NULL);
      return 0;
    }
  ts_fuzz_assert (error == NULL);
  ts_fuzz_walk_model (model);
  return 0;
}
