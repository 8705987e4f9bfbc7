/* ts-spm-model-private.h: the pieces of a SentencePiece tokenizer.model
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* Real models are below 5 MB (Llama 2's: 500 KB, Gemma's 256,000 pieces:
 * 4 MB); the largest vocabularies have about 260,000 pieces. */
#define TS_SPM_MAX_FILE_SIZE  (64 * 1024 * 1024)
#define TS_SPM_MAX_PIECES     (1024 * 1024)

/* ModelProto.SentencePiece.Type */
typedef enum
{
  TS_SPM_NORMAL       = 1,
  TS_SPM_UNKNOWN      = 2,
  TS_SPM_CONTROL      = 3,
  TS_SPM_USER_DEFINED = 4,
  TS_SPM_UNUSED       = 5,
  TS_SPM_BYTE         = 6,
} TsSpmType;

typedef struct
{
  GPtrArray *pieces;   /* char *, UTF-8, NUL-terminated */
  GArray    *scores;   /* float */
  GArray    *types;    /* TsSpmType, as gint32 */
} TsSpmModel;

TsSpmModel *_ts_spm_model_parse (const guint8  *data,
                                 gsize          length,
                                 const char    *name,
                                 GError       **error);
TsSpmModel *_ts_spm_model_load  (GFile         *file,
                                 GError       **error);
void        _ts_spm_model_free  (TsSpmModel    *model);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TsSpmModel, _ts_spm_model_free)

G_END_DECLS
