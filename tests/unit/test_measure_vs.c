// Unit tests of the paired comparison mqss_measure_vs(): both sides carry
// their own text_bytes, the ratio comes with its Hodges-Lehmann interval,
// and a side whose work kills the shared child gets the death while the
// other side keeps (or gets) a result of its own, never a copy; with
// compile_only each side is compiled several times and keeps its fastest.
// measure.h first: cmocka's fail() macro would clash with internal.h's fail().
#include "measure/measure.h"

#include "util/sanitized.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "check.h"

#include <signal.h>
#include <string.h>

#define INPUTS MQSS_SOURCE_DIR "/tests/lit/Inputs/"

// MLIR 19's affine-data-copy-generate dereferences a null pointer on the
// 0-d memref accesses of this module (tests/lit/measure_pass_crash.test).
#define CRASHING_MODULE INPUTS "pass_crash.mlir"
#define CRASHING_PIPELINE                                                      \
  "func.func(affine-data-copy-generate{generate-dma=false fast-mem-space=0})"

static mqss_module *parse_path(mqss_session *s, const char *path) {
  mqss_module *m = NULL;
  if (mqss_module_parse_file(s, path, &m) != MQSS_OK)
    fail_msg("parse failed: %s", mqss_errmsg(s));
  return m;
}

static mqss_measure_options quick(int pairs) {
  mqss_measure_options o;
  mqss_measure_options_init(&o);
  o.warmup = 1;
  o.repeat = pairs;
  o.code_size = 1;
  return o;
}

static void test_vs_sizes_and_interval(void **state) {
  mqss_module *m = parse_path(*state, INPUTS "measure_add.mlir");
  mqss_measure_options o = quick(8);
  o.pipeline = "func.func(convert-linalg-to-affine-loops)";
  mqss_measure_vs_result v;
  assert_int_equal(mqss_measure_vs(m, &o, "canonicalize", &v), MQSS_OK);
  assert_int_equal(v.a.status, MQSS_MEASURE_OK);
  assert_int_equal(v.b.status, MQSS_MEASURE_OK);
  // Each side is compiled and sized on its own.
  assert_true(v.a.text_bytes > 0);
  assert_true(v.b.text_bytes > 0);
  assert_int_equal(v.a.runs, 8);
  assert_int_equal(v.b.runs, 8);
  // The interval holds the estimate and lies within the observed ratios;
  // 8 pairs give coverage 1 - 10/256.
  assert_true(v.ratio_lo > 0);
  assert_true(v.ratio_lo <= v.ratio_hl && v.ratio_hl <= v.ratio_hi);
  assert_true(v.ratio_min <= v.ratio_lo * (1 + 1e-12) &&
              v.ratio_hi <= v.ratio_max * (1 + 1e-12));
  assert_float_equal(v.ratio_conf, 1.0 - 10.0 / 256.0, 1e-12);
  mqss_module_destroy(m);
}

static void assert_crashed(const mqss_measure_result *r) {
  assert_int_equal(r->status, MQSS_MEASURE_CRASHED);
  assert_int_equal(r->signal, SIGSEGV);
  assert_contains(r->message, "during pipeline");
}

static void test_vs_b_dies(void **state) {
  mqss_module *m = parse_path(*state, CRASHING_MODULE);
  mqss_measure_options o = quick(3);
  o.pipeline = "";
  mqss_measure_vs_result v;
  assert_int_equal(mqss_measure_vs(m, &o, CRASHING_PIPELINE, &v), MQSS_OK);
  assert_crashed(&v.b);
  // Both sides are compiled before either runs (the first run confines the
  // child), so B's crash came before A was checked: A is measured alone, in
  // a child of its own, and gets its own complete result.
  assert_int_equal(v.a.status, MQSS_MEASURE_OK);
  assert_true(v.a.text_bytes > 0);
  assert_true(v.a.compile_ms > 0);
  assert_int_equal(v.a.runs, 3);
  assert_true(v.a.run_ms_median > 0);
  assert_int_equal(v.a.signal, 0);
  assert_int_equal(v.pairs, 0);
  assert_true(v.ratio_hl == 0);
  mqss_module_destroy(m);
}

static void test_vs_a_dies(void **state) {
  mqss_module *m = parse_path(*state, CRASHING_MODULE);
  mqss_measure_options o = quick(3);
  o.pipeline = CRASHING_PIPELINE;
  mqss_measure_vs_result v;
  assert_int_equal(mqss_measure_vs(m, &o, "func.func(canonicalize)", &v),
                   MQSS_OK);
  assert_crashed(&v.a);
  // B was never reached by the dead child: it is measured alone.
  assert_int_equal(v.b.status, MQSS_MEASURE_OK);
  assert_int_equal(v.b.signal, 0);
  assert_string_equal(v.b.message, "");
  assert_int_equal(v.b.runs, 3);
  assert_true(v.b.run_ms_median > 0);
  assert_true(v.b.text_bytes > 0);
  assert_int_equal(v.pairs, 0);
  mqss_module_destroy(m);
}

static void test_vs_one_side_unparsable(void **state) {
  mqss_module *m = parse_path(*state, INPUTS "measure_add.mlir");
  mqss_measure_options o = quick(3);
  o.pipeline = "no-such-pass";
  mqss_measure_vs_result v;
  assert_int_equal(mqss_measure_vs(m, &o, "canonicalize", &v), MQSS_OK);
  assert_int_equal(v.a.status, MQSS_MEASURE_PARSE_ERROR);
  assert_contains(v.a.message, "no-such-pass");
  // B is really measured, not left as an empty "ok".
  assert_int_equal(v.b.status, MQSS_MEASURE_OK);
  assert_int_equal(v.b.runs, 3);
  assert_true(v.b.run_ms_median > 0);
  mqss_module_destroy(m);
}

// compile_only: each side compiled `repeat` times in the child, its fastest
// kept with its code size; nothing runs. A side that kills the child gets
// the death; the other keeps the compiles it had.
static void test_vs_compile_only(void **state) {
  mqss_module *m = parse_path(*state, INPUTS "measure_add.mlir");
  mqss_measure_options o = quick(4);
  o.compile_only = 1;
  o.check_reference = 0;
  o.pipeline = "func.func(convert-linalg-to-affine-loops)";
  mqss_measure_vs_result v;
  assert_int_equal(mqss_measure_vs(m, &o, "canonicalize", &v), MQSS_OK);
  const mqss_measure_result *side[2] = {&v.a, &v.b};
  for (int k = 0; k < 2; k++) {
    assert_int_equal(side[k]->status, MQSS_MEASURE_OK);
    assert_true(side[k]->text_bytes > 0);
    assert_true(side[k]->llvm_ms > 0);
    assert_float_equal(side[k]->compile_ms,
                       side[k]->pipeline_ms + side[k]->finish_ms +
                           side[k]->llvm_ms, 1e-9);
    assert_int_equal(side[k]->runs, 0);
  }
  assert_true(v.a.lowered_hash != v.b.lowered_hash);
  assert_int_equal(v.pairs, 0);
  assert_true(v.ratio_hl == 0);
  // the same text on both sides: B gets A's figures (ratio exactly 1)
  assert_int_equal(mqss_measure_vs(m, &o, o.pipeline, &v), MQSS_OK);
  assert_int_equal(v.b.status, MQSS_MEASURE_OK);
  assert_true(v.a.compile_ms > 0 && v.b.compile_ms == v.a.compile_ms);
  assert_int_equal(v.b.text_bytes, v.a.text_bytes);
  mqss_module_destroy(m);
  m = parse_path(*state, CRASHING_MODULE);
  o.pipeline = "func.func(canonicalize)";
  assert_int_equal(mqss_measure_vs(m, &o, CRASHING_PIPELINE, &v), MQSS_OK);
  assert_crashed(&v.b);
  assert_int_equal(v.a.status, MQSS_MEASURE_OK);
  assert_true(v.a.compile_ms > 0);
  assert_true(v.a.text_bytes > 0);
  mqss_module_destroy(m);
}

int main(void) {
#define T(name) cmocka_unit_test_setup_teardown(name, session_setup, session_teardown)
  const struct CMUnitTest tests[] = {
      T(test_vs_sizes_and_interval),
      T(test_vs_b_dies),
      T(test_vs_a_dies),
      T(test_vs_one_side_unparsable),
      T(test_vs_compile_only),
  };
#undef T
  return cmocka_run_group_tests(tests, NULL, NULL);
}
