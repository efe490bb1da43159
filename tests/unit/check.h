// Assertions shared by the unit tests, on top of cmocka. Each prints both
// operands when it fails, so a failure says what was there.
#ifndef MQSS_TEST_CHECK_H
#define MQSS_TEST_CHECK_H

#include "mqss/mqss.h"

#include <string.h>

// Fails unless `needle` occurs in the string `haystack`.
#define assert_contains(haystack, needle)                                      \
  do {                                                                         \
    const char *h_ = (haystack);                                               \
    const char *n_ = (needle);                                                 \
    if (!h_ || !strstr(h_, n_))                                                \
      fail_msg("expected \"%s\" in \"%s\"", n_, h_ ? h_ : "(null)");          \
  } while (0)

// cmocka fixtures: *state is a fresh session, destroyed after the test.
static inline int session_setup(void **state) {
  mqss_session *s = NULL;
  assert_int_equal(mqss_session_create(&s), MQSS_OK);
  *state = s;
  return 0;
}

static inline int session_teardown(void **state) {
  mqss_session_destroy(*state);
  return 0;
}

#endif // MQSS_TEST_CHECK_H
