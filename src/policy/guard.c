// Guarded selection: the safety layer cannot see a silent miscompile, so the
// guard runs the selected pipeline and the reference (finisher only) in the
// measurement sandbox on the same deterministic inputs and falls back to a
// baseline pipeline when outputs differ or the pipeline fails, crashes or
// cannot be checked. Verdicts are cached by the measurement cache; wrong or
// crashing sequences go to the bad-sequence log. It does not time anything:
// one run, no warm-up.
#include "policy/policy.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

void mqss_guard_options_init(mqss_guard_options *o) {
  memset(o, 0, sizeof *o);
  o->seed = 1;
  o->timeout_ms = 30000;
  o->mem_limit_mb = 4096;
  mqss_measure_options mo; // the check's defaults, in one place
  mqss_measure_options_init(&mo);
  o->rtol = mo.rtol;
  o->atol = mo.atol;
  mqss_budget_options bo; // any-time selection's defaults, likewise
  mqss_budget_options_init(&bo);
  o->max_compile = bo.max_compile;
  o->confirm_pairs = bo.confirm_pairs;
}

static void copy(char *dst, size_t n, const char *src) {
  snprintf(dst, n, "%s", src ? src : "");
}

mqss_status mqss_policy_fallback_to_baseline(const mqss_policy *p,
                                             mqss_module *module,
                                             const mqss_selection *sel,
                                             const mqss_guard_options *opts,
                                             mqss_guard_report *r) {
  if (!module)
    return MQSS_ERR_INVALID_ARG;
  mqss_session *s = mqss_module_session(module);
  if (!p || !sel || !r)
    return fail(s, MQSS_ERR_INVALID_ARG, "guard: NULL argument");
  mqss_guard_options defaults;
  if (!opts) {
    mqss_guard_options_init(&defaults);
    opts = &defaults;
  }
  memset(r, 0, sizeof *r);
  const char *baseline = opts->baseline ? opts->baseline : "";
  copy(r->chosen, sizeof r->chosen, sel->pipeline);
  if (sel->n == 0) { // nothing chosen: the reference itself, trivially right
    r->verdict = MQSS_MEASURE_OK;
    copy(r->used, sizeof r->used, sel->pipeline);
    copy(r->reason, sizeof r->reason,
         "the selection has no passes; nothing to check");
    return MQSS_OK;
  }
  char cache[4096];
  mqss_measure_options mo;
  mqss_measure_options_init(&mo);
  mo.pipeline = sel->pipeline;
  mo.warmup = 0;
  mo.repeat = 1;
  mo.seed = opts->seed;
  mo.timeout_ms = opts->timeout_ms;
  mo.mem_limit_mb = opts->mem_limit_mb;
  mo.rtol = opts->rtol;
  mo.atol = opts->atol;
  mo.skip_outputs = opts->skip_outputs;
  mo.num_skip_outputs = opts->num_skip_outputs;
  mo.ignore_schedule = opts->ignore_schedule;
  mo.code_size = 0;
  mo.check_reference = 1;
  if (opts->cache_dir) {
    if (mkdir(opts->cache_dir, 0777) != 0 && errno != EEXIST)
      return fail(s, MQSS_ERR_IO, "cannot create cache directory '%s': %s",
                  opts->cache_dir, strerror(errno));
    snprintf(cache, sizeof cache, "%s/measure.sqlite", opts->cache_dir);
    mo.cache_path = cache;
  }
  mqss_measure_result m;
  mqss_status rc = mqss_measure(module, &mo, &m);
  if (rc != MQSS_OK)
    return rc;
  r->verdict = m.status;
  r->cached = m.cached;
  const char *vname = mqss_measure_status_name(m.status);
  if (m.status == MQSS_MEASURE_OK) {
    copy(r->used, sizeof r->used, sel->pipeline);
    snprintf(r->reason, sizeof r->reason,
             "selected pipeline checked: outputs match the reference on "
             "seed %llu (%lld values%s%.400s)%s",
             (unsigned long long)opts->seed, (long long)m.num_values,
             m.notes[0] ? "; " : "", m.notes,
             m.cached ? " [cached verdict]" : "");
    return MQSS_OK;
  }
  r->used_fallback = 1;
  copy(r->used, sizeof r->used, baseline);
  snprintf(r->reason, sizeof r->reason,
           "selected pipeline %s: %.600s; fell back to the baseline '%.300s'%s",
           m.status == MQSS_MEASURE_UNSUPPORTED ? "cannot be checked"
                                                : "rejected",
           m.message[0] ? m.message : vname, baseline,
           m.cached ? " [cached verdict]" : "");
  // Sequences that broke the program are logged; "cannot be checked" (no
  // drivable entry) says nothing about the passes, and neither does a
  // timeout, so those are not.
  bool bad = m.status == MQSS_MEASURE_WRONG_OUTPUT ||
             m.status == MQSS_MEASURE_CRASHED ||
             m.status == MQSS_MEASURE_VERIFY_FAILED ||
             m.status == MQSS_MEASURE_PASS_FAILED;
  if (bad && opts->cache_dir && !m.cached) {
    if (badlog_append(opts->cache_dir, mqss_module_hash(module), sel, vname))
      return fail(s, MQSS_ERR_IO, "cannot append to '%s/bad_sequences.jsonl'",
                  opts->cache_dir);
    r->recorded = 1;
  }
  return MQSS_OK;
}

// The report when even an isolated selection kept crashing: the baseline.
static mqss_status selection_crashed(mqss_module *module,
                                     const mqss_guard_options *opts,
                                     mqss_guard_report *r) {
  memset(r, 0, sizeof *r);
  r->verdict = MQSS_MEASURE_CRASHED;
  r->used_fallback = 1;
  const char *baseline = opts && opts->baseline ? opts->baseline : "";
  copy(r->used, sizeof r->used, baseline);
  snprintf(r->reason, sizeof r->reason,
           "%.700s; fell back to the baseline '%.300s'",
           mqss_errmsg(mqss_module_session(module)), baseline);
  return MQSS_OK;
}

// Any-time selection's settings from the guard's: its seed, limits, check
// and cache (cache_dir/measure.sqlite, created when needed, its path in
// `cache`, which bo borrows).
static mqss_status guard_budget_options(mqss_module *module,
                                        const mqss_guard_options *o,
                                        char *cache, size_t cache_len,
                                        mqss_budget_options *bo) {
  mqss_budget_options_init(bo);
  bo->budget = o->budget;
  bo->max_compile = o->max_compile;
  bo->confirm_pairs = o->confirm_pairs;
  bo->measure.seed = o->seed;
  bo->measure.timeout_ms = o->timeout_ms;
  bo->measure.mem_limit_mb = o->mem_limit_mb;
  bo->measure.rtol = o->rtol;
  bo->measure.atol = o->atol;
  bo->measure.skip_outputs = o->skip_outputs;
  bo->measure.num_skip_outputs = o->num_skip_outputs;
  bo->measure.ignore_schedule = o->ignore_schedule;
  if (o->cache_dir) {
    if (mkdir(o->cache_dir, 0777) != 0 && errno != EEXIST)
      return fail(mqss_module_session(module), MQSS_ERR_IO,
                  "cannot create cache directory '%s': %s", o->cache_dir,
                  strerror(errno));
    snprintf(cache, cache_len, "%s/measure.sqlite", o->cache_dir);
    bo->measure.cache_path = cache;
  }
  return MQSS_OK;
}

// With a budget: the pipeline the guard accepted against the baseline, in
// bo->confirm_pairs interleaved pairs, outputs checked. The baseline
// replaces it when it is confirmed faster by bo->min_gain, so that a measured
// selection is never used where the baseline is confirmed faster. A first
// reading whose estimate favours the baseline by more than min_gain but
// whose interval does not clear it (a noisy module, threads on few cores)
// is replaced by a reading with three times the pairs: keeping the
// selection is then a decision, not the noise's. Reading again only when
// the estimate favours the baseline can only move the choice to it, which
// costs nothing where the two are equally fast.
static mqss_status versus_baseline(mqss_module *module,
                                   const mqss_budget_options *bo,
                                   const char *baseline, mqss_guard_report *r) {
  if (r->used_fallback || !baseline || !baseline[0] ||
      !strcmp(r->used, baseline))
    return MQSS_OK;
  mqss_measure_vs_result vs;
  int verdict;
  mqss_status rc = budget_versus(module, bo, baseline, r->used, &vs, &verdict);
  if (rc != MQSS_OK)
    return rc;
  size_t len = strlen(r->reason);
  if (verdict == 0 && vs.a.status == MQSS_MEASURE_OK &&
      vs.b.status == MQSS_MEASURE_OK && vs.ratio_hl > 1 + bo->min_gain) {
    mqss_budget_options more = *bo;
    more.confirm_pairs = 3 * bo->confirm_pairs;
    len += (size_t)snprintf(r->reason + len, sizeof r->reason - len,
                            "; the baseline measured %.3fx [%.3f, %.3f] over "
                            "the selection: not confirmed, read again with "
                            "%d pairs",
                            vs.ratio_hl, vs.ratio_lo, vs.ratio_hi,
                            more.confirm_pairs);
    if (len >= sizeof r->reason)
      len = sizeof r->reason - 1;
    if ((rc = budget_versus(module, &more, baseline, r->used, &vs,
                            &verdict)) != MQSS_OK)
      return rc;
  }
  if (vs.a.status != MQSS_MEASURE_OK || vs.b.status != MQSS_MEASURE_OK) {
    snprintf(r->reason + len, sizeof r->reason - len,
             "; not compared with the baseline (baseline %s, selection %s): "
             "the selection stays", mqss_measure_status_name(vs.a.status),
             mqss_measure_status_name(vs.b.status));
    return MQSS_OK;
  }
  if (verdict > 0) {
    r->used_fallback = 1;
    copy(r->used, sizeof r->used, baseline);
  }
  snprintf(r->reason + len, sizeof r->reason - len,
           "; the baseline measured %.3fx [%.3f, %.3f] over the selection: %s",
           vs.ratio_hl, vs.ratio_lo, vs.ratio_hi,
           verdict > 0 ? "faster, fell back to it"
                       : "not confirmed faster, the selection stays");
  return MQSS_OK;
}

mqss_status mqss_policy_compile_guarded(const mqss_policy *p,
                                        mqss_module *module,
                                        const mqss_select_options *sel_opts,
                                        const mqss_guard_options *opts,
                                        mqss_guard_report *r) {
  if (!module)
    return MQSS_ERR_INVALID_ARG;
  mqss_select_options so;
  if (sel_opts)
    so = *sel_opts;
  else
    mqss_select_options_init(&so);
  if (!so.cache_dir && opts)
    so.cache_dir = opts->cache_dir; // avoid what the guard has logged
  mqss_selection *sel = NULL;
  mqss_status rc;
  mqss_budget_report br = {0};
  mqss_budget_options bo;
  char cache[4096];
  bool budget = opts && opts->budget > 0;
  if (budget) {
    if ((rc = guard_budget_options(module, opts, cache, sizeof cache, &bo)) !=
        MQSS_OK)
      return rc;
    rc = mqss_policy_select_budget(p, module, &so, &bo, &sel, &br);
  } else {
    rc = mqss_policy_select(p, module, &so, &sel);
  }
  if (rc == MQSS_OK)
    rc = mqss_policy_fallback_to_baseline(p, module, sel, opts, r);
  else if (rc == MQSS_ERR_CRASHED && r) // isolated, and every retry crashed
    rc = selection_crashed(module, opts, r);
  if (rc == MQSS_OK && sel)
    r->budget_hit = mqss_selection_budget_hit(sel);
  if (rc == MQSS_OK && br.reason[0]) {
    size_t len = strlen(r->reason);
    snprintf(r->reason + len, sizeof r->reason - len, "; budget: %.400s",
             br.reason);
  }
  if (rc == MQSS_OK && budget)
    rc = versus_baseline(module, &bo, opts->baseline, r);
  if (rc == MQSS_OK && sel && mqss_selection_notes(sel)[0]) {
    size_t len = strlen(r->reason);
    snprintf(r->reason + len, sizeof r->reason - len,
             "; while selecting, %.400s", mqss_selection_notes(sel));
  }
  mqss_selection_destroy(sel);
  if (rc != MQSS_OK)
    return rc;
  if (r->used[0] && strcmp(r->used, "builtin.module()")) {
    rc = mqss_module_run_pipeline(module, r->used);
    if (rc != MQSS_OK)
      return rc;
  }
  return mqss_module_finish(module);
}
