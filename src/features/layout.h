// The state-vector layout as an X-macro table: X(id, name, doc) is one
// scalar feature, G(id, count, prefix, doc) a group of `count` consecutive
// features. It generates the F_* index enum used by features.c and the name
// and doc tables in layout.c. Append or resize groups only together with the
// policy format: the layout hash changes. Layouts only grow at the end (the
// state) or on the right (the graph's node columns), so an older layout is a
// prefix of the newer one and a trained policy can be migrated
// (src/policy/migrate.c): the versions table in layout.c lists them all.
#ifndef MQSS_FEATURES_LAYOUT_H
#define MQSS_FEATURES_LAYOUT_H

#include "internal.h"

enum {
  N_KINDS = 98,  // op vocabulary: 88 named + 10 buckets (vocab.c)
  N_ELEM = 11,   // element-type classes
  N_COUNT = 70,  // per-action count slots, the last one is the overflow
  N_TILES = 15,  // candidate tile sizes (feature_tile_size): 2 .. 512
  N_INNER = 3,   // innermost loops whose extents the per-op features show
};

#define FEATURE_TABLE(X, G)                                                    \
  /* ---- syntax ---- */                                                       \
  G(OP, N_KINDS, "syn.op.", "fraction of all ops that are of this kind")       \
  X(NUM_OPS, "syn.num_ops", "log10(1 + number of ops) / 6")                    \
  X(NUM_BLOCKS, "syn.num_blocks", "log10(1 + number of blocks) / 5")           \
  X(NUM_REGIONS, "syn.num_regions", "log10(1 + number of regions) / 5")        \
  X(NUM_FUNCS, "syn.num_funcs", "log10(1 + number of func.func) / 3")          \
  X(NUM_VALUES, "syn.num_values",                                              \
    "log10(1 + op results + block arguments) / 6")                             \
  X(DEPTH_MAX, "syn.depth_max", "deepest op nesting (module = 0) / 16")        \
  X(DEPTH_MEAN, "syn.depth_mean", "mean op nesting depth / 16")                \
  X(OPERANDS_MEAN, "syn.operands_mean", "mean operands per op / 8")            \
  X(OPERANDS_MAX, "syn.operands_max", "log2(1 + max operands of an op) / 8")   \
  X(RESULTS_MEAN, "syn.results_mean", "mean results per op / 4")               \
  X(RESULTS_MAX, "syn.results_max", "log2(1 + max results of an op) / 8")      \
  X(REGION_OPS, "syn.region_ops_frac", "fraction of ops that hold regions")    \
  /* ---- semantics ---- */                                                    \
  X(FLOPS, "sem.flops", "log10(1 + estimated flops) / 12: linalg domains "     \
    "x body ops, plus arith/math ops x enclosing static trip counts")          \
  X(BYTES, "sem.bytes", "log10(1 + estimated bytes moved) / 12: linalg "       \
    "operand sizes, plus loads/stores x enclosing trip counts")               \
  X(INTENSITY, "sem.flop_per_byte", "log2(1 + flops / bytes) / 8")             \
  X(LINALG_OPS, "sem.linalg.ops", "log10(1 + structured linalg ops) / 3")      \
  X(LINALG_NAMED, "sem.linalg.named_frac",                                     \
    "fraction of structured linalg ops that are named (not generic)")          \
  X(ITER_PAR, "sem.linalg.parallel_iters",                                     \
    "log2(1 + parallel iterators over all linalg ops) / 8")                    \
  X(ITER_RED, "sem.linalg.reduction_iters",                                    \
    "log2(1 + reduction iterators over all linalg ops) / 8")                   \
  X(ITER_RED_FRAC, "sem.linalg.reduction_frac",                                \
    "reduction iterators / all iterators")                                     \
  X(ITER_MAX, "sem.linalg.iters_max", "most iterators of one linalg op / 8")   \
  X(AFFINE_ACCESS, "sem.mem.affine_frac",                                      \
    "affine.load/store among all scalar and vector loads/stores")              \
  X(LOADS, "sem.mem.loads", "log10(1 + load ops) / 4")                         \
  X(STORES, "sem.mem.stores", "log10(1 + store ops) / 4")                      \
  X(STRIDE_MAX, "sem.conv.stride_max", "largest 'strides' entry / 4")          \
  X(DILATION_MAX, "sem.conv.dilation_max", "largest 'dilations' entry / 4")    \
  X(STRIDED_FRAC, "sem.conv.strided_frac",                                     \
    "fraction of conv/pool ops with a non-unit stride")                        \
  X(DILATED_FRAC, "sem.conv.dilated_frac",                                     \
    "fraction of conv/pool ops with a non-unit dilation")                      \
  X(CONV_OPS, "sem.conv.ops", "log2(1 + linalg conv ops) / 4")                 \
  X(POOL_OPS, "sem.conv.pool_ops", "log2(1 + linalg pooling ops) / 4")         \
  X(LOOPS, "sem.loop.count", "log10(1 + loop ops: affine/scf for, "            \
    "parallel, while) / 3")                                                    \
  X(LOOP_DEPTH_MAX, "sem.loop.depth_max", "deepest loop nest / 8")             \
  X(LOOP_DEPTH_MEAN, "sem.loop.depth_mean", "mean loop depth of loops / 8")    \
  X(TRIP_MAX, "sem.loop.trip_max", "log10(1 + largest static trip count) / 6") \
  X(TRIP_MEAN, "sem.loop.trip_mean",                                           \
    "log10(1 + mean static trip count) / 6")                                   \
  X(TRIP_STATIC, "sem.loop.static_frac",                                       \
    "fraction of loops whose trip count is a constant")                        \
  X(ITERS_MAX, "sem.loop.iterations_max",                                      \
    "log10(1 + largest product of static trip counts of a nest) / 9")          \
  X(LOOP_AFFINE, "sem.loop.affine_frac", "fraction of loops that are affine")  \
  X(LOOP_SCF, "sem.loop.scf_for_frac", "fraction of loops that are scf.for")   \
  X(LOOP_PAR, "sem.loop.parallel_frac",                                        \
    "fraction of loops that are parallel (scf/affine.parallel)")               \
  X(LOOP_WHILE, "sem.loop.while_frac", "fraction of loops that are scf.while") \
  G(ELEM, N_ELEM, "sem.elem.",                                                 \
    "fraction of shaped values (and scalars) with this element type")          \
  X(RANK_MAX, "sem.shape.rank_max", "highest rank of a shaped value / 4")      \
  X(RANK_MEAN, "sem.shape.rank_mean", "mean rank of shaped values / 4")        \
  X(NUMEL_MAX, "sem.shape.numel_max",                                          \
    "log10(1 + largest static element count) / 9")                             \
  X(DYNAMIC_FRAC, "sem.shape.dynamic_frac",                                    \
    "fraction of shaped values with a dynamic dimension")                      \
  X(TENSOR_FRAC, "sem.shape.tensor_frac", "fraction of values that are tensors") \
  X(MEMREF_FRAC, "sem.shape.memref_frac", "fraction of values that are memrefs") \
  X(VECTOR_FRAC, "sem.shape.vector_frac", "fraction of values that are vectors") \
  X(VECTOR_WIDTH, "sem.shape.vector_width",                                    \
    "log2(1 + largest vector element count) / 8")                              \
  X(CARRIED_ITER, "sem.dep.iter_args_frac",                                    \
    "fraction of loops carrying values (iter_args / while)")                   \
  X(CARRIED_MEM, "sem.dep.memory_frac",                                        \
    "fraction of loops that load and store the same memref")                   \
  X(REDUCTIONS, "sem.dep.reductions", "log2(1 + reduction ops: linalg "        \
    "reduce/reduction iterators, vector reductions, scf.reduce) / 6")          \
  X(CALLS, "sem.calls", "log2(1 + func.call ops) / 6")                         \
  X(MATH_FRAC, "sem.ops.math_frac",                                            \
    "math dialect ops among compute ops (arith + math)")                       \
  X(DIV_FRAC, "sem.ops.div_frac", "divisions and remainders among compute ops") \
  X(CMP_FRAC, "sem.ops.cmp_frac", "compares and selects among compute ops")    \
  X(FLOAT_FRAC, "sem.ops.float_frac", "float arithmetic among compute ops")    \
  X(INT_FRAC, "sem.ops.int_frac", "integer arithmetic among compute ops")      \
  /* ---- context ---- */                                                      \
  G(STAGE, MQSS_NUM_STAGES, "ctx.stage.", "1 when the IR has this stage")      \
  X(STEP, "ctx.step", "actions taken so far / max steps (clipped to 1)")       \
  X(HIST_LEN, "ctx.history_len", "min(actions taken, 10) / 10")                \
  G(LAST, MQSS_HISTORY_LEN, "ctx.last.",                                       \
    "k-th most recent action: (id + 1) / catalog size; 0 when none")           \
  G(COUNT, N_COUNT, "ctx.count.",                                              \
    "times action id was taken / max steps; the last slot sums ids >= 69")  \
  /* ---- per-op shapes (layout v3) ---- */                                   \
  X(LOOPS_STATIC, "op.loops.static_frac",                                      \
    "fraction of the loops of linalg ops (known kinds) with a static extent")  \
  G(DIV, N_TILES, "op.loops.div.",                                             \
    "fraction of static linalg loop extents that tile size T divides")         \
  X(OPI_MAX, "op.intensity_max",                                               \
    "largest flop/byte of one linalg op: log2(1 + flops / bytes) / 8")         \
  X(OPI_MIN, "op.intensity_min",                                               \
    "smallest flop/byte of one linalg op: log2(1 + flops / bytes) / 8")        \
  X(FOCUS, "op.focus.present", "1 when a linalg op has known loops and no "   \
    "schedule tiled it yet; the focus op is the one of them with the most "    \
    "estimated flops, and schedule decisions of its kind address it")          \
  X(FOCUS_FLOPS, "op.focus.flops_frac",                                        \
    "the focus op's share of the module's estimated flops")                    \
  X(FOCUS_INTENSITY, "op.focus.intensity",                                     \
    "flop/byte of the focus op: log2(1 + flops / bytes) / 8")                  \
  X(FOCUS_LOOPS, "op.focus.loops", "loops of the focus op / 8")                \
  X(FOCUS_TAGGED, "op.focus.tagged",                                           \
    "1 when the focus op carries an mqss.id tag (a per-op handle: only then "  \
    "does a decision address it alone)")                                       \
  G(FOCUS_EXT, N_INNER, "op.focus.extent.",                                    \
    "log2(1 + static extent of loop -k of the focus op) / 12 (k = 1 is the "   \
    "innermost); 0 when dynamic or absent")                                    \
  G(FOCUS_DIV, N_INNER * N_TILES, "op.focus.div.",                             \
    "1 when tile size T divides the static extent of loop -k of the focus op")

enum {
#define X(id, name, doc) F_##id,
#define G(id, count, prefix, doc) F_##id, F_##id##_LAST = F_##id + (count)-1,
  FEATURE_TABLE(X, G)
#undef X
#undef G
  F_TOTAL
};

_Static_assert(F_TOTAL == MQSS_FEATURE_DIM, "mqss.h states the state size");

// The graph's node columns (mqss_graph.x), X(id, name, doc). Columns only
// append; column 0 changed meaning at v3 (see layout.c).
#define NODE_TABLE(X)                                                          \
  X(KIND, "kind", "op-kind id (mqss_op_kind_name), -1 for blocks: the row "    \
    "of the model's op-kind embedding, not a numeric input")                   \
  X(IS_BLOCK, "is_block", "1 for a block node")                                \
  X(OPERANDS, "operands", "log1p(operands), for a block log1p(arguments)")     \
  X(RESULTS, "results", "log1p(results)")                                      \
  X(REGIONS, "regions", "log1p(regions)")                                      \
  X(DEPTH, "depth", "nesting depth / 8")                                       \
  X(USES, "uses", "log1p(uses of the results)")                                \
  X(RANK, "rank", "rank of the first result (block: argument) type / 4")       \
  X(NUMEL, "numel", "log1p(static elements of that type) / 16")                \
  X(FLOAT, "float", "1 when that type's element type is a float")             \
  X(MEMREF, "memref", "1 when that type is a memref")                          \
  X(TENSOR, "tensor", "1 when that type is a tensor")                          \
  X(FLOPS, "flops", "linalg ops: log10(1 + estimated flops) / 12")             \
  X(INTENSITY, "intensity", "linalg ops: log2(1 + flops / bytes) / 8")         \
  X(TAGGED, "tagged", "1 when the op carries an mqss.id tag")                  \
  X(EXT1, "extent.1", "log2(1 + static extent of the innermost loop) / 12")    \
  X(EXT2, "extent.2", "the same for loop -2")                                  \
  X(EXT3, "extent.3", "the same for loop -3")                                  \
  X(DIV1, "div.1", "log2(largest candidate tile size dividing the extent of "  \
    "the innermost loop) / 9; 0 when none does or it is dynamic")              \
  X(DIV2, "div.2", "the same for loop -2")                                     \
  X(DIV3, "div.3", "the same for loop -3")

enum {
#define X(id, name, doc) N_##id,
  NODE_TABLE(X)
#undef X
  N_NODE_TOTAL
};

_Static_assert(N_NODE_TOTAL == MQSS_GRAPH_FEATURE_DIM,
               "mqss.h states the node feature size");

// Candidate tile size k (0 <= k < N_TILES), ascending: the powers of two
// 2 .. 512 and the sizes 6, 7, 14, 28, 56, 112 of the register and
// convolution tiles. Every `divisor` value of the shipped catalog except 1
// is one of them (test_features checks).
int feature_tile_size(int k);

// One version of the feature layout. Newer versions extend older ones:
// state indices [0, state_dim) and node columns [1, node_dim) keep their
// meaning; node column 0 holds the op-kind id divided by kind_scale when
// kind_scale > 0 (a numeric input, v2), else the plain id (the embedding
// row, v3 on).
typedef struct {
  int version;
  int state_dim, node_dim;
  int kind_scale;
  uint64_t hash;
} feature_layout;

// The known layouts, oldest first; the last is this build's. Returns the
// count and sets *out (static storage).
int feature_layouts(const feature_layout **out);
// The layout with `hash`, or NULL when no version has it.
const feature_layout *feature_layout_of_hash(uint64_t hash);

#endif // MQSS_FEATURES_LAYOUT_H
