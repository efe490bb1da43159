// Linalg ops as targets of schedule actions: the stable `mqss.id` tag that
// lets a decision address one op, the static loop extents of the op kinds
// schedules know (named contractions from a table, linalg.generic from its
// indexing maps) and which of their loops are reductions, and the walk that
// finds the ops a decision targets. It builds no schedules (schedule.c) and
// decides nothing (safety.c).
//
// The tag is a discardable i64 attribute. It survives one-shot
// bufferization, and transform-dialect tiling copies it onto the tiled op,
// so a later decision can still address the op inside its loops.
#include "internal.h"
#include "actions/linalg_ops.h"

#include <mlir-c/AffineExpr.h>
#include <mlir-c/AffineMap.h>
#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>
#include <stdio.h>
#include <string.h>

// ----------------------------------------------------------------------------
// named ops

// Loop dimension d of a named op is dimension `dim[d]` of operand `opnd[d]`;
// its last `reductions` loops are reductions, the others parallel. The
// loops in `unit` (bit d: loop d) are those a fold of unit dimensions must
// remove to leave a matmul-like generic; those in `height` are the output
// and window height (oh, kh), which a decomposition to the 1-D op needs at
// extent 1.
static const struct {
  const char *name;
  int rank, reductions;
  unsigned unit, height;
  int opnd[LINALG_MAX_RANK], dim[LINALG_MAX_RANK];
} named[] = {
    // (m, n, k): A is (m, k), B is (k, n)
    {"linalg.matmul", 3, 1, 0, 0, {0, 1, 0}, {0, 1, 1}},
    // (b, m, n, k): A is (b, m, k), B is (b, k, n)
    {"linalg.batch_matmul", 4, 1, 0, 0, {0, 0, 1, 0}, {0, 1, 2, 2}},
    // (n, oh, ow, f, kh, kw, c): I is (n, h, w, c), F is (kh, kw, c, f),
    // O is (n, oh, ow, f); a 1x1 filter on batch 1 folds to (oh, ow, f, c)
    {"linalg.conv_2d_nhwc_hwcf", 7, 3, 1u | 1u << 4 | 1u << 5,
     1u << 1 | 1u << 4, {0, 2, 2, 1, 1, 1, 1}, {0, 1, 2, 3, 0, 1, 2}},
    // (n, oh, ow, c, kh, kw): the window (kh, kw) is operand 1, the output
    // (n, oh, ow, c) operand 2
    {"linalg.pooling_nhwc_max", 6, 2, 0, 1u << 1 | 1u << 4,
     {2, 2, 2, 2, 1, 1}, {0, 1, 2, 3, 0, 1}},
    {"linalg.pooling_nhwc_sum", 6, 2, 0, 1u << 1 | 1u << 4,
     {2, 2, 2, 2, 1, 1}, {0, 1, 2, 3, 0, 1}},
    // (n, f, oh, ow, c, kh, kw): I is (n, c, h, w), F is (f, c, kh, kw),
    // O is (n, f, oh, ow)
    {"linalg.conv_2d_nchw_fchw", 7, 3, 0, 1u << 2 | 1u << 5,
     {2, 2, 2, 2, 1, 1, 1}, {0, 1, 2, 3, 1, 2, 3}},
    // (n, oh, ow, c, kh, kw): F is (kh, kw, c), O is (n, oh, ow, c)
    {"linalg.depthwise_conv_2d_nhwc_hwc", 6, 2, 0, 1u << 1 | 1u << 4,
     {2, 2, 2, 2, 1, 1}, {0, 1, 2, 3, 0, 1}},
    // (n, c, oh, ow, kh, kw): the window is operand 1, O is (n, c, oh, ow)
    {"linalg.pooling_nchw_max", 6, 2, 0, 1u << 2 | 1u << 4,
     {2, 2, 2, 2, 1, 1}, {0, 1, 2, 3, 0, 1}},
    {"linalg.pooling_nchw_sum", 6, 2, 0, 1u << 2 | 1u << 4,
     {2, 2, 2, 2, 1, 1}, {0, 1, 2, 3, 0, 1}},
};

static bool name_is(MlirOperation op, const char *name) {
  MlirStringRef s = mlirIdentifierStr(mlirOperationGetName(op));
  return s.length == strlen(name) && !memcmp(s.data, name, s.length);
}

int linalg_kind_rank(const char *name) {
  for (size_t i = 0; i < sizeof named / sizeof *named; i++)
    if (!strcmp(named[i].name, name))
      return named[i].rank;
  return -1;
}

int linalg_kind_reductions(const char *name) {
  for (size_t i = 0; i < sizeof named / sizeof *named; i++)
    if (!strcmp(named[i].name, name))
      return named[i].reductions;
  return -1;
}

unsigned linalg_kind_unit_loops(const char *name) {
  for (size_t i = 0; i < sizeof named / sizeof *named; i++)
    if (!strcmp(named[i].name, name))
      return named[i].unit;
  return 0;
}

unsigned linalg_kind_height_loops(const char *name) {
  for (size_t i = 0; i < sizeof named / sizeof *named; i++)
    if (!strcmp(named[i].name, name))
      return named[i].height;
  return 0;
}

bool linalg_loop_is_reduction(MlirOperation op, int d) {
  MlirStringRef s = mlirIdentifierStr(mlirOperationGetName(op));
  char kind[96];
  snprintf(kind, sizeof kind, "%.*s", (int)s.length, s.data);
  int rank = linalg_kind_rank(kind);
  if (rank >= 0)
    return d < 0 || d >= rank - linalg_kind_reductions(kind);
  if (!name_is(op, "linalg.generic"))
    return true;
  MlirAttribute its = mlirOperationGetAttributeByName(
      op, mlirStringRefCreateFromCString("iterator_types"));
  if (mlirAttributeIsNull(its) || !mlirAttributeIsAArray(its) || d < 0 ||
      d >= mlirArrayAttrGetNumElements(its))
    return true;
  // #linalg.iterator_type<reduction> has no C API: read its printed form.
  strbuf sb = {0};
  mlirAttributePrint(mlirArrayAttrGetElement(its, d), sb_mlir_callback, &sb);
  bool red = !sb.data || strstr(sb.data, "reduction");
  sb_free(&sb);
  return red;
}

// Static extent of dimension `d` of operand `i`, or -1.
static int64_t operand_dim(MlirOperation op, int i, int d) {
  if (i >= mlirOperationGetNumOperands(op))
    return -1;
  MlirType t = mlirValueGetType(mlirOperationGetOperand(op, i));
  if (!mlirTypeIsAShaped(t) || !mlirShapedTypeHasRank(t) ||
      d >= mlirShapedTypeGetRank(t) || mlirShapedTypeIsDynamicDim(t, d))
    return -1;
  return mlirShapedTypeGetDimSize(t, d);
}

// linalg.generic: a loop dimension takes the extent of the first operand
// dimension its indexing maps index with that plain dimension.
static int generic_extents(MlirOperation op, int64_t *ext) {
  MlirAttribute maps = mlirOperationGetAttributeByName(
      op, mlirStringRefCreateFromCString("indexing_maps"));
  if (mlirAttributeIsNull(maps) || !mlirAttributeIsAArray(maps))
    return -1;
  int rank = -1;
  intptr_t n = mlirArrayAttrGetNumElements(maps);
  for (intptr_t i = 0; i < n; i++) {
    MlirAffineMap map = mlirAffineMapAttrGetValue(mlirArrayAttrGetElement(maps, i));
    int dims = (int)mlirAffineMapGetNumDims(map);
    if (dims > LINALG_MAX_RANK)
      return -1;
    if (rank < 0) {
      rank = dims;
      for (int d = 0; d < rank; d++)
        ext[d] = -1;
    }
    for (intptr_t r = 0; r < mlirAffineMapGetNumResults(map); r++) {
      MlirAffineExpr e = mlirAffineMapGetResult(map, r);
      if (!mlirAffineExprIsADim(e))
        continue;
      int d = (int)mlirAffineDimExprGetPosition(e);
      if (d < rank && ext[d] < 0)
        ext[d] = operand_dim(op, (int)i, (int)r);
    }
  }
  return rank;
}

int linalg_loop_extents(MlirOperation op, int64_t *ext) {
  if (name_is(op, "linalg.generic"))
    return generic_extents(op, ext);
  for (size_t i = 0; i < sizeof named / sizeof *named; i++) {
    if (!name_is(op, named[i].name))
      continue;
    for (int d = 0; d < named[i].rank; d++)
      ext[d] = operand_dim(op, named[i].opnd[d], named[i].dim[d]);
    return named[i].rank;
  }
  return -1;
}

bool linalg_scalar_output(MlirOperation op) {
  if (!name_is(op, "linalg.generic"))
    return false;
  MlirAttribute maps = mlirOperationGetAttributeByName(
      op, mlirStringRefCreateFromCString("indexing_maps"));
  MlirAttribute seg = mlirOperationGetAttributeByName(
      op, mlirStringRefCreateFromCString("operandSegmentSizes"));
  if (mlirAttributeIsNull(maps) || !mlirAttributeIsAArray(maps) ||
      mlirAttributeIsNull(seg) || !mlirAttributeIsADenseI32Array(seg))
    return false;
  intptr_t n = mlirArrayAttrGetNumElements(maps);
  for (intptr_t i = mlirDenseI32ArrayGetElement(seg, 0); i < n; i++) {
    MlirAffineMap map = mlirAffineMapAttrGetValue(mlirArrayAttrGetElement(maps, i));
    intptr_t results = mlirAffineMapGetNumResults(map), constants = 0;
    for (intptr_t r = 0; r < results; r++)
      constants += mlirAffineExprIsAConstant(mlirAffineMapGetResult(map, r));
    if (results > 0 && constants == results)
      return true;
  }
  return false;
}

// ----------------------------------------------------------------------------
// tags

static MlirStringRef tag_name(void) {
  return mlirStringRefCreateFromCString(LINALG_TAG);
}

int64_t linalg_op_tag(MlirOperation op) {
  MlirAttribute a = mlirOperationGetAttributeByName(op, tag_name());
  return !mlirAttributeIsNull(a) && mlirAttributeIsAInteger(a)
             ? mlirIntegerAttrGetValueInt(a)
             : 0;
}

bool linalg_op_tiled(MlirOperation op) {
  return !mlirAttributeIsNull(mlirOperationGetAttributeByName(
      op, mlirStringRefCreateFromCString(LINALG_TILED)));
}

static bool is_linalg(MlirOperation op) {
  MlirStringRef s = mlirIdentifierStr(mlirOperationGetName(op));
  return s.length > 7 && !memcmp(s.data, "linalg.", 7) &&
         !name_is(op, "linalg.yield") && !name_is(op, "linalg.index");
}

typedef struct {
  int64_t max;
  int tagged, linalg;
  MlirContext ctx;
} tagger;

static MlirWalkResult find_max(MlirOperation op, void *user) {
  tagger *t = user;
  int64_t id = linalg_op_tag(op);
  if (id > t->max)
    t->max = id;
  t->linalg += is_linalg(op);
  return MlirWalkResultAdvance;
}

static MlirWalkResult tag_one(MlirOperation op, void *user) {
  tagger *t = user;
  if (!is_linalg(op) || linalg_op_tag(op))
    return MlirWalkResultAdvance;
  MlirAttribute id =
      mlirIntegerAttrGet(mlirIntegerTypeGet(t->ctx, 64), ++t->max);
  mlirOperationSetAttributeByName(op, tag_name(), id);
  t->tagged++;
  return MlirWalkResultAdvance;
}

// Tags the untagged linalg ops under root, numbering on from the largest
// tag (or only counts the tags present, with `count_only`).
static tagger tag_ops(MlirOperation root, bool count_only) {
  tagger t = {.ctx = mlirOperationGetContext(root)};
  mlirOperationWalk(root, find_max, &t, MlirWalkPreOrder);
  if (!count_only)
    mlirOperationWalk(root, tag_one, &t, MlirWalkPreOrder);
  return t;
}

mqss_status mqss_module_tag_ops(mqss_module *m, int *n_tagged) {
  if (!m)
    return MQSS_ERR_INVALID_ARG;
  tagger t = tag_ops(mlirModuleGetOperation(m->mod), false);
  if (n_tagged)
    *n_tagged = t.tagged;
  return MQSS_OK;
}

bool linalg_needs_tags(MlirOperation root) {
  tagger t = tag_ops(root, true);
  return t.max == 0 && t.linalg > 0;
}

int linalg_tag_once(MlirOperation root) {
  return linalg_needs_tags(root) ? tag_ops(root, false).tagged : 0;
}

// ----------------------------------------------------------------------------
// targets

typedef struct {
  const char *const *kinds;
  int n_kinds;
  int64_t id;
  linalg_visit_fn fn;
  void *user;
  bool stop;
} finder;

bool linalg_op_is_kind(MlirOperation op, const char *const *kinds,
                       int n_kinds) {
  for (int i = 0; i < n_kinds; i++)
    if (name_is(op, kinds[i]))
      return true;
  return false;
}

static MlirWalkResult visit(MlirOperation op, void *user) {
  finder *f = user;
  if (!linalg_op_is_kind(op, f->kinds, f->n_kinds) ||
      (f->id && linalg_op_tag(op) != f->id))
    return MlirWalkResultAdvance;
  if (!f->fn(op, f->user)) {
    f->stop = true;
    return MlirWalkResultInterrupt;
  }
  return MlirWalkResultAdvance;
}

bool linalg_for_each(MlirOperation scope, const char *const *kinds,
                     int n_kinds, int64_t id, linalg_visit_fn fn, void *user) {
  finder f = {kinds, n_kinds, id, fn, user, false};
  mlirOperationWalk(scope, visit, &f, MlirWalkPreOrder);
  return !f.stop;
}
