// Benchmark of the measurement harness itself (not of any kernel): the
// sandbox overhead per measurement (forked child with limits vs the same work
// in process) and the latency of a cache hit. Prints medians of repeats with
// the machine and commit. Build and run with bench/measure_overhead.sh.
// Targets (issue 3): sandbox overhead <= 5 ms, cache hit <= 1 ms.
#include "mqss/mqss.h"
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

static void cpu_model(char *out, size_t len) {
  snprintf(out, len, "unknown");
  FILE *f = fopen("/proc/cpuinfo", "r");
  char line[256];
  while (f && fgets(line, sizeof line, f))
    if (!strncmp(line, "model name", 10)) {
      char *p = strchr(line, ':');
      if (p) {
        p += 2;
        p[strcspn(p, "\n")] = '\0';
        snprintf(out, len, "%s", p);
      }
      break;
    }
  if (f)
    fclose(f);
}

// Times `n` measurements of `m` under `o`; returns the median wall time.
static double time_measure(mqss_module *m, const mqss_measure_options *o, int n,
                           int *bad) {
  double t[256];
  for (int i = 0; i < n; i++) {
    mqss_measure_result r;
    double t0 = now_ms();
    mqss_status st = mqss_measure(m, o, &r);
    t[i] = now_ms() - t0;
    if (st != MQSS_OK || r.status != MQSS_MEASURE_OK)
      (*bad)++;
  }
  return median_of(t, n);
}

int main(int argc, char **argv) {
  const char *file = argc > 1 ? argv[1] : "examples/matmul_tensor_f32.mlir";
  const char *commit = argc > 2 ? argv[2] : "unknown";
  int n = argc > 3 ? atoi(argv[3]) : 21;
  if (n < 1 || n > 256)
    n = 21;
  struct utsname u;
  uname(&u);
  char cpu[128];
  cpu_model(cpu, sizeof cpu);
  printf("machine: %s %s %s; cpu: %s; cores online: %ld\n", u.sysname,
         u.release, u.machine, cpu, sysconf(_SC_NPROCESSORS_ONLN));
  printf("commit: %s; mqss %s; MLIR %s\n", commit, mqss_version(),
         mqss_mlir_version());
  printf("module: %s; repeats: %d (median reported)\n\n", file, n);

  mqss_session *s = NULL;
  mqss_module *m = NULL;
  if (mqss_session_create(&s) != MQSS_OK ||
      mqss_module_parse_file(s, file, &m) != MQSS_OK) {
    fprintf(stderr, "measure_overhead: %s\n", mqss_errmsg(s));
    return 1;
  }
  mqss_measure_options o;
  mqss_measure_options_init(&o);
  o.warmup = 0;
  o.repeat = 1;
  o.code_size = 0;
  o.check_reference = 0; // one compile per measurement: overhead stands out
  int bad = 0;
  o.no_sandbox = 1;
  time_measure(m, &o, 2, &bad); // warm the process up (first JIT, libraries)
  double inproc = time_measure(m, &o, n, &bad);
  o.no_sandbox = 0;
  double sandboxed = time_measure(m, &o, n, &bad);
  printf("measurement in process:    %8.3f ms\n", inproc);
  printf("measurement in sandbox:    %8.3f ms\n", sandboxed);
  printf("sandbox overhead:          %8.3f ms   (target <= 5 ms) %s\n",
         sandboxed - inproc, sandboxed - inproc <= 5 ? "PASS" : "MISS");

  // Paired: in process and sandboxed alternate, so load drift on a shared
  // machine hits both alike; the median of the per-pair differences.
  double diff[256];
  for (int i = 0; i < n; i++) {
    o.no_sandbox = 1;
    double a = time_measure(m, &o, 1, &bad);
    o.no_sandbox = 0;
    diff[i] = time_measure(m, &o, 1, &bad) - a;
  }
  printf("sandbox overhead, paired:  %8.3f ms   (median of %d interleaved "
         "pairs)\n", median_of(diff, n), n);

  char db[64];
  snprintf(db, sizeof db, "/tmp/mqss_bench_cache_%d.db", (int)getpid());
  o.cache_path = db;
  time_measure(m, &o, 1, &bad); // fill
  double hit = time_measure(m, &o, n, &bad);
  printf("cache hit:                 %8.3f ms   (target <= 1 ms) %s\n", hit,
         hit <= 1 ? "PASS" : "MISS");
  char p[96];
  remove(db);
  snprintf(p, sizeof p, "%s-wal", db);
  remove(p);
  snprintf(p, sizeof p, "%s-shm", db);
  remove(p);
  if (bad)
    printf("warning: %d measurements did not return ok\n", bad);
  mqss_module_destroy(m);
  mqss_session_destroy(s);
  return bad ? 1 : 0;
}
