/* ts-cli-convert.c: tensorscope-cli convert
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib-unix.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tensorscope.h"
#include "ts-cli-print-stream.h"
#include "ts-cli-private.h"
#include "ts-conversion-plan.h"
#include "ts-converter.h"
#include "ts-hf-tokenizer.h"

/* rows padded to terminal columns (ts_string_append_cell()) */
/* @file: NULL for a model written as one file */
static void
print_plan_row (const char *source,
                const char *name,
                const char *transform,
                const char *type,
                const char *file,
                const char *offset)
{
  g_autoptr(GString) row = g_string_new (NULL);

  if (file != NULL)
    ts_string_append_cells (row, 48, source, 26, name, 22, transform, 6, type, -5, file, -16, offset, 0);
  else
    ts_string_append_cells (row, 48, source, 26, name, 22, transform, 6, type, -16, offset, 0);
  g_print ("%s\n", row->str);
}

/* what the output files are named after: -o, or else llama.cpp's
 * default name */
static GFile *
name_output (TsConversionPlan *plan,
             GFile            *target)
{
  g_autofree char *default_name = NULL;

  if (target != NULL)
    return g_object_ref (target);
  default_name = ts_conversion_plan_get_default_file_name (plan);
  return g_file_new_for_path (default_name);
}

/* the files a split model is written to, named after @target (or the
 * default name) */
static void
print_plan_files (TsConversionPlan *plan,
                  GFile            *target)
{
  g_autoptr(GFile) named = name_output (plan, target);

  g_print ("Output files:\n");
  for (guint k = 0; k < ts_conversion_plan_get_n_files (plan); k++)
    {
      g_autoptr(GFile) file = ts_conversion_plan_get_output_file (plan, named, k);
      g_autofree char *name = g_file_get_basename (file);
      g_autofree char *size = g_format_size_full (ts_conversion_plan_get_file_size (plan, k),
                                                  G_FORMAT_SIZE_LONG_FORMAT);
      guint n = ts_conversion_plan_get_file_n_tensors (plan, k);
      g_autofree char *count = g_strdup_printf (n == 1 ? "%u tensor" : "%u tensors", n);
      g_autoptr(GString) row = g_string_new ("  ");
      g_autofree char *number = g_strdup_printf ("%u", k + 1);

      ts_string_append_cells (row, -5, number, 40, name, -12, count, 1, size, 0);
      g_print ("%s\n", row->str);
    }
  g_print ("\n");
}

static void
print_metadata_row (const char *key,
                    const char *type,
                    const char *value,
                    const char *origin)
{
  g_autoptr(GString) row = g_string_new (NULL);

  ts_string_append_cells (row, 40, key, 8, type, 36, value, 1, origin, 0);
  g_print ("%s\n", row->str);
}

static void
print_plan (TsConversionPlan *plan,
            GFile            *target)
{
  GListModel *tensors = ts_conversion_plan_get_tensors (plan);
  g_autoptr(GListModel) metadata = ts_conversion_plan_list_metadata (plan);
  g_autofree char *size = g_format_size_full (ts_conversion_plan_get_predicted_size (plan),
                                              G_FORMAT_SIZE_LONG_FORMAT);
  gboolean split = ts_conversion_plan_get_n_files (plan) > 1;

  if (split)
    print_plan_files (plan, target);
  print_plan_row ("Source tensor", "GGUF tensor", "Transform", "Type", split ? "File" : NULL, "Offset");
  for (guint i = 0; i < g_list_model_get_n_items (tensors); i++)
    {
      g_autoptr(TsPlanTensor) pt = g_list_model_get_item (tensors, i);
      TsTensor *src = ts_plan_tensor_get_source (pt);
      guint file = ts_plan_tensor_get_file (pt);
      g_autofree char *transform = ts_plan_tensor_describe_transform (pt);
      g_autofree char *file_number = split ? g_strdup_printf ("%u", file + 1) : NULL;
      g_autofree char *offset = g_strdup_printf ("%" G_GUINT64_FORMAT,
                                                 ts_conversion_plan_get_data_offset (plan, file) +
                                                 ts_plan_tensor_get_offset (pt));

      print_plan_row (src ? ts_tensor_get_name (src) : "(config.json)",
                      ts_plan_tensor_get_name (pt), transform,
                      ts_dtype_get_name (ts_plan_tensor_get_dtype (pt)), file_number, offset);
    }
  g_print ("\n");
  print_metadata_row ("Metadata key", "Type", "Value", "Origin");
  for (guint i = 0; i < g_list_model_get_n_items (metadata); i++)
    {
      g_autoptr(TsMetadataEntry) e = g_list_model_get_item (metadata, i);
      g_autofree char *value = ts_metadata_entry_to_string (e);

      if (g_utf8_strlen (value, -1) > 36)
        {
          g_autofree char *cut = g_utf8_substring (value, 0, 33);

          g_free (value);
          value = g_strconcat (cut, "…", NULL);
        }
      g_strdelimit (value, "\n\r\t", ' ');
      print_metadata_row (ts_metadata_entry_get_key (e),
                          ts_value_type_to_nick (ts_metadata_entry_get_value_type (e)), value,
                          ts_gguf_metadata_get_origin (ts_conversion_plan_get_metadata (plan), i));
    }
  if (split)
    g_print ("\nPredicted output size: %s in %u files\n", size, ts_conversion_plan_get_n_files (plan));
  else
    g_print ("\nPredicted output size: %s\n", size);
}

static void
build_plan_tensor (JsonBuilder *b,
                   gpointer     item,
                   guint        position,
                   gpointer     user_data)
{
  TsConversionPlan *plan = user_data;
  TsPlanTensor *pt = item;
  TsTensor *src = ts_plan_tensor_get_source (pt);
  g_autofree char *transform = ts_plan_tensor_describe_transform (pt);

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "name");
  json_builder_add_string_value (b, ts_plan_tensor_get_name (pt));
  json_builder_set_member_name (b, "source");
  if (src)
    json_builder_add_string_value (b, ts_tensor_get_name (src));
  else
    json_builder_add_null_value (b);
  json_builder_set_member_name (b, "transform");
  json_builder_add_string_value (b, transform);
  json_builder_set_member_name (b, "dtype");
  json_builder_add_string_value (b, ts_dtype_get_name (ts_plan_tensor_get_dtype (pt)));
  json_builder_set_member_name (b, "shape");
  json_builder_begin_array (b);
  for (guint d = 0; d < ts_plan_tensor_get_n_dims (pt); d++)
    json_builder_add_int_value (b, (gint64) ts_plan_tensor_get_dims (pt)[d]);
  json_builder_end_array (b);
  json_builder_set_member_name (b, "file");
  json_builder_add_int_value (b, ts_plan_tensor_get_file (pt));
  json_builder_set_member_name (b, "offset");
  json_builder_add_int_value (b, (gint64) (ts_conversion_plan_get_data_offset (plan, ts_plan_tensor_get_file (pt)) +
                                           ts_plan_tensor_get_offset (pt)));
  json_builder_set_member_name (b, "size");
  json_builder_add_int_value (b, (gint64) ts_plan_tensor_get_size (pt));
  json_builder_end_object (b);
}

static void
build_plan_metadata (JsonBuilder *b,
                     gpointer     item,
                     guint        index,
                     gpointer     user_data)
{
  TsConversionPlan *plan = user_data;
  TsMetadataEntry *e = item;
  g_autofree char *value = ts_metadata_entry_to_string (e);

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "key");
  json_builder_add_string_value (b, ts_metadata_entry_get_key (e));
  json_builder_set_member_name (b, "type");
  json_builder_add_string_value (b, ts_value_type_to_nick (ts_metadata_entry_get_value_type (e)));
  json_builder_set_member_name (b, "value");
  json_builder_add_string_value (b, value);
  json_builder_set_member_name (b, "origin");
  json_builder_add_string_value (b, ts_gguf_metadata_get_origin (ts_conversion_plan_get_metadata (plan), index));
  json_builder_end_object (b);
}

typedef struct
{
  TsConversionPlan *plan;
  GFile            *target;   /* -o, or NULL */
} PlanJson;

/* the output files, named after -o (or the default name) */
static void
build_plan_files (JsonBuilder      *b,
                  TsConversionPlan *plan,
                  GFile            *target)
{
  g_autoptr(GFile) named = name_output (plan, target);

  json_builder_set_member_name (b, "files");
  json_builder_begin_array (b);
  for (guint k = 0; k < ts_conversion_plan_get_n_files (plan); k++)
    {
      g_autoptr(GFile) file = ts_conversion_plan_get_output_file (plan, named, k);
      g_autofree char *name = target ? g_file_get_path (file) : g_file_get_basename (file);

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "name");
      json_builder_add_string_value (b, name);
      json_builder_set_member_name (b, "tensors");
      json_builder_add_int_value (b, ts_conversion_plan_get_file_n_tensors (plan, k));
      json_builder_set_member_name (b, "size");
      json_builder_add_int_value (b, (gint64) ts_conversion_plan_get_file_size (plan, k));
      json_builder_set_member_name (b, "data_offset");
      json_builder_add_int_value (b, (gint64) ts_conversion_plan_get_data_offset (plan, k));
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
}

/* The plan as JSON, written as it is made: the tree of 360,000 tensors
 * took 850 MB */
static gboolean
write_plan_json (PlanJson          *pj,
                 GOutputStream     *stream,
                 GCancellable      *cancellable,
                 GError           **error)
{
  TsConversionPlan *plan = pj->plan;
  g_autoptr(TsReportWriter) w = ts_report_writer_new (stream, cancellable);
  g_autoptr(JsonBuilder) b = json_builder_new ();
  GListModel *tensors = ts_conversion_plan_get_tensors (plan);
  g_autoptr(GListModel) metadata = ts_conversion_plan_list_metadata (plan);

  ts_report_writer_begin_object (w, NULL);
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "outtype");
  json_builder_add_string_value (b, ts_outtype_to_nick (ts_conversion_plan_get_outtype (plan)));
  json_builder_set_member_name (b, "predicted_size");
  json_builder_add_int_value (b, (gint64) ts_conversion_plan_get_predicted_size (plan));
  json_builder_set_member_name (b, "data_offset");
  json_builder_add_int_value (b, (gint64) ts_conversion_plan_get_data_offset (plan, 0));
  build_plan_files (b, plan, pj->target);
  json_builder_end_object (b);
  ts_report_writer_add_built_members (w, b);
  ts_report_writer_add_list (w, "tensors", tensors, b, build_plan_tensor, plan);
  ts_report_writer_add_list (w, "metadata", metadata, b, build_plan_metadata, plan);
  ts_report_writer_end_object (w);
  return ts_report_writer_finish (w, error);
}

typedef struct
{
  GMainLoop    *loop;
  TsConverter  *converter;
  GCancellable *cancellable;
  GError       *error;
  gboolean      tty;
  gint64        started;
} ConvertState;

static gboolean
print_progress (gpointer data)
{
  ConvertState *state = data;
  double f = ts_converter_get_fraction (state->converter);
  g_autofree char *done = g_format_size (ts_converter_get_bytes_done (state->converter));
  g_autofree char *total = g_format_size (ts_converter_get_bytes_total (state->converter));
  g_autofree char *current = ts_converter_dup_current_tensor (state->converter);
  g_autofree char *tensor = ts_escape_controls (current ? current : "");
  char bar[31];
  guint filled = (guint) (f * 30);

  for (guint i = 0; i < 30; i++)
    bar[i] = i < filled ? '#' : '.';
  bar[30] = '\0';
  fprintf (stderr, "\r[%s] %3.0f%%  %s / %s  %-32.32s", bar, f * 100, done, total, tensor);
  return G_SOURCE_CONTINUE;
}

/* the run's cancellable, which the signals below cancel, and the signal
 * that stopped it, if one did */
static GCancellable *stop_cancellable;
static int stop_signal;

static gboolean
on_interrupt (gpointer data)
{
  if (stop_signal == 0)
    stop_signal = GPOINTER_TO_INT (data);
  g_cancellable_cancel (stop_cancellable);
  return G_SOURCE_CONTINUE;
}

/* SIGINT (Ctrl+C), SIGTERM, and SIGHUP (a closed terminal or a dropped
 * ssh session) cancel the run, so that the hidden temporary file does not
 * stay behind. A signal the command was started to ignore (nohup) stays
 * ignored. The handlers stay until the process exits: removing them would
 * bring back the default action, and a Ctrl+C that lands just after the
 * output was committed would then kill the process and report a finished
 * conversion as a failure. Cancelling a finished run does nothing. */
static void
watch_stop_signals (GCancellable *cancellable)
{
  static const int signals[] = { SIGINT, SIGTERM, SIGHUP };

  g_set_object (&stop_cancellable, cancellable);
  for (guint i = 0; i < G_N_ELEMENTS (signals); i++)
    {
      struct sigaction action;

      if (sigaction (signals[i], NULL, &action) == 0 && action.sa_handler == SIG_IGN)
        continue;
      g_unix_signal_add (signals[i], on_interrupt, GINT_TO_POINTER (signals[i]));
    }
}

/* Cleaned up after a signal, the command ends by that signal, as if it had
 * not caught it: a shell then sees 130 for Ctrl+C, and a script's loop
 * over several conversions stops instead of going on with the next (bash
 * goes on when a child it sent Ctrl+C to exits normally, taking it that
 * the child handled the signal as its input). */
static void
die_by_stop_signal (void)
{
  if (stop_signal == 0)
    return;
  fflush (stdout);
  fflush (stderr);
  signal (stop_signal, SIG_DFL);
  raise (stop_signal);
}

static void
on_converted (GObject      *source,
              GAsyncResult *result,
              gpointer      data)
{
  ConvertState *state = data;

  ts_converter_run_finish (TS_CONVERTER (source), result, &state->error);
  g_main_loop_quit (state->loop);
}

/* convert --json: what was written, as one JSON object on stdout */
static void
print_result_json (TsConversionPlan *plan,
                   GFile            *target,
                   double            seconds)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(GFile) first = ts_conversion_plan_get_output_file (plan, target, 0);
  g_autofree char *path = g_file_get_path (first);

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "output");
  json_builder_add_string_value (b, path);
  build_plan_files (b, plan, target);
  json_builder_set_member_name (b, "size");
  json_builder_add_int_value (b, (gint64) ts_conversion_plan_get_predicted_size (plan));
  json_builder_set_member_name (b, "outtype");
  json_builder_add_string_value (b, ts_outtype_to_nick (ts_conversion_plan_get_outtype (plan)));
  json_builder_set_member_name (b, "tensors");
  json_builder_add_int_value (b, g_list_model_get_n_items (ts_conversion_plan_get_tensors (plan)));
  json_builder_set_member_name (b, "milliseconds");
  json_builder_add_int_value (b, (gint64) (seconds * 1000 + 0.5));
  json_builder_end_object (b);
  node = json_builder_get_root (b);
  ts_cli_print_json_node (node);
}

static gboolean
run_conversion (TsConversionPlan  *plan,
                GFile             *target,
                gboolean           force,
                guint              jobs,
                double            *seconds,
                GError           **error)
{
  g_autoptr(TsConverter) converter = ts_converter_new (plan);
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  ConvertState state = { loop, converter, cancellable, NULL, isatty (STDERR_FILENO), g_get_monotonic_time () };
  guint tick = 0;

  ts_converter_set_jobs (converter, jobs);
  watch_stop_signals (cancellable);
  /* a closed pipe on stdout or stderr fails that write, not the run */
  signal (SIGPIPE, SIG_IGN);
  if (state.tty)
    tick = g_timeout_add (100, print_progress, &state);
  ts_converter_run_async (converter, target, force, cancellable, on_converted, &state);
  g_main_loop_run (loop);
  if (tick)
    {
      print_progress (&state);
      g_source_remove (tick);
      fprintf (stderr, "\n");
    }
  if (state.error)
    {
      g_propagate_error (error, state.error);
      return FALSE;
    }
  {
    g_autofree char *size = g_format_size (ts_conversion_plan_get_predicted_size (plan));
    g_autoptr(GFile) first = ts_conversion_plan_get_output_file (plan, target, 0);
    g_autofree char *path = g_file_get_path (first);
    guint n_files = ts_conversion_plan_get_n_files (plan);

    *seconds = (g_get_monotonic_time () - state.started) / 1e6;
    if (n_files > 1)
      g_printerr ("Wrote %s and %u more files (%s) in %.2f s\n", path, n_files - 1, size, *seconds);
    else
      g_printerr ("Wrote %s (%s) in %.2f s\n", path, size, *seconds);
  }
  return TRUE;
}

/* llama.cpp's --split-max-size: a number, optionally followed by K, M or
 * G, for thousands, millions, billions */
static gboolean
parse_split_size (const char *text,
                  guint64    *bytes)
{
  static const struct { char suffix; guint64 factor; } units[] = {
    { 'K', 1000 }, { 'M', 1000 * 1000 }, { 'G', 1000 * 1000 * 1000 },
  };
  g_autofree char *digits = g_strdup (text);
  gsize len = strlen (digits);
  guint64 factor = 1, n;

  for (guint i = 0; len > 0 && i < G_N_ELEMENTS (units); i++)
    if (digits[len - 1] == units[i].suffix)
      {
        factor = units[i].factor;
        digits[--len] = '\0';
        break;
      }
  if (len == 0 || strspn (digits, "0123456789") != len ||
      !g_ascii_string_to_unsigned (digits, 10, 0, G_MAXUINT64 / factor, &n, NULL))
    return FALSE;
  *bytes = n * factor;
  return TRUE;
}

int
ts_cli_convert (int    argc,
                char **argv)
{
  g_autofree char *output = NULL;
  g_autofree char *outtype_nick = NULL;
  g_autofree char *tokenizer_pre = NULL;
  g_autofree char *split_max_size = NULL;
  gboolean dry_run = FALSE, json = FALSE, force = FALSE, allow_unknown = FALSE, no_tensor_first = FALSE;
  int jobs = 0, split_max_tensors = 0;
  GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "Output GGUF file", "OUT.gguf" },
    { "outtype", 0, 0, G_OPTION_ARG_STRING, &outtype_nick, "bf16, f16, f32, q8_0 or auto (default)", "TYPE" },
    { "dry-run", 0, 0, G_OPTION_ARG_NONE, &dry_run, "Print the plan; write nothing", NULL },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json,
      "Print the plan (with --dry-run), or what was written, as JSON", NULL },
    { "force", 0, 0, G_OPTION_ARG_NONE, &force, "Replace an existing output file", NULL },
    { "tokenizer-pre", 0, 0, G_OPTION_ARG_STRING, &tokenizer_pre,
      "Override the pre-tokenizer name recognised from tokenizer.json (e.g. llama-bpe; "
      "'help' lists the names llama.cpp knows)", "NAME" },
    { "allow-unknown", 0, 0, G_OPTION_ARG_NONE, &allow_unknown, "Leave out tensors with no GGUF name", NULL },
    { "jobs", 'j', 0, G_OPTION_ARG_INT, &jobs, "Worker threads, 1 to 256 (default, or 0: three per processor, at most 24)", "N" },
    { "split-max-tensors", 0, 0, G_OPTION_ARG_INT, &split_max_tensors,
      "Split the output into files of at most N tensors each", "N" },
    { "split-max-size", 0, 0, G_OPTION_ARG_STRING, &split_max_size,
      "Split the output into files of at most SIZE bytes of tensor data each (K, M, G: "
      "powers of 1000)", "SIZE" },
    { "no-tensor-first-split", 0, 0, G_OPTION_ARG_NONE, &no_tensor_first,
      "Split with only the metadata in the first file", NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("MODEL_DIR — convert a Hugging Face checkpoint to GGUF");
  g_autoptr(GError) error = NULL;
  g_autoptr(TsConversionPlan) plan = NULL;
  g_autoptr(GFile) dir = NULL;
  TsPlanOptions options;
  int status;

  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_set_description (context,
    "The output is written into a hidden temporary file next to OUT.gguf and renamed\n"
    "into place once complete and synced. Exit status: 0 if the file was written,\n"
    "1 if the conversion failed (OUT.gguf is left as it was) or its output could\n"
    "not be printed, 2 on a usage error. Stopped by Ctrl+C, SIGTERM or SIGHUP, it\n"
    "removes the temporary file and ends by that signal.\n"
    "\n"
    "Split with --split-max-tensors or --split-max-size, the output is the set\n"
    "OUT-00001-of-0000N.gguf, … as llama.cpp's converter names it; every file is\n"
    "written and synced before any is moved into place.");
  /* --tokenizer-pre help needs no MODEL_DIR */
  if (!ts_cli_parse (context, &argc, &argv, 0, 1, &status))
    return status;
  if (g_strcmp0 (tokenizer_pre, "help") == 0)
    {
      for (const char * const *name = ts_hf_tokenizer_get_pre_names (); *name; name++)
        g_print ("%s\n", *name);
      return 0;
    }
  if (argc != 2)
    return ts_cli_usage_error (context, "wrong number of arguments");
  if (tokenizer_pre != NULL && !ts_hf_tokenizer_check_pre (tokenizer_pre, &error))
    {
      g_printerr ("tensorscope-cli: --tokenizer-pre: %s\n", error->message);
      return 2;
    }
  ts_plan_options_init (&options);
  if (outtype_nick && !ts_outtype_from_nick (outtype_nick, &options.outtype))
    {
      g_printerr ("tensorscope-cli: unknown output type '%s' (bf16, f16, f32, q8_0, auto)\n", outtype_nick);
      return 2;
    }
  if (output == NULL && !dry_run)
    {
      g_printerr ("tensorscope-cli: give the output file with -o OUT.gguf (or use --dry-run)\n");
      return 2;
    }
  if (!ts_cli_check_jobs (jobs))
    return 2;
  if (output != NULL && output[0] == '\0')
    {
      g_printerr ("tensorscope-cli: the output file name (-o) is empty\n");
      return 2;
    }
  options.tokenizer_pre = tokenizer_pre;
  options.allow_unknown_tensors = allow_unknown;
  if (split_max_tensors < 0)
    {
      g_printerr ("tensorscope-cli: --split-max-tensors: %d is not a number of tensors\n", split_max_tensors);
      return 2;
    }
  options.split_max_tensors = (guint) split_max_tensors;
  if (split_max_size != NULL && !parse_split_size (split_max_size, &options.split_max_size))
    {
      g_printerr ("tensorscope-cli: --split-max-size: '%s' is not a size: give a number of bytes, "
                  "or one followed by K, M or G (powers of 1000, as llama.cpp reads them), "
                  "e.g. 2G\n", split_max_size);
      return 2;
    }
  options.split_no_tensor_first = no_tensor_first;

  dir = g_file_new_for_commandline_arg (argv[1]);
  plan = ts_conversion_plan_new (dir, &options, NULL, &error);
  if (plan == NULL)
    return ts_cli_fail (error, json);
  for (const char * const *w = ts_conversion_plan_get_warnings (plan); *w; w++)
    g_printerr ("warning: %s\n", *w);

  if (dry_run)
    {
      g_autoptr(GFile) target = output ? g_file_new_for_commandline_arg (output) : NULL;

      /* what the conversion would refuse, the dry run reports too */
      if (target != NULL && !ts_conversion_plan_check_target (plan, target, force, &error))
        return ts_cli_fail (error, json);
      if (json)
        {
          PlanJson pj = { plan, target };

          if (!ts_cli_print_json_report (&pj, (TsCliJsonWriter) write_plan_json))
            return 1;
        }
      else
        print_plan (plan, target);
      return 0;
    }
  {
    g_autoptr(GFile) target = g_file_new_for_commandline_arg (output);
    double seconds = 0;

    if (!run_conversion (plan, target, force, (guint) jobs, &seconds, &error))
      {
        gboolean cancelled = g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);

        /* Ctrl+C, a closed terminal: said as what it is, with what it left */
        if (cancelled)
          {
            g_autoptr(GFile) first = ts_conversion_plan_get_output_file (plan, target, 0);
            g_autofree char *first_path = g_file_get_path (first);

            g_clear_error (&error);
            if (ts_conversion_plan_get_n_files (plan) > 1)
              g_set_error (&error, G_IO_ERROR, G_IO_ERROR_CANCELLED,
                           "cancelled: nothing was written to %s or the other files of the set",
                           first_path);
            else
              g_set_error (&error, G_IO_ERROR, G_IO_ERROR_CANCELLED,
                           "cancelled: nothing was written to %s", output);
          }
        status = ts_cli_fail (error, json);
        if (cancelled)
          die_by_stop_signal ();
        return status;
      }
    /* the file is written; an output that cannot be written (a full disk,
     * a closed pipe) fails the run all the same, said by the caller */
    if (json)
      print_result_json (plan, target, seconds);
  }
  return 0;
}
