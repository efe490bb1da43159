// Static cost estimate of a module, the potential behind the per-step reward
// shaping (docs/ENV.md): an estimated dynamic op count, where every op counts
// once per iteration of its enclosing loops with static trip counts. It is
// cheap (one walk) and deliberately crude: it sees that vectorising divides
// the op count by the vector width, that unrolling saves loop overhead and
// that canonicalisation removes ops, but not cache effects of tiling. It is
// not a performance model and never replaces the measurement.
#include "features/irscan.h"

#include <math.h>
#include <mlir-c/BuiltinTypes.h>

// ----------------------------------------------------------------------------
// weights per op class

enum { W_FREE = 0, W_OP = 1, W_MEM = 2, W_LOOP = 1 };

// Ops that cost nothing at run time (constants, terminators, declarations,
// address arithmetic).
static bool is_free(MlirStringRef n) {
  static const char *const names[] = {
      "arith.constant", "affine.yield",   "scf.yield",  "func.return",
      "func.func",      "builtin.module", "linalg.yield", "memref.alloc",
      "memref.dealloc", "tensor.empty",   "llvm.return", "scf.reduce",
      "vector.yield",
      // index arithmetic of affine maps: folded into addressing modes
      "affine.apply",   "affine.min",     "affine.max",
  };
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    if (name_is(n, names[i]))
      return true;
  return false;
}

static bool is_memory(MlirStringRef n) {
  return name_contains(n, "load") || name_contains(n, "store") ||
         name_contains(n, "transfer_read") ||
         name_contains(n, "transfer_write");
}

// ----------------------------------------------------------------------------
// the walk

// Cost of a structured linalg op per enclosing iteration: one load per
// shaped input, one store per output, the body's compute ops, per point.
static double linalg_cost(MlirOperation op, const linalg_info *li) {
  double body = 0;
  MlirBlock b = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0));
  for (MlirOperation o = mlirBlockIsNull(b) ? (MlirOperation){NULL}
                                            : mlirBlockGetFirstOperation(b);
       !mlirOperationIsNull(o); o = mlirOperationGetNextInBlock(o))
    body += !is_free(mlirIdentifierStr(mlirOperationGetName(o)));
  double shaped = 0;
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); i++)
    shaped += mlirTypeIsAShaped(mlirValueGetType(mlirOperationGetOperand(op, i)));
  return li->domain * (W_MEM * shaped + W_OP * fmax(body, 1.0) + W_LOOP);
}

static double walk(MlirOperation op, double trip) {
  MlirStringRef n = mlirIdentifierStr(mlirOperationGetName(op));
  linalg_info li;
  if (name_has_prefix(n, "linalg.") && mlirOperationGetNumRegions(op) > 0 &&
      linalg_domain(op, &li))
    return trip * linalg_cost(op, &li); // the body is counted by the domain
  double cost = 0, inner = trip;
  int kind = loop_kind(n);
  if (kind != LOOP_NONE) {
    double t;
    if (loop_trip_count(op, kind, &t))
      inner = trip * t;
    cost += inner * W_LOOP; // increment, compare, branch per iteration
  } else if (mlirOperationGetNumRegions(op) == 0 && !is_free(n)) {
    cost += trip * (is_memory(n) ? W_MEM : W_OP);
  }
  for (intptr_t r = 0; r < mlirOperationGetNumRegions(op); r++)
    for (MlirBlock b = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, r));
         !mlirBlockIsNull(b); b = mlirBlockGetNextInRegion(b))
      for (MlirOperation c = mlirBlockGetFirstOperation(b);
           !mlirOperationIsNull(c); c = mlirOperationGetNextInBlock(c))
        cost += walk(c, inner);
  return cost;
}

double mqss_env_static_cost(const mqss_module *m) {
  if (!m)
    return 1.0;
  return 1.0 + walk(mlirModuleGetOperation(m->mod), 1.0);
}

// ----------------------------------------------------------------------------
// shaping

double mqss_env_shaping(double coef, double before, double after,
                        double cost0) {
  if (!(cost0 > 0) || !isfinite(before) || !isfinite(after))
    return 0.0;
  double d = (before - after) / cost0;
  d = d < -1.0 ? -1.0 : d > 1.0 ? 1.0 : d;
  return coef * d;
}
