/* ts-json-private.h: a guard in front of json-glib for JSON from files
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>
#include <string.h>

G_BEGIN_DECLS

/* json-glib parses nested arrays and objects recursively: a Safetensors
 * header of a million '[' overflows the stack of whatever thread opens it.
 * Real headers, indexes, configs and tokenizers nest fewer than 10 levels. */
#define TS_JSON_MAX_DEPTH 128

static inline gint
_ts_json_hex4 (const char *json,
               gsize       len,
               gsize       at)
{
  gint value = 0;

  if (at + 4 > len)
    return -1;
  for (gsize k = at; k < at + 4; k++)
    {
      gint digit = g_ascii_xdigit_value (json[k]);

      if (digit < 0)
        return -1;
      value = value * 16 + digit;
    }
  return value;
}

/* The index of the quote that ends the string opening at @start (or @len
 * or more if it runs to the end), escapes skipped; *@bad is set to the index of
 * the first escape json-glib cannot keep: \u0000 (it would end the string
 * there) or a lone surrogate (it would write bytes that are not UTF-8). */
static inline gsize
_ts_json_string_end (const char *json,
                     gsize       len,
                     gsize       start,
                     gsize      *bad)
{
  gsize i;

  for (i = start + 1; i < len && json[i] != '"'; i++)
    {
      gint unit;

      if (json[i] != '\\')
        continue;
      if (i + 1 < len && json[i + 1] == 'u' && (unit = _ts_json_hex4 (json, len, i + 2)) >= 0)
        {
          if (unit == 0 || (unit >= 0xdc00 && unit <= 0xdfff))
            *bad = MIN (*bad, i);
          else if (unit >= 0xd800 && unit <= 0xdbff)
            {
              gint low = i + 7 < len && json[i + 6] == '\\' && json[i + 7] == 'u'
                         ? _ts_json_hex4 (json, len, i + 8) : -1;

              if (low < 0xdc00 || low > 0xdfff)
                *bad = MIN (*bad, i);
              else
                i += 6;   /* the pair's second half */
            }
          i += 4;
        }
      i++;
    }
  return i;
}

/* json-glib keeps a parsed document as a tree, and the scan below weighs
 * each part of it by what it costs there, in units of about 80 bytes
 * (measured with json-glib 1.6): a scalar in an array 1 (81 bytes), an
 * object member 2 (145 bytes with its scalar), an array 3 with one
 * element (221 bytes), an object 7 with one member (549 bytes). So
 * "[0,0,0,…]" costs 40 times its size, and "[{},{},…]" no longer 180
 * times. The largest real tokenizer.json files weigh about 2.5 million
 * units (merges as pairs, 4 units each); a little more than that is the
 * most any JSON from a model folder may weigh, so that no file makes the
 * parse take more than ~320 MB. */
#define TS_JSON_MAX_VALUES 4000000
#define TS_JSON_UNIT_BYTES 80
/* a Safetensors header: 17 units a tensor of one dimension
 * ('"t":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},'), one more a
 * dimension, so the 2^20 tensors a model may hold fit with four each, and
 * no header takes more than those do (~1.7 GB) */
#define TS_JSON_MAX_HEADER_VALUES 22000000
/* the extra units of an object, an array and a member (see above) */
#define TS_JSON_OBJECT_UNITS 5
#define TS_JSON_ARRAY_UNITS  2
#define TS_JSON_MEMBER_UNITS 1

typedef enum
{
  TS_JSON_OK,
  TS_JSON_NOT_STRICT,       /* a character JSON does not allow outside strings */
  TS_JSON_TOO_DEEP,         /* arrays and objects nested deeper than TS_JSON_MAX_DEPTH */
  TS_JSON_SYNTAX,           /* a token where JSON's grammar has none, or the end too soon */
  TS_JSON_TOO_MANY_VALUES,  /* more than the values asked for */
  TS_JSON_UNKEPT_ESCAPE,    /* a string holds \u0000 or a lone surrogate */
  TS_JSON_TRAILING,         /* a second value after the document's own */
} TsJsonCheck;

/* What the grammar expects next (TS_JSON_SYNTAX says which) */
typedef enum
{
  TS_JSON_EXPECT_VALUE,
  TS_JSON_EXPECT_VALUE_OR_CLOSE,   /* after '[' */
  TS_JSON_EXPECT_KEY_OR_CLOSE,     /* after '{' */
  TS_JSON_EXPECT_KEY,              /* after ',' in an object */
  TS_JSON_EXPECT_COLON,            /* after a key */
  TS_JSON_EXPECT_NEXT,             /* after a member or element: ',' or the close */
  TS_JSON_EXPECT_LITERAL,          /* a number, true, false or null, not what is there */
  TS_JSON_EXPECT_QUOTE,            /* the end of a string the text ends inside */
  TS_JSON_EXPECT_END,              /* nothing after the value but white space */
} TsJsonExpect;

static inline gboolean
_ts_json_is_space (char ch)
{
  return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r';
}

static inline gboolean
_ts_json_is_scalar_char (char ch)
{
  return g_ascii_isalnum (ch) || ch == '-' || ch == '+' || ch == '.';
}

/* the index just past the number, true, false or null starting at @start */
static inline gsize
_ts_json_scalar_end (const char *json,
                     gsize       len,
                     gsize       start)
{
  gsize end = start + 1;

  while (end < len && _ts_json_is_scalar_char (json[end]))
    end++;
  return end;
}

static inline gsize
_ts_json_digits (const char *token,
                 gsize       len,
                 gsize       at)
{
  while (at < len && g_ascii_isdigit (token[at]))
    at++;
  return at;
}

/* TRUE for true, false, null and numbers as JSON writes them:
 * -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? (json-glib also reads 01,
 * 1., .5 and 0x10, which Python's json and serde_json refuse) */
static inline gboolean
_ts_json_literal_ok (const char *token,
                     gsize       len)
{
  gsize i = 0, digits;

  if ((len == 4 && memcmp (token, "true", 4) == 0) ||
      (len == 5 && memcmp (token, "false", 5) == 0) ||
      (len == 4 && memcmp (token, "null", 4) == 0))
    return TRUE;
  if (i < len && token[i] == '-')
    i++;
  digits = _ts_json_digits (token, len, i);
  if (digits == i || (token[i] == '0' && digits > i + 1))
    return FALSE;
  i = digits;
  if (i < len && token[i] == '.')
    {
      digits = _ts_json_digits (token, len, i + 1);
      if (digits == i + 1)
        return FALSE;
      i = digits;
    }
  if (i < len && (token[i] == 'e' || token[i] == 'E'))
    {
      i++;
      if (i < len && (token[i] == '+' || token[i] == '-'))
        i++;
      digits = _ts_json_digits (token, len, i);
      if (digits == i)
        return FALSE;
      i = digits;
    }
  return i == len;
}

/* json-glib reads an integer beyond int64 wrong, without a word: 2^70 as
 * -1, 2^64 + 2 as a float. TRUE for the digits of such an integer (a
 * number without a fraction or an exponent). */
static inline gboolean
_ts_json_integer_too_large (const char *token,
                            gsize       len)
{
  gboolean negative = token[0] == '-';
  const char *digits = token + negative;
  gsize n = len - negative;

  for (gsize k = 0; k < n; k++)
    if (!g_ascii_isdigit (digits[k]))
      return FALSE;
  if (n != 19)
    return n > 19;
  return strncmp (digits, negative ? "9223372036854775808" : "9223372036854775807", 19) > 0;
}

/* The guard in front of json-glib, one linear scan without allocation:
 * JSON's grammar (json-glib's own messages name the token before the
 * fault, at a line and column, and it reads 01, 1., .5 and 0x10, where
 * Python's json and serde_json refuse them), outside strings nothing but
 * JSON's own characters, arrays and objects nested at most
 * TS_JSON_MAX_DEPTH deep, and at most @max_values units of what the
 * parsed tree will cost (counted from the commas, colons and brackets,
 * weighed as above). json-glib would also take comments and
 * single-quoted strings, and reads "{} {…}" as the first object and drops
 * the rest, where Python's json and serde_json refuse the "extra data".
 * *@where (if given) is the index of the fault (of the character that is
 * not JSON's, of the token the grammar has no place for or @len where the
 * text ends too soon, of the bracket too deep, of the second value), and
 * *@expected (if given) what the grammar wanted there. No string may hold
 * an escape json-glib cannot keep (\u0000, which would cut the string
 * short, or a lone surrogate): *@where is then the index of its
 * backslash. *@negative_zero (if given) is the index of the first integer
 * written "-0" (G_MAXSIZE if none), which serde_json reads as a float;
 * *@large_integer (if given) that of the first integer beyond int64. */
static inline TsJsonCheck
_ts_json_scan (const char   *json,
               gsize         len,
               guint64       max_values,
               gsize        *where,
               TsJsonExpect *expected,
               gsize        *negative_zero,
               gsize        *large_integer)
{
  gboolean in_object[TS_JSON_MAX_DEPTH + 1];
  TsJsonExpect state = TS_JSON_EXPECT_VALUE;
  guint depth = 0;
  guint64 values = 1;
  gsize bad = G_MAXSIZE;
  gsize at = 0;
  gboolean root_done = FALSE;

  if (negative_zero != NULL)
    *negative_zero = G_MAXSIZE;
  if (large_integer != NULL)
    *large_integer = G_MAXSIZE;
  for (gsize i = 0; i < len; i++)
    {
      char ch = json[i];
      gboolean value_done = FALSE;

      if (_ts_json_is_space (ch))
        continue;
      at = i;
      /* an escape json-glib cannot keep, found before, is the first fault */
      if (depth == 0 && root_done)
        {
          if (bad != G_MAXSIZE)
            goto unkept;
          /* a second value, or a stray character ("{}}") */
          if (ch != '"' && ch != '[' && ch != '{' && !_ts_json_is_scalar_char (ch))
            {
              state = TS_JSON_EXPECT_END;
              goto syntax;
            }
          if (where != NULL)
            *where = i;
          return TS_JSON_TRAILING;
        }
      if (ch == '"')
        {
          gsize string_bad = G_MAXSIZE;
          gsize end = _ts_json_string_end (json, len, i, &string_bad);

          if (end >= len)
            {
              bad = MIN (bad, string_bad);
              state = TS_JSON_EXPECT_QUOTE;
              at = len;
              goto syntax;
            }
          if (state == TS_JSON_EXPECT_KEY_OR_CLOSE || state == TS_JSON_EXPECT_KEY)
            state = TS_JSON_EXPECT_COLON;
          else if (state == TS_JSON_EXPECT_VALUE || state == TS_JSON_EXPECT_VALUE_OR_CLOSE)
            value_done = TRUE;
          else
            goto syntax;
          /* (the string is no fault: its escapes count from here) */
          bad = MIN (bad, string_bad);
          i = end;
        }
      else if (ch == '[' || ch == '{')
        {
          if (state != TS_JSON_EXPECT_VALUE && state != TS_JSON_EXPECT_VALUE_OR_CLOSE)
            goto syntax;
          if (depth == TS_JSON_MAX_DEPTH)
            {
              if (bad != G_MAXSIZE)
                goto unkept;
              if (where != NULL)
                *where = i;
              return TS_JSON_TOO_DEEP;
            }
          values += ch == '{' ? TS_JSON_OBJECT_UNITS : TS_JSON_ARRAY_UNITS;
          if (values > max_values)
            return TS_JSON_TOO_MANY_VALUES;
          in_object[++depth] = ch == '{';
          state = ch == '{' ? TS_JSON_EXPECT_KEY_OR_CLOSE : TS_JSON_EXPECT_VALUE_OR_CLOSE;
        }
      else if (ch == ']' || ch == '}')
        {
          gboolean object = ch == '}';

          if (depth == 0 || in_object[depth] != object ||
              (state != TS_JSON_EXPECT_NEXT &&
               state != (object ? TS_JSON_EXPECT_KEY_OR_CLOSE : TS_JSON_EXPECT_VALUE_OR_CLOSE)))
            goto syntax;
          depth--;
          value_done = TRUE;
        }
      else if (ch == ',')
        {
          if (state != TS_JSON_EXPECT_NEXT)
            goto syntax;
          if (++values > max_values)
            return TS_JSON_TOO_MANY_VALUES;
          state = in_object[depth] ? TS_JSON_EXPECT_KEY : TS_JSON_EXPECT_VALUE;
        }
      else if (ch == ':')
        {
          if (state != TS_JSON_EXPECT_COLON)
            goto syntax;
          values += TS_JSON_MEMBER_UNITS;
          if (values > max_values)
            return TS_JSON_TOO_MANY_VALUES;
          state = TS_JSON_EXPECT_VALUE;
        }
      else if (_ts_json_is_scalar_char (ch))
        {
          gsize end = _ts_json_scalar_end (json, len, i);

          if (state != TS_JSON_EXPECT_VALUE && state != TS_JSON_EXPECT_VALUE_OR_CLOSE)
            goto syntax;
          if (!_ts_json_literal_ok (json + i, end - i))
            {
              state = TS_JSON_EXPECT_LITERAL;
              goto syntax;
            }
          if (negative_zero != NULL && *negative_zero == G_MAXSIZE &&
              end - i == 2 && ch == '-' && json[i + 1] == '0')
            *negative_zero = i;
          if (large_integer != NULL && *large_integer == G_MAXSIZE &&
              _ts_json_integer_too_large (json + i, end - i))
            *large_integer = i;
          i = end - 1;
          value_done = TRUE;
        }
      else
        {
          if (bad != G_MAXSIZE)
            goto unkept;
          if (where != NULL)
            *where = i;
          return TS_JSON_NOT_STRICT;
        }
      if (value_done)
        {
          if (depth == 0)
            root_done = TRUE;
          else
            state = TS_JSON_EXPECT_NEXT;
        }
    }
  if (!root_done)
    {
      at = len;
      goto syntax;
    }
  if (bad != G_MAXSIZE)
    goto unkept;
  return TS_JSON_OK;

syntax:
  /* (bad only holds escapes before @at) */
  if (bad != G_MAXSIZE)
    goto unkept;
  if (where != NULL)
    *where = at;
  if (expected != NULL)
    *expected = state;
  return TS_JSON_SYNTAX;

unkept:
  if (where != NULL)
    *where = bad;
  return TS_JSON_UNKEPT_ESCAPE;
}

static inline TsJsonCheck
_ts_json_check (const char   *json,
                gsize         len,
                guint64       max_values,
                gsize        *where,
                TsJsonExpect *expected)
{
  return _ts_json_scan (json, len, max_values, where, expected, NULL, NULL);
}

/* A sentence for a TS_JSON_NOT_STRICT, TS_JSON_TOO_DEEP or TS_JSON_SYNTAX
 * result of _ts_json_scan() at @where (what the grammar @expected there),
 * without the file or byte (ts-side-file.c) */
char *_ts_json_describe (TsJsonCheck   check,
                         const char   *json,
                         gsize         len,
                         gsize         where,
                         TsJsonExpect  expected);

G_END_DECLS
