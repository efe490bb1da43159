// Unit tests of training checkpoints: a round trip restores every bit of the
// weights, Adam state and counters; damaged or mismatched files are refused
// with a message naming the file.
#include "rl/checkpoint.h" // before cmocka: it defines a fail() macro

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static nn_model *model(uint64_t seed, int hidden) {
  nn_config cfg;
  nn_config_default(&cfg);
  cfg.arch = NN_ARCH_MLP;
  cfg.state_dim = 8;
  cfg.hidden_dim = hidden;
  cfg.n_actions = 3;
  cfg.param_count[0] = 2;
  return nn_model_create(&cfg, seed);
}

static void test_round_trip_and_errors(void **state) {
  (void)state;
  mqss_session *s;
  assert_int_equal(mqss_session_create(&s), MQSS_OK);
  char path[] = "/tmp/mqss_ckpt_XXXXXX";
  close(mkstemp(path));

  nn_model *a = model(1, 16);
  for (size_t i = 0; i < a->n_params; i++) { // distinct Adam moments
    a->m_memory[i] = (float)i * 0.5f;
    a->v_memory[i] = (float)i * 0.25f;
  }
  a->adam_t = 17;
  ckpt_state st = {.config_hash = 0xabc, .iteration = 5, .env_steps = 1280,
                   .rng = 0x1234567, .reward_ema = 0.25, .n_window = 3,
                   .window = {1, 2, 3}};
  assert_int_equal(ckpt_save(s, path, a, &st), MQSS_OK);

  nn_model *b = model(2, 16); // other weights, overwritten by the load
  ckpt_state got = {.config_hash = 0xabc};
  assert_int_equal(ckpt_load(s, path, b, &got), MQSS_OK);
  size_t n = a->n_params * sizeof(float);
  assert_memory_equal(a->params_memory, b->params_memory, n);
  assert_memory_equal(a->m_memory, b->m_memory, n);
  assert_memory_equal(a->v_memory, b->v_memory, n);
  assert_int_equal(b->adam_t, 17);
  assert_memory_equal(&st, &got, sizeof st);

  // Another config.
  got.config_hash = 0xabd;
  assert_int_not_equal(ckpt_load(s, path, b, &got), MQSS_OK);
  assert_contains(mqss_errmsg(s), "was written with another training config");

  // Another network shape.
  nn_model *c = model(1, 8);
  got.config_hash = 0xabc;
  assert_int_not_equal(ckpt_load(s, path, c, &got), MQSS_OK);
  assert_contains(mqss_errmsg(s), "parameters, the configured network has");

  // Truncated at every 97th byte.
  FILE *f = fopen(path, "rb");
  static char buf[1 << 16];
  size_t len = fread(buf, 1, sizeof buf, f);
  fclose(f);
  for (size_t cut = 0; cut < len; cut += 97) {
    f = fopen(path, "wb");
    fwrite(buf, 1, cut, f);
    fclose(f);
    assert_int_not_equal(ckpt_load(s, path, b, &got), MQSS_OK);
    assert_contains(mqss_errmsg(s), path);
  }

  // Not a checkpoint at all.
  f = fopen(path, "wb");
  fputs("this is not a checkpoint, just text long enough to fill a header", f);
  fclose(f);
  assert_int_not_equal(ckpt_load(s, path, b, &got), MQSS_OK);
  assert_contains(mqss_errmsg(s), "is not an mqss checkpoint");

  remove(path);
  nn_model_destroy(a);
  nn_model_destroy(b);
  nn_model_destroy(c);
  mqss_session_destroy(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_round_trip_and_errors)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
