// The network's random numbers: xorshift64* seeded through splitmix64, with
// uniform and normal draws. The state is passed explicitly, so the same seed
// always gives the same initialisation and the same samples.
//
// Not a cryptographic generator, and not shared with other parts of mqss.
#include "nn/nn.h"

#include <math.h>

void nn_rng_seed(nn_rng *r, uint64_t seed) {
  // splitmix64 scrambles small seeds; xorshift needs a non-zero state
  uint64_t z = seed + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  r->s = z ? z : 0x2545F4914F6CDD1Dull;
}

uint64_t nn_rng_u64(nn_rng *r) {
  uint64_t x = r->s;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  r->s = x;
  return x * 0x2545F4914F6CDD1Dull;
}

float nn_rng_uniform(nn_rng *r) {
  return (float)(nn_rng_u64(r) >> 40) / 16777216.0f; // 24 random bits
}

float nn_rng_normal(nn_rng *r) {
  // Box-Muller; u1 in (0, 1] so the log is finite
  double u1 = ((double)(nn_rng_u64(r) >> 11) + 1.0) / 9007199254740992.0;
  double u2 = (double)(nn_rng_u64(r) >> 11) / 9007199254740992.0;
  return (float)(sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2));
}
