/* ts-application.h
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define TS_TYPE_APPLICATION (ts_application_get_type ())

G_DECLARE_FINAL_TYPE (TsApplication, ts_application, TS, APPLICATION, GtkApplication)

TsApplication *ts_application_new          (void);
GSettings     *ts_application_get_settings (TsApplication *self);
/* Opens @file in an empty window if there is one, else in a new window. */
/* Open Recent: the model files this app opened, newest first */
GMenuModel    *ts_application_get_recent_menu (TsApplication *self);
void           ts_application_open_file    (TsApplication *self,
                                            GFile         *file);
/* Registers the GResource of the app; idempotent. Every widget class of
 * the app calls it, so tests can build widgets without a TsApplication. */
void           ts_ensure_resources         (void);

G_END_DECLS
