// Unit tests of the search baselines (src/eval/search*.c): pipeline joining
// (checked against the catalog's templates by hand), evaluation counting
// (every candidate counts, cache hits flagged and counted), the budget,
// determinism of the candidates for a seed, and failed candidates (a known
// miscompile and an unknown pass, from a tiny test catalog) counted by
// status and never chosen as best; the compile-time limit; the
// policy-guided search's mutations of the best sequence.
// search.h first: cmocka's fail() macro would clash with internal.h's fail().
#include "eval/search.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define INPUTS MQSS_SOURCE_DIR "/tests/lit/Inputs/"

typedef struct {
  mqss_session *s;
  char cache[64];
} fixture;

static int setup(void **state) {
  fixture *f = calloc(1, sizeof *f);
  assert_non_null(f);
  assert_int_equal(mqss_session_create(&f->s), MQSS_OK);
  snprintf(f->cache, sizeof f->cache, "/tmp/mqss_test_search_%d.db",
           (int)getpid());
  *state = f;
  return 0;
}

static void remove_cache(const char *path) {
  char p[96];
  unlink(path);
  snprintf(p, sizeof p, "%s-wal", path);
  unlink(p);
  snprintf(p, sizeof p, "%s-shm", path);
  unlink(p);
}

static int teardown(void **state) {
  fixture *f = *state;
  remove_cache(f->cache);
  mqss_session_destroy(f->s);
  free(f);
  return 0;
}

static mqss_module *parse_path(mqss_session *s, const char *path) {
  mqss_module *m = NULL;
  if (mqss_module_parse_file(s, path, &m) != MQSS_OK)
    fail_msg("parse failed: %s", mqss_errmsg(s));
  return m;
}

static mqss_catalog *load_catalog(mqss_session *s, const char *path) {
  mqss_catalog *c = NULL;
  if (mqss_catalog_load(s, path, &c) != MQSS_OK)
    fail_msg("catalog failed: %s", mqss_errmsg(s));
  return c;
}

// Small, fast settings: few runs, no code size, a short confirmation.
static mqss_search_options quick(mqss_search_method method, int budget,
                                 const char *cache) {
  mqss_search_options o;
  mqss_search_options_init(&o);
  o.method = method;
  o.budget = budget;
  o.confirm_pairs = 6; // the fewest pairs with a 95% interval
  o.measure.warmup = 0;
  o.measure.repeat = 2;
  o.measure.code_size = 0;
  o.measure.cache_path = cache;
  return o;
}

static void count_progress(const mqss_search_eval *e, void *user) {
  int *n = user;
  assert_int_equal(e->index, *n); // in order, once each
  (*n)++;
}

// The invariants every result must satisfy, whatever was measured.
static void check_consistent(const mqss_search_result *r, int budget) {
  assert_int_equal(r->evaluations, r->n_trace);
  assert_true(r->evaluations >= 1 && r->evaluations <= budget);
  assert_string_equal(r->trace[0].pipeline, "");
  assert_string_equal(r->trace[0].source, "reference");
  for (int i = 1; i < r->n_trace; i++) // the method that proposed it
    assert_string_equal(r->trace[i].source, mqss_search_method_name(r->method));
  int hits = 0, failures = 0, by_status[MQSS_SEARCH_STATUS_SLOTS] = {0};
  for (int i = 0; i < r->n_trace; i++) {
    const mqss_search_eval *e = &r->trace[i];
    assert_int_equal(e->index, i);
    hits += e->cached != 0;
    if (e->status != MQSS_MEASURE_OK) {
      failures++;
      by_status[e->status]++;
      assert_true(e->run_ms == 0);
    } else {
      assert_true(e->run_ms > 0);
    }
    if (i > 0)
      assert_true(e->elapsed_ms >= r->trace[i - 1].elapsed_ms);
  }
  int slow = 0; // over the compile-time limit: OK candidates only, never best
  for (int i = 0; i < r->n_trace; i++) {
    const mqss_search_eval *e = &r->trace[i];
    slow += e->slow_compile != 0;
    if (e->slow_compile)
      assert_true(i > 0 && e->status == MQSS_MEASURE_OK);
    assert_true(e->best_index == 0 || !r->trace[e->best_index].slow_compile);
  }
  assert_int_equal(r->slow_compiles, slow);
  for (int k = 0; k < r->n_confirmations; k++)
    assert_false(r->trace[r->confirmations[k].index].slow_compile);
  assert_int_equal(r->cache_hits, hits);
  assert_int_equal(r->failures, failures);
  assert_memory_equal(r->failures_by_status, by_status, sizeof by_status);
  // The best is a correct candidate, and the one the result names.
  assert_true(r->best_index >= 0 && r->best_index < r->n_trace);
  assert_int_equal(r->trace[r->best_index].status, MQSS_MEASURE_OK);
  assert_string_equal(r->best_pipeline, r->trace[r->best_index].pipeline);
  assert_true(r->best_run_ms == r->trace[r->best_index].run_ms);
  assert_true(r->reference_run_ms == r->trace[0].run_ms);
  assert_true(r->wall_ms >= r->search_ms);
  // The confirmation: distinct correct candidates that beat the reference
  // by the min gain, fastest first; a winner only with a confirmed interval.
  assert_true(r->n_confirmations <= 3);
  for (int k = 0; k < r->n_confirmations; k++) {
    const mqss_search_confirmation *c = &r->confirmations[k];
    const mqss_search_eval *e = &r->trace[c->index];
    assert_true(c->index > 0 && e->status == MQSS_MEASURE_OK);
    assert_true(e->run_ms < r->reference_run_ms * (1 - 0.02));
    if (k > 0) {
      assert_true(e->run_ms >= r->trace[r->confirmations[k - 1].index].run_ms);
      assert_string_not_equal(e->pipeline,
                              r->trace[r->confirmations[k - 1].index].pipeline);
    }
    assert_int_equal(c->verdict, c->status == MQSS_MEASURE_OK
                                     ? mqss_ratio_verdict(c->lo, c->hi, 0.02)
                                     : 0);
  }
  if (r->winner_index > 0) {
    int w = -1;
    for (int k = 0; k < r->n_confirmations; k++)
      if (r->confirmations[k].index == r->winner_index)
        w = k;
    assert_true(w >= 0);
    assert_int_equal(r->confirmations[w].verdict, 1);
    assert_true(r->confirmations[w].lo > 1.02);
    assert_true(r->confirmed_speedup == r->confirmations[w].speedup);
    assert_string_equal(r->winner_pipeline, r->trace[r->winner_index].pipeline);
    // the fastest confirmed candidate, or of those level with it
    // (overlapping intervals) the one that compiled fastest in the search
    const mqss_search_confirmation *cf = r->confirmations, *fast = NULL;
    for (int k = 0; k < r->n_confirmations; k++)
      if (cf[k].verdict > 0 && (!fast || cf[k].speedup > fast->speedup))
        fast = &cf[k];
    assert_true(cf[w].hi >= fast->lo && cf[w].lo <= fast->hi);
    for (int k = 0; k < r->n_confirmations; k++)
      if (cf[k].verdict > 0 && cf[k].hi >= fast->lo && cf[k].lo <= fast->hi)
        assert_true(r->trace[cf[w].index].compile_ms <=
                    r->trace[cf[k].index].compile_ms);
  } else {
    assert_string_equal(r->winner_pipeline, "");
    for (int k = 0; k < r->n_confirmations; k++)
      assert_true(r->confirmations[k].verdict <= 0);
    if (r->confirmed)
      assert_true(r->confirmed_speedup == 1.0 || r->confirmed_speedup == 0.0);
  }
}

// ----------------------------------------------------------------------------
// pipeline joining

static void test_join(void **state) {
  fixture *f = *state;
  mqss_catalog *cat = load_catalog(f->s, NULL);
  int canon = mqss_catalog_find(cat, "canonicalize");
  int inl = mqss_catalog_find(cat, "inline");
  int tile = mqss_catalog_find(cat, "affine-tile");
  int stop = mqss_catalog_stop(cat);
  assert_true(canon >= 0 && inl >= 0 && tile >= 0 && stop >= 0);
  // canonicalize's choice of 3 values at u = 0: t = 0.5, index floor(1.5) =
  // 1 = "normal"; affine-tile's log-int 4..128 at u = 1 is 128.
  mqss_decision d[4] = {{.action = canon, .u = {0}},
                        {.action = inl},
                        {.action = tile, .u = {1}},
                        {.action = stop}};
  char *p = decisions_join(cat, d, 4);
  assert_string_equal(p, "builtin.module(func.func(canonicalize{region-simplify="
                         "normal}),inline,func.func(affine-loop-tile{tile-size="
                         "128}))");
  free(p);
  p = decisions_join(cat, &d[3], 1); // STOP alone: the empty pipeline
  assert_string_equal(p, "");
  free(p);
  p = decisions_join(cat, d, 0);
  assert_string_equal(p, "");
  free(p);
  mqss_catalog_destroy(cat);
}

// ----------------------------------------------------------------------------
// random search: counting, budget, determinism

static void test_random_counts_and_seed(void **state) {
  fixture *f = *state;
  remove_cache(f->cache);
  mqss_module *m = parse_path(f->s, INPUTS "search_matmul.mlir");
  mqss_catalog *cat = load_catalog(f->s, NULL);
  mqss_search_options o = quick(MQSS_SEARCH_RANDOM, 6, f->cache);
  o.max_len = 4;
  int calls = 0;
  o.progress = count_progress;
  o.progress_user = &calls;

  mqss_search_result r1, r2, r3;
  assert_int_equal(mqss_search(m, cat, &o, &r1), MQSS_OK);
  check_consistent(&r1, 6);
  assert_int_equal(r1.evaluations, 6); // random always spends the budget
  assert_int_equal(calls, 6);
  assert_int_equal(r1.trace[0].n_decisions, 0);
  for (int i = 1; i < r1.n_trace; i++) {
    assert_true(r1.trace[i].n_decisions >= 1 && r1.trace[i].n_decisions <= 4);
    assert_non_null(strstr(r1.trace[i].pipeline, "builtin.module("));
  }
  assert_false(r1.trace[0].cached); // fresh cache

  // Same seed: the same candidates, now answered by the cache (all but
  // the statuses the cache never stores).
  calls = 0;
  assert_int_equal(mqss_search(m, cat, &o, &r2), MQSS_OK);
  check_consistent(&r2, 6);
  assert_int_equal(r2.n_trace, r1.n_trace);
  int storable = 0;
  for (int i = 0; i < r1.n_trace; i++) {
    assert_string_equal(r2.trace[i].pipeline, r1.trace[i].pipeline);
    mqss_measure_status st = r1.trace[i].status;
    storable += st != MQSS_MEASURE_TIMEOUT && st != MQSS_MEASURE_CRASHED &&
                st != MQSS_MEASURE_OUT_OF_MEMORY;
  }
  assert_int_equal(r2.cache_hits, storable);
  assert_int_equal(r2.evaluations, 6); // cache hits count as evaluations

  // Another seed: other candidates.
  o.seed = 2;
  o.progress = NULL;
  assert_int_equal(mqss_search(m, cat, &o, &r3), MQSS_OK);
  check_consistent(&r3, 6);
  int differ = 0;
  for (int i = 1; i < r3.n_trace; i++)
    differ += strcmp(r3.trace[i].pipeline, r1.trace[i].pipeline) != 0;
  assert_true(differ > 0);

  mqss_search_result_free(&r1);
  mqss_search_result_free(&r2);
  mqss_search_result_free(&r3);
  mqss_search_result_free(&r3); // idempotent
  mqss_catalog_destroy(cat);
  mqss_module_destroy(m);
}

// Random after a schedule decision on one of two matmuls: in half of the
// sequences the next decision repeats it on the other. The repeat is part
// of the decision's step, so with max_len 1 a second decision is always
// that repeat (same action and parameters, the other op).
static void test_random_repeats_schedule(void **state) {
  fixture *f = *state;
  mqss_module *m = parse_path(f->s, INPUTS "sched_two_matmuls.mlir");
  mqss_catalog *cat = load_catalog(f->s, INPUTS "sched_catalog.yaml");
  mqss_search_options o = quick(MQSS_SEARCH_RANDOM, 10, NULL);
  o.max_len = 1; // one step: a second decision can only be a repeat
  mqss_search_result r;
  assert_int_equal(mqss_search(m, cat, &o, &r), MQSS_OK);
  check_consistent(&r, 10);
  int repeats = 0;
  for (int i = 1; i < r.n_trace; i++) {
    const mqss_search_eval *e = &r.trace[i];
    assert_true(e->n_decisions >= 1 && e->n_decisions <= 2);
    if (e->n_decisions == 2) {
      const mqss_decision *a = &e->decisions[0], *b = &e->decisions[1];
      assert_memory_equal(a->u, b->u, sizeof a->u);
      repeats++;
      assert_true(a->op > 0 && b->op > 0 && a->op != b->op);
    }
  }
  assert_true(repeats >= 1);
  mqss_search_result_free(&r);
  mqss_catalog_destroy(cat);
  mqss_module_destroy(m);
}

// ----------------------------------------------------------------------------
// greedy search: failures by status, never best; the budget

static void test_greedy_failures(void **state) {
  fixture *f = *state;
  mqss_module *m = parse_path(f->s, INPUTS "measure_jacobi_kernel.mlir");
  mqss_catalog *cat = load_catalog(f->s, INPUTS "search_catalog.yaml");
  mqss_search_options o = quick(MQSS_SEARCH_GREEDY, 6, NULL);
  mqss_search_result r;
  assert_int_equal(mqss_search(m, cat, &o, &r), MQSS_OK);
  check_consistent(&r, 6);
  // Step 1 tries the catalog in order: miscompile, gpu, licm, cse.
  assert_true(r.n_trace >= 5);
  assert_non_null(strstr(r.trace[1].pipeline, "affine-super-vectorize"));
  assert_int_equal(r.trace[1].status, MQSS_MEASURE_WRONG_OUTPUT);
  assert_string_equal(r.trace[2].pipeline,
                      "builtin.module(func.func(convert-affine-for-to-gpu))");
  assert_int_equal(r.trace[2].status, MQSS_MEASURE_PASS_FAILED);
  assert_true(r.failures_by_status[MQSS_MEASURE_WRONG_OUTPUT] >= 1);
  assert_true(r.failures_by_status[MQSS_MEASURE_PASS_FAILED] >= 1);
  assert_true(r.best_index != 1 && r.best_index != 2);
  // Step 1 has correct candidates (licm, cse), so greedy goes on from the
  // fastest of them whether or not it beat the reference: the budget is spent.
  assert_int_equal(r.n_trace, 6);
  assert_int_equal(r.trace[5].n_decisions, 2); // step 2 extends step 1's pick
  assert_true(strstr(r.trace[5].pipeline, "loop-invariant-code-motion") ||
              strstr(r.trace[5].pipeline, "cse"));
  mqss_search_result_free(&r);

  // A budget of 3 stops in the middle of step 1.
  o.budget = 3;
  assert_int_equal(mqss_search(m, cat, &o, &r), MQSS_OK);
  check_consistent(&r, 3);
  assert_int_equal(r.evaluations, 3);
  assert_int_equal(r.best_index, 0); // both candidates failed
  assert_true(r.confirmed_speedup == 1.0);
  assert_false(r.confirmed);
  mqss_search_result_free(&r);
  mqss_catalog_destroy(cat);
  mqss_module_destroy(m);
}

// Greedy's schedule candidates carry their repeats. On
// sched_two_matmuls.mlir the focus is first the 64x40 matmul, where the
// catalog's default N = 16 does not divide 40: step 1's only candidate is
// M 8, N 8 there, and it fits the 64x48 matmul too, so the candidate is
// both decisions. Then no op is left to tile. With kind_wide, the same
// sizes make one decision that addresses both.
static void test_greedy_repeats_schedule(void **state) {
  fixture *f = *state;
  mqss_module *m = parse_path(f->s, INPUTS "sched_two_matmuls.mlir");
  mqss_catalog *cat = load_catalog(f->s, INPUTS "sched_catalog.yaml");
  mqss_search_options o = quick(MQSS_SEARCH_GREEDY, 10, NULL);
  mqss_search_result r;
  assert_int_equal(mqss_search(m, cat, &o, &r), MQSS_OK);
  check_consistent(&r, 10);
  assert_int_equal(r.n_trace, 2);
  const mqss_search_eval *e = &r.trace[1];
  assert_int_equal(e->status, MQSS_MEASURE_OK);
  assert_int_equal(e->n_decisions, 2);
  const mqss_decision *a = &e->decisions[0], *b = &e->decisions[1];
  assert_int_equal(b->action, a->action);
  assert_memory_equal(b->u, a->u, sizeof a->u);
  assert_true(a->op > 0 && b->op > 0 && a->op != b->op);
  // Kind-wide: one decision for both matmuls, addressing no tag.
  mqss_search_result w;
  o.kind_wide = 1;
  assert_int_equal(mqss_search(m, cat, &o, &w), MQSS_OK);
  check_consistent(&w, 10);
  assert_true(w.n_trace >= 2);
  assert_int_equal(w.trace[1].n_decisions, 1);
  assert_int_equal(w.trace[1].decisions[0].action, a->action);
  assert_memory_equal(w.trace[1].decisions[0].u, a->u, sizeof a->u);
  assert_true(w.trace[1].decisions[0].op == 0);
  mqss_search_result_free(&w);
  // Both matmuls are register-tiled: the one candidate runs both schedules
  // with one interpreter, whose library includes two steps (join.c).
  // Whether it also wins depends on the machine's timing (it lost once on a
  // loaded CI machine under ASan), so the winner is not asserted.
  const char *p = e->pipeline, *first = strstr(p, "transform-interpreter");
  assert_non_null(first);
  assert_null(strstr(first + 1, "transform-interpreter"));
  const char *path = strstr(p, "transform-library-paths=");
  assert_non_null(path);
  path += strlen("transform-library-paths=");
  char file[4096];
  snprintf(file, sizeof file, "%.*s", (int)strcspn(path, "}"), path);
  strbuf lib = {0};
  assert_true(sb_read_file(&lib, file));
  const char *inc = strstr(lib.data, "transform.include @");
  assert_non_null(inc);
  assert_non_null(strstr(inc + 1, "transform.include @"));
  sb_free(&lib);
  mqss_search_result_free(&r);
  mqss_catalog_destroy(cat);
  mqss_module_destroy(m);
}

// ----------------------------------------------------------------------------
// mutations of the best sequence (policy-guided search)

// A three-step sequence: register-tile-fma on op 2 and its repeat on op 5,
// cse, affine-tile. Each mutation changes exactly one step: one parameter
// of it (on the decision and its repeat alike), or drops it whole.
static void test_mutate_changes_one_step(void **state) {
  fixture *f = *state;
  mqss_catalog *cat = load_catalog(f->s, NULL);
  int rt = mqss_catalog_find(cat, "register-tile-fma");
  int cse = mqss_catalog_find(cat, "cse");
  int tile = mqss_catalog_find(cat, "affine-tile");
  assert_true(rt >= 0 && cse >= 0 && tile >= 0);
  assert_true(mqss_catalog_action(cat, rt)->n_params == 4);
  assert_true(mqss_catalog_action(cat, tile)->n_params >= 1);
  const mqss_decision best[4] = {
      {.action = rt, .op = 2, .u = {0.5f, -0.5f, 0.25f, 1.0f}},
      {.action = rt, .op = 5, .u = {0.5f, -0.5f, 0.25f, 1.0f}},
      {.action = cse},
      {.action = tile, .u = {-0.75f}},
  };
  assert_int_equal(search_steps(best, 4), 3);
  search_rng rng = {.s = 7};
  int dropped[3] = {0}, changed[3] = {0};
  for (int k = 0; k < 300; k++) {
    mqss_decision out[4];
    int n = search_mutate(cat, best, 4, &rng, out);
    if (n == 4) { // a parameter of the tile step or of the register tiles
      int diff = 0, where = -1;
      for (int i = 0; i < 4; i++)
        for (int p = 0; p < MQSS_MAX_PARAMS; p++)
          if (out[i].u[p] != best[i].u[p]) {
            diff++;
            where = i;
            assert_true(out[i].u[p] >= -1.0f && out[i].u[p] <= 1.0f);
          }
      assert_int_equal(out[0].action, rt);
      if (diff == 0)
        continue; // the same value drawn again
      if (where <= 1) { // the repeat changes with its decision
        assert_int_equal(diff, 2);
        assert_memory_equal(out[0].u, out[1].u, sizeof out[0].u);
        assert_int_equal(out[1].op, 5);
        changed[0]++;
      } else {
        assert_int_equal(where, 3);
        assert_int_equal(diff, 1);
        changed[2]++;
      }
    } else if (n == 3) { // cse (step 1) or affine-tile (step 2) dropped
      assert_memory_equal(out, best, 2 * sizeof *out);
      if (out[2].action == tile) {
        dropped[1]++;
      } else {
        assert_int_equal(out[2].action, cse);
        dropped[2]++;
      }
    } else { // the register tiles dropped, with their repeat
      assert_int_equal(n, 2);
      assert_memory_equal(out, best + 2, 2 * sizeof *out);
      dropped[0]++;
    }
  }
  // Every step was dropped at some point, and both parametric steps changed;
  // cse (no parameter) is only ever dropped.
  assert_true(dropped[0] > 0 && dropped[1] > 0 && dropped[2] > 0);
  assert_true(changed[0] > 0 && changed[2] > 0);
  assert_int_equal(search_mutate(cat, best, 0, &rng, NULL), -1);
  mqss_catalog_destroy(cat);
}

// The best a random search must name (search_offer_best) from r's trace
// when candidates over `factor` times the reference's compile time are out.
static int expected_best(const mqss_search_result *r, double factor,
                         double min_gain) {
  int best = 0;
  for (int i = 1; i < r->n_trace; i++) {
    const mqss_search_eval *e = &r->trace[i];
    if (e->status == MQSS_MEASURE_OK &&
        !(factor > 0 && e->compile_ms > factor * r->trace[0].compile_ms) &&
        e->run_ms < r->reference_run_ms * (1 - min_gain) &&
        (best == 0 || e->run_ms < r->trace[best].run_ms))
      best = i;
  }
  return best;
}

// The compile-time limit on measured candidates: the same candidates (same
// seed, answered by the cache the second and third time), first without a
// limit, then with one just below the first best's compile time over the
// reference's (the median candidate's when nothing beat the reference),
// then with one that every candidate exceeds. Exactly the OK candidates
// above the limit are flagged, and the best is the fastest of the others.
// (This module runs in microseconds: which candidate beats the reference is
// noise, so test_slow_never_best below pins the rule on a made-up trace.)
static void test_compile_limit(void **state) {
  fixture *f = *state;
  remove_cache(f->cache);
  mqss_module *m = parse_path(f->s, INPUTS "search_matmul.mlir");
  mqss_catalog *cat = load_catalog(f->s, NULL);
  mqss_search_options o = quick(MQSS_SEARCH_RANDOM, 8, f->cache);
  o.max_len = 4;
  mqss_search_result r1, r2, r3;
  assert_int_equal(mqss_search(m, cat, &o, &r1), MQSS_OK);
  check_consistent(&r1, 8);
  assert_int_equal(r1.slow_compiles, 0); // no limit by default
  assert_int_equal(r1.best_index, expected_best(&r1, 0, o.min_gain));
  const double ref_ms = r1.trace[0].compile_ms;
  assert_true(ref_ms > 0);
  double ratio[8];
  int n_ok = 0;
  for (int i = 1; i < r1.n_trace; i++)
    if (r1.trace[i].status == MQSS_MEASURE_OK)
      ratio[n_ok++] = r1.trace[i].compile_ms / ref_ms;
  assert_true(n_ok >= 2);
  double pick = r1.best_index > 0
                    ? r1.trace[r1.best_index].compile_ms / ref_ms
                    : ratio[n_ok / 2];
  o.max_compile = 0.999 * pick;
  assert_int_equal(mqss_search(m, cat, &o, &r2), MQSS_OK);
  check_consistent(&r2, 8);
  assert_int_equal(r2.n_trace, r1.n_trace);
  int slow = 0;
  for (int i = 1; i < r2.n_trace; i++) {
    const mqss_search_eval *e = &r2.trace[i];
    assert_string_equal(e->pipeline, r1.trace[i].pipeline);
    assert_true(e->compile_ms == r1.trace[i].compile_ms); // from the cache
    assert_int_equal(e->slow_compile, e->status == MQSS_MEASURE_OK &&
                                          e->compile_ms > o.max_compile * ref_ms);
    slow += e->slow_compile;
  }
  assert_true(slow >= 1 && slow == r2.slow_compiles);
  assert_int_equal(r2.best_index, expected_best(&r1, o.max_compile, o.min_gain));
  // Below the cheapest candidate: every OK one is out, the reference stands.
  o.max_compile = 1e-6;
  assert_int_equal(mqss_search(m, cat, &o, &r3), MQSS_OK);
  check_consistent(&r3, 8);
  assert_int_equal(r3.slow_compiles, n_ok);
  assert_int_equal(r3.best_index, 0);
  assert_int_equal(r3.n_confirmations, 0);
  assert_string_equal(r3.winner_pipeline, "");
  mqss_search_result_free(&r1);
  mqss_search_result_free(&r2);
  mqss_search_result_free(&r3);
  mqss_catalog_destroy(cat);
  mqss_module_destroy(m);
}

// search_offer_best on a made-up trace: a candidate over the compile-time
// limit is never the best, however fast; the fastest of the others is.
static void test_slow_never_best(void **state) {
  (void)state;
  mqss_search_options o;
  mqss_search_options_init(&o);
  mqss_search_eval t[4] = {
      {.index = 0, .status = MQSS_MEASURE_OK, .run_ms = 10, .compile_ms = 100},
      {.index = 1, .status = MQSS_MEASURE_OK, .run_ms = 2, .compile_ms = 900,
       .slow_compile = 1},
      {.index = 2, .status = MQSS_MEASURE_OK, .run_ms = 5, .compile_ms = 150},
      {.index = 3, .status = MQSS_MEASURE_OK, .run_ms = 4, .compile_ms = 950,
       .slow_compile = 1},
  };
  mqss_search_result out = {.trace = t, .n_trace = 4, .reference_run_ms = 10,
                            .best_run_ms = 10};
  search_ctx c = {.opts = &o, .out = &out};
  search_offer_best(&c, 1);
  assert_int_equal(out.best_index, 0);
  search_offer_best(&c, 2);
  assert_int_equal(out.best_index, 2);
  search_offer_best(&c, 3);
  assert_int_equal(out.best_index, 2);
  search_set_best(&c, 1); // refused as a failure would be
  assert_int_equal(out.best_index, 2);
  assert_true(out.best_run_ms == 5);
}

static void test_bad_options(void **state) {
  fixture *f = *state;
  mqss_module *m = parse_path(f->s, INPUTS "search_matmul.mlir");
  mqss_catalog *cat = load_catalog(f->s, NULL);
  mqss_search_options o = quick(MQSS_SEARCH_RANDOM, 0, NULL);
  mqss_search_result r;
  assert_int_equal(mqss_search(m, cat, &o, &r), MQSS_ERR_INVALID_ARG);
  assert_non_null(strstr(mqss_errmsg(f->s), "budget"));
  assert_int_equal(r.evaluations, 0);
  mqss_search_result_free(&r);
  o.budget = 2;
  o.max_compile = -1;
  assert_int_equal(mqss_search(m, cat, &o, &r), MQSS_ERR_INVALID_ARG);
  assert_non_null(strstr(mqss_errmsg(f->s), "max_compile"));
  mqss_search_result_free(&r);
  assert_string_equal(mqss_search_method_name(MQSS_SEARCH_GREEDY), "greedy");
  mqss_catalog_destroy(cat);
  mqss_module_destroy(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
      T(test_join),
      T(test_random_counts_and_seed),
      T(test_random_repeats_schedule),
      T(test_greedy_failures),
      T(test_greedy_repeats_schedule),
      T(test_mutate_changes_one_step),
      T(test_compile_limit),
      T(test_slow_never_best),
      T(test_bad_options),
#undef T
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
