// Inputs and outputs of one entry call: deterministic inputs from a seed, the
// packed argument vector of the `_mlir_NAME` wrapper (memrefs expanded to
// their descriptor words), and contiguous copies of the outputs afterwards.
// It does not call anything or compare anything.
//
// Input distribution (documented in docs/MEASURE.md): argument i draws from
// splitmix64 seeded with seed ^ (0x9E3779B97F4A7C15 * (i + 1)); floats are
// uniform on [-1, 1) in steps of 2^-23 for f32 and f64, 2^-7 for bf16 and
// 2^-10 for f16 (exact in each type), signed integers are uniform on [-8, 7],
// i1 values on {0, 1}, index values uniform on [0, 7].
#include "measure.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// ----------------------------------------------------------------------------
// generation

static uint64_t splitmix64(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// Writes one generated element of type `et` at `p`.
static void gen_elem(elem_type et, uint64_t *rng, void *p) {
  uint64_t r = splitmix64(rng);
  int64_t small = (int64_t)(r >> 60) - 8; // [-8, 7]
  switch (et) {
  case ET_F32: {
    float f = (float)((double)(r >> 40) * 0x1p-23 - 1.0);
    memcpy(p, &f, 4);
    break;
  }
  case ET_F64: {
    double d = (double)(r >> 40) * 0x1p-23 - 1.0;
    memcpy(p, &d, 8);
    break;
  }
  case ET_BF16: elem_put(et, p, 0, (double)(r >> 56) * 0x1p-7 - 1.0); break;
  case ET_F16: elem_put(et, p, 0, (double)(r >> 53) * 0x1p-10 - 1.0); break;
  case ET_I1: *(uint8_t *)p = (uint8_t)(r >> 63); break;
  case ET_I8: *(int8_t *)p = (int8_t)small; break;
  case ET_I16: *(int16_t *)p = (int16_t)small; break;
  case ET_I32: *(int32_t *)p = (int32_t)small; break;
  case ET_I64: *(int64_t *)p = small; break;
  case ET_INDEX: *(int64_t *)p = (int64_t)(r >> 61); break; // [0, 7]
  }
}

static void *alloc_elems(int64_t count, elem_type et) {
  size_t bytes = (size_t)(count ? count : 1) * elem_size(et);
  bytes = (bytes + 63) & ~(size_t)63;
  return aligned_alloc(64, bytes);
}

// ----------------------------------------------------------------------------
// packed argument vector

static size_t value_size(const value_spec *v) {
  return v->shaped ? 24 + 16 * (size_t)v->rank : elem_size(v->et);
}

static size_t value_align(const value_spec *v) {
  return v->shaped ? 8 : elem_size(v->et);
}

bool call_args_init(call_args *c, const entry_spec *e, uint64_t seed) {
  memset(c, 0, sizeof *c);
  c->e = e;
  c->nwords = entry_expected_nargs(e);
  c->packed = calloc((size_t)c->nwords + 1, sizeof *c->packed);
  if (!c->packed)
    return false;
  int w = 0;
  for (int i = 0; i < e->nargs; i++) {
    const value_spec *v = &e->args[i];
    uint64_t rng = seed ^ (0x9E3779B97F4A7C15ULL * (uint64_t)(i + 1));
    if (!v->shaped) {
      gen_elem(v->et, &rng, &c->scalar[i]);
      c->packed[w++] = &c->scalar[i];
      continue;
    }
    c->pristine[i] = alloc_elems(v->count, v->et);
    c->buf[i] = alloc_elems(v->count, v->et);
    if (!c->pristine[i] || !c->buf[i])
      return false;
    size_t es = elem_size(v->et);
    for (int64_t k = 0; k < v->count; k++)
      gen_elem(v->et, &rng, (char *)c->pristine[i] + k * es);
    memcpy(c->buf[i], c->pristine[i], (size_t)v->count * es);
    memref_desc *d = &c->desc[i];
    d->allocated = d->aligned = c->buf[i];
    d->offset = 0;
    int64_t stride = 1;
    for (int k = v->rank - 1; k >= 0; k--) {
      d->ss[k] = v->shape[k];
      d->ss[v->rank + k] = stride;
      stride *= v->shape[k];
    }
    c->packed[w++] = &d->allocated;
    c->packed[w++] = &d->aligned;
    c->packed[w++] = &d->offset;
    for (int k = 0; k < 2 * v->rank; k++)
      c->packed[w++] = &d->ss[k];
  }
  // Results come back as one value, or as a struct of all of them laid out
  // with natural alignment, stored through the last packed pointer.
  size_t off = 0;
  for (int i = 0; i < e->nresults; i++) {
    size_t a = value_align(&e->results[i]);
    off = (off + a - 1) / a * a;
    c->result_offset[i] = off;
    off += value_size(&e->results[i]);
  }
  c->result = calloc(1, off ? off : 8);
  if (!c->result)
    return false;
  c->packed[w] = c->result;
  return true;
}

void call_args_reset(call_args *c) {
  for (int i = 0; i < c->e->nargs; i++)
    if (c->e->args[i].shaped)
      memcpy(c->buf[i], c->pristine[i],
             (size_t)c->e->args[i].count * elem_size(c->e->args[i].et));
}

// Replaces every float input element x (scalars and the pristine copies of
// shaped arguments) by f(x, rng), then resets the arguments. `rng` is drawn
// per argument from `seed` as in call_args_init. Returns the elements changed.
typedef double (*float_map)(double x, uint64_t *rng);
static int64_t map_float_inputs(call_args *c, float_map f, uint64_t seed) {
  int64_t n = 0;
  for (int i = 0; i < c->e->nargs; i++) {
    const value_spec *v = &c->e->args[i];
    if (!elem_is_float(v->et))
      continue;
    uint64_t rng = seed ^ (0x9E3779B97F4A7C15ULL * (uint64_t)(i + 1));
    char *p = v->shaped ? c->pristine[i] : (char *)&c->scalar[i];
    for (int64_t k = 0; k < v->count; k++)
      elem_put(v->et, p, k, f(elem_get(v->et, p, k), &rng));
    n += v->count;
  }
  call_args_reset(c);
  return n;
}

static double abs_of(double x, uint64_t *rng) {
  (void)rng;
  return fabs(x);
}

// x * (1 +- SENSITIVITY_EPS), the sign drawn at random.
static double perturbed(double x, uint64_t *rng) {
  return x * (splitmix64(rng) >> 63 ? 1.0 + SENSITIVITY_EPS
                                    : 1.0 - SENSITIVITY_EPS);
}

int64_t call_args_abs(call_args *c) { return map_float_inputs(c, abs_of, 0); }

int64_t call_args_perturb(call_args *c, uint64_t seed) {
  uint64_t s = seed; // signs independent of the generated values
  return map_float_inputs(c, perturbed, splitmix64(&s));
}

// True when `p` points into one of the argument buffers of `c`.
static bool in_argument(const call_args *c, const void *p) {
  uintptr_t a = (uintptr_t)p;
  for (int i = 0; i < c->e->nargs; i++) {
    const value_spec *v = &c->e->args[i];
    uintptr_t b = (uintptr_t)c->buf[i];
    if (v->shaped && a >= b &&
        a < b + (size_t)(v->count ? v->count : 1) * elem_size(v->et))
      return true;
  }
  return false;
}

// MLIR's memref lowering gives a memref.get_global this allocated pointer.
#define GLOBAL_ALLOCATED ((void *)(uintptr_t)0xdeadbeef)

void call_args_free_results(call_args *c) {
  uintptr_t freed[MAX_VALUES]; // addresses: a freed pointer is indeterminate
  int n = 0;
  for (int i = 0; i < c->e->nresults; i++) {
    if (!c->e->results[i].shaped)
      continue;
    void *p; // the descriptor's first word
    memcpy(&p, c->result + c->result_offset[i], sizeof p);
    bool seen = false;
    for (int k = 0; k < n; k++)
      seen |= freed[k] == (uintptr_t)p;
    if (!p || p == GLOBAL_ALLOCATED || seen || in_argument(c, p))
      continue;
    freed[n++] = (uintptr_t)p;
    free(p);
  }
}

void call_args_free(call_args *c) {
  for (int i = 0; i < MAX_VALUES; i++) {
    free(c->pristine[i]);
    free(c->buf[i]);
  }
  free(c->packed);
  free(c->result);
  memset(c, 0, sizeof *c);
}

// ----------------------------------------------------------------------------
// outputs

// Copies a strided memref (rank, shape from `v`, strides from `d`) into `dst`.
static void gather(const value_spec *v, const memref_desc *d, void *dst) {
  size_t es = elem_size(v->et);
  int64_t idx[MAX_RANK] = {0};
  for (int64_t k = 0; k < v->count; k++) {
    int64_t lin = d->offset;
    for (int r = 0; r < v->rank; r++)
      lin += idx[r] * d->ss[v->rank + r];
    memcpy((char *)dst + k * es, (const char *)d->aligned + lin * (int64_t)es, es);
    for (int r = v->rank - 1; r >= 0 && ++idx[r] == v->shape[r]; r--)
      idx[r] = 0;
  }
}

static output_buf *add_output(outputs *o, const value_spec *v, const char *kind,
                              int i) {
  output_buf *b = &o->v[o->n];
  b->et = v->et;
  b->count = v->count;
  b->data = malloc((size_t)(v->count ? v->count : 1) * elem_size(v->et));
  if (!b->data)
    return NULL;
  snprintf(b->what, sizeof b->what, "%s %d", kind, i);
  o->n++;
  return b;
}

bool outputs_collect(outputs *o, const call_args *c) {
  const entry_spec *e = c->e;
  for (int i = 0; i < e->nresults; i++) {
    const value_spec *v = &e->results[i];
    output_buf *b = add_output(o, v, "result", i);
    if (!b)
      return false;
    const unsigned char *p = c->result + c->result_offset[i];
    if (v->shaped) {
      memref_desc d;
      memset(&d, 0, sizeof d);
      memcpy(&d, p, 24 + 16 * (size_t)v->rank);
      gather(v, &d, b->data);
    } else {
      memcpy(b->data, p, elem_size(v->et));
    }
  }
  for (int i = 0; i < e->nargs; i++) {
    const value_spec *v = &e->args[i];
    if (!v->shaped || v->tensor)
      continue; // tensors are values: only memrefs are outputs in place
    output_buf *b = add_output(o, v, "argument", i);
    if (!b)
      return false;
    memcpy(b->data, c->buf[i], (size_t)v->count * elem_size(v->et));
  }
  return true;
}

void outputs_free(outputs *o) {
  for (int i = 0; i < o->n; i++)
    free(o->v[i].data);
  sb_free(&o->out);
  memset(o, 0, sizeof *o);
}
