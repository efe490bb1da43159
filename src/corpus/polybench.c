// Template-kernel families of the corpus: PolyBench/C 4.2 kernels written as
// affine.for nests on memrefs (HPC), irregular kernels (sparse, gather/
// scatter, recurrences) written with scf on memrefs, and the opt-in single
// linalg ops on memrefs, as data. Each kernel is a row of `poly_kernels[]`
// (polybench_kernels.c), `irregular_kernels[]` (irregular_kernels.c) or
// `memref_kernels[]` (memref_kernels.c): its size
// symbols and ranges, its arrays, a work formula and a body template; the
// emitter only draws sizes, fits them under the module budget, substitutes
// the template and chains calls in @forward. Adding a kernel is adding a row.
//
// Template placeholders: {E} element type, {T<array>} the array's memref
// type, {<SIZE>} / {<SIZE>-k} / {<SIZE>+k} a size symbol's value plus or
// minus a constant. Scalars (alpha, beta) are constants inside the kernel:
// @forward only takes memrefs, which the kernels update in place.
#include "corpus.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_SYMS = 6, MAX_ARRAYS = 8 };


// ----------------------------------------------------------------------------
// sizes

typedef struct {
  char name[MAX_SYMS][8];
  int lo[MAX_SYMS], val[MAX_SYMS];
  int n;
} sym_table;

static int sym_find(const sym_table *st, const char *name, size_t len) {
  for (int i = 0; i < st->n; i++)
    if (strlen(st->name[i]) == len && !memcmp(st->name[i], name, len))
      return i;
  return -1;
}

static void draw_sizes(pcg32 *r, const char *spec, sym_table *st) {
  st->n = 0;
  for (const char *p = spec; *p && st->n < MAX_SYMS;) {
    while (*p == ' ')
      p++;
    size_t len = strcspn(p, ":");
    int lo = 0, hi = 0, used = 0;
    snprintf(st->name[st->n], sizeof st->name[0], "%.*s", (int)len, p);
    sscanf(p + len, ":%d-%d%n", &lo, &hi, &used);
    st->lo[st->n] = lo;
    // Multiples of 8 when the range allows, for tile-friendly extents.
    int v = pcg_range(r, lo, hi);
    st->val[st->n] = v >= 16 ? v - v % 8 : v;
    st->n++;
    p += len + (size_t)used;
  }
}

static double eval_work(const char *f, const sym_table *st) {
  double total = 0, term = 1;
  for (const char *p = f;; p++) {
    if (isdigit((unsigned char)*p)) {
      term *= strtod(p, (char **)&p);
      p--;
    } else if (isalpha((unsigned char)*p)) {
      size_t len = strspn(p, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
      int i = sym_find(st, p, len);
      term *= i >= 0 ? st->val[i] : 1;
      p += len - 1;
    } else if (*p == '+' || *p == '\0') {
      total += term;
      term = 1;
      if (!*p)
        return total;
    }
  }
}

// Shrinks the largest shrinkable size by 3/4 until the work fits `budget`.
static void fit_budget(sym_table *st, const char *work, double budget) {
  while (eval_work(work, st) > budget) {
    int best = -1;
    for (int i = 0; i < st->n; i++)
      if (st->val[i] * 3 / 4 >= st->lo[i] &&
          (best < 0 || st->val[i] > st->val[best]))
        best = i;
    if (best < 0)
      return;
    st->val[best] = st->val[best] * 3 / 4;
  }
}

// ----------------------------------------------------------------------------
// arrays and templates

typedef struct {
  char name[8];
  char type[96];
} poly_array;

// One dimension token: "N", "64", or a product "M*R".
static int dim_value(const sym_table *st, const char *p, size_t len) {
  int v = 1;
  for (size_t i = 0; i < len;) {
    size_t fl = strcspn(p + i, "*, ");
    if (fl > len - i)
      fl = len - i;
    int j = sym_find(st, p + i, fl);
    v *= j >= 0 ? st->val[j] : atoi(p + i);
    i += fl + 1;
  }
  return v;
}

// "name:D0,D1[:i32]" items separated by spaces; the element type defaults to
// the kernel's.
static int parse_arrays(const poly_kernel *k, const sym_table *st, elt et,
                        poly_array *out) {
  int n = 0;
  for (const char *p = k->arrays; *p && n < MAX_ARRAYS;) {
    while (*p == ' ')
      p++;
    size_t len = strcspn(p, ":");
    snprintf(out[n].name, sizeof out[n].name, "%.*s", (int)len, p);
    p += len + 1;
    int dims[4], rank = 0;
    while (*p && *p != ' ' && *p != ':' && rank < 4) {
      size_t dl = strcspn(p, ", :");
      dims[rank++] = dim_value(st, p, dl);
      p += dl + (p[dl] == ',');
    }
    elt t = et;
    if (!strncmp(p, ":i32", 4))
      t = ET_I32, p += 4;
    ty_memref(out[n].type, t, rank, dims);
    n++;
  }
  return n;
}

// True when key[0..len) looks like a placeholder: letters, digits, + and -.
static bool is_placeholder(const char *key, size_t len) {
  if (len == 0 || len > 16)
    return false;
  for (size_t i = 0; i < len; i++)
    if (!isalnum((unsigned char)key[i]) && key[i] != '+' && key[i] != '-')
      return false;
  return true;
}

static void substitute(strbuf *sb, const char *tpl, const sym_table *st,
                       const poly_array *arrs, int narrs, elt et) {
  for (const char *p = tpl; *p;) {
    const char *open = strchr(p, '{');
    if (!open) {
      sb_append(sb, p, strlen(p));
      return;
    }
    sb_append(sb, p, (size_t)(open - p));
    const char *key = open + 1;
    size_t klen = strcspn(key, "}");
    if (!key[klen] || !is_placeholder(key, klen)) { // an MLIR region brace
      sb_append(sb, "{", 1);
      p = open + 1;
      continue;
    }
    size_t nlen = strcspn(key, "+-}");
    int i = sym_find(st, key, nlen);
    if (klen == 1 && key[0] == 'E') {
      sb_printf(sb, "%s", et_name(et));
    } else if (i >= 0) {
      int off = nlen < klen ? atoi(key + nlen) : 0; // "+2" or "-1"
      sb_printf(sb, "%d", st->val[i] + off);
    } else if (key[0] == 'T') {
      int j = 0;
      while (j < narrs && (strlen(arrs[j].name) != klen - 1 ||
                           memcmp(arrs[j].name, key + 1, klen - 1)))
        j++;
      sb_printf(sb, "%s", j < narrs ? arrs[j].type : "?");
    } else {
      sb_append(sb, open, klen + 2); // unknown key: keep the text
    }
    p = key + klen + 1;
  }
}

// ----------------------------------------------------------------------------
// emission

static void emit_kernel(gen *g, const poly_kernel *k, elt et,
                        double budget) {
  sym_table st;
  draw_sizes(&g->rng, k->sizes, &st);
  fit_budget(&st, k->work, budget);
  poly_array arrs[MAX_ARRAYS];
  int n = parse_arrays(k, &st, et, arrs);
  char fn[64], base[48];
  snprintf(base, sizeof base, "kernel_%s", k->name); // "2mm" is no identifier
  gen_func_name(g, base, fn);
  val args[MAX_ARRAYS];
  sb_printf(&g->helpers, "func.func private %s(", fn);
  for (int i = 0; i < n; i++) {
    sb_printf(&g->helpers, "%s%%%s: %s", i ? ", " : "", arrs[i].name,
              arrs[i].type);
    args[i] = gen_param(g, arrs[i].type);
  }
  sb_printf(&g->helpers, ") {\n");
  substitute(&g->helpers, k->body, &st, arrs, n, et);
  sb_printf(&g->helpers, "  return\n}\n\n");
  gen_call(g, fn, NULL, n, args);
  double w = eval_work(k->work, &st);
  g->flops += w;
  char what[128];
  int len = snprintf(what, sizeof what, "%s %s", k->name, et_name(et));
  for (int i = 0; i < st.n && len < (int)sizeof what; i++)
    len += snprintf(what + len, sizeof what - (size_t)len, " %s=%d",
                    st.name[i], st.val[i]);
  gen_note_kernel(g, what);
}

// Picks lo-hi kernels of `group` (distinct while possible) and chains them.
static void emit_group(gen *g, const char *group, const char *note,
                       double budget, int lo, int hi) {
  pcg32 *r = &g->rng;
  const poly_kernel *ks[16];
  int n = 0;
  const struct {
    const poly_kernel *rows;
    int n;
  } tables[] = {{poly_kernels, poly_nkernels},
                {irregular_kernels, irregular_nkernels},
                {memref_kernels, memref_nkernels}};
  for (int t = 0; t < 3; t++)
    for (int i = 0; i < tables[t].n && n < 16; i++)
      if (!strcmp(tables[t].rows[i].group, group))
        ks[n++] = &tables[t].rows[i];
  elt et = pcg_chance(r, 1, 2) ? ET_F64 : ET_F32;
  g->note = note;
  int count = pcg_range(r, lo, hi);
  bool used[16] = {false};
  for (int c = 0; c < count; c++) {
    int j = pcg_range(r, 0, n - 1);
    for (int t = 0; t < n && used[j] && c < n; t++)
      j = (j + 1) % n;
    used[j] = true;
    if (!gen_has_room(g, MAX_ARRAYS))
      break;
    emit_kernel(g, ks[j], et, budget / count);
  }
}

void fam_poly_blas3(gen *g) {
  emit_group(g, "blas3", "PolyBench level-3 kernels (affine.for on memrefs).",
             4e8, 3, 5);
}

void fam_poly_blas2(gen *g) {
  emit_group(g, "blas2", "PolyBench level-2 kernels (affine.for on memrefs).",
             6e7, 3, 5);
}

void fam_poly_stencil(gen *g) {
  emit_group(g, "stencil", "PolyBench stencils (affine.for on memrefs).",
             6e8, 3, 5);
}

void fam_spmv(gen *g) {
  emit_group(g, "spmv", "Sparse matrix kernels (CSR/ELL) with index arrays "
                        "(scf.for on memrefs).",
             1.5e8, 3, 5);
}

void fam_gather_scatter(gen *g) {
  emit_group(g, "gather", "Indirect gathers and scatters through index "
                          "arrays (scf.for on memrefs).",
             1.5e8, 3, 5);
}

void fam_recurrence(gen *g) {
  emit_group(g, "recurrence", "Loop-carried recurrences and data-dependent "
                              "iteration (scf.for iter_args, scf.while).",
             1e8, 3, 5);
}

void fam_memref_layer(gen *g) {
  emit_group(g, "memref_layer", "One linalg op on memrefs in buffer style, "
                                "as a hand-written kernel.",
             2e7, 1, 1);
}
