// The action catalog: loads data/catalog.yaml (libyaml's document API) into
// an immutable array of mqss_action, checks it (unique names, known stages,
// parameter slots that match the template), and hashes its content. Errors
// name file:line:col of the offending YAML node. It does not run passes or
// look at IR: see decision.c and safety.c.
#include "internal.h"
#include "util/yaml_file.h"
#include "actions/linalg_ops.h"
#include "actions/schedule.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct mqss_catalog {
  mqss_session *session;
  int n;                 // number of actions
  mqss_action *actions;  // (n)
  int stop;              // index of STOP or -1
  uint64_t hash;
  uint64_t *prefix_hash; // (n + 1) hash of the first i actions
  const char **recipe_raw; // (n) recipe actions: their family's pipeline as
                           // the baselines file wrote it, unwrapped (what
                           // the hash saw); else NULL
  void **allocs;         // every string / array the actions point into
  int n_allocs, cap_allocs;
};

// ----------------------------------------------------------------------------
// small helpers

static void *keep(mqss_catalog *c, void *p) {
  if (!p)
    return NULL;
  if (c->n_allocs == c->cap_allocs) {
    int cap = c->cap_allocs ? 2 * c->cap_allocs : 64;
    void **a = realloc(c->allocs, (size_t)cap * sizeof *a);
    if (!a) {
      free(p);
      return NULL;
    }
    c->allocs = a;
    c->cap_allocs = cap;
  }
  c->allocs[c->n_allocs++] = p;
  return p;
}

const char *mqss_stage_name(int bit) {
  static const char *names[] = {
#define MQSS_STAGE_NAME(name, b, text) text,
      MQSS_STAGE_TABLE(MQSS_STAGE_NAME)
#undef MQSS_STAGE_NAME
  };
  return bit >= 0 && bit < MQSS_NUM_STAGES ? names[bit] : "any";
}

// Stage bit set of a name; 0 for "any"; -1 when unknown.
static long stage_bits(const char *name) {
  if (!strcmp(name, "any"))
    return 0;
  for (int b = 0; b < MQSS_NUM_STAGES; b++)
    if (!strcmp(name, mqss_stage_name(b)))
      return 1L << b;
  return -1;
}

// This file is <root>/src/actions/catalog.c; the catalog is
// <root>/data/catalog.yaml. An installed build would set MQSS_CATALOG.
// Computed once: threads may ask at the same time.
static char default_path[4096];

static void init_default_path(void) {
  source_tree_path(default_path, sizeof default_path, __FILE__,
                   "src/actions/catalog.c", "data/catalog.yaml");
}

const char *mqss_catalog_default_path(void) {
  const char *env = getenv("MQSS_CATALOG");
  if (env && *env)
    return env;
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, init_default_path);
  return default_path;
}

// ----------------------------------------------------------------------------
// YAML access

typedef struct {
  mqss_catalog *cat;
  yaml_document_t *doc;
  const char *path;
  mqss_baselines *recipes; // the recipes' baselines file, once loaded
  strbuf recipes_path;     // its path
  const char **resolved;   // (n) recipe actions: the pipeline to run
} loader;

static mqss_status bad(loader *L, const yaml_node_t *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static mqss_status bad(loader *L, const yaml_node_t *n, const char *fmt, ...) {
  strbuf msg = {0};
  va_list ap;
  va_start(ap, fmt);
  sb_vprintf(&msg, fmt, ap);
  va_end(ap);
  diag_reset(L->cat->session, L->path);
  mqss_status st = fail(L->cat->session, MQSS_ERR_PARSE, "%s:%lu:%lu: %s",
                        L->path, n ? (unsigned long)n->start_mark.line + 1 : 1,
                        n ? (unsigned long)n->start_mark.column + 1 : 1,
                        msg.data ? msg.data : "");
  sb_free(&msg);
  return st;
}

static const char *scalar(const yaml_node_t *n) {
  return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value
                                          : NULL;
}

// Value of key `key` in mapping `map`, or NULL.
static yaml_node_t *get(loader *L, yaml_node_t *map, const char *key) {
  for (yaml_node_pair_t *p = map->data.mapping.pairs.start;
       p < map->data.mapping.pairs.top; p++) {
    const char *k = scalar(yaml_document_get_node(L->doc, p->key));
    if (k && !strcmp(k, key))
      return yaml_document_get_node(L->doc, p->value);
  }
  return NULL;
}

static mqss_status check_keys(loader *L, yaml_node_t *map,
                              const char *const *allowed, const char *what) {
  for (yaml_node_pair_t *p = map->data.mapping.pairs.start;
       p < map->data.mapping.pairs.top; p++) {
    yaml_node_t *kn = yaml_document_get_node(L->doc, p->key);
    const char *k = scalar(kn);
    bool ok = false;
    for (int i = 0; k && allowed[i]; i++)
      ok |= !strcmp(k, allowed[i]);
    if (!ok)
      return bad(L, kn, "unknown key '%s' in %s; allowed keys are listed at "
                 "the top of data/catalog.yaml", k ? k : "?", what);
  }
  return MQSS_OK;
}

static mqss_status get_int(loader *L, yaml_node_t *n, int64_t *out) {
  const char *s = scalar(n);
  char *end = NULL;
  errno = 0;
  long long v = s ? strtoll(s, &end, 10) : 0;
  if (!s || !*s || *end || errno)
    return bad(L, n, "expected an integer, got '%s'", s ? s : "a collection");
  *out = v;
  return MQSS_OK;
}

// A scalar or a sequence of scalars, as a NULL-free array owned by the catalog.
static mqss_status get_list(loader *L, yaml_node_t *n, int *count,
                            const char *const **out) {
  *count = 0;
  *out = NULL;
  if (!n)
    return MQSS_OK;
  if (n->type == YAML_SCALAR_NODE) {
    char **a = keep(L->cat, calloc(1, sizeof *a));
    if (!a || !(a[0] = keep(L->cat, strdup(scalar(n)))))
      return fail(L->cat->session, MQSS_ERR_NOMEM, "out of memory");
    *count = 1;
    *out = (const char *const *)a;
    return MQSS_OK;
  }
  if (n->type != YAML_SEQUENCE_NODE)
    return bad(L, n, "expected a list like [a, b]");
  int len = (int)(n->data.sequence.items.top - n->data.sequence.items.start);
  char **a = keep(L->cat, calloc((size_t)len + 1, sizeof *a));
  if (!a)
    return fail(L->cat->session, MQSS_ERR_NOMEM, "out of memory");
  for (int i = 0; i < len; i++) {
    yaml_node_t *it =
        yaml_document_get_node(L->doc, n->data.sequence.items.start[i]);
    if (!scalar(it))
      return bad(L, it, "expected a plain value in this list");
    if (!(a[i] = keep(L->cat, strdup(scalar(it)))))
      return fail(L->cat->session, MQSS_ERR_NOMEM, "out of memory");
  }
  *count = len;
  *out = (const char *const *)a;
  return MQSS_OK;
}

static mqss_status get_stages(loader *L, yaml_node_t *n, unsigned *out) {
  int count;
  const char *const *names;
  mqss_status st = get_list(L, n, &count, &names);
  *out = 0;
  for (int i = 0; st == MQSS_OK && i < count; i++) {
    long b = stage_bits(names[i]);
    if (b < 0)
      return bad(L, n, "unknown stage '%s'; use any, tensor, buffer, linalg, "
                 "loops, affine, vector or llvm", names[i]);
    *out |= (unsigned)b;
  }
  return st;
}

// ----------------------------------------------------------------------------
// one action

static mqss_status load_param(loader *L, yaml_node_t *n, mqss_param *p) {
  static const char *const keys[] = {"name", "kind", "min", "max", "values",
                                     "dim", "level", NULL};
  if (n->type != YAML_MAPPING_NODE)
    return bad(L, n, "a parameter is a mapping {name, kind, ...}");
  mqss_status st = check_keys(L, n, keys, "a parameter");
  if (st)
    return st;
  const char *name = scalar(get(L, n, "name"));
  const char *kind = scalar(get(L, n, "kind"));
  if (!name || !*name)
    return bad(L, n, "parameter without a name");
  if (!(p->name = keep(L->cat, strdup(name))))
    return fail(L->cat->session, MQSS_ERR_NOMEM, "out of memory");
  if (!kind)
    return bad(L, n, "parameter '%s' has no kind (int, log-int, choice, bool)",
               name);
  if (!strcmp(kind, "int") || !strcmp(kind, "log-int")) {
    p->kind = kind[0] == 'i' ? MQSS_PARAM_INT : MQSS_PARAM_LOG_INT;
    yaml_node_t *lo = get(L, n, "min"), *hi = get(L, n, "max");
    if (!lo || !hi)
      return bad(L, n, "parameter '%s' needs min and max", name);
    if ((st = get_int(L, lo, &p->min)) || (st = get_int(L, hi, &p->max)))
      return st;
    if (p->min < -MQSS_PARAM_MAX_ABS || p->min > MQSS_PARAM_MAX_ABS ||
        p->max < -MQSS_PARAM_MAX_ABS || p->max > MQSS_PARAM_MAX_ABS)
      return bad(L, p->min < -MQSS_PARAM_MAX_ABS || p->min > MQSS_PARAM_MAX_ABS
                        ? lo : hi,
                 "parameter '%s': min and max must lie within +-%lld (2^53)",
                 name, (long long)MQSS_PARAM_MAX_ABS);
    if (p->min > p->max || (p->kind == MQSS_PARAM_LOG_INT && p->min < 1))
      return bad(L, lo, "parameter '%s': need %smin <= max", name,
                 p->kind == MQSS_PARAM_LOG_INT ? "1 <= " : "");
  } else if (!strcmp(kind, "choice")) {
    p->kind = MQSS_PARAM_CHOICE;
    yaml_node_t *v = get(L, n, "values");
    if (!v)
      return bad(L, n, "choice parameter '%s' needs values: [...]", name);
    if ((st = get_list(L, v, &p->n_values, &p->values)))
      return st;
    if (p->n_values < 1)
      return bad(L, v, "choice parameter '%s' has no values", name);
  } else if (!strcmp(kind, "divisor")) {
    p->kind = MQSS_PARAM_DIVISOR;
    yaml_node_t *v = get(L, n, "values"), *dn = get(L, n, "dim");
    int64_t dim = 0;
    if (!v || !dn)
      return bad(L, n, "divisor parameter '%s' needs dim: D (loop, -1 the "
                 "innermost) and values: [candidate sizes]", name);
    if ((st = get_int(L, dn, &dim)) ||
        (st = get_list(L, v, &p->n_values, &p->values)))
      return st;
    if (dim < -LINALG_MAX_RANK || dim >= LINALG_MAX_RANK)
      return bad(L, dn, "divisor parameter '%s': dim %lld is out of range",
                 name, (long long)dim);
    p->dim = (int)dim;
    yaml_node_t *ln = get(L, n, "level");
    int64_t level = 0;
    if (ln && (st = get_int(L, ln, &level)))
      return st;
    if (level < 0 || level >= SCHEDULE_MAX_LEVELS)
      return bad(L, ln, "divisor parameter '%s': level %lld is out of range "
                 "0..%d (the tiling steps of the schedule, outermost first)",
                 name, (long long)level, SCHEDULE_MAX_LEVELS - 1);
    p->level = (int)level;
    for (int i = 0; i < p->n_values; i++) {
      char *end = NULL;
      long long t = strtoll(p->values[i], &end, 10);
      if (t < 1 || *end)
        return bad(L, v, "divisor parameter '%s': '%s' is not a positive "
                   "size", name, p->values[i]);
    }
    if (p->n_values < 1)
      return bad(L, v, "divisor parameter '%s' has no values", name);
  } else if (!strcmp(kind, "bool")) {
    p->kind = MQSS_PARAM_BOOL;
    p->min = 0;
    p->max = 1;
  } else {
    return bad(L, get(L, n, "kind"), "unknown parameter kind '%s'; use int, "
               "log-int, choice, bool or divisor", kind);
  }
  return MQSS_OK;
}

// Checks that every $SLOT of the template names a parameter and every
// parameter appears.
static mqss_status check_slots(loader *L, yaml_node_t *n, const mqss_action *a) {
  int used[MQSS_MAX_PARAMS] = {0};
  for (const char *s = strchr(a->pipeline, '$'); s; s = strchr(s + 1, '$')) {
    size_t len = strspn(s + 1, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                               "abcdefghijklmnopqrstuvwxyz0123456789_");
    int found = -1;
    for (int i = 0; i < a->n_params; i++)
      if (strlen(a->params[i].name) == len &&
          !strncmp(a->params[i].name, s + 1, len))
        found = i;
    if (found < 0)
      return bad(L, n, "action '%s': pipeline slot $%.*s has no parameter",
                 a->name, (int)len, s + 1);
    used[found] = 1;
  }
  for (int i = 0; i < a->n_params; i++)
    if (!used[i])
      return bad(L, n, "action '%s': parameter '%s' is not used as $%s in "
                 "the pipeline", a->name, a->params[i].name, a->params[i].name);
  return MQSS_OK;
}

// The choice parameters that steps with `flags` read: PERM (permutations)
// for interchange, F (factors) for unroll.
// The choice parameter `need` of a step, each value a permutation
// ("0,2,1") or a positive integer.
static mqss_status check_choice(loader *L, yaml_node_t *n,
                                const mqss_action *a, const char *need) {
  for (int i = 0; i < a->n_params; i++) {
    const mqss_param *p = &a->params[i];
    if (p->kind != MQSS_PARAM_CHOICE || strcmp(p->name, need))
      continue;
    for (int v = 0; v < p->n_values; v++) {
      int perm[LINALG_MAX_RANK];
      char *end;
      bool ok = *need == 'P'
                    ? schedule_perm_parse(p->values[v], perm) > 0
                    : strtol(p->values[v], &end, 10) >= 1 && !*end;
      if (!ok)
        return bad(L, n, "action '%s': %s value '%s' is not %s", a->name,
                   need, p->values[v], *need == 'P'
                       ? "a permutation such as \"0,2,1\""
                       : "a positive integer");
    }
    return MQSS_OK;
  }
  return bad(L, n, "action '%s' needs a choice parameter %s "
             "(docs/SCHEDULES.md)", a->name, need);
}

static mqss_status check_step_params(loader *L, yaml_node_t *n,
                                     const mqss_action *a, int flags) {
  mqss_status st = MQSS_OK;
  if (flags & STEP_PERMUTES)
    st = check_choice(L, n, a, "PERM");
  if (!st && (flags & STEP_IN_LOOP))
    st = check_choice(L, n, a, "F");
  if (!st && (flags & STEP_COUNTS))
    st = check_choice(L, n, a, "T0");
  if (!st && (flags & STEP_COUNTS))
    st = check_choice(L, n, a, "T1");
  return st;
}

// A schedule action: known steps, op kinds the steps can handle, and the
// pipeline field set to "schedule(step,...)" for listings and the hash.
static mqss_status load_schedule(loader *L, yaml_node_t *n, mqss_action *a) {
  yaml_node_t *sn = get(L, n, "schedule");
  mqss_status st = get_list(L, sn, &a->n_steps, &a->steps);
  if (st || (st = get_list(L, get(L, n, "ops"), &a->n_ops, &a->ops)))
    return st;
  if (a->n_steps < 1)
    return bad(L, sn, "action '%s': schedule needs at least one step",
               a->name);
  strbuf text = {0};
  int levels = 0; // tiling steps: the levels divisor parameters can size
  sb_printf(&text, "schedule(");
  for (int i = 0; i < a->n_steps; i++) {
    int flags = schedule_step_flags(a->steps[i]);
    if (flags < 0) {
      sb_free(&text);
      return bad(L, sn, "action '%s': unknown schedule step '%s'; see "
                 "docs/SCHEDULES.md", a->name, a->steps[i]);
    }
    for (int k = 0; k < a->n_ops && (flags & STEP_TILES); k++)
      if (schedule_tiled_rank(a, a->ops[k]) < 0) {
        sb_free(&text);
        return bad(L, sn, "action '%s': step '%s' cannot tile %s (only ops "
                   "of known rank, or with sizes of dim >= 0; "
                   "docs/SCHEDULES.md)", a->name, a->steps[i], a->ops[k]);
      }
    if ((st = check_step_params(L, n, a, flags))) {
      sb_free(&text);
      return st;
    }
    if ((flags & STEP_TARGETS) && !a->n_ops) {
      sb_free(&text);
      return bad(L, sn, "action '%s': step '%s' needs ops: [...]", a->name,
                 a->steps[i]);
    }
    sb_printf(&text, "%s%s", i ? "," : "", a->steps[i]);
    levels += (flags & STEP_TILES) != 0;
  }
  sb_printf(&text, ")");
  for (int k = 0; k < a->n_params; k++)
    if (a->params[k].level > 0 && a->params[k].level >= levels) {
      sb_free(&text);
      return bad(L, sn, "action '%s': parameter '%s' sizes tiling level %d, "
                 "but the schedule has %d tiling step(s)", a->name,
                 a->params[k].name, a->params[k].level, levels);
    }
  if (!(a->pipeline = keep(L->cat, text.data)))
    return fail(L->cat->session, MQSS_ERR_NOMEM, "out of memory");
  return MQSS_OK;
}

// "builtin.module(X)" -> "X" (malloc'd): an action's pipeline has no anchor.
static char *unwrap_module(const char *p) {
  static const char wrap[] = "builtin.module(";
  size_t n = strlen(p), w = sizeof wrap - 1;
  if (n > w && !strncmp(p, wrap, w) && p[n - 1] == ')')
    return strndup(p + w, n - w - 1);
  return strdup(p);
}

// The baselines file of the recipe actions: baselines.yaml next to the
// catalog, else the source tree's data/baselines.yaml (a copied catalog).
static void recipes_path(const char *catalog, strbuf *out) {
  const char *slash = strrchr(catalog, '/');
  sb_printf(out, "%.*sbaselines.yaml", slash ? (int)(slash - catalog + 1) : 0,
            catalog);
  if (out->data && access(out->data, R_OK) != 0) {
    char tree[4096];
    source_tree_path(tree, sizeof tree, __FILE__, "src/actions/catalog.c",
                     "data/baselines.yaml");
    out->len = 0;
    sb_printf(out, "%s", tree);
  }
}

// A recipe action runs the pipeline of a family of the baselines file
// (recipes_path). *pipeline gets the text as written there (what the hash
// sees, so that it does not depend on where the tree is); L->resolved[i]
// the same with schedule paths resolved (what runs).
static mqss_status load_recipe(loader *L, yaml_node_t *n, const char *name,
                               const char *family, int i,
                               const char **pipeline) {
  mqss_session *s = L->cat->session;
  if (!L->recipes) {
    recipes_path(L->path, &L->recipes_path);
    if (!L->recipes_path.data)
      return fail(s, MQSS_ERR_NOMEM, "out of memory");
    mqss_status st = mqss_baselines_load(s, L->recipes_path.data, &L->recipes);
    if (st == MQSS_ERR_NOMEM)
      return st;
    if (st != MQSS_OK) {
      char why[512];
      snprintf(why, sizeof why, "%s", mqss_errmsg(s));
      return bad(L, n, "action '%s': its recipe needs %s (%s); put "
                 "baselines.yaml next to the catalog", name,
                 L->recipes_path.data, why);
    }
  }
  const char *raw = baselines_raw_pipeline(L->recipes, family);
  if (!raw)
    return bad(L, n, "action '%s': family '%s' has no pipeline in %s; fix "
               "the name or add the family there", name, family,
               L->recipes_path.data);
  if (!*raw)
    return bad(L, n, "action '%s': family '%s' has the empty pipeline (the "
               "reference): the recipe would do nothing; remove the action",
               name, family);
  char *text = keep(L->cat, unwrap_module(raw));
  char *run = keep(L->cat,
                   unwrap_module(mqss_baselines_pipeline(L->recipes, family)));
  if (!text || !run)
    return fail(s, MQSS_ERR_NOMEM, "out of memory");
  *pipeline = text;
  L->resolved[i] = run;
  L->cat->recipe_raw[i] = text;
  return MQSS_OK;
}

static mqss_status load_action(loader *L, yaml_node_t *n, mqss_action *a) {
  static const char *const keys[] = {"name", "pipeline", "anchor", "requires",
                                     "forbids", "needs", "produces", "params",
                                     "stop", "schedule", "ops", "avoids",
                                     "recipe", "refuse_if", "refuse_while",
                                     "refuse_unless_divides", "kind_wide",
                                     NULL};
  if (n->type != YAML_MAPPING_NODE)
    return bad(L, n, "an action is a mapping {name, pipeline, anchor, ...}");
  mqss_status st = check_keys(L, n, keys, "an action");
  if (st)
    return st;
  a->line = (int)n->start_mark.line + 1;
  const char *name = scalar(get(L, n, "name"));
  if (!name || !*name)
    return bad(L, n, "action without a name");
  if (!(a->name = keep(L->cat, strdup(name))))
    return fail(L->cat->session, MQSS_ERR_NOMEM, "out of memory");
  const char *stop = scalar(get(L, n, "stop"));
  a->is_stop = stop && !strcmp(stop, "true");
  const char *pipeline = scalar(get(L, n, "pipeline"));
  const char *anchor = scalar(get(L, n, "anchor"));
  bool schedule = get(L, n, "schedule") != NULL;
  const char *recipe = scalar(get(L, n, "recipe"));
  if (recipe) {
    if (pipeline || schedule || a->is_stop || get(L, n, "params"))
      return bad(L, n, "action '%s': a recipe action runs its family's "
                 "baseline pipeline; remove pipeline, schedule, params and "
                 "stop", name);
    if (anchor && strcmp(anchor, "builtin.module"))
      return bad(L, get(L, n, "anchor"), "action '%s': a recipe runs on "
                 "builtin.module", name);
    mqss_status rs = load_recipe(L, get(L, n, "recipe"), name, recipe,
                                 (int)(a - L->cat->actions), &pipeline);
    if (rs != MQSS_OK)
      return rs;
    anchor = "builtin.module";
  }
  if (a->is_stop && (pipeline || get(L, n, "params")))
    return bad(L, n, "action '%s' is the stop action: it takes no pipeline "
               "or params; remove them, or drop 'stop: true'", name);
  if (schedule && (pipeline || a->is_stop))
    return bad(L, n, "action '%s': a schedule action has no pipeline and is "
               "not STOP", name);
  if (schedule && anchor && strcmp(anchor, "builtin.module"))
    return bad(L, get(L, n, "anchor"), "action '%s': a schedule runs on "
               "builtin.module (it can still be scoped to a function)", name);
  if (a->is_stop || schedule) {
    pipeline = "";
    anchor = "builtin.module";
  } else if (!pipeline || !*pipeline) {
    return bad(L, n, "action '%s' has no pipeline", name);
  } else if (get(L, n, "ops")) {
    return bad(L, get(L, n, "ops"), "action '%s': ops: is for schedule "
               "actions", name);
  }
  if (!anchor)
    anchor = "func.func";
  if (strcmp(anchor, "func.func") && strcmp(anchor, "builtin.module"))
    return bad(L, get(L, n, "anchor"), "action '%s': anchor must be func.func "
               "or builtin.module, not '%s'", name, anchor);
  if (!(a->pipeline = keep(L->cat, strdup(pipeline))) ||
      !(a->anchor = keep(L->cat, strdup(anchor))))
    return fail(L->cat->session, MQSS_ERR_NOMEM, "out of memory");
  if ((st = get_stages(L, get(L, n, "requires"), &a->requires_stages)) ||
      (st = get_stages(L, get(L, n, "forbids"), &a->forbids_stages)) ||
      (st = get_stages(L, get(L, n, "produces"), &a->produces_stages)) ||
      (st = get_list(L, get(L, n, "needs"), &a->n_needs, &a->needs)) ||
      (st = get_list(L, get(L, n, "avoids"), &a->n_avoids, &a->avoids)) ||
      (st = get_list(L, get(L, n, "refuse_while"), &a->n_refuse_while,
                     &a->refuse_while)))
    return st;
  const char *refuse_if = scalar(get(L, n, "refuse_if"));
  if ((refuse_if && *refuse_if) != (a->n_refuse_while > 0))
    return bad(L, n, "action '%s': refuse_if (a text of the pipeline) and "
               "refuse_while (op names) go together", name);
  if (refuse_if && !(a->refuse_if = keep(L->cat, strdup(refuse_if))))
    return fail(L->cat->session, MQSS_ERR_NOMEM, "out of memory");
  yaml_node_t *ps = get(L, n, "params");
  if (ps) {
    if (ps->type != YAML_SEQUENCE_NODE)
      return bad(L, ps, "params must be a list of {name, kind, ...}");
    int np = (int)(ps->data.sequence.items.top - ps->data.sequence.items.start);
    if (np > MQSS_MAX_PARAMS)
      return bad(L, ps, "action '%s' has %d parameters; at most %d", name, np,
                 MQSS_MAX_PARAMS);
    mqss_param *params = keep(L->cat, calloc((size_t)np + 1, sizeof *params));
    if (!params)
      return fail(L->cat->session, MQSS_ERR_NOMEM, "out of memory");
    for (int i = 0; i < np; i++) {
      yaml_node_t *pn =
          yaml_document_get_node(L->doc, ps->data.sequence.items.start[i]);
      if ((st = load_param(L, pn, &params[i])))
        return st;
    }
    a->params = params;
    a->n_params = np;
  }
  const char *divides = scalar(get(L, n, "refuse_unless_divides"));
  bool integer = false;
  for (int i = 0; divides && i < a->n_params; i++)
    integer |= !strcmp(a->params[i].name, divides) &&
               (a->params[i].kind == MQSS_PARAM_INT ||
                a->params[i].kind == MQSS_PARAM_LOG_INT);
  if (divides && !integer)
    return bad(L, get(L, n, "refuse_unless_divides"), "action '%s': "
               "refuse_unless_divides names '%s', which is not an integer "
               "parameter of it", name, divides);
  if (divides && !(a->refuse_unless_divides = keep(L->cat, strdup(divides))))
    return fail(L->cat->session, MQSS_ERR_NOMEM, "out of memory");
  for (int i = 0; i < a->n_params && !schedule; i++)
    if (a->params[i].kind == MQSS_PARAM_DIVISOR)
      return bad(L, ps, "action '%s': divisor parameters are for schedule "
                 "actions", name);
  const char *wide = scalar(get(L, n, "kind_wide"));
  a->kind_wide = wide && !strcmp(wide, "true");
  if (wide && (!schedule || (!a->kind_wide && strcmp(wide, "false"))))
    return bad(L, get(L, n, "kind_wide"), "action '%s': kind_wide is true "
               "or false, and for schedule actions only", name);
  return schedule ? load_schedule(L, n, a) : check_slots(L, n, a);
}

// ----------------------------------------------------------------------------
// hash

static void hash_bytes(uint64_t *h, const void *data, size_t len) {
  const unsigned char *p = data;
  for (size_t i = 0; i < len; i++) {
    *h ^= p[i];
    *h *= 0x100000001b3ULL;
  }
}

static void hash_str(uint64_t *h, const char *s) {
  hash_bytes(h, s, strlen(s) + 1); // the NUL separates fields
}

// Fills c->prefix_hash[i] with the hash of the first i actions, so that a
// policy trained on a catalog can be bound to a longer one that extends it.
// Schedule actions hash their steps (in the pipeline field), op kinds and
// divisor dimensions too; actions of other kinds hash as they always did.
// The stage rules, `avoids` and the refuse_ rules are not hashed: a
// precondition that only masks (or refuses) more states leaves a trained
// policy's outputs meaning the same.
static bool catalog_hash(mqss_catalog *c) {
  c->prefix_hash = calloc((size_t)c->n + 1, sizeof *c->prefix_hash);
  if (!c->prefix_hash)
    return false;
  uint64_t h = 0xcbf29ce484222325ULL;
  char num[64];
  c->prefix_hash[0] = h;
  for (int i = 0; i < c->n; i++) {
    const mqss_action *a = &c->actions[i];
    hash_str(&h, a->name);
    hash_str(&h, a->pipeline);
    hash_str(&h, a->anchor);
    snprintf(num, sizeof num, "%u/%u/%u/%d", a->requires_stages,
             a->forbids_stages, a->produces_stages, a->is_stop);
    hash_str(&h, num);
    for (int k = 0; k < a->n_needs; k++)
      hash_str(&h, a->needs[k]);
    for (int k = 0; k < a->n_params; k++) {
      const mqss_param *p = &a->params[k];
      snprintf(num, sizeof num, "%s:%d:%lld:%lld", p->name, (int)p->kind,
               (long long)p->min, (long long)p->max);
      hash_str(&h, num);
      for (int v = 0; v < p->n_values; v++)
        hash_str(&h, p->values[v]);
      if (p->kind == MQSS_PARAM_DIVISOR) {
        snprintf(num, sizeof num, "dim:%d", p->dim);
        hash_str(&h, num);
      }
      if (p->level) { // level 0 hashes as before levels existed
        snprintf(num, sizeof num, "level:%d", p->level);
        hash_str(&h, num);
      }
    }
    for (int k = 0; k < a->n_ops; k++)
      hash_str(&h, a->ops[k]);
    if (a->kind_wide) // per-op actions hash as before the key existed
      hash_str(&h, "kind_wide");
    c->prefix_hash[i + 1] = h;
  }
  c->hash = h;
  return true;
}

const uint64_t *catalog_prefix_hashes(const mqss_catalog *c) {
  return c->prefix_hash;
}

int catalog_prefix_with_hash(const mqss_catalog *c, uint64_t hash) {
  for (int n = c->n; n >= 1; n--)
    if (c->prefix_hash[n] == hash)
      return n;
  return -1;
}

int catalog_recipe_action(const mqss_catalog *c, const char *pipeline) {
  char *inner = pipeline ? unwrap_module(pipeline) : NULL;
  int found = -1;
  for (int i = 0; c && inner && found < 0 && i < c->n; i++)
    if (c->recipe_raw[i] && !strcmp(c->recipe_raw[i], inner))
      found = i;
  free(inner);
  return found;
}

bool catalog_is_recipe(const mqss_catalog *c, int i) {
  return c && i >= 0 && i < c->n && c->recipe_raw[i];
}

void catalog_truncate(mqss_catalog *c, int n) {
  if (n >= 1 && n < c->n) {
    c->n = n;
    c->hash = c->prefix_hash[n];
  }
}

// ----------------------------------------------------------------------------
// load

static mqss_status load_document(loader *L, yaml_node_t *root) {
  mqss_catalog *c = L->cat;
  if (!root || root->type != YAML_MAPPING_NODE)
    return bad(L, root, "a catalog is a mapping with 'version' and 'actions'");
  static const char *const keys[] = {"version", "actions", NULL};
  mqss_status st = check_keys(L, root, keys, "the catalog");
  if (st)
    return st;
  const char *version = scalar(get(L, root, "version"));
  if (!version || strcmp(version, "1"))
    return bad(L, root, "unsupported catalog version '%s'; this mqss reads "
               "version: 1", version ? version : "(none)");
  yaml_node_t *acts = get(L, root, "actions");
  if (!acts || acts->type != YAML_SEQUENCE_NODE)
    return bad(L, acts ? acts : root, "'actions' must be a list of actions");
  int n = (int)(acts->data.sequence.items.top - acts->data.sequence.items.start);
  if (n < 1)
    return bad(L, acts, "the catalog has no actions");
  c->actions = calloc((size_t)n, sizeof *c->actions);
  L->resolved = calloc((size_t)n, sizeof *L->resolved);
  c->recipe_raw = calloc((size_t)n, sizeof *c->recipe_raw);
  if (!c->actions || !L->resolved || !c->recipe_raw)
    return fail(c->session, MQSS_ERR_NOMEM, "out of memory");
  c->n = n;
  c->stop = -1;
  for (int i = 0; i < n; i++) {
    yaml_node_t *an =
        yaml_document_get_node(L->doc, acts->data.sequence.items.start[i]);
    if ((st = load_action(L, an, &c->actions[i])))
      return st;
    for (int j = 0; j < i; j++)
      if (!strcmp(c->actions[j].name, c->actions[i].name))
        return bad(L, an, "duplicate action name '%s' (first at line %d)",
                   c->actions[i].name, c->actions[j].line);
    if (c->actions[i].is_stop) {
      if (c->stop >= 0)
        return bad(L, an, "more than one STOP action");
      c->stop = i;
    } else if (!c->actions[i].n_steps) {
      strbuf why = {0};
      if (!catalog_action_parses(c, i, &why)) {
        yaml_node_t *pn = get(L, an, "pipeline");
        st = bad(L, pn ? pn : an, "action '%s': %s; fix the pipeline text "
                 "(pass names and option types: mlir-opt-19 --help)",
                 c->actions[i].name, why.data);
        sb_free(&why);
        return st;
      }
      sb_free(&why);
    }
  }
  if (!catalog_hash(c))
    return fail(c->session, MQSS_ERR_NOMEM, "out of memory");
  for (int i = 0; i < n; i++)
    if (L->resolved[i])
      c->actions[i].pipeline = L->resolved[i];
  return MQSS_OK;
}

mqss_status mqss_catalog_load(mqss_session *s, const char *path,
                              mqss_catalog **out) {
  if (!s || !out)
    return s ? fail(s, MQSS_ERR_INVALID_ARG, "catalog: NULL argument")
             : MQSS_ERR_INVALID_ARG;
  *out = NULL;
  if (!path)
    path = mqss_catalog_default_path();
  diag_reset(s, path);
  yaml_document_t doc;
  mqss_status st = yaml_load_file(s, path, "catalog ",
                                  "(set MQSS_CATALOG or pass a path)", &doc);
  if (st != MQSS_OK)
    return st;
  mqss_catalog *c = calloc(1, sizeof *c);
  if (!c) {
    yaml_document_delete(&doc);
    return fail(s, MQSS_ERR_NOMEM, "out of memory");
  }
  c->session = s;
  loader L = {c, &doc, path, NULL, {0}, NULL};
  st = load_document(&L, yaml_document_get_root_node(&doc));
  yaml_document_delete(&doc);
  mqss_baselines_destroy(L.recipes);
  sb_free(&L.recipes_path);
  free(L.resolved);
  if (st != MQSS_OK) {
    mqss_catalog_destroy(c);
    return st;
  }
  *out = c;
  return MQSS_OK;
}

void mqss_catalog_destroy(mqss_catalog *c) {
  if (!c)
    return;
  for (int i = 0; i < c->n_allocs; i++)
    free(c->allocs[i]);
  free(c->allocs);
  free(c->actions);
  free(c->prefix_hash);
  free(c->recipe_raw);
  free(c);
}

// ----------------------------------------------------------------------------
// queries

int mqss_catalog_size(const mqss_catalog *c) { return c ? c->n : 0; }

const mqss_action *mqss_catalog_action(const mqss_catalog *c, int i) {
  return c && i >= 0 && i < c->n ? &c->actions[i] : NULL;
}

int mqss_catalog_find(const mqss_catalog *c, const char *name) {
  for (int i = 0; c && name && i < c->n; i++)
    if (!strcmp(c->actions[i].name, name))
      return i;
  return -1;
}

int mqss_catalog_stop(const mqss_catalog *c) { return c ? c->stop : -1; }

uint64_t mqss_catalog_hash(const mqss_catalog *c) { return c ? c->hash : 0; }

mqss_session *catalog_session(const mqss_catalog *c) { return c->session; }
