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

#include <errno.h>
#include <mlir-c/BuiltinAttributes.h>

#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
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
  o->mem_limit_mb = CHILD_DEFAULT_MEM_MB;
  o->cpu = -1;
  o->opt_level = 3;
  o->check_reference = 1;
  o->rtol = 1e-6;  // slack on top of the error model (compare.c)
  o->atol = 1e-12;
  o->code_size = 1;
  o->output_limit_mb = 64;
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
  uint64_t module_hash;   // mqss_module_hash(m), for cache keys
  bool use_cache;         // look the lowered code up in o->cache_path
  const skip_set *skip;   // --skip-output (opts.skip_outputs), parsed
} job;

static void cache_key(uint64_t module_hash, const mqss_measure_options *o,
                      const entry_spec *e, const char *canon, strbuf *key);

// The second-level cache key: the lowered code's hash instead of the
// pipeline, so that pipelines that lower to the same code share a row.
static void lowered_key(const job *j, uint64_t lowered_hash, strbuf *key) {
  char part[40];
  snprintf(part, sizeof part, "lowered=%016" PRIx64, lowered_hash);
  cache_key(j->module_hash, j->o, j->e, part, key);
}

// In the child, after lowering: the result stored for identical code, with
// this pipeline's own lowering times. False on a miss.
static bool lowered_lookup(const job *j, const compiled *c,
                           mqss_measure_result *r) {
  if (!j->use_cache)
    return false;
  strbuf key = {0};
  lowered_key(j, c->lowered_hash, &key);
  mqss_measure_result hit;
  bool found = false;
  cache_get(j->m->session, j->o->cache_path, key.data, &hit, &found);
  sb_free(&key);
  if (!found)
    return false;
  hit.pipeline_ms = r->pipeline_ms;
  hit.finish_ms = r->finish_ms;
  hit.compile_ms = hit.pipeline_ms + hit.finish_ms + hit.jit_ms;
  hit.cached = 2;
  *r = hit;
  return true;
}

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
  ref_key(o->reference_module ? (mqss_module *)o->reference_module : m, o, e,
          key);
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
  mqss_module *rm = j->o->reference_module
                        ? (mqss_module *)j->o->reference_module // cloned, not changed
                        : j->m;
  if (!compile_variant(rm, NULL, j->o, j->e, STAGE_REF_OFFSET, &rc, &tmp)) {
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
  if (!lower_variant(j->m, j->o->pipeline, j->e, 0, &c, r) ||
      lowered_lookup(j, &c, r) || !jit_variant(j->o, j->e, 0, &c, r))
    goto done;
  if (j->o->code_size) {
    child_report_stage(STAGE_CODE_SIZE);
    r->text_bytes = text_bytes(&c);
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

// Where a vs child is, in memory shared with the parent (MAP_SHARED), so
// that a death is blamed on the side it was working on (mqss_measure_vs).
enum { VS_REF, VS_A, VS_B };
typedef struct {
  volatile int side;           // VS_REF, VS_A or VS_B: the child's current work
  int checked[2];              // side A, B: compiled and checked (or failed)
  mqss_measure_result done[2]; // their results at that point
} vs_progress;

typedef struct {
  job j;
  vs_progress *progress; // shared with the parent
} vs_job;

// A timed sample of a pair is the median of `batch` calls of one side,
// enough calls for VS_MIN_SAMPLE_MS (at most VS_MAX_BATCH): one call of a
// microsecond kernel is mostly timer and interrupt jitter, and the median
// ignores the calls that a preemption or a stolen vCPU stretched.
// A preempted pair is measured again only when it is short (a time slice of
// a few ms is then a large part of it), at most 3n times.
#define VS_MIN_SAMPLE_MS 0.5
#define VS_REDO_MAX_PAIR_MS 20.0
enum { VS_MAX_BATCH = 1000 };

// Involuntary context switches of the calling thread so far: a pair during
// which the child was preempted timed someone else too.
static long preemptions(void) {
  struct rusage ru;
  return getrusage(RUSAGE_THREAD, &ru) == 0 ? ru.ru_nivcsw : 0;
}

// B lowered to the same code as A, which was already compiled and checked:
// B shares A's verdict (keeping its own lowering times), and the ratio is
// exactly 1 without timing: no noise can make identical code look faster or
// slower.
static void identical_verdict(mqss_measure_vs_result *v) {
  v->identical = 1;
  mqss_measure_result b = v->a;
  b.pipeline_ms = v->b.pipeline_ms;
  b.finish_ms = v->b.finish_ms;
  b.compile_ms = b.pipeline_ms + b.finish_ms + b.jit_ms;
  b.lowered_hash = v->b.lowered_hash;
  v->b = b;
  if (v->a.status == MQSS_MEASURE_OK)
    v->ratio_median = v->ratio_min = v->ratio_max = v->ratio_hl = v->ratio_lo =
        v->ratio_hi = v->ratio_conf = 1.0;
}

static void vs_child(void *user, void *reply, size_t size) {
  (void)size;
  const vs_job *vj = user;
  job jj = vj->j;
  const job *j = &jj;
  vs_progress *p = vj->progress;
  mqss_measure_vs_result *v = reply;
  memset(v, 0, sizeof *v);
  result_init(&v->a, j->e->name);
  result_init(&v->b, j->e->name);
  mqss_measure_result *side[2] = {&v->a, &v->b};
  const char *pipe[2] = {j->o->pipeline, j->pipeline_b};
  call_args a = {0};
  reference ref = {0};
  compiled c[2] = {{0}, {0}};
  double *t = NULL;
  int n = j->o->repeat, w = j->o->warmup;
  p->side = VS_REF;
  mqss_module *scheduled = NULL;
  bool sched_ok = schedule_apply(j->m, j->o, &scheduled, &v->a);
  v->b = v->a;
  if (!sched_ok)
    goto done;
  jj.m = scheduled ? scheduled : jj.m;
  if (!call_args_init(&a, j->e, j->o->seed)) {
    for (int s = 0; s < 2; s++) {
      side[s]->status = MQSS_MEASURE_OUT_OF_MEMORY;
      set_message(side[s], "out_of_memory: cannot allocate the inputs of @%s",
                  j->e->name);
    }
    goto done;
  }
  if (j->o->check_reference && !j->ref) {
    mqss_measure_result rr;
    result_init(&rr, j->e->name);
    if (!reference_outputs(j, &a, &ref, &rr)) {
      // The module itself fails: neither side can be checked.
      for (int s = 0; s < 2; s++) {
        side[s]->status = rr.status;
        set_message(side[s], "%s", rr.message);
      }
      goto done;
    }
  }
  const reference *want = !j->o->check_reference ? NULL : j->ref ? j->ref : &ref;
  // A is compiled and checked before B is lowered, so that a death while
  // working on B leaves A's verdict standing.
  bool ok[2];
  for (int s = 0; s < 2; s++) {
    p->side = VS_A + s;
    ok[s] = lower_variant(j->m, pipe[s], j->e, 0, &c[s], side[s]);
    if (s == 1 && ok[0] && ok[1] && c[0].lowered_hash == c[1].lowered_hash) {
      identical_verdict(v);
      goto done;
    }
    ok[s] = ok[s] && jit_variant(j->o, j->e, 0, &c[s], side[s]);
    if (ok[s] && j->o->code_size) {
      child_report_stage(STAGE_CODE_SIZE);
      side[s]->text_bytes = text_bytes(&c[s]);
    }
    if (ok[s]) {
      child_report_stage(STAGE_RUN);
      ok[s] = check_run(j, &c[s], &a, want, side[s]);
    }
    p->done[s] = *side[s];
    p->checked[s] = 1;
  }
  if (!ok[0] || !ok[1])
    goto done;
  t = malloc((2 * (size_t)n + VS_MAX_BATCH) * sizeof *t); // (2, repeat): A's
  // times, B's times; then (VS_MAX_BATCH,) one sample's calls
  if (!t) {
    for (int s = 0; s < 2; s++) {
      side[s]->status = MQSS_MEASURE_OUT_OF_MEMORY;
      set_message(side[s], "out_of_memory: cannot allocate the timings");
    }
    goto done;
  }
  // One untimed call of each side sizes the batch.
  double once[2];
  for (int s = 0; s < 2; s++) {
    p->side = VS_A + s;
    once[s] = run_once(&c[s], &a, NULL);
  }
  double fastest = once[0] < once[1] ? once[0] : once[1];
  int batch = fastest >= VS_MIN_SAMPLE_MS || !(fastest > 0)
                  ? 1
                  : (int)fmin(VS_MAX_BATCH, ceil(VS_MIN_SAMPLE_MS / fastest));
  // Pairs alternate their order (A B, B A, ...): neither side always runs
  // first, after the other's code and data have warmed the caches. A short
  // pair during which the child was preempted is measured again, up to 3n
  // times in all; past that it is kept (and the interval widens).
  int got = 0;
  for (int i = 0; got < n; i++) {
    long cs = preemptions();
    double ms[2] = {0, 0};
    for (int k = 0; k < 2; k++) {
      int s = (i + k) % 2;
      p->side = VS_A + s;
      double *calls = t + 2 * n;
      for (int b = 0; b < batch; b++)
        calls[b] = run_once(&c[s], &a, NULL);
      ms[s] = median_of(calls, batch);
    }
    if (i < w)
      continue;
    if (preemptions() != cs && v->discarded < 3 * n &&
        ms[0] + ms[1] < VS_REDO_MAX_PAIR_MS) {
      v->discarded++;
      continue;
    }
    t[got] = ms[0];
    t[n + got] = ms[1];
    got++;
  }
  v->a.runs = v->b.runs = v->pairs = n;
  v->batch = batch;
  vs_ratio_stats(t, t + n, n, v); // before summarize sorts the times
  summarize(t, n, &v->a.run_ms_median, &v->a.run_ms_min, &v->a.run_ms_max,
            &v->a.run_ms_mad);
  summarize(t + n, n, &v->b.run_ms_median, &v->b.run_ms_min, &v->b.run_ms_max,
            &v->b.run_ms_mad);
  v->a.status = v->b.status = MQSS_MEASURE_OK;
done:
  if (!j->o->no_sandbox)
    return; // a sandbox child: _exit returns it all, without COW faults
  free(t);
  compiled_free(&c[0]);
  compiled_free(&c[1]);
  reference_free(&ref);
  call_args_free(&a);
  mqss_module_destroy(scheduled);
}

// ----------------------------------------------------------------------------
// the parent's side

static mqss_status check_options(mqss_session *s, const mqss_measure_options *o) {
  // `!(x >= 0)` also refuses NaN tolerances, which would accept any output.
  if (o->repeat < 1 || o->warmup < 0 || o->timeout_ms < 1 || o->opt_level < 0 ||
      o->opt_level > 3 || o->mem_limit_mb < 0 || o->output_limit_mb < 0 ||
      !(o->rtol >= 0) || !(o->atol >= 0) || isinf(o->rtol) || isinf(o->atol) ||
      o->num_shared_libs < 0 || (o->num_shared_libs > 0 && !o->shared_libs))
    return fail(s, MQSS_ERR_INVALID_ARG,
                "measure: invalid options (need repeat >= 1, warmup >= 0, "
                "timeout_ms >= 1, opt_level 0-3, non-negative limits and "
                "finite non-negative tolerances)");
  long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
  if (o->cpu < -1 || (ncpu > 0 && o->cpu >= ncpu))
    return fail(s, MQSS_ERR_INVALID_ARG, "measure: cannot pin to cpu %d: "
                "this machine has cpus 0-%ld online; use one of those or -1",
                o->cpu, ncpu - 1);
  // The execution engine skips a library it cannot load without a word.
  for (int i = 0; i < o->num_shared_libs; i++)
    if (!o->shared_libs[i] || access(o->shared_libs[i], R_OK) != 0)
      return fail(s, MQSS_ERR_IO, "measure: cannot read shared library '%s': "
                  "%s", o->shared_libs[i] ? o->shared_libs[i] : "(null)",
                  strerror(o->shared_libs[i] ? errno : EINVAL));
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
  r->status = entry_check_memory(e, o->mem_limit_mb, r->message,
                                 sizeof r->message);
  if (r->status != MQSS_MEASURE_OK)
    return false;
  if (o->reference_module && o->check_reference && !o->compile_only) {
    entry_spec re;
    r->status = entry_find((mqss_module *)o->reference_module, e->name, &re,
                           r->message, sizeof r->message);
    if (r->status == MQSS_MEASURE_OK &&
        (re.nargs != e->nargs || re.nresults != e->nresults ||
         memcmp(re.args, e->args, sizeof re.args) ||
         memcmp(re.results, e->results, sizeof re.results))) {
      r->status = MQSS_MEASURE_UNSUPPORTED;
      set_message(r, "unsupported: @%s has another signature in the reference "
                  "module than in the measured one; outputs cannot be compared",
                  e->name);
    }
    if (r->status != MQSS_MEASURE_OK)
      return false;
  }
  if (pipeline_canonical(m->session, pipeline, canon) != MQSS_OK) {
    r->status = MQSS_MEASURE_PARSE_ERROR;
    set_message(r, "%s", mqss_errmsg(m->session));
    return false;
  }
  return true;
}

static void cache_key(uint64_t module_hash, const mqss_measure_options *o,
                      const entry_spec *e, const char *canon, strbuf *key) {
  sb_printf(key, "v%d;%zu;%016" PRIx64 ";%s;entry=%s;warmup=%d;repeat=%d;"
            "seed=%" PRIu64 ";timeout=%d;mem=%d;opt=%d;check=%d;rtol=%.17g;"
            "atol=%.17g;size=%d;runner=%d;libs=",
            cache_format(), sizeof(mqss_measure_result), module_hash, canon, e->name, o->warmup, o->repeat, o->seed, o->timeout_ms,
            o->mem_limit_mb, o->opt_level, o->check_reference, o->rtol, o->atol,
            o->code_size, !o->no_runner_libs);
  for (int i = 0; i < o->num_shared_libs; i++)
    sb_printf(key, "%s,", o->shared_libs[i]);
  sb_printf(key, ";mlir=%s", mqss_mlir_version());
  if (o->compile_only) // appended only when set: older keys stay valid
    sb_printf(key, ";compile_only");
  if (o->reference_module && o->check_reference)
    sb_printf(key, ";reference=%016" PRIx64,
              mqss_module_hash(o->reference_module));
  sb_printf(key, ";out=%d", o->output_limit_mb);
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
  uint64_t mhash = use_cache ? mqss_module_hash(m) : 0;
  if (use_cache) {
    cache_key(mhash, o, &e, canon.data, &key);
    bool hit = false;
    st = cache_get(s, o->cache_path, key.data, out, &hit);
    if (st != MQSS_OK || hit) {
      out->cached = hit;
      goto done;
    }
  }
  job j = {m, o, &e, NULL, NULL, -1, mhash, use_cache && !o->compile_only, &skip};
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
  if (use_cache && cacheable(out)) {
    // Also under the lowered code's hash, unless it came from there.
    mqss_measure_result second = *out;
    st = cache_put(s, o->cache_path, key.data, out);
    if (st == MQSS_OK && j.use_cache && second.lowered_hash && second.cached != 2) {
      sb_clear(&key);
      lowered_key(&j, second.lowered_hash, &key);
      st = cache_put(s, o->cache_path, key.data, &second);
    }
  }
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
  const char *pipe[2] = {o->pipeline, pipeline_b};
  mqss_measure_result *side[2] = {&out->a, &out->b};
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
  if (ok_a && ok_b && !skip_fits(&skip, &e, err, sizeof err)) {
    skip_free(&skip);
    return fail(s, MQSS_ERR_INVALID_ARG, "measure: %s", err);
  }
  if (!ok_a || !ok_b) {
    skip_free(&skip);
    // No pair: the side that prepared is measured alone (its own status).
    mqss_measure_options alone = *o;
    alone.pipeline = pipe[ok_a ? 0 : 1];
    return ok_a != ok_b ? mqss_measure(m, &alone, side[ok_a ? 0 : 1]) : MQSS_OK;
  }
  vs_progress *prog = mmap(NULL, sizeof *prog, PROT_READ | PROT_WRITE,
                           MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (prog == MAP_FAILED) {
    skip_free(&skip);
    return fail(s, MQSS_ERR_INTERNAL, "measure: cannot map a shared page: %s",
                strerror(errno));
  }
  vs_job vj = {{m, o, &e, pipeline_b, NULL, -1, 0, false, &skip}, prog};
  strbuf rkey = {0};
  ref_prepare(&vj.j, m, o, &e, &rkey);
  bool replied;
  mqss_measure_vs_result reply;
  mqss_measure_result death;
  result_init(&death, e.name);
  st = sandbox_run(s, o, vs_child, &vj, &reply, sizeof reply, &replied, &death);
  ref_collect(&vj.j, &rkey);
  sb_free(&rkey);
  skip_free(&skip);
  if (st == MQSS_OK && replied) {
    *out = reply;
  } else if (st == MQSS_OK && prog->side == VS_REF) {
    out->a = out->b = death; // the reference died: the module itself fails
  } else if (st == MQSS_OK) {
    // The death is the side the child was working on; the other side keeps
    // the result it had (checked, not timed) or, not reached, is measured
    // alone.
    int dead = prog->side - VS_A, other = 1 - dead;
    *side[dead] = death;
    if (prog->checked[other]) {
      *side[other] = prog->done[other];
      if (side[other]->status == MQSS_MEASURE_OK)
        set_message(side[other], "not timed: the paired child died on side "
                    "%c (%s)", 'A' + dead, mqss_measure_status_name(death.status));
    } else {
      mqss_measure_options alone = *o;
      alone.pipeline = pipe[other];
      st = mqss_measure(m, &alone, side[other]);
    }
  }
  munmap(prog, sizeof *prog);
  return st;
}
