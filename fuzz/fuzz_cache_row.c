// libFuzzer harness: the measurement cache's row decoder (cache_row_decode
// in src/measure/cache.c), which must refuse any blob that is not a row it
// wrote for that key. Input layout: a flag byte, the key up to the first
// NUL, then the blob. With flag bit 0 set the harness pads the blob to a
// row and stamps the right checksum on it, so the fuzzer also reaches the
// range checks behind the checksum. A decoded result must be safe to print:
// its strings are terminated and its status has a name.
#include "measure/measure.h"

#include <stdlib.h>
#include <string.h>

// The row layout of cache.c: the result, then FNV-1a over key and result.
typedef struct {
  mqss_measure_result r;
  uint64_t checksum;
} row;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 2)
    return 0;
  const char *key = (const char *)data + 1;
  const uint8_t *nul = memchr(key, 0, size - 1);
  if (!nul)
    return 0;
  const uint8_t *blob = nul + 1;
  size_t len = size - (size_t)(blob - data);
  mqss_measure_result r;
  row w;
  if (data[0] & 1) {
    memset(&w, 0, sizeof w);
    memcpy(&w, blob, len < sizeof w.r ? len : sizeof w.r);
    w.checksum = fnv1a64(fnv1a64(FNV1A64_INIT, key, strlen(key) + 1), &w.r,
                         sizeof w.r);
    blob = (const uint8_t *)&w;
    len = sizeof w;
  }
  if (!cache_row_decode(key, blob, len, &r))
    return 0;
  if (!memchr(r.entry, 0, sizeof r.entry) ||
      !memchr(r.message, 0, sizeof r.message) ||
      !memchr(r.notes, 0, sizeof r.notes) ||
      strcmp(mqss_measure_status_name(r.status), "unknown") == 0)
    abort(); // a printer would read past the end, or print "unknown"
  return 0;
}
