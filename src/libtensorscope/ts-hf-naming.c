/* ts-hf-naming.c: general.* naming keys as llama.cpp's converter derives them
 *
 * Copyright 2026 The Tensorscope authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The rules are those of gguf-py's gguf/metadata.py (Metadata.load,
 * apply_metadata_heuristic, get_model_id_components, id_to_title) and
 * gguf/utility.py (size_label, naming_convention). Pattern matching is done
 * on ASCII, where gguf-py's regular expressions would also accept Unicode
 * digits and word characters; real model ids are ASCII.
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "ts-error.h"
#include "ts-side-file-private.h"
#include "ts-hf-naming.h"

#define MAX_CARD_SIZE (256 * 1024 * 1024)
/* the longest front matter read: real ones take a few kB, a card with a
 * long model-index some hundreds; 15 MB of "a: b" lines took 290 MB and
 * 2 s to split and parse (~95 bytes a line), so one over 4 MB is left
 * out, as no card */
#define MAX_FRONT_MATTER (4 * 1024 * 1024)

/* ------------------------------------------------------------ model ids */

enum
{
  PART_BASENAME   = 1 << 0,
  PART_SIZE_LABEL = 1 << 1,
  PART_FINETUNE   = 1 << 2,
  PART_VERSION    = 1 << 3,
  PART_TYPE       = 1 << 4,
};

/* \d+ at *p; advances past it */
static gboolean
eat_digits (const char **p)
{
  const char *s = *p;

  while (g_ascii_isdigit (**p))
    (*p)++;
  return *p > s;
}

static gboolean
eat_prefix_ci (const char **p,
               const char  *prefix)
{
  gsize n = strlen (prefix);

  if (g_ascii_strncasecmp (*p, prefix, n) != 0)
    return FALSE;
  *p += n;
  return TRUE;
}

/* \d+([.]\d+)* to the end */
static gboolean
match_dotted_number (const char *p)
{
  if (!eat_digits (&p))
    return FALSE;
  while (*p == '.')
    {
      p++;
      if (!eat_digits (&p))
        return FALSE;
    }
  return *p == '\0';
}

/* (v|iter)?\d+([.]\d+)*, case-insensitive */
static gboolean
match_version (const char *part)
{
  const char *p = part;

  if (match_dotted_number (part))
    return TRUE;
  if (eat_prefix_ci (&p, "iter") && match_dotted_number (p))
    return TRUE;
  p = part;
  return eat_prefix_ci (&p, "v") && match_dotted_number (p);
}

/* i?q\d(_\w)*|b?fp?(16|32), case-insensitive */
static gboolean
match_quant_type (const char *part)
{
  const char *p = part;

  eat_prefix_ci (&p, "i");
  if (eat_prefix_ci (&p, "q") && g_ascii_isdigit (*p))
    {
      for (p++; p[0] == '_' && (g_ascii_isalnum (p[1]) || p[1] == '_'); p += 2)
        ;
      if (*p == '\0')
        return TRUE;
    }
  p = part;
  eat_prefix_ci (&p, "b");
  if (!eat_prefix_ci (&p, "f"))
    return FALSE;
  eat_prefix_ci (&p, "p");
  return g_ascii_strcasecmp (p, "16") == 0 || g_ascii_strcasecmp (p, "32") == 0;
}

/* \d+([._]\d+)?[KMBT]\d? to the end, case-insensitive */
static gboolean
match_size_core (const char *p)
{
  if (!eat_digits (&p))
    return FALSE;
  if ((*p == '.' || *p == '_') && g_ascii_isdigit (p[1]))
    {
      p++;
      eat_digits (&p);
    }
  if (*p == '\0' || strchr ("KMBTkmbt", *p) == NULL)
    return FALSE;
  p++;
  if (g_ascii_isdigit (*p))
    p++;
  return *p == '\0';
}

/* (([A]|\d+[x])?\d+([._]\d+)?[KMBT][\d]?|small|mini|medium|large|x?xl) */
static gboolean
match_size_label (const char *part)
{
  static const char *const words[] = { "small", "mini", "medium", "large", "xl", "xxl" };
  const char *p = part;

  for (guint i = 0; i < G_N_ELEMENTS (words); i++)
    if (g_ascii_strcasecmp (part, words[i]) == 0)
      return TRUE;
  if (match_size_core (part))
    return TRUE;
  if (eat_prefix_ci (&p, "a") && match_size_core (p))
    return TRUE;
  p = part;
  return eat_digits (&p) && eat_prefix_ci (&p, "x") && match_size_core (p);
}

/* A\d+([._]\d+)?[KMBT][\d]?, case-insensitive */
static gboolean
match_active_params (const char *label)
{
  const char *p = label;

  return eat_prefix_ci (&p, "a") && match_size_core (p);
}

static gboolean
match_finetune_word (const char *part)
{
  return g_ascii_strcasecmp (part, "chat") == 0 ||
         g_ascii_strcasecmp (part, "instruct") == 0 ||
         g_ascii_strcasecmp (part, "vision") == 0 ||
         g_ascii_strcasecmp (part, "lora") == 0;
}

/* normalize_size_label(): "7b1" -> "7.1B", "3b" -> "3B". NULL where gguf-py
 * would fail (IndexError) on a one-character label ending in a digit. */
static char *
normalize_size_label (const char *label)
{
  g_autoptr(GString) s = g_string_new (label);

  g_strdelimit (s->str, "_", '.');
  if (s->len > 0 && g_ascii_isdigit (s->str[s->len - 1]))
    {
      char last = s->str[s->len - 1];
      char before;

      if (s->len < 2)
        return NULL;
      before = s->str[s->len - 2];
      g_string_truncate (s, s->len - 2);
      g_string_append_c (s, '.');
      g_string_append_c (s, last);
      g_string_append_c (s, before);
    }
  if (s->len > 1 && g_ascii_isdigit (s->str[s->len - 2]) &&
      strchr ("kmbt", s->str[s->len - 1]) != NULL)
    s->str[s->len - 1] = g_ascii_toupper (s->str[s->len - 1]);
  return g_string_free (g_steal_pointer (&s), FALSE);
}

/* get_size_label_params(): float(label[:-1]) * 1000 ** " KMBT".find(label[-1]);
 * FALSE where Python's float() would raise */
static gboolean
size_label_params (const char *label,
                   double     *out)
{
  gsize n = strlen (label);
  g_autofree char *number = NULL;
  const char *p;
  const char *scale;

  if (n < 2)
    return FALSE;
  number = g_strndup (label, n - 1);
  p = number;
  if (!eat_digits (&p))
    return FALSE;
  if (*p == '.')
    {
      p++;
      if (!eat_digits (&p))
        return FALSE;
    }
  if (*p != '\0')
    return FALSE;
  scale = strchr (" KMBT", label[n - 1]);
  *out = g_ascii_strtod (number, NULL) * pow (1000.0, scale != NULL ? (double) (scale - " KMBT") : -1.0);
  return TRUE;
}

/* A size in the name far from the real parameter count is a context length
 * ("Llama-3-8B-262K"), unless the next part gives the active parameters of
 * a mixture of experts that match ("26B-A4B"). */
static gboolean
size_is_context_length (const char *label,
                        const char *next_part,
                        guint64     total_params)
{
  double tolerance = (double) (7 * total_params / 8);
  double label_params, active;
  g_autofree char *next = next_part ? normalize_size_label (next_part) : NULL;

  if (!size_label_params (label, &label_params))
    return FALSE;
  if (next != NULL && match_active_params (next) &&
      size_label_params (next + 1, &active) &&
      fabs (active - (double) total_params) <= tolerance)
    return FALSE;
  return fabs (label_params - (double) total_params) > tolerance;
}

static void
classify_part (GPtrArray *parts,
               guint     *types,
               guint      i,
               guint64    total_params)
{
  char *part = g_ptr_array_index (parts, i);

  if (match_version (part))
    types[i] |= PART_VERSION;
  else if (match_quant_type (part))
    {
      types[i] |= PART_TYPE;
      parts->pdata[i] = g_utf8_strup (part, -1);
      g_free (part);
    }
  else if (i > 0 && match_size_label (part))
    {
      char *label = normalize_size_label (part);
      const char *next = i + 1 < parts->len ? g_ptr_array_index (parts, i + 1) : NULL;

      if (total_params != 0 && size_is_context_length (label, next, total_params))
        {
          types[i] |= PART_FINETUNE;
          label[strlen (label) - 1] = g_ascii_tolower (label[strlen (label) - 1]);
        }
      if (types[i] == 0)
        types[i] |= PART_SIZE_LABEL;
      parts->pdata[i] = label;
      g_free (part);
    }
  else if (i > 0 && match_finetune_word (part))
    types[i] |= PART_FINETUNE;
}

static gboolean
has_ascii_digit (const char *s)
{
  return strpbrk (s, "0123456789") != NULL;
}

static gboolean
is_all_alpha (const char *s)
{
  for (const char *p = s; *p; p = g_utf8_next_char (p))
    if (!g_unichar_isalpha (g_utf8_get_char (p)))
      return FALSE;
  return TRUE;
}

/* word size labels ("small") go when a numeric one ("7B") is present */
static void
drop_word_size_labels (GPtrArray *parts,
                       guint     *types)
{
  gboolean numeric = FALSE;

  for (guint i = 0; i < parts->len; i++)
    if ((types[i] & PART_SIZE_LABEL) && has_ascii_digit (g_ptr_array_index (parts, i)))
      numeric = TRUE;
  if (!numeric)
    return;
  for (guint i = 0; i < parts->len; i++)
    if ((types[i] & PART_SIZE_LABEL) && is_all_alpha (g_ptr_array_index (parts, i)))
      types[i] &= ~PART_SIZE_LABEL;
}

/* the leading untyped words and versions form the basename; later untyped
 * words are finetunes; a trailing version leaves the basename */
static void
mark_basename (GPtrArray *parts,
               guint     *types)
{
  gboolean at_start = TRUE;

  for (guint i = 0; i < parts->len; i++)
    {
      const char *part = g_ptr_array_index (parts, i);
      gboolean alpha = g_unichar_isalpha (g_utf8_get_char (part));

      if (at_start && ((types[i] == 0 && alpha) || (types[i] & PART_VERSION)))
        types[i] |= PART_BASENAME;
      else
        {
          at_start = FALSE;
          if (types[i] == 0)
            types[i] |= PART_FINETUNE;
        }
    }
  for (guint i = parts->len; i > 0; i--)
    {
      if (!(types[i - 1] & PART_BASENAME) || types[i - 1] == PART_BASENAME)
        break;
      types[i - 1] &= ~PART_BASENAME;
    }
}

/* "-".join of the parts with @type (minus @exclude), or NULL when none */
static char *
join_parts (GPtrArray *parts,
            guint     *types,
            guint      type,
            guint      exclude,
            gboolean   unique)
{
  g_autoptr(GString) s = g_string_new (NULL);
  g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);

  for (guint i = 0; i < parts->len; i++)
    {
      const char *part = g_ptr_array_index (parts, i);

      if (!(types[i] & type) || (types[i] & exclude))
        continue;
      if (unique && !g_hash_table_add (seen, (gpointer) part))
        continue;
      if (s->len > 0)
        g_string_append_c (s, '-');
      g_string_append (s, part);
    }
  return s->len > 0 ? g_strdup (s->str) : NULL;
}

static void
split_name_parts (TsHfModelId *out,
                  guint64      total_params)
{
  g_auto(GStrv) split = g_strsplit (out->full_name, "-", -1);
  g_autoptr(GPtrArray) parts = g_ptr_array_new_with_free_func (g_free);
  g_autofree guint *types = NULL;

  for (guint i = 0; split[i] != NULL; i++)
    if (split[i][0] != '\0')
      g_ptr_array_add (parts, g_strdup (split[i]));
  types = g_new0 (guint, parts->len + 1);
  for (guint i = 0; i < parts->len; i++)
    classify_part (parts, types, i, total_params);
  drop_word_size_labels (parts, types);
  mark_basename (parts, types);

  out->basename = join_parts (parts, types, PART_BASENAME, 0, FALSE);
  out->size_label = join_parts (parts, types, PART_SIZE_LABEL, 0, TRUE);
  out->finetune = join_parts (parts, types, PART_FINETUNE, 0, FALSE);
  out->version = join_parts (parts, types, PART_VERSION, PART_BASENAME, FALSE);
  if (out->size_label == NULL && out->finetune == NULL && out->version == NULL)
    g_clear_pointer (&out->basename, g_free);
}

/**
 * ts_hf_model_id_parse:
 * @model_id: (nullable): a Hugging Face id or a folder name
 * @total_params: the model's parameter count, 0 if unknown
 * @out: (out caller-allocates): the components; free with ts_hf_model_id_clear()
 *
 * Splits a model id the way gguf-py's Metadata.get_model_id_components() does.
 */
void
ts_hf_model_id_parse (const char  *model_id,
                      guint64      total_params,
                      TsHfModelId *out)
{
  const char *slash;

  g_return_if_fail (out != NULL);

  memset (out, 0, sizeof *out);
  if (model_id == NULL)
    return;
  /* an id with a space is a human sentence: the whole of it is the name */
  if (strchr (model_id, ' ') != NULL)
    {
      out->full_name = g_strdup (model_id);
      return;
    }
  slash = strchr (model_id, '/');
  if (slash != NULL)
    {
      out->organization = g_strndup (model_id, slash - model_id);
      out->full_name = g_strdup (slash + 1);
      /* "./model" or "../model" is a path, not an organization */
      if (out->organization[0] == '.')
        g_clear_pointer (&out->organization, g_free);
    }
  else
    out->full_name = g_strdup (model_id);
  split_name_parts (out, total_params);
}

void
ts_hf_model_id_clear (TsHfModelId *id)
{
  g_return_if_fail (id != NULL);

  g_clear_pointer (&id->full_name, g_free);
  g_clear_pointer (&id->organization, g_free);
  g_clear_pointer (&id->basename, g_free);
  g_clear_pointer (&id->finetune, g_free);
  g_clear_pointer (&id->version, g_free);
  g_clear_pointer (&id->size_label, g_free);
}

/* ------------------------------------------------------------ titles */

static gboolean
unichar_is_cased (gunichar c)
{
  return g_unichar_isupper (c) || g_unichar_islower (c) || g_unichar_istitle (c);
}

/* Python's str.islower(): some cased character, none upper or title case */
static gboolean
word_is_lower (const char *w)
{
  gboolean cased = FALSE;

  for (const char *p = w; *p; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (g_unichar_isupper (c) || g_unichar_istitle (c))
        return FALSE;
      cased = cased || g_unichar_islower (c);
    }
  return cased;
}

/* ^(v\d+(?:\.\d+)*|\d.*)$: versions and numbers keep their case */
static gboolean
word_is_number (const char *w)
{
  return g_ascii_isdigit (w[0]) || (w[0] == 'v' && match_dotted_number (w + 1));
}

/* Python's str.title(): upper case after an uncased character */
static void
append_title (GString    *s,
              const char *w)
{
  gboolean prev_cased = FALSE;

  for (const char *p = w; *p; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      g_string_append_unichar (s, prev_cased ? g_unichar_tolower (c) : g_unichar_totitle (c));
      prev_cased = unichar_is_cased (c);
    }
}

/**
 * ts_hf_naming_id_to_title:
 * @model_id: a model id
 *
 * Returns: (transfer full): the id as gguf-py's Metadata.id_to_title() turns
 *   it into a title: dashes become spaces, all-lower-case words are
 *   capitalised unless they are numbers or versions.
 */
char *
ts_hf_naming_id_to_title (const char *model_id)
{
  g_autoptr(GString) s = g_string_new (NULL);
  const char *p = model_id;

  g_return_val_if_fail (model_id != NULL, NULL);

  while (*p)
    {
      const char *start;
      g_autofree char *word = NULL;

      while (*p && (*p == '-' || g_unichar_isspace (g_utf8_get_char (p))))
        p = g_utf8_next_char (p);
      if (*p == '\0')
        break;
      for (start = p; *p && *p != '-' && !g_unichar_isspace (g_utf8_get_char (p)); )
        p = g_utf8_next_char (p);
      word = g_strndup (start, p - start);
      if (s->len > 0)
        g_string_append_c (s, ' ');
      if (word_is_lower (word) && !word_is_number (word))
        append_title (s, word);
      else
        g_string_append (s, word);
    }
  return g_string_free (g_steal_pointer (&s), FALSE);
}

/* ------------------------------------------------------------ size label */

/**
 * ts_hf_naming_size_label:
 * @n_params: a parameter count
 *
 * Returns: (transfer full): gguf-py's model_weight_count_rounded_notation()
 *   with two significant digits at least: "3.3M", "753M", "0.50K".
 */
char *
ts_hf_naming_size_label (guint64 n_params)
{
  double n = (double) n_params;
  double scaled;
  const char *suffix;
  double rounded;
  int digits = 0;

  /* strictly above each power, as utility.py: 1,000,000 is "1000K" */
  if (n > 1e12)
    scaled = n * 1e-12, suffix = "T";
  else if (n > 1e9)
    scaled = n * 1e-9, suffix = "B";
  else if (n > 1e6)
    scaled = n * 1e-6, suffix = "M";
  else
    scaled = n * 1e-3, suffix = "K";
  /* len(str(round(scaled)).lstrip('0')): Python rounds half to even */
  for (rounded = nearbyint (scaled); rounded >= 1.0; rounded = floor (rounded / 10.0))
    digits++;
  {
    /* a dot whatever the locale: the label goes into the GGUF file */
    char format[8], buf[G_ASCII_DTOSTR_BUF_SIZE];

    g_snprintf (format, sizeof format, "%%.%df", MAX (2 - digits, 0));
    return g_strconcat (g_ascii_formatd (buf, sizeof buf, format, scaled), suffix, NULL);
  }
}

/* ------------------------------------------------------------ model card
 *
 * The YAML front matter of README.md, read as the small subset model cards
 * use: "key: scalar", "key: [a, b]", "key:" followed by "- item" lines (an
 * item may be a "- key: value" mapping) and "key: |" / "key: >" blocks.
 * Scalars stay strings (yaml.safe_load would type "3.2" as a float, which
 * gguf-py's writer then fails on); null, ~ and empty values are None.
 * Nested mappings are kept as CARD_OTHER and ignored, as gguf-py would
 * fail on them too.
 */

typedef enum
{
  CARD_NULL,
  CARD_SCALAR,
  CARD_LIST,
  CARD_MAP,
  CARD_OTHER,
} CardKind;

typedef struct _CardValue CardValue;
struct _CardValue
{
  CardKind    kind;
  char       *scalar;
  gboolean    plain;       /* a top-level scalar written without quotes */
  GPtrArray  *items;       /* CardValue, for CARD_LIST */
  GHashTable *map;         /* char * -> char *, for CARD_MAP */
};

static void
card_value_free (CardValue *v)
{
  if (v == NULL)
    return;
  g_free (v->scalar);
  g_clear_pointer (&v->items, g_ptr_array_unref);
  g_clear_pointer (&v->map, g_hash_table_unref);
  g_free (v);
}

static CardValue *
card_value_new (CardKind    kind,
                const char *scalar)
{
  CardValue *v = g_new0 (CardValue, 1);

  v->kind = kind;
  v->scalar = g_strdup (scalar);
  if (kind == CARD_LIST)
    v->items = g_ptr_array_new_with_free_func ((GDestroyNotify) card_value_free);
  if (kind == CARD_MAP)
    v->map = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  return v;
}

/* YAML's line folding inside a flow scalar, at the line break @s[*i]
 * ('\n'): the blanks before it are dropped from @out (unless @keep of
 * them came from escapes), those after it skipped, and the break becomes
 * a space, or one newline per empty line that follows. */
static void
fold_line_break (GString    *out,
                 gsize       keep,
                 const char *s,
                 gsize       n,
                 gsize      *i)
{
  guint empty = 0;

  while (out->len > keep && (out->str[out->len - 1] == ' ' || out->str[out->len - 1] == '\t'))
    g_string_truncate (out, out->len - 1);
  for (;;)
    {
      gsize j = *i + 1;

      while (j < n && (s[j] == ' ' || s[j] == '\t'))
        j++;
      *i = j - 1;
      if (j >= n || s[j] != '\n')
        break;
      empty++;
      *i = j;
    }
  if (empty == 0)
    g_string_append_c (out, ' ');
  for (; empty > 0; empty--)
    g_string_append_c (out, '\n');
}

/* \xHH, \uHHHH or \UHHHHHHHH (hex digits) at @s (after the letter): the code point in
 * UTF-8, or U+FFFD for one that is not a character */
static gsize
append_escaped_code (GString    *out,
                     const char *s,
                     gsize       n,
                     guint       digits)
{
  gunichar c = 0;
  guint k;

  for (k = 0; k < digits && k < n && g_ascii_isxdigit (s[k]); k++)
    c = c * 16 + (gunichar) g_ascii_xdigit_value (s[k]);
  g_string_append_unichar (out, k == digits && g_unichar_validate (c) ? c : 0xfffd);
  return k;
}

/* The inside of a double-quoted YAML scalar, over one line or more:
 * PyYAML's escapes, and its line folding */
static char *
unquote_double (const char *s,
                gsize       n)
{
  g_autoptr(GString) out = g_string_new (NULL);
  gsize keep = 0;   /* out's bytes that folding must not trim */

  for (gsize i = 0; i < n; i++)
    {
      if (s[i] == '\n')
        {
          fold_line_break (out, keep, s, n, &i);
          continue;
        }
      if (s[i] != '\\' || i + 1 >= n)
        {
          g_string_append_c (out, s[i]);
          continue;
        }
      i++;
      switch (s[i])
        {
        case '0': g_string_append_c (out, '\0'); break;
        case 'a': g_string_append_c (out, '\a'); break;
        case 'b': g_string_append_c (out, '\b'); break;
        case 't': case '\t': g_string_append_c (out, '\t'); break;
        case 'n': g_string_append_c (out, '\n'); break;
        case 'v': g_string_append_c (out, '\v'); break;
        case 'f': g_string_append_c (out, '\f'); break;
        case 'r': g_string_append_c (out, '\r'); break;
        case 'e': g_string_append_c (out, '\033'); break;
        case 'N': g_string_append_unichar (out, 0x85); break;
        case '_': g_string_append_unichar (out, 0xa0); break;
        case 'L': g_string_append_unichar (out, 0x2028); break;
        case 'P': g_string_append_unichar (out, 0x2029); break;
        case 'x': i += append_escaped_code (out, s + i + 1, n - i - 1, 2); break;
        case 'u': i += append_escaped_code (out, s + i + 1, n - i - 1, 4); break;
        case 'U': i += append_escaped_code (out, s + i + 1, n - i - 1, 8); break;
        case '\n':
          /* an escaped line break joins the lines with nothing between;
           * each empty line after it is a newline */
          for (;;)
            {
              while (i + 1 < n && (s[i + 1] == ' ' || s[i + 1] == '\t'))
                i++;
              if (i + 1 >= n || s[i + 1] != '\n')
                break;
              g_string_append_c (out, '\n');
              i++;
            }
          break;
        default: g_string_append_c (out, s[i]); break;   /* " \\ / and space */
        }
      keep = out->len;
    }
  return g_string_free (g_steal_pointer (&out), FALSE);
}

/* The inside of a single-quoted scalar: '' is a quote; lines fold */
static char *
unquote_single (const char *s,
                gsize       n)
{
  g_autoptr(GString) out = g_string_new (NULL);
  gsize keep = 0;

  for (gsize i = 0; i < n; i++)
    {
      if (s[i] == '\n')
        fold_line_break (out, keep, s, n, &i);
      else if (s[i] == '\'' && i + 1 < n && s[i + 1] == '\'')
        {
          g_string_append_c (out, s[i++]);
          keep = out->len;
        }
      else
        g_string_append_c (out, s[i]);
    }
  return g_string_free (g_steal_pointer (&out), FALSE);
}

/* the index of the quote that closes the quoted scalar @t starts with
 * (\" escapes one in double quotes, '' in single ones), or @n; from
 * *@from (1 at first), which is left where the scan stopped, so that a
 * scalar growing line by line is scanned once */
static gsize
quoted_end (const char *t,
            gsize       n,
            gsize      *from)
{
  gsize j = MAX (*from, 1);
  gsize end = n;

  while (j < n)
    {
      if (t[0] == '"' && t[j] == '\\')
        j += 2;
      else if (t[0] == '\'' && t[j] == '\'' && j + 1 < n && t[j + 1] == '\'')
        j += 2;
      else if (t[j] == t[0])
        {
          end = j;
          break;
        }
      else
        j++;
    }
  *from = j;
  return end;
}

/* a scalar's text, without quotes and trailing comment; NULL for null */
static char *
parse_scalar (const char *text)
{
  g_autofree char *t = g_strstrip (g_strdup (text));
  const char *hash;
  gsize n = strlen (t);

  if (t[0] == '"' || t[0] == '\'')
    {
      gsize from = 1;
      gsize end = quoted_end (t, n, &from);

      /* what follows the closing quote can only be a comment; a quote
       * never closed is an error to PyYAML (and to llama.cpp's
       * converter), no value here */
      if (end == n)
        return NULL;
      return t[0] == '"' ? unquote_double (t + 1, end - 1) : unquote_single (t + 1, end - 1);
    }
  hash = strstr (t, " #");
  if (hash != NULL)
    {
      t[hash - t] = '\0';
      g_strstrip (t);
    }
  if (t[0] == '#' || t[0] == '\0' || g_str_equal (t, "~") || g_str_equal (t, "null") ||
      g_str_equal (t, "Null") || g_str_equal (t, "NULL"))
    return NULL;
  return g_steal_pointer (&t);
}

/* "[a, 'b', c]" */
static CardValue *
parse_flow_list (const char *text)
{
  CardValue *list = card_value_new (CARD_LIST, NULL);
  const char *p = strchr (text, '[') + 1;
  const char *end = strrchr (text, ']');

  if (end == NULL || end < p)
    end = p + strlen (p);
  while (p < end)
    {
      const char *start = p;
      char quote = 0;
      g_autofree char *item = NULL;
      g_autofree char *value = NULL;

      for (; p < end && (quote || *p != ','); p++)
        if (*p == '"' || *p == '\'')
          quote = quote == *p ? 0 : (quote ? quote : *p);
      item = g_strndup (start, p - start);
      value = parse_scalar (item);
      if (value != NULL || p < end)
        g_ptr_array_add (list->items, card_value_new (value ? CARD_SCALAR : CARD_NULL, value));
      if (p < end)
        p++;
    }
  return list;
}

static int
line_indent (const char *line)
{
  return (int) strspn (line, " ");
}

/* "key: value" -> key, and *rest pointing at value; NULL if not a mapping line */
static char *
split_key (const char  *line,
           const char **rest)
{
  const char *colon = line;
  g_autofree char *key = NULL;

  while ((colon = strchr (colon, ':')) != NULL && colon[1] != '\0' && colon[1] != ' ')
    colon++;
  if (colon == NULL)
    return NULL;
  key = g_strndup (line, colon - line);
  *rest = colon + 1;
  return parse_scalar (key);
}

static gboolean
line_is_blank (const char *line)
{
  const char *p = line + strspn (line, " ");

  return *p == '\0' || *p == '#';
}

/* "key: |" or "key: >" and the more-indented lines after it, as PyYAML
 * reads them: a literal keeps every line break; a folded one joins two
 * lines with a space where one break parts them, keeps the breaks of the
 * empty lines between them, and folds nothing around a line indented
 * further; then the chomping: clip (one final break), strip ("-") or keep
 * ("+": the trailing empty lines too). */
static guint
parse_block_scalar (char       **lines,
                    guint        i,
                    const char  *indicator,
                    CardValue  **out)
{
  g_autoptr(GString) s = g_string_new (NULL);
  gboolean folded = indicator[0] == '>';
  gboolean strip = strchr (indicator, '-') != NULL;
  gboolean keep = strchr (indicator, '+') != NULL;
  gboolean any = FALSE, prev_more = FALSE;
  guint breaks = 0;   /* line breaks since the last line of text */
  const char *digit = strpbrk (indicator, "123456789");
  int indent = digit != NULL ? *digit - '0' : -1;   /* "|2": given; else the first line's */

  for (; lines[i] != NULL; i++)
    {
      const char *line = lines[i];
      gboolean more;

      /* an empty line, or spaces up to the indent: a line break; more
       * spaces than that are a more-indented line of text */
      if (line[strspn (line, " ")] == '\0' && (indent < 0 || (int) strlen (line) <= indent))
        {
          breaks++;
          continue;
        }
      if (indent < 0)
        indent = line_indent (line);
      if (indent == 0 || line_indent (line) < indent)
        break;
      more = line[indent] == ' ' || line[indent] == '\t';
      if (any && folded && !more && !prev_more)
        {
          if (breaks == 1)
            g_string_append_c (s, ' ');
          for (guint b = 1; b < breaks; b++)
            g_string_append_c (s, '\n');
        }
      else
        for (guint b = 0; b < breaks; b++)
          g_string_append_c (s, '\n');
      g_string_append (s, line + indent);
      any = TRUE;
      prev_more = more;
      breaks = 1;
    }
  if (keep)
    for (guint b = 0; b < breaks; b++)
      g_string_append_c (s, '\n');
  else if (any && !strip)
    g_string_append_c (s, '\n');
  *out = card_value_new (CARD_SCALAR, s->str);
  return i;
}

/* one "- key: value" item and the "key: value" lines indented under it */
static guint
parse_map_item (char       **lines,
                guint        i,
                int          dash_indent,
                CardValue   *list)
{
  CardValue *map = card_value_new (CARD_MAP, NULL);
  const char *text = lines[i] + dash_indent + 1;

  g_ptr_array_add (list->items, map);
  for (;;)
    {
      const char *rest = NULL;
      char *key = split_key (text + strspn (text, " "), &rest);

      if (key != NULL)
        g_hash_table_replace (map->map, key, parse_scalar (rest));
      i++;
      while (lines[i] != NULL && line_is_blank (lines[i]))
        i++;
      if (lines[i] == NULL || line_indent (lines[i]) <= dash_indent)
        return i;
      text = lines[i];
    }
}

static void
add_list_scalar (CardValue  *list,
                 const char *text)
{
  g_autofree char *scalar = parse_scalar (text);
  const char *t = text + strspn (text, " ");
  CardKind kind = CARD_NULL;

  if (t[0] == '[' || t[0] == '{')
    kind = CARD_OTHER;
  else if (scalar != NULL)
    kind = CARD_SCALAR;
  g_ptr_array_add (list->items, card_value_new (kind, kind == CARD_SCALAR ? scalar : NULL));
}

static guint
parse_block_list (char       **lines,
                  guint        i,
                  CardValue  **out)
{
  CardValue *list = card_value_new (CARD_LIST, NULL);
  int dash_indent = line_indent (lines[i]);

  *out = list;
  while (lines[i] != NULL)
    {
      const char *text = lines[i] + dash_indent;
      const char *rest = NULL;
      g_autofree char *key = NULL;

      if (line_is_blank (lines[i]))
        {
          i++;
          continue;
        }
      if (line_indent (lines[i]) != dash_indent || text[0] != '-' || (text[1] != ' ' && text[1] != '\0'))
        break;
      key = split_key (text + 1 + strspn (text + 1, " "), &rest);
      if (key != NULL)
        {
          i = parse_map_item (lines, i, dash_indent, list);
          continue;
        }
      add_list_scalar (list, text + 1);
      for (i++; lines[i] != NULL && (line_is_blank (lines[i]) || line_indent (lines[i]) > dash_indent); i++)
        ;
    }
  return i;
}

/* the value of "key:" with nothing after the colon */
static guint
parse_nested (char       **lines,
              guint        i,
              CardValue  **out)
{
  guint j = i;
  const char *text;

  while (lines[j] != NULL && line_is_blank (lines[j]))
    j++;
  if (lines[j] == NULL)
    {
      *out = card_value_new (CARD_NULL, NULL);
      return j;
    }
  text = lines[j] + line_indent (lines[j]);
  if (text[0] == '-' && (text[1] == ' ' || text[1] == '\0'))
    return parse_block_list (lines, j, out);
  if (line_indent (lines[j]) == 0)
    {
      *out = card_value_new (CARD_NULL, NULL);
      return j;
    }
  *out = card_value_new (CARD_OTHER, NULL);
  while (lines[j] != NULL && (line_is_blank (lines[j]) || line_indent (lines[j]) > 0))
    j++;
  return j;
}

/* A top-level key's scalar @first (stripped) and the more-indented lines
 * that continue it, as one text (@lines[@i] holds the key); a plain
 * scalar's lines folded here, a quoted one's by its unquoting. Returns
 * the index of the next key's line. */
static guint
gather_scalar (char       **lines,
               guint        i,
               const char  *first,
               char       **text)
{
  g_autoptr(GString) raw = g_string_new (first);
  gboolean quoted = first[0] == '"' || first[0] == '\'';
  gsize scanned = 1;
  gboolean open = quoted ? quoted_end (raw->str, raw->len, &scanned) == raw->len
                         : strstr (first, " #") == NULL;
  guint empty = 0;

  for (i++; lines[i] != NULL; i++)
    {
      const char *line = lines[i] + line_indent (lines[i]);
      g_autofree char *stripped = NULL;

      /* an open quote takes every line up to its end, indented or not;
       * else the value ends at the next key */
      if (!(quoted && open) && line_indent (lines[i]) == 0 && !line_is_blank (lines[i]))
        break;
      if (!open)
        continue;
      if (quoted)
        {
          /* up to the closing quote, folded by the unquoting */
          g_string_append_printf (raw, "\n%s", line);
          open = quoted_end (raw->str, raw->len, &scanned) == raw->len;
          continue;
        }
      /* a plain scalar ends at a comment; a line break folds to a space,
       * or to a newline per empty line */
      stripped = g_strstrip (g_strdup (line));
      if (stripped[0] == '#')
        open = FALSE;
      else if (stripped[0] == '\0')
        empty++;
      else
        {
          if (empty == 0)
            g_string_append_c (raw, ' ');
          for (; empty > 0; empty--)
            g_string_append_c (raw, '\n');
          g_string_append (raw, stripped);
          open = strstr (stripped, " #") == NULL;
        }
    }
  *text = g_string_free (g_steal_pointer (&raw), FALSE);
  return i;
}

static guint
parse_top_value (char       **lines,
                 guint        i,
                 const char  *rest,
                 CardValue  **out)
{
  g_autofree char *value = g_strstrip (g_strdup (rest));

  if (value[0] == '\0' || value[0] == '#')
    return parse_nested (lines, i + 1, out);
  if (value[0] == '[')
    *out = parse_flow_list (value);
  else if (value[0] == '{')
    *out = card_value_new (CARD_OTHER, NULL);
  else if ((value[0] == '|' || value[0] == '>') && strspn (value + 1, "+-0123456789") == strlen (value + 1))
    return parse_block_scalar (lines, i + 1, value, out);
  else
    {
      g_autofree char *first = g_strchug (g_strdup (rest));
      g_autofree char *text = NULL;
      g_autofree char *scalar = NULL;

      /* a quoted scalar keeps the blanks at its first line's end: one may
       * be escaped ("a\ ") */
      if (first[0] != '"' && first[0] != '\'')
        g_strchomp (first);
      i = gather_scalar (lines, i, first, &text);
      scalar = parse_scalar (text);
      *out = card_value_new (scalar ? CARD_SCALAR : CARD_NULL, scalar);
      (*out)->plain = first[0] != '"' && first[0] != '\'';
      return i;
    }
  for (i++; lines[i] != NULL && (line_is_blank (lines[i]) || line_indent (lines[i]) > 0); i++)
    ;
  return i;
}

static GHashTable *
parse_front_matter (char **lines)
{
  GHashTable *card = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                            (GDestroyNotify) card_value_free);
  guint i = 0;

  while (lines[i] != NULL)
    {
      const char *rest = NULL;
      char *key = NULL;
      CardValue *value = NULL;

      if (line_is_blank (lines[i]) || line_indent (lines[i]) > 0 ||
          (key = split_key (lines[i], &rest)) == NULL)
        {
          i++;
          continue;
        }
      i = parse_top_value (lines, i, rest, &value);
      g_hash_table_replace (card, key, value);
    }
  return card;
}

/* Python's universal newlines, in place: \r\n and \r become \n; the new
 * length */
static gsize
normalize_newlines (char  *text,
                    gsize  len)
{
  gsize out = 0;

  for (gsize i = 0; i < len; i++)
    {
      text[out++] = text[i] == '\r' ? '\n' : text[i];
      if (text[i] == '\r' && i + 1 < len && text[i + 1] == '\n')
        i++;
    }
  text[out] = '\0';
  return out;
}

/* Metadata.load_model_card(): the lines between a first line "---" and the
 * next "---" (or the end of the file); an empty table without a card.
 * Only those lines are split: a long README (it may have 256 MB) costs
 * its own size, not the ~40 bytes a line that splitting it all took. */
static GHashTable *
load_model_card (GFile *dir)
{
  g_autoptr(GFile) file = g_file_get_child (dir, "README.md");
  g_autoptr(GString) yaml = g_string_new (NULL);
  g_autofree char *contents = NULL;
  g_autofree char *front = NULL;
  g_auto(GStrv) lines = NULL;
  g_auto(GStrv) yaml_lines = NULL;
  gsize length = 0;
  const char *body;
  const char *line;
  const char *next;
  const char *end;

  if (!_ts_load_side_file (file, MAX_CARD_SIZE, NULL, &contents, &length, NULL) ||
      !g_utf8_validate (contents, length, NULL))
    return parse_front_matter ((char *[]) { NULL });
  length = normalize_newlines (contents, length);
  if (!g_str_has_prefix (contents, "---") || (contents[3] != '\n' && contents[3] != '\0'))
    return parse_front_matter ((char *[]) { NULL });
  /* up to the closing line, or the end of the file */
  body = contents[3] == '\n' ? contents + 4 : contents + 3;
  for (line = body; *line != '\0'; line = next + 1)
    {
      next = strchr (line, '\n');
      if ((next ? (gsize) (next - line) : strlen (line)) == 3 && strncmp (line, "---", 3) == 0)
        break;
      if (next == NULL)
        {
          line += strlen (line);
          break;
        }
    }
  /* without the line break before the closing line, or the file's last
   * one (str.splitlines() leaves no empty line after it) */
  end = line > body && line[-1] == '\n' ? line - 1 : line;
  if (end - body > MAX_FRONT_MATTER)
    return parse_front_matter ((char *[]) { NULL });
  front = g_strndup (body, end - body);
  lines = end > body ? g_strsplit (front, "\n", -1) : g_new0 (char *, 1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_autofree char *untabbed = NULL;
      g_auto(GStrv) tabs = g_strsplit (lines[i], "\t", -1);

      untabbed = g_strjoinv ("  ", tabs);   /* gguf-py turns tabs into two spaces */
      g_string_append_printf (yaml, "%s\n", untabbed);
    }
  /* a line each, and no empty one after the last line's break (a kept
   * block scalar would count it) */
  if (yaml->len > 0)
    g_string_truncate (yaml, yaml->len - 1);
  yaml_lines = g_strsplit (yaml->str, "\n", -1);
  return parse_front_matter (yaml_lines);
}

/* ------------------------------------------------------------ heuristics */

/* the keys of a base model or dataset entry, in the order they are written */
static const char *const ref_fields[] = {
  "name", "author", "version", "organization", "description", "url", "doi", "uuid", "repo_url",
};

static const char *const field_keys[TS_HF_NAMING_N_FIELDS] = {
  "general.name", "general.author", "general.version", "general.organization",
  "general.finetune", "general.basename", "general.description", "general.quantized_by",
  "general.size_label", "general.license", "general.license.name", "general.license.link",
  "general.url", "general.doi", "general.uuid", "general.repo_url", "general.source.url",
  "general.source.doi", "general.source.uuid", "general.source.repo_url",
};

/* Metadata.apply_metadata_heuristic(): the card keys that fill each field,
 * in the order they are tried (the first present one wins) */
static const struct
{
  TsHfNamingField field;
  const char     *card_key;
} card_fields[] = {
  { TS_HF_NAMING_NAME, "name" }, { TS_HF_NAMING_AUTHOR, "author" },
  { TS_HF_NAMING_VERSION, "version" }, { TS_HF_NAMING_ORGANIZATION, "organization" },
  { TS_HF_NAMING_DESCRIPTION, "description" }, { TS_HF_NAMING_FINETUNE, "finetune" },
  { TS_HF_NAMING_BASENAME, "basename" }, { TS_HF_NAMING_SIZE_LABEL, "size_label" },
  { TS_HF_NAMING_SOURCE_URL, "url" }, { TS_HF_NAMING_SOURCE_DOI, "doi" },
  { TS_HF_NAMING_SOURCE_UUID, "uuid" }, { TS_HF_NAMING_SOURCE_REPO_URL, "repo_url" },
  { TS_HF_NAMING_NAME, "model_name" }, { TS_HF_NAMING_AUTHOR, "model_author" },
  { TS_HF_NAMING_VERSION, "model_version" }, { TS_HF_NAMING_ORGANIZATION, "model_organization" },
  { TS_HF_NAMING_DESCRIPTION, "model_description" }, { TS_HF_NAMING_FINETUNE, "model_finetune" },
  { TS_HF_NAMING_BASENAME, "model_basename" }, { TS_HF_NAMING_SIZE_LABEL, "model_size_label" },
  { TS_HF_NAMING_SOURCE_URL, "model_url" }, { TS_HF_NAMING_SOURCE_DOI, "model_doi" },
  { TS_HF_NAMING_SOURCE_UUID, "model_uuid" }, { TS_HF_NAMING_SOURCE_REPO_URL, "model_repo_url" },
  { TS_HF_NAMING_AUTHOR, "model_creator" }, { TS_HF_NAMING_BASENAME, "model_type" },
};

struct _TsHfNaming
{
  char      *values[TS_HF_NAMING_N_FIELDS];
  char      *origins[TS_HF_NAMING_N_FIELDS];
  GPtrArray *base_models;   /* char *[G_N_ELEMENTS (ref_fields)], NULL = unset */
  GPtrArray *datasets;
  GPtrArray *tags;          /* char * */
  GPtrArray *languages;
  guint64    total_params;
};

static void
set_field (TsHfNaming      *self,
           TsHfNamingField  field,
           const char      *value,
           const char      *origin)
{
  if (self->values[field] != NULL || value == NULL)
    return;
  self->values[field] = g_strdup (value);
  self->origins[field] = g_strdup (origin);
}

static char *
card_scalar_or_joined (const CardValue *v)
{
  g_autoptr(GString) s = NULL;

  if (v->kind == CARD_SCALAR)
    return g_strdup (v->scalar);
  if (v->kind != CARD_LIST)
    return NULL;
  /* only the license may be a list: gguf-py joins it with commas */
  s = g_string_new (NULL);
  for (guint i = 0; i < v->items->len; i++)
    {
      const CardValue *item = g_ptr_array_index (v->items, i);

      if (item->kind == CARD_SCALAR)
        g_string_append_printf (s, "%s%s", s->len > 0 ? "," : "", item->scalar);
    }
  return g_string_free (g_steal_pointer (&s), FALSE);
}

static void
use_card_field (TsHfNaming      *self,
                GHashTable      *card,
                TsHfNamingField  field,
                const char      *card_key)
{
  const CardValue *v = g_hash_table_lookup (card, card_key);
  g_autofree char *origin = g_strdup_printf ("README.md: %s", card_key);
  g_autofree char *value = NULL;

  if (v == NULL)
    return;
  value = field == TS_HF_NAMING_LICENSE ? card_scalar_or_joined (v) :
          v->kind == CARD_SCALAR ? g_strdup (v->scalar) : NULL;
  set_field (self, field, value, origin);
}

/* Whether PyYAML reads the plain (unquoted) scalar @text as a string: not
 * where one of its YAML 1.1 resolvers takes it for a bool ("no", "on"),
 * an int ("2024", "0x1f", "1:30"), a float ("1.5", ".inf") or a date. */
static gboolean
yaml_plain_is_string (const char *text)
{
  static GRegex *typed;

  if (g_once_init_enter (&typed))
    {
      GRegex *re = g_regex_new (
        "^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF"
        "|[-+]?(?:[0-9][0-9_]*)\\.[0-9_]*(?:[eE][-+][0-9]+)?|\\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?"
        "|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\\.[0-9_]*|[-+]?\\.(?:inf|Inf|INF)|\\.(?:nan|NaN|NAN)"
        "|[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+"
        "|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+"
        "|[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]"
        "|[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?(?:[Tt]|[ \\t]+)[0-9][0-9]?:[0-9][0-9]:[0-9][0-9]"
        "(?:\\.[0-9]*)?(?:[ \\t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?)$",
        G_REGEX_OPTIMIZE, 0, NULL);

      g_once_init_leave (&typed, re);
    }
  return !g_regex_match (typed, text, 0, NULL);
}

/* use_array_model_card_metadata(): strings appended, lists extended; a
 * scalar PyYAML reads as something else ("language: no" is False, the
 * Norway problem that gguf-py's fix-up misses outside a list) is neither,
 * and left out */
static void
use_card_array (GPtrArray  **array,
                GHashTable  *card,
                const char  *card_key)
{
  const CardValue *v = g_hash_table_lookup (card, card_key);

  if (v == NULL || v->kind == CARD_NULL ||
      (v->kind == CARD_SCALAR && v->plain && !yaml_plain_is_string (v->scalar)))
    return;
  if (*array == NULL)
    *array = g_ptr_array_new_with_free_func (g_free);
  if (v->kind == CARD_SCALAR)
    g_ptr_array_add (*array, g_strdup (v->scalar));
  for (guint i = 0; v->kind == CARD_LIST && i < v->items->len; i++)
    {
      const CardValue *item = g_ptr_array_index (v->items, i);

      if (item->kind == CARD_SCALAR)
        g_ptr_array_add (*array, g_strdup (item->scalar));
    }
}

/* an entry may have holes: free every slot, not up to the first NULL */
static void
ref_free (char **ref)
{
  for (guint i = 0; i < G_N_ELEMENTS (ref_fields); i++)
    g_free (ref[i]);
  g_free (ref);
}

static void
ref_set (char       **ref,
         const char  *field,
         char        *value)
{
  for (guint i = 0; i < G_N_ELEMENTS (ref_fields); i++)
    if (g_str_equal (ref_fields[i], field))
      {
        g_free (ref[i]);
        ref[i] = value;
        return;
      }
  g_free (value);
}

/* name, organization and version of "org/name", as gguf-py fills a base
 * model or dataset entry; @with_repo_url adds its huggingface.co address */
static void
ref_fill_from_id (char       **ref,
                  const char  *id,
                  guint64      total_params,
                  gboolean     with_repo_url)
{
  TsHfModelId parts;

  ts_hf_model_id_parse (id, total_params, &parts);
  if (parts.full_name != NULL)
    ref_set (ref, "name", ts_hf_naming_id_to_title (parts.full_name));
  if (parts.organization != NULL)
    ref_set (ref, "organization", ts_hf_naming_id_to_title (parts.organization));
  if (parts.version != NULL)
    ref_set (ref, "version", g_strdup (parts.version));
  if (with_repo_url && parts.organization != NULL && parts.full_name != NULL)
    ref_set (ref, "repo_url", g_strdup_printf ("https://huggingface.co/%s/%s",
                                               parts.organization, parts.full_name));
  ts_hf_model_id_clear (&parts);
}

/* https?://huggingface.co/([^/]+/[^/]+)$ -> the "org/name" part */
static char *
huggingface_id_of_url (const char *url)
{
  g_autoptr(GRegex) re = g_regex_new ("^https?://huggingface.co/([^/]+/[^/]+)$", 0, 0, NULL);
  g_autoptr(GMatchInfo) match = NULL;

  if (!g_regex_match (re, url, 0, &match))
    return NULL;
  return g_match_info_fetch (match, 1);
}

static char **
ref_new_from_card (const CardValue *item,
                   guint64          total_params)
{
  char **ref = g_new0 (char *, G_N_ELEMENTS (ref_fields) + 1);

  if (item->kind == CARD_MAP)
    {
      for (guint i = 0; i < G_N_ELEMENTS (ref_fields); i++)
        ref[i] = g_strdup (g_hash_table_lookup (item->map, ref_fields[i]));
    }
  else if (item->kind == CARD_SCALAR &&
           (g_str_has_prefix (item->scalar, "http://") || g_str_has_prefix (item->scalar, "https://") ||
            g_str_has_prefix (item->scalar, "ssh://")))
    {
      g_autofree char *id = strstr (item->scalar, "huggingface.co") ? huggingface_id_of_url (item->scalar) : NULL;

      ref_set (ref, "repo_url", g_strdup (item->scalar));
      if (id != NULL)
        ref_fill_from_id (ref, id, total_params, FALSE);
    }
  else if (item->kind == CARD_SCALAR)
    ref_fill_from_id (ref, item->scalar, total_params, TRUE);
  return ref;
}

/* base_model / datasets: a string or a list of ids and mappings; the key
 * alone makes gguf-py write a count, even of 0 */
static GPtrArray *
refs_from_card (GHashTable  *card,
                const char  *const keys[3],
                guint64      total_params)
{
  GPtrArray *refs = NULL;
  const CardValue *v = NULL;

  for (guint i = 0; i < 3 && v == NULL; i++)
    v = g_hash_table_lookup (card, keys[i]);
  if (v == NULL)
    return NULL;
  refs = g_ptr_array_new_with_free_func ((GDestroyNotify) ref_free);
  if (v->kind == CARD_SCALAR)
    g_ptr_array_add (refs, ref_new_from_card (v, total_params));
  for (guint i = 0; v->kind == CARD_LIST && i < v->items->len; i++)
    g_ptr_array_add (refs, ref_new_from_card (g_ptr_array_index (v->items, i), total_params));
  return refs;
}

static void
apply_model_card (TsHfNaming *self,
                  GHashTable *card)
{
  static const char *const base_model_keys[3] = { "base_model", "base_models", "base_model_sources" };
  static const char *const dataset_keys[3] = { "datasets", "dataset", "dataset_sources" };

  for (guint i = 0; i < G_N_ELEMENTS (card_fields); i++)
    use_card_field (self, card, card_fields[i].field, card_fields[i].card_key);
  self->base_models = refs_from_card (card, base_model_keys, self->total_params);
  self->datasets = refs_from_card (card, dataset_keys, self->total_params);
  use_card_field (self, card, TS_HF_NAMING_LICENSE, "license");
  use_card_field (self, card, TS_HF_NAMING_LICENSE_NAME, "license_name");
  use_card_field (self, card, TS_HF_NAMING_LICENSE_LINK, "license_link");
  use_card_array (&self->tags, card, "tags");
  use_card_array (&self->tags, card, "pipeline_tag");
  use_card_array (&self->languages, card, "languages");
  use_card_array (&self->languages, card, "language");
}

/* the part of the heuristics shared by _name_or_path and the folder name */
static void
apply_model_id (TsHfNaming *self,
                const char *model_id,
                const char *origin)
{
  TsHfModelId id;
  g_autofree char *title = NULL;
  g_autofree char *org_title = NULL;

  ts_hf_model_id_parse (model_id, self->total_params, &id);
  title = id.full_name ? ts_hf_naming_id_to_title (id.full_name) : NULL;
  org_title = id.organization ? ts_hf_naming_id_to_title (id.organization) : NULL;
  set_field (self, TS_HF_NAMING_NAME, title, origin);
  set_field (self, TS_HF_NAMING_ORGANIZATION, org_title, origin);
  set_field (self, TS_HF_NAMING_BASENAME, id.basename, origin);
  set_field (self, TS_HF_NAMING_FINETUNE, id.finetune, origin);
  set_field (self, TS_HF_NAMING_VERSION, id.version, origin);
  set_field (self, TS_HF_NAMING_SIZE_LABEL, id.size_label, origin);
  ts_hf_model_id_clear (&id);
}

static guint
count_char (const char *s,
            char        c)
{
  guint n = 0;

  for (; *s; s++)
    n += *s == c;
  return n;
}

/**
 * ts_hf_naming_new:
 * @dir: the checkpoint folder
 * @config: its config.json
 * @total_params: the element count of all tensors written, 0 if unknown
 *
 * Returns: (transfer full): the naming fields, as Metadata.load() and
 *   ModelBase.prepare_metadata() of llama.cpp's converter decide them.
 */
TsHfNaming *
ts_hf_naming_new (GFile            *dir,
                  const TsHfConfig *config,
                  guint64           total_params)
{
  TsHfNaming *self;
  g_autoptr(GHashTable) card = NULL;
  g_autofree char *folder = NULL;

  g_return_val_if_fail (G_IS_FILE (dir), NULL);
  g_return_val_if_fail (config != NULL, NULL);

  self = g_new0 (TsHfNaming, 1);
  self->total_params = total_params;
  card = load_model_card (dir);
  apply_model_card (self, card);
  /* _name_or_path only when it looks like "org/name", not a local path */
  if (config->name_or_path != NULL && count_char (config->name_or_path, '/') <= 1)
    apply_model_id (self, config->name_or_path, "config.json: _name_or_path");
  /* GGUF's strings are UTF-8, a folder's name need not be (U+FFFD for
   * what is not; llama.cpp's converter fails there, on encoding it) */
  folder = ts_file_display_basename (dir);
  apply_model_id (self, folder, "folder name");
  set_field (self, TS_HF_NAMING_NAME, folder, "folder name");
  if (self->values[TS_HF_NAMING_SIZE_LABEL] == NULL && total_params > 0)
    {
      g_autofree char *label = ts_hf_naming_size_label (total_params);

      set_field (self, TS_HF_NAMING_SIZE_LABEL, label, "tensor element count");
    }
  return self;
}

void
ts_hf_naming_free (TsHfNaming *self)
{
  if (self == NULL)
    return;
  for (guint i = 0; i < TS_HF_NAMING_N_FIELDS; i++)
    {
      g_free (self->values[i]);
      g_free (self->origins[i]);
    }
  g_clear_pointer (&self->base_models, g_ptr_array_unref);
  g_clear_pointer (&self->datasets, g_ptr_array_unref);
  g_clear_pointer (&self->tags, g_ptr_array_unref);
  g_clear_pointer (&self->languages, g_ptr_array_unref);
  g_free (self);
}

const char *
ts_hf_naming_get (TsHfNaming      *self,
                  TsHfNamingField  field)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (field < TS_HF_NAMING_N_FIELDS, NULL);

  return self->values[field];
}

const char *
ts_hf_naming_get_origin (TsHfNaming      *self,
                         TsHfNamingField  field)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (field < TS_HF_NAMING_N_FIELDS, NULL);

  return self->origins[field];
}

static void
write_refs (GPtrArray      *refs,
            const char     *prefix,
            TsGgufMetadata *md)
{
  g_autofree char *count_key = g_strdup_printf ("general.%s.count", prefix);

  if (refs == NULL)
    return;
  ts_gguf_metadata_add_uint32 (md, count_key, refs->len, "README.md");
  for (guint i = 0; i < refs->len; i++)
    {
      char **ref = g_ptr_array_index (refs, i);

      for (guint j = 0; j < G_N_ELEMENTS (ref_fields); j++)
        {
          g_autofree char *key = g_strdup_printf ("general.%s.%u.%s", prefix, i, ref_fields[j]);

          ts_gguf_metadata_add_string_nonempty (md, key, ref[j], "README.md");
        }
    }
}

static void
write_string_list (GPtrArray      *list,
                   const char     *key,
                   const char     *origin,
                   TsGgufMetadata *md)
{
  if (list == NULL || list->len == 0)
    return;
  ts_gguf_metadata_add_string_array (md, key, (const char **) list->pdata, NULL, list->len, origin);
}

/**
 * ts_hf_naming_write:
 * @self: the naming fields
 * @md: where to append them
 *
 * Appends the general.* naming keys in the order of gguf-py's
 * Metadata.set_gguf_meta_model(), only those with a value.
 */
void
ts_hf_naming_override (TsHfNaming      *self,
                       TsHfNamingField  field,
                       const char      *value,
                       const char      *origin)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (field < TS_HF_NAMING_N_FIELDS);

  g_clear_pointer (&self->values[field], g_free);
  g_clear_pointer (&self->origins[field], g_free);
  if (value == NULL || *value == '\0')
    return;
  self->values[field] = g_strdup (value);
  self->origins[field] = g_strdup (origin);
}

void
ts_hf_naming_write (TsHfNaming     *self,
                    TsGgufMetadata *md)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (md != NULL);

  for (guint i = 0; i < TS_HF_NAMING_N_FIELDS; i++)
    ts_gguf_metadata_add_string_nonempty (md, field_keys[i], self->values[i], self->origins[i]);
  write_refs (self->base_models, "base_model", md);
  write_refs (self->datasets, "dataset", md);
  write_string_list (self->tags, "general.tags", "README.md: tags, pipeline_tag", md);
  write_string_list (self->languages, "general.languages", "README.md: languages, language", md);
}

/* strip(), then spaces (and slashes) to dashes */
static void
append_name_part (GString    *s,
                  const char *value,
                  gboolean    leading_dash,
                  gboolean    slashes)
{
  g_autofree char *part = g_strstrip (g_strdup (value));

  g_strdelimit (part, slashes ? " /" : " ", '-');
  if (leading_dash)
    g_string_append_c (s, '-');
  g_string_append (s, part);
}

/**
 * ts_hf_naming_get_file_name:
 * @self: the naming fields
 * @output_type: "F32", "F16", "BF16" or "Q8_0"
 *
 * Returns: (transfer full): the file name llama.cpp's converter gives its
 *   output in a folder, per gguf-py's naming_convention():
 *   {basename}-{size_label}-{finetune}-{version}-{output type}.gguf
 */
char *
ts_hf_naming_get_file_name (TsHfNaming *self,
                            const char *output_type)
{
  g_autoptr(GString) s = NULL;
  const char *base;
  g_autofree char *encoding = NULL;

  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (output_type != NULL, NULL);

  s = g_string_new (NULL);
  base = self->values[TS_HF_NAMING_BASENAME];
  if (base == NULL)
    base = self->values[TS_HF_NAMING_NAME];
  append_name_part (s, base ? base : "ggml-model", FALSE, TRUE);
  if (self->values[TS_HF_NAMING_SIZE_LABEL] != NULL)
    g_string_append_printf (s, "-%s", self->values[TS_HF_NAMING_SIZE_LABEL]);
  if (self->values[TS_HF_NAMING_FINETUNE] != NULL)
    append_name_part (s, self->values[TS_HF_NAMING_FINETUNE], TRUE, FALSE);
  if (self->values[TS_HF_NAMING_VERSION] != NULL)
    append_name_part (s, self->values[TS_HF_NAMING_VERSION], TRUE, FALSE);
  encoding = g_ascii_strup (output_type, -1);
  append_name_part (s, encoding, TRUE, FALSE);
  g_string_append (s, ".gguf");
  return g_string_free (g_steal_pointer (&s), FALSE);
}

void
ts_hf_naming_add_metadata (GFile            *dir,
                           const TsHfConfig *config,
                           guint64           total_elements,
                           TsGgufMetadata   *md)
{
  g_autoptr(TsHfNaming) naming = ts_hf_naming_new (dir, config, total_elements);

  g_return_if_fail (naming != NULL);
  ts_hf_naming_write (naming, md);
}

char *
ts_hf_naming_default_file_name (GFile            *dir,
                                const TsHfConfig *config,
                                guint64           total_elements,
                                const char       *output_type)
{
  g_autoptr(TsHfNaming) naming = ts_hf_naming_new (dir, config, total_elements);

  g_return_val_if_fail (naming != NULL, NULL);
  return ts_hf_naming_get_file_name (naming, output_type);
}
