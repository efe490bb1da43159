// The public measurement calls: mqss_measure() and mqss_measure_vs(). They
// resolve the entry and the canonical pipeline in the parent, consult the
// cache, and run the child's work (reference, compile, check, timed runs) in
// the sandbox. The pieces live in entry.c, values.c, jit.c, compare.c,
// sandbox.c and cache.c; this file only orchestrates.
#include "measure.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// ----------------------------------------------------------------------------
// names and defaults

const char *mqss_measure_status_name(mqss_measure_status status) {
  switch (status) {
#define MQSS_MEASURE_STATUS_CASE(name, value, text)                            \
  case name:                                                                   \
    return text;
    MQSS_MEASURE_STATUS_TABLE(MQSS_MEASURE_STATUS_CASE)
#undef MQSS_MEASURE_STATUS_CASE
  }
  return "unknown";
}

void mqss_measure_options_init(mqss_measure_options *o) {
  if (!o)
    return;
  memset(o, 0, sizeof *o);
  o->warmup = 3;
  o->repeat = 10;
  o->seed = 1;
  o->timeout_ms = 30000;
  o->mem_limit_mb = 4096;
  o->cpu = -1;
  o->opt_level = 3;
  o->check_reference = 1;
  o->rtol = 1e-4;
  o->atol = 1e-5;
  o->code_size = 1;
}

static void result_init(mqss_measure_result *r, const char *entry) {
  memset(r, 0, sizeof *r);
  r->text_bytes = -1;
  r->mismatch_output = -1;
  r->mismatch_index = -1;
  if (entry)
    snprintf(r->entry, sizeof r->entry, "%s", entry);
}

// ----------------------------------------------------------------------------
// the child's work

typedef struct {
  mqss_module *m;
  const mqss_measure_options *o;
  const entry_spec *e;
  const char *pipeline_b; // vs only
} job;

// Runs the module through the finisher alone and records its outputs.
static bool reference_outputs(const job *j, call_args *a, outputs *ref,
                              mqss_measure_result *r) {
  compiled rc;
  mqss_measure_result tmp;
  result_init(&tmp, j->e->name);
  if (!compile_variant(j->m, NULL, j->o, j->e, STAGE_REF_OFFSET, &rc, &tmp)) {
    r->status = tmp.status;
    set_message(r, "reference (finisher only) failed: %s", tmp.message);
    compiled_free(&rc);
    return false;
  }
  child_report_stage(STAGE_REF_OFFSET + STAGE_RUN);
  run_once(&rc, a, ref);
  compiled_free(&rc);
  return true;
}

static int64_t count_values(const outputs *o) {
  int64_t n = 0;
  for (int i = 0; i < o->n; i++)
    n += o->v[i].count;
  return n;
}

// First run of a compiled variant: outputs, checksum and the comparison.
// False (with WRONG_OUTPUT) on a mismatch.
static bool check_run(const job *j, const compiled *c, call_args *a,
                      const outputs *ref, mqss_measure_result *r) {
  outputs got = {0};
  run_once(c, a, &got);
  r->checksum = outputs_checksum(&got);
  r->num_values = count_values(&got);
  bool ok = true;
  if (ref) {
    compare_result cr;
    outputs_compare(&got, ref, j->o->rtol, j->o->atol, &cr);
    r->num_values = cr.nvalues;
    r->max_error = cr.max_error;
    if (!cr.equal) {
      ok = false;
      r->status = MQSS_MEASURE_WRONG_OUTPUT;
      r->mismatch_output = cr.output;
      r->mismatch_index = cr.index;
      r->mismatch_got = cr.got;
      r->mismatch_want = cr.want;
      set_message(r, "wrong_output: %s at index %" PRId64 ": got %.9g, "
                  "reference %.9g (rtol %g, atol %g); max error %.9g",
                  cr.what, cr.index, cr.got, cr.want, j->o->rtol, j->o->atol,
                  cr.max_error);
    }
  }
  outputs_free(&got);
  return ok;
}

static void measure_child(void *user, void *reply, size_t size) {
  (void)size;
  const job *j = user;
  mqss_measure_result *r = reply;
  result_init(r, j->e->name);
  call_args a;
  outputs ref = {0};
  compiled c = {0};
  double *times = NULL;
  if (!call_args_init(&a, j->e, j->o->seed)) {
    r->status = MQSS_MEASURE_OUT_OF_MEMORY;
    set_message(r, "out_of_memory: cannot allocate the inputs of @%s", j->e->name);
    goto done;
  }
  if (j->o->check_reference && !reference_outputs(j, &a, &ref, r))
    goto done;
  if (!compile_variant(j->m, j->o->pipeline, j->o, j->e, 0, &c, r))
    goto done;
  if (j->o->code_size) {
    child_report_stage(STAGE_CODE_SIZE);
    r->text_bytes = text_bytes(c.mod, j->o->opt_level);
  }
  child_report_stage(STAGE_RUN);
  if (!check_run(j, &c, &a, j->o->check_reference ? &ref : NULL, r))
    goto done;
  for (int i = 0; i < j->o->warmup; i++)
    run_once(&c, &a, NULL);
  times = malloc((size_t)j->o->repeat * sizeof *times); // (repeat,) ms
  if (!times) {
    r->status = MQSS_MEASURE_OUT_OF_MEMORY;
    goto done;
  }
  for (int i = 0; i < j->o->repeat; i++)
    times[i] = run_once(&c, &a, NULL);
  r->runs = j->o->repeat;
  summarize(times, r->runs, &r->run_ms_median, &r->run_ms_min, &r->run_ms_max,
            &r->run_ms_mad);
  r->status = MQSS_MEASURE_OK;
  child_report_stage(STAGE_DONE);
done:
  free(times);
  compiled_free(&c);
  outputs_free(&ref);
  call_args_free(&a);
}

static void vs_child(void *user, void *reply, size_t size) {
  (void)size;
  const job *j = user;
  mqss_measure_vs_result *v = reply;
  memset(v, 0, sizeof *v);
  result_init(&v->a, j->e->name);
  result_init(&v->b, j->e->name);
  call_args a;
  outputs ref = {0};
  compiled ca = {0}, cb = {0};
  double *t = NULL;
  int n = j->o->repeat;
  if (!call_args_init(&a, j->e, j->o->seed)) {
    v->a.status = v->b.status = MQSS_MEASURE_OUT_OF_MEMORY;
    goto done;
  }
  if (j->o->check_reference && !reference_outputs(j, &a, &ref, &v->a)) {
    v->b = v->a;
    goto done;
  }
  const outputs *want = j->o->check_reference ? &ref : NULL;
  bool oka = compile_variant(j->m, j->o->pipeline, j->o, j->e, 0, &ca, &v->a);
  bool okb = compile_variant(j->m, j->pipeline_b, j->o, j->e, 0, &cb, &v->b);
  child_report_stage(STAGE_RUN);
  oka = oka && check_run(j, &ca, &a, want, &v->a);
  okb = okb && check_run(j, &cb, &a, want, &v->b);
  if (!oka || !okb)
    goto done;
  t = malloc(3 * (size_t)n * sizeof *t); // (3, repeat): A, B, B/A
  if (!t)
    goto done;
  for (int i = 0; i < j->o->warmup; i++) {
    run_once(&ca, &a, NULL);
    run_once(&cb, &a, NULL);
  }
  for (int i = 0; i < n; i++) {
    t[i] = run_once(&ca, &a, NULL);
    t[n + i] = run_once(&cb, &a, NULL);
    t[2 * n + i] = t[i] > 0 ? t[n + i] / t[i] : 0;
  }
  v->a.runs = v->b.runs = v->pairs = n;
  summarize(t, n, &v->a.run_ms_median, &v->a.run_ms_min, &v->a.run_ms_max,
            &v->a.run_ms_mad);
  summarize(t + n, n, &v->b.run_ms_median, &v->b.run_ms_min, &v->b.run_ms_max,
            &v->b.run_ms_mad);
  summarize(t + 2 * n, n, &v->ratio_median, &v->ratio_min, &v->ratio_max,
            &v->ratio_mad);
  v->a.status = v->b.status = MQSS_MEASURE_OK;
done:
  free(t);
  compiled_free(&ca);
  compiled_free(&cb);
  outputs_free(&ref);
  call_args_free(&a);
}

// ----------------------------------------------------------------------------
// the parent's side

static mqss_status check_options(mqss_session *s, const mqss_measure_options *o) {
  if (o->repeat < 1 || o->warmup < 0 || o->timeout_ms < 1 || o->opt_level < 0 ||
      o->opt_level > 3 || o->mem_limit_mb < 0 || o->rtol < 0 || o->atol < 0 ||
      o->num_shared_libs < 0 || (o->num_shared_libs > 0 && !o->shared_libs))
    return fail(s, MQSS_ERR_INVALID_ARG,
                "measure: invalid options (need repeat >= 1, warmup >= 0, "
                "timeout_ms >= 1, opt_level 0-3, non-negative limits and "
                "tolerances)");
  return MQSS_OK;
}

// Resolves the entry and checks the pipeline text. False when `r` already
// holds the outcome (unsupported entry, unparsable pipeline).
static bool prepare(mqss_module *m, const mqss_measure_options *o,
                    const char *pipeline, entry_spec *e, strbuf *canon,
                    mqss_measure_result *r) {
  result_init(r, NULL);
  r->status = entry_find(m, o->entry, e, r->message, sizeof r->message);
  if (r->status != MQSS_MEASURE_OK)
    return false;
  snprintf(r->entry, sizeof r->entry, "%s", e->name);
  if (pipeline_canonical(m->session, pipeline, canon) != MQSS_OK) {
    r->status = MQSS_MEASURE_PARSE_ERROR;
    set_message(r, "%s", mqss_errmsg(m->session));
    return false;
  }
  return true;
}

static void cache_key(mqss_module *m, const mqss_measure_options *o,
                      const entry_spec *e, const char *canon, strbuf *key) {
  sb_printf(key, "v%d;%zu;%016" PRIx64 ";%s;entry=%s;warmup=%d;repeat=%d;"
            "seed=%" PRIu64 ";timeout=%d;mem=%d;opt=%d;check=%d;rtol=%.17g;"
            "atol=%.17g;size=%d;runner=%d;libs=",
            cache_format(), sizeof(mqss_measure_result), mqss_module_hash(m),
            canon, e->name, o->warmup, o->repeat, o->seed, o->timeout_ms,
            o->mem_limit_mb, o->opt_level, o->check_reference, o->rtol, o->atol,
            o->code_size, !o->no_runner_libs);
  for (int i = 0; i < o->num_shared_libs; i++)
    sb_printf(key, "%s,", o->shared_libs[i]);
  sb_printf(key, ";mlir=%s", mqss_mlir_version());
}

// Outcomes that depend on the machine's load or limits are not cached.
static bool cacheable(const mqss_measure_result *r) {
  return r->status != MQSS_MEASURE_TIMEOUT &&
         r->status != MQSS_MEASURE_OUT_OF_MEMORY &&
         !(r->status == MQSS_MEASURE_CRASHED && r->signal == 9);
}

mqss_status mqss_measure(mqss_module *m, const mqss_measure_options *o,
                         mqss_measure_result *out) {
  if (!m || !o || !out)
    return m ? fail(m->session, MQSS_ERR_INVALID_ARG, "measure: NULL argument")
             : MQSS_ERR_INVALID_ARG;
  mqss_session *s = m->session;
  mqss_status st = check_options(s, o);
  if (st != MQSS_OK)
    return st;
  entry_spec e;
  strbuf canon = {0}, key = {0};
  if (!prepare(m, o, o->pipeline, &e, &canon, out))
    goto done;
  bool use_cache = o->cache_path && !o->no_cache;
  if (use_cache) {
    cache_key(m, o, &e, canon.data, &key);
    bool hit = false;
    st = cache_get(s, o->cache_path, key.data, out, &hit);
    if (st != MQSS_OK || hit) {
      out->cached = hit;
      goto done;
    }
  }
  job j = {m, o, &e, NULL};
  bool replied;
  mqss_measure_result reply;
  st = sandbox_run(s, o, measure_child, &j, &reply, sizeof reply, &replied, out);
  if (st != MQSS_OK)
    goto done;
  if (replied)
    *out = reply;
  snprintf(out->entry, sizeof out->entry, "%s", e.name);
  if (use_cache && cacheable(out))
    st = cache_put(s, o->cache_path, key.data, out);
done:
  sb_free(&canon);
  sb_free(&key);
  return st;
}

mqss_status mqss_measure_vs(mqss_module *m, const mqss_measure_options *o,
                            const char *pipeline_b, mqss_measure_vs_result *out) {
  if (!m || !o || !out)
    return m ? fail(m->session, MQSS_ERR_INVALID_ARG, "measure: NULL argument")
             : MQSS_ERR_INVALID_ARG;
  mqss_session *s = m->session;
  mqss_status st = check_options(s, o);
  if (st != MQSS_OK)
    return st;
  memset(out, 0, sizeof *out);
  entry_spec e;
  strbuf canon = {0};
  bool ok_a = prepare(m, o, o->pipeline, &e, &canon, &out->a);
  bool ok_b = prepare(m, o, pipeline_b, &e, &canon, &out->b);
  sb_free(&canon);
  if (!ok_a || !ok_b)
    return MQSS_OK;
  job j = {m, o, &e, pipeline_b};
  bool replied;
  mqss_measure_vs_result reply;
  st = sandbox_run(s, o, vs_child, &j, &reply, sizeof reply, &replied, &out->a);
  if (st != MQSS_OK)
    return st;
  if (replied)
    *out = reply;
  else
    out->b = out->a;
  return MQSS_OK;
}
