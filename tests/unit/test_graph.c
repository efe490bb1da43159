// Unit tests of the IR graph: node and edge counts of a small module derived
// by hand, CSR invariants (sorted rows, no self loops, symmetric), node
// features, and a real example.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "mqss/mqss.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

static bool has_edge(const mqss_graph *g, int a, int b) {
  for (int e = g->row_ptr[a]; e < g->row_ptr[a + 1]; e++)
    if (g->col[e] == b)
      return true;
  return false;
}

static void check_csr(const mqss_graph *g) {
  assert_int_equal(g->row_ptr[0], 0);
  assert_int_equal(g->row_ptr[g->n_nodes], g->nnz);
  for (int i = 0; i < g->n_nodes; i++) {
    assert_true(g->row_ptr[i] <= g->row_ptr[i + 1]);
    for (int e = g->row_ptr[i]; e < g->row_ptr[i + 1]; e++) {
      int j = g->col[e];
      assert_true(j >= 0 && j < g->n_nodes);
      assert_true(j != i);
      if (e > g->row_ptr[i])
        assert_true(g->col[e - 1] < j);
      assert_true(has_edge(g, j, i)); // symmetric
    }
  }
}

static mqss_graph *graph_of(mqss_session *s, const char *ir) {
  mqss_module *m = NULL;
  assert_int_equal(mqss_module_parse_string(s, ir, strlen(ir), NULL, &m),
                   MQSS_OK);
  mqss_graph *g = NULL;
  assert_int_equal(mqss_graph_build(m, &g), MQSS_OK);
  mqss_module_destroy(m);
  return g;
}

// module { func @add(%a, %b) { %c = addi %a, %b; return %c } }
// ops (pre-order): 0 module, 1 func, 2 addi, 3 return; blocks: 4 module
// body, 5 func entry. Undirected edges: 4-0 and 5-1 (block-owner), 1-4,
// 2-5, 3-5 (op-block), 5-2 (args %a %b: same as 2-5), 2-3 (use of %c): 6
// edges, stored twice -> nnz 12.
static void test_small(void **state) {
  (void)state;
  mqss_session *s = NULL;
  assert_int_equal(mqss_session_create(&s), MQSS_OK);
  mqss_graph *g = graph_of(s, "func.func @add(%a: i32, %b: i32) -> i32 {\n"
                              "  %c = arith.addi %a, %b : i32\n"
                              "  return %c : i32\n}\n");
  assert_int_equal(g->n_ops, 4);
  assert_int_equal(g->n_nodes, 6);
  assert_int_equal(g->dim, MQSS_GRAPH_FEATURE_DIM);
  assert_int_equal(g->nnz, 12);
  check_csr(g);
  assert_true(has_edge(g, 2, 3));
  assert_true(has_edge(g, 0, 4));
  assert_true(has_edge(g, 1, 5));
  assert_true(has_edge(g, 2, 5));
  assert_false(has_edge(g, 0, 2));
  assert_string_equal(mqss_op_kind_name(g->kind[1]), "func.func");
  assert_string_equal(mqss_op_kind_name(g->kind[2]), "arith.addi");
  assert_string_equal(mqss_op_kind_name(g->kind[3]), "func.return");
  assert_string_equal(mqss_op_kind_name(g->kind[0]), "other.misc");
  assert_int_equal(g->kind[4], -1);
  const float *x2 = g->x + 2 * g->dim, *x5 = g->x + 5 * g->dim;
  assert_float_equal(x2[0], (float)g->kind[2], 0); // the embedding row
  assert_float_equal(x5[0], -1, 0);
  assert_float_equal(x2[1], 0, 0);
  assert_float_equal(x2[2], (float)log1p(2.0), 1e-6); // 2 operands
  assert_float_equal(x2[6], (float)log1p(1.0), 1e-6); // %c used once
  assert_float_equal(x2[5], 2.0f / 8, 1e-6);          // depth 2
  assert_float_equal(x5[1], 1, 0);                    // a block
  assert_float_equal(x5[2], (float)log1p(2.0), 1e-6); // 2 arguments
  mqss_graph_destroy(g);
  mqss_graph_destroy(NULL);
  mqss_session_destroy(s);
}

// A tagged 16x48x24 matmul node: (m, n, k) = (16, 48, 24); the largest
// candidate tile dividing k = 24 is 8, n = 48 is 16, m = 16 is 16.
static void test_linalg_node(void **state) {
  (void)state;
  mqss_session *s = NULL;
  assert_int_equal(mqss_session_create(&s), MQSS_OK);
  mqss_graph *g = graph_of(s,
      "func.func @m(%a: memref<16x24xf32>, %b: memref<24x48xf32>,"
      " %c: memref<16x48xf32>) {\n"
      "  linalg.matmul {mqss.id = 3 : i64}\n"
      "    ins(%a, %b : memref<16x24xf32>, memref<24x48xf32>)\n"
      "    outs(%c : memref<16x48xf32>)\n"
      "  return\n}\n");
  int col[MQSS_GRAPH_FEATURE_DIM];
  const char *names[] = {"flops", "intensity", "tagged", "extent.1",
                         "extent.2", "extent.3", "div.1", "div.2", "div.3"};
  for (int k = 0; k < 9; k++) {
    col[k] = -1;
    for (int c = 0; c < MQSS_GRAPH_FEATURE_DIM; c++)
      if (!strcmp(mqss_graph_feature_name(c), names[k]))
        col[k] = c;
    assert_true(col[k] > 0);
  }
  int node = -1;
  for (int i = 0; i < g->n_ops; i++)
    if (!strcmp(mqss_op_kind_name(g->kind[i]), "linalg.matmul"))
      node = i;
  assert_true(node >= 0);
  const float *x = g->x + (size_t)node * g->dim;
  double flops = 2.0 * 16 * 48 * 24, bytes = 4.0 * (16 * 24 + 24 * 48 + 16 * 48);
  assert_float_equal(x[col[0]], log10(1 + flops) / 12, 1e-6);
  assert_float_equal(x[col[1]], log2(1 + flops / bytes) / 8, 1e-6);
  assert_float_equal(x[col[2]], 1, 0);
  assert_float_equal(x[col[3]], log2(25.0) / 12, 1e-6);
  assert_float_equal(x[col[4]], log2(49.0) / 12, 1e-6);
  assert_float_equal(x[col[5]], log2(17.0) / 12, 1e-6);
  assert_float_equal(x[col[6]], 3.0 / 9, 1e-6);
  assert_float_equal(x[col[7]], 4.0 / 9, 1e-6);
  assert_float_equal(x[col[8]], 4.0 / 9, 1e-6);
  // The function node has none of these.
  assert_float_equal(g->x[(size_t)1 * g->dim + col[0]], 0, 0);
  mqss_graph_destroy(g);
  mqss_session_destroy(s);
}

static void test_example(void **state) {
  (void)state;
  mqss_session *s = NULL;
  assert_int_equal(mqss_session_create(&s), MQSS_OK);
  mqss_module *m = NULL;
  assert_int_equal(mqss_module_parse_file(
                       s, MQSS_SOURCE_DIR "/examples/softmax_tensor_f32.mlir",
                       &m),
                   MQSS_OK);
  mqss_graph *g = NULL;
  assert_int_equal(mqss_graph_build(m, &g), MQSS_OK);
  check_csr(g);
  assert_true(g->n_ops > 10);
  assert_true(g->n_nodes > g->n_ops);
  // Every node but the module op has a neighbour (its block or owner).
  for (int i = 0; i < g->n_nodes; i++)
    assert_true(g->row_ptr[i + 1] > g->row_ptr[i]);
  mqss_graph_destroy(g);
  mqss_module_destroy(m);
  mqss_session_destroy(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_small),
      cmocka_unit_test(test_linalg_node),
      cmocka_unit_test(test_example),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
