// Unit tests of the environment's reward pieces, on hand-computed cases: each
// final term and the weighted total, clipping, success against failure, the
// EMA, the sign and clipping of the shaping term, and the static cost of a
// small loop nest counted by hand. No measurement runs here
// (test_env_episode.c does that).
#include "env/env.h" // before cmocka: it defines a fail() macro

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

static mqss_measure_result ok_result(double comp, double run, int64_t size) {
  mqss_measure_result r;
  memset(&r, 0, sizeof r);
  r.status = MQSS_MEASURE_OK;
  r.compile_ms = comp;
  r.run_ms_median = run;
  r.text_bytes = size;
  return r;
}

// ----------------------------------------------------------------------------
// final reward

static void test_defaults(void **state) {
  (void)state;
  mqss_env_options o;
  mqss_env_options_init(&o);
  assert_int_equal(o.max_steps, 16);
  assert_float_equal(o.weights[MQSS_REWARD_SUCCESS], 0.3, 1e-12);
  assert_float_equal(o.weights[MQSS_REWARD_COMPILE], 0.2, 1e-12);
  assert_float_equal(o.weights[MQSS_REWARD_RUNTIME], 0.4, 1e-12);
  assert_float_equal(o.weights[MQSS_REWARD_SIZE], 0.1, 1e-12);
  assert_float_equal(o.ema_alpha, 0.0, 0);
  assert_int_equal(o.measure.check_reference, 1);
}

// Twice as fast to compile and to run, same size:
// 0.3*1 + 0.2*ln2 + 0.4*ln2 + 0.1*0.
static void test_terms(void **state) {
  (void)state;
  mqss_env_options o;
  mqss_env_options_init(&o);
  mqss_env_baseline b = {10.0, 2.0, 1000};
  mqss_measure_result r = ok_result(5.0, 1.0, 1000);
  mqss_env_reward_terms t;
  mqss_env_reward(&o, &b, &r, -1, -1, &t);
  assert_float_equal(t.term[MQSS_REWARD_SUCCESS], 1.0, 1e-12);
  assert_float_equal(t.term[MQSS_REWARD_COMPILE], 0.693147, 1e-6);
  assert_float_equal(t.term[MQSS_REWARD_RUNTIME], 0.693147, 1e-6);
  assert_float_equal(t.term[MQSS_REWARD_SIZE], 0.0, 1e-12);
  assert_float_equal(t.term[MQSS_REWARD_PERF], 0.0, 0);
  assert_int_equal(t.perf_used, 0);
  assert_float_equal(t.total, 0.3 + 0.6 * 0.693147, 1e-6);
  // Code 4x bigger: size term ln(1/4) = -1.386, clipped to -1.
  r = ok_result(10.0, 2.0, 4000);
  mqss_env_reward(&o, &b, &r, -1, -1, &t);
  assert_float_equal(t.term[MQSS_REWARD_SIZE], -1.0, 1e-12);
  assert_float_equal(t.total, 0.3 - 0.1, 1e-12);
}

// The runtime ratio and its approximate interval: base median 2 ms (MAD 0.1,
// 4 runs), measured 1 ms (MAD 0.05, 4 runs): ratio 2; relative half-widths
// 3.14 * 0.1 / sqrt(4) / 2 = 0.0785 and 3.14 * 0.05 / 2 / 1 = 0.0785, combined
// 0.0785 * sqrt(2) = 0.111016: [2 e^-0.111016, 2 e^0.111016] = [1.78985,
// 2.23482]. Under 3 runs on a side: no interval.
static void test_runtime_interval(void **state) {
  (void)state;
  mqss_env_options o;
  mqss_env_options_init(&o);
  mqss_env_baseline b = {10.0, 2.0, 1000};
  mqss_measure_result r = ok_result(5.0, 1.0, 1000), base = r;
  r.runs = base.runs = 4;
  r.run_ms_mad = 0.05;
  base.run_ms_median = 2.0;
  base.run_ms_mad = 0.1;
  mqss_env_reward_terms t;
  mqss_env_reward(&o, &b, &r, -1, -1, &t);
  assert_float_equal(t.runtime_ratio, 2.0, 1e-12);
  assert_true(t.runtime_lo == 0 && t.runtime_hi == 0); // the env adds them
  env_runtime_interval(&base, &r, &t);
  assert_float_equal(t.runtime_lo, 1.78985, 1e-5);
  assert_float_equal(t.runtime_hi, 2.23482, 1e-5);
  base.runs = 2;
  env_runtime_interval(&base, &r, &t);
  assert_true(t.runtime_lo == 0 && t.runtime_hi == 0);
}

// 100x faster run clips to +1, 10x slower compile clips to -1.
static void test_clipping(void **state) {
  (void)state;
  mqss_env_options o;
  mqss_env_options_init(&o);
  mqss_env_baseline b = {10.0, 2.0, 1000};
  mqss_measure_result r = ok_result(100.0, 0.02, 1000);
  mqss_env_reward_terms t;
  mqss_env_reward(&o, &b, &r, -1, -1, &t);
  assert_float_equal(t.term[MQSS_REWARD_RUNTIME], 1.0, 1e-12);
  assert_float_equal(t.term[MQSS_REWARD_COMPILE], -1.0, 1e-12);
  assert_float_equal(t.total, 0.3 - 0.2 + 0.4, 1e-12);
  // Custom bounds and weights: only runtime, clipped to [-0.5, 2]:
  // ln(100) = 4.605 -> 2.
  o.clip_min = -0.5;
  o.clip_max = 2.0;
  memset(o.weights, 0, sizeof o.weights);
  o.weights[MQSS_REWARD_RUNTIME] = 1.0;
  mqss_env_reward(&o, &b, &r, -1, -1, &t);
  assert_float_equal(t.term[MQSS_REWARD_RUNTIME], 2.0, 1e-12);
  assert_float_equal(t.term[MQSS_REWARD_COMPILE], -0.5, 1e-12);
  assert_float_equal(t.total, 2.0, 1e-12);
}

// Every failed outcome gets -5 and no gain, however fast it ran.
static void test_failure(void **state) {
  (void)state;
  mqss_env_options o;
  mqss_env_options_init(&o);
  mqss_env_baseline b = {10.0, 2.0, 1000};
  const mqss_measure_status bad[] = {
      MQSS_MEASURE_WRONG_OUTPUT, MQSS_MEASURE_CRASHED, MQSS_MEASURE_TIMEOUT,
      MQSS_MEASURE_VERIFY_FAILED, MQSS_MEASURE_PASS_FAILED};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    mqss_measure_result r = ok_result(1.0, 0.1, 100);
    r.status = bad[i];
    mqss_env_reward_terms t;
    mqss_env_reward(&o, &b, &r, -1, -1, &t);
    assert_float_equal(t.term[MQSS_REWARD_SUCCESS], -5.0, 1e-12);
    assert_float_equal(t.term[MQSS_REWARD_RUNTIME], 0.0, 0);
    assert_float_equal(t.term[MQSS_REWARD_COMPILE], 0.0, 0);
    assert_float_equal(t.total, -1.5, 1e-12);
  }
}

// Perf term: used only when both cycle counts are known.
static void test_perf_term(void **state) {
  (void)state;
  mqss_env_options o;
  mqss_env_options_init(&o);
  o.weights[MQSS_REWARD_PERF] = 0.5;
  mqss_env_baseline b = {10.0, 2.0, 1000};
  mqss_measure_result r = ok_result(10.0, 2.0, 1000);
  mqss_env_reward_terms t;
  mqss_env_reward(&o, &b, &r, 1e6, 2e6, &t); // half the cycles: ln 2
  assert_int_equal(t.perf_used, 1);
  assert_float_equal(t.term[MQSS_REWARD_PERF], 0.693147, 1e-6);
  assert_float_equal(t.total, 0.3 + 0.5 * 0.693147, 1e-6);
  mqss_env_reward(&o, &b, &r, -1, 2e6, &t);
  assert_int_equal(t.perf_used, 0);
  assert_float_equal(t.total, 0.3, 1e-12);
}

static void test_ema(void **state) {
  (void)state;
  double ema = NAN;
  assert_float_equal(env_ema_update(&ema, 0.95, 1.0), 1.0, 1e-12);
  assert_float_equal(env_ema_update(&ema, 0.95, 0.0), 0.95, 1e-12);
  assert_float_equal(env_ema_update(&ema, 0.95, 0.0), 0.9025, 1e-12);
  assert_float_equal(env_ema_update(&ema, 0.95, 2.0), 0.9025 * 0.95 + 0.1,
                     1e-12);
  double off = NAN; // alpha 0: no smoothing, no state
  assert_float_equal(env_ema_update(&off, 0.0, 3.0), 3.0, 0);
  assert_true(isnan(off));
}

// ----------------------------------------------------------------------------
// shaping and static cost

static void test_shaping(void **state) {
  (void)state;
  // cost 100 -> 50 out of cost0 200: 0.1 * 0.25
  assert_float_equal(mqss_env_shaping(0.1, 100, 50, 200), 0.025, 1e-12);
  assert_float_equal(mqss_env_shaping(0.1, 50, 100, 200), -0.025, 1e-12);
  assert_float_equal(mqss_env_shaping(0.1, 100, 100, 200), 0.0, 0);
  // a 10x blow-up is clipped to -coef
  assert_float_equal(mqss_env_shaping(0.1, 100, 1100, 100), -0.1, 1e-12);
  assert_float_equal(mqss_env_shaping(0.1, 100, 50, 0), 0.0, 0);
}

// One loop of 10 iterations with load + addf + store:
// 1 + 10 (loop) + 10 * (2 + 1 + 2) = 61; constants, yields, return are free.
static const char *loop_ir =
    "func.func @f(%a: memref<10xf32>) {\n"
    "  %c = arith.constant 1.0 : f32\n"
    "  affine.for %i = 0 to 10 {\n"
    "    %x = affine.load %a[%i] : memref<10xf32>\n"
    "    %y = arith.addf %x, %c : f32\n"
    "    affine.store %y, %a[%i] : memref<10xf32>\n"
    "  }\n"
    "  return\n"
    "}\n";

static void test_static_cost(void **state) {
  (void)state;
  mqss_session *s;
  assert_int_equal(mqss_session_create(&s), MQSS_OK);
  mqss_module *m;
  assert_int_equal(
      mqss_module_parse_string(s, loop_ir, strlen(loop_ir), NULL, &m), MQSS_OK);
  assert_float_equal(mqss_env_static_cost(m), 61.0, 1e-9);
  // Unrolling by 2: 5 iterations of 2 * (2+1+2) = 1 + 5 + 50 = 56 (less
  // loop overhead), so the shaping of that step is positive.
  assert_int_equal(mqss_module_run_pipeline(
                       m, "func.func(affine-loop-unroll{unroll-factor=2})"),
                   MQSS_OK);
  assert_float_equal(mqss_env_static_cost(m), 56.0, 1e-9);
  assert_true(mqss_env_shaping(0.05, 61, 56, 61) > 0);
  mqss_module_destroy(m);
  mqss_session_destroy(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_defaults),  cmocka_unit_test(test_terms),
      cmocka_unit_test(test_runtime_interval),
      cmocka_unit_test(test_clipping),  cmocka_unit_test(test_failure),
      cmocka_unit_test(test_perf_term), cmocka_unit_test(test_ema),
      cmocka_unit_test(test_shaping),   cmocka_unit_test(test_static_cost),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
