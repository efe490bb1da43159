// Unit tests of targeted episodes (decisions scoped to one func.func): the
// env measures the transformed IR, and its outputs must be checked against
// the ORIGINAL module's reference, not against the transformed IR itself.
// The known jacobi-2d miscompile (tile 64 then vectorize 8, docs/DESIGN.md),
// applied to the kernel function only, must end as wrong_output with the -5
// success term; a harmless targeted pass stays ok. Also the measurement
// option behind it (reference_module), including a signature mismatch.
#include "env/env.h" // before cmocka: it defines a fail() macro

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "check.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define INPUTS MQSS_SOURCE_DIR "/tests/lit/Inputs/"

typedef struct {
  mqss_session *s;
  mqss_catalog *cat;
  mqss_env *env;
  mqss_module *m;
} fixture;

static void make_env(fixture *f, const char *catalog, const char *file) {
  assert_int_equal(mqss_session_create(&f->s), MQSS_OK);
  assert_int_equal(mqss_catalog_load(f->s, catalog, &f->cat), MQSS_OK);
  mqss_env_options o;
  mqss_env_options_init(&o);
  o.max_steps = 4;
  o.measure.warmup = 0;
  o.measure.repeat = 1;
  o.measure.code_size = 0;
  assert_int_equal(mqss_env_create(f->s, f->cat, &o, &f->env), MQSS_OK);
  if (mqss_module_parse_file(f->s, file, &f->m))
    fail_msg("%s", mqss_errmsg(f->s));
}

static void free_env(fixture *f) {
  mqss_env_destroy(f->env);
  mqss_module_destroy(f->m);
  mqss_catalog_destroy(f->cat);
  mqss_session_destroy(f->s);
}

static mqss_decision targeted(const mqss_catalog *c, const char *name, float u0,
                              const char *target) {
  mqss_decision d = {0};
  d.action = mqss_catalog_find(c, name);
  if (d.action < 0)
    fail_msg("no action %s in the catalog", name);
  d.u[0] = u0;
  d.target = target;
  return d;
}

static void step_applied(fixture *f, mqss_decision d, mqss_env_info *info) {
  mqss_env_obs obs;
  float r;
  int done;
  assert_int_equal(mqss_env_step(f->env, &d, &obs, &r, &done, info), MQSS_OK);
  assert_int_equal(info->status, MQSS_STEP_APPLIED);
}

static void finish(fixture *f, mqss_env_info *info) {
  mqss_env_obs obs;
  float r;
  int done;
  mqss_decision d = {.action = mqss_catalog_stop(f->cat)};
  assert_int_equal(mqss_env_step(f->env, &d, &obs, &r, &done, info), MQSS_OK);
  assert_int_equal(done, 1);
  assert_non_null(strstr(info->episode_pipeline, "(applied in process, targeted)"));
}

static void test_targeted_miscompile_caught(void **state) {
  (void)state;
  fixture f;
  // The shipped catalog blocks vectorizing strided loops; the measurement
  // must catch the miscompile in a catalog without that rule.
  char catalog[] = "/tmp/mqss_test_catalog_XXXXXX";
  int fd = mkstemp(catalog);
  assert_true(fd >= 0);
  close(fd);
  write_catalog_without(catalog, vectorize_rules, 2);
  make_env(&f, catalog, INPUTS "measure_jacobi_kernel.mlir");
  unlink(catalog);
  mqss_env_obs obs;
  assert_int_equal(mqss_env_reset(f.env, f.m, NULL, &obs), MQSS_OK);
  mqss_env_info info;
  // affine-tile u = 0.6: tile 64; affine-vectorize u = 0: V = 8
  // (test_env_episode.c), both on @kernel_jacobi_2d only.
  step_applied(&f, targeted(f.cat, "affine-tile", 0.6f, "kernel_jacobi_2d"), &info);
  assert_int_equal(info.params[0], 4);
  step_applied(&f, targeted(f.cat, "affine-vectorize", 0.0f, "kernel_jacobi_2d"),
               &info);
  finish(&f, &info);
  assert_int_equal(info.measure.status, MQSS_MEASURE_WRONG_OUTPUT);
  assert_true(info.measure.max_error > 0.1);
  assert_float_equal(info.terms.term[MQSS_REWARD_SUCCESS], -5.0, 0);
  free_env(&f);
}

static void test_targeted_harmless_ok(void **state) {
  (void)state;
  fixture f;
  make_env(&f, NULL, INPUTS "measure_jacobi_kernel.mlir");
  mqss_env_obs obs;
  assert_int_equal(mqss_env_reset(f.env, f.m, NULL, &obs), MQSS_OK);
  mqss_env_info info;
  step_applied(&f, targeted(f.cat, "affine-tile", -1.0f, "kernel_jacobi_2d"), &info);
  finish(&f, &info);
  assert_int_equal(info.measure.status, MQSS_MEASURE_OK);
  assert_true(info.measure.num_values > 0);
  assert_float_equal(info.terms.term[MQSS_REWARD_SUCCESS], 1.0, 0);
  free_env(&f);
}

// The option itself: a module checked against another one's reference.
static void test_reference_module_option(void **state) {
  (void)state;
  mqss_session *s;
  assert_int_equal(mqss_session_create(&s), MQSS_OK);
  mqss_module *a, *b, *c;
  // f(x) = x + 1 and g(x) = x + 2 with the same signature; h another one.
  const char *ta = "func.func @forward(%x: f32) -> f32 {\n"
                   "  %c = arith.constant 1.0 : f32\n"
                   "  %y = arith.addf %x, %c : f32\n  return %y : f32\n}\n";
  const char *tb = "func.func @forward(%x: f32) -> f32 {\n"
                   "  %c = arith.constant 2.0 : f32\n"
                   "  %y = arith.addf %x, %c : f32\n  return %y : f32\n}\n";
  const char *tc = "func.func @forward(%x: f64) -> f64 {\n  return %x : f64\n}\n";
  assert_int_equal(mqss_module_parse_string(s, ta, strlen(ta), "a.mlir", &a), MQSS_OK);
  assert_int_equal(mqss_module_parse_string(s, tb, strlen(tb), "b.mlir", &b), MQSS_OK);
  assert_int_equal(mqss_module_parse_string(s, tc, strlen(tc), "c.mlir", &c), MQSS_OK);
  mqss_measure_options o;
  mqss_measure_options_init(&o);
  o.warmup = 0;
  o.repeat = 1;
  o.code_size = 0;
  mqss_measure_result r;
  assert_int_equal(mqss_measure(b, &o, &r), MQSS_OK); // against itself
  assert_int_equal(r.status, MQSS_MEASURE_OK);
  o.reference_module = a; // against x + 1: off by one
  assert_int_equal(mqss_measure(b, &o, &r), MQSS_OK);
  assert_int_equal(r.status, MQSS_MEASURE_WRONG_OUTPUT);
  assert_float_equal(r.max_error, 1.0, 1e-6);
  o.reference_module = c;
  assert_int_equal(mqss_measure(b, &o, &r), MQSS_OK);
  assert_int_equal(r.status, MQSS_MEASURE_UNSUPPORTED);
  assert_non_null(strstr(r.message, "another signature"));
  mqss_module_destroy(a);
  mqss_module_destroy(b);
  mqss_module_destroy(c);
  mqss_session_destroy(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_targeted_miscompile_caught),
      cmocka_unit_test(test_targeted_harmless_ok),
      cmocka_unit_test(test_reference_module_option),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
