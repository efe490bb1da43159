// Assertions shared by the unit tests, on top of cmocka. Each prints both
// operands when it fails, so a failure says what was there.
#ifndef MQSS_TEST_CHECK_H
#define MQSS_TEST_CHECK_H

#include "mqss/mqss.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

// Fails unless `needle` occurs in the string `haystack`.
#define assert_contains(haystack, needle)                                      \
  do {                                                                         \
    const char *h_ = (haystack);                                               \
    const char *n_ = (needle);                                                 \
    if (!h_ || !strstr(h_, n_))                                                \
      fail_msg("expected \"%s\" in \"%s\"", n_, h_ ? h_ : "(null)");          \
  } while (0)

// Occurrences of `needle` in the string `haystack` (they may overlap).
static inline int count_of(const char *haystack, const char *needle) {
  int n = 0;
  for (const char *p = haystack; (p = strstr(p, needle)); p++)
    n++;
  return n;
}

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

// Writes the shipped catalog to `path` without the lines that contain one
// of the n strings `drop` (each must match one line): a catalog that lacks
// some safety rules, for tests of what the environment still catches by
// measurement when no rule blocks a step.
static inline void write_catalog_without(const char *path,
                                         const char *const *drop, int n) {
  FILE *in = fopen(MQSS_SOURCE_DIR "/data/catalog.yaml", "r");
  FILE *out = fopen(path, "w");
  assert_non_null(in);
  assert_non_null(out);
  char line[1024];
  int dropped = 0;
  while (fgets(line, sizeof line, in)) {
    bool drop_it = false;
    for (int i = 0; i < n; i++)
      drop_it |= strstr(line, drop[i]) != NULL;
    if (drop_it)
      dropped++;
    else
      fputs(line, out);
  }
  fclose(in);
  assert_int_equal(fclose(out), 0);
  assert_int_equal(dropped, n);
}

// The rules of the catalog's affine-vectorize: without them the
// environment tests meet MLIR 19's super-vectorizer miscompiles.
static const char *const vectorize_rules[] = {
    "avoids: [affine.for.strided, affine.access.strided]",
    "refuse_unless_divides: V"};

#endif // MQSS_TEST_CHECK_H
