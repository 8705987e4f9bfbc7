/* ts-spm-model.c: the pieces of a SentencePiece tokenizer.model
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A tokenizer.model is a serialized sentencepiece.ModelProto (protobuf,
 * proto2). llama.cpp's converter reads only its pieces: field 1, repeated
 * SentencePiece { 1: piece (string), 2: score (float), 3: type (enum) }.
 * This reads the wire format by hand, iteratively (no nested call deeper
 * than one piece), every length checked against what is left of the
 * buffer; other fields are skipped by their wire type, but for the
 * trainer spec's byte_fallback (field 2, its field 35). Beyond the wire
 * format, it refuses what sentencepiece's own loader refuses among the
 * pieces (an empty piece, one defined twice, no or two unknown pieces,
 * byte pieces without byte fallback or not of the form <0xXX>, byte
 * fallback without all 256 of them), so that a model llama.cpp's
 * converter cannot read is not converted here.
 */

#include "config.h"

#include <inttypes.h>

#include <glib/gi18n-lib.h>

#include <string.h>

#include "ts-error.h"
#include "ts-side-file-private.h"
#include "ts-spm-model-private.h"

/* protobuf wire types */
enum
{
  WIRE_VARINT  = 0,
  WIRE_FIXED64 = 1,
  WIRE_LEN     = 2,
  WIRE_FIXED32 = 5,
};

#define MAX_VARINT_BYTES 10

typedef struct
{
  const guint8 *data;
  gsize         length;
  const char   *name;
  gboolean      byte_fallback;  /* TrainerSpec.byte_fallback */
} Reader;

/* for a rule of the pieces as a whole, at no one byte */
#define NO_OFFSET G_MAXSIZE

static gboolean
fail (const Reader *r,
      gsize         at,
      GError      **error,
      const char   *format,
      ...) G_GNUC_PRINTF (4, 5);

static gboolean
fail (const Reader *r,
      gsize         at,
      GError      **error,
      const char   *format,
      ...)
{
  g_autofree char *rule = NULL;
  va_list args;

  va_start (args, format);
  rule = g_strdup_vprintf (format, args);
  va_end (args);
  if (at == NO_OFFSET)
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "%s: %s", r->name, rule);
  else
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, _("%s: byte %" PRIu64 ": %s"),
                 r->name, (guint64) at, rule);
  return FALSE;
}

/* a varint at *@pos, before @end; *@pos moves past it */
static gboolean
read_varint (const Reader *r,
             gsize        *pos,
             gsize         end,
             guint64      *out,
             GError      **error)
{
  guint64 value = 0;
  gsize start = *pos;

  for (guint i = 0; i < MAX_VARINT_BYTES; i++)
    {
      guint8 b;

      if (start + i >= end)
        return fail (r, start, error, _("a varint runs past the end of its message"));
      b = r->data[start + i];
      value |= (guint64) (b & 0x7f) << (7 * i);
      if ((b & 0x80) == 0)
        {
          *pos = start + i + 1;
          *out = value;
          return TRUE;
        }
    }
  return fail (r, start, error, _("a varint longer than %d bytes"), MAX_VARINT_BYTES);
}

/* a field's key; wire types 3 and 4 (groups) and 6, 7 do not occur in a
 * ModelProto and are refused rather than followed */
static gboolean
read_key (const Reader *r,
          gsize        *pos,
          gsize         end,
          guint64      *field,
          guint        *wire,
          GError      **error)
{
  gsize start = *pos;
  guint64 key;

  if (!read_varint (r, pos, end, &key, error))
    return FALSE;
  *field = key >> 3;
  *wire = key & 7;
  if (*field == 0 || *field > G_MAXINT32)
    return fail (r, start, error, _("field number %" PRIu64 " is out of range"), *field);
  if (*wire != WIRE_VARINT && *wire != WIRE_FIXED64 && *wire != WIRE_LEN && *wire != WIRE_FIXED32)
    return fail (r, start, error, _("field %" PRIu64 " has wire type %u, which a "
                                    "SentencePiece model does not use"), *field, *wire);
  return TRUE;
}

/* the extent of a length-delimited value at *@pos: [*@start, *@stop) */
static gboolean
read_len (const Reader *r,
          gsize        *pos,
          gsize         end,
          gsize        *start,
          gsize        *stop,
          GError      **error)
{
  gsize at = *pos;
  guint64 len;

  if (!read_varint (r, pos, end, &len, error))
    return FALSE;
  if (len > end - *pos)
    return fail (r, at, error, _("a length of %" PRIu64 " bytes runs past the end of its "
                                 "message (%" PRIu64 " bytes left)"),
                 len, (guint64) (end - *pos));
  *start = *pos;
  *stop = *pos + (gsize) len;
  *pos = *stop;
  return TRUE;
}

static gboolean
skip_value (const Reader *r,
            gsize        *pos,
            gsize         end,
            guint         wire,
            GError      **error)
{
  gsize at = *pos, a, b;
  guint64 v;

  switch (wire)
    {
    case WIRE_VARINT:
      return read_varint (r, pos, end, &v, error);
    case WIRE_LEN:
      return read_len (r, pos, end, &a, &b, error);
    case WIRE_FIXED64:
    case WIRE_FIXED32:
      if ((wire == WIRE_FIXED64 ? 8 : 4) > end - *pos)
        return fail (r, at, error, _("a fixed-size value runs past the end of its message"));
      *pos += wire == WIRE_FIXED64 ? 8 : 4;
      return TRUE;
    default:
      g_assert_not_reached ();
    }
}

static gboolean
wrong_wire (const Reader *r,
            gsize         at,
            const char   *what,
            guint         wire,
            GError      **error)
{
  return fail (r, at, error, _("%s has wire type %u"), what, wire);
}

/* one SentencePiece message in [@pos, @end); proto2: a field given twice
 * takes its last value, an enum value the schema lacks leaves the type
 * as it was */
static gboolean
read_piece (const Reader *r,
            gsize         pos,
            gsize         end,
            TsSpmModel   *model,
            GError      **error)
{
  gsize piece_start = 0, piece_stop = 0;
  gboolean has_piece = FALSE;
  float score = 0.0f;
  gint32 type = TS_SPM_NORMAL;
  gsize message = pos;

  while (pos < end)
    {
      gsize at = pos;
      guint64 field, v;
      guint wire;
      guint32 bits;

      if (!read_key (r, &pos, end, &field, &wire, error))
        return FALSE;
      if (field == 1)
        {
          if (wire != WIRE_LEN)
            return wrong_wire (r, at, _("a piece's text (field 1)"), wire, error);
          if (!read_len (r, &pos, end, &piece_start, &piece_stop, error))
            return FALSE;
          if (memchr (r->data + piece_start, '\0', piece_stop - piece_start) != NULL)
            return fail (r, piece_start, error, _("a piece holds a NUL byte"));
          if (!g_utf8_validate_len ((const char *) r->data + piece_start, piece_stop - piece_start, NULL))
            return fail (r, piece_start, error, _("a piece is not valid UTF-8"));
          has_piece = TRUE;
        }
      else if (field == 2)
        {
          if (wire != WIRE_FIXED32)
            return wrong_wire (r, at, _("a piece's score (field 2)"), wire, error);
          if (4 > end - pos)
            return fail (r, pos, error, _("a score runs past the end of its piece"));
          bits = (guint32) r->data[pos] | (guint32) r->data[pos + 1] << 8 |
                 (guint32) r->data[pos + 2] << 16 | (guint32) r->data[pos + 3] << 24;
          memcpy (&score, &bits, sizeof score);
          pos += 4;
        }
      else if (field == 3)
        {
          if (wire != WIRE_VARINT)
            return wrong_wire (r, at, _("a piece's type (field 3)"), wire, error);
          if (!read_varint (r, &pos, end, &v, error))
            return FALSE;
          if (v >= TS_SPM_NORMAL && v <= TS_SPM_BYTE)
            type = (gint32) v;
        }
      else if (!skip_value (r, &pos, end, wire, error))
        return FALSE;
    }
  if (!has_piece || piece_stop == piece_start)
    return fail (r, message, error, _("a piece without text (sentencepiece refuses empty pieces)"));
  g_ptr_array_add (model->pieces, g_strndup ((const char *) r->data + piece_start, piece_stop - piece_start));
  g_array_append_val (model->scores, score);
  g_array_append_val (model->types, type);
  return TRUE;
}

/* the TrainerSpec (field 2 of the model, given once or in parts that
 * protobuf merges): only its byte_fallback (field 35) matters here */
static gboolean
read_trainer_spec (Reader  *r,
                   gsize    pos,
                   gsize    end,
                   GError **error)
{
  while (pos < end)
    {
      gsize at = pos;
      guint64 field, v;
      guint wire;

      if (!read_key (r, &pos, end, &field, &wire, error))
        return FALSE;
      if (field != 35)
        {
          if (!skip_value (r, &pos, end, wire, error))
            return FALSE;
          continue;
        }
      if (wire != WIRE_VARINT)
        return wrong_wire (r, at, _("the trainer spec's byte_fallback (field 35)"), wire, error);
      if (!read_varint (r, &pos, end, &v, error))
        return FALSE;
      r->byte_fallback = v != 0;
    }
  return TRUE;
}

/* sentencepiece's PieceToByte(): "<0x00>" … "<0xFF>", upper-case hex */
static int
piece_to_byte (const char *piece)
{
  static const char digits[] = "0123456789ABCDEF";
  const char *hi, *lo;

  if (strlen (piece) != 6 || !g_str_has_prefix (piece, "<0x") || piece[5] != '>' ||
      piece[3] == '\0' || piece[4] == '\0' ||
      (hi = strchr (digits, piece[3])) == NULL || (lo = strchr (digits, piece[4])) == NULL)
    return -1;
  return (int) (hi - digits) * 16 + (int) (lo - digits);
}

/* sentencepiece's ModelInterface::InitializePieces(): one unknown piece,
 * no text twice among the normal (normal, user-defined, unused) or among
 * the other pieces, byte pieces only with byte fallback, and then all 256 */
static gboolean
check_pieces (const Reader *r,
              TsSpmModel   *model,
              GError      **error)
{
  g_autoptr(GHashTable) normal = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GHashTable) reserved = g_hash_table_new (g_str_hash, g_str_equal);
  gboolean byte_found[256] = { FALSE };
  gint64 unk = -1;

  for (guint i = 0; i < model->pieces->len; i++)
    {
      const char *piece = g_ptr_array_index (model->pieces, i);
      gint32 type = g_array_index (model->types, gint32, i);
      gboolean is_normal = type == TS_SPM_NORMAL || type == TS_SPM_USER_DEFINED || type == TS_SPM_UNUSED;

      if (!g_hash_table_add (is_normal ? normal : reserved, (gpointer) piece))
        return fail (r, NO_OFFSET, error, _("piece %u \"%s\" is defined twice"), i, piece);
      if (type == TS_SPM_UNKNOWN && unk >= 0)
        return fail (r, NO_OFFSET, error, _("pieces %" PRId64 " and %u are both the unknown piece"),
                          unk, i);
      if (type == TS_SPM_UNKNOWN)
        unk = i;
      if (type == TS_SPM_BYTE && !r->byte_fallback)
        return fail (r, NO_OFFSET, error, _("piece %u \"%s\" is a byte piece, but the trainer spec does "
                                      "not have byte_fallback"), i, piece);
      if (type == TS_SPM_BYTE && piece_to_byte (piece) < 0)
        return fail (r, NO_OFFSET, error, _("piece %u \"%s\" is a byte piece not of the form <0xXX>"),
                          i, piece);
      if (type == TS_SPM_BYTE)
        byte_found[piece_to_byte (piece)] = TRUE;
    }
  if (unk < 0)
    return fail (r, NO_OFFSET, error, _("no piece is the unknown piece (sentencepiece requires one)"));
  for (guint b = 0; r->byte_fallback && b < G_N_ELEMENTS (byte_found); b++)
    if (!byte_found[b])
      return fail (r, NO_OFFSET, error, _("byte_fallback without a byte piece <0x%02X> (sentencepiece "
                                    "requires all 256)"), b);
  return TRUE;
}

void
_ts_spm_model_free (TsSpmModel *model)
{
  if (model == NULL)
    return;
  g_clear_pointer (&model->pieces, g_ptr_array_unref);
  g_clear_pointer (&model->scores, g_array_unref);
  g_clear_pointer (&model->types, g_array_unref);
  g_free (model);
}

/**
 * _ts_spm_model_parse:
 * @data: the bytes of a tokenizer.model
 * @length: their count
 * @name: the file's name, for messages
 * @error: return location for a #GError
 *
 * Reads the pieces of a serialized sentencepiece.ModelProto. Errors are
 * G_IO_ERROR_INVALID_DATA naming @name, the byte offset and the rule.
 *
 * Returns: (transfer full): the pieces, or %NULL on error
 */
TsSpmModel *
_ts_spm_model_parse (const guint8  *data,
                     gsize          length,
                     const char    *name,
                     GError       **error)
{
  g_autoptr(TsSpmModel) model = g_new0 (TsSpmModel, 1);
  Reader r = { data, length, name, FALSE };
  gsize pos = 0;

  g_return_val_if_fail (data != NULL || length == 0, NULL);
  g_return_val_if_fail (name != NULL, NULL);

  model->pieces = g_ptr_array_new_with_free_func (g_free);
  model->scores = g_array_new (FALSE, FALSE, sizeof (float));
  model->types = g_array_new (FALSE, FALSE, sizeof (gint32));
  while (pos < length)
    {
      gsize at = pos, start = 0, stop = 0;
      guint64 field;
      guint wire;

      if (!read_key (&r, &pos, length, &field, &wire, error))
        return NULL;
      if (field == 2)
        {
          if (wire != WIRE_LEN)
            return (wrong_wire (&r, at, _("the trainer spec (field 2)"), wire, error), NULL);
          if (!read_len (&r, &pos, length, &start, &stop, error) ||
              !read_trainer_spec (&r, start, stop, error))
            return NULL;
          continue;
        }
      if (field != 1)
        {
          if (!skip_value (&r, &pos, length, wire, error))
            return NULL;
          continue;
        }
      if (wire != WIRE_LEN)
        return (wrong_wire (&r, at, _("a piece (field 1)"), wire, error), NULL);
      if (model->pieces->len >= TS_SPM_MAX_PIECES)
        return (fail (&r, at, error, _("more than %d pieces, more than any real model has"),
                      TS_SPM_MAX_PIECES), NULL);
      if (!read_len (&r, &pos, length, &start, &stop, error) ||
          !read_piece (&r, start, stop, model, error))
        return NULL;
    }
  if (model->pieces->len == 0)
    return (fail (&r, NO_OFFSET, error, _("no pieces (not a SentencePiece model)")), NULL);
  if (!check_pieces (&r, model, error))
    return NULL;
  return g_steal_pointer (&model);
}

/**
 * _ts_spm_model_load:
 * @file: a tokenizer.model
 * @error: return location for a #GError
 *
 * Reads @file (at most %TS_SPM_MAX_FILE_SIZE bytes) with
 * _ts_spm_model_parse().
 *
 * Returns: (transfer full): the pieces, or %NULL on error
 */
TsSpmModel *
_ts_spm_model_load (GFile   *file,
                    GError **error)
{
  g_autofree char *name = ts_file_display_basename (file);
  g_autofree char *contents = NULL;
  GError *local_error = NULL;
  gsize length = 0;

  if (!_ts_load_side_file (file, TS_SPM_MAX_FILE_SIZE, NULL, &contents, &length, &local_error))
    {
      g_propagate_prefixed_error (error, local_error, "%s: ", name);
      return NULL;
    }
  return _ts_spm_model_parse ((const guint8 *) contents, length, name, error);
}
