// Benchmark of the int8 policy against its f32 original (`mqss quantize`):
// over a list of modules (a corpus hold-out), the share of decision steps
// where both choose the same thing, and the decision latency of each in one
// interleaved run. Prints its figures, the machine and the commit; asserts
// nothing.
//
// Agreement is measured on the f32 policy's own trajectory (teacher
// forcing): for each module the f32 policy selects; then, on every state of
// that selection (the module after each kept step, with the history of kept
// actions, the final state included, where f32 chose STOP), both policies
// take one greedy decision from the same input, and a step agrees when the
// action and its mapped parameters (the step's pipeline text) are equal. A
// second figure counts a step as agreeing in effect when the texts differ
// but both are steps (not STOP) that turn the module into the same IR: a
// byte threshold of promote-buffers-to-stack that moved by a few bytes, say.
// Whole selections are compared too. Latency is one decision (features,
// graph, mask, network, act) on each state, f32 and int8 alternating, the
// median over every state and repeat; and the policy load.
#include "mqss/mqss.h"
#include "policy/policy.h"
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static mqss_policy *load(mqss_session *s, const char *path, double *ms) {
  mqss_policy *p = NULL;
  double t0 = now_ms();
  if (mqss_policy_load(s, path, NULL, &p) != MQSS_OK) {
    fprintf(stderr, "int8_agree: %s\n", mqss_errmsg(s));
    exit(1);
  }
  *ms = now_ms() - t0;
  return p;
}

// One greedy decision of `p` on `m` with history `hist` (n) into *d (action
// -1 for STOP); returns its step pipeline (malloc'ed; "stop" for STOP), NULL
// on error.
static char *decide(const mqss_policy *p, const mqss_module *m,
                    const int *hist, int n, policy_scratch *sc,
                    mqss_decision *d) {
  if (policy_forward(p, m, hist, n, NULL, false, sc) != MQSS_OK)
    return NULL;
  float u[POLICY_MAX_SLOTS];
  const nn_model *nm = p->nets[0];
  int a = nn_act_from(nm, sc->logp, sc->mu, NULL, u);
  *d = (mqss_decision){.action = -1};
  if (a < 0 || a == nm->cfg.n_actions)
    return strdup("stop");
  d->action = p->cat_of[a];
  for (int k = nm->param_off[a];
       k < nm->param_off[a + 1] && k - nm->param_off[a] < MQSS_MAX_PARAMS; k++)
    d->u[k - nm->param_off[a]] = u[k];
  return mqss_decision_pipeline(p->catalog, d);
}

// The IR of m after decision d; NULL when it does not apply.
static char *after(const mqss_module *m, const mqss_catalog *c,
                   const mqss_decision *d) {
  mqss_module *x = mqss_module_clone(m);
  char *text = x && mqss_decision_apply(x, c, d) == MQSS_OK
                   ? mqss_module_to_string(x)
                   : NULL;
  mqss_module_destroy(x);
  return text;
}

// Whether two steps (neither STOP) leave m as the same IR.
static bool same_effect(const mqss_module *m, const mqss_catalog *c,
                        const mqss_decision *a, const mqss_decision *b) {
  if (a->action < 0 || b->action < 0)
    return false;
  char *x = after(m, c, a), *y = after(m, c, b);
  bool same = x && y && !strcmp(x, y);
  free(x);
  free(y);
  return same;
}

int main(int argc, char **argv) {
  if (argc < 6) {
    fprintf(stderr, "usage: bench_int8_agree COMMIT F32 INT8 REPEATS "
                    "MODULE.mlir...\n");
    return 2;
  }
  const char *commit = argv[1], *f32_path = argv[2], *q_path = argv[3];
  int repeats = atoi(argv[4]);
  mqss_session *s = NULL;
  if (mqss_session_create(&s) != MQSS_OK)
    return 1;
  double load_f[21], load_q[21];
  mqss_policy *pf = NULL, *pq = NULL;
  for (int r = 0; r < 21; r++) { // interleaved loads; keep the last pair
    mqss_policy_destroy(pf);
    mqss_policy_destroy(pq);
    pf = load(s, f32_path, &load_f[r]);
    pq = load(s, q_path, &load_q[r]);
  }
  policy_scratch sf = {0}, sq = {0};
  int n_modules = 0, same_sel = 0, steps = 0, agree = 0, effect = 0, stops = 0;
  int n_lat = 0, cap_lat = 1024;
  double *lat_f = malloc(sizeof(double) * cap_lat);
  double *lat_q = malloc(sizeof(double) * cap_lat);
  for (int i = 5; i < argc; i++) {
    mqss_module *m = NULL;
    if (mqss_module_parse_file(s, argv[i], &m) != MQSS_OK) {
      fprintf(stderr, "int8_agree: skipped %s\n", mqss_errmsg(s));
      continue;
    }
    mqss_selection *a = NULL, *b = NULL;
    if (mqss_policy_select(pf, m, NULL, &a) != MQSS_OK ||
        mqss_policy_select(pq, m, NULL, &b) != MQSS_OK) {
      fprintf(stderr, "int8_agree: skipped %s: %s\n", argv[i],
              mqss_errmsg(s));
      mqss_selection_destroy(a);
      mqss_module_destroy(m);
      continue;
    }
    n_modules++;
    same_sel += !strcmp(mqss_selection_pipeline(a), mqss_selection_pipeline(b));
    // the states of f32's selection: after 0, 1, .., n kept steps
    int n = mqss_selection_count(a);
    int hist[MQSS_MAX_SELECT_STEPS + 1];
    mqss_module *cur = mqss_module_clone(m);
    for (int k = 0; k <= n && cur; k++) {
      if (k > 0) {
        hist[k - 1] = mqss_selection_decision(a, k - 1)->action;
        if (mqss_decision_apply(cur, pf->catalog,
                                mqss_selection_decision(a, k - 1)) != MQSS_OK)
          break;
      }
      mqss_decision xf, xq;
      char *df = decide(pf, cur, hist, k, &sf, &xf);
      char *dq = decide(pq, cur, hist, k, &sq, &xq);
      if (df && dq) {
        steps++;
        agree += !strcmp(df, dq);
        effect += !strcmp(df, dq) || same_effect(cur, pf->catalog, &xf, &xq);
        stops += !strcmp(df, "stop");
      }
      free(df);
      free(dq);
      for (int r = 0; r < repeats; r++) {
        if (n_lat == cap_lat) {
          cap_lat *= 2;
          lat_f = realloc(lat_f, sizeof(double) * cap_lat);
          lat_q = realloc(lat_q, sizeof(double) * cap_lat);
          if (!lat_f || !lat_q)
            return 1;
        }
        double t0 = now_ms();
        free(decide(pf, cur, hist, k, &sf, &xf));
        double t1 = now_ms();
        free(decide(pq, cur, hist, k, &sq, &xq));
        lat_f[n_lat] = t1 - t0;
        lat_q[n_lat++] = now_ms() - t1;
      }
    }
    mqss_module_destroy(cur);
    mqss_selection_destroy(a);
    mqss_selection_destroy(b);
    mqss_module_destroy(m);
  }
  printf("commit: %s\n", commit);
  fflush(stdout);
  if (system("uname -a; grep -m1 'model name' /proc/cpuinfo") != 0)
    printf("(machine info unavailable)\n");
  printf("policies: f32 %s, int8 %s\n", f32_path, q_path);
  printf("modules: %d\n", n_modules);
  printf("decision steps (f32 trajectory, %d of them STOP): %d, int8 agrees "
         "on %d = %.2f%%  [target >= 99%%]\n",
         stops, steps, agree, steps ? 100.0 * agree / steps : 0.0);
  printf("decision steps that agree in effect (the same text, or two steps "
         "giving the same IR): %d = %.2f%%\n",
         effect, steps ? 100.0 * effect / steps : 0.0);
  printf("whole selections identical: %d of %d\n", same_sel, n_modules);
  printf("load (median of 21, interleaved): f32 %.3f ms, int8 %.3f ms\n",
         median_of(load_f, 21), median_of(load_q, 21));
  if (n_lat) {
    double mf = median_of(lat_f, n_lat), mq = median_of(lat_q, n_lat);
    printf("decision latency (median of %d, interleaved): f32 %.3f ms, int8 "
           "%.3f ms, int8/f32 %.3f\n", n_lat, mf, mq, mq / mf);
  }
  free(lat_f);
  free(lat_q);
  policy_scratch_free(&sf);
  policy_scratch_free(&sq);
  mqss_policy_destroy(pf);
  mqss_policy_destroy(pq);
  mqss_session_destroy(s);
  return 0;
}
