// Expert iteration's seeds (expit_seed.h). A family's pipeline is decoded
// once (demo.c); each module then prunes its copy, since which passes change
// nothing depends on the module.
#include "rl/expit_seed.h"
#include "eval/eval.h"
#include "util/manifest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_FAMILIES = 64 };

typedef struct {
  char name[64];
  int ok; // 1: decoded into d (STOP, no decisions, for an empty pipeline);
          // 0: unmatched
  int recipe; // the catalog's recipe action of the same pipeline, or -1
  demo d;
} family_seed;

mqss_status expit_read_families(mqss_session *s, const char *manifest,
                                char (*fam)[64], int n) {
  manifest_list m;
  mqss_status st = manifest_read(s, manifest, &m);
  for (int i = 0; st == MQSS_OK && i < n && i < m.n; i++)
    snprintf(fam[i], 64, "%s", m.v[i].family);
  manifest_free(&m);
  return st;
}

// The decoded seed of family `name` (decoded on first use), NULL if none.
static const family_seed *family(const mqss_catalog *c,
                                 const mqss_baselines *b, family_seed *fs,
                                 int *n_fs, const char *name,
                                 expit_seed_counts *counts) {
  for (int k = 0; k < *n_fs; k++)
    if (!strcmp(fs[k].name, name))
      return fs[k].ok ? &fs[k] : NULL;
  if (*n_fs == MAX_FAMILIES)
    return NULL;
  family_seed *f = &fs[(*n_fs)++];
  snprintf(f->name, sizeof f->name, "%s", name);
  const char *pipeline = name[0] ? mqss_baselines_pipeline(b, name) : NULL;
  f->recipe = catalog_recipe_action(c, baselines_raw_pipeline(b, name));
  f->d.n = 0; // an empty pipeline: no passes, STOP
  f->ok = pipeline && (!pipeline[0] || demo_of(c, pipeline, &f->d) == 0);
  if (pipeline && pipeline[0] && !f->ok && !counts->unmatched++)
    snprintf(counts->unmatched_family, sizeof counts->unmatched_family, "%s",
             name);
  return f->ok ? f : NULL;
}

mqss_status expit_seeds(mqss_session *s, const train_config *cfg,
                        const episode_ctx *ec, demo **out, int **recipes,
                        expit_seed_counts *counts) {
  int n = ec->n_modules;
  double t0 = now_ms();
  memset(counts, 0, sizeof *counts);
  *out = NULL;
  *recipes = NULL;
  const char *path = strcmp(cfg->expit_seed_baselines, "default")
                         ? cfg->expit_seed_baselines
                         : eval_default_baselines_path();
  demo *seeds = malloc((size_t)(n > 0 ? n : 1) * sizeof *seeds);
  int *recipe = malloc((size_t)(n > 0 ? n : 1) * sizeof *recipe);
  char (*fam)[64] = calloc((size_t)(n > 0 ? n : 1), sizeof *fam);
  family_seed *fs = calloc(MAX_FAMILIES, sizeof *fs);
  mqss_baselines *b = NULL;
  mqss_status st = seeds && recipe && fam && fs ? MQSS_OK
                                      : fail(s, MQSS_ERR_NOMEM, "out of memory");
  if (st == MQSS_OK)
    st = mqss_baselines_load(s, path, &b);
  if (st == MQSS_OK)
    st = expit_read_families(s, cfg->manifest, fam, n);
  int n_fs = 0;
  for (int i = 0; st == MQSS_OK && i < n; i++) {
    seeds[i].n = -1;
    recipe[i] = -1;
    const family_seed *f = family(ec->catalog, b, fs, &n_fs, fam[i], counts);
    if (!f)
      continue;
    const demo *d = &f->d;
    if (d->n == 0) { // the family's baseline is no passes
      seeds[i].n = 0;
      counts->stops++;
      continue;
    }
    demo pruned = *d;
    int adapted = 0;
    mqss_status ps = demo_prune(s, ec->catalog, ec->module_paths[i], &pruned,
                                cfg->expit_adapt_sizes ? &adapted : NULL);
    if (ps == MQSS_ERR_PARSE) {
      st = ps;
    } else if (ps != MQSS_OK) {
      if (!counts->refused++)
        snprintf(counts->refused_first, sizeof counts->refused_first,
                 "%s: %s", ec->module_paths[i], mqss_errmsg(s));
    } else {
      seeds[i] = pruned;
      recipe[i] = f->recipe;
      counts->recipes += f->recipe >= 0;
      counts->seeded++;
      counts->decisions += pruned.n;
      counts->steps += d->n;
      counts->adapted += adapted;
    }
  }
  mqss_baselines_destroy(b);
  free(fam);
  free(fs);
  if (st != MQSS_OK) {
    free(seeds);
    free(recipe);
    return st;
  }
  *out = seeds;
  *recipes = recipe;
  counts->seconds = (now_ms() - t0) / 1e3;
  return MQSS_OK;
}
