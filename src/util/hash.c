// FNV-1a, 64 bits, over a byte range: the checksum of stored records (cache
// rows). Not cryptographic: it detects corruption, not tampering.
#include "internal.h"

uint64_t hash_fnv1a(uint64_t h, const void *data, size_t len) {
  const unsigned char *p = data;
  for (size_t i = 0; i < len; i++) {
    h ^= p[i];
    h *= 0x100000001b3ULL;
  }
  return h;
}
