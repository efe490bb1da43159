// The public measurement calls: mqss_measure() and mqss_measure_vs(). They
// resolve the entry and the canonical pipeline in the parent, consult the
// cache, and run the child's work (reference, compile, check, timed runs) in
// the sandbox. The pieces live in entry.c, values.c, jit.c, compare.c,
// errmodel.c, clock.c, skip.c, reference.c, schedule.c, sandbox.c and
// cache.c; this file only orchestrates.
//
// Reference outputs are kept per process (see "reference outputs, per
// process" below): a checked measurement of a module whose reference was
// already computed (same module hash, seed, entry and settings) compiles
// and runs only the candidate.
#define _GNU_SOURCE
#include "measure.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

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
  o->rtol = 1e-6;  // slack on top of the error model (compare.c)
  o->atol = 1e-12;
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
  const reference *ref;   // cached reference, or NULL: compute it
  int ref_fd;             // where a computed reference is written, or -1
  const skip_set *skip;   // --skip-output (opts.skip_outputs), parsed
} job;

// ----------------------------------------------------------------------------
// reference outputs, per process
//
// The reference (the module through the finisher alone, run on the seeded
// inputs) does not depend on the candidate pipeline, so it is computed once
// per (module hash, entry, seed, opt level, runner/shared libraries, MLIR
// version) and kept for the life of the process. The child that computes it
// writes it to a memfd the parent created; the parent reads it back after
// the child ends and publishes it. Entries are immutable once published and
// never evicted (bounded by REF_MAX entries and REF_MAX_BYTES bytes; past
// that, references are simply recomputed), so a later forked child can read
// them through the copied address space and threads can share them.

enum { REF_MAX = 256 };
#define REF_MAX_BYTES ((size_t)256 << 20)

typedef struct {
  char *key;     // owned
  reference ref; // owned
} ref_entry;

static pthread_mutex_t ref_lock = PTHREAD_MUTEX_INITIALIZER;
static ref_entry ref_table[REF_MAX];
static int ref_count; // published entries, under ref_lock
static size_t ref_bytes;

static void ref_key(mqss_module *m, const mqss_measure_options *o,
                    const entry_spec *e, strbuf *key) {
  sb_printf(key, "%016" PRIx64 ";entry=%s;seed=%" PRIu64 ";opt=%d;runner=%d;"
            "libs=", mqss_module_hash(m), e->name, o->seed, o->opt_level,
            !o->no_runner_libs);
  for (int i = 0; i < o->num_shared_libs; i++)
    sb_printf(key, "%s,", o->shared_libs[i]);
  sb_printf(key, ";mlir=%s", mqss_mlir_version());
  if (o->ignore_schedule) // appended only when set
    sb_printf(key, ";ignore_schedule");
}

static const reference *ref_find(const char *key) {
  const reference *found = NULL;
  pthread_mutex_lock(&ref_lock);
  for (int i = 0; i < ref_count && !found; i++)
    if (strcmp(ref_table[i].key, key) == 0)
      found = &ref_table[i].ref;
  pthread_mutex_unlock(&ref_lock);
  return found;
}

// Takes ownership of *o (clears it) when it is published.
static void ref_publish(const char *key, reference *o, size_t bytes) {
  pthread_mutex_lock(&ref_lock);
  bool dup = false;
  for (int i = 0; i < ref_count && !dup; i++)
    dup = strcmp(ref_table[i].key, key) == 0;
  char *k = dup || ref_count >= REF_MAX || ref_bytes + bytes > REF_MAX_BYTES
                ? NULL
                : strdup(key);
  if (k) {
    ref_table[ref_count].key = k;
    memcpy(&ref_table[ref_count].ref, o, sizeof *o);
    memset(o, 0, sizeof *o);
    ref_bytes += bytes;
    ref_count++;
  }
  pthread_mutex_unlock(&ref_lock);
}

// Before the sandbox: the cached reference for this job, or a memfd for the
// child to write a fresh one to (-1 when checking is off or none can be
// made; then the reference is computed and not kept).
static void ref_prepare(job *j, mqss_module *m, const mqss_measure_options *o,
                        const entry_spec *e, strbuf *key) {
  j->ref = NULL;
  j->ref_fd = -1;
  if (!o->check_reference || o->compile_only)
    return;
  ref_key(m, o, e, key);
  j->ref = ref_find(key->data);
  if (!j->ref)
    j->ref_fd = memfd_create("mqss-reference", MFD_CLOEXEC);
}

// After the sandbox: publishes what the child wrote; closes the memfd.
static void ref_collect(job *j, const strbuf *key) {
  if (j->ref_fd < 0)
    return;
  reference o;
  size_t bytes = 0;
  if (ref_read(j->ref_fd, &o, &bytes)) {
    ref_publish(key->data, &o, bytes);
    reference_free(&o);
  }
  close(j->ref_fd);
  j->ref_fd = -1;
}

// Runs the module through the finisher alone and records what the check
// needs: its outputs; when the module calls a timer, a second run under
// another synthetic clock to find the outputs that depend on it; when the
// entry has float inputs, the magnitude run on their absolute values; and
// the rounding depth (docs/MEASURE.md, "Correctness check").
static bool reference_outputs(const job *j, call_args *a, reference *ref,
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
  bool clock = module_reads_clock(j->m);
  clock_set_mode(clock ? CLOCK_PROBE_A : CLOCK_REAL);
  run_once(&rc, a, &ref->val);
  if (clock) {
    outputs probe = {0};
    clock_set_mode(CLOCK_PROBE_B);
    run_once(&rc, a, &probe);
    skip_from_probe(&ref->clock, &ref->val, &probe);
    outputs_free(&probe);
  }
  call_args absin; // the inputs of the magnitude run
  if (call_args_init(&absin, j->e, j->o->seed) && call_args_abs(&absin) > 0) {
    clock_set_mode(clock ? CLOCK_PROBE_A : CLOCK_REAL);
    run_once(&rc, &absin, &ref->mag);
    ref->has_mag = true;
  }
  call_args_free(&absin);
  clock_set_mode(CLOCK_REAL);
  ref->depth = error_depth(j->m);
  compiled_free(&rc);
  if (j->ref_fd >= 0) // for the parent's per-process reference table
    ref_write(j->ref_fd, ref);
  return true;
}

static int64_t count_values(const outputs *o) {
  int64_t n = 0;
  for (int i = 0; i < o->n; i++)
    n += o->v[i].count;
  return n;
}

static void add_note(mqss_measure_result *r, const strbuf *sb) {
  if (!sb->len)
    return;
  size_t len = strlen(r->notes);
  snprintf(r->notes + len, sizeof r->notes - len, "%s%s", len ? "; " : "",
           sb->data);
}

// First run of a compiled variant: outputs, checksum and the comparison.
// False (with WRONG_OUTPUT) on a mismatch.
static bool check_run(const job *j, const compiled *c, call_args *a,
                      const reference *ref, mqss_measure_result *r) {
  outputs got = {0};
  run_once(c, a, &got);
  r->checksum = outputs_checksum(&got);
  r->num_values = count_values(&got);
  bool ok = true;
  if (ref) {
    compare_result cr;
    outputs_compare(&got, ref, j->skip, j->o->rtol, j->o->atol, &cr);
    r->num_values = cr.nvalues;
    r->max_error = cr.max_error;
    r->error_depth = ref->depth;
    r->skipped_values = cr.skipped;
    strbuf notes = {0};
    skip_describe(&ref->clock, "clock-dependent", &notes);
    skip_describe(j->skip, "--skip-output", &notes);
    add_note(r, &notes);
    sb_free(&notes);
    if (!cr.equal) {
      ok = false;
      r->status = MQSS_MEASURE_WRONG_OUTPUT;
      r->mismatch_output = cr.output;
      r->mismatch_index = cr.index;
      r->mismatch_got = cr.got;
      r->mismatch_want = cr.want;
      r->mismatch_bound = cr.bound;
      set_message(r, "wrong_output: %s at index %" PRId64 ": got %.9g, "
                  "reference %.9g, allowed error %.3g (error model: depth "
                  "%.0f, rtol %g, atol %g); max error %.9g",
                  cr.what, cr.index, cr.got, cr.want, cr.bound, ref->depth,
                  j->o->rtol, j->o->atol, cr.max_error);
    }
  }
  outputs_free(&got);
  return ok;
}

static void measure_child(void *user, void *reply, size_t size) {
  (void)size;
  job jj = *(const job *)user;
  const job *j = &jj;
  mqss_measure_result *r = reply;
  result_init(r, j->e->name);
  call_args a = {0};
  reference ref = {0};
  compiled c = {0};
  double *times = NULL;
  mqss_module *scheduled = NULL;
  if (!schedule_apply(j->m, j->o, &scheduled, r))
    goto done;
  jj.m = scheduled ? scheduled : jj.m;
  if (!call_args_init(&a, j->e, j->o->seed)) {
    r->status = MQSS_MEASURE_OUT_OF_MEMORY;
    set_message(r, "out_of_memory: cannot allocate the inputs of @%s", j->e->name);
    goto done;
  }
  bool checked = j->o->check_reference && !j->o->compile_only;
  if (checked && !j->ref && !reference_outputs(j, &a, &ref, r))
    goto done;
  const reference *want = !checked ? NULL : j->ref ? j->ref : &ref;
  if (!compile_variant(j->m, j->o->pipeline, j->o, j->e, 0, &c, r))
    goto done;
  if (j->o->code_size) {
    child_report_stage(STAGE_CODE_SIZE);
    r->text_bytes = text_bytes(c.mod, j->o->opt_level);
  }
  if (j->o->compile_only) { // compile-time samples: nothing is run
    r->status = MQSS_MEASURE_OK;
    child_report_stage(STAGE_DONE);
    goto done;
  }
  child_report_stage(STAGE_RUN);
  if (!check_run(j, &c, &a, want, r))
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
  if (!j->o->no_sandbox)
    return; // a sandbox child: _exit returns it all, without COW faults
  free(times);
  compiled_free(&c);
  reference_free(&ref);
  call_args_free(&a);
  mqss_module_destroy(scheduled);
}

static void vs_child(void *user, void *reply, size_t size) {
  (void)size;
  job jj = *(const job *)user;
  const job *j = &jj;
  mqss_measure_vs_result *v = reply;
  memset(v, 0, sizeof *v);
  result_init(&v->a, j->e->name);
  result_init(&v->b, j->e->name);
  call_args a = {0};
  reference ref = {0};
  compiled ca = {0}, cb = {0};
  double *t = NULL;
  int n = j->o->repeat;
  mqss_module *scheduled = NULL;
  bool sched_ok = schedule_apply(j->m, j->o, &scheduled, &v->a);
  v->b = v->a;
  if (!sched_ok)
    goto done;
  jj.m = scheduled ? scheduled : jj.m;
  if (!call_args_init(&a, j->e, j->o->seed)) {
    v->a.status = v->b.status = MQSS_MEASURE_OUT_OF_MEMORY;
    goto done;
  }
  if (j->o->check_reference && !j->ref &&
      !reference_outputs(j, &a, &ref, &v->a)) {
    v->b = v->a;
    goto done;
  }
  const reference *want = !j->o->check_reference ? NULL : j->ref ? j->ref : &ref;
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
  if (!j->o->no_sandbox)
    return; // a sandbox child: _exit returns it all, without COW faults
  free(t);
  compiled_free(&ca);
  compiled_free(&cb);
  reference_free(&ref);
  call_args_free(&a);
  mqss_module_destroy(scheduled);
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

// Parses opts.skip_outputs into `skip` (freed by the caller either way).
static mqss_status parse_skips(mqss_session *s, const mqss_measure_options *o,
                               skip_set *skip) {
  char err[256];
  if (o->num_skip_outputs < 0 || (o->num_skip_outputs > 0 && !o->skip_outputs))
    return fail(s, MQSS_ERR_INVALID_ARG, "measure: invalid options "
                "(num_skip_outputs < 0, or skip_outputs is NULL)");
  for (int i = 0; i < o->num_skip_outputs; i++)
    if (!o->skip_outputs[i] || !skip_parse(skip, o->skip_outputs[i], err, sizeof err))
      return fail(s, MQSS_ERR_INVALID_ARG, "measure: %s",
                  o->skip_outputs[i] ? err : "NULL skip_outputs entry");
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
  if (o->compile_only) // appended only when set: older keys stay valid
    sb_printf(key, ";compile_only");
  if (o->ignore_schedule)
    sb_printf(key, ";ignore_schedule");
  for (int i = 0; i < o->num_skip_outputs; i++)
    sb_printf(key, ";skip=%s", o->skip_outputs[i]);
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
  skip_set skip = {0};
  char err[256];
  if ((st = parse_skips(s, o, &skip)) != MQSS_OK ||
      !prepare(m, o, o->pipeline, &e, &canon, out))
    goto done;
  if (!skip_fits(&skip, &e, err, sizeof err)) {
    st = fail(s, MQSS_ERR_INVALID_ARG, "measure: %s", err);
    goto done;
  }
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
  job j = {m, o, &e, NULL, NULL, -1, &skip};
  strbuf rkey = {0};
  ref_prepare(&j, m, o, &e, &rkey);
  bool replied;
  mqss_measure_result reply;
  st = sandbox_run(s, o, measure_child, &j, &reply, sizeof reply, &replied, out);
  ref_collect(&j, &rkey);
  sb_free(&rkey);
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
  skip_free(&skip);
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
  skip_set skip = {0};
  if ((st = parse_skips(s, o, &skip)) != MQSS_OK) {
    skip_free(&skip);
    return st;
  }
  entry_spec e;
  strbuf canon = {0};
  bool ok_a = prepare(m, o, o->pipeline, &e, &canon, &out->a);
  bool ok_b = prepare(m, o, pipeline_b, &e, &canon, &out->b);
  sb_free(&canon);
  char err[256];
  if (ok_a && ok_b && !skip_fits(&skip, &e, err, sizeof err))
    st = fail(s, MQSS_ERR_INVALID_ARG, "measure: %s", err);
  if (!ok_a || !ok_b || st != MQSS_OK) {
    skip_free(&skip);
    return st;
  }
  job j = {m, o, &e, pipeline_b, NULL, -1, &skip};
  strbuf rkey = {0};
  ref_prepare(&j, m, o, &e, &rkey);
  bool replied;
  mqss_measure_vs_result reply;
  st = sandbox_run(s, o, vs_child, &j, &reply, sizeof reply, &replied, &out->a);
  ref_collect(&j, &rkey);
  sb_free(&rkey);
  skip_free(&skip);
  if (st != MQSS_OK)
    return st;
  if (replied)
    *out = reply;
  else
    out->b = out->a;
  return MQSS_OK;
}
