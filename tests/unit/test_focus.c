// Unit tests of the per-op rule (src/actions/focus.c): a schedule decision
// addresses the focus op, the heaviest linalg op that no schedule has tiled
// yet, when it is of one of the action's kinds; once tiled, the focus moves
// on to the next-heaviest op, and the state vector describes the same op.
// The safety mask checks the op the decision would address. A decision's
// repeats (repeat.c) carry it to the further ops it fits (with fitted
// sizes, to the others too). When the focus is
// of another kind (unless every op of its kinds fits), or no size fits it,
// a decision addresses the heaviest op of its kinds that it fits.
#define _GNU_SOURCE
#include "internal.h" // before cmocka.h, whose fail() macro it would clash with

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

// A (64x32 * 32x48: 196608 flops) then B (64x48 * 48x40: 245760 flops);
// tagged in walk order: fill 1, A 2, fill 3, B 4.
static const char TWO[] =
    "func.func @f(%a: tensor<64x32xf32>, %b: tensor<32x48xf32>,"
    " %e: tensor<48x40xf32>) -> tensor<64x40xf32> {\n"
    "  %z = arith.constant 0.0 : f32\n"
    "  %i1 = tensor.empty() : tensor<64x48xf32>\n"
    "  %f1 = linalg.fill ins(%z : f32) outs(%i1 : tensor<64x48xf32>)"
    " -> tensor<64x48xf32>\n"
    "  %c = linalg.matmul ins(%a, %b : tensor<64x32xf32>, tensor<32x48xf32>)"
    " outs(%f1 : tensor<64x48xf32>) -> tensor<64x48xf32>\n"
    "  %i2 = tensor.empty() : tensor<64x40xf32>\n"
    "  %f2 = linalg.fill ins(%z : f32) outs(%i2 : tensor<64x40xf32>)"
    " -> tensor<64x40xf32>\n"
    "  %d = linalg.matmul ins(%c, %e : tensor<64x48xf32>, tensor<48x40xf32>)"
    " outs(%f2 : tensor<64x40xf32>) -> tensor<64x40xf32>\n"
    "  return %d : tensor<64x40xf32>\n}\n";

// tile20: N = 20 divides B's 40 but not A's 48.
static const char CATALOG[] =
    "version: 1\n"
    "actions:\n"
    "  - name: stop\n"
    "    stop: true\n"
    "  - name: tile20\n"
    "    schedule: [tile]\n"
    "    ops: [linalg.matmul]\n"
    "    requires: [linalg]\n"
    "    params:\n"
    "      - {name: N, kind: divisor, dim: -2, values: [20]}\n"
    "  - name: tile8\n"
    "    schedule: [tile]\n"
    "    ops: [linalg.matmul, linalg.batch_matmul]\n"
    "    requires: [linalg]\n"
    "    params:\n"
    "      - {name: M, kind: divisor, dim: -3, values: [8]}\n"
    "      - {name: N, kind: divisor, dim: -2, values: [8]}\n"
    "  - name: tile-generic\n"
    "    schedule: [tile]\n"
    "    ops: [linalg.generic]\n"
    "    requires: [linalg]\n"
    "    params:\n"
    "      - {name: D0, kind: divisor, dim: 0, values: [1]}\n"
    "  - name: canonicalize\n"
    "    pipeline: canonicalize\n"
    "    anchor: func.func\n"
    "  - name: tile8-matmul\n"
    "    schedule: [tile]\n"
    "    ops: [linalg.matmul]\n"
    "    requires: [linalg]\n"
    "    params:\n"
    "      - {name: M, kind: divisor, dim: -3, values: [8]}\n"
    "      - {name: N, kind: divisor, dim: -2, values: [8]}\n"
    "  - name: tile16\n"
    "    schedule: [tile]\n"
    "    ops: [linalg.matmul]\n"
    "    requires: [linalg]\n"
    "    params:\n"
    "      - {name: N, kind: divisor, dim: -2, values: [16]}\n"
    "  - name: tile-n\n"
    "    schedule: [tile]\n"
    "    ops: [linalg.matmul]\n"
    "    requires: [linalg]\n"
    "    params:\n"
    "      - {name: N, kind: divisor, dim: -2, values: [16, 20]}\n"
    "  - name: register-tile20\n"
    "    schedule: [register-tile, vectorize, hoist, lower-contraction]\n"
    "    ops: [linalg.matmul]\n"
    "    requires: [tensor, linalg]\n"
    "    params:\n"
    "      - {name: M, kind: divisor, dim: -3, values: [4]}\n"
    "      - {name: N, kind: divisor, dim: -2, values: [20]}\n"
    "      - {name: K, kind: divisor, dim: -1, values: [4]}\n"
    "  - name: tile-generic-2d\n"
    "    schedule: [tile]\n"
    "    ops: [linalg.generic]\n"
    "    requires: [linalg]\n"
    "    params:\n"
    "      - {name: D0, kind: divisor, dim: 0, values: [2]}\n"
    "      - {name: D1, kind: divisor, dim: 1, values: [4]}\n";

// tile16: N = 16 divides A's 48 but not B's 40. tile-n: 16 or 20.
// register-tile20: a 4x20 register tile over k = 4, which only B fits.
enum { TILE20 = 1, TILE8 = 2, TILE_GENERIC = 3, CANON = 4, TILE8_MM = 5,
       TILE16 = 6, TILE_N = 7, RT20 = 8, TILE_GENERIC_2D = 9, N_ACTIONS };

// TWO's matmuls and a batch matmul 1x64xK * 1xKx40: tagged fill 1, A 2,
// fill 3, B 4, fill 5, batch 6. K = 42 puts it between them in flops
// (215040); K = 96 above both (491520).
static const char MIXED[] =
    "func.func @f(%%a: tensor<64x32xf32>, %%b: tensor<32x48xf32>,"
    " %%e: tensor<48x40xf32>, %%p: tensor<1x64x%dxf32>,"
    " %%q: tensor<1x%dx40xf32>) -> (tensor<64x40xf32>, tensor<1x64x40xf32>) {\n"
    "  %%z = arith.constant 0.0 : f32\n"
    "  %%i1 = tensor.empty() : tensor<64x48xf32>\n"
    "  %%f1 = linalg.fill ins(%%z : f32) outs(%%i1 : tensor<64x48xf32>)"
    " -> tensor<64x48xf32>\n"
    "  %%c = linalg.matmul ins(%%a, %%b : tensor<64x32xf32>, tensor<32x48xf32>)"
    " outs(%%f1 : tensor<64x48xf32>) -> tensor<64x48xf32>\n"
    "  %%i2 = tensor.empty() : tensor<64x40xf32>\n"
    "  %%f2 = linalg.fill ins(%%z : f32) outs(%%i2 : tensor<64x40xf32>)"
    " -> tensor<64x40xf32>\n"
    "  %%d = linalg.matmul ins(%%c, %%e : tensor<64x48xf32>, tensor<48x40xf32>)"
    " outs(%%f2 : tensor<64x40xf32>) -> tensor<64x40xf32>\n"
    "  %%i3 = tensor.empty() : tensor<1x64x40xf32>\n"
    "  %%f3 = linalg.fill ins(%%z : f32) outs(%%i3 : tensor<1x64x40xf32>)"
    " -> tensor<1x64x40xf32>\n"
    "  %%g = linalg.batch_matmul ins(%%p, %%q : tensor<1x64x%dxf32>,"
    " tensor<1x%dx40xf32>) outs(%%f3 : tensor<1x64x40xf32>)"
    " -> tensor<1x64x40xf32>\n"
    "  return %%d, %%g : tensor<64x40xf32>, tensor<1x64x40xf32>\n}\n";

typedef struct {
  mqss_session *s;
  mqss_catalog *c;
  mqss_module *m;
} fixture;

static int setup(void **state) {
  fixture *f = calloc(1, sizeof *f);
  assert_non_null(f);
  assert_int_equal(mqss_session_create(&f->s), MQSS_OK);
  char path[] = "/tmp/mqss_focus_XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  FILE *out = fdopen(fd, "w");
  fputs(CATALOG, out);
  fclose(out);
  mqss_status st = mqss_catalog_load(f->s, path, &f->c);
  unlink(path);
  if (st != MQSS_OK)
    fail_msg("catalog: %s", mqss_errmsg(f->s));
  assert_int_equal(mqss_module_parse_string(f->s, TWO, strlen(TWO), "two.mlir",
                                            &f->m),
                   MQSS_OK);
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fixture *f = *state;
  mqss_module_destroy(f->m);
  mqss_catalog_destroy(f->c);
  mqss_session_destroy(f->s);
  free(f);
  return 0;
}

static int64_t focus_for(const fixture *f, int action) {
  mqss_decision d = {.action = action};
  return decision_focus(f->m, f->c, &d);
}

// The state's feature called `name`.
static float feature(const fixture *f, const char *name) {
  float x[MQSS_FEATURE_DIM];
  assert_int_equal(mqss_features(f->m, f->c, NULL, 0, 16, x), MQSS_OK);
  for (int i = 0; i < MQSS_FEATURE_DIM; i++)
    if (!strcmp(mqss_feature_name(i), name))
      return x[i];
  fail_msg("no feature %s", name);
  return 0;
}

// The state's focus has N extent n (loop -2 of a matmul).
static void assert_focus_n(const fixture *f, double n) {
  float got = feature(f, "op.focus.extent.2");
  float want = (float)(log2(1.0 + n) / 12);
  if (fabsf(got - want) > 1e-6f)
    fail_msg("op.focus.extent.2 = %g, want %g (N = %g)", got, want, n);
}

static void apply(fixture *f, int action, int64_t op) {
  mqss_decision d = {.action = action, .op = op};
  if (mqss_decision_apply(f->m, f->c, &d) != MQSS_OK)
    fail_msg("apply: %s", mqss_errmsg(f->s));
}

// Replaces f's module with MIXED, batch depth k, tagged.
static void load_mixed(fixture *f, int k) {
  char text[sizeof MIXED + 16];
  snprintf(text, sizeof text, MIXED, k, k, k, k);
  mqss_module_destroy(f->m);
  f->m = NULL;
  assert_int_equal(mqss_module_parse_string(f->s, text, strlen(text),
                                            "mixed.mlir", &f->m),
                   MQSS_OK);
  assert_int_equal(mqss_module_tag_ops(f->m, NULL), MQSS_OK);
}

static void test_heaviest_then_next(void **state) {
  fixture *f = *state;
  assert_int_equal(focus_for(f, TILE8), 0); // untagged: no per-op handle
  assert_int_equal(mqss_module_tag_ops(f->m, NULL), MQSS_OK);
  assert_int_equal(focus_for(f, TILE8), 4); // B has the most flops
  assert_focus_n(f, 40);
  // Kinds that are not the focus's, and plain passes, address every op.
  assert_int_equal(focus_for(f, TILE_GENERIC), 0);
  assert_int_equal(focus_for(f, CANON), 0);
  apply(f, TILE8, 4);
  char *ir = mqss_module_to_string(f->m);
  assert_contains(ir, "mqss.id = 4 : i64, mqss.tiled");
  free(ir);
  assert_int_equal(focus_for(f, TILE8), 2); // B is tiled: A next
  assert_focus_n(f, 48);
  assert_float_equal(feature(f, "op.focus.present"), 1.0f, 0.0f);
  apply(f, TILE8, 2);
  assert_int_equal(focus_for(f, TILE8), 0); // nothing untiled left
  assert_float_equal(feature(f, "op.focus.present"), 0.0f, 0.0f);
}

// The mask checks the op a decision would address: N = 20 fits B (40), not
// A (48). Untagged, a decision addresses both, so the action is masked;
// tagged, it addresses B and is allowed; with B tiled, A is the focus and
// the action is masked again.
static void test_mask_follows_focus(void **state) {
  fixture *f = *state;
  uint8_t mask[N_ACTIONS];
  char why[256];
  assert_true(mqss_action_mask(f->m, f->c, NULL, mask) > 0);
  assert_int_equal(mask[TILE20], 0);
  assert_int_equal(mqss_module_tag_ops(f->m, NULL), MQSS_OK);
  mqss_action_mask(f->m, f->c, NULL, mask);
  assert_int_equal(mask[TILE20], 1);
  assert_int_equal(mqss_action_check(f->m, f->c, TILE20, NULL, why, sizeof why),
                   1);
  mqss_decision d = {.action = TILE20, .op = focus_for(f, TILE20)};
  assert_true(decision_fits(f->m, f->c, &d, why, sizeof why));
  d.op = 0; // every op: A's 48 refuses 20
  assert_false(decision_fits(f->m, f->c, &d, why, sizeof why));
  assert_contains(why, "does not divide loop 1 of extent 48");
  apply(f, TILE8, 4);
  mqss_action_mask(f->m, f->c, NULL, mask);
  assert_int_equal(mask[TILE20], 0);
  assert_int_equal(mqss_action_check(f->m, f->c, TILE20, NULL, why, sizeof why),
                   0);
  assert_contains(why, "mqss.id 2");
}

// The environment applies the rule to decisions with op 0 and says which op
// each addressed; its module is tagged at reset. A kept schedule decision is
// repeated on each further focus op it fits (repeat.c): tile8 on B, then on
// A, in one step; tile20 fits B alone.
static void test_env_addresses_focus(void **state) {
  fixture *f = *state;
  mqss_env_options o;
  mqss_env_options_init(&o);
  o.max_steps = 4;
  o.measure.warmup = 0;
  o.measure.repeat = 1;
  mqss_env *e = NULL;
  assert_int_equal(mqss_env_create(f->s, f->c, &o, &e), MQSS_OK);
  mqss_env_baseline base = {1, 1, 1};
  assert_int_equal(mqss_env_reset(e, f->m, &base, NULL), MQSS_OK);
  mqss_env_info info;
  mqss_decision d = {.action = TILE8};
  assert_int_equal(mqss_env_step(e, &d, NULL, NULL, NULL, &info), MQSS_OK);
  assert_int_equal(info.status, MQSS_STEP_APPLIED);
  assert_int_equal(info.op, 4);
  assert_int_equal(info.repeats, 1);
  assert_int_equal(mqss_env_step(e, &d, NULL, NULL, NULL, &info), MQSS_OK);
  assert_int_equal(info.op, 0); // both are tiled: no focus left to address
  assert_int_equal(info.repeats, 0);
  assert_int_equal(mqss_env_reset(e, f->m, &base, NULL), MQSS_OK);
  d.action = TILE20;
  assert_int_equal(mqss_env_step(e, &d, NULL, NULL, NULL, &info), MQSS_OK);
  assert_int_equal(info.status, MQSS_STEP_APPLIED);
  assert_int_equal(info.op, 4);
  assert_int_equal(info.repeats, 0); // 20 does not divide A's 48
  d.action = TILE8;
  assert_int_equal(mqss_env_step(e, &d, NULL, NULL, NULL, &info), MQSS_OK);
  assert_int_equal(info.status, MQSS_STEP_APPLIED);
  assert_int_equal(info.op, 2);
  assert_int_equal(info.repeats, 0);
  mqss_env_destroy(e);
}

// decision_repeat: the same action and parameters on the next focus op,
// only when the previous decision addressed one op and the sizes fit.
static void test_repeat_rule(void **state) {
  fixture *f = *state;
  assert_int_equal(mqss_module_tag_ops(f->m, NULL), MQSS_OK);
  mqss_decision d = {.action = TILE8, .u = {0.5f, -0.5f}, .op = 4}, r;
  assert_false(decision_repeat(f->m, f->c, &d, &r)); // B is still the focus
  apply(f, TILE8, 4);
  assert_true(decision_repeat(f->m, f->c, &d, &r));
  assert_int_equal(r.op, 2);
  assert_int_equal(r.action, TILE8);
  assert_memory_equal(r.u, d.u, sizeof d.u);
  mqss_decision every = d;
  every.op = 0; // addressed every op: nothing to repeat
  assert_false(decision_repeat(f->m, f->c, &every, &r));
  mqss_decision twenty = {.action = TILE20, .op = 4};
  assert_false(decision_repeat(f->m, f->c, &twenty, &r)); // 20 misses 48
}

// A repeat skips ops of other kinds: with B tiled, the batch matmul is the
// focus, but tile8-matmul's repeat goes on to A, the heaviest untiled
// matmul (a family recipe's kind-wide schedule would tile both matmuls).
static void test_repeat_skips_other_kinds(void **state) {
  fixture *f = *state;
  load_mixed(f, 42);
  assert_int_equal(focus_for(f, TILE8_MM), 4); // B has the most flops
  mqss_decision d = {.action = TILE8_MM, .u = {0.5f, -0.5f}, .op = 4}, r;
  apply(f, TILE8_MM, 4);
  assert_int_equal(focus_for(f, TILE8), 6); // the batch matmul is the focus
  assert_int_equal(focus_for(f, TILE8_MM), 0); // not of tile8-matmul's kind
  assert_true(decision_repeat(f->m, f->c, &d, &r));
  assert_int_equal(r.op, 2);
  apply(f, TILE8_MM, 2);
  assert_false(decision_repeat(f->m, f->c, &r, &r)); // no matmul left
}

// With fitted sizes a repeat also reaches the ops the sizes miss: tile-n
// with N = 20 on B, then on A with 16, the nearest N that divides A's 48.
// Without, the repeats end at B (the training environment's rule).
static void test_repeat_fitted(void **state) {
  fixture *f = *state;
  assert_int_equal(mqss_module_tag_ops(f->m, NULL), MQSS_OK);
  const mqss_param *n = &mqss_catalog_action(f->c, TILE_N)->params[0];
  mqss_decision d = {.action = TILE_N, .u = {1.0f}, .op = 4}, r;
  assert_int_equal(mqss_param_map(n, d.u[0]), 1); // 20
  assert_int_equal(focus_for(f, TILE_N), 4);
  mqss_module *kept[2];
  for (int fit = 0; fit < 2; fit++) {
    kept[fit] = mqss_module_clone(f->m);
    assert_non_null(kept[fit]);
    assert_int_equal(mqss_decision_apply(kept[fit], f->c, &d), MQSS_OK);
    uint64_t hash = module_fingerprint(kept[fit]);
    assert_int_equal(decision_apply_repeats(&kept[fit], &hash, f->c, &d, fit,
                                            NULL),
                     fit);
  }
  mqss_module *m = f->m;
  f->m = kept[0];
  assert_int_equal(focus_for(f, TILE16), 2); // A left untiled
  assert_false(decision_repeat(f->m, f->c, &d, &r)); // 20 misses A's 48
  assert_true(decision_repeat_fitted(f->m, f->c, &d, &r));
  assert_int_equal(r.op, 2);
  assert_int_equal(mqss_param_map(n, r.u[0]), 0); // 16
  f->m = kept[1];
  assert_int_equal(focus_for(f, TILE16), 0); // A tiled by the fitted repeat
  assert_false(decision_repeat_fitted(f->m, f->c, &d, &r));
  f->m = m;
  mqss_module_destroy(kept[0]);
  mqss_module_destroy(kept[1]);
}

// An op no size divides: with fitted sizes the repeat of a 4x20 register
// tile reaches A (48 columns) with the decision's own sizes, its partial
// tile peeled off (two full tiles of 20 columns, then 8). Both parts are
// vectorised (no linalg.matmul is left), and the program computes what the
// untransformed one does. Without fitting, the repeats end at B.
static void test_repeat_peeled(void **state) {
  fixture *f = *state;
  assert_int_equal(mqss_module_tag_ops(f->m, NULL), MQSS_OK);
  mqss_module *before = mqss_module_clone(f->m);
  assert_non_null(before);
  mqss_decision d = {.action = RT20, .op = 4}, r;
  apply(f, RT20, 4);
  assert_false(decision_repeat(f->m, f->c, &d, &r));
  assert_true(decision_repeat_fitted(f->m, f->c, &d, &r));
  assert_int_equal(r.op, 2);
  assert_int_equal(r.peel, 1);
  char *script = mqss_decision_schedule(f->c, &r);
  assert_contains(script, "transform.loop.peel");
  free(script);
  mqss_module *kept[2];
  for (int fit = 0; fit < 2; fit++) {
    kept[fit] = mqss_module_clone(f->m);
    assert_non_null(kept[fit]);
    uint64_t hash = module_fingerprint(kept[fit]);
    assert_int_equal(decision_apply_repeats(&kept[fit], &hash, f->c, &d, fit,
                                            NULL),
                     fit);
  }
  char *text = mqss_module_to_string(kept[0]);
  assert_contains(text, "linalg.matmul"); // A, untouched
  free(text);
  text = mqss_module_to_string(kept[1]);
  assert_non_null(text);
  assert_null(strstr(text, "linalg.matmul"));
  free(text);
  mqss_measure_options o;
  mqss_measure_options_init(&o);
  o.warmup = 0;
  o.repeat = 1;
  o.code_size = 0;
  o.reference_module = before;
  mqss_measure_result res;
  assert_int_equal(mqss_measure(kept[1], &o, &res), MQSS_OK);
  if (res.status != MQSS_MEASURE_OK)
    fail_msg("peeled tiles: %s: %s", mqss_measure_status_name(res.status),
             res.message);
  mqss_module_destroy(kept[0]);
  mqss_module_destroy(kept[1]);
  mqss_module_destroy(before);
}

// A focus of another kind: a decision addresses every op of its kinds when
// each has sizes that fit (tile8-matmul), else the heaviest that its sizes
// fit (tile20 on B: A's 48 refuses 20), where it used to be blocked. Once
// no op of its kinds fits, it is blocked, naming why.
static void test_focus_of_other_kind(void **state) {
  fixture *f = *state;
  load_mixed(f, 96);
  assert_int_equal(focus_for(f, TILE8), 6); // the batch matmul is the focus
  assert_int_equal(focus_for(f, TILE8_MM), 0);
  assert_int_equal(focus_for(f, TILE20), 4);
  uint8_t mask[N_ACTIONS];
  char why[256];
  mqss_action_mask(f->m, f->c, NULL, mask);
  assert_int_equal(mask[TILE20], 1);
  mqss_decision d = {.action = TILE20, .op = focus_for(f, TILE20)}, r;
  assert_true(decision_fits(f->m, f->c, &d, why, sizeof why));
  apply(f, TILE20, d.op);
  assert_false(decision_repeat(f->m, f->c, &d, &r)); // 20 misses A's 48
  assert_int_equal(focus_for(f, TILE20), 0);
  assert_int_equal(mqss_action_check(f->m, f->c, TILE20, NULL, why, sizeof why),
                   0);
  assert_contains(why, "mqss.id 2): no candidate of $N divides loop 1 of "
                       "extent 48");
}

// A focus of the action's kind that no size fits does not block it on the
// others: tile16 addresses A while B is the focus.
static void test_focus_no_size_fits(void **state) {
  fixture *f = *state;
  assert_int_equal(mqss_module_tag_ops(f->m, NULL), MQSS_OK);
  assert_int_equal(focus_for(f, TILE8), 4); // B is the focus
  assert_int_equal(focus_for(f, TILE16), 2);
  uint8_t mask[N_ACTIONS];
  mqss_action_mask(f->m, f->c, NULL, mask);
  assert_int_equal(mask[TILE16], 1);
  apply(f, TILE16, 2);
  assert_int_equal(focus_for(f, TILE8), 4);
  assert_int_equal(focus_for(f, TILE16), 0);
  mqss_action_mask(f->m, f->c, NULL, mask);
  assert_int_equal(mask[TILE16], 0);
}

// decisions_join runs consecutive schedule decisions with one transform
// interpreter (join.c), and the IR is the one their separate pipelines
// give; the selection's library defines the same entry.
static void test_join_runs_schedules(void **state) {
  fixture *f = *state;
  assert_int_equal(mqss_module_tag_ops(f->m, NULL), MQSS_OK);
  mqss_decision d[3] = {{.action = TILE8, .op = 2},
                        {.action = RT20, .op = 4},
                        {.action = CANON}};
  char *joined = decisions_join(f->c, d, 3);
  assert_non_null(joined);
  const char *first = strstr(joined, "transform-interpreter");
  assert_non_null(first);
  assert_null(strstr(first + 1, "transform-interpreter"));
  assert_contains(joined, "},func.func(canonicalize");
  mqss_module *one = mqss_module_clone(f->m), *each = mqss_module_clone(f->m);
  assert_true(one && each);
  if (mqss_module_run_pipeline(one, joined) != MQSS_OK)
    fail_msg("joined: %s", mqss_errmsg(f->s));
  for (int i = 0; i < 3; i++) {
    char *p = mqss_decision_pipeline(f->c, &d[i]);
    assert_int_equal(mqss_module_run_pipeline(each, p), MQSS_OK);
    free(p);
  }
  char *a = mqss_module_to_string(one), *b = mqss_module_to_string(each);
  assert_contains(a, "vector.fma"); // the register tile ran
  assert_contains(a, "mqss.id = 2 : i64, mqss.tiled");
  assert_string_equal(a, b);
  free(a);
  free(b);
  mqss_selection *sel = NULL;
  assert_int_equal(mqss_selection_create(f->c, d, 3, &sel), MQSS_OK);
  assert_string_equal(mqss_selection_pipeline(sel), joined);
  char *lib = mqss_selection_schedule(sel);
  char entry[64];
  const char *e = strstr(joined, "entry-point=");
  assert_non_null(e);
  snprintf(entry, sizeof entry, "transform.named_sequence @%.21s(", e + 12);
  assert_contains(lib, entry);
  snprintf(entry, sizeof entry, "named_sequence private @%.21s_2(", e + 12);
  assert_contains(lib, entry);
  free(lib);
  mqss_selection_destroy(sel);
  mqss_module_destroy(one);
  mqss_module_destroy(each);
  free(joined);
}

// A rank-1 generic (a program's input fill) next to a rank-2 one.
static const char GENERICS[] =
    "func.func @f(%a: tensor<8xf32>, %b: tensor<8x16xf32>)"
    " -> (tensor<8xf32>, tensor<8x16xf32>) {\n"
    "  %0 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>],"
    " iterator_types = [\"parallel\"]} outs(%a : tensor<8xf32>) {\n"
    "  ^bb0(%o: f32):\n    %c = arith.addf %o, %o : f32\n"
    "    linalg.yield %c : f32\n  } -> tensor<8xf32>\n"
    "  %1 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>],"
    " iterator_types = [\"parallel\", \"parallel\"]}"
    " outs(%b : tensor<8x16xf32>) {\n"
    "  ^bb0(%o: f32):\n    %c = arith.addf %o, %o : f32\n"
    "    linalg.yield %c : f32\n  } -> tensor<8x16xf32>\n"
    "  return %0, %1 : tensor<8xf32>, tensor<8x16xf32>\n}\n";

// Kind-wide decisions on linalg.generic take the generics they fit (as many
// loops as they tile, at least): the two-size tile leaves the rank-1
// generic alone, where a plain kind-wide match failed ("too many tiles").
// A library defines each matcher it uses once, however many decisions use
// it, and a run of schedules joined into one library still runs.
static void test_kind_wide_generic_fit(void **state) {
  fixture *f = *state;
  mqss_module *m = NULL;
  assert_int_equal(mqss_module_parse_string(f->s, GENERICS, strlen(GENERICS),
                                            "generics.mlir", &m),
                   MQSS_OK);
  mqss_decision d[3] = {{.action = TILE_GENERIC_2D},
                        {.action = TILE_GENERIC},
                        {.action = TILE_GENERIC_2D}};
  mqss_selection *sel = NULL;
  assert_int_equal(mqss_selection_create(f->c, d, 3, &sel), MQSS_OK);
  char *lib = mqss_selection_schedule(sel);
  assert_non_null(lib);
  assert_int_equal(count_of(lib, "collect_matching @mqss_fit_generic_r2 "), 2);
  assert_int_equal(count_of(lib, "private @mqss_fit_generic_r2("), 1);
  assert_int_equal(count_of(lib, "collect_matching @mqss_fit_generic_r1 "), 1);
  assert_int_equal(count_of(lib, "private @mqss_fit_generic_r1("), 1);
  if (mqss_module_run_pipeline(m, mqss_selection_pipeline(sel)) != MQSS_OK)
    fail_msg("%s", mqss_errmsg(f->s));
  char *ir = mqss_module_to_string(m);
  // The rank-1 generic: one loop (tile-generic's). The rank-2 one: 2 x 4
  // tiles, tile-generic's loop in each, then the 2-D tiling again inside.
  assert_int_equal(count_of(ir, "scf.for %"), 6);
  assert_contains(ir, "[2, 4] [1, 1] : tensor<8x16xf32> to tensor<2x4xf32>");
  assert_contains(ir, "[1] [1] : tensor<8xf32> to tensor<1xf32>");
  free(ir);
  free(lib);
  mqss_selection_destroy(sel);
  mqss_module_destroy(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_heaviest_then_next, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_mask_follows_focus, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_env_addresses_focus, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_repeat_rule, setup, teardown),
      cmocka_unit_test_setup_teardown(test_repeat_skips_other_kinds, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_repeat_fitted, setup, teardown),
      cmocka_unit_test_setup_teardown(test_repeat_peeled, setup, teardown),
      cmocka_unit_test_setup_teardown(test_focus_of_other_kind, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_join_runs_schedules, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_focus_no_size_fits, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_kind_wide_generic_fit, setup,
                                      teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
