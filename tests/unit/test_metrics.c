// Unit tests of the training logs: both formats carry every metric, the JSON
// parses, and reopening for a resume drops the rows after the checkpoint.
#include "rl/metrics.h" // before cmocka: it defines a fail() macro

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *slurp(const char *path) {
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  static char buf[1 << 16];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = 0;
  fclose(f);
  return buf;
}

static int count_lines(const char *text) {
  int n = 0;
  for (; *text; text++)
    n += *text == '\n';
  return n;
}

static void write_rows(mqss_session *s, const char *dir, int keep, int from,
                       int to) {
  metrics_log *log;
  assert_int_equal(metrics_open(s, dir, keep, &log), MQSS_OK);
  for (int it = from; it <= to; it++) {
    double v[METRIC_COUNT];
    for (int m = 0; m < METRIC_COUNT; m++)
      v[m] = it * 100 + m;
    v[M_ITERATION] = it;
    v[M_CACHE_HIT] = NAN; // unknown figures must stay valid JSON
    assert_int_equal(metrics_write(log, v), MQSS_OK);
  }
  metrics_close(log);
}

static void test_logs_and_resume(void **state) {
  (void)state;
  mqss_session *s;
  assert_int_equal(mqss_session_create(&s), MQSS_OK);
  char dir[] = "/tmp/mqss_metrics_XXXXXX";
  assert_non_null(mkdtemp(dir));
  char csv[128], jsonl[128];
  snprintf(csv, sizeof csv, "%s/metrics.csv", dir);
  snprintf(jsonl, sizeof jsonl, "%s/metrics.jsonl", dir);

  write_rows(s, dir, -1, 0, 3); // iterations 0..3
  char *text = slurp(csv);
  assert_int_equal(count_lines(text), 5);
  assert_int_equal(strncmp(text, "iteration,env_steps,reward/episodic_return,", 43), 0);

  // A run killed after iteration 3 but checkpointed at 1 resumes at 2.
  write_rows(s, dir, 1, 2, 4);
  text = slurp(csv);
  assert_int_equal(count_lines(text), 6); // header + 0,1 + 2,3,4
  assert_non_null(strstr(text, "\n4,401,402,"));

  text = slurp(jsonl);
  assert_int_equal(count_lines(text), 5);
  int want_it = 0;
  for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
    cJSON *o = cJSON_Parse(line);
    assert_non_null(o);
    assert_int_equal(cJSON_GetArraySize(o), METRIC_COUNT);
    assert_int_equal(cJSON_GetObjectItem(o, "iteration")->valuedouble, want_it);
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(o, "perf/cache_hit_rate")));
    assert_float_equal(cJSON_GetObjectItem(o, "policy/entropy")->valuedouble,
                       want_it * 100 + M_ENTROPY, 0);
    cJSON_Delete(o);
    want_it++;
  }
  assert_int_equal(want_it, 5);
  mqss_session_destroy(s);
}

static void write_all_text(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

static void append(const char *path, const char *text) {
  FILE *f = fopen(path, "a");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

// Fields in one CSV line.
static int count_fields(const char *line) {
  int n = 1;
  for (; *line && *line != '\n'; line++)
    n += *line == ',';
  return n;
}

// A run killed in the middle of a row leaves a torn last line (no newline);
// its start can even look like an early iteration ("1" of "12,..."). On
// resume it is dropped, not merged with the next row; so are lines that do
// not start with an iteration.
static void test_torn_and_garbage_lines_dropped(void **state) {
  (void)state;
  mqss_session *s;
  assert_int_equal(mqss_session_create(&s), MQSS_OK);
  char dir[] = "/tmp/mqss_metrics_XXXXXX";
  assert_non_null(mkdtemp(dir));
  char csv[128], jsonl[128];
  snprintf(csv, sizeof csv, "%s/metrics.csv", dir);
  snprintf(jsonl, sizeof jsonl, "%s/metrics.jsonl", dir);

  write_rows(s, dir, -1, 0, 2);
  append(csv, "garbage\n1");
  append(jsonl, "{\"not_iteration\":1}\n{\"iteration\":1,\"env_st");
  write_rows(s, dir, 2, 3, 4); // resume after iteration 2

  char *text = slurp(csv);
  assert_int_equal(count_lines(text), 6); // header + 0..4
  for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
    assert_int_equal(count_fields(line), METRIC_COUNT);
  text = slurp(csv);
  assert_non_null(strstr(text, "\n2,201,"));
  assert_non_null(strstr(text, "\n3,301,"));

  text = slurp(jsonl);
  assert_int_equal(count_lines(text), 5);
  int want_it = 0;
  for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
    cJSON *o = cJSON_Parse(line);
    assert_non_null(o);
    assert_int_equal(cJSON_GetObjectItem(o, "iteration")->valuedouble, want_it);
    cJSON_Delete(o);
    want_it++;
  }
  assert_int_equal(want_it, 5);

  // A torn header is rewritten whole.
  write_all_text(csv, "iteration,env_st");
  write_rows(s, dir, 4, 5, 5);
  text = slurp(csv);
  assert_int_equal(strncmp(text, "iteration,env_steps,reward/episodic_return,", 43), 0);
  assert_int_equal(count_lines(text), 2);
  mqss_session_destroy(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_logs_and_resume),
      cmocka_unit_test(test_torn_and_garbage_lines_dropped),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
