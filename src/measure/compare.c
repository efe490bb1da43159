// Output comparison against the reference, under the error model of
// docs/MEASURE.md ("Correctness check"), and the output checksum. Integers
// compare exactly; a float may differ from the reference by
//   atol + rtol*|want| + 2*u*M*min(D, 8*sqrt(D)),
// where u is the unit roundoff of its type, D the module's rounding depth
// (errmodel.c) and M the magnitude of the operands that produced it (the
// reference run on the absolute values of the inputs), so FMA contraction,
// reassociation and polynomial approximations pass while a dropped term or a
// wrong element does not. NaN equals NaN. Outputs and printed lines in a skip
// set are left out. It does not produce outputs.
#include "measure.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// ----------------------------------------------------------------------------
// elements

// bf16 is the upper half of an f32.
static double bf16_get(uint16_t b) {
  uint32_t u = (uint32_t)b << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}

// x as an f32, a finite x beyond the largest f32 as the largest.
static float f32_clamped(double x) {
  return isfinite(x) ? (float)fmax(fmin(x, FLT_MAX), -FLT_MAX) : (float)x;
}

// Rounds through f32 to the nearest even bf16; a finite x over the largest
// bf16 becomes the largest.
static uint16_t bf16_put(double x) {
  float f = f32_clamped(x);
  uint32_t u;
  memcpy(&u, &f, 4);
  if (isnan(f))
    return (uint16_t)(u >> 16 | 0x40); // quiet
  uint32_t r = u + 0x7FFF + (u >> 16 & 1);
  if ((r & 0x7F800000) == 0x7F800000 && isfinite(f))
    r = (u & 0x80000000) | 0x7F7F0000; // rounded up to infinity
  return (uint16_t)(r >> 16);
}

// IEEE binary16: 1 sign, 5 exponent (bias 15), 10 fraction bits.
static double f16_get(uint16_t h) {
  int e = h >> 10 & 0x1F, m = h & 0x3FF;
  double v = e == 0    ? ldexp(m, -24)
             : e == 31 ? (m ? NAN : INFINITY)
                       : ldexp(1024 + m, e - 25);
  return h >> 15 ? -v : v;
}

// Rounds to the nearest even f16; a finite x over the largest f16 (65504)
// becomes the largest.
static uint16_t f16_put(double x) {
  uint16_t sign = signbit(x) ? 0x8000 : 0;
  double a = fabs(x);
  if (isnan(x))
    return 0x7E00;
  if (isinf(x))
    return sign | 0x7C00;
  if (a < 0x1p-14) // subnormal: multiples of 2^-24 (1024 is the least normal)
    return sign | (uint16_t)nearbyint(a * 0x1p24);
  int e;
  double m = frexp(a, &e) * 2048.0; // a = m * 2^(e-11), m in [1024, 2048)
  m = nearbyint(m);
  if (m == 2048.0)
    m = 1024.0, e++;
  if (e + 14 > 30)
    return sign | 0x7BFF;
  return sign | (uint16_t)((e + 14) << 10 | ((int)m - 1024));
}

double elem_get(elem_type et, const void *data, int64_t k) {
  const char *p = (const char *)data + k * (int64_t)elem_size(et);
  uint16_t h;
  switch (et) {
  case ET_F32: { float f; memcpy(&f, p, 4); return f; }
  case ET_F64: { double d; memcpy(&d, p, 8); return d; }
  case ET_BF16: memcpy(&h, p, 2); return bf16_get(h);
  case ET_F16: memcpy(&h, p, 2); return f16_get(h);
  case ET_I1: return *(const uint8_t *)p & 1;
  case ET_I8: return *(const int8_t *)p;
  case ET_I16: { int16_t v; memcpy(&v, p, 2); return v; }
  case ET_I32: { int32_t v; memcpy(&v, p, 4); return v; }
  case ET_I64:
  case ET_INDEX: { int64_t v; memcpy(&v, p, 8); return (double)v; }
  }
  return 0;
}

void elem_put(elem_type et, void *data, int64_t k, double x) {
  char *p = (char *)data + k * (int64_t)elem_size(et);
  if (et == ET_F64) {
    memcpy(p, &x, 8);
  } else if (et == ET_F32) {
    float f = f32_clamped(x);
    memcpy(p, &f, 4);
  } else if (et == ET_BF16 || et == ET_F16) {
    uint16_t h = et == ET_BF16 ? bf16_put(x) : f16_put(x);
    memcpy(p, &h, 2);
  }
}

bool elem_is_float(elem_type et) {
  return et == ET_F32 || et == ET_F64 || et == ET_BF16 || et == ET_F16;
}

// Tracks the largest error, and records the mismatch with the largest error
// (the first one among equals).
static void note(compare_result *r, bool ok, double err, double bound,
                 int output, int64_t index, double got, double want,
                 const char *what) {
  r->nvalues++;
  if (err > r->max_error)
    r->max_error = err;
  if (ok || (!r->equal && !(err > r->worst)))
    return;
  r->equal = false;
  r->worst = err;
  r->bound = bound;
  r->output = output;
  r->index = index;
  r->got = got;
  r->want = want;
  snprintf(r->what, sizeof r->what, "%s", what);
}

double unit_roundoff(elem_type et) {
  switch (et) {
  case ET_F64: return 0x1p-53;
  case ET_BF16: return 0x1p-8;
  case ET_F16: return 0x1p-11;
  default: return 0x1p-24; // f32, and printed numbers
  }
}

// Worst case for short reductions; for long ones the probabilistic bound
// with lambda = 8 (Higham and Mary, 2019), still far above what correct
// rounding changes produce on random inputs.
double error_steps(double depth) { return fmin(depth, 8.0 * sqrt(depth)); }

double error_bound(double want, double mag, double floor, double u,
                   double depth, double rtol, double atol) {
  double m = fabs(want);
  if (isfinite(mag))
    m = fmax(m, fabs(mag));
  if (isfinite(floor))
    m = fmax(m, floor);
  return atol + rtol * fabs(want) + 2.0 * u * m * error_steps(depth);
}

static bool close_enough(double g, double w, double bound) {
  if (isnan(g) || isnan(w))
    return isnan(g) && isnan(w);
  if (isinf(g) || isinf(w))
    return g == w;
  return fabs(g - w) <= bound;
}

// Mean |value| of the finite floats of `b`: the magnitude floor of an output
// when there is no magnitude run (a program without float inputs).
static double mean_abs(const output_buf *b) {
  double sum = 0;
  int64_t n = 0;
  for (int64_t k = 0; k < b->count; k++) {
    double v = elem_get(b->et, b->data, k);
    if (isfinite(v)) {
      sum += fabs(v);
      n++;
    }
  }
  return n ? sum / (double)n : 0.0;
}

// ----------------------------------------------------------------------------
// printed output

// Tokens of printed text: runs of characters other than whitespace and the
// punctuation printMemref uses, with the line (from 1) each starts on.
typedef struct {
  const char *p, *end;
  int64_t line;
} tokens;

static tokens tokens_of(const strbuf *sb) {
  const char *p = sb->data ? sb->data : "";
  return (tokens){p, p + sb->len, 1};
}

// Next token; false at the end.
static bool next_token(tokens *t, const char **tok, size_t *len) {
  static const char *sep = " \t\r\n[],=:(){}";
  while (t->p < t->end && strchr(sep, *t->p))
    t->line += *t->p++ == '\n';
  if (t->p >= t->end)
    return false;
  *tok = t->p;
  while (t->p < t->end && !strchr(sep, *t->p))
    t->p++;
  *len = (size_t)(t->p - *tok);
  return true;
}

static bool token_hex(const char *tok, size_t len) {
  return len > 2 && tok[0] == '0' && (tok[1] == 'x' || tok[1] == 'X');
}

// Next token that is compared: not a pointer, not on a skipped line.
static bool next_checked(tokens *t, const skip_set *a, const skip_set *b,
                         const char **tok, size_t *len) {
  while (next_token(t, tok, len))
    if (!token_hex(*tok, *len) && !skip_line(a, t->line) &&
        !skip_line(b, t->line))
      return true;
  return false;
}

bool text_equal(const char *a, size_t na, const char *b, size_t nb) {
  tokens ta = {a, a + na, 1}, tb = {b, b + nb, 1};
  const char *x, *y;
  size_t lx, ly;
  for (;;) {
    bool hx, hy;
    do hx = next_token(&ta, &x, &lx); while (hx && token_hex(x, lx));
    do hy = next_token(&tb, &y, &ly); while (hy && token_hex(y, ly));
    if (!hx || !hy)
      return hx == hy;
    if (lx != ly || memcmp(x, y, lx))
      return false;
  }
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

// Half a unit in the 6th significant digit of `v`: printMemref and
// printF32/F64 print 6 significant digits, so that is how far a printed
// number can be from the value.
static double print_rounding(double v) {
  if (!isfinite(v) || v == 0)
    return 0;
  return 0.5 * pow(10.0, floor(log10(fabs(v))) - 5);
}

static int64_t count_checked(const strbuf *sb, const skip_set *a,
                             const skip_set *b, double *sum_abs) {
  tokens t = tokens_of(sb);
  const char *tok;
  size_t len;
  int64_t n = 0;
  double v;
  *sum_abs = 0;
  while (next_checked(&t, a, b, &tok, &len)) {
    n++;
    if (token_number(tok, len, &v) && isfinite(v))
      *sum_abs += fabs(v);
  }
  return n;
}

static void compare_text(const strbuf *got, const reference *ref,
                         const skip_set *user, double rtol, double atol,
                         int output, compare_result *r) {
  const skip_set *clk = &ref->clock;
  double sum = 0, msum = 0;
  int64_t nw = count_checked(&ref->val.out, clk, user, &sum);
  bool use_mag = ref->has_mag &&
                 count_checked(&ref->mag.out, clk, user, &msum) == nw;
  double floor = use_mag ? NAN : nw ? sum / (double)nw : 0;
  r->skipped += count_checked(&ref->val.out, NULL, NULL, &msum) - nw;
  tokens g = tokens_of(got), w = tokens_of(&ref->val.out),
         m = tokens_of(&ref->mag.out);
  const char *gt = NULL, *wt = NULL, *mt = NULL;
  size_t gl = 0, wl = 0, ml = 0;
  int64_t index = 0;
  for (;;) {
    bool hg = next_checked(&g, clk, user, &gt, &gl);
    bool hw = next_checked(&w, clk, user, &wt, &wl);
    bool hm = use_mag && next_checked(&m, clk, user, &mt, &ml);
    if (!hg && !hw)
      return;
    if (hg != hw) {
      note(r, false, INFINITY, INFINITY, output, index, NAN, NAN,
           hg ? "stdout (longer than the reference)"
              : "stdout (shorter than the reference)");
      return;
    }
    double gv = 0, wv = 0, mv = NAN;
    bool gn = token_number(gt, gl, &gv), wn = token_number(wt, wl, &wv);
    if (hm && !token_number(mt, ml, &mv))
      mv = NAN;
    if (gn && wn) {
      double err = fabs(gv - wv);
      double bound = error_bound(wv, mv, floor, unit_roundoff(ET_F32),
                                 ref->depth, rtol, atol) +
                     print_rounding(gv) + print_rounding(wv);
      note(r, close_enough(gv, wv, bound), isnan(err) ? 0 : err, bound,
           output, index, gv, wv, "stdout number");
    } else if (gn || wn || gl != wl || memcmp(gt, wt, gl)) {
      note(r, false, INFINITY, 0, output, index, NAN, NAN, "stdout word");
    }
    index++;
  }
}

// ----------------------------------------------------------------------------
// compare and checksum

void outputs_compare(const outputs *got, const reference *ref,
                     const skip_set *user, double rtol, double atol,
                     compare_result *r) {
  memset(r, 0, sizeof *r);
  r->equal = true;
  r->output = -1;
  r->index = -1;
  const outputs *want = &ref->val;
  if (got->n != want->n) {
    note(r, false, INFINITY, 0, 0, 0, NAN, NAN, "number of outputs");
    return;
  }
  for (int o = 0; o < got->n; o++) {
    const output_buf *g = &got->v[o], *w = &want->v[o];
    if (skip_output(&ref->clock, w) || skip_output(user, w)) {
      r->skipped += w->count;
      continue;
    }
    if (g->et != w->et || g->count != w->count) {
      note(r, false, INFINITY, 0, o, 0, NAN, NAN, g->what);
      return;
    }
    const output_buf *m = ref->has_mag && ref->mag.n == want->n &&
                                  ref->mag.v[o].count == w->count &&
                                  ref->mag.v[o].et == w->et
                              ? &ref->mag.v[o]
                              : NULL;
    double floor = !elem_is_float(w->et) || m ? NAN : mean_abs(w);
    for (int64_t k = 0; k < g->count; k++) {
      double gv = elem_get(g->et, g->data, k), wv = elem_get(w->et, w->data, k);
      bool ok;
      double bound = 0;
      if (elem_is_float(g->et)) {
        bound = error_bound(wv, m ? elem_get(m->et, m->data, k) : NAN, floor,
                            unit_roundoff(w->et), ref->depth, rtol, atol);
        ok = close_enough(gv, wv, bound);
      } else { // exact: compare the bits, doubles lose i64 precision
        ok = !memcmp((const char *)g->data + k * (int64_t)elem_size(g->et),
                     (const char *)w->data + k * (int64_t)elem_size(w->et),
                     elem_size(g->et));
      }
      double err = fabs(gv - wv);
      note(r, ok, isnan(err) ? 0 : err, bound, o, k, gv, wv, g->what);
    }
  }
  compare_text(&got->out, ref, user, rtol, atol, got->n, r);
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
  tokens tk = tokens_of(&o->out);
  const char *t;
  size_t len;
  while (next_token(&tk, &t, &len))
    if (!token_hex(t, len)) {
      fnv(&h, t, len);
      fnv(&h, " ", 1);
    }
  return h;
}
