// IR text that crashes MLIR 19.1.7's parser in process, found by fuzzing
// (fuzz/fuzz_module.c), refused before it reaches MLIR:
// - The custom syntax of linalg.generic and of vector.contract reads each
//   element of `iterator_types` as a string without checking
//   (`getAsValueRange<StringAttr>`): any other attribute there (`[#map]`,
//   `[1, 2]`, even `[#linalg.iterator_type<...>]`) is read as a string of
//   garbage length, and the allocation aborts the process ("LLVM ERROR: out
//   of memory"). The dictionary can reach the op through an alias
//   (`linalg.generic #trait`), so every attribute dictionary is checked,
//   not only the one after the op name. Properties (`<{...}>`, the generic
//   form) are verified properly and are left alone.
// - vector.contract's custom parser casts without checking: with no
//   `iterator_types` in its dictionaries, or a `kind` that is not a
//   `#vector.kind<...>`, it dereferences a null or mistyped attribute.
//
// Like nesting.c this is a lexical scan, but over tokens as MLIR's lexer
// sees them: whitespace, stray NUL bytes and `//` comments separate tokens,
// and a key may be a string with escapes (`"iterator\5Ftypes"`). Aliases
// are followed a few hops. A list of known failures, not a proof of
// safety: it may refuse rare valid text (an old-style generic form with
// enum iterator types in the attribute dictionary).
#include "internal.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

enum { ALIAS_HOPS = 4 };

static const char iterator_types_why[] =
    "iterator_types in an attribute dictionary must be an array of strings "
    "(\"parallel\", \"reduction\", \"window\"); MLIR 19's parsers of "
    "linalg.generic and vector.contract crash on anything else; write them "
    "as strings";
static const char contract_iterators_why[] =
    "vector.contract has no iterator_types in its attribute dictionaries; "
    "MLIR 19's parser crashes without them; add iterator_types = [...] with "
    "one string per loop";
static const char contract_kind_why[] =
    "vector.contract's kind must be a #vector.kind<...> attribute (such as "
    "#vector.kind<add>); MLIR 19's parser crashes on anything else";

// An alias definition `#name = value`: the name (with its '#') and where
// its value starts.
typedef struct {
  const char *name;
  size_t len, value;
} alias_def;

typedef struct {
  const char *text;
  size_t len;
  alias_def *aliases; // sorted by name, then by position
  size_t n_aliases;
} src;

// Past the string literal that starts at i (a '"'), or len.
static size_t skip_string(const src *s, size_t i) {
  for (i++; i < s->len && s->text[i] != '"'; i++)
    if (s->text[i] == '\\')
      i++;
  return i < s->len ? i + 1 : s->len;
}

// Past whitespace, stray NUL bytes and `//` comments: what MLIR's lexer
// skips between tokens.
static size_t skip_trivia(const src *s, size_t i) {
  while (i < s->len) {
    char c = s->text[i];
    if (c == '/' && i + 1 < s->len && s->text[i + 1] == '/')
      while (i < s->len && s->text[i] != '\n')
        i++;
    else if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\0')
      i++;
    else
      break;
  }
  return i;
}

// A character of a bare identifier; aliases also allow '-'.
static bool ident(char c) {
  return isalnum((unsigned char)c) || c == '_' || c == '$' || c == '.';
}

// The end of the token that starts at i: a string, a word, an alias name
// (`#name`), `->` or `>=`, or one punctuation character.
static size_t token_end(const src *s, size_t i) {
  char c = s->text[i];
  if (c == '"')
    return skip_string(s, i);
  if (c == '#')
    for (i++; i < s->len && (ident(s->text[i]) || s->text[i] == '-'); i++)
      ;
  else if (ident(c))
    while (i < s->len && ident(s->text[i]))
      i++;
  else if ((c == '-' || c == '>') && i + 1 < s->len &&
           s->text[i + 1] == (c == '-' ? '>' : '='))
    i += 2;
  else
    i++;
  return i;
}

// The next token after the one that starts at i.
static size_t next_token(const src *s, size_t i) {
  return skip_trivia(s, token_end(s, i));
}

static bool is_token(const src *s, size_t i, const char *w) {
  size_t n = strlen(w);
  return token_end(s, i) - i == n && !memcmp(s->text + i, w, n);
}

static int hex(char c) {
  return isdigit((unsigned char)c)    ? c - '0'
         : isxdigit((unsigned char)c) ? tolower((unsigned char)c) - 'a' + 10
                                      : -1;
}

// Whether the token at i is the dictionary key `key`, bare or as a string
// literal after MLIR's escapes (\\, \", \n, \t and two hex digits).
static bool is_key(const src *s, size_t i, const char *key) {
  if (s->text[i] != '"')
    return is_token(s, i, key);
  size_t end = token_end(s, i), n = strlen(key), k = 0;
  for (i++; i + 1 < end; i++, k++) {
    char c = s->text[i];
    if (c == '\\' && i + 2 < end && hex(s->text[i + 1]) >= 0 &&
        hex(s->text[i + 2]) >= 0) {
      c = (char)(hex(s->text[i + 1]) * 16 + hex(s->text[i + 2]));
      i += 2;
    } else if (c == '\\' && i + 2 < end) {
      char e = s->text[++i];
      c = e == 'n' ? '\n' : e == 't' ? '\t' : e;
    }
    if (k == n || c != key[k])
      return false;
  }
  return k == n;
}

// +1 for the token at i opening a bracket ( [ { <, -1 for one closing it
// (a '>' alone, not `>=`), else 0.
static int bracket(const src *s, size_t i) {
  char c = s->text[i];
  if (c == '(' || c == '[' || c == '{' || c == '<')
    return 1;
  if (c == ')' || c == ']' || c == '}' ||
      (c == '>' && token_end(s, i) == i + 1))
    return -1;
  return 0;
}

// Past the value that starts at i: up to the ',' or the closing bracket
// that ends it, brackets balanced.
static size_t skip_value(const src *s, size_t i) {
  for (int depth = 0; i < s->len; i = next_token(s, i)) {
    int b = bracket(s, i);
    if (depth == 0 && (b < 0 || s->text[i] == ','))
      break;
    depth += b;
  }
  return i;
}

static int alias_order(const void *a, const void *b) {
  const alias_def *x = a, *y = b;
  if (x->len != y->len)
    return x->len < y->len ? -1 : 1;
  int c = memcmp(x->name, y->name, x->len);
  return c ? c : (x->name > y->name) - (x->name < y->name);
}

// Indexes every `#name = value` of the text, so that each lookup is a
// binary search rather than a scan. False when out of memory.
static bool index_aliases(src *s) {
  size_t cap = 0;
  for (size_t p = skip_trivia(s, 0); p < s->len; p = next_token(s, p)) {
    size_t eq = next_token(s, p);
    if (s->text[p] != '#' || eq >= s->len || s->text[eq] != '=')
      continue;
    if (s->n_aliases == cap) {
      cap = cap ? 2 * cap : 16;
      alias_def *grown = realloc(s->aliases, cap * sizeof *grown);
      if (!grown)
        return false;
      s->aliases = grown;
    }
    s->aliases[s->n_aliases++] =
        (alias_def){s->text + p, token_end(s, p) - p, skip_trivia(s, eq + 1)};
  }
  if (s->n_aliases)
    qsort(s->aliases, s->n_aliases, sizeof *s->aliases, alias_order);
  return true;
}

// The position of the value of the alias at i (`#name`): its first
// definition, or len.
static size_t alias_value(const src *s, size_t i) {
  alias_def key = {s->text + i, token_end(s, i) - i, 0};
  size_t lo = 0, hi = s->n_aliases;
  while (lo < hi) { // the first definition not ordered before the name
    size_t mid = lo + (hi - lo) / 2;
    const alias_def *d = &s->aliases[mid];
    bool before = d->len != key.len ? d->len < key.len
                                    : memcmp(d->name, key.name, key.len) < 0;
    if (before)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo == s->n_aliases)
    return s->len;
  const alias_def *d = &s->aliases[lo];
  return d->len == key.len && !memcmp(d->name, key.name, key.len) ? d->value
                                                                  : s->len;
}

// The value at i with aliases followed (at most ALIAS_HOPS), or len.
static size_t resolve(const src *s, size_t i) {
  for (int hop = 0; i < s->len && s->text[i] == '#' && hop < ALIAS_HOPS;
       hop++) {
    size_t v = alias_value(s, i);
    if (v == s->len)
      return i; // a dialect attribute such as #vector.kind<add>
    i = v;
  }
  return i;
}

// Where the value at i stops being an array of strings, or len when it is
// one (or when it is cut off: MLIR reports that).
static size_t first_non_string(const src *s, size_t i) {
  size_t v = resolve(s, i);
  if (v >= s->len)
    return s->len;
  if (s->text[v] != '[')
    return i;
  for (size_t e = skip_trivia(s, v + 1); e < s->len && s->text[e] != ']';) {
    size_t r = resolve(s, e);
    if (r >= s->len || s->text[r] != '"')
      return v == i ? e : i;
    e = next_token(s, e);
    if (e < s->len && s->text[e] == ',')
      e = skip_trivia(s, e + 1);
    else if (e < s->len && s->text[e] != ']')
      return v == i ? e : i;
  }
  return s->len;
}

// Reads the attribute dictionary at i (a '{'): notes an `iterator_types`
// key with a value in *iterators and returns where a `kind` that is not a
// #vector.kind<...> starts, or len.
static size_t contract_dict(const src *s, size_t i, bool *iterators) {
  for (i = skip_trivia(s, i + 1); i < s->len && s->text[i] != '}';) {
    size_t end = next_token(s, i);
    bool valued = end < s->len && s->text[end] == '=';
    size_t v = valued ? skip_trivia(s, end + 1) : i;
    size_t k = valued ? resolve(s, v) : i;
    if (is_key(s, i, "kind") && k < s->len && !is_token(s, k, "#vector.kind"))
      return v;
    *iterators |= valued && is_key(s, i, "iterator_types");
    if (valued)
      end = skip_value(s, v);
    if (end >= s->len || s->text[end] != ',')
      break; // '}', or malformed: MLIR reports that
    i = skip_trivia(s, end + 1);
  }
  return s->len;
}

// Past the bracketed group that opens at i.
static size_t past_group(const src *s, size_t i) {
  for (int depth = 0; i < s->len; i = next_token(s, i)) {
    int b = bracket(s, i);
    if ((depth += b) == 0 && b < 0)
      return next_token(s, i);
  }
  return i;
}

// The vector.contract at i (an unquoted op name): its leading dictionary,
// inline or an alias, and the optional one after its operands, before ':'.
static const char *contract_unsafe(const src *s, size_t i, size_t *at) {
  size_t lead = next_token(s, i);
  size_t dict = resolve(s, lead);
  if (dict >= s->len || s->text[dict] != '{')
    return NULL; // MLIR reports a missing dictionary
  bool iterators = false;
  if ((*at = contract_dict(s, dict, &iterators)) < s->len)
    return contract_kind_why;
  size_t p = s->text[lead] == '{' ? past_group(s, lead) : next_token(s, lead);
  while (p < s->len && s->text[p] != ':' && s->text[p] != '{' &&
         s->text[p] != '}')
    p = next_token(s, p);
  if (p < s->len && s->text[p] == '{' &&
      (*at = contract_dict(s, p, &iterators)) < s->len)
    return contract_kind_why;
  *at = i;
  return iterators ? NULL : contract_iterators_why;
}

// The 1-based line and column of text[at].
static void position(const char *text, size_t at, unsigned *line,
                     unsigned *col) {
  *line = 1;
  *col = 1;
  for (size_t p = 0; p < at; p++) {
    *col = text[p] == '\n' ? 1 : *col + 1;
    *line += text[p] == '\n';
  }
}

bool custom_op_at(const char *text, size_t len, const char *name,
                  unsigned *line, unsigned *col) {
  src s = {text, len, NULL, 0};
  for (size_t i = skip_trivia(&s, 0); i < len; i = next_token(&s, i))
    if (is_token(&s, i, name)) {
      position(text, i, line, col);
      return true;
    }
  return false;
}

const char *custom_syntax_unsafe(const char *text, size_t len, unsigned *line,
                                 unsigned *col) {
  src s = {text, len, NULL, 0};
  if (!index_aliases(&s)) {
    free(s.aliases);
    position(text, 0, line, col);
    return "out of memory indexing the module's aliases";
  }
  // props[d]: whether the brace at depth d opens properties (`<{`)
  bool props[MQSS_MAX_NESTING + 1];
  int depth = 0;
  char prev = 0; // the first character of the previous token
  const char *why = NULL;
  size_t at = len;
  for (size_t i = skip_trivia(&s, 0); i < len && !why;
       prev = text[i], i = next_token(&s, i)) {
    if (text[i] == '{' && depth < MQSS_MAX_NESTING) {
      props[++depth] = prev == '<';
      continue;
    }
    if (text[i] == '}' && depth > 0)
      depth--;
    if (is_token(&s, i, "vector.contract")) {
      why = contract_unsafe(&s, i, &at);
      continue;
    }
    if (depth == 0 || props[depth] || (prev != '{' && prev != ',') ||
        !is_key(&s, i, "iterator_types"))
      continue;
    size_t eq = next_token(&s, i); // no value: a unit attribute
    at = eq < len && text[eq] == '='
             ? first_non_string(&s, skip_trivia(&s, eq + 1))
             : i;
    if (at < len)
      why = iterator_types_why;
  }
  free(s.aliases);
  if (why)
    position(text, at, line, col);
  return why;
}
