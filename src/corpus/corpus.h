// Internal declarations of the workload corpus generator: the seeded RNG, the
// module builder the emitters write into, the op-level emitters (tensor
// linalg ops, affine kernels, irregular kernels) and the family table. Not
// API: the public entry points are the mqss_corpus_* calls in mqss.h.
//
// How a module is made: a family emitter (families.c) draws shapes and types
// from the RNG and calls kernel emitters; each kernel becomes one private
// func.func in `helpers`, and the family emitter chains calls to them in the
// public @forward (its arguments, body and results live in the builder).
#ifndef MQSS_CORPUS_H
#define MQSS_CORPUS_H

#include "internal.h"

#include <stdint.h>

// ----------------------------------------------------------------------------
// PCG32 (O'Neill's pcg32_random_r): small, explicit, reproducible.

typedef struct {
  uint64_t state;
  uint64_t inc; // always odd
} pcg32;

void pcg_seed(pcg32 *r, uint64_t initstate, uint64_t stream);
uint32_t pcg_next(pcg32 *r);
// Uniform integer in [lo, hi] (inclusive); lo when hi <= lo.
int pcg_range(pcg32 *r, int lo, int hi);
// One of the n values in `vals`, uniformly.
int pcg_pick(pcg32 *r, const int *vals, int n);
// True with probability num/den.
bool pcg_chance(pcg32 *r, int num, int den);

// ----------------------------------------------------------------------------
// element types

typedef enum { ET_F32, ET_F64, ET_I8, ET_I32 } elt;

const char *et_name(elt t);          // "f32"
bool et_is_float(elt t);
// Picks f32 (3/4) or f64 (1/4).
elt et_pick_float(pcg32 *r);

// ----------------------------------------------------------------------------
// the module builder

// A value of @forward or of a kernel body: its SSA name and its type text.
typedef struct {
  char name[24]; // "%a3"
  char type[96]; // "tensor<1x16x16x8xf32>"
} val;

enum { MAX_FORWARD_ARGS = 32 };

typedef struct {
  pcg32 rng;
  strbuf helpers;   // private kernels, in emission order
  strbuf body;      // @forward body (without the return)
  strbuf params;    // "%a0: T0, %a1: T1"
  strbuf results;   // "%v3, %v7"
  strbuf rtypes;    // "T3, T7"
  int nparams, nvals, nfuncs, nresults;
  double flops;     // estimated arithmetic ops of one @forward call
  const char *note; // one-line description for the header comment
  strbuf desc;      // kernels used, for the header comment
  // Parameter and result types one by one, for the driver form's @main;
  // `overflow` when more were added than fit (the driver form then fails).
  char ptype[MAX_FORWARD_ARGS][96], rtype[MAX_FORWARD_ARGS][96];
  bool overflow;
} gen;

void gen_init(gen *g, uint64_t initstate, uint64_t stream);
void gen_free(gen *g);
// Adds a @forward parameter of type `type`.
val gen_param(gen *g, const char *type);
// Fresh private function name "@<base>_<n>" into out (64 bytes).
void gen_func_name(gen *g, const char *base, char out[64]);
// Emits `%vN = call @fn(args) : (...) -> rtype` in @forward; rtype NULL or ""
// means a call without results (the returned val then has an empty name).
val gen_call(gen *g, const char *fn, const char *rtype, int nargs,
             const val *args);
// True when @forward can take `more` parameters and still stay within the
// measurement harness's limit of MAX_FORWARD_ARGS arguments + results (one
// result slot is kept in reserve).
bool gen_has_room(const gen *g, int more);
// Appends a @forward result.
void gen_result(gen *g, val v);
// Records a kernel in the header description.
void gen_note_kernel(gen *g, const char *what);
// Assembles the whole module text into out (appends). With `driver`, the
// module is in driver form: @forward is named @kernel and a @main fills its
// inputs, calls it and prints checksums (driver.c); false when the driver
// form cannot be written (more arguments than gen keeps).
bool gen_finish(gen *g, const char *family, const char *domain,
                uint64_t seed, int index, bool driver, strbuf *out);
// The driver form's @main for @kernel with g's parameter and result types,
// appended to out (driver.c).
void gen_driver_main(const gen *g, strbuf *out);

// Type text helpers: "tensor<AxBxf32>" / "memref<AxBxf64>".
void ty_tensor(char out[96], elt t, int rank, const int *dims);
void ty_memref(char out[96], elt t, int rank, const int *dims);

// ----------------------------------------------------------------------------
// tensor op emitters (ops_tensor.c, ops_vision.c). Each writes ops into a
// function body `sb`, defining the SSA value `%res` from the named inputs.

typedef enum { ACT_NONE, ACT_RELU, ACT_RELU6, ACT_GELU_TANH, ACT_GELU_ERF,
               ACT_SILU, ACT_TANH, ACT_COUNT } act_kind;

const char *act_name(act_kind a);
// Emits region body lines applying `a` to the float value `src` (of type et)
// and returns the name of the result (`src` itself for ACT_NONE). Names made
// here start with "%_act".
const char *emit_act(strbuf *sb, const char *src, act_kind a, elt et);

// %res = fill(0) + matmul(a[MxK], b[KxN]) -> [MxN] of type out_et; with
// transpose_b, b is [NxK] (linalg.matmul_transpose_b).
void op_matmul(strbuf *sb, const char *res, const char *a, const char *b,
               int M, int K, int N, elt in_et, elt out_et, bool transpose_b);
// Batched: a[BxMxK] * b[BxKxN].
void op_batch_matmul(strbuf *sb, const char *res, const char *a, const char *b,
                     int B, int M, int K, int N, elt et);
// %res[MxN] = act(x + bias[N]) (bias may be NULL).
void op_bias_act(strbuf *sb, const char *res, const char *x, const char *bias,
                 int M, int N, elt et, act_kind a);
// %res (f32) = sitofp(x (i32)) * scale, of shape dims (rank <= 4).
void op_dequant(strbuf *sb, const char *res, const char *x, int rank,
                const int *dims, double scale);
// %res = x + y, both of shape dims (rank <= 4).
void op_add(strbuf *sb, const char *res, const char *x, const char *y,
            int rank, const int *dims, elt et);
// Row softmax of x[MxN] with x scaled by `scale` first; log_softmax variant.
void op_softmax(strbuf *sb, const char *res, const char *x, int M, int N,
                elt et, double scale, bool log_softmax);
// Layer norm over the last dim of x[MxN] with gamma[N], beta[N]; rms (no mean,
// no beta) when rms is true.
void op_layernorm(strbuf *sb, const char *res, const char *x,
                  const char *gamma, const char *beta, int M, int N, elt et,
                  bool rms);

// 2-D convolution. nchw: x[NxCxHxW], w[FxCxKHxKW] (conv_2d_nchw_fchw); else
// x[NxHxWxC], w[KHxKWxCxF] (conv_2d_nhwc_hwcf). Output dims in out_dims.
typedef struct {
  int n, h, w, c, f, kh, kw, stride, dil;
  bool nchw;
  bool q; // integer conv with zero points (linalg.conv_2d_*_q; NHWC only)
} conv_shape;
int conv_out(int in, int k, int stride, int dil);
void conv_dims_in(const conv_shape *cs, int dims[4]);
void conv_dims_w(const conv_shape *cs, int dims[4]);
void conv_dims_out(const conv_shape *cs, int dims[4]);
void op_conv(strbuf *sb, const char *res, const char *x, const char *w,
             const conv_shape *cs, elt in_et, elt out_et);
// Requantisation of an i32 NHWC accumulator x with an i32 per-channel bias
// to i8: ((x + b) * mult + 2^(shift-1)) >> shift, plus zero point ozp,
// clamped to [-128, 127].
void op_requant4(strbuf *sb, const char *res, const char *x, const char *bias,
                 const int dims[4], int mult, int shift, int ozp);
// Depthwise NHWC: x[NxHxWxC], w[KHxKWxC] (f == c).
void op_depthwise(strbuf *sb, const char *res, const char *x, const char *w,
                  const conv_shape *cs, elt et);
// Pooling (max or sum) with window kh x kw, NHWC or NCHW (cs->f unused).
void op_pool(strbuf *sb, const char *res, const char *x, const conv_shape *cs,
             bool max, elt et);
// Per-channel bias + activation on a 4-D activation (channel dim 1 or 3).
void op_bias_act4(strbuf *sb, const char *res, const char *x, const char *bias,
                  const int dims[4], bool nchw, elt et, act_kind a);
// Zero padding by p on both spatial sides of a 4-D tensor.
void op_pad(strbuf *sb, const char *res, const char *x, const int dims[4],
            bool nchw, int p, elt et);

// ----------------------------------------------------------------------------
// kernel families: each emitter draws its parameters from g->rng and builds
// one module in g. Emitters always succeed; the size filters run afterwards.

typedef void (*family_emit_fn)(gen *g);

typedef struct {
  const char *name;   // "conv2d"
  const char *domain; // "vision" | "nlp" | "hpc" | "irregular"
  const char *about;  // one line, for docs and --list
  family_emit_fn emit;
  bool opt_in; // not in the default mix: generated only when --families names it
} corpus_family;

extern const corpus_family corpus_families[];
extern const int corpus_nfamilies;
const corpus_family *corpus_family_find(const char *name);

// Family emitters, by domain file.
void fam_conv2d(gen *g);
void fam_conv2d_layer(gen *g);
void fam_matmul_layer(gen *g);
void fam_depthwise_layer(gen *g);
void fam_qconv_layer(gen *g);
void fam_memref_layer(gen *g);
void fam_mlp_layer(gen *g);
void fam_depthwise(gen *g);
void fam_pooling(gen *g);
void fam_resblock(gen *g);
void fam_cnn(gen *g);
void fam_matmul_chain(gen *g);
void fam_mlp(gen *g);
void fam_softmax(gen *g);
void fam_layernorm(gen *g);
void fam_attention(gen *g);
void fam_transformer(gen *g);
void fam_poly_blas3(gen *g);
void fam_poly_blas2(gen *g);
void fam_poly_stencil(gen *g);
void fam_spmv(gen *g);
void fam_gather_scatter(gen *g);
void fam_recurrence(gen *g);

// PolyBench kernel templates (polybench_kernels.c), used by polybench.c.
typedef struct {
  const char *name;
  const char *group;  // family: "blas3" | "blas2" | "stencil"
  const char *sizes;  // "NI:32-256 NJ:32-256" (symbol:lo-hi)
  const char *arrays; // "C:NI,NJ A:NI,NK" (dims are size symbols)
  const char *work;   // "2*NI*NJ*NK+NI*NJ": arithmetic ops of one call
  const char *body;   // template of the function body (without return)
} poly_kernel;
extern const poly_kernel poly_kernels[];
extern const int poly_nkernels;
// Irregular kernel templates (irregular_kernels.c), same format; array items
// may end in ":i32" (index arrays) and dims may be products ("M*R").
extern const poly_kernel irregular_kernels[];
extern const int irregular_nkernels;
// Single linalg ops on memrefs (memref_kernels.c), same format.
extern const poly_kernel memref_kernels[];
extern const int memref_nkernels;

// Emits the text of module `index` of family f for `seed`: the usual form
// into `out` and the driver form (see gen_finish) into `drv`, each when not
// NULL, from one run of the family's emitter. False when the driver form
// was asked for and cannot be written.
bool corpus_emit_module(const corpus_family *f, uint64_t seed, int index,
                        strbuf *out, strbuf *drv);

// Number of '\n'-terminated lines in text.
int count_lines(const char *text, size_t len);
// FNV-1a 64 over bytes, continuing from h (start with FNV_OFFSET).
#define FNV_OFFSET 14695981039346656037ULL
uint64_t fnv1a(uint64_t h, const void *data, size_t len);

#endif // MQSS_CORPUS_H
