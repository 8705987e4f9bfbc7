/* ts-file-chooser.h: the one place that picks a file chooser API, and the
 * API that opens a file in its default application
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
  TS_FILE_CHOOSER_SAVE_GGUF,    /* a conversion's target .gguf */
  TS_FILE_CHOOSER_SAVE_REPORT,  /* an audit report, .json or .html */
  TS_FILE_CHOOSER_OPEN_GGUF,    /* the .gguf an audit checks */
} TsFileChooserMode;

/* GtkFileChooserNative on GTK 4.8, GtkFileDialog from 4.10 on. A dismissed
 * chooser finishes with G_IO_ERROR_CANCELLED. @initial_name, for a save
 * chooser: a file name, or an absolute path whose folder it starts in. */
void   ts_file_chooser_run_async  (GtkWindow           *parent,
                                   TsFileChooserMode    mode,
                                   const char          *initial_name,
                                   GCancellable        *cancellable,
                                   GAsyncReadyCallback  callback,
                                   gpointer             user_data);
GFile *ts_file_chooser_run_finish (GAsyncResult        *result,
                                   GError             **error);

/* Opens @file in the user's default application for its type (the
 * exported picture): gtk_show_uri_full on GTK 4.8, GtkFileLauncher from 4.10
 * on, where gtk_show_uri* are deprecated. Inside Flatpak both go through the
 * OpenURI portal. A dismissed application chooser finishes with
 * G_IO_ERROR_CANCELLED. */
void     ts_file_launch_async  (GtkWindow           *parent,
                                GFile               *file,
                                GCancellable        *cancellable,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data);
gboolean ts_file_launch_finish (GAsyncResult        *result,
                                GError             **error);

/* TRUE for one shard of a sharded Safetensors checkpoint
 * ("model-00001-of-00004.safetensors") whose folder shows neither the index
 * nor the other shards. */
gboolean ts_file_chooser_is_lone_shard          (GFile *file);
/* TRUE when @file is a lone shard inside a Flatpak sandbox (or with
 * TS_FORCE_SANDBOX set, for tests): the caller then asks for the checkpoint's
 * folder (TS_FILE_CHOOSER_OPEN_FOLDER) instead of opening one shard. */
gboolean ts_file_chooser_should_ask_for_folder (GFile *file);

G_END_DECLS
