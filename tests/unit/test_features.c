// Unit tests of the state vector: the layout (unique names, docs, hash, the
// older versions), and values derived by hand for small modules (flops and
// bytes of a matmul, iterators, loop trip counts, affine-access fraction,
// loop-carried memory, strides/dilations, tile divisibility and the focus
// op) and for an action history.
#include "features/layout.h" // before cmocka: its fail() macro
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "mqss/mqss.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int idx(const char *name) {
  for (int i = 0; i < MQSS_FEATURE_DIM; i++)
    if (!strcmp(mqss_feature_name(i), name))
      return i;
  fail_msg("no feature named %s", name);
  return -1;
}

static void expect(const float *f, const char *name, double want) {
  double got = f[idx(name)];
  if (fabs(got - want) > 1e-5)
    fail_msg("%s: got %.7g, want %.7g (maxdiff %.3g)", name, got, want,
             fabs(got - want));
}

static void features_of(const char *ir, const mqss_catalog *c,
                        const int *hist, int n, float *f) {
  mqss_session *s = NULL;
  assert_int_equal(mqss_session_create(&s), MQSS_OK);
  mqss_module *m = NULL;
  assert_int_equal(mqss_module_parse_string(s, ir, strlen(ir), NULL, &m),
                   MQSS_OK);
  assert_int_equal(mqss_features(m, c, hist, n, 16, f), MQSS_OK);
  for (int i = 0; i < MQSS_FEATURE_DIM; i++)
    assert_true(isfinite(f[i]));
  mqss_module_destroy(m);
  mqss_session_destroy(s);
}

// ----------------------------------------------------------------------------

static void test_layout(void **state) {
  (void)state;
  for (int i = 0; i < MQSS_FEATURE_DIM; i++) {
    assert_non_null(mqss_feature_name(i));
    assert_non_null(mqss_feature_doc(i));
    for (int j = 0; j < i; j++)
      if (!strcmp(mqss_feature_name(i), mqss_feature_name(j)))
        fail_msg("features %d and %d are both %s", j, i, mqss_feature_name(i));
  }
  assert_null(mqss_feature_name(MQSS_FEATURE_DIM));
  assert_null(mqss_feature_name(-1));
  // Three levels, in order: syntax, semantics, context.
  assert_int_equal(strncmp(mqss_feature_name(0), "syn.", 4), 0);
  assert_int_equal(strncmp(mqss_feature_name(255), "ctx.", 4), 0);
  assert_string_equal(mqss_feature_name(255), "ctx.count.overflow");
  assert_string_equal(mqss_feature_name(256), "op.loops.static_frac");
  assert_string_equal(mqss_feature_name(MQSS_FEATURE_DIM - 1),
                      "op.focus.div.l3.T512");
  for (int i = 0; i < MQSS_GRAPH_FEATURE_DIM; i++) {
    assert_non_null(mqss_graph_feature_name(i));
    assert_non_null(mqss_graph_feature_doc(i));
  }
  assert_null(mqss_graph_feature_name(MQSS_GRAPH_FEATURE_DIM));
  // Versions: oldest first, each a prefix of the next; the last is ours.
  const feature_layout *v;
  int n = feature_layouts(&v);
  assert_true(n >= 2);
  assert_int_equal(v[n - 1].version, mqss_feature_layout_version());
  assert_true(v[n - 1].hash == mqss_feature_layout_hash());
  assert_int_equal(v[n - 1].state_dim, MQSS_FEATURE_DIM);
  for (int k = 1; k < n; k++) {
    assert_true(v[k].state_dim >= v[k - 1].state_dim);
    assert_true(v[k].node_dim >= v[k - 1].node_dim);
    assert_true(v[k].hash != v[k - 1].hash);
  }
  // v2 is the layout of tests/lit/Inputs/policy_v2_42actions.safetensors
  // (test_migrate.c): its hash must come out of the table as it did when
  // that policy was written.
  const feature_layout *v2 = feature_layout_of_hash(0xe832805fbd8b438aULL);
  assert_non_null(v2);
  assert_int_equal(v2->version, 2);
  assert_int_equal(v2->state_dim, 256);
  assert_int_equal(v2->node_dim, 12);
  assert_int_equal(idx("syn.op.linalg.matmul") + 0,
                   idx("syn.op.linalg.generic") + 1);
}

// C[4x2] += A[4x8] * B[8x2] on memrefs: domain 4*2*8 = 64 points, body
// mulf + addf = 2 flops each -> 128 flops; bytes (32 + 16 + 8) * 4 = 224.
static void test_matmul_semantics(void **state) {
  (void)state;
  float f[MQSS_FEATURE_DIM];
  features_of("func.func @m(%a: memref<4x8xf32>, %b: memref<8x2xf32>,"
              " %c: memref<4x2xf32>) {\n"
              "  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x2xf32>)\n"
              "                outs(%c : memref<4x2xf32>)\n"
              "  return\n}\n",
              NULL, NULL, 0, f);
  expect(f, "sem.flops", log10(129.0) / 12);
  expect(f, "sem.bytes", log10(225.0) / 12);
  expect(f, "sem.flop_per_byte", log2(1.0 + 128.0 / 224.0) / 8);
  expect(f, "sem.linalg.named_frac", 1.0);
  expect(f, "sem.linalg.parallel_iters", log2(3.0) / 8);
  expect(f, "sem.linalg.reduction_iters", log2(2.0) / 8);
  expect(f, "sem.linalg.reduction_frac", 1.0 / 3);
  expect(f, "sem.linalg.iters_max", 3.0 / 8);
  // module, func, matmul, mulf, addf, yield, return = 7 ops.
  expect(f, "syn.op.linalg.matmul", 1.0 / 7);
  expect(f, "syn.num_ops", log10(8.0) / 6);
  expect(f, "ctx.stage.buffer", 1);
  expect(f, "ctx.stage.linalg", 1);
  expect(f, "ctx.stage.tensor", 0);
  expect(f, "sem.loop.count", 0);
  expect(f, "sem.shape.rank_max", 2.0 / 4);
  expect(f, "sem.shape.numel_max", log10(33.0) / 9);
}

// The same matmul as a generic with explicit maps gives the same domain.
static void test_generic_domain(void **state) {
  (void)state;
  float f[MQSS_FEATURE_DIM];
  features_of(
      "#a = affine_map<(i, j, k) -> (i, k)>\n"
      "#b = affine_map<(i, j, k) -> (k, j)>\n"
      "#c = affine_map<(i, j, k) -> (i, j)>\n"
      "func.func @g(%a: memref<4x8xf32>, %b: memref<8x2xf32>,"
      " %c: memref<4x2xf32>) {\n"
      "  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types ="
      " [\"parallel\", \"parallel\", \"reduction\"]}\n"
      "    ins(%a, %b : memref<4x8xf32>, memref<8x2xf32>)"
      " outs(%c : memref<4x2xf32>) {\n"
      "  ^bb0(%x: f32, %y: f32, %z: f32):\n"
      "    %p = arith.mulf %x, %y : f32\n"
      "    %s = arith.addf %z, %p : f32\n"
      "    linalg.yield %s : f32\n"
      "  }\n  return\n}\n",
      NULL, NULL, 0, f);
  expect(f, "sem.flops", log10(129.0) / 12);
  expect(f, "sem.linalg.named_frac", 0.0);
  expect(f, "sem.linalg.reduction_frac", 1.0 / 3);
}

// The matmul above has loops (m, n, k) = (4, 2, 8): loop -1 is k = 8, -2 is
// n = 2, -3 is m = 4. Tile 2 divides all three, 4 two, 8 one, 16 none.
static void test_tile_divisibility(void **state) {
  (void)state;
  float f[MQSS_FEATURE_DIM];
  features_of("func.func @m(%a: memref<4x8xf32>, %b: memref<8x2xf32>,"
              " %c: memref<4x2xf32>) {\n"
              "  linalg.matmul {mqss.id = 7 : i64}\n"
              "    ins(%a, %b : memref<4x8xf32>, memref<8x2xf32>)\n"
              "    outs(%c : memref<4x2xf32>)\n"
              "  return\n}\n",
              NULL, NULL, 0, f);
  expect(f, "op.loops.static_frac", 1.0);
  expect(f, "op.loops.div.T2", 1.0);
  expect(f, "op.loops.div.T4", 2.0 / 3);
  expect(f, "op.loops.div.T8", 1.0 / 3);
  expect(f, "op.loops.div.T16", 0.0);
  expect(f, "op.focus.present", 1.0);
  expect(f, "op.focus.flops_frac", 1.0);
  expect(f, "op.focus.loops", 3.0 / 8);
  expect(f, "op.focus.tagged", 1.0);
  expect(f, "op.focus.intensity", log2(1.0 + 128.0 / 224.0) / 8);
  expect(f, "op.intensity_max", log2(1.0 + 128.0 / 224.0) / 8);
  expect(f, "op.focus.extent.1", log2(9.0) / 12);
  expect(f, "op.focus.extent.2", log2(3.0) / 12);
  expect(f, "op.focus.extent.3", log2(5.0) / 12);
  expect(f, "op.focus.div.l1.T8", 1.0);
  expect(f, "op.focus.div.l1.T16", 0.0);
  expect(f, "op.focus.div.l2.T2", 1.0);
  expect(f, "op.focus.div.l2.T4", 0.0);
  expect(f, "op.focus.div.l3.T4", 1.0);
  expect(f, "op.focus.div.l3.T8", 0.0);
  // The history rewrite (select reuses IR features) keeps the shapes.
  features_write_history(NULL, NULL, 0, 16, f);
  expect(f, "op.focus.div.l1.T8", 1.0);
}

// Two matmuls: the focus is the one with more flops (64x64x64), and the
// module-level fractions count the loops of both.
static void test_focus_heaviest(void **state) {
  (void)state;
  float f[MQSS_FEATURE_DIM];
  features_of("func.func @m(%a: memref<4x8xf32>, %b: memref<8x2xf32>,"
              " %c: memref<4x2xf32>, %x: memref<64x64xf32>) {\n"
              "  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x2xf32>)\n"
              "                outs(%c : memref<4x2xf32>)\n"
              "  linalg.matmul ins(%x, %x : memref<64x64xf32>, memref<64x64xf32>)\n"
              "                outs(%x : memref<64x64xf32>)\n"
              "  return\n}\n",
              NULL, NULL, 0, f);
  expect(f, "op.focus.div.l1.T64", 1.0);
  expect(f, "op.focus.div.l1.T128", 0.0);
  expect(f, "op.focus.extent.3", log2(65.0) / 12);
  expect(f, "op.focus.tagged", 0.0);
  expect(f, "op.focus.flops_frac", 2.0 * 64 * 64 * 64 / (2.0 * 64 * 64 * 64 + 128));
  expect(f, "op.loops.div.T64", 3.0 / 6);
  expect(f, "op.loops.div.T2", 6.0 / 6);
}

// Every tile size a catalog divisor parameter offers (1 aside) has a
// divisibility feature.
static void test_catalog_tile_sizes(void **state) {
  (void)state;
  mqss_session *s = NULL;
  assert_int_equal(mqss_session_create(&s), MQSS_OK);
  mqss_catalog *c = NULL;
  assert_int_equal(
      mqss_catalog_load(s, MQSS_SOURCE_DIR "/data/catalog.yaml", &c), MQSS_OK);
  int seen = 0;
  for (int i = 0; i < mqss_catalog_size(c); i++) {
    const mqss_action *a = mqss_catalog_action(c, i);
    for (int p = 0; p < a->n_params; p++) {
      if (a->params[p].kind != MQSS_PARAM_DIVISOR)
        continue;
      for (int v = 0; v < a->params[p].n_values; v++) {
        long t = atol(a->params[p].values[v]);
        bool found = t == 1;
        for (int k = 0; k < N_TILES && !found; k++)
          found = feature_tile_size(k) == t;
        if (!found)
          fail_msg("%s.%s offers tile %ld: no op.loops.div feature", a->name,
                   a->params[p].name, t);
        seen++;
      }
    }
  }
  assert_true(seen > 0);
  mqss_catalog_destroy(c);
  mqss_session_destroy(s);
}

// One affine loop of 16 trips: load, add, store the same memref.
static void test_affine_loop(void **state) {
  (void)state;
  float f[MQSS_FEATURE_DIM];
  features_of("func.func @f(%a: memref<16xf32>) {\n"
              "  affine.for %i = 0 to 16 {\n"
              "    %v = affine.load %a[%i] : memref<16xf32>\n"
              "    %w = arith.addf %v, %v : f32\n"
              "    affine.store %w, %a[%i] : memref<16xf32>\n"
              "  }\n  return\n}\n",
              NULL, NULL, 0, f);
  expect(f, "sem.loop.count", log10(2.0) / 3);
  expect(f, "sem.loop.depth_max", 1.0 / 8);
  expect(f, "sem.loop.trip_max", log10(17.0) / 6);
  expect(f, "sem.loop.static_frac", 1.0);
  expect(f, "sem.loop.iterations_max", log10(17.0) / 9);
  expect(f, "sem.loop.affine_frac", 1.0);
  expect(f, "sem.mem.affine_frac", 1.0);
  expect(f, "sem.mem.loads", log10(2.0) / 4);
  expect(f, "sem.dep.memory_frac", 1.0);
  expect(f, "sem.dep.iter_args_frac", 0.0);
  expect(f, "sem.flops", log10(17.0) / 12);          // 16 addf
  expect(f, "sem.bytes", log10(129.0) / 12);         // 16 * (4 + 4)
  expect(f, "ctx.stage.affine", 1);
}

// scf.for with 0..10 step 3 (4 trips) carrying a value: a reduction.
static void test_scf_carried(void **state) {
  (void)state;
  float f[MQSS_FEATURE_DIM];
  features_of("func.func @r(%a: memref<10xf64>) -> f64 {\n"
              "  %c0 = arith.constant 0 : index\n"
              "  %c3 = arith.constant 3 : index\n"
              "  %c10 = arith.constant 10 : index\n"
              "  %z = arith.constant 0.0 : f64\n"
              "  %s = scf.for %i = %c0 to %c10 step %c3 iter_args(%acc = %z)"
              " -> (f64) {\n"
              "    %v = memref.load %a[%i] : memref<10xf64>\n"
              "    %n = arith.addf %acc, %v : f64\n"
              "    scf.yield %n : f64\n"
              "  }\n  return %s : f64\n}\n",
              NULL, NULL, 0, f);
  expect(f, "sem.loop.trip_max", log10(5.0) / 6);
  expect(f, "sem.loop.scf_for_frac", 1.0);
  expect(f, "sem.dep.iter_args_frac", 1.0);
  expect(f, "sem.dep.memory_frac", 0.0);
  expect(f, "sem.mem.affine_frac", 0.0);
  expect(f, "sem.flops", log10(5.0) / 12);   // 4 addf
  expect(f, "sem.bytes", log10(33.0) / 12);  // 4 loads of 8 bytes
  expect(f, "ctx.stage.loops", 1);
}

static void test_strides_dilations_example(void **state) {
  (void)state;
  mqss_session *s = NULL;
  assert_int_equal(mqss_session_create(&s), MQSS_OK);
  mqss_module *m = NULL;
  assert_int_equal(
      mqss_module_parse_file(
          s, MQSS_SOURCE_DIR
          "/examples/conv2d_nchw_fchw_strided_dilated_memref_f32.mlir", &m),
      MQSS_OK);
  float f[MQSS_FEATURE_DIM];
  assert_int_equal(mqss_features(m, NULL, NULL, 0, 16, f), MQSS_OK);
  expect(f, "sem.conv.stride_max", 2.0 / 4); // strides = 2 in the file
  expect(f, "sem.conv.dilation_max", 2.0 / 4);
  expect(f, "sem.conv.strided_frac", 1.0);
  expect(f, "sem.conv.ops", log2(2.0) / 4);
  mqss_module_destroy(m);
  mqss_session_destroy(s);
}

static void test_context(void **state) {
  (void)state;
  mqss_session *s = NULL;
  assert_int_equal(mqss_session_create(&s), MQSS_OK);
  mqss_catalog *c = NULL;
  assert_int_equal(
      mqss_catalog_load(s, MQSS_SOURCE_DIR "/data/catalog.yaml", &c), MQSS_OK);
  double n = mqss_catalog_size(c);
  mqss_session_destroy(NULL);
  float f[MQSS_FEATURE_DIM];
  int hist[] = {1, 1, 14};
  features_of("func.func @e() {\n  return\n}\n", c, hist, 3, f);
  expect(f, "ctx.step", 3.0 / 16);
  expect(f, "ctx.history_len", 0.3);
  expect(f, "ctx.last.1", 15.0 / n);
  expect(f, "ctx.last.2", 2.0 / n);
  expect(f, "ctx.last.3", 2.0 / n);
  expect(f, "ctx.last.4", 0.0);
  expect(f, "ctx.count.1", 2.0 / 16);
  expect(f, "ctx.count.14", 1.0 / 16);
  expect(f, "ctx.count.0", 0.0);
  // Without a catalog the history is ignored.
  features_of("func.func @e() {\n  return\n}\n", NULL, hist, 3, f);
  expect(f, "ctx.step", 0.0);
  expect(f, "ctx.count.1", 0.0);
  mqss_catalog_destroy(c);
  mqss_session_destroy(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_layout),
      cmocka_unit_test(test_matmul_semantics),
      cmocka_unit_test(test_generic_domain),
      cmocka_unit_test(test_tile_divisibility),
      cmocka_unit_test(test_focus_heaviest),
      cmocka_unit_test(test_catalog_tile_sizes),
      cmocka_unit_test(test_affine_loop),
      cmocka_unit_test(test_scf_carried),
      cmocka_unit_test(test_strides_dilations_example),
      cmocka_unit_test(test_context),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
