// Unit tests of the train_config.yaml loader: the shipped file matches the
// built-in defaults, and every kind of bad input gets an error that names
// file:line:col and the key.
// Internal headers first: cmocka defines a fail() macro that would clash.
#include "rl/config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "check.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char path[64];

static int setup(void **state) {
  mqss_session *s = NULL;
  assert_int_equal(mqss_session_create(&s), MQSS_OK);
  *state = s;
  return 0;
}

static int teardown(void **state) {
  mqss_session_destroy(*state);
  remove(path);
  return 0;
}

static const char *write_yaml(const char *text) {
  snprintf(path, sizeof path, "/tmp/mqss_cfg_XXXXXX");
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  FILE *f = fdopen(fd, "w");
  fputs(text, f);
  fclose(f);
  return path;
}

static void test_shipped_file_matches_defaults(void **state) {
  train_config want, got;
  train_config_defaults(&want);
  memset(&got, 0x5a, sizeof got); // every field must be written by the file
  train_config_defaults(&got);
  // Load over poisoned numbers so a key missing from the file would show.
  got.num_workers = got.rollout_steps = got.iterations = -7;
  got.lr = got.gamma = got.w_runtime = -7.0f;
  mqss_status st = train_config_load(*state, MQSS_SOURCE_DIR "/data/train_config.yaml", &got);
  if (st != MQSS_OK)
    fail_msg("%s", mqss_errmsg(*state));
  assert_memory_equal(&want, &got, sizeof want);
}

static void test_overrides(void **state) {
  train_config c;
  train_config_defaults(&c);
  const char *p = write_yaml("rl:\n  lr: 0.001\n  num_workers: 4\npolicy:\n  arch: mlp\n");
  assert_int_equal(train_config_load(*state, p, &c), MQSS_OK);
  assert_float_equal(c.lr, 0.001f, 1e-9);
  assert_int_equal(c.num_workers, 4);
  assert_string_equal(c.arch, "mlp");
  assert_int_equal(c.rollout_steps, 256); // untouched default
}

static void expect_error(void **state, const char *yaml, const char *want) {
  train_config c;
  train_config_defaults(&c);
  const char *p = write_yaml(yaml);
  assert_int_not_equal(train_config_load(*state, p, &c), MQSS_OK);
  char where[96];
  snprintf(where, sizeof where, "%s:", p);
  assert_contains(mqss_errmsg(*state), where);
  assert_contains(mqss_errmsg(*state), want);
}

static void test_errors(void **state) {
  expect_error(state, "rl:\n  lr: 0.1\n  lrr: 0.1\n", ":3:3: key 'rl.lrr' is unknown (known keys:");
  expect_error(state, "rl:\n  num_workers: two\n", ":2:16: key 'rl.num_workers' is not a number");
  expect_error(state, "rl:\n  epochs: 1.5\n", "key 'rl.epochs' is not an integer");
  expect_error(state, "rl:\n  gamma: 1.5\n", "key 'rl.gamma' is out of range (discount: a number in [0, 1])");
  expect_error(state, "env:\n  target_device: gpu\n",
               ":2:18: key 'env.target_device' is not one of the allowed values (allowed: host)");
  expect_error(state, "rl:\n  algorithm: [ppo]\n", "key 'rl.algorithm' needs a single value");
  expect_error(state, "rl:\n  lr: 0.1\n lr: 2\n", ":3:");
  expect_error(state, "- a\n- b\n", "the top level must be a mapping");
  expect_error(state, "rl:\n  batch_size: 512\n", "rl.batch_size (512) exceeds rl.rollout_steps (256)");
}

static void test_format_lists_every_key(void **state) {
  (void)state;
  train_config c;
  train_config_defaults(&c);
  c.lr = 0.001f;
  char buf[4096];
  train_config_format(&c, buf, sizeof buf);
  assert_contains(buf, "rl.algorithm=ppo rl.num_workers=2 ");
  assert_contains(buf, " rl.lr=0.001 ");
  assert_contains(buf, " env.target_device=host ");
  assert_contains(buf, " policy.arch=gnn policy.hidden=128");
  char small[16];
  train_config_format(&c, small, sizeof small); // truncates, stays a string
  assert_int_equal(strlen(small), sizeof small - 1);
}

// 2 * timeout_ms * max_steps at the top of both ranges overflowed int.
static void test_task_timeout_saturates(void **state) {
  (void)state;
  train_config c;
  train_config_defaults(&c);
  c.timeout_ms = 1000;
  c.max_steps = 16;
  assert_int_equal(train_task_timeout_ms(&c), 32000);
  c.timeout_ms = 86400000; // the largest env.measure.timeout_ms
  c.max_steps = 256;       // the largest rl.max_steps
  assert_int_equal(train_task_timeout_ms(&c), INT_MAX);
  c.max_steps = 12; // 2,073,600,000 still fits
  assert_int_equal(train_task_timeout_ms(&c), 2073600000);
}

static void test_missing_file(void **state) {
  train_config c;
  assert_int_equal(train_config_load(*state, "/nonexistent.yaml", &c), MQSS_ERR_IO);
  assert_contains(mqss_errmsg(*state), "cannot open '/nonexistent.yaml'");
}

// The long run's committed config loads (every key known, in range) and
// keeps what docs/TRAINING.md promises: >= 28k PPO environment steps, a
// rotating subset of modules per round.
static void test_long_run_config(void **state) {
  train_config c;
  train_config_defaults(&c);
  mqss_status st = train_config_load(*state, MQSS_SOURCE_DIR "/configs/expit.yaml", &c);
  if (st != MQSS_OK)
    fail_msg("%s", mqss_errmsg(*state));
  long long steps = (long long)c.expit_rounds * c.expit_ppo_iterations * c.rollout_steps;
  if (steps < 28000)
    fail_msg("configs/expit.yaml gives %lld PPO steps (< 28k)", steps);
  assert_true(c.expit_modules_per_round > 0);
  assert_true(c.expit_holdout_every >= 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_shipped_file_matches_defaults, setup, teardown),
      cmocka_unit_test_setup_teardown(test_overrides, setup, teardown),
      cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
      cmocka_unit_test(test_format_lists_every_key),
      cmocka_unit_test_setup_teardown(test_missing_file, setup, teardown),
      cmocka_unit_test(test_task_timeout_saturates),
      cmocka_unit_test_setup_teardown(test_long_run_config, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
