/* ts-audit-report.c: the audit's result, as objects, JSON and text
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>

#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "ts-audit-private.h"
#include "ts-report.h"

G_DEFINE_ENUM_TYPE (TsAuditStatus, ts_audit_status,
  G_DEFINE_ENUM_VALUE (TS_AUDIT_PASS, "pass"),
  G_DEFINE_ENUM_VALUE (TS_AUDIT_WARN, "warn"),
  G_DEFINE_ENUM_VALUE (TS_AUDIT_FAIL, "fail"))

G_DEFINE_ENUM_TYPE (TsAuditMode, ts_audit_mode,
  G_DEFINE_ENUM_VALUE (TS_AUDIT_MODE_CONVERSION, "checkpoint-to-gguf"),
  G_DEFINE_ENUM_VALUE (TS_AUDIT_MODE_GGUF, "gguf-to-gguf"),
  G_DEFINE_ENUM_VALUE (TS_AUDIT_MODE_SAFETENSORS, "safetensors-to-safetensors"))

G_DEFINE_ENUM_TYPE (TsAuditArea, ts_audit_area,
  G_DEFINE_ENUM_VALUE (TS_AUDIT_AREA_BEFORE_DATA, "before-data"),
  G_DEFINE_ENUM_VALUE (TS_AUDIT_AREA_TENSOR_DATA, "tensor-data"),
  G_DEFINE_ENUM_VALUE (TS_AUDIT_AREA_AFTER_DATA, "after-data"))

static const char *
enum_nick (GType type,
           int   value)
{
  GEnumClass *klass = g_type_class_ref (type);
  GEnumValue *v = g_enum_get_value (klass, value);
  const char *nick = v ? v->value_nick : "unknown";

  g_type_class_unref (klass);
  return nick;
}

const char *
ts_audit_status_to_nick (TsAuditStatus status)
{
  return enum_nick (TS_TYPE_AUDIT_STATUS, status);
}

const char *
ts_audit_mode_to_nick (TsAuditMode mode)
{
  return enum_nick (TS_TYPE_AUDIT_MODE, mode);
}

const char *
ts_audit_area_to_nick (TsAuditArea area)
{
  return enum_nick (TS_TYPE_AUDIT_AREA, area);
}

/* ------------------------------------------------------------ TsAuditCheck */

struct _TsAuditCheck
{
  GObject        parent_instance;
  char          *name;
  char          *detail;
  TsAuditStatus  status;
};

G_DEFINE_FINAL_TYPE (TsAuditCheck, ts_audit_check, G_TYPE_OBJECT)

enum {
  CHECK_PROP_0,
  CHECK_PROP_NAME,
  CHECK_PROP_STATUS,
  CHECK_PROP_DETAIL,
  CHECK_N_PROPS
};

static GParamSpec *check_properties[CHECK_N_PROPS];

static void
ts_audit_check_finalize (GObject *object)
{
  TsAuditCheck *self = TS_AUDIT_CHECK (object);

  g_free (self->name);
  g_free (self->detail);
  G_OBJECT_CLASS (ts_audit_check_parent_class)->finalize (object);
}

static void
ts_audit_check_get_property (GObject    *object,
                             guint       prop_id,
                             GValue     *value,
                             GParamSpec *pspec)
{
  TsAuditCheck *self = TS_AUDIT_CHECK (object);

  switch (prop_id)
    {
    case CHECK_PROP_NAME:
      g_value_set_string (value, self->name);
      break;
    case CHECK_PROP_STATUS:
      g_value_set_enum (value, self->status);
      break;
    case CHECK_PROP_DETAIL:
      g_value_set_string (value, self->detail);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ts_audit_check_class_init (TsAuditCheckClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GParamFlags flags = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;

  object_class->finalize = ts_audit_check_finalize;
  object_class->get_property = ts_audit_check_get_property;

  check_properties[CHECK_PROP_NAME] = g_param_spec_string ("name", NULL, NULL, NULL, flags);
  check_properties[CHECK_PROP_STATUS] =
    g_param_spec_enum ("status", NULL, NULL, TS_TYPE_AUDIT_STATUS, TS_AUDIT_PASS, flags);
  check_properties[CHECK_PROP_DETAIL] = g_param_spec_string ("detail", NULL, NULL, NULL, flags);
  g_object_class_install_properties (object_class, CHECK_N_PROPS, check_properties);
}

static void
ts_audit_check_init (TsAuditCheck *self)
{
}

const char *
ts_audit_check_get_name (TsAuditCheck *self)
{
  g_return_val_if_fail (TS_IS_AUDIT_CHECK (self), NULL);
  return self->name;
}

TsAuditStatus
ts_audit_check_get_status (TsAuditCheck *self)
{
  g_return_val_if_fail (TS_IS_AUDIT_CHECK (self), TS_AUDIT_FAIL);
  return self->status;
}

const char *
ts_audit_check_get_detail (TsAuditCheck *self)
{
  g_return_val_if_fail (TS_IS_AUDIT_CHECK (self), NULL);
  return self->detail;
}

/* ------------------------------------------------------------- TsAuditPair */

G_DEFINE_FINAL_TYPE (TsAuditPair, ts_audit_pair, G_TYPE_OBJECT)

enum {
  PAIR_PROP_0,
  PAIR_PROP_SOURCE_NAME,
  PAIR_PROP_TARGET_NAME,
  PAIR_PROP_TRANSFORM,
  PAIR_PROP_STATUS,
  PAIR_PROP_DETAIL,
  PAIR_PROP_N_VALUES,
  PAIR_PROP_N_MISMATCH,
  PAIR_PROP_N_CHANGED,
  PAIR_PROP_MAX_ABS_ERROR,
  PAIR_PROP_MAX_REL_ERROR,
  PAIR_N_PROPS
};

static GParamSpec *pair_properties[PAIR_N_PROPS];

static void
ts_audit_pair_finalize (GObject *object)
{
  TsAuditPair *self = TS_AUDIT_PAIR (object);

  g_strfreev (self->source_names);
  g_free (self->target_name);
  g_free (self->transform);
  g_free (self->detail);
  g_free (self->source_dtype);
  g_free (self->target_dtype);
  G_OBJECT_CLASS (ts_audit_pair_parent_class)->finalize (object);
}

static void
ts_audit_pair_get_property (GObject    *object,
                            guint       prop_id,
                            GValue     *value,
                            GParamSpec *pspec)
{
  TsAuditPair *self = TS_AUDIT_PAIR (object);

  switch (prop_id)
    {
    case PAIR_PROP_SOURCE_NAME:
      g_value_take_string (value, g_strjoinv (", ", self->source_names));
      break;
    case PAIR_PROP_TARGET_NAME:
      g_value_set_string (value, self->target_name);
      break;
    case PAIR_PROP_TRANSFORM:
      g_value_set_string (value, self->transform);
      break;
    case PAIR_PROP_STATUS:
      g_value_set_enum (value, self->status);
      break;
    case PAIR_PROP_DETAIL:
      g_value_set_string (value, self->detail);
      break;
    case PAIR_PROP_N_VALUES:
      g_value_set_uint64 (value, self->n_values);
      break;
    case PAIR_PROP_N_MISMATCH:
      g_value_set_uint64 (value, self->n_mismatch);
      break;
    case PAIR_PROP_N_CHANGED:
      g_value_set_uint64 (value, self->n_changed);
      break;
    case PAIR_PROP_MAX_ABS_ERROR:
      g_value_set_double (value, self->max_abs_error);
      break;
    case PAIR_PROP_MAX_REL_ERROR:
      g_value_set_double (value, self->max_rel_error);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ts_audit_pair_class_init (TsAuditPairClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GParamFlags flags = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;

  object_class->finalize = ts_audit_pair_finalize;
  object_class->get_property = ts_audit_pair_get_property;

  pair_properties[PAIR_PROP_SOURCE_NAME] = g_param_spec_string ("source-name", NULL, NULL, NULL, flags);
  pair_properties[PAIR_PROP_TARGET_NAME] = g_param_spec_string ("target-name", NULL, NULL, NULL, flags);
  pair_properties[PAIR_PROP_TRANSFORM] = g_param_spec_string ("transform", NULL, NULL, NULL, flags);
  pair_properties[PAIR_PROP_STATUS] =
    g_param_spec_enum ("status", NULL, NULL, TS_TYPE_AUDIT_STATUS, TS_AUDIT_PASS, flags);
  pair_properties[PAIR_PROP_DETAIL] = g_param_spec_string ("detail", NULL, NULL, NULL, flags);
  pair_properties[PAIR_PROP_N_VALUES] =
    g_param_spec_uint64 ("n-values", NULL, NULL, 0, G_MAXUINT64, 0, flags);
  pair_properties[PAIR_PROP_N_MISMATCH] =
    g_param_spec_uint64 ("n-mismatch", NULL, NULL, 0, G_MAXUINT64, 0, flags);
  pair_properties[PAIR_PROP_N_CHANGED] =
    g_param_spec_uint64 ("n-changed", NULL, NULL, 0, G_MAXUINT64, 0, flags);
  pair_properties[PAIR_PROP_MAX_ABS_ERROR] =
    g_param_spec_double ("max-abs-error", NULL, NULL, 0, G_MAXDOUBLE, 0, flags);
  pair_properties[PAIR_PROP_MAX_REL_ERROR] =
    g_param_spec_double ("max-rel-error", NULL, NULL, 0, G_MAXDOUBLE, 0, flags);
  g_object_class_install_properties (object_class, PAIR_N_PROPS, pair_properties);
}

static void
ts_audit_pair_init (TsAuditPair *self)
{
  self->first_index = TS_AUDIT_NO_INDEX;
  self->worst_row = TS_AUDIT_NO_INDEX;
  self->status = TS_AUDIT_PASS;
}

TsAuditPair *
_ts_audit_pair_new (const char *source_name,
                    const char *target_name)
{
  TsAuditPair *self = g_object_new (TS_TYPE_AUDIT_PAIR, NULL);
  GStrvBuilder *builder = g_strv_builder_new ();

  if (source_name != NULL)
    g_strv_builder_add (builder, source_name);
  self->source_names = g_strv_builder_end (builder);
  g_strv_builder_unref (builder);
  self->target_name = g_strdup (target_name);
  self->transform = g_strdup ("");
  return self;
}

void
_ts_audit_pair_set_detail (TsAuditPair   *pair,
                           TsAuditStatus  status,
                           const char    *format,
                           ...)
{
  g_autofree char *text = NULL;
  va_list args;

  va_start (args, format);
  text = g_strdup_vprintf (format, args);
  va_end (args);
  /* details accumulate: a wrong type and wrong values are both told */
  if (pair->detail == NULL)
    pair->detail = g_steal_pointer (&text);
  else
    {
      char *joined = g_strconcat (pair->detail, "; ", text, NULL);

      g_free (pair->detail);
      pair->detail = joined;
    }
  pair->status = MAX (pair->status, status);
}

const char * const *
ts_audit_pair_get_source_names (TsAuditPair *self)
{
  g_return_val_if_fail (TS_IS_AUDIT_PAIR (self), NULL);
  return (const char * const *) self->source_names;
}

const char *
ts_audit_pair_get_target_name (TsAuditPair *self)
{
  g_return_val_if_fail (TS_IS_AUDIT_PAIR (self), NULL);
  return self->target_name;
}

const char *
ts_audit_pair_get_transform (TsAuditPair *self)
{
  g_return_val_if_fail (TS_IS_AUDIT_PAIR (self), NULL);
  return self->transform;
}

TsAuditStatus
ts_audit_pair_get_status (TsAuditPair *self)
{
  g_return_val_if_fail (TS_IS_AUDIT_PAIR (self), TS_AUDIT_FAIL);
  return self->status;
}

const char *
ts_audit_pair_get_detail (TsAuditPair *self)
{
  g_return_val_if_fail (TS_IS_AUDIT_PAIR (self), NULL);
  return self->detail;
}

const char *
ts_audit_pair_get_source_dtype (TsAuditPair *self)
{
  g_return_val_if_fail (TS_IS_AUDIT_PAIR (self), NULL);
  return self->source_dtype;
}

const char *
ts_audit_pair_get_target_dtype (TsAuditPair *self)
{
  g_return_val_if_fail (TS_IS_AUDIT_PAIR (self), NULL);
  return self->target_dtype;
}

guint64
ts_audit_pair_get_n_values (TsAuditPair *self)
{
  g_return_val_if_fail (TS_IS_AUDIT_PAIR (self), 0);
  return self->n_values;
}

guint64
ts_audit_pair_get_n_mismatch (TsAuditPair *self)
{
  g_return_val_if_fail (TS_IS_AUDIT_PAIR (self), 0);
  return self->n_mismatch;
}

gboolean
ts_audit_pair_get_first_mismatch (TsAuditPair *self,
                                  guint64     *index,
                                  double      *source_value,
                                  double      *expected_value,
                                  double      *actual_value)
{
  g_return_val_if_fail (TS_IS_AUDIT_PAIR (self), FALSE);

  if (self->first_index == TS_AUDIT_NO_INDEX)
    return FALSE;
  if (index)
    *index = self->first_index;
  if (source_value)
    *source_value = self->first_source;
  if (expected_value)
    *expected_value = self->first_expected;
  if (actual_value)
    *actual_value = self->first_actual;
  return TRUE;
}

/* a value's bits, as many hex digits as its type has */
static char *
format_bits (guint64 bits,
             guint   width)
{
  return g_strdup_printf ("0x%0*" G_GINT64_MODIFIER "x", (int) (width / 4), bits);
}

char *
ts_audit_pair_dup_first_mismatch_text (TsAuditPair *self)
{
  g_autofree char *index = NULL;
  g_autofree char *row = NULL;
  g_autofree char *col = NULL;
  g_autofree char *expected = NULL;
  g_autofree char *actual = NULL;

  g_return_val_if_fail (TS_IS_AUDIT_PAIR (self), NULL);

  if (self->first_index == TS_AUDIT_NO_INDEX)
    return NULL;
  index = _ts_audit_format_count (self->first_index);
  row = g_strdup_printf ("%" G_GUINT64_FORMAT, self->first_row);
  col = g_strdup_printf ("%" G_GUINT64_FORMAT, self->first_col);
  if (self->bits_width == 0)
    /* Translators: where a tensor's values first differ: its flat index
     * (digits grouped), [row, column], then the source's value, the value
     * expected in the output type and the value found there */
    return g_strdup_printf (_("first mismatch at source index %s [%s, %s]: source %.9g, "
                              "expected %.9g, found %.9g"),
                            index, row, col, self->first_source, self->first_expected,
                            self->first_actual);
  expected = format_bits (self->first_expected_bits, self->bits_width);
  actual = format_bits (self->first_actual_bits, self->bits_width);
  /* Translators: as "first mismatch at source index %s [%s, %s]: …", with
   * the bits expected and found at the end ("(0xbb47 vs 0x7f7f)") */
  return g_strdup_printf (_("first mismatch at source index %s [%s, %s]: source %.9g, "
                            "expected %.9g, found %.9g (%s vs %s)"),
                          index, row, col, self->first_source, self->first_expected,
                          self->first_actual, expected, actual);
}

gboolean
ts_audit_pair_get_is_lossy (TsAuditPair *self)
{
  g_return_val_if_fail (TS_IS_AUDIT_PAIR (self), FALSE);
  return self->lossy;
}

guint64
ts_audit_pair_get_n_changed (TsAuditPair *self)
{
  g_return_val_if_fail (TS_IS_AUDIT_PAIR (self), 0);
  return self->n_changed;
}

double
ts_audit_pair_get_max_abs_error (TsAuditPair *self)
{
  g_return_val_if_fail (TS_IS_AUDIT_PAIR (self), 0);
  return self->max_abs_error;
}

double
ts_audit_pair_get_max_rel_error (TsAuditPair *self)
{
  g_return_val_if_fail (TS_IS_AUDIT_PAIR (self), 0);
  return self->max_rel_error;
}

/* ---------------------------------------------------------- TsAuditSizeRow */

struct _TsAuditSizeRow
{
  GObject      parent_instance;
  TsAuditArea  area;
  char        *section;
  char        *explanation;
  guint64      source_bytes;
  guint64      target_bytes;
};

G_DEFINE_FINAL_TYPE (TsAuditSizeRow, ts_audit_size_row, G_TYPE_OBJECT)

enum {
  ROW_PROP_0,
  ROW_PROP_AREA,
  ROW_PROP_SECTION,
  ROW_PROP_SOURCE_BYTES,
  ROW_PROP_TARGET_BYTES,
  ROW_PROP_DELTA,
  ROW_PROP_EXPLANATION,
  ROW_N_PROPS
};

static GParamSpec *row_properties[ROW_N_PROPS];

static void
ts_audit_size_row_finalize (GObject *object)
{
  TsAuditSizeRow *self = TS_AUDIT_SIZE_ROW (object);

  g_free (self->section);
  g_free (self->explanation);
  G_OBJECT_CLASS (ts_audit_size_row_parent_class)->finalize (object);
}

static void
ts_audit_size_row_get_property (GObject    *object,
                                guint       prop_id,
                                GValue     *value,
                                GParamSpec *pspec)
{
  TsAuditSizeRow *self = TS_AUDIT_SIZE_ROW (object);

  switch (prop_id)
    {
    case ROW_PROP_AREA:
      g_value_set_enum (value, self->area);
      break;
    case ROW_PROP_SECTION:
      g_value_set_string (value, self->section);
      break;
    case ROW_PROP_SOURCE_BYTES:
      g_value_set_uint64 (value, self->source_bytes);
      break;
    case ROW_PROP_TARGET_BYTES:
      g_value_set_uint64 (value, self->target_bytes);
      break;
    case ROW_PROP_DELTA:
      g_value_set_int64 (value, ts_audit_size_row_get_delta (self));
      break;
    case ROW_PROP_EXPLANATION:
      g_value_set_string (value, self->explanation);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ts_audit_size_row_class_init (TsAuditSizeRowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GParamFlags flags = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;

  object_class->finalize = ts_audit_size_row_finalize;
  object_class->get_property = ts_audit_size_row_get_property;

  row_properties[ROW_PROP_AREA] = g_param_spec_enum ("area", NULL, NULL, TS_TYPE_AUDIT_AREA,
                                                     TS_AUDIT_AREA_BEFORE_DATA, flags);
  row_properties[ROW_PROP_SECTION] = g_param_spec_string ("section", NULL, NULL, NULL, flags);
  row_properties[ROW_PROP_SOURCE_BYTES] =
    g_param_spec_uint64 ("source-bytes", NULL, NULL, 0, G_MAXUINT64, 0, flags);
  row_properties[ROW_PROP_TARGET_BYTES] =
    g_param_spec_uint64 ("target-bytes", NULL, NULL, 0, G_MAXUINT64, 0, flags);
  row_properties[ROW_PROP_DELTA] =
    g_param_spec_int64 ("delta", NULL, NULL, G_MININT64, G_MAXINT64, 0, flags);
  row_properties[ROW_PROP_EXPLANATION] = g_param_spec_string ("explanation", NULL, NULL, NULL, flags);
  g_object_class_install_properties (object_class, ROW_N_PROPS, row_properties);
}

static void
ts_audit_size_row_init (TsAuditSizeRow *self)
{
}

TsAuditArea
ts_audit_size_row_get_area (TsAuditSizeRow *self)
{
  g_return_val_if_fail (TS_IS_AUDIT_SIZE_ROW (self), 0);
  return self->area;
}

/**
 * ts_audit_section_word:
 * @word: a size row's section ("padding"), or the class of a type group
 *   ("norm" of "norm BF16→F32")
 *
 * Returns: @word in the UI's language (@word itself if unknown)
 */
const char *
ts_audit_section_word (const char *word)
{
  static const char * const words[] = {
    N_("header"), N_("tokenizer metadata"), N_("other metadata"), N_("descriptors"),
    N_("padding"), N_("unexplained"), N_("generated"), N_("dropped"), N_("missing"),
    N_("extra"), N_("alignment padding"), N_("norm"), N_("matrix"), N_("1-D"),
  };

  for (guint i = 0; i < G_N_ELEMENTS (words); i++)
    if (g_str_equal (word, words[i]))
      return _(words[i]);
  return word;
}

/**
 * ts_audit_size_row_dup_section_label:
 * @self: a #TsAuditSizeRow
 *
 * Returns: (transfer full): the section translated; a type group's class
 *   is, its types ("BF16→F32") are not
 */
char *
ts_audit_size_row_dup_section_label (TsAuditSizeRow *self)
{
  const char *space;

  g_return_val_if_fail (TS_IS_AUDIT_SIZE_ROW (self), NULL);

  space = strchr (self->section, ' ');
  if (space != NULL && strstr (space, "→") != NULL)
    {
      g_autofree char *cls = g_strndup (self->section, space - self->section);

      return g_strconcat (ts_audit_section_word (cls), space, NULL);
    }
  return g_strdup (ts_audit_section_word (self->section));
}

const char *
ts_audit_size_row_get_section (TsAuditSizeRow *self)
{
  g_return_val_if_fail (TS_IS_AUDIT_SIZE_ROW (self), NULL);
  return self->section;
}

guint64
ts_audit_size_row_get_source_bytes (TsAuditSizeRow *self)
{
  g_return_val_if_fail (TS_IS_AUDIT_SIZE_ROW (self), 0);
  return self->source_bytes;
}

guint64
ts_audit_size_row_get_target_bytes (TsAuditSizeRow *self)
{
  g_return_val_if_fail (TS_IS_AUDIT_SIZE_ROW (self), 0);
  return self->target_bytes;
}

gint64
ts_audit_size_row_get_delta (TsAuditSizeRow *self)
{
  g_return_val_if_fail (TS_IS_AUDIT_SIZE_ROW (self), 0);
  return (gint64) (self->target_bytes - self->source_bytes);
}

const char *
ts_audit_size_row_get_explanation (TsAuditSizeRow *self)
{
  g_return_val_if_fail (TS_IS_AUDIT_SIZE_ROW (self), NULL);
  return self->explanation;
}

/* ----------------------------------------------------------- TsAuditReport */

struct _TsAuditReport
{
  GObject      parent_instance;
  TsAuditMode  mode;
  char        *source_name;
  char        *target_name;
  char        *source_format;
  char        *target_format;
  guint64      source_size;
  guint64      target_size;
  guint        target_files;
  guint        source_tensors;
  guint        target_tensors;
  GListStore  *checks;
  GListStore  *pairs;
  GListStore  *size_rows;
  double       elapsed;
  guint64      bytes_read;
};

G_DEFINE_FINAL_TYPE (TsAuditReport, ts_audit_report, G_TYPE_OBJECT)

static void
ts_audit_report_finalize (GObject *object)
{
  TsAuditReport *self = TS_AUDIT_REPORT (object);

  g_free (self->source_name);
  g_free (self->target_name);
  g_free (self->source_format);
  g_free (self->target_format);
  g_clear_object (&self->checks);
  g_clear_object (&self->pairs);
  g_clear_object (&self->size_rows);
  G_OBJECT_CLASS (ts_audit_report_parent_class)->finalize (object);
}

static void
ts_audit_report_class_init (TsAuditReportClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ts_audit_report_finalize;
}

static void
ts_audit_report_init (TsAuditReport *self)
{
  self->checks = g_list_store_new (TS_TYPE_AUDIT_CHECK);
  self->pairs = g_list_store_new (TS_TYPE_AUDIT_PAIR);
  self->size_rows = g_list_store_new (TS_TYPE_AUDIT_SIZE_ROW);
}

static char *
describe_format (TsModelFile *model)
{
  guint n_parts = g_list_model_get_n_items (ts_model_file_get_parts (model));

  if (TS_IS_GGUF_FILE (model) && n_parts > 1)
    return g_strdup_printf ("gguf v%u, split into %u files, alignment %u in the first",
                            ts_gguf_file_get_version (TS_GGUF_FILE (model)), n_parts,
                            ts_gguf_file_get_alignment (TS_GGUF_FILE (model)));
  if (TS_IS_GGUF_FILE (model))
    return g_strdup_printf ("gguf v%u, alignment %u",
                            ts_gguf_file_get_version (TS_GGUF_FILE (model)),
                            ts_gguf_file_get_alignment (TS_GGUF_FILE (model)));
  return g_strdup_printf ("safetensors, %u %s", n_parts, n_parts == 1 ? "file" : "shards");
}

TsAuditReport *
_ts_audit_report_new (TsAuditMode  mode,
                      TsModelFile *source,
                      TsModelFile *target)
{
  TsAuditReport *self = g_object_new (TS_TYPE_AUDIT_REPORT, NULL);

  self->mode = mode;
  self->source_name = g_file_get_path (ts_model_file_get_file (source));
  self->target_name = g_file_get_path (ts_model_file_get_file (target));
  if (self->source_name == NULL)
    self->source_name = g_strdup (ts_model_file_get_display_name (source));
  if (self->target_name == NULL)
    self->target_name = g_strdup (ts_model_file_get_display_name (target));
  self->source_format = describe_format (source);
  self->target_format = describe_format (target);
  self->source_size = ts_model_file_get_total_size (source);
  self->target_size = ts_model_file_get_total_size (target);
  self->target_files = g_list_model_get_n_items (ts_model_file_get_parts (target));
  self->source_tensors = ts_model_file_get_n_tensors (source);
  self->target_tensors = ts_model_file_get_n_tensors (target);
  return self;
}

void
_ts_audit_report_add_check (TsAuditReport *self,
                            const char    *name,
                            TsAuditStatus  status,
                            const char    *format,
                            ...)
{
  g_autoptr(TsAuditCheck) check = g_object_new (TS_TYPE_AUDIT_CHECK, NULL);
  va_list args;

  va_start (args, format);
  check->detail = g_strdup_vprintf (format, args);
  va_end (args);
  check->name = g_strdup (name);
  check->status = status;
  g_list_store_append (self->checks, check);
}

void
_ts_audit_report_add_pair (TsAuditReport *self,
                           TsAuditPair   *pair)
{
  g_list_store_append (self->pairs, pair);
}

void
_ts_audit_report_add_size_row (TsAuditReport *self,
                               TsAuditArea    area,
                               const char    *section,
                               guint64        source_bytes,
                               guint64        target_bytes,
                               const char    *explanation)
{
  g_autoptr(TsAuditSizeRow) row = g_object_new (TS_TYPE_AUDIT_SIZE_ROW, NULL);

  row->area = area;
  row->section = g_strdup (section);
  row->explanation = g_strdup (explanation);
  row->source_bytes = source_bytes;
  row->target_bytes = target_bytes;
  g_list_store_append (self->size_rows, row);
}

void
_ts_audit_report_set_timing (TsAuditReport *self,
                             double         elapsed,
                             guint64        bytes_read)
{
  self->elapsed = elapsed;
  self->bytes_read = bytes_read;
}

TsAuditMode
ts_audit_report_get_mode (TsAuditReport *self)
{
  g_return_val_if_fail (TS_IS_AUDIT_REPORT (self), 0);
  return self->mode;
}

const char *
ts_audit_report_get_source_name (TsAuditReport *self)
{
  g_return_val_if_fail (TS_IS_AUDIT_REPORT (self), NULL);
  return self->source_name;
}

const char *
ts_audit_report_get_target_name (TsAuditReport *self)
{
  g_return_val_if_fail (TS_IS_AUDIT_REPORT (self), NULL);
  return self->target_name;
}

guint64
ts_audit_report_get_source_size (TsAuditReport *self)
{
  g_return_val_if_fail (TS_IS_AUDIT_REPORT (self), 0);
  return self->source_size;
}

guint64
ts_audit_report_get_target_size (TsAuditReport *self)
{
  g_return_val_if_fail (TS_IS_AUDIT_REPORT (self), 0);
  return self->target_size;
}

guint
ts_audit_report_get_target_n_files (TsAuditReport *self)
{
  g_return_val_if_fail (TS_IS_AUDIT_REPORT (self), 0);
  return self->target_files;
}

GListModel *
ts_audit_report_get_checks (TsAuditReport *self)
{
  g_return_val_if_fail (TS_IS_AUDIT_REPORT (self), NULL);
  return G_LIST_MODEL (self->checks);
}

GListModel *
ts_audit_report_get_pairs (TsAuditReport *self)
{
  g_return_val_if_fail (TS_IS_AUDIT_REPORT (self), NULL);
  return G_LIST_MODEL (self->pairs);
}

GListModel *
ts_audit_report_get_size_rows (TsAuditReport *self)
{
  g_return_val_if_fail (TS_IS_AUDIT_REPORT (self), NULL);
  return G_LIST_MODEL (self->size_rows);
}

/**
 * ts_audit_report_get_n_decoded:
 *
 * Returns: the pairs whose target was decoded and measured (a quantized
 * type the audit cannot re-derive), not compared exactly
 */
guint
ts_audit_report_get_n_decoded (TsAuditReport *self)
{
  GListModel *model;
  guint n = 0;

  g_return_val_if_fail (TS_IS_AUDIT_REPORT (self), 0);
  model = G_LIST_MODEL (self->pairs);
  for (guint i = 0; i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr(TsAuditPair) pair = g_list_model_get_item (model, i);

      n += pair->comparison == TS_AUDIT_COMPARISON_DECODED;
    }
  return n;
}

gboolean
ts_audit_report_get_passed (TsAuditReport *self)
{
  guint n;

  g_return_val_if_fail (TS_IS_AUDIT_REPORT (self), FALSE);

  n = g_list_model_get_n_items (G_LIST_MODEL (self->checks));
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(TsAuditCheck) check = g_list_model_get_item (G_LIST_MODEL (self->checks), i);

      if (check->status == TS_AUDIT_FAIL)
        return FALSE;
    }
  return TRUE;
}

double
ts_audit_report_get_elapsed (TsAuditReport *self)
{
  g_return_val_if_fail (TS_IS_AUDIT_REPORT (self), 0);
  return self->elapsed;
}

guint64
ts_audit_report_get_bytes_read (TsAuditReport *self)
{
  g_return_val_if_fail (TS_IS_AUDIT_REPORT (self), 0);
  return self->bytes_read;
}

/* ------------------------------------------------------------------- JSON */

/* JSON has no NaN or infinity: those become strings */
static void
add_double (JsonBuilder *b,
            const char  *name,
            double       value)
{
  json_builder_set_member_name (b, name);
  if (isnan (value))
    json_builder_add_string_value (b, "NaN");
  else if (isinf (value))
    json_builder_add_string_value (b, value > 0 ? "Infinity" : "-Infinity");
  else
    json_builder_add_double_value (b, value);
}

static void
add_int (JsonBuilder *b,
         const char  *name,
         gint64       value)
{
  json_builder_set_member_name (b, name);
  json_builder_add_int_value (b, value);
}

static void
add_string (JsonBuilder *b,
            const char  *name,
            const char  *value)
{
  json_builder_set_member_name (b, name);
  if (value != NULL)
    json_builder_add_string_value (b, value);
  else
    json_builder_add_null_value (b);
}

static void
build_side (JsonBuilder *b,
            const char  *member,
            const char  *path,
            const char  *format,
            guint64      size,
            guint        n_tensors)
{
  json_builder_set_member_name (b, member);
  json_builder_begin_object (b);
  add_string (b, "path", path);
  add_string (b, "format", format);
  add_int (b, "size", (gint64) size);
  add_int (b, "tensors", n_tensors);
  json_builder_end_object (b);
}

static void
build_check (JsonBuilder *b,
             gpointer     item,
             guint        position,
             gpointer     user_data)
{
  TsAuditCheck *check = item;

  json_builder_begin_object (b);
  add_string (b, "name", check->name);
  add_string (b, "status", ts_audit_status_to_nick (check->status));
  add_string (b, "detail", check->detail);
  json_builder_end_object (b);
}

static void
build_first_mismatch (JsonBuilder *b,
                      TsAuditPair *pair)
{
  json_builder_set_member_name (b, "first_mismatch");
  if (pair->first_index == TS_AUDIT_NO_INDEX)
    {
      json_builder_add_null_value (b);
      return;
    }
  json_builder_begin_object (b);
  add_int (b, "index", (gint64) pair->first_index);
  json_builder_set_member_name (b, "coordinates");
  json_builder_begin_array (b);
  json_builder_add_int_value (b, (gint64) pair->first_row);
  json_builder_add_int_value (b, (gint64) pair->first_col);
  json_builder_end_array (b);
  add_double (b, "source_value", pair->first_source);
  add_double (b, "expected_value", pair->first_expected);
  add_double (b, "actual_value", pair->first_actual);
  if (pair->bits_width > 0)
    {
      g_autofree char *expected = format_bits (pair->first_expected_bits, pair->bits_width);
      g_autofree char *actual = format_bits (pair->first_actual_bits, pair->bits_width);

      add_string (b, "expected_bits", expected);
      add_string (b, "actual_bits", actual);
    }
  json_builder_end_object (b);
}

static const char *
comparison_nick (TsAuditComparison comparison)
{
  switch (comparison)
    {
    case TS_AUDIT_COMPARISON_BYTES:
      return "bytes";
    case TS_AUDIT_COMPARISON_ENCODED:
      return "encoded";
    case TS_AUDIT_COMPARISON_DECODED:
      return "decoded";
    case TS_AUDIT_COMPARISON_NONE:
    default:
      return NULL;
    }
}

static void
build_pair (JsonBuilder *b,
            gpointer     item,
            guint        position,
            gpointer     user_data)
{
  TsAuditPair *pair = item;

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "source");
  json_builder_begin_array (b);
  for (guint j = 0; pair->source_names[j]; j++)
    json_builder_add_string_value (b, pair->source_names[j]);
  json_builder_end_array (b);
  add_string (b, "target", pair->target_name);
  add_string (b, "transform", pair->transform);
  add_string (b, "status", ts_audit_status_to_nick (pair->status));
  add_string (b, "detail", pair->detail);
  add_string (b, "source_dtype", pair->source_dtype);
  add_string (b, "target_dtype", pair->target_dtype);
  add_int (b, "n_values", (gint64) pair->n_values);
  add_int (b, "n_mismatch", (gint64) pair->n_mismatch);
  build_first_mismatch (b, pair);
  json_builder_set_member_name (b, "lossy");
  json_builder_add_boolean_value (b, pair->lossy);
  add_int (b, "n_changed", (gint64) pair->n_changed);
  add_double (b, "max_abs_error", pair->max_abs_error);
  add_double (b, "max_rel_error", pair->max_rel_error);
  add_double (b, "rms_error", pair->rms_error);
  add_double (b, "relative_rms_error", pair->relative_rms_error);
  if (pair->lossy && pair->worst_row != TS_AUDIT_NO_INDEX)
    {
      json_builder_set_member_name (b, "worst_row");
      json_builder_begin_object (b);
      add_int (b, "row", (gint64) pair->worst_row);
      add_double (b, "relative_rms_error", pair->worst_row_error);
      json_builder_end_object (b);
    }
  if (pair->comparison == TS_AUDIT_COMPARISON_DECODED)
    add_int (b, "rows_below_resolution", (gint64) pair->rows_below_resolution);
  add_string (b, "comparison", comparison_nick (pair->comparison));
  json_builder_end_object (b);
}

static void
build_size (JsonBuilder   *b,
            TsAuditReport *self)
{
  GListModel *model = G_LIST_MODEL (self->size_rows);

  json_builder_set_member_name (b, "size");
  json_builder_begin_object (b);
  add_int (b, "source_bytes", (gint64) self->source_size);
  add_int (b, "target_bytes", (gint64) self->target_size);
  add_int (b, "delta", (gint64) (self->target_size - self->source_size));
  json_builder_set_member_name (b, "rows");
  json_builder_begin_array (b);
  for (guint i = 0; i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr(TsAuditSizeRow) row = g_list_model_get_item (model, i);

      json_builder_begin_object (b);
      add_string (b, "area", ts_audit_area_to_nick (row->area));
      add_string (b, "section", row->section);
      add_int (b, "source_bytes", (gint64) row->source_bytes);
      add_int (b, "target_bytes", (gint64) row->target_bytes);
      add_int (b, "delta", ts_audit_size_row_get_delta (row));
      add_string (b, "explanation", row->explanation);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
}

static void
count_pairs (TsAuditReport *self,
             guint64       *n_values,
             guint64       *n_mismatch,
             guint         *n_failed)
{
  GListModel *model = G_LIST_MODEL (self->pairs);

  *n_values = *n_mismatch = 0;
  *n_failed = 0;
  for (guint i = 0; i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr(TsAuditPair) pair = g_list_model_get_item (model, i);

      *n_values += pair->n_values;
      *n_mismatch += pair->n_mismatch;
      *n_failed += pair->status == TS_AUDIT_FAIL;
    }
}

static void
build_summary (JsonBuilder   *b,
               TsAuditReport *self)
{
  guint64 n_values, n_mismatch;
  guint n_failed;

  count_pairs (self, &n_values, &n_mismatch, &n_failed);
  json_builder_set_member_name (b, "summary");
  json_builder_begin_object (b);
  add_int (b, "tensor_pairs", g_list_model_get_n_items (G_LIST_MODEL (self->pairs)));
  add_int (b, "failed_pairs", n_failed);
  add_int (b, "values_compared", (gint64) n_values);
  add_int (b, "values_mismatched", (gint64) n_mismatch);
  add_int (b, "bytes_read", (gint64) self->bytes_read);
  add_double (b, "elapsed_seconds", self->elapsed);
  json_builder_end_object (b);
}

/* the members before the checks */
static void
build_head (JsonBuilder   *b,
            TsAuditReport *self)
{
  add_string (b, "mode", ts_audit_mode_to_nick (self->mode));
  json_builder_set_member_name (b, "passed");
  json_builder_add_boolean_value (b, ts_audit_report_get_passed (self));
  build_side (b, "source", self->source_name, self->source_format,
              self->source_size, self->source_tensors);
  build_side (b, "target", self->target_name, self->target_format,
              self->target_size, self->target_tensors);
  build_summary (b, self);
}

/**
 * ts_audit_report_to_json:
 *
 * Returns: (transfer full): the report as documented in docs/audit-json.md
 */
JsonNode *
ts_audit_report_to_json (TsAuditReport *self)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();

  g_return_val_if_fail (TS_IS_AUDIT_REPORT (self), NULL);

  json_builder_begin_object (b);
  build_head (b, self);
  ts_report_build_list (b, "checks", G_LIST_MODEL (self->checks), build_check, NULL);
  ts_report_build_list (b, "tensors", G_LIST_MODEL (self->pairs), build_pair, NULL);
  build_size (b, self);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

/**
 * ts_audit_report_write_json:
 * @self: a report
 * @stream: where to write
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Writes the report of ts_audit_report_to_json() to @stream, byte for byte
 * as ts_report_to_string (…, TRUE) writes it (with no newline at the end),
 * a check and a tensor pair at a time: a tree of 360,000 pairs took 1.2 GB.
 *
 * Returns: %TRUE if the whole report was written
 */
gboolean
ts_audit_report_write_json (TsAuditReport  *self,
                            GOutputStream  *stream,
                            GCancellable   *cancellable,
                            GError        **error)
{
  g_autoptr(TsReportWriter) w = NULL;
  g_autoptr(JsonBuilder) b = json_builder_new ();

  g_return_val_if_fail (TS_IS_AUDIT_REPORT (self), FALSE);
  g_return_val_if_fail (G_IS_OUTPUT_STREAM (stream), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  w = ts_report_writer_new (stream, cancellable);
  ts_report_writer_begin_object (w, NULL);
  json_builder_begin_object (b);
  build_head (b, self);
  json_builder_end_object (b);
  ts_report_writer_add_built_members (w, b);
  ts_report_writer_add_list (w, "checks", G_LIST_MODEL (self->checks), b, build_check, NULL);
  ts_report_writer_add_list (w, "tensors", G_LIST_MODEL (self->pairs), b, build_pair, NULL);
  json_builder_begin_object (b);
  build_size (b, self);
  json_builder_end_object (b);
  ts_report_writer_add_built_members (w, b);
  ts_report_writer_end_object (w);
  return ts_report_writer_finish (w, error);
}

/* ------------------------------------------------------------------- text */

/* Digits grouped by commas whatever the locale, as SPEC.md writes sizes. */
static char *
group_digits (guint64  value,
              gboolean sign,
              gboolean negative)
{
  g_autofree char *grouped = ts_format_thousands (value, TRUE);

  /* the locale's separator: "1,459,729,952" in English, "1 459 729 952"
   * in French (a comma there would read as a decimal one) */
  return g_strconcat (sign ? (negative ? "-" : "+") : "", grouped, NULL);
}

char *
_ts_audit_format_count (guint64 value)
{
  return group_digits (value, FALSE, FALSE);
}

char *
_ts_audit_format_delta (gint64 value)
{
  return group_digits (value < 0 ? (guint64) -(value + 1) + 1 : (guint64) value, TRUE, value < 0);
}

static void
text_checks (GString       *out,
             TsAuditReport *self)
{
  GListModel *model = G_LIST_MODEL (self->checks);

  g_string_append (out, "\nChecks\n");
  for (guint i = 0; i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr(TsAuditCheck) check = g_list_model_get_item (model, i);

      g_string_append (out, "  ");
      ts_string_append_cells (out, 5, ts_audit_status_to_nick (check->status), 40, check->name,
                              1, check->detail, 0);
      g_string_append_c (out, '\n');
    }
}

static void
text_pair_detail (GString     *out,
                  TsAuditPair *pair)
{
  if (pair->detail != NULL && pair->status != TS_AUDIT_PASS)
    g_string_append_printf (out, "          %s\n", pair->detail);
  if (pair->first_index != TS_AUDIT_NO_INDEX)
    {
      g_autofree char *mismatch = ts_audit_pair_dup_first_mismatch_text (pair);

      g_string_append_printf (out, "          %s\n", mismatch);
    }
  if (pair->lossy && pair->n_values > 0)
    {
      g_autofree char *changed = _ts_audit_format_count (pair->n_changed);

      g_string_append_printf (out, "          lossy: %s values changed, max abs error %.3g, "
                              "max rel error %.3g, relative RMS error %.3g (%.3g in the worst row)\n",
                              changed, pair->max_abs_error, pair->max_rel_error, pair->relative_rms_error,
                              pair->worst_row_error);
    }
}

static void
text_pair_row (GString    *out,
               const char *status,
               const char *target,
               const char *sources,
               const char *transform,
               const char *values,
               const char *mismatch)
{
  g_string_append (out, "  ");
  ts_string_append_cells (out, 5, status, 28, target, 48, sources, 34, transform, -12, values,
                          -10, mismatch, 0);
  g_string_append_c (out, '\n');
}

static void
text_pairs (GString       *out,
            TsAuditReport *self)
{
  GListModel *model = G_LIST_MODEL (self->pairs);

  g_string_append (out, "\nTensors\n");
  text_pair_row (out, "", "target", "source", "transform", "values", "mismatch");
  for (guint i = 0; i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr(TsAuditPair) pair = g_list_model_get_item (model, i);
      g_autofree char *sources = g_strjoinv (", ", pair->source_names);
      g_autofree char *values = _ts_audit_format_count (pair->n_values);
      g_autofree char *mismatch = _ts_audit_format_count (pair->n_mismatch);

      text_pair_row (out, ts_audit_status_to_nick (pair->status),
                     pair->target_name ? pair->target_name : "—",
                     sources[0] ? sources : "—", pair->transform, values, mismatch);
      text_pair_detail (out, pair);
    }
}

static void
text_size_cells (GString    *out,
                 const char *area,
                 const char *section,
                 const char *source,
                 const char *target,
                 const char *delta,
                 const char *explanation)
{
  g_string_append (out, "  ");
  ts_string_append_cells (out, 12, area, 24, section, -16, source, -16, target, -14, delta, 0);
  g_string_append_printf (out, "  %s\n", explanation);
}

static void
text_size_row (GString    *out,
               const char *area,
               const char *section,
               guint64     source,
               guint64     target,
               const char *explanation)
{
  g_autofree char *s = _ts_audit_format_count (source);
  g_autofree char *t = _ts_audit_format_count (target);
  g_autofree char *d = _ts_audit_format_delta ((gint64) (target - source));

  text_size_cells (out, area, section, s, t, d, explanation);
}

static void
text_size (GString       *out,
           TsAuditReport *self)
{
  GListModel *model = G_LIST_MODEL (self->size_rows);

  g_string_append (out, "\nSize reconciliation\n");
  text_size_cells (out, "area", "section", "source", "target", "delta", "explanation");
  for (guint i = 0; i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr(TsAuditSizeRow) row = g_list_model_get_item (model, i);

      text_size_row (out, ts_audit_area_to_nick (row->area), row->section,
                     row->source_bytes, row->target_bytes, row->explanation);
    }
  text_size_row (out, "total", "file size", self->source_size, self->target_size,
                 "target − source");
}

/**
 * ts_audit_report_to_text:
 *
 * Returns: (transfer full): the human-readable report
 */
char *
ts_audit_report_to_text (TsAuditReport *self)
{
  GString *out = g_string_new (NULL);
  g_autofree char *source_size = NULL;
  g_autofree char *target_size = NULL;
  guint64 n_values, n_mismatch;
  guint n_failed;

  g_return_val_if_fail (TS_IS_AUDIT_REPORT (self), NULL);

  source_size = _ts_audit_format_count (self->source_size);
  target_size = _ts_audit_format_count (self->target_size);
  count_pairs (self, &n_values, &n_mismatch, &n_failed);
  g_string_append_printf (out, "Audit (%s)\n  source  %s (%s, %u tensors, %s bytes)\n"
                          "  target  %s (%s, %u tensors, %s bytes)\n",
                          ts_audit_mode_to_nick (self->mode),
                          self->source_name, self->source_format, self->source_tensors, source_size,
                          self->target_name, self->target_format, self->target_tensors, target_size);
  text_checks (out, self);
  text_pairs (out, self);
  text_size (out, self);
  if (ts_audit_report_get_passed (self) && ts_audit_report_get_n_decoded (self) > 0)
    g_string_append_printf (out, "\nPASS: every value compared exactly is what its output type promises, "
                            "and every row of the %u quantized tensors is closer to its source than zeros.\n",
                            ts_audit_report_get_n_decoded (self));
  else if (ts_audit_report_get_passed (self))
    g_string_append (out, "\nPASS: every learned value is preserved as its output type promises.\n");
  else if (n_failed == 0)
    g_string_append (out, "\nFAIL: see the failed checks above.\n");
  else
    g_string_append_printf (out, "\nFAIL: %u tensor %s failed; see above.\n",
                            n_failed, n_failed == 1 ? "pair" : "pairs");
  return g_string_free (out, FALSE);
}
