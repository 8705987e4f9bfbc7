/* fuzz-gguf.c: the GGUF reader (header, metadata, descriptors) and the
 * metadata accessors, nested arrays included
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "fuzz-common.h"

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

int
LLVMFuzzerTestOneInput (const guint8 *data,
                        size_t        size)
{
  g_autoptr(GFile) dir = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(TsModelFile) model = NULL;
  g_autoptr(GError) error = NULL;
  TsGgufFile *gguf;

  ts_fuzz_init ();
  dir = ts_fuzz_fresh_dir ();
  file = ts_fuzz_write_file (dir, "model.gguf", data, size);
  model = ts_model_file_load (file, NULL, &error);
  if (model == NULL)
    {
      ts_fuzz_assert (error != NULL && error->message != NULL);
      return 0;
    }
  /* without the magic, a '{' at byte 8 is sniffed as Safetensors */
  if (!TS_IS_GGUF_FILE (model))
    {
      ts_fuzz_walk_model (model);
      return 0;
    }
  gguf = TS_GGUF_FILE (model);
  ts_fuzz_assert (ts_gguf_file_get_version (gguf) == 2 || ts_gguf_file_get_version (gguf) == 3);
  ts_fuzz_assert (ts_gguf_file_get_alignment (gguf) != 0);
  ts_fuzz_assert (ts_gguf_file_get_metadata_end (gguf) <= ts_gguf_file_get_tensor_info_end (gguf));
  ts_fuzz_assert (ts_gguf_file_get_tensor_info_end (gguf) <= size);
  ts_fuzz_walk_model (model);
  return 0;
}
