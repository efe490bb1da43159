// Timer functions a measured program may call (rtclock, nanoTime): which
// ones the harness knows, whether a module calls one, and the
// implementations the JIT links instead of the libraries' own. In the normal
// mode they read the real clocks like the originals; in the two probe modes
// they return synthetic times that advance by a different step per call, so
// running the reference once in each mode shows exactly which outputs depend
// on the clock (docs/MEASURE.md, "Timers"). It does not compare outputs.
#define _GNU_SOURCE
#include "measure.h"

#include <mlir-c/BuiltinAttributes.h>

#include <string.h>
#include <sys/time.h>
#include <time.h>

// ----------------------------------------------------------------------------
// the clocks

static clock_mode mode = CLOCK_REAL;
static int64_t calls; // calls since the mode was set

// Synthetic time of the k-th call in seconds: probe A advances 1 s per call
// from 1000 s, probe B 3.25 s per call from 5000 s.
static double probe_seconds(void) {
  double k = (double)calls++;
  return mode == CLOCK_PROBE_A ? 1000.0 + k : 5000.0 + 3.25 * k;
}

// MLIR's runner utils: seconds from gettimeofday.
static double fake_rtclock(void) {
  if (mode != CLOCK_REAL)
    return probe_seconds();
  struct timeval tv;
  gettimeofday(&tv, NULL);
  return (double)tv.tv_sec + (double)tv.tv_usec * 1e-6;
}

// MLIR-RL's benchmarks: nanoseconds of a monotonic clock.
static int64_t fake_nano_time(void) {
  if (mode != CLOCK_REAL)
    return (int64_t)(probe_seconds() * 1e9);
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

// Symbol names and their implementations. `_mlir_ciface_` names are what a
// declaration with llvm.emit_c_interface calls.
static const struct {
  const char *name;
  void *fn;
} timers[] = {
    {"rtclock", (void *)fake_rtclock},
    {"_mlir_ciface_rtclock", (void *)fake_rtclock},
    {"nanoTime", (void *)fake_nano_time},
    {"_mlir_ciface_nanoTime", (void *)fake_nano_time},
};
enum { NTIMERS = sizeof timers / sizeof timers[0] };

void clock_set_mode(clock_mode m) {
  mode = m;
  calls = 0;
}

void clock_register(MlirExecutionEngine ee) {
  for (int i = 0; i < NTIMERS; i++)
    mlirExecutionEngineRegisterSymbol(
        ee, mlirStringRefCreateFromCString(timers[i].name), timers[i].fn);
}

// ----------------------------------------------------------------------------
// detection

static bool is_timer(MlirStringRef n) {
  for (int i = 0; i < NTIMERS; i++)
    if (n.length == strlen(timers[i].name) &&
        !memcmp(n.data, timers[i].name, n.length))
      return true;
  return false;
}

// A call whose callee, or a function declaration whose name, is a timer.
static MlirWalkResult find_timer(MlirOperation op, void *user) {
  static const char *const attrs[] = {"callee", "sym_name"};
  for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++) {
    MlirAttribute a = mlirOperationGetAttributeByName(
        op, mlirStringRefCreateFromCString(attrs[i]));
    MlirStringRef n = {0};
    if (mlirAttributeIsNull(a))
      continue;
    if (mlirAttributeIsAFlatSymbolRef(a))
      n = mlirFlatSymbolRefAttrGetValue(a);
    else if (mlirAttributeIsAString(a))
      n = mlirStringAttrGetValue(a);
    if (n.data && is_timer(n)) {
      *(bool *)user = true;
      return MlirWalkResultInterrupt;
    }
  }
  return MlirWalkResultAdvance;
}

bool module_reads_clock(mqss_module *m) {
  bool found = false;
  mlirOperationWalk(mlirModuleGetOperation(m->mod), find_timer, &found,
                    MlirWalkPreOrder);
  return found;
}
