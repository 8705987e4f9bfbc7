/* ts-hf-naming.h: general.* naming keys as llama.cpp's converter derives them
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "ts-arch.h"
#include "ts-gguf-metadata.h"

G_BEGIN_DECLS

/* The single-valued naming fields, in the order gguf-py's
 * Metadata.set_gguf_meta_model() writes them. */
typedef enum
{
  TS_HF_NAMING_NAME,
  TS_HF_NAMING_AUTHOR,
  TS_HF_NAMING_VERSION,
  TS_HF_NAMING_ORGANIZATION,
  TS_HF_NAMING_FINETUNE,
  TS_HF_NAMING_BASENAME,
  TS_HF_NAMING_DESCRIPTION,
  TS_HF_NAMING_QUANTIZED_BY,
  TS_HF_NAMING_SIZE_LABEL,
  TS_HF_NAMING_LICENSE,
  TS_HF_NAMING_LICENSE_NAME,
  TS_HF_NAMING_LICENSE_LINK,
  TS_HF_NAMING_URL,
  TS_HF_NAMING_DOI,
  TS_HF_NAMING_UUID,
  TS_HF_NAMING_REPO_URL,
  TS_HF_NAMING_SOURCE_URL,
  TS_HF_NAMING_SOURCE_DOI,
  TS_HF_NAMING_SOURCE_UUID,
  TS_HF_NAMING_SOURCE_REPO_URL,
  TS_HF_NAMING_N_FIELDS
} TsHfNamingField;

/* What gguf-py's Metadata.get_model_id_components() makes of a model id
 * ("meta-llama/Llama-3.2-3B-Instruct", a folder name); NULL = None. */
typedef struct
{
  char *full_name;
  char *organization;
  char *basename;
  char *finetune;
  char *version;
  char *size_label;
} TsHfModelId;

void         ts_hf_model_id_parse              (const char       *model_id,
                                                guint64           total_params,
                                                TsHfModelId      *out);
void         ts_hf_model_id_clear              (TsHfModelId      *id);

/* Metadata.id_to_title(): "Llama-3.2-3B-Instruct" -> "Llama 3.2 3B Instruct" */
char        *ts_hf_naming_id_to_title          (const char       *model_id);
/* gguf.size_label() for a dense model: 3.3M, 753M, 1.2B */
char        *ts_hf_naming_size_label           (guint64           n_params);

typedef struct _TsHfNaming TsHfNaming;

/* Runs the converter's heuristics over @dir's README.md model card, config
 * `_name_or_path` and the folder name. @total_params is the element count of
 * every tensor written (0 if unknown): it decides whether "3B" in a name is a
 * size label and gives the size label when the name has none. */
TsHfNaming  *ts_hf_naming_new                  (GFile            *dir,
                                                const TsHfConfig *config,
                                                guint64           total_params);
void         ts_hf_naming_free                 (TsHfNaming       *self);
/* NULL when the converter would not write the field */
const char  *ts_hf_naming_get                  (TsHfNaming       *self,
                                                TsHfNamingField   field);
const char  *ts_hf_naming_get_origin           (TsHfNaming       *self,
                                                TsHfNamingField   field);
/* Replaces a field whatever the heuristics found; "" or NULL removes it. */
void         ts_hf_naming_override             (TsHfNaming       *self,
                                                TsHfNamingField   field,
                                                const char       *value,
                                                const char       *origin);
void         ts_hf_naming_write                (TsHfNaming       *self,
                                                TsGgufMetadata   *md);
/* gguf.naming_convention(): "Llama-3.2-3B-Instruct-BF16.gguf"; @output_type
 * as llama.cpp spells it: "F32", "F16", "BF16", "Q8_0" */
char        *ts_hf_naming_get_file_name        (TsHfNaming       *self,
                                                const char       *output_type);

/* Convenience wrappers over a TsHfNaming. */
void         ts_hf_naming_add_metadata         (GFile            *dir,
                                                const TsHfConfig *config,
                                                guint64           total_elements,
                                                TsGgufMetadata   *md);
char        *ts_hf_naming_default_file_name    (GFile            *dir,
                                                const TsHfConfig *config,
                                                guint64           total_elements,
                                                const char       *output_type);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TsHfNaming, ts_hf_naming_free)

G_END_DECLS
