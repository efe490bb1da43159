// libFuzzer harness: the parsers of program output in the measurement
// harness. The low bit of the first byte picks one:
//   0  printed text (src/measure/compare.c): the rest is up to four
//      NUL-separated parts, the candidate's stdout, the reference's stdout,
//      the magnitude run's stdout and comma-separated --skip-output specs
//      (skip.c). The candidate is compared with the reference, and the
//      reference with itself, which must always pass (a program that prints
//      what the reference printed is never a wrong output).
//   1  the reference blob a sandbox child hands its parent (reference.c's
//      ref_read, from a memfd); a reference that reads back is compared with
//      itself, which must pass likewise.
// The other bits of the first byte set the rounding depth and has_mag.
#define _GNU_SOURCE
#include "measure/measure.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

// Splits off the next NUL-terminated part of [*p, end).
static void part(const char **p, const char *end, strbuf *out) {
  const char *nul = memchr(*p, 0, (size_t)(end - *p));
  size_t n = nul ? (size_t)(nul - *p) : (size_t)(end - *p);
  sb_append(out, *p, n);
  *p += n + (nul != NULL);
}

static void check_self(const reference *ref, const skip_set *user) {
  compare_result r;
  outputs_compare(&ref->val, ref, user, 1e-4, 1e-5, &r);
  if (!r.equal)
    abort(); // the reference differs from itself
  (void)outputs_checksum(&ref->val);
}

static void printed(uint8_t flags, const char *p, const char *end) {
  reference ref = {0};
  outputs got = {0};
  skip_set user = {0};
  strbuf specs = {0};
  part(&p, end, &got.out);
  part(&p, end, &ref.val.out);
  part(&p, end, &ref.mag.out);
  part(&p, end, &specs);
  ref.has_mag = flags & 2;
  ref.depth = 1 + (flags >> 2);
  char err[256];
  for (char *s = specs.data, *save = NULL, *tok;
       s && (tok = strtok_r(s, ",", &save)); s = NULL)
    if (!skip_parse(&user, tok, err, sizeof err))
      break;
  compare_result r;
  outputs_compare(&got, &ref, &user, 1e-4, 1e-5, &r);
  if (!text_equal(got.out.data, got.out.len, got.out.data, got.out.len))
    abort();
  check_self(&ref, &user);
  strbuf desc = {0};
  skip_describe(&user, "fuzz", &desc);
  sb_free(&desc);
  (void)outputs_checksum(&got);
  sb_free(&specs);
  skip_free(&user);
  outputs_free(&got);
  reference_free(&ref);
}

static void blob(const uint8_t *p, size_t n) {
  int fd = memfd_create("mqss-fuzz-ref", 0);
  if (fd < 0 || write(fd, p, n) != (ssize_t)n)
    abort();
  reference ref;
  size_t bytes;
  if (ref_read(fd, &ref, &bytes)) {
    check_self(&ref, NULL);
    reference_free(&ref);
  }
  close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1)
    return 0;
  if (data[0] & 1)
    blob(data + 1, size - 1);
  else
    printed(data[0], (const char *)data + 1, (const char *)data + size);
  return 0;
}
