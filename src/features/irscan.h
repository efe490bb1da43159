// Readers of single IR facts for the feature extractor and the graph
// builder (irscan.c): names, element types, shapes, constant loop bounds,
// linalg iteration domains, and the functions the state skips. None of them
// walks the whole module.
#ifndef MQSS_FEATURES_IRSCAN_H
#define MQSS_FEATURES_IRSCAN_H

#include "internal.h"

bool name_is(MlirStringRef n, const char *s);
bool name_has_prefix(MlirStringRef n, const char *s);
bool name_contains(MlirStringRef n, const char *s);

// Element-type class of a scalar or shaped type: 0 f16, 1 bf16, 2 f32, 3 f64,
// 4 i1, 5 i8, 6 i16, 7 i32, 8 i64, 9 index, 10 other.
int elem_class(MlirType t);
// Bytes of one element (index counts as 8).
double elem_bytes(MlirType t);
// Product of the static dimensions (dynamic ones count as 1); 1 for scalars.
double static_numel(MlirType t);
// Static size of dimension i, or 1 when dynamic, unranked or out of range.
int64_t dim_size(MlirType t, intptr_t i);
// Rank of a ranked shaped type, else 0.
int type_rank(MlirType t);

enum {
  LOOP_NONE,
  LOOP_AFFINE_FOR,
  LOOP_AFFINE_PAR,
  LOOP_SCF_FOR,
  LOOP_SCF_PAR,
  LOOP_WHILE
};
// Which loop op `n` is (LOOP_NONE for other ops).
int loop_kind(MlirStringRef n);
// The static trip count of a loop (the product over the dimensions of a
// parallel loop); false when a bound or step is not a constant.
bool loop_trip_count(MlirOperation op, int kind, double *out);

typedef struct {
  double domain;       // iteration-space points (static dims; dynamic as 1)
  int parallel;        // parallel iterators
  int reduction;       // reduction iterators
  bool is_generic, is_conv, is_pool;
} linalg_info;
// Fills `li` for a structured linalg op (generic: from indexing_maps and
// iterator_types; named ops: from operand shapes). False for other ops.
bool linalg_domain(MlirOperation op, linalg_info *li);
// Largest entry of integer-array attribute `name`; 1 when absent.
int64_t attr_max_int(MlirOperation op, const char *name);

// ----------------------------------------------------------------------------
// per-walk classification of op names

// Everything the walks derive from an op's name alone.
typedef struct {
  int kind;           // op_kind_id
  int loop;           // loop_kind
  int access;         // operand index of an accessed memref, -1 if none
  bool store, affine; // for accesses
  bool compute, math, div, cmp, linalg, func, call, reduction;
} op_class;

// Classifies a name (string compares; callers go through name_cache).
void op_class_of(MlirStringRef n, op_class *c);
// True for ops counted as computation (arith except constants and casts,
// math, vector fma/contract/reduction).
bool name_is_compute(MlirStringRef n);

// Open-addressed cache keyed by the interned name identifier of an op, so a
// walk classifies each distinct op name once. Per call (stack or scratch),
// never shared between threads. Zero-initialise.
enum { NAME_CACHE_SIZE = 256 }; // power of two
typedef struct {
  const void *key[NAME_CACHE_SIZE];
  op_class val[NAME_CACHE_SIZE];
  int used;
} name_cache;

// The class of op's name; `tmp` holds it when the cache is full.
const op_class *name_class(name_cache *c, MlirOperation op, op_class *tmp);

// ----------------------------------------------------------------------------
// cost and shape of one linalg op (opinfo.c)

enum { OP_SHAPE_MAX_LOOPS = 8 }; // LINALG_MAX_RANK

typedef struct {
  linalg_info li;
  double flops, bytes; // estimated per execution of the op
  int n_loops;         // loops whose extents are known, 0 for other kinds
  int64_t ext[OP_SHAPE_MAX_LOOPS]; // (n_loops) static extents, -1 dynamic
  bool tagged;         // carries an mqss.id tag
  bool tiled;          // a schedule tiled it (carries mqss.tiled)
} op_shape;

// Fills `out` for a structured linalg op; false for other ops.
bool op_shape_of(MlirOperation op, name_cache *names, op_shape *out);
// Extent of loop -k (k = 1: innermost), or -1 when dynamic or absent.
int64_t op_shape_inner(const op_shape *s, int k);
// log2(1 + flops / bytes) / 8, 0 without bytes.
double op_shape_intensity(const op_shape *s);
// The focus rule, in one place for the state (features.c) and the
// decisions (focus.c): an op is a candidate when its loops are known and
// no schedule has tiled it yet; among candidates the one with the most
// flops per execution wins, the first in walk order on a tie. True when
// `cand` beats `best` (NULL: no focus yet).
bool op_shape_focus_better(const op_shape *cand, const op_shape *best);
// Bit k set when feature_tile_size(k) divides ext (none for ext <= 0).
unsigned tile_div_bits(int64_t ext);

// ----------------------------------------------------------------------------
// what the state leaves out (harness.c)

enum { STATE_SKIP_MAX = 16 }; // further ones are described
typedef struct {
  const void *op[STATE_SKIP_MAX]; // the skipped functions' operations
  int n;
} state_skip;

// The top-level functions of `scope` (a builtin.module; none for other ops)
// that the state, the graph and the focus rule skip: body-less declarations
// and test harnesses (a public function with a body, no arguments and no
// results, beside a public function with a body and arguments or results:
// an integration test's @main beside its kernel).
void state_skip_find(MlirOperation scope, state_skip *out);
bool state_skip_has(const state_skip *s, MlirOperation op);

#endif // MQSS_FEATURES_IRSCAN_H
