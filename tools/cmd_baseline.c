// `mqss baseline`: measures every module of a corpus manifest under its
// family's baseline pipeline (data/baselines.yaml) and writes
// baseline.json: {module: {comp_time, run_time, size, family, pipeline,
// status[, ref_run_time]}}, times in ms. With --check it only verifies that
// each pipeline parses, runs and finishes on its modules.
//
// Modules are measured in parallel by the rollout pool (src/rl/pool.h): one
// task per module, run in a child forked from one of --workers workers, so a
// module that crashes the harness costs only its own record. The JSON is
// written in manifest order whatever order the tasks finish in. The
// measuring itself is mqss_measure()'s; this file only schedules, takes
// medians and prints.
#include "cli.h"
#include "eval/eval.h"
#include "rl/pool.h"
#include "util/manifest.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

// The sandbox limit of one measurement is generous (default 300 s, not
// mqss_measure's 30 s): tiled NLP modules JIT-compile for 10-15 s each on a
// loaded 2-core machine, and a baseline that times out is useless to train
// against. A task (one module, 5 compilations) may take TASK_TIMEOUT_MS.
enum { COMPILE_SAMPLES = 5, TASK_TIMEOUT_MS = 30 * 60 * 1000 };

// ----------------------------------------------------------------------------
// helpers

// One manifest line to measure.
typedef struct {
  const char *file, *path, *family; // borrowed from the manifest
  const char *pipeline;             // borrowed from the baselines table
} job_entry;

// What a task sends back: plain data, one record per module.
typedef struct {
  int ok;           // measured ok (or, with --check, pipeline + finisher ok)
  int harness;      // nonzero: the harness itself failed (status "harness_error")
  int has_times;    // comp_time/run_time/size are set
  int has_ref;      // ref_run_time is set
  char status[32];  // mqss_measure_status_name(), or "check_failed"
  double comp_time, run_time, ref_run_time; // ms
  double size;                              // .text bytes
  char message[1100];
} baseline_rec;

typedef struct {
  mqss_session *s;
  const job_entry *jobs;
  const char *cache;
  bool vs_reference, check;
  int timeout_ms; // per measurement
} task_ctx;

// ----------------------------------------------------------------------------
// one module (runs in a pool task child)

// Fills `rec` from the measurement of `m` under `pipe`.
static void measure_one(mqss_module *m, const char *pipe, const task_ctx *t,
                        baseline_rec *rec) {
  mqss_measure_options o;
  mqss_measure_options_init(&o);
  o.pipeline = pipe;
  o.warmup = 3;
  o.repeat = 10;
  o.cache_path = t->cache;
  o.timeout_ms = t->timeout_ms;
  mqss_measure_result r;
  if (mqss_measure(m, &o, &r) != MQSS_OK) {
    rec->harness = 1;
    snprintf(rec->status, sizeof rec->status, "harness_error");
    snprintf(rec->message, sizeof rec->message, "%s",
             mqss_errmsg(mqss_module_session(m)));
    return;
  }
  snprintf(rec->status, sizeof rec->status, "%s",
           mqss_measure_status_name(r.status));
  if (r.status != MQSS_MEASURE_OK) {
    snprintf(rec->message, sizeof rec->message, "%s", r.message);
    return;
  }
  // comp_time: median of 5 compilations, the checked one plus 4
  // compile-only samples (no reference, no runs, no sizing, not cached).
  double comp[COMPILE_SAMPLES]; // (COMPILE_SAMPLES,) ms
  comp[0] = r.compile_ms;
  mqss_measure_options c = o;
  c.compile_only = 1;
  c.check_reference = 0;
  c.code_size = 0;
  c.no_cache = 1;
  int n = 1;
  for (int i = 1; i < COMPILE_SAMPLES; i++) {
    mqss_measure_result cr;
    if (mqss_measure(m, &c, &cr) == MQSS_OK && cr.status == MQSS_MEASURE_OK)
      comp[n++] = cr.compile_ms;
  }
  rec->ok = 1;
  rec->has_times = 1;
  rec->comp_time = median_of(comp, n);
  rec->run_time = r.run_ms_median;
  rec->size = (double)r.text_bytes;
  if (t->vs_reference) {
    mqss_measure_options ro = o;
    ro.pipeline = NULL;
    ro.check_reference = 0;
    ro.code_size = 0;
    mqss_measure_result rr;
    if (mqss_measure(m, &ro, &rr) == MQSS_OK && rr.status == MQSS_MEASURE_OK) {
      rec->has_ref = 1;
      rec->ref_run_time = rr.run_ms_median;
    }
  }
}

static void baseline_task(void *user, const void *params, size_t plen,
                          const void *task, size_t tlen, pool_emit_fn emit,
                          void *emit_ctx) {
  (void)params;
  (void)plen;
  (void)tlen;
  const task_ctx *t = user;
  const job_entry *j = &t->jobs[*(const int *)task];
  baseline_rec rec;
  memset(&rec, 0, sizeof rec);
  mqss_module *m = NULL;
  if (mqss_module_parse_file(t->s, j->path, &m) != MQSS_OK) {
    snprintf(rec.status, sizeof rec.status, "parse_error");
    snprintf(rec.message, sizeof rec.message, "%s", mqss_errmsg(t->s));
  } else if (t->check) {
    mqss_module *c = mqss_module_clone(m);
    rec.ok = c && (!*j->pipeline ||
                   mqss_module_run_pipeline(c, j->pipeline) == MQSS_OK) &&
             mqss_module_finish(c) == MQSS_OK;
    snprintf(rec.status, sizeof rec.status, rec.ok ? "ok" : "check_failed");
    if (!rec.ok)
      snprintf(rec.message, sizeof rec.message, "%s", mqss_errmsg(t->s));
    mqss_module_destroy(c);
  } else {
    measure_one(m, j->pipeline, t, &rec);
  }
  mqss_module_destroy(m);
  emit(emit_ctx, &rec, sizeof rec);
}

// ----------------------------------------------------------------------------
// the parent: collect records, report progress

typedef struct {
  const job_entry *jobs;
  baseline_rec *recs; // (njobs,)
  int *have;          // (njobs,) 1 once a record arrived
  int finished, total;
} collect_ctx;

static void on_record(void *ctx, int index, const void *rec, size_t len) {
  collect_ctx *c = ctx;
  if (len == sizeof(baseline_rec)) {
    memcpy(&c->recs[index], rec, len);
    c->have[index] = 1;
  }
}

static void on_done(void *ctx, int index, task_status status, int sig) {
  collect_ctx *c = ctx;
  baseline_rec *r = &c->recs[index];
  if (!c->have[index]) { // the task died before sending its record
    memset(r, 0, sizeof *r);
    r->harness = 1;
    snprintf(r->status, sizeof r->status, "harness_error");
    snprintf(r->message, sizeof r->message,
             "the baseline task %s (signal %d); rerun this module alone with "
             "'mqss measure'",
             status == TASK_TIMEOUT ? "timed out" : "died", sig);
    c->have[index] = 1;
  }
  c->finished++;
  if (r->message[0] && !r->ok)
    cli_error("baseline: %s: %s", c->jobs[index].file, r->message);
  fprintf(stderr, "[%d/%d] %s %s %s run %.3f ms\n", c->finished, c->total,
          c->jobs[index].file, c->jobs[index].family, r->status,
          r->has_times ? r->run_time : -1.0);
}

// Adds module `j`'s object to `root` (the documented record format).
static void add_json(cJSON *root, const job_entry *j, const baseline_rec *r) {
  cJSON *obj = cJSON_AddObjectToObject(root, j->file);
  cJSON_AddStringToObject(obj, "family", j->family);
  cJSON_AddStringToObject(obj, "pipeline", j->pipeline);
  cJSON_AddStringToObject(obj, "status", r->status);
  if (!r->ok && r->message[0])
    cJSON_AddStringToObject(obj, "message", r->message);
  if (r->has_times) {
    cJSON_AddNumberToObject(obj, "comp_time", r->comp_time);
    cJSON_AddNumberToObject(obj, "run_time", r->run_time);
    cJSON_AddNumberToObject(obj, "size", r->size);
  }
  if (r->has_ref)
    cJSON_AddNumberToObject(obj, "ref_run_time", r->ref_run_time);
}

// ----------------------------------------------------------------------------
// manifest

// The manifest's modules (at most `limit` when limit >= 0) into *out
// (malloc'ed; its strings are the manifest's). Modules of a family without
// a baseline are reported and counted in *bad. -1: out of memory.
static int read_jobs(const manifest_list *m, const char *path, const char *yaml,
                     const mqss_baselines *b, int limit, job_entry **out,
                     int *bad) {
  job_entry *jobs = calloc((size_t)m->n + 1, sizeof *jobs);
  if (!jobs)
    return -1;
  int n = 0;
  for (int i = 0; i < m->n && (limit < 0 || n < limit); i++) {
    const manifest_entry *e = &m->v[i];
    const char *pipeline = mqss_baselines_pipeline(b, e->family);
    if (!*e->family)
      cli_error("%s:%d: '%s' has no family; expected 'FILE<TAB>FAMILY...'",
                path, e->line, e->file);
    else if (!pipeline)
      cli_error("%s:%d: family '%s' has no entry in '%s'", path, e->line,
                e->family, yaml);
    if (!*e->family || !pipeline) {
      (*bad)++;
      continue;
    }
    jobs[n++] = (job_entry){e->file, e->path, e->family, pipeline};
  }
  *out = jobs;
  return n;
}

// ----------------------------------------------------------------------------
// main

int cmd_baseline(int argc, char **argv) {
  const char *manifest = NULL, *out = NULL, *cache = NULL;
  // data/baselines.yaml of the working directory, else of the source tree
  // (as mqss eval)
  const char *yaml = eval_default_baselines_path();
  bool check = false, vs_ref = false;
  int limit = -1, timeout_ms = 300000;
  long online = sysconf(_SC_NPROCESSORS_ONLN);
  int workers = online > 0 ? (int)online : 1;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    bool has = i + 1 < argc;
    if (!strcmp(a, "-o") && has)
      out = argv[++i];
    else if (!strcmp(a, "--baselines") && has)
      yaml = argv[++i];
    else if (!strcmp(a, "--cache") && has)
      cache = argv[++i];
    else if (!strcmp(a, "--limit") && has)
      limit = atoi(argv[++i]);
    else if (!strcmp(a, "--workers") && has) {
      workers = atoi(argv[++i]);
      if (workers < 1 || workers > 256)
        return cli_error("baseline: --workers must be 1-256, got '%s'",
                         argv[i]);
    } else if (!strcmp(a, "--timeout") && has) {
      timeout_ms = atoi(argv[++i]);
      if (timeout_ms < 1)
        return cli_error("baseline: --timeout must be a positive number of "
                         "ms, got '%s'", argv[i]);
    } else if (!strcmp(a, "--check"))
      check = true;
    else if (!strcmp(a, "--vs-reference"))
      vs_ref = true;
    else if (a[0] != '-' && !manifest)
      manifest = a;
    else
      return cli_error("baseline: unexpected argument '%s'; see 'mqss "
                       "baseline --help'", a);
  }
  if (!manifest || (!out && !check))
    return cli_error("baseline: usage: mqss baseline MANIFEST -o "
                     "baseline.json (or --check)");
  mqss_session *s = NULL;
  mqss_baselines *b = NULL;
  manifest_list mf = {0};
  if (mqss_session_create(&s) != MQSS_OK)
    return cli_error("out of memory");
  if (mqss_baselines_load(s, yaml, &b) != MQSS_OK ||
      manifest_read(s, manifest, &mf) != MQSS_OK) {
    int rc = cli_error("baseline: %s", mqss_errmsg(s));
    manifest_free(&mf);
    mqss_baselines_destroy(b);
    mqss_session_destroy(s);
    return rc;
  }
  int bad = 0;
  job_entry *jobs = NULL;
  int n = read_jobs(&mf, manifest, yaml, b, limit, &jobs, &bad);
  baseline_rec *recs = calloc((size_t)n + 1, sizeof *recs);
  int *have = calloc((size_t)n + 1, sizeof *have), *ids = calloc((size_t)n + 1, sizeof *ids);
  const void **tasks = calloc((size_t)n + 1, sizeof *tasks);
  size_t *lens = calloc((size_t)n + 1, sizeof *lens);
  int rc = 0;
  if (n < 0 || !recs || !have || !ids || !tasks || !lens) {
    rc = cli_error("out of memory");
    goto out;
  }
  for (int i = 0; i < n; i++) {
    ids[i] = i;
    tasks[i] = &ids[i];
    lens[i] = sizeof ids[i];
  }
  if (workers > n && n > 0)
    workers = n;
  task_ctx tc = {s, jobs, cache, vs_ref, check, timeout_ms};
  collect_ctx cc = {jobs, recs, have, 0, n};
  pool_options po = {workers, 0, TASK_TIMEOUT_MS, CHILD_DEFAULT_MEM_MB};
  worker_pool *pool = NULL;
  if (n > 0 && (pool_create(s, &po, baseline_task, &tc, &pool) != MQSS_OK ||
                pool_run(pool, n, tasks, lens, on_record, on_done, &cc) !=
                    MQSS_OK)) {
    rc = cli_error("baseline: %s", mqss_errmsg(s));
    pool_destroy(pool);
    goto out;
  }
  pool_destroy(pool);
  int failed = bad;
  cJSON *root = cJSON_CreateObject();
  for (int i = 0; i < n; i++) {
    failed += !recs[i].ok;
    add_json(root, &jobs[i], &recs[i]);
  }
  if (!check) {
    char *text = cJSON_Print(root);
    FILE *f = text ? fopen(out, "w") : NULL;
    if (!f || fputs(text, f) < 0 || fputc('\n', f) < 0)
      rc = cli_error("cannot write '%s'", out);
    if (f && fclose(f) != 0)
      rc = cli_error("cannot write '%s'", out);
    free(text);
  }
  cJSON_Delete(root);
  printf("%s: %d modules, %d ok, %d failed (%d workers)\n",
         check ? "check" : "baseline", n + bad, n + bad - failed, failed,
         workers);
  if (!rc && failed)
    rc = 1;
out:
  manifest_free(&mf);
  free(jobs);
  free(recs);
  free(have);
  free(ids);
  free(tasks);
  free(lens);
  mqss_baselines_destroy(b);
  mqss_session_destroy(s);
  return rc;
}
