// Parallel loops too small for threads (parallel_work.h).
#include "actions/parallel_work.h"
#include "features/irscan.h"

// Calls fn on every op directly in op's regions, until it returns false.
static void each_child(MlirOperation op, bool (*fn)(MlirOperation, void *),
                       void *ctx) {
  for (intptr_t r = 0; r < mlirOperationGetNumRegions(op); r++)
    for (MlirBlock b = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, r));
         !mlirBlockIsNull(b); b = mlirBlockGetNextInRegion(b))
      for (MlirOperation c = mlirBlockGetFirstOperation(b);
           !mlirOperationIsNull(c); c = mlirOperationGetNextInBlock(c))
        if (!fn(c, ctx))
          return;
}

static int kind_of(MlirOperation op) {
  return loop_kind(mlirIdentifierStr(mlirOperationGetName(op)));
}

static double nested_work(MlirOperation op);

// Static iterations of a loop: its trips times those of the loops inside
// it (at least one); -1 when one is not static.
static double loop_work(MlirOperation loop, int kind) {
  double trips, inner = nested_work(loop);
  if (!loop_trip_count(loop, kind, &trips) || inner < 0)
    return -1;
  return trips * (inner > 1 ? inner : 1);
}

double parallel_static_work(MlirOperation op) {
  int kind = kind_of(op);
  return kind == LOOP_NONE ? nested_work(op) : loop_work(op, kind);
}

static bool add_work(MlirOperation c, void *ctx) {
  double *sum = ctx;
  double w = parallel_static_work(c);
  *sum = w < 0 ? -1 : *sum + w;
  return w >= 0;
}

// Static iterations of the loops among op's descendants, summed over
// sibling nests and multiplied down each nest; -1 when one is not static.
static double nested_work(MlirOperation op) {
  double sum = 0;
  each_child(op, add_work, &sum);
  return sum;
}

typedef struct {
  int small, large;
  bool through_serial; // also count parallel loops inside sequential ones
  bool scf_for;        // count the scf.for loops instead of parallel ones
} tally;

// Counts the parallel loops (with scf_for: the scf.for loops) under op that
// no other loop encloses (with through_serial: no other parallel loop),
// each by its own work per start.
static bool count_outer(MlirOperation c, void *ctx) {
  tally *t = ctx;
  int kind = kind_of(c);
  bool counted = t->scf_for ? kind == LOOP_SCF_FOR
                            : kind == LOOP_SCF_PAR || kind == LOOP_AFFINE_PAR;
  if (counted) {
    double w = loop_work(c, kind);
    *(w >= 0 && w < PARALLEL_WORK_MIN ? &t->small : &t->large) += 1;
  } else if (kind == LOOP_NONE || t->through_serial) {
    each_child(c, count_outer, t);
  }
  return true;
}

static bool little_work(MlirOperation op, MlirStringRef name,
                        bool through_serial, bool scf_for) {
  if (!name_is(name, "builtin.module"))
    return false;
  tally t = {0, 0, through_serial, scf_for};
  each_child(op, count_outer, &t);
  return t.small > 0 && t.large == 0;
}

bool has_little_parallel_work(MlirOperation op, MlirStringRef name) {
  return little_work(op, name, false, false);
}

bool has_little_parallel_work_in_loops(MlirOperation op, MlirStringRef name) {
  return little_work(op, name, true, false);
}

bool has_little_sequential_work(MlirOperation op, MlirStringRef name) {
  return little_work(op, name, false, true);
}
