// libomp for threaded programs: the code of the omp-parallel and
// parallel-tile actions (convert-scf-to-openmp) runs each parallel loop on
// libomp's team of threads, one per core. In a sandbox child, before the
// JIT, for a lowered module that holds OpenMP ops:
//   - the library is loaded into the process, where the JIT finds the
//     __kmpc_* entry points that the OpenMP ops translate to;
//   - the team is created: a confined child may not create threads
//     (confine.c), so one empty parallel region runs first. libomp keeps
//     the team between regions (its threads spin for a while after each,
//     then sleep), so the program's regions only hand work over: about
//     1.9 us a region on this VM, against 47 us for MLIR's async runtime
//     (docs/MEASURE.md, "Threads").
// libomp's hidden helper threads (for target tasks) are switched off: they
// would be created on first use, after confinement.
#include "measure.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

static const char omp_lib[] = "/usr/lib/llvm-19/lib/libomp.so.5";

typedef void (*gomp_parallel)(void (*)(void *), void *, unsigned, unsigned);

static void nothing(void *unused) { (void)unused; }

static MlirWalkResult find_omp(MlirOperation op, void *user) {
  MlirStringRef n = mlirIdentifierStr(mlirOperationGetName(op));
  if (n.length > 4 && !memcmp(n.data, "omp.", 4)) {
    *(bool *)user = true;
    return MlirWalkResultInterrupt;
  }
  return MlirWalkResultAdvance;
}

void omp_pool_start(mqss_module *lowered) {
  static void *lib;
  bool uses = false;
  mlirOperationWalk(mlirModuleGetOperation(lowered->mod), find_omp, &uses,
                    MlirWalkPreOrder);
  if (!uses)
    return;
  if (!lib) {
    setenv("LIBOMP_USE_HIDDEN_HELPER_TASK", "0", 0);
    if (!(lib = dlopen(omp_lib, RTLD_NOW | RTLD_GLOBAL)))
      return; // not installed: the JIT reports the unresolved symbols
  }
  void *p = dlsym(lib, "GOMP_parallel"); // libomp's libgomp interface
  if (!p)
    return;
  gomp_parallel parallel;
  memcpy(&parallel, &p, sizeof p);
  parallel(nothing, NULL, 0, 0);
}
