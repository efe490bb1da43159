// `mqss catalog`: lists the action catalog, shows the safety layer's mask
// with reasons on a module, and applies one action (optionally scoped to one
// function). The thin CLI twin of the mqss_catalog_* / mqss_action_* /
// mqss_decision_* API; it holds no logic of its own.
#include "cli.h"
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// ----------------------------------------------------------------------------
// printing

static void stages_text(unsigned bits, char *buf, size_t len) {
  size_t used = 0;
  buf[0] = 0;
  for (int b = 0; b < MQSS_NUM_STAGES && used < len; b++)
    if (bits & (1u << b))
      used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? "+" : "",
                               mqss_stage_name(b));
  if (!used)
    snprintf(buf, len, "any");
}

static void print_params(const mqss_action *a) {
  static const char *kinds[] = {"int", "log-int", "choice", "bool",
                                "divisor"};
  for (int k = 0; k < a->n_params; k++) {
    const mqss_param *p = &a->params[k];
    printf("%s$%s:%s", k ? " " : "", p->name, kinds[p->kind]);
    if (p->kind == MQSS_PARAM_INT || p->kind == MQSS_PARAM_LOG_INT)
      printf("[%lld..%lld]", (long long)p->min, (long long)p->max);
    if (p->kind == MQSS_PARAM_DIVISOR)
      printf("@%d", p->dim);
    for (int v = 0; v < p->n_values; v++)
      printf("%s%s", v ? "|" : "[", p->values[v]);
    if (p->n_values)
      printf("]");
  }
  if (!a->n_params)
    printf("-");
}

static void list(const mqss_catalog *c) {
  char req[96], prod[96];
  printf("# %d actions, catalog hash %016llx\n", mqss_catalog_size(c),
         (unsigned long long)mqss_catalog_hash(c));
  printf("# id name anchor requires produces params pipeline\n");
  for (int i = 0; i < mqss_catalog_size(c); i++) {
    const mqss_action *a = mqss_catalog_action(c, i);
    if (a->is_stop) {
      printf("%d %s - - - - STOP\n", i, a->name);
      continue;
    }
    stages_text(a->requires_stages, req, sizeof req);
    stages_text(a->produces_stages, prod, sizeof prod);
    printf("%d %s %s %s %s ", i, a->name, a->anchor, req, prod);
    print_params(a);
    printf(" %s\n", a->pipeline);
  }
}

// Parses "0.5,-1,..." into u (at most MQSS_MAX_PARAMS values).
static int parse_u(const char *text, float *u) {
  char *end;
  for (int k = 0; k < MQSS_MAX_PARAMS && *text; k++) {
    u[k] = strtof(text, &end);
    if (end == text || (*end && *end != ','))
      return cli_error("catalog: --params expects numbers in [-1,1] "
                       "separated by commas, got '%s'", text);
    text = *end ? end + 1 : end;
  }
  return 0;
}

// One action on a module, as work for isolated_trial().
typedef struct {
  mqss_module *m;
  const mqss_catalog *c;
  const mqss_decision *d;
} apply_work;

static mqss_status run_apply(void *ctx) {
  apply_work *w = ctx;
  return mqss_decision_apply(w->m, w->c, w->d);
}

// Writes the transform script of schedule decision d to `path`.
static int write_schedule(mqss_session *s, const mqss_catalog *c,
                          const mqss_decision *d, const char *path) {
  char *text = mqss_decision_schedule(c, d);
  if (!text)
    return cli_error("catalog: --emit-schedule: %s",
                     mqss_errmsg(s));
  FILE *f = fopen(path, "w");
  bool ok = f && fputs(text, f) >= 0;
  ok = f && fclose(f) == 0 && ok;
  free(text);
  return ok ? 0 : cli_error("catalog: cannot write '%s'", path);
}

// ----------------------------------------------------------------------------
// main

int cmd_catalog(int argc, char **argv) {
  const char *path = NULL, *mask_file = NULL, *apply = NULL, *target = NULL,
             *file = NULL, *params = NULL, *op = NULL, *emit = NULL;
  bool hash_only = false, isolate = false, check = false;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char **slot = !strcmp(a, "--catalog")  ? &path
                        : !strcmp(a, "--mask")   ? &mask_file
                        : !strcmp(a, "--apply")  ? &apply
                        : !strcmp(a, "--target") ? &target
                        : !strcmp(a, "--params") ? &params
                        : !strcmp(a, "--op")     ? &op
                        : !strcmp(a, "--emit-schedule") ? &emit
                                                 : NULL;
    if (slot) {
      if (i + 1 >= argc)
        return cli_error("catalog: %s needs a value; see 'mqss catalog --help'",
                         a);
      *slot = argv[++i];
    } else if (!strcmp(a, "--hash")) {
      hash_only = true;
    } else if (!strcmp(a, "--isolate")) {
      isolate = true;
    } else if (!strcmp(a, "--check")) {
      check = true;
    } else if (a[0] == '-' && a[1]) {
      return cli_error("catalog: unknown option '%s'; see 'mqss catalog "
                       "--help'", a);
    } else if (!file) {
      file = a;
    } else {
      return cli_error("catalog: more than one input file");
    }
  }
  if (apply && !file)
    return cli_error("catalog: --apply NAME needs an input FILE");

  mqss_session *s = NULL;
  if (mqss_session_create(&s) != MQSS_OK)
    return cli_error("out of memory");
  mqss_catalog *c = NULL;
  mqss_module *m = NULL;
  int rc = 0;
  if (mqss_catalog_load(s, path, &c) != MQSS_OK) {
    rc = cli_error("%s", mqss_errmsg(s));
    goto done;
  }
  if (hash_only) {
    printf("%016llx\n", (unsigned long long)mqss_catalog_hash(c));
  } else if (check) {
    strbuf report = {0};
    const char *shown = path ? path : mqss_catalog_default_path();
    int failed = catalog_check_pipelines(c, shown, &report);
    if (failed) {
      fputs(report.data, stderr);
      rc = cli_error("catalog: %d of %d actions have a pipeline that does "
                     "not parse or would crash MLIR", failed,
                     mqss_catalog_size(c));
    } else {
      printf("%s: all %d pipelines parse\n", shown, mqss_catalog_size(c));
    }
    sb_free(&report);
  } else if (mask_file) {
    if (cli_parse_module(s, mask_file, &m) != MQSS_OK) {
      rc = cli_error("%s", mqss_errmsg(s));
      goto done;
    }
    char why[256];
    uint8_t *mask = malloc((size_t)mqss_catalog_size(c));
    int allowed = mask ? mqss_action_mask(m, c, target, mask) : -1;
    for (int i = 0; i < mqss_catalog_size(c); i++) {
      int ok = mqss_action_check(m, c, i, target, why, sizeof why);
      if (ok != mask[i])
        rc = cli_error("internal error: mask and check disagree on %d", i);
      printf("%-26s %s\n", mqss_catalog_action(c, i)->name,
             ok ? "allowed" : why);
    }
    printf("# %d of %d allowed\n", allowed, mqss_catalog_size(c));
    free(mask);
  } else if (apply) {
    mqss_decision d = {.action = mqss_catalog_find(c, apply), .target = target};
    if (d.action < 0) {
      rc = cli_error("catalog: no action '%s'; run 'mqss catalog' for the "
                     "list", apply);
      goto done;
    }
    if (params && (rc = parse_u(params, d.u)))
      goto done;
    long id = 0;
    if (op && !cli_parse_int("catalog", "--op", op, 1, 1L << 62, &id)) {
      rc = 1;
      goto done;
    }
    d.op = id;
    if (emit && (rc = write_schedule(s, c, &d, emit)))
      goto done;
    apply_work w = {NULL, c, &d};
    if (cli_parse_module(s, file, &m) != MQSS_OK ||
        (isolate && (w.m = m, isolated_trial(s, run_apply, &w,
                                             ISOLATE_TIMEOUT_MS,
                                             ISOLATE_MEM_MB, NULL, 0)) !=
                        MQSS_OK) ||
        mqss_decision_apply(m, c, &d) != MQSS_OK) {
      rc = cli_error("%s", mqss_errmsg(s));
      goto done;
    }
    char *text = mqss_decision_pipeline(c, &d);
    fprintf(stderr, "applied: %s%s%s\n", text ? text : "?",
            target ? " on @" : "", target ? target : "");
    free(text);
    char *out = mqss_module_to_string(m);
    printf("%s\n", out ? out : "");
    free(out);
  } else {
    list(c);
  }
done:
  mqss_module_destroy(m);
  mqss_catalog_destroy(c);
  mqss_session_destroy(s);
  return rc;
}
