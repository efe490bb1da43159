// Unit tests of pipeline parsing without printing (pipeline_parse.c): LLVM's
// option parser writes bad option values to fd 2; the library must capture
// that into the session message and print nothing, from several threads at
// once too.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "check.h"
#include "mqss/mqss.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *ADD = "func.func @add(%a: i32, %b: i32) -> i32 {\n"
                         "  %c = arith.addi %a, %b : i32\n"
                         "  return %c : i32\n"
                         "}\n";

// Runs `pipeline` on a fresh parse of ADD with fd 2 pointed at a file;
// returns the status and stores what reached fd 2 in `printed`.
static mqss_status run_capturing_fd2(mqss_session *s, const char *pipeline,
                                     char *printed, size_t len) {
  mqss_module *m = NULL;
  assert_int_equal(mqss_module_parse_string(s, ADD, strlen(ADD), "t.mlir", &m),
                   MQSS_OK);
  char path[] = "/tmp/mqss_fd2_XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  fflush(stderr);
  int saved = dup(2);
  dup2(fd, 2);
  mqss_status st = mqss_module_run_pipeline(m, pipeline);
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  ssize_t n = pread(fd, printed, len - 1, 0);
  printed[n > 0 ? n : 0] = '\0';
  close(fd);
  unlink(path);
  mqss_module_destroy(m);
  return st;
}

static void test_bad_option_value_is_captured(void **state) {
  mqss_session *s = *state;
  char printed[4096];
  assert_int_equal(run_capturing_fd2(s, "canonicalize{max-iterations=abc}",
                                     printed, sizeof printed),
                   MQSS_ERR_PIPELINE);
  assert_string_equal(printed, "");
  const char *msg = mqss_errmsg(s);
  assert_contains(msg, "invalid pipeline 'canonicalize{max-iterations=abc}': ");
  assert_contains(msg, "for the --max-iterations option: 'abc' value invalid");
  assert_contains(msg, "failed to add `canonicalize`");

  // An unknown option name, and an unknown pass, print nothing either.
  assert_int_equal(run_capturing_fd2(s, "cse{no-such-option=1}", printed,
                                     sizeof printed),
                   MQSS_ERR_PIPELINE);
  assert_string_equal(printed, "");
  assert_contains(mqss_errmsg(s), "no-such-option");
  assert_int_equal(run_capturing_fd2(s, "no-such-pass", printed, sizeof printed),
                   MQSS_ERR_PIPELINE);
  assert_string_equal(printed, "");
  assert_contains(mqss_errmsg(s), "'no-such-pass' does not refer to a registered pass");

  // fd 2 is restored: a good pipeline still runs and prints nothing.
  assert_int_equal(run_capturing_fd2(s, "canonicalize{max-iterations=3}",
                                     printed, sizeof printed),
                   MQSS_OK);
  assert_string_equal(printed, "");
}

// Threads parsing bad pipelines at once each get their own reason.
static void *parse_many(void *arg) {
  long id = (long)arg;
  mqss_session *s = NULL;
  if (mqss_session_create(&s) != MQSS_OK)
    return (void *)"no session";
  mqss_module *m = NULL;
  if (mqss_module_parse_string(s, ADD, strlen(ADD), NULL, &m) != MQSS_OK)
    return (void *)"parse failed";
  char pipeline[64], want[64];
  snprintf(pipeline, sizeof pipeline, "canonicalize{max-iterations=bad%ld}", id);
  snprintf(want, sizeof want, "'bad%ld' value invalid", id);
  const char *err = NULL;
  for (int i = 0; i < 40 && !err; i++)
    if (mqss_module_run_pipeline(m, pipeline) != MQSS_ERR_PIPELINE ||
        !strstr(mqss_errmsg(s), want))
      err = "a thread's message lost or swapped its reason";
  mqss_module_destroy(m);
  mqss_session_destroy(s);
  return (void *)err;
}

static void test_threads(void **state) {
  (void)state;
  pthread_t t[4];
  for (long i = 0; i < 4; i++)
    assert_int_equal(pthread_create(&t[i], NULL, parse_many, (void *)i), 0);
  for (int i = 0; i < 4; i++) {
    void *err;
    pthread_join(t[i], &err);
    if (err)
      fail_msg("thread %d: %s", i, (const char *)err);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_bad_option_value_is_captured, session_setup, session_teardown),
      cmocka_unit_test(test_threads),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
