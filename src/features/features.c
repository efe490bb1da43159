// The state vector: one recursive walk over the live module gathers syntax
// counts (op kinds, sizes, nesting, operands), semantic estimates (flops,
// bytes, iterators, accesses, loops, types, dependences) and the shapes of
// the linalg ops (which tile sizes divide their loops, flop/byte, and the
// heaviest op not yet tiled, the "focus" of op_shape_focus_better, which
// schedule decisions address: focus.c); the context level comes from the caller's
// action history. Indices and their meaning are in layout.h. It does not
// modify the IR.
#include "features/irscan.h"
#include "features/layout.h"

#include <math.h>
#include <mlir-c/BuiltinTypes.h>
#include <stdlib.h>
#include <string.h>

// ----------------------------------------------------------------------------
// accumulators

typedef struct {
  const void *memref; // the accessed memref value (pointer identity)
  bool store;
} access;

enum { MAX_ACCESS_PAIRS = 256 }; // accesses compared per loop

typedef struct {
  // syntax
  double kind[N_KINDS];
  double ops, blocks, regions, funcs, values;
  double depth_max, depth_sum;
  double operands_sum, operands_max, results_sum, results_max, region_ops;
  unsigned stages; // MQSS_STAGE_* bits, as mqss_module_stages
  // semantics
  double flops, bytes;
  double linalg, linalg_named, iter_par, iter_red, iter_max;
  double affine_access, loads, stores;
  double stride_max, dil_max, convpool, strided, dilated, conv, pool;
  double loops, loop_depth_max, loop_depth_sum, trip_max, trip_sum, trip_static;
  double iters_max, l_affine, l_scf, l_par, l_while;
  double elem[N_ELEM], typed;
  double rank_max, rank_sum, numel_max, shaped, dynamic;
  double tensors, memrefs, vectors, vec_width;
  double carried_iter, carried_mem, reductions, calls;
  double compute, math, div, cmp, flt, integ;
  // per-op shapes
  double op_loops, op_static, tile_div[N_TILES], opi_max, opi_min;
  op_shape focus; // op_shape_focus_better: the untiled linalg op with known
                  // loops and the most flops
  bool have_focus;
  // memory accesses in walk order, for loop-carried memory dependences
  access *acc;
  int n_acc, cap_acc;
  name_cache names; // op name -> class, filled as the walk meets names
  state_skip skip;  // top-level functions left out (harness.c)
} stats;

// ----------------------------------------------------------------------------
// values and types

static void see_type(stats *s, MlirType t) {
  s->values++;
  s->elem[elem_class(t)]++;
  s->typed++;
  if (!mlirTypeIsAShaped(t))
    return;
  bool is_vec = mlirTypeIsAVector(t);
  s->tensors += mlirTypeIsATensor(t);
  s->memrefs += mlirTypeIsAMemRef(t) || mlirTypeIsAUnrankedMemRef(t);
  s->vectors += is_vec;
  s->shaped++;
  int r = type_rank(t);
  s->rank_sum += r;
  s->rank_max = fmax(s->rank_max, r);
  double n = static_numel(t);
  s->numel_max = fmax(s->numel_max, n);
  if (is_vec)
    s->vec_width = fmax(s->vec_width, n);
  bool dyn = !mlirShapedTypeHasRank(t);
  for (int i = 0; !dyn && i < r; i++)
    dyn = mlirShapedTypeIsDynamicDim(t, i);
  s->dynamic += dyn;
}

// ----------------------------------------------------------------------------
// per-op classification

static void see_compute(stats *s, MlirOperation op, const op_class *cl,
                        double trip, bool in_linalg) {
  s->compute++;
  s->math += cl->math;
  s->div += cl->div;
  s->cmp += cl->cmp;
  MlirType t = mlirOperationGetNumResults(op)
                   ? mlirValueGetType(mlirOperationGetResult(op, 0))
                   : mlirValueGetType(mlirOperationGetOperand(op, 0));
  int ec = elem_class(t);
  s->flt += ec <= 3;
  s->integ += ec >= 4 && ec <= 9;
  if (!in_linalg) // linalg bodies are counted through their domains
    s->flops += trip * static_numel(t);
}

static void see_shape(stats *s, const op_shape *sh) {
  double opi = op_shape_intensity(sh);
  s->opi_max = fmax(s->opi_max, opi);
  s->opi_min = s->linalg > 1 ? fmin(s->opi_min, opi) : opi;
  if (sh->n_loops == 0)
    return;
  for (int d = 0; d < sh->n_loops; d++) {
    s->op_loops++;
    if (sh->ext[d] <= 0)
      continue;
    s->op_static++;
    unsigned bits = tile_div_bits(sh->ext[d]);
    for (int k = 0; k < N_TILES; k++)
      s->tile_div[k] += (bits >> k) & 1u;
  }
  if (op_shape_focus_better(sh, s->have_focus ? &s->focus : NULL)) {
    s->focus = *sh;
    s->have_focus = true;
  }
}

static void see_linalg(stats *s, MlirOperation op, double trip) {
  op_shape sh;
  if (!op_shape_of(op, &s->names, &sh))
    return;
  const linalg_info *li = &sh.li;
  s->linalg++;
  s->linalg_named += !li->is_generic;
  s->iter_par += li->parallel;
  s->iter_red += li->reduction;
  s->iter_max = fmax(s->iter_max, li->parallel + li->reduction);
  s->reductions += li->reduction > 0;
  s->flops += trip * sh.flops;
  s->bytes += trip * sh.bytes;
  see_shape(s, &sh);
  if (li->is_conv || li->is_pool) {
    int64_t st = attr_max_int(op, "strides"), dl = attr_max_int(op, "dilations");
    s->convpool++;
    s->conv += li->is_conv;
    s->pool += li->is_pool;
    s->stride_max = fmax(s->stride_max, (double)st);
    s->dil_max = fmax(s->dil_max, (double)dl);
    s->strided += st > 1;
    s->dilated += dl > 1;
  }
}

static void see_access(stats *s, MlirOperation op, const op_class *cl,
                       double trip) {
  bool store = cl->store, affine = cl->affine;
  int k = cl->access;
  if (k < 0 || k >= mlirOperationGetNumOperands(op))
    return;
  MlirValue mem = mlirOperationGetOperand(op, k);
  s->loads += !store;
  s->stores += store;
  s->affine_access += affine;
  MlirType moved = store ? mlirValueGetType(mlirOperationGetOperand(op, 0))
                         : mlirValueGetType(mlirOperationGetResult(op, 0));
  s->bytes += trip * static_numel(moved) * elem_bytes(moved);
  if (s->n_acc == s->cap_acc) {
    int cap = s->cap_acc ? 2 * s->cap_acc : 256;
    access *a = realloc(s->acc, (size_t)cap * sizeof *a);
    if (!a)
      return; // only the dependence estimate loses this access
    s->acc = a;
    s->cap_acc = cap;
  }
  s->acc[s->n_acc++] = (access){mem.ptr, store};
}

// True when accesses [from, to) load and store one same memref.
static bool load_store_same(const stats *s, int from, int to) {
  if (to - from > MAX_ACCESS_PAIRS)
    to = from + MAX_ACCESS_PAIRS;
  for (int i = from; i < to; i++)
    for (int j = i + 1; j < to; j++)
      if (s->acc[i].memref == s->acc[j].memref &&
          s->acc[i].store != s->acc[j].store)
        return true;
  return false;
}

// ----------------------------------------------------------------------------
// the walk

static void visit(stats *s, MlirOperation op, int depth, int loop_depth,
                  double trip, bool in_linalg) {
  op_class tmp;
  const op_class *cl = name_class(&s->names, op, &tmp);
  s->ops++;
  s->kind[cl->kind]++;
  s->depth_max = fmax(s->depth_max, depth);
  s->depth_sum += depth;
  double nopd = (double)mlirOperationGetNumOperands(op);
  double nres = (double)mlirOperationGetNumResults(op);
  s->operands_sum += nopd;
  s->operands_max = fmax(s->operands_max, nopd);
  s->results_sum += nres;
  s->results_max = fmax(s->results_max, nres);
  s->stages |= op_stages(op);
  s->funcs += cl->func;
  s->calls += cl->call;
  s->reductions += cl->reduction;
  for (intptr_t i = 0; i < mlirOperationGetNumResults(op); i++)
    see_type(s, mlirValueGetType(mlirOperationGetResult(op, i)));

  if (cl->compute)
    see_compute(s, op, cl, trip, in_linalg);
  if (cl->access >= 0)
    see_access(s, op, cl, trip);
  bool linalg = cl->linalg && mlirOperationGetNumRegions(op) > 0;
  if (linalg && !in_linalg)
    see_linalg(s, op, trip);

  int kind = cl->loop;
  int acc_start = s->n_acc;
  double inner_trip = trip;
  if (kind != LOOP_NONE) {
    double t;
    s->loops++;
    s->loop_depth_max = fmax(s->loop_depth_max, loop_depth + 1);
    s->loop_depth_sum += loop_depth + 1;
    s->l_affine += kind == LOOP_AFFINE_FOR || kind == LOOP_AFFINE_PAR;
    s->l_scf += kind == LOOP_SCF_FOR;
    s->l_par += kind == LOOP_SCF_PAR || kind == LOOP_AFFINE_PAR;
    s->l_while += kind == LOOP_WHILE;
    s->carried_iter += kind == LOOP_WHILE || nres > 0;
    if (loop_trip_count(op, kind, &t)) {
      s->trip_static++;
      s->trip_sum += t;
      s->trip_max = fmax(s->trip_max, t);
      inner_trip *= t;
    }
    s->iters_max = fmax(s->iters_max, inner_trip);
  }

  intptr_t n_regions = mlirOperationGetNumRegions(op);
  s->region_ops += n_regions > 0;
  for (intptr_t r = 0; r < n_regions; r++) {
    MlirRegion region = mlirOperationGetRegion(op, r);
    s->regions++;
    for (MlirBlock b = mlirRegionGetFirstBlock(region); !mlirBlockIsNull(b);
         b = mlirBlockGetNextInRegion(b)) {
      s->blocks++;
      for (intptr_t a = 0; a < mlirBlockGetNumArguments(b); a++)
        see_type(s, mlirValueGetType(mlirBlockGetArgument(b, a)));
      for (MlirOperation c = mlirBlockGetFirstOperation(b);
           !mlirOperationIsNull(c); c = mlirOperationGetNextInBlock(c))
        if (depth > 0 || !state_skip_has(&s->skip, c))
          visit(s, c, depth + 1, loop_depth + (kind != LOOP_NONE), inner_trip,
                in_linalg || linalg);
    }
  }
  if (kind != LOOP_NONE)
    s->carried_mem += load_store_same(s, acc_start, s->n_acc);
}

// ----------------------------------------------------------------------------
// normalisation into the vector

static double ratio(double a, double b) { return b > 0 ? a / b : 0.0; }
static double lg10(double x) { return log10(1.0 + fmax(x, 0.0)); }
static double lg2(double x) { return log2(1.0 + fmax(x, 0.0)); }

static void write_syntax(const stats *s, float *f) {
  for (int k = 0; k < N_KINDS; k++)
    f[F_OP + k] = (float)ratio(s->kind[k], s->ops);
  f[F_NUM_OPS] = (float)(lg10(s->ops) / 6);
  f[F_NUM_BLOCKS] = (float)(lg10(s->blocks) / 5);
  f[F_NUM_REGIONS] = (float)(lg10(s->regions) / 5);
  f[F_NUM_FUNCS] = (float)(lg10(s->funcs) / 3);
  f[F_NUM_VALUES] = (float)(lg10(s->values) / 6);
  f[F_DEPTH_MAX] = (float)(s->depth_max / 16);
  f[F_DEPTH_MEAN] = (float)(ratio(s->depth_sum, s->ops) / 16);
  f[F_OPERANDS_MEAN] = (float)(ratio(s->operands_sum, s->ops) / 8);
  f[F_OPERANDS_MAX] = (float)(lg2(s->operands_max) / 8);
  f[F_RESULTS_MEAN] = (float)(ratio(s->results_sum, s->ops) / 4);
  f[F_RESULTS_MAX] = (float)(lg2(s->results_max) / 8);
  f[F_REGION_OPS] = (float)ratio(s->region_ops, s->ops);
}

static void write_semantics(const stats *s, float *f) {
  f[F_FLOPS] = (float)(lg10(s->flops) / 12);
  f[F_BYTES] = (float)(lg10(s->bytes) / 12);
  f[F_INTENSITY] = (float)(lg2(ratio(s->flops, s->bytes)) / 8);
  f[F_LINALG_OPS] = (float)(lg10(s->linalg) / 3);
  f[F_LINALG_NAMED] = (float)ratio(s->linalg_named, s->linalg);
  f[F_ITER_PAR] = (float)(lg2(s->iter_par) / 8);
  f[F_ITER_RED] = (float)(lg2(s->iter_red) / 8);
  f[F_ITER_RED_FRAC] = (float)ratio(s->iter_red, s->iter_par + s->iter_red);
  f[F_ITER_MAX] = (float)(s->iter_max / 8);
  f[F_AFFINE_ACCESS] = (float)ratio(s->affine_access, s->loads + s->stores);
  f[F_LOADS] = (float)(lg10(s->loads) / 4);
  f[F_STORES] = (float)(lg10(s->stores) / 4);
  f[F_STRIDE_MAX] = (float)(s->convpool ? s->stride_max / 4 : 0);
  f[F_DILATION_MAX] = (float)(s->convpool ? s->dil_max / 4 : 0);
  f[F_STRIDED_FRAC] = (float)ratio(s->strided, s->convpool);
  f[F_DILATED_FRAC] = (float)ratio(s->dilated, s->convpool);
  f[F_CONV_OPS] = (float)(lg2(s->conv) / 4);
  f[F_POOL_OPS] = (float)(lg2(s->pool) / 4);
  f[F_LOOPS] = (float)(lg10(s->loops) / 3);
  f[F_LOOP_DEPTH_MAX] = (float)(s->loop_depth_max / 8);
  f[F_LOOP_DEPTH_MEAN] = (float)(ratio(s->loop_depth_sum, s->loops) / 8);
  f[F_TRIP_MAX] = (float)(lg10(s->trip_max) / 6);
  f[F_TRIP_MEAN] = (float)(lg10(ratio(s->trip_sum, s->trip_static)) / 6);
  f[F_TRIP_STATIC] = (float)ratio(s->trip_static, s->loops);
  f[F_ITERS_MAX] = (float)(s->loops ? lg10(s->iters_max) / 9 : 0);
  f[F_LOOP_AFFINE] = (float)ratio(s->l_affine, s->loops);
  f[F_LOOP_SCF] = (float)ratio(s->l_scf, s->loops);
  f[F_LOOP_PAR] = (float)ratio(s->l_par, s->loops);
  f[F_LOOP_WHILE] = (float)ratio(s->l_while, s->loops);
  for (int k = 0; k < N_ELEM; k++)
    f[F_ELEM + k] = (float)ratio(s->elem[k], s->typed);
  f[F_RANK_MAX] = (float)(s->rank_max / 4);
  f[F_RANK_MEAN] = (float)(ratio(s->rank_sum, s->shaped) / 4);
  f[F_NUMEL_MAX] = (float)(lg10(s->numel_max) / 9);
  f[F_DYNAMIC_FRAC] = (float)ratio(s->dynamic, s->shaped);
  f[F_TENSOR_FRAC] = (float)ratio(s->tensors, s->values);
  f[F_MEMREF_FRAC] = (float)ratio(s->memrefs, s->values);
  f[F_VECTOR_FRAC] = (float)ratio(s->vectors, s->values);
  f[F_VECTOR_WIDTH] = (float)(lg2(s->vec_width) / 8);
  f[F_CARRIED_ITER] = (float)ratio(s->carried_iter, s->loops);
  f[F_CARRIED_MEM] = (float)ratio(s->carried_mem, s->loops);
  f[F_REDUCTIONS] = (float)(lg2(s->reductions) / 6);
  f[F_CALLS] = (float)(lg2(s->calls) / 6);
  f[F_MATH_FRAC] = (float)ratio(s->math, s->compute);
  f[F_DIV_FRAC] = (float)ratio(s->div, s->compute);
  f[F_CMP_FRAC] = (float)ratio(s->cmp, s->compute);
  f[F_FLOAT_FRAC] = (float)ratio(s->flt, s->compute);
  f[F_INT_FRAC] = (float)ratio(s->integ, s->compute);
}

static void write_shapes(const stats *s, float *f) {
  f[F_LOOPS_STATIC] = (float)ratio(s->op_static, s->op_loops);
  for (int k = 0; k < N_TILES; k++)
    f[F_DIV + k] = (float)ratio(s->tile_div[k], s->op_static);
  f[F_OPI_MAX] = (float)s->opi_max;
  f[F_OPI_MIN] = (float)s->opi_min;
  if (!s->have_focus)
    return;
  const op_shape *fo = &s->focus;
  f[F_FOCUS] = 1;
  f[F_FOCUS_FLOPS] = (float)fmin(1.0, ratio(fo->flops, s->flops));
  f[F_FOCUS_INTENSITY] = (float)op_shape_intensity(fo);
  f[F_FOCUS_LOOPS] = (float)fo->n_loops / 8;
  f[F_FOCUS_TAGGED] = fo->tagged;
  for (int k = 1; k <= N_INNER; k++) {
    int64_t e = op_shape_inner(fo, k);
    f[F_FOCUS_EXT + k - 1] = e > 0 ? (float)(lg2((double)e) / 12) : 0;
    unsigned bits = tile_div_bits(e);
    for (int t = 0; t < N_TILES; t++)
      f[F_FOCUS_DIV + (k - 1) * N_TILES + t] = (float)((bits >> t) & 1u);
  }
}

void features_write_history(const mqss_catalog *c, const int *history,
                            int n_history, int max_steps, float *f) {
  memset(f + F_STEP, 0, (F_COUNT_LAST + 1 - F_STEP) * sizeof *f);
  int n = c && history ? n_history : 0;
  int size = mqss_catalog_size(c);
  double steps = max_steps > 0 ? max_steps : 16;
  f[F_STEP] = (float)fmin(1.0, n / steps);
  f[F_HIST_LEN] = (float)(fmin(n, MQSS_HISTORY_LEN) / MQSS_HISTORY_LEN);
  for (int k = 0; k < MQSS_HISTORY_LEN && k < n; k++) {
    int id = history[n - 1 - k];
    f[F_LAST + k] = id >= 0 && id < size ? (float)(id + 1) / (float)size : 0;
  }
  for (int i = 0; i < n; i++) {
    int id = history[i];
    if (id < 0 || id >= size)
      continue;
    f[F_COUNT + (id < N_COUNT - 1 ? id : N_COUNT - 1)] += (float)(1.0 / steps);
  }
}

mqss_status mqss_features(const mqss_module *m, const mqss_catalog *c,
                          const int *history, int n_history, int max_steps,
                          float *out) {
  if (!m || !out || n_history < 0)
    return m ? fail(m->session, MQSS_ERR_INVALID_ARG, "features: bad argument")
             : MQSS_ERR_INVALID_ARG;
  stats *s = calloc(1, sizeof *s);
  if (!s)
    return fail(m->session, MQSS_ERR_NOMEM, "out of memory");
  MlirOperation root = mlirModuleGetOperation(m->mod);
  state_skip_find(root, &s->skip);
  visit(s, root, 0, 0, 1.0, false);
  memset(out, 0, MQSS_FEATURE_DIM * sizeof *out);
  write_syntax(s, out);
  write_semantics(s, out);
  write_shapes(s, out);
  for (int b = 0; b < MQSS_NUM_STAGES; b++)
    out[F_STAGE + b] = (s->stages >> b) & 1u;
  features_write_history(c, history, n_history, max_steps, out);
  free(s->acc);
  free(s);
  for (int i = 0; i < MQSS_FEATURE_DIM; i++)
    if (!isfinite(out[i]))
      out[i] = 0.0f;
  return MQSS_OK;
}
