// mqss_policy_select: the decision loop. Each step runs the network on the
// current module (the caller's, read-only, until an action applies; then a
// private working copy; a tagged copy from the start when the caller's has
// linalg ops without tags), takes the greedy (or sampled) action, lets
// the per-op rule (focus.c) pick the op a schedule decision addresses,
// and applies it to the copy, with its repeats on the further ops it fits
// (repeat.c, each its own decision in the selection); STOP ends the loop.
// With fit_sizes (by default when the policy was trained with adapted
// seeds), a schedule decision whose sizes do not divide its op's loops gets
// the nearest sizes that do (fit.c). Actions whose pipeline fails on the
// copy (without fit_sizes, such a decision: it is refused),
// or that would complete a sequence recorded as bad for this module, are
// masked and the step is retried. An action that changes
// nothing takes its step, stays out of the selection, and is masked until
// the IR changes, as in the training environment (env.c). It
// does not measure or compile anything (guard.c). While the IR has not
// changed (a retry, or a step after an action that changed nothing) the
// next decision reuses its IR features, mask and graph embedding.
#include "actions/linalg_ops.h"
#include "measure/measure.h"
#include "policy/policy.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void mqss_select_options_init(mqss_select_options *o) {
  memset(o, 0, sizeof *o);
  o->max_steps = 0;
  o->seed = 1;
  o->timeout_ms = 60000;
  o->mem_limit_mb = 4096;
  o->time_budget_ms = -1;
}

static void trace(int fd, int tag, const mqss_decision *d) {
  if (fd < 0)
    return;
  // in the sandbox child: a death is reported as during the passes or not
  child_report_stage(tag == 'T' ? STAGE_PIPELINE : STAGE_START);
  select_trace t = {.tag = tag, .d = *d};
  t.d.target = NULL;
  // a short write only loses the crash diagnosis, never the selection
  ssize_t n = write(fd, &t, sizeof t);
  (void)n;
}

// A kept decision's repeats (repeat.c) go through the same checks as the
// decisions: a repeat that would complete a bad sequence ends them, each is
// traced around its passes, and each kept one joins the selection.
typedef struct {
  mqss_selection *sel;
  const badlog *bad;
  int fd;
  bool nomem;
} repeat_ctx;

static bool repeat_before(void *ctx, const mqss_decision *r) {
  repeat_ctx *k = ctx;
  char *text = mqss_decision_pipeline(k->sel->catalog, r);
  bool ok = text && !badlog_completes(k->bad, k->sel->step, k->sel->n, text);
  k->nomem |= !text;
  free(text);
  if (ok)
    trace(k->fd, 'T', r);
  return ok;
}

static void repeat_after(void *ctx, const mqss_decision *r, bool kept) {
  repeat_ctx *k = ctx;
  trace(k->fd, 'A', r);
  if (!kept)
    return;
  k->nomem |= selection_push(k->sel, r) != MQSS_OK;
  trace(k->fd, 'K', r);
}

// Chooses one decision for `work`. Returns the catalog index (or -1 with an
// error set), fills d.
static int choose(const mqss_policy *p, const mqss_module *work, const int *hist,
                  int n_hist, const uint8_t *ban, bool same_ir, nn_rng *rng,
                  policy_scratch *sc, mqss_decision *d, mqss_status *rc) {
  *rc = policy_forward(p, work, hist, n_hist, ban, same_ir, sc);
  if (*rc != MQSS_OK)
    return -1;
  float u[POLICY_MAX_SLOTS]; // (P <= POLICY_MAX_SLOTS, bind_catalog) only
                             // the chosen slots are written
  const nn_model *m = p->nets[0];
  int a = nn_act_from(m, sc->logp, sc->mu, rng, u);
  if (a < 0) // nothing allowed: cannot happen while STOP is never banned
    a = m->cfg.n_actions;
  memset(d, 0, sizeof *d);
  d->action = p->cat_of[a];
  int k0 = m->param_off[a], k1 = m->param_off[a + 1];
  for (int k = k0; k < k1 && k - k0 < MQSS_MAX_PARAMS; k++)
    d->u[k - k0] = u[k];
  return d->action;
}

// The odds of the step `choose` just took from sc's distribution: the
// probability of `action` (a catalog index) and the next most likely of the
// allowed actions (mqss_selection_odds).
static selection_odds odds_of(const mqss_policy *p, const policy_scratch *sc,
                              int action) {
  int A1 = p->nets[0]->cfg.n_actions + 1, taken = p->nn_of[action];
  selection_odds o = {.p = expf(sc->logp[taken])};
  for (int j = 0; j < A1; j++) {
    if (j == taken || sc->logp[j] == -INFINITY)
      continue;
    float q = expf(sc->logp[j]);
    int at = o.n_alt;
    while (at > 0 && o.alt_p[at - 1] < q)
      at--;
    if (at == MQSS_SELECTION_ALTS)
      continue;
    int last = o.n_alt < MQSS_SELECTION_ALTS ? o.n_alt++ : o.n_alt - 1;
    for (int t = last; t > at; t--) {
      o.alt[t] = o.alt[t - 1];
      o.alt_p[t] = o.alt_p[t - 1];
    }
    o.alt[at] = p->cat_of[j];
    o.alt_p[at] = q;
  }
  return o;
}

// A module that the finisher cannot lower has no pipeline worth proposing:
// every candidate would end in the same error (a gpu kernel, an op with no
// LLVM lowering). Checked on a clone, before any decision, when an op of a
// dialect that no finisher step names is present (one walk otherwise).
static mqss_status check_lowerable(const mqss_module *module) {
  if (!finish_has_unknown_ops(module))
    return MQSS_OK;
  mqss_session *s = mqss_module_session(module);
  mqss_module *copy = mqss_module_clone(module);
  if (!copy)
    return fail(s, MQSS_ERR_NOMEM, "out of memory");
  mqss_status rc = mqss_module_finish(copy);
  mqss_module_destroy(copy);
  if (rc == MQSS_OK)
    return MQSS_OK;
  char *why = strdup(mqss_errmsg(s));
  rc = fail(s, rc, "no pipeline to select: %s", why ? why : "out of memory");
  free(why);
  return rc;
}

mqss_status mqss_policy_select(const mqss_policy *p, const mqss_module *module,
                               const mqss_select_options *opts,
                               mqss_selection **out) {
  if (!module)
    return MQSS_ERR_INVALID_ARG;
  mqss_session *s = mqss_module_session(module);
  if (!p || !out)
    return fail(s, MQSS_ERR_INVALID_ARG, "select: NULL argument");
  *out = NULL;
  mqss_select_options defaults;
  if (!opts) {
    mqss_select_options_init(&defaults);
    opts = &defaults;
  }
  if (opts->max_steps < 0 || opts->max_steps > MQSS_MAX_SELECT_STEPS)
    return fail(s, MQSS_ERR_INVALID_ARG, "select: max_steps %d is out of "
                "range: 1..%d, or 0 for the policy's episode length",
                opts->max_steps, MQSS_MAX_SELECT_STEPS);
  if (opts->time_budget_ms < -1)
    return fail(s, MQSS_ERR_INVALID_ARG, "select: time_budget_ms %d is out "
                "of range: 0 or more, or -1 for none", opts->time_budget_ms);
  double deadline = opts->time_budget_ms >= 0
                        ? now_ms() + opts->time_budget_ms : -1;
  mqss_status lowerable = check_lowerable(module);
  if (lowerable != MQSS_OK)
    return lowerable;
  badlog bad = {0};
  if (opts->cache_dir &&
      badlog_load(opts->cache_dir, mqss_module_hash(module), &bad) != 0)
    return fail(s, MQSS_ERR_IO, "cannot read '%s/bad_sequences.jsonl'",
                opts->cache_dir);
  mqss_status rc =
      opts->isolate ? select_isolated(p, module, opts, &bad, deadline, out)
                    : select_run(p, module, opts, &bad, deadline, -1, out);
  badlog_free(&bad);
  return rc;
}

mqss_status select_run(const mqss_policy *p, const mqss_module *module,
                       const mqss_select_options *opts, const badlog *bad,
                       double deadline, int trace_fd, mqss_selection **out) {
  mqss_session *s = mqss_module_session(module);
  int max_steps = opts->max_steps > 0 ? opts->max_steps : p->episode_steps;
  bool fit = opts->fit_sizes ? opts->fit_sizes > 0 : p->fit_sizes;
  nn_rng rng;
  nn_rng_seed(&rng, opts->seed);
  mqss_selection *sel = selection_new(p->catalog);
  // The caller's module is read until the first action applies; from then
  // on `work` is a private copy (no up-front clone).
  mqss_module *work = NULL;
  const mqss_module *cur = module;
  // Decisions address linalg ops by their tags (focus.c): select on a
  // tagged copy, numbered as the selection's consumers number the module
  // when its pipeline first runs a schedule (mqss_module_run_pipeline).
  if (linalg_needs_tags(mlirModuleGetOperation(module->mod))) {
    cur = work = mqss_module_clone(module);
    if (work)
      linalg_tag_once(mlirModuleGetOperation(work->mod));
  }
  int *hist = calloc((size_t)max_steps + 1, sizeof *hist);
  uint8_t ban[NN_MAX_ACTIONS + 1], noop[NN_MAX_ACTIONS + 1] = {0};
  policy_scratch sc = {0};
  mqss_status rc = MQSS_OK;
  if (!sel || !hist || !cur)
    rc = fail(s, MQSS_ERR_NOMEM, "out of memory");
  int stop = mqss_catalog_stop(p->catalog);
  uint64_t cur_hash = 0; // hash of `cur`, once known
  bool have_hash = false;
  bool same_ir = false; // `cur` is what sc describes (policy_forward)
  for (int step = 0; rc == MQSS_OK && step < max_steps; step++) {
    if (step > 0 && deadline >= 0 && now_ms() >= deadline) {
      sel->budget_hit = 1; // the decisions so far are the selection
      break;
    }
    memcpy(ban, noop, sizeof ban);
    for (;;) { // retry the step until an action applies (STOP always does)
      mqss_decision d;
      int a = choose(p, cur, hist, step, ban, same_ir,
                     opts->sample ? &rng : NULL, &sc, &d, &rc);
      if (a < 0)
        break;
      same_ir = true;
      if (a == stop) {
        sel->stopped = 1;
        sel->stop_odds = odds_of(p, &sc, a);
        break;
      }
      d.op = decision_focus(cur, p->catalog, &d); // the per-op rule
      if (fit && !decision_fits(cur, p->catalog, &d, NULL, 0))
        decision_fit_sizes(cur, p->catalog, &d); // else refused: masked below
      char *text = mqss_decision_pipeline(p->catalog, &d);
      if (!text) {
        rc = fail(s, MQSS_ERR_NOMEM, "out of memory");
        break;
      }
      bool is_bad = badlog_completes(bad, sel->step, sel->n, text);
      free(text);
      if (!is_bad)
        trace(trace_fd, 'T', &d);
      double t0 = now_ms();
      mqss_module *next = is_bad ? NULL : mqss_module_clone(cur);
      if (!is_bad && !next) {
        rc = fail(s, MQSS_ERR_NOMEM, "out of memory");
        break;
      }
      bool applied = !is_bad && mqss_decision_apply(next, p->catalog, &d) == MQSS_OK;
      sel->pass_ms += now_ms() - t0;
      if (!is_bad)
        trace(trace_fd, 'A', &d); // applied or failed: out of the passes
      if (!applied) {
        mqss_module_destroy(next);
        ban[a] = 1; // masked for this step; choose again
        continue;
      }
      hist[step] = a;
      uint64_t next_hash = module_fingerprint(next);
      if (!have_hash) { // the caller's module, hashed once
        cur_hash = module_fingerprint(cur);
        have_hash = true;
      }
      if (next_hash == cur_hash) {
        mqss_module_destroy(next);
        noop[a] = 1;
        break;
      }
      memset(noop, 0, sizeof noop);
      mqss_module_destroy(work);
      cur = work = next;
      same_ir = false;
      cur_hash = next_hash;
      if (selection_push(sel, &d) != MQSS_OK)
        rc = fail(s, MQSS_ERR_NOMEM, "out of memory");
      else
        sel->odds[sel->n - 1] = odds_of(p, &sc, a);
      trace(trace_fd, 'K', &d);
      repeat_ctx k = {sel, bad, trace_fd, false};
      repeat_hooks h = {&k, repeat_before, repeat_after};
      t0 = now_ms();
      int n = rc == MQSS_OK ? decision_apply_repeats(&work, &cur_hash,
                                                     p->catalog, &d, fit, &h)
                            : 0;
      sel->pass_ms += now_ms() - t0;
      if (n < 0 || k.nomem)
        rc = fail(s, MQSS_ERR_NOMEM, "out of memory");
      cur = work;
      break;
    }
    if (sel && sel->stopped)
      break;
  }
  policy_scratch_free(&sc);
  mqss_module_destroy(work);
  free(hist);
  if (rc != MQSS_OK) {
    mqss_selection_destroy(sel);
    return rc;
  }
  *out = sel;
  return MQSS_OK;
}
