// Pointer -> int table for IR walks (op and block pointers to node or walk
// indices): open addressing, linear probing, capacity a power of two at least
// twice the entries, fixed at init.
#ifndef MQSS_UTIL_PTR_MAP_H
#define MQSS_UTIL_PTR_MAP_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
  const void **key; // (cap), NULL = free
  int *val;         // (cap)
  size_t cap;
} ptr_map;

// Room for n entries. False when out of memory (ptr_map_free still safe).
bool ptr_map_init(ptr_map *t, int n);
// Inserts or overwrites; at most the n entries given to init.
void ptr_map_put(ptr_map *t, const void *key, int val);
// The value of key, or -1 when absent.
int ptr_map_get(const ptr_map *t, const void *key);
void ptr_map_free(ptr_map *t);

#endif // MQSS_UTIL_PTR_MAP_H
