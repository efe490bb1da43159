// Parallel loops too small for threads (parallel_work.c): omp-parallel
// starts an OpenMP team for each parallel loop at the top of a function,
// which costs microseconds per call whatever the loop does; on a kernel of a
// few thousand iterations that makes it many times slower (docs/TRAINING.md,
// "One-layer MLPs"). Internal to the library.
#ifndef MQSS_ACTIONS_PARALLEL_WORK_H
#define MQSS_ACTIONS_PARALLEL_WORK_H

#include "internal.h"

// Static iterations (a parallel loop's, times those of the loops inside
// it) below which a parallel loop is too small for threads. On the 2-core
// VM (bench/omp_little_work.sh, an elementwise loop with a cheap body) a
// loop of 1,024 iterations runs 0.1 us alone and 2.3 us with threads, one
// of 65,536 still 2.5x as long with them, and 262,144 is the first size
// where they gain. The threshold sits well below that, so that loops with
// bodies many times as costly keep their threads.
#define PARALLEL_WORK_MIN 4096

// Static iterations of the loops in op, op included when it is a loop: each
// loop's trips times the work inside it (at least one), summed over sibling
// nests; -1 when a trip count is not a constant (a while loop, bounds read
// from memory). Also mqss-scf-parallelize's min-work (src/ir/cxx_passes.cpp).
double parallel_static_work(MlirOperation op);

// The safety layer's deep test (ir_summary_has) for the name
// "parallel.little-work": true for a builtin.module whose parallel loops
// outside any other loop (scf.parallel, affine.parallel) number at least
// one and each do fewer than PARALLEL_WORK_MIN static iterations. A loop
// with a bound that is not a constant counts as large.
bool has_little_parallel_work(MlirOperation op, MlirStringRef name);

// The same for "parallel.little-work-in-loops", what omp-parallel-loops
// avoids: there a team starts for each parallel loop that no other
// parallel loop encloses, sequential loops around it included, on every
// trip of those; each loop counts by its own static iterations per start.
bool has_little_parallel_work_in_loops(MlirOperation op, MlirStringRef name);

// The same for "parallel.little-work-scf", what omp-parallel-scf avoids:
// the scf.for loops outside any other loop, which mqss-scf-parallelize may
// make parallel, number at least one and each do fewer than
// PARALLEL_WORK_MIN static iterations.
bool has_little_sequential_work(MlirOperation op, MlirStringRef name);

#endif // MQSS_ACTIONS_PARALLEL_WORK_H
