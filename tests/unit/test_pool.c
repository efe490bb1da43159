// Unit tests of the rollout worker pool: records stream back per task, a task
// that segfaults, hangs or exits non-zero is reported as such while the pool
// carries on, a worker that dies is replaced, parameters reach every worker,
// and results do not depend on the number of workers. Task children run
// under the measurement sandbox's limits (address space, CPU time).
#include "rl/pool.h" // before cmocka: it defines a fail() macro
#include "util/sanitized.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

enum { MAXT = 16, MEM_MB = 2048 };

typedef struct {
  char rec[MAXT][256]; // concatenated records of each task
  task_status status[MAXT];
  int signal[MAXT];
  int done[MAXT];
} results;

// Task "NAME N": emits N records "NAME.i|params", then behaves per NAME.
static void task_fn(void *user, const void *params, size_t plen,
                    const void *task, size_t tlen, pool_emit_fn emit,
                    void *emit_ctx) {
  (void)user;
  char name[32] = {0};
  int n = 0;
  char buf[64];
  snprintf(buf, sizeof buf, "%.*s", (int)tlen, (const char *)task);
  sscanf(buf, "%31s %d", name, &n);
  for (int i = 0; i < n; i++) {
    char r[96];
    int len = snprintf(r, sizeof r, "%s.%d|%.*s;", name, i, (int)plen,
                       (const char *)params);
    emit(emit_ctx, r, (size_t)len);
  }
  if (!strcmp(name, "segv"))
    raise(SIGSEGV);
  if (!strcmp(name, "hang"))
    for (;;)
      pause();
  if (!strcmp(name, "exit"))
    _exit(7);
  if (!strcmp(name, "killworker"))
    kill(getppid(), SIGKILL);
  if (!strcmp(name, "limits")) { // the child's rlimits, and whether 3 GiB fit
    struct rlimit as, cpu;
    getrlimit(RLIMIT_AS, &as);
    getrlimit(RLIMIT_CPU, &cpu);
    unsigned long long pages = 0; // the address space mapped now
    FILE *statm = fopen("/proc/self/statm", "r");
    if (!statm || fscanf(statm, "%llu", &pages) != 1)
      pages = 0;
    if (statm)
      fclose(statm);
    long long mapped = (long long)(pages * (unsigned long long)sysconf(_SC_PAGESIZE));
    void *big = malloc((size_t)3 << 30);
    char r[96];
    // AS: the room left above what is mapped, in MiB, rounded to 16 MiB (the
    // child maps a little between the fork and this read)
    int len = snprintf(r, sizeof r, "AS=%lld,CPU=%lld,3GiB=%s",
                       as.rlim_cur == RLIM_INFINITY
                           ? -1LL
                           : ((long long)as.rlim_cur - mapped + (8 << 20)) >> 24 << 4,
                       (long long)cpu.rlim_cur, big ? "yes" : "no");
    free(big);
    emit(emit_ctx, r, (size_t)len);
  }
}

static void on_record(void *ctx, int index, const void *rec, size_t len) {
  results *r = ctx;
  strncat(r->rec[index], rec, len);
}

static void on_done(void *ctx, int index, task_status status, int sig) {
  results *r = ctx;
  r->status[index] = status;
  r->signal[index] = sig;
  r->done[index]++;
}

static void run(int workers, int ntasks, const char **tasks, results *r) {
  mqss_session *s;
  assert_int_equal(mqss_session_create(&s), MQSS_OK);
  worker_pool *p;
  pool_options o = {.workers = workers, .pin = 1, .task_timeout_ms = 300,
                    .mem_limit_mb = MEM_MB};
  assert_int_equal(pool_create(s, &o, task_fn, NULL, &p), MQSS_OK);
  assert_int_equal(pool_set_params(p, "w1", 2), MQSS_OK);
  size_t lens[MAXT];
  for (int i = 0; i < ntasks; i++)
    lens[i] = strlen(tasks[i]);
  memset(r, 0, sizeof *r);
  assert_int_equal(pool_run(p, ntasks, (const void *const *)tasks, lens,
                            on_record, on_done, r),
                   MQSS_OK);
  pool_destroy(p);
  mqss_session_destroy(s);
}

static void test_faults_are_contained(void **state) {
  (void)state;
  const char *tasks[] = {"ok 2", "segv 1", "hang 1", "exit 0", "killworker 1", "ok 1"};
  results r;
  run(2, 6, tasks, &r);
  for (int i = 0; i < 6; i++)
    assert_int_equal(r.done[i], 1); // every task reported exactly once
  assert_string_equal(r.rec[0], "ok.0|w1;ok.1|w1;");
  assert_int_equal(r.status[0], TASK_OK);
  // Records sent before the crash arrive.
  assert_string_equal(r.rec[1], "segv.0|w1;");
  assert_int_equal(r.status[1], TASK_CRASHED);
  assert_int_equal(r.signal[1], SIGSEGV);
  assert_string_equal(r.rec[2], "hang.0|w1;");
  assert_int_equal(r.status[2], TASK_TIMEOUT);
  assert_int_equal(r.status[3], TASK_FAILED);
  assert_int_equal(r.status[4], TASK_CRASHED);
  // The pool replaced the dead worker and went on.
  assert_string_equal(r.rec[5], "ok.0|w1;");
  assert_int_equal(r.status[5], TASK_OK);
}

static void test_results_independent_of_worker_count(void **state) {
  (void)state;
  const char *tasks[] = {"a 3", "b 1", "c 2", "d 4", "e 1", "f 2", "g 0", "h 1"};
  results one, two;
  run(1, 8, tasks, &one);
  run(2, 8, tasks, &two);
  for (int i = 0; i < 8; i++) {
    assert_string_equal(one.rec[i], two.rec[i]);
    assert_int_equal(two.status[i], TASK_OK);
  }
  assert_string_equal(two.rec[3], "d.0|w1;d.1|w1;d.2|w1;d.3|w1;");
}

// A task's child has the sandbox's limits: RLIMIT_AS = what it inherits +
// mem_limit_mb (so a 3 GiB allocation fails under 2 GiB more) and
// RLIMIT_CPU = timeout + 1 s, rounded up to seconds (300 ms -> 2 s).
static void test_task_limits(void **state) {
  (void)state;
  const char *tasks[] = {"limits 0"};
  results r;
  run(1, 1, tasks, &r);
  assert_int_equal(r.status[0], TASK_OK);
  if (MQSS_SANITIZED) // sanitizers need terabytes of address space: no AS limit
    assert_string_equal(r.rec[0], "AS=-1,CPU=2,3GiB=yes");
  else
    assert_string_equal(r.rec[0], "AS=2048,CPU=2,3GiB=no");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_faults_are_contained),
      cmocka_unit_test(test_results_independent_of_worker_count),
      cmocka_unit_test(test_task_limits),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
