/* ts-sample.h
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

typedef struct
{
  guint32  seed;
  guint    n_layers;
  guint    hidden_size;
  guint    n_heads;
  guint    n_kv_heads;
  guint    intermediate_size;
  guint    vocab_size;          /* regular tokens + 256 Llama 3 special tokens */
  guint    n_shards;            /* 1: a single model.safetensors, no index */
  gboolean tied_embeddings;
  gboolean head_dim_in_config;
  gboolean rope_scaling;        /* llama3 rope scaling in config.json */
  /* a folder that exists and is not empty: TRUE (the default) replaces the
   * files a sample writes there and removes the model.safetensors shards
   * and index it does not write, leaving anything else; FALSE refuses it
   * (G_IO_ERROR_EXISTS) */
  gboolean replace;
} TsSampleOptions;

/* The setting of TsSampleOptions that ts_sample_options_validate() found
 * wrong, for a front end to name its option */
typedef enum
{
  TS_SAMPLE_FIELD_NONE,
  TS_SAMPLE_FIELD_N_LAYERS,
  TS_SAMPLE_FIELD_HIDDEN_SIZE,
  TS_SAMPLE_FIELD_N_HEADS,
  TS_SAMPLE_FIELD_N_KV_HEADS,
  TS_SAMPLE_FIELD_INTERMEDIATE_SIZE,
  TS_SAMPLE_FIELD_VOCAB_SIZE,
  TS_SAMPLE_FIELD_N_SHARDS,
} TsSampleField;

void      ts_sample_options_init  (TsSampleOptions        *options);
/* TRUE if @options make a model ts_sample_write() writes; else FALSE with
 * G_IO_ERROR_INVALID_ARGUMENT and *@field (when not NULL) the setting
 * the message is about */
gboolean  ts_sample_options_validate (const TsSampleOptions  *options,
                                      TsSampleField          *field,
                                      GError                **error);
/* Writes a small seeded Llama-3-shaped Hugging Face checkpoint into @dir
 * (created if needed), see @options->replace for a folder that is not
 * empty. Deterministic for a given @options. */
gboolean  ts_sample_write         (GFile                  *dir,
                                   const TsSampleOptions  *options,
                                   GCancellable           *cancellable,
                                   GError                **error);

G_END_DECLS
