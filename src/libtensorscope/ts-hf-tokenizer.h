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
/* a SentencePiece model's (llama.cpp does not read it for one) */
#define TS_HF_TOKENIZER_PRE_DEFAULT "default"

/* Appends to @md, in the order llama.cpp's converter writes them
 * (LlamaModel.set_vocab, _set_vocab_sentencepiece or _set_vocab_gpt2,
 * gguf-py's SpecialVocab), the tokenizer keys of @dir's tokenizer.model
 * (when there is one: SentencePiece), or tokenizer.json, and of
 * added_tokens.json, tokenizer_config.json and config.json.
 * @tokenizer_pre overrides tokenizer.ggml.pre; when NULL a SentencePiece
 * model gets "default", the Llama 3 pre-tokenizer is recognised and any
 * other one is an error (G_IO_ERROR_NOT_SUPPORTED). Malformed files give
 * G_IO_ERROR_INVALID_DATA naming the file and the field (the byte offset
 * in a tokenizer.model). @tokenizer_pre is not checked here: see
 * ts_hf_tokenizer_check_pre(). */
gboolean ts_hf_tokenizer_add_metadata (GFile            *dir,
                                       const TsHfConfig *config,
                                       const char       *tokenizer_pre,
                                       TsGgufMetadata   *md,
                                       GError          **error);
/* The same, and *@detected_pre (when not NULL) is set to the name the
 * tokenizer files give (the one written without @tokenizer_pre), or NULL
 * where only a name given by hand can say which pre-tokenizer it is. */
gboolean ts_hf_tokenizer_add_metadata_full (GFile             *dir,
                                            const TsHfConfig  *config,
                                            const char        *tokenizer_pre,
                                            TsGgufMetadata    *md,
                                            const char       **detected_pre,
                                            GError           **error);

/* The pre-tokenizer names llama.cpp knows (those its src/llama-vocab.cpp
 * compares tokenizer_pre with), sorted, NULL-terminated: the one list of
 * them, held to llama.cpp's source by tests/check_pre_names.py. */
const char * const *ts_hf_tokenizer_get_pre_names (void);
/* TRUE if llama.cpp knows @name as a pre-tokenizer; else FALSE with
 * G_IO_ERROR_INVALID_ARGUMENT, whose message says how to list the names. */
gboolean ts_hf_tokenizer_check_pre (const char  *name,
                                    GError     **error);

/* TRUE if @dir has a tokenizer.model (a regular file): its tokenizer is
 * SentencePiece, as llama.cpp's converter reads it. */
gboolean ts_hf_tokenizer_is_sentencepiece (GFile *dir);

/* TRUE if @pre_tokenizer (tokenizer.json's "pre_tokenizer") is Llama 3's
 * Split regex + ByteLevel sequence. */
gboolean ts_hf_tokenizer_is_llama3_pre_tokenizer (JsonNode *pre_tokenizer);

G_END_DECLS
