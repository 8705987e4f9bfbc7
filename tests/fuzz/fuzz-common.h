/* fuzz-common.h: shared helpers of the libFuzzer targets
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "tensorscope.h"

G_BEGIN_DECLS

/* Pieces of a multi-file input are separated by this line; each piece is
 * "NAME\nCONTENTS" (NAME sanitised to a plain file name). */
#define TS_FUZZ_SEPARATOR "\n#TSFUZZ#\n"

/* Fuzz-time invariant violation: a crash libFuzzer records. */
#define ts_fuzz_assert(cond)                                                    \
  G_STMT_START {                                                                \
    if (G_UNLIKELY (!(cond)))                                                   \
      {                                                                         \
        g_printerr ("%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #cond); \
        __builtin_trap ();                                                      \
      }                                                                         \
  } G_STMT_END

/* Once per process: criticals and warnings abort, a private work folder. */
void        ts_fuzz_init            (void);
/* An empty scratch folder for one input (the same path every time). */
GFile      *ts_fuzz_fresh_dir       (void);
GFile      *ts_fuzz_write_file      (GFile        *dir,
                                     const char   *name,
                                     const guint8 *data,
                                     gsize         size);
/* Writes each "NAME\nCONTENTS" piece of @data into @dir; returns how many. */
guint       ts_fuzz_write_pieces    (GFile        *dir,
                                     const guint8 *data,
                                     gsize         size,
                                     const char   *default_name);

/* Reads everything a viewer would show and checks the reader's promises:
 * regions tile each part, tensors and metadata values lie inside it. */
void        ts_fuzz_walk_model      (TsModelFile  *model);
void        ts_fuzz_walk_metadata   (TsMetadataEntry *entry,
                                     const guint8    *base,
                                     guint64          size,
                                     guint            depth,
                                     guint64         *budget);

G_END_DECLS
