/* ts-file-chooser.h: the one place that picks a file chooser API
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

typedef enum
{
  TS_FILE_CHOOSER_OPEN_FILE,    /* a .gguf, .safetensors or index .json */
  TS_FILE_CHOOSER_OPEN_FOLDER,  /* a sharded checkpoint folder */
  TS_FILE_CHOOSER_SAVE_LAYOUT,  /* an .svg, .pdf or .png to write */
} TsFileChooserMode;

/* GtkFileChooserNative on GTK 4.8, GtkFileDialog from 4.10 on. A dismissed
 * chooser finishes with G_IO_ERROR_CANCELLED. */
void   ts_file_chooser_run_async  (GtkWindow           *parent,
                                   TsFileChooserMode    mode,
                                   const char          *initial_name,
                                   GCancellable        *cancellable,
                                   GAsyncReadyCallback  callback,
                                   gpointer             user_data);
GFile *ts_file_chooser_run_finish (GAsyncResult        *result,
                                   GError             **error);

G_END_DECLS
