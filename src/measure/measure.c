// The public measurement calls: mqss_measure() and mqss_measure_vs(). They
// resolve the entry and the canonical pipeline in the parent, consult the
// cache, and run the child's work (reference, compile, check, timed runs) in
// the sandbox. The pieces live in entry.c, values.c, jit.c, compare.c,
// sandbox.c and cache.c; this file only orchestrates.
//
// Reference outputs are kept per process (see "reference outputs, per
// process" below): a checked measurement of a module whose reference was
// already computed (same module hash, seed, entry and settings) compiles
// and runs only the candidate.
#define _GNU_SOURCE
#include "measure.h"

#include <errno.h>
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
  const outputs *ref;     // cached reference outputs, or NULL: compute them
  int ref_fd;             // where a computed reference is written, or -1
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
#define REF_MAGIC 0x3146455253534d51ull // "QMSSREF1"

typedef struct {
  char *key;   // owned
  outputs out; // owned
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
}

static const outputs *ref_find(const char *key) {
  const outputs *found = NULL;
  pthread_mutex_lock(&ref_lock);
  for (int i = 0; i < ref_count && !found; i++)
    if (strcmp(ref_table[i].key, key) == 0)
      found = &ref_table[i].out;
  pthread_mutex_unlock(&ref_lock);
  return found;
}

// Takes ownership of *o (clears it) when it is published.
static void ref_publish(const char *key, outputs *o, size_t bytes) {
  pthread_mutex_lock(&ref_lock);
  bool dup = false;
  for (int i = 0; i < ref_count && !dup; i++)
    dup = strcmp(ref_table[i].key, key) == 0;
  char *k = dup || ref_count >= REF_MAX || ref_bytes + bytes > REF_MAX_BYTES
                ? NULL
                : strdup(key);
  if (k) {
    ref_table[ref_count].key = k;
    ref_table[ref_count].out = *o;
    memset(o, 0, sizeof *o);
    ref_bytes += bytes;
    ref_count++;
  }
  pthread_mutex_unlock(&ref_lock);
}

static bool write_fd(int fd, const void *p, size_t n) {
  const char *c = p;
  while (n > 0) {
    ssize_t w = write(fd, c, n);
    if (w <= 0)
      return false;
    c += w;
    n -= (size_t)w;
  }
  return true;
}

// Blob: magic, total bytes, n; per output: et, count, what[48], data;
// stdout length and text. All fields in host byte order.
static void ref_write(int fd, const outputs *o) {
  uint64_t total = 3 * sizeof(uint64_t);
  for (int i = 0; i < o->n; i++)
    total += 2 * sizeof(int64_t) + sizeof o->v[i].what +
             (uint64_t)o->v[i].count * elem_size(o->v[i].et);
  total += sizeof(uint64_t) + o->out.len;
  uint64_t head[3] = {REF_MAGIC, total, (uint64_t)o->n};
  bool ok = write_fd(fd, head, sizeof head);
  for (int i = 0; ok && i < o->n; i++) {
    int64_t f[2] = {o->v[i].et, o->v[i].count};
    ok = write_fd(fd, f, sizeof f) &&
         write_fd(fd, o->v[i].what, sizeof o->v[i].what) &&
         write_fd(fd, o->v[i].data,
                  (size_t)o->v[i].count * elem_size(o->v[i].et));
  }
  uint64_t len = o->out.len;
  if (ok && write_fd(fd, &len, sizeof len) && len)
    write_fd(fd, o->out.data, len);
}

// Parses a blob the child wrote; false (and nothing kept) when it is absent
// or incomplete (the child died while writing).
static bool ref_read(int fd, outputs *o, size_t *bytes) {
  memset(o, 0, sizeof *o);
  off_t size = lseek(fd, 0, SEEK_END);
  if (size < (off_t)(3 * sizeof(uint64_t)))
    return false;
  unsigned char *buf = malloc((size_t)size);
  if (!buf || pread(fd, buf, (size_t)size, 0) != (ssize_t)size) {
    free(buf);
    return false;
  }
  uint64_t head[3];
  memcpy(head, buf, sizeof head);
  size_t at = sizeof head, n = (size_t)size;
  bool ok = head[0] == REF_MAGIC && head[1] == n && head[2] <= 2 * MAX_VALUES;
  for (uint64_t i = 0; ok && i < head[2]; i++) {
    int64_t f[2];
    output_buf *b = &o->v[o->n];
    ok = at + sizeof f + sizeof b->what <= n;
    if (!ok)
      break;
    memcpy(f, buf + at, sizeof f);
    at += sizeof f;
    ok = f[0] >= ET_F32 && f[0] <= ET_INDEX && f[1] >= 0;
    if (!ok)
      break;
    b->et = (elem_type)f[0];
    b->count = f[1];
    memcpy(b->what, buf + at, sizeof b->what);
    b->what[sizeof b->what - 1] = 0;
    at += sizeof b->what;
    size_t len = (size_t)f[1] * elem_size(b->et);
    ok = at + len <= n && (b->data = malloc(len ? len : 1));
    if (!ok)
      break;
    memcpy(b->data, buf + at, len);
    at += len;
    o->n++;
  }
  uint64_t len = 0;
  ok = ok && at + sizeof len <= n;
  if (ok) {
    memcpy(&len, buf + at, sizeof len);
    at += sizeof len;
    ok = at + len == n;
  }
  if (ok && len)
    sb_append(&o->out, (const char *)buf + at, len);
  free(buf);
  if (!ok)
    outputs_free(o);
  *bytes = n;
  return ok;
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
  outputs o;
  size_t bytes = 0;
  if (ref_read(j->ref_fd, &o, &bytes)) {
    ref_publish(key->data, &o, bytes);
    outputs_free(&o);
  }
  close(j->ref_fd);
  j->ref_fd = -1;
}

// Runs the module through the finisher alone and records its outputs.
static bool reference_outputs(const job *j, call_args *a, outputs *ref,
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
  run_once(&rc, a, ref);
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
  bool checked = j->o->check_reference && !j->o->compile_only;
  if (checked && !j->ref && !reference_outputs(j, &a, &ref, r))
    goto done;
  const outputs *want = !checked ? NULL : j->ref ? j->ref : &ref;
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
  outputs_free(&ref);
  call_args_free(&a);
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

static void vs_child(void *user, void *reply, size_t size) {
  (void)size;
  const vs_job *vj = user;
  const job *j = &vj->j;
  vs_progress *p = vj->progress;
  mqss_measure_vs_result *v = reply;
  memset(v, 0, sizeof *v);
  result_init(&v->a, j->e->name);
  result_init(&v->b, j->e->name);
  mqss_measure_result *side[2] = {&v->a, &v->b};
  const char *pipe[2] = {j->o->pipeline, j->pipeline_b};
  call_args a;
  outputs ref = {0};
  compiled c[2] = {{0}, {0}};
  double *t = NULL;
  int n = j->o->repeat, w = j->o->warmup;
  p->side = VS_REF;
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
  const outputs *want = !j->o->check_reference ? NULL : j->ref ? j->ref : &ref;
  bool ok[2];
  for (int s = 0; s < 2; s++) {
    p->side = VS_A + s;
    ok[s] = compile_variant(j->m, pipe[s], j->o, j->e, 0, &c[s], side[s]);
    if (ok[s] && j->o->code_size) {
      child_report_stage(STAGE_CODE_SIZE);
      side[s]->text_bytes = text_bytes(c[s].mod, j->o->opt_level);
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
  if (o->reference_module && o->check_reference)
    sb_printf(key, ";reference=%016" PRIx64,
              mqss_module_hash(o->reference_module));
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
  job j = {m, o, &e, NULL, NULL, -1};
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
  entry_spec e;
  strbuf canon = {0};
  bool ok_a = prepare(m, o, o->pipeline, &e, &canon, &out->a);
  bool ok_b = prepare(m, o, pipeline_b, &e, &canon, &out->b);
  sb_free(&canon);
  if (!ok_a || !ok_b) {
    // No pair: the side that prepared is measured alone (its own status).
    mqss_measure_options alone = *o;
    alone.pipeline = pipe[ok_a ? 0 : 1];
    return ok_a != ok_b ? mqss_measure(m, &alone, side[ok_a ? 0 : 1]) : MQSS_OK;
  }
  vs_progress *prog = mmap(NULL, sizeof *prog, PROT_READ | PROT_WRITE,
                           MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (prog == MAP_FAILED)
    return fail(s, MQSS_ERR_INTERNAL, "measure: cannot map a shared page: %s",
                strerror(errno));
  vs_job vj = {{m, o, &e, pipeline_b, NULL, -1}, prog};
  strbuf rkey = {0};
  ref_prepare(&vj.j, m, o, &e, &rkey);
  bool replied;
  mqss_measure_vs_result reply;
  mqss_measure_result death;
  result_init(&death, e.name);
  st = sandbox_run(s, o, vs_child, &vj, &reply, sizeof reply, &replied, &death);
  ref_collect(&vj.j, &rkey);
  sb_free(&rkey);
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
