// Unit tests of parameter ranges (decision.c mapping, catalog.c loading):
// the mapping stays inside [min, max] and hits both ends for any int64_t
// range (a huge log-int max used to map u = +1 to the minimum), and the
// loader refuses ranges beyond MQSS_PARAM_MAX_ABS with file:line:col.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "check.h"
#include "mqss/mqss.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

// Maps u over [-1, 1] in 2001 steps: every value lies in [min, max], the
// sequence never decreases, and the ends are exactly min and max.
static void check_range(mqss_param_kind kind, int64_t min, int64_t max) {
  mqss_param p = {.name = "x", .kind = kind, .min = min, .max = max};
  int64_t prev = INT64_MIN;
  for (int i = 0; i <= 2000; i++) {
    float u = -1.0f + (float)i / 1000.0f;
    int64_t v = mqss_param_map(&p, u);
    if (v < min || v > max || v < prev)
      fail_msg("kind %d [%lld, %lld]: u=%g maps to %lld (previous %lld)",
               kind, (long long)min, (long long)max, u, (long long)v,
               (long long)prev);
    prev = v;
  }
  assert_int_equal(mqss_param_map(&p, -1.0f), min);
  assert_int_equal(mqss_param_map(&p, 1.0f), max);
  assert_int_equal(mqss_param_map(&p, 7.0f), max); // clipped
  assert_int_equal(mqss_param_map(&p, -7.0f), min);
}

static void test_extreme_ranges_map_inside(void **state) {
  (void)state;
  check_range(MQSS_PARAM_INT, INT64_MIN, INT64_MAX);
  check_range(MQSS_PARAM_INT, INT64_MAX - 3, INT64_MAX);
  check_range(MQSS_PARAM_INT, INT64_MIN, INT64_MIN + 5);
  check_range(MQSS_PARAM_INT, -5, 5);
  check_range(MQSS_PARAM_LOG_INT, 1, INT64_MAX);
  check_range(MQSS_PARAM_LOG_INT, INT64_MAX / 2, INT64_MAX);
  check_range(MQSS_PARAM_LOG_INT, 1, 1);
  check_range(MQSS_PARAM_LOG_INT, 2, 256);
  // The middle of a symmetric full range is near 0 (no wrap-around).
  mqss_param p = {.kind = MQSS_PARAM_INT, .min = INT64_MIN, .max = INT64_MAX};
  int64_t mid = mqss_param_map(&p, 0.0f);
  assert_true(mid > -(1LL << 12) && mid < (1LL << 12));
  // Geometric: the middle of [1, 2^62] is 2^31.
  p = (mqss_param){.kind = MQSS_PARAM_LOG_INT, .min = 1, .max = 1LL << 62};
  assert_int_equal(mqss_param_map(&p, 0.0f), 1LL << 31);
}

// Loads a one-action catalog whose parameter has `min` and `max`; stores
// the 1-based columns of those two values (on line 8) in col[0], col[1].
static mqss_status load_range(mqss_session *s, const char *kind,
                              const char *min, const char *max, char *path,
                              int col[2]) {
  strcpy(path, "/tmp/mqss_catalog_XXXXXX");
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  FILE *f = fdopen(fd, "w");
  char line[256];
  snprintf(line, sizeof line, "      - {name: F, kind: %s, min: %s, max: %s}\n",
           kind, min, max);
  col[0] = (int)(strstr(line, "min: ") - line) + 6;
  col[1] = (int)(strstr(line, "max: ") - line) + 6;
  fprintf(f, "version: 1\n"
             "actions:\n"
             "  - name: stop\n"
             "    stop: true\n"
             "  - name: iterate\n"
             // An int64_t option: loading also parses the pipeline at both
             // ends of the range, which an unsigned option would refuse.
             "    pipeline: \"canonicalize{max-iterations=$F}\"\n"
             "    params:\n"
             "%s", line);
  fclose(f);
  mqss_catalog *c = NULL;
  mqss_status st = mqss_catalog_load(s, path, &c);
  mqss_catalog_destroy(c);
  unlink(path);
  return st;
}

static void test_loader_refuses_huge_ranges(void **state) {
  mqss_session *s = *state;
  char path[64], where[256];
  int col[2];
  assert_int_equal(load_range(s, "log-int", "1", "9223372036854775807", path, col),
                   MQSS_ERR_PARSE);
  snprintf(where, sizeof where, "%s:8:%d: parameter 'F': min and max must "
           "lie within +-9007199254740992 (2^53)", path, col[1]);
  assert_contains(mqss_errmsg(s), where);
  assert_int_equal(load_range(s, "int", "-9007199254740993", "0", path, col),
                   MQSS_ERR_PARSE);
  snprintf(where, sizeof where, "%s:8:%d: parameter 'F': min and max", path,
           col[0]);
  assert_contains(mqss_errmsg(s), where);
  // Beyond int64_t at all: not an integer.
  assert_int_equal(load_range(s, "int", "1", "99999999999999999999", path, col),
                   MQSS_ERR_PARSE);
  assert_contains(mqss_errmsg(s), "expected an integer, got '99999999999999999999'");
  // The limit itself is fine.
  assert_int_equal(load_range(s, "log-int", "1", "9007199254740992", path, col),
                   MQSS_OK);
  assert_int_equal(load_range(s, "int", "-9007199254740992", "9007199254740992",
                              path, col),
                   MQSS_OK);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_extreme_ranges_map_inside),
      cmocka_unit_test_setup_teardown(test_loader_refuses_huge_ranges, session_setup, session_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
