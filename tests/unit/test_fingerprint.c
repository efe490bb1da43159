// Unit tests of module_fingerprint (src/ir/fingerprint.c), the in-process
// change detector used by select and the environment: equal for the same IR
// (reparsed, cloned, renamed, relocated), different for any change of op,
// attribute, type, operand or structure, and in agreement with the printed
// content hash (mqss_module_hash) on every catalog action applied to corpus
// modules.
#include "internal.h" // before cmocka.h, whose fail() macro it would clash with

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static mqss_module *parse(mqss_session *s, const char *text) {
  mqss_module *m = NULL;
  if (mqss_module_parse_string(s, text, strlen(text), "t.mlir", &m) != MQSS_OK)
    fail_msg("parse failed: %s", mqss_errmsg(s));
  return m;
}

static uint64_t fp_of(mqss_session *s, const char *text) {
  mqss_module *m = parse(s, text);
  uint64_t h = module_fingerprint(m);
  mqss_module_destroy(m);
  return h;
}

static const char *BASE =
    "func.func @f(%a: memref<8xf32>, %x: f32, %y: f32) -> f32 {\n"
    "  %c = arith.constant 1.0 : f32\n"
    "  %s = arith.subf %x, %y : f32\n"
    "  affine.for %i = 0 to 8 {\n"
    "    %v = affine.load %a[%i] : memref<8xf32>\n"
    "    %w = arith.addf %v, %c : f32\n"
    "    affine.store %w, %a[%i] : memref<8xf32>\n"
    "  }\n"
    "  return %s : f32\n"
    "}\n";

// Same IR, other SSA names, whitespace, comments and locations.
static const char *RENAMED =
    "// a comment\n"
    "func.func @f(%p: memref<8xf32>, %q: f32, %r: f32) -> f32 {\n"
    "  %one = arith.constant 1.0 : f32 loc(\"x.mlir\":3:4)\n"
    "  %d = arith.subf %q,   %r : f32\n"
    "  affine.for %k = 0 to 8 {\n"
    "    %l = affine.load %p[%k] : memref<8xf32>\n"
    "    %m = arith.addf %l, %one : f32\n"
    "    affine.store %m, %p[%k] : memref<8xf32>\n"
    "  }\n"
    "  return %d : f32\n"
    "}\n";

static void test_same_ir_same_fingerprint(void **state) {
  mqss_session *s = *state;
  uint64_t base = fp_of(s, BASE);
  assert_true(base == fp_of(s, BASE));
  assert_true(base == fp_of(s, RENAMED));
  mqss_module *m = parse(s, BASE);
  mqss_module *c = mqss_module_clone(m);
  assert_true(module_fingerprint(m) == base);
  assert_true(module_fingerprint(c) == base);
  mqss_module_destroy(c);
  mqss_module_destroy(m);
}

// Each edit of BASE: `from` replaced by `to` must change the fingerprint.
static void test_every_edit_changes_it(void **state) {
  mqss_session *s = *state;
  static const char *edits[][2] = {
      {"arith.constant 1.0", "arith.constant 2.0"}, // attribute value
      {"arith.subf %x, %y", "arith.subf %y, %x"},   // operand order
      {"arith.subf %x, %y", "arith.subf %x, %x"},   // operand identity
      {"arith.addf %v, %c", "arith.mulf %v, %c"},   // op name
      {"0 to 8", "0 to 7"},                         // inherent attribute
      {"0 to 8 {", "0 to 8 step 2 {"},              // another one
      {"%a[%i] : memref<8xf32>\n    %w", "%a[%i + 1] : memref<8xf32>\n    %w"},
      {"return %s", "return %x"},                    // block argument use
      {"%w = arith.addf %v, %c : f32\n",             // an op added
       "%w = arith.addf %v, %c : f32\n    %u = arith.addf %w, %c : f32\n"},
  };
  uint64_t base = fp_of(s, BASE);
  for (size_t i = 0; i < sizeof edits / sizeof edits[0]; i++) {
    const char *at = strstr(BASE, edits[i][0]);
    assert_non_null(at);
    char text[2048];
    snprintf(text, sizeof text, "%.*s%s%s", (int)(at - BASE), BASE,
             edits[i][1], at + strlen(edits[i][0]));
    if (fp_of(s, text) == base)
      fail_msg("edit %zu (%s -> %s) kept the fingerprint", i, edits[i][0],
               edits[i][1]);
  }
  // a type change: f32 -> f64 throughout
  char text[2048];
  size_t n = 0;
  for (const char *p = BASE; *p && n + 4 < sizeof text;)
    if (!strncmp(p, "f32", 3)) {
      memcpy(text + n, "f64", 3);
      n += 3, p += 3;
    } else {
      text[n++] = *p++;
    }
  text[n] = '\0';
  assert_true(fp_of(s, text) != base);
}

// For every catalog action on corpus modules: "the action changed the IR"
// by fingerprint agrees with the printed hash.
static void test_agrees_with_printed_hash(void **state) {
  mqss_session *s = *state;
  mqss_catalog *c = NULL;
  assert_int_equal(mqss_catalog_load(s, NULL, &c), MQSS_OK);
  const char *families[] = {"poly_blas3", "conv2d", "mlp", "spmv"};
  int changed = 0, same = 0;
  for (size_t f = 0; f < sizeof families / sizeof families[0]; f++) {
    char *text = mqss_corpus_emit(families[f], 0, 0);
    assert_non_null(text);
    mqss_module *m = parse(s, text);
    free(text);
    for (int a = 0; a < mqss_catalog_size(c); a++) {
      mqss_decision d = {.action = a};
      mqss_module *w = mqss_module_clone(m);
      if (mqss_decision_apply(w, c, &d) == MQSS_OK) {
        bool by_fp = module_fingerprint(w) == module_fingerprint(m);
        bool by_hash = mqss_module_hash(w) == mqss_module_hash(m);
        if (by_fp != by_hash)
          fail_msg("%s, action %s: fingerprint says %s, printed hash %s",
                   families[f], mqss_catalog_action(c, a)->name,
                   by_fp ? "same" : "changed", by_hash ? "same" : "changed");
        by_fp ? same++ : changed++;
      }
      mqss_module_destroy(w);
    }
    mqss_module_destroy(m);
  }
  // both outcomes occurred, so the comparison tested something
  assert_true(changed > 10);
  assert_true(same > 10);
  mqss_catalog_destroy(c);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_same_ir_same_fingerprint,
                                      session_setup, session_teardown),
      cmocka_unit_test_setup_teardown(test_every_edit_changes_it,
                                      session_setup, session_teardown),
      cmocka_unit_test_setup_teardown(test_agrees_with_printed_hash,
                                      session_setup, session_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
