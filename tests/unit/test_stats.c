// Unit tests of the ratio statistics: the Wilcoxon signed-rank critical
// rank, the Hodges-Lehmann estimate and interval (src/util/stats.c), the
// ratio fields of a paired comparison (src/measure/ratio.c) and the
// "faster / within noise" verdict. Every expected value is computed by hand
// in the comments. No measuring.
#include "measure/measure.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#define TOL 1e-12

// ----------------------------------------------------------------------------
// signed-rank critical values

static void test_signed_rank_k(void **state) {
  (void)state;
  double conf;
  // n = 8: subsets of {1..8} with rank sum <= 3: {}, {1}, {2}, {3}, {1,2}
  // = 5 of 256 (0.0195 <= 0.025); adding sum 4 ({4}, {1,3}) gives 7/256 =
  // 0.0273 > 0.025. So k - 1 = 3, k = 4, coverage 1 - 10/256.
  assert_int_equal(signed_rank_k(8, 0.95, &conf), 4);
  assert_float_equal(conf, 1.0 - 10.0 / 256.0, TOL);
  // n = 6: P(T+ <= 0) = 1/64 = 0.0156 <= 0.025, P(T+ <= 1) = 2/64 = 0.031:
  // k = 1, coverage 1 - 2/64.
  assert_int_equal(signed_rank_k(6, 0.95, &conf), 1);
  assert_float_equal(conf, 1.0 - 2.0 / 64.0, TOL);
  // n = 5: P(T+ <= 0) = 1/32 = 0.03125 > 0.025: no 95% interval, k = 0.
  assert_int_equal(signed_rank_k(5, 0.95, &conf), 0);
  assert_float_equal(conf, 0.0, TOL);
  // n = 5 at 90%: 1/32 <= 0.05 < 2/32: k = 1.
  assert_int_equal(signed_rank_k(5, 0.90, &conf), 1);
  // Published two-sided 5% critical values T (k = T + 1): n = 10 -> 8,
  // n = 20 -> 52, n = 25 -> 89.
  assert_int_equal(signed_rank_k(10, 0.95, &conf), 9);
  assert_int_equal(signed_rank_k(20, 0.95, &conf), 53);
  assert_int_equal(signed_rank_k(25, 0.95, &conf), 90);
  // Normal approximation beyond n = 100: n = 200, M = 20100,
  // sd = sqrt(200 * 201 * 401 / 24) = sqrt(671675) = 819.56,
  // k = floor(10050 - 1.95996 * 819.56) = floor(8443.7) = 8443.
  assert_int_equal(signed_rank_k(200, 0.95, &conf), 8443);
  assert_float_equal(conf, 0.95, 1e-9);
}

// ----------------------------------------------------------------------------
// Hodges-Lehmann

static void test_hl_one_to_eight(void **state) {
  (void)state;
  // x = 1..8: Walsh averages (i + j) / 2, i <= j, M = 36, symmetric about
  // 4.5, so the estimate (mean of the 18th and 19th) is 4.5. k = 4: the 4th
  // smallest is 2 (1, 1.5, 2, 2) and the 33rd is 9 - 2 = 7.
  double x[] = {8, 3, 1, 6, 2, 7, 5, 4}; // order does not matter
  double est, lo, hi, conf;
  assert_true(hodges_lehmann(x, 8, 0.95, &est, &lo, &hi, &conf));
  assert_float_equal(est, 4.5, TOL);
  assert_float_equal(lo, 2.0, TOL);
  assert_float_equal(hi, 7.0, TOL);
  assert_float_equal(conf, 1.0 - 10.0 / 256.0, TOL);
  assert_float_equal(x[0], 8.0, 0); // the input is not reordered
}

static void test_hl_skewed(void **state) {
  (void)state;
  // x = {0, 0, 0, 1, 10, 100}: 21 Walsh averages, sorted:
  // 0 x6 (the 3 zeros with each other), 0.5 x3, 1, 5 x3, 5.5, 10,
  // 50 x3, 50.5, 55, 100. The 11th (median of 21) is 5. n = 6 at 95%: k = 1,
  // so [min, max] = [0, 100].
  double x[] = {0, 0, 0, 1, 10, 100};
  double est, lo, hi, conf;
  assert_true(hodges_lehmann(x, 6, 0.95, &est, &lo, &hi, &conf));
  assert_float_equal(est, 5.0, TOL);
  assert_float_equal(lo, 0.0, TOL);
  assert_float_equal(hi, 100.0, TOL);
  // At 80%: alpha/2 = 0.1; P(T+ <= s) for n = 6: counts 1,1,1,2,2,3 for
  // s = 0..5 -> cumulative 1,2,3,5,7,10 of 64; 5/64 = 0.078 <= 0.1 < 7/64:
  // k = 4. 4th smallest = 0, 18th (= 21 + 1 - 4) = 50.
  assert_true(hodges_lehmann(x, 6, 0.80, &est, &lo, &hi, &conf));
  assert_float_equal(lo, 0.0, TOL);
  assert_float_equal(hi, 50.0, TOL);
  assert_float_equal(conf, 1.0 - 10.0 / 64.0, TOL);
}

static void test_hl_too_few(void **state) {
  (void)state;
  // n = 5 cannot reach 95%: the widest interval, coverage 1 - 2/32.
  // Walsh averages of 1..5: min 1, max 5, median (8th of 15) 3.
  double x[] = {1, 2, 3, 4, 5};
  double est, lo, hi, conf;
  assert_true(hodges_lehmann(x, 5, 0.95, &est, &lo, &hi, &conf));
  assert_float_equal(est, 3.0, TOL);
  assert_float_equal(lo, 1.0, TOL);
  assert_float_equal(hi, 5.0, TOL);
  assert_float_equal(conf, 1.0 - 2.0 / 32.0, TOL);
  // One value: the estimate is that value, no coverage.
  assert_true(hodges_lehmann(x + 2, 1, 0.95, &est, &lo, &hi, &conf));
  assert_float_equal(est, 3.0, TOL);
  assert_float_equal(conf, 0.0, TOL);
  assert_false(hodges_lehmann(x, 0, 0.95, &est, &lo, &hi, &conf));
}

// ----------------------------------------------------------------------------
// ratio fields and verdict

static void test_vs_ratio_stats(void **state) {
  (void)state;
  // Per-pair ratios e^1 .. e^8 (log ratios 1..8): the estimate is e^4.5 and
  // the interval [e^2, e^7] (test_hl_one_to_eight on the log scale).
  double ta[8], tb[8];
  for (int i = 0; i < 8; i++) {
    ta[i] = 2.0;
    tb[i] = 2.0 * exp(i + 1);
  }
  mqss_measure_vs_result v;
  memset(&v, 0, sizeof v);
  vs_ratio_stats(ta, tb, 8, &v);
  assert_float_equal(v.ratio_hl, exp(4.5), 1e-9);
  assert_float_equal(v.ratio_lo, exp(2.0), 1e-9);
  assert_float_equal(v.ratio_hi, exp(7.0), 1e-9);
  assert_float_equal(v.ratio_conf, 1.0 - 10.0 / 256.0, TOL);
  // The plain summary: median of e^1..e^8 = (e^4 + e^5) / 2.
  assert_float_equal(v.ratio_median, 0.5 * (exp(4) + exp(5)), 1e-9);
  assert_float_equal(v.ratio_min, exp(1), 1e-9);
  assert_float_equal(v.ratio_max, exp(8), 1e-9);
  // The times are not reordered.
  assert_float_equal(tb[0], 2.0 * exp(1), 1e-12);
  // 5 pairs cannot give a 95% interval: an estimate (e^3, the median Walsh
  // average of 1..5), and no interval rather than a narrower one.
  memset(&v, 0, sizeof v);
  vs_ratio_stats(ta, tb, 5, &v);
  assert_float_equal(v.ratio_hl, exp(3.0), 1e-9);
  assert_true(v.ratio_lo == 0 && v.ratio_hi == 0 && v.ratio_conf == 0);
  assert_int_equal(mqss_ratio_verdict(v.ratio_lo, v.ratio_hi, 0.02), 0);
}

static void test_verdict(void **state) {
  (void)state;
  // "Faster" needs the whole interval above 1 + min_gain.
  assert_int_equal(mqss_ratio_verdict(1.03, 1.10, 0.02), 1);
  assert_int_equal(mqss_ratio_verdict(1.01, 1.10, 0.02), 0); // lo inside
  assert_int_equal(mqss_ratio_verdict(1.01, 1.10, 0.0), 1);
  assert_int_equal(mqss_ratio_verdict(0.97, 1.03, 0.02), 0);
  // B faster: the whole interval below 1 / 1.02 = 0.98039.
  assert_int_equal(mqss_ratio_verdict(0.90, 0.98, 0.02), -1);
  assert_int_equal(mqss_ratio_verdict(0.90, 0.981, 0.02), 0);
  // No interval.
  assert_int_equal(mqss_ratio_verdict(0, 0, 0.02), 0);
  assert_string_equal(mqss_ratio_verdict_name(1), "A faster");
  assert_string_equal(mqss_ratio_verdict_name(-1), "B faster");
  assert_string_equal(mqss_ratio_verdict_name(0), "within noise");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_signed_rank_k),
      cmocka_unit_test(test_hl_one_to_eight),
      cmocka_unit_test(test_hl_skewed),
      cmocka_unit_test(test_hl_too_few),
      cmocka_unit_test(test_vs_ratio_stats),
      cmocka_unit_test(test_verdict),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
