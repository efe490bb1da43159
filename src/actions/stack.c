// Stack growth of buffers in loops (stack.h): the safety layer's test for
// the two passes that create allocas without a scope.
#include "actions/stack.h"
#include "features/irscan.h"

#include <mlir-c/BuiltinTypes.h>
#include <string.h>

static bool named(MlirOperation op, const char *what) {
  MlirStringRef n = mlirIdentifierStr(mlirOperationGetName(op));
  return n.length == strlen(what) && !memcmp(n.data, what, n.length);
}

// Times op runs per call of its function: the product of the trip counts
// of the loops around it (irscan.c; -1 when one of them is not static or
// the product passes the limit, which then counts as too many anyway).
static int64_t runs(MlirOperation op) {
  double n = 1.0;
  for (MlirOperation p = mlirOperationGetParentOperation(op);
       !mlirOperationIsNull(p) && !named(p, "func.func");
       p = mlirOperationGetParentOperation(p)) {
    int kind = loop_kind(mlirIdentifierStr(mlirOperationGetName(p)));
    double t;
    if (kind == LOOP_NONE)
      continue;
    if (!loop_trip_count(p, kind, &t))
      return -1;
    n *= t;
  }
  return n > STACK_GROWTH_LIMIT ? -1 : (int64_t)n;
}

// Bytes of a statically shaped memref or vector type, or -1.
static int64_t bytes_of(MlirType t) {
  if (!mlirTypeIsAShaped(t) || !mlirShapedTypeHasStaticShape(t))
    return -1;
  return (int64_t)(elem_bytes(t) * static_numel(t));
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
