// Unit tests of the replay of demonstrations (src/rl/bc.c): a search
// winner lists a decision's repeats as decisions of their own, while the
// policy makes them within the decision's step (repeat.c). The replay
// skips them, so the samples are the steps the policy would take, and
// applies each decision with its repeats, so the states are the ones the
// environment would show. A peeled repeat (selection's) is applied as it
// comes, without a sample.
// internal headers first: cmocka defines a fail() macro
#include "policy/policy.h"
#include "rl/bc.h"

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
  mqss_policy *p; // a random policy: only its network's shape is used
  rollout_buffer rb;
} fixture;

static int setup(void **state) {
  fixture *f = calloc(1, sizeof *f);
  const char *yaml = INPUTS "sched_catalog.yaml";
  char path[] = "/tmp/mqss_bc_XXXXXX";
  int fd = mkstemp(path);
  mqss_catalog *c = NULL;
  if (!f || fd < 0 || mqss_session_create(&f->s) != MQSS_OK ||
      mqss_catalog_load(f->s, yaml, &c) != MQSS_OK ||
      mqss_policy_write_random(f->s, c, "gnn", 1, path) != MQSS_OK)
    return -1;
  close(fd);
  mqss_catalog_destroy(c);
  mqss_policy_options o;
  mqss_policy_options_init(&o);
  o.catalog_path = yaml;
  mqss_status st = mqss_policy_load(f->s, path, &o, &f->p);
  unlink(path);
  if (st != MQSS_OK || rb_init(&f->rb, f->p->nets[0], 128) != 0)
    return -1;
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fixture *f = *state;
  rb_free(&f->rb);
  mqss_policy_destroy(f->p);
  mqss_session_destroy(f->s);
  free(f);
  return 0;
}

// The value of feature `name` in sample i of the buffer.
static float feature(const rollout_buffer *rb, int i, const char *name) {
  for (int k = 0; k < rb->S; k++)
    if (!strcmp(mqss_feature_name(k), name))
      return rb->state[(size_t)i * (size_t)rb->S + (size_t)k];
  fail_msg("no feature %s", name);
  return 0;
}

// Replays one demonstration of n decisions on the two-matmul module.
static bc_counts replay(fixture *f, const mqss_decision *d, int n) {
  char *paths[] = {INPUTS "sched_two_matmuls.mlir"};
  bc_inputs in = {.catalog = mqss_policy_catalog(f->p),
                  .model = f->p->nets[0],
                  .n_modules = 1,
                  .paths = paths,
                  .max_steps = 8};
  const mqss_decision *seqs[] = {d};
  bc_counts k;
  rb_clear(&f->rb);
  assert_int_equal(bc_collect_decisions(f->s, &in, seqs, &n, &f->rb, &k),
                   MQSS_OK);
  return k;
}

// Tile M 4, N 8 (the grid's first values): fits both matmuls. Tags in walk
// order: fill 1, the first matmul 2, fill 3, the second (the focus) 4.
static const mqss_decision TILE_FOCUS = {.action = 1, .u = {-1, -1, 0},
                                         .op = 4};

static void test_repeat_skipped(void **state) {
  fixture *f = *state;
  mqss_decision repeat = TILE_FOCUS;
  repeat.op = 2;
  mqss_decision winner[] = {TILE_FOCUS, repeat};
  bc_counts k = replay(f, winner, 2);
  assert_int_equal(k.modules, 1);
  assert_int_equal(k.refused, 0);
  assert_int_equal(k.steps, 1); // the repeat is part of the first step
  assert_int_equal(k.samples, 2); // the decision, then STOP
  assert_int_equal(f->rb.action[1], f->p->nets[0]->cfg.n_actions); // STOP
  // STOP is taken with both matmuls tiled: no focus op left
  assert_true(feature(&f->rb, 0, "op.focus.present") == 1.0f);
  assert_true(feature(&f->rb, 1, "op.focus.present") == 0.0f);
}

// A demonstration without the repeat is replayed with it all the same, as
// the environment would apply the decision.
static void test_decision_repeats(void **state) {
  fixture *f = *state;
  bc_counts k = replay(f, &TILE_FOCUS, 1);
  assert_int_equal(k.steps, 1);
  assert_int_equal(k.samples, 2);
  assert_true(feature(&f->rb, 1, "op.focus.present") == 0.0f);
}

// A peeled decision (mqss_decision.peel) is a repeat of selection's fitted
// sizes, never a step of the policy's: the replay applies it without a
// sample, even when it addresses the focus op. Here N = 16 on the second
// matmul's 40 columns (two full tiles and a peeled one of 8); the first
// matmul is then the focus, and its decision is the one step.
static void test_peeled_applied_not_learned(void **state) {
  fixture *f = *state;
  mqss_decision peeled = {.action = 1, .u = {-1, 1, 0}, .op = 4, .peel = 1};
  mqss_decision first = TILE_FOCUS;
  first.op = 2;
  mqss_decision winner[] = {peeled, first};
  bc_counts k = replay(f, winner, 2);
  assert_int_equal(k.modules, 1);
  assert_int_equal(k.refused, 0);
  assert_int_equal(k.steps, 1);
  assert_int_equal(k.samples, 2); // the first matmul's decision, then STOP
  const nn_model *net = f->p->nets[0];
  int n_slot = net->param_off[f->rb.action[0]] + 1; // the sample's N
  assert_true(f->rb.u[n_slot] == first.u[1]); // not the peeled decision's
  assert_true(feature(&f->rb, 0, "op.focus.present") == 1.0f);
  assert_true(feature(&f->rb, 1, "op.focus.present") == 0.0f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_peeled_applied_not_learned, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_repeat_skipped, setup, teardown),
      cmocka_unit_test_setup_teardown(test_decision_repeats, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
