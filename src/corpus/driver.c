// The driver form of a generated module: the shape of a hand-written program
// (examples/), where a @main builds the inputs, calls the kernel and prints
// its results, instead of a public @forward that takes its buffers as
// arguments. Inlining and stack promotion behave differently there
// (docs/CORPUS.md, "Driver form").
//
// @main fills every @kernel argument with a fixed pattern of the measurement
// harness's value ranges (floats on [-1, 1) in steps of 2^-10, integers on
// [-8, 7]; docs/MEASURE.md), calls @kernel, and prints two checksums of each
// result and memref argument: the plain sum and the sum weighted by a hash of
// the position, so that a permuted or shifted output is caught too.
#include "corpus.h"

#include <stdio.h>
#include <string.h>

enum { MAX_RANK = 8 };

static const int primes[] = {7, 11, 13, 17, 19, 23};

// Checksum accumulator types and the runtime's print function of each.
enum { N_ACC = 3 };
static const char *const acc_types[N_ACC] = {"f32", "f64", "i32"};
static const char *const acc_print[N_ACC] = {"F32", "F64", "I32"};

// A static shaped type: "tensor<2x3xf32>" -> tensor, {2, 3}, "f32".
typedef struct {
  bool tensor;
  int rank;
  char et[4];
} shaped;

static shaped parse_shaped(const char *t) {
  shaped s = {.tensor = !strncmp(t, "tensor<", 7)};
  for (const char *p = strchr(t, '<') + 1; *p >= '0' && *p <= '9'; s.rank++) {
    while (*p >= '0' && *p <= '9')
      p++;
    p++; // 'x'
  }
  const char *et = strrchr(t, 'x') ? strrchr(t, 'x') + 1 : strchr(t, '<') + 1;
  snprintf(s.et, sizeof s.et, "%.*s", (int)strcspn(et, ">"), et);
  return s;
}

// The accumulator (index into acc_types) of a checksum over elements of
// type et: the float type itself, i32 for the integers.
static int acc_of(const char *et) {
  return !strcmp(et, "f32") ? 0 : !strcmp(et, "f64") ? 1 : 2;
}

// "affine_map<(d0,d1) -> (d0,d1)>" followed by one "(...) -> (out)" map per
// entry of outs.
static void maps(strbuf *sb, int rank, int nouts, const char *out) {
  char d[MAX_RANK * 4 + 1] = "";
  for (int i = 0, n = 0; i < rank; i++)
    n += snprintf(d + n, sizeof d - (size_t)n, "%sd%d", i ? "," : "", i);
  sb_printf(sb, "affine_map<(%s) -> (%s)>", d, d);
  for (int i = 0; i < nouts; i++)
    sb_printf(sb, ", affine_map<(%s) -> (%s)>", d, out);
}

static void iterators(strbuf *sb, int rank, const char *kind) {
  for (int i = 0; i < rank; i++)
    sb_printf(sb, "%s\"%s\"", i ? ", " : "", kind);
}

// Region lines computing base + sum_d index_d * primes[d] into %h<rank>.
static void index_hash(strbuf *sb, int rank, int base) {
  sb_printf(sb, "    %%h0 = arith.constant %d : index\n", base);
  for (int d = 0; d < rank; d++)
    sb_printf(sb,
              "    %%x%d = linalg.index %d : index\n"
              "    %%p%d = arith.constant %d : index\n"
              "    %%m%d = arith.muli %%x%d, %%p%d : index\n"
              "    %%h%d = arith.addi %%h%d, %%m%d : index\n",
              d, d, d, primes[d % 6], d, d, d, d + 1, d, d);
}

// Defines %in<i> of type t, filled with the pattern.
static void fill(strbuf *sb, int i, const char *t) {
  shaped s = parse_shaped(t);
  if (s.tensor)
    sb_printf(sb, "  %%e%d = tensor.empty() : %s\n  %%in%d = ", i, t, i);
  else
    sb_printf(sb, "  %%in%d = memref.alloc() : %s\n  ", i, t);
  sb_printf(sb, "linalg.generic {indexing_maps = [");
  maps(sb, s.rank, 0, NULL);
  sb_printf(sb, "], iterator_types = [");
  iterators(sb, s.rank, "parallel");
  sb_printf(sb, "]} outs(%%%s%d : %s) {\n  ^bb0(%%o: %s):\n",
            s.tensor ? "e" : "in", i, t, s.et);
  index_hash(sb, s.rank, 3 + i);
  bool flt = s.et[0] == 'f';
  sb_printf(sb,
            "    %%n = arith.constant %d : index\n"
            "    %%q = arith.remui %%h%d, %%n : index\n"
            "    %%qi = arith.index_cast %%q : index to i64\n",
            flt ? 2048 : 16, s.rank);
  if (flt)
    sb_printf(sb,
              "    %%qf = arith.sitofp %%qi : i64 to %s\n"
              "    %%s = arith.constant 0.0009765625 : %s\n"
              "    %%one = arith.constant 1.0 : %s\n"
              "    %%y = arith.mulf %%qf, %%s : %s\n"
              "    %%z = arith.subf %%y, %%one : %s\n",
              s.et, s.et, s.et, s.et, s.et);
  else
    sb_printf(sb,
              "    %%c8 = arith.constant 8 : i64\n"
              "    %%y = arith.subi %%qi, %%c8 : i64\n"
              "    %%z = arith.trunci %%y : i64 to %s\n",
              s.et);
  sb_printf(sb, "    linalg.yield %%z : %s\n  }%s%s\n", s.et,
            s.tensor ? " -> " : "", s.tensor ? t : "");
}

// Prints sum(x) and sum(x * (hash(index) mod 7)) of value v of type t as
// checksum j; marks the accumulator type used in `used`.
static void checksums(strbuf *sb, int j, const char *v, const char *t,
                      bool used[N_ACC]) {
  shaped s = parse_shaped(t);
  int k = acc_of(s.et);
  const char *acc = acc_types[k];
  char name[24], mt[96];
  snprintf(name, sizeof name, "%s", v);
  snprintf(mt, sizeof mt, "%s", t);
  if (s.tensor) {
    snprintf(mt, sizeof mt, "memref%s", t + strlen("tensor"));
    sb_printf(sb, "  %%cm%d = bufferization.to_memref %s : %s\n", j, v, mt);
    snprintf(name, sizeof name, "%%cm%d", j);
  }
  sb_printf(sb, "  %%cz%d = arith.constant %s : %s\n", j,
            acc[0] == 'f' ? "0.0" : "0", acc);
  for (const char *c = "ab"; *c; c++)
    sb_printf(sb,
              "  %%c%c%d = memref.alloc() : memref<1x%s>\n"
              "  linalg.fill ins(%%cz%d : %s) outs(%%c%c%d : memref<1x%s>)\n",
              *c, j, acc, j, acc, *c, j, acc);
  sb_printf(sb, "  linalg.generic {indexing_maps = [");
  maps(sb, s.rank, 2, "0");
  sb_printf(sb, "], iterator_types = [");
  iterators(sb, s.rank, "reduction");
  sb_printf(sb,
            "]} ins(%s : %s) outs(%%ca%d, %%cb%d : memref<1x%s>, "
            "memref<1x%s>) {\n  ^bb0(%%x: %s, %%sa: %s, %%sb: %s):\n",
            name, mt, j, j, acc, acc, s.et, acc, acc);
  index_hash(sb, s.rank, 1);
  sb_printf(sb,
            "    %%c7 = arith.constant 7 : index\n"
            "    %%w0 = arith.remui %%h%d, %%c7 : index\n"
            "    %%w1 = arith.index_cast %%w0 : index to i64\n",
            s.rank);
  if (acc[0] == 'f') {
    sb_printf(sb,
              "    %%w = arith.sitofp %%w1 : i64 to %s\n"
              "    %%na = arith.addf %%sa, %%x : %s\n"
              "    %%xw = arith.mulf %%x, %%w : %s\n"
              "    %%nb = arith.addf %%sb, %%xw : %s\n",
              acc, acc, acc, acc);
  } else {
    bool widen = strcmp(s.et, acc) != 0;
    const char *x = widen ? "%xe" : "%x";
    if (widen)
      sb_printf(sb, "    %%xe = arith.extsi %%x : %s to %s\n", s.et, acc);
    sb_printf(sb,
              "    %%w = arith.trunci %%w1 : i64 to %s\n"
              "    %%na = arith.addi %%sa, %s : %s\n"
              "    %%xw = arith.muli %s, %%w : %s\n"
              "    %%nb = arith.addi %%sb, %%xw : %s\n",
              acc, x, acc, x, acc, acc);
  }
  sb_printf(sb, "    linalg.yield %%na, %%nb : %s, %s\n  }\n", acc, acc);
  used[k] = true;
  for (const char *c = "ab"; *c; c++)
    sb_printf(sb,
              "  %%u%c%d = memref.cast %%c%c%d : memref<1x%s> to "
              "memref<*x%s>\n"
              "  call @printMemref%s(%%u%c%d) : (memref<*x%s>) -> ()\n"
              "  memref.dealloc %%c%c%d : memref<1x%s>\n",
              *c, j, *c, j, acc, acc, acc_print[k], *c, j, acc, *c, j, acc);
}

void gen_driver_main(const gen *g, strbuf *out) {
  sb_printf(out, "func.func @main() {\n");
  for (int i = 0; i < g->nparams; i++)
    fill(out, i, g->ptype[i]);
  sb_printf(out, "  ");
  for (int i = 0; i < g->nresults; i++)
    sb_printf(out, "%s%%r%d%s", i ? ", " : "", i,
              i + 1 == g->nresults ? " = " : "");
  sb_printf(out, "call @kernel(");
  for (int i = 0; i < g->nparams; i++)
    sb_printf(out, "%s%%in%d", i ? ", " : "", i);
  sb_printf(out, ") : (");
  for (int i = 0; i < g->nparams; i++)
    sb_printf(out, "%s%s", i ? ", " : "", g->ptype[i]);
  sb_printf(out, ") -> (%s)\n", g->nresults ? g->rtypes.data : "");
  bool used[N_ACC] = {false, false, false};
  int j = 0;
  for (int i = 0; i < g->nresults; i++) {
    char v[24];
    snprintf(v, sizeof v, "%%r%d", i);
    checksums(out, j++, v, g->rtype[i], used);
  }
  for (int i = 0; i < g->nparams; i++) {
    if (strncmp(g->ptype[i], "memref", 6))
      continue;
    char v[24];
    snprintf(v, sizeof v, "%%in%d", i);
    checksums(out, j++, v, g->ptype[i], used);
  }
  for (int i = 0; i < g->nparams; i++)
    if (!strncmp(g->ptype[i], "memref", 6))
      sb_printf(out, "  memref.dealloc %%in%d : %s\n", i, g->ptype[i]);
  sb_printf(out, "  return\n}\n");
  for (int k = 0; k < N_ACC; k++)
    if (used[k])
      sb_printf(out, "func.func private @printMemref%s(memref<*x%s>)\n",
                acc_print[k], acc_types[k]);
}
