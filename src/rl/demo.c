// Pipeline text -> catalog decisions (demo.h). A pipeline is split at its
// top-level commas; each piece, anchored as the catalog anchors its actions
// ("func.func(P)" or "builtin.module(P)"), must be the text some decision
// prints (a piece no decision prints may begin a module action of several
// pieces, such as omp-parallel). A schedule action prints a preload of its
// transform script and an interpreter call: the pair is matched on the
// script, whose file the pipeline names (the entry point is the file's
// name). Parameters are found by coordinate ascent towards the wanted
// text's tokens; only a decision that prints the text matches, and for a
// schedule, one whose script is the file's (an earlier build's file may
// lack lines this build adds, such as annotations: every line of the file
// must be in the decision's script, in order).
#include "rl/demo.h"
#include "actions/linalg_ops.h"
#include "actions/schedule.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SWEEPS = 4 }; // rounds of coordinate ascent (match_action)

typedef struct {
  const mqss_catalog *c;
  demo *dm;
  const char *anchor;  // of the pieces being split
  const char *end;     // of the module's pieces
  int skip;            // pieces an action of several pieces has taken
  char library[4096];  // directory of the last preloaded schedule ("" none)
} parser;

// Splits `text` at the commas outside () and {}; calls back each piece.
static int split_top(const char *text, size_t len,
                     int (*piece)(void *ctx, const char *p, size_t n),
                     void *ctx) {
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= len; i++) {
    char ch = i < len ? text[i] : ',';
    depth += (ch == '(' || ch == '{') - (ch == ')' || ch == '}');
    if (ch == ',' && depth == 0) {
      if (i > start && piece(ctx, text + start, i - start) != 0)
        return -1;
      start = i + 1;
    }
  }
  return 0;
}

static bool has_wrapper(const char *p, size_t n, const char *w) {
  size_t k = strlen(w);
  return n > k && !strncmp(p, w, k) && p[n - 1] == ')';
}

// ----------------------------------------------------------------------------
// schedule scripts

// Tokens of line a and line b that agree, position by position.
static int line_score(const char *a, const char *ae, const char *b,
                      const char *be) {
  int score = 0;
  for (;;) {
    while (a < ae && !isalnum((unsigned char)*a) && *a != '_')
      a++;
    while (b < be && !isalnum((unsigned char)*b) && *b != '_')
      b++;
    if (a == ae || b == be)
      return score;
    const char *as = a, *bs = b;
    while (a < ae && (isalnum((unsigned char)*a) || *a == '_'))
      a++;
    while (b < be && (isalnum((unsigned char)*b) || *b == '_'))
      b++;
    score += a - as == b - bs && !memcmp(as, bs, (size_t)(a - as));
  }
}

static const char *line_end(const char *p) {
  const char *e = strchr(p, '\n');
  return e ? e : p + strlen(p);
}

// How close script `got` is to `want`: for each line of want, the tokens
// that agree with the closest line of got.
static int script_score(const char *got, const char *want) {
  int score = 0;
  for (const char *w = want; *w;) {
    const char *we = line_end(w);
    int best = 0;
    for (const char *g = got; *g;) {
      const char *ge = line_end(g);
      int sc = line_score(g, ge, w, we);
      best = sc > best ? sc : best;
      g = *ge ? ge + 1 : ge;
    }
    score += best;
    w = *we ? we + 1 : we;
  }
  return score;
}

// True when every line of `want` is a line of `got`, in order: the script
// of this build may add lines (such as annotations) to what an earlier
// build wrote for the same decision, but must not change or drop any.
static bool script_covers(const char *got, const char *want) {
  const char *g = got;
  for (const char *w = want; *w;) {
    const char *we = line_end(w);
    size_t n = (size_t)(we - w);
    for (;;) {
      if (!*g)
        return false;
      const char *ge = line_end(g);
      bool same = (size_t)(ge - g) == n && !memcmp(g, w, n);
      g = *ge ? ge + 1 : ge;
      if (same)
        break;
    }
    w = *we ? we + 1 : we;
  }
  return true;
}

// 1 when decision d prints `want`, else 0; -1 when out of memory. *score
// gets the closeness. A pass action prints its anchored pipeline text, which
// must be want's; a schedule prints its script, which must cover want's
// apart from the entry point's name (a hash of the body).
static int try_decision(const mqss_catalog *c, const mqss_decision *d,
                        const char *want, int *score) {
  const mqss_action *a = mqss_catalog_action(c, d->action);
  char entry[32];
  char *got = a->n_steps ? schedule_script(a, d, entry)
                         : mqss_decision_pipeline(c, d);
  if (!got)
    return -1;
  *score = script_score(got, want);
  int same = !strcmp(got, want);
  const char *wn = strstr(want, "transform.named_sequence @");
  char *gn = strstr(got, "transform.named_sequence @");
  size_t k = strlen("transform.named_sequence @mqss_0123456789abcdef");
  if (!same && a->n_steps && wn && gn && strlen(wn) > k && strlen(gn) > k) {
    memcpy(gn, wn, k); // the same length: "mqss_" and 16 hex digits
    same = script_covers(got, want);
  }
  free(got);
  return same;
}

// Values of parameter p to try: the grid, and for an integer range, the u of
// every number in want (a grid may miss the exact value, e.g. 24385 bytes).
static int candidates(const mqss_param *p, const char *want, float *u,
                      int max) {
  int n = 0;
  for (int k = 0; k < PARAM_GRID && n < max; k++) {
    float x = -1.0f + 2.0f * (float)k / (PARAM_GRID - 1);
    if (k == 0 || mqss_param_map(p, x) != mqss_param_map(p, u[n - 1]))
      u[n++] = x;
  }
  if (p->kind != MQSS_PARAM_INT && p->kind != MQSS_PARAM_LOG_INT)
    return n;
  for (const char *q = want; *q && n < max; q++)
    if (isdigit((unsigned char)*q) && (q == want || !isalnum((unsigned char)q[-1]))) {
      float x = param_u_for(p, strtoll(q, NULL, 10));
      if (mqss_param_map(p, x) == strtoll(q, NULL, 10))
        u[n++] = x;
      while (isdigit((unsigned char)q[1]))
        q++;
    }
  return n;
}

// The decision of action `index` that prints `want`: coordinate ascent over
// its parameters towards want's tokens, from the middle of every range.
static bool match_action(const mqss_catalog *c, int index, const char *want,
                         mqss_decision *out) {
  const mqss_action *a = mqss_catalog_action(c, index);
  mqss_decision d = {.action = index};
  int best = 0, r = try_decision(c, &d, want, &best);
  for (int sweep = 0; r == 0 && sweep < SWEEPS; sweep++) {
    bool moved = false;
    for (int p = 0; r == 0 && p < a->n_params; p++) {
      float keep = d.u[p], u[2 * PARAM_GRID];
      int n = candidates(&a->params[p], want, u, 2 * PARAM_GRID);
      for (int k = 0; r == 0 && k < n; k++) {
        d.u[p] = u[k];
        int score;
        r = try_decision(c, &d, want, &score);
        if (r == 0 && score > best) {
          best = score;
          keep = u[k];
          moved = true;
        }
      }
      if (r == 0)
        d.u[p] = keep;
    }
    if (!moved)
      break;
  }
  if (r != 1)
    return false;
  for (int p = 0; p < a->n_params; p++)
    d.u[p] = param_grid_middle(&a->params[p], d.u[p]);
  *out = d;
  return true;
}

// The pass action printing `want` ("anchor(pass{...})"): among the actions
// of that anchor whose template starts with the same pass name.
static bool match_text(const mqss_catalog *c, const char *anchor,
                       const char *want, mqss_decision *out) {
  const char *pass = want + strlen(anchor) + 1;
  size_t n = strcspn(pass, "{(),");
  for (int a = 0; a < mqss_catalog_size(c); a++) {
    const mqss_action *act = mqss_catalog_action(c, a);
    if (!act->is_stop && !act->n_steps && !strcmp(act->anchor, anchor) &&
        !strncmp(act->pipeline, pass, n) &&
        strchr("{(,", act->pipeline[n]) && // or its end, '\0'
        match_action(c, a, want, out))
      return true;
  }
  return false;
}

// The decision running the schedule of entry point `entry` from the
// library directory `dir`: the file's "catalog action" line names the action.
static bool match_schedule(const mqss_catalog *c, const char *dir,
                           const char *entry, size_t n, mqss_decision *out) {
  strbuf path = {0}, text = {0};
  sb_printf(&path, "%s/%.*s.mlir", dir, (int)n, entry);
  bool ok = path.data && sb_read_file(&text, path.data);
  const char *key = "// catalog action '";
  const char *name = ok ? strstr(text.data, key) : NULL;
  const char *end = name ? strchr(name + strlen(key), '\'') : NULL;
  if (end) {
    name += strlen(key);
    char action[256];
    snprintf(action, sizeof action, "%.*s", (int)(end - name), name);
    int a = mqss_catalog_find(c, action);
    const mqss_action *act = mqss_catalog_action(c, a);
    ok = act && act->n_steps > 0 && match_action(c, a, text.data, out);
  } else {
    ok = false;
  }
  sb_free(&path);
  sb_free(&text);
  return ok;
}

// ----------------------------------------------------------------------------
// pieces

static int push(parser *ps, const mqss_decision *d) {
  if (ps->dm->n == DEMO_MAX)
    return -1;
  ps->dm->d[ps->dm->n++] = *d;
  return 0;
}

static int add_step(void *ctx, const char *p, size_t n) {
  parser *ps = ctx;
  strbuf want = {0};
  sb_printf(&want, "%s(%.*s)", ps->anchor, (int)n, p);
  mqss_decision d;
  bool ok = want.data && match_text(ps->c, ps->anchor, want.data, &d);
  sb_free(&want);
  return ok ? push(ps, &d) : -1;
}

// A module-level schedule piece: the preload remembers its directory, the
// interpreter call becomes the decision. 1 when p is neither.
static int add_schedule(parser *ps, const char *p, size_t n) {
  static const char preload[] = "transform-preload-library{transform-library-paths=";
  static const char interp[] = "transform-interpreter{entry-point=";
  if (n > sizeof preload && !strncmp(p, preload, sizeof preload - 1)) {
    const char *path = p + sizeof preload - 1, *slash = NULL;
    for (const char *q = path; q < p + n - 1; q++)
      slash = *q == '/' ? q : slash;
    if (!slash || (size_t)(slash - path) >= sizeof ps->library)
      return -1;
    snprintf(ps->library, sizeof ps->library, "%.*s", (int)(slash - path), path);
    return 0;
  }
  if (n > sizeof interp && !strncmp(p, interp, sizeof interp - 1) &&
      p[n - 1] == '}') {
    mqss_decision d;
    const char *entry = p + sizeof interp - 1;
    if (!ps->library[0] ||
        !match_schedule(ps->c, ps->library, entry, (size_t)(p + n - 1 - entry), &d))
      return -1;
    return push(ps, &d);
  }
  return 1;
}

static int count_piece(void *ctx, const char *p, size_t n) {
  (void)p;
  (void)n;
  ++*(int *)ctx;
  return 0;
}

// Top-level pieces in a pipeline text.
static int count_pieces(const char *text) {
  int n = 0;
  split_top(text, strlen(text), count_piece, &n);
  return n;
}

// A module action whose text is several top-level pieces (omp-parallel:
// func.func(...),convert-scf-to-openmp,func.func(...)) starting at p, as
// one decision: the number of pieces it takes, 0 when none matches.
static int add_several(parser *ps, const char *p) {
  for (int a = 0; a < mqss_catalog_size(ps->c); a++) {
    const mqss_action *act = mqss_catalog_action(ps->c, a);
    if (act->is_stop || act->n_steps || strcmp(act->anchor, "builtin.module"))
      continue;
    int pieces = count_pieces(act->pipeline);
    size_t k = strcspn(act->pipeline, "$");
    if (pieces < 2 || act->pipeline[k] || (size_t)(ps->end - p) < k ||
        strncmp(p, act->pipeline, k) || (p + k != ps->end && p[k] != ','))
      continue;
    strbuf want = {0};
    sb_printf(&want, "builtin.module(%s)", act->pipeline);
    mqss_decision d;
    bool ok = want.data && match_action(ps->c, a, want.data, &d);
    sb_free(&want);
    if (ok)
      return push(ps, &d) ? -1 : pieces;
  }
  return 0;
}

// One piece as the decisions it prints; a piece that no decision prints
// may be the start of a module action of several pieces.
static int add_piece(void *ctx, const char *p, size_t n) {
  parser *ps = ctx;
  if (ps->skip > 0) {
    ps->skip--;
    return 0;
  }
  int kept = ps->dm->n, r;
  const char *fn = "func.func(";
  if (has_wrapper(p, n, fn)) {
    ps->anchor = "func.func";
    r = split_top(p + strlen(fn), n - strlen(fn) - 1, add_step, ps);
  } else if ((r = add_schedule(ps, p, n)) > 0) {
    ps->anchor = "builtin.module";
    r = add_step(ps, p, n);
  }
  if (r == 0)
    return 0;
  ps->dm->n = kept;
  int several = add_several(ps, p);
  ps->skip = several > 0 ? several - 1 : 0;
  return several > 0 ? 0 : -1;
}

int demo_of(const mqss_catalog *c, const char *pipeline, demo *dm) {
  memset(dm, 0, sizeof *dm);
  parser ps = {.c = c, .dm = dm};
  const char *wrap = "builtin.module(";
  size_t n = strlen(pipeline);
  ps.end = pipeline + n;
  if (has_wrapper(pipeline, n, wrap)) {
    ps.end--;
    return split_top(pipeline + strlen(wrap), n - strlen(wrap) - 1, add_piece,
                     &ps);
  }
  return split_top(pipeline, n, add_piece, &ps);
}

// ----------------------------------------------------------------------------
// pruning

// Each repeat a per-op seed step gets (demo_prune), listed as a decision of
// its own, as search winners list theirs; the repeats end when dm is full.
static bool repeat_fits(void *ctx, const mqss_decision *r) {
  (void)r;
  return ((demo *)ctx)->n < DEMO_MAX;
}

static void repeat_kept(void *ctx, const mqss_decision *r, bool kept) {
  demo *dm = ctx;
  if (kept)
    dm->d[dm->n++] = *r;
}

mqss_status demo_prune(mqss_session *s, const mqss_catalog *c,
                       const char *path, demo *dm, int *adapted) {
  mqss_module *m = NULL;
  if (mqss_module_parse_file(s, path, &m) != MQSS_OK)
    return MQSS_ERR_PARSE; // the session names the file and the place
  linalg_tag_once(mlirModuleGetOperation(m->mod)); // as the environment does
  demo kept = {.n = 0};
  uint64_t before = module_fingerprint(m);
  mqss_status st = MQSS_OK;
  for (int i = 0; st == MQSS_OK && i < dm->n; i++) {
    // A kind-wide step of a family recipe with none of its ops here: the
    // mask blocks it, and in the recipe it matches nothing, so it is pruned.
    if (decision_matches_nothing(m, c, &dm->d[i]))
      continue;
    mqss_decision d = dm->d[i];
    if (adapted && !decision_fits(m, c, &d, NULL, 0) &&
        decision_fit_sizes(m, c, &d))
      (*adapted)++;
    // A kind-wide step (a recipe's) whose sizes do not fit every op of its
    // kinds here: the policy's form of it, the op the per-op rule picks,
    // then its repeats on the others the sizes fit.
    bool per_op = !d.op && !decision_fits(m, c, &d, NULL, 0) &&
                  (d.op = decision_focus(m, c, &d)) != 0;
    if (per_op && adapted && !decision_fits(m, c, &d, NULL, 0) &&
        decision_fit_sizes(m, c, &d))
      (*adapted)++;
    if (mqss_decision_apply(m, c, &d) != MQSS_OK) {
      st = MQSS_ERR_INVALID_ARG;
      break;
    }
    uint64_t after = module_fingerprint(m);
    if (after != before && kept.n == DEMO_MAX) {
      st = fail(s, MQSS_ERR_INVALID_ARG, "%s: the demonstration needs more "
                "than %d decisions with its repeats", path, DEMO_MAX);
      break;
    }
    if (after != before)
      kept.d[kept.n++] = d;
    repeat_hooks h = {&kept, repeat_fits, repeat_kept};
    if (per_op && after != before &&
        decision_apply_repeats(&m, &after, c, &d, false, &h) < 0)
      st = fail(s, MQSS_ERR_NOMEM, "out of memory");
    before = after;
  }
  mqss_module_destroy(m);
  if (st == MQSS_OK)
    *dm = kept;
  return st;
}
