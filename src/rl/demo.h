// Demonstrations (demo.c): a pass pipeline, such as a family baseline of
// data/baselines.yaml, turned into the catalog decisions that reproduce it,
// so that cloning and expert iteration can start from the hand-tuned
// recipes. Schedule actions are recognised by their transform scripts.
#ifndef MQSS_RL_DEMO_H
#define MQSS_RL_DEMO_H

#include "internal.h"

enum { DEMO_MAX = 64 }; // decisions of a demonstration

typedef struct {
  mqss_decision d[DEMO_MAX]; // (n) op 0: every op of a schedule's kinds
  int n;
} demo;

// Decisions reproducing `pipeline`, or -1 when a piece has no catalog
// action, a parameter value the decoder cannot reach, or a schedule script
// that no decision of its action prints.
int demo_of(const mqss_catalog *c, const char *pipeline, demo *dm);

// Drops from dm the decisions that leave module `path` unchanged where they
// stand (run in order in this process), and the schedule decisions that
// match no op there (decision_matches_nothing): the rest produces the same
// IR, so the same code, in fewer steps. With `adapted` non-NULL, a schedule
// decision whose sizes do not fit the module there is first given the
// nearest sizes that do (decision_fit_sizes), counted in *adapted. A
// kind-wide schedule decision (op 0, a recipe's step) whose sizes do not
// fit every op of its kinds becomes the decision the per-op rule makes
// (decision_focus), followed by its repeats (repeat.c), each listed.
// MQSS_ERR_PARSE when the module does not parse; MQSS_ERR_INVALID_ARG when
// a decision fails on it (dm unchanged).
mqss_status demo_prune(mqss_session *s, const mqss_catalog *c,
                       const char *path, demo *dm, int *adapted);

#endif // MQSS_RL_DEMO_H
