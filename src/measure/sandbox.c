// The sandbox: runs one measurement function in a child (util/proc.c) with an
// address-space limit (RLIMIT_AS), a CPU-time limit (RLIMIT_CPU), a cap on
// the program's output (RLIMIT_FSIZE while it runs), a wall-clock timeout
// enforced by the parent, optional CPU pinning, and the child's standard
// error captured. Before the child first calls JIT-compiled code it is
// confined (confine.c): the program's standard output then goes to
// descriptors made beforehand. The child streams stage records and finally
// its reply over a pipe; whatever kills it, the parent turns into a
// structured outcome. It knows nothing about MLIR.
#define _GNU_SOURCE
#include "measure.h"
#include "util/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h> // WIFSIGNALED and friends
#include <unistd.h>

// Pipe records, child to parent:
//   'S' stage(1 byte)          entering a stage
//   'O' size(8 bytes)          an allocation failed; the child exits
//   'T' 5 doubles              child: entered, work began, work ended (ms),
//                              and the work's minor faults and CPU ms
//   'F' syscall(4 bytes)       a blocked system call (-1: the filter could
//                              not be installed); the child exits
//   'R' reply(reply_size)      the result; the child exits
enum { EXIT_OOM = 86 };

static _Thread_local sandbox_timing last_timing;

void sandbox_last_timing(sandbox_timing *out) { *out = last_timing; }

static int reply_fd = -1; // the child's write end; -1 in the parent
static int kept_fd = -1;  // kept open when the child is confined

static const char *const stage_names[] = {
    "start", "pipeline", "finish", "jit", "code size", "run", "done",
};

const char *stage_name(int stage) {
  static const char *const ref_names[] = {
      "start", "reference pipeline", "reference finish (finisher only)",
      "reference jit", "reference code size", "reference run", "reference done",
  };
  enum { N = sizeof stage_names / sizeof stage_names[0] };
  if (stage >= 0 && stage < N)
    return stage_names[stage];
  if (stage >= STAGE_REF_OFFSET && stage < STAGE_REF_OFFSET + N)
    return ref_names[stage - STAGE_REF_OFFSET];
  return "unknown";
}

// ----------------------------------------------------------------------------
// child side

void child_report_stage(int s) {
  if (reply_fd < 0)
    return;
  char rec[2] = {'S', (char)s};
  proc_write(reply_fd, rec, sizeof rec);
}

static void report_oom(size_t size) {
  char rec[1 + sizeof(uint64_t)];
  uint64_t n = size;
  rec[0] = 'O';
  memcpy(rec + 1, &n, sizeof n);
  proc_write(reply_fd, rec, sizeof rec);
  _exit(EXIT_OOM);
}

void *guarded_malloc(size_t size) {
  void *p = malloc(size);
  if (!p && size && reply_fd >= 0)
    report_oom(size);
  return p;
}

void *guarded_aligned_alloc(size_t align, size_t size) {
  void *p = aligned_alloc(align, size);
  if (!p && size && reply_fd >= 0)
    report_oom(size);
  return p;
}

typedef struct {
  double faults, cpu_ms;
} usage;

static usage usage_now(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return (usage){(double)ru.ru_minflt + (double)ru.ru_majflt,
                 (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
                     (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-3};
}

// Fatal signals back to their defaults in a sandbox child (LLVM installs its
// own handlers when it writes a file).
void child_default_signals(void) {
  if (reply_fd >= 0)
    child_default_fatal_signals();
}

static int64_t output_cap; // bytes the program may write (RLIMIT_FSIZE); 0 = no cap

void child_program_output(bool running) {
  if (reply_fd >= 0 && output_cap > 0)
    child_output_limit(running ? output_cap : 0);
}

void child_keep_fd(int fd) {
  if (reply_fd >= 0)
    kept_fd = fd;
}

void fd_read_all(int fd, strbuf *sb) {
  char chunk[4096];
  ssize_t n;
  lseek(fd, 0, SEEK_SET);
  while ((n = read(fd, chunk, sizeof chunk)) > 0)
    sb_append(sb, chunk, (size_t)n);
}

// A confined child's standard input and output: /dev/null and the program's
// capture (a memfd), made before the filter, reused by every run.
static int null_fd = -1, capture_fd = -1;

static void child_confine(void) {
  capture_fd = memfd_create("mqss-stdout", MFD_CLOEXEC);
  null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
  char err[200] = "cannot open /dev/null or make a memfd";
  if (capture_fd >= 0 && null_fd >= 0) {
    dup2(null_fd, 0);
    dup2(null_fd, 1); // the child's own standard output is not the program's
    int keep[] = {reply_fd, capture_fd, null_fd, kept_fd};
    if (confine_install(reply_fd, keep, 4, err, sizeof err))
      return;
  }
  fprintf(stderr, "cannot confine the program: %s\n", err);
  fflush(stderr);
  char rec[1 + sizeof(int32_t)] = {'F'};
  int32_t none = -1;
  memcpy(rec + 1, &none, sizeof none);
  proc_write(reply_fd, rec, sizeof rec);
  _exit(CONFINE_EXIT_FORBIDDEN);
}

void program_io_begin(program_io *io, bool capture) {
  fflush(stdout);
  io->saved = -1;
  io->tmp = NULL;
  if (reply_fd >= 0) { // a sandbox child: confined from the first call on
    if (null_fd < 0)
      child_confine();
    io->target = null_fd;
    if (capture && ftruncate(capture_fd, 0) == 0 &&
        lseek(capture_fd, 0, SEEK_SET) == 0)
      io->target = capture_fd;
    dup2(io->target, 1);
    return;
  }
  io->saved = dup(1);
  FILE *tmp = capture ? tmpfile() : NULL;
  io->tmp = tmp;
  io->target = tmp ? fileno(tmp) : open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (io->saved >= 0 && io->target >= 0)
    dup2(io->target, 1);
}

void program_io_end(program_io *io, strbuf *out) {
  fflush(stdout);
  if (reply_fd >= 0) {
    dup2(null_fd, 1);
    if (out && io->target == capture_fd)
      fd_read_all(capture_fd, out);
    return;
  }
  if (io->saved >= 0) {
    dup2(io->saved, 1);
    close(io->saved);
  }
  if (io->tmp) {
    if (out)
      fd_read_all(io->target, out);
    fclose(io->tmp);
  } else if (io->target >= 0) {
    close(io->target);
  }
}

// What the child needs: the job and where its standard error goes.
typedef struct {
  const mqss_measure_options *o;
  child_fn fn;
  void *user;
  size_t reply_size;
  int errfd;
} child_args;

static void child_main(void *arg, int fd) {
  double stamp[5] = {now_ms(), 0, 0, 0, 0};
  const child_args *c = arg;
  const mqss_measure_options *o = c->o;
  size_t reply_size = c->reply_size;
  reply_fd = fd;
  dup2(c->errfd, 2);
  child_limits_apply(&(child_limits){o->timeout_ms, o->mem_limit_mb, o->cpu});
  output_cap = (int64_t)o->output_limit_mb << 20;
  child_report_stage(STAGE_START);
  // The reply is a struct: fill it at an aligned address, send it after 'R'.
  char *reply = calloc(1, reply_size ? reply_size : 1);
  if (!reply)
    report_oom(reply_size);
  stamp[1] = now_ms();
  usage u0 = usage_now();
  c->fn(c->user, reply, reply_size);
  stamp[2] = now_ms();
  usage u1 = usage_now();
  stamp[3] = u1.faults - u0.faults;
  stamp[4] = u1.cpu_ms - u0.cpu_ms;
  char rec[1 + sizeof stamp];
  rec[0] = 'T';
  memcpy(rec + 1, stamp, sizeof stamp);
  proc_write(reply_fd, rec, sizeof rec);
  proc_write(reply_fd, "R", 1);
  proc_write(reply_fd, reply, reply_size);
  // Close the pipe before exiting: the parent sees EOF now, not after the
  // kernel has torn down this copy of a large address space.
  close(reply_fd);
}

// ----------------------------------------------------------------------------
// parent side

// Last `max` bytes of the child's standard error, one line.
static void stderr_tail(FILE *f, char *out, size_t max) {
  out[0] = '\0';
  long end;
  if (fseek(f, 0, SEEK_END) || (end = ftell(f)) <= 0)
    return;
  long start = end > (long)max - 1 ? end - (long)max + 1 : 0;
  fseek(f, start, SEEK_SET);
  size_t n = fread(out, 1, max - 1, f);
  out[n] = '\0';
  while (n > 0 && (out[n - 1] == '\n' || out[n - 1] == ' '))
    out[--n] = '\0';
  for (size_t i = 0; i < n; i++)
    if (out[i] == '\n')
      out[i] = ' ';
}

static void classify_death(const mqss_measure_options *o, int wst, bool timed_out,
                           int stage, bool oom, uint64_t oom_size,
                           int forbidden, FILE *errf, mqss_measure_result *r) {
  char tail[600];
  stderr_tail(errf, tail, sizeof tail);
  const char *st = stage_name(stage);
  bool sigsys = WIFSIGNALED(wst) && WTERMSIG(wst) == SIGSYS;
  if (forbidden == -1) {
    r->status = MQSS_MEASURE_FORBIDDEN;
    set_message(r, "forbidden: the program was not run: the sandbox could not "
                "confine it (%s); only the C API's no_sandbox option runs code "
                "unconfined (in process)", tail);
  } else if (forbidden >= 0 || (sigsys && !timed_out)) {
    // A program that masked SIGSYS (posix_spawn, hence system(), masks
    // every signal) is killed by it without the handler: no name then.
    char name[96] = "(unnamed: SIGSYS was masked, as posix_spawn and system() do)";
    if (forbidden >= 0) {
      char call[64];
      confine_syscall_name(forbidden, call, sizeof call);
      snprintf(name, sizeof name, ", %s,", call);
    }
    r->status = MQSS_MEASURE_FORBIDDEN;
    r->signal = SIGSYS;
    set_message(r, "forbidden: the program made a blocked system call%s%s "
                "during %s; executed code may not open files, run programs, "
                "create processes or threads, or use sockets (docs/MEASURE.md, "
                "Confinement)", forbidden >= 0 ? "" : " ", name, st);
  } else if (oom) {
    r->status = MQSS_MEASURE_OUT_OF_MEMORY;
    set_message(r, "out_of_memory: an allocation of %llu bytes failed under the "
                "%d MiB address-space limit during %s",
                (unsigned long long)oom_size, o->mem_limit_mb, st);
  } else if (timed_out) {
    r->status = MQSS_MEASURE_TIMEOUT;
    set_message(r, "timeout: no result after %d ms wall clock during %s; the "
                "child was killed (raise --timeout if this is expected)",
                o->timeout_ms, st);
  } else if (WIFSIGNALED(wst) && WTERMSIG(wst) == SIGXFSZ) {
    r->status = MQSS_MEASURE_CRASHED;
    r->signal = SIGXFSZ;
    set_message(r, "crashed: output limit: the program wrote more than %d MiB "
                "(its standard output or error) during %s; raise "
                "--output-limit (0 = none) if that is expected",
                o->output_limit_mb, st);
  } else if (WIFSIGNALED(wst) && WTERMSIG(wst) == SIGXCPU) {
    r->status = MQSS_MEASURE_TIMEOUT;
    set_message(r, "timeout: CPU-time limit hit during %s", st);
  } else if (WIFSIGNALED(wst) &&
             (strstr(tail, "out of memory") || strstr(tail, "bad_alloc") ||
              strstr(tail, "Cannot allocate memory"))) {
    r->status = MQSS_MEASURE_OUT_OF_MEMORY;
    r->signal = WTERMSIG(wst);
    set_message(r, "out_of_memory: the child ran out of memory during %s "
                "(limit %d MiB): %s", st, o->mem_limit_mb, tail);
  } else if (WIFSIGNALED(wst)) {
    r->status = MQSS_MEASURE_CRASHED;
    r->signal = WTERMSIG(wst);
    set_message(r, "crashed: signal %d (%s) during %s%s%s", r->signal,
                strsignal(r->signal), st, tail[0] ? ": " : "", tail);
  } else {
    r->status = MQSS_MEASURE_CRASHED;
    set_message(r, "crashed: the child exited with code %d during %s without "
                "a result%s%s", WIFEXITED(wst) ? WEXITSTATUS(wst) : -1, st,
                tail[0] ? ": " : "", tail);
  }
}

mqss_status sandbox_run(mqss_session *s, const mqss_measure_options *o,
                        child_fn fn, void *user, void *reply, size_t reply_size,
                        bool *replied, mqss_measure_result *r) {
  *replied = false;
  sandbox_timing *tm = &last_timing;
  memset(tm, 0, sizeof *tm);
  double t0 = now_ms();
  if (o->no_sandbox) {
    usage u0 = usage_now();
    fn(user, reply, reply_size);
    usage u1 = usage_now();
    *replied = true;
    tm->work_ms = tm->total_ms = now_ms() - t0;
    tm->work_faults = u1.faults - u0.faults;
    tm->work_cpu_ms = u1.cpu_ms - u0.cpu_ms;
    return MQSS_OK;
  }
  FILE *errf = tmpfile();
  if (!errf)
    return fail(s, MQSS_ERR_INTERNAL, "measure: cannot create a temporary "
                "file: %s", strerror(errno));
  child_args args = {o, fn, user, reply_size, fileno(errf)};
  proc child;
  if (!proc_spawn(&child, false, child_main, &args)) {
    int e = errno;
    fclose(errf);
    return fail(s, MQSS_ERR_INTERNAL, "measure: cannot start the sandbox "
                "child (pipe or fork failed): %s", strerror(e));
  }
  double t1 = child.fork_ms[0], t2 = child.fork_ms[1];
  strbuf data = {0};
  bool timed_out = proc_read(&child, o->timeout_ms, &data, NULL, NULL);
  double t3 = now_ms(), stamp[5] = {t1, t1, t3, 0, 0};
  int stage = STAGE_START;
  bool oom = false;
  uint64_t oom_size = 0;
  int forbidden = -2; // -2: none; -1: not confined; else the call's number
  for (size_t i = 0; i < data.len;) {
    char tag = data.data[i];
    if (tag == 'S' && i + 2 <= data.len) {
      stage = (unsigned char)data.data[i + 1];
      i += 2;
    } else if (tag == 'O' && i + 9 <= data.len) {
      oom = true;
      memcpy(&oom_size, data.data + i + 1, 8);
      i += 9;
    } else if (tag == 'F' && i + 5 <= data.len) {
      int32_t nr;
      memcpy(&nr, data.data + i + 1, sizeof nr);
      forbidden = nr < 0 ? -1 : nr;
      i += 5;
    } else if (tag == 'T' && i + 1 + sizeof stamp <= data.len) {
      memcpy(stamp, data.data + i + 1, sizeof stamp);
      i += 1 + sizeof stamp;
    } else if (tag == 'R' && i + 1 + reply_size <= data.len) {
      memcpy(reply, data.data + i + 1, reply_size);
      *replied = true;
      i += 1 + reply_size;
    } else {
      break; // truncated record: the child died mid-write
    }
  }
  if (*replied) {
    proc_reap_later(&child); // its status is not needed: it replied
  } else {
    int wst = proc_wait(&child);
    classify_death(o, wst, timed_out, stage, oom, oom_size, forbidden, errf, r);
  }
  sb_free(&data);
  fclose(errf);
  double t4 = now_ms();
  tm->setup_ms = t1 - t0;
  tm->fork_ms = t2 - t1;
  tm->start_ms = stamp[0] - t1;
  tm->limits_ms = stamp[1] - stamp[0];
  tm->work_ms = stamp[2] - stamp[1];
  tm->reply_ms = t3 - stamp[2];
  tm->teardown_ms = t4 - t3;
  tm->total_ms = t4 - t0;
  tm->work_faults = stamp[3];
  tm->work_cpu_ms = stamp[4];
  return MQSS_OK;
}
