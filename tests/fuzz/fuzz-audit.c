/* fuzz-audit.c: the audit's pairing and comparison of a fuzzed GGUF against
 * a fixed small checkpoint (or against that checkpoint's own conversion)
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The checkpoint folder comes from $TS_FUZZ_CHECKPOINT, else from the path
 * meson compiled in (tests/ref/gen_checkpoint.py output). Input: one mode
 * byte (bit 0: the source is the checkpoint's reference GGUF,
 * $TS_FUZZ_REFERENCE, instead of the checkpoint), then the GGUF bytes.
 */

#include "config.h"

#include "fuzz-common.h"

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

static TsModelFile *checkpoint;
static TsModelFile *reference;

static TsModelFile *
load_fixed (const char *env,
            const char *fallback)
{
  const char *path = g_getenv (env) ? g_getenv (env) : fallback;
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  TsModelFile *model = ts_model_file_load (file, NULL, &error);

  if (model == NULL)
    g_error ("%s (%s): %s", env, path, error->message);
  return model;
}

static void
walk_report (TsAuditReport *report)
{
  g_autoptr(JsonNode) json = ts_audit_report_to_json (report);
  g_autofree char *text = ts_audit_report_to_text (report);
  GListModel *pairs = ts_audit_report_get_pairs (report);

  ts_fuzz_assert (json != NULL && text != NULL);
  for (guint i = 0; i < g_list_model_get_n_items (pairs); i++)
    {
      g_autoptr(TsAuditPair) pair = g_list_model_get_item (pairs, i);

      ts_fuzz_assert (ts_audit_pair_get_n_mismatch (pair) <= ts_audit_pair_get_n_values (pair));
    }
}

int
LLVMFuzzerTestOneInput (const guint8 *data,
                        size_t        size)
{
  g_autoptr(GFile) dir = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(TsModelFile) target = NULL;
  g_autoptr(TsAuditReport) report = NULL;
  g_autoptr(GError) error = NULL;
  TsAuditOptions options;
  guint mode;

  if (size < 1)
    return 0;
  ts_fuzz_init ();
  if (checkpoint == NULL)
    {
      checkpoint = load_fixed ("TS_FUZZ_CHECKPOINT", TS_FUZZ_CHECKPOINT);
      reference = load_fixed ("TS_FUZZ_REFERENCE", TS_FUZZ_REFERENCE);
    }
  mode = data[0];
  dir = ts_fuzz_fresh_dir ();
  file = ts_fuzz_write_file (dir, "target.gguf", data + 1, size - 1);
  target = ts_model_file_load (file, NULL, NULL);
  if (target == NULL || !TS_IS_GGUF_FILE (target))
    return 0;

  ts_audit_options_init (&options);
  options.n_jobs = 1;
  report = ts_audit_run ((mode & 1) ? reference : checkpoint, target, &options, NULL, &error);
  if (report == NULL)
    {
      ts_fuzz_assert (error != NULL);
      return 0;
    }
  walk_report (report);
  return 0;
}
