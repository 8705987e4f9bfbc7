/* ts-model-loader.c
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The reader runs on a GTask thread and reports through a callback at most
 * every ~100 ms (see _ts_model_file_progress()). The callback stores the
 * fraction and message under a mutex and schedules at most one idle on the
 * context that started the load; the idle updates and notifies the
 * properties, so they can be bound to a progress bar.
 */

#include "config.h"

#include "ts-model-file-private.h"
#include "ts-model-loader.h"
#include "ts-test-hook-private.h"

struct _TsModelLoader
{
  GObject       parent_instance;

  GFile        *file;
  GMainContext *context;       /* where notifications are emitted */

  /* main thread */
  double        fraction;
  char         *message;

  /* shared with the worker */
  GMutex        mutex;
  double        pending_fraction;
  char         *pending_message;
  gboolean      update_queued;
};

G_DEFINE_FINAL_TYPE (TsModelLoader, ts_model_loader, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_FILE,
  PROP_FRACTION,
  PROP_MESSAGE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/**
 * ts_model_loader_new:
 * @file: what ts_model_file_load() accepts
 *
 * Returns: (transfer full): a loader for @file
 */
TsModelLoader *
ts_model_loader_new (GFile *file)
{
  g_return_val_if_fail (G_IS_FILE (file), NULL);

  return g_object_new (TS_TYPE_MODEL_LOADER, "file", file, NULL);
}

static void
set_progress (TsModelLoader *self,
              double         fraction,
              const char    *message)
{
  fraction = CLAMP (fraction, 0.0, 1.0);
  if (fraction != self->fraction)
    {
      self->fraction = fraction;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FRACTION]);
    }
  if (g_strcmp0 (message, self->message) != 0)
    {
      g_free (self->message);
      self->message = g_strdup (message);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MESSAGE]);
    }
}

static gboolean
apply_pending (gpointer user_data)
{
  TsModelLoader *self = user_data;
  g_autofree char *message = NULL;
  double fraction;

  g_mutex_lock (&self->mutex);
  fraction = self->pending_fraction;
  message = g_steal_pointer (&self->pending_message);
  self->update_queued = FALSE;
  g_mutex_unlock (&self->mutex);

  set_progress (self, fraction, message);
  return G_SOURCE_REMOVE;
}

/* On the worker thread. */
static void
report_progress (double      fraction,
                 const char *message,
                 gpointer    user_data)
{
  TsModelLoader *self = user_data;
  g_autoptr(GSource) source = NULL;

  g_mutex_lock (&self->mutex);
  self->pending_fraction = fraction;
  g_free (self->pending_message);
  self->pending_message = g_strdup (message);
  if (!self->update_queued)
    {
      self->update_queued = TRUE;
      source = g_idle_source_new ();
      g_source_set_static_name (source, "[tensorscope] load progress");
      g_source_set_callback (source, apply_pending, g_object_ref (self), g_object_unref);
      g_source_attach (source, self->context);
    }
  g_mutex_unlock (&self->mutex);
}

static void
load_thread (GTask        *task,
             gpointer      source_object,
             gpointer      task_data,
             GCancellable *cancellable)
{
  TsModelLoader *self = source_object;
  TsLoadProgress progress = { report_progress, self, 0 };
  guint64 delay_us = GPOINTER_TO_SIZE (task_data);
  GError *error = NULL;
  TsModelFile *model;

  _ts_test_pause (delay_us, cancellable);
  model = _ts_model_file_load_with_progress (self->file, &progress, cancellable, &error);
  if (model == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, model, g_object_unref);
}

/**
 * ts_model_loader_load_async:
 *
 * Loads the file on a worker thread. #TsModelLoader:fraction and
 * #TsModelLoader:message change on the thread-default main context of the
 * caller while it runs.
 */
void
ts_model_loader_load_async (TsModelLoader       *self,
                            GCancellable        *cancellable,
                            GAsyncReadyCallback  callback,
                            gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (TS_IS_MODEL_LOADER (self));
  g_return_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable));

  g_clear_pointer (&self->context, g_main_context_unref);
  self->context = g_main_context_ref_thread_default ();
  set_progress (self, 0.0, NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, ts_model_loader_load_async);
  g_task_set_return_on_cancel (task, FALSE);
  /* test hook: a load that takes this long (µs), to act on while it runs */
  g_task_set_task_data (task, GSIZE_TO_POINTER ((gsize) _ts_test_hook ("TENSORSCOPE_TEST_LOAD_DELAY_US", 0)),
                        NULL);
  g_task_run_in_thread (task, load_thread);
}

/**
 * ts_model_loader_load_finish:
 *
 * Returns: (transfer full): the model, or %NULL with @error set
 */
TsModelFile *
ts_model_loader_load_finish (TsModelLoader  *self,
                             GAsyncResult   *result,
                             GError        **error)
{
  TsModelFile *model;

  g_return_val_if_fail (TS_IS_MODEL_LOADER (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == ts_model_loader_load_async, NULL);

  model = g_task_propagate_pointer (G_TASK (result), error);
  if (model != NULL)
    set_progress (self, 1.0, self->message);
  return model;
}

GFile *
ts_model_loader_get_file (TsModelLoader *self)
{
  g_return_val_if_fail (TS_IS_MODEL_LOADER (self), NULL);
  return self->file;
}

double
ts_model_loader_get_fraction (TsModelLoader *self)
{
  g_return_val_if_fail (TS_IS_MODEL_LOADER (self), 0.0);
  return self->fraction;
}

/**
 * ts_model_loader_get_message:
 *
 * Returns: (nullable): what the reader is doing, e.g. "Reading tensor
 *   descriptors: 1,024 of 50,000"
 */
const char *
ts_model_loader_get_message (TsModelLoader *self)
{
  g_return_val_if_fail (TS_IS_MODEL_LOADER (self), NULL);
  return self->message;
}

static void
ts_model_loader_finalize (GObject *object)
{
  TsModelLoader *self = (TsModelLoader *) object;

  g_clear_object (&self->file);
  g_clear_pointer (&self->context, g_main_context_unref);
  g_clear_pointer (&self->message, g_free);
  g_clear_pointer (&self->pending_message, g_free);
  g_mutex_clear (&self->mutex);

  G_OBJECT_CLASS (ts_model_loader_parent_class)->finalize (object);
}

static void
ts_model_loader_get_property (GObject    *object,
                              guint       prop_id,
                              GValue     *value,
                              GParamSpec *pspec)
{
  TsModelLoader *self = TS_MODEL_LOADER (object);

  switch (prop_id)
    {
    case PROP_FILE:
      g_value_set_object (value, self->file);
      break;
    case PROP_FRACTION:
      g_value_set_double (value, self->fraction);
      break;
    case PROP_MESSAGE:
      g_value_set_string (value, self->message);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ts_model_loader_set_property (GObject      *object,
                              guint         prop_id,
                              const GValue *value,
                              GParamSpec   *pspec)
{
  TsModelLoader *self = TS_MODEL_LOADER (object);

  switch (prop_id)
    {
    case PROP_FILE:
      self->file = g_value_dup_object (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ts_model_loader_class_init (TsModelLoaderClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = ts_model_loader_finalize;
  object_class->get_property = ts_model_loader_get_property;
  object_class->set_property = ts_model_loader_set_property;

  properties[PROP_FILE] =
    g_param_spec_object ("file", NULL, NULL, G_TYPE_FILE,
                         (G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS));
  properties[PROP_FRACTION] =
    g_param_spec_double ("fraction", NULL, NULL, 0.0, 1.0, 0.0,
                         (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  properties[PROP_MESSAGE] =
    g_param_spec_string ("message", NULL, NULL, NULL,
                         (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
ts_model_loader_init (TsModelLoader *self)
{
  g_mutex_init (&self->mutex);
}
