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
//
// Attributes are the expensive part: for ops with properties (MLIR 19),
// every mlirOperationGetAttribute(op, i) rebuilds the attribute dictionary.
// So each op name remembers the attribute names its ops have had, and an op
// is read by name when those account for all its attributes (the count
// still costs one rebuild); otherwise it is read by index and the new names
// are learnt. Attributes combine order-free, so what was learnt first does
// not matter.
#include "internal.h"
#include "util/ptr_map.h"

#include <stdint.h>
#include <stdlib.h>

static uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h * 0xff51afd7ed558ccdULL;
}

// Attribute names seen on the ops of one name.
enum { NAMES_PER_OP = 12, OP_NAMES = 256 }; // OP_NAMES: a power of two
typedef struct {
  const void *op_name; // the op name's identifier, NULL for a free slot
  int n;
  MlirIdentifier name[NAMES_PER_OP];
} seen_names;

static seen_names *seen_for(seen_names *t, MlirIdentifier op_name) {
  size_t i = ((uintptr_t)op_name.ptr >> 4) & (OP_NAMES - 1);
  for (int probes = 0; probes < OP_NAMES; probes++) {
    if (!t[i].op_name || t[i].op_name == op_name.ptr) {
      t[i].op_name = op_name.ptr;
      return &t[i];
    }
    i = (i + 1) & (OP_NAMES - 1);
  }
  return NULL; // more than OP_NAMES op names: read by index
}

static uint64_t attr_term(MlirIdentifier name, MlirAttribute a) {
  return mix((uint64_t)(uintptr_t)name.ptr, (uint64_t)(uintptr_t)a.ptr);
}

// Order-free hash of op's attributes.
static uint64_t hash_attrs(MlirOperation op, seen_names *t) {
  intptr_t n = mlirOperationGetNumAttributes(op);
  uint64_t sum = (uint64_t)n;
  if (n == 0)
    return sum;
  seen_names *s = seen_for(t, mlirOperationGetName(op));
  intptr_t found = 0;
  for (int k = 0; s && k < s->n; k++) {
    MlirAttribute a =
        mlirOperationGetAttributeByName(op, mlirIdentifierStr(s->name[k]));
    if (!mlirAttributeIsNull(a)) {
      sum += attr_term(s->name[k], a);
      found++;
    }
  }
  if (s && found == n)
    return sum;
  sum = (uint64_t)n;
  for (intptr_t i = 0; i < n; i++) {
    MlirNamedAttribute a = mlirOperationGetAttribute(op, i);
    sum += attr_term(a.name, a.attribute);
    bool known = false;
    for (int k = 0; s && k < s->n && !known; k++)
      known = s->name[k].ptr == a.name.ptr;
    if (s && !known && s->n < NAMES_PER_OP)
      s->name[s->n++] = a.name;
  }
  return sum;
}

// Walks op and everything nested in it in pre-order. With a map to fill
// (*next counts), records every op and block; else counts them into *next.
static void number(MlirOperation op, ptr_map *m, int *next) {
  if (m)
    ptr_map_put(m, op.ptr, *next);
  (*next)++;
  for (MlirRegion r = mlirOperationGetFirstRegion(op); !mlirRegionIsNull(r);
       r = mlirRegionGetNextInOperation(r))
    for (MlirBlock b = mlirRegionGetFirstBlock(r); !mlirBlockIsNull(b);
         b = mlirBlockGetNextInRegion(b)) {
      if (m)
        ptr_map_put(m, b.ptr, *next);
      (*next)++;
      for (MlirOperation o = mlirBlockGetFirstOperation(b);
           !mlirOperationIsNull(o); o = mlirOperationGetNextInBlock(o))
        number(o, m, next);
    }
}

static uint64_t value_ref(const ptr_map *m, MlirValue v) {
  if (mlirValueIsAOpResult(v))
    return (uint64_t)ptr_map_get(m, mlirOpResultGetOwner(v).ptr) << 20 ^
           (uint64_t)mlirOpResultGetResultNumber(v) << 1;
  return (uint64_t)ptr_map_get(m, mlirBlockArgumentGetOwner(v).ptr) << 20 ^
         (uint64_t)mlirBlockArgumentGetArgNumber(v) << 1 ^ 1;
}

static uint64_t hash_op(MlirOperation op, const ptr_map *m, seen_names *t,
                        uint64_t h) {
  h = mix(h, (uint64_t)(uintptr_t)mlirOperationGetName(op).ptr);
  h = mix(h, hash_attrs(op, t));
  intptr_t n = mlirOperationGetNumOperands(op);
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
    h = mix(h, (uint64_t)ptr_map_get(m, mlirOperationGetSuccessor(op, i).ptr));
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
        h = hash_op(o, m, t, h);
    }
    h = mix(h, 0xe2d); // region end
  }
  return h;
}

uint64_t module_fingerprint(const mqss_module *mod) {
  MlirOperation root = mlirModuleGetOperation(mod->mod);
  int count = 0;
  number(root, NULL, &count);
  ptr_map m = {0};
  seen_names *t = calloc(OP_NAMES, sizeof *t);
  uint64_t h;
  if (ptr_map_init(&m, count) && t) {
    count = 0;
    number(root, &m, &count);
    h = hash_op(root, &m, t, 0x6d717373ULL);
  } else { // no memory: fall back to the printed hash
    h = mqss_module_hash(mod);
  }
  ptr_map_free(&m);
  free(t);
  return h;
}
