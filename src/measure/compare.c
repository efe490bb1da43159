// Output comparison against the reference and the output checksum. Integers
// compare exactly; floats (and numbers printed on standard output) within
// |got - want| <= atol + rtol * |want|, which allows reassociation; NaN equals
// NaN. It does not produce outputs.
#include "measure.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// ----------------------------------------------------------------------------
// elements

static double elem_get(elem_type et, const void *data, int64_t k) {
  const char *p = (const char *)data + k * (int64_t)elem_size(et);
  switch (et) {
  case ET_F32: { float f; memcpy(&f, p, 4); return f; }
  case ET_F64: { double d; memcpy(&d, p, 8); return d; }
  case ET_I8: return *(const int8_t *)p;
  case ET_I16: { int16_t v; memcpy(&v, p, 2); return v; }
  case ET_I32: { int32_t v; memcpy(&v, p, 4); return v; }
  case ET_I64:
  case ET_INDEX: { int64_t v; memcpy(&v, p, 8); return (double)v; }
  }
  return 0;
}

static bool is_float(elem_type et) { return et == ET_F32 || et == ET_F64; }

// Tracks the largest error, and records the mismatch with the largest error
// (the first one among equals).
static void note(compare_result *r, bool ok, double err, int output,
                 int64_t index, double got, double want, const char *what) {
  r->nvalues++;
  if (err > r->max_error)
    r->max_error = err;
  if (ok || (!r->equal && !(err > r->worst)))
    return;
  r->equal = false;
  r->worst = err;
  r->output = output;
  r->index = index;
  r->got = got;
  r->want = want;
  snprintf(r->what, sizeof r->what, "%s", what);
}

static bool close_enough(double g, double w, double rtol, double atol) {
  if (isnan(g) || isnan(w))
    return isnan(g) && isnan(w);
  if (isinf(g) || isinf(w))
    return g == w;
  return fabs(g - w) <= atol + rtol * fabs(w);
}

// ----------------------------------------------------------------------------
// printed output

// Next token of printed text: a run of characters other than whitespace and
// the punctuation printMemref uses. Returns false at the end.
static bool next_token(const char **p, const char *end, const char **tok,
                       size_t *len) {
  static const char *sep = " \t\r\n[],=:(){}";
  while (*p < end && strchr(sep, **p))
    (*p)++;
  if (*p >= end)
    return false;
  *tok = *p;
  while (*p < end && !strchr(sep, **p))
    (*p)++;
  *len = (size_t)(*p - *tok);
  return true;
}

static bool token_number(const char *tok, size_t len, double *v) {
  char buf[64];
  if (len >= sizeof buf)
    return false;
  memcpy(buf, tok, len);
  buf[len] = '\0';
  char *end;
  *v = strtod(buf, &end);
  return end == buf + len;
}

static bool token_hex(const char *tok, size_t len) {
  return len > 2 && tok[0] == '0' && (tok[1] == 'x' || tok[1] == 'X');
}

static void compare_text(const strbuf *got, const strbuf *want, double rtol,
                         double atol, int output, compare_result *r) {
  const char *g = got->data ? got->data : "", *ge = g + got->len;
  const char *w = want->data ? want->data : "", *we = w + want->len;
  const char *gt = NULL, *wt = NULL;
  size_t gl = 0, wl = 0;
  int64_t index = 0;
  for (;;) {
    bool hg, hw;
    do hg = next_token(&g, ge, &gt, &gl); while (hg && token_hex(gt, gl));
    do hw = next_token(&w, we, &wt, &wl); while (hw && token_hex(wt, wl));
    if (!hg && !hw)
      return;
    if (hg != hw) {
      note(r, false, INFINITY, output, index, NAN, NAN,
           hg ? "stdout (longer than the reference)"
              : "stdout (shorter than the reference)");
      return;
    }
    double gv = 0, wv = 0;
    bool gn = token_number(gt, gl, &gv), wn = token_number(wt, wl, &wv);
    if (gn && wn) {
      double err = fabs(gv - wv);
      note(r, close_enough(gv, wv, rtol, atol), isnan(err) ? 0 : err, output,
           index, gv, wv, "stdout number");
    } else if (gn || wn || gl != wl || memcmp(gt, wt, gl)) {
      note(r, false, INFINITY, output, index, NAN, NAN, "stdout word");
    }
    index++;
  }
}

// ----------------------------------------------------------------------------
// compare and checksum

void outputs_compare(const outputs *got, const outputs *want, double rtol,
                     double atol, compare_result *r) {
  memset(r, 0, sizeof *r);
  r->equal = true;
  r->output = -1;
  r->index = -1;
  if (got->n != want->n) {
    note(r, false, INFINITY, 0, 0, NAN, NAN, "number of outputs");
    return;
  }
  for (int o = 0; o < got->n; o++) {
    const output_buf *g = &got->v[o], *w = &want->v[o];
    if (g->et != w->et || g->count != w->count) {
      note(r, false, INFINITY, o, 0, NAN, NAN, g->what);
      return;
    }
    for (int64_t k = 0; k < g->count; k++) {
      double gv = elem_get(g->et, g->data, k), wv = elem_get(w->et, w->data, k);
      bool ok;
      if (is_float(g->et))
        ok = close_enough(gv, wv, rtol, atol);
      else // exact: compare the bits, doubles lose i64 precision
        ok = !memcmp((const char *)g->data + k * (int64_t)elem_size(g->et),
                     (const char *)w->data + k * (int64_t)elem_size(w->et),
                     elem_size(g->et));
      double err = fabs(gv - wv);
      note(r, ok, isnan(err) ? 0 : err, o, k, gv, wv, g->what);
    }
  }
  compare_text(&got->out, &want->out, rtol, atol, got->n, r);
}

static void fnv(uint64_t *h, const void *data, size_t len) {
  const unsigned char *p = data;
  for (size_t i = 0; i < len; i++) {
    *h ^= p[i];
    *h *= 0x100000001b3ULL;
  }
}

uint64_t outputs_checksum(const outputs *o) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (int i = 0; i < o->n; i++)
    fnv(&h, o->v[i].data, (size_t)o->v[i].count * elem_size(o->v[i].et));
  // Printed text without the pointers printMemref shows, token by token.
  const char *p = o->out.data ? o->out.data : "", *end = p + o->out.len, *t;
  size_t len;
  while (next_token(&p, end, &t, &len))
    if (!token_hex(t, len)) {
      fnv(&h, t, len);
      fnv(&h, " ", 1);
    }
  return h;
}
