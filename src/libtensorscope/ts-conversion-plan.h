/* ts-conversion-plan.h: everything a conversion will do, before it does it
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "ts-arch.h"
#include "ts-gguf-metadata.h"
#include "ts-gguf-writer.h"
#include "ts-model-file.h"

G_BEGIN_DECLS

typedef enum
{
  TS_OUTTYPE_AUTO,
  TS_OUTTYPE_F32,
  TS_OUTTYPE_F16,
  TS_OUTTYPE_BF16,
  TS_OUTTYPE_Q8_0,
} TsOutType;

const char *ts_outtype_to_nick   (TsOutType   outtype);
gboolean    ts_outtype_from_nick (const char *nick,
                                  TsOutType  *outtype);

typedef enum
{
  TS_TRANSFORM_COPY,       /* bytes unchanged (BF16 sNaNs made quiet) */
  TS_TRANSFORM_WIDEN,      /* to F32, exactly */
  TS_TRANSFORM_CONVERT,    /* rounded to F16 or BF16 */
  TS_TRANSFORM_QUANTIZE,   /* Q8_0 */
  TS_TRANSFORM_GENERATE,   /* computed from config.json */
} TsTransform;

const char *ts_transform_to_nick (TsTransform transform);

#define TS_TYPE_PLAN_TENSOR (ts_plan_tensor_get_type ())

G_DECLARE_FINAL_TYPE (TsPlanTensor, ts_plan_tensor, TS, PLAN_TENSOR, GObject)

const char    *ts_plan_tensor_get_name         (TsPlanTensor *self);
/* NULL for generated tensors */
TsTensor      *ts_plan_tensor_get_source       (TsPlanTensor *self);
TsTransform    ts_plan_tensor_get_transform    (TsPlanTensor *self);
TsPermute      ts_plan_tensor_get_permute      (TsPlanTensor *self);
/* heads the rows are permuted within, 0 if not permuted */
guint          ts_plan_tensor_get_permute_heads (TsPlanTensor *self);
TsDType        ts_plan_tensor_get_dtype        (TsPlanTensor *self);
guint          ts_plan_tensor_get_n_dims       (TsPlanTensor *self);
/* GGUF order: fastest-varying first */
const guint64 *ts_plan_tensor_get_dims         (TsPlanTensor *self);
guint64        ts_plan_tensor_get_n_elements   (TsPlanTensor *self);
/* the output file it is in, from 0 (see ts_conversion_plan_get_n_files()) */
guint          ts_plan_tensor_get_file         (TsPlanTensor *self);
/* relative to the data section of its file */
guint64        ts_plan_tensor_get_offset       (TsPlanTensor *self);
guint64        ts_plan_tensor_get_size         (TsPlanTensor *self);
/* the values of a generated tensor (F32) */
const float   *ts_plan_tensor_get_generated    (TsPlanTensor *self);
/* "permute(8) + convert" and the like */
char          *ts_plan_tensor_describe_transform (TsPlanTensor *self);

typedef struct
{
  TsOutType   outtype;
  /* an override of the name recognised from tokenizer.json, NULL for none:
   * one llama.cpp does not know is refused, and one that differs from the
   * recognised name is a warning */
  const char *tokenizer_pre;
  gboolean    allow_unknown_tensors;  /* skip (with a warning) tensors with no GGUF name */
  /* naming overrides (the wizard's editable fields): NULL keeps what the
   * converter derives, "" drops the key */
  const char *name;
  const char *finetune;
  const char *size_label;
  const char *license;
  /* llama.cpp's --split-max-tensors and --split-max-size (bytes of tensor
   * data, padding not counted): 0 for no limit; and
   * --no-tensor-first-split (the first file holds only metadata) */
  guint       split_max_tensors;
  guint64     split_max_size;
  gboolean    split_no_tensor_first;
} TsPlanOptions;

void ts_plan_options_init (TsPlanOptions *options);

#define TS_TYPE_CONVERSION_PLAN (ts_conversion_plan_get_type ())

G_DECLARE_FINAL_TYPE (TsConversionPlan, ts_conversion_plan, TS, CONVERSION_PLAN, GObject)

TsConversionPlan *ts_conversion_plan_new         (GFile               *dir,
                                                  const TsPlanOptions *options,
                                                  GCancellable        *cancellable,
                                                  GError             **error);
void              ts_conversion_plan_new_async   (GFile               *dir,
                                                  const TsPlanOptions *options,
                                                  GCancellable        *cancellable,
                                                  GAsyncReadyCallback  callback,
                                                  gpointer             user_data);
TsConversionPlan *ts_conversion_plan_new_finish  (GAsyncResult        *result,
                                                  GError             **error);

GFile            *ts_conversion_plan_get_dir          (TsConversionPlan *self);
TsModelFile      *ts_conversion_plan_get_source       (TsConversionPlan *self);
const TsHfConfig *ts_conversion_plan_get_config       (TsConversionPlan *self);
const TsArch     *ts_conversion_plan_get_arch         (TsConversionPlan *self);
TsOutType         ts_conversion_plan_get_outtype      (TsConversionPlan *self);
GListModel       *ts_conversion_plan_get_tensors      (TsConversionPlan *self);
TsGgufMetadata   *ts_conversion_plan_get_metadata     (TsConversionPlan *self);
/* (transfer full) */
GListModel       *ts_conversion_plan_list_metadata    (TsConversionPlan *self);
/* 1, or the files of a split set (the tensors are in file order, each
 * file's after the previous one's; the first file has all the metadata) */
guint             ts_conversion_plan_get_n_files      (TsConversionPlan *self);
guint             ts_conversion_plan_get_file_n_tensors (TsConversionPlan *self,
                                                       guint             file);
guint64           ts_conversion_plan_get_data_offset  (TsConversionPlan *self,
                                                       guint             file);
guint64           ts_conversion_plan_get_metadata_end (TsConversionPlan *self,
                                                       guint             file);
guint64           ts_conversion_plan_get_file_size    (TsConversionPlan *self,
                                                       guint             file);
/* (transfer full): where output file @file goes for output @target */
GFile            *ts_conversion_plan_get_output_file  (TsConversionPlan *self,
                                                       GFile            *target,
                                                       guint             file);
/* of all the files */
guint64           ts_conversion_plan_get_predicted_size (TsConversionPlan *self);
const char * const *ts_conversion_plan_get_warnings   (TsConversionPlan *self);
/* llama.cpp's default output name, e.g. "Llama-3.2-3B-Instruct-BF16.gguf" */
char             *ts_conversion_plan_get_default_file_name (TsConversionPlan *self);
/* ... had the plan been made for @outtype, its naming options the same */
char             *ts_conversion_plan_get_default_file_name_for (TsConversionPlan *self,
                                                                TsOutType         outtype);
/* (transfer full): a writer laid out with every tensor of output file @file */
TsGgufWriter     *ts_conversion_plan_create_writer    (TsConversionPlan *self,
                                                       guint             file);
gboolean          ts_conversion_plan_check_target     (TsConversionPlan *self,
                                                       GFile            *target,
                                                       gboolean          overwrite,
                                                       GError          **error);
/* fails if the folder of @target lacks room for the output */
gboolean          ts_conversion_plan_check_space      (TsConversionPlan *self,
                                                       GFile            *target,
                                                       GError          **error);
/* fails if a shard's size or modification time changed since planning */
gboolean          ts_conversion_plan_check_unchanged  (TsConversionPlan *self,
                                                       GError          **error);

G_END_DECLS
