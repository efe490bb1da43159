// The static half of the output check's error model: the rounding depth D of
// a module, an upper estimate of how many floating-point roundings feed one
// output value (docs/MEASURE.md, "Correctness check"). The dynamic half, the
// magnitude run, is in measure.c; the bound itself is applied in compare.c.
// It does not run or compare anything.
//
// D is the sum over every floating-point op of
//   weight(op) * product of the accumulation extents around it,
// where weight is 1 for arithmetic and MATH_WEIGHT for math.* functions, and
// the accumulation extents are: the reduction extent of an enclosing linalg
// op (iteration points per output element), and the trip count of an
// enclosing loop that accumulates (it has iter_args, or its body stores to a
// location its induction variable does not address: a reduction or time
// loop). A trip count that is not a constant counts LOOP_UNKNOWN_TRIPS. The
// sum over all ops over-estimates chained layers and independent branches
// alike, which errs on the side of accepting correct code.
#include "measure.h"

#include "features/irscan.h"
#include "util/ptr_map.h"

#include <math.h>

enum { MATH_WEIGHT = 8, INDEX_SLICE_DEPTH = 4 };
#define LOOP_UNKNOWN_TRIPS 1024.0
#define DEPTH_MAX 1e12

static MlirStringRef op_name(MlirOperation op) {
  return mlirIdentifierStr(mlirOperationGetName(op));
}

static bool is_float_type(MlirType t) {
  int c = elem_class(t);
  return c >= 0 && c <= 3; // f16, bf16, f32, f64 (scalars and shaped)
}

// ----------------------------------------------------------------------------
// accumulating loops

// True when `v` is `iv` or computed from it within INDEX_SLICE_DEPTH ops.
static bool depends_on(MlirValue v, MlirValue iv, int depth) {
  if (mlirValueEqual(v, iv))
    return true;
  if (depth == 0 || !mlirValueIsAOpResult(v))
    return false;
  MlirOperation def = mlirOpResultGetOwner(v);
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(def); i++)
    if (depends_on(mlirOperationGetOperand(def, i), iv, depth - 1))
      return true;
  return false;
}

static bool is_store(MlirStringRef n) {
  return name_is(n, "memref.store") || name_is(n, "affine.store");
}

typedef struct {
  ptr_map acc; // loop op -> 1 when it accumulates
  int nops;
  double depth;
} scan;

static MlirWalkResult count_ops(MlirOperation op, void *user) {
  (void)op;
  ((scan *)user)->nops++;
  return MlirWalkResultAdvance;
}

// A store marks every enclosing for-loop whose induction variable none of its
// indices (operands 2..) depends on.
static MlirWalkResult mark_loops(MlirOperation op, void *user) {
  scan *s = user;
  if (!is_store(op_name(op)))
    return MlirWalkResultAdvance;
  for (MlirOperation p = mlirOperationGetParentOperation(op);
       !mlirOperationIsNull(p); p = mlirOperationGetParentOperation(p)) {
    int kind = loop_kind(op_name(p));
    if (kind != LOOP_AFFINE_FOR && kind != LOOP_SCF_FOR)
      continue;
    MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(p, 0));
    MlirValue iv = mlirBlockGetArgument(body, 0);
    bool addressed = false;
    for (intptr_t i = 2; i < mlirOperationGetNumOperands(op) && !addressed; i++)
      addressed = depends_on(mlirOperationGetOperand(op, i), iv,
                             INDEX_SLICE_DEPTH);
    if (!addressed)
      ptr_map_put(&s->acc, p.ptr, 1);
  }
  return MlirWalkResultAdvance;
}

// How many times an enclosing op `p` repeats the roundings inside it for one
// output value.
static double extent(const scan *s, MlirOperation p) {
  MlirStringRef n = op_name(p);
  int kind = loop_kind(n);
  if (kind == LOOP_WHILE)
    return LOOP_UNKNOWN_TRIPS;
  if (kind != LOOP_NONE) {
    bool acc = mlirOperationGetNumResults(p) > 0 || ptr_map_get(&s->acc, p.ptr) == 1;
    double trips;
    if (!acc)
      return 1.0;
    return loop_trip_count(p, kind, &trips) ? fmax(trips, 1.0) : LOOP_UNKNOWN_TRIPS;
  }
  linalg_info li;
  if (linalg_domain(p, &li) && li.reduction > 0) {
    intptr_t nops = mlirOperationGetNumOperands(p);
    double out = static_numel(mlirValueGetType(mlirOperationGetOperand(p, nops - 1)));
    return fmax(li.domain / fmax(out, 1.0), 1.0);
  }
  return 1.0;
}

static MlirWalkResult add_op(MlirOperation op, void *user) {
  scan *s = user;
  MlirStringRef n = op_name(op);
  if (!name_is_compute(n) || mlirOperationGetNumResults(op) < 1 ||
      !is_float_type(mlirValueGetType(mlirOperationGetResult(op, 0))))
    return MlirWalkResultAdvance;
  double d = name_has_prefix(n, "math.") ? MATH_WEIGHT : 1.0;
  for (MlirOperation p = mlirOperationGetParentOperation(op);
       !mlirOperationIsNull(p) && d < DEPTH_MAX;
       p = mlirOperationGetParentOperation(p))
    d *= extent(s, p);
  s->depth = fmin(s->depth + d, DEPTH_MAX);
  return MlirWalkResultAdvance;
}

double error_depth(mqss_module *m) {
  MlirOperation root = mlirModuleGetOperation(m->mod);
  scan s = {0};
  mlirOperationWalk(root, count_ops, &s, MlirWalkPreOrder);
  if (!ptr_map_init(&s.acc, s.nops))
    return LOOP_UNKNOWN_TRIPS; // out of memory: a generous fallback
  mlirOperationWalk(root, mark_loops, &s, MlirWalkPreOrder);
  mlirOperationWalk(root, add_op, &s, MlirWalkPreOrder);
  ptr_map_free(&s.acc);
  return fmax(s.depth, 1.0);
}
