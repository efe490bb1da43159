// Unit tests of demonstrations (src/rl/demo.c): the family baselines of
// data/baselines.yaml decode into catalog decisions, schedules included,
// and those decisions produce the IR the baseline text produces; pruning
// drops the decisions that change nothing or match no op, and keeps that IR.
// internal headers first: cmocka defines a fail() macro
#include "rl/demo.h"
#include "actions/linalg_ops.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define INPUTS MQSS_SOURCE_DIR "/tests/lit/Inputs/"
#define BASELINES MQSS_SOURCE_DIR "/data/baselines.yaml"

typedef struct {
  mqss_session *s;
  mqss_catalog *c;
  mqss_baselines *b;
} fixture;

static int setup(void **state) {
  fixture *f = calloc(1, sizeof *f);
  if (!f || mqss_session_create(&f->s) != MQSS_OK ||
      mqss_catalog_load(f->s, MQSS_SOURCE_DIR "/data/catalog.yaml", &f->c) != MQSS_OK ||
      mqss_baselines_load(f->s, BASELINES, &f->b) != MQSS_OK)
    return -1;
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fixture *f = *state;
  mqss_baselines_destroy(f->b);
  mqss_catalog_destroy(f->c);
  mqss_session_destroy(f->s);
  free(f);
  return 0;
}

static const char *const families[] = {
    "attention", "cnn",        "conv2d",  "depthwise", "layernorm",
    "matmul_chain", "mlp",     "poly_blas3", "pooling", "resblock",
    "softmax",   "transformer"};

// Every family with a pipeline decodes; a schedule becomes one decision.
static void test_every_baseline_decodes(void **state) {
  fixture *f = *state;
  for (size_t k = 0; k < sizeof families / sizeof *families; k++) {
    const char *p = mqss_baselines_pipeline(f->b, families[k]);
    assert_non_null(p);
    assert_true(p[0]);
    demo dm;
    if (demo_of(f->c, p, &dm) != 0)
      fail_msg("family %s does not decode: %s", families[k], p);
    int interpreters = 0;
    for (const char *q = p; (q = strstr(q, "transform-interpreter")); q++)
      interpreters++;
    int omp = 0; // omp-parallel's three pieces are one decision
    for (const char *q = p; (q = strstr(q, "convert-scf-to-openmp")); q++)
      omp++;
    int schedules = 0, omp_decisions = 0;
    for (int i = 0; i < dm.n; i++) {
      const mqss_action *a = mqss_catalog_action(f->c, dm.d[i].action);
      schedules += a->n_steps > 0;
      omp_decisions += !strcmp(a->name, "omp-parallel");
    }
    assert_int_equal(schedules, interpreters);
    assert_int_equal(omp_decisions, omp);
    assert_true(dm.n >= interpreters);
  }
}

static char *ir_after_text(fixture *f, const char *path, const char *pipeline) {
  mqss_module *m = NULL;
  assert_int_equal(mqss_module_parse_file(f->s, path, &m), MQSS_OK);
  linalg_tag_once(mlirModuleGetOperation(m->mod));
  if (mqss_module_run_pipeline(m, pipeline) != MQSS_OK)
    fail_msg("%s: %s", pipeline, mqss_errmsg(f->s));
  char *ir = mqss_module_to_string(m);
  mqss_module_destroy(m);
  return ir;
}

static char *ir_after_demo(fixture *f, const char *path, const demo *dm) {
  mqss_module *m = NULL;
  assert_int_equal(mqss_module_parse_file(f->s, path, &m), MQSS_OK);
  linalg_tag_once(mlirModuleGetOperation(m->mod));
  for (int i = 0; i < dm->n; i++)
    if (mqss_decision_apply(m, f->c, &dm->d[i]) != MQSS_OK)
      fail_msg("decision %d: %s", i, mqss_errmsg(f->s));
  char *ir = mqss_module_to_string(m);
  mqss_module_destroy(m);
  return ir;
}

// A pipeline step that runs one schedule script of data/schedules.
#define SCHEDULE(name)                                                         \
  "transform-preload-library{transform-library-paths=" MQSS_SOURCE_DIR        \
  "/data/schedules/" name ".mlir},transform-interpreter{entry-point=" name "}"

// mlp's register-tiling schedule and two cse passes, the second of which
// can change nothing: the decisions give the text's IR, and so do the
// pruned ones, which lack that second cse.
static void test_decisions_and_pruning_keep_the_ir(void **state) {
  fixture *f = *state;
  const char *module = INPUTS "measure_mlp_fma.mlir"; // two matmuls
  const char *text = "builtin.module(" SCHEDULE("mqss_b1b9c99b18b91237")
                     ",func.func(cse),func.func(cse))";
  demo dm;
  assert_int_equal(demo_of(f->c, text, &dm), 0);
  assert_int_equal(dm.n, 3);
  char *want = ir_after_text(f, module, text);
  char *got = ir_after_demo(f, module, &dm);
  assert_non_null(want);
  assert_non_null(strstr(want, "vector.")); // the schedule vectorised
  assert_string_equal(got, want);
  free(got);
  demo pruned = dm;
  assert_int_equal(demo_prune(f->s, f->c, module, &pruned, NULL), MQSS_OK);
  assert_true(pruned.n < dm.n);
  assert_true(pruned.n >= 1);
  assert_int_equal(pruned.d[0].action, dm.d[0].action); // the schedule stays
  got = ir_after_demo(f, module, &pruned);
  assert_string_equal(got, want);
  free(got);
  free(want);
}

// The two decomposition schedules that open resblock's recipe decompose
// NHWC, then NCHW convolutions. On a module with NCHW ones only, the first
// step matches nothing: the mask would block it, so pruning drops it
// instead of refusing the seed, and the one left gives the pipeline's IR.
static void test_pruning_drops_a_step_that_matches_nothing(void **state) {
  fixture *f = *state;
  const char *module = INPUTS "conv_nchw_only.mlir";
  const char *text = "builtin.module(" SCHEDULE("mqss_62d5b10e284ed1a0") ","
                     SCHEDULE("mqss_9a322aeff72dd2f5") ")";
  demo dm;
  assert_int_equal(demo_of(f->c, text, &dm), 0);
  assert_int_equal(dm.n, 2);
  assert_string_equal(mqss_catalog_action(f->c, dm.d[0].action)->name,
                      "conv-decompose-fma");
  mqss_module *m = NULL;
  assert_int_equal(mqss_module_parse_file(f->s, module, &m), MQSS_OK);
  linalg_tag_once(mlirModuleGetOperation(m->mod));
  assert_true(decision_matches_nothing(m, f->c, &dm.d[0]));
  assert_false(decision_matches_nothing(m, f->c, &dm.d[1]));
  assert_int_not_equal(mqss_decision_apply(m, f->c, &dm.d[0]), MQSS_OK);
  mqss_module_destroy(m);
  demo pruned = dm;
  assert_int_equal(demo_prune(f->s, f->c, module, &pruned, NULL), MQSS_OK);
  assert_int_equal(pruned.n, 1);
  assert_int_equal(pruned.d[0].action, dm.d[1].action);
  char *want = ir_after_text(f, module, text);
  char *got = ir_after_demo(f, module, &pruned);
  assert_null(strstr(want, "linalg.conv_2d")); // the recipe decomposed it
  assert_string_equal(got, want);
  free(got);
  free(want);
}

// A seed's schedule decision sized for 32 output channels on a convolution
// with 16: without adaptation the seed is refused; with it, the nearest
// sizes that divide (F 16, the others kept) replace them, and the module
// is decomposed.
static int64_t size_of(const fixture *f, const mqss_decision *d,
                       const char *name) {
  const mqss_action *a = mqss_catalog_action(f->c, d->action);
  for (int k = 0; k < a->n_params; k++)
    if (!strcmp(a->params[k].name, name))
      return strtoll(a->params[k].values[mqss_param_map(&a->params[k], d->u[k])],
                     NULL, 10);
  return -1;
}

static void test_adapting_sizes(void **state) {
  fixture *f = *state;
  const char *module = INPUTS "conv_nhwc_f16.mlir";
  int act = mqss_catalog_find(f->c, "conv-decompose-fma");
  assert_true(act >= 0);
  // OW 8 (index 4), F 32 (index 2), C 8 (index 3) of the catalog's lists
  demo dm = {.n = 1, .d = {{.action = act, .u = {0.8f, 0.67f, 0.75f}}}};
  assert_int_equal(size_of(f, &dm.d[0], "OW"), 8);
  assert_int_equal(size_of(f, &dm.d[0], "F"), 32);
  assert_int_equal(size_of(f, &dm.d[0], "C"), 8);
  demo refused = dm;
  assert_int_equal(demo_prune(f->s, f->c, module, &refused, NULL),
                   MQSS_ERR_INVALID_ARG);
  demo adapted = dm;
  int n = 0;
  assert_int_equal(demo_prune(f->s, f->c, module, &adapted, &n), MQSS_OK);
  assert_int_equal(n, 1);
  assert_int_equal(adapted.n, 1);
  // F 16 with C 8 would vectorise 1024 elements, over the bound, so the
  // nearest that fit are two steps away: (OW 8, F 16, C 4) and (OW 4, F 16,
  // C 8); the enumeration meets the first one first
  assert_int_equal(size_of(f, &adapted.d[0], "OW"), 8);
  assert_int_equal(size_of(f, &adapted.d[0], "F"), 16);
  assert_int_equal(size_of(f, &adapted.d[0], "C"), 4);
  mqss_module *m = NULL;
  assert_int_equal(mqss_module_parse_file(f->s, module, &m), MQSS_OK);
  linalg_tag_once(mlirModuleGetOperation(m->mod));
  mqss_decision t = adapted.d[0];
  t.u[2] = 0.75f; // C 8
  char why[256] = "";
  assert_false(decision_fits(m, f->c, &t, why, sizeof why));
  assert_non_null(strstr(why, "exceeds the bound"));
  assert_true(decision_fits(m, f->c, &adapted.d[0], NULL, 0));
  mqss_module_destroy(m);
  char *got = ir_after_demo(f, module, &adapted);
  assert_non_null(got);
  assert_null(strstr(got, "linalg.conv_2d_nhwc_hwcf")); // decomposed
  free(got);
}

// softmax's recipe opens with register tiles of N = 16, kind-wide. On a
// module whose head matmul has N = 10 that decision does not fit every
// matmul: the seed is not refused but takes the per-op form the policy
// takes (the heaviest matmul, then its repeat on the other hidden layer),
// each listed.
static void test_kind_wide_step_becomes_per_op(void **state) {
  fixture *f = *state;
  const char *module = INPUTS "head_10_classes.mlir";
  const char *text = "builtin.module(" SCHEDULE("mqss_102ca8b508881aa0") ")";
  demo dm;
  assert_int_equal(demo_of(f->c, text, &dm), 0);
  assert_int_equal(dm.n, 1);
  assert_int_equal(dm.d[0].op, 0);
  assert_string_equal(mqss_catalog_action(f->c, dm.d[0].action)->name,
                      "register-tile-fma");
  assert_int_equal(size_of(f, &dm.d[0], "N"), 16);
  mqss_module *m = NULL;
  assert_int_equal(mqss_module_parse_file(f->s, module, &m), MQSS_OK);
  linalg_tag_once(mlirModuleGetOperation(m->mod));
  char why[256] = "";
  assert_false(decision_fits(m, f->c, &dm.d[0], why, sizeof why));
  assert_non_null(strstr(why, "extent 10"));
  mqss_module_destroy(m);
  demo pruned = dm;
  assert_int_equal(demo_prune(f->s, f->c, module, &pruned, NULL), MQSS_OK);
  assert_int_equal(pruned.n, 2);
  assert_int_equal(pruned.d[0].action, dm.d[0].action);
  assert_int_equal(pruned.d[1].action, dm.d[0].action);
  assert_true(pruned.d[0].op > 0);
  assert_true(pruned.d[1].op > 0);
  assert_int_not_equal(pruned.d[0].op, pruned.d[1].op);
  // the hidden layers are register-tiled and vectorised, as by the text;
  // the head stays as it was (the text's script tiles it, then fails to
  // vectorise it and leaves it so)
  char *want = ir_after_text(f, module, text);
  char *got = ir_after_demo(f, module, &pruned);
  assert_int_equal(count_of(want, "linalg.matmul"), 1);
  assert_int_equal(count_of(got, "linalg.matmul"), 1);
  assert_int_equal(count_of(want, "vector.fma"), count_of(got, "vector.fma"));
  assert_true(count_of(got, "vector.fma") > 0);
  assert_non_null(strstr(got, "linalg.matmul {mqss.id = 5 : i64} ins("));
  assert_non_null(strstr(want, "linalg.matmul {mqss.id = 5 : i64, mqss.tiled}"));
  free(got);
  free(want);
}

// A schedule script that no decision prints (a tile size changed by hand)
// does not decode.
static void test_foreign_script_does_not_decode(void **state) {
  fixture *f = *state;
  // mlp's first script that tiles (its split in front does not)
  const char *entry = mqss_baselines_pipeline(f->b, "mlp");
  char name[64], src[4096], dir[] = "/tmp/mqss_demo_XXXXXX", dst[4200];
  for (;;) {
    entry = strstr(entry, "entry-point=");
    assert_non_null(entry);
    entry += strlen("entry-point=");
    snprintf(name, sizeof name, "%.*s", (int)strcspn(entry, "})"), entry);
    snprintf(src, sizeof src, MQSS_SOURCE_DIR "/data/schedules/%s.mlir", name);
    strbuf script = {0};
    assert_true(sb_read_file(&script, src));
    bool tiles = strstr(script.data, "tile_sizes [") != NULL;
    sb_free(&script);
    if (tiles)
      break;
  }
  assert_non_null(mkdtemp(dir));
  snprintf(dst, sizeof dst, "%s/%s.mlir", dir, name);
  FILE *in = fopen(src, "r"), *out = fopen(dst, "w");
  assert_non_null(in);
  assert_non_null(out);
  char line[4096];
  int changed = 0;
  while (fgets(line, sizeof line, in)) {
    char *t = strstr(line, "tile_sizes [");
    if (t && !changed++) {
      fprintf(out, "%.*stile_sizes [7777, %s", (int)(t - line), line,
              strchr(t, ',') + 2);
      continue;
    }
    fputs(line, out);
  }
  fclose(in);
  fclose(out);
  assert_true(changed >= 1);
  char text[8192];
  snprintf(text, sizeof text,
           "builtin.module(transform-preload-library{transform-library-paths="
           "%s},transform-interpreter{entry-point=%s})", dst, name);
  demo dm;
  assert_int_equal(demo_of(f->c, text, &dm), -1);
  // the untouched file decodes
  snprintf(text, sizeof text,
           "builtin.module(transform-preload-library{transform-library-paths="
           "%s},transform-interpreter{entry-point=%s})", src, name);
  assert_int_equal(demo_of(f->c, text, &dm), 0);
  assert_int_equal(dm.n, 1);
  unlink(dst);
  rmdir(dir);
}

// A kind_wide action (parallel-tile-named) addresses every op of its kinds
// in one decision; parallel-tile addresses the focus op alone.
static void test_kind_wide_split(void **state) {
  fixture *f = *state;
  static const char two_matmuls[] =
      "func.func @f(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>,\n"
      "             %c: tensor<64x64xf32>) -> tensor<64x64xf32> {\n"
      "  %x = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>)\n"
      "                     outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>\n"
      "  %y = linalg.matmul ins(%x, %b : tensor<64x64xf32>, tensor<64x64xf32>)\n"
      "                     outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>\n"
      "  return %y : tensor<64x64xf32>\n"
      "}\n";
  const char *names[] = {"parallel-tile-named", "parallel-tile"};
  for (int k = 0; k < 2; k++) {
    mqss_module *m = NULL;
    assert_int_equal(mqss_module_parse_string(f->s, two_matmuls,
                                              sizeof two_matmuls - 1, "two.mlir", &m),
                     MQSS_OK);
    linalg_tag_once(mlirModuleGetOperation(m->mod));
    mqss_decision d = {.action = mqss_catalog_find(f->c, names[k])};
    assert_true(d.action >= 0);
    d.op = decision_focus(m, f->c, &d);
    assert_int_equal(d.op == 0, k == 0);
    assert_int_equal(mqss_decision_apply(m, f->c, &d), MQSS_OK);
    char *ir = mqss_module_to_string(m);
    assert_int_equal(count_of(ir, "scf.forall ("), k == 0 ? 2 : 1);
    free(ir);
    mqss_module_destroy(m);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_baseline_decodes),
      cmocka_unit_test(test_decisions_and_pruning_keep_the_ir),
      cmocka_unit_test(test_pruning_drops_a_step_that_matches_nothing),
      cmocka_unit_test(test_kind_wide_step_becomes_per_op),
      cmocka_unit_test(test_adapting_sizes),
      cmocka_unit_test(test_foreign_script_does_not_decode),
      cmocka_unit_test(test_kind_wide_split),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
