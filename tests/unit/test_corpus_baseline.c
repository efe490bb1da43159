// Unit tests of what `mqss baseline` relies on: a sample of generated modules
// (one per fast reference-pipeline family) measures `ok` under the reference
// pipeline with the output check on, and a compile-only measurement
// (mqss_measure_options.compile_only, used for the comp_time samples)
// compiles without running: no timed runs, no outputs, but a compile time,
// and it still reports a pipeline that does not parse.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "check.h"
#include "mqss/mqss.h"

#include <stdlib.h>
#include <string.h>

static mqss_module *emit_parse(mqss_session *s, const char *family, int index) {
  char *text = mqss_corpus_emit(family, 0, index);
  assert_non_null(text);
  mqss_module *m = NULL;
  assert_int_equal(
      mqss_module_parse_string(s, text, strlen(text), family, &m), MQSS_OK);
  free(text);
  return m;
}

// ----------------------------------------------------------------------------

static void test_sample_measures_ok_under_reference(void **state) {
  mqss_session *s = *state;
  static const char *families[] = {"poly_blas2", "gather_scatter",
                                   "recurrence"};
  for (int i = 0; i < 3; i++) {
    mqss_module *m = emit_parse(s, families[i], 3 + i);
    mqss_measure_options o;
    mqss_measure_options_init(&o);
    o.pipeline = "";
    o.warmup = 0;
    o.repeat = 1;
    o.code_size = 0;
    mqss_measure_result r;
    assert_int_equal(mqss_measure(m, &o, &r), MQSS_OK);
    if (r.status != MQSS_MEASURE_OK)
      fail_msg("%s: %s", families[i], r.message);
    assert_int_equal(r.runs, 1);
    assert_true(r.num_values > 0); // outputs were compared with the reference
    mqss_module_destroy(m);
  }
}

static void test_compile_only_does_not_run(void **state) {
  mqss_session *s = *state;
  mqss_module *m = emit_parse(s, "poly_blas2", 0);
  mqss_measure_options o;
  mqss_measure_options_init(&o);
  o.compile_only = 1;
  o.code_size = 0;
  mqss_measure_result r;
  assert_int_equal(mqss_measure(m, &o, &r), MQSS_OK);
  assert_int_equal(r.status, MQSS_MEASURE_OK);
  assert_int_equal(r.runs, 0);          // nothing timed
  assert_int_equal(r.num_values, 0);    // nothing run, nothing compared
  assert_true(r.compile_ms > 0);
  assert_true(r.jit_ms > 0);
  assert_int_equal(r.text_bytes, -1);   // sizing was off
  // The same module measured normally does run and compare.
  o.compile_only = 0;
  o.repeat = 2;
  o.warmup = 0;
  assert_int_equal(mqss_measure(m, &o, &r), MQSS_OK);
  assert_int_equal(r.status, MQSS_MEASURE_OK);
  assert_int_equal(r.runs, 2);
  assert_true(r.num_values > 0);
  // A pipeline that does not parse is still reported.
  o.compile_only = 1;
  o.pipeline = "no-such-pass";
  assert_int_equal(mqss_measure(m, &o, &r), MQSS_OK);
  assert_int_equal(r.status, MQSS_MEASURE_PARSE_ERROR);
  mqss_module_destroy(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_sample_measures_ok_under_reference,
                                      session_setup, session_teardown),
      cmocka_unit_test_setup_teardown(test_compile_only_does_not_run, session_setup,
                                      session_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
