/* ts-layout.h: band geometry of a model file and its cairo drawing
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <cairo.h>
#include <gio/gio.h>

#include "ts-conversion-plan.h"
#include "ts-model-file.h"
#include "ts-region.h"
#include "ts-tensor.h"

G_BEGIN_DECLS

/**
 * TsTensorRole:
 *
 * What a tensor does in the network, derived from its name in either naming
 * convention (Hugging Face `model.layers.N.self_attn.q_proj.weight` or GGUF
 * `blk.N.attn_q.weight`). Used to colour the tensor-data band.
 */
typedef enum
{
  TS_TENSOR_ROLE_EMBEDDING,
  TS_TENSOR_ROLE_ATTENTION,
  TS_TENSOR_ROLE_FEED_FORWARD,
  TS_TENSOR_ROLE_NORM,
  TS_TENSOR_ROLE_OUTPUT,
  TS_TENSOR_ROLE_OTHER,       /* generated (rope_freqs) or unrecognised */
  TS_TENSOR_ROLE_N_ROLES
} TsTensorRole;

/* @out_layer: (out) (optional): the block number, or -1 */
TsTensorRole  ts_tensor_role_from_name   (const char   *name,
                                          gint         *out_layer);
/* translated, e.g. "Feed-forward" */
const char   *ts_layout_get_role_label   (TsTensorRole  role);
/* translated, e.g. "Tensor descriptors" */
const char   *ts_layout_get_kind_label   (TsRegionKind  kind);
/* the fill colour of a role or kind, as 0xRRGGBB */
guint32       ts_layout_get_role_color   (TsTensorRole  role);
guint32       ts_layout_get_kind_color   (TsRegionKind  kind);

typedef enum
{
  TS_LAYOUT_BAND_REGION,  /* one region of a part */
  TS_LAYOUT_BAND_TENSOR,  /* one tensor inside a tensor-data region */
} TsLayoutBandType;

#define TS_LAYOUT_NO_BAND G_MAXUINT

/**
 * TsLayoutBand:
 *
 * One rectangle of the diagram. Byte fields are exact; the geometry is in
 * layout units (1 unit = 1 px at scale 1) and only valid after
 * ts_layout_allocate(). A band whose bytes are outside the view range has
 * @visible FALSE and no geometry.
 */
typedef struct
{
  guint             id;          /* index for ts_layout_get_band() */
  TsLayoutBandType  type;
  TsRegionKind      kind;        /* TS_REGION_TENSOR_DATA for tensor bands */
  TsTensorRole      role;        /* tensor bands only */
  gint              layer;       /* tensor bands: block number or -1 */
  guint             part;        /* strip (part) index */
  guint             parent;      /* tensor bands: the data region's id */
  TsTensor         *tensor;      /* tensor bands only; borrowed */
  guint64           offset;      /* absolute byte offset in the part */
  guint64           length;      /* exact byte length */
  const char       *label;       /* text drawn for the band, or NULL */

  /* geometry */
  gboolean          visible;
  double            x;
  double            y;
  double            width;
  double            height;
} TsLayoutBand;

#define TS_TYPE_LAYOUT (ts_layout_get_type ())

G_DECLARE_FINAL_TYPE (TsLayout, ts_layout, TS, LAYOUT, GObject)

TsLayout           *ts_layout_new               (TsModelFile   *model);
/* the predicted layout of the GGUF file @plan will write, named @file_name
 * (NULL: the converter's default name) */
TsLayout           *ts_layout_new_for_plan      (TsConversionPlan *plan,
                                                 const char       *file_name);
TsModelFile        *ts_layout_get_model         (TsLayout      *self);
/* ts_layout_new() on a worker thread: a 50,000-tensor model takes tens of
 * milliseconds (roles, sorting, the tensor index) */
void                ts_layout_new_async         (TsModelFile         *model,
                                                 GCancellable        *cancellable,
                                                 GAsyncReadyCallback  callback,
                                                 gpointer             user_data);
TsLayout           *ts_layout_new_finish        (GAsyncResult        *result,
                                                 GError             **error);
/* Same bands (same ids), options and view range; the label strings and the
 * tensor index are shared, read-only. Nothing else refers to the copy, so
 * a worker thread may allocate and draw it while @self stays in use. */
TsLayout           *ts_layout_copy              (TsLayout      *self);
/* Moves the geometry of @allocated, a ts_layout_copy() of @self allocated
 * since, into @self, in O(1). Band pointers of @self become invalid. */
void                ts_layout_take_geometry     (TsLayout      *self,
                                                 TsLayout      *allocated);

void                ts_layout_set_show_title    (TsLayout      *self,
                                                 gboolean       show_title);
gboolean            ts_layout_get_show_title    (TsLayout      *self);
/* the title drawn when shown; default: the model's display name */
void                ts_layout_set_title         (TsLayout      *self,
                                                 const char    *title);
const char         *ts_layout_get_title         (TsLayout      *self);
void                ts_layout_set_dark          (TsLayout      *self,
                                                 gboolean       dark);
gboolean            ts_layout_get_dark          (TsLayout      *self);
void                ts_layout_set_show_legend   (TsLayout      *self,
                                                 gboolean       show_legend);
gboolean            ts_layout_get_show_legend   (TsLayout      *self);

/* Zoom: the common byte range [start, end) shown on every strip (offsets
 * within a part). Clamped to [0, largest part size); a range shorter than
 * 16 bytes is widened. */
void                ts_layout_set_view_range    (TsLayout      *self,
                                                 guint64        start,
                                                 guint64        end);
void                ts_layout_get_view_range    (TsLayout      *self,
                                                 guint64       *start,
                                                 guint64       *end);
void                ts_layout_reset_view_range  (TsLayout      *self);
gboolean            ts_layout_is_zoomed         (TsLayout      *self);
/* Multiplies the visible span by 1/@factor around the byte under @x. */
void                ts_layout_zoom_at           (TsLayout      *self,
                                                 double         factor,
                                                 double         x);
guint64             ts_layout_get_max_part_size (TsLayout      *self);

/* Geometry: lays the diagram out for @width units; the height follows. */
void                ts_layout_allocate          (TsLayout      *self,
                                                 double         width);
double              ts_layout_get_width         (TsLayout      *self);
double              ts_layout_get_height        (TsLayout      *self);
/* the horizontal extent of the strips */
void                ts_layout_get_strip_extent  (TsLayout      *self,
                                                 double        *x0,
                                                 double        *x1);
/* the byte offset under @x on the common scale */
guint64             ts_layout_x_to_offset       (TsLayout      *self,
                                                 double         x);

guint               ts_layout_get_n_bands       (TsLayout      *self);
const TsLayoutBand *ts_layout_get_band          (TsLayout      *self,
                                                 guint          id);
/* innermost visible band at (@x, @y), or NULL */
const TsLayoutBand *ts_layout_hit_test          (TsLayout      *self,
                                                 double         x,
                                                 double         y);
guint               ts_layout_find_tensor       (TsLayout      *self,
                                                 TsTensor      *tensor);
/* "Tensor data — model.layers.0…\nbytes 8–29,408 (29,400 bytes, 0.1 %)" */
char               *ts_layout_dup_band_description (TsLayout           *self,
                                                    const TsLayoutBand *band);

/* Draws the allocated diagram at the origin of @cr. */
void                ts_layout_draw              (TsLayout      *self,
                                                 cairo_t       *cr);

typedef enum
{
  TS_LAYOUT_EXPORT_SVG,
  TS_LAYOUT_EXPORT_PDF,
  TS_LAYOUT_EXPORT_PNG,
} TsLayoutExportFormat;

/* from a file name's extension (case-insensitive); FALSE if unknown */
gboolean            ts_layout_export_format_from_name (const char           *name,
                                                       TsLayoutExportFormat *format);

/* The most a cairo image surface may have on a side, in pixels: a PNG
 * export larger than that is refused */
#define TS_LAYOUT_IMAGE_MAX_SIDE 32767
/* The most a PDF page may have on a side, in points (200 inches): the
 * limit of PDF 1.x readers (Acrobat will not open a larger page) */
#define TS_LAYOUT_PDF_MAX_SIDE 14400

/* The factor (at most 1) by which a @width × @height diagram is scaled
 * down on export to fit the format's page: for a PDF whose longer side is
 * over TS_LAYOUT_PDF_MAX_SIDE points (a checkpoint of a hundred shards or
 * more), else 1. A vector page loses nothing by it. @page_width and
 * @page_height (optional) get the page's size. */
double              ts_layout_export_scale      (TsLayoutExportFormat   format,
                                                 int                    width,
                                                 int                    height,
                                                 int                   *page_width,
                                                 int                   *page_height);

/* Renders to memory. @width is required (pixels for PNG, points for SVG
 * and PDF); @height 0 means the natural height for @width. The SVG has a
 * searchable text layer with every label. A PDF page larger than
 * TS_LAYOUT_PDF_MAX_SIDE is scaled down to fit (ts_layout_export_scale()). */
GBytes             *ts_layout_render            (TsLayout              *self,
                                                 TsLayoutExportFormat   format,
                                                 int                    width,
                                                 int                    height,
                                                 GError               **error);
gboolean            ts_layout_export            (TsLayout              *self,
                                                 GFile                 *file,
                                                 TsLayoutExportFormat   format,
                                                 int                    width,
                                                 int                    height,
                                                 GCancellable          *cancellable,
                                                 GError               **error);
/* Runs on a worker thread with a private copy of the layout (same model,
 * view range and options), so @self may keep changing meanwhile. */
void                ts_layout_export_async      (TsLayout              *self,
                                                 GFile                 *file,
                                                 TsLayoutExportFormat   format,
                                                 int                    width,
                                                 int                    height,
                                                 GCancellable          *cancellable,
                                                 GAsyncReadyCallback    callback,
                                                 gpointer               user_data);
gboolean            ts_layout_export_finish     (TsLayout              *self,
                                                 GAsyncResult          *result,
                                                 GError               **error);

G_END_DECLS
