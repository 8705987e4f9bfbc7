/* tensorscope-cli.c: the command-line front end
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <errno.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "tensorscope.h"
#include "ts-cli-print-stream.h"
#include "ts-cli-private.h"

/* Exit statuses */
#define EXIT_VALID   0
#define EXIT_INVALID 1
#define EXIT_USAGE   2

/* Prints @message (if any) and the command's help; the exit status */
int
ts_cli_usage_error (GOptionContext *context,
                    const char     *message)
{
  g_autofree char *help = g_option_context_get_help (context, TRUE, NULL);

  if (message)
    g_printerr ("tensorscope-cli: %s\n\n", message);
  g_printerr ("%s", help);
  return EXIT_USAGE;
}

/* Parses options; returns FALSE (and sets *status) on a usage error. */
gboolean
ts_cli_parse (GOptionContext  *context,
              int             *argc,
              char          ***argv,
              int              min_args,
              int              max_args,
              int             *status)
{
  g_autoptr(GError) error = NULL;

  if (!g_option_context_parse (context, argc, argv, &error))
    {
      *status = ts_cli_usage_error (context, error->message);
      return FALSE;
    }
  /* GOption keeps the "--" that ends the options when an argument after
   * it starts with '-' ("inspect -- -model.gguf"): it is not an argument
   * (the strings are main()'s, not to be freed) */
  for (int i = 1; i < *argc; i++)
    if (g_str_equal ((*argv)[i], "--"))
      {
        memmove (*argv + i, *argv + i + 1, (*argc - i) * sizeof (char *));
        (*argc)--;
        break;
      }
  if (*argc - 1 < min_args || (max_args >= 0 && *argc - 1 > max_args))
    {
      *status = ts_cli_usage_error (context, "wrong number of arguments");
      return FALSE;
    }
  return TRUE;
}

int
ts_cli_fail (const GError *error,
             gboolean      json)
{
  if (json)
    {
      g_autoptr(JsonNode) node = ts_report_error (error);

      ts_cli_print_json_node (node);
    }
  g_printerr ("tensorscope-cli: %s\n", error->message);
  return EXIT_INVALID;
}

gboolean
ts_cli_check_jobs (int jobs)
{
  if (jobs >= 0 && jobs <= 256)
    return TRUE;
  g_printerr ("tensorscope-cli: --jobs must be between 1 and 256, or 0 for the default, "
              "not %d\n", jobs);
  return FALSE;
}

/* the first error writing to standard output: its errno */
static int stdout_errno;

static gboolean
put_text (FILE       *stream,
          const char *text)
{
  errno = 0;
  if (fputs (text, stream) != EOF && fflush (stream) == 0)
    return TRUE;
  if (stream == stdout && stdout_errno == 0)
    stdout_errno = errno != 0 ? errno : EIO;
  return FALSE;
}

/* Names and values come from the files, which may hold terminal control
 * sequences (ESC [ 2 J clears the screen, ESC ] 0 ; … BEL sets the window
 * title) that a terminal would obey: every print goes through
 * ts_escape_controls(), then does what g_print() and g_printerr() do: text
 * in UTF-8, or in the console's character set with '?' for what it cannot
 * show. */
static void
print_escaped (FILE       *stream,
               const char *text)
{
  g_autofree char *escaped = ts_escape_controls (text);
  g_autofree char *converted = NULL;
  const char *charset;

  if (!g_get_console_charset (&charset))
    converted = g_convert_with_fallback (escaped, -1, charset, "UTF-8", "?", NULL, NULL, NULL);
  put_text (stream, converted ? converted : escaped);
}

static void
print_stdout (const char *text)
{
  print_escaped (stdout, text);
}

/* JSON is UTF-8 whatever the locale (RFC 8259): a report printed in the
 * console's character set would lose every name it cannot show to '?'.
 * FALSE, with errno set, when it could not be written. */
gboolean
ts_cli_print_json (const char *text)
{
  g_autofree char *escaped = ts_escape_controls (text);

  return put_text (stdout, escaped);
}

gboolean
ts_cli_print_json_node (JsonNode *node)
{
  g_autofree char *text = ts_report_to_string (node, TRUE);

  return ts_cli_print_json (text) && ts_cli_print_json ("\n");
}

/* A full disk, a closed standard output: the run failed, even when all
 * else went well */
static int
check_stdout (int status)
{
  put_text (stdout, "");
  /* a run that failed has said why already */
  if (stdout_errno == 0 || status != EXIT_VALID)
    return status;
  g_printerr ("tensorscope-cli: could not write the output: %s\n", g_strerror (stdout_errno));
  return EXIT_INVALID;
}

static void
print_stderr (const char *text)
{
  print_escaped (stderr, text);
}

void
ts_cli_install_print_handlers (void)
{
  g_set_print_handler (print_stdout);
  g_set_printerr_handler (print_stderr);
}

static void
print_summary (TsModelFile *model)
{
  g_autofree char *total = g_format_size_full (ts_model_file_get_total_size (model), G_FORMAT_SIZE_LONG_FORMAT);
  g_autofree char *data = g_format_size_full (ts_model_file_get_tensor_data_size (model), G_FORMAT_SIZE_LONG_FORMAT);
  g_autofree char *before = g_format_size_full (ts_model_file_get_before_data_size (model), G_FORMAT_SIZE_LONG_FORMAT);
  GListModel *tensors = ts_model_file_get_tensors (model);
  guint64 per_type[TS_DTYPE_N_TYPES] = { 0 };
  guint64 per_type_bytes[TS_DTYPE_N_TYPES] = { 0 };

  g_print ("Format:            %s", ts_format_to_nick (ts_model_file_get_format (model)));
  if (TS_IS_GGUF_FILE (model))
    g_print (" (version %u, alignment %u)", ts_gguf_file_get_version (TS_GGUF_FILE (model)),
             ts_gguf_file_get_alignment (TS_GGUF_FILE (model)));
  g_print ("\n");
  if (TS_IS_GGUF_FILE (model))
    {
      guint64 file_type;

      if (ts_gguf_file_get_file_type (TS_GGUF_FILE (model), &file_type))
        g_print ("File type:         %s (general.file_type %" G_GUINT64_FORMAT ")\n",
                 ts_gguf_file_type_name (file_type) ? ts_gguf_file_type_name (file_type) : "unknown",
                 file_type);
    }
  g_print ("Parts:             %u\n", g_list_model_get_n_items (ts_model_file_get_parts (model)));
  g_print ("Total size:        %s\n", total);
  g_print ("Tensors:           %'u\n", ts_model_file_get_n_tensors (model));
  g_print ("Parameters:        %'" G_GUINT64_FORMAT "\n", ts_model_file_get_parameter_count (model));
  g_print ("Tensor data:       %s\n", data);
  g_print ("Before data:       %s\n", before);

  for (guint i = 0; i < g_list_model_get_n_items (tensors); i++)
    {
      g_autoptr(TsTensor) t = g_list_model_get_item (tensors, i);

      per_type[ts_tensor_get_dtype (t)] += ts_tensor_get_n_elements (t);
      per_type_bytes[ts_tensor_get_dtype (t)] += ts_tensor_get_size (t);
    }
  g_print ("Types:\n");
  for (guint i = 0; i < TS_DTYPE_N_TYPES; i++)
    if (per_type_bytes[i] > 0 || per_type[i] > 0)
      g_print ("  %-8s %'20" G_GUINT64_FORMAT " elements %'20" G_GUINT64_FORMAT " bytes\n",
               ts_dtype_get_name (i), per_type[i], per_type_bytes[i]);
}

static void
print_regions (TsModelFile *model)
{
  GListModel *parts = ts_model_file_get_parts (model);

  for (guint i = 0; i < g_list_model_get_n_items (parts); i++)
    {
      g_autoptr(TsFilePart) part = g_list_model_get_item (parts, i);
      GListModel *regions = ts_file_part_get_regions (part);

      g_print ("\n%s (%'" G_GUINT64_FORMAT " bytes)\n", ts_file_part_get_name (part),
               ts_file_part_get_size (part));
      for (guint j = 0; j < g_list_model_get_n_items (regions); j++)
        {
          g_autoptr(TsRegion) r = g_list_model_get_item (regions, j);

          g_print ("  %-14s %'16" G_GUINT64_FORMAT " – %'16" G_GUINT64_FORMAT "  %'16" G_GUINT64_FORMAT " bytes\n",
                   ts_region_kind_to_nick (ts_region_get_kind (r)),
                   ts_region_get_offset (r), ts_region_get_end (r),
                   ts_region_get_length (r));
        }
    }
}

/* rows padded to terminal columns (ts_string_append_cell()) */
static void
print_tensor_row (const char *name,
                  const char *type,
                  const char *shape,
                  const char *part,
                  const char *offset,
                  const char *bytes)
{
  g_autoptr(GString) row = g_string_new (NULL);

  ts_string_append_cells (row, 48, name, 8, type, 22, shape, -5, part, -16, offset, -14, bytes, 0);
  g_print ("%s\n", row->str);
}

static void
print_metadata_row (const char *key,
                    const char *type,
                    const char *value)
{
  g_autoptr(GString) row = g_string_new (NULL);

  ts_string_append_cells (row, 44, key, 8, type, 1, value, 0);
  g_print ("%s\n", row->str);
}

static void
print_tensors (TsModelFile *model)
{
  GListModel *tensors = ts_model_file_get_tensors (model);

  g_print ("\n");
  print_tensor_row ("Tensor", "Type", "Shape", "Part", "Offset", "Bytes");
  for (guint i = 0; i < g_list_model_get_n_items (tensors); i++)
    {
      g_autoptr(TsTensor) t = g_list_model_get_item (tensors, i);
      g_autofree char *shape = ts_tensor_format_shape (t);
      /* parts counted from 1, as shard file names are */
      g_autofree char *part = g_strdup_printf ("%u", ts_file_part_get_index (ts_tensor_get_part (t)) + 1);
      g_autofree char *offset = g_strdup_printf ("%'" G_GUINT64_FORMAT, ts_tensor_get_offset (t));
      g_autofree char *bytes = g_strdup_printf ("%'" G_GUINT64_FORMAT, ts_tensor_get_size (t));

      print_tensor_row (ts_tensor_get_name (t), ts_tensor_get_dtype_name (t), shape, part,
                        offset, bytes);
    }
}

static void
print_metadata (TsModelFile *model)
{
  GListModel *metadata = ts_model_file_get_metadata (model);

  if (g_list_model_get_n_items (metadata) == 0)
    return;
  g_print ("\n");
  print_metadata_row ("Key", "Type", "Value");
  for (guint i = 0; i < g_list_model_get_n_items (metadata); i++)
    {
      g_autoptr(TsMetadataEntry) e = g_list_model_get_item (metadata, i);
      g_autofree char *value = ts_metadata_entry_to_string (e);
      glong n_chars = g_utf8_strlen (value, -1);

      if (n_chars > 72)
        {
          g_autofree char *cut = g_utf8_substring (value, 0, 60);

          g_free (value);
          value = g_strdup_printf ("%s… (%'ld characters)", cut, n_chars);
        }
      g_strdelimit (value, "\n\r\t", ' ');
      print_metadata_row (ts_metadata_entry_get_key (e),
                          ts_value_type_to_nick (ts_metadata_entry_get_value_type (e)), value);
    }
}

static int
cmd_inspect (int    argc,
             char **argv)
{
  gboolean json = FALSE;
  GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Print the JSON report", NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("PATH — inspect a model file");
  g_autoptr(GError) error = NULL;
  g_autoptr(TsModelFile) model = NULL;
  g_autoptr(GFile) file = NULL;
  int status;

  g_option_context_add_main_entries (context, entries, NULL);
  if (!ts_cli_parse (context, &argc, &argv, 1, 1, &status))
    return status;

  file = g_file_new_for_commandline_arg (argv[1]);
  model = ts_model_file_load (file, NULL, &error);
  if (model == NULL)
    return ts_cli_fail (error, json);

  if (json)
    {
      /* written as it is made: the tree of a 1,000,000-tensor report
       * took 2 GB */
      if (!ts_cli_print_json_report (model, (TsCliJsonWriter) ts_report_write_inspect))
        return EXIT_INVALID;
    }
  else
    {
      const char * const *warnings = ts_model_file_get_warnings (model);

      print_summary (model);
      print_regions (model);
      print_metadata (model);
      print_tensors (model);
      for (guint i = 0; warnings[i]; i++)
        g_printerr ("warning: %s\n", warnings[i]);
    }
  return EXIT_VALID;
}

static int
cmd_sample (int    argc,
            char **argv)
{
  TsSampleOptions options;
  int seed, layers, shards, hidden, heads, kv_heads, intermediate, vocab;
  gboolean untied = FALSE, no_head_dim = FALSE, no_rope_scaling = FALSE, force = FALSE;
  g_autoptr(GOptionContext) context = g_option_context_new ("DIR — write a small Llama-3-shaped checkpoint");
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) dir = NULL;
  /* the number options, with the setting each fills */
  const struct { const char *option; int *value; TsSampleField field; } numbers[] = {
    { "--seed", &seed, TS_SAMPLE_FIELD_NONE },
    { "--layers", &layers, TS_SAMPLE_FIELD_N_LAYERS },
    { "--shards", &shards, TS_SAMPLE_FIELD_N_SHARDS },
    { "--hidden", &hidden, TS_SAMPLE_FIELD_HIDDEN_SIZE },
    { "--heads", &heads, TS_SAMPLE_FIELD_N_HEADS },
    { "--kv-heads", &kv_heads, TS_SAMPLE_FIELD_N_KV_HEADS },
    { "--intermediate", &intermediate, TS_SAMPLE_FIELD_INTERMEDIATE_SIZE },
    { "--vocab", &vocab, TS_SAMPLE_FIELD_VOCAB_SIZE },
  };
  TsSampleField field;
  int status;

  ts_sample_options_init (&options);
  seed = options.seed;
  layers = options.n_layers;
  shards = options.n_shards;
  hidden = options.hidden_size;
  heads = options.n_heads;
  kv_heads = options.n_kv_heads;
  intermediate = options.intermediate_size;
  vocab = options.vocab_size;
  {
    GOptionEntry entries[] = {
      { "seed", 0, 0, G_OPTION_ARG_INT, &seed, "Random seed", "N" },
      { "layers", 0, 0, G_OPTION_ARG_INT, &layers, "Decoder layers", "N" },
      { "shards", 0, 0, G_OPTION_ARG_INT, &shards, "Number of shards (1: single file)", "N" },
      { "hidden", 0, 0, G_OPTION_ARG_INT, &hidden, "Hidden size", "N" },
      { "heads", 0, 0, G_OPTION_ARG_INT, &heads, "Attention heads", "N" },
      { "kv-heads", 0, 0, G_OPTION_ARG_INT, &kv_heads, "Key/value heads", "N" },
      { "intermediate", 0, 0, G_OPTION_ARG_INT, &intermediate, "Feed-forward size", "N" },
      { "vocab", 0, 0, G_OPTION_ARG_INT, &vocab, "Vocabulary size (incl. 256 special tokens)", "N" },
      { "untied", 0, 0, G_OPTION_ARG_NONE, &untied, "Write a separate lm_head", NULL },
      { "no-head-dim", 0, 0, G_OPTION_ARG_NONE, &no_head_dim, "Leave head_dim out of config.json", NULL },
      { "no-rope-scaling", 0, 0, G_OPTION_ARG_NONE, &no_rope_scaling, "No llama3 rope scaling", NULL },
      { "force", 0, 0, G_OPTION_ARG_NONE, &force,
        "Write into a folder that is not empty: replace what a sample writes and remove "
        "model.safetensors, model-*-of-*.safetensors and the index left from before (nothing else)", NULL },
      { NULL }
    };

    g_option_context_add_main_entries (context, entries, NULL);
    g_option_context_set_description (context,
      "DIR must be new or empty, unless --force is given.");
    if (!ts_cli_parse (context, &argc, &argv, 1, 1, &status))
      return status;
  }
  /* a value that makes no model is a usage error (exit 2), as a malformed
   * one is, and the message names its option */
  for (guint i = 0; i < G_N_ELEMENTS (numbers); i++)
    if (*numbers[i].value < 0)
      {
        g_printerr ("tensorscope-cli: %s cannot be negative (%d)\n", numbers[i].option, *numbers[i].value);
        return EXIT_USAGE;
      }
  options.seed = (guint32) seed;
  options.n_layers = layers;
  options.n_shards = shards;
  options.hidden_size = hidden;
  options.n_heads = heads;
  options.n_kv_heads = kv_heads;
  options.intermediate_size = intermediate;
  options.vocab_size = vocab;
  options.tied_embeddings = !untied;
  options.head_dim_in_config = !no_head_dim;
  options.rope_scaling = !no_rope_scaling;
  options.replace = force;
  if (!ts_sample_options_validate (&options, &field, &error))
    {
      const char *option = "sample";

      for (guint i = 0; i < G_N_ELEMENTS (numbers); i++)
        if (numbers[i].field == field)
          option = numbers[i].option;
      g_printerr ("tensorscope-cli: %s: %s\n", option, error->message);
      return EXIT_USAGE;
    }

  dir = g_file_new_for_commandline_arg (argv[1]);
  if (!ts_sample_write (dir, &options, NULL, &error))
    {
      status = ts_cli_fail (error, FALSE);
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_EXISTS))
        g_printerr ("tensorscope-cli: --force writes there all the same: it replaces what a sample "
                    "writes and removes model.safetensors, model-*-of-*.safetensors and "
                    "model.safetensors.index.json left from before, nothing else\n");
      return status;
    }
  return EXIT_VALID;
}

typedef struct
{
  const char *name;
  int       (*run) (int argc, char **argv);
  const char *summary;
} Command;

static const Command commands[] = {
  { "inspect", cmd_inspect, "Show a model file's layout, tensors and metadata" },
  { "sample", cmd_sample, "Write a small Llama-3-shaped checkpoint" },
  { "convert", ts_cli_convert, "Convert a Hugging Face Llama checkpoint to GGUF" },
  { "audit", ts_cli_audit, "Prove a conversion kept every value" },
  { "layout", ts_cli_layout, "Draw a model file's byte layout to SVG, PDF or PNG" },
};

static int
print_usage (FILE *out)
{
  fprintf (out, "Usage: tensorscope-cli COMMAND [OPTIONS] ARGS\n\nCommands:\n");
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    fprintf (out, "  %-10s %s\n", commands[i].name, commands[i].summary);
  fprintf (out, "\nRun 'tensorscope-cli COMMAND --help' for a command's options.\n");
  return out == stdout ? EXIT_VALID : EXIT_USAGE;
}

int
main (int    argc,
      char **argv)
{
  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);
  /* a file size limit (ulimit -f) fails the write that passes it with
   * EFBIG, which is reported and cleaned up after, instead of killing the
   * process and leaving the hidden temporary file behind */
  signal (SIGXFSZ, SIG_IGN);
  ts_cli_install_print_handlers ();

  if (argc < 2)
    return print_usage (stderr);
  if (g_str_equal (argv[1], "--help") || g_str_equal (argv[1], "-h"))
    return print_usage (stdout);
  if (g_str_equal (argv[1], "--version"))
    {
      g_print ("tensorscope-cli %s\n", PACKAGE_VERSION);
      return check_stdout (EXIT_VALID);
    }
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    if (g_str_equal (argv[1], commands[i].name))
      {
        g_autofree char *prgname = g_strdup_printf ("tensorscope-cli %s", argv[1]);

        g_set_prgname (prgname);
        return check_stdout (commands[i].run (argc - 1, argv + 1));
      }
  g_printerr ("tensorscope-cli: unknown command '%s'\n\n", argv[1]);
  return print_usage (stderr);
}
