// Unit tests of the process primitive (src/util/proc.c) that the sandbox, the
// training pool and random search share: a child past its timeout is killed
// and the read says so, a crash and an exit code come back as the wait
// status, output is captured across reads and handed over in whole records,
// and a two-way child answers over its socketpair, whose end may go away
// without killing the other side.
#include "util/proc.h" // before cmocka: it defines a fail() macro

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

// Child: writes `arg` (a string), then sleeps until killed.
static void hello_then_sleep(void *arg, int fd) {
  proc_write(fd, arg, strlen(arg));
  for (;;)
    pause();
}

static void test_timeout_kills(void **state) {
  (void)state;
  proc p;
  assert_true(proc_spawn(&p, false, hello_then_sleep, "hello"));
  assert_true(p.pid > 0);
  strbuf buf = {0};
  assert_true(proc_read(&p, 200, &buf, NULL, NULL)); // timed out
  assert_int_equal(buf.len, 5);
  assert_string_equal(buf.data, "hello"); // what came before is kept
  int st = proc_wait(&p);
  assert_true(WIFSIGNALED(st));
  assert_int_equal(WTERMSIG(st), SIGKILL);
  assert_int_equal(p.pid, 0);
  assert_int_equal(p.fd, -1);
  sb_free(&buf);
}

// Child: raises signal `*(int *)arg` (> 0), exits with code -*(int *)arg
// (< 0), or returns (0).
static void die(void *arg, int fd) {
  (void)fd;
  int how = *(int *)arg;
  child_default_fatal_signals(); // cmocka catches SIGSEGV in this process
  if (how < 0)
    _exit(-how);
  if (how > 0)
    raise(how);
}

static void test_crash_and_exit_status(void **state) {
  (void)state;
  const int cases[] = {SIGSEGV, SIGABRT, -5, 0};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    proc p;
    int how = cases[i];
    assert_true(proc_spawn(&p, false, die, &how));
    strbuf buf = {0};
    assert_false(proc_read(&p, 10000, &buf, NULL, NULL)); // end of file
    assert_int_equal(buf.len, 0);
    int st = proc_wait(&p);
    if (how > 0) {
      assert_true(WIFSIGNALED(st));
      assert_int_equal(WTERMSIG(st), how);
    } else { // a child that returns exits 0
      assert_true(WIFEXITED(st));
      assert_int_equal(WEXITSTATUS(st), -how);
    }
    sb_free(&buf);
  }
}

// Child: `n` lines "i:" + i*1000 'x's, so that lines span reads.
static void lines(void *arg, int fd) {
  int n = *(int *)arg;
  char *line = malloc((size_t)n * 1000 + 16);
  for (int i = 0; i < n; i++) {
    int k = snprintf(line, 16, "%d:", i);
    memset(line + k, 'x', (size_t)i * 1000);
    line[k + i * 1000] = '\n';
    proc_write(fd, line, (size_t)k + (size_t)i * 1000 + 1);
  }
  proc_write(fd, "tail", 4); // no newline: never a whole record
  free(line);
}

typedef struct {
  int n;       // lines taken
  int bad;     // lines that were not "n:" + n*1000 'x's
} taken;

static size_t take_lines(void *ctx, const char *data, size_t len) {
  taken *t = ctx;
  size_t used = 0;
  const char *nl;
  while ((nl = memchr(data + used, '\n', len - used))) {
    const char *line = data + used;
    int i = atoi(line), k = snprintf(NULL, 0, "%d:", i);
    bool ok = i == t->n && nl - line == k + i * 1000;
    for (const char *c = line + k; ok && c < nl; c++)
      ok = *c == 'x';
    t->bad += !ok;
    t->n++;
    used = (size_t)(nl - data) + 1;
  }
  return used;
}

static void test_output_in_records(void **state) {
  (void)state;
  int n = 30; // 435 kB: many reads of at most 8 kB, and more than a pipe holds
  proc p;
  assert_true(proc_spawn(&p, false, lines, &n));
  strbuf buf = {0};
  taken t = {0, 0};
  assert_false(proc_read(&p, 0, &buf, take_lines, &t)); // no timeout
  assert_int_equal(t.n, n);
  assert_int_equal(t.bad, 0);
  assert_string_equal(buf.data, "tail"); // what no record used stays
  int st = proc_wait(&p);
  assert_true(WIFEXITED(st));
  assert_int_equal(WEXITSTATUS(st), 0);
  sb_free(&buf);
}

// Child on a socketpair: reads one line, answers it upper-cased, then waits
// for the parent to close its end.
static void echo_upper(void *arg, int fd) {
  (void)arg;
  char line[64];
  ssize_t n = read(fd, line, sizeof line);
  for (ssize_t i = 0; i < n; i++)
    line[i] = (char)(line[i] >= 'a' && line[i] <= 'z' ? line[i] - 32 : line[i]);
  if (n > 0)
    proc_write(fd, line, (size_t)n);
  while (read(fd, line, sizeof line) > 0)
    ;
}

static void test_duplex(void **state) {
  (void)state;
  proc p;
  assert_true(proc_spawn(&p, true, echo_upper, NULL));
  assert_true(proc_send(p.fd, "ping\n", 5));
  char got[8] = {0};
  assert_true(proc_read_exact(p.fd, got, 5));
  assert_string_equal(got, "PING\n");
  proc_kill(&p); // a persistent worker's end: killed and reaped
  assert_int_equal(p.pid, 0);
  assert_int_equal(p.fd, -1);
}

static void just_return(void *arg, int fd) {
  (void)arg;
  (void)fd;
}

// A peer that is gone: end of file for the reader, false (not SIGPIPE, which
// would end this test) for the sender.
static void test_duplex_peer_gone(void **state) {
  (void)state;
  proc p;
  assert_true(proc_spawn(&p, true, just_return, NULL));
  char c;
  assert_false(proc_read_exact(p.fd, &c, 1));
  assert_false(proc_send(p.fd, "x", 1));
  int st = proc_wait(&p);
  assert_true(WIFEXITED(st));
  assert_int_equal(WEXITSTATUS(st), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_timeout_kills),
      cmocka_unit_test(test_crash_and_exit_status),
      cmocka_unit_test(test_output_in_records),
      cmocka_unit_test(test_duplex),
      cmocka_unit_test(test_duplex_peer_gone),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
