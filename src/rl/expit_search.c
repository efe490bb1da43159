// The search phase of an expert-iteration round (see expit_search.h): the
// round's modules (a rotating subset with expit.modules_per_round, of the
// families expit.families names), one policy-guided search per module, and
// the record of each outcome in ROUND/search_progress.tsv, appended and
// fsynced as soon as it is known:
//   S <tab> evaluations <tab> winners.tsv line of the module after it <tab> #fnv
//   K <tab> 0 <tab> module <tab> #fnv          (its reference did not measure)
// where #fnv is FNV-1a 64 (hex) of the bytes before it. A resumed phase keeps
// the records that are complete (newline-terminated) and whose checksum and
// fields check, rewrites the file with only those, and searches the rest.
// The winners and figures are folded from the records in module order, the
// same way whether a record was just written or read back.
#include "rl/expit_search.h"
#include "rl/expit_seed.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

// ----------------------------------------------------------------------------
// files

mqss_status expit_write_atomic(mqss_session *s, const char *path,
                               const char *text) {
  char tmp[4200];
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  FILE *f = fopen(tmp, "w");
  bool ok = f && fputs(text, f) >= 0 && fflush(f) == 0 && fsync(fileno(f)) == 0;
  ok = f && fclose(f) == 0 && ok;
  if (!ok || rename(tmp, path) != 0)
    return fail(s, MQSS_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
  return MQSS_OK;
}

// Appends "i, speedup, n, decisions, pipeline" of w (n >= 0), no newline; a
// decision is "action:u0,u1,..." (hex floats, exact), "action@op:..." when it
// addresses one op, "action@op+:..." when it also peels (mqss_decision.peel).
static void format_winner(strbuf *sb, int i, const expit_winner *w) {
  sb_printf(sb, "%d\t%.17g\t%d", i, w->speedup, w->n);
  for (int k = 0; k < w->n; k++) {
    sb_printf(sb, "\t%d", w->d[k].action);
    if (w->d[k].op)
      sb_printf(sb, "@%lld%s", (long long)w->d[k].op, w->d[k].peel ? "+" : "");
    sb_printf(sb, ":");
    for (int p = 0; p < MQSS_MAX_PARAMS; p++)
      sb_printf(sb, "%s%a", p ? "," : "", (double)w->d[k].u[p]);
  }
  sb_printf(sb, "\t%s", w->pipeline);
}

// Parses what format_winner wrote (a NUL-terminated line, no newline) into
// *i and *w; false when a field is missing, malformed or out of range.
static bool parse_winner(const char *p, int n_modules, int *i, expit_winner *w) {
  char *end;
  long idx = strtol(p, &end, 10);
  if (end == p || *end != '\t' || idx < 0 || idx >= n_modules)
    return false;
  p = end + 1;
  double sp = strtod(p, &end);
  if (end == p || *end != '\t' || !(sp > 0) || !isfinite(sp))
    return false;
  p = end + 1;
  long k = strtol(p, &end, 10);
  if (end == p || *end != '\t' || k < 0 || k > EXPIT_MAX_DECISIONS)
    return false;
  *w = (expit_winner){.n = (int)k, .speedup = sp};
  for (int d = 0; d < k; d++) {
    p = end + 1;
    long a = strtol(p, &end, 10);
    if (end == p || a < 0)
      return false;
    w->d[d].action = (int)a;
    if (*end == '@') { // the decision addresses one op
      p = end + 1;
      long long op = strtoll(p, &end, 10);
      if (end == p || op <= 0)
        return false;
      w->d[d].op = op;
      if (*end == '+') // its partial tiles peeled
        w->d[d].peel = 1, end++;
    }
    if (*end != ':')
      return false;
    for (int q = 0; q < MQSS_MAX_PARAMS; q++) {
      p = end + 1;
      w->d[d].u[q] = strtof(p, &end);
      if (end == p || *end != (q + 1 < MQSS_MAX_PARAMS ? ',' : '\t'))
        return false;
    }
  }
  if (strlen(end + 1) >= sizeof w->pipeline)
    return false;
  snprintf(w->pipeline, sizeof w->pipeline, "%s", end + 1);
  *i = (int)idx;
  return true;
}

mqss_status expit_winners_save(mqss_session *s, const char *path,
                               const expit_winner *w, int n) {
  strbuf sb = {0};
  for (int i = 0; i < n; i++) {
    if (w[i].n < 0)
      continue;
    format_winner(&sb, i, &w[i]);
    sb_printf(&sb, "\n");
  }
  mqss_status st = expit_write_atomic(s, path, sb.data ? sb.data : "");
  sb_free(&sb);
  return st;
}

mqss_status expit_winners_load(mqss_session *s, const char *path,
                               expit_winner *w, int n) {
  strbuf text = {0};
  if (!sb_read_file(&text, path)) {
    sb_free(&text);
    return fail(s, MQSS_ERR_IO, "cannot read '%s'", path);
  }
  mqss_status st = MQSS_OK;
  int line_no = 1;
  expit_winner one;
  for (char *line = text.data, *next; line && *line; line = next, line_no++) {
    next = strchr(line, '\n');
    if (next)
      *next++ = '\0';
    int i;
    if (!parse_winner(line, n, &i, &one)) {
      st = fail(s, MQSS_ERR_PARSE, "%s:%d: not a winner of one of the %d "
                "modules (index, speedup, decisions, pipeline); remove the "
                "round's directory to run it again", path, line_no, n);
      break;
    }
    w[i] = one;
  }
  sb_free(&text);
  return st;
}

// ----------------------------------------------------------------------------
// the round's modules

static int cmp_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

int expit_round_modules(int n, int per_round, uint64_t seed, int round,
                        int *out) {
  for (int i = 0; i < n; i++)
    out[i] = i;
  if (per_round <= 0 || per_round >= n)
    return n;
  // Fisher-Yates with the run's own stream, the same in every round
  nn_rng rng;
  nn_rng_seed(&rng, seed * 0x9e3779b97f4a7c15ULL + 0x5eed);
  for (int i = n - 1; i > 0; i--) {
    int j = (int)(nn_rng_u64(&rng) % (uint64_t)(i + 1));
    int t = out[i];
    out[i] = out[j];
    out[j] = t;
  }
  int *window = malloc((size_t)per_round * sizeof *window);
  if (!window)
    return -1;
  long long first = (long long)round * per_round % n;
  for (int k = 0; k < per_round; k++)
    window[k] = out[(first + k) % n];
  memcpy(out, window, (size_t)per_round * sizeof *out);
  free(window);
  qsort(out, (size_t)per_round, sizeof *out, cmp_int);
  return per_round;
}

// ----------------------------------------------------------------------------
// the records

enum { REC_NONE = 0, REC_SEARCHED = 'S', REC_SKIPPED = 'K' };

typedef struct {
  char kind;           // REC_*
  int evaluations;
  expit_winner w;      // REC_SEARCHED: the module's winner after its search
} record;

// Appends the record of module i, with its checksum and newline, to sb.
static void format_record(strbuf *sb, int i, const record *r) {
  size_t start = sb->len;
  sb_printf(sb, "%c\t%d\t", r->kind, r->evaluations);
  if (r->kind == REC_SEARCHED)
    format_winner(sb, i, &r->w);
  else
    sb_printf(sb, "%d", i);
  uint64_t h = fnv1a64(FNV1A64_INIT, sb->data + start, sb->len - start);
  sb_printf(sb, "\t#%016llx\n", (unsigned long long)h);
}

// Parses one newline-stripped line; false when it does not check.
static bool parse_record(char *line, int n_modules, int *i, record *r) {
  char *tab = strrchr(line, '\t');
  if (!tab || tab[1] != '#' || strlen(tab + 2) != 16)
    return false;
  char *end;
  unsigned long long sum = strtoull(tab + 2, &end, 16);
  if (*end || fnv1a64(FNV1A64_INIT, line, (size_t)(tab - line)) != sum)
    return false;
  *tab = '\0';
  r->kind = line[0];
  if ((r->kind != REC_SEARCHED && r->kind != REC_SKIPPED) || line[1] != '\t')
    return false;
  long ev = strtol(line + 2, &end, 10);
  if (end == line + 2 || *end != '\t' || ev < 0 || ev > 1 << 30)
    return false;
  r->evaluations = (int)ev;
  if (r->kind == REC_SEARCHED)
    return parse_winner(end + 1, n_modules, i, &r->w);
  char *p = end + 1;
  long idx = strtol(p, &end, 10);
  if (end == p || *end || idx < 0 || idx >= n_modules)
    return false;
  *i = (int)idx;
  return true;
}

// Reads the records of `path` (missing: none) into rec (n_modules slots,
// kind REC_NONE where none) for the modules `wanted` marks; counts the lines
// dropped (damaged, torn, or naming a module the round does not search),
// then rewrites the file with only the kept records so that appends start
// on a line of their own.
static mqss_status read_records(mqss_session *s, const char *path,
                                int n_modules, const bool *wanted, record *rec,
                                int *kept, int *dropped) {
  *kept = *dropped = 0;
  strbuf text = {0}, clean = {0};
  if (access(path, F_OK) != 0)
    return MQSS_OK;
  if (!sb_read_file(&text, path)) {
    sb_free(&text);
    return fail(s, MQSS_ERR_IO, "cannot read '%s'", path);
  }
  for (char *line = text.data, *next; line && *line; line = next) {
    next = strchr(line, '\n');
    if (!next) { // torn by a kill in the middle of the append
      (*dropped)++;
      break;
    }
    *next++ = '\0';
    int i;
    record r;
    if (!parse_record(line, n_modules, &i, &r) || !wanted[i] ||
        rec[i].kind != REC_NONE) {
      (*dropped)++;
      continue;
    }
    rec[i] = r;
    format_record(&clean, i, &r);
    (*kept)++;
  }
  mqss_status st = MQSS_OK;
  if (*dropped)
    st = expit_write_atomic(s, path, clean.data ? clean.data : "");
  sb_free(&text);
  sb_free(&clean);
  return st;
}

static mqss_status append_record(mqss_session *s, const char *path, int i,
                                 const record *r) {
  strbuf sb = {0};
  format_record(&sb, i, r);
  FILE *f = fopen(path, "a");
  bool ok = f && fwrite(sb.data, 1, sb.len, f) == sb.len && fflush(f) == 0 &&
            fsync(fileno(f)) == 0;
  ok = f && fclose(f) == 0 && ok;
  sb_free(&sb);
  if (!ok)
    return fail(s, MQSS_ERR_IO, "cannot append to '%s': %s", path,
                strerror(errno));
  return MQSS_OK;
}

// ----------------------------------------------------------------------------
// the phase

// With expit.compile_limit L, the search's compile-time limit on module m
// (mqss_search_options.max_compile, a multiple of its time without
// passes): 1 + L times its seed's compile time, from the fastest of three
// compiles of each; 1 + L when it has no seed or its seed does not compile
// (0, none, without L). The confirmation (expit_confirms) checks the
// winner's again, paired.
static mqss_status search_compile_limit(const expit_search_in *in,
                                        mqss_module *m, const demo *seed,
                                        double *max_compile) {
  double limit = in->cfg->expit_compile_limit;
  *max_compile = limit > 0 ? 1.0 + limit : 0;
  if (limit <= 0 || !seed)
    return MQSS_OK;
  char *pipeline = decisions_join(in->ec->catalog, seed->d, seed->n);
  if (!pipeline)
    return fail(in->s, MQSS_ERR_NOMEM, "out of memory");
  mqss_measure_options mo = *in->measure;
  mo.pipeline = pipeline;
  mo.compile_only = 1;
  mo.repeat = 3;
  mqss_measure_vs_result vs;
  mqss_status st = mqss_measure_vs(m, &mo, "", &vs);
  if (st == MQSS_OK && vs.a.status == MQSS_MEASURE_OK &&
      vs.b.status == MQSS_MEASURE_OK && vs.b.compile_ms > 0)
    *max_compile *= vs.a.compile_ms / vs.b.compile_ms;
  free(pipeline);
  return st;
}

// Searches module i (its earlier winner *w, n = -1 when none) into *r; sets
// out's compile-time limit, evaluations over it, and whether a winner
// replaced *w. With the limit, an earlier winner the search measured over it
// yields to any confirmed winner, however much faster it was.
static mqss_status search_module(const expit_search_in *in, int i,
                                 const expit_winner *w, record *r,
                                 expit_searched *out) {
  const train_config *cfg = in->cfg;
  mqss_search_options so;
  mqss_search_options_init(&so);
  so.method = MQSS_SEARCH_POLICY;
  so.policy = in->policy;
  so.budget = cfg->expit_budget;
  so.proposals = cfg->expit_proposals;
  so.max_len = cfg->max_steps; // steps: repeats come on top (repeat.c)
  so.confirm_pairs = cfg->expit_confirm_pairs;
  so.measure = *in->measure;
  so.seed = (uint64_t)cfg->seed * 1000003u + (uint64_t)in->round * 7919u +
            (uint64_t)i;
  // the best known so far: the module's winner, else its family's baseline
  const demo *seed = in->seeds && in->seeds[i].n > 0 ? &in->seeds[i] : NULL;
  so.prior = w->n > 0 ? w->d : seed ? seed->d : NULL;
  so.n_prior = w->n > 0 ? w->n : seed ? seed->n : 0;
  mqss_module *m = NULL;
  if (mqss_module_parse_file(in->s, in->ec->module_paths[i], &m) != MQSS_OK)
    return MQSS_ERR_PARSE;
  mqss_status st = search_compile_limit(in, m, seed, &so.max_compile);
  if (st != MQSS_OK) {
    mqss_module_destroy(m);
    return st;
  }
  mqss_search_result sr;
  st = mqss_search(m, mqss_policy_catalog(in->policy), &so, &sr);
  mqss_module_destroy(m);
  out->max_compile = so.max_compile;
  out->slow = sr.slow_compiles;
  *r = (record){.kind = REC_SKIPPED};
  if (st == MQSS_ERR_INVALID_ARG) { // the reference does not measure
    mqss_search_result_free(&sr);
    return MQSS_OK;
  }
  if (st != MQSS_OK) {
    mqss_search_result_free(&sr);
    return st;
  }
  r->kind = REC_SEARCHED;
  r->evaluations = sr.evaluations;
  r->w = *w;
  // an earlier winner over the compile-time limit yields to any winner
  bool stale = false;
  for (int k = 0; k < sr.n_trace; k++)
    stale |= !strcmp(sr.trace[k].source, "prior") && sr.trace[k].slow_compile;
  const mqss_search_eval *e = &sr.trace[sr.winner_index];
  if (sr.winner_index > 0 && e->n_decisions <= EXPIT_MAX_DECISIONS &&
      (w->n < 0 || stale || sr.confirmed_speedup > w->speedup)) {
    out->improved = 1;
    r->w.n = e->n_decisions;
    r->w.speedup = sr.confirmed_speedup;
    memcpy(r->w.d, e->decisions, (size_t)e->n_decisions * sizeof *e->decisions);
    snprintf(r->w.pipeline, sizeof r->w.pipeline, "%s", e->pipeline);
  } else if (w->n < 0) {
    r->w = (expit_winner){.n = 0, .speedup = 1.0}; // the reference stands: STOP
  }
  mqss_search_result_free(&sr);
  return MQSS_OK;
}

// Whether the space-separated list `list` has the word `w`.
static bool listed(const char *list, const char *w) {
  size_t len = strlen(w);
  for (const char *p = list; *(p += strspn(p, " ")); p += strcspn(p, " "))
    if (strcspn(p, " ") == len && !strncmp(p, w, len))
      return true;
  return false;
}

bool expit_confirms(const mqss_measure_vs_result *vs, double margin,
                    double compile_limit) {
  if (vs->a.status != MQSS_MEASURE_OK)
    return false;
  if (vs->b.status != MQSS_MEASURE_OK)
    return true;
  return vs->ratio_lo >= 1.0 + margin &&
         (compile_limit <= 0 ||
          vs->a.compile_ms <= (1.0 + compile_limit) * vs->b.compile_ms);
}

mqss_status expit_search_pool(mqss_session *s, const train_config *cfg, int n,
                              bool *pooled) {
  if (!cfg->expit_families[0]) {
    for (int i = 0; i < n; i++)
      pooled[i] = true;
    return MQSS_OK;
  }
  char(*fam)[64] = calloc((size_t)(n > 0 ? n : 1), sizeof *fam);
  mqss_status st = fam ? expit_read_families(s, cfg->manifest, fam, n)
                       : fail(s, MQSS_ERR_NOMEM, "out of memory");
  for (int i = 0; st == MQSS_OK && i < n; i++)
    pooled[i] = listed(cfg->expit_families, fam[i]);
  // every named family must have a module
  for (const char *p = cfg->expit_families;
       st == MQSS_OK && *(p += strspn(p, " ")); p += strcspn(p, " ")) {
    char name[64];
    snprintf(name, sizeof name, "%.*s", (int)strcspn(p, " "), p);
    bool found = false;
    for (int i = 0; i < n && !found; i++)
      found = !strcmp(fam[i], name);
    if (!found)
      st = fail(s, MQSS_ERR_INVALID_ARG, "expit.families names '%s', "
                "which no module of '%s' has (its second column); name "
                "families of that manifest, or set it to \"\"", name,
                cfg->manifest);
  }
  free(fam);
  return st;
}

// The modules the rounds may search, ascending, into pool (n slots). Sets
// *count.
static mqss_status module_pool(const expit_search_in *in, int n, int *pool,
                               int *count) {
  *count = 0;
  bool *pooled = calloc((size_t)(n > 0 ? n : 1), sizeof *pooled);
  mqss_status st = pooled ? expit_search_pool(in->s, in->cfg, n, pooled)
                          : fail(in->s, MQSS_ERR_NOMEM, "out of memory");
  for (int i = 0; st == MQSS_OK && i < n; i++)
    if (pooled[i])
      pool[(*count)++] = i;
  free(pooled);
  return st;
}

mqss_status expit_search_round(const expit_search_in *in, expit_winner *w,
                               expit_search_figures *out) {
  mqss_session *s = in->s;
  int n = in->ec->n_modules;
  memset(out, 0, sizeof *out);
  out->gain = NAN;
  int *mods = malloc((size_t)(n > 0 ? n : 1) * sizeof *mods);
  int *pool = malloc((size_t)(n > 0 ? n : 1) * sizeof *pool);
  bool *wanted = calloc((size_t)(n > 0 ? n : 1), sizeof *wanted);
  record *rec = calloc((size_t)(n > 0 ? n : 1), sizeof *rec);
  mqss_status st = MQSS_OK;
  int n_pool = 0, total = 0;
  if (!mods || !pool || !wanted || !rec)
    st = fail(s, MQSS_ERR_NOMEM, "out of memory");
  // search_budget 0: no module is searched, the winners stay as they are
  if (st == MQSS_OK && in->cfg->expit_budget > 0)
    st = module_pool(in, n, pool, &n_pool);
  if (st == MQSS_OK && n_pool > 0) {
    total = expit_round_modules(n_pool, in->cfg->expit_modules_per_round,
                                (uint64_t)in->cfg->seed, in->round, mods);
    if (total < 0)
      st = fail(s, MQSS_ERR_NOMEM, "out of memory");
    for (int k = 0; k < total; k++) // ascending positions: ascending modules
      mods[k] = pool[mods[k]];
  }
  char path[4300];
  snprintf(path, sizeof path, "%s/search_progress.tsv", in->dir);
  for (int k = 0; st == MQSS_OK && k < total; k++)
    wanted[mods[k]] = true;
  if (st == MQSS_OK)
    st = read_records(s, path, n, wanted, rec, &out->resumed, &out->dropped);
  out->selected = total > 0 ? total : 0;
  double log_gain = 0;
  for (int k = 0; st == MQSS_OK && k < total; k++) {
    int i = mods[k];
    if (rec[i].kind == REC_NONE) {
      double t0 = now_ms();
      expit_searched e = {.round = in->round, .module = i,
                          .path = in->ec->module_paths[i], .done = k + 1,
                          .total = total};
      st = search_module(in, i, &w[i], &rec[i], &e);
      if (st == MQSS_OK)
        st = append_record(s, path, i, &rec[i]);
      if (st == MQSS_OK && in->on_searched) {
        const record *r = &rec[i];
        e.skipped = r->kind == REC_SKIPPED;
        e.evaluations = r->evaluations;
        e.speedup = r->kind == REC_SEARCHED ? r->w.speedup : NAN;
        e.elapsed_s = (now_ms() - t0) / 1e3;
        in->on_searched(in->ctx, &e);
      }
      if (st != MQSS_OK)
        break;
    }
    // the fold: the same for a record just written and one read back
    if (rec[i].kind != REC_SEARCHED)
      continue;
    w[i] = rec[i].w;
    out->searched++;
    out->evaluations += rec[i].evaluations;
    log_gain += log(w[i].speedup);
  }
  for (int i = 0; st == MQSS_OK && i < n; i++)
    out->winners += w[i].n > 0;
  if (out->searched)
    out->gain = exp(log_gain / out->searched);
  free(mods);
  free(pool);
  free(wanted);
  free(rec);
  return st;
}
