/* main.c
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <locale.h>
#include <signal.h>

#include "ts-application.h"

int
main (int   argc,
      char *argv[])
{
  g_autoptr(TsApplication) app = NULL;

  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);
  /* a file size limit (ulimit -f) fails the write that passes it with
   * EFBIG, which is reported and cleaned up after, instead of killing the
   * process and leaving the hidden temporary file behind */
  signal (SIGXFSZ, SIG_IGN);

  app = ts_application_new ();

  return g_application_run (G_APPLICATION (app), argc, argv);
}
