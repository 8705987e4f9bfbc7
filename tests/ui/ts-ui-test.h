/* ts-ui-test.h: what the UI tests share: waiting on the main loop,
 * screenshots
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "ts-window.h"

G_BEGIN_DECLS

/* gtk_test_init() in folders of the test's own: HOME's XDG folders are
 * replaced by fresh ones under /tmp (removed at exit), so that recent
 * files, default applications and the like never touch the user's.
 * (gtk_test_init() drops its options: G_TEST_OPTION_ISOLATE_DIRS given
 * to it isolates nothing.) */
void ts_test_ui_init         (int         *argc,
                              char      ***argv);

/* Iterates the default main context for @ms milliseconds. */
typedef gboolean (*TsTestCondition) (gpointer data);

/* Runs the main loop for @ms milliseconds. */
void ts_test_run_for         (guint       ms);
/* Runs the main loop until @condition holds; fails the test, naming
 * @what, after @seconds. */
void ts_test_wait_until      (TsTestCondition  condition,
                              gpointer         data,
                              guint            seconds,
                              const char      *what);
/* Renders @widget as it is on screen into <TS_SCREENSHOT_DIR>/@name, after
 * letting the main loop run @settle_ms (for transitions), and once it is
 * mapped, allocated and has drawn (a loaded machine or a sanitizer build
 * can take seconds to get there). */
/* the widget drawn as it is now (@name for the error if it never is) */
GdkTexture *ts_test_render_widget (GtkWidget  *widget,
                                   const char *name);
void ts_test_save_screenshot (GtkWidget  *widget,
                              const char *name,
                              guint       settle_ms);
/* @texture as <TS_SCREENSHOT_DIR>/@name */
void ts_test_save_texture    (GdkTexture *texture,
                              const char *name);

/* @widget or its first descendant (depth first) of @type, or NULL */
GtkWidget *ts_test_find_descendant (GtkWidget  *widget,
                                    GType       type);
/* the first button (or check button) under @widget whose label is @label,
 * or NULL */
GtkWidget *ts_test_find_button     (GtkWidget  *widget,
                                    const char *label);
/* Runs the main loop until @window shows @page ("empty", "model", …);
 * fails the test after 30 s */
void ts_test_wait_for_page (TsWindow   *window,
                            const char *page);
/* the first menu button under @widget whose tooltip is @tooltip (an
 * icon's), or NULL */
GtkWidget *ts_test_find_menu_button (GtkWidget  *widget,
                                     const char *tooltip);
/* the first visible label under @widget whose text holds @text, or NULL */
GtkWidget *ts_test_find_label      (GtkWidget  *widget,
                                    const char *text);
/* Presses Tab @n times from where @window's focus is (as the window's
 * Tab binding does), then Shift+Tab @n times, failing when a press
 * leaves the focus where it was: a keyboard trap */
void ts_test_assert_tab_moves      (GtkWindow  *window,
                                    guint       n);

/* A key pressed as @view's own key controllers get it; TRUE if one
 * handled it */
gboolean ts_test_send_key          (GtkWidget       *view,
                                    guint            keyval,
                                    GdkModifierType  state);
/* One Tab (and one Shift+Tab) from inside the list @view (a column or
 * list view, with rows) takes the focus out of it, however many rows it
 * has; the arrow keys stay the list's own */
void ts_test_assert_tab_leaves     (GtkWidget  *view);

/* Every control under @widget, shown or not, has an accessible name of
 * its own (a label, or a label it is labelled by): buttons and menu
 * buttons (icon-only ones too), check buttons, text fields, spin buttons,
 * drop-downs, progress bars, drawing areas, text views, lists and
 * tables, and the app's own focusable widgets. Fails naming the first
 * that has none (GTK 4.8 gives those their type's name, "GtkImage"). */
void ts_test_assert_named          (GtkWidget  *widget);

/* Each mnemonic (Alt+letter) of the labels and buttons on screen under
 * @widget (its window: the header bar too) is there once: GTK moves the
 * focus between the widgets of a letter used twice and activates none */
void ts_test_assert_mnemonics_unique (GtkWidget *widget);
/* Opens the menu of each menu button shown under @widget, in turn: its
 * mnemonics each name one item */
void ts_test_assert_menu_mnemonics_unique (GtkWidget *widget);
/* Activates the shortcut of @widget's own (a class binding, say) whose
 * trigger is @trigger ("<Alt>Left"), as the key would; fails the test
 * where @widget has none. Returns what the action returned: FALSE for a
 * disabled action. */
gboolean ts_test_activate_shortcut (GtkWidget  *widget,
                                    const char *trigger);

/* The contrast ratio (WCAG: 1 to 21) of what is drawn in @rect of
 * @texture: the most common pixel there is the ground, the pixel farthest
 * from it in luminance the text */
double ts_test_rect_contrast        (GdkTexture            *texture,
                                     const graphene_rect_t *rect);
/* The contrast ratio of the pixel at @x, @y of @a to the same pixel of
 * @b (@b: the picture drawn again with a mark added, say) */
double ts_test_pixel_contrast       (GdkTexture            *a,
                                     GdkTexture            *b,
                                     int                    x,
                                     int                    y);
/* The same for @label's text (on screen) as drawn in its window */
double ts_test_text_contrast        (GtkWidget             *label);

/* the visible toplevel of @type (a class or an interface), if any */
GtkWindow *ts_test_find_toplevel   (GType       type);

G_END_DECLS
