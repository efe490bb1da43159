// Unit tests of the session and module API: status strings, parse errors with
// file:line:col, pipelines (valid, unknown pass, failing, invalid IR),
// printing, cloning, the content hash, and the finisher's unknown-op check.
#include "internal.h" // before cmocka.h, whose fail() macro it would clash with

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

static const char *ADD = "func.func @add(%a: i32, %b: i32) -> i32 {\n"
                         "  %c = arith.addi %a, %b : i32\n"
                         "  return %c : i32\n"
                         "}\n";


static mqss_module *parse(mqss_session *s, const char *text) {
  mqss_module *m = NULL;
  mqss_status st = mqss_module_parse_string(s, text, strlen(text), "t.mlir", &m);
  if (st != MQSS_OK)
    fail_msg("parse failed: %s", mqss_errmsg(s));
  return m;
}

// ----------------------------------------------------------------------------

static void test_strerror(void **state) {
  (void)state;
  assert_string_equal(mqss_strerror(MQSS_OK), "ok");
  assert_string_equal(mqss_strerror(MQSS_ERR_PARSE), "cannot parse module");
  assert_string_equal(mqss_strerror((mqss_status)999), "unknown status");
  assert_string_equal(mqss_errmsg(NULL), "out of memory");
}

static void test_versions(void **state) {
  (void)state;
  assert_string_equal(mqss_version(), MQSS_VERSION);
  assert_int_equal(strncmp(mqss_mlir_version(), "19.", 3), 0);
}

static void test_destroy_null(void **state) {
  (void)state;
  mqss_session_destroy(NULL);
  mqss_module_destroy(NULL);
  assert_null(mqss_module_clone(NULL));
}

static void test_parse_error_location(void **state) {
  mqss_session *s = *state;
  const char *bad = "func.func @f() {\n"
                    "  %0 = arith.constant 1 : i32\n"
                    "  %1 = arith.addi %0, %x : i32\n"
                    "  return\n}\n";
  mqss_module *m = NULL;
  assert_int_equal(mqss_module_parse_string(s, bad, strlen(bad), "bad.mlir", &m),
                   MQSS_ERR_PARSE);
  assert_null(m);
  const char *msg = mqss_errmsg(s);
  assert_contains(msg, "cannot parse 'bad.mlir'");
  assert_contains(msg, "bad.mlir:3:23: error: use of undeclared SSA value");
}

static void test_parse_string_uses_length(void **state) {
  mqss_session *s = *state;
  // Only the first `len` bytes count: the trailing junk must not be parsed.
  const char *text = "func.func @f() {\n  return\n}\n@@@ junk";
  mqss_module *m = NULL;
  assert_int_equal(mqss_module_parse_string(s, text, strlen(text) - 8, NULL, &m),
                   MQSS_OK);
  mqss_module_destroy(m);
  assert_int_equal(mqss_module_parse_string(s, text, strlen(text), NULL, &m),
                   MQSS_ERR_PARSE);
  assert_contains(mqss_errmsg(s), "<string>:4:2: error: @ identifier expected");
}

static void test_verifier_error_is_parse_error(void **state) {
  mqss_session *s = *state;
  // Parses, but the return type does not match the function type.
  const char *bad = "func.func @f() -> i32 {\n  return\n}\n";
  mqss_module *m = NULL;
  assert_int_equal(mqss_module_parse_string(s, bad, strlen(bad), "v.mlir", &m),
                   MQSS_ERR_PARSE);
  assert_contains(mqss_errmsg(s), "v.mlir:2:3: error:");
}

static void test_missing_file(void **state) {
  mqss_session *s = *state;
  mqss_module *m = NULL;
  assert_int_equal(mqss_module_parse_file(s, "/nonexistent/x.mlir", &m),
                   MQSS_ERR_IO);
  assert_contains(mqss_errmsg(s), "cannot open '/nonexistent/x.mlir'");
}

static void test_parse_file_location(void **state) {
  mqss_session *s = *state;
  char path[] = "/tmp/mqss_test_XXXXXX.mlir";
  int fd = mkstemps(path, 5);
  assert_true(fd >= 0);
  FILE *f = fdopen(fd, "w");
  fputs("module {\n  func.func @f( {\n}\n", f);
  fclose(f);
  mqss_module *m = NULL;
  assert_int_equal(mqss_module_parse_file(s, path, &m), MQSS_ERR_PARSE);
  char want[128];
  snprintf(want, sizeof want, "%s:2:", path);
  assert_contains(mqss_errmsg(s), want);
  remove(path);
}

static void test_pipeline_ok_and_print(void **state) {
  mqss_session *s = *state;
  mqss_module *m = parse(s, ADD);
  assert_int_equal(mqss_module_run_pipeline(m, "canonicalize,cse"), MQSS_OK);
  assert_int_equal(mqss_module_run_pipeline(m, "builtin.module(convert-arith-to-llvm)"),
                   MQSS_OK);
  char *text = mqss_module_to_string(m);
  assert_contains(text, "llvm.add");
  assert_null(strstr(text, "arith.addi"));
  free(text);
  mqss_module_destroy(m);
}

static void test_unknown_pass(void **state) {
  mqss_session *s = *state;
  mqss_module *m = parse(s, ADD);
  assert_int_equal(mqss_module_run_pipeline(m, "canonicalize,no-such-pass"),
                   MQSS_ERR_PIPELINE);
  assert_contains(mqss_errmsg(s), "no-such-pass");
  mqss_module_destroy(m);
}

static void test_pass_failure(void **state) {
  mqss_session *s = *state;
  // TOSA ops have no bufferization: one-shot-bufferize gives up on them.
  mqss_module *m =
      parse(s, "func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
               "  %c = tosa.add %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>\n"
               "  return %c : tensor<4xf32>\n}\n");
  mqss_status st = mqss_module_run_pipeline(m, "one-shot-bufferize");
  assert_int_equal(st, MQSS_ERR_PASS_FAILED);
  assert_contains(mqss_errmsg(s), "t.mlir:2:8: error: op was not bufferized");
  mqss_module_destroy(m);
}

static void test_clone_and_hash(void **state) {
  mqss_session *s = *state;
  mqss_module *a = parse(s, ADD);
  // Same program, other names, spacing and comments: same hash.
  mqss_module *b = parse(s, "// comment\nfunc.func @add(%x: i32,   %y: i32) -> i32 {\n"
                            "  %z = arith.addi %x, %y : i32\n  return %z : i32 }");
  mqss_module *c = mqss_module_clone(a);
  assert_non_null(c);
  assert_int_equal(mqss_module_hash(a), mqss_module_hash(b));
  assert_int_equal(mqss_module_hash(a), mqss_module_hash(c));
  assert_int_equal(mqss_module_run_pipeline(c, "convert-arith-to-llvm"), MQSS_OK);
  assert_int_not_equal(mqss_module_hash(a), mqss_module_hash(c));
  mqss_module_destroy(a);
  mqss_module_destroy(b);
  mqss_module_destroy(c);
}

// The select pre-check: ops that no finisher step names.
static void test_finish_unknown_ops(void **state) {
  mqss_session *s = *state;
  static const char *cases[][2] = {
      {"", "func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
           "  %b = arith.addf %a, %a : tensor<4xf32>\n"
           "  return %b : tensor<4xf32>\n}\n"},
      {"y", "func.func @f(%a: i32) -> i32 {\n"
            "  %0 = emitc.add %a, %a : (i32, i32) -> i32\n"
            "  return %0 : i32\n}\n"},
      {"y", "func.func @f(%m: memref<4xf32>) {\n"
            "  %c = memref.cast %m : memref<4xf32> to memref<*xf32>\n"
            "  gpu.host_register %c : memref<*xf32>\n  return\n}\n"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    mqss_module *m = parse(s, cases[i][1]);
    assert_int_equal(finish_has_unknown_ops(m), cases[i][0][0] == 'y');
    mqss_module_destroy(m);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_strerror),
      cmocka_unit_test(test_versions),
      cmocka_unit_test(test_destroy_null),
      cmocka_unit_test_setup_teardown(test_parse_error_location, session_setup, session_teardown),
      cmocka_unit_test_setup_teardown(test_parse_string_uses_length, session_setup, session_teardown),
      cmocka_unit_test_setup_teardown(test_verifier_error_is_parse_error, session_setup, session_teardown),
      cmocka_unit_test_setup_teardown(test_missing_file, session_setup, session_teardown),
      cmocka_unit_test_setup_teardown(test_parse_file_location, session_setup, session_teardown),
      cmocka_unit_test_setup_teardown(test_pipeline_ok_and_print, session_setup, session_teardown),
      cmocka_unit_test_setup_teardown(test_unknown_pass, session_setup, session_teardown),
      cmocka_unit_test_setup_teardown(test_pass_failure, session_setup, session_teardown),
      cmocka_unit_test_setup_teardown(test_clone_and_hash, session_setup, session_teardown),
      cmocka_unit_test_setup_teardown(test_finish_unknown_ops, session_setup, session_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
