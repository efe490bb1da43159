// Cost and shape of one structured linalg op, for the per-op features of
// the state (features.c) and of the graph's nodes (graph.c): estimated flops
// and bytes moved, the static extent of each loop (the kinds schedules know:
// src/actions/linalg_ops.c), its mqss.id tag and tiling marker, the focus
// rule (which op the state and the decisions centre on), and which
// candidate tile sizes divide an extent. It does not walk the module.
#include "actions/linalg_ops.h"
#include "features/irscan.h"
#include "features/layout.h"

#include <math.h>
#include <mlir-c/BuiltinTypes.h>
#include <string.h>

_Static_assert(OP_SHAPE_MAX_LOOPS == LINALG_MAX_RANK, "one loop bound");

bool op_shape_of(MlirOperation op, name_cache *names, op_shape *out) {
  memset(out, 0, sizeof *out);
  if (!linalg_domain(op, &out->li))
    return false;
  // Body compute ops per point (matmul: mulf + addf = 2), at least 1.
  double body = 0;
  MlirBlock b = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0));
  for (MlirOperation o = mlirBlockIsNull(b) ? (MlirOperation){NULL}
                                            : mlirBlockGetFirstOperation(b);
       !mlirOperationIsNull(o); o = mlirOperationGetNextInBlock(o)) {
    op_class tmp;
    body += name_class(names, o, &tmp)->compute;
  }
  out->flops = out->li.domain * fmax(body, 1.0);
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); i++) {
    MlirType t = mlirValueGetType(mlirOperationGetOperand(op, i));
    if (mlirTypeIsAShaped(t))
      out->bytes += static_numel(t) * elem_bytes(t);
  }
  int n = linalg_loop_extents(op, out->ext);
  out->n_loops = n > 0 ? n : 0;
  out->tagged = linalg_op_tag(op) != 0;
  out->tiled = linalg_op_tiled(op);
  return true;
}

bool op_shape_focus_better(const op_shape *cand, const op_shape *best) {
  if (cand->n_loops == 0 || cand->tiled)
    return false;
  return !best || cand->flops > best->flops;
}

int64_t op_shape_inner(const op_shape *s, int k) {
  return k >= 1 && k <= s->n_loops ? s->ext[s->n_loops - k] : -1;
}

double op_shape_intensity(const op_shape *s) {
  return s->bytes > 0 ? log2(1.0 + s->flops / s->bytes) / 8 : 0.0;
}

unsigned tile_div_bits(int64_t ext) {
  unsigned bits = 0;
  for (int k = 0; ext > 0 && k < N_TILES; k++)
    if (ext % feature_tile_size(k) == 0)
      bits |= 1u << k;
  return bits;
}
