// Table-driven tests of the safety layer: (IR snippet, action, target) ->
// allowed or blocked, with the reason; stage detection; and the mask agreeing
// with the per-action check.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "mqss/mqss.h"

#include <stdlib.h>
#include <string.h>

// ----------------------------------------------------------------------------
// IR snippets

// Tensor-level linalg (unbufferized).
static const char TENSOR[] =
    "func.func @t(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>,"
    " %c: tensor<4x2xf32>) -> tensor<4x2xf32> {\n"
    "  %r = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x2xf32>)\n"
    "                     outs(%c : tensor<4x2xf32>) -> tensor<4x2xf32>\n"
    "  return %r : tensor<4x2xf32>\n}\n";

// linalg.softmax on tensors: bufferizing it first would leave a memref
// softmax that MLIR 19 cannot decompose, and nothing else lowers it.
static const char SOFTMAX[] =
    "func.func @s(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {\n"
    "  %e = tensor.empty() : tensor<2x8xf32>\n"
    "  %r = linalg.softmax dimension(1) ins(%x : tensor<2x8xf32>)\n"
    "       outs(%e : tensor<2x8xf32>) -> tensor<2x8xf32>\n"
    "  return %r : tensor<2x8xf32>\n}\n";

// Buffer-level linalg.
static const char BUFFER[] =
    "func.func @m(%a: memref<4x8xf32>, %b: memref<8x2xf32>,"
    " %c: memref<4x2xf32>) {\n"
    "  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x2xf32>)\n"
    "                outs(%c : memref<4x2xf32>)\n"
    "  return\n}\n";

// Affine loops.
static const char AFFINE[] =
    "func.func @f(%a: memref<16xf32>) {\n"
    "  affine.for %i = 0 to 16 {\n"
    "    %v = affine.load %a[%i] : memref<16xf32>\n"
    "    %w = arith.addf %v, %v : f32\n"
    "    affine.store %w, %a[%i] : memref<16xf32>\n"
    "  }\n  return\n}\n";

// scf loops, plus a second function with no loops.
static const char SCF[] =
    "func.func @loop(%a: memref<16xf32>) {\n"
    "  %c0 = arith.constant 0 : index\n"
    "  %c1 = arith.constant 1 : index\n"
    "  %c16 = arith.constant 16 : index\n"
    "  scf.for %i = %c0 to %c16 step %c1 {\n"
    "    %v = memref.load %a[%i] : memref<16xf32>\n"
    "    memref.store %v, %a[%i] : memref<16xf32>\n"
    "  }\n  return\n}\n"
    "func.func @flat(%x: f32) -> f32 {\n"
    "  %y = arith.mulf %x, %x : f32\n"
    "  return %y : f32\n}\n";

// ----------------------------------------------------------------------------
// the table

static const struct {
  const char *ir;
  const char *action;
  const char *target; // NULL: whole module
  int allowed;
  const char *reason; // substring of the reason
} cases[] = {
    {TENSOR, "bufferize", NULL, 1, "allowed"},
    {TENSOR, "linalg-generalize-named", NULL, 1, "allowed"},
    {TENSOR, "linalg-to-affine", NULL, 0, "not allowed while the IR has tensor"},
    {TENSOR, "affine-vectorize", NULL, 0, "requires stage affine; IR is tensor+linalg"},
    {TENSOR, "affine-tile", NULL, 0, "requires stage affine"},
    {TENSOR, "promote-buffers-to-stack", NULL, 0, "requires stage buffer"},
    {TENSOR, "eliminate-empty-tensors", NULL, 0, "needs one of tensor.empty"},
    {TENSOR, "stop", NULL, 1, "allowed"},
    {SOFTMAX, "bufferize", NULL, 0, "not allowed while the IR has linalg.softmax"},
    {SOFTMAX, "linalg-generalize-named", NULL, 1, "allowed"},
    {BUFFER, "bufferize", NULL, 0, "requires stage tensor"},
    {BUFFER, "linalg-to-affine", NULL, 1, "allowed"},
    {BUFFER, "linalg-to-loops", NULL, 1, "allowed"},
    {BUFFER, "buffer-hoisting", NULL, 0, "needs one of memref.alloc"},
    {BUFFER, "licm", NULL, 0, "needs one of scf.for"},
    {AFFINE, "affine-tile", NULL, 1, "allowed"},
    {AFFINE, "affine-vectorize", NULL, 1, "allowed"},
    {AFFINE, "affine-scalrep", NULL, 1, "allowed"},
    {AFFINE, "lower-affine", NULL, 1, "allowed"},
    {AFFINE, "linalg-to-affine", NULL, 0, "requires stage linalg; IR is buffer+affine"},
    {AFFINE, "scf-peel", NULL, 0, "requires stage loops"},
    {AFFINE, "vector-to-scf", NULL, 0, "requires stage vector"},
    {AFFINE, "licm", NULL, 1, "allowed"},
    {AFFINE, "uplift-to-fma", NULL, 0, "needs one of arith.mulf"},
    {AFFINE, "arith-expand", NULL, 1, "allowed"}, // "arith" matches a dialect
    {SCF, "scf-peel", NULL, 1, "allowed"},
    {SCF, "scf-peel", "loop", 1, "allowed"},
    {SCF, "scf-peel", "flat", 0, "requires stage loops"},
    {SCF, "scf-parallel-tile", NULL, 0, "needs one of scf.parallel"},
    {SCF, "uplift-to-fma", "flat", 1, "allowed"},
    {SCF, "uplift-to-fma", "loop", 0, "needs one of arith.mulf"},
    {SCF, "inline", "flat", 0, "cannot be scoped"},
    {SCF, "cse", "nope", 0, "no function @nope"},
    {SCF, "stop", "nope", 1, "allowed"},
};

// ----------------------------------------------------------------------------

static void test_table(void **state) {
  (void)state;
  mqss_session *s = NULL;
  assert_int_equal(mqss_session_create(&s), MQSS_OK);
  mqss_catalog *c = NULL;
  if (mqss_catalog_load(s, MQSS_SOURCE_DIR "/data/catalog.yaml", &c))
    fail_msg("%s", mqss_errmsg(s));
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    mqss_module *m = NULL;
    assert_int_equal(mqss_module_parse_string(s, cases[i].ir,
                                              strlen(cases[i].ir), "t.mlir",
                                              &m),
                     MQSS_OK);
    int id = mqss_catalog_find(c, cases[i].action);
    if (id < 0)
      fail_msg("case %zu: no action %s", i, cases[i].action);
    char why[256];
    int ok = mqss_action_check(m, c, id, cases[i].target, why, sizeof why);
    if (ok != cases[i].allowed || !strstr(why, cases[i].reason))
      fail_msg("case %zu (%s on %s): got %d '%s', want %d '%s'", i,
               cases[i].action, cases[i].target ? cases[i].target : "module",
               ok, why, cases[i].allowed, cases[i].reason);
    // The mask agrees with the check.
    uint8_t *mask = malloc((size_t)mqss_catalog_size(c));
    int n = mqss_action_mask(m, c, cases[i].target, mask);
    assert_true(n >= 1);
    assert_int_equal(mask[id], cases[i].allowed);
    assert_int_equal(mask[mqss_catalog_stop(c)], 1);
    int count = 0;
    for (int k = 0; k < mqss_catalog_size(c); k++) {
      assert_int_equal(mask[k], mqss_action_check(m, c, k, cases[i].target,
                                                  NULL, 0));
      count += mask[k];
    }
    assert_int_equal(n, count);
    free(mask);
    mqss_module_destroy(m);
  }
  mqss_catalog_destroy(c);
  mqss_session_destroy(s);
}

static void test_stages(void **state) {
  (void)state;
  mqss_session *s = NULL;
  assert_int_equal(mqss_session_create(&s), MQSS_OK);
  static const unsigned want[] = {
      MQSS_STAGE_TENSOR | MQSS_STAGE_LINALG,
      MQSS_STAGE_BUFFER | MQSS_STAGE_LINALG,
      MQSS_STAGE_BUFFER | MQSS_STAGE_AFFINE,
      MQSS_STAGE_BUFFER | MQSS_STAGE_LOOPS,
  };
  const char *irs[] = {TENSOR, BUFFER, AFFINE, SCF};
  for (int i = 0; i < 4; i++) {
    mqss_module *m = NULL;
    assert_int_equal(mqss_module_parse_string(s, irs[i], strlen(irs[i]), NULL,
                                              &m),
                     MQSS_OK);
    assert_int_equal(mqss_module_stages(m), want[i]);
    // After the finisher, only llvm remains.
    assert_int_equal(mqss_module_finish(m), MQSS_OK);
    assert_int_equal(mqss_module_stages(m), MQSS_STAGE_LLVM);
    mqss_module_destroy(m);
  }
  assert_string_equal(mqss_stage_name(4), "affine");
  assert_string_equal(mqss_stage_name(99), "any");
  mqss_session_destroy(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_table),
      cmocka_unit_test(test_stages),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
