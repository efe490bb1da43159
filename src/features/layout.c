// The state-vector layout: the one table that names every index of the 256
// features, with a one-line description each. features.c writes values at
// these indices; `mqss features --doc` renders this table as
// docs/FEATURES.md, so code and documentation cannot drift. It computes no
// feature values.
#include "features/layout.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

// ----------------------------------------------------------------------------
// names of group members

static const char *const elem_names[N_ELEM] = {
    "f16", "bf16", "f32", "f64", "i1", "i8", "i16", "i32", "i64", "index",
    "other"};

static const struct {
  int first, count;
  const char *prefix;
  const char *doc;
} groups[] = {
#define X(id, name, doc)
#define G(id, count, prefix, doc) {F_##id, count, prefix, doc},
    FEATURE_TABLE(X, G)
#undef X
#undef G
};

static const struct {
  int index;
  const char *name, *doc;
} scalars[] = {
#define X(id, name, doc) {F_##id, name, doc},
#define G(id, count, prefix, doc)
    FEATURE_TABLE(X, G)
#undef X
#undef G
};

// ----------------------------------------------------------------------------
// the table, built once

static char names[MQSS_FEATURE_DIM][64];
static const char *docs[MQSS_FEATURE_DIM];

static void member_name(int g, int k, char *out, size_t len) {
  const char *prefix = groups[g].prefix;
  switch (groups[g].first) {
  case F_OP:
    snprintf(out, len, "%s%s", prefix, mqss_op_kind_name(k));
    break;
  case F_STAGE:
    snprintf(out, len, "%s%s", prefix, mqss_stage_name(k));
    break;
  case F_ELEM:
    snprintf(out, len, "%s%s", prefix, elem_names[k]);
    break;
  case F_LAST:
    snprintf(out, len, "%s%d", prefix, k + 1);
    break;
  case F_COUNT:
    if (k == N_COUNT - 1)
      snprintf(out, len, "%soverflow", prefix);
    else
      snprintf(out, len, "%s%d", prefix, k);
    break;
  default:
    snprintf(out, len, "%s%d", prefix, k);
  }
}

static void build(void) {
  for (size_t g = 0; g < sizeof groups / sizeof *groups; g++)
    for (int k = 0; k < groups[g].count; k++) {
      member_name((int)g, k, names[groups[g].first + k], sizeof names[0]);
      docs[groups[g].first + k] = groups[g].doc;
    }
  for (size_t i = 0; i < sizeof scalars / sizeof *scalars; i++) {
    snprintf(names[scalars[i].index], sizeof names[0], "%s", scalars[i].name);
    docs[scalars[i].index] = scalars[i].doc;
  }
}

static void ensure_built(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, build);
}

const char *mqss_feature_name(int i) {
  if (i < 0 || i >= MQSS_FEATURE_DIM)
    return NULL;
  ensure_built();
  return names[i];
}

const char *mqss_feature_doc(int i) {
  if (i < 0 || i >= MQSS_FEATURE_DIM)
    return NULL;
  ensure_built();
  return docs[i];
}

// The graph's node-feature columns (mqss.h, mqss_graph), hashed with the
// state's names: change it whenever a column changes meaning.
static const char *const GRAPH_NODE_LAYOUT =
    "graph nodes v2: kind/count is_block operands results regions depth uses "
    "rank numel float memref tensor";

static uint64_t fnv1a(uint64_t h, const char *s) {
  for (size_t k = 0; k <= strlen(s); k++) {
    h ^= (unsigned char)s[k];
    h *= 0x100000001b3ULL;
  }
  return h;
}

uint64_t mqss_feature_layout_hash(void) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (int i = 0; i < MQSS_FEATURE_DIM; i++)
    h = fnv1a(h, mqss_feature_name(i));
  return fnv1a(h, GRAPH_NODE_LAYOUT);
}
