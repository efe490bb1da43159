// Benchmark of the environment's per-step costs (issue 5), not of any kernel:
// feature extraction and IR-graph building on a ~1000-line module (targets:
// <= 1 ms median each), and the env step counting pass application only
// (mqss_env_info.apply_ms), plus the whole step without the final
// measurement (pass + safety mask + features + graph). Prints medians of
// repeats with the machine and commit. Build and run with bench/env_bench.sh.
#include "mqss/mqss.h"
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

static void print_machine(const char *commit) {
  struct utsname u;
  if (uname(&u) == 0)
    printf("machine: %s %s %s %s %s\n", u.sysname, u.nodename, u.release,
           u.version, u.machine);
  FILE *f = fopen("/proc/cpuinfo", "r");
  char line[256];
  while (f && fgets(line, sizeof line, f))
    if (!strncmp(line, "model name", 10)) {
      printf("cpu: %s", strchr(line, ':') + 2);
      break;
    }
  if (f)
    fclose(f);
  printf("commit: %s\n", commit);
}

static int count_lines(const char *s) {
  int n = 0;
  for (; *s; s++)
    n += *s == '\n';
  return n;
}

// Appends `text` to `out` with every symbol @name renamed @name_c<copy>, so
// that several emitted modules can share one module.
static void append_renamed(char **out, size_t *len, const char *text, int copy) {
  size_t cap = *len + 2 * strlen(text) + 64;
  *out = realloc(*out, cap);
  char *o = *out + *len;
  for (const char *p = text; *p;) {
    *o++ = *p;
    if (*p++ != '@')
      continue;
    while ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
           (*p >= '0' && *p <= '9') || *p == '_')
      *o++ = *p++;
    o += sprintf(o, "_c%d", copy);
  }
  *o = '\0';
  *len = (size_t)(o - *out);
}

// Modules 0, 1, ... of `family` (seed 1), symbols renamed per copy, until the
// text has at least 1000 lines: a ~1000-line module from the corpus
// generator, whose families emit at most ~600 lines each.
static char *make_module(const char *family, int *lines, int *copies) {
  char *text = NULL;
  size_t len = 0;
  *copies = 0;
  while (!text || count_lines(text) < 1000) {
    char *t = mqss_corpus_emit(family, 1, *copies);
    if (!t)
      return text;
    append_renamed(&text, &len, t, (*copies)++);
    free(t);
  }
  *lines = count_lines(text);
  return text;
}

int main(int argc, char **argv) {
  const char *family = argc > 1 ? argv[1] : "transformer";
  const char *commit = argc > 2 ? argv[2] : "unknown";
  int reps = argc > 3 ? atoi(argv[3]) : 101;
  print_machine(commit);
  mqss_session *s;
  mqss_catalog *cat;
  if (mqss_session_create(&s) || mqss_catalog_load(s, NULL, &cat)) {
    fprintf(stderr, "env_bench: %s\n", mqss_errmsg(s));
    return 1;
  }
  int lines = 0, copies = 0;
  char *text = make_module(family, &lines, &copies);
  mqss_module *m;
  if (!text || mqss_module_parse_string(s, text, strlen(text), family, &m)) {
    fprintf(stderr, "env_bench: no module of family '%s': %s\n", family,
            mqss_errmsg(s));
    return 1;
  }
  printf("module: corpus emit %s --seed 1 --index 0..%d, concatenated "
         "(%d lines)\n", family, copies - 1, lines);
  double *t = calloc((size_t)reps, sizeof *t);

  // features
  float state[MQSS_FEATURE_DIM];
  int hist[4] = {1, 2, 3, 4};
  for (int i = 0; i < reps; i++) {
    double t0 = now_ms();
    mqss_features(m, cat, hist, 4, 16, state);
    t[i] = now_ms() - t0;
  }
  printf("features: median %.3f ms over %d repeats (target <= 1 ms)\n",
         median_of(t, reps), reps);

  // graph
  int nodes = 0, nnz = 0;
  for (int i = 0; i < reps; i++) {
    mqss_graph *g = NULL;
    double t0 = now_ms();
    mqss_graph_build(m, &g);
    t[i] = now_ms() - t0;
    nodes = g ? g->n_nodes : 0;
    nnz = g ? g->nnz : 0;
    mqss_graph_destroy(g);
  }
  printf("graph: median %.3f ms over %d repeats, %d nodes, %d edges "
         "(target <= 1 ms)\n", median_of(t, reps), reps, nodes, nnz);

  // env steps: random allowed non-STOP actions, episodes of 8 steps, never
  // finished (so no measurement); a baseline record avoids measuring too.
  mqss_env_options o;
  mqss_env_options_init(&o);
  o.max_steps = 1 << 20;
  mqss_env *env;
  mqss_env_baseline base = {1, 1, 1};
  mqss_env_obs obs;
  if (mqss_env_create(s, cat, &o, &env) ||
      mqss_env_reset(env, m, &base, &obs)) {
    fprintf(stderr, "env_bench: %s\n", mqss_errmsg(s));
    return 1;
  }
  int n_cat = mqss_catalog_size(cat), stop = mqss_catalog_stop(cat);
  double *step = calloc((size_t)reps, sizeof *step);
  int applied = 0, failed = 0;
  unsigned rng = 12345;
  for (int i = 0; i < reps; i++) {
    if (i % 8 == 0)
      mqss_env_reset(env, m, &base, &obs);
    int k = -1;
    do {
      rng = rng * 1103515245u + 12345u;
      k = (int)((rng >> 8) % (unsigned)n_cat);
    } while (!obs.mask[k] || k == stop);
    mqss_decision d = {k, {0, 0, 0, 0}, NULL};
    for (int p = 0; p < MQSS_MAX_PARAMS; p++) {
      rng = rng * 1103515245u + 12345u;
      d.u[p] = (float)((rng >> 8) % 2001) / 1000.0f - 1.0f;
    }
    mqss_env_info info;
    float r;
    int done;
    double t0 = now_ms();
    if (mqss_env_step(env, &d, &obs, &r, &done, &info)) {
      fprintf(stderr, "env_bench: %s\n", mqss_errmsg(s));
      return 1;
    }
    double whole = now_ms() - t0;
    if (info.status == MQSS_STEP_APPLIED) {
      t[applied] = info.apply_ms;
      step[applied++] = whole;
    }
    failed += info.status == MQSS_STEP_FAILED;
  }
  printf("env step, pass application only: median %.3f ms over %d applied "
         "steps (%d failed, reverted)\n", median_of(t, applied), applied, failed);
  printf("env step, whole (pass + clone + mask + features + graph, no "
         "measurement): median %.3f ms\n", median_of(step, applied));
  free(t);
  free(step);
  free(text);
  mqss_env_destroy(env);
  mqss_module_destroy(m);
  mqss_catalog_destroy(cat);
  mqss_session_destroy(s);
  return 0;
}
