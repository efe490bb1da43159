// Unit tests of the aggregation math of `mqss eval` (src/eval/eval_stats.c,
// eval_base64 in eval_report.c): geometric means, percentiles with linear
// interpolation, CDF points and the report's aggregate over hand-made rows,
// every expected value computed by hand in the comments. No measuring.
// eval.h first: cmocka's fail() macro would clash with internal.h's fail().
#include "eval/eval.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TOL 1e-9

// ----------------------------------------------------------------------------
// primitives

static void test_geomean(void **state) {
  (void)state;
  int used = -1;
  // sqrt(2 * 8) = 4
  assert_float_equal(eval_geomean((double[]){2, 8}, 2, &used), 4.0, TOL);
  assert_int_equal(used, 2);
  // cbrt(1 * 4 * 16) = cbrt(64) = 4
  assert_float_equal(eval_geomean((double[]){1, 4, 16}, 3, NULL), 4.0, TOL);
  // 0 and negatives are "not available": only 2 and 8 count.
  assert_float_equal(eval_geomean((double[]){0, 2, -1, 8}, 4, &used), 4.0, TOL);
  assert_int_equal(used, 2);
  // sqrt(0.5 * 2) = 1
  assert_float_equal(eval_geomean((double[]){0.5, 2}, 2, NULL), 1.0, TOL);
  assert_float_equal(eval_geomean(NULL, 0, &used), 0.0, TOL);
  assert_int_equal(used, 0);
}

static void test_percentile(void **state) {
  (void)state;
  double x[] = {5, 1, 4, 2, 3}; // sorted 1 2 3 4 5
  // p95: rank 0.95 * 4 = 3.8 -> 4 + 0.8 * (5 - 4) = 4.8
  assert_float_equal(eval_percentile(x, 5, 95), 4.8, TOL);
  assert_float_equal(eval_percentile(x, 5, 50), 3.0, TOL);
  assert_float_equal(eval_percentile(x, 5, 0), 1.0, TOL);
  assert_float_equal(eval_percentile(x, 5, 100), 5.0, TOL);
  // p25: rank 1.0 -> 2
  assert_float_equal(eval_percentile(x, 5, 25), 2.0, TOL);
  // the input is not reordered
  assert_float_equal(x[0], 5.0, 0);
  // two values: rank 0.95 -> 10 + 0.95 * 10 = 19.5
  assert_float_equal(eval_percentile((double[]){20, 10}, 2, 95), 19.5, TOL);
  assert_float_equal(eval_percentile((double[]){7}, 1, 95), 7.0, TOL);
  assert_true(isnan(eval_percentile(NULL, 0, 95)));
}

static void test_cdf(void **state) {
  (void)state;
  double xs[3], ys[3];
  assert_int_equal(eval_cdf((double[]){3, 1, 2}, 3, xs, ys), 3);
  assert_float_equal(xs[0], 1, 0);
  assert_float_equal(xs[1], 2, 0);
  assert_float_equal(xs[2], 3, 0);
  assert_float_equal(ys[0], 1.0 / 3, TOL);
  assert_float_equal(ys[1], 2.0 / 3, TOL);
  assert_float_equal(ys[2], 1.0, TOL);
}

static void test_base64(void **state) {
  (void)state;
  // RFC 4648 section 10 test vectors.
  const char *in[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
  const char *out[] = {"", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"};
  for (int i = 0; i < 7; i++) {
    char *b = eval_base64((const unsigned char *)in[i], strlen(in[i]));
    assert_string_equal(b, out[i]);
    free(b);
  }
}

// ----------------------------------------------------------------------------
// aggregate

static void test_aggregate(void **state) {
  (void)state;
  eval_input in[4] = {
      {.file = "a.mlir", .family = "mlp"},
      {.file = "b.mlir", .family = "conv2d"},
      {.file = "c.mlir", .family = "mlp"},
      {.file = "d.mlir", .family = NULL},
  };
  eval_row r[4];
  memset(r, 0, sizeof r);
  for (int i = 0; i < 4; i++)
    r[i].in = &in[i];
  // a: ok, 2x vs baseline, 1x vs reference, compile +10%, half the code.
  strcpy(r[0].status, "ok");
  r[0].ok = true;
  r[0].vs_baseline = 2;
  r[0].vs_reference = 1;
  r[0].vs_fixed = 1;
  r[0].compile_ratio = 1.1;
  r[0].size_ratio = 0.5;
  r[0].decision_ms = 1;
  r[0].has_search = true;
  r[0].search_fraction = 0.5;
  r[0].policy_time_ms = 10;
  r[0].search.wall_ms = 100;
  r[0].time_fraction = 0.1;
  r[0].ci_baseline = (eval_interval){1.8, 2.2, 1};  // faster than the baseline
  r[0].ci_reference = (eval_interval){0.9, 1.1, 0}; // within noise
  r[0].ci_fixed = (eval_interval){0.9, 1.1, 0};
  // b: ok, 0.5x vs baseline, 4x vs reference, compile +30%, twice the code.
  strcpy(r[1].status, "ok");
  r[1].ok = true;
  r[1].vs_baseline = 0.5;
  r[1].vs_reference = 4;
  r[1].vs_fixed = 4;
  r[1].compile_ratio = 1.3;
  r[1].size_ratio = 2;
  r[1].decision_ms = 3;
  r[1].has_search = true;
  r[1].search_fraction = 2;
  r[1].policy_time_ms = 30;
  r[1].search.wall_ms = 100;
  r[1].time_fraction = 0.3;
  r[1].ci_baseline = (eval_interval){0.4, 0.6, -1}; // slower than the baseline
  r[1].ci_reference = (eval_interval){3.5, 4.5, 1};
  r[1].ci_fixed = (eval_interval){3.5, 4.5, 1};
  // c: crashed (its ratios must not count), but it did select.
  strcpy(r[2].status, "crashed");
  r[2].vs_baseline = 100;
  r[2].vs_reference = 100;
  r[2].decision_ms = 2;
  r[2].ci_reference = (eval_interval){90, 110, 1}; // not ok: never counted
  // d: family unknown: reference only, compile +0%, size unknown.
  strcpy(r[3].status, "ok");
  r[3].ok = true;
  r[3].vs_reference = 1;
  r[3].compile_ratio = 1.0;
  r[3].decision_ms = 5;
  r[3].ci_baseline = (eval_interval){1, 1, 1}; // no baseline speedup (0):
                                                // not counted
  // and a speedup vs the reference without an interval: no verdict, so it
  // is not counted as within noise either

  eval_agg a;
  eval_aggregate(r, 4, &a);
  assert_int_equal(a.n, 4);
  assert_int_equal(a.n_ok, 3);
  assert_int_equal(a.n_crashed, 1);
  assert_int_equal(a.n_wrong, 0);
  assert_int_equal(a.n_unknown_family, 1);
  // vs baseline: sqrt(2 * 0.5) = 1 over a and b
  assert_int_equal(a.n_baseline, 2);
  assert_float_equal(a.geo_baseline, 1.0, TOL);
  // vs reference: cbrt(1 * 4 * 1) = 4^(1/3)
  assert_int_equal(a.n_reference, 3);
  assert_float_equal(a.geo_reference, cbrt(4.0), TOL);
  // vs fixed: sqrt(1 * 4) = 2
  assert_float_equal(a.geo_fixed, 2.0, TOL);
  // compile increases 0.1, 0.3, 0.0 -> sorted 0, .1, .3; p95 rank 1.9:
  // 0.1 + 0.9 * 0.2 = 0.28; median 0.1
  assert_int_equal(a.n_compile, 3);
  assert_float_equal(a.p95_compile_increase, 0.28, TOL);
  assert_float_equal(a.median_compile_increase, 0.1, TOL);
  // sizes 0.5 and 2 -> 1
  assert_int_equal(a.n_size, 2);
  assert_float_equal(a.geo_size_ratio, 1.0, TOL);
  // decisions 1 3 2 5 -> sorted 1 2 3 5; median rank 1.5 -> 2.5; p95 rank
  // 2.85 -> 3 + 0.85 * 2 = 4.7
  assert_int_equal(a.n_decision, 4);
  assert_float_equal(a.decision_ms_median, 2.5, TOL);
  assert_float_equal(a.decision_ms_p95, 4.7, TOL);
  // search: sqrt(0.5 * 2) = 1; time (10 + 30) / (100 + 100) = 0.2; median
  // of 0.1 and 0.3 = 0.2
  assert_int_equal(a.n_search, 2);
  assert_float_equal(a.search_fraction_geo, 1.0, TOL);
  assert_float_equal(a.time_fraction_total, 0.2, TOL);
  assert_float_equal(a.time_fraction_median, 0.2, TOL);
  // verdicts of ok rows with the speedup and its interval available:
  // [faster, noise, slower]
  assert_int_equal(a.verdicts_baseline[0], 1); // a
  assert_int_equal(a.verdicts_baseline[1], 0);
  assert_int_equal(a.verdicts_baseline[2], 1); // b
  assert_int_equal(a.verdicts_reference[0], 1); // b (c crashed)
  assert_int_equal(a.verdicts_reference[1], 1); // a (d has no interval)
  assert_int_equal(a.verdicts_reference[2], 0);
  assert_int_equal(a.verdicts_fixed[0], 1);
  assert_int_equal(a.verdicts_fixed[1], 1);
  // families in order of first appearance
  assert_int_equal(a.n_families, 3);
  assert_string_equal(a.families[0].name, "mlp");
  assert_int_equal(a.families[0].n, 2);
  assert_int_equal(a.families[0].n_ok, 1);
  assert_float_equal(a.families[0].geo_baseline, 2.0, TOL);
  assert_string_equal(a.families[1].name, "conv2d");
  assert_float_equal(a.families[1].geo_reference, 4.0, TOL);
  assert_string_equal(a.families[2].name, "(unknown)");
  assert_float_equal(a.families[2].geo_baseline, 0.0, TOL);
  assert_float_equal(a.families[2].geo_reference, 1.0, TOL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_geomean),   cmocka_unit_test(test_percentile),
      cmocka_unit_test(test_cdf),       cmocka_unit_test(test_base64),
      cmocka_unit_test(test_aggregate),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
