// Unit tests of environment episodes, with real (small, cached) sandboxed
// measurements: the observation, the end of an episode at STOP and at
// max_steps, a blocked action skipped with reward 0, a failing pass reverted
// with the step penalty, the known jacobi-2d miscompile (tile 64 then
// vectorize 8, docs/DESIGN.md) earning the -5 success term, and the perf notice
// given once.
#include "env/env.h" // before cmocka: it defines a fail() macro

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define INPUTS MQSS_SOURCE_DIR "/tests/lit/Inputs/"

typedef struct {
  mqss_session *s;
  mqss_catalog *cat;
  mqss_env *env;
  mqss_module *m;
  char dir[64];
} fixture;

static char cache_dir[64];

static void make_env(fixture *f, const char *catalog, const char *file,
                     int max_steps) {
  assert_int_equal(mqss_session_create(&f->s), MQSS_OK);
  assert_int_equal(mqss_catalog_load(f->s, catalog, &f->cat), MQSS_OK);
  mqss_env_options o;
  mqss_env_options_init(&o);
  o.max_steps = max_steps;
  o.measure.warmup = 0;
  o.measure.repeat = 1;
  char cache[128];
  snprintf(cache, sizeof cache, "%s/cache.db", cache_dir);
  o.measure.cache_path = cache; // copied by create
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

static int feature_index(const char *name) {
  for (int i = 0; i < MQSS_FEATURE_DIM; i++)
    if (!strcmp(mqss_feature_name(i), name))
      return i;
  fail_msg("no feature %s", name);
  return -1;
}

static mqss_decision decide(const mqss_catalog *c, const char *name, float u0,
                            float u1) {
  mqss_decision d = {0};
  d.action = mqss_catalog_find(c, name);
  if (d.action < 0)
    fail_msg("no action %s in the catalog", name);
  d.u[0] = u0;
  d.u[1] = u1;
  return d;
}

// ----------------------------------------------------------------------------
// tests

// STOP at once: the plain finisher is measured and is ok (+1 success).
static void test_stop_ends(void **state) {
  (void)state;
  fixture f;
  make_env(&f, NULL, INPUTS "measure_jacobi_kernel.mlir", 16);
  mqss_env_obs obs;
  if (mqss_env_reset(f.env, f.m, NULL, &obs))
    fail_msg("%s", mqss_errmsg(f.s));
  const mqss_env_baseline *b = mqss_env_get_baseline(f.env);
  assert_non_null(b);
  assert_true(b->comp_time > 0 && b->run_time > 0 && b->size > 0);
  // observation
  assert_int_equal(obs.step, 0);
  assert_non_null(obs.graph);
  assert_true(obs.graph->n_nodes > 10);
  assert_int_equal(obs.mask[mqss_catalog_stop(f.cat)], 1);
  assert_int_equal(obs.mask[mqss_catalog_find(f.cat, "bufferize")], 0);
  assert_int_equal(obs.mask[mqss_catalog_find(f.cat, "affine-tile")], 1);
  float want[MQSS_FEATURE_DIM];
  assert_int_equal(mqss_features(f.m, f.cat, NULL, 0, 16, want), MQSS_OK);
  assert_memory_equal(obs.state, want, sizeof want);

  mqss_decision d = decide(f.cat, "stop", 0, 0);
  float r = 0;
  int done = 0;
  mqss_env_info info;
  assert_int_equal(mqss_env_step(f.env, &d, &obs, &r, &done, &info), MQSS_OK);
  assert_int_equal(done, 1);
  assert_int_equal(info.status, MQSS_STEP_STOP);
  assert_string_equal(info.episode_pipeline, "");
  assert_int_equal(info.measure.status, MQSS_MEASURE_OK);
  assert_float_equal(info.terms.term[MQSS_REWARD_SUCCESS], 1.0, 0);
  assert_float_equal(r, info.terms.total, 1e-6);
  // perf: a notice exactly when the counters are unavailable, on step 1
  assert_int_equal(info.notice, !info.perf_available);
  if (!info.perf_available)
    assert_non_null(strstr(mqss_env_notice(f.env), "perf counters unavailable"));
  // the episode is over
  assert_int_equal(mqss_env_step(f.env, &d, &obs, &r, &done, &info),
                   MQSS_ERR_INVALID_ARG);
  // a second episode: the notice is not repeated
  assert_int_equal(mqss_env_reset(f.env, f.m, NULL, &obs), MQSS_OK);
  assert_int_equal(mqss_env_step(f.env, &d, &obs, &r, &done, &info), MQSS_OK);
  assert_int_equal(info.notice, 0);
  free_env(&f);
}

// max_steps 2: not done after one step, done after the second; blocked
// actions are skipped with reward 0 and leave the IR as it was.
static void test_max_steps_and_blocked(void **state) {
  (void)state;
  fixture f;
  make_env(&f, NULL, INPUTS "measure_jacobi_kernel.mlir", 2);
  mqss_env_obs obs;
  assert_int_equal(mqss_env_reset(f.env, f.m, NULL, &obs), MQSS_OK);
  uint64_t h0 = mqss_module_hash(obs.module);
  int i_step = feature_index("ctx.step");

  mqss_decision d = decide(f.cat, "bufferize", 0, 0); // no tensors here
  float r = 99;
  int done = 1;
  mqss_env_info info;
  assert_int_equal(mqss_env_step(f.env, &d, &obs, &r, &done, &info), MQSS_OK);
  assert_int_equal(info.status, MQSS_STEP_BLOCKED);
  assert_float_equal(r, 0.0f, 0);
  assert_int_equal(done, 0);
  assert_true(strlen(info.reason) > 0);
  assert_true(mqss_module_hash(obs.module) == h0);
  assert_int_equal(obs.step, 1);
  assert_float_equal(obs.state[i_step], 0.5f, 1e-6);

  d = decide(f.cat, "affine-unroll", -1, 0); // factor 2
  assert_int_equal(mqss_env_step(f.env, &d, &obs, &r, &done, &info), MQSS_OK);
  assert_int_equal(info.status, MQSS_STEP_APPLIED);
  assert_int_equal(info.params[0], 2);
  assert_int_equal(done, 1);
  assert_true(mqss_module_hash(obs.module) != h0);
  assert_string_equal(info.episode_pipeline,
                      "builtin.module(func.func(affine-loop-unroll"
                      "{unroll-factor=2}))");
  assert_int_equal(info.measure.status, MQSS_MEASURE_OK);
  // reward = shaping of the step + final total
  assert_float_equal(r, info.shaping + info.terms.total, 1e-5);
  free_env(&f);
}

// Tile 64 then vectorize 8 on jacobi-2d gives wrong output: -5 success.
// The shipped catalog blocks vectorizing strided loops for this reason; in
// a catalog without that rule the measurement must still catch it.
static void test_wrong_output(void **state) {
  (void)state;
  fixture f;
  char catalog[128];
  snprintf(catalog, sizeof catalog, "%s/no_strided_rule.yaml", cache_dir);
  write_catalog_without(catalog, vectorize_rules, 2);
  make_env(&f, catalog, INPUTS "measure_jacobi_kernel.mlir", 16);
  mqss_env_obs obs;
  assert_int_equal(mqss_env_reset(f.env, f.m, NULL, &obs), MQSS_OK);
  float r;
  int done;
  mqss_env_info info;
  // T: choice of 4..128; u = 0.6 is index floor(0.8 * 6) = 4, tile 64
  mqss_decision d = decide(f.cat, "affine-tile", 0.6f, 0);
  assert_int_equal(mqss_env_step(f.env, &d, &obs, &r, &done, &info), MQSS_OK);
  assert_int_equal(info.status, MQSS_STEP_APPLIED);
  assert_int_equal(info.params[0], 4);
  assert_non_null(strstr(info.pipeline, "tile-size=64"));
  d = decide(f.cat, "affine-vectorize", 0.0f, 0); // V = 8
  assert_int_equal(mqss_env_step(f.env, &d, &obs, &r, &done, &info), MQSS_OK);
  assert_int_equal(info.status, MQSS_STEP_APPLIED);
  assert_int_equal(info.params[0], 8);
  d = decide(f.cat, "stop", 0, 0);
  assert_int_equal(mqss_env_step(f.env, &d, &obs, &r, &done, &info), MQSS_OK);
  assert_int_equal(done, 1);
  assert_int_equal(info.measure.status, MQSS_MEASURE_WRONG_OUTPUT);
  assert_float_equal(info.terms.term[MQSS_REWARD_SUCCESS], -5.0, 0);
  assert_float_equal(r, 0.3 * -5.0, 1e-6); // STOP has no shaping, no gains
  free_env(&f);
}

// With the shipped catalog the same tile leaves strided loops, and the
// mask blocks the vectorize step that would miscompile them.
static void test_strided_vectorize_blocked(void **state) {
  (void)state;
  fixture f;
  make_env(&f, NULL, INPUTS "measure_jacobi_kernel.mlir", 16);
  mqss_env_obs obs;
  assert_int_equal(mqss_env_reset(f.env, f.m, NULL, &obs), MQSS_OK);
  int vectorize = mqss_catalog_find(f.cat, "affine-vectorize");
  assert_int_equal(obs.mask[vectorize], 1);
  float r;
  int done;
  mqss_env_info info;
  mqss_decision d = decide(f.cat, "affine-tile", 0.6f, 0);
  assert_int_equal(mqss_env_step(f.env, &d, &obs, &r, &done, &info), MQSS_OK);
  assert_int_equal(info.status, MQSS_STEP_APPLIED);
  assert_int_equal(obs.mask[vectorize], 0);
  free_env(&f);
}

// A pass that fails is reverted and earns the step penalty.
static void test_failed_step(void **state) {
  (void)state;
  char path[128];
  snprintf(path, sizeof path, "%s/bad.yaml", cache_dir);
  FILE *fp = fopen(path, "w");
  assert_non_null(fp);
  fputs("version: 1\nactions:\n  - name: stop\n    stop: true\n"
        "  - name: bad\n    pipeline: \"convert-affine-for-to-gpu\"\n"
        "    anchor: func.func\n",
        fp);
  fclose(fp);
  fixture f;
  make_env(&f, path, INPUTS "measure_jacobi_kernel.mlir", 4);
  mqss_env_obs obs;
  assert_int_equal(mqss_env_reset(f.env, f.m, NULL, &obs), MQSS_OK);
  uint64_t h0 = mqss_module_hash(obs.module);
  float r;
  int done;
  mqss_env_info info;
  mqss_decision d = decide(f.cat, "bad", 0, 0);
  assert_int_equal(mqss_env_step(f.env, &d, &obs, &r, &done, &info), MQSS_OK);
  assert_int_equal(info.status, MQSS_STEP_FAILED);
  assert_float_equal(r, -1.0f, 0);
  // The pass fails on this IR (it wants perfectly nested loops).
  assert_non_null(strstr(info.reason, "perfectly nested"));
  assert_true(mqss_module_hash(obs.module) == h0);
  assert_int_equal(done, 0);
  free_env(&f);
}

static int setup(void **state) {
  (void)state;
  snprintf(cache_dir, sizeof cache_dir, "/tmp/mqss_test_env_XXXXXX");
  return mkdtemp(cache_dir) ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", cache_dir);
  return system(cmd) == 0 ? 0 : -1;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_stop_ends),
      cmocka_unit_test(test_max_steps_and_blocked),
      cmocka_unit_test(test_wrong_output),
      cmocka_unit_test(test_strided_vectorize_blocked),
      cmocka_unit_test(test_failed_step),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
