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

#include <math.h>
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

// ----------------------------------------------------------------------------
// integrity: checksum, range checks, fall-back to PATH.prev

static size_t read_all(const char *path, char *buf, size_t cap) {
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  size_t len = fread(buf, 1, cap, f);
  assert_true(feof(f)); // the buffer held the whole file
  fclose(f);
  return len;
}

static void write_all(const char *path, const char *buf, size_t len) {
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(buf, 1, len, f), len);
  fclose(f);
}

static uint64_t xorshift(uint64_t *x) {
  *x ^= *x << 13;
  *x ^= *x >> 7;
  *x ^= *x << 17;
  return *x;
}

// Every single flipped bit is refused: every bit of the header and of the
// counters (the iteration among them), and thousands of random bits over the
// whole file (weights, Adam moments, padding, the checksum itself).
static void test_bit_flips_all_detected(void **state) {
  (void)state;
  mqss_session *s;
  assert_int_equal(mqss_session_create(&s), MQSS_OK);
  char path[] = "/tmp/mqss_ckpt_XXXXXX";
  close(mkstemp(path));
  nn_model *a = model(1, 16), *b = model(2, 16);
  ckpt_state st = {.config_hash = 0xabc, .iteration = 5, .env_steps = 1280,
                   .episodes = 40, .rng = 0x1234567, .reward_ema = 0.25,
                   .n_window = 3, .window = {1, 2, 3}};
  assert_int_equal(ckpt_save(s, path, a, &st), MQSS_OK);
  static char good[1 << 17], bad[1 << 17];
  size_t len = read_all(path, good, sizeof good);
  size_t n_bits = 8 * len;

  int flips = 0, accepted = 0;
  uint64_t rng = 0x9e3779b97f4a7c15ULL;
  size_t counters_end = 32 + offsetof(ckpt_state, window); // header + counters
  for (size_t k = 0; k < 8 * counters_end + 3000; k++) {
    size_t bit = k < 8 * counters_end ? k : xorshift(&rng) % n_bits;
    memcpy(bad, good, len);
    bad[bit / 8] ^= (char)(1u << (bit % 8));
    write_all(path, bad, len);
    ckpt_state got = {.config_hash = 0xabc};
    if (ckpt_load(s, path, b, &got) == MQSS_OK) {
      print_error("bit %zu (byte %zu) flipped and accepted\n", bit, bit / 8);
      accepted++;
    } else {
      assert_contains(mqss_errmsg(s), path);
    }
    flips++;
  }
  assert_int_equal(accepted, 0);
  assert_true(flips > 3000);

  // The damage is named: a flipped iteration bit fails the checksum.
  memcpy(bad, good, len);
  bad[32 + offsetof(ckpt_state, iteration)] ^= 0x40;
  write_all(path, bad, len);
  ckpt_state got = {.config_hash = 0xabc};
  assert_int_equal(ckpt_load(s, path, b, &got), MQSS_ERR_PARSE);
  assert_contains(mqss_errmsg(s), "is corrupt: its checksum does not match");
  remove(path);
  nn_model_destroy(a);
  nn_model_destroy(b);
  mqss_session_destroy(s);
}

// Intact files whose counters no run could write are refused too: an
// iteration of 0xFF.. used to erase the metrics history on resume.
static void test_out_of_range_fields(void **state) {
  (void)state;
  mqss_session *s;
  assert_int_equal(mqss_session_create(&s), MQSS_OK);
  char path[] = "/tmp/mqss_ckpt_XXXXXX";
  close(mkstemp(path));
  nn_model *a = model(1, 16);
  ckpt_state base = {.config_hash = 7, .iteration = 2, .rng = 1, .n_window = 1};
  ckpt_state st = base;
  st.iteration = -1;
  assert_int_equal(ckpt_save(s, path, a, &st), MQSS_OK);
  ckpt_state got = {.config_hash = 7};
  assert_int_equal(ckpt_load(s, path, a, &got), MQSS_ERR_PARSE);
  assert_contains(mqss_errmsg(s), "field 'iteration' is out of range");
  assert_int_equal(got.iteration, 0); // untouched

  st = base;
  st.n_window = CKPT_MAX_WINDOW + 1;
  assert_int_equal(ckpt_save(s, path, a, &st), MQSS_OK);
  assert_int_equal(ckpt_load(s, path, a, &got), MQSS_ERR_PARSE);
  assert_contains(mqss_errmsg(s), "field 'n_window' is out of range");

  st = base;
  a->params_memory[3] = NAN;
  assert_int_equal(ckpt_save(s, path, a, &st), MQSS_OK);
  assert_int_equal(ckpt_load(s, path, a, &got), MQSS_ERR_PARSE);
  assert_contains(mqss_errmsg(s), "field 'weights' is out of range");
  a->params_memory[3] = 0;

  assert_int_equal(ckpt_save(s, path, a, &base), MQSS_OK);
  assert_int_equal(ckpt_load(s, path, a, &got), MQSS_OK);
  assert_int_equal(got.iteration, 2);
  char prev[64];
  snprintf(prev, sizeof prev, "%s.prev", path);
  remove(path);
  remove(prev);
  nn_model_destroy(a);
  mqss_session_destroy(s);
}

// A damaged or missing checkpoint falls back to the one it replaced; two
// damaged ones refuse with what to do; a config mismatch never falls back.
static void test_resume_falls_back(void **state) {
  (void)state;
  mqss_session *s;
  assert_int_equal(mqss_session_create(&s), MQSS_OK);
  char path[] = "/tmp/mqss_ckpt_XXXXXX", prev[64];
  close(mkstemp(path));
  snprintf(prev, sizeof prev, "%s.prev", path);
  nn_model *a = model(1, 16), *b = model(2, 16);
  ckpt_state st = {.config_hash = 0xabc, .iteration = 5, .rng = 3};
  assert_int_equal(ckpt_save(s, path, a, &st), MQSS_OK);
  float w5 = a->params_memory[0];
  a->params_memory[0] += 1;
  st.iteration = 6;
  assert_int_equal(ckpt_save(s, path, a, &st), MQSS_OK);

  char note[2048];
  ckpt_state got = {.config_hash = 0xabc};
  assert_int_equal(ckpt_resume(s, path, b, &got, note, sizeof note), MQSS_OK);
  assert_int_equal(got.iteration, 6);
  assert_string_equal(note, "");

  // Damage the newest: iteration 5 and its weights come back, with a note.
  static char buf[1 << 17];
  size_t len = read_all(path, buf, sizeof buf);
  buf[len / 2] ^= 1;
  write_all(path, buf, len);
  got = (ckpt_state){.config_hash = 0xabc};
  assert_int_equal(ckpt_resume(s, path, b, &got, note, sizeof note), MQSS_OK);
  assert_int_equal(got.iteration, 5);
  assert_float_equal(b->params_memory[0], w5, 0);
  assert_contains(note, "checksum does not match");
  assert_contains(note, "resumed from the previous checkpoint");
  assert_contains(note, "(iteration 5)");

  // Killed between the two renames of a save: only PATH.prev exists.
  remove(path);
  got = (ckpt_state){.config_hash = 0xabc};
  assert_int_equal(ckpt_resume(s, path, b, &got, note, sizeof note), MQSS_OK);
  assert_int_equal(got.iteration, 5);

  // Both damaged: refused, naming both and what to do.
  write_all(path, buf, len);
  len = read_all(prev, buf, sizeof buf);
  buf[40] ^= 0x10;
  write_all(prev, buf, len);
  assert_int_equal(ckpt_resume(s, path, b, &got, note, sizeof note),
                   MQSS_ERR_PARSE);
  assert_contains(mqss_errmsg(s), "cannot resume: checkpoint '");
  assert_contains(mqss_errmsg(s), ".prev' is corrupt");
  assert_contains(mqss_errmsg(s), "start a new run");

  // Another config is the user's mistake, not damage: no fall-back.
  assert_int_equal(ckpt_save(s, path, a, &st), MQSS_OK);
  got = (ckpt_state){.config_hash = 0xabd};
  assert_int_equal(ckpt_resume(s, path, b, &got, note, sizeof note),
                   MQSS_ERR_INVALID_ARG);
  assert_contains(mqss_errmsg(s), "another training config");
  remove(path);
  remove(prev);
  nn_model_destroy(a);
  nn_model_destroy(b);
  mqss_session_destroy(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_round_trip_and_errors),
      cmocka_unit_test(test_bit_flips_all_detected),
      cmocka_unit_test(test_out_of_range_fields),
      cmocka_unit_test(test_resume_falls_back),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
