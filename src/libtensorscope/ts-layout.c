/* ts-layout.c: band geometry of a model file and its cairo drawing
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cairo-pdf.h>
#include <cairo-svg.h>

#include "ts-error.h"
#include "ts-layout.h"
#include "ts-report.h"
#include "ts-test-hook-private.h"

/* an SVG number: two decimals and a dot whatever the locale */
/* text for the SVG's XML: escaped, and without the control characters
 * XML 1.0 does not allow in any form */
static char *
svg_escape (const char *text)
{
  g_autofree char *visible = ts_escape_controls (text);

  return g_markup_escape_text (visible, -1);
}

static const char *
svg_num (char   buf[G_ASCII_DTOSTR_BUF_SIZE],
         double v)
{
  return g_ascii_formatd (buf, G_ASCII_DTOSTR_BUF_SIZE, "%.2f", v);
}


/* Layout metrics, in layout units (px at scale 1). */
#define MARGIN            20.0
#define TITLE_HEIGHT      58.0
#define HEADING_HEIGHT    22.0
#define RULER_HEIGHT      15.0
#define BAR_HEIGHT        46.0
#define LABEL_GAP         14.0
#define LABEL_ROW_HEIGHT  34.0
#define LABEL_SPACING     12.0
#define LABEL_INDENT      7.0   /* the text of a label, right of its colour bar */
#define STRIP_SPACING     18.0
#define LEGEND_ROW_HEIGHT 22.0
#define REGION_MIN_WIDTH  6.0
#define TENSOR_MIN_WIDTH  2.0
#define MAX_LABEL_ROWS    8
#define MIN_VIEW_SPAN     16
#define FONT_FAMILY       "sans-serif"

typedef struct
{
  gint   layer;
  double x0;
  double x1;
} LayerSpan;

typedef struct
{
  guint   band;       /* region band id */
  double  x;          /* left of the text */
  double  y;          /* top of the box */
  double  width;
  char   *line2;      /* byte range */
} LabelBox;

typedef struct
{
  TsFilePart *part;           /* borrowed from the model */
  char       *name;           /* plan layouts: the output file's name */
  char       *heading;
  guint64     size;
  guint       first_region;   /* band ids: regions, then tensors by offset */
  guint       n_regions;
  guint       first_tensor;
  guint       n_tensors;
  gboolean    has_layers;

  /* geometry */
  double      y;
  double      bar_y;
  double      label_y;
  guint       n_label_rows;
  guint       first_visible_region;
  guint       n_visible_regions;
  GArray     *layers;         /* LayerSpan */
  GArray     *label_boxes;    /* LabelBox */
} Strip;

typedef struct
{
  gboolean     is_role;
  guint        value;
  double       x;
  double       y;
} LegendItem;

struct _TsLayout
{
  GObject      parent_instance;

  TsModelFile *model;          /* NULL for a plan's predicted layout */
  TsConversionPlan *plan;      /* NULL for a model's layout */
  GArray      *bands;          /* TsLayoutBand */
  GArray      *strips;         /* Strip */
  GPtrArray   *strings;        /* owned label strings */
  GHashTable  *tensor_bands;   /* TsTensor* -> band id + 1 */
  GArray      *legend;         /* LegendItem */
  char        *title;
  char        *subtitle;
  char        *part_name;      /* plan layouts: the output file name */

  guint64      max_part_size;
  guint64      view_start;
  guint64      view_end;
  gboolean     show_title;
  gboolean     show_legend;
  gboolean     dark;          /* light text on a dark ground (on screen only) */

  double       width;
  double       height;
  double       x0;
  double       x1;
  double       legend_y;

  cairo_surface_t *measure_surface;
  cairo_t         *measure_cr;
  GString         *text_layer;   /* SVG <text> elements while exporting */
};

G_DEFINE_FINAL_TYPE (TsLayout, ts_layout, G_TYPE_OBJECT)

/* ------------------------------------------------------------------------ */
/* Roles and colours                                                         */

static gboolean
has_component (const char *name,
               const char *word)
{
  return strstr (name, word) != NULL;
}

/* The block number in @name ("model.layers.3.mlp.up_proj.weight" → 3),
 * or -1; @rest (optional) is set to the name within the block
 * ("mlp.up_proj.weight"), or NULL */
static gint
parse_layer (const char  *name,
             const char **rest)
{
  static const char * const prefixes[] = { "layers.", "blk.", "h.", "layer.", "block.", "blocks." };

  for (guint i = 0; i < G_N_ELEMENTS (prefixes); i++)
    {
      const char *p = name;
      gsize len = strlen (prefixes[i]);

      while ((p = strstr (p, prefixes[i])) != NULL)
        {
          gboolean at_start = (p == name || p[-1] == '.');

          p += len;
          if (at_start && g_ascii_isdigit (*p))
            {
              char *end = NULL;
              guint64 n = g_ascii_strtoull (p, &end, 10);

              if (rest != NULL)
                *rest = n <= G_MAXINT && end[0] == '.' && end[1] != '\0' ? end + 1 : NULL;
              return n > G_MAXINT ? -1 : (gint) n;
            }
        }
    }

  if (rest != NULL)
    *rest = NULL;
  return -1;
}

/**
 * ts_tensor_role_from_name:
 * @name: a tensor name in Hugging Face or GGUF convention
 * @out_layer: (out) (optional): the block number, or -1
 *
 * Returns: the role of the tensor
 */
TsTensorRole
ts_tensor_role_from_name (const char *name,
                          gint       *out_layer)
{
  g_return_val_if_fail (name != NULL, TS_TENSOR_ROLE_OTHER);

  if (out_layer != NULL)
    *out_layer = parse_layer (name, NULL);

  /* Norms first: "post_attention_layernorm" is a norm, not attention. */
  if (has_component (name, "norm") || g_str_has_prefix (name, "ln_") ||
      has_component (name, ".ln_") || has_component (name, ".ln."))
    return TS_TENSOR_ROLE_NORM;
  if (has_component (name, "embed") || g_str_has_prefix (name, "token_embd") ||
      has_component (name, "wte.") || has_component (name, "tok_embeddings") ||
      has_component (name, "word_embeddings"))
    return TS_TENSOR_ROLE_EMBEDDING;
  if (g_str_has_prefix (name, "lm_head") || g_str_has_prefix (name, "output.") ||
      strcmp (name, "output") == 0)
    return TS_TENSOR_ROLE_OUTPUT;
  if (has_component (name, "attn") || has_component (name, "attention") ||
      has_component (name, "q_proj") || has_component (name, "k_proj") ||
      has_component (name, "v_proj") || has_component (name, "o_proj"))
    return TS_TENSOR_ROLE_ATTENTION;
  if (has_component (name, "mlp") || has_component (name, "ffn") ||
      has_component (name, "feed_forward") || has_component (name, "gate_proj") ||
      has_component (name, "up_proj") || has_component (name, "down_proj") ||
      has_component (name, "experts"))
    return TS_TENSOR_ROLE_FEED_FORWARD;

  return TS_TENSOR_ROLE_OTHER;
}

const char *
ts_layout_get_role_label (TsTensorRole role)
{
  switch (role)
    {
    case TS_TENSOR_ROLE_EMBEDDING:    return _("Embedding");
    case TS_TENSOR_ROLE_ATTENTION:    return _("Attention");
    case TS_TENSOR_ROLE_FEED_FORWARD: return _("Feed-forward");
    case TS_TENSOR_ROLE_NORM:         return _("Norm");
    case TS_TENSOR_ROLE_OUTPUT:       return _("Output");
    case TS_TENSOR_ROLE_OTHER:        return _("Generated / other");
    case TS_TENSOR_ROLE_N_ROLES:
    default:                          return "";
    }
}

const char *
ts_layout_get_kind_label (TsRegionKind kind)
{
  switch (kind)
    {
    case TS_REGION_LENGTH_PREFIX: return _("Length prefix");
    case TS_REGION_JSON_HEADER:   return _("JSON header");
    case TS_REGION_FIXED_HEADER:  return _("GGUF header");
    case TS_REGION_METADATA:      return _("Metadata");
    case TS_REGION_TENSOR_INFO:   return _("Tensor descriptors");
    case TS_REGION_PADDING:       return _("Alignment padding");
    case TS_REGION_TENSOR_DATA:   return _("Tensor data");
    case TS_REGION_UNEXPLAINED:   return _("Unexplained bytes");
    case TS_REGION_N_KINDS:
    default:                      return "";
    }
}

/* GNOME HIG palette */
guint32
ts_layout_get_role_color (TsTensorRole role)
{
  switch (role)
    {
    case TS_TENSOR_ROLE_EMBEDDING:    return 0x9141ac;
    case TS_TENSOR_ROLE_ATTENTION:    return 0x3584e4;
    case TS_TENSOR_ROLE_FEED_FORWARD: return 0x26a269;
    case TS_TENSOR_ROLE_NORM:         return 0xe5a50a;
    case TS_TENSOR_ROLE_OUTPUT:       return 0xe01b24;
    case TS_TENSOR_ROLE_OTHER:
    case TS_TENSOR_ROLE_N_ROLES:
    default:                          return 0x9a9996;
    }
}

guint32
ts_layout_get_kind_color (TsRegionKind kind)
{
  switch (kind)
    {
    case TS_REGION_LENGTH_PREFIX: return 0x3d3846;
    case TS_REGION_JSON_HEADER:   return 0xff7800;
    case TS_REGION_FIXED_HEADER:  return 0x3d3846;
    case TS_REGION_METADATA:      return 0xff7800;
    case TS_REGION_TENSOR_INFO:   return 0x986a44;
    case TS_REGION_PADDING:       return 0xc0bfbc;
    case TS_REGION_TENSOR_DATA:   return 0x77767b;
    case TS_REGION_UNEXPLAINED:   return 0xc01c28;
    case TS_REGION_N_KINDS:
    default:                      return 0x77767b;
    }
}

/* ------------------------------------------------------------------------ */
/* Text helpers                                                              */

static char *
format_count (guint64 n)
{
  return ts_format_thousands (n, TRUE);
}

static char *
format_range (guint64 start,
              guint64 end)
{
  g_autofree char *a = format_count (start);
  g_autofree char *b = format_count (end);

  /* Translators: an absolute byte range [start, end) */
  return g_strdup_printf (_("bytes %s – %s"), a, b);
}

/* "1.6 MB (1,639,176 bytes)", or just "208 bytes" where the two would
 * say the same */
/* a run of sub-pixel tensors drawn as one cell names them all up to this */
#define CELL_MAX_NAMES 64

static char *
format_size_in_bytes (guint64 length)
{
  g_autofree char *size = g_format_size (length);
  g_autofree char *count = NULL;

  if (length < 1000)
    return g_steal_pointer (&size);
  count = format_count (length);
  /* Translators: a size, then its exact number of bytes */
  return g_strdup_printf (_("%s (%s bytes)"), size, count);
}

static const char *
intern_string (TsLayout *self,
               char     *str)
{
  g_ptr_array_add (self->strings, str);
  return str;
}

static void
set_font (cairo_t  *cr,
          double    size,
          gboolean  bold)
{
  cairo_select_font_face (cr, FONT_FAMILY, CAIRO_FONT_SLANT_NORMAL,
                          bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size (cr, size);
}

/* cairo refuses a string with a Unicode noncharacter (U+FDD0–U+FDEF, or
 * U+FFFE and U+FFFF of any plane) as invalid UTF-8, and the context stays
 * in error for good: nothing more is drawn or measured. Names in a file
 * may hold them (GLib's UTF-8 allows them): shown as U+FFFD. NULL when
 * @text has none. */
static char *
cairo_safe_text (const char *text)
{
  GString *safe = NULL;

  for (const char *p = text; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if ((c >= 0xfdd0 && c <= 0xfdef) || (c & 0xfffe) == 0xfffe)
        {
          if (safe == NULL)
            safe = g_string_new_len (text, p - text);
          g_string_append_unichar (safe, 0xfffd);
        }
      else if (safe != NULL)
        g_string_append_len (safe, p, g_utf8_next_char (p) - p);
    }
  return safe != NULL ? g_string_free (safe, FALSE) : NULL;
}

static double
measure_text (TsLayout   *self,
              const char *text,
              double      size,
              gboolean    bold)
{
  g_autofree char *safe = cairo_safe_text (text);
  cairo_text_extents_t ext;

  set_font (self->measure_cr, size, bold);
  cairo_text_extents (self->measure_cr, safe != NULL ? safe : text, &ext);
  return ext.x_advance;
}

/* @text, cut at the end with an ellipsis where it is wider than
 * @max_width (a long file name in a narrow export) */
static char *
fit_text (TsLayout   *self,
          const char *text,
          double      size,
          gboolean    bold,
          double      max_width)
{
  glong lo = 0, hi = g_utf8_strlen (text, -1);

  if (measure_text (self, text, size, bold) <= max_width)
    return g_strdup (text);
  /* the most characters that fit with the ellipsis */
  while (lo < hi)
    {
      glong mid = (lo + hi + 1) / 2;
      g_autofree char *head = g_utf8_substring (text, 0, mid);
      g_autofree char *cut = g_strconcat (head, "…", NULL);

      if (measure_text (self, cut, size, bold) <= max_width)
        lo = mid;
      else
        hi = mid - 1;
    }
  {
    g_autofree char *head = g_utf8_substring (text, 0, lo);

    return g_strconcat (head, "…", NULL);
  }
}

/* A kind's colour as this picture draws it: on a dark ground the near-black
 * of the headers would vanish, so they take a light grey there. */
static guint32
kind_color (TsLayout     *self,
            TsRegionKind  kind)
{
  guint32 rgb = ts_layout_get_kind_color (kind);

  if (self->dark && rgb == 0x3d3846)
    return 0xdeddda;
  return rgb;
}

/* The greys of the picture (ground, text, rulers, separators) for a dark
 * style; the colours that mean something (kinds, roles) stay. */
static guint32
neutral (const TsLayout *self,
         guint32         rgb)
{
  static const guint32 map[][2] = {
    { 0xffffff, 0x1e1e1e },   /* ground, separators */
    { 0x241f31, 0xffffff },   /* text */
    { 0x5e5c64, 0xc0bfbc },   /* secondary text */
    { 0x3d3846, 0xdeddda },   /* ruler numbers */
    { 0xdeddda, 0x3d3846 },   /* ruler stripes */
    { 0xc0bfbc, 0x5e5c64 },
    { 0xf6f5f4, 0x303030 },   /* the track */
    { 0x77767b, 0x9a9996 },   /* leader lines */
  };

  if (!self->dark)
    return rgb;
  for (guint i = 0; i < G_N_ELEMENTS (map); i++)
    if (map[i][0] == rgb)
      return map[i][1];
  return rgb;
}

static void
set_rgb (cairo_t *cr,
         guint32  rgb,
         double   alpha)
{
  cairo_set_source_rgba (cr,
                         ((rgb >> 16) & 0xff) / 255.0,
                         ((rgb >> 8) & 0xff) / 255.0,
                         (rgb & 0xff) / 255.0,
                         alpha);
}

/* Draws @text with its baseline at (@x, @y) and records it in the SVG text
 * layer, so exported diagrams stay searchable. */
static void
draw_text (TsLayout   *self,
           cairo_t    *cr,
           const char *text,
           double      x,
           double      y,
           double      size,
           gboolean    bold,
           guint32     rgb)
{
  g_autofree char *safe = cairo_safe_text (text);

  set_font (cr, size, bold);
  set_rgb (cr, rgb, 1.0);
  cairo_move_to (cr, x, y);
  cairo_show_text (cr, safe != NULL ? safe : text);

  if (self->text_layer != NULL)
    {
      double dx = x, dy = y, dsize = size, dzero = 0;
      g_autofree char *escaped = svg_escape (text);
      char bx[G_ASCII_DTOSTR_BUF_SIZE], by[G_ASCII_DTOSTR_BUF_SIZE], bs[G_ASCII_DTOSTR_BUF_SIZE];

      cairo_user_to_device (cr, &dx, &dy);
      cairo_user_to_device_distance (cr, &dsize, &dzero);
      g_string_append_printf (self->text_layer,
                              "<text x=\"%s\" y=\"%s\" font-size=\"%s\"%s>%s</text>\n",
                              svg_num (bx, dx), svg_num (by, dy), svg_num (bs, dsize),
                              bold ? " font-weight=\"bold\"" : "", escaped);
    }
}

/* ------------------------------------------------------------------------ */
/* Building the bands                                                        */

static void
strip_clear (gpointer data)
{
  Strip *strip = data;

  g_clear_pointer (&strip->heading, g_free);
  g_clear_pointer (&strip->name, g_free);
  g_clear_pointer (&strip->layers, g_array_unref);
  g_clear_pointer (&strip->label_boxes, g_array_unref);
}

static void
label_box_clear (gpointer data)
{
  LabelBox *box = data;

  g_clear_pointer (&box->line2, g_free);
}

typedef struct
{
  guint64   offset;
  guint     index;     /* in the model's list: ties keep file order */
  TsTensor *tensor;
} TensorAtOffset;

static int
compare_tensor_offset (gconstpointer a,
                       gconstpointer b)
{
  const TensorAtOffset *ta = a;
  const TensorAtOffset *tb = b;

  if (ta->offset != tb->offset)
    return ta->offset < tb->offset ? -1 : 1;
  return ta->index < tb->index ? -1 : ta->index > tb->index;
}

static guint
find_data_region (TsLayout *self,
                  Strip    *strip,
                  guint64   offset)
{
  for (guint i = 0; i < strip->n_regions; i++)
    {
      TsLayoutBand *r = &g_array_index (self->bands, TsLayoutBand, strip->first_region + i);

      if (r->kind == TS_REGION_TENSOR_DATA &&
          offset >= r->offset && offset - r->offset < MAX (r->length, 1))
        return r->id;
    }

  return TS_LAYOUT_NO_BAND;
}

static void
add_region_bands (TsLayout *self,
                  Strip    *strip,
                  guint     part_index)
{
  GListModel *regions = ts_file_part_get_regions (strip->part);
  guint n = g_list_model_get_n_items (regions);

  strip->first_region = self->bands->len;
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(TsRegion) region = g_list_model_get_item (regions, i);
      TsLayoutBand band = { 0 };
      g_autofree char *size = NULL;

      band.id = self->bands->len;
      band.type = TS_LAYOUT_BAND_REGION;
      band.kind = ts_region_get_kind (region);
      band.role = TS_TENSOR_ROLE_OTHER;
      band.layer = -1;
      band.part = part_index;
      band.parent = TS_LAYOUT_NO_BAND;
      band.offset = ts_region_get_offset (region);
      band.length = ts_region_get_length (region);
      size = g_format_size (band.length);
      band.label = intern_string (self, g_strdup_printf ("%s · %s",
                                                         ts_layout_get_kind_label (band.kind),
                                                         size));
      g_array_append_val (self->bands, band);
    }
  strip->n_regions = self->bands->len - strip->first_region;
}

static void
add_tensor_bands (TsLayout  *self,
                  Strip     *strip,
                  guint      part_index,
                  GPtrArray *tensors)
{
  g_autofree TensorAtOffset *sorted = g_new (TensorAtOffset, MAX (tensors->len, 1));

  /* sorted on offsets read once: 50,000 tensors make ~800,000 comparisons */
  for (guint i = 0; i < tensors->len; i++)
    {
      sorted[i].tensor = g_ptr_array_index (tensors, i);
      sorted[i].offset = ts_tensor_get_offset (sorted[i].tensor);
      sorted[i].index = i;
    }
  if (tensors->len > 0)  /* qsort (NULL, 0, …) is undefined */
    qsort (sorted, tensors->len, sizeof (TensorAtOffset), compare_tensor_offset);

  strip->first_tensor = self->bands->len;
  for (guint i = 0; i < tensors->len; i++)
    {
      TsTensor *tensor = sorted[i].tensor;
      TsLayoutBand band = { 0 };

      band.id = self->bands->len;
      band.type = TS_LAYOUT_BAND_TENSOR;
      band.kind = TS_REGION_TENSOR_DATA;
      band.role = ts_tensor_role_from_name (ts_tensor_get_name (tensor), &band.layer);
      band.part = part_index;
      band.tensor = tensor;
      band.offset = ts_tensor_get_offset (tensor);
      band.length = ts_tensor_get_size (tensor);
      band.parent = find_data_region (self, strip, band.offset);
      band.label = ts_tensor_get_name (tensor);
      if (band.parent == TS_LAYOUT_NO_BAND)
        continue;   /* not inside a data region: nothing to draw it in */
      if (band.layer >= 0)
        strip->has_layers = TRUE;
      g_array_append_val (self->bands, band);
      g_hash_table_insert (self->tensor_bands, tensor, GUINT_TO_POINTER (band.id + 1));
    }
  strip->n_tensors = self->bands->len - strip->first_tensor;
}

static void
build_bands (TsLayout *self)
{
  GListModel *parts = ts_model_file_get_parts (self->model);
  GListModel *tensors = ts_model_file_get_tensors (self->model);
  guint n_parts = g_list_model_get_n_items (parts);
  guint n_tensors = g_list_model_get_n_items (tensors);
  g_autoptr(GHashTable) by_part = g_hash_table_new_full (NULL, NULL, NULL,
                                                         (GDestroyNotify) g_ptr_array_unref);

  for (guint i = 0; i < n_tensors; i++)
    {
      g_autoptr(TsTensor) tensor = g_list_model_get_item (tensors, i);
      TsFilePart *part = ts_tensor_get_part (tensor);
      GPtrArray *list = g_hash_table_lookup (by_part, part);

      if (list == NULL)
        g_hash_table_insert (by_part, part, (list = g_ptr_array_new ()));
      /* the model's list model keeps the tensor alive */
      g_ptr_array_add (list, tensor);
    }

  for (guint p = 0; p < n_parts; p++)
    {
      g_autoptr(TsFilePart) part = g_list_model_get_item (parts, p);
      g_autofree char *size = g_format_size (ts_file_part_get_size (part));
      Strip strip = { 0 };
      GPtrArray *list;

      strip.part = part;
      strip.size = ts_file_part_get_size (part);
      strip.heading = g_strdup_printf ("%s — %s", ts_file_part_get_name (part), size);
      strip.layers = g_array_new (FALSE, FALSE, sizeof (LayerSpan));
      strip.label_boxes = g_array_new (FALSE, FALSE, sizeof (LabelBox));
      g_array_set_clear_func (strip.label_boxes, label_box_clear);
      self->max_part_size = MAX (self->max_part_size, strip.size);

      add_region_bands (self, &strip, p);
      if ((list = g_hash_table_lookup (by_part, part)) != NULL)
        add_tensor_bands (self, &strip, p, list);
      else
        strip.first_tensor = self->bands->len;

      g_array_append_val (self->strips, strip);
    }

  self->title = g_strdup (ts_model_file_get_display_name (self->model));
  self->subtitle = ts_model_file_dup_summary (self->model);
  self->view_start = 0;
  self->view_end = MAX (self->max_part_size, 1);
}

/* The predicted output of a conversion: one GGUF strip whose regions are
 * computed from the plan's writer layout, so it draws like the file will. */
/* of the tensors [@first, @first + @n) */
static guint64
plan_descriptors_size (TsConversionPlan *plan,
                       guint             first,
                       guint             n)
{
  GListModel *tensors = ts_conversion_plan_get_tensors (plan);
  guint64 total = 0;

  for (guint i = first; i < first + n; i++)
    {
      g_autoptr(TsPlanTensor) pt = g_list_model_get_item (tensors, i);

      /* name (u64 length + bytes), n_dims u32, dims u64 each, type u32, offset u64 */
      total += 8 + strlen (ts_plan_tensor_get_name (pt)) + 4
               + 8 * (guint64) ts_plan_tensor_get_n_dims (pt) + 4 + 8;
    }
  return total;
}

static void
add_plan_region (TsLayout     *self,
                 guint         part,
                 TsRegionKind  kind,
                 guint64       start,
                 guint64       end)
{
  TsLayoutBand band = { 0 };
  g_autofree char *size = NULL;

  if (end <= start)
    return;
  band.id = self->bands->len;
  band.type = TS_LAYOUT_BAND_REGION;
  band.kind = kind;
  band.role = TS_TENSOR_ROLE_OTHER;
  band.layer = -1;
  band.part = part;
  band.parent = TS_LAYOUT_NO_BAND;
  band.offset = start;
  band.length = end - start;
  size = g_format_size (band.length);
  band.label = intern_string (self, g_strdup_printf ("%s · %s",
                                                     ts_layout_get_kind_label (kind), size));
  g_array_append_val (self->bands, band);
}

static void
add_plan_tensor_bands (TsLayout *self,
                       Strip    *strip,
                       guint     file,
                       guint     first,
                       guint     data_band)
{
  GListModel *tensors = ts_conversion_plan_get_tensors (self->plan);
  guint64 data_offset = ts_conversion_plan_get_data_offset (self->plan, file);
  guint n = ts_conversion_plan_get_file_n_tensors (self->plan, file);

  strip->first_tensor = self->bands->len;
  /* the plan lists tensors in file order, so offsets already ascend */
  for (guint i = first; i < first + n; i++)
    {
      g_autoptr(TsPlanTensor) pt = g_list_model_get_item (tensors, i);
      TsLayoutBand band = { 0 };

      band.id = self->bands->len;
      band.type = TS_LAYOUT_BAND_TENSOR;
      band.kind = TS_REGION_TENSOR_DATA;
      band.role = ts_tensor_role_from_name (ts_plan_tensor_get_name (pt), &band.layer);
      band.part = file;
      band.parent = data_band;
      band.offset = data_offset + ts_plan_tensor_get_offset (pt);
      band.length = ts_plan_tensor_get_size (pt);
      /* the plan (held by the layout) keeps the name alive */
      band.label = ts_plan_tensor_get_name (pt);
      if (band.layer >= 0)
        strip->has_layers = TRUE;
      g_array_append_val (self->bands, band);
    }
  strip->n_tensors = self->bands->len - strip->first_tensor;
}

/* one strip per output file (a split set has several), as the files will
 * be once written */
static void
build_plan_bands (TsLayout   *self,
                  const char *file_name)
{
  TsConversionPlan *plan = self->plan;
  guint64 total = ts_conversion_plan_get_predicted_size (plan);
  g_autofree char *name = file_name != NULL ? g_strdup (file_name)
                                             : ts_conversion_plan_get_default_file_name (plan);
  g_autoptr(GFile) target = g_file_new_for_path (name);
  g_autofree char *size = g_format_size (total);
  g_autofree char *count = NULL;
  g_autofree char *format = NULL;
  guint n_tensors = g_list_model_get_n_items (ts_conversion_plan_get_tensors (plan));
  guint first = 0;

  for (guint k = 0; k < ts_conversion_plan_get_n_files (plan); k++)
    {
      guint64 metadata_end = ts_conversion_plan_get_metadata_end (plan, k);
      guint n = ts_conversion_plan_get_file_n_tensors (plan, k);
      guint64 descriptors_end = metadata_end + plan_descriptors_size (plan, first, n);
      guint64 data_offset = ts_conversion_plan_get_data_offset (plan, k);
      guint64 file_size = ts_conversion_plan_get_file_size (plan, k);
      g_autoptr(GFile) file = ts_conversion_plan_get_output_file (plan, target, k);
      g_autofree char *file_size_text = g_format_size (file_size);
      Strip strip = { 0 };
      guint data_band = TS_LAYOUT_NO_BAND;

      strip.name = ts_file_display_basename (file);
      strip.size = file_size;
      strip.heading = g_strdup_printf ("%s — %s", strip.name, file_size_text);
      strip.layers = g_array_new (FALSE, FALSE, sizeof (LayerSpan));
      strip.label_boxes = g_array_new (FALSE, FALSE, sizeof (LabelBox));
      g_array_set_clear_func (strip.label_boxes, label_box_clear);
      self->max_part_size = MAX (self->max_part_size, file_size);

      strip.first_region = self->bands->len;
      /* magic, version, tensor count, metadata count */
      add_plan_region (self, k, TS_REGION_FIXED_HEADER, 0, 24);
      add_plan_region (self, k, TS_REGION_METADATA, 24, metadata_end);
      add_plan_region (self, k, TS_REGION_TENSOR_INFO, metadata_end, descriptors_end);
      add_plan_region (self, k, TS_REGION_PADDING, descriptors_end, data_offset);
      if (file_size > data_offset)
        data_band = self->bands->len;
      add_plan_region (self, k, TS_REGION_TENSOR_DATA, data_offset, file_size);
      strip.n_regions = self->bands->len - strip.first_region;
      if (data_band != TS_LAYOUT_NO_BAND)
        add_plan_tensor_bands (self, &strip, k, first, data_band);
      else
        strip.first_tensor = self->bands->len;
      g_array_append_val (self->strips, strip);
      first += n;
    }

  self->part_name = g_steal_pointer (&name);
  self->title = g_strdup_printf (_("%s (predicted)"), self->part_name);
  count = format_count (n_tensors);
  format = ts_conversion_plan_get_n_files (plan) > 1
    ? g_strdup_printf (_("GGUF v%u, %u files"), 3, ts_conversion_plan_get_n_files (plan))
    : g_strdup ("GGUF v3");
  /* Translators: "GGUF v3 · 6.4 GB · 255 tensors" */
  self->subtitle = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s · %s · %s tensor", "%s · %s · %s tensors",
                                                 n_tensors), format, size, count);
  self->view_start = 0;
  self->view_end = MAX (self->max_part_size, 1);
}

/* ------------------------------------------------------------------------ */
/* GObject                                                                   */

static void
ts_layout_finalize (GObject *object)
{
  TsLayout *self = (TsLayout *) object;

  g_clear_object (&self->model);
  g_clear_object (&self->plan);
  g_clear_pointer (&self->bands, g_array_unref);
  g_clear_pointer (&self->strips, g_array_unref);
  g_clear_pointer (&self->strings, g_ptr_array_unref);
  g_clear_pointer (&self->tensor_bands, g_hash_table_unref);
  g_clear_pointer (&self->legend, g_array_unref);
  g_clear_pointer (&self->title, g_free);
  g_clear_pointer (&self->subtitle, g_free);
  g_clear_pointer (&self->part_name, g_free);
  g_clear_pointer (&self->measure_cr, cairo_destroy);
  g_clear_pointer (&self->measure_surface, cairo_surface_destroy);

  G_OBJECT_CLASS (ts_layout_parent_class)->finalize (object);
}

static void
ts_layout_class_init (TsLayoutClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = ts_layout_finalize;
}

static void
ts_layout_init (TsLayout *self)
{
  self->bands = g_array_new (FALSE, TRUE, sizeof (TsLayoutBand));
  self->strips = g_array_new (FALSE, TRUE, sizeof (Strip));
  g_array_set_clear_func (self->strips, strip_clear);
  self->strings = g_ptr_array_new_with_free_func (g_free);
  self->tensor_bands = g_hash_table_new (NULL, NULL);
  self->legend = g_array_new (FALSE, TRUE, sizeof (LegendItem));
  self->show_title = TRUE;
  self->show_legend = TRUE;
  self->measure_surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 1, 1);
  self->measure_cr = cairo_create (self->measure_surface);
}

/**
 * ts_layout_new:
 * @model: a loaded model
 *
 * Builds the bands of @model: one strip per part, one band per region, and
 * the tensor-data regions subdivided per tensor. Call ts_layout_allocate()
 * before reading geometry or drawing.
 *
 * Returns: (transfer full): a new layout
 */
TsLayout *
ts_layout_new (TsModelFile *model)
{
  TsLayout *self;

  g_return_val_if_fail (TS_IS_MODEL_FILE (model), NULL);

  self = g_object_new (TS_TYPE_LAYOUT, NULL);
  self->model = g_object_ref (model);
  build_bands (self);

  return self;
}

/**
 * ts_layout_new_for_plan:
 * @plan: a conversion plan
 * @file_name: (nullable): the name the file will have; %NULL for the
 *   converter's default name
 *
 * Builds the bands of the GGUF file @plan will write: fixed header,
 * metadata, tensor descriptors, alignment padding and the tensor data
 * subdivided per tensor, at their predicted offsets. Bands of such a layout
 * have no #TsTensor, and ts_layout_get_model() returns %NULL.
 *
 * Returns: (transfer full): a new layout
 */
TsLayout *
ts_layout_new_for_plan (TsConversionPlan *plan,
                        const char       *file_name)
{
  TsLayout *self;

  g_return_val_if_fail (TS_IS_CONVERSION_PLAN (plan), NULL);

  self = g_object_new (TS_TYPE_LAYOUT, NULL);
  self->plan = g_object_ref (plan);
  build_plan_bands (self, file_name);

  return self;
}

static void
new_worker (GTask        *task,
            gpointer      source_object,
            gpointer      task_data,
            GCancellable *cancellable)
{
  TsModelFile *model = task_data;

  if (g_task_return_error_if_cancelled (task))
    return;
  g_task_return_pointer (task, ts_layout_new (model), g_object_unref);
}

/**
 * ts_layout_new_async:
 * @model: a loaded model
 * @cancellable: (nullable): a #GCancellable
 * @callback: called on the caller's main context when the layout is built
 * @user_data: data for @callback
 *
 * Runs ts_layout_new() on a worker thread. The model's lists are immutable
 * once it is loaded, so they may be read there.
 */
void
ts_layout_new_async (TsModelFile         *model,
                     GCancellable        *cancellable,
                     GAsyncReadyCallback  callback,
                     gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (TS_IS_MODEL_FILE (model));
  g_return_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, ts_layout_new_async);
  g_task_set_task_data (task, g_object_ref (model), g_object_unref);
  g_task_run_in_thread (task, new_worker);
}

/**
 * ts_layout_new_finish:
 * @result: the result passed to the callback
 * @error: return location for a #GError (%G_IO_ERROR_CANCELLED only)
 *
 * Returns: (transfer full): the new layout, or %NULL if cancelled
 */
TsLayout *
ts_layout_new_finish (GAsyncResult  *result,
                      GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == ts_layout_new_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * ts_layout_copy:
 * @self: a layout
 *
 * A copy of @self with the same bands (same ids), title, options and view
 * range. The label strings and the tensor index never change once built,
 * so the copy shares them; the band array is copied (one memcpy). Nothing
 * else refers to the copy: a worker thread may allocate and draw it while
 * @self stays in use on the main thread, and ts_layout_take_geometry()
 * brings the result back.
 *
 * Returns: (transfer full): a new layout
 */
TsLayout *
ts_layout_copy (TsLayout *self)
{
  TsLayout *copy;

  g_return_val_if_fail (TS_IS_LAYOUT (self), NULL);

  copy = g_object_new (TS_TYPE_LAYOUT, NULL);
  copy->model = self->model != NULL ? g_object_ref (self->model) : NULL;
  copy->plan = self->plan != NULL ? g_object_ref (self->plan) : NULL;

  g_array_unref (copy->bands);
  copy->bands = g_array_copy (self->bands);
  g_ptr_array_unref (copy->strings);
  copy->strings = g_ptr_array_ref (self->strings);
  g_hash_table_unref (copy->tensor_bands);
  copy->tensor_bands = g_hash_table_ref (self->tensor_bands);

  for (guint s = 0; s < self->strips->len; s++)
    {
      Strip strip = g_array_index (self->strips, Strip, s);

      /* the geometry arrays are the copy's own */
      strip.heading = g_strdup (strip.heading);
      strip.name = g_strdup (strip.name);
      strip.layers = g_array_new (FALSE, FALSE, sizeof (LayerSpan));
      strip.label_boxes = g_array_new (FALSE, FALSE, sizeof (LabelBox));
      g_array_set_clear_func (strip.label_boxes, label_box_clear);
      g_array_append_val (copy->strips, strip);
    }

  copy->title = g_strdup (self->title);
  copy->subtitle = g_strdup (self->subtitle);
  copy->part_name = g_strdup (self->part_name);
  copy->max_part_size = self->max_part_size;
  copy->view_start = self->view_start;
  copy->view_end = self->view_end;
  copy->show_title = self->show_title;
  copy->show_legend = self->show_legend;
  copy->dark = self->dark;

  return copy;
}

/**
 * ts_layout_take_geometry:
 * @self: a layout
 * @allocated: a ts_layout_copy() of @self, allocated since
 *
 * Moves the geometry of @allocated (band rectangles, strips, labels,
 * legend, size) into @self by swapping arrays, so it costs the same for
 * 50,000 bands as for 5. @self keeps its view range: the caller makes sure
 * @allocated was laid out for it. Pointers returned by
 * ts_layout_get_band() for @self become invalid; @allocated is left with
 * the old geometry, to be dropped.
 */
void
ts_layout_take_geometry (TsLayout *self,
                         TsLayout *allocated)
{
  GArray *tmp;

  g_return_if_fail (TS_IS_LAYOUT (self));
  g_return_if_fail (TS_IS_LAYOUT (allocated));
  g_return_if_fail (allocated->bands->len == self->bands->len);
  g_return_if_fail (allocated->strips->len == self->strips->len);

  tmp = self->bands;
  self->bands = allocated->bands;
  allocated->bands = tmp;

  tmp = self->strips;
  self->strips = allocated->strips;
  allocated->strips = tmp;

  tmp = self->legend;
  self->legend = allocated->legend;
  allocated->legend = tmp;

  self->width = allocated->width;
  self->height = allocated->height;
  self->x0 = allocated->x0;
  self->x1 = allocated->x1;
  self->legend_y = allocated->legend_y;
}

TsModelFile *
ts_layout_get_model (TsLayout *self)
{
  g_return_val_if_fail (TS_IS_LAYOUT (self), NULL);

  return self->model;
}

void
ts_layout_set_show_title (TsLayout *self,
                          gboolean  show_title)
{
  g_return_if_fail (TS_IS_LAYOUT (self));

  self->show_title = !!show_title;
}

gboolean
ts_layout_get_show_title (TsLayout *self)
{
  g_return_val_if_fail (TS_IS_LAYOUT (self), FALSE);

  return self->show_title;
}

void
ts_layout_set_title (TsLayout   *self,
                     const char *title)
{
  g_return_if_fail (TS_IS_LAYOUT (self));
  g_return_if_fail (title != NULL);

  g_free (self->title);
  self->title = g_strdup (title);
}

const char *
ts_layout_get_title (TsLayout *self)
{
  g_return_val_if_fail (TS_IS_LAYOUT (self), NULL);

  return self->title;
}

void
ts_layout_set_show_legend (TsLayout *self,
                           gboolean  show_legend)
{
  g_return_if_fail (TS_IS_LAYOUT (self));

  self->show_legend = !!show_legend;
}

/**
 * ts_layout_set_dark:
 * @self: a layout
 * @dark: %TRUE for light text and greys on a dark ground
 *
 * For drawing on screen in a dark style. Exports keep the light picture
 * unless asked otherwise. Takes effect at the next draw.
 */
void
ts_layout_set_dark (TsLayout *self,
                    gboolean  dark)
{
  g_return_if_fail (TS_IS_LAYOUT (self));
  self->dark = !!dark;
}

gboolean
ts_layout_get_dark (TsLayout *self)
{
  g_return_val_if_fail (TS_IS_LAYOUT (self), FALSE);
  return self->dark;
}

gboolean
ts_layout_get_show_legend (TsLayout *self)
{
  g_return_val_if_fail (TS_IS_LAYOUT (self), FALSE);

  return self->show_legend;
}

/* ------------------------------------------------------------------------ */
/* View range                                                                */

guint64
ts_layout_get_max_part_size (TsLayout *self)
{
  g_return_val_if_fail (TS_IS_LAYOUT (self), 0);

  return self->max_part_size;
}

void
ts_layout_set_view_range (TsLayout *self,
                          guint64   start,
                          guint64   end)
{
  guint64 limit;

  g_return_if_fail (TS_IS_LAYOUT (self));

  limit = MAX (self->max_part_size, 1);
  end = MIN (end, limit);
  start = MIN (start, end);

  if (end - start < MIN_VIEW_SPAN)
    {
      guint64 span = MIN ((guint64) MIN_VIEW_SPAN, limit);
      guint64 mid = start + (end - start) / 2;

      start = mid > span / 2 ? mid - span / 2 : 0;
      if (start + span > limit)
        start = limit - span;
      end = start + span;
    }

  self->view_start = start;
  self->view_end = end;
}

void
ts_layout_get_view_range (TsLayout *self,
                          guint64  *start,
                          guint64  *end)
{
  g_return_if_fail (TS_IS_LAYOUT (self));

  if (start != NULL)
    *start = self->view_start;
  if (end != NULL)
    *end = self->view_end;
}

void
ts_layout_reset_view_range (TsLayout *self)
{
  g_return_if_fail (TS_IS_LAYOUT (self));

  self->view_start = 0;
  self->view_end = MAX (self->max_part_size, 1);
}

gboolean
ts_layout_is_zoomed (TsLayout *self)
{
  g_return_val_if_fail (TS_IS_LAYOUT (self), FALSE);

  return self->view_start != 0 || self->view_end != MAX (self->max_part_size, 1);
}

guint64
ts_layout_x_to_offset (TsLayout *self,
                       double    x)
{
  double t, span;

  g_return_val_if_fail (TS_IS_LAYOUT (self), 0);

  if (self->x1 <= self->x0)
    return self->view_start;

  t = CLAMP ((x - self->x0) / (self->x1 - self->x0), 0.0, 1.0);
  span = (double) (self->view_end - self->view_start);
  return self->view_start + (guint64) (t * span);
}

void
ts_layout_zoom_at (TsLayout *self,
                   double    factor,
                   double    x)
{
  guint64 anchor, span, limit;
  double t, new_span;
  gint64 start;

  g_return_if_fail (TS_IS_LAYOUT (self));
  g_return_if_fail (factor > 0);

  limit = MAX (self->max_part_size, 1);
  anchor = ts_layout_x_to_offset (self, x);
  t = self->x1 > self->x0 ? CLAMP ((x - self->x0) / (self->x1 - self->x0), 0.0, 1.0) : 0.5;
  span = self->view_end - self->view_start;
  new_span = CLAMP ((double) span / factor, (double) MIN_VIEW_SPAN, (double) limit);
  start = (gint64) ((double) anchor - t * new_span);
  start = CLAMP (start, 0, (gint64) (limit - (guint64) new_span));
  ts_layout_set_view_range (self, (guint64) start, (guint64) start + (guint64) new_span);
}

/* ------------------------------------------------------------------------ */
/* Geometry                                                                  */

typedef struct
{
  guint   index;
  guint64 length;
} Item;

static int
compare_item_length (gconstpointer a,
                     gconstpointer b)
{
  const Item *ia = a;
  const Item *ib = b;

  return ia->length < ib->length ? -1 : ia->length > ib->length ? 1 : 0;
}

/* Splits @total among @n items proportionally to @lengths, but gives every
 * item at least @min_width; the others shrink to make room. Fixing the
 * smallest items first is optimal: each fix lowers the rate of the rest, so
 * one pass over the items sorted by length suffices (O(n log n)). */
static void
allocate_widths (const guint64 *lengths,
                 guint          n,
                 double         total,
                 double         min_width,
                 double        *out)
{
  g_autofree Item *items = NULL;
  double remaining_len = 0;
  double remaining_w = total;
  guint k;

  if (n == 0)
    return;

  if (min_width * n > total)
    min_width = total / n / 2;

  items = g_new (Item, n);
  for (guint i = 0; i < n; i++)
    {
      items[i].index = i;
      items[i].length = lengths[i];
      remaining_len += (double) lengths[i];
    }
  if (n > 0)  /* qsort (NULL, 0, …) is undefined */
    qsort (items, n, sizeof (Item), compare_item_length);

  for (k = 0; k < n; k++)
    {
      double len = (double) items[k].length;

      if (remaining_len > 0 && len * (remaining_w / remaining_len) >= min_width)
        break;
      out[items[k].index] = min_width;
      remaining_w -= min_width;
      remaining_len -= len;
    }

  for (; k < n; k++)
    out[items[k].index] = remaining_len > 0
      ? (double) items[k].length / remaining_len * remaining_w
      : remaining_w / (n - k);
}

static gboolean
clip_to_view (TsLayout *self,
              guint64   offset,
              guint64   length,
              guint64  *clip_start,
              guint64  *clip_end)
{
  guint64 end = offset + length;
  guint64 s = MAX (offset, self->view_start);
  guint64 e = MIN (end, self->view_end);

  if (e <= s)
    return FALSE;

  *clip_start = s;
  *clip_end = e;
  return TRUE;
}

static void
place_tensors (TsLayout     *self,
               Strip        *strip,
               TsLayoutBand *region)
{
  g_autoptr(GArray) ids = g_array_new (FALSE, FALSE, sizeof (guint));
  /* as long as it can get: grown a tensor at a time it was copied whole
   * each time wherever realloc() moves it (under ASan, always: 26 s for
   * 100,000 tensors) */
  g_autofree guint64 *lengths = g_new (guint64, MAX (strip->n_tensors, 1));
  g_autofree double *widths = NULL;
  guint64 region_end = region->offset + region->length;
  double x, min_width;

  /* Each tensor's segment reaches to the next tensor, so the alignment
   * padding between GGUF tensors is drawn with the tensor before it. */
  for (guint i = 0; i < strip->n_tensors; i++)
    {
      TsLayoutBand *t = &g_array_index (self->bands, TsLayoutBand, strip->first_tensor + i);
      guint64 seg_start, seg_end, s, e;

      if (t->parent != region->id)
        continue;

      seg_start = ids->len == 0 ? region->offset : t->offset;
      seg_end = region_end;
      for (guint j = i + 1; j < strip->n_tensors; j++)
        {
          TsLayoutBand *next = &g_array_index (self->bands, TsLayoutBand, strip->first_tensor + j);
          if (next->parent == region->id)
            {
              seg_end = MAX (next->offset, seg_start);
              break;
            }
        }

      if (!clip_to_view (self, seg_start, seg_end - seg_start, &s, &e))
        continue;
      lengths[ids->len] = e - s;
      g_array_append_val (ids, t->id);
    }

  if (ids->len == 0)
    return;

  widths = g_new0 (double, ids->len);
  min_width = ids->len * TENSOR_MIN_WIDTH <= region->width / 2 ? TENSOR_MIN_WIDTH : 0.0;
  allocate_widths (lengths, ids->len, region->width, min_width, widths);

  x = region->x;
  for (guint i = 0; i < ids->len; i++)
    {
      TsLayoutBand *t = &g_array_index (self->bands, TsLayoutBand, g_array_index (ids, guint, i));

      t->visible = TRUE;
      t->x = x;
      t->y = region->y;
      t->width = widths[i];
      t->height = region->height;
      x += widths[i];
    }
}

/* One bracket per run of a layer's tensors: a tensor of no layer between
 * them (output.weight in a layer's midst) ends the run, so that no
 * bracket spans a tensor that is not the layer's. */
static void
place_layers (TsLayout *self,
              Strip    *strip)
{
  gboolean in_run = FALSE;

  g_array_set_size (strip->layers, 0);

  for (guint i = 0; i < strip->n_tensors; i++)
    {
      TsLayoutBand *t = &g_array_index (self->bands, TsLayoutBand, strip->first_tensor + i);
      LayerSpan *last;

      if (!t->visible)
        continue;
      if (t->layer < 0)
        {
          in_run = FALSE;
          continue;
        }

      last = strip->layers->len > 0
        ? &g_array_index (strip->layers, LayerSpan, strip->layers->len - 1) : NULL;
      in_run = in_run && last != NULL && last->layer == t->layer;
      if (in_run)
        last->x1 = t->x + t->width;
      else
        {
          LayerSpan span = { t->layer, t->x, t->x + t->width };
          g_array_append_val (strip->layers, span);
          in_run = TRUE;
        }
    }
}

static void
place_regions (TsLayout *self,
               Strip    *strip,
               double    scale)
{
  g_autofree guint64 *lengths = g_new0 (guint64, MAX (strip->n_regions, 1));
  g_autofree double *widths = g_new0 (double, MAX (strip->n_regions, 1));
  g_autofree guint *ids = g_new0 (guint, MAX (strip->n_regions, 1));
  guint64 vis_end = MIN (self->view_end, strip->size);
  guint n = 0;
  double x = self->x0;

  for (guint i = 0; i < strip->n_regions; i++)
    {
      TsLayoutBand *r = &g_array_index (self->bands, TsLayoutBand, strip->first_region + i);
      guint64 s, e;

      if (!clip_to_view (self, r->offset, r->length, &s, &e))
        continue;
      if (n == 0)
        strip->first_visible_region = r->id;
      ids[n] = r->id;
      lengths[n++] = e - s;
    }
  strip->n_visible_regions = n;

  if (n == 0 || vis_end <= self->view_start)
    return;

  allocate_widths (lengths, n, (double) (vis_end - self->view_start) * scale,
                   REGION_MIN_WIDTH, widths);

  for (guint i = 0; i < n; i++)
    {
      TsLayoutBand *r = &g_array_index (self->bands, TsLayoutBand, ids[i]);

      r->visible = TRUE;
      r->x = x;
      r->y = strip->bar_y;
      r->width = widths[i];
      r->height = BAR_HEIGHT;
      x += widths[i];

      if (r->kind == TS_REGION_TENSOR_DATA)
        place_tensors (self, strip, r);
    }
}

/* Region labels go below the bar, in as few rows as fit without overlap,
 * each tied to its band by a leader line: this keeps a 29 KB header next
 * to a 6 GB data section readable. */
static void
place_labels (TsLayout *self,
              Strip    *strip)
{
  double row_end[MAX_LABEL_ROWS];
  guint n_rows = 0;

  g_array_set_size (strip->label_boxes, 0);

  /* the regions drawn: not one of 0 bytes (a GGUF without tensors has
   * no descriptors), which has no band to point at, and is no reason to
   * leave out the label of the region after it */
  for (guint i = 0; i < strip->n_regions; i++)
    {
      TsLayoutBand *r = &g_array_index (self->bands, TsLayoutBand, strip->first_region + i);
      LabelBox box = { 0 };
      double w1, w2, x;
      guint row;

      if (!r->visible)
        continue;

      box.band = r->id;
      box.line2 = format_range (r->offset, r->offset + r->length);
      w1 = measure_text (self, r->label, 12, TRUE);
      w2 = measure_text (self, box.line2, 10.5, FALSE);
      box.width = LABEL_INDENT + MAX (w1, w2);
      x = CLAMP (r->x + r->width / 2 - box.width / 2, self->x0, MAX (self->x0, self->x1 - box.width));

      for (row = 0; row < n_rows; row++)
        {
          if (row_end[row] + LABEL_SPACING <= x)
            break;
          if (row_end[row] + LABEL_SPACING + box.width <= self->x1)
            {
              x = row_end[row] + LABEL_SPACING;
              break;
            }
        }
      if (row == n_rows)
        {
          if (n_rows < MAX_LABEL_ROWS)
            n_rows++;
          else
            row = n_rows - 1;
        }

      row_end[row] = x + box.width;
      box.x = x;
      box.y = strip->label_y + row * LABEL_ROW_HEIGHT;
      g_array_append_val (strip->label_boxes, box);
    }

  strip->n_label_rows = n_rows;
}

static double
place_legend (TsLayout *self,
              double    y)
{
  gboolean roles[TS_TENSOR_ROLE_N_ROLES] = { FALSE };
  gboolean kinds[TS_REGION_N_KINDS] = { FALSE };
  double x = self->x0;

  g_array_set_size (self->legend, 0);

  for (guint i = 0; i < self->bands->len; i++)
    {
      TsLayoutBand *b = &g_array_index (self->bands, TsLayoutBand, i);

      /* a zoomed picture explains only what it shows */
      if (!b->visible)
        continue;
      if (b->type == TS_LAYOUT_BAND_TENSOR)
        roles[b->role] = TRUE;
      else if (b->kind != TS_REGION_TENSOR_DATA)
        kinds[b->kind] = TRUE;
    }

  for (guint pass = 0; pass < 2; pass++)
    {
      guint n = pass == 0 ? TS_REGION_N_KINDS : TS_TENSOR_ROLE_N_ROLES;

      for (guint v = 0; v < n; v++)
        {
          LegendItem item = { pass == 1, v, 0, 0 };
          const char *text;
          double w;

          if (pass == 0 ? !kinds[v] : !roles[v])
            continue;
          text = pass == 0 ? ts_layout_get_kind_label (v) : ts_layout_get_role_label (v);
          w = 14 + 6 + measure_text (self, text, 12, FALSE) + 20;
          if (x > self->x0 && x + w > self->x1)
            {
              x = self->x0;
              y += LEGEND_ROW_HEIGHT;
            }
          item.x = x;
          item.y = y;
          g_array_append_val (self->legend, item);
          x += w;
        }
    }

  return self->legend->len > 0 ? y + LEGEND_ROW_HEIGHT : y;
}

/**
 * ts_layout_allocate:
 * @self: a layout
 * @width: the width of the diagram in layout units
 *
 * Computes the geometry of every band for @width: strips share one byte
 * scale (the largest part spans the full width); bands narrower than a
 * minimum width are widened and their neighbours shrink to make room.
 */
void
ts_layout_allocate (TsLayout *self,
                    double    width)
{
  double y = MARGIN;
  double scale;

  g_return_if_fail (TS_IS_LAYOUT (self));

  self->width = MAX (width, 2 * MARGIN + 40);
  self->x0 = MARGIN;
  self->x1 = self->width - MARGIN;
  scale = (self->x1 - self->x0) / (double) MAX (self->view_end - self->view_start, 1);

  for (guint i = 0; i < self->bands->len; i++)
    {
      TsLayoutBand *b = &g_array_index (self->bands, TsLayoutBand, i);
      b->visible = FALSE;
      b->x = b->y = b->width = b->height = 0;
    }

  if (self->show_title)
    y += TITLE_HEIGHT;

  for (guint s = 0; s < self->strips->len; s++)
    {
      Strip *strip = &g_array_index (self->strips, Strip, s);

      strip->y = y;
      y += HEADING_HEIGHT;
      if (strip->has_layers)
        y += RULER_HEIGHT;
      strip->bar_y = y;
      y += BAR_HEIGHT;
      strip->label_y = y + LABEL_GAP;
      strip->n_visible_regions = 0;

      place_regions (self, strip, scale);
      place_layers (self, strip);
      place_labels (self, strip);

      y = strip->label_y + strip->n_label_rows * LABEL_ROW_HEIGHT + STRIP_SPACING;
    }

  self->legend_y = y;
  if (self->show_legend)
    y = place_legend (self, y);
  else
    g_array_set_size (self->legend, 0);

  self->height = y + MARGIN - STRIP_SPACING / 2;
}

double
ts_layout_get_width (TsLayout *self)
{
  g_return_val_if_fail (TS_IS_LAYOUT (self), 0);

  return self->width;
}

double
ts_layout_get_height (TsLayout *self)
{
  g_return_val_if_fail (TS_IS_LAYOUT (self), 0);

  return self->height;
}

void
ts_layout_get_strip_extent (TsLayout *self,
                            double   *x0,
                            double   *x1)
{
  g_return_if_fail (TS_IS_LAYOUT (self));

  if (x0 != NULL)
    *x0 = self->x0;
  if (x1 != NULL)
    *x1 = self->x1;
}

guint
ts_layout_get_n_bands (TsLayout *self)
{
  g_return_val_if_fail (TS_IS_LAYOUT (self), 0);

  return self->bands->len;
}

const TsLayoutBand *
ts_layout_get_band (TsLayout *self,
                    guint     id)
{
  g_return_val_if_fail (TS_IS_LAYOUT (self), NULL);
  g_return_val_if_fail (id < self->bands->len, NULL);

  return &g_array_index (self->bands, TsLayoutBand, id);
}

guint
ts_layout_find_tensor (TsLayout *self,
                       TsTensor *tensor)
{
  gpointer value;

  g_return_val_if_fail (TS_IS_LAYOUT (self), TS_LAYOUT_NO_BAND);

  value = g_hash_table_lookup (self->tensor_bands, tensor);
  return value != NULL ? GPOINTER_TO_UINT (value) - 1 : TS_LAYOUT_NO_BAND;
}

/* ------------------------------------------------------------------------ */
/* Hit-testing                                                               */

static int
compare_x_to_band (const void *key,
                   const void *element)
{
  double x = *(const double *) key;
  const TsLayoutBand *band = element;

  if (x < band->x)
    return -1;
  if (x >= band->x + band->width)
    return 1;
  return 0;
}

/* Bands of one kind in a strip are contiguous and sorted by offset, and
 * the visible ones have increasing x; some among them may be hidden (a
 * region or tensor of 0 bytes has no width), with no geometry: a binary
 * search over the visible ones, a hidden middle band standing for the
 * next visible one. */
static const TsLayoutBand *
bsearch_bands (TsLayout *self,
               guint     first,
               guint     n,
               double    x)
{
  guint lo = first, hi = first + n;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      guint v = mid;
      const TsLayoutBand *band;
      int cmp;

      while (v < hi && !g_array_index (self->bands, TsLayoutBand, v).visible)
        v++;
      if (v == hi)
        {
          hi = mid;   /* nothing shown from mid on */
          continue;
        }
      band = &g_array_index (self->bands, TsLayoutBand, v);
      cmp = compare_x_to_band (&x, band);
      if (cmp == 0)
        return band;
      if (cmp < 0)
        hi = mid;
      else
        lo = v + 1;
    }
  return NULL;
}

const TsLayoutBand *
ts_layout_hit_test (TsLayout *self,
                    double    x,
                    double    y)
{
  g_return_val_if_fail (TS_IS_LAYOUT (self), NULL);

  for (guint s = 0; s < self->strips->len; s++)
    {
      Strip *strip = &g_array_index (self->strips, Strip, s);
      const TsLayoutBand *region;
      const TsLayoutBand *tensor;

      if (y < strip->bar_y || y >= strip->bar_y + BAR_HEIGHT)
        continue;

      region = bsearch_bands (self, strip->first_region, strip->n_regions, x);
      if (region == NULL || region->kind != TS_REGION_TENSOR_DATA || strip->n_tensors == 0)
        return region;

      /* Tensor bands of one part may sit in several data regions; only the
       * visible ones have geometry, and those are in x order. */
      tensor = bsearch_bands (self, strip->first_tensor, strip->n_tensors, x);
      return tensor != NULL ? tensor : region;
    }

  return NULL;
}

static const char *
strip_name (TsLayout *self,
            Strip    *strip)
{
  return strip->part != NULL ? ts_file_part_get_name (strip->part) : strip->name;
}

char *
ts_layout_dup_band_description (TsLayout           *self,
                                const TsLayoutBand *band)
{
  g_autofree char *range = NULL;
  g_autofree char *size = NULL;
  Strip *strip;
  double share;

  g_return_val_if_fail (TS_IS_LAYOUT (self), NULL);
  g_return_val_if_fail (band != NULL, NULL);

  strip = &g_array_index (self->strips, Strip, band->part);
  range = format_range (band->offset, band->offset + band->length);
  size = format_size_in_bytes (band->length);
  share = strip->size > 0 ? 100.0 * (double) band->length / (double) strip->size : 0.0;

  if (band->type == TS_LAYOUT_BAND_TENSOR && band->tensor == NULL)
    {
      /* Translators: tooltip of a predicted tensor band: name, role,
       * byte range, size, share of the file */
      return g_strdup_printf (_("%s\n%s\n%s\n%s · %.2f %% of %s"),
                              band->label, ts_layout_get_role_label (band->role),
                              range, size, share, strip_name (self, strip));
    }

  if (band->type == TS_LAYOUT_BAND_TENSOR)
    {
      g_autofree char *shape = ts_tensor_format_shape (band->tensor);
      g_autofree char *layer = band->layer >= 0
        ? g_strdup_printf (_(" · layer %d"), band->layer) : g_strdup ("");

      /* Translators: tooltip of a tensor band: name, role, type and shape,
       * byte range, size, share of the file */
      return g_strdup_printf (_("%s\n%s%s · %s %s\n%s\n%s · %.2f %% of %s"),
                              ts_tensor_get_name (band->tensor),
                              ts_layout_get_role_label (band->role), layer,
                              ts_tensor_get_dtype_name (band->tensor), shape,
                              range, size, share,
                              strip_name (self, strip));
    }

  /* Translators: tooltip of a region band: kind, byte range, size, share */
  return g_strdup_printf (_("%s\n%s\n%s · %.2f %% of %s"),
                          ts_layout_get_kind_label (band->kind),
                          range, size, share,
                          strip_name (self, strip));
}

/* ------------------------------------------------------------------------ */
/* Drawing                                                                   */

static guint32
tensor_color (const TsLayoutBand *band,
              guint               index)
{
  guint32 rgb = ts_layout_get_role_color (band->role);
  guint r = (rgb >> 16) & 0xff, g = (rgb >> 8) & 0xff, b = rgb & 0xff;

  /* Alternate tensors of one role get a lighter shade, so neighbours
   * stay distinct even without separators. */
  if (index % 2 == 1)
    {
      r += (255 - r) / 5;
      g += (255 - g) / 5;
      b += (255 - b) / 5;
    }

  return (r << 16) | (g << 8) | b;
}

static void
fill_hatched (cairo_t      *cr,
              const TsLayoutBand *b,
              guint32       rgb)
{
  set_rgb (cr, rgb, 0.35);
  cairo_rectangle (cr, b->x, b->y, b->width, b->height);
  cairo_fill_preserve (cr);
  cairo_save (cr);
  cairo_clip (cr);
  set_rgb (cr, rgb, 1.0);
  cairo_set_line_width (cr, 1.0);
  for (double d = -b->height; d < b->width; d += 6)
    {
      cairo_move_to (cr, b->x + d, b->y + b->height);
      cairo_line_to (cr, b->x + d + b->height, b->y);
    }
  cairo_stroke (cr);
  cairo_restore (cr);
}

/* Tensor bands narrower than a device pixel (tens of thousands of tensors
 * in one strip) are not drawn one by one: each would be a rectangle of its
 * own in an SVG or PDF (a million of them made a 250 MB SVG) for a
 * picture no one can tell from one drawn by the pixel. Consecutive narrow
 * bands are gathered into cells about a pixel wide, each drawn in its
 * bands' role colours mixed by their widths (what antialiasing makes of
 * them, and a layer's attention among its experts stays a tinted line),
 * and neighbouring cells of one colour as one rectangle. A band at least a
 * pixel wide, or a narrow one alone between wide ones (a norm between two
 * matrices), is a cell of its own and drawn as before. The bands keep
 * their exact geometry for hit-testing. */
typedef struct
{
  guint         first;    /* index of its first band among the strip's tensors */
  guint         n;        /* its bands */
  guint         parent;   /* their data region */
  double        x;
  double        end;      /* right edge of its last band */
  guint32       rgb;      /* cells of several bands: their mixed colour */
} TensorCell;

static void
add_color (double   mix[3],
           guint32  rgb,
           double   weight)
{
  mix[0] += ((rgb >> 16) & 0xff) * weight;
  mix[1] += ((rgb >> 8) & 0xff) * weight;
  mix[2] += (rgb & 0xff) * weight;
}

static guint32
mixed_color (const double mix[3],
             double       total)
{
  guint32 rgb = 0;

  for (guint i = 0; i < 3; i++)
    rgb = (rgb << 8) | (guint32) CLAMP (round (mix[i] / total), 0, 255);
  return rgb;
}

static const TsLayoutBand *
strip_tensor (TsLayout *self,
              Strip    *strip,
              guint     index)
{
  return &g_array_index (self->bands, TsLayoutBand, strip->first_tensor + index);
}

/* The next cell of @strip's visible tensor bands from *@pos on: a band at
 * least @pixel wide alone, or narrower neighbours of one data region until
 * they are @pixel wide together or a wide band comes. */
static gboolean
next_tensor_cell (TsLayout   *self,
                  Strip      *strip,
                  double      pixel,
                  guint      *pos,
                  TensorCell *cell)
{
  double mix[3] = { 0 };
  const TsLayoutBand *t = NULL;

  while (*pos < strip->n_tensors && !(t = strip_tensor (self, strip, *pos))->visible)
    (*pos)++;
  if (*pos >= strip->n_tensors)
    return FALSE;

  cell->first = (*pos)++;
  cell->n = 1;
  cell->parent = t->parent;
  cell->x = t->x;
  cell->end = t->x + t->width;
  cell->rgb = ts_layout_get_role_color (t->role);
  if (t->width >= pixel)
    return TRUE;

  add_color (mix, cell->rgb, t->width);
  while (cell->end - cell->x < pixel && *pos < strip->n_tensors)
    {
      const TsLayoutBand *next = strip_tensor (self, strip, *pos);

      if (!next->visible || next->width >= pixel || next->parent != cell->parent)
        break;
      add_color (mix, ts_layout_get_role_color (next->role), next->width);
      cell->end = next->x + next->width;
      cell->n++;
      (*pos)++;
    }
  if (cell->n > 1 && cell->end > cell->x)
    cell->rgb = mixed_color (mix, cell->end - cell->x);
  return TRUE;
}

/* the width of a device pixel in layout units, where @cr draws */
static double
device_pixel (cairo_t *cr)
{
  double dx = 1, dy = 0, sx = 1, sy = 1;
  double scale;

  cairo_user_to_device_distance (cr, &dx, &dy);
  cairo_surface_get_device_scale (cairo_get_target (cr), &sx, &sy);
  scale = hypot (dx, dy) * sx;
  return scale > 0 ? 1.0 / scale : 1.0;
}

static void
draw_tensor_band (TsLayout           *self,
                  cairo_t            *cr,
                  const TsLayoutBand *t,
                  guint               index)
{
  set_rgb (cr, tensor_color (t, index), 1.0);
  cairo_rectangle (cr, t->x, t->y, t->width, t->height);
  cairo_fill (cr);
  if (t->width >= 4)
    {
      set_rgb (cr, neutral (self, 0xffffff), 0.7);
      cairo_rectangle (cr, t->x + t->width - 0.5, t->y, 0.5, t->height);
      cairo_fill (cr);
    }
}

static void
draw_tensor_run (cairo_t          *cr,
                 const TensorCell *run,
                 double            y,
                 double            height)
{
  set_rgb (cr, run->rgb, 1.0);
  cairo_rectangle (cr, run->x, y, run->end - run->x, height);
  cairo_fill (cr);
}

static void
draw_tensor_cells (TsLayout *self,
                   cairo_t  *cr,
                   Strip    *strip)
{
  double pixel = device_pixel (cr);
  const TsLayoutBand *first;
  TensorCell cell, run = { 0 };
  gboolean in_run = FALSE;
  guint pos = 0;

  while (next_tensor_cell (self, strip, pixel, &pos, &cell))
    {
      first = strip_tensor (self, strip, cell.first);
      if (in_run && (cell.n == 1 || cell.rgb != run.rgb || cell.parent != run.parent ||
                     fabs (cell.x - run.end) > pixel / 1024))
        {
          draw_tensor_run (cr, &run, first->y, first->height);
          in_run = FALSE;
        }
      if (cell.n == 1)
        draw_tensor_band (self, cr, first, cell.first);
      else if (in_run)
        run.end = cell.end;
      else
        {
          run = cell;
          in_run = TRUE;
        }
    }
  if (in_run)
    {
      first = strip_tensor (self, strip, run.first);
      draw_tensor_run (cr, &run, first->y, first->height);
    }
}

static const char *
short_tensor_name (const char *name)
{
  const char *last = strrchr (name, '.');

  /* "model.layers.3.mlp.up_proj.weight" → "up_proj.weight" */
  if (last != NULL && last != name)
    {
      const char *p = last - 1;
      while (p > name && *p != '.')
        p--;
      if (*p == '.')
        return p + 1;
    }
  return name;
}

/* WCAG's relative luminance of @rgb */
static double
relative_luminance (guint32 rgb)
{
  const double weights[3] = { 0.2126, 0.7152, 0.0722 };
  double l = 0;

  for (guint i = 0; i < 3; i++)
    {
      double c = ((rgb >> (16 - 8 * i)) & 0xff) / 255.0;

      l += weights[i] * (c <= 0.04045 ? c / 12.92 : pow ((c + 0.055) / 1.055, 2.4));
    }
  return l;
}

/* White or black, whichever reads better on @fill: one of them has 4.58:1
 * or more on any colour. White alone had 2.5:1 to 4:1 on the green, blue
 * and yellow of most tensor bands and on the lighter shades. */
static guint32
text_color_on (guint32 fill)
{
  double l = relative_luminance (fill);

  return 1.05 / (l + 0.05) >= (l + 0.05) / 0.05 ? 0xffffff : 0x000000;
}

static void
draw_band_label (TsLayout           *self,
                 cairo_t            *cr,
                 const TsLayoutBand *b,
                 guint32             fill)
{
  const char *in_layer = NULL;
  const char *texts[2];
  guint32 rgb = text_color_on (fill);

  /* under its layer's bracket a tensor is named within the layer:
   * "ffn_up.weight", not "blk.0.ffn_up.weight" beside an "ffn_gate.weight"
   * a few pixels too narrow for its full name */
  if (b->layer >= 0)
    parse_layer (b->label, &in_layer);
  texts[0] = in_layer != NULL ? in_layer : b->label;
  texts[1] = short_tensor_name (b->label);

  /* no text fits in 8 units plus its own width: skip measuring it, as
   * most of 50,000 tensor bands are a pixel or two wide */
  if (b->width <= 8)
    return;

  for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
    {
      double w = measure_text (self, texts[i], 11, FALSE);

      if (w + 8 <= b->width)
        {
          draw_text (self, cr, texts[i], b->x + (b->width - w) / 2,
                     b->y + b->height / 2 + 4, 11, FALSE, rgb);
          return;
        }
    }
}

static void
draw_strip_bands (TsLayout *self,
                  cairo_t  *cr,
                  Strip    *strip)
{
  for (guint i = 0; i < strip->n_regions; i++)
    {
      TsLayoutBand *r = &g_array_index (self->bands, TsLayoutBand, strip->first_region + i);

      if (!r->visible)
        continue;

      if (r->kind == TS_REGION_PADDING || r->kind == TS_REGION_UNEXPLAINED)
        fill_hatched (cr, r, kind_color (self, r->kind));
      else
        {
          set_rgb (cr, kind_color (self, r->kind), 1.0);
          cairo_rectangle (cr, r->x, r->y, r->width, r->height);
          cairo_fill (cr);
        }
    }

  draw_tensor_cells (self, cr, strip);

  /* region boundaries */
  set_rgb (cr, neutral (self, 0xffffff), 1.0);
  for (guint i = 0; i < strip->n_regions; i++)
    {
      TsLayoutBand *r = &g_array_index (self->bands, TsLayoutBand, strip->first_region + i);

      if (!r->visible || r->id == strip->first_visible_region)
        continue;
      cairo_rectangle (cr, r->x - 0.75, r->y, 1.5, r->height);
      cairo_fill (cr);
    }

  for (guint i = 0; i < strip->n_tensors; i++)
    {
      TsLayoutBand *t = &g_array_index (self->bands, TsLayoutBand, strip->first_tensor + i);
      if (t->visible)
        draw_band_label (self, cr, t, tensor_color (t, i));
    }
}

static void
draw_strip_ruler (TsLayout *self,
                  cairo_t  *cr,
                  Strip    *strip)
{
  double y = strip->bar_y - RULER_HEIGHT;
  double pixel = device_pixel (cr);

  for (guint i = 0; i < strip->layers->len; i++)
    {
      LayerSpan *span = &g_array_index (strip->layers, LayerSpan, i);
      guint32 shade = span->layer % 2 == 0 ? 0xdeddda : 0xc0bfbc;
      double x1 = span->x1;
      double w;

      /* layers narrower than a pixel side by side are one rectangle: the
       * picture cannot show them apart, and several would leave seams */
      while (span->x1 - span->x0 < pixel && i + 1 < strip->layers->len)
        {
          LayerSpan *next = &g_array_index (strip->layers, LayerSpan, i + 1);

          if (next->x1 - next->x0 >= pixel || fabs (next->x0 - x1) > pixel / 1024)
            break;
          x1 = next->x1;
          shade = 0xdeddda;
          i++;
        }
      w = x1 - span->x0;
      set_rgb (cr, neutral (self, shade), 1.0);
      cairo_rectangle (cr, span->x0, y + 2, w, RULER_HEIGHT - 3);
      cairo_fill (cr);
      /* no number fits in less (most of thousands of layers are narrower) */
      if (x1 == span->x1 && w >= 8)
        {
          /* TRANSLATORS: a bracket above one layer's tensors in the layout */
          g_autofree char *text = g_strdup_printf (_("layer %d"), span->layer);
          double tw = measure_text (self, text, 9, FALSE);

          /* the bare number where the word does not fit */
          if (tw + 4 > w)
            {
              g_free (text);
              text = g_strdup_printf ("%d", span->layer);
              tw = measure_text (self, text, 9, FALSE);
            }
          if (tw + 4 <= w)
            draw_text (self, cr, text, span->x0 + (w - tw) / 2, y + RULER_HEIGHT - 4,
                       9, FALSE, neutral (self, 0x3d3846));
        }
    }
}

static void
draw_strip_labels (TsLayout *self,
                   cairo_t  *cr,
                   Strip    *strip)
{
  for (guint i = 0; i < strip->label_boxes->len; i++)
    {
      LabelBox *box = &g_array_index (strip->label_boxes, LabelBox, i);
      TsLayoutBand *r = &g_array_index (self->bands, TsLayoutBand, box->band);
      double cx = r->x + r->width / 2;
      double tx = CLAMP (cx, box->x, box->x + box->width);

      /* leader line from the band to its label */
      set_rgb (cr, neutral (self, 0x77767b), 1.0);
      cairo_set_line_width (cr, 1.0);
      cairo_move_to (cr, cx, r->y + r->height + 1);
      cairo_line_to (cr, cx, r->y + r->height + 5);
      cairo_line_to (cr, tx, box->y - 2);
      cairo_stroke (cr);
      cairo_arc (cr, cx, r->y + r->height + 1, 1.8, 0, 2 * G_PI);
      cairo_fill (cr);

      set_rgb (cr, kind_color (self, r->kind), 1.0);
      cairo_rectangle (cr, box->x, box->y + 1, 3, 25);
      cairo_fill (cr);
      draw_text (self, cr, r->label, box->x + LABEL_INDENT, box->y + 12, 12, TRUE, neutral (self, 0x241f31));
      draw_text (self, cr, box->line2, box->x + LABEL_INDENT, box->y + 26, 10.5, FALSE, neutral (self, 0x5e5c64));
    }
}

static void
draw_strip (TsLayout *self,
            cairo_t  *cr,
            Strip    *strip)
{
  g_autofree char *range = NULL;
  g_autofree char *heading = fit_text (self, strip->heading, 12.5, TRUE, self->x1 - self->x0);
  guint64 vis_end = MIN (self->view_end, strip->size);
  double rw;

  draw_text (self, cr, heading, self->x0, strip->y + 14, 12.5, TRUE, neutral (self, 0x241f31));

  if (vis_end > self->view_start)
    range = format_range (self->view_start, vis_end);
  else
    range = g_strdup (_("nothing in the range shown"));
  rw = measure_text (self, range, 10.5, FALSE);
  /* where the heading leaves no room, the range is left out: a narrow
   * export drew one over the other */
  if (self->x0 + measure_text (self, heading, 12.5, TRUE) + LABEL_SPACING + rw <= self->x1)
    draw_text (self, cr, range, self->x1 - rw, strip->y + 14, 10.5, FALSE, neutral (self, 0x5e5c64));

  /* the track: the strip's full extent on the common scale */
  set_rgb (cr, neutral (self, 0xf6f5f4), 1.0);
  cairo_rectangle (cr, self->x0, strip->bar_y, self->x1 - self->x0, BAR_HEIGHT);
  cairo_fill (cr);

  if (strip->has_layers)
    draw_strip_ruler (self, cr, strip);
  draw_strip_bands (self, cr, strip);
  draw_strip_labels (self, cr, strip);
}

static void
draw_legend (TsLayout *self,
             cairo_t  *cr)
{
  for (guint i = 0; i < self->legend->len; i++)
    {
      LegendItem *item = &g_array_index (self->legend, LegendItem, i);
      guint32 rgb = item->is_role
        ? ts_layout_get_role_color (item->value)
        : kind_color (self, item->value);
      const char *text = item->is_role
        ? ts_layout_get_role_label (item->value)
        : ts_layout_get_kind_label (item->value);

      if (!item->is_role && (item->value == TS_REGION_PADDING || item->value == TS_REGION_UNEXPLAINED))
        {
          TsLayoutBand swatch = { .x = item->x, .y = item->y + 3, .width = 14, .height = 14 };
          fill_hatched (cr, &swatch, rgb);
        }
      else
        {
          set_rgb (cr, rgb, 1.0);
          cairo_rectangle (cr, item->x, item->y + 3, 14, 14);
          cairo_fill (cr);
        }
      draw_text (self, cr, text, item->x + 20, item->y + 14.5, 12, FALSE, neutral (self, 0x241f31));
    }
}

/**
 * ts_layout_draw:
 * @self: an allocated layout
 * @cr: where to draw
 *
 * Draws the diagram (background, title, strips, labels, legend) with its
 * top-left corner at the origin of @cr, in layout units.
 */
void
ts_layout_draw (TsLayout *self,
                cairo_t  *cr)
{
  g_return_if_fail (TS_IS_LAYOUT (self));
  g_return_if_fail (cr != NULL);

  cairo_save (cr);

  /* a dark picture leaves its ground to the widget's style, whose dark
   * greys differ from theme to theme */
  if (!self->dark)
    {
      set_rgb (cr, 0xffffff, 1.0);
      cairo_rectangle (cr, 0, 0, self->width, self->height);
      cairo_fill (cr);
    }

  if (self->show_title)
    {
      g_autofree char *title = fit_text (self, self->title, 20, TRUE, self->x1 - self->x0);
      g_autofree char *subtitle = fit_text (self, self->subtitle, 12.5, FALSE, self->x1 - self->x0);

      draw_text (self, cr, title, self->x0, MARGIN + 20, 20, TRUE, neutral (self, 0x241f31));
      draw_text (self, cr, subtitle, self->x0, MARGIN + 41, 12.5, FALSE, neutral (self, 0x5e5c64));
    }

  for (guint s = 0; s < self->strips->len; s++)
    draw_strip (self, cr, &g_array_index (self->strips, Strip, s));

  if (self->show_legend)
    draw_legend (self, cr);

  cairo_restore (cr);
}

/* ------------------------------------------------------------------------ */
/* Export                                                                    */

gboolean
ts_layout_export_format_from_name (const char           *name,
                                   TsLayoutExportFormat *format)
{
  const char *dot;

  g_return_val_if_fail (name != NULL, FALSE);

  if ((dot = strrchr (name, '.')) == NULL)
    return FALSE;

  if (g_ascii_strcasecmp (dot, ".svg") == 0)
    *format = TS_LAYOUT_EXPORT_SVG;
  else if (g_ascii_strcasecmp (dot, ".pdf") == 0)
    *format = TS_LAYOUT_EXPORT_PDF;
  else if (g_ascii_strcasecmp (dot, ".png") == 0)
    *format = TS_LAYOUT_EXPORT_PNG;
  else
    return FALSE;

  return TRUE;
}

static cairo_status_t
write_to_byte_array (void                *closure,
                     const unsigned char *data,
                     unsigned int         length)
{
  g_byte_array_append (closure, data, length);
  return CAIRO_STATUS_SUCCESS;
}

static gboolean
check_cairo (cairo_status_t   status,
             GError         **error)
{
  if (status == CAIRO_STATUS_SUCCESS)
    return TRUE;

  g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
               _("Could not render the diagram: %s"), cairo_status_to_string (status));
  return FALSE;
}

static TsLayout *
copy_layout (TsLayout *self)
{
  TsLayout *copy = self->plan != NULL
    ? ts_layout_new_for_plan (self->plan, self->part_name)
    : ts_layout_new (self->model);

  copy->show_title = self->show_title;
  copy->show_legend = self->show_legend;
  ts_layout_set_title (copy, self->title);
  copy->view_start = self->view_start;
  copy->view_end = self->view_end;

  return copy;
}

/* Draws @layout scaled down (never up) to fit @width × @height. */
static void
draw_fitted (TsLayout *layout,
             cairo_t  *cr,
             int       width,
             int       height)
{
  double scale = MIN (1.0, height / layout->height);

  if (!layout->dark)
    {
      set_rgb (cr, 0xffffff, 1.0);
      cairo_paint (cr);
    }
  cairo_translate (cr, (width - layout->width * scale) / 2, 0);
  cairo_scale (cr, scale, scale);
  ts_layout_draw (layout, cr);
}

static void
append_title_rect (GString    *out,
                   double      x,
                   double      y,
                   double      w,
                   double      h,
                   const char *title,
                   const char *desc)
{
  g_autofree char *title_xml = svg_escape (title);
  g_autofree char *desc_xml = svg_escape (desc);
  char bx[G_ASCII_DTOSTR_BUF_SIZE], by[G_ASCII_DTOSTR_BUF_SIZE];
  char bw[G_ASCII_DTOSTR_BUF_SIZE], bh[G_ASCII_DTOSTR_BUF_SIZE];

  g_string_append_printf (out, "<rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\">"
                          "<title>%s</title><desc>%s</desc></rect>\n",
                          svg_num (bx, x), svg_num (by, y), svg_num (bw, w), svg_num (bh, h),
                          title_xml, desc_xml);
}

static void
append_band_title (TsLayout           *layout,
                   GString            *out,
                   const TsLayoutBand *band,
                   double              tx,
                   double              scale)
{
  g_autofree char *desc = NULL;

  if (!band->visible || band->label == NULL)
    return;
  desc = ts_layout_dup_band_description (layout, band);
  append_title_rect (out, tx + band->x * scale, band->y * scale,
                     band->width * scale, band->height * scale, band->label, desc);
}

/* one title for the bands of a cell too narrow to draw them one by one */
static void
append_cell_title (TsLayout         *layout,
                   GString          *out,
                   Strip            *strip,
                   const TensorCell *cell,
                   double            tx,
                   double            scale)
{
  /* a cell's bands are consecutive */
  const TsLayoutBand *first = strip_tensor (layout, strip, cell->first);
  const TsLayoutBand *last = strip_tensor (layout, strip, cell->first + cell->n - 1);
  g_autofree char *n = format_count (cell->n);
  g_autofree char *title = NULL;
  g_autofree char *range = NULL;
  g_autofree char *size = NULL;
  g_autofree char *desc = NULL;
  GString *names = g_string_new (NULL);
  guint64 length;
  double share;

  length = last->offset + last->length - first->offset;
  share = strip->size > 0 ? 100.0 * (double) length / (double) strip->size : 0.0;
  range = format_range (first->offset, last->offset + last->length);
  size = format_size_in_bytes (length);
  /* every name where a few share the cell (a narrow picture of a normal
   * model), the first and the last of a crowd (a million tensors) */
  if (cell->n <= CELL_MAX_NAMES)
    for (guint i = 0; i < cell->n; i++)
      g_string_append_printf (names, "%s%s", i > 0 ? ", " : "",
                              strip_tensor (layout, strip, cell->first + i)->label);
  else
    g_string_append_printf (names, "%s … %s", first->label, last->label);
  /* Translators: the title of a run of tensors too narrow to draw one
   * by one; %s is their number (at least 2) */
  title = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s tensor", "%s tensors", cell->n), n);
  /* Translators: the same as a region band's tooltip: the run's tensor
   * names, byte range, size, share of the file */
  desc = g_strdup_printf (_("%s\n%s\n%s · %.2f %% of %s"),
                          names->str, range, size, share, strip_name (layout, strip));
  g_string_free (names, TRUE);
  append_title_rect (out, tx + cell->x * scale, first->y * scale,
                     (cell->end - cell->x) * scale, first->height * scale, title, desc);
}

/* One invisible rectangle per visible band, titled with its full label:
 * a label too long for its band is cut or left out of the picture, but the
 * file still names every band, and viewers show it as a tooltip. Tensor
 * bands drawn as cells (see next_tensor_cell()) get one per cell. */
static void
append_band_titles (TsLayout *layout,
                    GString  *out,
                    int       width,
                    int       height)
{
  double scale = MIN (1.0, height / layout->height);
  double tx = (width - layout->width * scale) / 2;

  g_string_append (out, "<g id=\"bands\" fill-opacity=\"0\">\n");
  for (guint s = 0; s < layout->strips->len; s++)
    {
      Strip *strip = &g_array_index (layout->strips, Strip, s);
      TensorCell cell;
      guint pos = 0;

      for (guint i = 0; i < strip->n_regions; i++)
        append_band_title (layout, out, &g_array_index (layout->bands, TsLayoutBand,
                                                        strip->first_region + i),
                           tx, scale);
      /* a pixel of the picture, as draw_tensor_cells() found it */
      while (next_tensor_cell (layout, strip, 1.0 / scale, &pos, &cell))
        {
          if (cell.n == 1)
            append_band_title (layout, out, strip_tensor (layout, strip, cell.first), tx, scale);
          else
            append_cell_title (layout, out, strip, &cell, tx, scale);
        }
    }
  g_string_append (out, "</g>\n");
}

static char *
svg_text_layer (TsLayout *layout,
                int       width,
                int       height)
{
  g_autofree char *title = svg_escape (layout->title);
  g_autofree char *desc = svg_escape (layout->subtitle);
  GString *out = g_string_new (NULL);

  g_string_append_printf (out, "<title>%s</title>\n<desc>%s</desc>\n"
                          "<g id=\"text-layer\" fill-opacity=\"0\" "
                          "font-family=\"DejaVu Sans, sans-serif\">\n%s</g>\n",
                          title, desc, layout->text_layer->str);
  append_band_titles (layout, out, width, height);
  return g_string_free (out, FALSE);
}

/* cairo draws SVG text as glyph outlines; an invisible text layer at the
 * same positions keeps the labels searchable and selectable. */
static GBytes *
finish_svg (TsLayout   *layout,
            GByteArray *svg,
            int         width,
            int         height)
{
  g_autofree char *layer = svg_text_layer (layout, width, height);
  GString *out;
  const char *end;

  g_byte_array_append (svg, (const guint8 *) "", 1);
  out = g_string_new ((const char *) svg->data);
  if ((end = g_strrstr (out->str, "</svg>")) != NULL)
    g_string_insert (out, end - out->str, layer);

  return g_string_free_to_bytes (out);
}

double
ts_layout_export_scale (TsLayoutExportFormat  format,
                        int                   width,
                        int                   height,
                        int                  *page_width,
                        int                  *page_height)
{
  int side = MAX (width, height);
  double scale = 1.0;

  if (format == TS_LAYOUT_EXPORT_PDF && side > TS_LAYOUT_PDF_MAX_SIDE)
    scale = (double) TS_LAYOUT_PDF_MAX_SIDE / side;
  if (page_width != NULL)
    *page_width = (int) round (width * scale);
  if (page_height != NULL)
    *page_height = (int) round (height * scale);
  return scale;
}

GBytes *
ts_layout_render (TsLayout              *self,
                  TsLayoutExportFormat   format,
                  int                    width,
                  int                    height,
                  GError               **error)
{
  g_autoptr(TsLayout) layout = NULL;
  g_autoptr(GByteArray) bytes = g_byte_array_new ();
  cairo_surface_t *surface = NULL;
  cairo_status_t status;
  cairo_t *cr;
  double scale;
  int page_width, page_height;

  g_return_val_if_fail (TS_IS_LAYOUT (self), NULL);
  g_return_val_if_fail (width > 0, NULL);
  g_return_val_if_fail (height >= 0, NULL);

  layout = copy_layout (self);
  ts_layout_allocate (layout, width);
  if (height == 0)
    height = (int) ceil (layout->height);
  /* a checkpoint of 230 shards is taller than that at 1,200 pixels:
   * say so, rather than cairo's "invalid value (typically too big)" */
  if (format == TS_LAYOUT_EXPORT_PNG && (width > TS_LAYOUT_IMAGE_MAX_SIDE || height > TS_LAYOUT_IMAGE_MAX_SIDE))
    {
      g_autofree char *w = format_count ((guint64) width);
      g_autofree char *h = format_count ((guint64) height);
      g_autofree char *max = format_count (TS_LAYOUT_IMAGE_MAX_SIDE);

      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   /* Translators: the size of the diagram in pixels, then
                    * the most a PNG image may have on a side */
                   _("The diagram would be %s × %s pixels, and a PNG image can be at most "
                     "%s pixels on a side: export it as SVG or PDF, or at a smaller size"),
                   w, h, max);
      return NULL;
    }

  scale = ts_layout_export_scale (format, width, height, &page_width, &page_height);
  switch (format)
    {
    case TS_LAYOUT_EXPORT_SVG:
      surface = cairo_svg_surface_create_for_stream (write_to_byte_array, bytes, width, height);
      cairo_svg_surface_restrict_to_version (surface, CAIRO_SVG_VERSION_1_1);
      layout->text_layer = g_string_new (NULL);
      break;
    case TS_LAYOUT_EXPORT_PDF:
      /* the page itself within what readers open, the drawing scaled to it */
      surface = cairo_pdf_surface_create_for_stream (write_to_byte_array, bytes, page_width, page_height);
      {
        g_autofree char *title = cairo_safe_text (layout->title);

        cairo_pdf_surface_set_metadata (surface, CAIRO_PDF_METADATA_TITLE, title != NULL ? title : layout->title);
      }
      cairo_pdf_surface_set_metadata (surface, CAIRO_PDF_METADATA_CREATOR, "Tensorscope");
      break;
    case TS_LAYOUT_EXPORT_PNG:
      surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, width, height);
      break;
    default:
      g_assert_not_reached ();
    }

  cr = cairo_create (surface);
  cairo_scale (cr, scale, scale);
  draw_fitted (layout, cr, width, height);
  status = cairo_status (cr);
  cairo_destroy (cr);

  if (status == CAIRO_STATUS_SUCCESS && format == TS_LAYOUT_EXPORT_PNG)
    status = cairo_surface_write_to_png_stream (surface, write_to_byte_array, bytes);
  cairo_surface_finish (surface);
  if (status == CAIRO_STATUS_SUCCESS)
    status = cairo_surface_status (surface);
  cairo_surface_destroy (surface);

  if (!check_cairo (status, error))
    {
      if (layout->text_layer != NULL)
        g_string_free (layout->text_layer, TRUE);
      layout->text_layer = NULL;
      return NULL;
    }

  if (format == TS_LAYOUT_EXPORT_SVG)
    {
      GBytes *result = finish_svg (layout, bytes, width, height);

      g_string_free (layout->text_layer, TRUE);
      layout->text_layer = NULL;
      return result;
    }

  return g_byte_array_free_to_bytes (g_steal_pointer (&bytes));
}

gboolean
ts_layout_export (TsLayout              *self,
                  GFile                 *file,
                  TsLayoutExportFormat   format,
                  int                    width,
                  int                    height,
                  GCancellable          *cancellable,
                  GError               **error)
{
  g_autoptr(GBytes) bytes = NULL;

  g_return_val_if_fail (TS_IS_LAYOUT (self), FALSE);
  g_return_val_if_fail (G_IS_FILE (file), FALSE);

  if (!(bytes = ts_layout_render (self, format, width, height, error)))
    return FALSE;

  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return FALSE;

  return ts_export_replace_contents (file, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes),
                                     cancellable, error);
}

typedef struct
{
  TsModelFile          *model;
  TsConversionPlan     *plan;
  char                 *part_name;   /* the plan's file name */
  GFile                *file;
  TsLayoutExportFormat  format;
  int                   width;
  int                   height;
  gboolean              show_title;
  gboolean              show_legend;
  guint64               view_start;
  guint64               view_end;
  guint64               delay_us;     /* test hook: a pause before the work */
} ExportData;

static void
export_data_free (gpointer data)
{
  ExportData *ed = data;

  g_clear_object (&ed->model);
  g_clear_object (&ed->plan);
  g_free (ed->part_name);
  g_clear_object (&ed->file);
  g_free (ed);
}

static void
export_worker (GTask        *task,
               gpointer      source_object,
               gpointer      task_data,
               GCancellable *cancellable)
{
  ExportData *ed = task_data;
  g_autoptr(TsLayout) layout = ed->plan != NULL
    ? ts_layout_new_for_plan (ed->plan, ed->part_name)
    : ts_layout_new (ed->model);
  g_autoptr(GError) error = NULL;

  layout->show_title = ed->show_title;
  layout->show_legend = ed->show_legend;
  layout->view_start = ed->view_start;
  layout->view_end = ed->view_end;

  _ts_test_pause (ed->delay_us, cancellable);
  if (ts_layout_export (layout, ed->file, ed->format, ed->width, ed->height,
                        cancellable, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, g_steal_pointer (&error));
}

void
ts_layout_export_async (TsLayout              *self,
                        GFile                 *file,
                        TsLayoutExportFormat   format,
                        int                    width,
                        int                    height,
                        GCancellable          *cancellable,
                        GAsyncReadyCallback    callback,
                        gpointer               user_data)
{
  g_autoptr(GTask) task = NULL;
  ExportData *ed;

  g_return_if_fail (TS_IS_LAYOUT (self));
  g_return_if_fail (G_IS_FILE (file));
  g_return_if_fail (width > 0);
  g_return_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable));

  ed = g_new0 (ExportData, 1);
  ed->model = self->model != NULL ? g_object_ref (self->model) : NULL;
  ed->plan = self->plan != NULL ? g_object_ref (self->plan) : NULL;
  ed->part_name = g_strdup (self->part_name);
  ed->file = g_object_ref (file);
  ed->format = format;
  ed->width = width;
  ed->height = height;
  ed->show_title = self->show_title;
  ed->show_legend = self->show_legend;
  ed->view_start = self->view_start;
  ed->view_end = self->view_end;
  /* test hook: an export that takes this long (µs), to act on while it
   * runs */
  ed->delay_us = _ts_test_hook ("TENSORSCOPE_TEST_EXPORT_DELAY_US", 0);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, ts_layout_export_async);
  /* a file written before the cancellation is a success, not an error
   * with the file left behind */
  g_task_set_check_cancellable (task, FALSE);
  g_task_set_task_data (task, ed, export_data_free);
  g_task_run_in_thread (task, export_worker);
}

gboolean
ts_layout_export_finish (TsLayout      *self,
                         GAsyncResult  *result,
                         GError       **error)
{
  g_return_val_if_fail (TS_IS_LAYOUT (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}
