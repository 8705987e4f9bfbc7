/* ts-convert-wizard.c: the guided path from a Hugging Face folder to a
 * verified GGUF file: Source → Options → Preview → Convert → Verify
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include "ts-application.h"
#include "ts-convert-wizard.h"
#include "ts-file-chooser.h"
#include "ts-format.h"
#include "ts-layout-view.h"
#include "ts-window.h"

typedef enum
{
  PAGE_SOURCE,
  PAGE_OPTIONS,
  PAGE_PREVIEW,
  PAGE_CONVERT,
  PAGE_VERIFY,
} Page;

#define N_PAGES 5

static const char * const page_names[N_PAGES] = { "source", "options", "preview", "convert", "verify" };

/* the rows of the output type list, in display order */
static const TsOutType type_rows[] = {
  TS_OUTTYPE_AUTO, TS_OUTTYPE_BF16, TS_OUTTYPE_F16, TS_OUTTYPE_F32, TS_OUTTYPE_Q8_0,
};
#define N_OUTTYPES 5   /* TsOutType values, AUTO included */

typedef enum
{
  NAMING_NAME,
  NAMING_FINETUNE,
  NAMING_SIZE_LABEL,
  NAMING_LICENSE,
  N_NAMING
} Naming;

static const char * const naming_fields[N_NAMING] = { "name", "finetune", "size-label", "license" };
static const char * const naming_keys[N_NAMING] = {
  "general.name", "general.finetune", "general.size_label", "general.license",
};

struct _TsConvertWizard
{
  GtkWindow         parent_instance;

  Page              page;
  gboolean          closing;
  /* the file the target entry shows, for a path that is not UTF-8 (an
   * entry holds its display name, which names another file) */
  GFile            *shown_target;
  char             *shown_target_text;
  GApplication     *held_app;   /* kept running until the converter has cleaned up */
  guint             busy;
  GSettings        *settings;

  /* page 1 */
  GFile            *source_dir;
  TsConversionPlan *source_plan;      /* AUTO, no overrides: the source is convertible */
  char             *problem;
  GCancellable     *scan_cancellable;

  /* page 2 */
  guint64           sizes[N_OUTTYPES];
  GCancellable     *sizes_cancellable;
  TsOutType         outtype;
  GtkCheckButton   *type_checks[N_OUTTYPES];
  GtkLabel         *size_labels[N_OUTTYPES];
  gboolean          target_edited;
  gboolean          target_refused;   /* the target can never be written */
  gboolean          setting_target;
  char             *naming_defaults[N_NAMING];

  /* page 3 */
  TsConversionPlan *plan;
  GListModel       *plan_metadata;
  TsLayout         *layout;
  GCancellable     *plan_cancellable;

  /* page 4 */
  GFile            *target;
  TsConverter      *converter;
  GCancellable     *convert_cancellable;
  gint64            convert_start;
  const char       *convert_state;
  char             *error_message;

  /* page 5 */
  TsModelFile      *output;
  TsAudit          *audit;
  GCancellable     *audit_cancellable;

  /* template */
  GtkLabel         *subtitle_label;
  GtkButton        *next_button;
  GtkButton        *back_button;
  GtkButton        *cancel_button;
  GtkSpinner       *busy_spinner;
  GtkBox           *steps_box;
  GtkStack         *stack;
  GtkWidget        *drop_box;
  GtkLabel         *source_name_label;
  GtkLabel         *source_path_label;
  GtkWidget        *scanning_box;
  GtkWidget        *problem_box;
  GtkLabel         *problem_label;
  GtkListBox       *findings_list;
  GtkSizeGroup     *finding_titles;
  GtkListBox       *type_list;
  GtkEntry         *target_entry;
  GtkLabel         *target_warning_label;
  GtkCheckButton   *split_check;
  GtkSpinButton    *split_size_spin;
  GtkDropDown      *split_unit_drop;
  GtkColumnViewColumn *plan_file_column;
  GtkPaned         *preview_paned;
  guint             divider_id;
  GtkEntry         *name_entry;
  GtkEntry         *finetune_entry;
  GtkEntry         *size_label_entry;
  GtkEntry         *license_entry;
  GtkLabel         *preview_summary_label;
  TsLayoutView     *layout_view;
  GtkColumnView    *plan_tensors_view;
  GtkColumnView    *plan_metadata_view;
  GtkImage         *convert_icon;
  GtkLabel         *convert_title_label;
  GtkLabel         *convert_target_label;
  GtkProgressBar   *convert_progress;
  GtkLabel         *convert_stats_label;
  GtkLabel         *convert_tensor_label;
  GtkLabel         *convert_error_label;
  GtkButton        *stop_button;
  GtkLabel         *output_label;
  GtkButton        *open_output_button;
  GtkStack         *verify_stack;
  GtkProgressBar   *audit_progress;
  GtkLabel         *audit_tensor_label;
  GtkLabel         *audit_error_label;
  TsAuditPane      *audit_pane;
};

G_DEFINE_FINAL_TYPE (TsConvertWizard, ts_convert_wizard, GTK_TYPE_WINDOW)

static void update_navigation (TsConvertWizard *self);

static GtkEntry *
naming_entry (TsConvertWizard *self,
              Naming           naming)
{
  GtkEntry *entries[N_NAMING] = {
    self->name_entry, self->finetune_entry, self->size_label_entry, self->license_entry,
  };

  return entries[naming];
}

static void
begin_busy (TsConvertWizard *self)
{
  self->busy++;
  update_navigation (self);
}

static void
end_busy (TsConvertWizard *self)
{
  g_assert (self->busy > 0);
  self->busy--;
  update_navigation (self);
}

/* Cancels the work behind *@cancellable and gives it a fresh one, so a
 * stale result can tell it was replaced. */
static GCancellable *
replace_cancellable (GCancellable **cancellable)
{
  if (*cancellable != NULL)
    g_cancellable_cancel (*cancellable);
  g_set_object (cancellable, NULL);
  *cancellable = g_cancellable_new ();
  return *cancellable;
}

/* ------------------------------------------------------------------------ */
/* Navigation                                                                */

static void
update_steps (TsConvertWizard *self)
{
  guint i = 0;

  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (self->steps_box));
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      if (!gtk_widget_has_css_class (child, "step"))
        continue;
      gtk_widget_remove_css_class (child, "current");
      gtk_widget_remove_css_class (child, "done");
      if (i == self->page)
        gtk_widget_add_css_class (child, "current");
      else if (i < self->page)
        gtk_widget_add_css_class (child, "done");
      i++;
    }
}

static gboolean
can_go_next (TsConvertWizard *self)
{
  if (self->busy > 0)
    return FALSE;

  switch (self->page)
    {
    case PAGE_SOURCE:
      return self->source_plan != NULL;
    case PAGE_OPTIONS:
      return gtk_entry_get_text_length (self->target_entry) > 0 && !self->target_refused;
    case PAGE_PREVIEW:
      return self->plan != NULL;
    case PAGE_CONVERT:
      /* after Stop or a failure: convert again, with the same plan */
      return self->plan != NULL && (g_strcmp0 (self->convert_state, "cancelled") == 0 ||
                                    g_strcmp0 (self->convert_state, "failed") == 0);
    case PAGE_VERIFY:
      return TRUE;
    default:
      g_assert_not_reached ();
    }
}

static gboolean
can_go_back (TsConvertWizard *self)
{
  switch (self->page)
    {
    case PAGE_SOURCE:
      return FALSE;
    case PAGE_OPTIONS:
    case PAGE_PREVIEW:
      return TRUE;
    case PAGE_CONVERT:
      return self->busy == 0 && g_strcmp0 (self->convert_state, "running") != 0;
    case PAGE_VERIFY:
      return FALSE;
    default:
      g_assert_not_reached ();
    }
}

/* something is at @file's path, a link to nothing included: converting
 * there replaces it */
static gboolean
is_there (GFile *file)
{
  return g_file_query_file_type (file, G_FILE_QUERY_INFO_NOFOLLOW_SYMLINKS, NULL) != G_FILE_TYPE_UNKNOWN;
}

/* the file the output is read back from: the target, or the first file
 * of the split set named after it (transfer full; NULL before a plan) */
static GFile *
output_file (TsConvertWizard *self)
{
  if (self->target == NULL || self->plan == NULL)
    return self->target != NULL ? g_object_ref (self->target) : NULL;
  return ts_conversion_plan_get_output_file (self->plan, self->target, 0);
}

/* the number of the plan's output files that are there already */
static guint
count_existing_outputs (TsConvertWizard *self)
{
  guint n = 0;

  if (self->target == NULL)
    return 0;
  if (self->plan == NULL)
    return is_there (self->target);
  for (guint k = 0; k < ts_conversion_plan_get_n_files (self->plan); k++)
    {
      g_autoptr(GFile) file = ts_conversion_plan_get_output_file (self->plan, self->target, k);

      n += is_there (file);
    }
  return n;
}

static gboolean
target_exists (TsConvertWizard *self)
{
  return count_existing_outputs (self) > 0;
}

static gboolean
splitting (TsConvertWizard *self)
{
  return gtk_check_button_get_active (self->split_check);
}

/* the largest file asked for, in bytes (MB and GB as llama.cpp's
 * --split-max-size reads them: 10^6 and 10^9), or 0 for one file */
static guint64
split_limit (TsConvertWizard *self)
{
  if (!splitting (self))
    return 0;
  return (guint64) gtk_spin_button_get_value_as_int (self->split_size_spin) *
         (gtk_drop_down_get_selected (self->split_unit_drop) == 0 ? G_GUINT64_CONSTANT (1000000)
                                                                  : G_GUINT64_CONSTANT (1000000000));
}

/* The output is one file under the plain name: not split, or split with
 * a limit the whole predicted file fits in (the plan then writes one
 * file, as llama.cpp does). (A limit between the tensors' bytes and the
 * file's size is left to the preview, which has the plan.) */
static gboolean
one_plain_file (TsConvertWizard *self)
{
  guint64 size = self->sizes[self->outtype];

  return !splitting (self) || (size > 0 && size <= split_limit (self));
}

/* Next goes insensitive while the plan is built and hides while the
 * file is written, and GTK then leaves the focus nowhere: Enter did
 * nothing on the next page, and a screen reader said nothing. The
 * button that goes on takes the focus back; while writing, Stop. */
static void
keep_focus (TsConvertWizard *self)
{
  GtkWidget *next = GTK_WIDGET (self->next_button);
  GtkWidget *stop = GTK_WIDGET (self->stop_button);

  if (self->closing || gtk_root_get_focus (GTK_ROOT (self)) != NULL)
    return;
  if (gtk_widget_get_visible (next) && gtk_widget_is_sensitive (next))
    gtk_widget_grab_focus (next);
  else if (self->page == PAGE_CONVERT && gtk_widget_get_visible (stop) && gtk_widget_is_sensitive (stop))
    gtk_widget_grab_focus (stop);
}

static void
update_navigation (TsConvertWizard *self)
{
  static const char * const titles[N_PAGES] = {
    N_("Source"), N_("Options"), N_("Preview"), N_("Convert"), N_("Verify"),
  };
  g_autofree char *subtitle = NULL;
  const char *next_label;
  gboolean replaces;

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "wizard.next", can_go_next (self));
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "wizard.back", can_go_back (self));
  gtk_spinner_set_spinning (self->busy_spinner, self->busy > 0);
  gtk_widget_set_visible (GTK_WIDGET (self->busy_spinner), self->busy > 0);

  replaces = (self->page == PAGE_PREVIEW || self->page == PAGE_CONVERT) && target_exists (self);
  if (replaces)
    next_label = _("_Replace");
  else if (self->page == PAGE_PREVIEW)
    next_label = _("Con_vert");
  else if (self->page == PAGE_VERIFY)
    next_label = _("_Done");
  else if (self->page == PAGE_CONVERT)
    next_label = _("Convert _Again");
  else
    next_label = _("_Next");
  gtk_button_set_label (self->next_button, next_label);
  /* replacing a file is said in red on the button that does it */
  if (replaces)
    {
      gtk_widget_remove_css_class (GTK_WIDGET (self->next_button), "suggested-action");
      gtk_widget_add_css_class (GTK_WIDGET (self->next_button), "destructive-action");
    }
  else
    {
      gtk_widget_remove_css_class (GTK_WIDGET (self->next_button), "destructive-action");
      gtk_widget_add_css_class (GTK_WIDGET (self->next_button), "suggested-action");
    }
  /* Enter in a text field goes on, as the button does; never to replace
   * a file, which takes a click or the button's own key */
  gtk_window_set_default_widget (GTK_WINDOW (self), replaces ? NULL : GTK_WIDGET (self->next_button));
  gtk_widget_set_visible (GTK_WIDGET (self->back_button), self->page != PAGE_VERIFY);
  /* while it converts there is nothing to go on to: Stop is on the page */
  gtk_widget_set_visible (GTK_WIDGET (self->next_button),
                          self->page != PAGE_CONVERT || can_go_next (self));
  /* on the last page Done closes the wizard: no second button for that */
  gtk_widget_set_visible (GTK_WIDGET (self->cancel_button), self->page != PAGE_VERIFY);
  /* once a conversion has stopped or failed there is nothing left to
   * cancel: the button closes the wizard, and says so */
  gtk_button_set_label (self->cancel_button,
                        self->page == PAGE_CONVERT &&
                        (g_strcmp0 (self->convert_state, "cancelled") == 0 ||
                         g_strcmp0 (self->convert_state, "failed") == 0) ? _("_Close") : _("_Cancel"));

  /* Translators: the wizard's subtitle, e.g. "Step 2 of 5: Options" */
  subtitle = g_strdup_printf (_("Step %u of %u: %s"), self->page + 1, N_PAGES,
                              g_dgettext (GETTEXT_PACKAGE, titles[self->page]));
  gtk_label_set_text (self->subtitle_label, subtitle);
  update_steps (self);
  keep_focus (self);
}

static void
show_page (TsConvertWizard *self,
           Page             page)
{
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (self));
  GtkWidget *left = gtk_stack_get_visible_child (self->stack);

  /* a field on the page left behind (Enter in it went on) would hand the
   * focus to whatever GTK finds first on the new page: the button that
   * goes on takes it, as it does after a click */
  if (page != self->page && focus != NULL && left != NULL && gtk_widget_is_ancestor (focus, left))
    gtk_root_set_focus (GTK_ROOT (self), NULL);
  self->page = page;
  gtk_stack_set_visible_child_name (self->stack, page_names[page]);
  update_navigation (self);
}

static void
build_steps (TsConvertWizard *self)
{
  static const char * const titles[N_PAGES] = {
    N_("Source"), N_("Options"), N_("Preview"), N_("Convert"), N_("Verify"),
  };

  for (guint i = 0; i < N_PAGES; i++)
    {
      g_autofree char *number = g_strdup_printf ("%u", i + 1);
      GtkWidget *step = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
      GtkWidget *bubble = gtk_label_new (number);
      GtkWidget *label = gtk_label_new (g_dgettext (GETTEXT_PACKAGE, titles[i]));

      if (i > 0)
        {
          GtkWidget *arrow = gtk_image_new_from_icon_name ("go-next-symbolic");

          gtk_widget_add_css_class (arrow, "dim-label");
          gtk_box_append (self->steps_box, arrow);
        }
      gtk_widget_add_css_class (step, "step");
      gtk_widget_add_css_class (bubble, "step-number");
      gtk_box_append (GTK_BOX (step), bubble);
      gtk_box_append (GTK_BOX (step), label);
      gtk_box_append (self->steps_box, step);
    }
}

/* ------------------------------------------------------------------------ */
/* Page 1: Source                                                            */

typedef enum
{
  FINDING_OK,
  FINDING_WARN,
  FINDING_MISSING,
} FindingStatus;

typedef struct
{
  FindingStatus  status;
  char          *title;
  char          *detail;
} Finding;

static void
finding_free (Finding *finding)
{
  g_free (finding->title);
  g_free (finding->detail);
  g_free (finding);
}

typedef struct
{
  GPtrArray        *findings;
  TsConversionPlan *plan;
  char             *problem;
} ScanResult;

static void
scan_result_free (ScanResult *result)
{
  g_ptr_array_unref (result->findings);
  g_clear_object (&result->plan);
  g_free (result->problem);
  g_free (result);
}

static void G_GNUC_PRINTF (4, 5)
add_finding (GPtrArray     *findings,
             FindingStatus  status,
             const char    *title,
             const char    *format,
             ...)
{
  Finding *finding = g_new0 (Finding, 1);
  va_list args;

  va_start (args, format);
  finding->status = status;
  finding->title = g_strdup (title);
  finding->detail = g_strdup_vprintf (format, args);
  va_end (args);
  g_ptr_array_add (findings, finding);
}

static GHashTable *
list_folder (GFile        *dir,
             guint64      *weights_size,
             guint        *n_shards,
             GCancellable *cancellable)
{
  GHashTable *names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GFileEnumerator) children = NULL;

  *weights_size = 0;
  *n_shards = 0;
  children = g_file_enumerate_children (dir, G_FILE_ATTRIBUTE_STANDARD_NAME ","
                                        G_FILE_ATTRIBUTE_STANDARD_SIZE,
                                        G_FILE_QUERY_INFO_NONE, cancellable, NULL);
  while (children != NULL)
    {
      GFileInfo *info = g_file_enumerator_next_file (children, cancellable, NULL);
      const char *name;

      if (info == NULL)
        break;
      name = g_file_info_get_name (info);
      if (g_str_has_suffix (name, ".safetensors"))
        {
          *weights_size += (guint64) g_file_info_get_size (info);
          (*n_shards)++;
        }
      g_hash_table_add (names, g_strdup (name));
      g_object_unref (info);
    }
  return names;
}

static void
scan_files (GPtrArray    *findings,
            GFile        *dir,
            GCancellable *cancellable)
{
  static const char * const tokenizer_files[] = {
    "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json",
  };
  guint64 weights_size;
  guint n_shards;
  g_autoptr(GHashTable) names = list_folder (dir, &weights_size, &n_shards, cancellable);
  g_autoptr(GString) present = g_string_new (NULL);
  g_autoptr(GString) missing = g_string_new (NULL);
  g_autofree char *size = g_format_size (weights_size);

  if (g_hash_table_contains (names, "config.json"))
    add_finding (findings, FINDING_OK, _("Configuration"), "%s", "config.json");
  else
    add_finding (findings, FINDING_MISSING, _("Configuration"), "%s",
                 _("config.json is missing: the architecture and hyperparameters are unknown"));

  /* a SentencePiece tokenizer.model is read first and needs no
   * tokenizer.json (which is then listed only when there is one) */
  if (g_hash_table_contains (names, "tokenizer.model"))
    g_string_append (present, "tokenizer.model");
  for (guint i = 0; i < G_N_ELEMENTS (tokenizer_files); i++)
    {
      GString *s = g_hash_table_contains (names, tokenizer_files[i]) ? present : missing;

      if (s == missing && g_str_equal (tokenizer_files[i], "tokenizer.json") &&
          g_hash_table_contains (names, "tokenizer.model"))
        continue;
      g_string_append_printf (s, "%s%s", s->len > 0 ? ", " : "", tokenizer_files[i]);
    }
  if (missing->len == 0)
    add_finding (findings, FINDING_OK, _("Tokenizer"), "%s", present->str);
  else
    add_finding (findings, present->len > 0 ? FINDING_WARN : FINDING_MISSING, _("Tokenizer"),
                 _("missing: %s"), missing->str);

  if (g_hash_table_contains (names, "generation_config.json"))
    add_finding (findings, FINDING_OK, _("Sampling defaults"), "%s", "generation_config.json");
  else
    add_finding (findings, FINDING_WARN, _("Sampling defaults"), "%s",
                 _("no generation_config.json: no general.sampling.* keys"));

  if (n_shards == 0)
    add_finding (findings, FINDING_MISSING, _("Weights"), "%s", _("no .safetensors file"));
  else
    add_finding (findings, FINDING_OK, _("Weights"),
                 g_hash_table_contains (names, "model.safetensors.index.json")
                 ? g_dngettext (GETTEXT_PACKAGE, "%u Safetensors file, %s (with model.safetensors.index.json)",
                                "%u Safetensors files, %s (with model.safetensors.index.json)", n_shards)
                 : g_dngettext (GETTEXT_PACKAGE, "%u Safetensors file, %s", "%u Safetensors files, %s", n_shards),
                 n_shards, size);
}

static void
scan_plan (GPtrArray        *findings,
           TsConversionPlan *plan)
{
  const TsHfConfig *config = ts_conversion_plan_get_config (plan);
  TsModelFile *source = ts_conversion_plan_get_source (plan);
  GListModel *tensors = ts_model_file_get_tensors (source);
  guint counts[TS_DTYPE_N_TYPES] = { 0 };
  g_autoptr(GString) types = g_string_new (NULL);
  g_autofree char *params = ts_format_count (ts_model_file_get_parameter_count (source));
  const char * const *warnings = ts_conversion_plan_get_warnings (plan);
  guint n_out = g_list_model_get_n_items (ts_conversion_plan_get_tensors (plan));

  add_finding (findings, FINDING_OK, _("Architecture"), _("%s (%s), supported"),
               ts_arch_get_name (ts_conversion_plan_get_arch (plan)), config->architecture);
  add_finding (findings, FINDING_OK, _("Layers"),
               _("%u blocks · hidden size %u · %u attention heads, %u key/value heads · feed-forward %u"),
               config->n_layers, config->hidden_size, config->n_heads, config->n_kv_heads,
               config->intermediate_size);
  add_finding (findings, FINDING_OK, _("Parameters"),
               _("%s in %u tensors → %u GGUF tensors"), params,
               g_list_model_get_n_items (tensors), n_out);

  for (guint i = 0; i < g_list_model_get_n_items (tensors); i++)
    {
      g_autoptr(TsTensor) tensor = g_list_model_get_item (tensors, i);
      TsDType dtype = ts_tensor_get_dtype (tensor);

      if ((guint) dtype < TS_DTYPE_N_TYPES)
        counts[dtype]++;
    }
  for (guint d = 0; d < TS_DTYPE_N_TYPES; d++)
    if (counts[d] > 0)
      g_string_append_printf (types, "%s%s × %u", types->len ? ", " : "", ts_dtype_get_name (d), counts[d]);
  add_finding (findings, FINDING_OK, _("Source types"), "%s", types->str);

  for (guint i = 0; warnings != NULL && warnings[i] != NULL; i++)
    add_finding (findings, FINDING_WARN, _("Warning"), "%s", warnings[i]);
}

static void
scan_worker (GTask        *task,
             gpointer      source_object,
             gpointer      task_data,
             GCancellable *cancellable)
{
  GFile *dir = task_data;
  ScanResult *result = g_new0 (ScanResult, 1);
  g_autoptr(GError) error = NULL;
  TsPlanOptions options;

  result->findings = g_ptr_array_new_with_free_func ((GDestroyNotify) finding_free);
  scan_files (result->findings, dir, cancellable);

  ts_plan_options_init (&options);
  result->plan = ts_conversion_plan_new (dir, &options, cancellable, &error);
  if (result->plan != NULL)
    scan_plan (result->findings, result->plan);
  else
    {
      result->problem = g_strdup (error->message);
      /* the files are there, but what they hold (or lack: a shard the
       * index names, a tensor) is wrong: not a tick on the weights */
      if (error->domain == TS_FORMAT_ERROR)
        for (guint i = 0; i < result->findings->len; i++)
          {
            Finding *f = g_ptr_array_index (result->findings, i);

            if (g_strcmp0 (f->title, _("Weights")) == 0)
              f->status = FINDING_MISSING;
          }
    }

  if (g_task_return_error_if_cancelled (task))
    scan_result_free (result);
  else
    g_task_return_pointer (task, result, (GDestroyNotify) scan_result_free);
}

static GtkWidget *
create_finding_row (const Finding *finding,
                    GtkSizeGroup  *titles)
{
  static const char * const icons[] = {
    "emblem-ok-symbolic", "dialog-warning-symbolic", "dialog-error-symbolic",
  };
  static const char * const classes[] = { "pass", "warn", "fail" };
  /* what the icon's colour and shape say, said to a screen reader */
  static const char * const said[] = { N_("Passed"), N_("Warning"), N_("Missing") };
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  GtkWidget *icon = gtk_image_new_from_icon_name (icons[finding->status]);
  GtkWidget *title = gtk_label_new (finding->title);
  GtkWidget *detail = gtk_label_new (finding->detail);

  gtk_widget_add_css_class (box, "finding");
  gtk_widget_add_css_class (icon, classes[finding->status]);
  gtk_widget_add_css_class (icon, "audit-status-icon");
  gtk_accessible_update_property (GTK_ACCESSIBLE (icon),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  g_dgettext (GETTEXT_PACKAGE, said[finding->status]),
                                  -1);
  gtk_widget_add_css_class (title, "heading");
  gtk_label_set_xalign (GTK_LABEL (title), 0);
  gtk_label_set_width_chars (GTK_LABEL (title), 18);
  /* one column of details, however long a translated title is */
  gtk_size_group_add_widget (titles, title);
  gtk_label_set_xalign (GTK_LABEL (detail), 0);
  gtk_label_set_wrap (GTK_LABEL (detail), TRUE);
  gtk_label_set_selectable (GTK_LABEL (detail), TRUE);
  gtk_widget_set_focusable (detail, FALSE);
  gtk_widget_set_can_focus (detail, FALSE);
  gtk_widget_set_hexpand (detail, TRUE);
  gtk_box_append (GTK_BOX (box), icon);
  gtk_box_append (GTK_BOX (box), title);
  gtk_box_append (GTK_BOX (box), detail);
  return box;
}

static void start_sizes (TsConvertWizard *self);

static void
prefill_naming (TsConvertWizard *self)
{
  TsGgufMetadata *md = ts_conversion_plan_get_metadata (self->source_plan);
  g_autoptr(GListModel) entries = ts_gguf_metadata_list_entries (md);

  for (guint n = 0; n < N_NAMING; n++)
    g_clear_pointer (&self->naming_defaults[n], g_free);

  for (guint i = 0; i < g_list_model_get_n_items (entries); i++)
    {
      g_autoptr(TsMetadataEntry) entry = g_list_model_get_item (entries, i);

      for (guint n = 0; n < N_NAMING; n++)
        if (g_str_equal (ts_metadata_entry_get_key (entry), naming_keys[n]))
          self->naming_defaults[n] = ts_metadata_entry_dup_string (entry);
    }
  for (guint n = 0; n < N_NAMING; n++)
    gtk_editable_set_text (GTK_EDITABLE (naming_entry (self, n)),
                           self->naming_defaults[n] ? self->naming_defaults[n] : "");
}

static void
scan_done (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(TsConvertWizard) self = user_data;
  g_autoptr(GError) error = NULL;
  ScanResult *scan = g_task_propagate_pointer (G_TASK (result), &error);

  if (self->closing || g_task_get_cancellable (G_TASK (result)) != self->scan_cancellable)
    {
      g_clear_pointer (&scan, scan_result_free);
      return;
    }

  gtk_widget_set_visible (self->scanning_box, FALSE);
  if (scan == NULL)
    {
      self->problem = g_strdup (error->message);
      gtk_label_set_text (self->problem_label, self->problem);
      gtk_widget_set_visible (self->problem_box, TRUE);
      end_busy (self);
      return;
    }

  for (guint i = 0; i < scan->findings->len; i++)
    gtk_list_box_append (self->findings_list,
                         create_finding_row (g_ptr_array_index (scan->findings, i), self->finding_titles));
  gtk_widget_set_visible (GTK_WIDGET (self->findings_list), TRUE);

  if (scan->plan == NULL)
    {
      self->problem = g_strdup (scan->problem);
      gtk_label_set_text (self->problem_label, self->problem);
      gtk_widget_set_visible (self->problem_box, TRUE);
    }
  else
    {
      self->source_plan = g_object_ref (scan->plan);
      prefill_naming (self);
      start_sizes (self);
    }

  scan_result_free (scan);
  end_busy (self);
  /* a convertible source: Enter goes on to the options, not to another
   * folder chooser (the focus sat on Choose Folder…) */
  if (self->source_plan != NULL && self->page == PAGE_SOURCE)
    gtk_widget_grab_focus (GTK_WIDGET (self->next_button));
}

void
ts_convert_wizard_set_source (TsConvertWizard *self,
                              GFile           *dir)
{
  g_autoptr(GTask) task = NULL;
  g_autofree char *name = NULL;
  g_autofree char *path = NULL;
  GCancellable *cancellable;
  GtkWidget *child;

  g_return_if_fail (TS_IS_CONVERT_WIZARD (self));
  g_return_if_fail (G_IS_FILE (dir));

  /* a new source invalidates everything planned for the old one */
  if (self->scan_cancellable != NULL && !g_cancellable_is_cancelled (self->scan_cancellable) &&
      self->busy > 0 && self->source_plan == NULL && self->problem == NULL)
    self->busy--;
  cancellable = replace_cancellable (&self->scan_cancellable);
  replace_cancellable (&self->sizes_cancellable);
  g_set_object (&self->source_dir, dir);
  g_clear_object (&self->source_plan);
  g_clear_object (&self->plan);
  g_clear_pointer (&self->problem, g_free);
  memset (self->sizes, 0, sizeof self->sizes);
  for (guint i = 0; i < N_OUTTYPES; i++)
    gtk_label_set_text (self->size_labels[i], _("calculating…"));
  self->target_edited = FALSE;

  name = ts_file_display_basename (dir);
  path = g_file_get_parse_name (dir);
  gtk_label_set_text (self->source_name_label, name);
  gtk_label_set_text (self->source_path_label, path);
  gtk_widget_set_visible (self->problem_box, FALSE);
  gtk_widget_set_visible (GTK_WIDGET (self->findings_list), FALSE);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->findings_list))) != NULL)
    gtk_list_box_remove (self->findings_list, child);
  gtk_widget_set_visible (self->scanning_box, TRUE);
  show_page (self, PAGE_SOURCE);

  begin_busy (self);
  task = g_task_new (self, cancellable, scan_done, g_object_ref (self));
  g_task_set_source_tag (task, ts_convert_wizard_set_source);
  g_task_set_task_data (task, g_object_ref (dir), g_object_unref);
  g_task_run_in_thread (task, scan_worker);
}

static void
source_chosen (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(TsConvertWizard) self = user_data;
  g_autoptr(GFile) dir = ts_file_chooser_run_finish (result, NULL);

  if (dir != NULL && !self->closing)
    ts_convert_wizard_set_source (self, dir);
}

static void
on_choose_source (TsConvertWizard *self)
{
  ts_file_chooser_run_async (GTK_WINDOW (self), TS_FILE_CHOOSER_OPEN_FOLDER, NULL, NULL,
                             source_chosen, g_object_ref (self));
}

static gboolean
on_drop (GtkDropTarget   *target,
         const GValue    *value,
         double           x,
         double           y,
         TsConvertWizard *self)
{
  GSList *files = g_value_get_boxed (value);

  gtk_widget_remove_css_class (self->drop_box, "drop-active");
  if (files == NULL || self->page != PAGE_SOURCE)
    return FALSE;
  ts_convert_wizard_set_source (self, files->data);
  return TRUE;
}

static GdkDragAction
on_drop_enter (GtkDropTarget   *target,
               double           x,
               double           y,
               TsConvertWizard *self)
{
  if (self->page != PAGE_SOURCE)
    return 0;
  gtk_widget_add_css_class (self->drop_box, "drop-active");
  return GDK_ACTION_COPY;
}

static void
on_drop_leave (GtkDropTarget   *target,
               TsConvertWizard *self)
{
  gtk_widget_remove_css_class (self->drop_box, "drop-active");
}

/* ------------------------------------------------------------------------ */
/* Page 2: Options                                                           */

typedef struct
{
  GFile   *dir;
  guint64  sizes[N_OUTTYPES];
} SizesData;

static void
sizes_data_free (SizesData *data)
{
  g_object_unref (data->dir);
  g_free (data);
}

/* A plan per output type: the exact predicted size of each, decided by
 * the core rather than guessed here. */
static void
sizes_worker (GTask        *task,
              gpointer      source_object,
              gpointer      task_data,
              GCancellable *cancellable)
{
  SizesData *data = task_data;

  for (guint i = 0; i < G_N_ELEMENTS (type_rows); i++)
    {
      g_autoptr(TsConversionPlan) plan = NULL;
      TsPlanOptions options;

      ts_plan_options_init (&options);
      options.outtype = type_rows[i];
      if ((plan = ts_conversion_plan_new (data->dir, &options, cancellable, NULL)) == NULL)
        continue;
      data->sizes[type_rows[i]] = ts_conversion_plan_get_predicted_size (plan);
      if (g_task_return_error_if_cancelled (task))
        return;
    }
  g_task_return_boolean (task, TRUE);
}

/* the entry shows @file by its display name and stands for it until edited */
static void
show_target (TsConvertWizard *self,
             GFile           *file)
{
  g_set_object (&self->shown_target, file);
  g_free (self->shown_target_text);
  self->shown_target_text = ts_file_display_name (file);
  gtk_editable_set_text (GTK_EDITABLE (self->target_entry), self->shown_target_text);
}

static void
set_target_file (TsConvertWizard *self,
                 GFile           *file)
{
  self->setting_target = TRUE;
  show_target (self, file);
  self->setting_target = FALSE;
}

static void
update_default_target (TsConvertWizard *self)
{
  g_autoptr(GFile) parent = NULL;
  g_autoptr(GFile) file = NULL;
  g_autofree char *path = NULL;
  g_autofree char *name = NULL;

  if (self->target_edited || self->source_dir == NULL || self->source_plan == NULL)
    return;
  name = ts_conversion_plan_get_default_file_name_for (self->source_plan, self->outtype);
  /* next to the checkpoint folder, as llama.cpp's converter does with --outfile unset */
  parent = g_file_get_parent (self->source_dir);
  file = g_file_get_child (parent ? parent : self->source_dir, name);
  set_target_file (self, file);
}

static void update_target_warning (TsConvertWizard *self);

static void
sizes_done (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(TsConvertWizard) self = user_data;
  GTask *task = G_TASK (result);
  SizesData *data = g_task_get_task_data (task);

  if (!g_task_propagate_boolean (task, NULL) || self->closing ||
      g_task_get_cancellable (task) != self->sizes_cancellable)
    return;

  for (guint i = 0; i < N_OUTTYPES; i++)
    {
      g_autofree char *text = data->sizes[i] ? g_format_size (data->sizes[i])
                                             : g_strdup (_("not available"));

      self->sizes[i] = data->sizes[i];
      gtk_label_set_text (self->size_labels[i], text);
    }
  /* whether a split conversion makes one file is known now */
  update_target_warning (self);
}

static void
start_sizes (TsConvertWizard *self)
{
  GCancellable *cancellable = replace_cancellable (&self->sizes_cancellable);
  g_autoptr(GTask) task = g_task_new (self, cancellable, sizes_done, g_object_ref (self));
  SizesData *data = g_new0 (SizesData, 1);

  data->dir = g_object_ref (self->source_dir);
  g_task_set_source_tag (task, start_sizes);
  g_task_set_task_data (task, data, (GDestroyNotify) sizes_data_free);
  g_task_run_in_thread (task, sizes_worker);
  update_default_target (self);
}

static void
on_type_toggled (GtkCheckButton  *check,
                 TsConvertWizard *self)
{
  if (!gtk_check_button_get_active (check))
    return;
  self->outtype = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (check), "outtype"));
  update_default_target (self);
  update_target_warning (self);
}

static void
build_type_list (TsConvertWizard *self)
{
  static const struct { const char *title; const char *description; } rows[] = {
    [TS_OUTTYPE_AUTO] = { N_("Auto"), N_("As llama.cpp's converter chooses: BF16 for a BF16 checkpoint, F16 for any other") },
    [TS_OUTTYPE_F32] = { N_("F32"), N_("32-bit floats: every value exact, twice the size of BF16") },
    [TS_OUTTYPE_F16] = { N_("F16"), N_("Half precision: rounds values outside its range or below its precision") },
    [TS_OUTTYPE_BF16] = { N_("BF16"), N_("Brain floats: bit-exact for a BF16 checkpoint, rounded from any other") },
    [TS_OUTTYPE_Q8_0] = { N_("Q8_0"), N_("8-bit blocks of 32 values with a scale: about half the size of BF16, lossy") },
  };
  GtkCheckButton *group = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (type_rows); i++)
    {
      TsOutType type = type_rows[i];
      GtkWidget *row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
      /* a radio button, named by the row's title and described by the rest */
      GtkWidget *check = g_object_new (GTK_TYPE_CHECK_BUTTON,
                                       "accessible-role", GTK_ACCESSIBLE_ROLE_RADIO,
                                       NULL);
      GtkWidget *text = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
      GtkWidget *title = gtk_label_new (g_dgettext (GETTEXT_PACKAGE, rows[type].title));
      GtkWidget *description = gtk_label_new (g_dgettext (GETTEXT_PACKAGE, rows[type].description));
      GtkWidget *size = gtk_label_new (_("calculating…"));

      gtk_check_button_set_group (GTK_CHECK_BUTTON (check), group);
      group = group ? group : GTK_CHECK_BUTTON (check);
      g_object_set_data (G_OBJECT (check), "outtype", GUINT_TO_POINTER (type));
      g_signal_connect_object (check, "toggled", G_CALLBACK (on_type_toggled), self, 0);
      gtk_widget_add_css_class (title, "heading");
      gtk_label_set_xalign (GTK_LABEL (title), 0);
      gtk_label_set_xalign (GTK_LABEL (description), 0);
      gtk_label_set_wrap (GTK_LABEL (description), TRUE);
      gtk_widget_add_css_class (description, "dim-label");
      gtk_widget_add_css_class (description, "caption");
      gtk_widget_set_hexpand (text, TRUE);
      gtk_widget_add_css_class (size, "numeric");
      gtk_box_append (GTK_BOX (text), title);
      gtk_box_append (GTK_BOX (text), description);
      gtk_box_append (GTK_BOX (row), check);
      gtk_box_append (GTK_BOX (row), text);
      gtk_box_append (GTK_BOX (row), size);
      gtk_widget_add_css_class (row, "option-row");
      gtk_list_box_append (self->type_list, row);
      /* the list row (a focus stop of its own) says it too */
      gtk_accessible_update_relation (GTK_ACCESSIBLE (check),
                                      GTK_ACCESSIBLE_RELATION_LABELLED_BY, title, NULL,
                                      GTK_ACCESSIBLE_RELATION_DESCRIBED_BY, description, size, NULL,
                                      -1);
      gtk_accessible_update_relation (GTK_ACCESSIBLE (gtk_widget_get_parent (row)),
                                      GTK_ACCESSIBLE_RELATION_LABELLED_BY, title, NULL,
                                      GTK_ACCESSIBLE_RELATION_DESCRIBED_BY, description, size, NULL,
                                      -1);

      self->type_checks[type] = GTK_CHECK_BUTTON (check);
      self->size_labels[type] = GTK_LABEL (size);
    }
  gtk_check_button_set_active (self->type_checks[TS_OUTTYPE_AUTO], TRUE);
}

static void
on_type_row_activated (GtkListBox      *list,
                       GtkListBoxRow   *row,
                       TsConvertWizard *self)
{
  guint index = gtk_list_box_row_get_index (row);

  gtk_check_button_set_active (self->type_checks[type_rows[index]], TRUE);
}

/* The file the target field names: "~" is the home folder, and a name
 * without a folder goes next to the checkpoint folder, where the default
 * name does (the app's working folder means nothing to its user) */
static GFile *
target_from_text (TsConvertWizard *self,
                  const char      *text)
{
  g_autoptr(GFile) parent = NULL;

  if (text[0] == '\0')
    return NULL;
  if (self->shown_target != NULL && g_str_equal (text, self->shown_target_text))
    return g_object_ref (self->shown_target);
  if (g_str_equal (text, "~") || g_str_has_prefix (text, "~/"))
    return g_file_new_build_filename (g_get_home_dir (), text + 1, NULL);
  if (g_path_is_absolute (text) || self->source_dir == NULL)
    return g_file_new_for_path (text);
  parent = g_file_get_parent (self->source_dir);
  return g_file_resolve_relative_path (parent != NULL ? parent : self->source_dir, text);
}

/* What the target path holds, said before Next: a file that will be
 * replaced (a warning), or what can never be written there (an error,
 * and no Next): a folder, a device, one of the checkpoint's own files, a
 * folder that does not exist. */
static void
update_target_warning (TsConvertWizard *self)
{
  const char *text = gtk_editable_get_text (GTK_EDITABLE (self->target_entry));
  g_autoptr(GFile) file = target_from_text (self, text);
  g_autoptr(GFile) parent = file != NULL ? g_file_get_parent (file) : NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *message = NULL;
  GFileType parent_type = G_FILE_TYPE_UNKNOWN;

  self->target_refused = FALSE;
  if (file == NULL)
    ;
  else if (g_str_has_suffix (text, G_DIR_SEPARATOR_S))
    {
      /* a folder's name, the file's left out (the path itself drops the "/") */
      self->target_refused = TRUE;
      message = g_strdup (_("This names a folder: add the GGUF file's name"));
    }
  else if (self->source_plan != NULL &&
           !ts_conversion_plan_check_target (self->source_plan, file, TRUE, &error))
    {
      self->target_refused = TRUE;
      message = g_strdup (error->message);
    }
  else if (is_there (file) && one_plain_file (self))
    message = g_strdup (_("A file with this name exists. Converting will replace it."));
  else if (parent != NULL &&
           (parent_type = g_file_query_file_type (parent, G_FILE_QUERY_INFO_NONE, NULL)) !=
           G_FILE_TYPE_DIRECTORY)
    {
      g_autofree char *where = g_file_get_parse_name (parent);

      self->target_refused = TRUE;
      message = g_strdup_printf (parent_type == G_FILE_TYPE_UNKNOWN
                                 ? _("The folder %s does not exist")
                                 : _("%s is a file, not a folder"), where);
    }
  else if (!g_str_has_suffix (text, ".gguf") && one_plain_file (self))
    message = g_strdup (_("The name does not end in .gguf, which file managers and llama.cpp's "
                          "tools expect"));

  gtk_label_set_text (self->target_warning_label, message != NULL ? message : "");
  gtk_widget_set_visible (GTK_WIDGET (self->target_warning_label), message != NULL);
  /* an error in the error colour, on the entry too */
  gtk_widget_remove_css_class (GTK_WIDGET (self->target_warning_label),
                               self->target_refused ? "warning" : "error");
  gtk_widget_add_css_class (GTK_WIDGET (self->target_warning_label),
                            self->target_refused ? "error" : "warning");
  if (self->target_refused)
    gtk_widget_add_css_class (GTK_WIDGET (self->target_entry), "error");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (self->target_entry), "error");
  /* said as well as shown */
  gtk_accessible_update_state (GTK_ACCESSIBLE (self->target_entry),
                               GTK_ACCESSIBLE_STATE_INVALID,
                               self->target_refused ? GTK_ACCESSIBLE_INVALID_TRUE : GTK_ACCESSIBLE_INVALID_FALSE,
                               -1);
}

/* a limit the whole file fits in writes it under the plain name */
static void
on_split_size_changed (TsConvertWizard *self)
{
  update_target_warning (self);
}

/* a split set is named after the target: what the field warns of changes */
static void
on_split_toggled (TsConvertWizard *self)
{
  gtk_widget_set_sensitive (GTK_WIDGET (self->split_size_spin), splitting (self));
  gtk_widget_set_sensitive (GTK_WIDGET (self->split_unit_drop), splitting (self));
  update_target_warning (self);
  update_navigation (self);
}

static void
on_target_edited (TsConvertWizard *self)
{
  if (!self->setting_target)
    self->target_edited = TRUE;
  update_target_warning (self);
  update_navigation (self);
}

static void
target_chosen (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(TsConvertWizard) self = user_data;
  g_autoptr(GFile) file = ts_file_chooser_run_finish (result, NULL);

  if (file != NULL && !self->closing)
    ts_convert_wizard_set_target (self, file);
}

static void
on_choose_target (TsConvertWizard *self)
{
  /* the chooser starts in the target's folder, with its name */
  g_autoptr(GFile) target = target_from_text (self, gtk_editable_get_text (GTK_EDITABLE (self->target_entry)));
  g_autofree char *name = target != NULL ? g_file_get_path (target) : NULL;

  ts_file_chooser_run_async (GTK_WINDOW (self), TS_FILE_CHOOSER_SAVE_GGUF, name, NULL,
                             target_chosen, g_object_ref (self));
}

/* ------------------------------------------------------------------------ */
/* Page 3: Preview                                                           */

typedef struct
{
  GFile         *dir;
  TsPlanOptions  options;
  char          *overrides[N_NAMING];
} PlanData;

typedef struct
{
  TsConversionPlan *plan;
  GListModel       *metadata;
} PlanResult;

static void
plan_data_free (PlanData *data)
{
  g_object_unref (data->dir);
  for (guint i = 0; i < N_NAMING; i++)
    g_free (data->overrides[i]);
  g_free (data);
}

static void
plan_result_free (PlanResult *result)
{
  g_clear_object (&result->plan);
  g_clear_object (&result->metadata);
  g_free (result);
}

static void
plan_worker (GTask        *task,
             gpointer      source_object,
             gpointer      task_data,
             GCancellable *cancellable)
{
  PlanData *data = task_data;
  g_autoptr(GError) error = NULL;
  PlanResult *result;
  TsConversionPlan *plan = ts_conversion_plan_new (data->dir, &data->options, cancellable, &error);

  if (plan == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  result = g_new0 (PlanResult, 1);
  result->plan = plan;
  /* reading the entries back serialises the metadata (MBs for a real
   * tokenizer): not on the main thread */
  result->metadata = ts_conversion_plan_list_metadata (plan);
  g_task_return_pointer (task, result, (GDestroyNotify) plan_result_free);
}

/* The diagram takes its natural height where the window has room, and
 * at most 45 % of the page below the summary where it has not: a short
 * window keeps rows of the tables in view, and the diagram scrolls. The
 * paned keeps either side at its minimum (the .ui's), whatever is set. */
static gboolean
place_preview_divider (gpointer user_data)
{
  TsConvertWizard *self = user_data;

  self->divider_id = 0;
  ts_layout_view_fit_paned (self->preview_paned,
                            gtk_widget_get_height (GTK_WIDGET (self->preview_paned)) * 45 / 100);
  return G_SOURCE_REMOVE;
}

/* after the allocation that changed the sizes, not inside it */
static void
on_preview_paned_resized (TsConvertWizard *self)
{
  if (self->divider_id == 0)
    self->divider_id = g_idle_add (place_preview_divider, self);
}

static void
update_preview_summary (TsConvertWizard *self)
{
  GListModel *tensors = ts_conversion_plan_get_tensors (self->plan);
  guint n = g_list_model_get_n_items (tensors);
  guint n_permuted = 0, n_widened = 0, n_generated = 0;
  g_autofree char *size = ts_format_bytes (ts_conversion_plan_get_predicted_size (self->plan));
  g_autofree char *text = NULL;
  g_autofree char *type = g_ascii_strup (ts_outtype_to_nick (ts_conversion_plan_get_outtype (self->plan)), -1);
  guint n_existing = count_existing_outputs (self);

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(TsPlanTensor) pt = g_list_model_get_item (tensors, i);

      n_permuted += ts_plan_tensor_get_permute_heads (pt) > 0;
      n_widened += ts_plan_tensor_get_transform (pt) == TS_TRANSFORM_WIDEN;
      n_generated += ts_plan_tensor_get_transform (pt) == TS_TRANSFORM_GENERATE;
    }

  {
    guint n_keys = g_list_model_get_n_items (self->plan_metadata);
    g_autofree char *tensor_count = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u tensor", "%u tensors", n), n);
    g_autofree char *permuted = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u permuted", "%u permuted",
                                                              n_permuted), n_permuted);
    g_autofree char *widened = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u widened to F32",
                                                             "%u widened to F32", n_widened), n_widened);
    g_autofree char *generated = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u generated",
                                                               "%u generated", n_generated), n_generated);
    g_autofree char *keys = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u metadata key",
                                                          "%u metadata keys", n_keys), n_keys);

    /* Translators: the preview's summary line: type · tensors (permuted,
     * widened, generated) · metadata keys · size */
    text = g_strdup_printf (_("%s · %s (%s, %s, %s) · %s · predicted size %s"),
                            type, tensor_count, permuted, widened, generated, keys, size);
  }
  if (ts_conversion_plan_get_n_files (self->plan) > 1)
    {
      guint n_files = ts_conversion_plan_get_n_files (self->plan);
      g_autoptr(GFile) first = output_file (self);
      g_autoptr(GFile) last = ts_conversion_plan_get_output_file (self->plan, self->target, n_files - 1);
      g_autofree char *first_name = ts_file_display_basename (first);
      g_autofree char *last_name = ts_file_display_basename (last);
      /* Translators: "Split into 3 files: M-00001-of-00003.gguf to M-00003-of-00003.gguf" */
      g_autofree char *split = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "Split into %u file: %s to %s",
                                                             "Split into %u files: %s to %s", n_files),
                                                n_files, first_name, last_name);
      g_autofree char *both = g_strconcat (text, "\n", split, NULL);

      g_free (text);
      text = g_steal_pointer (&both);
    }
  if (n_existing > 0)
    {
      g_autofree char *replace = NULL;
      g_autofree char *both = NULL;

      if (ts_conversion_plan_get_n_files (self->plan) > 1)
        replace = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                                "%u file of the set exists: Replace overwrites it "
                                                "once all the new files are complete.",
                                                "%u files of the set exist: Replace overwrites them "
                                                "once all the new files are complete.", n_existing),
                                   n_existing);
      else
        {
          g_autofree char *name = ts_file_display_basename (self->target);

          replace = g_strdup_printf (_("“%s” exists: Replace overwrites it once the "
                                       "new file is complete."), name);
        }
      both = g_strconcat (text, "\n", replace, NULL);
      g_free (text);
      text = g_steal_pointer (&both);
    }
  gtk_label_set_text (self->preview_summary_label, text);
}

static void
show_plan (TsConvertWizard *self)
{
  g_autoptr(GtkNoSelection) tensors = NULL;
  g_autoptr(GtkNoSelection) metadata = NULL;

  tensors = gtk_no_selection_new (g_object_ref (ts_conversion_plan_get_tensors (self->plan)));
  gtk_column_view_column_set_visible (self->plan_file_column, ts_conversion_plan_get_n_files (self->plan) > 1);
  gtk_column_view_set_model (self->plan_tensors_view, GTK_SELECTION_MODEL (tensors));
  metadata = gtk_no_selection_new (g_object_ref (self->plan_metadata));
  gtk_column_view_set_model (self->plan_metadata_view, GTK_SELECTION_MODEL (metadata));

  g_clear_object (&self->layout);
  {
    g_autofree char *name = self->target != NULL ? ts_file_display_basename (self->target) : NULL;

    self->layout = ts_layout_new_for_plan (self->plan, name);
  }
  ts_layout_set_show_title (self->layout, FALSE);
  ts_layout_view_set_layout (self->layout_view, self->layout);
  update_preview_summary (self);
}

static void
plan_done (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(TsConvertWizard) self = user_data;
  g_autoptr(GError) error = NULL;
  PlanResult *plan = g_task_propagate_pointer (G_TASK (result), &error);

  if (self->closing || g_task_get_cancellable (G_TASK (result)) != self->plan_cancellable)
    {
      g_clear_pointer (&plan, plan_result_free);
      return;
    }
  end_busy (self);
  if (plan == NULL)
    {
      /* an edit made the plan impossible: say so where it was made */
      gtk_label_set_text (self->target_warning_label, error->message);
      gtk_widget_remove_css_class (GTK_WIDGET (self->target_warning_label), "warning");
      gtk_widget_add_css_class (GTK_WIDGET (self->target_warning_label), "error");
      gtk_widget_set_visible (GTK_WIDGET (self->target_warning_label), TRUE);
      return;
    }

  g_set_object (&self->plan, plan->plan);
  g_set_object (&self->plan_metadata, plan->metadata);
  plan_result_free (plan);
  show_plan (self);
  show_page (self, PAGE_PREVIEW);
}

/* only what the user changed overrides the converter's own naming, so an
 * untouched form gives llama.cpp's bytes */
static char *
naming_override (TsConvertWizard *self,
                 Naming           naming)
{
  const char *text = gtk_editable_get_text (GTK_EDITABLE (naming_entry (self, naming)));
  const char *fallback = self->naming_defaults[naming] ? self->naming_defaults[naming] : "";

  return g_strcmp0 (text, fallback) == 0 ? NULL : g_strdup (text);
}

static void
start_plan (TsConvertWizard *self)
{
  GCancellable *cancellable = replace_cancellable (&self->plan_cancellable);
  g_autoptr(GTask) task = g_task_new (self, cancellable, plan_done, g_object_ref (self));
  PlanData *data = g_new0 (PlanData, 1);
  const char *text = gtk_editable_get_text (GTK_EDITABLE (self->target_entry));

  g_clear_object (&self->target);
  self->target = target_from_text (self, text);

  data->dir = g_object_ref (self->source_dir);
  ts_plan_options_init (&data->options);
  data->options.outtype = self->outtype;
  for (guint i = 0; i < N_NAMING; i++)
    data->overrides[i] = naming_override (self, i);
  data->options.name = data->overrides[NAMING_NAME];
  data->options.finetune = data->overrides[NAMING_FINETUNE];
  data->options.size_label = data->overrides[NAMING_SIZE_LABEL];
  data->options.license = data->overrides[NAMING_LICENSE];
  /* a number typed and not yet taken in (Alt+N leaves the focus there) */
  gtk_spin_button_update (self->split_size_spin);
  data->options.split_max_size = split_limit (self);

  begin_busy (self);
  g_task_set_source_tag (task, start_plan);
  g_task_set_task_data (task, data, (GDestroyNotify) plan_data_free);
  g_task_run_in_thread (task, plan_worker);
}

/* Columns of the plan tables */

typedef char *(*CellText) (gpointer item, gpointer user_data);

/* the css class of a column of numbers (tabular figures, right-aligned) */
#define NUMBER_CLASS "number"

static void
setup_label (GtkSignalListItemFactory *factory,
             GtkListItem              *item,
             gpointer                  user_data)
{
  GtkWidget *label = gtk_label_new (NULL);
  const char *css = g_object_get_data (G_OBJECT (factory), "css-class");

  /* a number lines up by its last digit, as in the main window's table */
  gtk_label_set_xalign (GTK_LABEL (label), g_strcmp0 (css, NUMBER_CLASS) == 0 ? 1 : 0);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
  ts_label_add_full_text_tooltip (GTK_LABEL (label));
  if (css != NULL)
    gtk_widget_add_css_class (label, g_strcmp0 (css, NUMBER_CLASS) == 0 ? "numeric" : css);
  gtk_list_item_set_child (item, label);
}

static void
bind_label (GtkSignalListItemFactory *factory,
            GtkListItem              *item,
            gpointer                  user_data)
{
  CellText text_func = (CellText) g_object_get_data (G_OBJECT (factory), "text-func");
  g_autofree char *text = text_func (gtk_list_item_get_item (item), user_data);
  GtkWidget *label = gtk_list_item_get_child (item);

  gtk_label_set_text (GTK_LABEL (label), text ? text : "");
}

static GtkColumnViewColumn *
add_column (GtkColumnView *view,
            const char    *title,
            CellText       text_func,
            const char    *css_class,
            int            width,
            gboolean       expand,
            gpointer       user_data)
{
  GtkListItemFactory *factory = gtk_signal_list_item_factory_new ();
  g_autoptr(GtkColumnViewColumn) column = NULL;

  g_object_set_data (G_OBJECT (factory), "text-func", (gpointer) text_func);
  g_object_set_data (G_OBJECT (factory), "css-class", (gpointer) css_class);
  g_signal_connect (factory, "setup", G_CALLBACK (setup_label), user_data);
  g_signal_connect (factory, "bind", G_CALLBACK (bind_label), user_data);
  column = gtk_column_view_column_new (title, factory);
  gtk_column_view_column_set_resizable (column, TRUE);
  /* the column that takes the spare room keeps its width where there is
   * none: a narrow window scrolls the table sideways rather than squeeze
   * the transforms to "permut…" */
  gtk_column_view_column_set_fixed_width (column, width);
  gtk_column_view_column_set_expand (column, expand);
  gtk_column_view_append_column (view, column);
  /* the view holds it */
  return column;
}

static char *
plan_source_name (gpointer item,
                  gpointer user_data)
{
  TsTensor *source = ts_plan_tensor_get_source (item);

  return g_strdup (source ? ts_tensor_get_name (source) : _("(generated from config.json)"));
}

static char *plan_target_name (gpointer item, gpointer user_data) { return g_strdup (ts_plan_tensor_get_name (item)); }
static char *plan_dtype (gpointer item, gpointer user_data) { return g_strdup (ts_dtype_get_name (ts_plan_tensor_get_dtype (item))); }

static char *
plan_shape (gpointer item,
            gpointer user_data)
{
  const guint64 *dims = ts_plan_tensor_get_dims (item);
  GString *s = g_string_new ("[");

  for (guint d = 0; d < ts_plan_tensor_get_n_dims (item); d++)
    g_string_append_printf (s, "%s%" G_GUINT64_FORMAT, d ? ", " : "", dims[d]);
  g_string_append_c (s, ']');
  return g_string_free (s, FALSE);
}

static char *
plan_transform (gpointer item,
                gpointer user_data)
{
  g_autoptr(GString) s = g_string_new (NULL);
  guint heads = ts_plan_tensor_get_permute_heads (item);
  TsTransform transform = ts_plan_tensor_get_transform (item);

  if (heads > 0)
    g_string_append_printf (s, g_dngettext (GETTEXT_PACKAGE, "permuted (%u head)", "permuted (%u heads)", heads),
                            heads);
  if (s->len > 0)
    g_string_append (s, " · ");
  switch (transform)
    {
    case TS_TRANSFORM_COPY:     g_string_append (s, _("copied")); break;
    case TS_TRANSFORM_WIDEN:    g_string_append (s, _("widened to F32")); break;
    case TS_TRANSFORM_CONVERT:  g_string_append (s, _("rounded")); break;
    case TS_TRANSFORM_QUANTIZE: g_string_append (s, _("quantized")); break;
    case TS_TRANSFORM_GENERATE: g_string_append (s, _("generated")); break;
    default:                    break;
    }
  return g_string_free (g_steal_pointer (&s), FALSE);
}

static char *plan_offset (gpointer item, gpointer user_data) { return ts_format_count (ts_plan_tensor_get_offset (item)); }
static char *plan_file (gpointer item, gpointer user_data) { return g_strdup_printf ("%u", ts_plan_tensor_get_file (item) + 1); }
static char *md_key (gpointer item, gpointer user_data) { return g_strdup (ts_metadata_entry_get_key (item)); }

static char *
md_value (gpointer item,
          gpointer user_data)
{
  g_autofree char *value = ts_metadata_entry_to_string (item);

  return ts_format_display_text (value, -1, 200);
}

static char *
md_origin (gpointer item,
           gpointer user_data)
{
  TsConvertWizard *self = user_data;

  if (self->plan == NULL || self->plan_metadata == NULL)
    return NULL;
  /* origins are by index, in the order the entries are read back */
  for (guint i = 0; i < g_list_model_get_n_items (self->plan_metadata); i++)
    {
      g_autoptr(GObject) entry = g_list_model_get_item (self->plan_metadata, i);

      if (entry == item)
        return g_strdup (ts_gguf_metadata_get_origin (ts_conversion_plan_get_metadata (self->plan), i));
    }
  return NULL;
}

static void
build_plan_columns (TsConvertWizard *self)
{
  add_column (self->plan_tensors_view, _("Hugging Face Tensor"), plan_source_name, "tensor-name", 330, FALSE, self);
  add_column (self->plan_tensors_view, _("GGUF Tensor"), plan_target_name, "tensor-name", 220, FALSE, self);
  add_column (self->plan_tensors_view, _("Type"), plan_dtype, NULL, 70, FALSE, self);
  add_column (self->plan_tensors_view, _("GGUF Shape"), plan_shape, "numeric", 120, FALSE, self);
  /* as wide as "permuted (8 heads) · copied" */
  add_column (self->plan_tensors_view, _("Transform"), plan_transform, NULL, 210, TRUE, self);
  /* shown for a split set: the offsets are in each file's data */
  self->plan_file_column = add_column (self->plan_tensors_view, C_("split file number", "File"),
                                       plan_file, NUMBER_CLASS, 50, FALSE, self);
  add_column (self->plan_tensors_view, _("Data Offset"), plan_offset, NUMBER_CLASS, 110, FALSE, self);

  add_column (self->plan_metadata_view, _("Key"), md_key, "tensor-name", 320, FALSE, self);
  add_column (self->plan_metadata_view, _("Value"), md_value, "metadata-value", 300, TRUE, self);
  add_column (self->plan_metadata_view, _("Origin"), md_origin, NULL, 260, FALSE, self);
}

/* ------------------------------------------------------------------------ */
/* Page 4: Convert                                                           */

static char *
format_duration (double seconds)
{
  guint s = (guint) ceil (seconds);

  if (s < 60)
    return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u second", "%u seconds", s), s);
  if (s < 3600)
    return g_strdup_printf (_("%u min %02u s"), s / 60, s % 60);
  return g_strdup_printf (_("%u h %02u min"), s / 3600, (s % 3600) / 60);
}

static void
on_convert_progress (TsConvertWizard *self)
{
  guint64 done, total;
  double elapsed, rate;
  g_autofree char *done_text = NULL;
  g_autofree char *total_text = NULL;
  g_autofree char *rate_text = NULL;
  g_autofree char *left_text = NULL;
  g_autofree char *stats = NULL;
  g_autofree char *tensor = NULL;

  if (self->converter == NULL)
    return;

  done = ts_converter_get_bytes_done (self->converter);
  total = ts_converter_get_bytes_total (self->converter);
  elapsed = (g_get_monotonic_time () - self->convert_start) / (double) G_USEC_PER_SEC;
  rate = elapsed > 0 ? done / elapsed : 0;
  done_text = g_format_size (done);
  total_text = g_format_size (total);
  rate_text = g_format_size ((guint64) rate);
  left_text = rate > 0 ? format_duration ((total - MIN (done, total)) / rate) : g_strdup (_("unknown"));
  /* the tensors' bytes, the writing's all but the first few kB: the
   * total is not the file's predicted size, and says so */
  /* Translators: "1.2 GB of 6.4 GB of tensor data · 350 MB/s · 12 seconds left" */
  stats = g_strdup_printf (_("%s of %s of tensor data · %s/s · %s left"), done_text, total_text, rate_text,
                           left_text);
  tensor = ts_converter_dup_current_tensor (self->converter);

  gtk_progress_bar_set_fraction (self->convert_progress, ts_converter_get_fraction (self->converter));
  gtk_label_set_text (self->convert_stats_label, stats);
  gtk_label_set_text (self->convert_tensor_label, tensor ? tensor : "");
}

static void
set_convert_state (TsConvertWizard *self,
                   const char      *state,
                   const char      *title,
                   const char      *icon,
                   const char      *message)
{
  self->convert_state = state;
  gtk_label_set_text (self->convert_title_label, title);
  gtk_image_set_from_icon_name (self->convert_icon, icon);
  gtk_widget_set_visible (GTK_WIDGET (self->stop_button), g_str_equal (state, "running"));
  /* Stop left it insensitive while the converter wound down */
  gtk_widget_set_sensitive (GTK_WIDGET (self->stop_button), TRUE);
  /* a bar part-filled beside "Nothing was written" would say otherwise */
  gtk_widget_set_visible (GTK_WIDGET (self->convert_progress),
                          g_str_equal (state, "running") || g_str_equal (state, "done"));
  gtk_widget_set_visible (GTK_WIDGET (self->convert_tensor_label), g_str_equal (state, "running"));
  gtk_label_set_text (self->convert_error_label, message ? message : "");
  gtk_widget_set_visible (GTK_WIDGET (self->convert_error_label), message != NULL);
  if (g_str_equal (state, "failed"))
    gtk_widget_add_css_class (GTK_WIDGET (self->convert_icon), "error");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (self->convert_icon), "error");
  update_navigation (self);
}

static void start_audit (TsConvertWizard *self);

static void
convert_done (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(TsConvertWizard) self = user_data;
  g_autoptr(GError) error = NULL;
  gboolean ok = ts_converter_run_finish (TS_CONVERTER (object), result, &error);
  gboolean kept = FALSE;

  /* the temporary file is gone (or in place): the application may exit */
  if (self->held_app != NULL)
    {
      g_application_release (self->held_app);
      g_clear_object (&self->held_app);
    }
  if (self->closing || TS_CONVERTER (object) != self->converter)
    return;
  on_convert_progress (self);
  g_clear_object (&self->converter);
  end_busy (self);

  if (!ok)
    {
      gboolean set = ts_conversion_plan_get_n_files (self->plan) > 1;
      g_autoptr(GFile) first = output_file (self);
      g_autofree char *path = g_file_get_parse_name (first);
      g_autofree char *text = NULL;

      /* what is at the target now: as it was, or nothing */
      kept = target_exists (self);
      if (set)
        text = g_strdup_printf (kept ? _("The files of the set %s, … are as they were")
                                     : _("No file of the set %s, … was written"), path);
      else
        text = g_strdup_printf (kept ? _("%s is as it was") : _("%s was not written"), path);
      gtk_label_set_text (self->convert_target_label, text);
      /* no rate or time left for work that stopped */
      gtk_label_set_text (self->convert_stats_label, "");
    }

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      set_convert_state (self, "cancelled", _("Conversion Stopped"), "process-stop-symbolic",
                         kept ? _("The existing file was not touched, and no partial or temporary "
                                  "file is left behind.")
                              : _("Nothing was written: no partial or temporary file is left behind."));
      return;
    }
  if (!ok)
    {
      g_autofree char *detail = g_strdup_printf ("%s\n\n%s", error->message,
                                                 kept ? _("The existing file was not touched, and no "
                                                          "partial or temporary file is left behind.")
                                                      : _("No partial or temporary file is left behind."));

      g_free (self->error_message);
      self->error_message = g_strdup (error->message);
      set_convert_state (self, "failed", _("Conversion Failed"), "dialog-error-symbolic", detail);
      return;
    }

  set_convert_state (self, "done", _("Conversion Complete"), "emblem-ok-symbolic", NULL);
  start_audit (self);
}

/* the output's first file, and how many more a split set has:
 * "/m/out-00001-of-00003.gguf and 2 more files" */
static char *
describe_output (TsConvertWizard *self)
{
  g_autoptr(GFile) first = output_file (self);
  g_autofree char *path = g_file_get_parse_name (first);
  guint n_more = ts_conversion_plan_get_n_files (self->plan) - 1;

  if (n_more == 0)
    return g_steal_pointer (&path);
  /* Translators: "/m/out-00001-of-00003.gguf and 2 more files" */
  return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s and %u more file", "%s and %u more files",
                                       n_more), path, n_more);
}

/* The options the next wizard offers first: those of the last conversion
 * started, not of one only looked at */
static void
load_options (TsConvertWizard *self)
{
  g_autofree char *nick = g_settings_get_string (self->settings, "convert-outtype");
  TsOutType outtype;

  if (ts_outtype_from_nick (nick, &outtype))
    gtk_check_button_set_active (self->type_checks[outtype], TRUE);
  gtk_spin_button_set_value (self->split_size_spin, g_settings_get_int (self->settings, "convert-split-size"));
  gtk_drop_down_set_selected (self->split_unit_drop, g_settings_get_enum (self->settings, "convert-split-unit"));
  gtk_check_button_set_active (self->split_check, g_settings_get_boolean (self->settings, "convert-split"));
}

static void
save_options (TsConvertWizard *self)
{
  g_settings_delay (self->settings);
  g_settings_set_string (self->settings, "convert-outtype", ts_outtype_to_nick (self->outtype));
  g_settings_set_boolean (self->settings, "convert-split", splitting (self));
  g_settings_set_int (self->settings, "convert-split-size", gtk_spin_button_get_value_as_int (self->split_size_spin));
  g_settings_set_enum (self->settings, "convert-split-unit", gtk_drop_down_get_selected (self->split_unit_drop));
  g_settings_apply (self->settings);
}

static void
start_conversion (TsConvertWizard *self)
{
  GCancellable *cancellable = replace_cancellable (&self->convert_cancellable);
  g_autofree char *output = describe_output (self);
  g_autofree char *text = g_strdup_printf (_("Writing %s"), output);

  g_clear_pointer (&self->error_message, g_free);
  g_clear_object (&self->converter);
  self->converter = ts_converter_new (self->plan);
  g_signal_connect_object (self->converter, "notify::progress",
                           G_CALLBACK (on_convert_progress), self, G_CONNECT_SWAPPED);
  self->convert_start = g_get_monotonic_time ();
  save_options (self);

  gtk_label_set_text (self->convert_target_label, text);
  gtk_progress_bar_set_fraction (self->convert_progress, 0);
  gtk_label_set_text (self->convert_stats_label, "");
  gtk_label_set_text (self->convert_tensor_label, "");
  show_page (self, PAGE_CONVERT);
  begin_busy (self);
  set_convert_state (self, "running", _("Converting…"), "document-save-symbolic", NULL);

  /* Quitting (or closing this window) cancels the conversion; the
   * application stays until the converter has removed its temporary file. */
  if (self->held_app == NULL && gtk_window_get_application (GTK_WINDOW (self)) != NULL)
    {
      self->held_app = G_APPLICATION (g_object_ref (gtk_window_get_application (GTK_WINDOW (self))));
      g_application_hold (self->held_app);
    }
  /* the options page warned that an existing file is replaced */
  ts_converter_run_async (self->converter, self->target, TRUE, cancellable,
                          convert_done, g_object_ref (self));
}

void
ts_convert_wizard_cancel_conversion (TsConvertWizard *self)
{
  g_return_if_fail (TS_IS_CONVERT_WIZARD (self));

  if (self->converter != NULL)
    {
      gtk_label_set_text (self->convert_title_label, _("Stopping…"));
      gtk_widget_set_sensitive (GTK_WIDGET (self->stop_button), FALSE);
      g_cancellable_cancel (self->convert_cancellable);
    }
}

/* ------------------------------------------------------------------------ */
/* Page 5: Verify                                                            */

static void
audit_failed (TsConvertWizard *self,
              const GError    *error)
{
  g_free (self->error_message);
  self->error_message = g_strdup (error->message);
  gtk_label_set_text (self->audit_error_label, error->message);
  gtk_stack_set_visible_child_name (self->verify_stack, "error");
}

static void
on_audit_progress (TsConvertWizard *self)
{
  g_autofree char *tensor = NULL;

  if (self->audit == NULL)
    return;
  tensor = ts_audit_dup_current_tensor (self->audit);
  gtk_progress_bar_set_fraction (self->audit_progress, ts_audit_get_fraction (self->audit));
  gtk_label_set_text (self->audit_tensor_label, tensor ? tensor : "");
}

static void
audit_done (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(TsConvertWizard) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(TsAuditReport) report = ts_audit_run_finish (result, &error);

  if (self->closing || g_task_get_cancellable (G_TASK (result)) != self->audit_cancellable)
    return;
  g_clear_object (&self->audit);
  end_busy (self);
  if (report == NULL)
    {
      audit_failed (self, error);
      return;
    }

  ts_audit_pane_set_report (self->audit_pane, report,
                            ts_conversion_plan_get_source (self->plan), self->output);
  gtk_stack_set_visible_child_name (self->verify_stack, "result");
}

static void
output_loaded (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(TsConvertWizard) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(TsModelFile) output = ts_model_file_load_finish (result, &error);
  TsAuditOptions options;

  if (self->closing || g_task_get_cancellable (G_TASK (result)) != self->audit_cancellable)
    return;
  if (output == NULL)
    {
      end_busy (self);
      audit_failed (self, error);
      return;
    }

  g_set_object (&self->output, output);
  ts_audit_options_init (&options);
  self->audit = g_object_ref (ts_audit_run_async (ts_conversion_plan_get_source (self->plan), output,
                                                  &options, self->audit_cancellable,
                                                  audit_done, g_object_ref (self)));
  g_signal_connect_object (self->audit, "notify::fraction", G_CALLBACK (on_audit_progress),
                           self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->audit, "notify::current-tensor", G_CALLBACK (on_audit_progress),
                           self, G_CONNECT_SWAPPED);
}

static void
start_audit (TsConvertWizard *self)
{
  GCancellable *cancellable = replace_cancellable (&self->audit_cancellable);
  g_autoptr(GFile) first = output_file (self);
  g_autofree char *output = describe_output (self);
  g_autofree char *text = g_strdup_printf (_("Saved as %s"), output);

  gtk_label_set_text (self->output_label, text);
  gtk_progress_bar_set_fraction (self->audit_progress, 0);
  gtk_stack_set_visible_child_name (self->verify_stack, "running");
  show_page (self, PAGE_VERIFY);
  begin_busy (self);
  /* a split set is read whole from its first file */
  ts_model_file_load_async (first, cancellable, output_loaded, g_object_ref (self));
}

/* the conversion is done and kept; only the audit stops */
void
ts_convert_wizard_stop_audit (TsConvertWizard *self)
{
  g_return_if_fail (TS_IS_CONVERT_WIZARD (self));

  if (g_strcmp0 (gtk_stack_get_visible_child_name (self->verify_stack), "running") != 0)
    return;
  /* a new cancellable: the stopped run's callbacks see it is not theirs */
  replace_cancellable (&self->audit_cancellable);
  g_clear_object (&self->audit);
  end_busy (self);
  gtk_stack_set_visible_child_name (self->verify_stack, "stopped");
}

static void
on_stop_audit (TsConvertWizard *self)
{
  ts_convert_wizard_stop_audit (self);
}

/* the stopped audit, from the start */
static void
on_audit_again (TsConvertWizard *self)
{
  if (g_strcmp0 (gtk_stack_get_visible_child_name (self->verify_stack), "stopped") == 0)
    start_audit (self);
}

static void
on_open_output (TsConvertWizard *self)
{
  GtkApplication *app = gtk_window_get_application (GTK_WINDOW (self));
  g_autoptr(GFile) first = output_file (self);

  if (first == NULL)
    return;
  if (TS_IS_APPLICATION (app))
    ts_application_open_file (TS_APPLICATION (app), first);
  else
    {
      TsWindow *window = ts_window_new (NULL);

      ts_window_open (window, first);
      gtk_window_present (GTK_WINDOW (window));
    }
}

/* ------------------------------------------------------------------------ */
/* Actions                                                                   */

void
ts_convert_wizard_go_next (TsConvertWizard *self)
{
  g_return_if_fail (TS_IS_CONVERT_WIZARD (self));

  if (!can_go_next (self))
    return;

  switch (self->page)
    {
    case PAGE_SOURCE:
      update_default_target (self);
      /* the same text may name another case for another source */
      update_target_warning (self);
      show_page (self, PAGE_OPTIONS);
      break;
    case PAGE_OPTIONS:
      start_plan (self);
      break;
    case PAGE_PREVIEW:
    case PAGE_CONVERT:
      start_conversion (self);
      break;
    case PAGE_VERIFY:
      gtk_window_close (GTK_WINDOW (self));
      break;
    default:
      break;
    }
}

void
ts_convert_wizard_go_back (TsConvertWizard *self)
{
  g_return_if_fail (TS_IS_CONVERT_WIZARD (self));

  if (!can_go_back (self))
    return;
  if (self->page == PAGE_OPTIONS)
    g_cancellable_cancel (self->plan_cancellable);
  if (self->page == PAGE_OPTIONS && self->busy > 0)
    end_busy (self);
  show_page (self, self->page - 1);
}

static void
next_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  ts_convert_wizard_go_next (TS_CONVERT_WIZARD (widget));
}

static void
back_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  ts_convert_wizard_go_back (TS_CONVERT_WIZARD (widget));
}

/* ------------------------------------------------------------------------ */
/* Test API                                                                  */

const char *
ts_convert_wizard_get_page (TsConvertWizard *self)
{
  g_return_val_if_fail (TS_IS_CONVERT_WIZARD (self), NULL);
  return page_names[self->page];
}

gboolean
ts_convert_wizard_get_busy (TsConvertWizard *self)
{
  g_return_val_if_fail (TS_IS_CONVERT_WIZARD (self), FALSE);
  return self->busy > 0;
}

gboolean
ts_convert_wizard_can_go_next (TsConvertWizard *self)
{
  g_return_val_if_fail (TS_IS_CONVERT_WIZARD (self), FALSE);
  return can_go_next (self);
}

const char *
ts_convert_wizard_get_problem (TsConvertWizard *self)
{
  g_return_val_if_fail (TS_IS_CONVERT_WIZARD (self), NULL);
  return self->problem;
}

char *
ts_convert_wizard_dup_findings (TsConvertWizard *self)
{
  GString *s = g_string_new (NULL);

  g_return_val_if_fail (TS_IS_CONVERT_WIZARD (self), NULL);

  for (GtkWidget *row = gtk_widget_get_first_child (GTK_WIDGET (self->findings_list));
       row != NULL;
       row = gtk_widget_get_next_sibling (row))
    {
      GtkWidget *box = gtk_list_box_row_get_child (GTK_LIST_BOX_ROW (row));
      GtkWidget *title = gtk_widget_get_next_sibling (gtk_widget_get_first_child (box));
      GtkWidget *detail = gtk_widget_get_next_sibling (title);

      g_string_append_printf (s, "%s: %s\n", gtk_label_get_text (GTK_LABEL (title)),
                              gtk_label_get_text (GTK_LABEL (detail)));
    }
  return g_string_free (s, FALSE);
}

TsConversionPlan *
ts_convert_wizard_get_plan (TsConvertWizard *self)
{
  g_return_val_if_fail (TS_IS_CONVERT_WIZARD (self), NULL);
  return self->plan;
}

guint64
ts_convert_wizard_get_predicted_size (TsConvertWizard *self,
                                      TsOutType        outtype)
{
  g_return_val_if_fail (TS_IS_CONVERT_WIZARD (self), 0);
  g_return_val_if_fail ((guint) outtype < N_OUTTYPES, 0);
  return self->sizes[outtype];
}

/* the type chosen on the Options page */
TsOutType
ts_convert_wizard_get_outtype (TsConvertWizard *self)
{
  g_return_val_if_fail (TS_IS_CONVERT_WIZARD (self), TS_OUTTYPE_AUTO);
  return self->outtype;
}

void
ts_convert_wizard_set_outtype (TsConvertWizard *self,
                               TsOutType        outtype)
{
  g_return_if_fail (TS_IS_CONVERT_WIZARD (self));
  g_return_if_fail ((guint) outtype < N_OUTTYPES);
  gtk_check_button_set_active (self->type_checks[outtype], TRUE);
}

void
ts_convert_wizard_set_target (TsConvertWizard *self,
                              GFile           *target)
{
  g_return_if_fail (TS_IS_CONVERT_WIZARD (self));
  g_return_if_fail (G_IS_FILE (target));

  show_target (self, target);
  self->target_edited = TRUE;
}

/* the Preview page's diagram of the file to be written, or NULL */
TsLayout *
ts_convert_wizard_get_preview_layout (TsConvertWizard *self)
{
  g_return_val_if_fail (TS_IS_CONVERT_WIZARD (self), NULL);
  return self->layout;
}

/* what the Options page says of the target path, or NULL */
const char *
ts_convert_wizard_get_target_message (TsConvertWizard *self)
{
  g_return_val_if_fail (TS_IS_CONVERT_WIZARD (self), NULL);

  if (!gtk_widget_get_visible (GTK_WIDGET (self->target_warning_label)))
    return NULL;
  return gtk_label_get_text (self->target_warning_label);
}

/* the target as typed in the Options page's field */
void
ts_convert_wizard_set_target_text (TsConvertWizard *self,
                                   const char      *text)
{
  g_return_if_fail (TS_IS_CONVERT_WIZARD (self));
  g_return_if_fail (text != NULL);

  gtk_editable_set_text (GTK_EDITABLE (self->target_entry), text);
}

GFile *
ts_convert_wizard_get_target (TsConvertWizard *self)
{
  g_return_val_if_fail (TS_IS_CONVERT_WIZARD (self), NULL);
  return self->target;
}

static int
find_naming (const char *field)
{
  for (guint i = 0; i < N_NAMING; i++)
    if (g_strcmp0 (field, naming_fields[i]) == 0)
      return i;
  return -1;
}

void
ts_convert_wizard_set_naming (TsConvertWizard *self,
                              const char      *field,
                              const char      *value)
{
  int i = find_naming (field);

  g_return_if_fail (TS_IS_CONVERT_WIZARD (self));
  g_return_if_fail (i >= 0);
  gtk_editable_set_text (GTK_EDITABLE (naming_entry (self, i)), value ? value : "");
}

const char *
ts_convert_wizard_get_naming (TsConvertWizard *self,
                              const char      *field)
{
  int i = find_naming (field);

  g_return_val_if_fail (TS_IS_CONVERT_WIZARD (self), NULL);
  g_return_val_if_fail (i >= 0, NULL);
  return gtk_editable_get_text (GTK_EDITABLE (naming_entry (self, i)));
}

const char *
ts_convert_wizard_get_convert_state (TsConvertWizard *self)
{
  g_return_val_if_fail (TS_IS_CONVERT_WIZARD (self), NULL);
  return self->convert_state;
}

const char *
ts_convert_wizard_get_error_message (TsConvertWizard *self)
{
  g_return_val_if_fail (TS_IS_CONVERT_WIZARD (self), NULL);
  return self->error_message;
}

TsConverter *
ts_convert_wizard_get_converter (TsConvertWizard *self)
{
  g_return_val_if_fail (TS_IS_CONVERT_WIZARD (self), NULL);
  return self->converter;
}

const char *
ts_convert_wizard_get_verify_state (TsConvertWizard *self)
{
  g_return_val_if_fail (TS_IS_CONVERT_WIZARD (self), NULL);
  return gtk_stack_get_visible_child_name (self->verify_stack);
}

TsAuditPane *
ts_convert_wizard_get_audit_pane (TsConvertWizard *self)
{
  g_return_val_if_fail (TS_IS_CONVERT_WIZARD (self), NULL);
  return self->audit_pane;
}

/* ------------------------------------------------------------------------ */
/* GObject                                                                   */

TsConvertWizard *
ts_convert_wizard_new (GtkApplication *app)
{
  return g_object_new (TS_TYPE_CONVERT_WIZARD, "application", app, NULL);
}

static void
cancel_all (TsConvertWizard *self)
{
  GCancellable *all[] = {
    self->scan_cancellable, self->sizes_cancellable, self->plan_cancellable,
    self->convert_cancellable, self->audit_cancellable,
  };

  for (guint i = 0; i < G_N_ELEMENTS (all); i++)
    if (all[i] != NULL)
      g_cancellable_cancel (all[i]);
}

/* Closing the window stops its work at once: the tasks hold references to
 * the wizard, so dispose would come only after they had finished. */
static gboolean
ts_convert_wizard_close_request (GtkWindow *window)
{
  TsConvertWizard *self = TS_CONVERT_WIZARD (window);

  self->closing = TRUE;
  cancel_all (self);
  return GTK_WINDOW_CLASS (ts_convert_wizard_parent_class)->close_request (window);
}

static void
ts_convert_wizard_dispose (GObject *object)
{
  TsConvertWizard *self = (TsConvertWizard *) object;

  /* closing the wizard stops its work; the converter removes its file */
  self->closing = TRUE;
  cancel_all (self);
  g_clear_handle_id (&self->divider_id, g_source_remove);
  gtk_widget_dispose_template (GTK_WIDGET (self), TS_TYPE_CONVERT_WIZARD);

  g_clear_object (&self->scan_cancellable);
  g_clear_object (&self->sizes_cancellable);
  g_clear_object (&self->plan_cancellable);
  g_clear_object (&self->convert_cancellable);
  g_clear_object (&self->audit_cancellable);
  g_clear_object (&self->source_dir);
  g_clear_object (&self->source_plan);
  g_clear_object (&self->plan);
  g_clear_object (&self->plan_metadata);
  g_clear_object (&self->layout);
  g_clear_object (&self->target);
  g_clear_object (&self->shown_target);
  g_clear_pointer (&self->shown_target_text, g_free);
  g_clear_object (&self->converter);
  g_clear_object (&self->output);
  g_clear_object (&self->audit);
  g_clear_object (&self->settings);
  g_clear_object (&self->finding_titles);
  if (self->held_app != NULL)
    {
      g_application_release (self->held_app);
      g_clear_object (&self->held_app);
    }

  G_OBJECT_CLASS (ts_convert_wizard_parent_class)->dispose (object);
}

static void
ts_convert_wizard_finalize (GObject *object)
{
  TsConvertWizard *self = (TsConvertWizard *) object;

  g_free (self->problem);
  g_free (self->error_message);
  for (guint i = 0; i < N_NAMING; i++)
    g_free (self->naming_defaults[i]);

  G_OBJECT_CLASS (ts_convert_wizard_parent_class)->finalize (object);
}

static void
ts_convert_wizard_class_init (TsConvertWizardClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = ts_convert_wizard_dispose;
  object_class->finalize = ts_convert_wizard_finalize;
  GTK_WINDOW_CLASS (klass)->close_request = ts_convert_wizard_close_request;

  ts_ensure_resources ();
  g_type_ensure (TS_TYPE_AUDIT_PANE);
  g_type_ensure (TS_TYPE_LAYOUT_VIEW);
  gtk_widget_class_set_template_from_resource (widget_class, RESOURCE_PREFIX "/ts-convert-wizard.ui");
#define CHILD(name) gtk_widget_class_bind_template_child (widget_class, TsConvertWizard, name)
  CHILD (subtitle_label);
  CHILD (next_button);
  CHILD (back_button);
  CHILD (cancel_button);
  CHILD (busy_spinner);
  CHILD (steps_box);
  CHILD (stack);
  CHILD (drop_box);
  CHILD (source_name_label);
  CHILD (source_path_label);
  CHILD (scanning_box);
  CHILD (problem_box);
  CHILD (problem_label);
  CHILD (findings_list);
  CHILD (type_list);
  CHILD (target_entry);
  CHILD (target_warning_label);
  CHILD (split_check);
  CHILD (split_size_spin);
  CHILD (split_unit_drop);
  CHILD (preview_paned);
  CHILD (name_entry);
  CHILD (finetune_entry);
  CHILD (size_label_entry);
  CHILD (license_entry);
  CHILD (preview_summary_label);
  CHILD (layout_view);
  CHILD (plan_tensors_view);
  CHILD (plan_metadata_view);
  CHILD (convert_icon);
  CHILD (convert_title_label);
  CHILD (convert_target_label);
  CHILD (convert_progress);
  CHILD (convert_stats_label);
  CHILD (convert_tensor_label);
  CHILD (convert_error_label);
  CHILD (stop_button);
  CHILD (output_label);
  CHILD (open_output_button);
  CHILD (verify_stack);
  CHILD (audit_progress);
  CHILD (audit_tensor_label);
  CHILD (audit_error_label);
  CHILD (audit_pane);
#undef CHILD
  gtk_widget_class_bind_template_callback (widget_class, on_choose_source);
  gtk_widget_class_bind_template_callback (widget_class, on_choose_target);
  gtk_widget_class_bind_template_callback (widget_class, on_target_edited);
  gtk_widget_class_bind_template_callback (widget_class, on_split_toggled);
  gtk_widget_class_bind_template_callback (widget_class, on_split_size_changed);
  gtk_widget_class_bind_template_callback (widget_class, on_open_output);
  gtk_widget_class_bind_template_callback (widget_class, on_stop_audit);
  gtk_widget_class_bind_template_callback (widget_class, on_audit_again);
  gtk_widget_class_bind_template_callback (widget_class, on_preview_paned_resized);
  gtk_widget_class_bind_template_callback (widget_class, ts_convert_wizard_cancel_conversion);

  gtk_widget_class_install_action (widget_class, "wizard.next", NULL, next_action);
  gtk_widget_class_install_action (widget_class, "wizard.back", NULL, back_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Left, GDK_ALT_MASK, "wizard.back", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Right, GDK_ALT_MASK, "wizard.next", NULL);
}

static void
ts_convert_wizard_init (TsConvertWizard *self)
{
  GtkDropTarget *drop;

  gtk_widget_init_template (GTK_WIDGET (self));

  self->outtype = TS_OUTTYPE_AUTO;
  self->finding_titles = gtk_size_group_new (GTK_SIZE_GROUP_HORIZONTAL);
  build_steps (self);
  build_type_list (self);
  build_plan_columns (self);
  ts_list_leave_on_tab (GTK_WIDGET (self->plan_tensors_view));
  ts_list_leave_on_tab (GTK_WIDGET (self->plan_metadata_view));
  g_signal_connect_object (self->type_list, "row-activated", G_CALLBACK (on_type_row_activated), self, 0);

  drop = gtk_drop_target_new (GDK_TYPE_FILE_LIST, GDK_ACTION_COPY);
  g_signal_connect_object (drop, "drop", G_CALLBACK (on_drop), self, 0);
  g_signal_connect_object (drop, "enter", G_CALLBACK (on_drop_enter), self, 0);
  g_signal_connect_object (drop, "leave", G_CALLBACK (on_drop_leave), self, 0);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drop));

  show_page (self, PAGE_SOURCE);
  self->settings = g_settings_new ("io.github.tensorscope.Tensorscope");
  load_options (self);
}
