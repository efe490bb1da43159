// Unit tests of the deployment metrics log (src/policy/metrics_log.c): a
// formatted line is one JSON object with the record's values and a checksum
// that mqss_metrics_line_check accepts; any edited, torn or foreign line is
// rejected; appends add whole lines; an unwritable path is an IO error that
// names it.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "check.h"
#include "mqss/mqss.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static mqss_metrics_record sample(void) {
  mqss_metrics_record r;
  mqss_metrics_record_init(&r);
  r.tool = "test";
  r.source = "a \"quoted\" name.mlir";
  r.module_hash = 0x0123456789abcdefULL;
  r.selector = 1;
  r.chosen = "builtin.module(cse)";
  r.decisions = 1;
  r.pipeline = "builtin.module(cse)";
  r.decision_ms = 2.5;
  r.time_budget_ms = 0;
  r.budget_hit = 1;
  r.guarded = 1;
  r.verdict = "ok";
  r.speedup = 1.25;
  return r;
}

static void test_format_fields(void **state) {
  (void)state;
  mqss_metrics_record r = sample();
  char *line = mqss_metrics_format(&r);
  assert_non_null(line);
  size_t n = strlen(line);
  assert_true(n > 2 && line[n - 1] == '\n' && !strchr(line, '\n')[1]);
  cJSON *j = cJSON_Parse(line);
  assert_non_null(j);
  assert_string_equal(cJSON_GetObjectItem(j, "module")->valuestring,
                      "0123456789abcdef");
  assert_string_equal(cJSON_GetObjectItem(j, "source")->valuestring,
                      "a \"quoted\" name.mlir");
  assert_true(cJSON_IsTrue(cJSON_GetObjectItem(j, "budget_hit")));
  assert_int_equal(cJSON_GetObjectItem(j, "time_budget_ms")->valueint, 0);
  assert_true(cJSON_GetObjectItem(j, "speedup")->valuedouble == 1.25);
  assert_true(cJSON_IsNull(cJSON_GetObjectItem(j, "speedup_lo")));
  assert_true(cJSON_IsNull(cJSON_GetObjectItem(j, "fallback_reason")));
  assert_int_equal(cJSON_GetObjectItem(j, "v")->valueint, MQSS_METRICS_FORMAT);
  cJSON_Delete(j);
  mqss_metrics_record_init(&r); // no budget: null
  char *plain = mqss_metrics_format(&r);
  assert_contains(plain, "\"time_budget_ms\":null");
  free(plain);
  free(line);
}

static void test_check_detects_damage(void **state) {
  (void)state;
  mqss_metrics_record r = sample();
  char *line = mqss_metrics_format(&r);
  size_t n = strlen(line);
  assert_int_equal(mqss_metrics_line_check(line, n), 1);
  assert_int_equal(mqss_metrics_line_check(line, n - 1), 1); // no newline
  // Every single-byte edit before the checksum is caught.
  for (size_t i = 0; i + 30 < n; i++) {
    line[i] ^= 0x01;
    if (mqss_metrics_line_check(line, n))
      fail_msg("edit at byte %zu not detected: %s", i, line);
    line[i] ^= 0x01;
  }
  assert_int_equal(mqss_metrics_line_check(line, n / 2), 0); // torn
  assert_int_equal(mqss_metrics_line_check("{}", 2), 0);
  assert_int_equal(mqss_metrics_line_check("", 0), 0);
  assert_int_equal(mqss_metrics_line_check(NULL, 0), 0);
  free(line);
}

static void test_append(void **state) {
  mqss_session *s = *state;
  char path[64];
  snprintf(path, sizeof path, "/tmp/mqss-test-metrics-%d.jsonl", (int)getpid());
  unlink(path);
  mqss_metrics_record r = sample();
  assert_int_equal(mqss_metrics_append(s, path, &r), MQSS_OK);
  r.fallback = 1;
  r.fallback_reason = "because";
  assert_int_equal(mqss_metrics_append(s, path, &r), MQSS_OK);
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  char buf[4096];
  int lines = 0;
  while (fgets(buf, sizeof buf, f)) {
    assert_int_equal(mqss_metrics_line_check(buf, strlen(buf)), 1);
    lines++;
  }
  fclose(f);
  unlink(path);
  assert_int_equal(lines, 2);
  assert_int_equal(mqss_metrics_append(s, "/nonexistent-dir/m.jsonl", &r),
                   MQSS_ERR_IO);
  assert_contains(mqss_errmsg(s), "'/nonexistent-dir/m.jsonl'");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_format_fields),
      cmocka_unit_test(test_check_detects_damage),
      cmocka_unit_test_setup_teardown(test_append, session_setup,
                                      session_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
