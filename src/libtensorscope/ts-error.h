/* ts-error.h
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define TS_FORMAT_ERROR (ts_format_error_quark ())

/**
 * TsFormatError:
 *
 * One code per validation rule of the Safetensors and GGUF readers. The
 * message of every error names the file, the byte offset and the rule.
 * The CLI prints the nick (e.g. "data-past-eof") with `--json`.
 */
typedef enum
{
  TS_FORMAT_ERROR_IO,                   /* io: cannot open, stat, map or read */
  TS_FORMAT_ERROR_UNKNOWN_FORMAT,       /* unknown-format: neither GGUF nor Safetensors */
  TS_FORMAT_ERROR_LFS_POINTER,          /* lfs-pointer: a Git LFS pointer, not the weights */
  TS_FORMAT_ERROR_TRUNCATED,            /* truncated: file ends inside a fixed-size field */

  /* Safetensors */
  TS_FORMAT_ERROR_HEADER_TOO_LARGE,     /* header-too-large: N > 100,000,000 */
  TS_FORMAT_ERROR_HEADER_PAST_EOF,      /* header-past-eof: 8 + N > file size */
  TS_FORMAT_ERROR_HEADER_NOT_UTF8,      /* header-not-utf8 */
  TS_FORMAT_ERROR_HEADER_INVALID_JSON,  /* header-invalid-json */
  TS_FORMAT_ERROR_HEADER_NOT_OBJECT,    /* header-not-object: JSON top level is not an object */
  TS_FORMAT_ERROR_INVALID_TENSOR_ENTRY, /* invalid-tensor-entry: missing/mistyped dtype, shape, data_offsets */
  TS_FORMAT_ERROR_INVALID_METADATA,     /* invalid-metadata: __metadata__ not an object of strings */
  TS_FORMAT_ERROR_OFFSETS_REVERSED,     /* offsets-reversed: end < begin */
  TS_FORMAT_ERROR_SIZE_MISMATCH,        /* size-mismatch: product(shape) x element size != end - begin */
  TS_FORMAT_ERROR_DATA_GAP,             /* data-gap: tensors do not tile the data section (hole) */
  TS_FORMAT_ERROR_DATA_OVERLAP,         /* data-overlap: two tensors share bytes */

  /* Shared by both formats */
  TS_FORMAT_ERROR_DUPLICATE_KEY,        /* duplicate-key: JSON key or GGUF metadata key twice */
  TS_FORMAT_ERROR_DUPLICATE_TENSOR,     /* duplicate-tensor: a tensor name twice (also across shards) */
  TS_FORMAT_ERROR_OVERFLOW,             /* overflow: element count / byte size / offset overflows 64 bits */
  TS_FORMAT_ERROR_DATA_PAST_EOF,        /* data-past-eof: a tensor runs past the end of the file */

  /* Sharded checkpoints */
  TS_FORMAT_ERROR_INVALID_INDEX,        /* invalid-index: index JSON malformed (no weight_map, ...) */
  TS_FORMAT_ERROR_UNSAFE_SHARD_NAME,    /* unsafe-shard-name: not a plain file name in the folder */
  TS_FORMAT_ERROR_MISSING_SHARD,        /* missing-shard: the index names a shard that does not exist */
  TS_FORMAT_ERROR_MISSING_TENSOR,       /* missing-tensor: the index names a tensor its shard lacks */
  TS_FORMAT_ERROR_WRONG_SHARD,          /* wrong-shard: a tensor is in another shard than the index says,
                                         * or in a shard but not in the index */

  /* GGUF */
  TS_FORMAT_ERROR_BAD_MAGIC,            /* bad-magic */
  TS_FORMAT_ERROR_UNSUPPORTED_VERSION,  /* unsupported-version: 0, 1 or > 3 */
  TS_FORMAT_ERROR_COUNT_TOO_LARGE,      /* count-too-large: more tensors or metadata entries than Tensorscope reads */
  TS_FORMAT_ERROR_STRING_PAST_EOF,      /* string-past-eof: a string length runs past the end */
  TS_FORMAT_ERROR_ARRAY_PAST_EOF,       /* array-past-eof: an array count cannot fit in the remaining bytes */
  TS_FORMAT_ERROR_EMPTY_KEY,            /* empty-key */
  TS_FORMAT_ERROR_INVALID_VALUE_TYPE,   /* invalid-value-type: metadata value type out of range */
  TS_FORMAT_ERROR_NESTING_TOO_DEEP,     /* nesting-too-deep: arrays nested deeper than 8 */
  TS_FORMAT_ERROR_NAME_TOO_LONG,        /* name-too-long: tensor name >= 64 bytes */
  TS_FORMAT_ERROR_TOO_MANY_DIMS,        /* too-many-dims: n_dims > 4 */
  TS_FORMAT_ERROR_INVALID_DIM,          /* invalid-dim: a dimension >= 2^63 (negative as int64) */
  TS_FORMAT_ERROR_INVALID_TYPE,         /* invalid-type: ggml type id out of range (>= 1024) */
  TS_FORMAT_ERROR_BLOCK_MISALIGNED,     /* block-misaligned: ne[0] not a multiple of the block size */
  TS_FORMAT_ERROR_BAD_ALIGNMENT,        /* bad-alignment: general.alignment 0, not a power of two, or not uint32 */
  TS_FORMAT_ERROR_UNALIGNED_OFFSET,     /* unaligned-offset: tensor offset not a multiple of the alignment */
  TS_FORMAT_ERROR_NUL_IN_NAME,          /* nul-in-name: a GGUF metadata key or tensor name holds a NUL byte */
  TS_FORMAT_ERROR_INVALID_SPLIT,        /* invalid-split: the files of a GGUF split set disagree (split.no,
                                         * split.count, split.tensors.count) */
} TsFormatError;

GQuark       ts_format_error_quark    (void);
const char  *ts_format_error_to_nick  (TsFormatError code);

char        *ts_file_display_name     (GFile        *file);
char        *ts_file_display_basename (GFile        *file);
char        *ts_utf8_take_valid       (char         *text,
                                       gssize        length);

G_END_DECLS
