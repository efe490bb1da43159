// One module of `mqss eval`: select with the policy (timed), then compare the
// chosen pipeline with the reference, the family's hand-tuned pipeline and a
// fixed pipeline, each in interleaved A/B pairs (mqss_measure_vs). It fills
// one eval_row; it prints nothing and aggregates nothing (eval_stats.c).
#include "eval/eval.h"
#include "measure/measure.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// ----------------------------------------------------------------------------
// helpers

bool eval_pipeline_empty(const char *p) {
  return !p || !*p || !strcmp(p, "builtin.module()");
}

// Two pipelines are the same when their texts match, a bare list counting
// as wrapped in builtin.module(...).
static bool same_pipeline(const char *a, const char *b) {
  if (eval_pipeline_empty(a) || eval_pipeline_empty(b))
    return eval_pipeline_empty(a) && eval_pipeline_empty(b);
  if (!strcmp(a, b))
    return true;
  static const char mod[] = "builtin.module(";
  size_t k = sizeof mod - 1;
  const char *wa = strncmp(a, mod, k) ? NULL : a + k;
  const char *wb = strncmp(b, mod, k) ? NULL : b + k;
  if (wa && !wb) // a wrapped, b bare
    return strlen(wa) == strlen(b) + 1 && !strncmp(wa, b, strlen(b));
  if (wb && !wa)
    return strlen(wb) == strlen(a) + 1 && !strncmp(wb, a, strlen(a));
  return false;
}

// ----------------------------------------------------------------------------
// one comparison

typedef struct {
  mqss_measure_result a, b; // the last round's sides (a failing one if any)
  double ratio;             // median over rounds of the Hodges-Lehmann t_B / t_A;
                            // 0 if a side failed
  double lo, hi;            // [min, max] over rounds of its interval bounds
} cmp_out;

// Compares A against B (mqss_measure_vs) s->rounds times.
static mqss_status compare(mqss_module *m, const eval_settings *s,
                           const char *a, const char *b, cmp_out *o) {
  enum { MAX_ROUNDS = 64 };
  double ratio[MAX_ROUNDS];
  int rounds = s->rounds < 1 ? 1 : s->rounds > MAX_ROUNDS ? MAX_ROUNDS : s->rounds;
  memset(o, 0, sizeof *o);
  mqss_measure_options opts = s->measure;
  opts.pipeline = eval_pipeline_empty(a) ? "" : a;
  for (int k = 0; k < rounds; k++) {
    mqss_measure_vs_result r;
    mqss_status st = mqss_measure_vs(m, &opts, eval_pipeline_empty(b) ? "" : b, &r);
    if (st != MQSS_OK)
      return st;
    o->a = r.a;
    o->b = r.b;
    if (r.a.status != MQSS_MEASURE_OK || r.b.status != MQSS_MEASURE_OK)
      return MQSS_OK; // o->ratio stays 0
    ratio[k] = r.ratio_hl;
    o->lo = k == 0 || r.ratio_lo < o->lo ? r.ratio_lo : o->lo;
    o->hi = k == 0 || r.ratio_hi > o->hi ? r.ratio_hi : o->hi;
  }
  o->ratio = median_of(ratio, rounds);
  return MQSS_OK;
}

static void note(eval_row *row, const char *fmt, const char *arg) {
  size_t len = strlen(row->message);
  if (len + 3 >= sizeof row->message)
    return;
  if (len)
    len += (size_t)snprintf(row->message + len, sizeof row->message - len, "; ");
  snprintf(row->message + len, sizeof row->message - len, fmt, arg);
}

// Compile time and code size of the policy's pipeline and of its base
// (`base`): s->compile_samples compiles of each in one sandboxed child, in
// the order A B B A A B ..., each side's fastest (mqss_measure_vs with
// compile_only; docs/EVAL.md). A paired timing comparison compiles each
// side to machine code once, and that one LLVM sample moved a row's ratio
// from +12% to +74% between identical runs; the median of three compiles in
// fresh children, each its own, still spread a row's ratio over +-25%. The
// same pipeline on both sides is compiled for one side (ratio exactly 1). A side
// whose compile fails leaves its figures unknown (0, size -1).
static mqss_status compile_cost(mqss_module *m, const eval_settings *s,
                                eval_row *row, const char *base) {
  bool same = same_pipeline(row->policy_pipeline, base);
  mqss_measure_options o = s->measure;
  o.compile_only = 1;
  o.check_reference = 0;
  o.code_size = 1;
  o.warmup = 0;
  o.repeat = s->compile_samples < 1 ? 1 : s->compile_samples;
  o.pipeline = eval_pipeline_empty(row->policy_pipeline) ? ""
                                                         : row->policy_pipeline;
  mqss_measure_vs_result vs;
  mqss_status st = mqss_measure_vs(m, &o, same ? o.pipeline
                                   : eval_pipeline_empty(base) ? "" : base,
                                   &vs);
  if (st != MQSS_OK)
    return st;
  const mqss_measure_result *side[2] = {&vs.a, &vs.b};
  double ms[2] = {0, 0};
  int64_t text[2] = {-1, -1};
  for (int k = 0; k < 2; k++) {
    if (side[k]->status != MQSS_MEASURE_OK) {
      note(row, "compile-only measurement failed (%s): compile time and size "
           "unknown", mqss_measure_status_name(side[k]->status));
      continue;
    }
    ms[k] = side[k]->compile_ms;
    text[k] = side[k]->text_bytes;
  }
  row->compile_ms_policy = ms[0];
  row->compile_ms_base = ms[1];
  row->compile_ratio = ms[0] > 0 && ms[1] > 0 ? ms[0] / ms[1] : 0;
  row->text_policy = text[0];
  row->text_base = text[1];
  row->size_ratio = text[0] > 0 && text[1] > 0 ? (double)text[0] / (double)text[1]
                                               : 0;
  return MQSS_OK;
}

// Sets a speedup and its interval from a comparison (policy = A).
static void set_speedup(const eval_settings *s, const cmp_out *c, double *out,
                        eval_interval *ci) {
  *out = c->ratio;
  ci->lo = c->lo;
  ci->hi = c->hi;
  ci->verdict = mqss_ratio_verdict(c->lo, c->hi, s->min_gain);
}

// Speedup of the policy against `other` (NULL: none): 1 when identical,
// the reference's when `other` is empty, else measured. A failing `other`
// counts as the reference (a guard would fall back to it). *fallback is set
// then. `ref` is the comparison with the reference.
static mqss_status speedup_vs(mqss_module *m, const eval_settings *s,
                              eval_row *row, const char *other,
                              const cmp_out *ref, double *out,
                              eval_interval *ci, cmp_out *c, bool *measured,
                              bool *fallback) {
  *measured = *fallback = false;
  if (same_pipeline(row->policy_pipeline, other)) {
    set_speedup(s, &(cmp_out){.ratio = 1.0, .lo = 1.0, .hi = 1.0}, out, ci);
    return MQSS_OK;
  }
  if (eval_pipeline_empty(other)) {
    set_speedup(s, ref, out, ci);
    return MQSS_OK;
  }
  mqss_status st = compare(m, s, row->policy_pipeline, other, c);
  if (st != MQSS_OK)
    return st;
  if (c->a.status != MQSS_MEASURE_OK) {
    // The policy passed against the reference but failed now: say so, and
    // count the module as failed (flaky pipelines are failures too).
    row->ok = false;
    snprintf(row->status, sizeof row->status, "%s",
             mqss_measure_status_name(c->a.status));
    note(row, "%.400s", c->a.message); // row->message is 512 bytes
    *out = 0;
    return MQSS_OK;
  }
  if (c->b.status != MQSS_MEASURE_OK) {
    *fallback = true;
    set_speedup(s, ref, out, ci);
    return MQSS_OK;
  }
  *measured = true;
  set_speedup(s, c, out, ci);
  return MQSS_OK;
}

// ----------------------------------------------------------------------------
// one module

mqss_status eval_module(const mqss_policy *policy, mqss_module *m,
                        const char *baseline, const char *fixed,
                        const eval_settings *s, eval_row *row) {
  mqss_session *sess = mqss_module_session(m);
  row->ok = false;
  row->baseline_pipeline = baseline;
  eval_settings kernel;
  if (s->kernels) { // every comparison below times the kernel
    if (!entry_kernel(m, row->entry, sizeof row->entry, row->message,
                      sizeof row->message)) {
      snprintf(row->status, sizeof row->status, "unsupported");
      return MQSS_OK;
    }
    kernel = *s;
    kernel.measure.entry = row->entry;
    s = &kernel;
  }
  snprintf(row->status, sizeof row->status, "select_failed");
  mqss_selection *sel = NULL;
  double t0 = now_ms();
  mqss_status st = mqss_policy_select(policy, m, &s->select, &sel);
  row->decision_ms = now_ms() - t0;
  if (st != MQSS_OK) {
    snprintf(row->message, sizeof row->message, "%s", mqss_errmsg(sess));
    mqss_selection_destroy(sel);
    return MQSS_OK;
  }
  const char *p = mqss_selection_pipeline(sel);
  row->policy_pipeline = strdup(eval_pipeline_empty(p) ? "" : p);
  row->n_decisions = mqss_selection_count(sel);
  if (*mqss_selection_notes(sel)) // an isolated selection survived a crash
    note(row, "select avoided: %.300s", mqss_selection_notes(sel));
  mqss_selection_destroy(sel);
  if (!row->policy_pipeline)
    return fail(sess, MQSS_ERR_NOMEM, "out of memory");

  // Against the reference: also the policy's own status.
  cmp_out ref;
  st = compare(m, s, row->policy_pipeline, "", &ref);
  if (st != MQSS_OK)
    return st;
  if (ref.a.status != MQSS_MEASURE_OK) {
    snprintf(row->status, sizeof row->status, "%s",
             mqss_measure_status_name(ref.a.status));
    snprintf(row->message, sizeof row->message, "%.500s", ref.a.message);
    return MQSS_OK;
  }
  if (ref.b.status != MQSS_MEASURE_OK) {
    snprintf(row->status, sizeof row->status, "reference_failed");
    snprintf(row->message, sizeof row->message, "the module itself fails: %.480s",
             ref.b.message);
    return MQSS_OK;
  }
  snprintf(row->status, sizeof row->status, "ok");
  snprintf(row->entry, sizeof row->entry, "%s", ref.a.entry);
  row->ok = true;
  if (eval_pipeline_empty(row->policy_pipeline)) {
    ref.ratio = ref.lo = ref.hi = 1.0; // the reference itself: 1, not noise
    note(row, "%s", "empty selection: the policy chose the reference");
  }
  set_speedup(s, &ref, &row->vs_reference, &row->ci_reference);
  row->run_ms_policy = ref.a.run_ms_median;

  // Against the family baseline (or, family unknown, the reference only).
  cmp_out c;
  bool measured, fallback;
  if (!baseline) {
    row->base = EVAL_BASE_REFERENCE;
    note(row, "%s", "family unknown: compared with the reference only");
  } else {
    row->base = EVAL_BASE_FAMILY;
    st = speedup_vs(m, s, row, baseline, &ref, &row->vs_baseline,
                    &row->ci_baseline, &c, &measured, &fallback);
    if (st != MQSS_OK || !row->ok)
      return st;
    if (!measured && same_pipeline(row->policy_pipeline, baseline))
      note(row, "%s", "policy chose the family baseline itself");
    if (fallback) { // compile and size then against the reference
      row->base = EVAL_BASE_FALLBACK;
      note(row, "family baseline failed (%s): its reference fallback used",
           mqss_measure_status_name(c.b.status));
    }
  }

  // Compile time and code size of the policy and its base.
  const char *base_pipe = row->base == EVAL_BASE_FAMILY ? baseline : "";
  if ((st = compile_cost(m, s, row, base_pipe)) != MQSS_OK)
    return st;

  // Against the fixed pipeline.
  if (fixed) {
    st = speedup_vs(m, s, row, fixed, &ref, &row->vs_fixed, &row->ci_fixed, &c,
                    &measured, &fallback);
    if (st != MQSS_OK || !row->ok)
      return st;
    if (fallback)
      note(row, "fixed pipeline failed (%s): its reference fallback used",
           mqss_measure_status_name(c.b.status));
  }

  // Against random search's best: the policy's share of it, in pairs (the
  // search's own figure is from other runs). A best that no longer runs
  // here (a schedule file it names is gone) leaves the cross-run ratio.
  if (row->has_search) {
    st = speedup_vs(m, s, row, row->search.best_pipeline, &ref,
                    &row->search_fraction, &row->ci_search, &c, &measured,
                    &fallback);
    if (st != MQSS_OK || !row->ok)
      return st;
    row->search_paired = !fallback;
    if (fallback) {
      row->search_fraction = row->vs_reference / row->search.speedup;
      row->ci_search = (eval_interval){0};
      note(row, "search's best failed here (%s): its share is cross-run",
           mqss_measure_status_name(c.b.status));
    }
  }
  return MQSS_OK;
}

void eval_row_free(eval_row *row) {
  free(row->policy_pipeline);
  free(row->search.best_pipeline);
  row->policy_pipeline = NULL;
  row->search.best_pipeline = NULL;
}
