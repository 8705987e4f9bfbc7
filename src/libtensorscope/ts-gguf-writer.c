/* ts-gguf-writer.c
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <inttypes.h>

#include <glib/gi18n-lib.h>

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ts-error.h"
#include "ts-gguf-writer.h"
#include "ts-side-file-private.h"

typedef struct
{
  char    *name;
  guint    n_dims;
  guint64  dims[4];
  TsDType  dtype;
  guint64  offset;
  guint64  size;
} WriterTensor;

struct _TsGgufWriter
{
  TsGgufMetadata *metadata;   /* borrowed; outlives the writer */
  guint32         alignment;
  GArray         *tensors;
  guint64         data_size;  /* padded */
  guint64         info_size;

  GFile          *target;
  char           *temp_path;
  int             fd;
  gboolean        overwrite;
  guint64         written;
  guint64         fail_after;
  gboolean        refuse_direct;
  gboolean        direct;     /* atomic */
  gboolean        synced;
  gboolean        keep_replaced;
  char           *replaced_path; /* the file the commit replaced, kept aside */
  gboolean        committed;
  gboolean        fail_commit;
  gboolean        no_links;
};

static void
writer_tensor_clear (gpointer data)
{
  g_free (((WriterTensor *) data)->name);
}

TsGgufWriter *
ts_gguf_writer_new (TsGgufMetadata *metadata,
                    guint32         alignment)
{
  TsGgufWriter *self = g_new0 (TsGgufWriter, 1);

  g_return_val_if_fail (alignment > 0 && (alignment & (alignment - 1)) == 0, NULL);

  self->metadata = metadata;
  self->alignment = alignment;
  self->tensors = g_array_new (FALSE, TRUE, sizeof (WriterTensor));
  g_array_set_clear_func (self->tensors, writer_tensor_clear);
  self->fd = -1;
  self->fail_after = G_MAXUINT64;
  return self;
}

void
ts_gguf_writer_free (TsGgufWriter *self)
{
  if (self == NULL)
    return;
  ts_gguf_writer_abort (self);
  g_free (self->replaced_path);
  g_array_unref (self->tensors);
  g_clear_object (&self->target);
  g_free (self);
}

static guint64
align_up (guint64 v,
          guint64 alignment)
{
  return (v + alignment - 1) / alignment * alignment;
}

guint64
ts_gguf_writer_add_tensor (TsGgufWriter  *self,
                           const char    *name,
                           guint          n_dims,
                           const guint64 *dims,
                           TsDType        dtype,
                           guint64        size)
{
  WriterTensor t = { 0 };

  g_return_val_if_fail (n_dims <= 4, 0);

  t.name = g_strdup (name);
  t.n_dims = n_dims;
  memcpy (t.dims, dims, n_dims * sizeof (guint64));
  t.dtype = dtype;
  t.offset = self->data_size;
  t.size = size;
  g_array_append_val (self->tensors, t);
  self->data_size = align_up (self->data_size + size, self->alignment);
  self->info_size += 8 + strlen (name) + 4 + 8 * n_dims + 4 + 8;
  return t.offset;
}

guint64
ts_gguf_writer_get_metadata_end (TsGgufWriter *self)
{
  return 24 + ts_gguf_metadata_get_size (self->metadata);
}

guint64
ts_gguf_writer_get_data_offset (TsGgufWriter *self)
{
  return align_up (ts_gguf_writer_get_metadata_end (self) + self->info_size, self->alignment);
}

guint64
ts_gguf_writer_get_total_size (TsGgufWriter *self)
{
  return ts_gguf_writer_get_data_offset (self) + self->data_size;
}

static void
put_le (GByteArray *out,
        guint64     v,
        guint       n)
{
  guint8 b[8];

  for (guint i = 0; i < n; i++)
    b[i] = (guint8) (v >> (8 * i));
  g_byte_array_append (out, b, n);
}

GBytes *
ts_gguf_writer_build_header (TsGgufWriter *self)
{
  g_autoptr(GBytes) md = ts_gguf_metadata_get_bytes (self->metadata);
  GByteArray *out = g_byte_array_sized_new ((guint) ts_gguf_writer_get_data_offset (self));
  guint64 data_offset = ts_gguf_writer_get_data_offset (self);

  g_byte_array_append (out, (const guint8 *) "GGUF", 4);
  put_le (out, 3, 4);
  put_le (out, self->tensors->len, 8);
  put_le (out, ts_gguf_metadata_get_n_entries (self->metadata), 8);
  g_byte_array_append (out, g_bytes_get_data (md, NULL), (guint) g_bytes_get_size (md));
  for (guint i = 0; i < self->tensors->len; i++)
    {
      WriterTensor *t = &g_array_index (self->tensors, WriterTensor, i);

      put_le (out, strlen (t->name), 8);
      g_byte_array_append (out, (const guint8 *) t->name, (guint) strlen (t->name));
      put_le (out, t->n_dims, 4);
      for (guint d = 0; d < t->n_dims; d++)
        put_le (out, t->dims[d], 8);
      put_le (out, (guint64) ts_dtype_get_info (t->dtype)->ggml_type, 4);
      put_le (out, t->offset, 8);
    }
  while (out->len < data_offset)
    put_le (out, 0, 1);
  return g_byte_array_free_to_bytes (out);
}

gboolean
ts_gguf_writer_open (TsGgufWriter  *self,
                     GFile         *link_or_target,
                     gboolean       overwrite,
                     GError       **error)
{
  g_autoptr(GFile) target = _ts_output_file_resolve (link_or_target);
  g_autoptr(GFile) dir = g_file_get_parent (target);
  g_autofree char *dir_path = dir ? g_file_get_path (dir) : NULL;
  g_autofree char *base = g_file_get_basename (target);
  g_autofree char *target_path = g_file_get_path (target);
  g_autofree char *shown = ts_file_display_name (target);
  g_autofree char *shown_dir = dir ? ts_file_display_name (dir) : NULL;
  g_autofree char *shown_base = ts_file_display_basename (target);
  g_autofree char *placeholder = NULL;
  int errsv;

  g_return_val_if_fail (self->fd < 0, FALSE);

  if (dir_path == NULL || target_path == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   _("%s: the output must be a local file"), shown_base);
      return FALSE;
    }
  if (!overwrite && g_file_test (target_path, G_FILE_TEST_EXISTS))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS,
                   _("%s already exists (use --force to replace it)"), shown);
      return FALSE;
    }
  /* six 'X's: the part g_mkstemp_full() replaces with a unique name */
  placeholder = g_strnfill (6, 'X');
  self->temp_path = g_strdup_printf ("%s/.%s.%s.part", dir_path, base, placeholder);
  self->fd = g_mkstemp_full (self->temp_path, O_RDWR | O_CLOEXEC, 0644);
  if (self->fd < 0)
    {
      errsv = errno;
      g_clear_pointer (&self->temp_path, g_free);
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv),
                   _("cannot create a file in %s: %s"), shown_dir, g_strerror (errsv));
      return FALSE;
    }
  /* Reserve the space now: a disk that fills up meanwhile fails here,
   * before any work, and the file is laid out in one piece. File systems
   * without fallocate() simply allocate as the data comes. */
  if (fallocate (self->fd, 0, 0, (off_t) ts_gguf_writer_get_total_size (self)) != 0 &&
      (errno == ENOSPC || errno == EDQUOT || errno == EFBIG))
    {
      errsv = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv),
                   _("cannot reserve %" PRIu64 " bytes for %s in %s: %s"),
                   ts_gguf_writer_get_total_size (self), shown_base, shown_dir, g_strerror (errsv));
      g_close (self->fd, NULL);
      self->fd = -1;
      g_unlink (self->temp_path);
      g_clear_pointer (&self->temp_path, g_free);
      return FALSE;
    }
  self->target = g_object_ref (target);
  self->overwrite = overwrite;
  return TRUE;
}

int
ts_gguf_writer_get_fd (TsGgufWriter *self)
{
  return self->fd;
}

/* TRUE when the file system took O_DIRECT. A file system may still refuse
 * the first write (EINVAL): ts_gguf_writer_pwrite() then turns it off and
 * writes through the page cache. */
gboolean
ts_gguf_writer_use_direct_io (TsGgufWriter *self)
{
  int flags;

  g_return_val_if_fail (self->fd >= 0, FALSE);

  flags = fcntl (self->fd, F_GETFL);
  if (flags >= 0 && fcntl (self->fd, F_SETFL, flags | O_DIRECT) == 0)
    __atomic_store_n (&self->direct, TRUE, __ATOMIC_RELAXED);
  return ts_gguf_writer_get_direct_io (self);
}

gboolean
ts_gguf_writer_get_direct_io (TsGgufWriter *self)
{
  return __atomic_load_n (&self->direct, __ATOMIC_RELAXED);
}

static void
stop_direct_io (TsGgufWriter *self)
{
  int flags = fcntl (self->fd, F_GETFL);

  if (flags >= 0)
    fcntl (self->fd, F_SETFL, flags & ~O_DIRECT);
  __atomic_store_n (&self->direct, FALSE, __ATOMIC_RELAXED);
}

const char *
ts_gguf_writer_get_temp_path (TsGgufWriter *self)
{
  return self->temp_path;
}

void
_ts_gguf_writer_set_fail_after (TsGgufWriter *self,
                                guint64       bytes)
{
  self->fail_after = bytes;
}

/* a file system that takes O_DIRECT in fcntl() and then refuses the writes */
void
_ts_gguf_writer_set_refuse_direct_io (TsGgufWriter *self,
                                      gboolean      refuse)
{
  self->refuse_direct = refuse;
}

gboolean
ts_gguf_writer_pwrite (TsGgufWriter  *self,
                       const void    *data,
                       gsize          len,
                       guint64        offset,
                       GError       **error)
{
  const guint8 *p = data;

  while (len > 0)
    {
      /* the mode this write goes out in: another thread may turn O_DIRECT
       * off while it is in flight, and then this one fails the same way */
      gboolean was_direct = ts_gguf_writer_get_direct_io (self);
      ssize_t n;

      if (__atomic_load_n (&self->written, __ATOMIC_RELAXED) + len > self->fail_after)
        {
          errno = ENOSPC;
          n = -1;
        }
      else if (was_direct && self->refuse_direct)
        {
          errno = EINVAL;
          n = -1;
        }
      else
        n = pwrite (self->fd, p, len, (off_t) offset);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0 && errno == EINVAL && was_direct)
        {
          /* the file system (or this write's alignment) does not do
           * O_DIRECT after all: the page cache always does */
          stop_direct_io (self);
          continue;
        }
      if (n <= 0)
        {
          int errsv = n < 0 ? errno : ENOSPC;
          g_autofree char *shown = g_filename_display_name (self->temp_path);

          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv),
                       _("writing %s failed at byte %" PRIu64 ": %s"),
                       shown, offset, g_strerror (errsv));
          return FALSE;
        }
      __atomic_fetch_add (&self->written, (guint64) n, __ATOMIC_RELAXED);
      p += n;
      len -= n;
      offset += n;
    }
  return TRUE;
}

/* makes the new directory entry itself durable */
static void
sync_parent_directory (const char *path)
{
  g_autofree char *dir = g_path_get_dirname (path);
  int fd = g_open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);

  if (fd >= 0)
    {
      fsync (fd);
      g_close (fd, NULL);
    }
}

gboolean
ts_gguf_writer_sync (TsGgufWriter  *self,
                     GError       **error)
{
  int errsv;

  g_return_val_if_fail (self->fd >= 0, FALSE);

  if (self->synced)
    return TRUE;
  if (ftruncate (self->fd, (off_t) ts_gguf_writer_get_total_size (self)) != 0 ||
      fsync (self->fd) != 0)
    {
      g_autofree char *shown = g_filename_display_name (self->temp_path);

      errsv = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv),
                   _("finishing %s failed: %s"), shown, g_strerror (errsv));
      return FALSE;
    }
  self->synced = TRUE;
  return TRUE;
}

/* link(), or as on a file system without hard links (FAT, exFAT: EPERM)
 * for the test hook */
static int
writer_link (TsGgufWriter *self,
             const char   *from,
             const char   *to)
{
  if (self->no_links)
    {
      errno = EPERM;
      return -1;
    }
  return link (from, to);
}

/* rename() that fails where something is at @to already (a file that
 * appeared since it was looked for): the file system's own, or the same
 * through a link; on one with neither (an old kernel's FAT), a rename
 * where nothing was a moment before */
static int
rename_noreplace (TsGgufWriter *self,
                  const char   *from,
                  const char   *to)
{
  GStatBuf st;

  if (!self->no_links && renameat2 (AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0)
    return 0;
  if (!self->no_links && errno != EINVAL && errno != ENOSYS)
    return -1;
  if (writer_link (self, from, to) == 0)
    {
      g_unlink (from);
      return 0;
    }
  if (errno != EPERM && errno != EOPNOTSUPP && errno != ENOSYS)
    return -1;
  if (g_lstat (to, &st) == 0)
    {
      errno = EEXIST;
      return -1;
    }
  return rename (from, to);
}

/* With keep_replaced: the target's name holds the old file or the new one
 * at every moment (a crash in between leaves an extra hidden link, never
 * no file): the old file gets a second name beside it, then the new one
 * takes its place. A file system without hard links moves it aside
 * instead. */
static gboolean
keep_replaced_aside (TsGgufWriter  *self,
                     const char    *target_path,
                     GError       **error)
{
  g_autofree char *stem = g_strndup (self->temp_path, strlen (self->temp_path) - strlen (".part"));
  g_autofree char *shown = NULL;
  int errsv;

  self->replaced_path = g_strconcat (stem, ".old", NULL);
  if (writer_link (self, target_path, self->replaced_path) == 0 ||
      rename (target_path, self->replaced_path) == 0)
    return TRUE;
  errsv = errno;
  shown = g_filename_display_name (target_path);
  g_clear_pointer (&self->replaced_path, g_free);
  g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv),
               _("cannot move the result to %s: %s"), shown, g_strerror (errsv));
  return FALSE;
}

gboolean
ts_gguf_writer_commit (TsGgufWriter  *self,
                       GError       **error)
{
  g_autofree char *target_path = g_file_get_path (self->target);
  GStatBuf st;
  gboolean replacing;
  int status, errsv;

  g_return_val_if_fail (self->fd >= 0, FALSE);

  if (!ts_gguf_writer_sync (self, error))
    return FALSE;
  replacing = self->overwrite && g_lstat (target_path, &st) == 0 && !S_ISDIR (st.st_mode);
  if (replacing && self->keep_replaced && !keep_replaced_aside (self, target_path, error))
    return FALSE;
  if (self->fail_commit)
    {
      errno = EIO;
      status = -1;
    }
  else if (replacing)
    status = rename (self->temp_path, target_path);
  else if (self->overwrite)
    /* nothing was there: nor is anything replaced that appeared since */
    status = self->keep_replaced ? rename_noreplace (self, self->temp_path, target_path)
                                 : rename (self->temp_path, target_path);
  else
    /* without --force, a file that appeared meanwhile is not replaced */
    status = rename_noreplace (self, self->temp_path, target_path);
  if (status != 0)
    {
      g_autofree char *shown = g_filename_display_name (target_path);

      errsv = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv),
                   _("cannot move the result to %s: %s"), shown, g_strerror (errsv));
      /* the old file back under its name (a second name dropped, or the
       * file moved back) */
      if (self->replaced_path != NULL &&
          (g_lstat (target_path, &st) == 0 ? g_unlink (self->replaced_path)
                                           : rename (self->replaced_path, target_path)) == 0)
        g_clear_pointer (&self->replaced_path, g_free);
      if (self->replaced_path != NULL)
        g_prefix_error (error, _("the earlier file at %s is kept as %s: "), target_path, self->replaced_path);
      return FALSE;
    }
  self->committed = TRUE;
  sync_parent_directory (target_path);
  g_close (self->fd, NULL);
  self->fd = -1;
  g_clear_pointer (&self->temp_path, g_free);
  return TRUE;
}

void
ts_gguf_writer_keep_replaced (TsGgufWriter *self)
{
  self->keep_replaced = TRUE;
}

char *
ts_gguf_writer_undo_commit (TsGgufWriter *self)
{
  g_autofree char *target_path = NULL;

  if (!self->committed)
    return NULL;
  target_path = g_file_get_path (self->target);
  self->committed = FALSE;
  if (self->replaced_path == NULL)
    g_unlink (target_path);
  else if (rename (self->replaced_path, target_path) == 0)
    g_clear_pointer (&self->replaced_path, g_free);
  else
    return g_steal_pointer (&self->replaced_path);
  sync_parent_directory (target_path);
  return NULL;
}

void
ts_gguf_writer_drop_replaced (TsGgufWriter *self)
{
  if (self->replaced_path != NULL)
    {
      g_unlink (self->replaced_path);
      g_clear_pointer (&self->replaced_path, g_free);
    }
}

void
_ts_gguf_writer_set_no_links (TsGgufWriter *self,
                              gboolean      no_links)
{
  self->no_links = no_links;
}

void
_ts_gguf_writer_set_fail_commit (TsGgufWriter *self,
                                 gboolean      fail)
{
  self->fail_commit = fail;
}

void
ts_gguf_writer_abort (TsGgufWriter *self)
{
  if (self->fd >= 0)
    {
      g_close (self->fd, NULL);
      self->fd = -1;
    }
  if (self->temp_path != NULL)
    {
      g_unlink (self->temp_path);
      g_clear_pointer (&self->temp_path, g_free);
    }
}
