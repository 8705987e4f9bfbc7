/* ts-window.h
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "tensorscope.h"
#include "ts-application.h"

G_BEGIN_DECLS

#define TS_TYPE_WINDOW (ts_window_get_type ())

G_DECLARE_FINAL_TYPE (TsWindow, ts_window, TS, WINDOW, GtkApplicationWindow)

/* @app may be NULL (tests) */
TsWindow    *ts_window_new        (TsApplication *app);
/* Loads @file on a worker thread; replaces what the window showed. */
void         ts_window_open       (TsWindow      *self,
                                   GFile         *file);
/* no model shown and none loading */
gboolean     ts_window_is_empty   (TsWindow      *self);
TsModelFile *ts_window_get_model  (TsWindow      *self);

G_END_DECLS
