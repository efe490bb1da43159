// `mqss baseline`: measures every module of a corpus manifest under its
// family's hand-tuned pipeline (data/baselines.yaml) and writes
// baseline.json: {module: {comp_time, run_time, size, family, pipeline,
// status[, ref_run_time]}}, times in ms. With --check it only verifies that
// each pipeline parses, runs and finishes on its modules. The measuring is
// mqss_measure()'s; this file only loops, takes medians and prints.
#include "cli.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { COMPILE_SAMPLES = 5 };

// Default baselines file, relative to the working directory (the repo root).
#define MQSS_DEFAULT_BASELINES "data/baselines.yaml"

// ----------------------------------------------------------------------------
// helpers

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Directory part of `path` ("." when none) into out.
static void dir_of(const char *path, char *out, size_t cap) {
  const char *slash = strrchr(path, '/');
  if (!slash)
    snprintf(out, cap, ".");
  else
    snprintf(out, cap, "%.*s", (int)(slash - path), path);
}

typedef struct {
  const char *pipeline;
  const char *cache;
  bool vs_reference;
} baseline_cfg;

// Measures one module; adds its JSON object to `root`. Returns false when
// the measurement was not ok.
static bool measure_one(mqss_module *m, const char *name, const char *family,
                        const baseline_cfg *cfg, cJSON *root) {
  mqss_measure_options o;
  mqss_measure_options_init(&o);
  o.pipeline = cfg->pipeline;
  o.warmup = 3;
  o.repeat = 10;
  o.cache_path = cfg->cache;
  mqss_measure_result r;
  cJSON *obj = cJSON_AddObjectToObject(root, name);
  cJSON_AddStringToObject(obj, "family", family);
  cJSON_AddStringToObject(obj, "pipeline", cfg->pipeline);
  if (mqss_measure(m, &o, &r) != MQSS_OK) {
    cJSON_AddStringToObject(obj, "status", "harness_error");
    cli_error("baseline: %s: %s", name, mqss_errmsg(mqss_module_session(m)));
    return false;
  }
  cJSON_AddStringToObject(obj, "status", mqss_measure_status_name(r.status));
  if (r.status != MQSS_MEASURE_OK) {
    cJSON_AddStringToObject(obj, "message", r.message);
    return false;
  }
  // comp_time: median of 5 compilations (the measured one + 4 compile-only).
  double comp[COMPILE_SAMPLES];
  comp[0] = r.compile_ms;
  mqss_measure_options c = o;
  c.warmup = 0;
  c.repeat = 1;
  c.check_reference = 0;
  c.code_size = 0;
  c.no_cache = 1;
  int n = 1;
  for (int i = 1; i < COMPILE_SAMPLES; i++) {
    mqss_measure_result cr;
    if (mqss_measure(m, &c, &cr) == MQSS_OK && cr.status == MQSS_MEASURE_OK)
      comp[n++] = cr.compile_ms;
  }
  cJSON_AddNumberToObject(obj, "comp_time", median(comp, n));
  cJSON_AddNumberToObject(obj, "run_time", r.run_ms_median);
  cJSON_AddNumberToObject(obj, "size", (double)r.text_bytes);
  if (cfg->vs_reference) {
    mqss_measure_options ro = o;
    ro.pipeline = NULL;
    ro.check_reference = 0;
    ro.code_size = 0;
    mqss_measure_result rr;
    if (mqss_measure(m, &ro, &rr) == MQSS_OK && rr.status == MQSS_MEASURE_OK)
      cJSON_AddNumberToObject(obj, "ref_run_time", rr.run_ms_median);
  }
  return true;
}

// ----------------------------------------------------------------------------
// main

int cmd_baseline(int argc, char **argv) {
  const char *manifest = NULL, *out = NULL, *cache = NULL;
  const char *yaml = MQSS_DEFAULT_BASELINES;
  bool check = false, vs_ref = false;
  int limit = -1;
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
    else if (!strcmp(a, "--check"))
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
  FILE *mf = fopen(manifest, "r");
  if (!mf)
    return cli_error("cannot read manifest '%s'", manifest);
  mqss_session *s = NULL;
  mqss_baselines *b = NULL;
  if (mqss_session_create(&s) != MQSS_OK) {
    fclose(mf);
    return cli_error("out of memory");
  }
  if (mqss_baselines_load(s, yaml, &b) != MQSS_OK) {
    int rc = cli_error("%s", mqss_errmsg(s));
    fclose(mf);
    mqss_session_destroy(s);
    return rc;
  }
  char dir[1024], line[1024], path[2048];
  dir_of(manifest, dir, sizeof dir);
  cJSON *root = cJSON_CreateObject();
  int done = 0, failed = 0, lineno = 0;
  while (fgets(line, sizeof line, mf) && (limit < 0 || done < limit)) {
    lineno++;
    if (line[0] == '#' || line[0] == '\n')
      continue;
    char file[512], family[64];
    if (sscanf(line, "%511s %63s", file, family) != 2) {
      cli_error("%s:%d: expected 'FILE<TAB>FAMILY...'", manifest, lineno);
      failed++;
      continue;
    }
    const char *pipe = mqss_baselines_pipeline(b, family);
    if (!pipe) {
      cli_error("%s:%d: family '%s' has no entry in '%s'", manifest, lineno,
                family, yaml);
      failed++;
      continue;
    }
    snprintf(path, sizeof path, "%s/%s", dir, file);
    mqss_module *m = NULL;
    bool ok = mqss_module_parse_file(s, path, &m) == MQSS_OK;
    if (!ok) {
      cli_error("%s", mqss_errmsg(s));
    } else if (check) {
      mqss_module *c = mqss_module_clone(m);
      ok = c && (!*pipe || mqss_module_run_pipeline(c, pipe) == MQSS_OK) &&
           mqss_module_finish(c) == MQSS_OK;
      if (!ok)
        cli_error("%s: %s", file, mqss_errmsg(s));
      mqss_module_destroy(c);
    } else {
      baseline_cfg cfg = {pipe, cache, vs_ref};
      ok = measure_one(m, file, family, &cfg, root);
      cJSON *o = cJSON_GetObjectItem(root, file);
      cJSON *rt = cJSON_GetObjectItem(o, "run_time");
      cJSON *st = cJSON_GetObjectItem(o, "status");
      fprintf(stderr, "[%d] %s %s %s run %.3f ms\n", done + 1, file, family,
              st ? st->valuestring : "?", rt ? rt->valuedouble : -1.0);
    }
    mqss_module_destroy(m);
    failed += !ok;
    done++;
  }
  fclose(mf);
  int rc = 0;
  if (!check) {
    char *text = cJSON_Print(root);
    FILE *f = text ? fopen(out, "w") : NULL;
    if (!f || fputs(text, f) < 0 || fputc('\n', f) < 0)
      rc = cli_error("cannot write '%s'", out);
    if (f && fclose(f) != 0)
      rc = cli_error("cannot write '%s'", out);
    free(text);
  }
  printf("%s: %d modules, %d ok, %d failed\n", check ? "check" : "baseline",
         done, done - failed, failed);
  cJSON_Delete(root);
  mqss_baselines_destroy(b);
  mqss_session_destroy(s);
  return rc ? rc : failed ? 1 : 0;
}
