// Unit test of the forked child's memory limit (src/util/child_limits.c): it
// counts from the address space the child inherits. A host process that
// already maps more than mem_limit_mb (here a 6 GiB reservation) must leave
// its child room to work; the child may still not map much more than the
// limit beyond that.
#include "internal.h" // before cmocka: it defines a fail() macro
#include "util/sanitized.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

// Child: under a 64 MiB limit, maps and touches 16 MiB (exit 1 on failure),
// then asks for 512 MiB more (exit 2 when that is granted).
static int child(void) {
  child_limits_apply(&(child_limits){10000, 64, -1});
  char *small = mmap(NULL, 16 << 20, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (small == MAP_FAILED)
    return 1;
  memset(small, 1, 16 << 20);
  void *big = mmap(NULL, 512 << 20, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  return big == MAP_FAILED ? 0 : 2;
}

static void test_limit_counts_from_inherited(void **state) {
  (void)state;
  size_t reserve = (size_t)6 << 30; // address space only, never touched
  void *host = mmap(NULL, reserve, PROT_NONE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  assert_true(host != MAP_FAILED);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0)
    _exit(child());
  int st = 0;
  assert_int_equal(waitpid(pid, &st, 0), pid);
  assert_true(WIFEXITED(st));
  // Sanitizer builds apply no address-space limit (the big map succeeds).
  assert_int_equal(WEXITSTATUS(st), MQSS_SANITIZED ? 2 : 0);
  munmap(host, reserve);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_limit_counts_from_inherited),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
