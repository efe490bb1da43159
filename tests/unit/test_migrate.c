// Migration of an older policy: the default shipped before the expit run
// (feature layout v2, a prefix of the catalog) against itself migrated onto
// this build's layout, by the loader (same actions) and as `mqss train
// --init-from` does it (the whole catalog). On real modules the old network
// is run on the v2 inputs (the first 256 state floats; node column 0 as id /
// 98) and the migrated ones on today's inputs: the logits of every old
// action, and so the greedy decision, must agree, and new actions must lose.
// The state of the grown policy comes from the whole catalog, as it would in
// use.
#include "features/layout.h" // before cmocka: its fail() macro
#include "policy/policy.h"
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const MODULES[] = {
    "matmul_tensor_f32.mlir", "softmax_tensor_f32.mlir",
    "jacobi2d_affine_memref_f32.mlir", "conv2d_nhwc_hwcf_bias_relu_tensor_f32.mlir",
    "layernorm_rsqrt_memref_f32.mlir", "newton_sqrt_scf_while_memref_f64.mlir",
};
enum { N_MODULES = sizeof MODULES / sizeof *MODULES };

// kept as this test's input when the default moved on
#define OLD_POLICY MQSS_SOURCE_DIR "/tests/lit/Inputs/policy_v2_42actions.safetensors"

typedef struct {
  float logits[NN_MAX_ACTIONS + 1];
  float mu[NN_MAX_ACTIONS * 4 + 64];
  int n_logits, P, greedy;
} outputs;

// One forward pass of m on (state, graph x with dim columns), all allowed.
static void run(const nn_model *m, const float *state, const float *x,
                int dim, const mqss_graph *g, outputs *o) {
  uint8_t mask[NN_MAX_ACTIONS + 1];
  memset(mask, 1, sizeof mask);
  int ptr[2] = {0, g->n_nodes};
  nn_batch in = {.B = 1, .state = state, .mask = mask,
                 .graph = {g->n_nodes, dim, x, g->row_ptr, g->col},
                 .graph_ptr = ptr};
  nn_acts a = {0};
  assert_int_equal(nn_acts_ensure(&a, m, 1, g->n_nodes), 0);
  nn_forward(m, &a, &in);
  o->n_logits = m->cfg.n_actions + 1;
  o->P = m->P;
  memcpy(o->logits, a.logits, sizeof(float) * o->n_logits);
  memcpy(o->mu, a.mu, sizeof(float) * m->P);
  float u[NN_MAX_ACTIONS * 4 + 64];
  o->greedy = nn_act(m, &a, 0, NULL, u);
  nn_acts_free(&a);
}

// The v2 node columns of a graph: id / 98 (blocks -1), then columns 1..11.
static float *v2_nodes(const mqss_graph *g) {
  float *x = calloc((size_t)g->n_nodes * 12, sizeof *x);
  assert_non_null(x);
  for (int i = 0; i < g->n_nodes; i++) {
    x[i * 12] = g->kind[i] >= 0 ? (float)g->kind[i] / 98.0f : -1.0f;
    memcpy(x + i * 12 + 1, g->x + (size_t)i * g->dim + 1, 11 * sizeof *x);
  }
  return x;
}

static void expect_close(const float *a, const float *b, int n,
                         const char *what, const char *module) {
  double maxdiff = 0;
  for (int i = 0; i < n; i++)
    maxdiff = fmax(maxdiff, fabs((double)a[i] - b[i]));
  if (maxdiff > 1e-4)
    fail_msg("%s on %s: maxdiff %.3g", what, module, maxdiff);
}

static void test_old_policy_migrates(void **state) {
  (void)state;
  mqss_session *s = NULL;
  assert_int_equal(mqss_session_create(&s), MQSS_OK);
  mqss_catalog *cat = NULL;
  assert_int_equal(
      mqss_catalog_load(s, MQSS_SOURCE_DIR "/data/catalog.yaml", &cat),
      MQSS_OK);
  // the file as it is: layout v2, a prefix of today's catalog
  uint64_t old_hashes[8];
  nn_load_check check = {
      .feature_hash = mqss_feature_layout_hash(),
      .catalog_hash = mqss_catalog_hash(cat),
      .prefix_hashes = catalog_prefix_hashes(cat),
      .n_prefix_hashes = mqss_catalog_size(cat) + 1,
      .old_feature_hashes = old_hashes,
      .n_old_feature_hashes = policy_old_layout_hashes(old_hashes, 8),
  };
  nn_model *old = NULL;
  nn_file_meta meta;
  char err[1024];
  if (nn_policy_read(OLD_POLICY, &check, &old, &meta, err, sizeof err) !=
      NN_OK)
    fail_msg("%s", err);
  const feature_layout *v = feature_layout_of_hash(meta.feature_hash);
  assert_non_null(v);
  assert_true(v->version < mqss_feature_layout_version()); // still old
  assert_int_equal(old->cfg.state_dim, 256);
  assert_int_equal(old->cfg.embed_dim, 0);
  // 1. the loader's migration (the actions of the prefix)
  mqss_policy *p = NULL;
  mqss_policy_options po;
  mqss_policy_options_init(&po);
  po.catalog_path = MQSS_SOURCE_DIR "/data/catalog.yaml";
  assert_int_equal(mqss_policy_load(s, OLD_POLICY, &po, &p), MQSS_OK);
  const nn_model *loaded = p->nets[0];
  assert_int_equal(loaded->cfg.state_dim, MQSS_FEATURE_DIM);
  assert_true(loaded->cfg.embed_dim > 0);
  assert_int_equal(loaded->cfg.n_actions, old->cfg.n_actions);
  // 2. --init-from's migration: every action of today's catalog
  nn_config full;
  assert_int_equal(policy_net_config(s, cat, "gnn", old->cfg.hidden_dim, &full),
                   MQSS_OK);
  nn_model *grown = NULL;
  {
    nn_file_meta pm;
    assert_int_equal(policy_read_parent(s, OLD_POLICY, cat, &grown, &pm),
                     MQSS_OK);
    assert_int_equal(pm.parent_feature_version, v->version);
    assert_int_equal(pm.parent_actions, old->cfg.n_actions);
    assert_true(pm.parent_hash != 0);
    assert_int_equal(policy_migrate(s, OLD_POLICY, pm.feature_hash, &full,
                                    7, &grown),
                     MQSS_OK);
  }
  int A = old->cfg.n_actions, An = grown->cfg.n_actions;
  assert_true(An > A); // the catalog did grow since that policy was trained
  int decisions_seen[NN_MAX_ACTIONS + 1] = {0}, distinct = 0;
  for (int k = 0; k < N_MODULES; k++) {
    char path[1024];
    snprintf(path, sizeof path, "%s/examples/%s", MQSS_SOURCE_DIR, MODULES[k]);
    mqss_module *m = NULL;
    if (mqss_module_parse_file(s, path, &m) != MQSS_OK)
      fail_msg("%s: %s", path, mqss_errmsg(s));
    // odd modules with a history: ctx.last.1 is (id + 1) / catalog size,
    // which the grown catalog makes smaller (its weights must compensate)
    float st[MQSS_FEATURE_DIM], st_full[MQSS_FEATURE_DIM];
    int hist[] = {3};
    assert_int_equal(mqss_features(m, p->catalog, hist, k % 2, 8, st), MQSS_OK);
    assert_int_equal(mqss_features(m, cat, hist, k % 2, 8, st_full), MQSS_OK);
    mqss_graph *g = NULL;
    assert_int_equal(mqss_graph_build(m, &g), MQSS_OK);
    float *x2 = v2_nodes(g);
    outputs o_old, o_new, o_grown;
    run(old, st, x2, 12, g, &o_old);
    run(loaded, st, g->x, g->dim, g, &o_new);
    run(grown, st_full, g->x, g->dim, g, &o_grown);
    expect_close(o_old.logits, o_new.logits, A + 1, "logits (loader)",
                 MODULES[k]);
    expect_close(o_old.mu, o_new.mu, o_old.P, "means (loader)", MODULES[k]);
    expect_close(o_old.logits, o_grown.logits, A, "logits (init-from)",
                 MODULES[k]);
    expect_close(&o_old.logits[A], &o_grown.logits[An], 1, "STOP (init-from)",
                 MODULES[k]);
    expect_close(o_old.mu, o_grown.mu, o_old.P, "means (init-from)", MODULES[k]);
    for (int a = A; a < An; a++)
      assert_float_equal(o_grown.logits[a], POLICY_NEW_ACTION_LOGIT, 1e-6);
    assert_int_equal(o_new.greedy, o_old.greedy);
    assert_int_equal(o_grown.greedy, o_old.greedy == A ? An : o_old.greedy);
    distinct += !decisions_seen[o_old.greedy]++;
    free(x2);
    mqss_graph_destroy(g);
    mqss_module_destroy(m);
  }
  assert_true(distinct >= 2); // the modules do not all get one answer
  nn_model_destroy(grown);
  nn_model_destroy(old);
  mqss_policy_destroy(p);
  mqss_catalog_destroy(cat);
  mqss_session_destroy(s);
}

// A network that cannot extend the old one is refused with a reason.
static void test_refusals(void **state) {
  (void)state;
  nn_config o;
  nn_config_default(&o);
  o.node_dim = 4;
  o.state_dim = 6;
  o.hidden_dim = 8;
  o.gnn_dim = 4;
  o.n_actions = 2;
  o.param_count[1] = 1;
  nn_model *old = nn_model_create(&o, 1);
  assert_non_null(old);
  nn_migration mig = {.kind_scale = 0, .low_logit = -10};
  char err[256] = "";
  nn_config n = o;
  n.hidden_dim = 16;
  assert_null(nn_model_migrate(old, &n, &mig, 1, err, sizeof err));
  assert_non_null(strstr(err, "policy.hidden"));
  n = o;
  n.state_dim = 5;
  assert_null(nn_model_migrate(old, &n, &mig, 1, err, sizeof err));
  assert_non_null(strstr(err, "does not extend"));
  n = o;
  n.param_count[1] = 2;
  assert_null(nn_model_migrate(old, &n, &mig, 1, err, sizeof err));
  assert_non_null(strstr(err, "parameters"));
  n = o; // an embedding needs to know how the old id column was scaled
  n.embed_dim = 3;
  n.embed_rows = 5;
  assert_null(nn_model_migrate(old, &n, &mig, 1, err, sizeof err));
  assert_non_null(strstr(err, "scale"));
  nn_model_destroy(old);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_old_policy_migrates),
      cmocka_unit_test(test_refusals),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
