// The public measurement call mqss_measure() and the pieces it shares with
// mqss_measure_vs() (measure_vs.c): option checks, entry resolution, the
// per-process reference table and the output check. It resolves the entry
// and the canonical pipeline in the parent, consults the cache, and runs the
// child's work (reference, compile, check, timed runs) in the sandbox. The
// pieces live in entry.c, values.c, jit.c, compare.c, errmodel.c, clock.c,
// skip.c, reference.c, schedule.c, sandbox.c and cache.c; this file only
// orchestrates.
//
// Reference outputs are kept per process (see "reference outputs, per
// process" below): a checked measurement of a module whose reference was
// already computed (same module hash, seed, entry and settings) compiles
// and runs only the candidate.
#define _GNU_SOURCE
#include "measure.h"

#include <errno.h>
#include <fenv.h>

#include <inttypes.h>
#include <math.h>
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
  o->mem_limit_mb = CHILD_DEFAULT_MEM_MB;
  o->cpu = -1;
  o->opt_level = 3;
  o->check_reference = 1;
  o->rtol = 1e-6;  // slack on top of the error model (compare.c)
  o->atol = 1e-12;
  o->code_size = 1;
  o->output_limit_mb = 64;
}

void measure_result_init(mqss_measure_result *r, const char *entry) {
  memset(r, 0, sizeof *r);
  r->text_bytes = -1;
  r->mismatch_output = -1;
  r->mismatch_index = -1;
  if (entry)
    snprintf(r->entry, sizeof r->entry, "%s", entry);
}

// ----------------------------------------------------------------------------
// the child's work


static void cache_key(uint64_t module_hash, const mqss_measure_options *o,
                      const entry_spec *e, const char *canon, strbuf *key);

// The second-level cache key: the lowered code's hash instead of the
// pipeline, so that pipelines that lower to the same code share a row.
static void lowered_key(const measure_job *j, uint64_t lowered_hash, strbuf *key) {
  char part[40];
  snprintf(part, sizeof part, "lowered=%016" PRIx64, lowered_hash);
  cache_key(j->module_hash, j->o, j->e, part, key);
}

// In the child, after lowering: the result stored for identical code, with
// this pipeline's own lowering times. False on a miss.
static bool lowered_lookup(const measure_job *j, const compiled *c,
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
  hit.compile_ms = hit.pipeline_ms + hit.finish_ms + hit.llvm_ms;
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
void ref_prepare(measure_job *j, mqss_module *m, const mqss_measure_options *o,
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
void ref_collect(measure_job *j, const strbuf *key) {
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
// entry has float inputs, the magnitude run on their absolute values and
// the two sensitivity runs; and the rounding depth (docs/MEASURE.md,
// "Correctness check").
bool reference_compile(const measure_job *j, compiled *rc,
                       mqss_measure_result *r) {
  mqss_measure_result tmp;
  measure_result_init(&tmp, j->e->name);
  mqss_module *rm = j->o->reference_module
                        ? (mqss_module *)j->o->reference_module // cloned, not changed
                        : j->m;
  if (!compile_variant(rm, NULL, j->o, j->e, STAGE_REF_OFFSET, rc, &tmp)) {
    r->status = tmp.status;
    set_message(r, "reference (finisher only) failed: %s", tmp.message);
    compiled_free(rc);
    return false;
  }
  return true;
}

// The error model's sensitivity runs (sensitivity.c): on perturbed inputs,
// and on the reference's inputs with every operation rounded upwards. The
// clock mode is the reference run's.
static void sensitivity_runs(const compiled *rc, call_args *a,
                             const measure_job *j, reference *ref) {
  outputs pert = {0}, up = {0};
  call_args pin;
  if (call_args_init(&pin, j->e, j->o->seed) &&
      call_args_perturb(&pin, j->o->seed) > 0) {
    run_once(rc, &pin, &pert);
    fesetround(FE_UPWARD);
    run_once(rc, a, &up);
    fesetround(FE_TONEAREST);
    sensitivity_fold(&ref->mag, &ref->val, &pert, &up, ref->depth);
  }
  call_args_free(&pin);
  outputs_free(&pert);
  outputs_free(&up);
}

void reference_run(const measure_job *j, compiled *rc, call_args *a,
                   reference *ref) {
  child_report_stage(STAGE_REF_OFFSET + STAGE_RUN);
  bool clock = module_reads_clock(j->m);
  clock_set_mode(clock ? CLOCK_PROBE_A : CLOCK_REAL);
  run_once(rc, a, &ref->val);
  if (clock) {
    outputs probe = {0};
    clock_set_mode(CLOCK_PROBE_B);
    run_once(rc, a, &probe);
    skip_from_probe(&ref->clock, &ref->val, &probe);
    outputs_free(&probe);
  }
  call_args absin; // the inputs of the magnitude run
  if (call_args_init(&absin, j->e, j->o->seed) && call_args_abs(&absin) > 0) {
    clock_set_mode(clock ? CLOCK_PROBE_A : CLOCK_REAL);
    run_once(rc, &absin, &ref->mag);
    ref->has_mag = true;
  }
  call_args_free(&absin);
  ref->depth = error_depth(j->m);
  if (ref->has_mag)
    sensitivity_runs(rc, a, j, ref);
  clock_set_mode(CLOCK_REAL);
  compiled_free(rc);
  if (j->ref_fd >= 0) // for the parent's per-process reference table
    ref_write(j->ref_fd, ref);
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
bool check_run(const measure_job *j, const compiled *c, call_args *a,
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
  measure_job jj = *(const measure_job *)user;
  const measure_job *j = &jj;
  mqss_measure_result *r = reply;
  measure_result_init(r, j->e->name);
  call_args a = {0};
  reference ref = {0};
  compiled c = {0}, rc = {0};
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
  // Everything is compiled before the first run, which confines the child.
  bool checked = j->o->check_reference && !j->o->compile_only;
  bool fresh_ref = checked && !j->ref;
  child_keep_fd(j->ref_fd);
  if (fresh_ref && !reference_compile(j, &rc, r))
    goto done;
  const reference *want = !checked ? NULL : j->ref ? j->ref : &ref;
  if (j->o->compile_only) // a compile-time sample: the JIT warm, as in a pair
    warm_jit(j->m, j->o, j->e);
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
  if (fresh_ref)
    reference_run(j, &rc, &a, &ref);
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
  compiled_free(&rc);
  reference_free(&ref);
  call_args_free(&a);
  mqss_module_destroy(scheduled);
}

// ----------------------------------------------------------------------------
// the parent's side

mqss_status measure_check_options(mqss_module *m, const mqss_measure_options *o,
                                  const void *out) {
  if (!m || !o || !out)
    return m ? fail(m->session, MQSS_ERR_INVALID_ARG, "measure: NULL argument")
             : MQSS_ERR_INVALID_ARG;
  mqss_session *s = m->session;
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
mqss_status measure_parse_skips(mqss_session *s, const mqss_measure_options *o,
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
bool measure_prepare(mqss_module *m, const mqss_measure_options *o,
                    const char *pipeline, entry_spec *e, strbuf *canon,
                    mqss_measure_result *r) {
  measure_result_init(r, NULL);
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
  else if (o->check_reference) // verdicts of an older error model never match
    sb_printf(key, ";errmodel=%d", ERROR_MODEL_VERSION);
  if (o->reference_module && o->check_reference)
    sb_printf(key, ";reference=%016" PRIx64,
              mqss_module_hash(o->reference_module));
  sb_printf(key, ";out=%d;finish=%d", o->output_limit_mb, FINISH_VERSION);
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
  mqss_status st = measure_check_options(m, o, out);
  if (st != MQSS_OK)
    return st;
  mqss_session *s = m->session;
  entry_spec e;
  strbuf canon = {0}, key = {0};
  skip_set skip = {0};
  char err[256];
  if ((st = measure_parse_skips(s, o, &skip)) != MQSS_OK ||
      !measure_prepare(m, o, o->pipeline, &e, &canon, out))
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
  measure_job j = {m, o, &e, NULL, NULL, -1, mhash, use_cache && !o->compile_only, &skip};
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
