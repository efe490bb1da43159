// FNV-1a, 64-bit: the one content hash behind checksums of persisted records
// and configuration fingerprints. Not cryptographic. Each step maps the
// state one-to-one for a fixed input byte, so two inputs that differ in a
// single byte (any one flipped bit) always hash differently.
#include "internal.h"

uint64_t fnv1a64(uint64_t h, const void *data, size_t len) {
  const unsigned char *p = data;
  for (size_t i = 0; i < len; i++)
    h = (h ^ p[i]) * 0x100000001b3ULL;
  return h;
}
