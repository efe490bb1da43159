// `mqss rollout`: runs episodes of a policy (for now the random policy:
// uniform over the safety mask, parameters uniform in [-1, 1], seeded) on a
// module through the environment, each episode in a forked pool child, and
// prints the trajectories: actions, mapped parameters, rewards and the final
// status. It only parses options and prints; the episodes run in the library
// (mqss_env_rollout).
#include "cli.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// ----------------------------------------------------------------------------
// collected trajectories

typedef struct {
  mqss_rollout_record *steps; // (n) step records in order
  int n, cap;
  int ended, task_status, signal;
  char error[256]; // reason of a harness failure
} trajectory;

typedef struct {
  trajectory *t; // (episodes)
  int episodes;
} collected;

static void on_record(void *user, const mqss_rollout_record *rec) {
  collected *c = user;
  if (rec->episode < 0 || rec->episode >= c->episodes)
    return;
  trajectory *t = &c->t[rec->episode];
  if (rec->end) {
    t->ended = 1;
    if (!t->task_status)
      t->task_status = rec->task_status;
    t->signal = rec->signal;
    return;
  }
  if (rec->task_status) { // harness error report
    t->task_status = rec->task_status;
    snprintf(t->error, sizeof t->error, "%s", rec->info.reason);
    return;
  }
  if (t->n == t->cap) {
    int cap = t->cap ? 2 * t->cap : 16;
    mqss_rollout_record *s = realloc(t->steps, (size_t)cap * sizeof *s);
    if (!s)
      return;
    t->steps = s;
    t->cap = cap;
  }
  t->steps[t->n++] = *rec;
}

// Final status of an episode: the measurement's, or how its process ended.
static const char *episode_status(const trajectory *t) {
  static const char *const task[] = {"ok", "crashed", "timeout", "failed"};
  if (t->task_status)
    return (unsigned)t->task_status < 4 ? task[t->task_status] : "failed";
  if (t->n && t->steps[t->n - 1].info.done)
    return mqss_measure_status_name(t->steps[t->n - 1].info.measure.status);
  return "incomplete";
}

static const char *const term_names[MQSS_REWARD_TERMS] = {
    "success", "compile", "runtime", "size", "perf"};

// ----------------------------------------------------------------------------
// printing

static void print_params(const mqss_catalog *cat, const mqss_env_info *in,
                         FILE *f) {
  const mqss_action *a = mqss_catalog_action(cat, in->action);
  for (int k = 0; a && k < in->n_params; k++) {
    const mqss_param *p = &a->params[k];
    if (p->kind == MQSS_PARAM_CHOICE || p->kind == MQSS_PARAM_DIVISOR)
      fprintf(f, " %s=%s", p->name, p->values[in->params[k]]);
    else
      fprintf(f, " %s=%lld", p->name, (long long)in->params[k]);
  }
}

static void print_text(const mqss_catalog *cat, const collected *c,
                       const mqss_env_baseline *b) {
  printf("baseline: comp_time %.3f ms, run_time %.4f ms, size %lld bytes\n",
         b->comp_time, b->run_time, (long long)b->size);
  for (int e = 0; e < c->episodes; e++) {
    const trajectory *t = &c->t[e];
    double ret = 0;
    printf("episode %d\n", e);
    for (int i = 0; i < t->n; i++) {
      const mqss_env_info *in = &t->steps[i].info;
      ret += t->steps[i].reward;
      printf("  step %2d %-24s %-7s reward %+.4f", i,
             mqss_catalog_action(cat, in->action)->name,
             mqss_step_status_name(in->status), t->steps[i].reward);
      print_params(cat, in, stdout);
      if (in->op) // the linalg op (mqss.id) the decision addressed
        printf(" op=%lld", (long long)in->op);
      if (in->repeats) // and on so many further ops (repeat.c)
        printf(" repeats=%d", in->repeats);
      if (in->reason[0])
        printf("  (%s)", in->reason);
      printf("\n");
      if (!in->done)
        continue;
      const mqss_measure_result *m = &in->measure;
      printf("  final   %s  compile %.3f ms  run %.4f ms  size %lld\n",
             mqss_measure_status_name(m->status), m->compile_ms,
             m->run_ms_median, (long long)m->text_bytes);
      printf("  pipeline '%s'\n", in->episode_pipeline);
      printf("  terms  ");
      for (int k = 0; k < MQSS_REWARD_TERMS; k++)
        printf(" %s %+.4f", term_names[k], in->terms.term[k]);
      printf("  total %+.4f\n", in->terms.total);
      if (in->terms.runtime_lo > 0)
        printf("  runtime ratio %.3f [%.3f, %.3f] (base/run, approx. 95%%)\n",
               in->terms.runtime_ratio, in->terms.runtime_lo,
               in->terms.runtime_hi);
      else if (in->terms.runtime_ratio > 0)
        printf("  runtime ratio %.3f (no interval: under 3 runs a side)\n",
               in->terms.runtime_ratio);
    }
    printf("  status %s", episode_status(t));
    if (t->signal)
      printf(" (signal %d)", t->signal);
    if (t->error[0])
      printf(" (%s)", t->error);
    printf("  return %+.4f\n", ret);
  }
}

static cJSON *step_json(const mqss_catalog *cat, const mqss_rollout_record *r,
                        int i) {
  const mqss_env_info *in = &r->info;
  const mqss_action *a = mqss_catalog_action(cat, in->action);
  cJSON *s = cJSON_CreateObject();
  cJSON_AddNumberToObject(s, "step", i);
  cJSON_AddStringToObject(s, "action", a->name);
  if (in->op)
    cJSON_AddNumberToObject(s, "op", (double)in->op);
  if (in->repeats)
    cJSON_AddNumberToObject(s, "repeats", in->repeats);
  cJSON_AddStringToObject(s, "status", mqss_step_status_name(in->status));
  cJSON *p = cJSON_AddObjectToObject(s, "params");
  for (int k = 0; k < in->n_params; k++) {
    if (a->params[k].kind == MQSS_PARAM_CHOICE)
      cJSON_AddStringToObject(p, a->params[k].name,
                              a->params[k].values[in->params[k]]);
    else if (a->params[k].kind == MQSS_PARAM_DIVISOR)
      cJSON_AddNumberToObject(
          p, a->params[k].name,
          (double)strtoll(a->params[k].values[in->params[k]], NULL, 10));
    else
      cJSON_AddNumberToObject(p, a->params[k].name, (double)in->params[k]);
  }
  cJSON *u = cJSON_AddArrayToObject(s, "u");
  for (int k = 0; k < in->n_params; k++)
    cJSON_AddItemToArray(u, cJSON_CreateNumber(r->u[k]));
  cJSON_AddStringToObject(s, "pipeline", in->pipeline);
  cJSON_AddNumberToObject(s, "reward", r->reward);
  cJSON_AddNumberToObject(s, "shaping", in->shaping);
  cJSON_AddNumberToObject(s, "cost", in->cost);
  cJSON_AddNumberToObject(s, "apply_ms", in->apply_ms);
  cJSON_AddStringToObject(s, "reason", in->reason);
  cJSON_AddBoolToObject(s, "done", in->done);
  return s;
}

static cJSON *final_json(const mqss_env_info *in) {
  const mqss_measure_result *m = &in->measure;
  cJSON *f = cJSON_CreateObject();
  cJSON_AddStringToObject(f, "status", mqss_measure_status_name(m->status));
  cJSON_AddStringToObject(f, "pipeline", in->episode_pipeline);
  cJSON_AddNumberToObject(f, "compile_ms", m->compile_ms);
  cJSON_AddNumberToObject(f, "run_ms", m->run_ms_median);
  cJSON_AddNumberToObject(f, "text_bytes", (double)m->text_bytes);
  cJSON_AddNumberToObject(f, "max_error", m->max_error);
  cJSON_AddStringToObject(f, "message", m->message);
  cJSON *t = cJSON_AddObjectToObject(f, "terms");
  for (int k = 0; k < MQSS_REWARD_TERMS; k++)
    cJSON_AddNumberToObject(t, term_names[k], in->terms.term[k]);
  cJSON_AddNumberToObject(f, "total", in->terms.total);
  cJSON_AddNumberToObject(f, "runtime_ratio", in->terms.runtime_ratio);
  cJSON_AddNumberToObject(f, "runtime_lo", in->terms.runtime_lo);
  cJSON_AddNumberToObject(f, "runtime_hi", in->terms.runtime_hi);
  cJSON_AddNumberToObject(f, "reward_raw", in->reward_raw);
  cJSON_AddNumberToObject(f, "reward_ema", in->reward_ema);
  cJSON_AddBoolToObject(f, "perf_available", in->perf_available);
  return f;
}

static void print_json(const mqss_catalog *cat, const collected *c,
                       const mqss_env_baseline *b, const char *notice) {
  cJSON *root = cJSON_CreateObject();
  cJSON *bj = cJSON_AddObjectToObject(root, "baseline");
  cJSON_AddNumberToObject(bj, "comp_time", b->comp_time);
  cJSON_AddNumberToObject(bj, "run_time", b->run_time);
  cJSON_AddNumberToObject(bj, "size", (double)b->size);
  cJSON_AddStringToObject(root, "notice", notice);
  cJSON *eps = cJSON_AddArrayToObject(root, "episodes");
  for (int e = 0; e < c->episodes; e++) {
    const trajectory *t = &c->t[e];
    cJSON *ej = cJSON_CreateObject();
    cJSON_AddNumberToObject(ej, "episode", e);
    cJSON_AddStringToObject(ej, "status", episode_status(t));
    cJSON_AddNumberToObject(ej, "signal", t->signal);
    if (t->error[0])
      cJSON_AddStringToObject(ej, "error", t->error);
    cJSON *steps = cJSON_AddArrayToObject(ej, "steps");
    double ret = 0;
    for (int i = 0; i < t->n; i++) {
      cJSON_AddItemToArray(steps, step_json(cat, &t->steps[i], i));
      ret += t->steps[i].reward;
      if (t->steps[i].info.done)
        cJSON_AddItemToObject(ej, "final", final_json(&t->steps[i].info));
    }
    cJSON_AddNumberToObject(ej, "return", ret);
    cJSON_AddItemToArray(eps, ej);
  }
  char *s = cJSON_Print(root);
  puts(s);
  free(s);
  cJSON_Delete(root);
}

// ----------------------------------------------------------------------------
// main

static bool int_arg(int argc, char **argv, int *i, const char *name,
                    long long *out) {
  if (strcmp(argv[*i], name))
    return false;
  if (*i + 1 >= argc) {
    *out = -1;
    return true;
  }
  char *end;
  *out = strtoll(argv[++*i], &end, 10);
  if (*end)
    *out = -1;
  return true;
}

int cmd_rollout(int argc, char **argv) {
  const char *file = NULL, *policy = "random", *catalog_path = NULL;
  const char *cache = NULL;
  bool json = false;
  mqss_env_options eo;
  mqss_env_options_init(&eo);
  mqss_rollout_options ro;
  mqss_rollout_options_init(&ro);
  for (int i = 1; i < argc; i++) {
    long long v = 0;
    const char *a = argv[i];
    if (!strcmp(a, "--json")) {
      json = true;
    } else if (!strcmp(a, "--policy") || !strcmp(a, "--catalog") ||
               !strcmp(a, "--cache")) {
      if (i + 1 >= argc)
        return cli_error("rollout: %s needs a value", a);
      const char **dst = !strcmp(a, "--policy")    ? &policy
                         : !strcmp(a, "--catalog") ? &catalog_path
                                                   : &cache;
      *dst = argv[++i];
    } else if (int_arg(argc, argv, &i, "--episodes", &v)) {
      if (v < 1)
        return cli_error("rollout: --episodes needs a positive integer");
      ro.episodes = (int)v;
    } else if (int_arg(argc, argv, &i, "--seed", &v)) {
      if (v < 0)
        return cli_error("rollout: --seed needs a non-negative integer");
      ro.seed = (uint64_t)v;
    } else if (int_arg(argc, argv, &i, "--max-steps", &v)) {
      if (v < 1)
        return cli_error("rollout: --max-steps needs a positive integer");
      eo.max_steps = (int)v;
    } else if (int_arg(argc, argv, &i, "--workers", &v)) {
      if (v < 1)
        return cli_error("rollout: --workers needs a positive integer");
      ro.workers = (int)v;
    } else if (int_arg(argc, argv, &i, "--warmup", &v)) {
      if (v < 0)
        return cli_error("rollout: --warmup needs a non-negative integer");
      eo.measure.warmup = (int)v;
    } else if (int_arg(argc, argv, &i, "--repeat", &v)) {
      if (v < 1)
        return cli_error("rollout: --repeat needs a positive integer");
      eo.measure.repeat = (int)v;
    } else if (int_arg(argc, argv, &i, "--timeout", &v)) {
      if (v < 1)
        return cli_error("rollout: --timeout needs a positive integer (ms)");
      ro.timeout_ms = (int)v;
    } else if (a[0] == '-' && a[1]) {
      return cli_error("rollout: unknown option '%s' (see mqss rollout --help)",
                       a);
    } else if (!file) {
      file = a;
    } else {
      return cli_error("rollout: more than one input file ('%s')", a);
    }
  }
  if (!file)
    return cli_error("rollout: no input file (see mqss rollout --help)");
  if (strcmp(policy, "random"))
    return cli_error("rollout: unknown policy '%s'; only 'random' exists",
                     policy);
  eo.measure.cache_path = cache;

  mqss_session *s = NULL;
  mqss_catalog *cat = NULL;
  mqss_module *m = NULL;
  mqss_env *env = NULL;
  collected col = {calloc((size_t)ro.episodes, sizeof(trajectory)),
                   ro.episodes};
  int rc = 0;
  if (!col.t || mqss_session_create(&s)) {
    rc = cli_error("out of memory");
    goto done;
  }
  if (mqss_catalog_load(s, catalog_path, &cat) ||
      cli_parse_module(s, file, &m) ||
      mqss_env_create(s, cat, &eo, &env) ||
      mqss_env_rollout(env, m, &ro, on_record, &col)) {
    rc = cli_error("rollout: %s", mqss_errmsg(s));
    goto done;
  }
  if (json)
    print_json(cat, &col, mqss_env_get_baseline(env), mqss_env_notice(env));
  else
    print_text(cat, &col, mqss_env_get_baseline(env));
  fflush(stdout);
  if (!json && mqss_env_notice(env)[0])
    fprintf(stderr, "mqss: note: %s", mqss_env_notice(env));
done:
  for (int e = 0; col.t && e < col.episodes; e++)
    free(col.t[e].steps);
  free(col.t);
  mqss_env_destroy(env);
  mqss_module_destroy(m);
  mqss_catalog_destroy(cat);
  mqss_session_destroy(s);
  return rc;
}
