// Stack growth of buffers in loops (stack.h): the safety layer's test for
// the two passes that create allocas without a scope.
#include "actions/stack.h"

#include <mlir-c/AffineMap.h>
#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>
#include <string.h>

static bool named(MlirOperation op, const char *what) {
  MlirStringRef n = mlirIdentifierStr(mlirOperationGetName(op));
  return n.length == strlen(what) && !memcmp(n.data, what, n.length);
}

static bool constant_index(MlirValue v, int64_t *out) {
  if (!mlirValueIsAOpResult(v) ||
      !named(mlirOpResultGetOwner(v), "arith.constant"))
    return false;
  MlirAttribute a = mlirOperationGetAttributeByName(
      mlirOpResultGetOwner(v), mlirStringRefCreateFromCString("value"));
  if (mlirAttributeIsNull(a) || !mlirAttributeIsAInteger(a))
    return false;
  *out = mlirIntegerAttrGetValueInt(a);
  return true;
}

static bool constant_map(MlirOperation op, const char *attr, int64_t *out) {
  MlirAttribute a =
      mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString(attr));
  if (mlirAttributeIsNull(a) || !mlirAttributeIsAAffineMap(a) ||
      !mlirAffineMapIsSingleConstant(mlirAffineMapAttrGetValue(a)))
    return false;
  *out = mlirAffineMapGetSingleConstantResult(mlirAffineMapAttrGetValue(a));
  return true;
}

int64_t stack_loop_trips(MlirOperation loop) {
  int64_t lb, ub, step = 1;
  if (named(loop, "scf.for")) {
    if (mlirOperationGetNumOperands(loop) < 3 ||
        !constant_index(mlirOperationGetOperand(loop, 0), &lb) ||
        !constant_index(mlirOperationGetOperand(loop, 1), &ub) ||
        !constant_index(mlirOperationGetOperand(loop, 2), &step))
      return -1;
  } else if (named(loop, "affine.for")) {
    MlirAttribute s = mlirOperationGetAttributeByName(
        loop, mlirStringRefCreateFromCString("step"));
    if (!mlirAttributeIsNull(s) && mlirAttributeIsAInteger(s))
      step = mlirIntegerAttrGetValueInt(s);
    if (!constant_map(loop, "lowerBoundMap", &lb) ||
        !constant_map(loop, "upperBoundMap", &ub))
      return -1;
  } else {
    return -1;
  }
  if (step < 1)
    return -1;
  return ub > lb ? (ub - lb + step - 1) / step : 0;
}

// Any other op with regions that can run its body more than once.
static bool is_loop(MlirOperation op) {
  return named(op, "scf.for") || named(op, "affine.for") ||
         named(op, "scf.while") || named(op, "scf.parallel") ||
         named(op, "affine.parallel") || named(op, "scf.forall");
}

// Times op runs per call of its function: the product of the trips of the
// loops around it (-1 when one of them is unknown or it overflows).
static int64_t runs(MlirOperation op) {
  int64_t n = 1;
  for (MlirOperation p = mlirOperationGetParentOperation(op);
       !mlirOperationIsNull(p) && !named(p, "func.func");
       p = mlirOperationGetParentOperation(p)) {
    if (!is_loop(p))
      continue;
    int64_t t = stack_loop_trips(p);
    if (t < 0 || (t > 0 && n > INT64_MAX / t))
      return -1;
    n *= t;
  }
  return n;
}

// Bytes of a statically shaped memref or vector type (a memref of vectors
// included), or -1.
static int64_t bytes_of(MlirType t) {
  if (!mlirTypeIsAShaped(t) || !mlirShapedTypeHasStaticShape(t))
    return -1;
  MlirType e = mlirShapedTypeGetElementType(t);
  int64_t elem = -1;
  if (mlirTypeIsAVector(e))
    elem = bytes_of(e);
  else if (mlirTypeIsAIndex(e))
    elem = 8;
  else if (mlirTypeIsAInteger(e))
    elem = ((int64_t)mlirIntegerTypeGetWidth(e) + 7) / 8;
  else if (mlirTypeIsAFloat(e))
    elem = ((int64_t)mlirFloatTypeGetWidth(e) + 7) / 8;
  if (elem < 0)
    return -1;
  for (intptr_t d = 0; d < mlirShapedTypeGetRank(t); d++)
    elem *= mlirShapedTypeGetDimSize(t, d);
  return elem;
}

int64_t stack_growth(MlirOperation op, bool transfers) {
  int64_t bytes;
  if (!transfers && named(op, "memref.alloc") &&
      mlirOperationGetNumOperands(op) == 0) {
    bytes = bytes_of(mlirValueGetType(mlirOperationGetResult(op, 0)));
    if (bytes < 0 || bytes > STACK_PROMOTE_MAX)
      return 0; // not promoted
  } else if (transfers && (named(op, "vector.transfer_read") ||
                           named(op, "vector.transfer_write"))) {
    MlirType v = named(op, "vector.transfer_read")
                     ? mlirValueGetType(mlirOperationGetResult(op, 0))
                     : mlirValueGetType(mlirOperationGetOperand(op, 0));
    if (mlirShapedTypeGetRank(v) < 2)
      return 0; // lowered without a temporary
    bytes = bytes_of(v);
  } else {
    return 0;
  }
  int64_t n = runs(op);
  if (n == 1)
    return 0; // runs once: not in a loop
  if (n < 0 || bytes < 0 || (n > 0 && bytes > (STACK_GROWTH_LIMIT + 1) / n))
    return STACK_GROWTH_LIMIT + 1;
  return bytes * n;
}
