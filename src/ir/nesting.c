// A lexical pre-scan that bounds how deeply MLIR text nests, run before the
// text reaches MLIR's parsers. Those parsers (IR and pass pipelines) are
// recursive descent: a module with 10,000 nested attributes or regions
// overflows the stack inside MLIR and kills the process, which the library
// promises never to do. Real modules nest a few dozen levels; the limit
// (MQSS_MAX_NESTING) sits well below the depths measured to crash on the
// default 8 MiB stack (about 4,000 nested regions, 10,000 attributes), so
// what passes here also survives the recursive walks, verifier and passes
// that follow the parse.
//
// This is not a parser: it counts (, [, { and < outside strings and `//`
// comments, and treats > as a closer only after a matching <, never in `->`
// or `>=`. Malformed text is left to MLIR to report; when MLIR's parse has
// failed, an opener the text never closes (a truncated file) is named too.
#include "internal.h"

#include <stddef.h>
#include <stdlib.h>

// The scan: the openers still open at the end (or at the first one past the
// limit), each with its position.
typedef struct {
  char kind[MQSS_MAX_NESTING]; // opener at depth i+1; '<' versus the rest
  unsigned line[MQSS_MAX_NESTING], col[MQSS_MAX_NESTING];
  int depth;
  bool too_deep; // stopped at an opener past the limit (line, col below)
  unsigned deep_line, deep_col;
} nest_scan;

static void scan(const char *text, size_t len, nest_scan *n) {
  n->depth = 0;
  n->too_deep = false;
  unsigned ln = 1, cl = 0;
  enum { CODE, STRING, COMMENT } mode = CODE;
  for (size_t i = 0; i < len; i++) {
    char c = text[i];
    if (c == '\n') {
      ln++;
      cl = 0;
      if (mode == COMMENT)
        mode = CODE;
      continue;
    }
    cl++;
    if (mode == COMMENT)
      continue;
    if (mode == STRING) {
      if (c == '"') {
        mode = CODE;
      } else if (c == '\\' && i + 1 < len && text[i + 1] != '\n') {
        i++; // the escaped character
        cl++;
      }
      continue;
    }
    bool next_eq = i + 1 < len && text[i + 1] == '=';
    if (c == '"') {
      mode = STRING;
    } else if (c == '/' && i + 1 < len && text[i + 1] == '/') {
      mode = COMMENT;
    } else if (c == '(' || c == '[' || c == '{' || (c == '<' && !next_eq)) {
      if (n->depth == MQSS_MAX_NESTING) {
        n->too_deep = true;
        n->deep_line = ln;
        n->deep_col = cl;
        return;
      }
      n->kind[n->depth] = c;
      n->line[n->depth] = ln;
      n->col[n->depth++] = cl;
    } else if (c == ')' || c == ']' || c == '}') {
      // Angle brackets left open inside (by unusual syntax) close here too,
      // so they cannot pile up.
      while (n->depth > 0 && n->kind[n->depth - 1] == '<')
        n->depth--;
      if (n->depth > 0)
        n->depth--;
    } else if (c == '>') {
      bool arrow = i > 0 && text[i - 1] == '-';
      if (!arrow && !next_eq && n->depth > 0 && n->kind[n->depth - 1] == '<')
        n->depth--;
    }
  }
}

bool nesting_within(const char *text, size_t len, unsigned *line,
                    unsigned *col) {
  nest_scan *n = malloc(sizeof *n);
  if (!n)
    return true; // MLIR's own limits then
  scan(text, len, n);
  bool ok = !n->too_deep;
  if (!ok) {
    *line = n->deep_line;
    *col = n->deep_col;
  }
  free(n);
  return ok;
}

char nesting_unclosed(const char *text, size_t len, unsigned *line,
                      unsigned *col) {
  nest_scan *n = malloc(sizeof *n);
  if (!n)
    return 0;
  scan(text, len, n);
  char open = 0;
  for (int d = 0; d < n->depth && !n->too_deep && !open; d++)
    if (n->kind[d] != '<') {
      open = n->kind[d];
      *line = n->line[d];
      *col = n->col[d];
    }
  free(n);
  return open;
}
