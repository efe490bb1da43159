// The IR graph for the GraphSAGE encoder: a node per op and per block of the
// live module, undirected use-def, op<->block and block<->parent-op edges,
// per-node features (columns: NODE_TABLE in layout.h), stored as CSR (see
// mqss_graph in mqss.h). It does not aggregate or learn anything; src/nn
// does.
#include "features/irscan.h"
#include "features/layout.h"
#include "util/ptr_map.h"

#include <math.h>
#include <mlir-c/BuiltinTypes.h>
#include <stdlib.h>
#include <string.h>

// ----------------------------------------------------------------------------
// collecting nodes and edges

typedef struct {
  int a, b;
} edge;

typedef struct {
  MlirOperation op;
  int depth;          // nesting depth, the module op is 0
  int block;          // index of the containing block, -1 at the root
} op_node;

typedef struct {
  MlirBlock block;
  int owner;          // index of the op owning the block's region
} block_node;

typedef struct {
  op_node *ops;       // (n_ops) in pre-order
  int n_ops, cap_ops;
  block_node *blocks; // (n_blocks)
  int n_blocks, cap_blocks;
  edge *edges;        // (n_edges) directed; each undirected edge twice
  int n_edges, cap_edges;
  state_skip skip;    // top-level functions left out (harness.c)
  bool oom;
} builder;

static bool grow(void **p, int *cap, int need, size_t elem) {
  if (need <= *cap)
    return true;
  int cap2 = *cap ? *cap * 2 : 64;
  while (cap2 < need)
    cap2 *= 2;
  void *q = realloc(*p, (size_t)cap2 * elem);
  if (!q)
    return false;
  *p = q;
  *cap = cap2;
  return true;
}

static void collect(builder *g, MlirOperation op, int depth, int block) {
  int n = g->n_ops;
  if (!grow((void **)&g->ops, &g->cap_ops, n + 1, sizeof *g->ops)) {
    g->oom = true;
    return;
  }
  g->ops[g->n_ops++] = (op_node){op, depth, block};
  for (intptr_t r = 0; r < mlirOperationGetNumRegions(op); r++)
    for (MlirBlock b = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, r));
         !mlirBlockIsNull(b); b = mlirBlockGetNextInRegion(b)) {
      int k = g->n_blocks;
      if (!grow((void **)&g->blocks, &g->cap_blocks, k + 1,
                sizeof *g->blocks)) {
        g->oom = true;
        return;
      }
      g->blocks[g->n_blocks++] = (block_node){b, n};
      for (MlirOperation c = mlirBlockGetFirstOperation(b);
           !mlirOperationIsNull(c); c = mlirOperationGetNextInBlock(c))
        if (depth > 0 || !state_skip_has(&g->skip, c))
          collect(g, c, depth + 1, k);
    }
}

static void add_edge(builder *g, int a, int b) {
  if (a == b)
    return;
  if (!grow((void **)&g->edges, &g->cap_edges, g->n_edges + 2,
            sizeof *g->edges)) {
    g->oom = true;
    return;
  }
  g->edges[g->n_edges++] = (edge){a, b};
  g->edges[g->n_edges++] = (edge){b, a};
}

static int cmp_int(const void *x, const void *y) {
  int a = *(const int *)x, b = *(const int *)y;
  return (a > b) - (a < b);
}

// Sorts v (n) ascending: insertion sort for short rows, qsort otherwise.
static void sort_row(int *v, int n) {
  if (n > 24) {
    qsort(v, (size_t)n, sizeof *v, cmp_int);
    return;
  }
  for (int i = 1; i < n; i++) {
    int x = v[i], j = i - 1;
    while (j >= 0 && v[j] > x) {
      v[j + 1] = v[j];
      j--;
    }
    v[j + 1] = x;
  }
}

// ----------------------------------------------------------------------------
// node features

// (float)log1p(n) of a count: the small counts every node has (operands,
// results, regions, uses, block arguments) from a table, the same floats.
static float log1p_count(intptr_t n) {
  static const float small[17] = {
      0.0f,        0.693147182f, 1.09861231f, 1.38629436f, 1.60943794f,
      1.79175949f, 1.9459101f,   2.07944155f, 2.19722462f, 2.30258512f,
      2.39789534f, 2.48490667f,  2.56494927f, 2.6390574f,  2.70805025f,
      2.77258873f, 2.83321333f};
  return n >= 0 && n <= 16 ? small[n] : (float)log1p((double)n);
}

static void type_features(float *x, MlirType t) {
  x[N_RANK] = (float)type_rank(t) / 4.0f;
  x[N_NUMEL] = (float)(log1p(static_numel(t)) / 16.0);
  int ec = elem_class(t);
  x[N_FLOAT] = ec <= 3;
  x[N_MEMREF] = mlirTypeIsAMemRef(t);
  x[N_TENSOR] = mlirTypeIsATensor(t);
}

// Cost, tag and loop extents of a linalg op.
static void shape_features(float *x, const op_shape *sh) {
  x[N_FLOPS] = (float)(log10(1.0 + sh->flops) / 12);
  x[N_INTENSITY] = (float)op_shape_intensity(sh);
  x[N_TAGGED] = sh->tagged;
  for (int k = 1; k <= 3; k++) {
    int64_t e = op_shape_inner(sh, k);
    x[N_EXT1 + k - 1] = e > 0 ? (float)(log2(1.0 + (double)e) / 12) : 0;
    unsigned bits = tile_div_bits(e);
    int top = -1;
    for (int t = 0; t < N_TILES; t++)
      if ((bits >> t) & 1u)
        top = t;
    x[N_DIV1 + k - 1] =
        top < 0 ? 0 : (float)(log2((double)feature_tile_size(top)) / 9);
  }
}

// Returns the op-kind id, which x[N_KIND] holds too.
static int op_features(float *x, MlirOperation op, int depth,
                       name_cache *names) {
  op_class tmp;
  const op_class *cl = name_class(names, op, &tmp);
  int kind = cl->kind;
  bool linalg = cl->linalg;
  x[N_KIND] = (float)kind;
  x[N_IS_BLOCK] = 0;
  x[N_OPERANDS] = log1p_count(mlirOperationGetNumOperands(op));
  x[N_RESULTS] = log1p_count(mlirOperationGetNumResults(op));
  x[N_REGIONS] = log1p_count(mlirOperationGetNumRegions(op));
  x[N_DEPTH] = (float)depth / 8.0f;
  intptr_t uses = 0;
  for (intptr_t i = 0; i < mlirOperationGetNumResults(op); i++)
    for (MlirOpOperand u = mlirValueGetFirstUse(mlirOperationGetResult(op, i));
         !mlirOpOperandIsNull(u); u = mlirOpOperandGetNextUse(u))
      uses++;
  x[N_USES] = log1p_count(uses);
  if (mlirOperationGetNumResults(op))
    type_features(x, mlirValueGetType(mlirOperationGetResult(op, 0)));
  op_shape sh;
  if (linalg && op_shape_of(op, names, &sh))
    shape_features(x, &sh);
  return kind;
}

static void block_features(float *x, MlirBlock b, int depth) {
  x[N_KIND] = -1;
  x[N_IS_BLOCK] = 1;
  x[N_OPERANDS] = log1p_count(mlirBlockGetNumArguments(b));
  x[N_DEPTH] = (float)depth / 8.0f;
  if (mlirBlockGetNumArguments(b))
    type_features(x, mlirValueGetType(mlirBlockGetArgument(b, 0)));
}

// ----------------------------------------------------------------------------
// build

static mqss_status finish(builder *g, mqss_graph *out, name_cache *names) {
  int n = g->n_ops + g->n_blocks, d = MQSS_GRAPH_FEATURE_DIM;
  out->n_nodes = n;
  out->n_ops = g->n_ops;
  out->dim = d;
  out->x = calloc((size_t)n * d, sizeof *out->x);
  out->row_ptr = calloc((size_t)n + 1, sizeof *out->row_ptr);
  out->kind = calloc((size_t)n, sizeof *out->kind);
  out->col = malloc(((size_t)g->n_edges + 1) * sizeof *out->col);
  if (!out->x || !out->row_ptr || !out->kind || !out->col)
    return MQSS_ERR_NOMEM;
  for (int i = 0; i < g->n_ops; i++) {
    out->kind[i] =
        op_features(out->x + (size_t)i * d, g->ops[i].op, g->ops[i].depth, names);
  }
  for (int k = 0; k < g->n_blocks; k++) {
    int node = g->n_ops + k;
    block_features(out->x + (size_t)node * d, g->blocks[k].block,
                   g->ops[g->blocks[k].owner].depth);
    out->kind[node] = -1;
  }
  // Bucket edges by source (counting sort), then sort and deduplicate each
  // row: CSR rows in ascending neighbour order.
  for (int e = 0; e < g->n_edges; e++)
    out->row_ptr[g->edges[e].a + 1]++;
  for (int i = 0; i < n; i++)
    out->row_ptr[i + 1] += out->row_ptr[i];
  int *fill = malloc(((size_t)n + 1) * sizeof *fill);
  if (!fill)
    return MQSS_ERR_NOMEM;
  memcpy(fill, out->row_ptr, (size_t)n * sizeof *fill);
  for (int e = 0; e < g->n_edges; e++)
    out->col[fill[g->edges[e].a]++] = g->edges[e].b;
  free(fill);
  int nnz = 0;
  for (int i = 0; i < n; i++) {
    int lo = out->row_ptr[i], hi = out->row_ptr[i + 1];
    sort_row(out->col + lo, hi - lo);
    out->row_ptr[i] = nnz;
    for (int e = lo; e < hi; e++)
      if (e == lo || out->col[e] != out->col[e - 1])
        out->col[nnz++] = out->col[e];
  }
  out->row_ptr[n] = nnz;
  out->nnz = nnz;
  return MQSS_OK;
}

static void builder_free(builder *g) {
  free(g->ops);
  free(g->blocks);
  free(g->edges);
}

mqss_status mqss_graph_build(const mqss_module *m, mqss_graph **out) {
  if (!m || !out)
    return m ? fail(m->session, MQSS_ERR_INVALID_ARG, "graph: NULL argument")
             : MQSS_ERR_INVALID_ARG;
  *out = NULL;
  builder g = {0};
  MlirOperation root = mlirModuleGetOperation(m->mod);
  state_skip_find(root, &g.skip);
  collect(&g, root, 0, -1);
  mqss_status st = g.oom ? MQSS_ERR_NOMEM : MQSS_OK;
  // Lookup tables: op pointer -> node, block pointer -> node.
  ptr_map ops = {0}, blocks = {0};
  if (st == MQSS_OK &&
      (!ptr_map_init(&ops, g.n_ops) || !ptr_map_init(&blocks, g.n_blocks)))
    st = MQSS_ERR_NOMEM;
  if (st == MQSS_OK) {
    for (int i = 0; i < g.n_ops; i++)
      ptr_map_put(&ops, g.ops[i].op.ptr, i);
    for (int k = 0; k < g.n_blocks; k++)
      ptr_map_put(&blocks, g.blocks[k].block.ptr, g.n_ops + k);
    for (int k = 0; k < g.n_blocks; k++) // block <-> op owning its region
      add_edge(&g, g.n_ops + k, g.blocks[k].owner);
    for (int i = 0; i < g.n_ops; i++) {
      MlirOperation op = g.ops[i].op;
      if (g.ops[i].block >= 0) // op <-> its block
        add_edge(&g, i, g.n_ops + g.ops[i].block);
      intptr_t n_opd = mlirOperationGetNumOperands(op);
      for (intptr_t k = 0; k < n_opd; k++) {
        MlirValue v = mlirOperationGetOperand(op, k);
        int src = mlirValueIsAOpResult(v)
                      ? ptr_map_get(&ops, mlirOpResultGetOwner(v).ptr)
                      : ptr_map_get(&blocks, mlirBlockArgumentGetOwner(v).ptr);
        if (src >= 0) // producer <-> user
          add_edge(&g, src, i);
      }
    }
    if (g.oom)
      st = MQSS_ERR_NOMEM;
  }
  name_cache *names = st == MQSS_OK ? calloc(1, sizeof *names) : NULL;
  mqss_graph *graph = calloc(1, sizeof *graph);
  if (st == MQSS_OK && (!graph || !names || finish(&g, graph, names) != MQSS_OK))
    st = MQSS_ERR_NOMEM;
  free(names);
  ptr_map_free(&ops);
  ptr_map_free(&blocks);
  builder_free(&g);
  if (st != MQSS_OK) {
    mqss_graph_destroy(graph);
    return fail(m->session, st, "graph: out of memory");
  }
  *out = graph;
  return MQSS_OK;
}

void mqss_graph_destroy(mqss_graph *g) {
  if (!g)
    return;
  free(g->x);
  free(g->row_ptr);
  free(g->col);
  free(g->kind);
  free(g);
}
