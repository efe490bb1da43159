// Parallel loops too small for threads (parallel_work.h).
#include "actions/parallel_work.h"
#include "features/irscan.h"

// Static iterations of the loops among op's descendants, summed over
// sibling nests and multiplied down each nest; -1 when one is not static.
static double nested_work(MlirOperation op);

static double loop_work(MlirOperation loop, int kind) {
  double trips, inner = nested_work(loop);
  if (!loop_trip_count(loop, kind, &trips) || inner < 0)
    return -1;
  return trips * (inner > 1 ? inner : 1);
}

static double nested_work(MlirOperation op) {
  double sum = 0;
  for (intptr_t r = 0; r < mlirOperationGetNumRegions(op); r++)
    for (MlirBlock b = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, r));
         !mlirBlockIsNull(b); b = mlirBlockGetNextInRegion(b))
      for (MlirOperation c = mlirBlockGetFirstOperation(b);
           !mlirOperationIsNull(c); c = mlirOperationGetNextInBlock(c)) {
        int kind = loop_kind(mlirIdentifierStr(mlirOperationGetName(c)));
        double w = kind == LOOP_NONE ? nested_work(c) : loop_work(c, kind);
        if (w < 0)
          return -1;
        sum += w;
      }
  return sum;
}

typedef struct {
  int small, large;
} tally;

// Counts the parallel loops under op that no other loop encloses.
static void count_outer(MlirOperation op, tally *t) {
  for (intptr_t r = 0; r < mlirOperationGetNumRegions(op); r++)
    for (MlirBlock b = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, r));
         !mlirBlockIsNull(b); b = mlirBlockGetNextInRegion(b))
      for (MlirOperation c = mlirBlockGetFirstOperation(b);
           !mlirOperationIsNull(c); c = mlirOperationGetNextInBlock(c)) {
        int kind = loop_kind(mlirIdentifierStr(mlirOperationGetName(c)));
        if (kind == LOOP_SCF_PAR || kind == LOOP_AFFINE_PAR) {
          double w = loop_work(c, kind);
          *(w >= 0 && w < PARALLEL_WORK_MIN ? &t->small : &t->large) += 1;
        } else if (kind == LOOP_NONE) {
          count_outer(c, t);
        }
      }
}

bool has_little_parallel_work(MlirOperation op, MlirStringRef name) {
  if (!name_is(name, "builtin.module"))
    return false;
  tally t = {0, 0};
  count_outer(op, &t);
  return t.small > 0 && t.large == 0;
}
