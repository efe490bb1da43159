// Unit tests of the action catalog: the shipped catalog's shape, every
// pipeline accepted by MLIR at the ends and middle of each parameter range,
// parameter mapping, template filling, adding an action by editing the YAML,
// error locations, the hash, scoping an action to one function, the
// family recipe actions, and each schedule preloaded once in a printed
// pipeline.
#include "actions/schedule.h" // before cmocka.h, whose fail() macro it would clash with

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "check.h"

#include "mqss/mqss.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *CATALOG = MQSS_SOURCE_DIR "/data/catalog.yaml";


static mqss_catalog *load(mqss_session *s, const char *path) {
  mqss_catalog *c = NULL;
  if (mqss_catalog_load(s, path, &c) != MQSS_OK)
    fail_msg("catalog load failed: %s", mqss_errmsg(s));
  return c;
}

static mqss_module *parse(mqss_session *s, const char *text) {
  mqss_module *m = NULL;
  if (mqss_module_parse_string(s, text, strlen(text), "t.mlir", &m) != MQSS_OK)
    fail_msg("parse failed: %s", mqss_errmsg(s));
  return m;
}

static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = calloc((size_t)n + 1, 1);
  assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
  fclose(f);
  return buf;
}

static void spit(const char *path, const char *a, const char *b) {
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  fputs(a, f);
  fputs(b, f);
  fclose(f);
}

// ----------------------------------------------------------------------------

static void test_shipped_catalog(void **state) {
  mqss_catalog *c = load(*state, CATALOG);
  int n = mqss_catalog_size(c), parametric = 0, func_anchored = 0;
  unsigned stages = 0;
  assert_true(n >= 31); // >= 30 actions plus STOP
  int stop = mqss_catalog_stop(c);
  assert_true(stop >= 0);
  assert_true(mqss_catalog_action(c, stop)->is_stop);
  for (int i = 0; i < n; i++) {
    const mqss_action *a = mqss_catalog_action(c, i);
    assert_int_equal(mqss_catalog_find(c, a->name), i);
    parametric += a->n_params > 0;
    func_anchored += !strcmp(a->anchor, "func.func");
    stages |= a->requires_stages | a->produces_stages;
  }
  assert_true(parametric >= 8);
  assert_true(func_anchored >= 20);
  // The catalog spans tensor, buffer, linalg, loops, affine and vector.
  unsigned want = MQSS_STAGE_TENSOR | MQSS_STAGE_BUFFER | MQSS_STAGE_LINALG |
                  MQSS_STAGE_LOOPS | MQSS_STAGE_AFFINE | MQSS_STAGE_VECTOR;
  assert_int_equal(stages & want, want);
  assert_null(mqss_catalog_action(c, n));
  assert_null(mqss_catalog_action(c, -1));
  assert_int_equal(mqss_catalog_find(c, "no-such-action"), -1);
  mqss_catalog_destroy(c);
  mqss_catalog_destroy(NULL);
}

// Every action runs on a trivial module at u = -1, 0 and 1: pass names and
// options exist in this MLIR, and the filled templates parse. Schedule
// actions refuse a module without their ops, so their pipelines are run
// directly: the generated scripts parse and interpret (matching nothing).
static void test_every_pipeline_runs(void **state) {
  mqss_session *s = *state;
  mqss_catalog *c = load(s, CATALOG);
  mqss_module *base = parse(s, "func.func @f(%a: memref<8xf32>) {\n"
                               "  return\n}\n");
  static const float us[] = {-1.0f, 0.0f, 1.0f};
  for (int i = 0; i < mqss_catalog_size(c); i++)
    for (int k = 0; k < 3; k++) {
      mqss_decision d = {.action = i};
      for (int p = 0; p < MQSS_MAX_PARAMS; p++)
        d.u[p] = us[k];
      mqss_module *m = mqss_module_clone(base);
      mqss_status st;
      if (mqss_catalog_action(c, i)->n_steps) {
        char *text = mqss_decision_pipeline(c, &d);
        assert_non_null(text);
        st = mqss_module_run_pipeline(m, text);
        free(text);
      } else {
        st = mqss_decision_apply(m, c, &d);
      }
      if (st != MQSS_OK)
        fail_msg("action %s (u=%g): %s", mqss_catalog_action(c, i)->name,
                 (double)us[k], mqss_errmsg(s));
      mqss_module_destroy(m);
    }
  mqss_module_destroy(base);
  mqss_catalog_destroy(c);
}

static void test_param_map(void **state) {
  (void)state;
  mqss_param ip = {.name = "F", .kind = MQSS_PARAM_INT, .min = 2, .max = 16};
  assert_int_equal(mqss_param_map(&ip, -1.0f), 2);
  assert_int_equal(mqss_param_map(&ip, 1.0f), 16);
  assert_int_equal(mqss_param_map(&ip, 0.0f), 9);   // 2 + round(0.5 * 14)
  assert_int_equal(mqss_param_map(&ip, 7.0f), 16);  // clipped
  assert_int_equal(mqss_param_map(&ip, -7.0f), 2);
  assert_int_equal(mqss_param_map(&ip, NAN), 9);    // NaN counts as 0
  mqss_param lp = {.name = "T", .kind = MQSS_PARAM_LOG_INT, .min = 4,
                   .max = 128};
  assert_int_equal(mqss_param_map(&lp, -1.0f), 4);
  assert_int_equal(mqss_param_map(&lp, 1.0f), 128);
  // Geometric middle: 4 * 32^0.5 = 22.63 -> 23.
  assert_int_equal(mqss_param_map(&lp, 0.0f), 23);
  // t = 0.8: 4 * 32^0.8 = 64 exactly.
  assert_int_equal(mqss_param_map(&lp, 0.6f), 64);
  static const char *const vals[] = {"greedy", "producer", "sibling"};
  mqss_param cp = {.name = "M", .kind = MQSS_PARAM_CHOICE, .n_values = 3,
                   .values = vals};
  assert_int_equal(mqss_param_map(&cp, -1.0f), 0);
  assert_int_equal(mqss_param_map(&cp, 0.0f), 1);
  assert_int_equal(mqss_param_map(&cp, 1.0f), 2);
  assert_int_equal(mqss_param_map(&cp, -0.4f), 0); // t = 0.3 -> floor(0.9)
  mqss_param bp = {.name = "B", .kind = MQSS_PARAM_BOOL};
  assert_int_equal(mqss_param_map(&bp, 0.1f), 1);
  assert_int_equal(mqss_param_map(&bp, -0.1f), 0);
  assert_int_equal(mqss_param_map(&bp, 0.0f), 0);
}

static void test_pipeline_text(void **state) {
  mqss_session *s = *state;
  mqss_catalog *c = load(s, CATALOG);
  mqss_decision d = {.action = mqss_catalog_find(c, "affine-tile"),
                     .u = {1.0f}};
  char *t = mqss_decision_pipeline(c, &d);
  assert_string_equal(t, "func.func(affine-loop-tile{tile-size=128})");
  free(t);
  d = (mqss_decision){.action = mqss_catalog_find(c, "affine-parallelize"),
                      .u = {-1.0f, 0.5f}};
  t = mqss_decision_pipeline(c, &d);
  assert_string_equal(t, "func.func(affine-parallelize{max-nested=1 "
                         "parallel-reductions=true})");
  free(t);
  d = (mqss_decision){.action = mqss_catalog_find(c, "affine-fusion"),
                      .u = {0.9f}};
  t = mqss_decision_pipeline(c, &d);
  assert_string_equal(t, "func.func(affine-loop-fusion{mode=sibling})");
  free(t);
  d = (mqss_decision){.action = mqss_catalog_find(c, "inline")};
  t = mqss_decision_pipeline(c, &d);
  assert_string_equal(t, "builtin.module(inline)");
  free(t);
  d = (mqss_decision){.action = 999};
  assert_null(mqss_decision_pipeline(c, &d));
  assert_non_null(strstr(mqss_errmsg(s), "999"));
  mqss_catalog_destroy(c);
}

// A user adds an action by editing the YAML: append one entry and load.
static void test_add_action_by_editing(void **state) {
  mqss_session *s = *state;
  mqss_catalog *c = load(s, CATALOG);
  char *text = slurp(CATALOG);
  const char *path = "test_catalog_added.yaml";
  spit(path, text,
       "  - name: my-sroa\n"
       "    pipeline: \"sroa,canonicalize{max-iterations=$N}\"\n"
       "    anchor: func.func\n"
       "    needs: [memref.alloca]\n"
       "    params:\n"
       "      - {name: N, kind: int, min: 1, max: 9}\n");
  mqss_catalog *c2 = load(s, path);
  int n = mqss_catalog_size(c);
  assert_int_equal(mqss_catalog_size(c2), n + 1);
  int id = mqss_catalog_find(c2, "my-sroa");
  assert_int_equal(id, n);
  const mqss_action *a = mqss_catalog_action(c2, id);
  assert_int_equal(a->n_params, 1);
  assert_int_equal(a->params[0].max, 9);
  assert_int_equal(a->n_needs, 1);
  assert_string_equal(a->needs[0], "memref.alloca");
  assert_true(mqss_catalog_hash(c2) != mqss_catalog_hash(c));
  mqss_decision d = {.action = id, .u = {1.0f}};
  char *t = mqss_decision_pipeline(c2, &d);
  assert_string_equal(t, "func.func(sroa,canonicalize{max-iterations=9})");
  free(t);
  mqss_module *m = parse(s, "func.func @f() {\n  return\n}\n");
  assert_int_equal(mqss_decision_apply(m, c2, &d), MQSS_OK);
  mqss_module_destroy(m);
  // A comment changes nothing: same hash.
  spit(path, "# a comment\n", text);
  mqss_catalog *c3 = load(s, path);
  assert_true(mqss_catalog_hash(c3) == mqss_catalog_hash(c));
  remove(path);
  free(text);
  mqss_catalog_destroy(c3);
  mqss_catalog_destroy(c2);
  mqss_catalog_destroy(c);
}

static void expect_error(mqss_session *s, const char *yaml, const char *where,
                         const char *what) {
  const char *path = "test_catalog_bad.yaml";
  spit(path, yaml, "");
  mqss_catalog *c = NULL;
  assert_int_equal(mqss_catalog_load(s, path, &c), MQSS_ERR_PARSE);
  assert_null(c);
  if (!strstr(mqss_errmsg(s), where) || !strstr(mqss_errmsg(s), what))
    fail_msg("expected '%s' and '%s' in: %s", where, what, mqss_errmsg(s));
  remove(path);
}

static void test_errors_name_location(void **state) {
  mqss_session *s = *state;
  expect_error(s,
               "version: 1\nactions:\n  - name: a\n    pipeline: cse\n"
               "    params:\n      - {name: X, kind: float}\n",
               "test_catalog_bad.yaml:6:", "unknown parameter kind 'float'");
  expect_error(s, "version: 1\nactions:\n  - name: a\n    pipline: cse\n",
               "test_catalog_bad.yaml:4:5", "unknown key 'pipline'");
  expect_error(s,
               "version: 1\nactions:\n  - name: a\n    pipeline: \"x{a=$Y}\"\n",
               "test_catalog_bad.yaml:3:5", "slot $Y has no parameter");
  expect_error(s, "version: 1\nactions:\n  - name: a\n    pipeline: [cse\n",
               "test_catalog_bad.yaml:5:", "");
  expect_error(s,
               "version: 1\nactions:\n  - name: a\n    pipeline: cse\n"
               "    requires: [gpu]\n",
               "test_catalog_bad.yaml:5:15", "unknown stage 'gpu'");
  expect_error(s,
               "version: 1\nactions:\n  - name: a\n    pipeline: cse\n"
               "  - name: a\n    pipeline: cse\n",
               "test_catalog_bad.yaml:5:5", "duplicate action name 'a'");
  // schedule actions
  expect_error(s,
               "version: 1\nactions:\n  - name: a\n    schedule: [tile, "
               "spin]\n    ops: [linalg.matmul]\n",
               "test_catalog_bad.yaml:4:15", "unknown schedule step 'spin'");
  expect_error(s,
               "version: 1\nactions:\n  - name: a\n    schedule: [tile]\n"
               "    ops: [linalg.generic]\n",
               "test_catalog_bad.yaml:4:15", "cannot tile linalg.generic");
  expect_error(s,
               "version: 1\nactions:\n  - name: a\n    schedule: [vectorize]\n",
               "test_catalog_bad.yaml:4:15", "needs ops: [...]");
  expect_error(s,
               "version: 1\nactions:\n  - name: a\n    pipeline: cse\n"
               "    params:\n      - {name: T, kind: divisor, dim: 0, "
               "values: [4]}\n",
               "test_catalog_bad.yaml:6:", "divisor parameters are for "
               "schedule actions");
  expect_error(s,
               "version: 1\nactions:\n  - name: a\n    schedule: [tile]\n"
               "    ops: [linalg.matmul]\n    params:\n      - {name: T, "
               "kind: divisor, dim: 0, values: [0]}\n",
               "test_catalog_bad.yaml:7:", "'0' is not a positive size");
  expect_error(s,
               "version: 1\nactions:\n  - name: a\n    schedule: [tile]\n"
               "    ops: [linalg.matmul]\n    params:\n      - {name: T, "
               "kind: divisor, dim: 0, level: 9, values: [4]}\n",
               "test_catalog_bad.yaml:7:", "level 9 is out of range 0..3");
  expect_error(s,
               "version: 1\nactions:\n  - name: a\n    schedule: [tile, "
               "vectorize]\n    ops: [linalg.matmul]\n    params:\n      - "
               "{name: T, kind: divisor, dim: 0, level: 1, values: [4]}\n",
               "test_catalog_bad.yaml:4:15", "parameter 'T' sizes tiling "
               "level 1, but the schedule has 1 tiling step(s)");
  // the choice parameters of interchange (PERM) and unroll (F)
  expect_error(s,
               "version: 1\nactions:\n  - name: a\n    schedule: "
               "[interchange]\n    ops: [linalg.matmul]\n    params:\n"
               "      - {name: PERM, kind: choice, values: [\"0,2,1\", "
               "\"0,0,1\"]}\n",
               "test_catalog_bad.yaml:3:5", "PERM value '0,0,1' is not a "
               "permutation");
  expect_error(s,
               "version: 1\nactions:\n  - name: a\n    schedule: "
               "[interchange]\n    ops: [linalg.matmul]\n",
               "test_catalog_bad.yaml:3:5", "needs a choice parameter PERM");
  expect_error(s,
               "version: 1\nactions:\n  - name: a\n    schedule: [unroll]\n"
               "    ops: [linalg.matmul]\n    params:\n      - {name: F, "
               "kind: choice, values: [2, x]}\n",
               "test_catalog_bad.yaml:3:5", "F value 'x' is not a positive "
               "integer");
  expect_error(s,
               "version: 1\nactions:\n  - name: a\n    pipeline: cse\n"
               "    kind_wide: true\n",
               "test_catalog_bad.yaml:5:16", "kind_wide is true or false, "
               "and for schedule actions only");
  expect_error(s,
               "version: 1\nactions:\n  - name: a\n    schedule: [forall]\n"
               "    ops: [linalg.matmul]\n    kind_wide: yes\n",
               "test_catalog_bad.yaml:6:16", "kind_wide is true or false");
  mqss_catalog *c = NULL;
  assert_int_equal(mqss_catalog_load(s, "/no/such/catalog.yaml", &c),
                   MQSS_ERR_IO);
  assert_non_null(strstr(mqss_errmsg(s), "/no/such/catalog.yaml"));
}

static mqss_catalog *load_text(mqss_session *s, const char *yaml) {
  const char *path = "test_catalog_sched.yaml";
  spit(path, yaml, "");
  mqss_catalog *c = load(s, path);
  remove(path);
  return c;
}

// The catalog hash covers schedule steps, op kinds, divisor dimensions,
// levels and kind_wide;
// each prefix of the catalog has its own hash (policies trained on it load).
static void test_schedule_hash(void **state) {
  mqss_session *s = *state;
  static const char *texts[] = {
      "version: 1\nactions:\n  - name: a\n    schedule: [tile]\n"
      "    ops: [linalg.matmul]\n    params:\n      - {name: T, kind: "
      "divisor, dim: -1, values: [4, 8]}\n",
      "version: 1\nactions:\n  - name: a\n    schedule: [register-tile]\n"
      "    ops: [linalg.matmul]\n    params:\n      - {name: T, kind: "
      "divisor, dim: -1, values: [4, 8]}\n",
      "version: 1\nactions:\n  - name: a\n    schedule: [tile]\n"
      "    ops: [linalg.batch_matmul]\n    params:\n      - {name: T, kind: "
      "divisor, dim: -1, values: [4, 8]}\n",
      "version: 1\nactions:\n  - name: a\n    schedule: [tile]\n"
      "    ops: [linalg.matmul]\n    params:\n      - {name: T, kind: "
      "divisor, dim: -2, values: [4, 8]}\n",
      "version: 1\nactions:\n  - name: a\n    schedule: [tile, tile]\n"
      "    ops: [linalg.matmul]\n    params:\n      - {name: T, kind: "
      "divisor, dim: -2, level: 1, values: [4, 8]}\n",
      "version: 1\nactions:\n  - name: a\n    schedule: [tile, tile]\n"
      "    ops: [linalg.matmul]\n    params:\n      - {name: T, kind: "
      "divisor, dim: -2, values: [4, 8]}\n",
      "version: 1\nactions:\n  - name: a\n    schedule: [tile, tile]\n"
      "    ops: [linalg.matmul]\n    kind_wide: true\n    params:\n"
      "      - {name: T, kind: divisor, dim: -2, values: [4, 8]}\n",
  };
  enum { N_TEXTS = sizeof texts / sizeof *texts };
  uint64_t h[N_TEXTS];
  for (int i = 0; i < N_TEXTS; i++) {
    mqss_catalog *c = load_text(s, texts[i]);
    h[i] = mqss_catalog_hash(c);
    assert_string_equal(mqss_catalog_action(c, 0)->pipeline,
                        i == 1   ? "schedule(register-tile)"
                        : i >= 4 ? "schedule(tile,tile)"
                                 : "schedule(tile)");
    assert_int_equal(mqss_catalog_action(c, 0)->kind_wide, i == 6);
    mqss_catalog_destroy(c);
    for (int j = 0; j < i; j++)
      assert_true(h[i] != h[j]);
  }
}

// A printed pipeline preloads each schedule once: a second preload of the
// same path, or of one of our hash-named schedules from another directory
// (a recipe's in data/schedules, a decision's in the schedule directory),
// is dropped with its comma; other files of one name in two directories
// both stay. mlir-opt rejects a sequence defined twice.
static void test_drop_repeated_preloads(void **state) {
  (void)state;
#define PRE(path) "transform-preload-library{transform-library-paths=" path "}"
#define RUN(entry) "transform-interpreter{entry-point=" entry "}"
  char text[] = "builtin.module(" PRE("/src/data/schedules/mqss_0123456789abcdef.mlir") ","
                RUN("mqss_0123456789abcdef") ",cse," PRE("/tmp/s/mqss_0123456789abcdef.mlir") ","
                RUN("mqss_0123456789abcdef") "," PRE("/tmp/s/lib.mlir") "," RUN("a") ","
                PRE("/tmp/s/lib.mlir") "," RUN("a") "," PRE("/other/lib.mlir") ","
                RUN("b") ")";
  schedule_drop_repeated_preloads(text);
  assert_string_equal(text,
                      "builtin.module(" PRE("/src/data/schedules/mqss_0123456789abcdef.mlir") ","
                      RUN("mqss_0123456789abcdef") ",cse," RUN("mqss_0123456789abcdef") ","
                      PRE("/tmp/s/lib.mlir") "," RUN("a") "," RUN("a") ","
                      PRE("/other/lib.mlir") "," RUN("b") ")");
#undef PRE
#undef RUN
}

// Scoping: a func.func action runs on the named function only.
static void test_scoped_apply(void **state) {
  mqss_session *s = *state;
  mqss_catalog *c = load(s, CATALOG);
  const char *two =
      "func.func @a(%x: memref<4x4xf32>, %y: memref<4x4xf32>) {\n"
      "  linalg.copy ins(%x : memref<4x4xf32>) outs(%y : memref<4x4xf32>)\n"
      "  return\n}\n"
      "func.func @b(%x: memref<4x4xf32>, %y: memref<4x4xf32>) {\n"
      "  linalg.copy ins(%x : memref<4x4xf32>) outs(%y : memref<4x4xf32>)\n"
      "  return\n}\n";
  mqss_module *m = parse(s, two);
  mqss_decision d = {.action = mqss_catalog_find(c, "linalg-to-affine"),
                     .target = "b"};
  assert_int_equal(mqss_decision_apply(m, c, &d), MQSS_OK);
  char *out = mqss_module_to_string(m);
  // @a keeps its linalg.copy, @b now has loops.
  char *fb = strstr(out, "func.func @b");
  assert_non_null(fb);
  char *copy = strstr(out, "linalg.copy");
  assert_non_null(copy);
  assert_true(copy < fb);
  assert_null(strstr(fb, "linalg.copy"));
  assert_non_null(strstr(fb, "affine.for"));
  assert_null(strstr(out, "affine.for") < fb ? strstr(out, "affine.for")
                                             : NULL);
  free(out);
  // Missing function and module-anchored actions are refused.
  d.target = "nope";
  assert_int_equal(mqss_decision_apply(m, c, &d), MQSS_ERR_INVALID_ARG);
  assert_non_null(strstr(mqss_errmsg(s), "@nope"));
  d = (mqss_decision){.action = mqss_catalog_find(c, "inline"), .target = "a"};
  assert_int_equal(mqss_decision_apply(m, c, &d), MQSS_ERR_INVALID_ARG);
  assert_non_null(strstr(mqss_errmsg(s), "builtin.module"));
  mqss_module_destroy(m);
  mqss_catalog_destroy(c);
}

// "builtin.module(X)" -> X, as a recipe action's pipeline reads.
static char *unwrapped(const char *p) {
  size_t n = strlen(p), w = strlen("builtin.module(");
  assert_true(n > w && p[n - 1] == ')');
  return strndup(p + w, n - w - 1);
}

// Recipe actions run their family's pipeline of data/baselines.yaml, with
// the schedule paths resolved; applying one gives the module the baseline
// gives; the hash sees the recipe's text but not where the files are.
static void test_recipe_actions(void **state) {
  mqss_session *s = *state;
  mqss_catalog *c = load(s, CATALOG);
  mqss_baselines *b = NULL;
  assert_int_equal(mqss_baselines_load(s, MQSS_SOURCE_DIR
                                       "/data/baselines.yaml", &b), MQSS_OK);
  int recipes = 0;
  for (int i = 0; i < mqss_catalog_size(c); i++) {
    const mqss_action *a = mqss_catalog_action(c, i);
    if (strncmp(a->name, "recipe-", 7))
      continue;
    recipes++;
    char family[64];
    snprintf(family, sizeof family, "%s", a->name + 7);
    for (char *p = family; *p; p++)
      *p = *p == '-' ? '_' : *p;
    const char *want = mqss_baselines_pipeline(b, family);
    assert_non_null(want);
    char *inner = unwrapped(want);
    assert_string_equal(a->pipeline, inner);
    assert_string_equal(a->anchor, "builtin.module");
    assert_int_equal(a->n_params, 0);
    free(inner);
  }
  assert_true(recipes >= 10);
  // The depthwise recipe on a 1x1 convolution: the baseline's module.
  const char *text =
      "func.func @f(%x: tensor<1x4x8x4xf32>, %w: tensor<1x1x4x8xf32>,\n"
      "    %o: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {\n"
      "  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>,\n"
      "      strides = dense<1> : tensor<2xi64>}\n"
      "      ins(%x, %w : tensor<1x4x8x4xf32>, tensor<1x1x4x8xf32>)\n"
      "      outs(%o : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>\n"
      "  return %0 : tensor<1x4x8x8xf32>\n}\n";
  mqss_module *m1 = parse(s, text), *m2 = parse(s, text);
  mqss_decision d = {.action = mqss_catalog_find(c, "recipe-depthwise")};
  assert_true(d.action > 0);
  assert_int_equal(mqss_decision_apply(m1, c, &d), MQSS_OK);
  assert_int_equal(mqss_module_run_pipeline(
                       m2, mqss_baselines_pipeline(b, "depthwise")), MQSS_OK);
  char *t1 = mqss_module_to_string(m1), *t2 = mqss_module_to_string(m2);
  assert_string_equal(t1, t2);
  assert_null(strstr(t1, "linalg.conv")); // decomposed and vectorized
  assert_non_null(strstr(t1, "vector."));
  free(t1);
  free(t2);
  mqss_module_destroy(m1);
  mqss_module_destroy(m2);
  // The baselines.yaml next to a catalog is the one it reads. Where the
  // files are does not change the hash; another recipe text does.
  assert_int_equal(system("mkdir -p recipes_dir"), 0);
  char *yaml = slurp(CATALOG);
  char *all = slurp(MQSS_SOURCE_DIR "/data/baselines.yaml");
  spit("recipes_dir/catalog.yaml", yaml, "");
  spit("recipes_dir/baselines.yaml", all, "");
  mqss_catalog *moved = load(s, "recipes_dir/catalog.yaml");
  assert_true(mqss_catalog_hash(moved) == mqss_catalog_hash(c));
  mqss_catalog_destroy(moved);
  const char *one = "version: 1\nactions:\n  - name: stop\n    stop: true\n"
                    "  - name: recipe-depthwise\n    recipe: depthwise\n";
  spit("recipes_dir/catalog.yaml", one, "");
  spit("recipes_dir/baselines.yaml", "version: 1\nfamilies:\n  depthwise:\n"
       "    pipeline: \"builtin.module(func.func(cse))\"\n", "");
  mqss_catalog *cse = load(s, "recipes_dir/catalog.yaml");
  assert_string_equal(mqss_catalog_action(cse, 1)->pipeline, "func.func(cse)");
  spit("recipes_dir/baselines.yaml", "version: 1\nfamilies:\n  depthwise:\n"
       "    pipeline: \"builtin.module(func.func(canonicalize))\"\n", "");
  mqss_catalog *canon = load(s, "recipes_dir/catalog.yaml");
  assert_true(mqss_catalog_hash(cse) != mqss_catalog_hash(canon));
  mqss_catalog_destroy(cse);
  mqss_catalog_destroy(canon);
  // Errors name the place and say what to do.
  static const struct {
    const char *baselines, *action, *where, *what;
  } bad[] = {
      {"  spmv:\n    pipeline: \"\"\n", "    recipe: spmv\n",
       "catalog.yaml:6:13", "has the empty pipeline"},
      {"  spmv:\n    pipeline: \"\"\n", "    recipe: nosuch\n",
       "catalog.yaml:6:13", "family 'nosuch' has no pipeline"},
      {"  spmv:\n    pipeline: \"cse\"\n",
       "    recipe: spmv\n    pipeline: cse\n", "catalog.yaml:5:5",
       "remove pipeline, schedule, params and stop"},
  };
  for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
    spit("recipes_dir/baselines.yaml", "version: 1\nfamilies:\n",
         bad[k].baselines);
    spit("recipes_dir/catalog.yaml", "version: 1\nactions:\n  - name: stop\n"
         "    stop: true\n  - name: r\n", bad[k].action);
    mqss_catalog *none = NULL;
    assert_int_equal(mqss_catalog_load(s, "recipes_dir/catalog.yaml", &none),
                     MQSS_ERR_PARSE);
    assert_null(none);
    if (!strstr(mqss_errmsg(s), bad[k].where) ||
        !strstr(mqss_errmsg(s), bad[k].what))
      fail_msg("expected '%s' and '%s' in: %s", bad[k].where, bad[k].what,
               mqss_errmsg(s));
  }
  remove("recipes_dir/catalog.yaml");
  remove("recipes_dir/baselines.yaml");
  remove("recipes_dir");
  free(all);
  free(yaml);
  mqss_baselines_destroy(b);
  mqss_catalog_destroy(c);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_shipped_catalog, session_setup, session_teardown),
      cmocka_unit_test_setup_teardown(test_every_pipeline_runs, session_setup,
                                      session_teardown),
      cmocka_unit_test(test_param_map),
      cmocka_unit_test(test_drop_repeated_preloads),
      cmocka_unit_test_setup_teardown(test_pipeline_text, session_setup, session_teardown),
      cmocka_unit_test_setup_teardown(test_add_action_by_editing, session_setup,
                                      session_teardown),
      cmocka_unit_test_setup_teardown(test_errors_name_location, session_setup,
                                      session_teardown),
      cmocka_unit_test_setup_teardown(test_scoped_apply, session_setup, session_teardown),
      cmocka_unit_test_setup_teardown(test_schedule_hash, session_setup,
                                      session_teardown),
      cmocka_unit_test_setup_teardown(test_recipe_actions, session_setup,
                                      session_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
