// Unit tests of expit_round_modules (src/rl/expit_search.c), the rotating
// subset of training modules each expert-iteration round searches: every
// module is searched once before any is searched twice, a round never names a
// module twice, the subset depends on the seed and on nothing else, and 0 or
// a count >= n means every module.
// Internal headers first: cmocka defines a fail() macro that would clash.
#include "rl/expit_search.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "check.h"

#include <string.h>

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

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_all_modules),
      cmocka_unit_test(test_rotation_covers_every_module),
      cmocka_unit_test(test_seeded_and_deterministic),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
