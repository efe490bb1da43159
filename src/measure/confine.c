// Confinement of executed code: the seccomp-bpf allowlist that a sandbox
// child installs right before it first calls JIT-compiled code, and the
// descriptor clean-up that goes with it. Once installed, the child can still
// compute, allocate memory, read the clocks and write to the descriptors it
// kept (the captured standard output and error, the result pipe, the
// reference blob); it can no longer open or create files, run programs,
// create processes or threads, use sockets, trace or signal other processes.
// Threads that exist already (libomp's team, omp_pool.c; the async
// runtime's workers, async_pool.c) get the same filter.
// A blocked call raises SIGSYS (SECCOMP_RET_TRAP); the handler reports the
// call's number on the result pipe and ends the child. It is not the sandbox
// itself (sandbox.c) and knows nothing about MLIR. docs/MEASURE.md,
// "Confinement", states what it does not cover.
#define _GNU_SOURCE // close_range
#include "measure.h"

#include <errno.h>
#include <fcntl.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

// ----------------------------------------------------------------------------
// the allowlist: what the program and the harness between runs need

// Allowed whatever their arguments.
static const char *const allowed[] = {
    // descriptors the child already holds
    "read", "readv", "pread64", "write", "writev", "pwrite64", "lseek",
    "close", "dup", "dup2", "dup3", "fstat", "ftruncate", "fcntl",
    // memory
    "brk", "mmap", "munmap", "mremap", "mprotect", "madvise",
    // time, identity of this process, scheduling of this thread
    "clock_gettime", "clock_getres", "gettimeofday", "time", "nanosleep",
    "clock_nanosleep", "getrusage", "getpid", "gettid", "getuid", "geteuid",
    "getgid", "getegid", "sched_yield", "sched_getaffinity", "getrandom",
    "sysinfo", "uname", "getcpu", // qsort asks sysinfo for the memory size
    "futex", "rt_sigreturn", "rt_sigprocmask", "sigaltstack",
    "restart_syscall",
    // the harness's output cap (RLIMIT_FSIZE) around each run (prlimit64:
    // of this process only, below)
    "getrlimit", "setrlimit",
    "exit", "exit_group",
};

// One argument comparison, every field set (libseccomp's SCMP_A<n> macros
// leave datum_b out, which -Wmissing-field-initializers rejects). For
// SCMP_CMP_MASKED_EQ, a is the mask and b the value.
static struct scmp_arg_cmp arg_cmp(unsigned arg, enum scmp_compare op,
                                   scmp_datum_t a, scmp_datum_t b) {
  return (struct scmp_arg_cmp){.arg = arg, .op = op, .datum_a = a,
                               .datum_b = b};
}

static int add_rules(scmp_filter_ctx ctx) {
  for (size_t i = 0; i < sizeof allowed / sizeof allowed[0]; i++) {
    int nr = seccomp_syscall_resolve_name(allowed[i]);
    if (nr == __NR_SCMP_ERROR)
      continue; // not a call of this architecture
    int rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 0);
    if (rc < 0)
      return rc;
  }
  int rc;
  pid_t self = getpid();
  // fstat() of an open descriptor (glibc: newfstatat(fd, "", AT_EMPTY_PATH))
  // but no stat of a path.
  if ((rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(newfstatat), 1,
                             arg_cmp(3, SCMP_CMP_MASKED_EQ, AT_EMPTY_PATH,
                                     AT_EMPTY_PATH))) < 0)
    return rc;
  // isatty() on the standard streams (stdio asks before buffering).
  if ((rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 1,
                             arg_cmp(1, SCMP_CMP_EQ, TCGETS, 0))) < 0)
    return rc;
  // Signal handlers, except for SIGSYS: the report of a blocked call stays.
  if ((rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(rt_sigaction), 1,
                             arg_cmp(0, SCMP_CMP_NE, SIGSYS, 0))) < 0)
    return rc;
  // Limits of this process only (pid 0 or its own).
  if ((rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(prlimit64), 1,
                             arg_cmp(0, SCMP_CMP_EQ, 0, 0))) < 0 ||
      (rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(prlimit64), 1,
                             arg_cmp(0, SCMP_CMP_EQ, (scmp_datum_t)self, 0))) < 0)
    return rc;
  // Signals to this process only: abort() and raise().
  if ((rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(kill), 1,
                             arg_cmp(0, SCMP_CMP_EQ, (scmp_datum_t)self, 0))) < 0 ||
      (rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(tgkill), 1,
                             arg_cmp(0, SCMP_CMP_EQ, (scmp_datum_t)self, 0))) < 0)
    return rc;
  return 0;
}

// ----------------------------------------------------------------------------
// the SIGSYS handler

static int report_fd = -1;

// Async-signal-safe: one 'F' record (the call's number) on the result pipe,
// then the child ends with EXIT_FORBIDDEN.
static void on_sigsys(int sig, siginfo_t *info, void *ctx) {
  (void)sig;
  (void)ctx;
  char rec[1 + sizeof(int32_t)];
  int32_t nr = info->si_syscall;
  rec[0] = 'F';
  memcpy(rec + 1, &nr, sizeof nr);
  ssize_t n = write(report_fd, rec, sizeof rec);
  (void)n;
  _exit(CONFINE_EXIT_FORBIDDEN);
}

// ----------------------------------------------------------------------------
// descriptors

static int cmp_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

// Closes every descriptor from 3 up that is not in keep (n of them).
static void close_others(const int *keep, int n) {
  int k[16], m = 0;
  for (int i = 0; i < n && m < 16; i++)
    if (keep[i] > 2)
      k[m++] = keep[i];
  qsort(k, (size_t)m, sizeof k[0], cmp_int);
  unsigned lo = 3;
  for (int i = 0; i < m; i++) {
    if ((unsigned)k[i] > lo)
      close_range(lo, (unsigned)k[i] - 1, 0);
    lo = (unsigned)k[i] + 1;
  }
  close_range(lo, ~0U, 0);
}

bool confine_install(int result_fd, const int *keep, int nkeep, char *err,
                     size_t errlen) {
  report_fd = result_fd;
  close_others(keep, nkeep);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_sigsys;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  if (sigaction(SIGSYS, &sa, NULL) != 0) {
    snprintf(err, errlen, "sigaction(SIGSYS): %s", strerror(errno));
    return false;
  }
  // Everything not allowed traps. seccomp_load sets no_new_privs first.
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_TRAP);
  if (!ctx) {
    snprintf(err, errlen, "seccomp_init failed");
    return false;
  }
  int rc = add_rules(ctx);
  if (rc == 0) // every thread of the child, not only this one
    rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1);
  if (rc == 0)
    rc = seccomp_load(ctx);
  seccomp_release(ctx);
  if (rc < 0) {
    snprintf(err, errlen, "seccomp: %s", strerror(-rc));
    return false;
  }
  return true;
}

void confine_syscall_name(int nr, char *out, size_t len) {
  char *name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, nr);
  snprintf(out, len, "%s", name ? name : "an unknown system call");
  free(name);
}
