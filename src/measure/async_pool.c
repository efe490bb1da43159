// MLIR's async runtime (libmlir_async_runtime) for programs with their own
// async code (async.execute, async-parallel-for; the thread actions use
// OpenMP, omp_pool.c): it hands tasks to a pool of worker threads, one per
// hardware thread, that the runtime creates on first use. In a sandbox child, before the JIT, for a
// lowered module that calls the runtime:
//   - the library is loaded into the process, where the JIT finds its
//     symbols. It is not given to the ExecutionEngine: the engine calls the
//     library's __mlir_execution_engine_destroy when it is destroyed, which
//     deletes the runtime, and the next program of the child (the
//     candidate after the reference) crashed on it;
//   - the pool is filled: a confined child may not create threads
//     (confine.c), so each worker gets a task that holds it until all of
//     them run, which makes the pool grow to its full size.
// docs/MEASURE.md, "Threads".
#include "measure.h"

#include <dlfcn.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

static const char runtime_lib[] = "/usr/lib/llvm-19/lib/libmlir_async_runtime.so";
static const char submit[] = "mlirAsyncRuntimeExecute";

typedef void (*coro_resume)(void *);
typedef void (*runtime_execute)(void *, coro_resume);
typedef int64_t (*runtime_workers)(void);

static atomic_int started;
static int wanted;

static double seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

// Spins until every worker holds a task, or a second has passed (a pool
// smaller than the runtime said is not worth a hang).
static void wait_for_all(void) {
  double end = seconds() + 1.0;
  while (atomic_load(&started) < wanted && seconds() < end)
    sched_yield();
}

static void hold_worker(void *unused) {
  (void)unused;
  atomic_fetch_add(&started, 1);
  wait_for_all();
}

// True when the lowered module declares the runtime's task submission.
static bool calls_runtime(mqss_module *lowered) {
  MlirSymbolTable t = mlirSymbolTableCreate(mlirModuleGetOperation(lowered->mod));
  bool found = !mlirOperationIsNull(
      mlirSymbolTableLookup(t, mlirStringRefCreateFromCString(submit)));
  mlirSymbolTableDestroy(t);
  return found;
}

void async_pool_start(mqss_module *lowered) {
  static void *lib;
  if (!calls_runtime(lowered))
    return;
  if (!lib && !(lib = dlopen(runtime_lib, RTLD_NOW | RTLD_GLOBAL)))
    return; // not installed: the JIT reports the unresolved symbols
  void *e = dlsym(lib, submit);
  void *w = dlsym(lib, "mlirAsyncRuntimGetNumWorkerThreads"); // sic
  if (!e || !w)
    return;
  runtime_execute execute;
  runtime_workers workers;
  memcpy(&execute, &e, sizeof e);
  memcpy(&workers, &w, sizeof w);
  wanted = (int)workers();
  atomic_store(&started, 0);
  for (int i = 0; i < wanted; i++)
    execute(NULL, hold_worker);
  wait_for_all();
}
