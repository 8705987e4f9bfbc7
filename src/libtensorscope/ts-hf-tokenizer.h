/* ts-hf-tokenizer.h: tokenizer.* keys of a SentencePiece (Llama 2, Mistral)
 * or byte-level BPE (Llama 3) tokenizer
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "ts-arch.h"
#include "ts-gguf-metadata.h"

G_BEGIN_DECLS

/* The name llama.cpp gives the Llama 3 pre-tokenizer. */
#define TS_HF_TOKENIZER_PRE_LLAMA_BPE "llama-bpe"
/* Llama 3's pattern, without ignore_merges */
#define TS_HF_TOKENIZER_PRE_SMAUG_BPE "smaug-bpe"

/* Appends to @md, in the order llama.cpp's converter writes them
 * (LlamaModel.set_vocab, _set_vocab_sentencepiece or _set_vocab_gpt2,
 * gguf-py's SpecialVocab), the tokenizer keys of @dir's tokenizer.model
 * (when there is one: SentencePiece), or tokenizer.json, and of
 * added_tokens.json, tokenizer_config.json and config.json.
 * @tokenizer_pre overrides tokenizer.ggml.pre; when NULL a SentencePiece
 * model gets "default", the Llama 3 pre-tokenizer is recognised and any
 * other one is an error (G_IO_ERROR_NOT_SUPPORTED). Malformed files give
 * G_IO_ERROR_INVALID_DATA naming the file and the field (the byte offset
 * in a tokenizer.model). */
gboolean ts_hf_tokenizer_add_metadata (GFile            *dir,
                                       const TsHfConfig *config,
                                       const char       *tokenizer_pre,
                                       TsGgufMetadata   *md,
                                       GError          **error);

/* TRUE if @dir has a tokenizer.model (a regular file): its tokenizer is
 * SentencePiece, as llama.cpp's converter reads it. */
gboolean ts_hf_tokenizer_is_sentencepiece (GFile *dir);

/* TRUE if @pre_tokenizer (tokenizer.json's "pre_tokenizer") is Llama 3's
 * Split regex + ByteLevel sequence. */
gboolean ts_hf_tokenizer_is_llama3_pre_tokenizer (JsonNode *pre_tokenizer);

G_END_DECLS
