/* ts-gguf-file.h
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ts-model-file.h"

G_BEGIN_DECLS

#define TS_TYPE_GGUF_FILE (ts_gguf_file_get_type ())

/* the end of the name of file NO (from 1) of a split set of COUNT files,
 * "-00002-of-00003.gguf", as llama.cpp names them */
#define TS_GGUF_SPLIT_NAME_FORMAT "-%05u-of-%05u.gguf"

G_DECLARE_FINAL_TYPE (TsGgufFile, ts_gguf_file, TS, GGUF_FILE, TsModelFile)

guint32     ts_gguf_file_get_version       (TsGgufFile *self);
guint32     ts_gguf_file_get_alignment     (TsGgufFile *self);
/* absolute byte range of a section of the file */
guint64     ts_gguf_file_get_metadata_end  (TsGgufFile *self);
guint64     ts_gguf_file_get_tensor_info_end (TsGgufFile *self);

/* llama.cpp's name of a general.file_type value (enum llama_ftype without
 * LLAMA_FTYPE_MOSTLY_: "Q4_K_M", "BF16", "F32"), NULL if it names none */
const char *ts_gguf_file_type_name       (guint64     file_type);
/* TRUE (and *@file_type) if the file has a general.file_type */
gboolean    ts_gguf_file_get_file_type   (TsGgufFile *self,
                                          guint64    *file_type);

G_END_DECLS
