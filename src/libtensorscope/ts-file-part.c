/* ts-file-part.c
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <fcntl.h>

#include <glib/gi18n-lib.h>

#include <errno.h>
#include <glib/gstdio.h>
#include <sys/stat.h>

#include "ts-array-model.h"
#include "ts-side-file-private.h"
#include "ts-error.h"
#include "ts-file-part.h"
#include "ts-map-guard-private.h"
#include "ts-model-file-private.h"

struct _TsFilePart
{
  GObject      parent_instance;
  GFile       *file;
  char        *name;
  guint        index;
  GMappedFile *mapping;
  guint64      size;
  guint64      data_offset;
  TsArrayModel *regions;
  int          guard;      /* _ts_map_guard_add() handle of the mapping */
  guint64      dev, ino;   /* the mapped file, when _ts_file_part_open() mapped it */
  /* the file _ts_file_part_open() read, as it was then */
  gboolean     stated;
  guint64      stat_dev, stat_ino, stat_size;
  gint64       stat_mtime_ns;
  gint64       stat_ctime_ns;   /* which no program can set back */
};

G_DEFINE_FINAL_TYPE (TsFilePart, ts_file_part, G_TYPE_OBJECT)

static void
ts_file_part_finalize (GObject *object)
{
  TsFilePart *self = (TsFilePart *)object;

  g_clear_object (&self->file);
  g_clear_pointer (&self->name, g_free);
  /* the guard goes before the mapping can */
  _ts_map_guard_remove (self->guard);
  g_clear_pointer (&self->mapping, g_mapped_file_unref);
  g_clear_object (&self->regions);

  G_OBJECT_CLASS (ts_file_part_parent_class)->finalize (object);
}

static void
ts_file_part_class_init (TsFilePartClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ts_file_part_finalize;
}

static void
ts_file_part_init (TsFilePart *self)
{
  self->regions = _ts_array_model_new (TS_TYPE_REGION);
  self->guard = -1;
}

TsFilePart *
_ts_file_part_new (GFile       *file,
                   guint        index,
                   GMappedFile *mapping,
                   guint64      size)
{
  TsFilePart *self = g_object_new (TS_TYPE_FILE_PART, NULL);

  self->file = g_object_ref (file);
  self->name = ts_file_display_basename (file);
  self->index = index;
  self->mapping = mapping ? g_mapped_file_ref (mapping) : NULL;
  self->size = size;
  if (mapping != NULL && g_mapped_file_get_length (mapping) > 0)
    self->guard = _ts_map_guard_add (g_mapped_file_get_contents (mapping),
                                     g_mapped_file_get_length (mapping));
  return self;
}

static gint64
mtime_ns (const struct stat *st)
{
  return (gint64) st->st_mtim.tv_sec * G_GINT64_CONSTANT (1000000000) + st->st_mtim.tv_nsec;
}

static gint64
ctime_ns (const struct stat *st)
{
  return (gint64) st->st_ctim.tv_sec * G_GINT64_CONSTANT (1000000000) + st->st_ctim.tv_nsec;
}

static void
remember_stat (TsFilePart        *self,
               const struct stat *st)
{
  self->stated = TRUE;
  self->stat_dev = (guint64) st->st_dev;
  self->stat_ino = (guint64) st->st_ino;
  self->stat_size = (guint64) st->st_size;
  self->stat_mtime_ns = mtime_ns (st);
  self->stat_ctime_ns = ctime_ns (st);
}

TsFilePart *
_ts_file_part_open (GFile   *file,
                    guint    index,
                    GError **error)
{
  g_autofree char *path = g_file_get_path (file);
  g_autofree char *name = ts_file_display_basename (file);
  g_autoptr(GMappedFile) mapping = NULL;
  g_autoptr(GError) local_error = NULL;
  struct stat st;
  int fd;

  if (path == NULL)
    {
      g_set_error (error, TS_FORMAT_ERROR, TS_FORMAT_ERROR_IO,
                   _("%s: not a local file"), name);
      return NULL;
    }
  /* checked and mapped through one descriptor, opened without blocking */
  fd = _ts_open_regular (path, &st, &local_error);
  if (fd < 0)
    {
      g_set_error (error, TS_FORMAT_ERROR, TS_FORMAT_ERROR_IO,
                   "%s: %s", name, local_error->message);
      return NULL;
    }
  if (st.st_size == 0)
    {
      TsFilePart *self = _ts_file_part_new (file, index, NULL, 0);

      g_close (fd, NULL);
      remember_stat (self, &st);
      return self;
    }
  mapping = g_mapped_file_new_from_fd (fd, FALSE, &local_error);
  g_close (fd, NULL);
  if (mapping == NULL)
    {
      g_set_error (error, TS_FORMAT_ERROR, TS_FORMAT_ERROR_IO,
                   "%s: %s", name, local_error->message);
      return NULL;
    }
  {
    TsFilePart *self = _ts_file_part_new (file, index, mapping,
                                          g_mapped_file_get_length (mapping));

    /* unguarded, a file cut short while open would kill the process */
    if (self->guard < 0)
      {
        g_autofree char *max = _ts_format_count (TS_MAP_GUARD_MAX);

        g_object_unref (self);
        g_set_error (error, TS_FORMAT_ERROR, TS_FORMAT_ERROR_COUNT_TOO_LARGE,
                     _("%s: more than %s files are open at once, the most Tensorscope "
                       "reads (a checkpoint or split set of fewer files, or fewer models "
                       "open)"), name, max);
        return NULL;
      }
    self->dev = (guint64) st.st_dev;
    self->ino = (guint64) st.st_ino;
    remember_stat (self, &st);
    return self;
  }
}

void
_ts_file_part_add_region (TsFilePart   *self,
                          TsRegionKind  kind,
                          guint64       offset,
                          guint64       length)
{
  g_autoptr(TsRegion) region = ts_region_new (kind, offset, length);

  _ts_array_model_append (self->regions, region);
}

void
_ts_file_part_set_data_offset (TsFilePart *self,
                               guint64     offset)
{
  self->data_offset = offset;
}

void
_ts_file_part_set_index (TsFilePart *self,
                         guint       index)
{
  self->index = index;
}

GFile *
ts_file_part_get_file (TsFilePart *self)
{
  g_return_val_if_fail (TS_IS_FILE_PART (self), NULL);
  return self->file;
}

const char *
ts_file_part_get_name (TsFilePart *self)
{
  g_return_val_if_fail (TS_IS_FILE_PART (self), NULL);
  return self->name;
}

guint
ts_file_part_get_index (TsFilePart *self)
{
  g_return_val_if_fail (TS_IS_FILE_PART (self), 0);
  return self->index;
}

guint64
ts_file_part_get_size (TsFilePart *self)
{
  g_return_val_if_fail (TS_IS_FILE_PART (self), 0);
  return self->size;
}

guint64
ts_file_part_get_data_offset (TsFilePart *self)
{
  g_return_val_if_fail (TS_IS_FILE_PART (self), 0);
  return self->data_offset;
}

/**
 * ts_file_part_get_regions:
 *
 * Returns: (transfer none): a #GListModel of #TsRegion tiling the file
 */
GListModel *
ts_file_part_get_regions (TsFilePart *self)
{
  g_return_val_if_fail (TS_IS_FILE_PART (self), NULL);
  return G_LIST_MODEL (self->regions);
}

/**
 * ts_file_part_get_contents:
 *
 * Returns: the mapped bytes of the file (ts_file_part_get_size() of them),
 *   or %NULL for an empty file
 */
const guint8 *
ts_file_part_get_contents (TsFilePart *self)
{
  g_return_val_if_fail (TS_IS_FILE_PART (self), NULL);
  return self->mapping ? (const guint8 *) g_mapped_file_get_contents (self->mapping) : NULL;
}

GMappedFile *
ts_file_part_get_mapping (TsFilePart *self)
{
  g_return_val_if_fail (TS_IS_FILE_PART (self), NULL);
  return self->mapping;
}

/**
 * ts_file_part_changed_on_disk:
 *
 * Returns: %TRUE if the file at the part's path is no longer the one that
 *   was read: gone, another file in its place, or written since (another
 *   size, modification time or change time: a copy that keeps the size
 *   and sets the old modification time back still changes the last). %FALSE for a part not read from a file.
 *   (A file monitor's event may come late, for a change made before the
 *   file was opened: this says whether there is anything to tell.)
 */
gboolean
ts_file_part_changed_on_disk (TsFilePart *self)
{
  g_autofree char *path = NULL;
  struct stat st;

  g_return_val_if_fail (TS_IS_FILE_PART (self), FALSE);

  if (!self->stated)
    return FALSE;
  path = g_file_get_path (self->file);
  if (path == NULL || stat (path, &st) != 0)
    return TRUE;
  return (guint64) st.st_dev != self->stat_dev || (guint64) st.st_ino != self->stat_ino ||
         (guint64) st.st_size != self->stat_size || mtime_ns (&st) != self->stat_mtime_ns ||
         ctime_ns (&st) != self->stat_ctime_ns;
}

/**
 * ts_file_part_is_damaged:
 *
 * Returns: %TRUE if the file was cut short on disk while it was mapped:
 *   a read past its new end saw zeros instead of its bytes (or it is
 *   shorter on disk now than when it was opened)
 */
gboolean
ts_file_part_is_damaged (TsFilePart *self)
{
  g_autofree char *path = NULL;
  GStatBuf st;

  g_return_val_if_fail (TS_IS_FILE_PART (self), FALSE);

  if (_ts_map_guard_is_damaged (self->guard))
    return TRUE;
  /* a cut inside the last page reads zeros without a fault */
  path = g_file_get_path (self->file);
  return self->mapping != NULL && self->ino != 0 && path != NULL && g_stat (path, &st) == 0 &&
         (guint64) st.st_dev == self->dev && (guint64) st.st_ino == self->ino &&
         (guint64) st.st_size < g_mapped_file_get_length (self->mapping);
}
