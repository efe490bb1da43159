// Tests of the per-process reference-output table of the measurement
// harness (src/measure/measure.c): a reference computed by one checked
// measurement is reused by later ones of the same module, and reuse never
// hides a wrong output nor leaks across modules or input seeds. It does not
// test the SQLite cache (test_measure_cache.c).
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "check.h"

#include "mqss/mqss.h"

#include <string.h>

#define INPUTS MQSS_SOURCE_DIR "/tests/lit/Inputs/"


static mqss_module *parse_path(mqss_session *s, const char *path) {
  mqss_module *m = NULL;
  if (mqss_module_parse_file(s, path, &m) != MQSS_OK)
    fail_msg("parse failed: %s", mqss_errmsg(s));
  return m;
}

static mqss_measure_result run(mqss_module *m, const char *pipeline,
                               uint64_t seed, int no_sandbox) {
  mqss_measure_options o;
  mqss_measure_options_init(&o);
  o.warmup = 0;
  o.repeat = 1;
  o.code_size = 0;
  o.timeout_ms = 20000;
  o.pipeline = pipeline;
  o.seed = seed;
  o.no_sandbox = no_sandbox;
  mqss_measure_result r;
  assert_int_equal(mqss_measure(m, &o, &r), MQSS_OK);
  return r;
}

#define GOOD "func.func(affine-loop-tile{tile-size=64})"
// The known vectorizer miscompile of the Jacobi stencil (docs/DESIGN.md).
#define BAD "func.func(affine-loop-tile{tile-size=64}," \
            "affine-super-vectorize{virtual-vector-size=8})"

// A good pipeline first (the reference is computed and kept), then the
// miscompile against the kept reference: still wrong_output, sandboxed and
// in process, and the good pipeline still passes afterwards.
static void test_reused_reference_catches_miscompile(void **state) {
  mqss_module *m = parse_path(*state, INPUTS "measure_jacobi_kernel.mlir");
  mqss_measure_result r = run(m, GOOD, 7, 0);
  assert_int_equal(r.status, MQSS_MEASURE_OK);
  uint64_t good = r.checksum;
  for (int no_sandbox = 0; no_sandbox < 2; no_sandbox++) {
    r = run(m, BAD, 7, no_sandbox);
    assert_int_equal(r.status, MQSS_MEASURE_WRONG_OUTPUT);
    assert_true(r.max_error > 0.1);
    r = run(m, GOOD, 7, no_sandbox);
    assert_int_equal(r.status, MQSS_MEASURE_OK);
    assert_true(r.checksum == good);
    assert_true(r.max_error == 0);
  }
  mqss_module_destroy(m);
}

// Other seeds and other modules get their own reference: were a kept
// reference reused for them, the correct pipeline would compare against
// outputs of other inputs and be reported wrong_output.
static void test_reference_keyed_by_seed_and_module(void **state) {
  mqss_module *a = parse_path(*state, INPUTS "measure_add.mlir");
  mqss_module *j = parse_path(*state, INPUTS "measure_jacobi_kernel.mlir");
  const char *lower = "func.func(convert-linalg-to-affine-loops)";
  uint64_t sum[3];
  for (int seed = 1; seed <= 3; seed++) {
    mqss_measure_result r = run(a, lower, (uint64_t)seed, 0);
    assert_int_equal(r.status, MQSS_MEASURE_OK);
    sum[seed - 1] = r.checksum;
    r = run(j, GOOD, (uint64_t)seed + 100, 0);
    assert_int_equal(r.status, MQSS_MEASURE_OK);
  }
  assert_true(sum[0] != sum[1] && sum[1] != sum[2]);
  // seed 1 again: its reference is reused and matches
  mqss_measure_result r = run(a, lower, 1, 0);
  assert_int_equal(r.status, MQSS_MEASURE_OK);
  assert_true(r.checksum == sum[0]);
  mqss_module_destroy(a);
  mqss_module_destroy(j);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_reused_reference_catches_miscompile,
                                      session_setup, session_teardown),
      cmocka_unit_test_setup_teardown(test_reference_keyed_by_seed_and_module,
                                      session_setup, session_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
