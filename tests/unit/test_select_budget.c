// Unit tests of any-time selection (mqss_policy_select_budget): budget 0 is
// plain mqss_policy_select, to the pipeline; with a budget, a policy whose own
// choice miscompiles (untrained seed-1 policy over the search test catalog:
// it tiles and super-vectorizes the jacobi kernel, a known wrong-output
// pipeline) gets a selection whose outputs pass the check instead, and no
// passes when the compile-time limit leaves no proposal; the limit with
// the default policy.
#include "internal.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define INPUTS MQSS_SOURCE_DIR "/tests/lit/Inputs/"

static mqss_policy *random_policy(mqss_session *s, uint64_t seed) {
  char path[128];
  snprintf(path, sizeof path, "/tmp/mqss_test_budget_%d_%llu.st", (int)getpid(),
           (unsigned long long)seed);
  mqss_catalog *c = NULL;
  mqss_policy *p = NULL;
  mqss_policy_options po;
  mqss_policy_options_init(&po);
  po.catalog_path = INPUTS "search_catalog.yaml";
  if (mqss_catalog_load(s, po.catalog_path, &c) != MQSS_OK ||
      mqss_policy_write_random(s, c, "gnn", seed, path) != MQSS_OK ||
      mqss_policy_load(s, path, &po, &p) != MQSS_OK)
    fail_msg("policy: %s", mqss_errmsg(s));
  mqss_catalog_destroy(c);
  unlink(path);
  return p;
}

static mqss_budget_options quick(int budget) {
  mqss_budget_options o;
  mqss_budget_options_init(&o);
  o.budget = budget;
  o.confirm_pairs = 6;
  o.measure.warmup = 0;
  o.measure.repeat = 2;
  o.measure.code_size = 0;
  return o;
}

// A session, the jacobi kernel (the search catalog's miscompile applies to
// it) and selection options of at most 2 steps.
static void open_jacobi(mqss_session **s, mqss_module **m,
                        mqss_select_options *so) {
  assert_int_equal(mqss_session_create(s), MQSS_OK);
  assert_int_equal(
      mqss_module_parse_file(*s, INPUTS "measure_jacobi_kernel.mlir", m),
      MQSS_OK);
  mqss_select_options_init(so);
  so->max_steps = 2;
}

static void test_budget_zero_is_plain_select(void **state) {
  (void)state;
  mqss_session *s = NULL;
  mqss_module *m = NULL;
  mqss_select_options so;
  open_jacobi(&s, &m, &so);
  for (uint64_t seed = 1; seed <= 3; seed++) {
    mqss_policy *p = random_policy(s, seed);
    mqss_selection *a = NULL, *b = NULL;
    mqss_budget_options o = quick(0);
    mqss_budget_report r;
    assert_int_equal(mqss_policy_select(p, m, &so, &a), MQSS_OK);
    assert_int_equal(mqss_policy_select_budget(p, m, &so, &o, &b, &r), MQSS_OK);
    assert_string_equal(mqss_selection_pipeline(a), mqss_selection_pipeline(b));
    assert_int_equal(mqss_selection_count(a), mqss_selection_count(b));
    assert_int_equal(r.kept, 0);
    assert_int_equal(r.measured, 0); // nothing is measured at budget 0
    mqss_selection_destroy(a);
    mqss_selection_destroy(b);
    mqss_policy_destroy(p);
  }
  mqss_module_destroy(m);
  mqss_session_destroy(s);
}

static void test_budget_never_returns_a_wrong_pipeline(void **state) {
  (void)state;
  mqss_session *s = NULL;
  mqss_module *m = NULL;
  mqss_select_options so;
  open_jacobi(&s, &m, &so);
  // the premise: a random policy whose pure choice is the miscompile (the
  // first such seed; the seeds' choices move with the features and catalog)
  mqss_policy *p = NULL;
  mqss_selection *own = NULL, *sel = NULL;
  for (uint64_t seed = 1; seed <= 64; seed++) {
    mqss_policy_destroy(p);
    mqss_selection_destroy(own);
    own = NULL;
    p = random_policy(s, seed);
    assert_int_equal(mqss_policy_select(p, m, &so, &own), MQSS_OK);
    if (strstr(mqss_selection_pipeline(own), "super-vectorize"))
      break;
  }
  assert_non_null(strstr(mqss_selection_pipeline(own), "super-vectorize"));
  mqss_budget_options o = quick(4);
  mqss_budget_report r;
  assert_int_equal(mqss_policy_select_budget(p, m, &so, &o, &sel, &r), MQSS_OK);
  assert_int_equal(r.policy_ok, 0);
  assert_true(r.failed >= 1);
  assert_int_not_equal(r.kept, 0);
  const char *got = mqss_selection_pipeline(sel);
  assert_null(strstr(got, "super-vectorize"));
  // and the returned pipeline passes the output check
  mqss_measure_options mo;
  mqss_measure_options_init(&mo);
  mo.pipeline = got;
  mo.warmup = 0;
  mo.repeat = 1;
  mqss_measure_result mr;
  assert_int_equal(mqss_measure(m, &mo, &mr), MQSS_OK);
  assert_int_equal(mr.status, MQSS_MEASURE_OK);
  // A compile-time limit no proposal meets: none is kept, and the own
  // choice failed its check, so no passes.
  assert_true(o.max_compile == 4); // the default
  mqss_selection_destroy(sel);
  sel = NULL;
  o.max_compile = 1e-6;
  assert_int_equal(mqss_policy_select_budget(p, m, &so, &o, &sel, &r), MQSS_OK);
  assert_int_equal(r.kept, 2);
  assert_int_equal(mqss_selection_count(sel), 0);
  // every proposal that passed its check (none here) was over the limit
  assert_int_equal(r.slow, r.measured - 1 - r.failed);
  mqss_selection_destroy(sel);
  sel = NULL;
  o.max_compile = -1;
  assert_int_equal(mqss_policy_select_budget(p, m, &so, &o, &sel, &r),
                   MQSS_ERR_INVALID_ARG);
  assert_non_null(strstr(mqss_errmsg(s), "max_compile"));
  mqss_selection_destroy(own);
  mqss_selection_destroy(sel);
  mqss_policy_destroy(p);
  mqss_module_destroy(m);
  mqss_session_destroy(s);
}

// The compile-time limit with the default policy on a small matmul, whose
// proposals pass their check: without a limit none is over it; with one
// below any compile time, the same proposals are measured, every one that
// passed is over it and none is kept, and the reason says so.
static void test_budget_compile_limit(void **state) {
  (void)state;
  mqss_session *s = NULL;
  mqss_module *m = NULL;
  mqss_policy *p = NULL;
  assert_int_equal(mqss_session_create(&s), MQSS_OK);
  assert_int_equal(
      mqss_module_parse_file(s, INPUTS "search_matmul.mlir", &m), MQSS_OK);
  mqss_policy_options po;
  mqss_policy_options_init(&po);
  if (mqss_policy_load(s, MQSS_SOURCE_DIR "/models/default.safetensors", &po,
                       &p) != MQSS_OK)
    fail_msg("policy: %s", mqss_errmsg(s));
  mqss_select_options so;
  mqss_select_options_init(&so);
  mqss_budget_options o = quick(4);
  o.max_compile = 0;
  mqss_budget_report r0, r1;
  mqss_selection *sel = NULL;
  assert_int_equal(mqss_policy_select_budget(p, m, &so, &o, &sel, &r0), MQSS_OK);
  mqss_selection_destroy(sel);
  assert_int_equal(r0.slow, 0);
  assert_true(r0.policy_ok);
  int passed = r0.measured - 2 - r0.failed; // proposals that passed
  assert_true(passed >= 1);
  o.max_compile = 1e-6;
  assert_int_equal(mqss_policy_select_budget(p, m, &so, &o, &sel, &r1), MQSS_OK);
  mqss_selection_destroy(sel);
  assert_int_equal(r1.measured, r0.measured);
  assert_int_equal(r1.failed, r0.failed);
  assert_int_equal(r1.slow, passed);
  assert_int_not_equal(r1.kept, 1);
  assert_non_null(strstr(r1.reason, "compiled over"));
  mqss_policy_destroy(p);
  mqss_module_destroy(m);
  mqss_session_destroy(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_budget_zero_is_plain_select),
      cmocka_unit_test(test_budget_never_returns_a_wrong_pipeline),
      cmocka_unit_test(test_budget_compile_limit),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
