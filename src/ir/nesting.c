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
// or `>=`. Malformed text is left to MLIR to report.
#include "internal.h"

#include <stddef.h>

bool nesting_within(const char *text, size_t len, unsigned *line,
                    unsigned *col) {
  // kind[i] is the opener at depth i+1; only '<' versus the rest matters.
  char kind[MQSS_MAX_NESTING];
  int depth = 0;
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
      if (depth == MQSS_MAX_NESTING) {
        *line = ln;
        *col = cl;
        return false;
      }
      kind[depth++] = c;
    } else if (c == ')' || c == ']' || c == '}') {
      // Angle brackets left open inside (by unusual syntax) close here too,
      // so they cannot pile up.
      while (depth > 0 && kind[depth - 1] == '<')
        depth--;
      if (depth > 0)
        depth--;
    } else if (c == '>') {
      bool arrow = i > 0 && text[i - 1] == '-';
      if (!arrow && !next_eq && depth > 0 && kind[depth - 1] == '<')
        depth--;
    }
  }
  return true;
}
