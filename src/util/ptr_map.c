#include "util/ptr_map.h"

#include <stdint.h>
#include <stdlib.h>

bool ptr_map_init(ptr_map *t, int n) {
  t->cap = 16;
  while (t->cap < 2 * (size_t)n)
    t->cap *= 2;
  t->key = calloc(t->cap, sizeof *t->key);
  t->val = malloc(t->cap * sizeof *t->val);
  return t->key && t->val;
}

static size_t slot(const ptr_map *t, const void *key) {
  uint64_t h = (uint64_t)(uintptr_t)key;
  h ^= h >> 29;
  h *= 0x9E3779B97F4A7C15ull;
  return (size_t)(h >> 32) & (t->cap - 1);
}

void ptr_map_put(ptr_map *t, const void *key, int val) {
  size_t i = slot(t, key);
  while (t->key[i] && t->key[i] != key)
    i = (i + 1) & (t->cap - 1);
  t->key[i] = key;
  t->val[i] = val;
}

int ptr_map_get(const ptr_map *t, const void *key) {
  for (size_t i = slot(t, key); t->key[i]; i = (i + 1) & (t->cap - 1))
    if (t->key[i] == key)
      return t->val[i];
  return -1;
}

void ptr_map_free(ptr_map *t) {
  free(t->key);
  free(t->val);
  t->key = NULL;
  t->val = NULL;
}
