/* ts-arch.h: what an architecture means for conversion (SPEC §7)
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>
#include <math.h>

#include "ts-metadata-entry.h"

G_BEGIN_DECLS

typedef enum
{
  TS_PERMUTE_NONE,
  TS_PERMUTE_Q,     /* rows reordered per attention head */
  TS_PERMUTE_K,     /* rows reordered per key/value head */
} TsPermute;

/* A hyperparameter key of the architecture (without the "ARCH." prefix),
 * the type llama.cpp reads it as, its value from @config and where that
 * comes from; @per_layer if llama.cpp also takes an array, one item a
 * layer. The conversion writes them in this order; the audit checks them. */
typedef struct
{
  const char *suffix;
  TsValueType type;       /* uint32, float32 or bool */
  double      value;      /* a uint32 is exact in a double; a bool is 0 or 1 */
  const char *origin;
  gboolean    per_layer;
} TsArchHparam;

#define TS_ARCH_MAX_HPARAMS 16
/* yarn's: the factor, the original context and four yarn values */
#define TS_HF_MAX_ROPE_SCALING 6

/* The fields of a Hugging Face config.json that conversion reads. */
typedef struct
{
  char    *architecture;          /* architectures[0] */
  char    *model_type;
  char    *name_or_path;          /* _name_or_path, or NULL */
  guint    n_layers;
  guint    hidden_size;
  guint    intermediate_size;
  guint    n_heads;
  guint    n_kv_heads;
  char    *n_kv_heads_origin;     /* where each of these values came from */
  guint    head_dim;              /* head_dim, else hidden / heads */
  gboolean has_head_dim;
  guint64  context_length;        /* max_position_embeddings */
  char    *context_length_origin;
  double   rope_theta;
  char    *rope_theta_origin;
  double   rms_norm_eps;
  char    *rms_norm_eps_origin;
  gboolean has_layer_norm_eps;    /* layer_norm_eps or a synonym, not null */
  double   layer_norm_eps;
  char    *layer_norm_eps_origin;
  gboolean non_causal;            /* is_causal: false */
  GPtrArray *defaults_used;       /* notes on keys taken from transformers' defaults, or NULL */
  guint    vocab_size;
  gboolean tie_word_embeddings;
  gboolean tie_word_embeddings_set; /* config.json says either way */
  char    *rope_origin;           /* "rope_parameters" or "rope_scaling", or NULL */
  char    *rope_type;             /* its rope_type (or type), or NULL; as written */
  double   rope_factor;
  double   rope_low_freq_factor;
  double   rope_high_freq_factor;
  double   rope_original_context;
  gboolean has_rope_factor;
  /* what the converter writes of the rope scaling before rope.freq_base:
   * rope.scaling.type ("linear" or "yarn"; NULL: nothing), then these
   * keys in its order (linear: the factor; yarn: the factor, the original
   * context and the yarn values config.json gives) */
  const char  *rope_scaling_type;
  TsArchHparam rope_scaling[TS_HF_MAX_ROPE_SCALING];
  guint        n_rope_scaling;
  GPtrArray   *rope_scaling_origins;  /* owns their origins */
  gboolean bos_is_int;            /* bos_token_id a single integer */
  gint64   bos_token_id;
  gboolean eos_is_int;
  gint64   eos_token_id;
} TsHfConfig;

TsHfConfig  *ts_hf_config_load            (GFile             *dir,
                                           GError           **error);
void         ts_hf_config_free            (TsHfConfig        *config);
/* llama3-type rope scaling: conversion generates rope_freqs.weight */
gboolean     ts_hf_config_has_rope_freqs  (const TsHfConfig  *config);
/* head_dim / 2 float32 factors, computed as llama.cpp's converter does */
float       *ts_hf_config_compute_rope_freqs (const TsHfConfig *config,
                                              guint            *n_values);
float       *ts_hf_config_compute_rope_freqs_nudged (const TsHfConfig *config,
                                                     int               nudge,
                                                     guint            *n_values);

typedef struct _TsArch TsArch;

/* The architecture for @config, or an error naming the unsupported one. */
const TsArch *ts_arch_for_config          (const TsHfConfig  *config,
                                           GError           **error);
const char   *ts_arch_get_name            (const TsArch      *arch);
/* Maps a Hugging Face tensor name to its GGUF name; NULL if the name is
 * unknown, or if it is dropped (then *dropped is TRUE). */
char         *ts_arch_map_tensor          (const TsArch      *arch,
                                           const TsHfConfig  *config,
                                           const char        *hf_name,
                                           TsPermute         *permute,
                                           gboolean          *dropped);
gboolean      ts_arch_check_shape         (const TsArch      *arch,
                                           const TsHfConfig  *config,
                                           const char        *hf_name,
                                           const guint64     *shape,
                                           guint              n_dims,
                                           GError           **error);

guint         ts_arch_list_hparams        (const TsArch      *arch,
                                           const TsHfConfig  *config,
                                           TsArchHparam      *out);
/* tensors stored as F32 whatever the output type */
gboolean      ts_arch_keeps_f32           (const TsArch      *arch,
                                           const char        *gguf_name,
                                           guint              n_dims);
/* heads a permuted tensor is split into */
guint         ts_arch_permute_heads       (const TsHfConfig  *config,
                                           TsPermute          permute);

/* Q/K permutation: the source row that lands in row @row, for heads of
 * @rows_per_head rows (Hugging Face's half-split rotary layout to
 * llama.cpp's interleaved pairs). */
static inline guint64
ts_permuted_source_row (guint64 row,
                        guint64 rows_per_head)
{
  guint64 h = row / rows_per_head;
  guint64 r = row % rows_per_head;

  return h * rows_per_head + (r % 2) * (rows_per_head / 2) + r / 2;
}

/* TRUE if @value, finite, becomes infinite as a float32: Python's
 * struct.pack('<f', …), which gguf-py writes every float32 with, raises
 * OverflowError there (an infinite value itself packs as it is). */
static inline gboolean
ts_overflows_float32 (double value)
{
  return isinf ((float) value) && !isinf (value);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TsHfConfig, ts_hf_config_free)

G_END_DECLS
