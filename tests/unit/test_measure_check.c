// Unit tests of the output check's error model (compare.c, errmodel.c) and
// its skip sets (skip.c, clock.c). The comparison runs on synthetic outputs
// computed here in C: legitimate rounding changes (fmaf instead of a
// separate multiply and add, pairwise instead of sequential summation, a
// tanh off by a few ulp) must pass; seeded miscompiles (a dropped reduction
// iteration, an off-by-one tile bound, a stencil reading the wrong
// neighbour) must fail. Also the rounding depth of small modules, --skip-output
// specs and the clock probe's diff.
// measure.h first: cmocka's fail() macro would clash with internal.h's fail().
#include "measure/measure.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "check.h"

#include <fenv.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

// ----------------------------------------------------------------------------
// synthetic data

enum { R = 8, K = 512, C = 128 };

static uint64_t lcg = 42;
static float uniform(void) { // [-1, 1)
  lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
  return (float)((double)(lcg >> 40) * 0x1p-23 - 1.0);
}

static float A[R][K], B[K][C];

// A holds activations of a previous layer (magnitude up to 64, like an MLP's
// hidden values), B weights in [-1, 1).
static void fill(void) {
  for (int i = 0; i < R; i++)
    for (int k = 0; k < K; k++)
      A[i][k] = 64 * uniform();
  for (int k = 0; k < K; k++)
    for (int j = 0; j < C; j++)
      B[k][j] = uniform();
}

typedef enum { SEQ, FMA, PAIRWISE, DROP_LAST, TILE_OFF_BY_ONE } variant;

// Sum of x[lo..hi) by halves.
static float pairwise(const float *x, int lo, int hi) {
  if (hi - lo == 1)
    return x[lo];
  int mid = lo + (hi - lo) / 2;
  return pairwise(x, lo, mid) + pairwise(x, mid, hi);
}

// out is (R, C): A times B, the way `v` computes it.
static void matmul(variant v, float *out) {
  for (int i = 0; i < R; i++)
    for (int j = 0; j < C; j++) {
      float acc = 0, prod[K];
      for (int k = 0; k < K; k++) {
        volatile float p = A[i][k] * B[k][j]; // rounded, never contracted
        prod[k] = p;
        if (v == FMA)
          acc = fmaf(A[i][k], B[k][j], acc);
        else if (v != DROP_LAST || k < K - 1)
          acc += p;
      }
      out[i * C + j] = v == PAIRWISE ? pairwise(prod, 0, K) : acc;
    }
  if (v == TILE_OFF_BY_ONE) // tiles of 32 columns stop one short: j < j0+31
    for (int i = 0; i < R; i++)
      for (int j = 31; j < C; j += 32)
        out[i * C + j] = 0;
}

// The magnitude run of the same code on |A| and |B|: sum |a||b|.
static void magnitude(float *out) {
  for (int i = 0; i < R; i++)
    for (int j = 0; j < C; j++) {
      float acc = 0;
      for (int k = 0; k < K; k++)
        acc += fabsf(A[i][k]) * fabsf(B[k][j]);
      out[i * C + j] = acc;
    }
}

static void set_buf(outputs *o, int i, const float *x, int64_t n) {
  o->v[i] = (output_buf){ET_F32, n, malloc((size_t)n * sizeof *x), "result 0"};
  memcpy(o->v[i].data, x, (size_t)n * sizeof *x);
  o->n = i + 1;
}

static float ref_out[R * C], mag_out[R * C], got_out[R * C];

// The sensitivity runs' outputs (sensitivity_fold): perturbed inputs, and
// rounding upwards.
typedef struct {
  const float *pert, *up;
} sens_runs;

// Compares `got` (n floats) with `want` under magnitude `mag` (or none),
// raised by the sensitivity runs `sr` when given, and depth `depth`, with
// slack `atol` only: the model alone decides.
static compare_result check_atol(const float *got, const float *want,
                                 const float *mag, const sens_runs *sr,
                                 int64_t n, double depth, double atol) {
  reference ref = {.depth = depth, .has_mag = mag != NULL};
  outputs g = {0}, p = {0}, u = {0};
  set_buf(&ref.val, 0, want, n);
  if (mag)
    set_buf(&ref.mag, 0, mag, n);
  if (sr) {
    set_buf(&p, 0, sr->pert, n);
    set_buf(&u, 0, sr->up, n);
    sensitivity_fold(&ref.mag, &ref.val, &p, &u, depth);
    outputs_free(&p);
    outputs_free(&u);
  }
  set_buf(&g, 0, got, n);
  compare_result cr;
  outputs_compare(&g, &ref, NULL, 0, atol, &cr);
  outputs_free(&g);
  reference_free(&ref);
  return cr;
}

static compare_result check(const float *got, const float *want,
                            const float *mag, int64_t n, double depth) {
  return check_atol(got, want, mag, NULL, n, depth, 0);
}

// ----------------------------------------------------------------------------
// matmul: what the model accepts and what it rejects

static compare_result check_matmul(variant v) {
  fill();
  matmul(SEQ, ref_out);
  magnitude(mag_out);
  matmul(v, got_out);
  return check(got_out, ref_out, mag_out, R * C, 2.0 * K); // mulf + addf
}

static void test_fma_and_reassociation_pass(void **state) {
  (void)state;
  compare_result fma = check_matmul(FMA), pw = check_matmul(PAIRWISE);
  // They do change the rounding, beyond the old fixed rule
  // |got - want| <= 1e-5 + 1e-4 |want| on small values.
  int old_rule_fails = 0;
  for (int i = 0; i < R * C; i++)
    old_rule_fails += fabsf(got_out[i] - ref_out[i]) > 1e-5 + 1e-4 * fabsf(ref_out[i]);
  assert_true(old_rule_fails > 0);
  assert_true(fma.max_error > 0);
  if (!fma.equal || !pw.equal)
    fail_msg("correct code rejected: fma %g (bound %g), pairwise %g (bound %g)",
             fma.worst, fma.bound, pw.worst, pw.bound);
  // Exactly the same arithmetic: error 0.
  assert_true(check_matmul(SEQ).max_error == 0);
}

static void test_dropped_iteration_fails(void **state) {
  (void)state;
  compare_result cr = check_matmul(DROP_LAST);
  assert_false(cr.equal);
  assert_true(cr.worst > cr.bound);
}

static void test_tile_off_by_one_fails(void **state) {
  (void)state;
  compare_result cr = check_matmul(TILE_OFF_BY_ONE);
  assert_false(cr.equal);
  assert_int_equal(cr.index % 32, 31); // a column the short tiles never wrote
}

// Without a magnitude run (no float inputs) the floor is the output's mean
// magnitude: FMA still passes and a dropped iteration still fails.
static void test_no_magnitude_run(void **state) {
  (void)state;
  fill();
  matmul(SEQ, ref_out);
  matmul(FMA, got_out);
  assert_true(check(got_out, ref_out, NULL, R * C, 2.0 * K).equal);
  matmul(DROP_LAST, got_out);
  assert_false(check(got_out, ref_out, NULL, R * C, 2.0 * K).equal);
}

// ----------------------------------------------------------------------------
// the sensitivity run: softmax over long reductions

// Multiplies A and B by 1 +- SENSITIVITY_EPS, random signs (call_args_perturb).
static void perturb(void) {
  for (int i = 0; i < R; i++)
    for (int k = 0; k < K; k++)
      A[i][k] *= uniform() < 0 ? 1 - SENSITIVITY_EPS : 1 + SENSITIVITY_EPS;
  for (int k = 0; k < K; k++)
    for (int j = 0; j < C; j++)
      B[k][j] *= uniform() < 0 ? 1 - SENSITIVITY_EPS : 1 + SENSITIVITY_EPS;
}

// A (the inputs' copy) rounded upwards, sequential matmul: the upward run.
static void matmul_upward(float *out) {
  fesetround(FE_UPWARD);
  matmul(SEQ, out);
  fesetround(FE_TONEAREST);
}

// For a matmul the perturbed run's change, at most twice sum |a||b| in
// principle, stays below it with random signs, and rounding upwards stays
// within the bound's allowance: the fold leaves the matmul's magnitudes
// exactly as they were.
static void test_sensitivity_keeps_multilinear(void **state) {
  (void)state;
  static float pert[R * C], up[R * C];
  fill();
  matmul(SEQ, ref_out);
  magnitude(mag_out);
  matmul_upward(up);
  perturb();
  matmul(SEQ, pert);
  assert_false(memcmp(pert, ref_out, sizeof pert) == 0); // it did perturb
  assert_false(memcmp(up, ref_out, sizeof up) == 0);     // and round
  outputs val = {0}, mag = {0}, p = {0}, u = {0};
  set_buf(&val, 0, ref_out, R * C);
  set_buf(&mag, 0, mag_out, R * C);
  set_buf(&p, 0, pert, R * C);
  set_buf(&u, 0, up, R * C);
  sensitivity_fold(&mag, &val, &p, &u, 2.0 * K);
  assert_memory_equal(mag.v[0].data, mag_out, sizeof mag_out);
  outputs_free(&val);
  outputs_free(&mag);
  outputs_free(&p);
  outputs_free(&u);
}

// Row-wise softmax of (R, C) logits in place, as the corpus writes it.
static void softmax(float *z) {
  for (int i = 0; i < R; i++) {
    float *row = z + i * C, mx = -INFINITY, sum = 0;
    for (int j = 0; j < C; j++)
      mx = fmaxf(mx, row[j]);
    for (int j = 0; j < C; j++)
      sum += expf(row[j] - mx);
    for (int j = 0; j < C; j++)
      row[j] = expf(row[j] - mx) / sum;
  }
}

// softmax(A B) on ReLU activations (A >= 0, magnitude up to `scale`): logits
// with a large common part, where an error e in a logit is a relative error
// e in its probability, far more than the probabilities' magnitudes
// account for.
static float sm_ref[R * C], sm_mag[R * C], sm_pert[R * C], sm_up[R * C],
    sm_got[R * C];
static const sens_runs sm_runs = {sm_pert, sm_up};

static void softmax_case(variant v, float scale) {
  fill();
  for (int i = 0; i < R; i++)
    for (int k = 0; k < K; k++)
      A[i][k] = fabsf(A[i][k]) * scale / 64;
  matmul(SEQ, sm_ref);
  softmax(sm_ref);
  magnitude(sm_mag);
  softmax(sm_mag);
  matmul(v, sm_got);
  softmax(sm_got);
  matmul_upward(sm_up);
  fesetround(FE_UPWARD);
  softmax(sm_up);
  fesetround(FE_TONEAREST);
  perturb();
  matmul(SEQ, sm_pert);
  softmax(sm_pert);
}

// Depth as errmodel.c counts it: mulf and addf per reduction step, then
// maximumf, subf, exp (weight 8), addf, subf, exp, divf.
#define SOFTMAX_DEPTH (2.0 * K + 21)

static compare_result check_softmax(const sens_runs *sr) {
  return check_atol(sm_got, sm_ref, sm_mag, sr, R * C, SOFTMAX_DEPTH, 1e-12);
}

static void test_softmax_reassociation_passes(void **state) {
  (void)state;
  for (variant v = FMA; v <= PAIRWISE; v++) {
    softmax_case(v, 16);
    // The magnitude run alone rejects this correct code ...
    assert_false(check_softmax(NULL).equal);
    // ... the sensitivity runs accept it.
    compare_result cr = check_softmax(&sm_runs);
    if (!cr.equal)
      fail_msg("correct softmax rejected: error %g > bound %g at %" PRId64,
               cr.worst, cr.bound, cr.index);
  }
}

static void test_softmax_miscompile_fails(void **state) {
  (void)state;
  softmax_case(DROP_LAST, 16);
  compare_result cr = check_softmax(&sm_runs);
  assert_false(cr.equal);
  assert_true(cr.worst > 10 * cr.bound);
  // A wrong normalisation: row 3 one percent too large.
  softmax_case(SEQ, 16);
  for (int j = 0; j < C; j++)
    sm_got[3 * C + j] *= 1.01f;
  cr = check_softmax(&sm_runs);
  assert_false(cr.equal);
  assert_int_equal(cr.index / C, 3);
}

// ----------------------------------------------------------------------------
// polynomial approximations and stencils

enum { N = 4096 };

static void test_polynomial_approximation(void **state) {
  (void)state;
  static float x[N], want[N], approx[N], bad[N];
  for (int i = 0; i < N; i++) {
    x[i] = 3 * uniform();
    want[i] = tanhf(x[i]);
    // A few ulp off, as MLIR's polynomial approximation is (3.7e-7 seen).
    approx[i] = want[i] * (1.0f + (i % 2 ? 4 : -4) * 0x1p-23f);
    bad[i] = want[i] * (1.0f + 1e-3f); // a wrong coefficient
  }
  // One math op: depth 8 (errmodel.c's MATH_WEIGHT); the magnitude run of
  // tanh on |x| is |tanh(x)|.
  static float mag[N];
  for (int i = 0; i < N; i++)
    mag[i] = fabsf(want[i]);
  compare_result ok = check(approx, want, mag, N, 8);
  if (!ok.equal)
    fail_msg("approximation rejected: error %g > bound %g", ok.worst, ok.bound);
  assert_false(check(bad, want, mag, N, 8).equal);
}

enum { S = 34, T = 8 };

// Jacobi-2D on an SxS grid, T steps; `order` permutes the five-point sum,
// `wrong` reads the east neighbour twice instead of the west one.
static void jacobi(float a[S][S], int order, bool wrong) {
  static float b[S][S];
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < S - 1; i++)
      for (int j = 1; j < S - 1; j++) {
        float w = wrong ? a[i][j + 1] : a[i][j - 1];
        float s = order ? (((a[i - 1][j] + a[i + 1][j]) + a[i][j + 1]) + w) + a[i][j]
                        : (((a[i][j] + w) + a[i][j + 1]) + a[i + 1][j]) + a[i - 1][j];
        b[i][j] = 0.2f * s;
      }
    for (int i = 1; i < S - 1; i++)
      for (int j = 1; j < S - 1; j++)
        a[i][j] = b[i][j];
  }
}

static void test_stencil(void **state) {
  (void)state;
  static float init[S][S], ref[S][S], mag[S][S], re[S][S], bad[S][S];
  for (int i = 0; i < S; i++)
    for (int j = 0; j < S; j++)
      init[i][j] = uniform();
  memcpy(ref, init, sizeof ref);
  jacobi(ref, 0, false);
  for (int i = 0; i < S; i++)
    for (int j = 0; j < S; j++)
      mag[i][j] = fabsf(init[i][j]);
  jacobi(mag, 0, false);
  memcpy(re, init, sizeof re);
  jacobi(re, 1, false);
  memcpy(bad, init, sizeof bad);
  jacobi(bad, 0, true);
  // Depth as errmodel.c counts it: 5 ops, 8 time steps, 2 sweeps.
  compare_result cr = check(&re[0][0], &ref[0][0], &mag[0][0], S * S, 80);
  assert_true(cr.max_error > 0);
  if (!cr.equal)
    fail_msg("reassociated stencil rejected: %g > %g", cr.worst, cr.bound);
  assert_false(check(&bad[0][0], &ref[0][0], &mag[0][0], S * S, 80).equal);
}

// Integers stay exact whatever the depth and slack.
static void test_integers_exact(void **state) {
  (void)state;
  int32_t w[2] = {5, 7}, g[2] = {5, 6};
  reference ref = {.depth = 1e6};
  outputs got = {0};
  ref.val.n = got.n = 1;
  ref.val.v[0] = (output_buf){ET_I32, 2, malloc(sizeof w), "result 0"};
  got.v[0] = (output_buf){ET_I32, 2, malloc(sizeof g), "result 0"};
  memcpy(ref.val.v[0].data, w, sizeof w);
  memcpy(got.v[0].data, g, sizeof g);
  compare_result cr;
  outputs_compare(&got, &ref, NULL, 1.0, 10.0, &cr);
  assert_false(cr.equal);
  assert_int_equal(cr.index, 1);
  outputs_free(&got);
  reference_free(&ref);
}

// ----------------------------------------------------------------------------
// rounding depth of modules

static double depth_of(mqss_session *s, const char *text) {
  mqss_module *m = NULL;
  if (mqss_module_parse_string(s, text, strlen(text), "d.mlir", &m) != MQSS_OK)
    fail_msg("parse failed: %s", mqss_errmsg(s));
  double d = error_depth(m);
  mqss_module_destroy(m);
  return d;
}

static void test_depth(void **state) {
  mqss_session *s = *state;
  // linalg.matmul, K = 64: mulf and addf of the body, 64 times each.
  assert_true(depth_of(s,
      "func.func @f(%a: memref<4x64xf32>, %b: memref<64x8xf32>, %c: memref<4x8xf32>) {\n"
      "  linalg.matmul ins(%a, %b : memref<4x64xf32>, memref<64x8xf32>)\n"
      "                outs(%c : memref<4x8xf32>)\n  return\n}\n") == 128);
  // The same in affine loops: only k does not address the store.
  assert_true(depth_of(s,
      "func.func @f(%a: memref<4x64xf32>, %b: memref<64x8xf32>, %c: memref<4x8xf32>) {\n"
      "  affine.for %i = 0 to 4 {\n  affine.for %j = 0 to 8 {\n"
      "  affine.for %k = 0 to 64 {\n"
      "    %x = affine.load %a[%i, %k] : memref<4x64xf32>\n"
      "    %y = affine.load %b[%k, %j] : memref<64x8xf32>\n"
      "    %z = affine.load %c[%i, %j] : memref<4x8xf32>\n"
      "    %p = arith.mulf %x, %y : f32\n    %q = arith.addf %z, %p : f32\n"
      "    affine.store %q, %c[%i, %j] : memref<4x8xf32>\n"
      "  }\n  }\n  }\n  return\n}\n") == 128);
  // Elementwise tanh then a multiply: 8 + 1, no loop accumulates.
  assert_true(depth_of(s,
      "func.func @f(%a: memref<16xf32>) {\n"
      "  affine.for %i = 0 to 16 {\n"
      "    %x = affine.load %a[%i] : memref<16xf32>\n"
      "    %t = math.tanh %x : f32\n    %y = arith.mulf %t, %x : f32\n"
      "    affine.store %y, %a[%i] : memref<16xf32>\n  }\n  return\n}\n") == 9);
  // Integer arithmetic does not round: depth 1 (the minimum).
  assert_true(depth_of(s, "func.func @f(%a: i32) -> i32 {\n"
                          "  %b = arith.addi %a, %a : i32\n  return %b : i32\n}\n") == 1);
}

// ----------------------------------------------------------------------------
// skip sets and the clock

static void test_skip_parse(void **state) {
  (void)state;
  skip_set s = {0};
  char err[256];
  assert_true(skip_parse(&s, "result:1", err, sizeof err));
  assert_true(skip_parse(&s, "arg:2", err, sizeof err));
  assert_true(skip_parse(&s, "line:3-4", err, sizeof err));
  assert_true(s.results == 2 && s.args == 4);
  assert_false(skip_line(&s, 2));
  assert_true(skip_line(&s, 3) && skip_line(&s, 4));
  assert_false(skip_line(&s, 5));
  const char *bad[] = {"result", "result:", "result:x", "line:0", "line:5-2",
                       "arg:64", "output:1", "stdout:1"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    if (skip_parse(&s, bad[i], err, sizeof err))
      fail_msg("'%s' parsed", bad[i]);
  assert_contains(err, "expected result:N");
  strbuf d = {0};
  skip_describe(&s, "--skip-output", &d);
  assert_string_equal(d.data, "skipped result 1, argument 2, stdout line 3-4 "
                              "(--skip-output)");
  sb_free(&d);
  skip_free(&s);
}

static outputs printed(const char *text) {
  outputs o = {0};
  sb_append(&o.out, text, strlen(text));
  return o;
}

static void test_clock_probe(void **state) {
  (void)state;
  outputs a = printed("result 1\ntime 3.25\nresult 2\n");
  outputs b = printed("result 1\ntime 9.75\nresult 2\n");
  outputs c = printed("result 1\ntime 3.25\nresult 3\n");
  skip_set s = {0};
  skip_from_probe(&s, &a, &b);
  assert_true(skip_line(&s, 2));
  assert_false(skip_line(&s, 1) || skip_line(&s, 3));
  // The skipped line is left out; the others are still compared.
  reference ref = {.val = a, .depth = 1, .clock = s};
  compare_result cr;
  outputs_compare(&b, &ref, NULL, 0, 0, &cr);
  assert_true(cr.equal);
  assert_int_equal(cr.skipped, 2);
  outputs_compare(&c, &ref, NULL, 0, 0, &cr);
  assert_false(cr.equal);
  outputs *all[] = {&a, &b, &c};
  for (size_t i = 0; i < 3; i++)
    outputs_free(all[i]);
  skip_free(&s);
}

// A timer declaration or call is found; other calls are not timers.
static void test_reads_clock(void **state) {
  mqss_session *s = *state;
  const char *texts[] = {
      "func.func private @rtclock() -> f64\n"
      "func.func @main() -> f64 {\n  %t = call @rtclock() : () -> f64\n"
      "  return %t : f64\n}\n",
      "func.func private @nanoTime() -> i64 attributes {llvm.emit_c_interface}\n"
      "func.func @main() { return }\n",
      "func.func private @other() -> f64\n"
      "func.func @main() -> f64 {\n  %t = call @other() : () -> f64\n"
      "  return %t : f64\n}\n"};
  for (int i = 0; i < 3; i++) {
    mqss_module *m = NULL;
    assert_int_equal(mqss_module_parse_string(s, texts[i], strlen(texts[i]),
                                              "c.mlir", &m), MQSS_OK);
    assert_int_equal(module_reads_clock(m), i < 2);
    mqss_module_destroy(m);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_fma_and_reassociation_pass),
      cmocka_unit_test(test_dropped_iteration_fails),
      cmocka_unit_test(test_tile_off_by_one_fails),
      cmocka_unit_test(test_no_magnitude_run),
      cmocka_unit_test(test_sensitivity_keeps_multilinear),
      cmocka_unit_test(test_softmax_reassociation_passes),
      cmocka_unit_test(test_softmax_miscompile_fails),
      cmocka_unit_test(test_polynomial_approximation),
      cmocka_unit_test(test_stencil),
      cmocka_unit_test(test_integers_exact),
      cmocka_unit_test(test_skip_parse),
      cmocka_unit_test(test_clock_probe),
#define T(name) cmocka_unit_test_setup_teardown(name, session_setup, session_teardown)
      T(test_depth),
      T(test_reads_clock),
#undef T
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
