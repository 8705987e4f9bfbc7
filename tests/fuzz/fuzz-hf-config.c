/* fuzz-hf-config.c: config.json and the tokenizer files the converter reads
 * (ts_hf_config_load, ts_arch_*, ts_hf_naming_*, ts_hf_tokenizer_add_metadata)
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Input: one flags byte, then pieces "NAME\nCONTENTS" separated by
 * TS_FUZZ_SEPARATOR (config.json, tokenizer.json, tokenizer_config.json,
 * merges.txt, chat_template.jinja, README.md, tokenizer.model,
 * added_tokens.json, ...).
 */

#include "config.h"

#include "fuzz-common.h"
#include "ts-arch.h"
#include "ts-gguf-metadata.h"
#include "ts-hf-naming.h"
#include "ts-hf-tokenizer.h"

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

static const char * const tensor_names[] = {
  "model.embed_tokens.weight", "model.norm.weight", "lm_head.weight",
  "model.layers.0.self_attn.q_proj.weight", "model.layers.3.self_attn.k_proj.bias",
  "model.layers.1.mlp.down_proj.weight", "model.layers.0.self_attn.rotary_emb.inv_freq",
  "model.layers.x.input_layernorm.weight", "model.layers.99999999999999999999.mlp.up_proj.weight",
};

static void
walk_metadata (TsGgufMetadata *md)
{
  g_autoptr(GListModel) entries = ts_gguf_metadata_list_entries (md);
  g_autoptr(GBytes) bytes = ts_gguf_metadata_get_bytes (md);
  guint64 budget = 200000;

  ts_fuzz_assert (bytes != NULL);

  ts_fuzz_assert (g_list_model_get_n_items (entries) == ts_gguf_metadata_get_n_entries (md));
  for (guint i = 0; i < g_list_model_get_n_items (entries); i++)
    {
      g_autoptr(TsMetadataEntry) e = g_list_model_get_item (entries, i);

      ts_fuzz_assert (ts_gguf_metadata_get_origin (md, i) != NULL);
      ts_fuzz_walk_metadata (e, NULL, 0, 0, &budget);
    }
}

int
LLVMFuzzerTestOneInput (const guint8 *data,
                        size_t        size)
{
  g_autoptr(GFile) dir = NULL;
  g_autoptr(TsHfConfig) config = NULL;
  g_autoptr(TsGgufMetadata) md = NULL;
  g_autoptr(GError) error = NULL;
  const TsArch *arch;
  guint flags;

  if (size < 1)
    return 0;
  ts_fuzz_init ();
  dir = ts_fuzz_fresh_dir ();
  flags = data[0];
  ts_fuzz_write_pieces (dir, data + 1, size - 1, "config.json");

  config = ts_hf_config_load (dir, &error);
  if (config == NULL)
    {
      ts_fuzz_assert (error != NULL);
      return 0;
    }
  arch = ts_arch_for_config (config, NULL);
  if (arch != NULL)
    for (guint i = 0; i < G_N_ELEMENTS (tensor_names); i++)
      {
        TsPermute permute = TS_PERMUTE_NONE;
        gboolean dropped = FALSE;
        g_autofree char *name = ts_arch_map_tensor (arch, config, tensor_names[i], &permute, &dropped);

        if (name != NULL)
          (void) ts_arch_keeps_f32 (arch, name, 2);
        if (permute != TS_PERMUTE_NONE)
          (void) ts_arch_permute_heads (config, permute);
      }
  if (ts_hf_config_has_rope_freqs (config))
    {
      guint n = 0;
      g_autofree float *freqs = ts_hf_config_compute_rope_freqs (config, &n);

      ts_fuzz_assert (n == config->head_dim / 2);
      ts_fuzz_assert (n == 0 || freqs != NULL);
    }

  md = ts_gguf_metadata_new ();
  ts_hf_naming_add_metadata (dir, config, (flags & 2) ? 3212749824u : 0, md);
  {
    g_autofree char *file_name = ts_hf_naming_default_file_name (dir, config, 0, "BF16");

    ts_fuzz_assert (file_name != NULL);
  }
  if (ts_hf_tokenizer_add_metadata (dir, config, (flags & 1) ? TS_HF_TOKENIZER_PRE_LLAMA_BPE : NULL,
                                    md, &error))
    ts_fuzz_assert (error == NULL);
  else
    ts_fuzz_assert (error != NULL);
  walk_metadata (md);
  return 0;
}
