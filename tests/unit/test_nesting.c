// Unit tests of the nesting limit in front of MLIR's parser (nesting.c):
// deep attributes and regions are rejected with MQSS_ERR_PARSE and a
// file:line:col instead of overflowing the stack, the limit itself is
// accepted, and brackets in strings, comments, `->` and `>=` do not count.
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

// ----------------------------------------------------------------------------
// text builders

typedef struct {
  char *data;
  size_t len, cap;
} text;

static void put(text *t, const char *s) {
  size_t n = strlen(s);
  if (t->len + n + 1 > t->cap) {
    t->cap = (t->len + n + 1) * 2;
    t->data = realloc(t->data, t->cap);
    assert_non_null(t->data);
  }
  memcpy(t->data + t->len, s, n + 1);
  t->len += n;
}

static void put_n(text *t, const char *s, int n) {
  for (int i = 0; i < n; i++)
    put(t, s);
}

// `module attributes {t.x = [[...]]} {}` with `n` nested arrays, so the
// deepest bracket is at depth n + 1.
static text deep_attribute(int n) {
  text t = {0};
  put(&t, "module attributes {t.x = ");
  put_n(&t, "[", n);
  put_n(&t, "]", n);
  put(&t, "} {}\n");
  return t;
}

static mqss_status parse(mqss_session *s, const text *t) {
  mqss_module *m = NULL;
  mqss_status st = mqss_module_parse_string(s, t->data, t->len, "t.mlir", &m);
  mqss_module_destroy(m);
  return st;
}

// ----------------------------------------------------------------------------

static void test_limit_is_inclusive(void **state) {
  mqss_session *s = *state;
  text ok = deep_attribute(MQSS_MAX_NESTING - 1);
  mqss_status st = parse(s, &ok);
  if (st != MQSS_OK)
    fail_msg("depth %d rejected: %s", MQSS_MAX_NESTING, mqss_errmsg(s));
  free(ok.data);

  text deep = deep_attribute(MQSS_MAX_NESTING);
  assert_int_equal(parse(s, &deep), MQSS_ERR_PARSE);
  // The first bracket past the limit: the prefix, then bracket number
  // MQSS_MAX_NESTING (the module's `{` is depth 1).
  char where[64];
  snprintf(where, sizeof where, "t.mlir:1:%d: nesting deeper than %d levels",
           (int)strlen("module attributes {t.x = ") + MQSS_MAX_NESTING,
           MQSS_MAX_NESTING);
  assert_contains(mqss_errmsg(s), where);
  assert_contains(mqss_errmsg(s), "cannot parse 't.mlir'");
  free(deep.data);
}

// The original crash: 10,000 nested attributes and 10,000 nested regions.
static void test_ten_thousand_deep(void **state) {
  mqss_session *s = *state;
  text attr = deep_attribute(10000);
  assert_int_equal(parse(s, &attr), MQSS_ERR_PARSE);
  free(attr.data);

  text reg = {0};
  put(&reg, "func.func @f() {\n");
  put_n(&reg, "scf.execute_region {\n", 10000);
  put_n(&reg, "scf.yield\n}\n", 10000);
  put(&reg, "return\n}\n");
  assert_int_equal(parse(s, &reg), MQSS_ERR_PARSE);
  char where[64];
  snprintf(where, sizeof where, "t.mlir:%d:20: nesting deeper",
           MQSS_MAX_NESTING + 1);
  assert_contains(mqss_errmsg(s), where);
  free(reg.data);
}

// Brackets inside strings (with escaped quotes) and comments are not
// nesting; a deep string would be rejected if they were counted.
static void test_strings_and_comments_do_not_count(void **state) {
  mqss_session *s = *state;
  text t = {0};
  put(&t, "// ");
  put_n(&t, "([{<", 2 * MQSS_MAX_NESTING);
  put(&t, "\nmodule attributes {t.s = \"\\\"");
  put_n(&t, "([{<", 2 * MQSS_MAX_NESTING);
  put(&t, "\\\\\"} {}\n");
  mqss_status st = parse(s, &t);
  if (st != MQSS_OK)
    fail_msg("rejected: %s", mqss_errmsg(s));
  free(t.data);
}

// A long flat module: every `<` is closed by its `>` (not by `->` or `>=`),
// so thousands of types and maps in one block never add up to a depth.
static void test_flat_types_do_not_accumulate(void **state) {
  mqss_session *s = *state;
  text t = {0};
  put(&t, "#set = affine_set<(d0) : (d0 - 1 >= 0)>\n"
          "func.func @f(%m: memref<4xf32, affine_map<(d0) -> (d0)>>) {\n"
          "  %i = arith.constant 1 : index\n");
  for (int i = 0; i < 2 * MQSS_MAX_NESTING; i++) {
    char line[128];
    snprintf(line, sizeof line,
             "  %%c%d = arith.constant dense<1.0> : tensor<4xf32>\n"
             "  affine.if #set(%%i) {\n  }\n", i);
    put(&t, line);
  }
  put(&t, "  return\n}\n");
  mqss_status st = parse(s, &t);
  if (st != MQSS_OK)
    fail_msg("rejected: %.300s", mqss_errmsg(s));
  free(t.data);
}

// mqss_module_parse_file goes through the same check.
static void test_parse_file(void **state) {
  mqss_session *s = *state;
  char path[] = "/tmp/mqss_nesting_XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  text t = deep_attribute(10000);
  assert_int_equal(write(fd, t.data, t.len), (ssize_t)t.len);
  close(fd);
  mqss_module *m = NULL;
  assert_int_equal(mqss_module_parse_file(s, path, &m), MQSS_ERR_PARSE);
  assert_null(m);
  assert_contains(mqss_errmsg(s), "nesting deeper than");
  assert_contains(mqss_errmsg(s), path);
  unlink(path);
  free(t.data);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_limit_is_inclusive, session_setup, session_teardown),
      cmocka_unit_test_setup_teardown(test_ten_thousand_deep, session_setup, session_teardown),
      cmocka_unit_test_setup_teardown(test_strings_and_comments_do_not_count, session_setup, session_teardown),
      cmocka_unit_test_setup_teardown(test_flat_types_do_not_accumulate, session_setup, session_teardown),
      cmocka_unit_test_setup_teardown(test_parse_file, session_setup, session_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
