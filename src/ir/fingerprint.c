// module_fingerprint: a structural hash of a module for change detection
// inside one process (did this pass change anything?). Printing the module
// (mqss_module_hash) costs milliseconds on a 1000-op module; this walks the
// ops twice through the C API instead.
//
// Op names, attributes and types are uniqued in the MLIRContext, so their
// storage pointers identify them exactly: equal pointers mean equal values.
// SSA values are named by position (the defining op's or block's pre-order
// index, plus the result or argument number), so a clone fingerprints like
// its original. Locations are left out, as in mqss_module_hash.
#include "internal.h"

#include <stdint.h>
#include <stdlib.h>

// Open-addressed map from op and block pointers to their pre-order index.
typedef struct {
  const void **key;
  uint32_t *val;
  size_t mask; // capacity - 1, a power of two minus one
} ptrmap;

static size_t slot(const ptrmap *m, const void *p) {
  uint64_t h = (uint64_t)(uintptr_t)p * 0x9e3779b97f4a7c15ULL;
  size_t i = (size_t)(h >> 20) & m->mask;
  while (m->key[i] && m->key[i] != p)
    i = (i + 1) & m->mask;
  return i;
}

static void put(ptrmap *m, const void *p, uint32_t v) {
  size_t i = slot(m, p);
  m->key[i] = p;
  m->val[i] = v;
}

static uint32_t get(const ptrmap *m, const void *p) {
  size_t i = slot(m, p);
  return m->key[i] ? m->val[i] : UINT32_MAX;
}

static uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h * 0xff51afd7ed558ccdULL;
}

// Walks op and everything nested in it in pre-order. With a map to fill
// (*next counts), records every op and block; else counts them into *next.
static void number(MlirOperation op, ptrmap *m, uint32_t *next) {
  if (m)
    put(m, op.ptr, *next);
  (*next)++;
  for (MlirRegion r = mlirOperationGetFirstRegion(op); !mlirRegionIsNull(r);
       r = mlirRegionGetNextInOperation(r))
    for (MlirBlock b = mlirRegionGetFirstBlock(r); !mlirBlockIsNull(b);
         b = mlirBlockGetNextInRegion(b)) {
      if (m)
        put(m, b.ptr, *next);
      (*next)++;
      for (MlirOperation o = mlirBlockGetFirstOperation(b);
           !mlirOperationIsNull(o); o = mlirOperationGetNextInBlock(o))
        number(o, m, next);
    }
}

static uint64_t value_ref(const ptrmap *m, MlirValue v) {
  if (mlirValueIsAOpResult(v))
    return (uint64_t)get(m, mlirOpResultGetOwner(v).ptr) << 20 |
           (uint64_t)mlirOpResultGetResultNumber(v) << 1;
  return (uint64_t)get(m, mlirBlockArgumentGetOwner(v).ptr) << 20 |
         (uint64_t)mlirBlockArgumentGetArgNumber(v) << 1 | 1;
}

static uint64_t hash_op(MlirOperation op, const ptrmap *m, uint64_t h) {
  h = mix(h, (uint64_t)(uintptr_t)mlirOperationGetName(op).ptr);
  intptr_t n = mlirOperationGetNumAttributes(op);
  h = mix(h, (uint64_t)n);
  for (intptr_t i = 0; i < n; i++) {
    MlirNamedAttribute a = mlirOperationGetAttribute(op, i);
    h = mix(h, (uint64_t)(uintptr_t)a.name.ptr);
    h = mix(h, (uint64_t)(uintptr_t)a.attribute.ptr);
  }
  n = mlirOperationGetNumOperands(op);
  h = mix(h, (uint64_t)n);
  for (intptr_t i = 0; i < n; i++)
    h = mix(h, value_ref(m, mlirOperationGetOperand(op, i)));
  n = mlirOperationGetNumResults(op);
  h = mix(h, (uint64_t)n);
  for (intptr_t i = 0; i < n; i++)
    h = mix(h, (uint64_t)(uintptr_t)mlirValueGetType(
                   mlirOperationGetResult(op, i)).ptr);
  n = mlirOperationGetNumSuccessors(op);
  h = mix(h, (uint64_t)n);
  for (intptr_t i = 0; i < n; i++)
    h = mix(h, get(m, mlirOperationGetSuccessor(op, i).ptr));
  for (MlirRegion r = mlirOperationGetFirstRegion(op); !mlirRegionIsNull(r);
       r = mlirRegionGetNextInOperation(r)) {
    h = mix(h, 0x5e610); // region start
    for (MlirBlock b = mlirRegionGetFirstBlock(r); !mlirBlockIsNull(b);
         b = mlirBlockGetNextInRegion(b)) {
      intptr_t na = mlirBlockGetNumArguments(b);
      h = mix(h, 0xb10c0000ULL | (uint64_t)na);
      for (intptr_t i = 0; i < na; i++)
        h = mix(h, (uint64_t)(uintptr_t)mlirValueGetType(
                       mlirBlockGetArgument(b, i)).ptr);
      for (MlirOperation o = mlirBlockGetFirstOperation(b);
           !mlirOperationIsNull(o); o = mlirOperationGetNextInBlock(o))
        h = hash_op(o, m, h);
    }
    h = mix(h, 0xe2d); // region end
  }
  return h;
}

uint64_t module_fingerprint(const mqss_module *mod) {
  MlirOperation root = mlirModuleGetOperation(mod->mod);
  uint32_t count = 0;
  number(root, NULL, &count);
  size_t cap = 16;
  while (cap < 2 * (size_t)count)
    cap *= 2;
  ptrmap m = {calloc(cap, sizeof *m.key), malloc(cap * sizeof *m.val),
              cap - 1};
  if (!m.key || !m.val) { // no memory: fall back to the printed hash
    free(m.key);
    free(m.val);
    return mqss_module_hash(mod);
  }
  count = 0;
  number(root, &m, &count);
  uint64_t h = hash_op(root, &m, 0x6d717373ULL);
  free(m.key);
  free(m.val);
  return h;
}
