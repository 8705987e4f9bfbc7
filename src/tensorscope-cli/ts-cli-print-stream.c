/* ts-cli-print-stream.c: the JSON reports' standard output, as a stream
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Goes through ts_cli_print_json(), which escapes control characters
 * character by character and writes UTF-8 in any locale; a report written
 * in pieces must look the same as one printed whole, so a character cut
 * at the end of a write waits for the rest of it.
 */

#include "config.h"

#include <errno.h>

#include "ts-cli-print-stream.h"
#include "ts-cli-private.h"

struct _TsCliPrintStream
{
  GOutputStream  parent_instance;

  GString       *pending;   /* text not printed yet */
};

G_DEFINE_FINAL_TYPE (TsCliPrintStream, ts_cli_print_stream, G_TYPE_OUTPUT_STREAM)

/* The length of @text without a UTF-8 sequence cut short at its end. */
static gsize
complete_length (const char *text,
                 gsize       len)
{
  for (gsize back = 1; back <= MIN (len, 4); back++)
    {
      guchar c = (guchar) text[len - back];
      gsize need;

      if ((c & 0xc0) == 0x80)
        continue;          /* a continuation byte: look further back */
      need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
      return need > back ? len - back : len;
    }
  return len;
}

static gboolean
print_pending (TsCliPrintStream  *self,
               gsize              len,
               GError           **error)
{
  g_autofree char *text = NULL;

  if (len == 0)
    return TRUE;
  text = g_strndup (self->pending->str, len);
  g_string_erase (self->pending, 0, len);
  if (!ts_cli_print_json (text))
    {
      int errsv = errno != 0 ? errno : EIO;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv),
                   "could not write the output: %s", g_strerror (errsv));
      return FALSE;
    }
  return TRUE;
}

static gssize
ts_cli_print_stream_write (GOutputStream  *stream,
                           const void     *buffer,
                           gsize           count,
                           GCancellable   *cancellable,
                           GError        **error)
{
  TsCliPrintStream *self = TS_CLI_PRINT_STREAM (stream);

  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return -1;

  g_string_append_len (self->pending, buffer, count);
  if (!print_pending (self, complete_length (self->pending->str, self->pending->len), error))
    return -1;
  return count;
}

static gboolean
ts_cli_print_stream_close (GOutputStream  *stream,
                           GCancellable   *cancellable,
                           GError        **error)
{
  TsCliPrintStream *self = TS_CLI_PRINT_STREAM (stream);

  return print_pending (self, self->pending->len, error);
}

static void
ts_cli_print_stream_finalize (GObject *object)
{
  TsCliPrintStream *self = TS_CLI_PRINT_STREAM (object);

  g_string_free (self->pending, TRUE);

  G_OBJECT_CLASS (ts_cli_print_stream_parent_class)->finalize (object);
}

static void
ts_cli_print_stream_class_init (TsCliPrintStreamClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GOutputStreamClass *stream_class = G_OUTPUT_STREAM_CLASS (klass);

  object_class->finalize = ts_cli_print_stream_finalize;
  stream_class->write_fn = ts_cli_print_stream_write;
  stream_class->close_fn = ts_cli_print_stream_close;
}

static void
ts_cli_print_stream_init (TsCliPrintStream *self)
{
  self->pending = g_string_new (NULL);
}

GOutputStream *
ts_cli_print_stream_new (void)
{
  return g_object_new (TS_TYPE_CLI_PRINT_STREAM, NULL);
}

gboolean
ts_cli_print_json_report (gpointer        object,
                          TsCliJsonWriter write)
{
  g_autoptr(GOutputStream) out = ts_cli_print_stream_new ();
  g_autoptr(GError) error = NULL;

  if (write (object, out, NULL, &error) &&
      g_output_stream_write_all (out, "\n", 1, NULL, NULL, &error) &&
      g_output_stream_close (out, NULL, &error))
    return TRUE;
  g_printerr ("tensorscope-cli: %s\n", error->message);
  return FALSE;
}
