// Unit tests of option checks at the library level (the CLI checks its own
// flags first): measurement options that used to be accepted silently (NaN
// tolerances, a core that does not exist, a missing shared library) and a
// selection length that used to end in "out of memory".
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "check.h"
#include "mqss/mqss.h"

#include <math.h>
#include <string.h>

static const char *ADD = "func.func @forward(%a: memref<4xf32>) {\n"
                         "  return\n"
                         "}\n";

static mqss_status measure_with(mqss_session *s, mqss_measure_options *o) {
  mqss_module *m = NULL;
  assert_int_equal(mqss_module_parse_string(s, ADD, strlen(ADD), NULL, &m),
                   MQSS_OK);
  mqss_measure_result r;
  o->no_cache = 1;
  mqss_status st = mqss_measure(m, o, &r);
  mqss_module_destroy(m);
  return st;
}

static void test_measure_options(void **state) {
  mqss_session *s = *state;
  mqss_measure_options o;
  mqss_measure_options_init(&o);
  o.rtol = NAN;
  assert_int_equal(measure_with(s, &o), MQSS_ERR_INVALID_ARG);
  assert_contains(mqss_errmsg(s), "finite non-negative tolerances");
  mqss_measure_options_init(&o);
  o.atol = INFINITY;
  assert_int_equal(measure_with(s, &o), MQSS_ERR_INVALID_ARG);

  mqss_measure_options_init(&o);
  o.cpu = 999999;
  assert_int_equal(measure_with(s, &o), MQSS_ERR_INVALID_ARG);
  assert_contains(mqss_errmsg(s), "cannot pin to cpu 999999");

  mqss_measure_options_init(&o);
  const char *libs[] = {"/nonexistent/libnothing.so"};
  o.shared_libs = libs;
  o.num_shared_libs = 1;
  assert_int_equal(measure_with(s, &o), MQSS_ERR_IO);
  assert_contains(mqss_errmsg(s), "cannot read shared library "
                                  "'/nonexistent/libnothing.so'");

  // The defaults still measure.
  mqss_measure_options_init(&o);
  o.repeat = 1;
  o.warmup = 0;
  o.cpu = 0;
  assert_int_equal(measure_with(s, &o), MQSS_OK);
}

static void test_select_max_steps(void **state) {
  mqss_session *s = *state;
  mqss_policy *p = NULL;
  assert_int_equal(mqss_policy_load(s, NULL, NULL, &p), MQSS_OK);
  mqss_module *m = NULL;
  assert_int_equal(mqss_module_parse_string(s, ADD, strlen(ADD), NULL, &m),
                   MQSS_OK);
  mqss_select_options o;
  mqss_select_options_init(&o);
  mqss_selection *sel = NULL;
  o.max_steps = MQSS_MAX_SELECT_STEPS + 1;
  assert_int_equal(mqss_policy_select(p, m, &o, &sel), MQSS_ERR_INVALID_ARG);
  assert_null(sel);
  assert_contains(mqss_errmsg(s), "select: max_steps 1025 is out of range");
  o.max_steps = -1;
  assert_int_equal(mqss_policy_select(p, m, &o, &sel), MQSS_ERR_INVALID_ARG);
  o.max_steps = 2;
  assert_int_equal(mqss_policy_select(p, m, &o, &sel), MQSS_OK);
  mqss_selection_destroy(sel);
  mqss_module_destroy(m);
  mqss_policy_destroy(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_measure_options, session_setup, session_teardown),
      cmocka_unit_test_setup_teardown(test_select_max_steps, session_setup, session_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
