/* ts-converter.c
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Worker threads each assemble one 4 MiB block of the output file at a
 * time (header, tensor bytes copied or converted from the shards, zero
 * padding) and write it at its offset, so memory stays bounded by a few
 * blocks whatever the model size. Where the target file system takes
 * O_DIRECT the blocks go straight to the disk; elsewhere they go through
 * the page cache, and tensors whose bytes do not change are copied in the
 * kernel with copy_file_range().
 */

#include "config.h"

#include <inttypes.h>

#include <glib/gi18n-lib.h>

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "ts-converter.h"
#include "ts-side-file-private.h"
#include "ts-test-hook-private.h"

/* The output file is cut into blocks of BLOCK_BYTES (a test hook can make
 * them smaller). A worker assembles a whole block in an aligned buffer
 * (the header, the pieces of the tensors that fall in it, the zero padding
 * between them) and writes it with one pwrite(): with O_DIRECT where the
 * file system takes it, so the bytes go from this buffer to the disk with
 * no second copy through the page cache and nothing is left for the final
 * fsync() to write back. */
#define BLOCK_BYTES (4 * 1024 * 1024)
/* source elements staged at once (whole heads are added for permuted
 * tensors) and elements converted through the float scratch at once */
#define BATCH_ELEMS (1024 * 1024)
#define SPAN_ELEMS  (16 * 1024)
/* unchanged BF16 bytes are read and checked this much at a time */
#define SCAN_BYTES  (256 * 1024)
/* Workers by default: three per processor, so that while some wait for
 * their block to reach the disk the others keep the processors busy (one
 * per processor left each processor idle during its worker's write:
 * Q8_0 took 1.19 s for 2 GB on 2 processors, 0.90 s with 6 workers; see
 * bench/README.md). At most DEFAULT_MAX_WORKERS: each worker holds about
 * 7 MB (its block and its scratch), and the whole run stays well under
 * 256 MB on a machine of many processors. */
#define WORKERS_PER_PROCESSOR 3
#define DEFAULT_MAX_WORKERS   24
/* the nice value workers run at (see lower_thread_priority()) */
#define WORKER_NICE 10

struct _TsConverter
{
  GObject           parent_instance;
  TsConversionPlan *plan;
  guint             jobs;
  guint64           fail_after;
  gboolean          direct_io;
  gboolean          refuse_direct_io;
  guint64           fail_commit;
  gboolean          no_links;
  guint64           block_bytes;
  guint64           block_delay_us;

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

/* For the test suite, which reaches every code path through the CLI and
 * the app: writes that fail with ENOSPC after this many bytes (a disk that
 * fills up); the page cache instead of O_DIRECT (a file system without
 * it); O_DIRECT taken by fcntl() but its writes refused with EINVAL (the
 * fallback while other threads' writes are in flight); blocks small enough
 * that tiny models cross many block edges; a pause after each block, so
 * that a cancellation surely lands mid-way. */
static void
read_test_hooks (TsConverter *self)
{
  guint64 block = _ts_test_hook ("TENSORSCOPE_TEST_BLOCK_BYTES", BLOCK_BYTES);

  self->fail_after = _ts_test_hook ("TENSORSCOPE_TEST_FAIL_WRITES_AFTER", G_MAXUINT64);
  self->direct_io = g_getenv ("TENSORSCOPE_TEST_NO_DIRECT_IO") == NULL;
  self->refuse_direct_io = g_getenv ("TENSORSCOPE_TEST_REFUSE_DIRECT_IO") != NULL;
  self->no_links = g_getenv ("TENSORSCOPE_TEST_NO_HARD_LINKS") != NULL;
  /* a split set's file (from 0) whose move into place fails */
  self->fail_commit = _ts_test_hook ("TENSORSCOPE_TEST_FAIL_COMMIT", G_MAXUINT);
  if (block > 0 && block % TS_GGUF_WRITER_DIRECT_ALIGNMENT == 0)
    self->block_bytes = block;
  self->block_delay_us = _ts_test_hook ("TENSORSCOPE_TEST_BLOCK_DELAY_US", 0);
}

static void
ts_converter_init (TsConverter *self)
{
  g_mutex_init (&self->progress_lock);
  self->block_bytes = BLOCK_BYTES;
  read_test_hooks (self);
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

/* A BF16 signalling NaN gains the quiet bit on the converter's round trip
 * through float32; every other BF16 value comes back unchanged. */
static inline gboolean
bf16_is_signalling_nan (guint16 h)
{
  return (h & 0x7fc0) == 0x7f80 && (h & 0x003f) != 0;
}

/* Sixteen values at a time, with no branch in the loop so that the
 * compiler keeps it in vector registers: with the sign cleared, a
 * signalling NaN is exactly the range 0x7f81..0x7fbf. The data is little
 * endian; a big-endian host takes the plain loop. */
typedef guint16 U16x8 __attribute__ ((vector_size (16)));

static gboolean
bf16_has_signalling_nan (const guint8 *p,
                         gsize         n)
{
  gsize i = 0;

#if G_BYTE_ORDER == G_LITTLE_ENDIAN
  U16x8 hit = { 0 };

  for (; i + 16 <= n; i += 16)
    {
      U16x8 a, b;

      memcpy (&a, p + 2 * i, sizeof a);
      memcpy (&b, p + 2 * i + 16, sizeof b);
      a = (a & 0x7fff) - 0x7f81;
      b = (b & 0x7fff) - 0x7f81;
      hit |= (U16x8) (a < 0x3f) | (U16x8) (b < 0x3f);
    }
  for (guint k = 0; k < 8; k++)
    if (hit[k] != 0)
      return TRUE;
#endif
  for (; i < n; i++)
    if (bf16_is_signalling_nan ((guint16) (p[2 * i] | (p[2 * i + 1] << 8))))
      return TRUE;
  return FALSE;
}

/* ---- workers ---- */


typedef struct
{
  TsPlanTensor *pt;          /* borrowed from the plan */
  const guint8 *generated;   /* the bytes of a generated tensor, or NULL */
  guint64       out_offset;  /* absolute */
  guint64       out_size;
  int           src_fd;
  guint64       src_offset;  /* absolute in its shard */
  TsDType       in_type;
  TsDType       out_type;
  gsize         in_elem;     /* bytes per source element */
  guint         unit_elems;  /* elements per output block (32 for Q8_0) */
  guint         unit_bytes;
  guint64       cols;        /* elements per row */
  guint64       rows_per_head;  /* permuted tensors; 0 otherwise */
  gboolean      plain;       /* the output bytes are the source bytes */
} TensorJob;

typedef struct
{
  TsConverter   *self;
  TsGgufWriter  *writer;
  GBytes        *header;     /* bytes [0, data offset) */
  GArray        *jobs;       /* TensorJob, in file order */
  guint          file;       /* which of the plan's output files */
  guint          first_tensor; /* the plan's index of the file's first tensor */
  guint64        total;
  guint64        block_bytes;
  guint64        n_blocks;
  guint64        next_block; /* atomic */
  gboolean       kernel_copy; /* atomic */
  GCancellable  *cancellable;
  GMutex         error_lock;
  GError        *error;
  gboolean       failed;     /* atomic */
} Run;

/* a piece left for copy_file_range() when the output is not written with
 * O_DIRECT */
typedef struct
{
  guint64  out_offset;
  int      src_fd;
  guint64  src_offset;
  guint64  len;
} KernelCopy;

typedef struct
{
  guint8 *block;             /* block_bytes, aligned for O_DIRECT */
  guint8 *in;
  gsize   in_size;
  float  *scratch;           /* SPAN_ELEMS */
  GArray *kernel_copies;     /* KernelCopy, for the current block */
} Worker;

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
read_exact (const TensorJob  *job,
            void             *buf,
            gsize             len,
            guint64           offset,
            GError          **error)
{
  guint8 *p = buf;

  while (len > 0)
    {
      ssize_t n = pread (job->src_fd, p, len, (off_t) offset);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          TsTensor *src = ts_plan_tensor_get_source (job->pt);

          g_set_error (error, G_IO_ERROR, n < 0 ? g_io_error_from_errno (errno) : G_IO_ERROR_FAILED,
                       _("%s: reading tensor '%s' at byte %" PRIu64 " failed: %s"),
                       ts_file_part_get_name (ts_tensor_get_part (src)), ts_tensor_get_name (src),
                       offset, n < 0 ? g_strerror (errno)
                                     : _("the file is shorter than its header says (truncated or changed?)"));
          return FALSE;
        }
      p += n;
      len -= n;
      offset += n;
    }
  return TRUE;
}

static guint8 *
ensure_in (Worker *w,
           gsize   size)
{
  if (w->in_size < size)
    {
      g_free (w->in);
      w->in = g_malloc (w->in_size = size);
    }
  return w->in;
}

/* @n source elements at @in to output units at @out; @n is a whole
 * number of output units */
static void
encode_span (const TensorJob *job,
             Worker          *w,
             const guint8    *in,
             guint8          *out,
             guint64          n)
{
  while (n > 0)
    {
      gsize m = MIN (n, SPAN_ELEMS);

      ts_dtype_read_f32 (job->in_type, in, w->scratch, m);
      if (!ts_dtype_write_f32 (job->out_type, w->scratch, out, m))
        g_assert_not_reached ();
      in += m * job->in_elem;
      out += m / job->unit_elems * job->unit_bytes;
      n -= m;
    }
}

/* Output units [@ua, @ub) of a tensor into @out: the source elements are
 * staged in batches (whole heads for a permuted tensor, whose rows move
 * only within their head), then copied or converted row span by row span. */
static gboolean
convert_units (const TensorJob  *job,
               Worker           *w,
               guint64           ua,
               guint64           ub,
               guint8           *out,
               GError          **error)
{
  guint64 e = ua * job->unit_elems, e_end = ub * job->unit_elems;
  guint64 batch = BATCH_ELEMS / job->unit_elems * job->unit_elems;

  while (e < e_end)
    {
      guint64 n = MIN (e_end - e, batch);
      guint64 first = e, count = n;
      gboolean same;
      guint8 *in;

      if (job->rows_per_head > 0)
        {
          guint64 head = job->rows_per_head * job->cols;

          first = e / head * head;
          count = ((e + n - 1) / head + 1) * head - first;
        }
      in = ensure_in (w, count * job->in_elem);
      if (!read_exact (job, in, count * job->in_elem, job->src_offset + first * job->in_elem, error))
        return FALSE;
      same = ts_plan_tensor_get_transform (job->pt) == TS_TRANSFORM_COPY &&
             job->in_type == job->out_type &&
             (job->in_type != TS_DTYPE_BF16 || !bf16_has_signalling_nan (in, count));
      for (guint64 pos = e; pos < e + n;)
        {
          guint64 span = e + n - pos, src = pos;
          const guint8 *p;
          guint8 *q = out + (pos - e) / job->unit_elems * job->unit_bytes;

          if (job->rows_per_head > 0)
            {
              guint64 r = pos / job->cols, c = pos % job->cols;

              span = MIN (span, job->cols - c);
              src = ts_permuted_source_row (r, job->rows_per_head) * job->cols + c;
            }
          p = in + (src - first) * job->in_elem;
          if (same)
            memcpy (q, p, span * job->in_elem);
          else
            encode_span (job, w, p, q, span);
          pos += span;
        }
      out += n / job->unit_elems * job->unit_bytes;
      e += n;
    }
  return TRUE;
}

/* Bytes [@a, @b) of a tensor's output into @dst. An output unit (a Q8_0
 * block of 34 bytes) can straddle two file blocks: its part is cut from a
 * unit converted on the side. */
static gboolean
fill_tensor (Run              *run,
             Worker           *w,
             const TensorJob  *job,
             guint64           a,
             guint64           b,
             guint8           *dst,
             GError          **error)
{
  guint64 U = job->unit_bytes;
  guint8 unit[64];

  if (job->generated != NULL)
    {
      memcpy (dst, job->generated + a, b - a);
      return TRUE;
    }
  if (job->plain)
    {
      if (job->in_type != TS_DTYPE_BF16 &&
          __atomic_load_n (&run->kernel_copy, __ATOMIC_RELAXED) &&
          !ts_gguf_writer_get_direct_io (run->writer))
        {
          /* nothing to look at: the kernel copies, after the block */
          KernelCopy k = { job->out_offset + a, job->src_fd, job->src_offset + a, b - a };

          g_array_append_val (w->kernel_copies, k);
          return TRUE;
        }
      if (job->in_type != TS_DTYPE_BF16)
        return read_exact (job, dst, b - a, job->src_offset + a, error);
      /* A BF16 signalling NaN gains the quiet bit on llama.cpp's round
       * trip through float32: those pieces take the converting path. The
       * bytes are looked at right after each read, while still in cache. */
      {
        gboolean snan = FALSE;

        for (guint64 at = a; at < b && !snan; at += SCAN_BYTES)
          {
            guint64 len = MIN (b - at, SCAN_BYTES);

            if (!read_exact (job, dst + (at - a), len, job->src_offset + at, error))
              return FALSE;
            snan = bf16_has_signalling_nan (dst + (at - a), len / 2);
          }
        if (!snan)
          return TRUE;
      }
    }
  g_assert (U <= sizeof unit);
  if (a % U != 0)
    {
      guint64 u = a / U, n = MIN (b, (u + 1) * U) - a;

      if (!convert_units (job, w, u, u + 1, unit, error))
        return FALSE;
      memcpy (dst, unit + a % U, n);
      dst += n;
      a += n;
    }
  if (b / U > a / U)
    {
      if (!convert_units (job, w, a / U, b / U, dst, error))
        return FALSE;
      dst += (b / U - a / U) * U;
      a = b / U * U;
    }
  if (a < b)
    {
      if (!convert_units (job, w, a / U, a / U + 1, unit, error))
        return FALSE;
      memcpy (dst, unit, b - a);
    }
  return TRUE;
}

/* the first tensor that ends after @pos */
static guint
find_job (Run     *run,
          guint64  pos)
{
  guint lo = 0, hi = run->jobs->len;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      TensorJob *job = &g_array_index (run->jobs, TensorJob, mid);

      if (job->out_offset + job->out_size <= pos)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

/* Assembles bytes [@start, @end) of the file in w->block; returns the
 * last tensor with bytes in it (for the progress), or G_MAXUINT. */
static gboolean
fill_block (Run      *run,
            Worker   *w,
            guint64   start,
            guint64   end,
            guint    *last_tensor,
            GError  **error)
{
  gsize header_size;
  const guint8 *header = g_bytes_get_data (run->header, &header_size);
  guint64 pos = start;

  *last_tensor = G_MAXUINT;
  g_array_set_size (w->kernel_copies, 0);
  if (pos < header_size)
    {
      guint64 n = MIN (end, header_size) - pos;

      memcpy (w->block, header + pos, n);
      pos += n;
    }
  for (guint i = find_job (run, pos); i < run->jobs->len && pos < end; i++)
    {
      TensorJob *job = &g_array_index (run->jobs, TensorJob, i);
      guint64 a = MAX (pos, job->out_offset), b = MIN (end, job->out_offset + job->out_size);

      if (job->out_offset >= end)
        break;
      if (a >= b)
        continue;
      memset (w->block + (pos - start), 0, a - pos);
      if (!fill_tensor (run, w, job, a - job->out_offset, b - job->out_offset,
                        w->block + (a - start), error))
        return FALSE;
      *last_tensor = i;
      pos = b;
    }
  memset (w->block + (pos - start), 0, end - pos);
  return TRUE;
}

/* In-kernel copy of a piece; FALSE with no error means "copy it through
 * the block after all" (a file system that cannot). */
static gboolean
kernel_copy (Run               *run,
             const KernelCopy  *k,
             gboolean          *fallback,
             GError           **error)
{
  loff_t in = (loff_t) k->src_offset, out = (loff_t) k->out_offset;
  guint64 len = k->len;

  *fallback = FALSE;
  while (len > 0)
    {
      ssize_t n = copy_file_range (k->src_fd, &in, ts_gguf_writer_get_fd (run->writer), &out, len, 0);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0 && (errno == EXDEV || errno == ENOSYS || errno == EINVAL || errno == EOPNOTSUPP))
        {
          *fallback = TRUE;
          return FALSE;
        }
      if (n <= 0)
        {
          /* named as a failed read is (read_exact) */
          int errsv = errno;
          const TensorJob *job = &g_array_index (run->jobs, TensorJob, find_job (run, k->out_offset));
          TsTensor *src = ts_plan_tensor_get_source (job->pt);

          g_set_error (error, G_IO_ERROR, n < 0 ? g_io_error_from_errno (errsv) : G_IO_ERROR_FAILED,
                       _("%s: reading tensor '%s' at byte %" PRIu64 " failed: %s"),
                       ts_file_part_get_name (ts_tensor_get_part (src)), ts_tensor_get_name (src),
                       (guint64) in, n < 0 ? g_strerror (errsv)
                                           : _("the file is shorter than its header says (truncated or changed?)"));
          return FALSE;
        }
      len -= n;
    }
  return TRUE;
}

/* Writes the assembled block: whole (rounded up to the O_DIRECT alignment
 * at the end of the file; the commit truncates to the exact size), or,
 * without O_DIRECT, around the pieces the kernel copies, and then starts
 * the writeback so that the final fsync() has little left to do. */
static gboolean
write_block (Run      *run,
             Worker   *w,
             guint64   start,
             guint64   end,
             GError  **error)
{
  guint64 pos = start;

  if (ts_gguf_writer_get_direct_io (run->writer) && w->kernel_copies->len == 0)
    {
      guint64 len = (end - start + TS_GGUF_WRITER_DIRECT_ALIGNMENT - 1) /
                    TS_GGUF_WRITER_DIRECT_ALIGNMENT * TS_GGUF_WRITER_DIRECT_ALIGNMENT;

      memset (w->block + (end - start), 0, len - (end - start));
      if (!ts_gguf_writer_pwrite (run->writer, w->block, len, start, error))
        return FALSE;
      /* O_DIRECT may have been refused at the first write: then the block
       * went through the page cache after all */
      if (ts_gguf_writer_get_direct_io (run->writer))
        return TRUE;
    }
  else
    {
      for (guint i = 0; i <= w->kernel_copies->len; i++)
        {
          KernelCopy *k = i < w->kernel_copies->len ? &g_array_index (w->kernel_copies, KernelCopy, i) : NULL;
          guint64 next = k ? k->out_offset : end;
          gboolean fallback;

          if (next > pos &&
              !ts_gguf_writer_pwrite (run->writer, w->block + (pos - start), next - pos, pos, error))
            return FALSE;
          if (k == NULL)
            break;
          if (!kernel_copy (run, k, &fallback, error))
            {
              const TensorJob *job = &g_array_index (run->jobs, TensorJob, find_job (run, k->out_offset));

              if (!fallback)
                return FALSE;
              /* this file system cannot: copy through the block, now and
               * for the rest of the run */
              __atomic_store_n (&run->kernel_copy, FALSE, __ATOMIC_RELAXED);
              if (!read_exact (job, w->block + (k->out_offset - start), k->len, k->src_offset, error) ||
                  !ts_gguf_writer_pwrite (run->writer, w->block + (k->out_offset - start), k->len,
                                          k->out_offset, error))
                return FALSE;
            }
          pos = k->out_offset + k->len;
        }
    }
  sync_file_range (ts_gguf_writer_get_fd (run->writer), (off_t) start, (off_t) (end - start),
                   SYNC_FILE_RANGE_WRITE);
  return TRUE;
}

/* A worker yields the processors to the application's own threads: the
 * window's main loop stalled for up to 58 ms among six busy workers, and
 * stays under 35 ms with them at a lower priority. Alone, as on the command
 * line, they still take every idle cycle. Linux gives each thread its own
 * nice value; elsewhere this does nothing. */
static void
lower_thread_priority (void)
{
#ifdef __linux__
  id_t tid = (id_t) gettid ();
  int nice;

  errno = 0;
  nice = getpriority (PRIO_PROCESS, tid);
  if (errno == 0 && nice < WORKER_NICE)
    setpriority (PRIO_PROCESS, tid, WORKER_NICE);
#endif
}

static gpointer
worker (gpointer data)
{
  Run *run = data;
  Worker w = { 0 };
  guint64 data_offset = g_bytes_get_size (run->header);

  lower_thread_priority ();
  w.block = g_aligned_alloc (1, run->block_bytes, TS_GGUF_WRITER_DIRECT_ALIGNMENT);
  w.scratch = g_new (float, SPAN_ELEMS);
  w.kernel_copies = g_array_new (FALSE, FALSE, sizeof (KernelCopy));
  while (!__atomic_load_n (&run->failed, __ATOMIC_RELAXED))
    {
      guint64 i = __atomic_fetch_add (&run->next_block, 1, __ATOMIC_RELAXED);
      guint64 start = i * run->block_bytes, end;
      GError *error = NULL;
      guint last_tensor;

      if (i >= run->n_blocks)
        break;
      end = MIN (run->total, start + run->block_bytes);
      if (g_cancellable_set_error_if_cancelled (run->cancellable, &error) ||
          !fill_block (run, &w, start, end, &last_tensor, &error) ||
          !write_block (run, &w, start, end, &error))
        {
          run_fail (run, error);
          break;
        }
      if (end > data_offset)
        report_progress (run->self, run->first_tensor + (last_tensor != G_MAXUINT ? last_tensor : 0),
                         end - MAX (start, data_offset));
      if (run->self->block_delay_us > 0)
        g_usleep (run->self->block_delay_us);
    }
  g_aligned_free (w.block);
  g_free (w.in);
  g_free (w.scratch);
  g_array_unref (w.kernel_copies);
  return NULL;
}

/* ---- planning the work ---- */

/* One descriptor a shard stays open while a conversion runs: a checkpoint
 * of more shards than the usual soft limit (1024) needs the hard one. */
static void
raise_open_file_limit (void)
{
  static gsize done = 0;

  if (g_once_init_enter (&done))
    {
      struct rlimit rl;

      if (getrlimit (RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max)
        {
          rl.rlim_cur = rl.rlim_max;
          setrlimit (RLIMIT_NOFILE, &rl);
        }
      g_once_init_leave (&done, 1);
    }
}

static gboolean
open_sources (Run         *run,
              GHashTable  *fds,
              GError     **error)
{
  TsConversionPlan *plan = run->self->plan;
  GListModel *tensors = ts_conversion_plan_get_tensors (plan);
  guint64 data_offset = ts_conversion_plan_get_data_offset (plan, run->file);
  guint end = run->first_tensor + ts_conversion_plan_get_file_n_tensors (plan, run->file);

  raise_open_file_limit ();
  for (guint i = run->first_tensor; i < end; i++)
    {
      g_autoptr(TsPlanTensor) pt = g_list_model_get_item (tensors, i);
      TsTensor *src = ts_plan_tensor_get_source (pt);
      TensorJob job = { 0 };
      const TsDTypeInfo *out_info = ts_dtype_get_info (ts_plan_tensor_get_dtype (pt));

      job.pt = pt;
      job.out_offset = data_offset + ts_plan_tensor_get_offset (pt);
      job.out_size = ts_plan_tensor_get_size (pt);
      job.src_fd = -1;
      job.out_type = ts_plan_tensor_get_dtype (pt);
      job.unit_elems = out_info->block_size;
      job.unit_bytes = out_info->type_size;
      if (src == NULL)
        {
          job.generated = (const guint8 *) ts_plan_tensor_get_generated (pt);
          g_array_append_val (run->jobs, job);
          continue;
        }
      {
        TsFilePart *part = ts_tensor_get_part (src);
        gpointer fd_ptr;

        if (!g_hash_table_lookup_extended (fds, part, NULL, &fd_ptr))
          {
            g_autofree char *path = g_file_get_path (ts_file_part_get_file (part));
            /* a pipe put in the shard's place since the plan read it
             * would otherwise hold open() past any cancel */
            g_autoptr(GError) local_error = NULL;
            struct stat st;
            int fd = _ts_open_regular (path, &st, &local_error);

            if (fd < 0)
              {
                g_set_error (error, local_error->domain, local_error->code,
                             "%s: %s", ts_file_part_get_name (part), local_error->message);
                return FALSE;
              }
            fd_ptr = GINT_TO_POINTER (fd);
            g_hash_table_insert (fds, part, fd_ptr);
          }
        job.src_fd = GPOINTER_TO_INT (fd_ptr);
      }
      job.src_offset = ts_tensor_get_offset (src);
      job.in_type = ts_tensor_get_dtype (src);
      job.in_elem = ts_dtype_get_info (job.in_type)->type_size;
      job.cols = ts_plan_tensor_get_n_dims (pt) > 0 ? ts_plan_tensor_get_dims (pt)[0] : 1;
      if (ts_plan_tensor_get_permute_heads (pt) > 0 && ts_plan_tensor_get_n_dims (pt) == 1)
        job.cols = 1;  /* a permuted bias: each element is a row */
      if (ts_plan_tensor_get_permute_heads (pt) > 0)
        job.rows_per_head = ts_plan_tensor_get_n_elements (pt) / MAX (job.cols, 1) /
                            ts_plan_tensor_get_permute_heads (pt);
      job.plain = ts_plan_tensor_get_transform (pt) == TS_TRANSFORM_COPY &&
                  job.rows_per_head == 0 && job.in_type == job.out_type;
      g_array_append_val (run->jobs, job);
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

/* Writes output file @file of the plan through @writer, opened; the
 * shards are opened once, into @fds, for all the files. */
static gboolean
write_file (TsConverter   *self,
            TsGgufWriter  *writer,
            guint          file,
            guint          first_tensor,
            GHashTable    *fds,
            GCancellable  *cancellable,
            GError       **error)
{
  g_autoptr(GArray) jobs = g_array_new (FALSE, TRUE, sizeof (TensorJob));
  g_autoptr(GBytes) header = ts_gguf_writer_build_header (writer);
  g_autoptr(GPtrArray) threads = g_ptr_array_new ();
  guint n_threads = self->jobs ? self->jobs
                               : MIN (WORKERS_PER_PROCESSOR * g_get_num_processors (), DEFAULT_MAX_WORKERS);
  Run run = { 0 };
  gboolean ok;

  run.self = self;
  run.writer = writer;
  run.header = header;
  run.jobs = jobs;
  run.file = file;
  run.first_tensor = first_tensor;
  run.total = ts_gguf_writer_get_total_size (writer);
  run.block_bytes = self->block_bytes;
  /* the fault-injection hook counts bytes in ts_gguf_writer_pwrite() */
  run.kernel_copy = self->fail_after == G_MAXUINT64;
  if (self->direct_io)
    ts_gguf_writer_use_direct_io (writer);
  run.cancellable = cancellable;
  g_mutex_init (&run.error_lock);

  ok = open_sources (&run, fds, error);
  if (ok)
    {
      run.n_blocks = (run.total + run.block_bytes - 1) / run.block_bytes;
      for (guint i = 0; i < n_threads; i++)
        g_ptr_array_add (threads, g_thread_new ("ts-convert", worker, &run));
      for (guint i = 0; i < threads->len; i++)
        g_thread_join (g_ptr_array_index (threads, i));
      if (run.error != NULL)
        {
          g_propagate_error (error, g_steal_pointer (&run.error));
          ok = FALSE;
        }
    }
  g_mutex_clear (&run.error_lock);
  return ok;
}

/* Moves every file into place once all are written and synced. Should one
 * move fail, the moves already made are undone, the files they replaced
 * put back: no part of a split set is left where a whole one is expected,
 * and an earlier set stays whole. */
static gboolean
commit_all (GPtrArray  *writers,
            GError    **error)
{
  for (guint k = 0; k < writers->len; k++)
    {
      if (writers->len > 1)
        ts_gguf_writer_keep_replaced (g_ptr_array_index (writers, k));
      if (!ts_gguf_writer_sync (g_ptr_array_index (writers, k), error))
        return FALSE;
    }
  for (guint k = 0; k < writers->len; k++)
    if (!ts_gguf_writer_commit (g_ptr_array_index (writers, k), error))
      {
        /* newest first: two names of one file (links) end as they began */
        for (guint j = k; j-- > 0;)
          {
            g_autofree char *kept = ts_gguf_writer_undo_commit (g_ptr_array_index (writers, j));

            if (kept != NULL)
              g_prefix_error (error, _("a file the set replaced could not be put back and is kept "
                                       "as %s; "), kept);
          }
        return FALSE;
      }
  for (guint k = 0; k < writers->len; k++)
    ts_gguf_writer_drop_replaced (g_ptr_array_index (writers, k));
  return TRUE;
}

gboolean
ts_converter_run (TsConverter   *self,
                  GFile         *target,
                  gboolean       overwrite,
                  GCancellable  *cancellable,
                  GError       **error)
{
  TsConversionPlan *plan;
  g_autoptr(GPtrArray) writers = g_ptr_array_new_with_free_func ((GDestroyNotify) ts_gguf_writer_free);
  g_autoptr(GHashTable) fds = g_hash_table_new (NULL, NULL);
  guint n_files, first_tensor = 0;
  gboolean ok = TRUE;

  g_return_val_if_fail (TS_IS_CONVERTER (self), FALSE);
  g_return_val_if_fail (G_IS_FILE (target), FALSE);

  plan = self->plan;
  n_files = ts_conversion_plan_get_n_files (plan);
  if (!ts_conversion_plan_check_target (plan, target, overwrite, error) ||
      !ts_conversion_plan_check_space (plan, target, error))
    return FALSE;
  self->bytes_total = 0;
  for (guint k = 0; k < n_files; k++)
    self->bytes_total += ts_conversion_plan_get_file_size (plan, k) -
                         ts_conversion_plan_get_data_offset (plan, k);
  __atomic_store_n (&self->bytes_done, 0, __ATOMIC_RELAXED);

  /* every temporary file first: a target that cannot be written fails the
   * run before any work (a set of many files may need more descriptors
   * than the soft limit) */
  raise_open_file_limit ();
  for (guint k = 0; k < n_files && ok; k++)
    {
      g_autoptr(GFile) file = ts_conversion_plan_get_output_file (plan, target, k);
      TsGgufWriter *writer = ts_conversion_plan_create_writer (plan, k);

      g_ptr_array_add (writers, writer);
      if (self->fail_after != G_MAXUINT64)
        _ts_gguf_writer_set_fail_after (writer, self->fail_after);
      _ts_gguf_writer_set_refuse_direct_io (writer, self->refuse_direct_io);
      _ts_gguf_writer_set_fail_commit (writer, k == self->fail_commit);
      _ts_gguf_writer_set_no_links (writer, self->no_links);
      ok = ts_gguf_writer_open (writer, file, overwrite, error);
    }
  for (guint k = 0; k < n_files && ok; k++)
    {
      ok = write_file (self, g_ptr_array_index (writers, k), k, first_tensor, fds,
                       cancellable, error);
      first_tensor += ts_conversion_plan_get_file_n_tensors (plan, k);
    }
  g_hash_table_foreach (fds, close_fd, NULL);
  ok = ok &&
       !g_cancellable_set_error_if_cancelled (cancellable, error) &&
       ts_conversion_plan_check_unchanged (plan, error) &&
       commit_all (writers, error);
  if (!ok)
    for (guint k = 0; k < writers->len; k++)
      ts_gguf_writer_abort (g_ptr_array_index (writers, k));
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
