// Benchmark of the measurement harness itself (not of any kernel): the
// sandbox overhead per measurement (forked child with limits vs the same work
// in process) and the latency of a cache hit. Prints medians of repeats with
// the machine and commit. Build and run with bench/measure_overhead.sh.
// Targets (issue 3): sandbox overhead <= 5 ms, cache hit <= 1 ms.
#include "mqss/mqss.h"
#include "internal.h"
#include "measure/measure.h"

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

// One measurement's wall time and where it went: the result's compile split
// and the sandbox's own breakdown (sandbox_last_timing).
enum { F_WALL, F_PIPELINE, F_FINISH, F_JIT, F_SETUP, F_FORK, F_START, F_LIMITS,
       F_WORK, F_REPLY, F_TEARDOWN, F_CPU, F_FAULTS, NF };
static const char *const field_names[NF] = {
    "wall", "  pipeline (child)", "  finisher (child)", "  JIT (child)",
    "  setup: pipe, tmpfile, reap", "  fork() call", "  fork -> child runs",
    "  child limits", "  work (compile + run)", "  reply -> parent",
    "  parse, reap, close", "work CPU time (user+sys)",
    "work page faults (count)"};

typedef struct {
  double v[NF][256]; // (field, sample)
  int n;
} samples;

// Times `n` measurements of `m` under `o` into `sm`; returns the median wall
// time.
static double time_measure(mqss_module *m, const mqss_measure_options *o, int n,
                           int *bad, samples *sm) {
  double t[256];
  for (int i = 0; i < n; i++) {
    mqss_measure_result r;
    double t0 = now_ms();
    mqss_status st = mqss_measure(m, o, &r);
    t[i] = now_ms() - t0;
    if (st != MQSS_OK || r.status != MQSS_MEASURE_OK)
      (*bad)++;
    if (sm && sm->n < 256) {
      sandbox_timing tm;
      sandbox_last_timing(&tm);
      double f[NF] = {t[i], r.pipeline_ms, r.finish_ms, r.jit_ms, tm.setup_ms,
                      tm.fork_ms, tm.start_ms, tm.limits_ms, tm.work_ms,
                      tm.reply_ms, tm.teardown_ms, tm.work_cpu_ms,
                      tm.work_faults};
      for (int k = 0; k < NF; k++)
        sm->v[k][sm->n] = f[k];
      sm->n++;
    }
  }
  return median_of(t, n);
}

static double field_median(samples *sm, int k) {
  double tmp[256];
  memcpy(tmp, sm->v[k], sizeof tmp[0] * (size_t)sm->n);
  return median_of(tmp, sm->n);
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
  time_measure(m, &o, 2, &bad, NULL); // warm up (first JIT, libraries)
  samples *in = calloc(1, sizeof *in), *sb = calloc(1, sizeof *sb);
  if (!in || !sb)
    return 1;
  double inproc = time_measure(m, &o, n, &bad, in);
  o.no_sandbox = 0;
  double sandboxed = time_measure(m, &o, n, &bad, sb);
  printf("measurement in process:    %8.3f ms\n", inproc);
  printf("measurement in sandbox:    %8.3f ms\n", sandboxed);
  printf("sandbox overhead:          %8.3f ms   (target <= 5 ms) %s\n",
         sandboxed - inproc, sandboxed - inproc <= 5 ? "PASS" : "MISS");
  printf("\nbreakdown (medians, ms)          in process    sandbox\n");
  for (int k = 0; k < NF; k++) {
    bool sandbox_only = k >= F_SETUP && k < F_CPU && k != F_WORK;
    if (sandbox_only)
      printf("%-30s %10s %10.3f\n", field_names[k], "-", field_median(sb, k));
    else
      printf("%-30s %10.3f %10.3f\n", field_names[k], field_median(in, k),
             field_median(sb, k));
  }
  printf("\n");
  free(in);
  free(sb);

  // Paired: in process and sandboxed alternate, so load drift on a shared
  // machine hits both alike; the median of the per-pair differences.
  double diff[256];
  for (int i = 0; i < n; i++) {
    o.no_sandbox = 1;
    double a = time_measure(m, &o, 1, &bad, NULL);
    o.no_sandbox = 0;
    diff[i] = time_measure(m, &o, 1, &bad, NULL) - a;
  }
  printf("sandbox overhead, paired:  %8.3f ms   (median of %d interleaved "
         "pairs)\n", median_of(diff, n), n);

  char db[64];
  snprintf(db, sizeof db, "/tmp/mqss_bench_cache_%d.db", (int)getpid());
  o.cache_path = db;
  time_measure(m, &o, 1, &bad, NULL); // fill
  double hit = time_measure(m, &o, n, &bad, NULL);
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
