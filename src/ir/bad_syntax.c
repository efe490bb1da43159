// IR text that crashes MLIR 19.1.7's parser in process, found by fuzzing
// (fuzz/fuzz_module.c). The custom syntax of linalg.generic reads each
// element of its `iterator_types` array as a string without checking
// (`getAsValueRange<StringAttr>`): any other attribute there (`[#map]`,
// `[1, 2]`, even `[#linalg.iterator_type<parallel>]`) is read as a string
// of garbage length, and the allocation aborts the process ("LLVM ERROR:
// out of memory"). The generic form, `"linalg.generic"(...) <{...}>`, is
// verified properly and is left alone. Like nesting.c this is a lexical
// scan, run before the text reaches MLIR: it finds `iterator_types =` in
// code (outside strings and `//` comments) directly inside the attribute
// dictionary that follows an unquoted `linalg.generic`, follows one alias
// (`#it` defined as `#it = [...]`), and requires an array of string
// literals. A list of known failures, not a proof of safety.
#include "internal.h"

#include <ctype.h>
#include <string.h>

typedef struct {
  const char *text;
  size_t len;
} src;

// Past the string literal that starts at i (a '"'), or len.
static size_t skip_string(const src *s, size_t i) {
  for (i++; i < s->len && s->text[i] != '"'; i++)
    if (s->text[i] == '\\')
      i++;
  return i < s->len ? i + 1 : s->len;
}

static size_t skip_space(const src *s, size_t i) {
  while (i < s->len && isspace((unsigned char)s->text[i]))
    i++;
  return i;
}

// A character of an identifier or alias name (MLIR also allows '$').
static bool ident(char c) {
  return isalnum((unsigned char)c) || c == '_' || c == '$';
}

// Whether the word w stands at i, not inside a longer identifier.
static bool word_at(const src *s, size_t i, const char *w) {
  size_t n = strlen(w);
  return i + n <= s->len && !memcmp(s->text + i, w, n) &&
         (i + n == s->len || !ident(s->text[i + n])) &&
         (i == 0 || !ident(s->text[i - 1]));
}

// The position of the value of alias `#name` (`name` at i, length n),
// defined at the start of a line as `#name = value`, or len.
static size_t alias_value(const src *s, size_t i, size_t n) {
  for (size_t p = 0; p + n + 1 < s->len; p++) {
    if ((p && s->text[p - 1] != '\n') || s->text[p] != '#' ||
        memcmp(s->text + p + 1, s->text + i, n) || ident(s->text[p + 1 + n]))
      continue;
    size_t q = skip_space(s, p + 1 + n);
    if (q < s->len && s->text[q] == '=')
      return skip_space(s, q + 1);
  }
  return s->len;
}

// Where the value at i stops being an array of string literals, or len
// when it is one (or when it is cut off: MLIR reports that).
static size_t first_non_string(const src *s, size_t i) {
  if (i < s->len && s->text[i] == '#') {
    size_t n = 1;
    while (i + n < s->len && (ident(s->text[i + n]) ||
                              s->text[i + n] == '.' || s->text[i + n] == '-'))
      n++;
    size_t v = alias_value(s, i + 1, n - 1);
    if (v == s->len || s->text[v] == '#')
      return i; // not an alias defined here, or an alias of an alias
    return first_non_string(s, v) == s->len ? s->len : i;
  }
  if (i >= s->len || s->text[i] != '[')
    return i;
  for (i = skip_space(s, i + 1); i < s->len && s->text[i] != ']';) {
    if (s->text[i] != '"')
      return i;
    i = skip_space(s, skip_string(s, i));
    if (i < s->len && s->text[i] == ',')
      i = skip_space(s, i + 1);
    else if (i < s->len && s->text[i] != ']')
      return i;
  }
  return s->len;
}

// Whether the '{' at i opens the attribute dictionary of linalg.generic in
// its custom syntax: the word before it is `linalg.generic`, unquoted.
static bool generic_attrs(const src *s, size_t i) {
  static const char op[] = "linalg.generic";
  size_t n = sizeof op - 1;
  while (i > 0 && isspace((unsigned char)s->text[i - 1]))
    i--;
  char before = i > n ? s->text[i - n - 1] : ' ';
  return i >= n && !memcmp(s->text + i - n, op, n) && !ident(before) &&
         before != '.' && before != '"';
}

bool iterator_types_parse_safely(const char *text, size_t len,
                                 unsigned *line, unsigned *col) {
  src s = {text, len};
  // custom[d]: whether the brace at depth d is linalg.generic's attributes
  bool custom[MQSS_MAX_NESTING + 1];
  int depth = 0;
  for (size_t i = 0; i < len; i++) {
    char c = text[i];
    if (c == '"') {
      i = skip_string(&s, i) - 1;
    } else if (c == '/' && i + 1 < len && text[i + 1] == '/') {
      while (i < len && text[i] != '\n')
        i++;
    } else if (c == '{' && depth < MQSS_MAX_NESTING) {
      custom[++depth] = generic_attrs(&s, i);
    } else if (c == '}' && depth > 0) {
      depth--;
    } else if (depth > 0 && custom[depth] &&
               word_at(&s, i, "iterator_types")) {
      size_t eq = skip_space(&s, i + strlen("iterator_types"));
      if (eq >= len || text[eq] != '=')
        continue;
      size_t bad = first_non_string(&s, skip_space(&s, eq + 1));
      if (bad == len)
        continue;
      *line = 1;
      *col = 1;
      for (size_t p = 0; p < bad; p++) {
        *col = text[p] == '\n' ? 1 : *col + 1;
        *line += text[p] == '\n';
      }
      return false;
    }
  }
  return true;
}
