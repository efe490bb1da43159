// The feature layout: the one table that names every index of the state
// vector and every column of the graph's nodes, with a one-line description
// each, and the versions of that layout that trained policies may carry.
// features.c and graph.c write values at these indices; `mqss features
// --doc` renders the tables as docs/FEATURES.md, so code and documentation
// cannot drift. It computes no feature values.
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
  case F_DIV:
    snprintf(out, len, "%sT%d", prefix, feature_tile_size(k));
    break;
  case F_FOCUS_EXT:
    snprintf(out, len, "%s%d", prefix, k + 1);
    break;
  case F_FOCUS_DIV:
    snprintf(out, len, "%sl%d.T%d", prefix, k / N_TILES + 1,
             feature_tile_size(k % N_TILES));
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

int feature_tile_size(int k) {
  static const int sizes[N_TILES] = {2,  4,  6,  7,   8,   14,  16, 28,
                                     32, 56, 64, 112, 128, 256, 512};
  return k >= 0 && k < N_TILES ? sizes[k] : 0;
}

// ----------------------------------------------------------------------------
// graph node columns

static const struct {
  const char *name, *doc;
} node_cols[] = {
#define X(id, name, doc) {name, doc},
    NODE_TABLE(X)
#undef X
};

const char *mqss_graph_feature_name(int i) {
  return i >= 0 && i < N_NODE_TOTAL ? node_cols[i].name : NULL;
}

const char *mqss_graph_feature_doc(int i) {
  return i >= 0 && i < N_NODE_TOTAL ? node_cols[i].doc : NULL;
}

// ----------------------------------------------------------------------------
// versions and their hashes

static uint64_t fnv1a(uint64_t h, const char *s) {
  for (size_t k = 0; k <= strlen(s); k++) {
    h ^= (unsigned char)s[k];
    h *= 0x100000001b3ULL;
  }
  return h;
}

// The node columns as the hash of v2 spelled them; from v3 on the string is
// "graph nodes vN:" and the column names of NODE_TABLE.
static const char *const GRAPH_NODES_V2 =
    "graph nodes v2: kind/count is_block operands results regions depth uses "
    "rank numel float memref tensor";

// version, state_dim, node_dim, kind_scale (v2: the 98 kinds of its
// vocabulary); the hash is filled in by build_versions.
static feature_layout versions[] = {
    {2, 256, 12, 98, 0},
    {3, MQSS_FEATURE_DIM, MQSS_GRAPH_FEATURE_DIM, 0, 0},
};
enum { N_VERSIONS = sizeof versions / sizeof *versions };

static void build_versions(void) {
  ensure_built();
  for (int v = 0; v < N_VERSIONS; v++) {
    uint64_t h = 0xcbf29ce484222325ULL;
    for (int i = 0; i < versions[v].state_dim; i++)
      h = fnv1a(h, names[i]);
    if (versions[v].version == 2) {
      h = fnv1a(h, GRAPH_NODES_V2);
    } else {
      char head[32];
      snprintf(head, sizeof head, "graph nodes v%d:", versions[v].version);
      h = fnv1a(h, head);
      for (int c = 0; c < versions[v].node_dim; c++)
        h = fnv1a(h, node_cols[c].name);
    }
    versions[v].hash = h;
  }
}

int feature_layouts(const feature_layout **out) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, build_versions);
  *out = versions;
  return N_VERSIONS;
}

const feature_layout *feature_layout_of_hash(uint64_t hash) {
  const feature_layout *all;
  int n = feature_layouts(&all);
  for (int v = 0; v < n; v++)
    if (all[v].hash == hash)
      return &all[v];
  return NULL;
}

uint64_t mqss_feature_layout_hash(void) {
  const feature_layout *all;
  int n = feature_layouts(&all);
  return all[n - 1].hash;
}

int mqss_feature_layout_version(void) {
  const feature_layout *all;
  int n = feature_layouts(&all);
  return all[n - 1].version;
}
