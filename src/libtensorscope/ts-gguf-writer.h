/* ts-gguf-writer.h: lays out and writes a GGUF v3 file, all or nothing
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "ts-dtype.h"
#include "ts-gguf-metadata.h"

G_BEGIN_DECLS

typedef struct _TsGgufWriter TsGgufWriter;

TsGgufWriter *ts_gguf_writer_new              (TsGgufMetadata *metadata,
                                               guint32         alignment);
void          ts_gguf_writer_free             (TsGgufWriter   *self);

/* @dims fastest-varying first, as GGUF stores them. Returns the tensor's
 * offset relative to the data section. */
guint64       ts_gguf_writer_add_tensor       (TsGgufWriter   *self,
                                               const char     *name,
                                               guint           n_dims,
                                               const guint64  *dims,
                                               TsDType         dtype,
                                               guint64         size);
/* absolute offset of the data section */
guint64       ts_gguf_writer_get_data_offset  (TsGgufWriter   *self);
/* bytes of the fixed header + metadata, and of the descriptors */
guint64       ts_gguf_writer_get_metadata_end (TsGgufWriter   *self);
guint64       ts_gguf_writer_get_total_size   (TsGgufWriter   *self);
/* everything before the data section, padding included */
GBytes       *ts_gguf_writer_build_header     (TsGgufWriter   *self);

/* Creates a hidden temporary file next to @target. Nothing appears at
 * @target until ts_gguf_writer_commit(); an existing @target is an error
 * unless @overwrite. */
gboolean      ts_gguf_writer_open             (TsGgufWriter   *self,
                                               GFile          *target,
                                               gboolean        overwrite,
                                               GError        **error);
int           ts_gguf_writer_get_fd           (TsGgufWriter   *self);

/* O_DIRECT: writes of whole blocks aligned to this, in buffers aligned to
 * it, go to the disk without a copy in the page cache */
#define TS_GGUF_WRITER_DIRECT_ALIGNMENT 4096
gboolean      ts_gguf_writer_use_direct_io    (TsGgufWriter   *self);
gboolean      ts_gguf_writer_get_direct_io    (TsGgufWriter   *self);
const char   *ts_gguf_writer_get_temp_path    (TsGgufWriter   *self);
/* writes @len bytes at absolute @offset, retrying short writes */
gboolean      ts_gguf_writer_pwrite           (TsGgufWriter   *self,
                                               const void     *data,
                                               gsize           len,
                                               guint64         offset,
                                               GError        **error);
/* gives the temporary file its size and syncs it (the commit does, if
 * this was not called) */
gboolean      ts_gguf_writer_sync             (TsGgufWriter   *self,
                                               GError        **error);
/* syncs and moves the temporary file into place */
gboolean      ts_gguf_writer_commit           (TsGgufWriter   *self,
                                               GError        **error);
/* For one file of several moved into place together: the commit keeps
 * the file it replaces under a second, hidden name beside it instead of
 * dropping it, so that ts_gguf_writer_undo_commit() can put it back, until
 * ts_gguf_writer_drop_replaced(); and it replaces no file that appeared
 * where there was none */
void          ts_gguf_writer_keep_replaced    (TsGgufWriter   *self);
/* after a commit: the target as it was before it (removed if it was not
 * there). Returns NULL, or (transfer full) the path the replaced file is
 * left at if it could not be put back. */
char         *ts_gguf_writer_undo_commit      (TsGgufWriter   *self);
void          ts_gguf_writer_drop_replaced    (TsGgufWriter   *self);
/* removes the temporary file; safe to call at any time */
void          ts_gguf_writer_abort            (TsGgufWriter   *self);

/* test hook: fail writes with ENOSPC once this many bytes were written */
void          _ts_gguf_writer_set_fail_after  (TsGgufWriter   *self,
                                               guint64         bytes);
void          _ts_gguf_writer_set_refuse_direct_io (TsGgufWriter *self,
                                                    gboolean      refuse);
/* test hook: a file system without hard links or RENAME_NOREPLACE (FAT
 * on an old kernel) */
void          _ts_gguf_writer_set_no_links    (TsGgufWriter   *self,
                                               gboolean        no_links);
/* test hook: the commit fails (EIO) where it would move the file into place */
void          _ts_gguf_writer_set_fail_commit (TsGgufWriter   *self,
                                               gboolean        fail);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TsGgufWriter, ts_gguf_writer_free)

G_END_DECLS
