/* ts-report.h
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <json-glib/json-glib.h>

#include "ts-model-file.h"

G_BEGIN_DECLS

/* The inspection report documented in docs/inspect-json.md. */
JsonNode *ts_report_inspect       (TsModelFile   *model);
/* The same report as ts_report_to_string (ts_report_inspect (@model), TRUE)
 * writes it, written to @stream one item at a time: its memory does not
 * grow with the model. */
gboolean  ts_report_write_inspect (TsModelFile   *model,
                                   GOutputStream *stream,
                                   GCancellable  *cancellable,
                                   GError       **error);
/* {"error": {"domain", "code", "message"}} */
JsonNode *ts_report_error         (const GError  *error);
char     *ts_report_to_string     (JsonNode      *node,
                                   gboolean       pretty);
/* @text (UTF-8) with every control character but the newline and the tab
 * written out as \xNN (C0) or \uNNNN (DEL, C1, and the noncharacters
 * U+FFFE and U+FFFF, which XML 1.0 does not allow either): for text from
 * a file shown on a terminal or written into XML. JSON text stays JSON: its
 * writer escapes C0 itself, and \uNNNN is JSON's own escape. */
char     *ts_escape_controls      (const char    *text);

/* JSON written to a stream a value at a time, exactly as
 * ts_report_to_string (…, TRUE) writes the same tree: for reports whose
 * tree would not fit in memory (a million tensors). The writer remembers
 * the first write error and writes nothing after it;
 * ts_report_writer_finish() reports it. */
typedef struct _TsReportWriter TsReportWriter;

TsReportWriter *ts_report_writer_new          (GOutputStream  *stream,
                                               GCancellable   *cancellable);
void            ts_report_writer_free         (TsReportWriter *self);
void            ts_report_writer_begin_object (TsReportWriter *self,
                                               const char     *member);
void            ts_report_writer_end_object   (TsReportWriter *self);
void            ts_report_writer_begin_array  (TsReportWriter *self,
                                               const char     *member);
void            ts_report_writer_end_array    (TsReportWriter *self);
void            ts_report_writer_add          (TsReportWriter *self,
                                               const char     *member,
                                               JsonNode       *value);
void            ts_report_writer_add_built    (TsReportWriter *self,
                                               const char     *member,
                                               JsonBuilder    *builder);
void            ts_report_writer_add_members  (TsReportWriter *self,
                                               JsonObject     *object);
gboolean        ts_report_writer_finish       (TsReportWriter *self,
                                               GError        **error);

/* Builds the value of @item, the @position-th of its list, into @builder */
typedef void (*TsReportBuildFunc) (JsonBuilder *builder,
                                   gpointer     item,
                                   guint        position,
                                   gpointer     user_data);

/* The array member @member, one value per item of @list: into the object
 * @builder is building, or written to the open object of @self a value at
 * a time (built in @builder), so a report's tree and its stream are made
 * by the same functions */
void            ts_report_build_list          (JsonBuilder    *builder,
                                               const char     *member,
                                               GListModel     *list,
                                               TsReportBuildFunc build,
                                               gpointer        user_data);
void            ts_report_writer_add_list     (TsReportWriter *self,
                                               const char     *member,
                                               GListModel     *list,
                                               JsonBuilder    *builder,
                                               TsReportBuildFunc build,
                                               gpointer        user_data);
/* Writes the members of the object @builder holds into the open object,
 * then resets @builder */
void            ts_report_writer_add_built_members (TsReportWriter *self,
                                                    JsonBuilder    *builder);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TsReportWriter, ts_report_writer_free)

/* Exports (pictures, reports) written to @file with GIO: an existing file
 * is replaced only when the new one is complete (GIO writes a temporary
 * file and renames it), and a new file that could not be written whole (a
 * full disk, a cancel) is removed, as GIO writes a new file in place. */
gboolean        ts_export_replace_contents    (GFile          *file,
                                               const void     *data,
                                               gsize           len,
                                               GCancellable   *cancellable,
                                               GError        **error);
GOutputStream  *ts_export_stream_open         (GFile          *file,
                                               GCancellable   *cancellable,
                                               GError        **error);
/* Puts "“NAME”: " before @error's message, unless it names @file already
 * (GIO's write errors do not) */
void            ts_export_prefix_error        (GError        **error,
                                               GFile          *file);
/* Closes @stream from ts_export_stream_open(): when @complete, the file is
 * in place if this returns %TRUE; when not (the caller's write failed),
 * the target is left as it was and %FALSE is returned with @error unset. */
gboolean        ts_export_stream_close        (GOutputStream  *stream,
                                               gboolean        complete,
                                               GCancellable   *cancellable,
                                               GError        **error);

G_END_DECLS
