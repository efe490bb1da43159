// Resource limits of a forked child: the one place that says what a child
// process (the measurement sandbox, a training pool's task) may use. The
// limits are data (child_limits); this file applies them after fork.
#define _GNU_SOURCE // sched_setaffinity, CPU_SET
#include "internal.h"
#include "util/sanitized.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#if !MQSS_SANITIZED
// The address space the child inherits, its parent's at fork, in bytes (0
// when /proc cannot tell). Read with open/read: the parent may have threads.
static rlim_t inherited_bytes(void) {
  char buf[64] = {0};
  int fd = open("/proc/self/statm", O_RDONLY);
  if (fd < 0)
    return 0;
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  long page = sysconf(_SC_PAGESIZE);
  return n > 0 && page > 0 ? (rlim_t)strtoull(buf, NULL, 10) * (rlim_t)page
                           : 0;
}
#endif

static void set_limit(int resource, rlim_t soft, rlim_t hard) {
  struct rlimit rl = {soft, hard};
  setrlimit(resource, &rl);
}

void child_default_fatal_signals(void) {
  static const int fatal[] = {SIGSEGV, SIGBUS, SIGILL,  SIGFPE, SIGABRT,
                              SIGXCPU, SIGTRAP, SIGSYS, SIGQUIT, SIGXFSZ};
  for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++)
    signal(fatal[i], SIG_DFL);
}

void child_limits_apply(const child_limits *l) {
  // Faults must kill the child, whatever handlers the host process installed
  // (test frameworks and language runtimes catch SIGSEGV).
  child_default_fatal_signals();
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
  set_limit(RLIMIT_CORE, 0, 0);
  if (l->timeout_ms > 0) {
    rlim_t cpu_s = (rlim_t)(l->timeout_ms + 999) / 1000 + 1;
    set_limit(RLIMIT_CPU, cpu_s, cpu_s + 1);
  }
#if !MQSS_SANITIZED
  // Sanitizers reserve terabytes of shadow memory: an AS limit breaks them.
  // The limit counts from what the child inherits: a host process that
  // already maps more than mem_limit_mb (a large compiler loading the
  // plugin) would leave its child no room at all.
  if (l->mem_limit_mb > 0) {
    rlim_t bytes = inherited_bytes() + ((rlim_t)l->mem_limit_mb << 20);
    set_limit(RLIMIT_AS, bytes, bytes);
  }
#endif
  if (l->cpu >= 0) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(l->cpu, &set);
    sched_setaffinity(0, sizeof set, &set);
  }
}

void child_output_limit(int64_t bytes) {
  struct rlimit rl;
  if (getrlimit(RLIMIT_FSIZE, &rl) != 0)
    return;
  rlim_t soft = bytes > 0 ? (rlim_t)bytes : rl.rlim_max;
  if (rl.rlim_max != RLIM_INFINITY && soft > rl.rlim_max)
    soft = rl.rlim_max;
  set_limit(RLIMIT_FSIZE, soft, rl.rlim_max);
}
