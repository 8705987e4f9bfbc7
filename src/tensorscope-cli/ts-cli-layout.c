/* ts-cli-layout.c: tensorscope-cli layout PATH -o FILE.{svg,pdf,png}
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The same TsLayout renderer as the window's "Export Layout…", so a
 * documentation build gets the picture a user sees.
 */

#include "config.h"

#include "tensorscope.h"
#include "ts-cli-private.h"

#define EXIT_USAGE     2
#define DEFAULT_WIDTH  1200
#define MAX_SIZE       20000

int
ts_cli_layout (int    argc,
               char **argv)
{
  g_autofree char *output = NULL;
  g_autofree char *title = NULL;
  int width = DEFAULT_WIDTH;
  int height = 0;
  gboolean no_legend = FALSE;
  GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
      "Write the diagram to FILE; .svg, .pdf or .png picks the format", "FILE" },
    { "width", 0, 0, G_OPTION_ARG_INT, &width,
      "Width in pixels (PNG) or points (SVG, PDF); default 1200", "W" },
    { "height", 0, 0, G_OPTION_ARG_INT, &height,
      "Height; default: what the diagram needs at that width", "H" },
    { "title", 0, 0, G_OPTION_ARG_STRING, &title,
      "Title drawn above the diagram; default: the file's name", "TEXT" },
    { "no-legend", 0, 0, G_OPTION_ARG_NONE, &no_legend, "Leave the legend out", NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context =
    g_option_context_new ("PATH -o FILE — draw a model file's byte layout");
  g_autoptr(GFile) file = NULL;
  g_autoptr(GFile) out_file = NULL;
  g_autoptr(TsModelFile) model = NULL;
  g_autoptr(TsLayout) layout = NULL;
  g_autoptr(GError) error = NULL;
  TsLayoutExportFormat format;
  int status;

  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_set_description (context,
    "PATH is a .gguf or .safetensors file or a sharded checkpoint folder. The diagram\n"
    "shows one strip per file on a common byte scale, every region and tensor, with\n"
    "labels, byte offsets and a legend.");
  if (!ts_cli_parse (context, &argc, &argv, 1, 1, &status))
    return status;
  if (output == NULL)
    {
      g_printerr ("tensorscope-cli: layout needs -o FILE.svg, FILE.pdf or FILE.png\n");
      return EXIT_USAGE;
    }
  if (!ts_layout_export_format_from_name (output, &format))
    {
      g_printerr ("tensorscope-cli: %s: the name must end in .svg, .pdf or .png\n", output);
      return EXIT_USAGE;
    }
  if (width < 1 || width > MAX_SIZE || height < 0 || height > MAX_SIZE)
    {
      g_printerr ("tensorscope-cli: --width must be 1–%d and --height 0–%d\n", MAX_SIZE, MAX_SIZE);
      return EXIT_USAGE;
    }

  file = g_file_new_for_commandline_arg (argv[1]);
  if ((model = ts_model_file_load (file, NULL, &error)) == NULL)
    return ts_cli_fail (error, FALSE);

  layout = ts_layout_new (model);
  ts_layout_set_show_legend (layout, !no_legend);
  if (title != NULL)
    ts_layout_set_title (layout, title);

  out_file = g_file_new_for_commandline_arg (output);
  if (!ts_layout_export (layout, out_file, format, width, height, NULL, &error))
    return ts_cli_fail (error, FALSE);
  return 0;
}
