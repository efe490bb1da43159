// The paired measurement, mqss_measure_vs(): pipelines A and B compiled,
// then checked in one sandbox child, then timed in interleaved pairs. A death is
// blamed on the side the child was working on; identical lowered code is
// not timed. The shared pieces (job, reference, check) are in measure.c.
#define _GNU_SOURCE
#include "measure.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>

// Where a vs child is, in memory shared with the parent (MAP_SHARED), so
// that a death is blamed on the side it was working on (mqss_measure_vs).
enum { VS_REF, VS_A, VS_B };
typedef struct {
  volatile int side;           // VS_REF, VS_A or VS_B: the child's current work
  int checked[2];              // side A, B: compiled and checked (or failed)
  mqss_measure_result done[2]; // their results at that point
} vs_progress;

typedef struct {
  measure_job j;
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
  b.compile_ms = b.pipeline_ms + b.finish_ms + b.llvm_ms;
  b.lowered_hash = v->b.lowered_hash;
  v->b = b;
  if (v->a.status == MQSS_MEASURE_OK)
    v->ratio_median = v->ratio_min = v->ratio_max = v->ratio_hl = v->ratio_lo =
        v->ratio_hi = v->ratio_conf = 1.0;
}

// The first lowering in a child pays warm-ups that later ones do not (with
// two texts of one pipeline, 14-15 ms as side A, 6 ms as side B), and each
// later one is a little faster than the one before. So both sides are
// lowered again in the order B A A B, and each side's pipeline and finisher
// times become those of the faster of its two new lowerings: both warm, at
// the same mean position. The JIT is not repeated: it dominates the cost,
// and its object may now be cached (bench/compile_order.py).
static void relower_times(const measure_job *j, vs_progress *p,
                          const char *const pipe[2],
                          mqss_measure_result *const side[2]) {
  static const int order[4] = {1, 0, 0, 1};
  double best[2][2] = {{-1, -1}, {-1, -1}}; // [side] pipeline_ms, finish_ms
  for (int k = 0; k < 4; k++) {
    int s = order[k];
    p->side = VS_A + s;
    compiled c = {0};
    mqss_measure_result r = *side[s];
    if (lower_variant(j->m, pipe[s], j->e, 0, &c, &r) &&
        (best[s][0] < 0 || r.pipeline_ms + r.finish_ms < best[s][0] + best[s][1])) {
      best[s][0] = r.pipeline_ms;
      best[s][1] = r.finish_ms;
    }
    compiled_free(&c);
  }
  for (int s = 0; s < 2; s++)
    if (best[s][0] >= 0) {
      side[s]->pipeline_ms = best[s][0];
      side[s]->finish_ms = best[s][1];
      side[s]->compile_ms = best[s][0] + best[s][1] + side[s]->llvm_ms;
    }
}

// compile_only: o->repeat compiles (pipeline, finisher, JIT) of each side
// in this one child, in the order A B B A A B ..., after one untimed JIT of
// the reference, so that no side pays the child's first one. Each side's
// figures are those of its fastest compile, its code size from it: one
// compile in a fresh sandbox child varies by 3-20% here (CV) and the noise
// only adds time, while compiles in one warm process vary by about 7%
// (bench/compile_spread.py, docs/MEASURE.md). No object cache: every
// sample runs LLVM. Both sides are sampled even when they lower to the same
// code (their pipelines may still cost differently); the same pipeline text
// on both sides is compiled for A alone, and B gets A's figures.
static void vs_compile(const measure_job *j, vs_progress *p,
                       const char *const pipe[2],
                       mqss_measure_result *const side[2]) {
  mqss_measure_options o = *j->o;
  o.no_cache = 1;
  warm_jit(j->m, &o, j->e);
  bool same = strcmp(pipe[0], pipe[1]) == 0;
  bool failed[2] = {false, false};
  int got[2] = {0, 0};
  for (int i = 0; i < 2 * o.repeat; i++) {
    int s = (i + 1) / 2 % 2; // 0 1 1 0 0 1 1 0 ...
    if (failed[s] || (same && s == 1))
      continue;
    p->side = VS_A + s;
    compiled c = {0};
    mqss_measure_result r;
    measure_result_init(&r, j->e->name);
    if (!compile_variant(j->m, pipe[s], &o, j->e, 0, &c, &r)) {
      failed[s] = true;
      *side[s] = r;
    } else {
      if (o.code_size) {
        child_report_stage(STAGE_CODE_SIZE);
        r.text_bytes = text_bytes(&c);
      }
      r.status = MQSS_MEASURE_OK;
      if (got[s]++ == 0 || r.compile_ms < side[s]->compile_ms)
        *side[s] = r;
    }
    compiled_free(&c);
    p->done[s] = *side[s];
    p->checked[s] = 1;
  }
  if (same)
    *side[1] = *side[0];
}

static void vs_child(void *user, void *reply, size_t size) {
  (void)size;
  const vs_job *vj = user;
  measure_job jj = vj->j;
  const measure_job *j = &jj;
  vs_progress *p = vj->progress;
  mqss_measure_vs_result *v = reply;
  memset(v, 0, sizeof *v);
  measure_result_init(&v->a, j->e->name);
  measure_result_init(&v->b, j->e->name);
  mqss_measure_result *side[2] = {&v->a, &v->b};
  const char *pipe[2] = {j->o->pipeline, j->pipeline_b};
  call_args a = {0};
  reference ref = {0};
  compiled c[2] = {{0}, {0}}, rc = {0};
  double *t = NULL;
  int n = j->o->repeat, w = j->o->warmup;
  p->side = VS_REF;
  mqss_module *scheduled = NULL;
  bool sched_ok = schedule_apply(j->m, j->o, &scheduled, &v->a);
  v->b = v->a;
  if (!sched_ok)
    goto done;
  jj.m = scheduled ? scheduled : jj.m;
  child_keep_fd(j->ref_fd);
  if (j->o->compile_only) {
    vs_compile(j, p, pipe, side);
    goto done;
  }
  if (!call_args_init(&a, j->e, j->o->seed)) {
    for (int s = 0; s < 2; s++) {
      side[s]->status = MQSS_MEASURE_OUT_OF_MEMORY;
      set_message(side[s], "out_of_memory: cannot allocate the inputs of @%s",
                  j->e->name);
    }
    goto done;
  }
  // Everything is compiled before the first run, which confines the child:
  // the reference, then A, then B. A death while compiling B leaves A
  // unchecked; the parent then measures A alone.
  bool fresh_ref = j->o->check_reference && !j->ref;
  if (fresh_ref) {
    mqss_measure_result rr;
    measure_result_init(&rr, j->e->name);
    if (!reference_compile(j, &rc, &rr)) {
      // The module itself fails: neither side can be checked.
      for (int s = 0; s < 2; s++) {
        side[s]->status = rr.status;
        set_message(side[s], "%s", rr.message);
      }
      goto done;
    }
  } else if (j->ref) { // known reference: JIT it anyway, untimed, so that
    warm_jit(j->m, j->o, j->e); // side A does not pay the child's first JIT
  }
  const reference *want = !j->o->check_reference ? NULL : j->ref ? j->ref : &ref;
  bool ok[2] = {false, false}, identical = false;
  for (int s = 0; s < 2 && !identical; s++) {
    p->side = VS_A + s;
    ok[s] = lower_variant(j->m, pipe[s], j->e, 0, &c[s], side[s]);
    identical = s == 1 && ok[0] && ok[1] && c[0].lowered_hash == c[1].lowered_hash;
    ok[s] = ok[s] && !identical && jit_variant(j->o, j->e, 0, &c[s], side[s]);
    if (ok[s] && j->o->code_size) {
      child_report_stage(STAGE_CODE_SIZE);
      side[s]->text_bytes = text_bytes(&c[s]);
    }
  }
  if (ok[0] && (identical || ok[1])) // before any run confines the child
    relower_times(j, p, pipe, side);
  if (fresh_ref && (ok[0] || ok[1])) {
    p->side = VS_REF;
    reference_run(j, &rc, &a, &ref);
  }
  for (int s = 0; s < (identical ? 1 : 2); s++) {
    p->side = VS_A + s;
    if (ok[s]) {
      child_report_stage(STAGE_RUN);
      ok[s] = check_run(j, &c[s], &a, want, side[s]);
    }
    p->done[s] = *side[s];
    p->checked[s] = 1;
  }
  if (identical) { // B shares A's verdict
    identical_verdict(v);
    goto done;
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
  compiled_free(&rc);
  reference_free(&ref);
  call_args_free(&a);
  mqss_module_destroy(scheduled);
}

// ----------------------------------------------------------------------------
// the parent's side

mqss_status mqss_measure_vs(mqss_module *m, const mqss_measure_options *o,
                            const char *pipeline_b, mqss_measure_vs_result *out) {
  mqss_status st = measure_check_options(m, o, out);
  if (st != MQSS_OK)
    return st;
  mqss_session *s = m->session;
  memset(out, 0, sizeof *out);
  const char *pipe[2] = {o->pipeline, pipeline_b};
  mqss_measure_result *side[2] = {&out->a, &out->b};
  skip_set skip = {0};
  if ((st = measure_parse_skips(s, o, &skip)) != MQSS_OK) {
    skip_free(&skip);
    return st;
  }
  entry_spec e;
  strbuf canon = {0};
  bool ok_a = measure_prepare(m, o, o->pipeline, &e, &canon, &out->a);
  bool ok_b = measure_prepare(m, o, pipeline_b, &e, &canon, &out->b);
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
  measure_result_init(&death, e.name);
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
