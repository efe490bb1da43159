// Benchmark of policy inference: per-decision latency (network forward
// alone, and a whole decision = features + graph + mask + forward + act) of
// the GNN policy on a ~1000-op module; 16-step selects with the time spent
// applying passes reported separately, once over the clean-up actions of
// bench/select_catalog.yaml (the module keeps its size: the target) and once
// over the whole catalog (the untrained policy may grow the module many
// times); and the first (cold) call against later (warm) ones. Prints
// medians of repeats, the machine and the commit. The policies are untrained
// random ones: the latency of a decision does not depend on the weights'
// values (which actions they pick does). Not a test: nothing here asserts.
#include "mqss/mqss.h"
#include "policy/policy.h"
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Finds a corpus module with at least `want` ops (the first one, scanning
// families and indices in order). Returns it, or NULL.
static mqss_module *module_with_ops(mqss_session *s, int want, int *n_ops,
                                    char *what, size_t wlen) {
  for (int idx = 0; idx < 8; idx++)
    for (int f = 0; f < mqss_corpus_family_count(); f++) {
      const char *fam = mqss_corpus_family_name(f);
      char *text = mqss_corpus_emit(fam, 0, idx);
      mqss_module *m = NULL;
      if (!text ||
          mqss_module_parse_string(s, text, strlen(text), fam, &m) != MQSS_OK) {
        free(text);
        continue;
      }
      free(text);
      mqss_graph *g = NULL;
      if (mqss_graph_build(m, &g) == MQSS_OK && g->n_ops >= want) {
        *n_ops = g->n_ops;
        snprintf(what, wlen, "%s #%d", fam, idx);
        mqss_graph_destroy(g);
        return m;
      }
      mqss_graph_destroy(g);
      mqss_module_destroy(m);
    }
  return NULL;
}

// A synthetic module of about `want` ops when the corpus has none that big:
// want/5 affine loops (for, load, addf, store, yield) over one memref.
static mqss_module *synthetic(mqss_session *s, int want, int *n_ops,
                              char *what, size_t wlen) {
  strbuf sb = {0};
  sb_printf(&sb, "func.func @forward(%%a: memref<64xf32>) {\n");
  for (int i = 0; i < want / 5; i++)
    sb_printf(&sb, "  affine.for %%i%d = 0 to 64 {\n"
                   "    %%v%d = affine.load %%a[%%i%d] : memref<64xf32>\n"
                   "    %%w%d = arith.addf %%v%d, %%v%d : f32\n"
                   "    affine.store %%w%d, %%a[%%i%d] : memref<64xf32>\n  }\n",
              i, i, i, i, i, i, i, i);
  sb_printf(&sb, "  return\n}\n");
  mqss_module *m = NULL;
  mqss_graph *g = NULL;
  if (mqss_module_parse_string(s, sb.data, sb.len, "synthetic", &m) ||
      mqss_graph_build(m, &g))
    return NULL;
  *n_ops = g->n_ops;
  snprintf(what, wlen, "synthetic (corpus has no %d-op module)", want);
  mqss_graph_destroy(g);
  sb_free(&sb);
  return m;
}

// A file next to this source (bench/NAME), for the catalog of the select
// benchmark. Caller frees.
static char *bench_file(const char *name) {
  const char *here = __FILE__;
  const char *slash = strrchr(here, '/');
  size_t dir = slash ? (size_t)(slash - here + 1) : 0;
  char *path = malloc(dir + strlen(name) + 1);
  memcpy(path, here, dir);
  strcpy(path + dir, name);
  return path;
}

typedef struct {
  double total, apply, over; // medians: whole select, passes, the rest
  int ops_after;             // ops of the module the selection produces
} select_figures;

// RS greedy 16-step selects (every repeat makes the same choices); select
// itself times the cloning and pass runs of every candidate action
// (mqss_selection_pass_ms), those that changed nothing included. Prints the
// pipeline chosen.
static void select_bench(const mqss_policy *p, const mqss_catalog *c,
                         const mqss_module *m, int RS, const char *label,
                         select_figures *out) {
  double *t = malloc(sizeof(double) * RS), *ta = malloc(sizeof(double) * RS),
         *to = malloc(sizeof(double) * RS);
  mqss_select_options o;
  mqss_select_options_init(&o);
  o.max_steps = 16;
  mqss_selection *sel = NULL;
  for (int r = 0; r < RS; r++) {
    mqss_selection_destroy(sel);
    double t0 = now_ms();
    mqss_policy_select(p, m, &o, &sel);
    t[r] = now_ms() - t0;
    ta[r] = mqss_selection_pass_ms(sel);
    to[r] = t[r] - ta[r];
  }
  int steps = mqss_selection_count(sel);
  printf("%s: %d of %d steps changed the IR (stopped=%d): %s\n", label, steps,
         o.max_steps, mqss_selection_stopped(sel), mqss_selection_pipeline(sel));
  mqss_module *w = mqss_module_clone(m);
  for (int i = 0; i < steps; i++)
    mqss_decision_apply(w, c, mqss_selection_decision(sel, i));
  mqss_graph *g = NULL;
  out->ops_after = mqss_graph_build(w, &g) == MQSS_OK ? g->n_ops : -1;
  mqss_graph_destroy(g);
  mqss_module_destroy(w);
  mqss_selection_destroy(sel);
  out->total = median_of(t, RS);
  out->apply = median_of(ta, RS);
  out->over = median_of(to, RS);
  free(t);
  free(ta);
  free(to);
}

int main(int argc, char **argv) {
  const char *commit = argc > 1 ? argv[1] : "unknown";
  int R = argc > 2 ? atoi(argv[2]) : 101;
  int want_ops = argc > 3 ? atoi(argv[3]) : 1000;
  printf("commit: %s\n", commit);
  fflush(stdout);
  if (system("uname -a; grep -m1 'model name' /proc/cpuinfo") != 0)
    printf("(machine info unavailable)\n");
  mqss_session *s = NULL;
  mqss_catalog *c = NULL;
  mqss_policy *p = NULL;
  const char *path = "/tmp/mqss-bench-policy.safetensors";
  double t0 = now_ms();
  if (mqss_session_create(&s) || mqss_catalog_load(s, NULL, &c) ||
      mqss_policy_write_random(s, c, "gnn", 1, path) ||
      mqss_policy_load(s, path, NULL, &p)) {
    fprintf(stderr, "setup: %s\n", mqss_errmsg(s));
    return 1;
  }
  double t_load = now_ms() - t0;
  int n_ops = 0;
  char what[128];
  mqss_module *m = module_with_ops(s, want_ops, &n_ops, what, sizeof what);
  if (!m)
    m = synthetic(s, want_ops, &n_ops, what, sizeof what);
  if (!m) {
    fprintf(stderr, "no corpus module with %d ops\n", want_ops);
    return 1;
  }
  const nn_config *cfg = &p->nets[0]->cfg;
  printf("policy: gnn S=%d F=%d G=%d H=%d A=%d P=%d (untrained), load %.2f ms\n",
         cfg->state_dim, cfg->node_dim, cfg->gnn_dim, cfg->hidden_dim,
         cfg->n_actions, p->nets[0]->P, t_load);
  printf("module: %s, %d ops\n", what, n_ops);

  // cold: the first decision and the first select in this process
  mqss_select_options one;
  mqss_select_options_init(&one);
  one.max_steps = 1;
  mqss_selection *sel = NULL;
  t0 = now_ms();
  mqss_policy_select(p, m, &one, &sel);
  double cold_select1 = now_ms() - t0;
  mqss_selection_destroy(sel);

  // per decision
  double *t = malloc(sizeof(double) * R);
  policy_scratch sc = {0};
  float u[1024];
  for (int r = 0; r < R; r++) {
    t0 = now_ms();
    policy_forward(p, m, NULL, 0, NULL, false, &sc);
    nn_act_from(p->nets[0], sc.logp, sc.mu, NULL, u);
    t[r] = now_ms() - t0;
  }
  double dec = median_of(t, R);
  // the network alone, inputs prepared
  int gp[2] = {0, sc.graph->n_nodes};
  nn_batch in = {.B = 1, .state = sc.state, .mask = sc.nn_mask, .graph_ptr = gp,
                 .graph = {sc.graph->n_nodes, sc.graph->dim, sc.graph->x,
                           sc.graph->row_ptr, sc.graph->col}};
  for (int r = 0; r < R; r++) {
    t0 = now_ms();
    nn_forward(p->nets[0], &sc.acts[0], &in);
    t[r] = now_ms() - t0;
  }
  double fwd = median_of(t, R);
  // the environment parts alone
  float st[MQSS_FEATURE_DIM];
  for (int r = 0; r < R; r++) {
    t0 = now_ms();
    mqss_features(m, c, NULL, 0, 16, st);
    t[r] = now_ms() - t0;
  }
  double feat = median_of(t, R);
  for (int r = 0; r < R; r++) {
    mqss_graph *g = NULL;
    t0 = now_ms();
    mqss_graph_build(m, &g);
    t[r] = now_ms() - t0;
    mqss_graph_destroy(g);
  }
  double graph = median_of(t, R);
  uint8_t mask[NN_MAX_ACTIONS + 1];
  for (int r = 0; r < R; r++) {
    t0 = now_ms();
    mqss_action_mask(m, c, NULL, mask);
    t[r] = now_ms() - t0;
  }
  double msk = median_of(t, R);
  uint64_t fp = 0;
  for (int r = 0; r < R; r++) {
    t0 = now_ms();
    fp += module_fingerprint(m);
    t[r] = now_ms() - t0;
  }
  double fpr = median_of(t, R);
  uint64_t ph = 0;
  for (int r = 0; r < R; r++) {
    t0 = now_ms();
    ph += mqss_module_hash(m);
    t[r] = now_ms() - t0;
  }
  double phr = median_of(t, R);
  policy_scratch_free(&sc);

  int RS = R / 5 > 5 ? R / 5 : 5;
  select_figures cleanup, full;
  char *cat_path = bench_file("select_catalog.yaml");
  mqss_catalog *cc = NULL;
  mqss_policy *pc = NULL;
  const char *cpath = "/tmp/mqss-bench-policy-cleanup.safetensors";
  mqss_policy_options po;
  mqss_policy_options_init(&po);
  po.catalog_path = cat_path;
  if (mqss_catalog_load(s, cat_path, &cc)) {
    fprintf(stderr, "setup: %s\n", mqss_errmsg(s));
    return 1;
  }
  // the first random policy (by seed) that does not choose STOP within 16
  // steps: the benchmark is about a select that runs all of them
  int seed = 1;
  for (; seed <= 100; seed++) {
    mqss_policy_destroy(pc);
    pc = NULL;
    if (mqss_policy_write_random(s, cc, "gnn", (uint64_t)seed, cpath) ||
        mqss_policy_load(s, cpath, &po, &pc)) {
      fprintf(stderr, "setup: %s\n", mqss_errmsg(s));
      return 1;
    }
    mqss_select_options o16;
    mqss_select_options_init(&o16);
    o16.max_steps = 16;
    mqss_selection *probe = NULL;
    mqss_policy_select(pc, m, &o16, &probe);
    bool full_run = probe && !mqss_selection_stopped(probe);
    mqss_selection_destroy(probe);
    if (full_run)
      break;
  }
  printf("clean-up catalog policy: seed %d, the first that runs 16 steps\n",
         seed);
  select_bench(pc, cc, m, RS, "clean-up catalog", &cleanup);
  select_bench(p, c, m, RS, "full catalog", &full);

  printf("\nmedians of %d repeats (selects: %d)\n", R, RS);
  printf("  decision (features+graph+mask+forward+act): %8.3f ms  [target <= 0.5]\n", dec);
  printf("    network forward alone:                    %8.3f ms\n", fwd);
  printf("    features:                                 %8.3f ms\n", feat);
  printf("    graph build:                              %8.3f ms\n", graph);
  printf("    safety mask:                              %8.3f ms\n", msk);
  printf("  change check per select step (fingerprint):  %8.3f ms  (%s)\n",
         fpr, fp ? "ok" : "zero");
  printf("    the printed hash it replaced:               %8.3f ms  (%s)\n",
         phr, ph ? "ok" : "zero");
  printf("  16-step select, clean-up catalog (%d -> %d ops):\n", n_ops,
         cleanup.ops_after);
  printf("    whole select:                             %8.3f ms\n", cleanup.total);
  printf("    of which applying passes (clone+apply):   %8.3f ms\n", cleanup.apply);
  printf("    select minus pass application:            %8.3f ms  [target <= 20]\n",
         cleanup.over);
  printf("  16-step select, full catalog (%d -> %d ops, for comparison):\n", n_ops,
         full.ops_after);
  printf("    whole select:                             %8.3f ms\n", full.total);
  printf("    of which applying passes (clone+apply):   %8.3f ms\n", full.apply);
  printf("    select minus pass application:            %8.3f ms\n", full.over);
  printf("  cold: first 1-step select in the process:   %8.3f ms\n", cold_select1);
  // warm 1-step select for comparison
  for (int r = 0; r < R; r++) {
    t0 = now_ms();
    mqss_policy_select(p, m, &one, &sel);
    t[r] = now_ms() - t0;
    mqss_selection_destroy(sel);
  }
  printf("  warm: later 1-step selects (median):        %8.3f ms\n", median_of(t, R));
  one.isolate = 1; // the same in a forked child (the CLI's default)
  for (int r = 0; r < R; r++) {
    t0 = now_ms();
    mqss_policy_select(p, m, &one, &sel);
    t[r] = now_ms() - t0;
    mqss_selection_destroy(sel);
  }
  printf("  isolated 1-step selects (fork, median):     %8.3f ms\n", median_of(t, R));
  free(t);
  mqss_module_destroy(m);
  mqss_policy_destroy(p);
  mqss_policy_destroy(pc);
  mqss_catalog_destroy(c);
  mqss_catalog_destroy(cc);
  free(cat_path);
  remove(cpath);
  mqss_session_destroy(s);
  remove(path);
  return 0;
}
