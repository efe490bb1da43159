// Expert iteration's seeds (expit_seed.c): each training module's family
// baseline as a demonstration, so that the round's search starts from the
// hand-tuned recipe and cloning imitates it where no search has won yet.
#ifndef MQSS_RL_EXPIT_SEED_H
#define MQSS_RL_EXPIT_SEED_H

#include "rl/config.h"
#include "rl/demo.h"
#include "rl/episode.h"

typedef struct {
  int seeded;    // modules with a seed of one or more decisions
  int recipes;   // of those, modules with a recipe action of their seed
  int stops;     // modules whose family baseline is no passes (seed STOP)
  int unmatched; // families whose pipeline the catalog cannot express
  int refused;   // modules a seed's decision failed on
  int decisions; // the seeds' decisions, after demo_prune
  int steps;     // the recipes' decisions before it, which demo_prune drops
                 // where they change nothing and splits per op where a
                 // kind-wide step does not fit every op
  int adapted;   // decisions given other sizes (expit.adapt_sizes)
  double seconds; // time taken
  char unmatched_family[64]; // the first unmatched family ("" none)
  char refused_first[512];   // the first refused module and why ("" none)
} expit_seed_counts;

// The family column of each module line of `manifest` into fam (n lines).
mqss_status expit_read_families(mqss_session *s, const char *manifest,
                                char (*fam)[64], int n);

// Seeds of the ec->n_modules training modules of cfg->manifest (its second
// column names each module's family) from the baselines file
// cfg->expit_seed_baselines ("default": data/baselines.yaml, as mqss eval
// finds it), into *out (n_modules demos, malloc'ed; n = 0, STOP, where the
// family pipeline is empty; n = -1 where there is none: no family
// pipeline, one the catalog cannot express, or one failing on the module).
// Each seed is pruned on its module (demo_prune).
// *recipes (n_modules ints, malloc'ed) gets, for each seeded module, the
// catalog's recipe action of the same pipeline text as its family's
// (catalog_recipe_action; pooling's is depthwise's), else -1: one decision
// that does what the seed does.
mqss_status expit_seeds(mqss_session *s, const train_config *cfg,
                        const episode_ctx *ec, demo **out, int **recipes,
                        expit_seed_counts *counts);

#endif // MQSS_RL_EXPIT_SEED_H
