// Unit tests of expit_round_modules (src/rl/expit_search.c), the rotating
// subset of training modules each expert-iteration round searches: every
// module is searched once before any is searched twice, a round never names a
// module twice, the subset depends on the seed and on nothing else, and 0 or
// a count >= n means every module. And of winners.tsv: what
// expit_winners_save writes, expit_winners_load reads back exactly. And
// expit_confirms, the rule that confirms a winner against its seed.
// Internal headers first: cmocka defines a fail() macro that would clash.
#define _GNU_SOURCE
#include "rl/expit_search.h"

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

enum { N = 23 };

static void test_all_modules(void **state) {
  (void)state;
  int out[N];
  for (int per_round = 0; per_round <= N + 5; per_round += N) {
    assert_int_equal(expit_round_modules(N, per_round, 7, 3, out), N);
    for (int i = 0; i < N; i++)
      assert_int_equal(out[i], i);
  }
}

// Consecutive rounds of m modules take consecutive windows of one
// permutation: the first floor(N/m) rounds name distinct modules, the first
// ceil(N/m) name them all, and the rotation repeats after N rounds.
static void test_rotation_covers_every_module(void **state) {
  (void)state;
  for (int m = 1; m < N; m++) {
    int seen[N] = {0}, out[N], again[N];
    for (int round = 0; round < (N + m - 1) / m; round++) {
      assert_int_equal(expit_round_modules(N, m, 11, round, out), m);
      for (int k = 0; k < m; k++) {
        assert_in_range(out[k], 0, N - 1);
        if (k > 0) // ascending: no module twice in a round
          assert_true(out[k - 1] < out[k]);
        if (round < N / m) // disjoint until the window wraps
          assert_int_equal(seen[out[k]], 0);
        seen[out[k]]++;
      }
      expit_round_modules(N, m, 11, round + N, again);
      assert_memory_equal(out, again, (size_t)m * sizeof *out);
    }
    for (int i = 0; i < N; i++)
      assert_true(seen[i] > 0);
  }
}

static void test_seeded_and_deterministic(void **state) {
  (void)state;
  int a[N], b[N], c[N];
  int differ = 0;
  for (int round = 0; round < 4; round++) {
    expit_round_modules(N, 5, 1, round, a);
    expit_round_modules(N, 5, 1, round, b);
    expit_round_modules(N, 5, 2, round, c);
    assert_memory_equal(a, b, 5 * sizeof *a);
    differ += memcmp(a, c, 5 * sizeof *a) != 0;
  }
  assert_true(differ > 0); // another seed, another rotation
}

// Decisions keep their action, parameters (exact), op and peel flag.
static void test_winners_round_trip(void **state) {
  (void)state;
  mqss_session *s = NULL;
  assert_int_equal(mqss_session_create(&s), MQSS_OK);
  static expit_winner w[3], back[3];
  w[0] = (expit_winner){.n = -1};
  w[1] = (expit_winner){.n = 0, .speedup = 1.0};
  w[2] = (expit_winner){.n = 3, .speedup = 2.25};
  w[2].d[0] = (mqss_decision){.action = 4, .u = {0.125f, -1.0f / 3}};
  w[2].d[1] = (mqss_decision){.action = 7, .u = {-0.5f}, .op = 12};
  w[2].d[2] = (mqss_decision){.action = 7, .u = {0.75f}, .op = 9, .peel = 1};
  snprintf(w[2].pipeline, sizeof w[2].pipeline, "builtin.module(inline)");
  char path[] = "/tmp/mqss_winners_XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  assert_int_equal(expit_winners_save(s, path, w, 3), MQSS_OK);
  for (int i = 0; i < 3; i++)
    back[i] = (expit_winner){.n = -1};
  assert_int_equal(expit_winners_load(s, path, back, 3), MQSS_OK);
  unlink(path);
  assert_int_equal(back[0].n, -1);
  assert_int_equal(back[1].n, 0);
  assert_int_equal(back[2].n, 3);
  assert_true(back[2].speedup == 2.25);
  assert_string_equal(back[2].pipeline, "builtin.module(inline)");
  for (int k = 0; k < 3; k++) {
    assert_int_equal(back[2].d[k].action, w[2].d[k].action);
    assert_memory_equal(back[2].d[k].u, w[2].d[k].u, sizeof w[2].d[k].u);
    assert_int_equal(back[2].d[k].op, w[2].d[k].op);
    assert_int_equal(back[2].d[k].peel, w[2].d[k].peel);
  }
  mqss_session_destroy(s);
}

// expit_confirms: the seed margin on the interval's lower bound, then the
// compile-time limit against the seed's compile time; a failed seed
// confirms, a failed winner never does.
static void test_confirms(void **state) {
  (void)state;
  mqss_measure_vs_result vs;
  memset(&vs, 0, sizeof vs);
  vs.a.status = vs.b.status = MQSS_MEASURE_OK;
  vs.ratio_lo = 1.10;
  vs.a.compile_ms = 125;
  vs.b.compile_ms = 100;
  assert_true(expit_confirms(&vs, 0.05, 0));     // no limit
  assert_false(expit_confirms(&vs, 0.15, 0));    // 1.10 < 1.15
  assert_false(expit_confirms(&vs, 0.05, 0.10)); // compiles 1.25x
  assert_true(expit_confirms(&vs, 0.05, 0.30));
  vs.a.compile_ms = 110;
  assert_true(expit_confirms(&vs, 0.05, 0.10)); // exactly at the limit
  vs.b.status = MQSS_MEASURE_TIMEOUT;
  vs.a.compile_ms = 500;
  assert_true(expit_confirms(&vs, 0.05, 0.10)); // the seed failed
  vs.a.status = MQSS_MEASURE_WRONG_OUTPUT;
  assert_false(expit_confirms(&vs, 0.05, 0));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_confirms),
      cmocka_unit_test(test_all_modules),
      cmocka_unit_test(test_rotation_covers_every_module),
      cmocka_unit_test(test_seeded_and_deterministic),
      cmocka_unit_test(test_winners_round_trip),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
