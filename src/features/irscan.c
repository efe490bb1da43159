// Small readers of IR facts used by the feature extractor: element-type
// classes, static shapes and sizes, constant loop bounds (affine.for,
// scf.for, scf.parallel, affine.parallel) and linalg iteration domains. Each
// answers one question about one op or type; none walks the module.
#include "features/irscan.h"

#include <mlir-c/AffineExpr.h>
#include <mlir-c/AffineMap.h>
#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>
#include <string.h>

// ----------------------------------------------------------------------------
// names and types

bool name_is(MlirStringRef n, const char *s) {
  size_t len = strlen(s);
  return n.length == len && !memcmp(n.data, s, len);
}

bool name_has_prefix(MlirStringRef n, const char *s) {
  size_t len = strlen(s);
  return n.length >= len && !memcmp(n.data, s, len);
}

bool name_contains(MlirStringRef n, const char *s) {
  size_t len = strlen(s);
  for (size_t i = 0; i + len <= n.length; i++)
    if (!memcmp(n.data + i, s, len))
      return true;
  return false;
}

int elem_class(MlirType t) {
  if (mlirTypeIsAShaped(t))
    t = mlirShapedTypeGetElementType(t);
  if (mlirTypeIsAF16(t))
    return 0;
  if (mlirTypeIsABF16(t))
    return 1;
  if (mlirTypeIsAF32(t))
    return 2;
  if (mlirTypeIsAF64(t))
    return 3;
  if (mlirTypeIsAInteger(t)) {
    switch (mlirIntegerTypeGetWidth(t)) {
    case 1: return 4;
    case 8: return 5;
    case 16: return 6;
    case 32: return 7;
    case 64: return 8;
    default: return 10;
    }
  }
  if (mlirTypeIsAIndex(t))
    return 9;
  return 10;
}

double elem_bytes(MlirType t) {
  if (mlirTypeIsAShaped(t))
    t = mlirShapedTypeGetElementType(t);
  if (mlirTypeIsAInteger(t)) {
    unsigned w = mlirIntegerTypeGetWidth(t);
    return w < 8 ? 1.0 : w / 8.0;
  }
  if (mlirTypeIsAFloat(t))
    return mlirFloatTypeGetWidth(t) / 8.0;
  return 8.0; // index and others
}

double static_numel(MlirType t) {
  if (!mlirTypeIsAShaped(t))
    return 1.0;
  if (!mlirShapedTypeHasRank(t))
    return 1.0;
  double n = 1.0;
  for (intptr_t i = 0; i < mlirShapedTypeGetRank(t); i++) {
    int64_t d = mlirShapedTypeGetDimSize(t, i);
    if (!mlirShapedTypeIsDynamicSize(d))
      n *= (double)d;
  }
  return n;
}

int64_t dim_size(MlirType t, intptr_t i) {
  if (!mlirTypeIsAShaped(t) || !mlirShapedTypeHasRank(t) ||
      i < 0 || i >= mlirShapedTypeGetRank(t))
    return 1;
  int64_t d = mlirShapedTypeGetDimSize(t, i);
  return mlirShapedTypeIsDynamicSize(d) ? 1 : d;
}

int type_rank(MlirType t) {
  return mlirTypeIsAShaped(t) && mlirShapedTypeHasRank(t)
             ? (int)mlirShapedTypeGetRank(t)
             : 0;
}

// ----------------------------------------------------------------------------
// constants and loop bounds

static MlirAttribute attr(MlirOperation op, const char *name) {
  return mlirOperationGetAttributeByName(op,
                                         mlirStringRefCreateFromCString(name));
}

// The integer an arith.constant defines, if `v` is one.
static bool const_int(MlirValue v, int64_t *out) {
  if (!mlirValueIsAOpResult(v))
    return false;
  MlirOperation def = mlirOpResultGetOwner(v);
  if (!name_is(mlirIdentifierStr(mlirOperationGetName(def)), "arith.constant"))
    return false;
  MlirAttribute a = attr(def, "value");
  if (mlirAttributeIsNull(a) || !mlirAttributeIsAInteger(a))
    return false;
  *out = mlirIntegerAttrGetValueInt(a);
  return true;
}

// Result `i` of a constant affine map attribute.
static bool map_const(MlirAttribute a, intptr_t i, int64_t *out) {
  if (mlirAttributeIsNull(a) || !mlirAttributeIsAAffineMap(a))
    return false;
  MlirAffineMap m = mlirAffineMapAttrGetValue(a);
  if (i >= mlirAffineMapGetNumResults(m))
    return false;
  MlirAffineExpr e = mlirAffineMapGetResult(m, i);
  if (!mlirAffineExprIsAConstant(e))
    return false;
  *out = mlirAffineConstantExprGetValue(e);
  return true;
}

static double trips(int64_t lb, int64_t ub, int64_t step) {
  if (step <= 0 || ub <= lb)
    return 0.0;
  return (double)((ub - lb + step - 1) / step);
}

int loop_kind(MlirStringRef n) {
  if (name_is(n, "affine.for"))
    return LOOP_AFFINE_FOR;
  if (name_is(n, "affine.parallel"))
    return LOOP_AFFINE_PAR;
  if (name_is(n, "scf.for"))
    return LOOP_SCF_FOR;
  if (name_is(n, "scf.parallel"))
    return LOOP_SCF_PAR;
  if (name_is(n, "scf.while"))
    return LOOP_WHILE;
  return LOOP_NONE;
}

bool loop_trip_count(MlirOperation op, int kind, double *out) {
  int64_t lb, ub, step;
  switch (kind) {
  case LOOP_AFFINE_FOR: {
    MlirAttribute s = attr(op, "step");
    if (!map_const(attr(op, "lowerBoundMap"), 0, &lb) ||
        !map_const(attr(op, "upperBoundMap"), 0, &ub) ||
        mlirAttributeIsNull(s) || !mlirAttributeIsAInteger(s))
      return false;
    *out = trips(lb, ub, mlirIntegerAttrGetValueInt(s));
    return true;
  }
  case LOOP_SCF_FOR:
    if (!const_int(mlirOperationGetOperand(op, 0), &lb) ||
        !const_int(mlirOperationGetOperand(op, 1), &ub) ||
        !const_int(mlirOperationGetOperand(op, 2), &step))
      return false;
    *out = trips(lb, ub, step);
    return true;
  case LOOP_SCF_PAR: {
    MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0));
    intptr_t n = mlirBlockGetNumArguments(body);
    if (mlirOperationGetNumOperands(op) < 3 * n)
      return false;
    double t = 1.0;
    for (intptr_t i = 0; i < n; i++) {
      if (!const_int(mlirOperationGetOperand(op, i), &lb) ||
          !const_int(mlirOperationGetOperand(op, n + i), &ub) ||
          !const_int(mlirOperationGetOperand(op, 2 * n + i), &step))
        return false;
      t *= trips(lb, ub, step);
    }
    *out = t;
    return true;
  }
  case LOOP_AFFINE_PAR: {
    MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0));
    intptr_t n = mlirBlockGetNumArguments(body);
    MlirAttribute steps = attr(op, "steps");
    double t = 1.0;
    for (intptr_t i = 0; i < n; i++) {
      step = 1;
      if (!mlirAttributeIsNull(steps) && mlirAttributeIsAArray(steps) &&
          i < mlirArrayAttrGetNumElements(steps)) {
        MlirAttribute s = mlirArrayAttrGetElement(steps, i);
        if (mlirAttributeIsAInteger(s))
          step = mlirIntegerAttrGetValueInt(s);
      }
      if (!map_const(attr(op, "lowerBoundsMap"), i, &lb) ||
          !map_const(attr(op, "upperBoundsMap"), i, &ub))
        return false;
      t *= trips(lb, ub, step);
    }
    *out = t;
    return true;
  }
  default:
    return false;
  }
}

// ----------------------------------------------------------------------------
// linalg iteration domains

// Counts "reduction" entries of a generic's iterator_types by printing them.
static void count_iterators(MlirAttribute its, int *par, int *red) {
  for (intptr_t i = 0; i < mlirArrayAttrGetNumElements(its); i++) {
    strbuf sb = {0};
    mlirAttributePrint(mlirArrayAttrGetElement(its, i), sb_mlir_callback, &sb);
    if (sb.data && strstr(sb.data, "reduction"))
      (*red)++;
    else
      (*par)++;
    sb_free(&sb);
  }
}

static bool generic_domain(MlirOperation op, linalg_info *li) {
  MlirAttribute maps = attr(op, "indexing_maps");
  MlirAttribute its = attr(op, "iterator_types");
  if (mlirAttributeIsNull(maps) || !mlirAttributeIsAArray(maps) ||
      mlirAttributeIsNull(its) || !mlirAttributeIsAArray(its))
    return false;
  count_iterators(its, &li->parallel, &li->reduction);
  intptr_t nmaps = mlirArrayAttrGetNumElements(maps);
  int ndims = li->parallel + li->reduction;
  li->domain = 1.0;
  for (int d = 0; d < ndims; d++) {
    int64_t size = 1;
    for (intptr_t k = 0; k < nmaps && k < mlirOperationGetNumOperands(op);
         k++) {
      MlirAttribute ma = mlirArrayAttrGetElement(maps, k);
      if (!mlirAttributeIsAAffineMap(ma))
        continue;
      MlirAffineMap m = mlirAffineMapAttrGetValue(ma);
      MlirType t = mlirValueGetType(mlirOperationGetOperand(op, k));
      for (intptr_t r = 0; r < mlirAffineMapGetNumResults(m); r++) {
        MlirAffineExpr e = mlirAffineMapGetResult(m, r);
        if (mlirAffineExprIsADim(e) && mlirAffineDimExprGetPosition(e) == d &&
            dim_size(t, r) > size)
          size = dim_size(t, r);
      }
    }
    li->domain *= (double)size;
  }
  return true;
}

bool linalg_domain(MlirOperation op, linalg_info *li) {
  memset(li, 0, sizeof *li);
  MlirStringRef n = mlirIdentifierStr(mlirOperationGetName(op));
  intptr_t nops = mlirOperationGetNumOperands(op);
  if (!name_has_prefix(n, "linalg.") || mlirOperationGetNumRegions(op) < 1 ||
      nops < 1)
    return false;
  li->is_generic = name_is(n, "linalg.generic");
  li->is_conv = name_contains(n, "conv");
  li->is_pool = name_contains(n, "pooling");
  if (li->is_generic)
    return generic_domain(op, li);
  MlirType out = mlirValueGetType(mlirOperationGetOperand(op, nops - 1));
  MlirType in0 = mlirValueGetType(mlirOperationGetOperand(op, 0));
  MlirType in1 = nops > 2 ? mlirValueGetType(mlirOperationGetOperand(op, 1))
                          : in0;
  li->domain = static_numel(out);
  li->parallel = type_rank(out);
  if (name_contains(n, "matmul") || name_contains(n, "matvec") ||
      name_contains(n, "vecmat") || name_is(n, "linalg.dot")) {
    li->domain *= (double)dim_size(in0, type_rank(in0) - 1);
    li->reduction = 1;
  } else if (li->is_conv) {
    // Filter dims minus the output-channel one are the reduction loops.
    bool f_first = name_contains(n, "fchw") || name_contains(n, "fhwc");
    int64_t ch = dim_size(in1, f_first ? 0 : type_rank(in1) - 1);
    li->domain *= static_numel(in1) / (double)(ch > 0 ? ch : 1);
    li->reduction = type_rank(in1) > 1 ? type_rank(in1) - 1 : 1;
  } else if (li->is_pool) {
    li->domain *= static_numel(in1);
    li->reduction = type_rank(in1);
  } else if (name_is(n, "linalg.reduce")) {
    MlirAttribute dims = attr(op, "dimensions");
    li->domain = static_numel(in0);
    li->reduction = mlirAttributeIsNull(dims)
                        ? 1
                        : (int)mlirDenseArrayGetNumElements(dims);
    li->parallel = type_rank(in0) - li->reduction;
  }
  return true;
}

// Largest entry of a dense integer attribute `name` (strides, dilations); 1
// when absent.
int64_t attr_max_int(MlirOperation op, const char *name) {
  MlirAttribute a = attr(op, name);
  int64_t best = 1;
  if (mlirAttributeIsNull(a))
    return best;
  if (mlirAttributeIsADenseIntElements(a)) {
    for (intptr_t i = 0; i < mlirElementsAttrGetNumElements(a); i++) {
      int64_t v = mlirDenseElementsAttrGetInt64Value(a, i);
      best = v > best ? v : best;
    }
  } else if (mlirAttributeIsADenseI64Array(a)) {
    for (intptr_t i = 0; i < mlirDenseArrayGetNumElements(a); i++) {
      int64_t v = mlirDenseI64ArrayGetElement(a, i);
      best = v > best ? v : best;
    }
  }
  return best;
}

// ----------------------------------------------------------------------------
// op-name classes and their per-walk cache

bool name_is_compute(MlirStringRef n) {
  return (name_has_prefix(n, "arith.") && !name_is(n, "arith.constant") &&
          !name_is(n, "arith.index_cast")) ||
         name_has_prefix(n, "math.") || name_is(n, "vector.fma") ||
         name_is(n, "vector.contract") || name_is(n, "vector.reduction");
}

// Operand index of the memref a load/store accesses, or -1 if not one.
static int access_operand(MlirStringRef n, bool *store, bool *affine) {
  static const struct {
    const char *name;
    int operand;
    bool store, affine;
  } table[] = {
      {"memref.load", 0, false, false},  {"memref.store", 1, true, false},
      {"affine.load", 0, false, true},   {"affine.store", 1, true, true},
      {"vector.load", 0, false, false},  {"vector.store", 1, true, false},
      {"vector.transfer_read", 0, false, false},
      {"vector.transfer_write", 1, true, false},
      {"affine.vector_load", 0, false, true},
      {"affine.vector_store", 1, true, true},
  };
  *store = *affine = false;
  for (size_t i = 0; i < sizeof table / sizeof *table; i++)
    if (name_is(n, table[i].name)) {
      *store = table[i].store;
      *affine = table[i].affine;
      return table[i].operand;
    }
  return -1;
}

void op_class_of(MlirStringRef n, op_class *c) {
  memset(c, 0, sizeof *c);
  c->kind = op_kind_id(n);
  c->loop = loop_kind(n);
  c->access = access_operand(n, &c->store, &c->affine);
  c->compute = name_is_compute(n);
  c->math = name_has_prefix(n, "math.");
  c->div = name_contains(n, "div") || name_contains(n, "rem");
  c->cmp = name_contains(n, "cmp") || name_is(n, "arith.select");
  c->linalg = name_has_prefix(n, "linalg.");
  c->func = name_is(n, "func.func");
  c->call = name_is(n, "func.call");
  c->reduction = name_is(n, "vector.reduction") ||
                 name_is(n, "vector.multi_reduction") ||
                 name_is(n, "scf.reduce");
}

const op_class *name_class(name_cache *c, MlirOperation op, op_class *tmp) {
  MlirIdentifier id = mlirOperationGetName(op);
  const void *key = id.ptr;
  uintptr_t h = (uintptr_t)key;
  h ^= h >> 17;
  h *= 0x9E3779B97F4A7C15ull;
  size_t i = (size_t)(h >> 56) & (NAME_CACHE_SIZE - 1);
  for (int probe = 0; probe < NAME_CACHE_SIZE; probe++) {
    if (c->key[i] == key)
      return &c->val[i];
    if (!c->key[i]) {
      if (c->used >= NAME_CACHE_SIZE / 2)
        break; // keep probes short: classify without caching
      c->key[i] = key;
      c->used++;
      op_class_of(mlirIdentifierStr(id), &c->val[i]);
      return &c->val[i];
    }
    i = (i + 1) & (NAME_CACHE_SIZE - 1);
  }
  op_class_of(mlirIdentifierStr(id), tmp);
  return tmp;
}
