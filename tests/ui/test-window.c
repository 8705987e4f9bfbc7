/* test-window.c: the application window, under a virtual display
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "ts-test-bytes.h"
#include "ts-test-dir.h"
#include "ts-ui-test.h"

#include <fcntl.h>
#include <glib/gstdio.h>
#include <gtk/gtk.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "ts-application.h"
#include "ts-audit-window.h"
#include "ts-export-dialog.h"
#include "ts-format.h"
#include "ts-window-private.h"

#define N_LAYERS   4
#define N_TOKENS   1200
#define N_MERGES   700
#define HIDDEN     64
#define FFN        176

static TsApplication *app;
static char *fixture_dir;
static char *gguf_path;
static guint gguf_n_tensors;
static guint gguf_n_attn;
static guint64 gguf_biggest;
static guint64 gguf_smallest;

/* ------------------------------------------------------------------------ */
/* A small Llama-shaped GGUF, written byte by byte                           */

static void
put_kv_str (GByteArray *out,
            const char *key,
            const char *value)
{
  ts_test_put_str (out, key);
  ts_test_put_u32 (out, 8);
  ts_test_put_str (out, value);
}

static void
put_kv_u32 (GByteArray *out,
            const char *key,
            guint32     value)
{
  ts_test_put_str (out, key);
  ts_test_put_u32 (out, 4);
  ts_test_put_u32 (out, value);
}

typedef struct
{
  char    *name;
  guint    n_dims;
  guint64  dims[2];
  guint32  type;
  guint64  size;
} Tensor;

static void
add_tensor (GPtrArray  *tensors,
            const char *name,
            guint64     d0,
            guint64     d1,
            guint32     type)
{
  Tensor *t = g_new0 (Tensor, 1);

  t->name = g_strdup (name);
  t->n_dims = d1 > 0 ? 2 : 1;
  t->dims[0] = d0;
  t->dims[1] = d1;
  t->type = type;
  t->size = d0 * MAX (d1, 1) * (type == 0 ? 4 : 2);
  g_ptr_array_add (tensors, t);
}

static void
tensor_free (gpointer data)
{
  Tensor *t = data;

  g_free (t->name);
  g_free (t);
}

static char *
write_llama_gguf (const char *dir)
{
  static const char *chat_template =
    "{{- bos_token }}\n{%- if custom_tools is defined %}\n    {%- set tools = custom_tools %}\n"
    "{%- endif %}\n{%- for message in messages %}\n    {{- '<|start_header_id|>' + message['role'] + "
    "'<|end_header_id|>\\n\\n' + message['content'] | trim + '<|eot_id|>' }}\n{%- endfor %}\n"
    "{%- if add_generation_prompt %}\n    {{- '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}\n"
    "{%- endif %}\n";
  g_autoptr(GByteArray) out = g_byte_array_new ();
  g_autoptr(GPtrArray) tensors = g_ptr_array_new_with_free_func (tensor_free);
  g_autoptr(GError) error = NULL;
  char *path = g_build_filename (dir, "tiny-llama.gguf", NULL);
  guint64 offset = 0;

  add_tensor (tensors, "rope_freqs.weight", 16, 0, 0);
  add_tensor (tensors, "token_embd.weight", HIDDEN, N_TOKENS, 1);
  for (guint l = 0; l < N_LAYERS; l++)
    {
      static const struct { const char *n; guint64 d0, d1; guint32 type; } layer[] = {
        { "attn_norm", HIDDEN, 0, 0 }, { "attn_q", HIDDEN, HIDDEN, 1 }, { "attn_k", HIDDEN, 16, 1 },
        { "attn_v", HIDDEN, 16, 1 }, { "attn_output", HIDDEN, HIDDEN, 1 }, { "ffn_norm", HIDDEN, 0, 0 },
        { "ffn_gate", HIDDEN, FFN, 1 }, { "ffn_up", HIDDEN, FFN, 1 }, { "ffn_down", FFN, HIDDEN, 1 },
      };
      for (guint i = 0; i < G_N_ELEMENTS (layer); i++)
        {
          g_autofree char *name = g_strdup_printf ("blk.%u.%s.weight", l, layer[i].n);
          add_tensor (tensors, name, layer[i].d0, layer[i].d1, layer[i].type);
        }
    }
  add_tensor (tensors, "output_norm.weight", HIDDEN, 0, 0);

  g_byte_array_append (out, (const guint8 *) "GGUF", 4);
  ts_test_put_u32 (out, 3);
  ts_test_put_u64 (out, tensors->len);
  ts_test_put_u64 (out, 8);
  put_kv_str (out, "general.architecture", "llama");
  put_kv_str (out, "general.name", "Tiny Llama");
  put_kv_u32 (out, "general.file_type", 1);
  put_kv_u32 (out, "llama.block_count", N_LAYERS);
  put_kv_str (out, "tokenizer.ggml.model", "gpt2");
  ts_test_put_str (out, "tokenizer.ggml.tokens");
  ts_test_put_u32 (out, 9);
  ts_test_put_u32 (out, 8);
  ts_test_put_u64 (out, N_TOKENS);
  for (guint i = 0; i < N_TOKENS; i++)
    {
      g_autofree char *token = i == 1100 ? g_strdup ("<|needle|>") : g_strdup_printf ("Ġtok%u", i);
      ts_test_put_str (out, token);
    }
  ts_test_put_str (out, "tokenizer.ggml.merges");
  ts_test_put_u32 (out, 9);
  ts_test_put_u32 (out, 8);
  ts_test_put_u64 (out, N_MERGES);
  for (guint i = 0; i < N_MERGES; i++)
    {
      g_autofree char *merge = g_strdup_printf ("Ġ t%u", i);
      ts_test_put_str (out, merge);
    }
  put_kv_str (out, "tokenizer.chat_template", chat_template);

  gguf_n_tensors = tensors->len;
  gguf_n_attn = 0;
  gguf_biggest = 0;
  gguf_smallest = G_MAXUINT64;
  for (guint i = 0; i < tensors->len; i++)
    {
      Tensor *t = g_ptr_array_index (tensors, i);

      ts_test_put_str (out, t->name);
      ts_test_put_u32 (out, t->n_dims);
      for (guint d = 0; d < t->n_dims; d++)
        ts_test_put_u64 (out, t->dims[d]);
      ts_test_put_u32 (out, t->type);
      ts_test_put_u64 (out, offset);
      offset += (t->size + 31) / 32 * 32;
      gguf_n_attn += strstr (t->name, "attn") != NULL;
      gguf_biggest = MAX (gguf_biggest, t->size);
      gguf_smallest = MIN (gguf_smallest, t->size);
    }
  while (out->len % 32 != 0)
    g_byte_array_append (out, (const guint8 *) "", 1);
  for (guint64 i = 0; i < offset; i++)
    {
      guint8 b = (guint8) (i * 13);
      g_byte_array_append (out, &b, 1);
    }

  g_file_set_contents (path, (const char *) out->data, out->len, &error);
  g_assert_no_error (error);
  return path;
}

static char *
write_file (const char *name,
            const char *contents,
            gssize      len)
{
  char *path = g_build_filename (fixture_dir, name, NULL);
  g_autoptr(GError) error = NULL;

  g_file_set_contents (path, contents, len, &error);
  g_assert_no_error (error);
  return path;
}

/* ------------------------------------------------------------------------ */
/* Helpers                                                                   */

/* Renders @widget as it is on screen into <screenshot dir>/@name. */
static void
save_screenshot (GtkWidget  *widget,
                 const char *name)
{
  ts_test_save_screenshot (widget, name, 400);
}

static TsWindow *
open_in_new_window (const char *path)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  TsWindow *window = ts_window_new (app);

  gtk_window_present (GTK_WINDOW (window));
  ts_window_open (window, file);
  ts_test_wait_for_page (window, "model");
  return window;
}

static TsTensor *
row_tensor (TsTensorTable *table,
            guint          row)
{
  GListModel *rows = G_LIST_MODEL (ts_tensor_table_get_selection (table));

  return g_list_model_get_item (rows, row);
}

static void
wait_for_rows (TsTensorTable *table)
{
  /* sorting and filtering are synchronous below 20,000 rows; give any
   * incremental work a chance anyway */
  for (guint i = 0; i < 10; i++)
    g_main_context_iteration (NULL, FALSE);
}

static GtkAdjustment *
table_vadjustment (TsTensorTable *table)
{
  /* the rows' (the sort menu's popover scrolls too) */
  GtkWidget *view = ts_test_find_descendant (GTK_WIDGET (table), GTK_TYPE_COLUMN_VIEW);
  GtkWidget *scrolled = gtk_widget_get_ancestor (view, GTK_TYPE_SCROLLED_WINDOW);

  g_assert_nonnull (scrolled);
  return gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (scrolled));
}

/* ------------------------------------------------------------------------ */
/* Tests                                                                     */

static void
test_empty (void)
{
  TsWindow *window = ts_window_new (app);

  gtk_window_present (GTK_WINDOW (window));
  g_assert_cmpstr (ts_window_get_page (window), ==, "empty");
  g_assert_true (ts_window_is_empty (window));
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (window)), ==, "Tensorscope");
  save_screenshot (GTK_WIDGET (window), "empty.png");

  /* the app icon (About, the window list) even where no icon theme has it:
   * the tests' XDG folders have none, the resources do */
  g_assert_true (gtk_icon_theme_has_icon (gtk_icon_theme_get_for_display (gdk_display_get_default ()),
                                          APP_ID));
  /* and it draws: the icons are SVG only, which needs gdk-pixbuf's SVG
   * loader (librsvg2-common, only a Recommends of GTK in Debian) */
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(GdkPixbuf) icon = NULL;

    icon = gdk_pixbuf_new_from_resource_at_scale (RESOURCE_PREFIX "/icons/scalable/apps/" APP_ID ".svg",
                                                  64, 64, TRUE, &error);
    g_assert_no_error (error);
    g_assert_cmpint (gdk_pixbuf_get_width (icon), ==, 64);
    icon = gdk_pixbuf_new_from_resource_at_scale (RESOURCE_PREFIX "/icons/symbolic/apps/" APP_ID "-symbolic.svg",
                                                  16, 16, TRUE, &error);
    g_assert_no_error (error);
    g_assert_cmpint (gdk_pixbuf_get_height (icon), ==, 16);
  }

  /* the Open menu starts with the application's Open Recent submenu */
  {
    GMenuModel *section = ts_window_get_recent_section (window);
    g_autoptr(GMenuModel) submenu = NULL;
    g_autofree char *label = NULL;

    g_assert_cmpint (g_menu_model_get_n_items (section), ==, 2);
    g_assert_true (g_menu_model_get_item_attribute (section, 0, G_MENU_ATTRIBUTE_LABEL, "s", &label));
    g_assert_cmpstr (label, ==, "Open _Recent");
    submenu = g_menu_model_get_item_link (section, 0, G_MENU_LINK_SUBMENU);
    g_assert_true (submenu == ts_application_get_recent_menu (app));
  }

  gtk_window_destroy (GTK_WINDOW (window));
}

static gboolean
recent_menu_has (gpointer data)
{
  return g_menu_model_get_n_items (ts_application_get_recent_menu (app)) == (int) GPOINTER_TO_UINT (data);
}

/* Open Recent lists files that are still there, and tells apart two of
 * the same name by their folders */
static void
test_recent_menu (void)
{
  GtkRecentManager *manager = gtk_recent_manager_get_default ();
  GMenuModel *menu = ts_application_get_recent_menu (app);
  const char *dirs[] = { "recent-a", "recent-b", "recent-gone" };
  g_autofree char *contents = NULL;
  gsize len;

  g_assert_true (g_file_get_contents (gguf_path, &contents, &len, NULL));
  gtk_recent_manager_purge_items (manager, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (dirs); i++)
    {
      g_autofree char *dir = g_build_filename (fixture_dir, dirs[i], NULL);
      g_autofree char *path = g_build_filename (dir, "same-name.gguf", NULL);
      g_autofree char *uri = g_filename_to_uri (path, NULL, NULL);

      g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
      g_assert_true (g_file_set_contents (path, contents, (gssize) len, NULL));
      g_assert_true (gtk_recent_manager_add_item (manager, uri));
    }
  ts_test_wait_until (recent_menu_has, GUINT_TO_POINTER (3), 10, "three recent files");
  {
    g_autofree char *gone = g_build_filename (fixture_dir, "recent-gone", "same-name.gguf", NULL);

    g_assert_cmpint (g_unlink (gone), ==, 0);
  }
  /* the menu is rebuilt when the list changes: touch it */
  {
    g_autofree char *path = g_build_filename (fixture_dir, "recent-a", "same-name.gguf", NULL);
    g_autofree char *uri = g_filename_to_uri (path, NULL, NULL);

    g_assert_true (gtk_recent_manager_add_item (manager, uri));
  }
  ts_test_wait_until (recent_menu_has, GUINT_TO_POINTER (2), 10, "the gone file left out");
  for (int i = 0; i < g_menu_model_get_n_items (menu); i++)
    {
      g_autofree char *label = NULL;

      g_assert_true (g_menu_model_get_item_attribute (menu, i, G_MENU_ATTRIBUTE_LABEL, "s", &label));
      g_assert_true (g_str_has_prefix (label, "same-name.gguf — "));
      g_assert_null (strstr (label, "recent-gone"));
    }
  gtk_recent_manager_purge_items (manager, NULL);
}

/* Every shown label under @widget, one at a time, with its text made half
 * as long again: @window's minimum width stays at most @max_width. Labels
 * of list rows (their columns ellipsize) are left out. */
static void
assert_labels_can_shrink (GtkWidget *window,
                          GtkWidget *widget,
                          int        max_width)
{
  if (GTK_IS_LIST_VIEW (widget) || GTK_IS_COLUMN_VIEW (widget))
    return;
  if (GTK_IS_LABEL (widget) && gtk_widget_get_mapped (widget) &&
      !gtk_label_get_use_markup (GTK_LABEL (widget)))
    {
      g_autofree char *text = g_strdup (gtk_label_get_text (GTK_LABEL (widget)));
      gsize half = strlen (text) / 2;
      g_autofree char *longer = NULL;
      int min_width = 0;

      /* a whole number of characters, a space between */
      while (half > 0 && (text[half] & 0xc0) == 0x80)
        half--;
      longer = g_strdup_printf ("%s %.*s", text, (int) half, text);
      gtk_label_set_text (GTK_LABEL (widget), longer);
      gtk_widget_measure (window, GTK_ORIENTATION_HORIZONTAL, -1, &min_width, NULL, NULL, NULL);
      gtk_label_set_text (GTK_LABEL (widget), text);
      if (min_width > max_width)
        g_error ("the label \"%s\", half as long again, makes the window %d px wide", text, min_width);
    }
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    assert_labels_can_shrink (window, child, max_width);
}

static void
test_open_gguf (void)
{
  g_autoptr(GFile) file = g_file_new_for_path (gguf_path);
  TsWindow *window;
  TsTensorTable *table;
  TsSummaryView *summary;
  g_autofree char *count = g_strdup_printf ("%u", gguf_n_tensors);

  /* through the application, as the file manager does */
  ts_application_open_file (app, file);
  window = TS_WINDOW (gtk_application_get_active_window (GTK_APPLICATION (app)));
  g_assert_nonnull (window);
  ts_test_wait_for_page (window, "model");

  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (window)), ==, "tiny-llama.gguf");
  table = ts_window_get_tensor_table (window);
  g_assert_cmpuint (ts_tensor_table_get_n_rows (table), ==, gguf_n_tensors);

  summary = ts_window_get_summary_view (window);
  g_assert_cmpstr (ts_summary_view_lookup (summary, "Tensors"), ==, count);
  g_assert_cmpstr (ts_summary_view_lookup (summary, "Format"), ==, "GGUF version 3");
  /* llama.h: LLAMA_FTYPE_MOSTLY_F16 = 1 */
  g_assert_cmpstr (ts_summary_view_lookup (summary, "File type"), ==, "F16 (general.file_type 1)");

  /* a second file opens a second window: this one is not empty any more */
  g_assert_false (ts_window_is_empty (window));

  /* the status bar: per type, how many tensors and their total size (not
   * "F16: 29 × 505.9 kB", which read as 29 tensors of 505.9 kB each) */
  {
    GtkWidget *status = ts_test_find_label (GTK_WIDGET (table), "of tensor data");

    g_assert_nonnull (status);
    /* g_format_size() puts a no-break space before the unit */
    g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (status)), ==,
                     "253,520 parameters · 508.2\u00a0kB of tensor data"
                     "   ·   F32: 10 tensors, 2.4\u00a0kB   ·   F16: 29 tensors, 505.9\u00a0kB");
  }

  /* narrow enough to sit beside another window on a 1366-pixel screen,
   * on every view */
  {
    const char *views[] = { "metadata", "summary", "tensors" };

    for (guint i = 0; i < G_N_ELEMENTS (views); i++)
      {
        int min_width = 0;

        ts_window_show_view (window, views[i]);
        gtk_widget_measure (GTK_WIDGET (window), GTK_ORIENTATION_HORIZONTAL, -1,
                            &min_width, NULL, NULL, NULL);
        g_test_message ("minimum width with the %s: %d", views[i], min_width);
        g_assert_cmpint (min_width, <=, 683);
      }
    /* and with translations half as long again as the English (French
     * runs about a third longer): no label may hold the window wider */
    ts_window_show_view (window, "tensors");
    assert_labels_can_shrink (GTK_WIDGET (window), GTK_WIDGET (window), 683);
  }
  save_screenshot (GTK_WIDGET (window), "model-gguf.png");
  save_screenshot (GTK_WIDGET (ts_window_get_layout_view (window)), "layout-view.png");

  ts_window_show_view (window, "summary");
  save_screenshot (GTK_WIDGET (window), "summary.png");

  /* the same file again (Open Output after a conversion onto it, a second
   * double-click): the window that shows it, read again, no second one */
  {
    guint n_windows = g_list_length (gtk_application_get_windows (GTK_APPLICATION (app)));
    TsModelFile *before = ts_window_get_model (window);

    ts_application_open_file (app, file);
    g_assert_cmpuint (g_list_length (gtk_application_get_windows (GTK_APPLICATION (app))), ==, n_windows);
    ts_test_wait_for_page (window, "model");
    g_assert_true (ts_window_get_model (window) != before);
  }

  gtk_window_destroy (GTK_WINDOW (window));
}

/* the start of a GGUF v3: magic, version and the two counts */
static GByteArray *
gguf_begin (guint64 n_tensors,
            guint64 n_kv)
{
  GByteArray *out = g_byte_array_new ();

  g_byte_array_append (out, (const guint8 *) "GGUF", 4);
  ts_test_put_u32 (out, 3);
  ts_test_put_u64 (out, n_tensors);
  ts_test_put_u64 (out, n_kv);
  return out;
}

/* @out padded to 32 bytes, as the fixture @name; its path */
static char *
gguf_save (GByteArray *out,
           const char *name)
{
  g_autoptr(GError) error = NULL;
  char *path = g_build_filename (fixture_dir, name, NULL);

  while (out->len % 32 != 0)
    g_byte_array_append (out, (const guint8 *) "", 1);
  g_file_set_contents (path, (const char *) out->data, out->len, &error);
  g_assert_no_error (error);
  return path;
}

/* every numeric cell under @widget asks for at least its text's width */
static guint
check_number_cells (GtkWidget *widget)
{
  guint n = 0;

  if (GTK_IS_INSCRIPTION (widget) && gtk_widget_has_css_class (widget, "numeric"))
    {
      const char *text = gtk_inscription_get_text (GTK_INSCRIPTION (widget));

      if (text != NULL && text[0] != '\0')
        {
          g_assert_cmpuint (gtk_inscription_get_min_chars (GTK_INSCRIPTION (widget)), >=,
                            g_utf8_strlen (text, -1));
          n++;
        }
    }
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    n += check_number_cells (child);
  return n;
}

/* Offsets past a gigabyte (13 characters) are shown whole, at the window's
 * narrowest too: they had been cut at the front to "…,079,728", a wrong
 * looking number; the table scrolls sideways instead. */
static void
test_wide_numbers (void)
{
  g_autoptr(GByteArray) out = gguf_begin (2, 1);
  g_autofree char *path = NULL;
  TsWindow *window;
  TsTensorTable *table;
  guint64 big = (guint64) 1 << 28;   /* F32 elements: 1 GiB, sparse */
  guint n_cells;
  int fd;

  put_kv_str (out, "general.architecture", "llama");
  ts_test_put_str (out, "blk.0.ffn_up.weight");
  ts_test_put_u32 (out, 1);
  ts_test_put_u64 (out, big);
  ts_test_put_u32 (out, 0);
  ts_test_put_u64 (out, 0);
  ts_test_put_str (out, "output_norm.weight");
  ts_test_put_u32 (out, 1);
  ts_test_put_u64 (out, 8);
  ts_test_put_u32 (out, 0);
  ts_test_put_u64 (out, big * 4);
  path = gguf_save (out, "wide-numbers.gguf");
  fd = g_open (path, O_WRONLY, 0);
  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (ftruncate (fd, (off_t) (out->len + big * 4 + 32)), ==, 0);
  g_close (fd, NULL);

  window = open_in_new_window (path);
  gtk_window_set_default_size (GTK_WINDOW (window), 683, 800);
  ts_window_show_view (window, "tensors");
  table = ts_window_get_tensor_table (window);
  g_assert_cmpuint (ts_tensor_table_get_n_rows (table), ==, 2);
  ts_test_run_for (300);
  n_cells = check_number_cells (GTK_WIDGET (table));
  /* elements, bytes and offset of both rows (and of rows kept for reuse) */
  g_assert_cmpuint (n_cells, >=, 6);
  save_screenshot (GTK_WIDGET (window), "wide-numbers.png");
  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_sort_filter (void)
{
  TsWindow *window = open_in_new_window (gguf_path);
  TsTensorTable *table = ts_window_get_tensor_table (window);
  g_autoptr(TsTensor) first = NULL;
  g_autoptr(TsTensor) last = NULL;
  g_autoptr(TsTensor) by_name = NULL;
  guint n = ts_tensor_table_get_n_rows (table);

  /* file order first: rope_freqs */
  first = row_tensor (table, 0);
  g_assert_cmpstr (ts_tensor_get_name (first), ==, "rope_freqs.weight");
  g_clear_object (&first);

  ts_tensor_table_sort_by (table, "bytes", GTK_SORT_DESCENDING);
  wait_for_rows (table);
  first = row_tensor (table, 0);
  last = row_tensor (table, n - 1);
  g_assert_cmpuint (ts_tensor_get_size (first), ==, gguf_biggest);
  g_assert_cmpuint (ts_tensor_get_size (last), ==, gguf_smallest);
  g_clear_object (&first);
  g_clear_object (&last);

  ts_tensor_table_sort_by (table, "bytes", GTK_SORT_ASCENDING);
  wait_for_rows (table);
  first = row_tensor (table, 0);
  g_assert_cmpuint (ts_tensor_get_size (first), ==, gguf_smallest);
  g_clear_object (&first);

  ts_tensor_table_sort_by (table, "name", GTK_SORT_ASCENDING);
  wait_for_rows (table);
  by_name = row_tensor (table, 0);
  g_assert_cmpstr (ts_tensor_get_name (by_name), ==, "blk.0.attn_k.weight");
  /* numbers in names sort as numbers: layer 2 before layer 10 */
  g_assert_cmpint (ts_natural_compare ("blk.2.attn_k.weight", "blk.10.attn_k.weight"), <, 0);
  g_assert_cmpint (ts_natural_compare ("blk.10.x", "blk.9.x"), >, 0);
  /* equal as numbers, different names: ordered, and consistently */
  g_assert_cmpint (ts_natural_compare ("a.007", "a.7"), !=, 0);
  g_assert_cmpint (ts_natural_compare ("a.007", "a.7") > 0, ==, ts_natural_compare ("a.7", "a.007") < 0);
  g_assert_cmpint (ts_natural_compare ("a.7b", "a.7"), >, 0);
  g_assert_cmpint (ts_natural_compare ("token_embd", "output"), >, 0);
  for (guint i = 1; i < n; i++)
    {
      g_autoptr(TsTensor) prev = row_tensor (table, i - 1);
      g_autoptr(TsTensor) cur = row_tensor (table, i);

      g_assert_cmpint (ts_natural_compare (ts_tensor_get_name (prev), ts_tensor_get_name (cur)), <=, 0);
    }

  ts_tensor_table_set_filter_text (table, "attn");
  wait_for_rows (table);
  g_assert_cmpuint (ts_tensor_table_get_n_rows (table), ==, gguf_n_attn);
  for (guint i = 0; i < ts_tensor_table_get_n_rows (table); i++)
    {
      g_autoptr(TsTensor) t = row_tensor (table, i);
      g_assert_nonnull (strstr (ts_tensor_get_name (t), "attn"));
    }
  save_screenshot (GTK_WIDGET (window), "filtered.png");

  ts_tensor_table_set_filter_text (table, "blk.3.ffn_");
  wait_for_rows (table);
  g_assert_cmpuint (ts_tensor_table_get_n_rows (table), ==, 4);

  ts_tensor_table_set_filter_text (table, "no-such-tensor");
  wait_for_rows (table);
  g_assert_cmpuint (ts_tensor_table_get_n_rows (table), ==, 0);
  /* the hint spells a layer as this GGUF file does */
  g_assert_nonnull (ts_test_find_label (GTK_WIDGET (table), "such as “attn” or “blk.3.”"));

  ts_tensor_table_set_filter_text (table, "");
  wait_for_rows (table);
  g_assert_cmpuint (ts_tensor_table_get_n_rows (table), ==, n);

  gtk_window_destroy (GTK_WINDOW (window));
}


/* A new order starts at its top, or at the selected row; GTK 4.8's list
 * view would keep the old top row in view, wherever the sort moved it */
static void
test_sort_scroll (void)
{
  TsWindow *window = open_in_new_window (gguf_path);
  TsTensorTable *table = ts_window_get_tensor_table (window);
  GtkAdjustment *vadj = table_vadjustment (table);
  g_autoptr(TsTensor) smallest = NULL;
  GtkSingleSelection *selection;
  double row_height;
  guint n = ts_tensor_table_get_n_rows (table);

  ts_test_run_for (200);
  g_assert_cmpfloat (gtk_adjustment_get_value (vadj), ==, 0);
  /* the table must scroll for this to test anything */
  g_assert_cmpfloat (gtk_adjustment_get_upper (vadj), >, 2 * gtk_adjustment_get_page_size (vadj));
  row_height = gtk_adjustment_get_upper (vadj) / n;

  /* from the top, rope_freqs (the smallest tensor) is the top row */
  ts_tensor_table_sort_by (table, "bytes", GTK_SORT_DESCENDING);
  ts_test_run_for (200);
  g_assert_cmpfloat (gtk_adjustment_get_value (vadj), <, row_height);
  save_screenshot (GTK_WIDGET (window), "sorted-by-size.png");

  /* a selected row stays in view */
  selection = GTK_SINGLE_SELECTION (ts_tensor_table_get_selection (table));
  smallest = row_tensor (table, n - 1);
  ts_tensor_table_select_tensor (table, smallest);
  ts_test_run_for (200);
  g_assert_cmpfloat (gtk_adjustment_get_value (vadj), >, row_height);
  ts_tensor_table_sort_by (table, "bytes", GTK_SORT_ASCENDING);
  ts_test_run_for (200);
  g_assert_cmpuint (gtk_single_selection_get_selected (selection), ==, 0);
  g_assert_cmpfloat (gtk_adjustment_get_value (vadj), <, row_height);

  /* from the middle, unselected: the new order's top */
  gtk_single_selection_set_selected (selection, GTK_INVALID_LIST_POSITION);
  gtk_adjustment_set_value (vadj, gtk_adjustment_get_upper (vadj) / 2);
  ts_test_run_for (200);
  ts_tensor_table_sort_by (table, "name", GTK_SORT_ASCENDING);
  ts_test_run_for (200);
  g_assert_cmpfloat (gtk_adjustment_get_value (vadj), <, row_height);

  gtk_window_destroy (GTK_WINDOW (window));
}

/* the item of an open popover menu labelled @text (a GtkModelButton,
 * private to GTK), or NULL */
static GtkWidget *
find_menu_item (GtkWidget  *widget,
                const char *text)
{
  if (g_str_equal (G_OBJECT_TYPE_NAME (widget), "GtkModelButton"))
    {
      g_autofree char *label = NULL;

      g_object_get (widget, "text", &label, NULL);
      if (g_strcmp0 (label, text) == 0)
        return widget;
    }
  for (GtkWidget *child = gtk_widget_get_first_child (widget);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_menu_item (child, text);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* the item's check (a radio item), as drawn and as a screen reader hears it */
static void
assert_menu_item (GtkWidget  *popover,
                  const char *text,
                  gboolean    checked)
{
  GtkWidget *item = find_menu_item (popover, text);
  gboolean active = !checked;

  g_assert_nonnull (item);
  g_object_get (item, "active", &active, NULL);
  g_assert_cmpint (active, ==, checked);
  gtk_test_accessible_assert_state (GTK_ACCESSIBLE (item), GTK_ACCESSIBLE_STATE_CHECKED,
                                    checked ? GTK_ACCESSIBLE_TRISTATE_TRUE : GTK_ACCESSIBLE_TRISTATE_FALSE);
}

/* the headers that show a sort arrow, counted in @n_arrows, and the last
 * one's direction: the title of its column */
static const char *
header_arrow (GtkWidget   *widget,
              GtkSortType *order,
              guint       *n_arrows)
{
  const char *found = NULL;

  if (g_strcmp0 (gtk_widget_get_css_name (widget), "sort-indicator") == 0 &&
      (gtk_widget_has_css_class (widget, "ascending") || gtk_widget_has_css_class (widget, "descending")))
    {
      GtkWidget *title = ts_test_find_descendant (gtk_widget_get_parent (widget), GTK_TYPE_LABEL);

      g_assert_nonnull (title);
      *order = gtk_widget_has_css_class (widget, "descending") ? GTK_SORT_DESCENDING : GTK_SORT_ASCENDING;
      (*n_arrows)++;
      return gtk_label_get_text (GTK_LABEL (title));
    }
  for (GtkWidget *child = gtk_widget_get_first_child (widget);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      const char *title = header_arrow (child, order, n_arrows);

      if (title != NULL)
        found = title;
    }
  return found;
}

/* the column of @view titled @title */
static GtkColumnViewColumn *
find_column (GtkWidget  *view,
             const char *title)
{
  GListModel *columns = gtk_column_view_get_columns (GTK_COLUMN_VIEW (view));

  for (guint i = 0; i < g_list_model_get_n_items (columns); i++)
    {
      g_autoptr(GtkColumnViewColumn) column = g_list_model_get_item (columns, i);

      if (g_strcmp0 (gtk_column_view_column_get_title (column), title) == 0)
        return column;   /* the view holds it */
    }
  g_assert_not_reached ();
}

/* The table, its column view and its sort menu agree: the rows are in
 * @column's @order (by @cmp, or in the file's order for a NULL @column),
 * the column view's sorter sorts them so and its header shows the arrow,
 * the table's properties (the actions' states) say so, and so do the
 * menu's radio items */
static void
assert_sorted (TsTensorTable *table,
               GtkWidget     *popover,
               const char    *column,
               const char    *title,
               GtkSortType    order,
               GCompareFunc   cmp)
{
  static const char *titles[] = { "Original Order", "Name", "Type", "Shape", "Elements", "Bytes", "Offset" };
  GtkWidget *view = ts_test_find_descendant (GTK_WIDGET (table), GTK_TYPE_COLUMN_VIEW);
  GtkSorter *sorter = gtk_column_view_get_sorter (GTK_COLUMN_VIEW (view));
  guint n = ts_tensor_table_get_n_rows (table);
  g_autofree char *sort_column = NULL;
  GtkSortType sort_order = !order, arrow_order = !order;
  guint n_arrows = 0;
  const char *arrow;

  wait_for_rows (table);
  for (guint i = 1; i < n; i++)
    {
      g_autoptr(TsTensor) prev = row_tensor (table, i - 1);
      g_autoptr(TsTensor) cur = row_tensor (table, i);

      if (column == NULL)   /* the fixture's tensors follow each other */
        g_assert_cmpuint (ts_tensor_get_offset (prev), <, ts_tensor_get_offset (cur));
      else if (order == GTK_SORT_ASCENDING)
        g_assert_cmpint (cmp (prev, cur), <=, 0);
      else
        g_assert_cmpint (cmp (prev, cur), >=, 0);
    }
  {
    g_autoptr(TsTensor) first = row_tensor (table, 0);
    g_autoptr(TsTensor) last = row_tensor (table, n - 1);

    /* the column view's sorter puts them so (descending too), or leaves
     * them be */
    g_assert_cmpint (gtk_sorter_compare (sorter, first, last), ==,
                     column != NULL ? GTK_ORDERING_SMALLER : GTK_ORDERING_EQUAL);
  }
  arrow = header_arrow (view, &arrow_order, &n_arrows);
  g_assert_cmpuint (n_arrows, ==, column != NULL ? 1 : 0);
  g_assert_cmpstr (arrow, ==, column != NULL ? title : NULL);
  if (column != NULL)
    g_assert_cmpint (arrow_order, ==, order);

  g_object_get (table, "sort-column", &sort_column, "sort-order", &sort_order, NULL);
  g_assert_cmpstr (sort_column, ==, column != NULL ? column : "none");
  if (column != NULL)
    g_assert_cmpint (sort_order, ==, order);

  for (guint i = 0; i < G_N_ELEMENTS (titles); i++)
    assert_menu_item (popover, titles[i], g_str_equal (titles[i], column != NULL ? title : "Original Order"));
  /* a direction for a column only */
  g_assert_cmpint (gtk_widget_get_sensitive (find_menu_item (popover, "Descending")), ==, column != NULL);
  if (column != NULL)
    {
      assert_menu_item (popover, "Ascending", order == GTK_SORT_ASCENDING);
      assert_menu_item (popover, "Descending", order == GTK_SORT_DESCENDING);
    }
}

static int
compare_size (gconstpointer a,
              gconstpointer b)
{
  guint64 sa = ts_tensor_get_size ((TsTensor *) a), sb = ts_tensor_get_size ((TsTensor *) b);

  return sa < sb ? -1 : sa > sb;
}

static int
compare_name (gconstpointer a,
              gconstpointer b)
{
  return ts_natural_compare (ts_tensor_get_name ((TsTensor *) a), ts_tensor_get_name ((TsTensor *) b));
}

static int
compare_elements (gconstpointer a,
                  gconstpointer b)
{
  guint64 ea = ts_tensor_get_n_elements ((TsTensor *) a), eb = ts_tensor_get_n_elements ((TsTensor *) b);

  return ea < eb ? -1 : ea > eb;
}

static int
compare_shape (gconstpointer a,
               gconstpointer b)
{
  TsTensor *ta = (TsTensor *) a, *tb = (TsTensor *) b;
  guint64 da[TS_MAX_DIMS] = { 0 }, db[TS_MAX_DIMS] = { 0 };

  if (ts_tensor_get_n_dims (ta) != ts_tensor_get_n_dims (tb))
    return ts_tensor_get_n_dims (ta) < ts_tensor_get_n_dims (tb) ? -1 : 1;
  ts_tensor_get_row_major_shape (ta, da);
  ts_tensor_get_row_major_shape (tb, db);
  for (guint i = 0; i < TS_MAX_DIMS; i++)
    if (da[i] != db[i])
      return da[i] < db[i] ? -1 : 1;
  return 0;
}

/* Presses @item of the open menu as Enter does: the menu closes; the
 * sort button, which had the focus, opens it again as Enter on it does */
static void
choose_menu_item (GtkWidget  *button,
                  GtkWidget  *popover,
                  const char *text)
{
  GtkWidget *item = find_menu_item (popover, text);
  GtkWidget *focus;

  g_assert_nonnull (item);
  g_assert_true (gtk_widget_get_sensitive (item));
  g_assert_true (gtk_widget_activate (item));
  ts_test_run_for (100);
  g_assert_false (gtk_widget_get_visible (popover));

  focus = gtk_root_get_focus (gtk_widget_get_root (button));
  g_assert_true (focus != NULL && (focus == button || gtk_widget_is_ancestor (focus, button)));
  g_assert_true (gtk_widget_activate (focus));
  ts_test_run_for (400);
  g_assert_true (gtk_widget_get_visible (popover));
}

/* The popover's own surface drawn over the window's, where it shows (a
 * popover may reach below its window, as this menu does on a short one) */
static void
save_popover_screenshot (GtkWidget  *window,
                         GtkWidget  *popover,
                         const char *name)
{
  g_autoptr(GdkTexture) under = NULL;
  g_autoptr(GdkTexture) over = NULL;
  g_autoptr(GdkTexture) texture = NULL;
  g_autoptr(GskRenderNode) node = NULL;
  GtkSnapshot *snapshot = gtk_snapshot_new ();
  GdkSurface *surface = gtk_native_get_surface (GTK_NATIVE (popover));
  graphene_rect_t window_rect, popover_rect, bounds;
  double wx, wy, px, py;

  ts_test_run_for (400);
  under = ts_test_render_widget (window, name);
  over = ts_test_render_widget (popover, name);
  gtk_native_get_surface_transform (GTK_NATIVE (window), &wx, &wy);
  gtk_native_get_surface_transform (GTK_NATIVE (popover), &px, &py);
  px += gdk_popup_get_position_x (GDK_POPUP (surface)) - wx;
  py += gdk_popup_get_position_y (GDK_POPUP (surface)) - wy;
  graphene_rect_init (&window_rect, 0, 0, gdk_texture_get_width (under), gdk_texture_get_height (under));
  graphene_rect_init (&popover_rect, px, py, gdk_texture_get_width (over), gdk_texture_get_height (over));
  /* the menu is as wide as it needs, inside the window's width */
  g_assert_cmpfloat (px, >=, 0);
  g_assert_cmpfloat (px + gdk_texture_get_width (over), <=, gdk_texture_get_width (under));

  graphene_rect_union (&window_rect, &popover_rect, &bounds);
  gtk_snapshot_append_color (snapshot, &(GdkRGBA) { 0.5, 0.5, 0.5, 1 }, &bounds);
  gtk_snapshot_append_texture (snapshot, under, &window_rect);
  gtk_snapshot_append_texture (snapshot, over, &popover_rect);
  node = gtk_snapshot_free_to_node (snapshot);
  texture = gsk_renderer_render_texture (gtk_native_get_renderer (GTK_NATIVE (window)), node, &bounds);
  ts_test_save_texture (texture, name);
}

/* GTK 4.8's column headers take no keyboard focus: the sort menu next to
 * the filter box sorts from the keyboard. It and the headers stay in step
 * both ways: the menu sorts the column view (its sorter, its header
 * arrow), and the column view sorted otherwise (as by a header click)
 * checks the menu's items. */
static void
test_sort_menu (void)
{
  g_autoptr(GFile) file = g_file_new_for_path (gguf_path);
  TsWindow *window = ts_window_new (app);
  TsTensorTable *table = ts_window_get_tensor_table (window);
  GtkWidget *view = ts_test_find_descendant (GTK_WIDGET (table), GTK_TYPE_COLUMN_VIEW);
  GtkWidget *button = ts_test_find_descendant (GTK_WIDGET (table), GTK_TYPE_MENU_BUTTON);
  GtkWidget *entry = ts_test_find_descendant (GTK_WIDGET (table), GTK_TYPE_SEARCH_ENTRY);
  GtkWidget *popover;
  GtkWidget *focus;

  /* at the window's narrowest */
  gtk_window_set_default_size (GTK_WINDOW (window), 600, 700);
  gtk_window_present (GTK_WINDOW (window));
  ts_window_open (window, file);
  ts_test_wait_for_page (window, "model");
  ts_window_show_view (window, "tensors");
  ts_test_run_for (300);
  g_assert_nonnull (button);
  gtk_test_accessible_assert_property (GTK_ACCESSIBLE (button), GTK_ACCESSIBLE_PROPERTY_LABEL, "Sort Tensors");
  g_assert_cmpstr (gtk_widget_get_tooltip_text (button), ==, "Sort Tensors");

  /* Tab from the filter box reaches the button; activating it, as Enter
   * or Space does, opens its menu */
  gtk_widget_grab_focus (entry);
  g_assert_true (gtk_widget_child_focus (GTK_WIDGET (window), GTK_DIR_TAB_FORWARD));
  focus = gtk_root_get_focus (GTK_ROOT (window));
  g_assert_true (focus != NULL && (focus == button || gtk_widget_is_ancestor (focus, button)));
  /* a button pressed by a key is released after 250 ms */
  g_assert_true (gtk_widget_activate (focus));
  ts_test_run_for (400);
  popover = GTK_WIDGET (gtk_menu_button_get_popover (GTK_MENU_BUTTON (button)));
  g_assert_nonnull (popover);
  g_assert_true (gtk_widget_get_visible (popover));
  /* the File column shows for sharded checkpoints only */
  g_assert_null (find_menu_item (popover, "File"));
  assert_sorted (table, popover, NULL, NULL, GTK_SORT_ASCENDING, NULL);

  choose_menu_item (button, popover, "Bytes");
  assert_sorted (table, popover, "bytes", "Bytes", GTK_SORT_ASCENDING, compare_size);
  {
    g_autoptr(TsTensor) first = row_tensor (table, 0);
    g_assert_cmpuint (ts_tensor_get_size (first), ==, gguf_smallest);
  }

  choose_menu_item (button, popover, "Descending");
  assert_sorted (table, popover, "bytes", "Bytes", GTK_SORT_DESCENDING, compare_size);
  {
    g_autoptr(TsTensor) first = row_tensor (table, 0);
    g_assert_cmpuint (ts_tensor_get_size (first), ==, gguf_biggest);
  }
  save_popover_screenshot (GTK_WIDGET (window), popover, "sort-menu.png");

  /* another column keeps the direction */
  choose_menu_item (button, popover, "Elements");
  assert_sorted (table, popover, "elements", "Elements", GTK_SORT_DESCENDING, compare_elements);

  /* the other way: the column view sorted by its own API (the same
   * column the other way round, unsorted, another column), and the menu
   * follows. A header click sorts the same sorter, but cannot be made
   * here: the header asks the event which mouse button it was. */
  gtk_column_view_sort_by_column (GTK_COLUMN_VIEW (view), find_column (view, "Elements"), GTK_SORT_ASCENDING);
  assert_sorted (table, popover, "elements", "Elements", GTK_SORT_ASCENDING, compare_elements);
  gtk_column_view_sort_by_column (GTK_COLUMN_VIEW (view), NULL, GTK_SORT_ASCENDING);
  assert_sorted (table, popover, NULL, NULL, GTK_SORT_ASCENDING, NULL);
  gtk_column_view_sort_by_column (GTK_COLUMN_VIEW (view), find_column (view, "Name"), GTK_SORT_DESCENDING);
  assert_sorted (table, popover, "name", "Name", GTK_SORT_DESCENDING, compare_name);
  /* the direction stays for the next column */
  choose_menu_item (button, popover, "Shape");
  assert_sorted (table, popover, "shape", "Shape", GTK_SORT_DESCENDING, compare_shape);
  ts_tensor_table_sort_by (table, "bytes", GTK_SORT_ASCENDING);
  assert_sorted (table, popover, "bytes", "Bytes", GTK_SORT_ASCENDING, compare_size);

  /* and back to the file's order: no arrow, no direction */
  choose_menu_item (button, popover, "Original Order");
  assert_sorted (table, popover, NULL, NULL, GTK_SORT_ASCENDING, NULL);

  gtk_popover_popdown (GTK_POPOVER (popover));
  gtk_window_destroy (GTK_WINDOW (window));
}

/* the luminance (0..1) of the pixel at @x, @y of @texture */
static double
pixel_luminance (GdkTexture *texture,
                 int         x,
                 int         y)
{
  int w = gdk_texture_get_width (texture), h = gdk_texture_get_height (texture);
  g_autofree guint32 *pixels = g_new (guint32, (gsize) w * h);
  guint32 p;

  gdk_texture_download (texture, (guchar *) pixels, (gsize) w * 4);
  p = pixels[(gsize) y * w + x];   /* premultiplied ARGB, native endian */
  return (0.2126 * ((p >> 16) & 0xff) + 0.7152 * ((p >> 8) & 0xff) + 0.0722 * (p & 0xff)) / 255.0;
}

static gboolean
layout_drawn (gpointer data)
{
  return !ts_layout_view_get_pending (data);
}

static gboolean
widget_has_focus (gpointer data)
{
  return gtk_widget_has_focus (data);
}

static gboolean
layout_dark_and_drawn (gpointer data)
{
  TsLayoutView *view = data;

  return ts_layout_get_dark (ts_layout_view_get_layout (view)) && !ts_layout_view_get_pending (view);
}

/* the light style back (the settings outlive the window), then @window
 * closed */
static void
close_in_light_style (TsWindow *window)
{
  g_object_set (gtk_settings_get_default (), "gtk-application-prefer-dark-theme", FALSE, NULL);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* In a dark style the layout picture is light on dark, not a white box */
static void
test_dark_style (void)
{
  TsWindow *window = open_in_new_window (gguf_path);
  TsLayoutView *view = ts_window_get_layout_view (window);
  GtkSettings *settings = gtk_settings_get_default ();
  g_autoptr(GdkTexture) light = NULL;
  g_autoptr(GdkTexture) dark = NULL;

  ts_test_wait_until (layout_drawn, view, 10, "the picture");
  light = ts_test_render_widget (GTK_WIDGET (view), "light layout");
  g_assert_false (ts_layout_get_dark (ts_layout_view_get_layout (view)));
  g_assert_cmpfloat (pixel_luminance (light, 4, 4), >, 0.9);

  g_object_set (settings, "gtk-application-prefer-dark-theme", TRUE, NULL);
  ts_test_wait_until (layout_dark_and_drawn, view, 10, "the dark picture");
  ts_test_run_for (200);
  dark = ts_test_render_widget (GTK_WIDGET (view), "dark layout");
  g_assert_cmpfloat (pixel_luminance (dark, 4, 4), <, 0.3);
  save_screenshot (GTK_WIDGET (window), "model-dark.png");

  close_in_light_style (window);
}

/* The first controller of @type on @widget (listening in @phase, or in
 * any phase for GTK_PHASE_NONE) */
static GtkEventController *
find_controller_of_type (GtkWidget           *widget,
                         GType                type,
                         GtkPropagationPhase  phase)
{
  g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (widget);

  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr(GtkEventController) c = g_list_model_get_item (controllers, i);

      if (G_TYPE_CHECK_INSTANCE_TYPE (c, type) &&
          (phase == GTK_PHASE_NONE || gtk_event_controller_get_propagation_phase (c) == phase))
        return c;
    }
  return NULL;
}

static gboolean
layout_style_and_drawn (gpointer data)
{
  TsLayoutView *view = data;
  gboolean dark = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (view), "test-dark"));

  /* laid out: the view has asked for no geometry before its first size */
  return ts_layout_get_dark (ts_layout_view_get_layout (view)) == dark &&
         !ts_layout_view_get_pending (view) && ts_layout_get_height (ts_layout_view_get_layout (view)) > 0;
}

/* The light (@dark FALSE) or dark style, once the view has drawn in it */
static void
set_layout_style (TsLayoutView *view,
                  gboolean      dark)
{
  g_object_set (gtk_settings_get_default (), "gtk-application-prefer-dark-theme", dark, NULL);
  g_object_set_data (G_OBJECT (view), "test-dark", GINT_TO_POINTER (dark));
  ts_test_wait_until (layout_style_and_drawn, view, 10, "the picture in the style");
  ts_test_run_for (100);
}

/* the @nth visible tensor band of @role, or TS_LAYOUT_NO_BAND */
static guint
find_role_band (TsLayout     *layout,
                TsTensorRole  role,
                guint         nth)
{
  for (guint i = 0; i < ts_layout_get_n_bands (layout); i++)
    {
      const TsLayoutBand *b = ts_layout_get_band (layout, i);

      if (b->type == TS_LAYOUT_BAND_TENSOR && b->visible && b->role == role && nth-- == 0)
        return i;
    }
  return TS_LAYOUT_NO_BAND;
}

/* The names on the bands read at 4.5:1 or more (WCAG AA) against the
 * band's colour, in the light style and the dark one, on both shades of
 * a role: white text had 3.2:1 on the feed-forward green, 2.5:1 on its
 * lighter shade, 3.8:1 on the attention blue */
static void
test_band_text_contrast (void)
{
  static const TsTensorRole roles[] = {
    TS_TENSOR_ROLE_EMBEDDING, TS_TENSOR_ROLE_ATTENTION, TS_TENSOR_ROLE_FEED_FORWARD, TS_TENSOR_ROLE_NORM,
  };
  TsWindow *window = open_in_new_window (gguf_path);
  TsLayoutView *view = ts_window_get_layout_view (window);
  TsLayout *layout = ts_layout_view_get_layout (view);

  for (guint dark = 0; dark < 2; dark++)
    {
      set_layout_style (view, (gboolean) dark);
      for (guint r = 0; r < G_N_ELEMENTS (roles); r++)
        for (guint nth = 0; nth < (roles[r] == TS_TENSOR_ROLE_EMBEDDING ? 1 : 2); nth++)
          {
            guint band = find_role_band (layout, roles[r], nth);
            g_autoptr(GdkTexture) texture = NULL;
            const TsLayoutBand *b;
            double contrast;

            g_assert_cmpuint (band, !=, TS_LAYOUT_NO_BAND);
            ts_layout_view_zoom_to_band (view, band);
            ts_test_wait_until (layout_drawn, view, 10, "the zoomed picture");
            ts_test_run_for (50);
            b = ts_layout_get_band (layout, band);
            g_assert_true (b->visible);
            g_assert_cmpfloat (b->width, >, 200);
            texture = ts_test_render_widget (GTK_WIDGET (view), "the zoomed layout");
            /* inside the band, clear of its edges and separators */
            contrast = ts_test_rect_contrast (texture, &GRAPHENE_RECT_INIT (b->x + 4, b->y + 3,
                                                                            b->width - 8, b->height - 6));
            g_test_message ("%s on its band, %s style: %.2f:1", b->label, dark ? "dark" : "light", contrast);
            g_assert_cmpfloat (contrast, >=, 4.5);
            if (roles[r] == TS_TENSOR_ROLE_FEED_FORWARD && nth == 1)
              save_screenshot (GTK_WIDGET (view), dark ? "band-text-dark.png" : "band-text-light.png");
            ts_layout_view_zoom_reset (view);
            ts_test_wait_until (layout_drawn, view, 10, "the whole picture");
          }
    }

  close_in_light_style (window);
}

/* The outline of the band under the pointer shows in the dark style: it
 * was a fixed near-black, 1.1:1 on the dark ground below the band */
static void
test_hover_outline_dark (void)
{
  TsWindow *window = open_in_new_window (gguf_path);
  TsLayoutView *view = ts_window_get_layout_view (window);
  TsLayout *layout = ts_layout_view_get_layout (view);
  GtkEventController *motion = NULL;
  g_autoptr(GdkTexture) plain = NULL;
  g_autoptr(GdkTexture) hovered = NULL;
  const TsLayoutBand *b;
  double contrast;

  motion = find_controller_of_type (GTK_WIDGET (view), GTK_TYPE_EVENT_CONTROLLER_MOTION, GTK_PHASE_NONE);
  g_assert_nonnull (motion);

  for (guint dark = 0; dark < 2; dark++)
    {
      set_layout_style (view, (gboolean) dark);
      b = ts_layout_get_band (layout, find_role_band (layout, TS_TENSOR_ROLE_EMBEDDING, 0));
      g_signal_emit_by_name (motion, "leave");
      g_clear_object (&plain);
      plain = ts_test_render_widget (GTK_WIDGET (view), "the layout");
      g_signal_emit_by_name (motion, "motion", b->x + b->width / 2, b->y + b->height / 2);
      g_clear_object (&hovered);
      hovered = ts_test_render_widget (GTK_WIDGET (view), "the hovered layout");
      /* the outline's lower edge, just below the band */
      contrast = ts_test_pixel_contrast (plain, hovered, (int) (b->x + b->width / 2),
                                         (int) floor (b->y + b->height));
      g_test_message ("hover outline, %s style: %.2f:1", dark ? "dark" : "light", contrast);
      g_assert_cmpfloat (contrast, >=, 3.0);
    }
  save_screenshot (GTK_WIDGET (window), "layout-hover-dark.png");

  close_in_light_style (window);
}

/* The keyboard focus's outline around a band stands out from the ground
 * (3:1, as WCAG asks of a focus indicator) in both styles: a 60% opaque
 * light blue had 2:1 on white, 2.4:1 on the dark ground */
static void
test_focus_outline_contrast (void)
{
  TsWindow *window = open_in_new_window (gguf_path);
  TsLayoutView *view = ts_window_get_layout_view (window);
  TsLayout *layout = ts_layout_view_get_layout (view);
  /* what is drawn there, on the ground of the picture */
  GtkWidget *scroller = gtk_widget_get_ancestor (GTK_WIDGET (view), GTK_TYPE_SCROLLED_WINDOW);

  gtk_widget_grab_focus (GTK_WIDGET (view));
  for (guint dark = 0; dark < 2; dark++)
    {
      g_autoptr(GdkTexture) plain = NULL;
      g_autoptr(GdkTexture) focused = NULL;
      const TsLayoutBand *b;
      double contrast;

      set_layout_style (view, (gboolean) dark);
      ts_test_wait_until (widget_has_focus, view, 10, "the window to be active");
      g_assert_cmpuint (ts_layout_view_get_focus_band (view), !=, TS_LAYOUT_NO_BAND);
      b = ts_layout_get_band (layout, ts_layout_view_get_focus_band (view));

      gtk_window_set_focus_visible (GTK_WINDOW (window), FALSE);
      ts_test_run_for (100);
      plain = ts_test_render_widget (scroller, "the layout");
      gtk_window_set_focus_visible (GTK_WINDOW (window), TRUE);
      ts_test_run_for (100);
      focused = ts_test_render_widget (scroller, "the layout, focus shown");
      {
        graphene_point_t top;

        /* the outline's upper edge, 6 units out from the band: on the ground */
        g_assert_true (gtk_widget_compute_point (GTK_WIDGET (view), scroller,
                                                 &GRAPHENE_POINT_INIT (b->x + b->width / 2, b->y - 5),
                                                 &top));
        contrast = ts_test_pixel_contrast (plain, focused, (int) top.x, (int) top.y);
      }
      g_test_message ("focus outline, %s style: %.2f:1", dark ? "dark" : "light", contrast);
      g_assert_cmpfloat (contrast, >=, 3.0);
    }

  close_in_light_style (window);
}

static GtkEventController *
find_controller (GtkWidget  *widget,
                 const char *name)
{
  g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (widget);

  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr(GtkEventController) c = g_list_model_get_item (controllers, i);

      if (g_strcmp0 (gtk_event_controller_get_name (c), name) == 0)
        return c;
    }
  return NULL;
}

/* one Tab leaves the tensor table, however many rows it has (GTK 4.8 moved
 * row by row); as it leaves the other lists */
static void
test_tab_leaves_table (void)
{
  TsWindow *window = open_in_new_window (gguf_path);
  GtkWidget *view = ts_test_find_descendant (GTK_WIDGET (ts_window_get_tensor_table (window)), GTK_TYPE_COLUMN_VIEW);
  GtkEventController *key = find_controller (view, "leave-on-tab");
  GtkWidget *focus;
  gboolean handled = FALSE;

  g_assert_nonnull (key);

  gtk_widget_grab_focus (view);
  ts_test_run_for (100);
  focus = gtk_root_get_focus (GTK_ROOT (window));
  g_assert_true (focus == view || gtk_widget_is_ancestor (focus, view));

  g_signal_emit_by_name (key, "key-pressed", GDK_KEY_Tab, 0, 0, &handled);
  g_assert_true (handled);
  focus = gtk_root_get_focus (GTK_ROOT (window));
  g_assert_nonnull (focus);
  g_assert_false (focus == view || gtk_widget_is_ancestor (focus, view));

  /* Shift+Tab: to the filter box above the table */
  gtk_widget_grab_focus (view);
  g_signal_emit_by_name (key, "key-pressed", GDK_KEY_ISO_Left_Tab, 0, GDK_SHIFT_MASK, &handled);
  g_assert_true (handled);
  focus = gtk_root_get_focus (GTK_ROOT (window));
  g_assert_nonnull (focus);
  g_assert_true (gtk_widget_is_ancestor (focus, GTK_WIDGET (ts_window_get_tensor_table (window))));
  g_assert_false (focus == view || gtk_widget_is_ancestor (focus, view));

  /* the arrow keys are the table's own */
  gtk_widget_grab_focus (view);
  g_signal_emit_by_name (key, "key-pressed", GDK_KEY_Down, 0, 0, &handled);
  g_assert_false (handled);

  /* and so do the metadata keys, and the items of an array (500 a page) */
  {
    TsMetadataView *metadata = ts_window_get_metadata_view (window);
    GtkWidget *paned = ts_test_find_descendant (GTK_WIDGET (metadata), GTK_TYPE_PANED);

    ts_window_show_view (window, "metadata");
    g_assert_true (ts_metadata_view_select_key (metadata, "tokenizer.ggml.tokens"));
    ts_test_run_for (300);
    ts_test_assert_tab_leaves (ts_test_find_descendant (gtk_paned_get_start_child (GTK_PANED (paned)),
                                                        GTK_TYPE_COLUMN_VIEW));
    ts_test_assert_tab_leaves (ts_test_find_descendant (gtk_paned_get_end_child (GTK_PANED (paned)),
                                                        GTK_TYPE_LIST_VIEW));
  }

  gtk_window_destroy (GTK_WINDOW (window));
}

/* Tab and Shift+Tab always move on, on every view: a selectable label
 * that takes no focus (GTK 4.8) said it took it, and the focus stayed
 * where it was, for good */
static void
test_tab_moves (void)
{
  TsWindow *window = open_in_new_window (gguf_path);
  TsMetadataView *metadata = ts_window_get_metadata_view (window);

  ts_window_show_view (window, "summary");
  ts_test_run_for (300);
  gtk_widget_grab_focus (GTK_WIDGET (ts_window_get_layout_view (window)));
  ts_test_assert_tab_moves (GTK_WINDOW (window), 12);

  /* the key's heading in the detail pane is selectable */
  ts_window_show_view (window, "metadata");
  g_assert_true (ts_metadata_view_select_key (metadata, "tokenizer.chat_template"));
  ts_test_run_for (300);
  gtk_widget_grab_focus (GTK_WIDGET (ts_window_get_layout_view (window)));
  ts_test_assert_tab_moves (GTK_WINDOW (window), 12);

  gtk_window_destroy (GTK_WINDOW (window));
}

/* every control has a name a screen reader can say, on every page of the
 * window (those hidden too) and in the export dialog */
static void
test_accessible_names (void)
{
  TsWindow *window = open_in_new_window (gguf_path);
  TsLayout *layout = ts_layout_view_get_layout (ts_window_get_layout_view (window));
  TsExportDialog *dialog = ts_export_dialog_new (GTK_WINDOW (window), layout, NULL);

  /* the title bars are the windows' children too */
  ts_test_assert_named (GTK_WIDGET (window));
  gtk_window_present (GTK_WINDOW (dialog));
  ts_test_assert_named (GTK_WIDGET (dialog));
  ts_test_run_for (300);
  ts_test_assert_mnemonics_unique (GTK_WIDGET (dialog));

  gtk_window_destroy (GTK_WINDOW (dialog));
  gtk_window_destroy (GTK_WINDOW (window));
}

/* what a screen reader says of the diagram: the band with the keyboard
 * focus, as its description, and whether it is the one selected (which
 * the screen shows by a shade of blue) */
static void
assert_describes_focus_band (TsLayoutView *view)
{
  TsLayout *layout = ts_layout_view_get_layout (view);
  guint band = ts_layout_view_get_focus_band (view);
  g_autofree char *expected = NULL;

  gtk_test_accessible_assert_role (GTK_ACCESSIBLE (view), GTK_ACCESSIBLE_ROLE_IMG);
  gtk_test_accessible_assert_property (GTK_ACCESSIBLE (view), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                       "Byte layout of tiny-llama.gguf");
  g_assert_true (gtk_test_accessible_has_property (GTK_ACCESSIBLE (view), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION));
  g_assert_cmpuint (band, !=, TS_LAYOUT_NO_BAND);
  expected = ts_layout_dup_band_description (layout, ts_layout_get_band (layout, band));
  if (band == ts_layout_view_get_selected_band (view))
    {
      g_autofree char *selected = g_strconcat (expected, " (selected)", NULL);

      g_free (expected);
      expected = g_steal_pointer (&selected);
    }
  g_test_message ("said: %s", expected);
  gtk_test_accessible_assert_property (GTK_ACCESSIBLE (view), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, expected);
}

static void
test_layout_announces (void)
{
  g_autoptr(GFile) file = g_file_new_for_path (gguf_path);
  TsWindow *window = ts_window_new (app);
  TsLayoutView *view = ts_window_get_layout_view (window);
  TsTensorTable *table = ts_window_get_tensor_table (window);
  GtkSelectionModel *selection = ts_tensor_table_get_selection (table);
  GtkEventController *key = NULL;
  g_autoptr(TsTensor) tensor = NULL;
  guint first;
  gboolean handled = FALSE;

  /* the window opens on the diagram, which has the focus before it has
   * bands: once they come, the first has the focus and is described */
  gtk_window_present (GTK_WINDOW (window));
  ts_window_open (window, file);
  ts_test_wait_for_page (window, "model");
  ts_test_wait_until (layout_drawn, view, 20, "the layout");
  /* the diagram is the window's focus widget once the model shows (the
   * loading page's Cancel had it); it has the focus once the X server (no
   * window manager here) makes the window active */
  g_assert_true (gtk_root_get_focus (GTK_ROOT (window)) == GTK_WIDGET (view));
  ts_test_wait_until (widget_has_focus, view, 10, "the window to be active");
  ts_test_run_for (200);
  assert_describes_focus_band (view);
  first = ts_layout_view_get_focus_band (view);

  /* Right: the next band, described */
  key = find_controller_of_type (GTK_WIDGET (view), GTK_TYPE_EVENT_CONTROLLER_KEY, GTK_PHASE_NONE);
  g_assert_nonnull (key);
  gtk_window_set_focus_visible (GTK_WINDOW (window), FALSE);
  g_signal_emit_by_name (key, "key-pressed", GDK_KEY_Right, 0, 0, &handled);
  g_assert_true (handled);
  g_assert_cmpuint (ts_layout_view_get_focus_band (view), !=, first);
  assert_describes_focus_band (view);
  /* and outlined: the view takes the arrow keys before the window, which
   * would have shown the focus on them */
  g_assert_true (gtk_window_get_focus_visible (GTK_WINDOW (window)));
  save_screenshot (GTK_WIDGET (view), "layout-keyboard-focus.png");

  /* a row chosen in the table: its band has the focus, and is described */
  gtk_selection_model_select_item (selection, 5, TRUE);
  tensor = g_list_model_get_item (G_LIST_MODEL (selection), 5);
  g_assert_cmpuint (ts_layout_view_get_focus_band (view), ==,
                    ts_layout_find_tensor (ts_layout_view_get_layout (view), tensor));
  g_assert_cmpuint (ts_layout_view_get_selected_band (view), ==, ts_layout_view_get_focus_band (view));
  assert_describes_focus_band (view);
  /* unselected: no longer said so */
  gtk_single_selection_set_selected (GTK_SINGLE_SELECTION (selection), GTK_INVALID_LIST_POSITION);
  g_assert_cmpuint (ts_layout_view_get_selected_band (view), ==, TS_LAYOUT_NO_BAND);
  assert_describes_focus_band (view);

  gtk_window_destroy (GTK_WINDOW (window));
}

/* A key press and its release as GTK delivers them to the window's own
 * key controller (capture phase) and the view's (bubble phase, after it) */
static void
press_and_release (GtkWindow *window,
                   GtkWidget *widget,
                   guint      keyval)
{
  GtkEventController *window_key = find_controller_of_type (GTK_WIDGET (window), GTK_TYPE_EVENT_CONTROLLER_KEY, GTK_PHASE_CAPTURE);
  GtkEventController *key = find_controller_of_type (widget, GTK_TYPE_EVENT_CONTROLLER_KEY, GTK_PHASE_BUBBLE);
  gboolean handled = FALSE;

  g_assert_nonnull (window_key);
  g_assert_nonnull (key);
  g_signal_emit_by_name (window_key, "key-pressed", keyval, 0, 0, &handled);
  g_assert_false (handled);
  g_signal_emit_by_name (key, "key-pressed", keyval, 0, 0, &handled);
  g_assert_true (handled);
  g_signal_emit_by_name (window_key, "key-released", keyval, 0, 0);
  g_signal_emit_by_name (key, "key-released", keyval, 0, 0);
}

/* The focus outline in the diagram stays once an arrow key is let go:
 * the window hid the focus again on the release of a key that left the
 * focus on the widget it was on, and the outline flashed while the key
 * was held down only */
static void
test_layout_focus_stays_visible (void)
{
  TsWindow *window = open_in_new_window (gguf_path);
  TsLayoutView *view = ts_window_get_layout_view (window);
  guint first;

  ts_test_wait_until (layout_drawn, view, 20, "the layout");
  gtk_widget_grab_focus (GTK_WIDGET (view));
  ts_test_run_for (100);
  gtk_window_set_focus_visible (GTK_WINDOW (window), FALSE);
  first = ts_layout_view_get_focus_band (view);

  press_and_release (GTK_WINDOW (window), GTK_WIDGET (view), GDK_KEY_Right);
  g_assert_cmpuint (ts_layout_view_get_focus_band (view), !=, first);
  g_assert_true (gtk_window_get_focus_visible (GTK_WINDOW (window)));
  g_assert_true (gtk_widget_has_visible_focus (GTK_WIDGET (view)));

  /* and again from a focus shown (the window leaves it alone then) */
  press_and_release (GTK_WINDOW (window), GTK_WIDGET (view), GDK_KEY_End);
  g_assert_true (gtk_window_get_focus_visible (GTK_WINDOW (window)));
  save_screenshot (GTK_WIDGET (window), "layout-focus-after-release.png");

  gtk_window_destroy (GTK_WINDOW (window));
}

/* Alt and a letter activates what it names on every page of the window:
 * the header's "_Open" and the empty page's "_Open File…" (or the error
 * page's "_Open Another File…") shared theirs, and Alt+O only moved the
 * focus between the two */
static void
test_mnemonics (void)
{
  g_autofree char *bad = write_file ("mnemonics-not-a-model.gguf", "GGUF", 4);
  g_autoptr(GFile) bad_file = g_file_new_for_path (bad);
  g_autoptr(GFile) file = g_file_new_for_path (gguf_path);
  TsWindow *window = ts_window_new (app);

  gtk_window_present (GTK_WINDOW (window));
  ts_test_wait_for_page (window, "empty");
  ts_test_run_for (300);
  ts_test_assert_mnemonics_unique (GTK_WIDGET (window));
  ts_test_assert_menu_mnemonics_unique (GTK_WIDGET (window));

  ts_window_open (window, bad_file);
  ts_test_wait_for_page (window, "error");
  ts_test_run_for (300);
  ts_test_assert_mnemonics_unique (GTK_WIDGET (window));

  ts_window_open (window, file);
  ts_test_wait_for_page (window, "model");
  ts_test_run_for (300);
  ts_test_assert_mnemonics_unique (GTK_WIDGET (window));
  ts_test_assert_menu_mnemonics_unique (GTK_WIDGET (window));

  gtk_window_destroy (GTK_WINDOW (window));
}

static GtkWindow *
find_file_chooser (void)
{
  return ts_test_find_toplevel (GTK_TYPE_FILE_CHOOSER);
}

#if !GTK_CHECK_VERSION (4, 10, 0)
static gboolean
chooser_shows (gpointer data)
{
  return find_file_chooser () != NULL;
}
#endif

static GtkWindow *
find_export_dialog (void)
{
  return ts_test_find_toplevel (TS_TYPE_EXPORT_DIALOG);
}

static gboolean
dialog_shows (gpointer data)
{
  return find_export_dialog () != NULL;
}

static gboolean
audit_window_shows (gpointer data)
{
  return ts_test_find_toplevel (TS_TYPE_AUDIT_WINDOW) != NULL;
}

/* The menus say the shortcuts of their items (Ctrl+O, Shift+Ctrl+O,
 * Ctrl+E), and the keys do what the items do */
static void
test_menu_accels (void)
{
  TsWindow *window = open_in_new_window (gguf_path);
  struct { const char *menu; const char *accel; } shown[] = {
    { "More Ways to Open", "Ctrl+O" }, { "More Ways to Open", "Shift+Ctrl+O" },
    { "Main Menu", "Ctrl+E" }, { "Main Menu", "Shift+Ctrl+C" }, { "Main Menu", "Ctrl+N" },
    { "Main Menu", "Shift+Ctrl+A" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (shown); i++)
    {
      GtkWidget *button = ts_test_find_menu_button (GTK_WIDGET (window), shown[i].menu);
      GtkPopover *popover;

      g_assert_nonnull (button);
      gtk_menu_button_popup (GTK_MENU_BUTTON (button));
      ts_test_run_for (200);
      popover = gtk_menu_button_get_popover (GTK_MENU_BUTTON (button));
      if (i == 2)
        ts_test_save_screenshot (GTK_WIDGET (popover), "main-menu.png", 300);
      g_test_message ("%s: %s", shown[i].menu, shown[i].accel);
      g_assert_nonnull (ts_test_find_label (GTK_WIDGET (popover), shown[i].accel));
      gtk_menu_button_popdown (GTK_MENU_BUTTON (button));
      ts_test_run_for (100);
    }

  /* the keys, as the window's shortcuts take them */
  g_assert_true (ts_test_activate_shortcut (GTK_WIDGET (window), "<Control>e"));
  ts_test_wait_until (dialog_shows, NULL, 10, "the export dialog");
  gtk_window_destroy (find_export_dialog ());
  /* Shift+Ctrl+A audits the window's GGUF file */
  g_assert_true (ts_test_activate_shortcut (GTK_WIDGET (window), "<Control><Shift>a"));
  ts_test_wait_until (audit_window_shows, NULL, 10, "the audit window");
  {
    GtkWindow *audit = ts_test_find_toplevel (TS_TYPE_AUDIT_WINDOW);
    g_autofree char *base = g_path_get_basename (gguf_path);

    g_assert_nonnull (ts_test_find_label (GTK_WIDGET (audit), base));
    gtk_window_destroy (audit);
  }
  for (guint i = 0; i < 2; i++)
    {
      g_assert_true (ts_test_activate_shortcut (GTK_WIDGET (window), i == 0 ? "<Control>o" : "<Control><Shift>o"));
#if !GTK_CHECK_VERSION (4, 10, 0)
      /* GTK 4.8's chooser is a GtkFileChooserDialog (newer GTK's
       * GtkFileDialog is the portal's, or a window of its own) */
      ts_test_wait_until (chooser_shows, NULL, 10, "the file chooser");
      /* Open File… chooses files, Open Folder… folders */
      g_assert_cmpint (gtk_file_chooser_get_action (GTK_FILE_CHOOSER (find_file_chooser ())),
                       ==, i == 0 ? GTK_FILE_CHOOSER_ACTION_OPEN : GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER);
      gtk_window_destroy (find_file_chooser ());
      ts_test_run_for (100);
#endif
    }

  gtk_window_destroy (GTK_WINDOW (window));
}

static gboolean
shortcuts_window_shows (gpointer data)
{
  return ts_test_find_toplevel (GTK_TYPE_SHORTCUTS_WINDOW) != NULL;
}

/* Ctrl+? shows every shortcut on one page (with a second, GTK 4.8's page
 * switcher warned that a label "reported min width -4": fatal here) */
static void
test_shortcuts_window (void)
{
  TsWindow *window = open_in_new_window (gguf_path);
  GtkWindow *shortcuts;

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.show-help-overlay", NULL));
  ts_test_wait_until (shortcuts_window_shows, NULL, 10, "the shortcuts window");
  shortcuts = ts_test_find_toplevel (GTK_TYPE_SHORTCUTS_WINDOW);
  save_screenshot (GTK_WIDGET (shortcuts), "shortcuts.png");
  g_assert_nonnull (ts_test_find_label (GTK_WIDGET (shortcuts), "Convert a checkpoint to GGUF"));
  g_assert_nonnull (ts_test_find_label (GTK_WIDGET (shortcuts), "Audit a conversion"));
  g_assert_nonnull (ts_test_find_label (GTK_WIDGET (shortcuts), "Close (stops a conversion)"));

  gtk_window_destroy (shortcuts);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* pixels of the selection's colour (#1c71d8) in the 10 × 4 rectangle the
 * mark above band @b takes, in the view as drawn */
static guint
selection_mark_pixels (TsLayoutView       *view,
                       const TsLayoutBand *b)
{
  g_autoptr(GdkTexture) texture = ts_test_render_widget (GTK_WIDGET (view), "the layout view");
  int width = gdk_texture_get_width (texture);
  int height = gdk_texture_get_height (texture);
  g_autofree guchar *pixels = g_malloc ((gsize) width * height * 4);
  guint n = 0;

  /* B, G, R, A in memory: GDK_MEMORY_DEFAULT */
  gdk_texture_download (texture, pixels, (gsize) width * 4);
  for (int y = (int) floor (b->y - 9); y < (int) ceil (b->y - 5); y++)
    for (int x = (int) floor (b->x + b->width / 2 - 5); x < (int) ceil (b->x + b->width / 2 + 5); x++)
      {
        const guchar *p = pixels + ((gsize) y * width + x) * 4;

        if (x >= 0 && y >= 0 && x < width && y < height &&
            abs (p[2] - 0x1c) < 8 && abs (p[1] - 0x71) < 8 && abs (p[0] - 0xd8) < 8)
          n++;
      }
  return n;
}

/* A selected band narrower than its outline can show gets a mark above
 * it; a wide one none (it covered the label of the band's layer) */
static void
test_selection_mark (void)
{
  TsWindow *window = open_in_new_window (gguf_path);
  TsLayoutView *view = ts_window_get_layout_view (window);
  TsLayout *layout = ts_layout_view_get_layout (view);
  guint wide = TS_LAYOUT_NO_BAND, narrow = TS_LAYOUT_NO_BAND;

  ts_test_run_for (300);
  for (guint i = 0; i < ts_layout_get_n_bands (layout); i++)
    {
      const TsLayoutBand *b = ts_layout_get_band (layout, i);

      if (b->tensor == NULL || !b->visible)
        continue;
      if (b->width > 60 && wide == TS_LAYOUT_NO_BAND)
        wide = i;
      if (b->width < 8 && b->x > 10 && narrow == TS_LAYOUT_NO_BAND)
        narrow = i;
    }
  g_assert_cmpuint (wide, !=, TS_LAYOUT_NO_BAND);
  g_assert_cmpuint (narrow, !=, TS_LAYOUT_NO_BAND);

  ts_layout_view_activate_band (view, wide);
  ts_test_run_for (100);
  g_assert_cmpuint (ts_layout_view_get_selected_band (view), ==, wide);
  g_assert_cmpuint (selection_mark_pixels (view, ts_layout_get_band (layout, wide)), ==, 0);

  ts_layout_view_activate_band (view, narrow);
  ts_test_run_for (100);
  g_assert_cmpuint (ts_layout_view_get_selected_band (view), ==, narrow);
  g_assert_cmpuint (selection_mark_pixels (view, ts_layout_get_band (layout, narrow)), >=, 20);

  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_selection_sync (void)
{
  TsWindow *window = open_in_new_window (gguf_path);
  TsTensorTable *table = ts_window_get_tensor_table (window);
  TsLayoutView *view = ts_window_get_layout_view (window);
  GtkSelectionModel *selection = ts_tensor_table_get_selection (table);
  TsLayout *layout = ts_layout_view_get_layout (view);
  g_autoptr(TsTensor) tensor = NULL;
  guint band;

  g_assert_cmpuint (ts_layout_view_get_selected_band (view), ==, TS_LAYOUT_NO_BAND);

  /* table → layout */
  gtk_selection_model_select_item (selection, 5, TRUE);
  tensor = g_list_model_get_item (G_LIST_MODEL (selection), 5);
  band = ts_layout_find_tensor (layout, tensor);
  g_assert_cmpuint (band, !=, TS_LAYOUT_NO_BAND);
  g_assert_cmpuint (ts_layout_view_get_selected_band (view), ==, band);
  g_assert_true (ts_layout_get_band (layout, band)->tensor == tensor);
  save_screenshot (GTK_WIDGET (window), "selected.png");

  /* layout → table: the band of another tensor */
  {
    g_autoptr(TsTensor) other = g_list_model_get_item (G_LIST_MODEL (selection), 9);
    guint other_band = ts_layout_find_tensor (layout, other);
    g_autoptr(GtkBitset) selected = NULL;

    ts_layout_view_activate_band (view, other_band);
    selected = gtk_selection_model_get_selection (selection);
    g_assert_cmpuint (gtk_bitset_get_size (selected), ==, 1);
    g_assert_cmpuint (gtk_bitset_get_minimum (selected), ==, 9);
    g_assert_cmpuint (ts_layout_view_get_selected_band (view), ==, other_band);
  }

  /* layout → table: the row of a band far down comes into view */
  {
    GtkAdjustment *vadj = table_vadjustment (table);
    guint last = g_list_model_get_n_items (G_LIST_MODEL (selection)) - 1;
    g_autoptr(TsTensor) far = g_list_model_get_item (G_LIST_MODEL (selection), last);
    double row_height;

    ts_test_run_for (200);
    row_height = gtk_adjustment_get_upper (vadj) / (last + 1);
    g_assert_cmpfloat (gtk_adjustment_get_value (vadj), ==, 0);
    ts_layout_view_activate_band (view, ts_layout_find_tensor (layout, far));
    ts_test_run_for (200);
    /* the last row's top is within the page */
    g_assert_cmpfloat (gtk_adjustment_get_value (vadj) + gtk_adjustment_get_page_size (vadj),
                       >=, last * row_height);
    gtk_adjustment_set_value (vadj, 0);
  }

  /* a tensor filtered out of the table: clicking its band clears the filter */
  {
    g_autoptr(TsTensor) norm = NULL;
    guint norm_band;

    ts_tensor_table_set_filter_text (table, "ffn_up");
    wait_for_rows (table);
    norm = TS_TENSOR (g_object_ref (ts_model_file_lookup_tensor (ts_window_get_model (window),
                                                                 "output_norm.weight")));
    norm_band = ts_layout_find_tensor (layout, norm);
    ts_layout_view_activate_band (view, norm_band);
    g_assert_cmpuint (ts_tensor_table_get_n_rows (table), ==, gguf_n_tensors);
    g_assert_cmpuint (ts_layout_view_get_selected_band (view), ==, norm_band);
  }

  gtk_window_destroy (GTK_WINDOW (window));
}

static gboolean
reload_offered (gpointer data)
{
  gboolean can_reload = FALSE;

  return ts_window_get_banner (data, NULL, &can_reload) != NULL && can_reload;
}

static gboolean
shows_error (gpointer data)
{
  return g_strcmp0 (ts_window_get_page (data), "error") == 0;
}

/* A file shown that is replaced on disk (a conversion over it, a new
 * download) is pointed out, with Reload */
static void
test_changed_on_disk (void)
{
  g_autofree char *path = g_build_filename (fixture_dir, "changing.gguf", NULL);
  g_autofree char *next = g_build_filename (fixture_dir, "changing.gguf.new", NULL);
  g_autofree char *contents = NULL;
  gsize len;
  TsWindow *window;
  TsModelFile *before;
  const char *text;

  g_assert_true (g_file_get_contents (gguf_path, &contents, &len, NULL));
  g_assert_true (g_file_set_contents (path, contents, len, NULL));
  window = open_in_new_window (path);
  before = ts_window_get_model (window);
  ts_test_run_for (300);
  g_test_message ("banner: %s", ts_window_get_banner (window, NULL, NULL));
  g_assert_null (ts_window_get_banner (window, NULL, NULL));

  /* replaced as converters and downloaders do: a new file renamed over it */
  g_assert_true (g_file_set_contents (next, contents, len - 7, NULL));
  g_assert_cmpint (g_rename (next, path), ==, 0);
  ts_test_wait_until (reload_offered, window, 10, "the changed-on-disk notice");
  text = ts_window_get_banner (window, NULL, NULL);
  g_assert_nonnull (strstr (text, "changing.gguf"));
  g_assert_nonnull (strstr (text, "changed on disk"));
  save_screenshot (GTK_WIDGET (window), "changed-on-disk.png");
  /* it stays until acted on */
  ts_test_run_for (500);
  g_assert_true (reload_offered (window));

  /* Reload reads the file as it is now: 7 bytes short, so truncated */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.reload", NULL);
  g_assert_null (ts_window_get_banner (window, NULL, NULL));
  ts_test_wait_until (shows_error, window, 20, "the reloaded file");
  g_assert_true (ts_window_get_model (window) != before);
  g_assert_nonnull (strstr (ts_window_get_error_message (window), "changing.gguf"));

  gtk_window_destroy (GTK_WINDOW (window));
}

/* Down in the filter box goes to the first match (the list view alone went
 * back to the row it last had focus on: the 4th of 4 matches). GTK 4.8's
 * list view keeps its own idea of the focus row for the next arrow key;
 * newer GTK takes it from the focused row. */
static void
test_down_from_filter (void)
{
  TsWindow *window = open_in_new_window (gguf_path);
  TsTensorTable *table = ts_window_get_tensor_table (window);
  GtkWidget *view = ts_test_find_descendant (GTK_WIDGET (table), GTK_TYPE_COLUMN_VIEW);
  GtkWidget *list = ts_test_find_descendant (view, GTK_TYPE_LIST_VIEW);
  GtkWidget *entry = ts_test_find_descendant (GTK_WIDGET (table), GTK_TYPE_SEARCH_ENTRY);
  GtkSingleSelection *selection = GTK_SINGLE_SELECTION (ts_tensor_table_get_selection (table));
  GtkEventController *key = find_controller (entry, "down-to-rows");
  gboolean handled = FALSE;
  GtkWidget *focus;

  g_assert_nonnull (key);
  /* the list's focus row, somewhere down */
  gtk_widget_grab_focus (view);
  for (guint i = 0; i < 6; i++)
    gtk_widget_child_focus (list, GTK_DIR_DOWN);
  ts_test_run_for (100);
  g_assert_cmpuint (gtk_single_selection_get_selected (selection), >=, 3);

  ts_tensor_table_set_filter_text (table, "blk.3.ffn_");
  wait_for_rows (table);
  g_assert_cmpuint (ts_tensor_table_get_n_rows (table), ==, 4);
  gtk_widget_grab_focus (entry);
  g_signal_emit_by_name (key, "key-pressed", GDK_KEY_Down, 0, 0, &handled);
  g_assert_true (handled);
  ts_test_run_for (100);
  g_assert_cmpuint (gtk_single_selection_get_selected (selection), ==, 0);
  /* the focus is on the first row (the list view's first child at the top) */
  focus = gtk_root_get_focus (GTK_ROOT (window));
  g_assert_nonnull (focus);
  g_assert_true (focus == gtk_widget_get_first_child (list) ||
                 gtk_widget_is_ancestor (focus, gtk_widget_get_first_child (list)));

  /* Enter in the filter box does the same */
  gtk_single_selection_set_selected (selection, 2);
  gtk_widget_grab_focus (entry);
  g_signal_emit_by_name (entry, "activate");
  g_assert_cmpuint (gtk_single_selection_get_selected (selection), ==, 0);
  focus = gtk_root_get_focus (GTK_ROOT (window));
  g_assert_true (focus != NULL && gtk_widget_is_ancestor (focus, view));

  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_zoom (void)
{
  TsWindow *window = open_in_new_window (gguf_path);
  TsLayoutView *view = ts_window_get_layout_view (window);
  TsLayout *layout = ts_layout_view_get_layout (view);
  TsTensor *tensor = ts_model_file_lookup_tensor (ts_window_get_model (window), "blk.1.attn_q.weight");
  guint band = ts_layout_find_tensor (layout, tensor);
  guint64 start, end;

  g_assert_false (ts_layout_view_get_zoomed (view));
  ts_layout_view_zoom_to_band (view, band);
  g_assert_true (ts_layout_view_get_zoomed (view));
  ts_layout_get_view_range (layout, &start, &end);
  g_assert_cmpuint (start, <=, ts_tensor_get_offset (tensor));
  g_assert_cmpuint (end, >=, ts_tensor_get_offset (tensor) + ts_tensor_get_size (tensor));
  g_assert_cmpuint (end - start, <, 2 * ts_tensor_get_size (tensor));
  save_screenshot (GTK_WIDGET (window), "zoomed.png");

  /* a zoom step from there, then back: to the band, not to the whole file */
  {
    guint64 band_start = start, band_end = end;

    g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.zoom-in", NULL));
    ts_layout_get_view_range (layout, &start, &end);
    g_assert_cmpuint (end - start, <, band_end - band_start);
    g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.zoom-back", NULL));
    ts_layout_get_view_range (layout, &start, &end);
    g_assert_cmpuint (start, ==, band_start);
    g_assert_cmpuint (end, ==, band_end);
  }

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.zoom-back", NULL));
  g_assert_false (ts_layout_view_get_zoomed (view));

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.zoom-in", NULL));
  g_assert_true (ts_layout_view_get_zoomed (view));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.zoom-reset", NULL));
  g_assert_false (ts_layout_view_get_zoomed (view));

  gtk_window_destroy (GTK_WINDOW (window));
}

/* the text this process put on @widget's clipboard */
static char *
clipboard_text (GtkWidget *widget)
{
  GdkContentProvider *content = gdk_clipboard_get_content (gtk_widget_get_clipboard (widget));
  GValue value = G_VALUE_INIT;
  char *text = NULL;

  if (content == NULL)
    return NULL;
  g_value_init (&value, G_TYPE_STRING);
  if (gdk_content_provider_get_value (content, &value, NULL))
    text = g_value_dup_string (&value);
  g_value_unset (&value);
  return text;
}

/* Ctrl+C on an array of 480 KB copies what fits in 256,000 bytes and says
 * how many items it left out: above 262,144 bytes GTK sends X11 clipboard
 * data in pieces, and a reader that stopped halfway froze the window for
 * good (a 128k-token vocabulary, 840 KB, did). */
static void
test_copy_big_array (void)
{
  g_autoptr(GByteArray) out = gguf_begin (0, 2);
  g_autofree char *path = NULL;
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  TsWindow *window;
  TsMetadataView *view;
  guint n_lines, n_items = 40000;

  put_kv_str (out, "general.architecture", "llama");
  ts_test_put_str (out, "tokenizer.ggml.tokens");
  ts_test_put_u32 (out, 9);
  ts_test_put_u32 (out, 8);
  ts_test_put_u64 (out, n_items);
  for (guint i = 0; i < n_items; i++)
    {
      g_autofree char *token = g_strdup_printf ("token-%05u", i);

      ts_test_put_str (out, token);
    }
  path = gguf_save (out, "big-array.gguf");

  window = open_in_new_window (path);
  view = ts_window_get_metadata_view (window);
  ts_window_show_view (window, "metadata");
  g_assert_true (ts_metadata_view_select_key (view, "tokenizer.ggml.tokens"));
  gtk_widget_activate_action (GTK_WIDGET (view), "metadata.copy-value", NULL);
  text = clipboard_text (GTK_WIDGET (view));
  g_assert_nonnull (text);
  g_assert_cmpuint (strlen (text), <=, 256000);
  g_assert_cmpuint (strlen (text), >, 250000);
  lines = g_strsplit (text, "\n", -1);
  n_lines = g_strv_length (lines);
  /* the items in order, then "… and N more items, not copied", then "" */
  g_assert_cmpstr (lines[0], ==, "token-00000");
  {
    g_autofree char *last_item = g_strdup_printf ("token-%05u", n_lines - 3);
    g_autofree char *more = ts_format_count (n_items - (n_lines - 2));
    g_autofree char *note = g_strdup_printf ("… and %s more items, not copied", more);

    g_assert_cmpstr (lines[n_lines - 3], ==, last_item);
    g_assert_cmpstr (lines[n_lines - 2], ==, note);
    g_assert_cmpstr (lines[n_lines - 1], ==, "");
  }
  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_metadata (void)
{
  TsWindow *window = open_in_new_window (gguf_path);
  TsMetadataView *view = ts_window_get_metadata_view (window);

  ts_window_show_view (window, "metadata");
  g_assert_cmpuint (ts_metadata_view_get_n_rows (view), ==, 8);
  g_assert_cmpstr (ts_metadata_view_get_count_text (view), ==, "8 entries");
  /* filtered, it counts as the tensor table does */
  ts_metadata_view_set_filter_text (view, "tokenizer.ggml");
  ts_test_run_for (500);
  g_assert_cmpuint (ts_metadata_view_get_n_rows (view), <, 8);
  {
    g_autofree char *want = g_strdup_printf ("%u of 8 entries", ts_metadata_view_get_n_rows (view));

    g_assert_cmpstr (ts_metadata_view_get_count_text (view), ==, want);
  }
  ts_metadata_view_set_filter_text (view, "");
  ts_test_run_for (500);
  g_assert_cmpuint (ts_metadata_view_get_n_rows (view), ==, 8);

  g_assert_true (ts_metadata_view_select_key (view, "tokenizer.chat_template"));
  save_screenshot (GTK_WIDGET (window), "metadata-template.png");

  /* Ctrl+C copies the whole value: a string as it is, an array a line an item */
  gtk_widget_activate_action (GTK_WIDGET (view), "metadata.copy-value", NULL);
  {
    g_autofree char *text = clipboard_text (GTK_WIDGET (view));

    g_assert_nonnull (text);
    g_assert_true (g_str_has_prefix (text, "{{- bos_token }}\n{%- if custom_tools is defined %}"));
    g_assert_true (g_str_has_suffix (text, "{%- endif %}\n"));
  }
  g_assert_true (ts_metadata_view_select_key (view, "llama.block_count"));
  gtk_widget_activate_action (GTK_WIDGET (view), "metadata.copy-value", NULL);
  {
    g_autofree char *text = clipboard_text (GTK_WIDGET (view));

    g_assert_cmpstr (text, ==, "4");
  }
  g_assert_true (ts_metadata_view_select_key (view, "tokenizer.ggml.merges"));
  gtk_widget_activate_action (GTK_WIDGET (view), "metadata.copy-value", NULL);
  {
    g_autofree char *text = clipboard_text (GTK_WIDGET (view));
    g_auto(GStrv) lines = g_strsplit (text, "\n", -1);

    g_assert_cmpuint (g_strv_length (lines), ==, N_MERGES + 1);   /* and the last newline */
  }

  g_assert_true (ts_metadata_view_select_key (view, "tokenizer.ggml.tokens"));
  g_assert_cmpuint (ts_metadata_view_get_page_start (view), ==, 0);
  ts_metadata_view_go_to_index (view, 1100);
  g_assert_cmpuint (ts_metadata_view_get_page_start (view), ==, 1000);
  save_screenshot (GTK_WIDGET (window), "metadata-array.png");
  /* from the items list, Ctrl+C copies the item, not the whole array */
  {
    /* the items list: in the detail side of the view's paned */
    GtkWidget *paned = ts_test_find_descendant (GTK_WIDGET (view), GTK_TYPE_PANED);
    GtkWidget *items = ts_test_find_descendant (gtk_paned_get_end_child (GTK_PANED (paned)),
                                                GTK_TYPE_LIST_VIEW);
    g_autofree char *text = NULL;

    g_assert_nonnull (items);
    gtk_widget_grab_focus (items);
    gtk_widget_activate_action (GTK_WIDGET (view), "metadata.copy-value", NULL);
    text = clipboard_text (GTK_WIDGET (view));
    g_assert_cmpstr (text, ==, "<|needle|>");
  }
  ts_metadata_view_go_to_index (view, 5);
  g_assert_cmpuint (ts_metadata_view_get_page_start (view), ==, 0);
  /* another array starts with an empty Find item: the last search was not
   * about it */
  {
    GtkWidget *paned = ts_test_find_descendant (GTK_WIDGET (view), GTK_TYPE_PANED);
    GtkWidget *find = ts_test_find_descendant (gtk_paned_get_end_child (GTK_PANED (paned)),
                                               GTK_TYPE_SEARCH_ENTRY);

    g_assert_nonnull (find);
    gtk_editable_set_text (GTK_EDITABLE (find), "needle");
    g_assert_true (ts_metadata_view_select_key (view, "tokenizer.ggml.merges"));
    g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (find)), ==, "");
  }

  g_assert_false (ts_metadata_view_select_key (view, "no.such.key"));

  gtk_window_destroy (GTK_WINDOW (window));
}

static void
check_error_page (const char *path,
                  const char *expected,
                  const char *subtitle,
                  gboolean    can_retry,
                  const char *screenshot)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  TsWindow *window = ts_window_new (app);
  g_autofree char *message = NULL;
  GtkWidget *retry;

  gtk_window_present (GTK_WINDOW (window));
  ts_window_open (window, file);
  ts_test_wait_for_page (window, "error");

  /* the core's own message, not a generic one */
  message = g_ascii_strdown (ts_window_get_error_message (window), -1);
  g_test_message ("error: %s", ts_window_get_error_message (window));
  g_assert_cmpuint (strlen (message), >, 10);
  g_assert_nonnull (strstr (message, expected));
  g_assert_null (ts_window_get_model (window));
  /* the header bar says what kind of failure */
  g_assert_nonnull (ts_test_find_label (gtk_window_get_titlebar (GTK_WINDOW (window)), subtitle));
  /* Try Again where the file may yet become readable (a download going
   * on, a shard to fetch), not for a file of another kind */
  retry = ts_test_find_button (GTK_WIDGET (window), "_Try Again");
  g_assert_nonnull (retry);
  g_assert_cmpint (gtk_widget_get_visible (retry), ==, can_retry);
  /* the focus is on a button, not on the selectable message (which would
   * start fully selected) */
  ts_test_run_for (300);
  g_assert_true (GTK_IS_BUTTON (gtk_root_get_focus (GTK_ROOT (window))));
  for (guint i = 0; i < 8; i++)
    {
      gtk_widget_child_focus (GTK_WIDGET (window), GTK_DIR_TAB_FORWARD);
      g_assert_false (GTK_IS_LABEL (gtk_root_get_focus (GTK_ROOT (window))));
    }
  ts_test_assert_tab_moves (GTK_WINDOW (window), 8);
  gtk_widget_grab_focus (GTK_WIDGET (window));
  if (screenshot != NULL)
    save_screenshot (GTK_WIDGET (window), screenshot);

  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_hostile (void)
{
  static const char lfs[] =
    "version https://git-lfs.github.com/spec/v1\n"
    "oid sha256:4d7a2146f0e1a4a5f0e9e0c0bf5d2b1f8fbd1f3c5a1d0e2f6a4b7c8d9e0f1a2b\n"
    "size 4965799096\n";
  /* a picture dropped by mistake: the PNG signature and an IHDR start */
  static const guint8 png[] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13, 'I', 'H', 'D', 'R' };
  guint8 bad_version[24] = { 'G', 'G', 'U', 'F', 99, 0, 0, 0 };
  g_autofree char *lfs_path = write_file ("model.safetensors", lfs, sizeof lfs - 1);
  g_autofree char *version_path = write_file ("bad-version.gguf", (const char *) bad_version, sizeof bad_version);
  g_autofree char *png_path = write_file ("picture.png", (const char *) png, sizeof png);
  g_autofree char *truncated = NULL;
  g_autofree char *contents = NULL;
  gsize len;

  check_error_page (lfs_path, "lfs", "Not a readable model file", TRUE, "error-lfs.png");
  check_error_page (version_path, "version", "Not a readable model file", TRUE, NULL);
  check_error_page (png_path, "neither a gguf file", "Not a readable model file", FALSE, "error-png.png");

  /* the fixture cut in the middle of its tensor data */
  g_assert_true (g_file_get_contents (gguf_path, &contents, &len, NULL));
  truncated = write_file ("truncated.gguf", contents, len - 1000);
  check_error_page (truncated, "truncated.gguf", "Not a readable model file", TRUE, "error-truncated.png");

  /* a path that is not there (a stale link from a file manager, say) */
  {
    g_autofree char *missing = g_build_filename (fixture_dir, "no-such-model.gguf", NULL);

    check_error_page (missing, "there is no such file in", "No such file", TRUE, "error-missing.png");
  }
}

/* A file name need not be UTF-8, and GTK's labels and Pango take nothing
 * else (a raw \xff warned "Invalid UTF-8 string passed to
 * pango_layout_set_text()" and an assertion failed in GVariant, both fatal
 * here): the window names such a file by its display name, U+FFFD for the
 * byte, whether it opens or not */
static void
test_name_not_utf8 (void)
{
  g_autofree char *contents = NULL;
  g_autofree char *odd = NULL;
  g_autofree char *missing = g_build_filename (fixture_dir, "absent\xff.gguf", NULL);
  g_autoptr(GFile) file = NULL;
  TsWindow *window;
  gsize len;

  g_assert_true (g_file_get_contents (gguf_path, &contents, &len, NULL));
  odd = write_file ("tiny\xff\xfe.gguf", contents, (gssize) len);
  file = g_file_new_for_path (odd);
  window = ts_window_new (app);
  gtk_window_present (GTK_WINDOW (window));
  ts_window_open (window, file);
  ts_test_wait_for_page (window, "model");
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (window)), ==, "tiny\ufffd\ufffd.gguf");
  g_assert_cmpstr (ts_model_file_get_display_name (ts_window_get_model (window)), ==,
                   "tiny\ufffd\ufffd.gguf");
  /* the layout's strip heading is drawn with Pango too */
  ts_window_show_view (window, "tensors");
  ts_test_run_for (200);
  gtk_window_destroy (GTK_WINDOW (window));

  check_error_page (missing, "absent\ufffd.gguf: there is no such file in", "No such file", TRUE, NULL);
}

static void
test_drop (void)
{
  TsWindow *window = ts_window_new (app);
  GtkDropTarget *target = ts_window_get_drop_target (window);
  g_autoptr(GFile) file = g_file_new_for_path (gguf_path);
  g_autoptr(GSList) list = g_slist_prepend (NULL, file);
  g_auto(GValue) value = G_VALUE_INIT;
  GdkDragAction action = 0;
  gboolean handled = FALSE;

  gtk_window_present (GTK_WINDOW (window));
  ts_test_run_for (100);
  g_assert_cmpstr (ts_window_get_page (window), ==, "empty");

  /* dragging over the window shows the highlight */
  g_signal_emit_by_name (target, "enter", 100.0, 100.0, &action);
  g_assert_cmpint (action, ==, GDK_ACTION_COPY);
  g_assert_true (ts_window_get_drop_active (window));
  save_screenshot (GTK_WIDGET (window), "drop-highlight.png");

  g_value_init (&value, GDK_TYPE_FILE_LIST);
  g_value_take_boxed (&value, gdk_file_list_new_from_list (list));
  g_signal_emit_by_name (target, "drop", &value, 100.0, 100.0, &handled);
  g_assert_true (handled);
  g_assert_false (ts_window_get_drop_active (window));
  ts_test_wait_for_page (window, "model");
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (window)), ==, "tiny-llama.gguf");

  gtk_window_destroy (GTK_WINDOW (window));
}

/* File @no (from 0) of a GGUF split set of @count as llama.cpp's
 * gguf-split lays it out: the first with the model's metadata, each with
 * split.no and split.count (uint16), one F32 tensor of 8 values each. */
static void
write_split_file (const char *dir,
                  guint       no,
                  guint       count)
{
  g_autoptr(GByteArray) out = g_byte_array_new ();
  g_autofree char *name = g_strdup_printf ("set-%05u-of-%05u.gguf", no + 1, count);
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autofree char *tensor = g_strdup_printf ("blk.%u.ffn_norm.weight", no);
  g_autoptr(GError) error = NULL;
  const guint16 split_keys[2] = { GUINT16_TO_LE (no), GUINT16_TO_LE (count) };
  const char *split_names[2] = { "split.no", "split.count" };

  g_byte_array_append (out, (const guint8 *) "GGUF", 4);
  ts_test_put_u32 (out, 3);
  ts_test_put_u64 (out, 1);
  ts_test_put_u64 (out, no == 0 ? 3 : 2);
  if (no == 0)
    {
      ts_test_put_str (out, "general.architecture");
      ts_test_put_u32 (out, 8);           /* string */
      ts_test_put_str (out, "llama");
    }
  for (guint i = 0; i < 2; i++)
    {
      ts_test_put_str (out, split_names[i]);
      ts_test_put_u32 (out, 2);           /* uint16 */
      g_byte_array_append (out, (const guint8 *) &split_keys[i], 2);
    }
  ts_test_put_str (out, tensor);
  ts_test_put_u32 (out, 1);
  ts_test_put_u64 (out, 8);
  ts_test_put_u32 (out, 0);               /* F32 */
  ts_test_put_u64 (out, 0);
  while (out->len % 32 != 0)
    g_byte_array_append (out, (const guint8 *) "", 1);
  for (guint i = 0; i < 8; i++)
    ts_test_put_u32 (out, 0x3f800000);    /* 1.0f */
  g_assert_true (g_file_set_contents (path, (const char *) out->data, out->len, &error));
  g_assert_no_error (error);
}

/* A GGUF split set, opened at its second file: the whole model, one strip
 * and File per file, and the summary says it is a set */
static void
test_gguf_split_set (void)
{
  g_autofree char *dir = g_build_filename (fixture_dir, "split-set", NULL);
  g_autofree char *second = g_build_filename (dir, "set-00002-of-00003.gguf", NULL);
  TsWindow *window;
  TsModelFile *model;

  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  for (guint i = 0; i < 3; i++)
    write_split_file (dir, i, 3);
  window = open_in_new_window (second);
  model = ts_window_get_model (window);
  g_assert_cmpuint (g_list_model_get_n_items (ts_model_file_get_parts (model)), ==, 3);
  g_assert_cmpuint (ts_model_file_get_n_tensors (model), ==, 3);
  {
    g_autofree char *subtitle = ts_model_file_dup_summary (model);

    g_assert_true (g_str_has_prefix (subtitle, "GGUF v3, 3 files · "));
    g_assert_nonnull (ts_test_find_label (gtk_window_get_titlebar (GTK_WINDOW (window)), subtitle));
  }
  ts_window_show_view (window, "summary");
  g_assert_nonnull (ts_test_find_label (GTK_WIDGET (ts_window_get_summary_view (window)),
                                        "GGUF version 3, split into 3 files"));
  save_screenshot (GTK_WIDGET (window), "gguf-split-set.png");
  gtk_window_destroy (GTK_WINDOW (window));
}

static gboolean
layout_laid_out (gpointer data)
{
  TsLayout *layout = ts_layout_view_get_layout (data);

  return layout != NULL && !ts_layout_view_get_pending (data) && ts_layout_get_height (layout) > 0;
}

/* the diagram pane of @window once its diagram is laid out and the divider
 * placed; @natural: the height the pane's side asks for */
static GtkPaned *
settled_layout_pane (TsWindow *window,
                     int      *natural)
{
  TsLayoutView *view = ts_window_get_layout_view (window);
  GtkPaned *paned = GTK_PANED (gtk_widget_get_ancestor (GTK_WIDGET (view), GTK_TYPE_PANED));

  ts_test_wait_until (layout_laid_out, view, 10, "the diagram to be laid out");
  ts_test_run_for (300);
  gtk_widget_measure (gtk_paned_get_start_child (paned), GTK_ORIENTATION_VERTICAL,
                      gtk_widget_get_width (GTK_WIDGET (paned)), NULL, natural, NULL, NULL);
  return paned;
}

/* the whole diagram shows: the pane scrolls no further than it is tall */
static void
assert_nothing_to_scroll (TsWindow *window)
{
  GtkWidget *viewport = gtk_widget_get_ancestor (GTK_WIDGET (ts_window_get_layout_view (window)),
                                                 GTK_TYPE_VIEWPORT);
  GtkAdjustment *adj = gtk_scrollable_get_vadjustment (GTK_SCROLLABLE (viewport));

  g_assert_cmpfloat (gtk_adjustment_get_upper (adj), <=, gtk_adjustment_get_page_size (adj) + 1);
}

/* The user's keyboard move of @paned's divider, as F8 (focus the handle),
 * Page Up @steps times (75 px each) and Enter do it */
static void
move_divider_by_keyboard (GtkPaned *paned,
                          guint     steps)
{
  gboolean handled = FALSE;

  g_signal_emit_by_name (paned, "cycle-handle-focus", FALSE, &handled);
  g_assert_true (gtk_widget_has_focus (GTK_WIDGET (paned)));
  for (guint i = 0; i < steps; i++)
    {
      g_signal_emit_by_name (paned, "move-handle", GTK_SCROLL_PAGE_UP, &handled);
      g_assert_true (handled);
    }
  g_signal_emit_by_name (paned, "accept-position", &handled);
  ts_test_run_for (100);
}

static int
stored_pane_height (GSettings *settings)
{
  g_autoptr(GVariant) chosen = g_settings_get_user_value (settings, "layout-pane-height");

  return chosen != NULL ? g_variant_get_int32 (chosen) : -1;
}

/* The diagram pane fits its diagram, up to 60 % of the paned while no
 * height was chosen (it kept a fixed 330 px: a one-file GGUF left a band
 * of blank under its legend, the sharded sample's second strip was cut
 * off), and again when the window is resized; a divider the user moves
 * stays there, and is the most later windows take, stored on close even
 * after another model showed in the window */
static void
test_layout_pane_fits (void)
{
  GSettings *settings = ts_application_get_settings (TS_APPLICATION (app));
  g_autofree char *dir = g_build_filename (fixture_dir, "pane-sample", NULL);
  g_autoptr(GFile) folder = g_file_new_for_path (dir);
  g_autoptr(GFile) gguf = g_file_new_for_path (gguf_path);
  g_autoptr(GError) error = NULL;
  TsSampleOptions options;
  TsWindow *window;
  GtkPaned *paned;
  int natural, moved, width, height;

  ts_sample_options_init (&options);
  g_assert_true (ts_sample_write (folder, &options, NULL, &error));
  g_assert_no_error (error);
  g_settings_reset (settings, "layout-pane-height");

  /* a one-file GGUF: the pane ends where its diagram does */
  window = open_in_new_window (gguf_path);
  paned = settled_layout_pane (window, &natural);
  g_test_message ("GGUF: pane %d, natural %d, paned %d", gtk_paned_get_position (paned), natural,
                  gtk_widget_get_height (GTK_WIDGET (paned)));
  g_assert_cmpint (natural, <, gtk_widget_get_height (GTK_WIDGET (paned)) * 60 / 100);
  g_assert_cmpint (gtk_paned_get_position (paned), ==, natural);
  assert_nothing_to_scroll (window);
  save_screenshot (GTK_WIDGET (window), "layout-pane-fits-gguf.png");
  gtk_window_close (GTK_WINDOW (window));
  ts_test_run_for (100);
  g_assert_cmpint (stored_pane_height (settings), ==, -1);

  /* the built-in sample's two strips, labels and legend whole */
  window = open_in_new_window (dir);
  paned = settled_layout_pane (window, &natural);
  g_test_message ("sample: pane %d, natural %d, paned %d", gtk_paned_get_position (paned), natural,
                  gtk_widget_get_height (GTK_WIDGET (paned)));
  g_assert_cmpint (natural, >, 330);
  g_assert_cmpint (gtk_paned_get_position (paned), ==,
                   MIN (natural, gtk_widget_get_height (GTK_WIDGET (paned)) * 60 / 100));
  if (natural <= gtk_widget_get_height (GTK_WIDGET (paned)) * 60 / 100)
    assert_nothing_to_scroll (window);
  save_screenshot (GTK_WIDGET (window), "layout-pane-fits-sample.png");

  /* a shorter window: the pane fits within its 60 % again, and a resize
   * is not the user's choice */
  gtk_window_get_default_size (GTK_WINDOW (window), &width, &height);
  gtk_window_set_default_size (GTK_WINDOW (window), width, 480);
  ts_test_run_for (500);
  paned = settled_layout_pane (window, &natural);
  g_test_message ("short window, sample: pane %d, natural %d, paned %d", gtk_paned_get_position (paned), natural,
                  gtk_widget_get_height (GTK_WIDGET (paned)));
  g_assert_cmpint (natural, >, gtk_widget_get_height (GTK_WIDGET (paned)) * 60 / 100);
  {
    int max_position;

    /* (or as far as the tables' minimum lets it) */
    g_object_get (paned, "max-position", &max_position, NULL);
    g_assert_cmpint (gtk_paned_get_position (paned), ==,
                     MIN (gtk_widget_get_height (GTK_WIDGET (paned)) * 60 / 100, max_position));
  }
  gtk_window_set_default_size (GTK_WINDOW (window), width, height);
  ts_test_run_for (500);
  paned = settled_layout_pane (window, &natural);
  g_assert_cmpint (gtk_paned_get_position (paned), ==, natural);

  /* the user moves the divider: it stays there through a new geometry (a
   * zoom), and another model in the same window fits within it */
  move_divider_by_keyboard (paned, 2);
  moved = gtk_paned_get_position (paned);
  g_assert_cmpint (moved, <, natural);
  ts_layout_view_zoom_in (ts_window_get_layout_view (window));
  ts_test_wait_until (layout_laid_out, ts_window_get_layout_view (window), 10, "the zoomed diagram");
  ts_test_run_for (300);
  g_assert_cmpint (gtk_paned_get_position (paned), ==, moved);
  ts_window_open (window, gguf);
  ts_test_run_for (300);
  ts_test_wait_for_page (window, "model");
  paned = settled_layout_pane (window, &natural);
  g_assert_cmpint (gtk_paned_get_position (paned), ==, MIN (natural, moved));
  gtk_window_close (GTK_WINDOW (window));
  ts_test_run_for (100);
  g_assert_cmpint (stored_pane_height (settings), ==, moved);

  /* a later window: the sample's diagram takes at most that */
  window = open_in_new_window (dir);
  paned = settled_layout_pane (window, &natural);
  g_assert_cmpint (gtk_paned_get_position (paned), ==, moved);
  gtk_window_destroy (GTK_WINDOW (window));

  /* a chosen height taller than a diagram: the pane still ends with it;
   * closed without a move, nothing new is stored */
  g_settings_set_int (settings, "layout-pane-height", 700);
  window = open_in_new_window (gguf_path);
  paned = settled_layout_pane (window, &natural);
  g_assert_cmpint (gtk_paned_get_position (paned), ==, natural);
  gtk_window_close (GTK_WINDOW (window));
  ts_test_run_for (100);
  g_assert_cmpint (stored_pane_height (settings), ==, 700);
  g_settings_reset (settings, "layout-pane-height");
}

static void
test_sharded_sample (void)
{
  g_autofree char *dir = g_build_filename (fixture_dir, "sample", NULL);
  g_autoptr(GFile) folder = g_file_new_for_path (dir);
  g_autoptr(GError) error = NULL;
  TsSampleOptions options;
  TsWindow *window;
  TsLayout *layout;
  guint n_parts;

  ts_sample_options_init (&options);
  g_assert_true (ts_sample_write (folder, &options, NULL, &error));
  g_assert_no_error (error);

  window = open_in_new_window (dir);
  n_parts = g_list_model_get_n_items (ts_model_file_get_parts (ts_window_get_model (window)));
  g_assert_cmpuint (n_parts, ==, options.n_shards);
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (window)), ==, "sample");

  /* one strip per shard on a common scale: the smaller shard is shorter */
  layout = ts_layout_view_get_layout (ts_window_get_layout_view (window));
  g_assert_cmpuint (ts_layout_get_max_part_size (layout), >, 0);
  save_screenshot (GTK_WIDGET (window), "model-sharded.png");

  /* a sharded checkpoint's File column, sorted by the table's action, is
   * an item of the sort menu */
  {
    TsTensorTable *table = ts_window_get_tensor_table (window);
    GtkWidget *button = ts_test_find_descendant (GTK_WIDGET (table), GTK_TYPE_MENU_BUTTON);
    GtkWidget *popover;
    g_autofree char *column = NULL;

    ts_window_show_view (window, "tensors");
    g_assert_true (gtk_widget_activate_action (GTK_WIDGET (table), "table.sort-column", "s", "part"));
    g_object_get (table, "sort-column", &column, NULL);
    g_assert_cmpstr (column, ==, "part");
    gtk_menu_button_popup (GTK_MENU_BUTTON (button));
    ts_test_run_for (200);
    popover = GTK_WIDGET (gtk_menu_button_get_popover (GTK_MENU_BUTTON (button)));
    assert_menu_item (popover, "File", TRUE);
    assert_menu_item (popover, "Ascending", TRUE);
    gtk_menu_button_popdown (GTK_MENU_BUTTON (button));

    /* a filter that matches nothing suggests a layer as Hugging Face
     * spells it */
    ts_tensor_table_set_filter_text (table, "no-such-tensor");
    wait_for_rows (table);
    g_assert_nonnull (ts_test_find_label (GTK_WIDGET (table), "such as “attn” or “layers.3.”"));
    ts_tensor_table_set_filter_text (table, "");
    wait_for_rows (table);
  }

  /* the keyboard's band is always on screen, in a pane shorter than the
   * strips: End, Home, … had left it off screen */
  {
    TsLayoutView *view = ts_window_get_layout_view (window);
    GtkWidget *viewport = gtk_widget_get_ancestor (GTK_WIDGET (view), GTK_TYPE_VIEWPORT);
    GtkAdjustment *adj = gtk_scrollable_get_vadjustment (GTK_SCROLLABLE (viewport));
    GtkEventController *key = find_controller_of_type (GTK_WIDGET (view), GTK_TYPE_EVENT_CONTROLLER_KEY,
                                                       GTK_PHASE_NONE);
    static const guint keys[] = { GDK_KEY_End, GDK_KEY_Home, GDK_KEY_Right, GDK_KEY_End, GDK_KEY_Left };
    gboolean handled;

    g_assert_nonnull (key);
    /* a pane shorter than the strips */
    gtk_paned_set_position (GTK_PANED (gtk_widget_get_ancestor (viewport, GTK_TYPE_PANED)), 160);
    gtk_adjustment_set_value (adj, gtk_adjustment_get_upper (adj));
    ts_test_run_for (300);
    g_assert_cmpfloat (gtk_adjustment_get_upper (adj), >, gtk_adjustment_get_page_size (adj) + 100);
    for (guint k = 0; k < G_N_ELEMENTS (keys); k++)
      {
        const TsLayoutBand *band;

        g_signal_emit_by_name (key, "key-pressed", keys[k], 0, 0, &handled);
        g_assert_true (handled);
        ts_test_run_for (100);
        g_assert_cmpuint (ts_layout_view_get_focus_band (view), !=, TS_LAYOUT_NO_BAND);
        band = ts_layout_get_band (layout, ts_layout_view_get_focus_band (view));
        g_assert_cmpfloat (band->y, >=, gtk_adjustment_get_value (adj));
        g_assert_cmpfloat (band->y + band->height, <=,
                           gtk_adjustment_get_value (adj) + gtk_adjustment_get_page_size (adj));
      }
  }

  gtk_window_destroy (GTK_WINDOW (window));
}

static void
on_exported (TsExportDialog *dialog,
             GFile          *file,
             gpointer        user_data)
{
  GFile **out = user_data;

  *out = g_object_ref (file);
}

static gboolean
size_known (gpointer data)
{
  return *ts_export_dialog_get_size_text (data) != '\0';
}

static gboolean
is_set (gpointer data)
{
  return *(gpointer *) data != NULL;
}

/* Enter exports (it opened the Format drop-down once): Export is the
 * default button and has the focus, and Enter in the width field activates
 * it too, which asks for the file name. */
static void
check_enter_exports (TsExportDialog *dialog)
{
  GtkWidget *export_button = gtk_window_get_default_widget (GTK_WINDOW (dialog));
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (dialog));
  GtkWidget *width_text = NULL;
  GtkWindow *chooser;

  g_assert_true (GTK_IS_BUTTON (export_button));
  g_assert_cmpstr (gtk_button_get_label (GTK_BUTTON (export_button)), ==, "_Export…");
  g_assert_true (focus == export_button);
  g_assert_true (gtk_widget_has_css_class (export_button, "suggested-action"));

  /* the spin button's text: Enter there emits its activate signal */
  width_text = gtk_widget_get_first_child (ts_test_find_descendant (GTK_WIDGET (dialog), GTK_TYPE_SPIN_BUTTON));
  while (width_text != NULL && !GTK_IS_TEXT (width_text))
    width_text = gtk_widget_get_next_sibling (width_text);
  g_assert_nonnull (width_text);
  g_assert_null (find_file_chooser ());
  /* what GtkText's Enter binding emits */
  g_signal_emit_by_name (width_text, "activate");
  for (guint i = 0; i < 50 && (chooser = find_file_chooser ()) == NULL; i++)
    ts_test_run_for (100);
  g_assert_nonnull (chooser);
#if !GTK_CHECK_VERSION (4, 10, 0)
  /* it starts beside the model, with the name alone in the name field */
  {
    g_autoptr(GFile) folder = gtk_file_chooser_get_current_folder (GTK_FILE_CHOOSER (chooser));
    g_autofree char *name = gtk_file_chooser_get_current_name (GTK_FILE_CHOOSER (chooser));

    g_assert_nonnull (folder);
    g_assert_cmpstr (g_file_peek_path (folder), ==, fixture_dir);
    g_assert_true (g_str_has_prefix (name, "tiny-llama-layout."));
  }
#endif
  gtk_window_close (chooser);
  for (guint i = 0; i < 50 && find_file_chooser () != NULL; i++)
    ts_test_run_for (100);
  g_assert_null (find_file_chooser ());
}

static void
test_export_dialog (void)
{
  TsWindow *window = open_in_new_window (gguf_path);
  TsLayout *layout = ts_layout_view_get_layout (ts_window_get_layout_view (window));
  TsExportDialog *dialog = ts_export_dialog_new (GTK_WINDOW (window), layout, NULL);
  g_autofree char *path = g_build_filename (fixture_dir, "diagram", NULL);
  g_autofree char *expected = g_build_filename (fixture_dir, "diagram.svg", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GFile) written = NULL;

  gtk_window_present (GTK_WINDOW (dialog));
  /* the size line comes once the dialog's layout is built on its worker,
   * and follows the width at once afterwards */
  ts_test_wait_until (size_known, dialog, 20, "the export size");
  ts_export_dialog_set_width (dialog, 1234);
  g_assert_true (g_str_has_prefix (ts_export_dialog_get_size_text (dialog), "1234 × "));
  g_assert_cmpint (g_ascii_strtoll (ts_export_dialog_get_size_text (dialog) + strlen ("1234 × "), NULL, 10), >, 0);
  /* narrower than 400 pixels the labels would run into each other */
  ts_export_dialog_set_width (dialog, 200);
  g_assert_true (g_str_has_prefix (ts_export_dialog_get_size_text (dialog), "400 × "));
  ts_export_dialog_set_width (dialog, 1600);
  g_assert_true (g_str_has_prefix (ts_export_dialog_get_size_text (dialog), "1600 × "));
  save_screenshot (GTK_WIDGET (dialog), "export-dialog.png");
  check_enter_exports (dialog);

  /* no extension: the format chosen in the dialog (SVG) adds one */
  g_signal_connect (dialog, "exported", G_CALLBACK (on_exported), &written);
  ts_export_dialog_export_to (dialog, file);
  ts_test_wait_until (is_set, &written, 20, "the export");
  g_assert_true (g_file_test (expected, G_FILE_TEST_IS_REGULAR));

  gtk_window_destroy (GTK_WINDOW (window));
}

static void
set_export_format (TsExportDialog       *dialog,
                   TsLayoutExportFormat  format)
{
  GtkWidget *dropdown = ts_test_find_descendant (GTK_WIDGET (dialog), GTK_TYPE_DROP_DOWN);

  g_assert_nonnull (dropdown);
  gtk_drop_down_set_selected (GTK_DROP_DOWN (dropdown), format);
}

/* A checkpoint of many shards makes a tall diagram: the dialog says
 * before the export that a PDF page that large is scaled down to what
 * PDF readers open (and the PDF is), and that a PNG that tall cannot be
 * made (and the export says why) */
static void
test_export_page_limits (void)
{
  g_autofree char *dir = g_build_filename (fixture_dir, "many-shards", NULL);
  g_autofree char *pdf_path = g_build_filename (fixture_dir, "many-shards.pdf", NULL);
  g_autoptr(GFile) folder = g_file_new_for_path (dir);
  g_autoptr(GFile) pdf = g_file_new_for_path (pdf_path);
  g_autoptr(GFile) written = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *contents = NULL;
  g_autofree char *box = NULL;
  TsSampleOptions options;
  TsExportDialog *dialog;
  TsWindow *window;
  const char *text;
  int page_width, page_height;
  gsize len;

  ts_sample_options_init (&options);
  options.n_layers = 250;
  options.n_shards = 250;
  options.hidden_size = 64;
  options.intermediate_size = 128;
  options.vocab_size = 1024;
  g_assert_true (ts_sample_write (folder, &options, NULL, &error));
  g_assert_no_error (error);

  /* the view draws it too, taller than one texture can be */
  window = open_in_new_window (dir);
  save_screenshot (GTK_WIDGET (window), "many-shards.png");
  dialog = ts_export_dialog_new (GTK_WINDOW (window), ts_layout_view_get_layout (ts_window_get_layout_view (window)), NULL);
  gtk_window_present (GTK_WINDOW (dialog));
  ts_test_wait_until (size_known, dialog, 20, "the export size");

  set_export_format (dialog, TS_LAYOUT_EXPORT_PNG);
  ts_export_dialog_set_width (dialog, 1600);
  text = ts_export_dialog_get_size_text (dialog);
  g_test_message ("PNG: %s", text);
  g_assert_true (g_str_has_prefix (text, "1600 × "));
  g_assert_cmpint (g_ascii_strtoll (text + strlen ("1600 × "), NULL, 10), >, TS_LAYOUT_IMAGE_MAX_SIDE);
  g_assert_nonnull (strstr (text, "too tall for a PNG image"));
  /* an export that would fail is not offered */
  g_assert_false (gtk_widget_get_sensitive (gtk_window_get_default_widget (GTK_WINDOW (dialog))));
  save_screenshot (GTK_WIDGET (dialog), "export-dialog-png-too-tall.png");

  set_export_format (dialog, TS_LAYOUT_EXPORT_PDF);
  text = ts_export_dialog_get_size_text (dialog);
  g_test_message ("PDF: %s", text);
  g_assert_nonnull (strstr (text, " points, scaled to "));
  g_assert_nonnull (strstr (text, " × 14400 to fit a PDF page"));
  g_assert_cmpint (sscanf (strstr (text, "scaled to "), "scaled to %d × %d", &page_width, &page_height), ==, 2);
  g_assert_cmpint (page_height, ==, TS_LAYOUT_PDF_MAX_SIDE);
  g_assert_cmpint (page_width, <, 1600);
  g_assert_true (gtk_widget_get_sensitive (gtk_window_get_default_widget (GTK_WINDOW (dialog))));
  save_screenshot (GTK_WIDGET (dialog), "export-dialog-scaled.png");

  /* the page written is the one the dialog announced */
  g_signal_connect (dialog, "exported", G_CALLBACK (on_exported), &written);
  ts_export_dialog_export_to (dialog, pdf);
  ts_test_wait_until (is_set, &written, 60, "the PDF export");
  g_assert_true (g_file_get_contents (pdf_path, &contents, &len, NULL));
  box = g_strdup_printf ("/MediaBox [ 0 0 %d %d ]", page_width, page_height);
  /* (memmem: the page streams hold NUL bytes) */
  g_assert_nonnull (memmem (contents, len, box, strlen (box)));

  gtk_window_destroy (GTK_WINDOW (window));
}

static gboolean
banner_shows (gpointer data)
{
  return ts_window_get_banner (data, NULL, NULL) != NULL;
}

static gboolean
file_exists (gpointer data)
{
  return g_file_test (data, G_FILE_TEST_IS_REGULAR);
}

/* the types GIO may give an SVG in the test's isolated XDG folders, where
 * the shared MIME database may be out of reach */
static const char *const svg_types[] = {
  "image/svg+xml", "application/xml", "text/xml", "text/plain", "application/octet-stream",
};

/* Makes a desktop file the default application for those types, in this
 * test's isolated XDG folders: it copies the file it is given to @copy
 * through a temporary name, so that @copy appears whole. */
static void
install_test_opener (const char *copy)
{
  g_autofree char *apps = g_build_filename (g_get_user_data_dir (), "applications", NULL);
  g_autofree char *desktop = g_build_filename (apps, "ts-test-opener.desktop", NULL);
  g_autofree char *mimeapps = g_build_filename (g_get_user_config_dir (), "mimeapps.list", NULL);
  g_autoptr(GString) entry = g_string_new (NULL);
  g_autoptr(GString) defaults = g_string_new ("[Default Applications]\n");
  g_autoptr(GError) error = NULL;

  g_string_append_printf (entry, "[Desktop Entry]\nType=Application\n"
                          "Name=Tensorscope test opener\nNoDisplay=true\n"
                          "Exec=/bin/sh -c 'cp \"$0\" \"$1.part\" && mv \"$1.part\" \"$1\"' %%f \"%s\"\n"
                          "MimeType=", copy);
  for (guint i = 0; i < G_N_ELEMENTS (svg_types); i++)
    {
      g_string_append_printf (entry, "%s;", svg_types[i]);
      g_string_append_printf (defaults, "%s=ts-test-opener.desktop\n", svg_types[i]);
    }
  g_string_append_c (entry, '\n');
  g_assert_cmpint (g_mkdir_with_parents (apps, 0700), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (g_get_user_config_dir (), 0700), ==, 0);
  g_file_set_contents (desktop, entry->str, -1, &error);
  g_assert_no_error (error);
  g_file_set_contents (mimeapps, defaults->str, -1, &error);
  g_assert_no_error (error);
}

static gboolean
content_is_svg_type (const char *type)
{
  for (guint i = 0; i < G_N_ELEMENTS (svg_types); i++)
    if (g_strcmp0 (type, svg_types[i]) == 0)
      return TRUE;
  return FALSE;
}

/* Export from the window's own dialog, then the notification's Show opens
 * the picture in the default application for its type (an opener this test
 * installs, which copies the file it is given); once the picture is gone,
 * Show says why it could not open it, and offers no second Show. */
static void
test_show_export (void)
{
  g_autofree char *base = g_build_filename (fixture_dir, "shown", NULL);
  g_autofree char *svg = g_build_filename (fixture_dir, "shown.svg", NULL);
  g_autofree char *copy = g_build_filename (fixture_dir, "opened-copy.svg", NULL);
  g_autoptr(GFile) target = g_file_new_for_path (base);
  g_autoptr(GFile) svg_file = g_file_new_for_path (svg);
  g_autoptr(GFileInfo) info = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *written = NULL;
  g_autofree char *opened = NULL;
  gsize written_len, opened_len;
  gboolean can_show = FALSE;
  TsWindow *window;
  const char *text;

  /* first, before anything asks GIO for applications */
  install_test_opener (copy);
  window = open_in_new_window (gguf_path);
  g_assert_null (ts_window_get_banner (window, NULL, NULL));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.export", NULL));
  ts_test_wait_until (dialog_shows, NULL, 20, "the export dialog");
  ts_export_dialog_export_to (TS_EXPORT_DIALOG (find_export_dialog ()), target);
  ts_test_wait_until (banner_shows, window, 20, "the Exported notification");
  text = ts_window_get_banner (window, &can_show, NULL);
  g_assert_cmpstr (text, ==, "Exported “shown.svg”");
  g_assert_true (can_show);
  g_assert_true (g_file_test (svg, G_FILE_TEST_IS_REGULAR));

  info = g_file_query_info (svg_file, G_FILE_ATTRIBUTE_STANDARD_CONTENT_TYPE,
                            G_FILE_QUERY_INFO_NONE, NULL, &error);
  g_assert_no_error (error);
  g_test_message ("the export's content type: %s", g_file_info_get_content_type (info));
  g_assert_true (content_is_svg_type (g_file_info_get_content_type (info)));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.show-export", NULL));
  g_assert_null (ts_window_get_banner (window, NULL, NULL));
  ts_test_wait_until (file_exists, copy, 20, "the opener's copy of the export");
  /* the opener was given the exported picture itself */
  g_file_get_contents (svg, &written, &written_len, &error);
  g_assert_no_error (error);
  g_file_get_contents (copy, &opened, &opened_len, &error);
  g_assert_no_error (error);
  g_assert_cmpmem (opened, opened_len, written, written_len);
  g_assert_null (ts_window_get_banner (window, NULL, NULL));

  g_assert_cmpint (g_unlink (svg), ==, 0);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.show-export", NULL));
  ts_test_wait_until (banner_shows, window, 20, "the could-not-open notification");
  text = ts_window_get_banner (window, &can_show, NULL);
  /* said in a few words, not GIO's (which repeat the whole path) */
  g_assert_cmpstr (text, ==, "Could not open “shown.svg”: it is no longer there");
  g_assert_false (can_show);
  save_screenshot (GTK_WIDGET (window), "banner-could-not-open.png");

  g_unlink (copy);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* ------------------------------------------------------------------------ */
/* Acting while work runs                                                    */

static gboolean
object_gone (gpointer data)
{
  return *(gpointer *) data == NULL;
}

/* @path opened in @window with the loader's test hook pausing the load
 * @ms milliseconds first: a load still running when the test acts */
static void
open_slowly (TsWindow   *window,
             const char *path,
             guint       ms)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autofree char *delay = g_strdup_printf ("%u", ms * 1000);

  g_setenv ("TENSORSCOPE_TEST_LOAD_DELAY_US", delay, TRUE);
  ts_window_open (window, file);
  g_unsetenv ("TENSORSCOPE_TEST_LOAD_DELAY_US");
  g_assert_cmpstr (ts_window_get_page (window), ==, "loading");
}

static char *
write_junk (const char *name)
{
  char *path = g_build_filename (fixture_dir, name, NULL);

  g_assert_true (g_file_set_contents (path, "not a model at all\n", -1, NULL));
  return path;
}

/* A file opened while another is still loading replaces it: the first
 * one's result, a model or an error, never shows when it comes */
static void
test_replace_while_loading (void)
{
  g_autofree char *junk_path = write_junk ("junk.txt");
  g_autoptr(GFile) junk = g_file_new_for_path (junk_path);
  g_autoptr(GFile) gguf = g_file_new_for_path (gguf_path);
  TsWindow *window = ts_window_new (app);

  gtk_window_present (GTK_WINDOW (window));

  /* a slow failure replaced by a model */
  open_slowly (window, junk_path, 800);
  ts_test_run_for (100);
  ts_window_open (window, gguf);
  ts_test_wait_for_page (window, "model");
  ts_test_run_for (1200);
  g_assert_cmpstr (ts_window_get_page (window), ==, "model");
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (window)), ==, "tiny-llama.gguf");

  /* a slow model replaced by a failure */
  open_slowly (window, gguf_path, 800);
  ts_test_run_for (100);
  ts_window_open (window, junk);
  ts_test_wait_for_page (window, "error");
  ts_test_run_for (1200);
  g_assert_cmpstr (ts_window_get_page (window), ==, "error");
  g_assert_null (ts_window_get_model (window));
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (window)), ==, "junk.txt");

  /* a slow load replaced by a slow load of the same file */
  open_slowly (window, gguf_path, 600);
  open_slowly (window, gguf_path, 600);
  ts_test_wait_for_page (window, "model");
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (window)), ==, "tiny-llama.gguf");

  gtk_window_destroy (GTK_WINDOW (window));
}

/* The action a key bound on @widget's class runs, as the window's
 * shortcut controllers hold it (NULL if none) */
static GtkShortcut *
find_key_shortcut (GtkWidget *widget,
                   guint      keyval)
{
  g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (widget);

  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr(GtkEventController) c = g_list_model_get_item (controllers, i);

      if (!GTK_IS_SHORTCUT_CONTROLLER (c))
        continue;
      for (guint j = 0; j < g_list_model_get_n_items (G_LIST_MODEL (c)); j++)
        {
          g_autoptr(GtkShortcut) shortcut = g_list_model_get_item (G_LIST_MODEL (c), j);
          GtkShortcutTrigger *trigger = gtk_shortcut_get_trigger (shortcut);

          if (GTK_IS_KEYVAL_TRIGGER (trigger) &&
              gtk_keyval_trigger_get_keyval (GTK_KEYVAL_TRIGGER (trigger)) == keyval &&
              gtk_keyval_trigger_get_modifiers (GTK_KEYVAL_TRIGGER (trigger)) == 0)
            return g_steal_pointer (&shortcut);
        }
    }
  return NULL;
}

/* Escape stops a load, as the loading page's Cancel does, and does
 * nothing once the model shows */
static void
test_escape_cancels_loading (void)
{
  TsWindow *window = ts_window_new (app);
  g_autoptr(GtkShortcut) escape = find_key_shortcut (GTK_WIDGET (window), GDK_KEY_Escape);
  GtkShortcutAction *action;

  g_assert_nonnull (escape);
  action = gtk_shortcut_get_action (escape);
  gtk_window_present (GTK_WINDOW (window));
  open_slowly (window, gguf_path, 30000);
  ts_test_run_for (100);
  g_assert_true (gtk_shortcut_action_activate (action, 0, GTK_WIDGET (window), NULL));
  g_assert_cmpstr (ts_window_get_page (window), ==, "empty");
  ts_test_run_for (300);
  g_assert_cmpstr (ts_window_get_page (window), ==, "empty");

  {
    g_autoptr(GFile) gguf = g_file_new_for_path (gguf_path);

    ts_window_open (window, gguf);
    ts_test_wait_for_page (window, "model");
  }
  g_assert_false (gtk_shortcut_action_activate (action, 0, GTK_WIDGET (window), NULL));
  g_assert_cmpstr (ts_window_get_page (window), ==, "model");
  gtk_window_destroy (GTK_WINDOW (window));
}

/* Closing a window that is loading frees it at once, the load stopped */
static void
test_close_while_loading (void)
{
  TsWindow *window = ts_window_new (app);
  gint64 closed_at;

  g_object_add_weak_pointer (G_OBJECT (window), (gpointer *) &window);
  gtk_window_present (GTK_WINDOW (window));
  open_slowly (window, gguf_path, 30000);
  ts_test_run_for (200);
  closed_at = g_get_monotonic_time ();
  gtk_window_close (GTK_WINDOW (window));
  ts_test_wait_until (object_gone, &window, 5, "the closed window to go");
  g_assert_cmpint (g_get_monotonic_time () - closed_at, <, 2 * G_USEC_PER_SEC);
}

static void
drop_files (TsWindow *window,
            GSList   *files)
{
  GtkDropTarget *target = ts_window_get_drop_target (window);
  g_auto(GValue) value = G_VALUE_INIT;
  GdkDragAction action = 0;
  gboolean handled = FALSE;

  g_signal_emit_by_name (target, "enter", 100.0, 100.0, &action);
  g_value_init (&value, GDK_TYPE_FILE_LIST);
  g_value_take_boxed (&value, gdk_file_list_new_from_list (files));
  g_signal_emit_by_name (target, "drop", &value, 100.0, 100.0, &handled);
  g_assert_true (handled);
}

static guint
count_windows (void)
{
  return g_list_length (gtk_application_get_windows (GTK_APPLICATION (app)));
}

/* Drops onto a window whose last load failed, and drops of what is no
 * model: a folder, a text file, several files at once */
static void
test_drop_after_failure (void)
{
  g_autofree char *junk_path = write_junk ("dropped.txt");
  g_autofree char *dir_path = g_build_filename (fixture_dir, "no-model-folder", NULL);
  g_autoptr(GFile) junk = g_file_new_for_path (junk_path);
  g_autoptr(GFile) dir = g_file_new_for_path (dir_path);
  g_autoptr(GFile) gguf = g_file_new_for_path (gguf_path);
  g_autoptr(GSList) one = NULL;
  g_autoptr(GSList) several = NULL;
  TsWindow *window = ts_window_new (app);
  guint before;

  g_assert_cmpint (g_mkdir_with_parents (dir_path, 0755), ==, 0);
  gtk_window_present (GTK_WINDOW (window));
  ts_window_open (window, junk);
  ts_test_wait_for_page (window, "error");

  one = g_slist_prepend (NULL, gguf);
  drop_files (window, one);
  ts_test_wait_for_page (window, "model");
  g_clear_pointer (&one, g_slist_free);

  one = g_slist_prepend (NULL, dir);
  drop_files (window, one);
  ts_test_wait_for_page (window, "error");
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (window)), ==, "no-model-folder");
  g_clear_pointer (&one, g_slist_free);

  /* while the folder's error shows, a slow load, then a drop replaces it */
  open_slowly (window, gguf_path, 800);
  one = g_slist_prepend (NULL, junk);
  drop_files (window, one);
  ts_test_wait_for_page (window, "error");
  ts_test_run_for (1200);
  g_assert_cmpstr (ts_window_get_page (window), ==, "error");
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (window)), ==, "dropped.txt");

  /* several: the first here, the others each in a window of its own */
  before = count_windows ();
  several = g_slist_append (several, gguf);
  several = g_slist_append (several, junk);
  several = g_slist_append (several, dir);
  drop_files (window, several);
  ts_test_wait_for_page (window, "model");
  g_assert_cmpuint (count_windows (), ==, before + 2);
  for (GList *l = gtk_application_get_windows (GTK_APPLICATION (app)); l != NULL; l = l->next)
    if (l->data != window && TS_IS_WINDOW (l->data))
      ts_test_wait_for_page (l->data, "error");

  while (count_windows () > before - 1)
    gtk_window_destroy (gtk_application_get_windows (GTK_APPLICATION (app))->data);
}

/* A model file cut short on disk while it is shown: the app maps it, and
 * reading its pages past the new end must not kill it (SIGBUS) */
static void
test_truncated_while_open (void)
{
  g_autoptr(GByteArray) out = gguf_begin (0, 2);
  g_autofree char *path = NULL;
  g_autofree char *text = NULL;
  TsWindow *window;
  TsMetadataView *view;

  put_kv_str (out, "general.architecture", "llama");
  ts_test_put_str (out, "tokenizer.ggml.tokens");
  ts_test_put_u32 (out, 9);
  ts_test_put_u32 (out, 8);
  ts_test_put_u64 (out, 40000);
  for (guint i = 0; i < 40000; i++)
    {
      g_autofree char *token = g_strdup_printf ("token-%05u", i);

      ts_test_put_str (out, token);
    }
  path = gguf_save (out, "cut-short.gguf");

  window = open_in_new_window (path);
  g_assert_cmpint (truncate (path, 8192), ==, 0);
  ts_test_wait_until (reload_offered, window, 10, "the changed-on-disk notice");

  view = ts_window_get_metadata_view (window);
  ts_window_show_view (window, "metadata");
  g_assert_true (ts_metadata_view_select_key (view, "tokenizer.ggml.tokens"));
  gtk_widget_activate_action (GTK_WIDGET (view), "metadata.copy-value", NULL);
  text = clipboard_text (GTK_WIDGET (view));
  g_assert_nonnull (text);
  g_assert_true (g_str_has_prefix (text, "token-00000\n"));
  save_screenshot (GTK_WIDGET (window), "truncated-while-open.png");
  gtk_window_destroy (GTK_WINDOW (window));
}

/* Closing the export dialog while it writes stops the export: no file,
 * no "Exported" notice for an export the user closed; closing the
 * window it exports from closes it too. (The export's task held the
 * dialog, so dispose, which cancelled, came only once it had written.) */
static void
test_close_export_while_writing (void)
{
  g_autofree char *out_dir = g_build_filename (fixture_dir, "closed-export", NULL);
  g_autofree char *target_path = g_build_filename (out_dir, "layout.svg", NULL);
  g_autoptr(GFile) target = g_file_new_for_path (target_path);
  TsWindow *window;
  TsExportDialog *dialog;

  g_assert_cmpint (g_mkdir_with_parents (out_dir, 0755), ==, 0);
  window = open_in_new_window (gguf_path);
  g_object_add_weak_pointer (G_OBJECT (window), (gpointer *) &window);
  /* each export still running when the test closes something, however
   * fast the machine draws this small model */
  g_setenv ("TENSORSCOPE_TEST_EXPORT_DELAY_US", "3000000", TRUE);

  /* the dialog closed: its export stops */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.export", NULL));
  ts_test_wait_until (dialog_shows, NULL, 20, "the export dialog");
  dialog = TS_EXPORT_DIALOG (find_export_dialog ());
  g_object_add_weak_pointer (G_OBJECT (dialog), (gpointer *) &dialog);
  ts_export_dialog_export_to (dialog, target);
  gtk_window_close (GTK_WINDOW (dialog));
  ts_test_wait_until (object_gone, &dialog, 5, "the closed export dialog to go");
  ts_test_run_for (500);
  g_assert_null (ts_window_get_banner (window, NULL, NULL));
  g_assert_cmpuint (ts_test_count_entries (out_dir), ==, 0);

  /* the window closed: its export dialog closes, and stops, too */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.export", NULL));
  ts_test_wait_until (dialog_shows, NULL, 20, "the export dialog");
  dialog = TS_EXPORT_DIALOG (find_export_dialog ());
  g_object_add_weak_pointer (G_OBJECT (dialog), (gpointer *) &dialog);
  ts_export_dialog_export_to (dialog, target);
  gtk_window_close (GTK_WINDOW (window));
  ts_test_wait_until (object_gone, &dialog, 5, "the export dialog of the closed window to go");
  ts_test_wait_until (object_gone, &window, 5, "the closed window to go");
  ts_test_run_for (500);
  g_assert_null (ts_test_find_toplevel (TS_TYPE_EXPORT_DIALOG));
  g_assert_cmpuint (ts_test_count_entries (out_dir), ==, 0);
  g_unsetenv ("TENSORSCOPE_TEST_EXPORT_DELAY_US");
}

static gboolean
quit_app (gpointer data)
{
  g_action_group_activate_action (G_ACTION_GROUP (app), "quit", NULL);
  return G_SOURCE_REMOVE;
}

static gboolean
quit_stuck (gpointer data)
{
  g_error ("the application did not quit within 20 s");
  return G_SOURCE_REMOVE;
}

/* Ctrl+Q with two windows at work: one loading, one exporting its
 * layout. The application quits at once; no export is left half
 * written; the windows are freed. (In a child process: the
 * application's main loop runs, and ends, there.) */
static void
test_quit_while_busy (void)
{
  g_autofree char *out_dir = NULL;
  g_autofree char *target_path = NULL;
  g_autoptr(GFile) target = NULL;
  TsWindow *loading, *exporting;
  TsExportDialog *dialog;
  guint stuck_id;

  if (!g_test_subprocess ())
    {
      g_test_trap_subprocess (NULL, 60 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_INHERIT_STDOUT);
      g_test_trap_assert_passed ();
      return;
    }

  out_dir = g_build_filename (fixture_dir, "quit-out", NULL);
  target_path = g_build_filename (out_dir, "layout.svg", NULL);
  target = g_file_new_for_path (target_path);
  g_assert_cmpint (g_mkdir_with_parents (out_dir, 0755), ==, 0);

  loading = ts_window_new (app);
  g_object_add_weak_pointer (G_OBJECT (loading), (gpointer *) &loading);
  gtk_window_present (GTK_WINDOW (loading));
  open_slowly (loading, gguf_path, 30000);

  exporting = open_in_new_window (gguf_path);
  g_object_add_weak_pointer (G_OBJECT (exporting), (gpointer *) &exporting);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (exporting), "win.export", NULL));
  ts_test_wait_until (dialog_shows, NULL, 20, "the export dialog");
  dialog = TS_EXPORT_DIALOG (find_export_dialog ());
  g_object_add_weak_pointer (G_OBJECT (dialog), (gpointer *) &dialog);
  ts_export_dialog_export_to (dialog, target);

  g_idle_add (quit_app, NULL);
  stuck_id = g_timeout_add_seconds (20, quit_stuck, NULL);
  g_assert_cmpint (g_application_run (G_APPLICATION (app), 0, NULL), ==, 0);
  g_source_remove (stuck_id);

  g_test_message ("after quitting: loading window %s, exporting window %s, export dialog %s",
                  loading ? "alive" : "gone", exporting ? "alive" : "gone", dialog ? "alive" : "gone");
  g_assert_null (gtk_application_get_windows (GTK_APPLICATION (app)));
  g_assert_null (ts_test_find_toplevel (GTK_TYPE_WINDOW));
  /* the export either written whole, or not at all: no temporary file */
  g_assert_cmpuint (ts_test_count_entries (out_dir), <=, 1);
  g_assert_null (loading);
  g_assert_null (exporting);
  g_assert_null (dialog);
}

/* a short audit says how short, not "0.0 s" */
static void
test_format_duration (void)
{
  static const struct { double seconds; const char *text; } cases[] = {
    { 0.0, "0 ms" }, { -1.0, "0 ms" }, { 0.0004, "0 ms" }, { 0.0006, "1 ms" },
    { 0.038, "38 ms" }, { 0.9994, "999 ms" }, { 0.9996, "1.0 s" }, { 1.0, "1.0 s" },
    { 2.26, "2.3 s" }, { 125.0, "125.0 s" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *text = ts_format_duration (cases[i].seconds);

      g_assert_cmpstr (text, ==, cases[i].text);
    }
  {
    g_autofree char *nan_text = ts_format_duration (NAN);

    g_assert_cmpstr (nan_text, ==, "0 ms");
  }
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GError) error = NULL;
  int ret;

  ts_test_ui_init (&argc, &argv);

  fixture_dir = g_dir_make_tmp (NULL, &error);
  g_assert_no_error (error);
  gguf_path = write_llama_gguf (fixture_dir);

  /* the real application, registered without a bus so tests can run in
   * parallel: its startup loads the CSS and installs the app actions */
  app = ts_application_new ();
  g_application_set_flags (G_APPLICATION (app), G_APPLICATION_HANDLES_OPEN | G_APPLICATION_NON_UNIQUE);
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, &error));
  g_assert_no_error (error);

  g_test_add_func ("/window/empty", test_empty);
  g_test_add_func ("/window/format-duration", test_format_duration);
  g_test_add_func ("/window/recent-menu", test_recent_menu);
  g_test_add_func ("/window/open-gguf", test_open_gguf);
  g_test_add_func ("/window/wide-numbers", test_wide_numbers);
  g_test_add_func ("/window/sort-filter", test_sort_filter);
  g_test_add_func ("/window/sort-scroll", test_sort_scroll);
  g_test_add_func ("/window/sort-menu", test_sort_menu);
  g_test_add_func ("/window/selection-sync", test_selection_sync);
  g_test_add_func ("/window/selection-mark", test_selection_mark);
  g_test_add_func ("/window/shortcuts", test_shortcuts_window);
  g_test_add_func ("/window/mnemonics", test_mnemonics);
  g_test_add_func ("/window/menu-accels", test_menu_accels);
  g_test_add_func ("/window/changed-on-disk", test_changed_on_disk);
  g_test_add_func ("/window/down-from-filter", test_down_from_filter);
  g_test_add_func ("/window/zoom", test_zoom);
  g_test_add_func ("/window/metadata", test_metadata);
  g_test_add_func ("/window/copy-big-array", test_copy_big_array);
  g_test_add_func ("/window/hostile", test_hostile);
  g_test_add_func ("/window/name-not-utf8", test_name_not_utf8);
  g_test_add_func ("/window/drop", test_drop);
  g_test_add_func ("/window/dark-style", test_dark_style);
  g_test_add_func ("/window/band-text-contrast", test_band_text_contrast);
  g_test_add_func ("/window/hover-outline-dark", test_hover_outline_dark);
  g_test_add_func ("/window/focus-outline-contrast", test_focus_outline_contrast);
  g_test_add_func ("/window/tab-leaves-table", test_tab_leaves_table);
  g_test_add_func ("/window/tab-moves", test_tab_moves);
  g_test_add_func ("/window/accessible-names", test_accessible_names);
  g_test_add_func ("/window/layout-announces", test_layout_announces);
  g_test_add_func ("/window/layout-focus-stays-visible", test_layout_focus_stays_visible);
  g_test_add_func ("/window/sharded-sample", test_sharded_sample);
  g_test_add_func ("/window/layout-pane-fits", test_layout_pane_fits);
  g_test_add_func ("/window/gguf-split-set", test_gguf_split_set);
  g_test_add_func ("/window/export-dialog", test_export_dialog);
  g_test_add_func ("/window/export-page-limits", test_export_page_limits);
  g_test_add_func ("/window/show-export", test_show_export);
  g_test_add_func ("/window/replace-while-loading", test_replace_while_loading);
  g_test_add_func ("/window/escape-cancels-loading", test_escape_cancels_loading);
  g_test_add_func ("/window/close-while-loading", test_close_while_loading);
  g_test_add_func ("/window/drop-after-failure", test_drop_after_failure);
  g_test_add_func ("/window/truncated-while-open", test_truncated_while_open);
  g_test_add_func ("/window/close-export-while-writing", test_close_export_while_writing);
  g_test_add_func ("/window/quit-while-busy", test_quit_while_busy);

  ret = g_test_run ();

  g_object_unref (app);
  ts_test_remove_tree (fixture_dir);
  g_free (gguf_path);
  g_free (fixture_dir);
  return ret;
}
