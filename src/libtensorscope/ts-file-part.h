/* ts-file-part.h
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "ts-region.h"

G_BEGIN_DECLS

#define TS_TYPE_FILE_PART (ts_file_part_get_type ())

G_DECLARE_FINAL_TYPE (TsFilePart, ts_file_part, TS, FILE_PART, GObject)

/* One physical file of a model: a GGUF file or one Safetensors shard. Its
 * regions tile the whole file in order, with no gap and no overlap. */
GFile        *ts_file_part_get_file         (TsFilePart *self);
const char   *ts_file_part_get_name         (TsFilePart *self);
guint         ts_file_part_get_index        (TsFilePart *self);
guint64       ts_file_part_get_size         (TsFilePart *self);
guint64       ts_file_part_get_data_offset  (TsFilePart *self);
GListModel   *ts_file_part_get_regions      (TsFilePart *self);
const guint8 *ts_file_part_get_contents     (TsFilePart *self);
GMappedFile  *ts_file_part_get_mapping      (TsFilePart *self);

gboolean       ts_file_part_is_damaged       (TsFilePart *self);
gboolean       ts_file_part_changed_on_disk  (TsFilePart *self);

G_END_DECLS
