/* ts-converter.c
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The work is cut into chunks of whole rows (whole heads for permuted
 * tensors) that worker threads convert independently and write at their
 * final offsets with pwrite(), so memory stays bounded by the chunk size
 * whatever the model size. Tensors whose bytes do not change are copied
 * in the kernel with copy_file_range().
 */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "ts-converter.h"

#define CHUNK_BYTES (4 * 1024 * 1024)

typedef struct
{
  guint   tensor;      /* index in the plan */
  guint64 row_start;
  guint64 row_end;
} Chunk;

typedef struct
{
  TsPlanTensor *pt;      /* borrowed from the plan */
  guint64       rows;
  guint64       cols;    /* elements per row */
  guint64       rows_per_head;
  guint64       out_offset;  /* absolute */
  int           src_fd;
  guint64       src_offset;  /* absolute in its shard */
} TensorJob;

struct _TsConverter
{
  GObject           parent_instance;
  TsConversionPlan *plan;
  guint             jobs;
  guint64           fail_after;

  /* progress, written by workers */
  guint64           bytes_done;
  guint64           bytes_total;
  guint             current_tensor;
  GMutex            progress_lock;
  guint             progress_idle;
  GMainContext     *progress_context;
};

G_DEFINE_FINAL_TYPE (TsConverter, ts_converter, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_PROGRESS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
ts_converter_finalize (GObject *object)
{
  TsConverter *self = (TsConverter *)object;

  g_clear_object (&self->plan);
  g_mutex_clear (&self->progress_lock);
  g_clear_pointer (&self->progress_context, g_main_context_unref);

  G_OBJECT_CLASS (ts_converter_parent_class)->finalize (object);
}

static void
ts_converter_get_property (GObject    *object,
                           guint       prop_id,
                           GValue     *value,
                           GParamSpec *pspec)
{
  TsConverter *self = TS_CONVERTER (object);

  switch (prop_id)
    {
    case PROP_PROGRESS:
      g_value_set_double (value, ts_converter_get_fraction (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ts_converter_class_init (TsConverterClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = ts_converter_finalize;
  object_class->get_property = ts_converter_get_property;

  properties[PROP_PROGRESS] =
    g_param_spec_double ("progress", NULL, NULL, 0.0, 1.0, 0.0,
                         (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
ts_converter_init (TsConverter *self)
{
  g_mutex_init (&self->progress_lock);
  self->fail_after = G_MAXUINT64;
}

TsConverter *
ts_converter_new (TsConversionPlan *plan)
{
  TsConverter *self;

  g_return_val_if_fail (TS_IS_CONVERSION_PLAN (plan), NULL);

  self = g_object_new (TS_TYPE_CONVERTER, NULL);
  self->plan = g_object_ref (plan);
  return self;
}

void
ts_converter_set_jobs (TsConverter *self,
                       guint        jobs)
{
  g_return_if_fail (TS_IS_CONVERTER (self));
  self->jobs = jobs;
}

void
_ts_converter_set_fail_after (TsConverter *self,
                              guint64      bytes)
{
  self->fail_after = bytes;
}

guint64
ts_converter_get_bytes_done (TsConverter *self)
{
  return __atomic_load_n (&self->bytes_done, __ATOMIC_RELAXED);
}

guint64
ts_converter_get_bytes_total (TsConverter *self)
{
  return self->bytes_total;
}

double
ts_converter_get_fraction (TsConverter *self)
{
  if (self->bytes_total == 0)
    return 0.0;
  return MIN (1.0, (double) ts_converter_get_bytes_done (self) / (double) self->bytes_total);
}

char *
ts_converter_dup_current_tensor (TsConverter *self)
{
  guint index = __atomic_load_n (&self->current_tensor, __ATOMIC_RELAXED);
  g_autoptr(TsPlanTensor) pt = g_list_model_get_item (ts_conversion_plan_get_tensors (self->plan), index);

  return pt ? g_strdup (ts_plan_tensor_get_name (pt)) : NULL;
}

static gboolean
notify_progress_idle (gpointer data)
{
  TsConverter *self = data;

  g_mutex_lock (&self->progress_lock);
  self->progress_idle = 0;
  g_mutex_unlock (&self->progress_lock);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PROGRESS]);
  return G_SOURCE_REMOVE;
}

/* At most one pending idle, and at most one every 100 ms. */
static void
report_progress (TsConverter *self,
                 guint        tensor,
                 guint64      bytes)
{
  __atomic_fetch_add (&self->bytes_done, bytes, __ATOMIC_RELAXED);
  __atomic_store_n (&self->current_tensor, tensor, __ATOMIC_RELAXED);
  if (self->progress_context == NULL)
    return;
  g_mutex_lock (&self->progress_lock);
  if (self->progress_idle == 0)
    {
      GSource *source = g_timeout_source_new (100);

      g_source_set_callback (source, notify_progress_idle, g_object_ref (self), g_object_unref);
      g_source_set_static_name (source, "[tensorscope] conversion progress");
      self->progress_idle = g_source_attach (source, self->progress_context);
      g_source_unref (source);
    }
  g_mutex_unlock (&self->progress_lock);
}

/* ---- numeric kernels ---- */

static void
put_u16 (guint8  *out,
         guint16  h)
{
  out[0] = h & 0xff;
  out[1] = h >> 8;
}

static void
encode_row (TsDType       dtype,
            const float  *x,
            guint8       *out,
            gsize         n)
{
  if (dtype == TS_DTYPE_F32)
    memcpy (out, x, n * sizeof (float));
  else if (dtype == TS_DTYPE_F16)
    for (gsize i = 0; i < n; i++)
      put_u16 (out + 2 * i, ts_f32_to_f16 (x[i]));
  else if (dtype == TS_DTYPE_BF16)
    for (gsize i = 0; i < n; i++)
      put_u16 (out + 2 * i, ts_f32_to_bf16 (x[i]));
  else if (dtype == TS_DTYPE_Q8_0)
    ts_quantize_q8_0_row (x, out, n);
  else
    g_assert_not_reached ();
}

/* A BF16 signalling NaN gains the quiet bit on the converter's round trip
 * through float32; every other BF16 value comes back unchanged. */
static inline gboolean
bf16_is_signalling_nan (guint16 h)
{
  return (h & 0x7fc0) == 0x7f80 && (h & 0x003f) != 0;
}

/* Four values at a time: a lane whose exponent is all ones with the quiet
 * bit clear makes its masked lane zero, which the classic zero-lane test
 * finds (it may flag a neighbour too; the exact test decides). */
static gboolean
bf16_has_signalling_nan (const guint8 *p,
                         gsize         n)
{
  const guint64 lanes = G_GUINT64_CONSTANT (0x0001000100010001);
  const guint64 high = G_GUINT64_CONSTANT (0x8000800080008000);
  gsize i = 0;

  for (; i + 4 <= n; i += 4)
    {
      guint64 x, e;

      memcpy (&x, p + 2 * i, 8);
      e = (x & (lanes * 0x7fc0)) ^ (lanes * 0x7f80);
      if (((e - lanes) & ~e & high) != 0)
        for (guint k = 0; k < 4; k++)
          if (bf16_is_signalling_nan ((guint16) (x >> (16 * k))))
            return TRUE;
    }
  for (; i < n; i++)
    if (bf16_is_signalling_nan ((guint16) (p[2 * i] | (p[2 * i + 1] << 8))))
      return TRUE;
  return FALSE;
}

/* ---- workers ---- */

typedef struct
{
  TsConverter   *self;
  TsGgufWriter  *writer;
  GArray        *jobs;       /* TensorJob */
  GArray        *chunks;     /* Chunk */
  guint          next_chunk; /* atomic */
  GCancellable  *cancellable;
  GMutex         error_lock;
  GError        *error;
  gboolean       failed;     /* atomic */
} Run;

static void
run_fail (Run    *run,
          GError *error)
{
  g_mutex_lock (&run->error_lock);
  if (run->error == NULL)
    run->error = error;
  else
    g_error_free (error);
  g_mutex_unlock (&run->error_lock);
  __atomic_store_n (&run->failed, TRUE, __ATOMIC_RELAXED);
}

static gboolean
read_exact (int            fd,
            void          *buf,
            gsize          len,
            guint64        offset,
            TsPlanTensor  *pt,
            GError       **error)
{
  guint8 *p = buf;

  while (len > 0)
    {
      ssize_t n = pread (fd, p, len, (off_t) offset);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          TsFilePart *part = ts_tensor_get_part (ts_plan_tensor_get_source (pt));

          g_set_error (error, G_IO_ERROR, n < 0 ? g_io_error_from_errno (errno) : G_IO_ERROR_FAILED,
                       "%s: reading tensor '%s' at byte %" G_GUINT64_FORMAT " failed: %s",
                       ts_file_part_get_name (part), ts_tensor_get_name (ts_plan_tensor_get_source (pt)),
                       offset, n < 0 ? g_strerror (errno) : "the file is shorter than its header says (truncated or changed?)");
          return FALSE;
        }
      p += n;
      len -= n;
      offset += n;
    }
  return TRUE;
}

/* In-kernel copy; FALSE with no error means "use the buffered path". */
static gboolean
copy_range (Run           *run,
            int            src_fd,
            guint64        src_offset,
            guint64        dst_offset,
            guint64        len,
            gboolean      *fallback,
            GError       **error)
{
  loff_t in = (loff_t) src_offset, out = (loff_t) dst_offset;

  *fallback = FALSE;
  if (run->self->fail_after != G_MAXUINT64)
    {
      *fallback = TRUE;
      return FALSE;
    }
  while (len > 0)
    {
      ssize_t n = copy_file_range (src_fd, &in, ts_gguf_writer_get_fd (run->writer), &out, len, 0);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0 && (errno == EXDEV || errno == ENOSYS || errno == EINVAL || errno == EOPNOTSUPP))
        {
          *fallback = TRUE;
          return FALSE;
        }
      if (n <= 0)
        {
          g_set_error (error, G_IO_ERROR, n < 0 ? g_io_error_from_errno (errno) : G_IO_ERROR_FAILED,
                       "copying tensor data failed: %s",
                       n < 0 ? g_strerror (errno) : "the source ended early (truncated or changed?)");
          return FALSE;
        }
      len -= n;
    }
  return TRUE;
}

typedef struct
{
  guint8 *in;
  float  *row;
  guint8 *out;
  gsize   in_size;
  gsize   out_size;
  gsize   row_size;
} Buffers;

static void
ensure_buffers (Buffers *b,
                gsize    in_size,
                gsize    out_size,
                gsize    row_elems)
{
  if (b->in_size < in_size)
    {
      g_free (b->in);
      b->in = g_malloc (b->in_size = in_size);
    }
  if (b->out_size < out_size)
    {
      g_free (b->out);
      b->out = g_malloc (b->out_size = out_size);
    }
  if (b->row_size < row_elems)
    {
      g_free (b->row);
      b->row = g_new (float, b->row_size = row_elems);
    }
}

static gboolean
process_chunk (Run          *run,
               Buffers      *buf,
               const Chunk  *chunk,
               GError      **error)
{
  TensorJob *job = &g_array_index (run->jobs, TensorJob, chunk->tensor);
  TsPlanTensor *pt = job->pt;
  TsTensor *src = ts_plan_tensor_get_source (pt);
  TsDType in_type = ts_tensor_get_dtype (src);
  TsDType out_type = ts_plan_tensor_get_dtype (pt);
  gsize in_row = ts_dtype_get_info (in_type)->type_size * job->cols;
  guint64 out_row;
  guint64 n_rows = chunk->row_end - chunk->row_start;
  guint64 in_offset = job->src_offset + chunk->row_start * in_row;
  guint64 out_offset;
  gboolean same_bytes;

  ts_dtype_compute_size (out_type, job->cols, &out_row);
  out_offset = job->out_offset + chunk->row_start * out_row;
  ensure_buffers (buf, n_rows * in_row, n_rows * out_row, job->cols);
  if (!read_exact (job->src_fd, buf->in, n_rows * in_row, in_offset, pt, error))
    return FALSE;

  same_bytes = ts_plan_tensor_get_transform (pt) == TS_TRANSFORM_COPY &&
               (in_type != TS_DTYPE_BF16 || !bf16_has_signalling_nan (buf->in, n_rows * job->cols));
  for (guint64 r = 0; r < n_rows; r++)
    {
      guint64 src_r = r;
      const guint8 *in;

      if (job->rows_per_head > 0)
        src_r = ts_permuted_source_row (chunk->row_start + r, job->rows_per_head) - chunk->row_start;
      in = buf->in + src_r * in_row;
      if (same_bytes)
        memcpy (buf->out + r * out_row, in, in_row);
      else
        {
          ts_dtype_read_f32 (in_type, in, buf->row, job->cols);
          encode_row (out_type, buf->row, buf->out + r * out_row, job->cols);
        }
    }
  return ts_gguf_writer_pwrite (run->writer, buf->out, n_rows * out_row, out_offset, error);
}

/* Unchanged, unpermuted bytes: read them once to look for BF16 signalling
 * NaNs, then let the kernel copy; otherwise convert through buffers. The
 * source is read with pread(), never through the mapping, so a shard
 * truncated under our feet is a read error rather than a SIGBUS. */
static gboolean
copy_or_process_chunk (Run          *run,
                       Buffers      *buf,
                       const Chunk  *chunk,
                       GError      **error)
{
  TensorJob *job = &g_array_index (run->jobs, TensorJob, chunk->tensor);
  TsTensor *src = ts_plan_tensor_get_source (job->pt);
  TsDType in_type = ts_tensor_get_dtype (src);
  gsize row = ts_dtype_get_info (in_type)->type_size * job->cols;
  guint64 len = (chunk->row_end - chunk->row_start) * row;
  guint64 src_offset = job->src_offset + chunk->row_start * row;
  gboolean fallback = FALSE;

  if (ts_plan_tensor_get_transform (job->pt) != TS_TRANSFORM_COPY || job->rows_per_head > 0)
    return process_chunk (run, buf, chunk, error);
  if (in_type == TS_DTYPE_BF16)
    {
      ensure_buffers (buf, len, 0, 0);
      if (!read_exact (job->src_fd, buf->in, len, src_offset, job->pt, error))
        return FALSE;
      if (bf16_has_signalling_nan (buf->in, len / 2))
        return process_chunk (run, buf, chunk, error);
    }
  if (copy_range (run, job->src_fd, src_offset,
                  job->out_offset + chunk->row_start * row, len, &fallback, error))
    return TRUE;
  return fallback ? process_chunk (run, buf, chunk, error) : FALSE;
}

/* Start writing the chunk back to disk now, so that the final fsync() has
 * little left to do and the disk works while the CPU converts. */
static void
start_writeback (Run         *run,
                 const Chunk *chunk)
{
  TensorJob *job = &g_array_index (run->jobs, TensorJob, chunk->tensor);
  guint64 out_row;

  ts_dtype_compute_size (ts_plan_tensor_get_dtype (job->pt), job->cols, &out_row);
  sync_file_range (ts_gguf_writer_get_fd (run->writer),
                   (off_t) (job->out_offset + chunk->row_start * out_row),
                   (off_t) ((chunk->row_end - chunk->row_start) * out_row),
                   SYNC_FILE_RANGE_WRITE);
}

static gpointer
worker (gpointer data)
{
  Run *run = data;
  Buffers buf = { 0 };

  while (!__atomic_load_n (&run->failed, __ATOMIC_RELAXED))
    {
      guint i = __atomic_fetch_add (&run->next_chunk, 1, __ATOMIC_RELAXED);
      GError *error = NULL;
      Chunk *chunk;
      TensorJob *job;
      guint64 out_row;

      if (i >= run->chunks->len)
        break;
      if (g_cancellable_set_error_if_cancelled (run->cancellable, &error) ||
          !copy_or_process_chunk (run, &buf, &g_array_index (run->chunks, Chunk, i), &error))
        {
          run_fail (run, error);
          break;
        }
      chunk = &g_array_index (run->chunks, Chunk, i);
      start_writeback (run, chunk);
      job = &g_array_index (run->jobs, TensorJob, chunk->tensor);
      ts_dtype_compute_size (ts_plan_tensor_get_dtype (job->pt), job->cols, &out_row);
      report_progress (run->self, chunk->tensor, (chunk->row_end - chunk->row_start) * out_row);
    }
  g_free (buf.in);
  g_free (buf.out);
  g_free (buf.row);
  return NULL;
}

/* ---- planning the work ---- */

static void
add_chunks (Run       *run,
            guint      tensor,
            TensorJob *job)
{
  gsize in_row = ts_dtype_get_info (ts_tensor_get_dtype (ts_plan_tensor_get_source (job->pt)))->type_size * job->cols;
  guint64 step = MAX (1, CHUNK_BYTES / MAX (in_row, 1));

  /* permuted rows move only within their head: chunks hold whole heads */
  if (job->rows_per_head > 0)
    step = MAX (1, step / job->rows_per_head) * job->rows_per_head;
  for (guint64 r = 0; r < job->rows; r += step)
    {
      Chunk c = { tensor, r, MIN (job->rows, r + step) };

      g_array_append_val (run->chunks, c);
    }
}

static gboolean
write_generated (Run           *run,
                 TsPlanTensor  *pt,
                 guint64        offset,
                 GError       **error)
{
  return ts_gguf_writer_pwrite (run->writer, ts_plan_tensor_get_generated (pt),
                                ts_plan_tensor_get_size (pt), offset, error);
}

static gboolean
open_sources (Run         *run,
              GHashTable  *fds,
              GError     **error)
{
  GListModel *tensors = ts_conversion_plan_get_tensors (run->self->plan);
  guint64 data_offset = ts_conversion_plan_get_data_offset (run->self->plan);

  for (guint i = 0; i < g_list_model_get_n_items (tensors); i++)
    {
      g_autoptr(TsPlanTensor) pt = g_list_model_get_item (tensors, i);
      TsTensor *src = ts_plan_tensor_get_source (pt);
      TensorJob job = { pt, 0, 0, 0, data_offset + ts_plan_tensor_get_offset (pt), -1, 0 };

      if (src == NULL)
        {
          if (!write_generated (run, pt, job.out_offset, error))
            return FALSE;
          report_progress (run->self, i, ts_plan_tensor_get_size (pt));
          g_array_append_val (run->jobs, job);
          continue;
        }
      {
        TsFilePart *part = ts_tensor_get_part (src);
        gpointer fd_ptr;

        if (!g_hash_table_lookup_extended (fds, part, NULL, &fd_ptr))
          {
            g_autofree char *path = g_file_get_path (ts_file_part_get_file (part));
            int fd = g_open (path, O_RDONLY | O_CLOEXEC, 0);

            if (fd < 0)
              {
                int errsv = errno;

                g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv),
                             "%s: %s", ts_file_part_get_name (part), g_strerror (errsv));
                return FALSE;
              }
            fd_ptr = GINT_TO_POINTER (fd);
            g_hash_table_insert (fds, part, fd_ptr);
          }
        job.src_fd = GPOINTER_TO_INT (fd_ptr);
      }
      job.src_offset = ts_tensor_get_offset (src);
      job.cols = ts_plan_tensor_get_n_dims (pt) > 0 ? ts_plan_tensor_get_dims (pt)[0] : 1;
      job.rows = ts_plan_tensor_get_n_elements (pt) / MAX (job.cols, 1);
      if (ts_plan_tensor_get_permute_heads (pt) > 0)
        job.rows_per_head = job.rows / ts_plan_tensor_get_permute_heads (pt);
      g_array_append_val (run->jobs, job);
      add_chunks (run, i, &g_array_index (run->jobs, TensorJob, run->jobs->len - 1));
    }
  return TRUE;
}

static void
close_fd (gpointer key,
          gpointer value,
          gpointer user_data)
{
  g_close (GPOINTER_TO_INT (value), NULL);
}

static gboolean
execute (Run      *run,
         GError  **error)
{
  g_autoptr(GHashTable) fds = g_hash_table_new (NULL, NULL);
  g_autoptr(GBytes) header = ts_gguf_writer_build_header (run->writer);
  g_autoptr(GPtrArray) threads = g_ptr_array_new ();
  guint n_threads = run->self->jobs ? run->self->jobs : g_get_num_processors ();
  gboolean ok;

  ok = ts_gguf_writer_pwrite (run->writer, g_bytes_get_data (header, NULL),
                              g_bytes_get_size (header), 0, error) &&
       open_sources (run, fds, error);
  if (ok)
    {
      for (guint i = 0; i < n_threads; i++)
        g_ptr_array_add (threads, g_thread_new ("ts-convert", worker, run));
      for (guint i = 0; i < threads->len; i++)
        g_thread_join (g_ptr_array_index (threads, i));
      if (run->error != NULL)
        {
          g_propagate_error (error, g_steal_pointer (&run->error));
          ok = FALSE;
        }
    }
  g_hash_table_foreach (fds, close_fd, NULL);
  return ok;
}

gboolean
ts_converter_run (TsConverter   *self,
                  GFile         *target,
                  gboolean       overwrite,
                  GCancellable  *cancellable,
                  GError       **error)
{
  g_autoptr(TsGgufWriter) writer = NULL;
  g_autoptr(GArray) jobs = g_array_new (FALSE, TRUE, sizeof (TensorJob));
  g_autoptr(GArray) chunks = g_array_new (FALSE, TRUE, sizeof (Chunk));
  Run run = { 0 };
  gboolean ok;

  g_return_val_if_fail (TS_IS_CONVERTER (self), FALSE);
  g_return_val_if_fail (G_IS_FILE (target), FALSE);

  if (!ts_conversion_plan_check_space (self->plan, target, error))
    return FALSE;
  writer = ts_conversion_plan_create_writer (self->plan);
  if (self->fail_after != G_MAXUINT64)
    _ts_gguf_writer_set_fail_after (writer, self->fail_after);
  if (!ts_gguf_writer_open (writer, target, overwrite, error))
    return FALSE;

  self->bytes_total = ts_gguf_writer_get_total_size (writer) - ts_gguf_writer_get_data_offset (writer);
  __atomic_store_n (&self->bytes_done, 0, __ATOMIC_RELAXED);
  run.self = self;
  run.writer = writer;
  run.jobs = jobs;
  run.chunks = chunks;
  run.cancellable = cancellable;
  g_mutex_init (&run.error_lock);

  ok = execute (&run, error) &&
       !g_cancellable_set_error_if_cancelled (cancellable, error) &&
       ts_conversion_plan_check_unchanged (self->plan, error) &&
       ts_gguf_writer_commit (writer, error);
  if (!ok)
    ts_gguf_writer_abort (writer);
  g_clear_error (&run.error);
  g_mutex_clear (&run.error_lock);
  return ok;
}

typedef struct
{
  GFile    *target;
  gboolean  overwrite;
} RunData;

static void
run_data_free (RunData *data)
{
  g_object_unref (data->target);
  g_free (data);
}

static void
run_thread (GTask        *task,
            gpointer      source_object,
            gpointer      task_data,
            GCancellable *cancellable)
{
  RunData *data = task_data;
  GError *error = NULL;

  if (ts_converter_run (source_object, data->target, data->overwrite, cancellable, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

void
ts_converter_run_async (TsConverter         *self,
                        GFile               *target,
                        gboolean             overwrite,
                        GCancellable        *cancellable,
                        GAsyncReadyCallback  callback,
                        gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  RunData *data;

  g_return_if_fail (TS_IS_CONVERTER (self));

  g_clear_pointer (&self->progress_context, g_main_context_unref);
  self->progress_context = g_main_context_ref_thread_default ();
  data = g_new0 (RunData, 1);
  data->target = g_object_ref (target);
  data->overwrite = overwrite;
  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, ts_converter_run_async);
  /* Once the output is committed the run succeeded: a cancellation that
   * arrives after that must not turn it into a reported failure with the
   * file left in place (the worker checks the cancellable before commit). */
  g_task_set_check_cancellable (task, FALSE);
  g_task_set_task_data (task, data, (GDestroyNotify) run_data_free);
  g_task_run_in_thread (task, run_thread);
}

gboolean
ts_converter_run_finish (TsConverter   *self,
                         GAsyncResult  *result,
                         GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}
