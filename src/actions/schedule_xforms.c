// Loop transformations of schedule actions: interchange, tile-and-fuse of
// producers into a consumer, padded tiles (so that sizes that do not divide
// an extent still vectorise), unrolling of the tile loop around an op, and
// the decomposition of convolutions and poolings into their 1-D form.
// Each step appends transform ops to a script that schedule.c builds and
// follows the handle convention of schedule.h, so that the catalog can chain
// them with the steps of schedule.c (for example pad-tile, vectorize, hoist,
// lower-contraction). The op-level preconditions of these steps are here
// too (schedule_xform_fits); schedule_check.c calls them. It writes no
// files and runs no passes.
#include "internal.h"
#include "actions/linalg_ops.h"
#include "actions/schedule.h"

#include <mlir-c/BuiltinTypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ANY "!transform.any_op"

// ----------------------------------------------------------------------------
// helpers

int schedule_perm_parse(const char *text, int *perm) {
  int n = 0, seen = 0;
  for (const char *p = text; *p; n++) {
    char *end;
    long v = strtol(p, &end, 10);
    if (end == p || n >= LINALG_MAX_RANK || v < 0 || v >= LINALG_MAX_RANK ||
        (seen & (1 << v)))
      return -1;
    seen |= 1 << v;
    perm[n] = (int)v;
    p = *end == ',' ? end + 1 : end;
    if (*end && *end != ',')
      return -1;
  }
  return n > 0 && seen == (1 << n) - 1 ? n : -1;
}

// Appends "v[0], v[1], ..." (n numbers).
static void list(strbuf *sb, const int64_t *v, int n) {
  for (int i = 0; i < n; i++)
    sb_printf(sb, "%s%lld", i ? ", " : "", (long long)v[i]);
}

// Matches the targeted ops again, as version `version + 1`, in the scope
// (as the prologue did): after a step that clones them (unrolling) the old
// handles are gone.
static void rematch(schedule_builder *b) {
  char id[64];
  schedule_id_filter(b->d, id, sizeof id);
  for (int i = 0; i < b->a->n_ops; i++)
    schedule_line(b, "%%k%d_%d = transform.structured.match ops{[\"%s\"]}%s "
                  "in %%%s : (" ANY ") -> " ANY, i, b->version + 1,
                  b->a->ops[i], id, b->scope);
  b->version++;
}

// Drops what a step left dead (the untiled producers of a fusion, outside
// the tile loops: so over %funcs, not %nest).
static void cleanup(schedule_builder *b) {
  schedule_line(b, "transform.apply_patterns to %%funcs {");
  schedule_line(b, "  transform.apply_patterns.canonicalization");
  schedule_line(b, "} : " ANY);
  schedule_line(b, "transform.apply_cse to %%funcs : " ANY);
}

// ----------------------------------------------------------------------------
// steps

// Generalises the targeted ops to linalg.generic and permutes their loops
// by the PERM parameter ("2,0,1": new loop i is old loop PERM[i]). The
// loops that convert-linalg-to-loops later emits follow the new order.
static void step_interchange(schedule_builder *b) {
  const char *perm = schedule_choice(b->a, b->d, "PERM");
  for (int i = 0; i < b->a->n_ops; i++) {
    int n = b->counter++;
    schedule_line(b, "%%generic%d = transform.structured.generalize "
                  "%%k%d_%d : (" ANY ") -> " ANY, n, i, b->version);
    schedule_line(b, "%%k%d_%d = transform.structured.interchange "
                  "%%generic%d iterator_interchange = [%s] : (" ANY ") -> "
                  ANY, i, b->version + 1, n, perm ? perm : "");
  }
  b->version++;
}

// Tiles each targeted op (a consumer) with the size parameters and fuses
// the ops that produce its operands into the tile loops, greedily up the
// chain (fill -> matmul -> bias/activation; a convolution into its
// pooling). Loops without a parameter are not tiled.
static void step_fuse(schedule_builder *b) {
  for (int i = 0; i < b->a->n_ops; i++) {
    int rank = schedule_tiled_rank(b->a, b->a->ops[i]), loops = 0;
    int64_t size[LINALG_MAX_RANK];
    strbuf sizes = {0}, types = {0};
    for (int d = 0; d < rank; d++)
      if ((size[d] = schedule_tile_size(b, rank, d, 0))) {
        sb_printf(&types, ", " ANY);
        loops++;
      }
    list(&sizes, size, rank);
    schedule_line(b, "%%k%d_%d, %%fused%d_%d:%d = transform.structured.fuse "
                  "%%k%d_%d [%s] : (" ANY ") -> (" ANY "%s)", i,
                  b->version + 1, i, b->counter, loops, i, b->version,
                  sizes.data ? sizes.data : "", types.data ? types.data : "");
    schedule_mark_tiled(b, i);
    sb_free(&sizes);
    sb_free(&types);
  }
  b->version++;
  b->counter++;
  cleanup(b);
}

// Register tiling of a contraction whose M and N sizes need not divide the
// extents: tiles every loop but k, pads the (possibly partial) tile with
// zeros to the full tile size, so it has static shapes again, then tiles k
// inside the padded op. A later `vectorize` then sees only static tiles,
// and `hoist` keeps the padded accumulator in registers across k. The
// padded operands are copied once per (m, n) tile.
static void step_pad_tile(schedule_builder *b) {
  strbuf nest = {0};
  bool complete = true;
  for (int i = 0; i < b->a->n_ops; i++) {
    int rank = schedule_tiled_rank(b->a, b->a->ops[i]), n = b->counter++;
    // every loop but k outside the padding, k inside it
    int64_t out_size[LINALG_MAX_RANK], in_size[LINALG_MAX_RANK];
    int64_t dim[LINALG_MAX_RANK];
    strbuf outer = {0}, inner = {0}, values = {0}, dims = {0}, types = {0};
    for (int d = 0; d < rank; d++) {
      int64_t t = schedule_tile_size(b, rank, d, 1);
      out_size[d] = d == rank - 1 ? 0 : t;
      in_size[d] = d == rank - 1 ? t : 0;
      dim[d] = d;
      if (d < rank - 1)
        sb_printf(&types, ", " ANY);
    }
    list(&outer, out_size, rank);
    list(&inner, in_size, rank);
    list(&dims, dim, rank);
    // one padding value per operand: A, B and the accumulator
    for (int v = 0; v < 3; v++)
      sb_printf(&values, "%s0.0 : f32", v ? ", " : "");
    schedule_line(b, "%%outer%d, %%outer_loops%d:%d = "
                  "transform.structured.tile_using_for %%k%d_%d tile_sizes "
                  "[%s] : (" ANY ") -> (" ANY "%s)", n, n, rank - 1, i,
                  b->version, outer.data, types.data ? types.data : "");
    schedule_line(b, "%%padded%d, %%pad%d, %%copy%d = "
                  "transform.structured.pad %%outer%d {padding_values = [%s], "
                  "padding_dimensions = [%s], copy_back_op = \"none\"} : (" ANY
                  ") -> (" ANY ", " ANY ", " ANY ")", n, n, n, n, values.data,
                  dims.data);
    schedule_line(b, "%%k%d_%d, %%inner_loops%d = "
                  "transform.structured.tile_using_for %%padded%d tile_sizes "
                  "[%s] : (" ANY ") -> (" ANY ", " ANY ")", i, b->version + 1,
                  n, n, inner.data);
    schedule_mark_tiled(b, i);
    if (rank > 1)
      sb_printf(&nest, "%s%%outer_loops%d#0", nest.data ? ", " : "", n);
    complete &= rank > 1;
    sb_free(&outer);
    sb_free(&inner);
    sb_free(&values);
    sb_free(&dims);
    sb_free(&types);
  }
  schedule_set_nest(b, &nest, complete);
  sb_free(&nest);
  b->version++;
}

// Unrolls the innermost scf.for around each targeted op by the choice
// parameter F (a remainder gets its own epilogue). The op is cloned F times;
// the targeted ops are matched again afterwards.
static void step_unroll(schedule_builder *b) {
  const char *f = schedule_choice(b->a, b->d, "F");
  int n = b->counter++;
  sb_printf(b->sb, "    %%targets%d = transform.merge_handles ", n);
  for (int i = 0; i < b->a->n_ops; i++)
    sb_printf(b->sb, "%s%%k%d_%d", i ? ", " : "", i, b->version);
  sb_printf(b->sb, " : " ANY "\n");
  schedule_line(b, "%%loop%d = transform.get_parent_op %%targets%d "
                "{deduplicate, op_name = \"scf.for\"} : (" ANY ") -> " ANY, n,
                n);
  schedule_line(b, "transform.foreach %%loop%d : " ANY " {", n);
  schedule_line(b, "^bb0(%%one%d: " ANY "):", n);
  schedule_line(b, "  transform.loop.unroll %%one%d {factor = %s} : " ANY, n,
                f ? f : "1");
  schedule_line(b, "}");
  sb_free(&b->nest); // the unrolled loop may have been the nest
  rematch(b);
}

// Rewrites each targeted convolution or pooling, tiled to height 1 (oh and
// kh; schedule_check.c checks the tiles), as its 1-D form
// (conv_1d_nwc_wcf, depthwise_conv_1d_nwc_wc, pooling_nwc_max, ...), which
// the vectoriser turns into FMAs or vector max/add along the output width.
static void step_decompose(schedule_builder *b) {
  for (int i = 0; i < b->a->n_ops; i++)
    schedule_line(b, "%%k%d_%d = transform.structured.decompose %%k%d_%d : ("
                  ANY ") -> " ANY, i, b->version + 1, i, b->version);
  b->version++;
}

// The tile counts of a STEP_COUNTS step along loops 0 and 1 (choices T0
// and T1; 1 when the action has no such parameter).
static void tile_counts(const mqss_action *a, const mqss_decision *d,
                        int count[2]) {
  static const char *const names[2] = {"T0", "T1"};
  for (int k = 0; k < 2; k++) {
    const char *v = schedule_choice(a, d, names[k]);
    count[k] = v ? atoi(v) : 1;
  }
}

// Splits each targeted op with an scf.forall of T0 x T1 tiles over its
// first two loops (as even as the extents allow; parallel loops: the tiles
// run at the same time). The finisher runs the forall's iterations on
// OpenMP threads (finish.c). The ops are not marked tiled: the focus stays
// on them, for the schedule of the tile itself.
static void step_forall(schedule_builder *b) {
  int count[2];
  tile_counts(b->a, b->d, count);
  for (int i = 0; i < b->a->n_ops; i++) {
    strbuf threads = {0};
    sb_printf(&threads, "%d", count[0]);
    if (count[1] > 1)
      sb_printf(&threads, ", %d", count[1]);
    schedule_line(b, "%%k%d_%d, %%forall%d_%d = transform.structured."
                  "tile_using_forall %%k%d_%d num_threads [%s] : (" ANY
                  ") -> (" ANY ", " ANY ")", i, b->version + 1, i,
                  b->counter, i, b->version, threads.data);
    sb_free(&threads);
  }
  b->version++;
  b->counter++;
}

const schedule_step schedule_xform_steps[] = {
    {"interchange", STEP_TARGETS | STEP_PERMUTES, step_interchange},
    {"fuse", STEP_TARGETS | STEP_TILES | STEP_ROOTS | STEP_PARALLEL,
     step_fuse},
    {"pad-tile", STEP_TARGETS | STEP_TILES | STEP_UNIT_TILES | STEP_PARTIAL,
     step_pad_tile},
    {"unroll", STEP_TARGETS | STEP_IN_LOOP, step_unroll},
    {"decompose", STEP_TARGETS | STEP_DECOMPOSES, step_decompose},
    {"forall", STEP_TARGETS | STEP_COUNTS | STEP_OUTSIDE_FORALL, step_forall},
};
const int schedule_n_xform_steps =
    (int)(sizeof schedule_xform_steps / sizeof *schedule_xform_steps);

// ----------------------------------------------------------------------------
// preconditions

static bool name_in(MlirOperation op, const char *const *kinds, int n) {
  MlirStringRef s = mlirIdentifierStr(mlirOperationGetName(op));
  for (int i = 0; i < n; i++)
    if (strlen(kinds[i]) == s.length && !memcmp(kinds[i], s.data, s.length))
      return true;
  return false;
}

// Whether every operand of op has element type f32 (pad-tile pads with
// 0.0 : f32).
static bool all_f32(MlirOperation op) {
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); i++) {
    MlirType t = mlirValueGetType(mlirOperationGetOperand(op, i));
    if (!mlirTypeIsAShaped(t) || !mlirTypeIsAF32(mlirShapedTypeGetElementType(t)))
      return false;
  }
  return true;
}

// The first op of the action's kinds that uses a result of op, or a null op.
static MlirOperation targeted_user(const mqss_action *a, MlirOperation op) {
  for (intptr_t r = 0; r < mlirOperationGetNumResults(op); r++)
    for (MlirOpOperand u = mlirValueGetFirstUse(mlirOperationGetResult(op, r));
         !mlirOpOperandIsNull(u); u = mlirOpOperandGetNextUse(u)) {
      MlirOperation user = mlirOpOperandGetOwner(u);
      if (name_in(user, a->ops, a->n_ops))
        return user;
    }
  return (MlirOperation){NULL};
}

// Whether loop k of op may be split (a parallel loop the op has).
static bool splittable(MlirOperation op, int rank, int k) {
  return k < rank && !linalg_loop_is_reduction(op, k);
}

// A STEP_COUNTS step splits loops 0 and 1 into T0 and T1 tiles, which run
// at the same time: a split reduction loop would have two tiles update the
// same accumulators. d == NULL: some split fits (loop 0 or 1 is parallel).
static bool counts_fit(const mqss_action *a, const mqss_decision *d,
                       MlirOperation op, int rank, const char *name,
                       char *why, size_t why_len) {
  if (!d) {
    if (splittable(op, rank, 0) || splittable(op, rank, 1))
      return true;
    snprintf(why, why_len, "%s: neither of its first two loops is parallel "
             "(parallel tiles would update the same accumulators)", name);
    return false;
  }
  int count[2];
  tile_counts(a, d, count);
  if (count[0] * count[1] < 2) {
    snprintf(why, why_len, "%s: T0 = T1 = 1 is one tile, no split", name);
    return false;
  }
  for (int k = 0; k < 2; k++)
    if (count[k] > 1 && !splittable(op, rank, k)) {
      snprintf(why, why_len, k < rank ? "%s: $T%d splits loop %d, a "
               "reduction (parallel tiles would update the same "
               "accumulators)" : "%s: $T%d splits loop %d, which it does "
               "not have", name, k, k);
      return false;
    }
  return true;
}

bool schedule_xform_fits(const mqss_action *a, const mqss_decision *d,
                         int flags, MlirOperation op, int rank,
                         const char *name, char *why, size_t why_len) {
  if (flags & STEP_PERMUTES) {
    int perm[LINALG_MAX_RANK], len = -1;
    for (int k = 0; k < a->n_params && len != rank; k++) {
      const mqss_param *p = &a->params[k];
      if (p->kind != MQSS_PARAM_CHOICE || strcmp(p->name, "PERM"))
        continue;
      if (d)
        len = schedule_perm_parse(p->values[mqss_param_map(p, d->u[k])], perm);
      for (int v = 0; !d && v < p->n_values && len != rank; v++)
        len = schedule_perm_parse(p->values[v], perm);
    }
    if (len != rank) {
      snprintf(why, why_len, "%s has %d loops; no $PERM permutes %d loops",
               name, rank, rank);
      return false;
    }
  }
  if ((flags & STEP_PARTIAL) && !all_f32(op)) {
    snprintf(why, why_len, "%s: an operand is not f32 (pad-tile pads with "
             "0.0 : f32)", name);
    return false;
  }
  if (flags & STEP_IN_LOOP) {
    MlirOperation parent = mlirOperationGetParentOperation(op);
    MlirStringRef pn = mlirIdentifierStr(mlirOperationGetName(parent));
    if (pn.length != 7 || memcmp(pn.data, "scf.for", 7)) {
      snprintf(why, why_len, "%s is not inside an scf.for loop (tile it "
               "first)", name);
      return false;
    }
  }
  if ((flags & STEP_ROOTS) && !(d && d->op)) {
    MlirOperation user = targeted_user(a, op);
    if (!mlirOperationIsNull(user)) {
      MlirStringRef un = mlirIdentifierStr(mlirOperationGetName(user));
      snprintf(why, why_len, "%s feeds a %.*s that the same decision would "
               "tile; target the last consumer with an op id, or fuse the "
               "chain first (linalg-fuse-elementwise)", name,
               (int)un.length, un.data);
      return false;
    }
  }
  if (flags & STEP_OUTSIDE_FORALL)
    for (MlirOperation p = mlirOperationGetParentOperation(op);
         !mlirOperationIsNull(p); p = mlirOperationGetParentOperation(p)) {
      MlirStringRef pn = mlirIdentifierStr(mlirOperationGetName(p));
      if (pn.length == 10 && !memcmp(pn.data, "scf.forall", 10)) {
        snprintf(why, why_len, "%s already sits in an scf.forall (its "
                 "tiles run on the threads already)", name);
        return false;
      }
    }
  // Tiling a reduction loop and fusing the producer of the op's init (a
  // linalg.fill) into the tile loop re-initialises the accumulator in every
  // tile: only the last tile's partial result survives (seen as wrong
  // output on a row-sum generic).
  for (int k = 0; (flags & STEP_PARALLEL) && k < a->n_params; k++) {
    const mqss_param *p = &a->params[k];
    int loop = p->dim < 0 ? rank + p->dim : p->dim;
    if (p->kind == MQSS_PARAM_DIVISOR && loop >= 0 && loop < rank &&
        linalg_loop_is_reduction(op, loop)) {
      snprintf(why, why_len, "%s: parameter $%s sizes loop %d, a reduction "
               "(the fused producer of its init would restart in every "
               "tile)", name, p->name, loop);
      return false;
    }
  }
  return !(flags & STEP_COUNTS) || counts_fit(a, d, op, rank, name, why,
                                               why_len);
}
