// Skip sets: which outputs and printed lines the output check leaves out.
// They come from --skip-output specs (result:N, arg:N, line:N[-M], stdout)
// and from the clock probe (outputs that differ between two reference runs
// under two synthetic clocks). Parsing, the probe's diff, membership and the
// description that goes into the result's notes; the comparison is in
// compare.c.
#include "measure.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// ----------------------------------------------------------------------------
// membership

// The kind and number of an output from its name ("result 0", "argument 2").
static bool output_ref(const output_buf *b, bool *result, int *n) {
  *result = !strncmp(b->what, "result ", 7);
  if (!*result && strncmp(b->what, "argument ", 9))
    return false;
  *n = atoi(b->what + (*result ? 7 : 9));
  return *n >= 0 && *n < 64;
}

bool skip_output(const skip_set *s, const output_buf *b) {
  bool result;
  int n;
  if (!s || !output_ref(b, &result, &n))
    return false;
  return ((result ? s->results : s->args) >> n) & 1;
}

bool skip_line(const skip_set *s, int64_t line) {
  if (!s)
    return false;
  if (s->stdout_all)
    return true;
  return line >= 1 && (size_t)line <= s->lines.len && s->lines.data[line - 1];
}

static void add_line(skip_set *s, int64_t line) {
  // NUL bytes up to `line`: not skipped. In blocks, not one byte per call:
  // line:16000000 took 14 s under the sanitizers (found by fuzz_outputs).
  static const char zeros[4096];
  while (s->lines.len < (size_t)line) {
    size_t n = (size_t)line - s->lines.len, before = s->lines.len;
    sb_append(&s->lines, zeros, n < sizeof zeros ? n : sizeof zeros);
    if (s->lines.len == before)
      return; // out of memory: the line stays checked
  }
  s->lines.data[line - 1] = 1;
}

static void add_output(skip_set *s, const output_buf *b) {
  bool result;
  int n;
  if (output_ref(b, &result, &n))
    *(result ? &s->results : &s->args) |= 1ull << n;
}

bool skip_empty(const skip_set *s) {
  if (!s || s->results || s->args || s->stdout_all)
    return !s;
  for (size_t i = 0; i < s->lines.len; i++)
    if (s->lines.data[i])
      return false;
  return true;
}

void skip_free(skip_set *s) {
  sb_free(&s->lines);
  memset(s, 0, sizeof *s);
}

// ----------------------------------------------------------------------------
// --skip-output specs

bool skip_parse(skip_set *s, const char *spec, char *err, size_t errlen) {
  char *end;
  const char *colon = strchr(spec, ':');
  size_t klen = colon ? (size_t)(colon - spec) : strlen(spec);
  if (!colon && !strcmp(spec, "stdout")) {
    s->stdout_all = true;
    return true;
  }
  long a = colon ? strtol(colon + 1, &end, 10) : -1, b = a;
  bool ok = colon && end != colon + 1 && a >= 0;
  if (ok && *end == '-' && klen == 4 && !strncmp(spec, "line", 4))
    b = strtol(end + 1, &end, 10);
  ok = ok && *end == '\0' && b >= a;
  if (ok && klen == 6 && !strncmp(spec, "result", 6) && a < 64)
    s->results |= 1ull << a;
  else if (ok && ((klen == 3 && !strncmp(spec, "arg", 3)) ||
                  (klen == 8 && !strncmp(spec, "argument", 8))) && a < 64)
    s->args |= 1ull << a;
  else if (ok && klen == 4 && !strncmp(spec, "line", 4) && a >= 1 &&
           b <= (1 << 24))
    for (long l = a; l <= b; l++)
      add_line(s, l);
  else {
    snprintf(err, errlen, "invalid --skip-output '%s': expected result:N or "
             "arg:N (N from 0, below 64), line:N or line:N-M (stdout lines "
             "from 1), or stdout", spec);
    return false;
  }
  return true;
}

bool skip_fits(const skip_set *s, const entry_spec *e, char *err,
               size_t errlen) {
  for (int n = 0; n < 64; n++) {
    if ((s->results >> n) & 1 && n >= e->nresults) {
      snprintf(err, errlen, "--skip-output result:%d: @%s has %d result%s", n,
               e->name, e->nresults, e->nresults == 1 ? "" : "s");
      return false;
    }
    if ((s->args >> n) & 1 &&
        (n >= e->nargs || !e->args[n].shaped || e->args[n].tensor)) {
      snprintf(err, errlen, "--skip-output arg:%d: argument %d of @%s is not "
               "an output (only memref arguments are)", n, n, e->name);
      return false;
    }
  }
  return true;
}

// ----------------------------------------------------------------------------
// the clock probe

// Splits text into lines: start of line `k` (from 0) via `*p`; false at end.
static bool next_line(const char **p, const char *end, const char **line,
                      size_t *len) {
  if (*p >= end)
    return false;
  *line = *p;
  const char *nl = memchr(*p, '\n', (size_t)(end - *p));
  *len = (size_t)((nl ? nl : end) - *p);
  *p = nl ? nl + 1 : end;
  return true;
}

void skip_from_probe(skip_set *s, const outputs *a, const outputs *b) {
  for (int o = 0; o < a->n && o < b->n; o++) {
    size_t bytes = (size_t)a->v[o].count * elem_size(a->v[o].et);
    if (a->v[o].count != b->v[o].count || memcmp(a->v[o].data, b->v[o].data, bytes))
      add_output(s, &a->v[o]);
  }
  const char *pa = a->out.data ? a->out.data : "", *ea = pa + a->out.len;
  const char *pb = b->out.data ? b->out.data : "", *eb = pb + b->out.len;
  const char *la, *lb;
  size_t na, nb;
  int64_t line = 0;
  for (;;) {
    bool ha = next_line(&pa, ea, &la, &na), hb = next_line(&pb, eb, &lb, &nb);
    if (ha != hb) { // the clock changed how much was printed
      s->stdout_all = true;
      return;
    }
    if (!ha)
      return;
    line++;
    if (!text_equal(la, na, lb, nb))
      add_line(s, line);
  }
}

// ----------------------------------------------------------------------------
// description

void skip_describe(const skip_set *s, const char *why, strbuf *out) {
  if (skip_empty(s))
    return;
  if (out->len)
    sb_printf(out, "; ");
  sb_printf(out, "skipped");
  const char *sep = " ";
  for (int kind = 0; kind < 2; kind++)
    for (int n = 0; n < 64; n++)
      if (((kind ? s->args : s->results) >> n) & 1) {
        sb_printf(out, "%s%s %d", sep, kind ? "argument" : "result", n);
        sep = ", ";
      }
  if (s->stdout_all) {
    sb_printf(out, "%sstdout", sep);
  } else {
    int64_t first = 0; // a run of skipped lines prints as A-B
    for (size_t i = 0; i <= s->lines.len; i++) {
      bool on = i < s->lines.len && s->lines.data[i];
      if (on && !first)
        first = (int64_t)i + 1;
      if (!on && first) {
        sb_printf(out, "%sstdout line %lld", sep, (long long)first);
        if ((int64_t)i > first)
          sb_printf(out, "-%lld", (long long)i);
        sep = ", ";
        first = 0;
      }
    }
  }
  sb_printf(out, " (%s)", why);
}
