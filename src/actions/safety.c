// The safety layer: static preconditions of each catalog action, evaluated
// on the live IR. One walk summarises the IR (stages present, distinct op
// names); each action's requires / forbids / needs / avoids lists from the
// catalog are then checked against that summary. It knows nothing about
// specific passes: the rules are data in data/catalog.yaml; schedule actions
// add the op-level checks of schedule_check.c, on the op a decision would
// address (focus.c). It does not run passes.
#include "internal.h"
#include "actions/linalg_ops.h"
#include "actions/parallel_work.h"
#include "actions/schedule.h"
#include "actions/stack.h"
#include "features/irscan.h"

#include <mlir-c/AffineExpr.h>
#include <mlir-c/AffineMap.h>
#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// ----------------------------------------------------------------------------
// stage detection

// Dialect prefixes that put the IR in a stage by their mere presence.
static const struct {
  const char *dialect;
  unsigned stage;
} dialect_stage[] = {
    {"linalg", MQSS_STAGE_LINALG}, {"scf", MQSS_STAGE_LOOPS},
    {"affine", MQSS_STAGE_AFFINE}, {"vector", MQSS_STAGE_VECTOR},
    {"llvm", MQSS_STAGE_LLVM},
};

static unsigned type_stages(MlirType t) {
  if (mlirTypeIsATensor(t))
    return MQSS_STAGE_TENSOR;
  if (mlirTypeIsAMemRef(t) || mlirTypeIsAUnrankedMemRef(t))
    return MQSS_STAGE_BUFFER;
  return 0;
}

static bool has_prefix(MlirStringRef name, const char *dialect) {
  size_t n = strlen(dialect);
  return name.length > n && name.data[n] == '.' &&
         !memcmp(name.data, dialect, n);
}

unsigned op_stages(MlirOperation op) {
  unsigned st = 0;
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  for (size_t i = 0; i < sizeof dialect_stage / sizeof *dialect_stage; i++)
    if (has_prefix(name, dialect_stage[i].dialect))
      st |= dialect_stage[i].stage;
  for (intptr_t i = 0; i < mlirOperationGetNumResults(op); i++)
    st |= type_stages(mlirValueGetType(mlirOperationGetResult(op, i)));
  for (intptr_t r = 0; r < mlirOperationGetNumRegions(op); r++) {
    MlirRegion region = mlirOperationGetRegion(op, r);
    for (MlirBlock b = mlirRegionGetFirstBlock(region); !mlirBlockIsNull(b);
         b = mlirBlockGetNextInRegion(b))
      for (intptr_t a = 0; a < mlirBlockGetNumArguments(b); a++)
        st |= type_stages(mlirValueGetType(mlirBlockGetArgument(b, a)));
  }
  return st;
}

// ----------------------------------------------------------------------------
// IR summary

// The summary's name for an affine.for whose step is not 1 (after
// unrolling or tiling): catalog actions can avoid it like an op name.
static const char strided_for[] = "affine.for.strided";

static bool named(MlirStringRef name, const char *what) {
  return name.length == strlen(what) && !memcmp(name.data, what, name.length);
}

// Whether op is an affine.for with a step other than 1.
static bool is_strided_for(MlirOperation op, MlirStringRef name) {
  if (!named(name, "affine.for"))
    return false;
  MlirAttribute step = mlirOperationGetAttributeByName(
      op, mlirStringRefCreateFromCString("step"));
  return !mlirAttributeIsNull(step) && mlirAttributeIsAInteger(step) &&
         mlirIntegerAttrGetValueInt(step) != 1;
}

// The summary's name for an affine access (load, store or apply) whose map
// moves by other than one element per step of a dimension: a dimension
// scaled by a constant other than 1 (in[2 * i], in[31 - i]) or by a
// symbol, or inside a floordiv, ceildiv or mod. MLIR 19's super-vectorizer
// reads and writes such accesses as if they were contiguous (wrong values;
// the strided, dilated NCHW convolution example after
// convert-linalg-to-affine-loops).
static const char strided_access[] = "affine.access.strided";

static bool has_dim(MlirAffineExpr e) {
  if (mlirAffineExprIsADim(e))
    return true;
  return mlirAffineExprIsABinary(e) &&
         (has_dim(mlirAffineBinaryOpExprGetLHS(e)) ||
          has_dim(mlirAffineBinaryOpExprGetRHS(e)));
}

static bool is_const(MlirAffineExpr e, int64_t *v) {
  if (!mlirAffineExprIsAConstant(e))
    return false;
  *v = mlirAffineConstantExprGetValue(e);
  return true;
}

static bool non_unit_stride(MlirAffineExpr e) {
  if (!mlirAffineExprIsABinary(e))
    return false;
  MlirAffineExpr l = mlirAffineBinaryOpExprGetLHS(e),
                 r = mlirAffineBinaryOpExprGetRHS(e);
  if (mlirAffineExprIsAAdd(e))
    return non_unit_stride(l) || non_unit_stride(r);
  if (!mlirAffineExprIsAMul(e))
    return has_dim(l); // floordiv, ceildiv, mod
  // d * c, or d * s (a symbol: its value is unknown here)
  int64_t c;
  MlirAffineExpr scale = has_dim(l) ? r : l;
  return (has_dim(l) || has_dim(r)) && !(is_const(scale, &c) && c == 1);
}

static bool is_strided_access(MlirOperation op, MlirStringRef name) {
  bool access = named(name, "affine.load") || named(name, "affine.store") ||
                named(name, "affine.apply");
  MlirAttribute map = access ? mlirOperationGetAttributeByName(
                                   op, mlirStringRefCreateFromCString("map"))
                             : (MlirAttribute){NULL};
  if (mlirAttributeIsNull(map) || !mlirAttributeIsAAffineMap(map))
    return false;
  MlirAffineMap m = mlirAffineMapAttrGetValue(map);
  for (intptr_t i = 0; i < mlirAffineMapGetNumResults(m); i++)
    if (non_unit_stride(mlirAffineMapGetResult(m, i)))
      return true;
  return false;
}

// The summary's name for an scf.for whose upper bound is also used inside
// its body: the same value, or a constant equal to it (the peeling pass
// folds equal constants into one first). MLIR 19 peels a loop's first
// iteration (scf-for-loop-peeling{peel-front=true}) by cloning it with every
// use of that value in the body replaced by lb + step, so an inner loop or
// a test bounded by the same constant loses its iterations.
static const char bound_in_body[] = "scf.for.bound-in-body";

static MlirAttribute constant_value(MlirValue v) {
  if (!mlirValueIsAOpResult(v))
    return (MlirAttribute){NULL};
  MlirOperation def = mlirOpResultGetOwner(v);
  if (!named(mlirIdentifierStr(mlirOperationGetName(def)), "arith.constant"))
    return (MlirAttribute){NULL};
  return mlirOperationGetAttributeByName(def,
                                         mlirStringRefCreateFromCString("value"));
}

typedef struct {
  MlirOperation loop;
  MlirValue ub;
  MlirAttribute ub_value; // null when ub is not a constant
  bool found;
} bound_use;

static MlirWalkResult find_bound_use(MlirOperation op, void *user) {
  bound_use *b = user;
  if (mlirOperationEqual(op, b->loop))
    return MlirWalkResultAdvance;
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(op) && !b->found; i++) {
    MlirValue v = mlirOperationGetOperand(op, i);
    MlirAttribute c = mlirAttributeIsNull(b->ub_value) ? (MlirAttribute){NULL}
                                                       : constant_value(v);
    b->found = mlirValueEqual(v, b->ub) ||
               (!mlirAttributeIsNull(c) && mlirAttributeEqual(c, b->ub_value));
  }
  return b->found ? MlirWalkResultInterrupt : MlirWalkResultAdvance;
}

static bool is_bound_in_body(MlirOperation op, MlirStringRef name) {
  if (!named(name, "scf.for") || mlirOperationGetNumOperands(op) < 3)
    return false;
  MlirValue ub = mlirOperationGetOperand(op, 1); // lb, ub, step, inits
  bound_use b = {op, ub, constant_value(ub), false};
  mlirOperationWalk(op, find_bound_use, &b, MlirWalkPreOrder);
  return b.found;
}

// The summary's name for two affine.for nests in one block where the later
// one stores into a memref the earlier one loads (a write after read across
// loops). MLIR 19's affine-loop-fusion can fuse the later nest into the
// earlier one regardless: on PolyBench's doitgen it moves the copy of
// sum into A inside the loop that still reads A (wrong values).
static const char war_loops[] = "affine.for.war";

enum { NEST_REFS = 16, BLOCK_NESTS = 64 };

// The memrefs an affine.for nest loads from and stores into; `full` when
// there were more than NEST_REFS of either.
typedef struct {
  MlirValue load[NEST_REFS], store[NEST_REFS];
  int n_load, n_store;
  bool full;
} nest_refs;

static void add_ref(MlirValue *v, int *n, bool *full, MlirValue x) {
  for (int i = 0; i < *n; i++)
    if (mlirValueEqual(v[i], x))
      return;
  if (*n == NEST_REFS)
    *full = true;
  else
    v[(*n)++] = x;
}

static MlirWalkResult note_refs(MlirOperation op, void *user) {
  nest_refs *r = user;
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  if (named(name, "affine.load") || named(name, "memref.load"))
    add_ref(r->load, &r->n_load, &r->full, mlirOperationGetOperand(op, 0));
  else if (named(name, "affine.store") || named(name, "memref.store"))
    add_ref(r->store, &r->n_store, &r->full, mlirOperationGetOperand(op, 1));
  return MlirWalkResultAdvance;
}

static bool writes_after_read(const nest_refs *early, const nest_refs *late) {
  if (early->full || late->full)
    return true; // too many to tell: assume the worst
  for (int i = 0; i < late->n_store; i++)
    for (int j = 0; j < early->n_load; j++)
      if (mlirValueEqual(late->store[i], early->load[j]))
        return true;
  return false;
}

// Whether one block of op's regions holds affine.for nests with a write
// after read between them.
static bool has_war_loops(MlirOperation op, MlirStringRef name) {
  (void)name;
  for (intptr_t r = 0; r < mlirOperationGetNumRegions(op); r++)
    for (MlirBlock b = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, r));
         !mlirBlockIsNull(b); b = mlirBlockGetNextInRegion(b)) {
      nest_refs nests[BLOCK_NESTS];
      int n = 0;
      for (MlirOperation o = mlirBlockGetFirstOperation(b);
           !mlirOperationIsNull(o); o = mlirOperationGetNextInBlock(o)) {
        if (!named(mlirIdentifierStr(mlirOperationGetName(o)), "affine.for"))
          continue;
        if (n == BLOCK_NESTS)
          return true; // too many to tell
        nests[n] = (nest_refs){.n_load = 0};
        mlirOperationWalk(o, note_refs, &nests[n], MlirWalkPreOrder);
        for (int i = 0; i < n; i++)
          if (writes_after_read(&nests[i], &nests[n]))
            return true;
        n++;
      }
    }
  return false;
}

// The summary's name for an scf.for whose bounds or step are not constants.
// MLIR 19 peels its first iteration (peel-front=true) into a loop from lb
// to lb + step that runs once even when the loop would not run at all (an
// empty CSR row in SpMV: wrong values).
static const char dynamic_for[] = "scf.for.dynamic";

static bool is_dynamic_for(MlirOperation op, MlirStringRef name) {
  if (!named(name, "scf.for") || mlirOperationGetNumOperands(op) < 3)
    return false;
  for (int i = 0; i < 3; i++) // lb, ub, step
    if (mlirAttributeIsNull(constant_value(mlirOperationGetOperand(op, i))))
      return true;
  return false;
}

// The summary's name for an scf.for that is the whole body of another
// scf.for (a perfect nest) and yields one of its own iter_args unchanged
// (a bufferized tile loop threading its output buffer through). MLIR 19's
// affine-loop-coalescing, which coalesces scf.for nests too, crashes on it
// (a segfault); it coalesces a nest whose inner loop yields a new value,
// and leaves an imperfect nest alone.
static const char nested_pass_through[] = "scf.for.nested-pass-through";

static bool is_nested_pass_through(MlirOperation op, MlirStringRef name) {
  if (!named(name, "scf.for"))
    return false;
  MlirOperation parent = mlirOperationGetParentOperation(op);
  if (mlirOperationIsNull(parent) ||
      !named(mlirIdentifierStr(mlirOperationGetName(parent)), "scf.for"))
    return false;
  MlirBlock outer = mlirOperationGetBlock(op);
  if (!mlirOperationEqual(mlirBlockGetFirstOperation(outer), op) ||
      !mlirOperationEqual(mlirOperationGetNextInBlock(op),
                          mlirBlockGetTerminator(outer)))
    return false;
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0));
  MlirOperation yield = mlirBlockGetTerminator(body);
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(yield); i++) {
    MlirValue v = mlirOperationGetOperand(yield, i);
    if (mlirValueIsABlockArgument(v) &&
        mlirBlockEqual(mlirBlockArgumentGetOwner(v), body))
      return true;
  }
  return false;
}

// The summary's name for an scf.for with results (iter_args) whose upper
// bound is an affine.min (a partial tile of a nested tiling). MLIR 19's
// scf-for-loop-specialization versions such a loop under an scf.if that
// yields nothing, and crashes replacing the loop's results (a segfault);
// without results it specialises the loop.
static const char min_bound_results[] = "scf.for.min-bound-results";

static bool is_min_bound_results(MlirOperation op, MlirStringRef name) {
  if (!named(name, "scf.for") || mlirOperationGetNumResults(op) == 0 ||
      mlirOperationGetNumOperands(op) < 3)
    return false;
  MlirValue ub = mlirOperationGetOperand(op, 1); // lb, ub, step, inits
  return mlirValueIsAOpResult(ub) &&
         named(mlirIdentifierStr(mlirOperationGetName(mlirOpResultGetOwner(ub))),
               "affine.min");
}

// The summary's names for a function where promote-buffers-to-stack, or
// convert-vector-to-scf without full-unroll, would put buffers in loops that
// grow the stack by more than STACK_GROWTH_LIMIT per call (stack.c): the
// compiled code then dies of a stack overflow at run time.
static const char promote_grows[] = "memref.alloc.stack-growth";
static const char transfers_grow[] = "vector.transfer.stack-growth";

static void add_name(ir_summary *sum, MlirStringRef name) {
  for (int i = 0; i < sum->n_names; i++)
    if (sum->names[i].data == name.data) // uniqued identifiers, one array
      return;
  if (sum->n_names == sum->cap_names) {
    int cap = sum->cap_names ? 2 * sum->cap_names : 32;
    MlirStringRef *p = realloc(sum->names, (size_t)cap * sizeof *p);
    if (!p)
      return; // a missed name only blocks more actions
    sum->names = p;
    sum->cap_names = cap;
  }
  sum->names[sum->n_names++] = name;
}

// Sums the stack growth of the function being walked (functions do not
// nest, and the walk is pre-order) and names it once over the limit.
static void add_growth(ir_summary *sum, MlirOperation op, MlirStringRef name) {
  if (named(name, "func.func")) {
    sum->alloc_growth = sum->transfer_growth = 0;
    return;
  }
  if (named(name, "memref.alloc") &&
      (sum->alloc_growth += stack_growth(op, false)) > STACK_GROWTH_LIMIT)
    add_name(sum, (MlirStringRef){promote_grows, sizeof promote_grows - 1});
  if ((named(name, "vector.transfer_read") ||
       named(name, "vector.transfer_write")) &&
      (sum->transfer_growth += stack_growth(op, true)) > STACK_GROWTH_LIMIT)
    add_name(sum, (MlirStringRef){transfers_grow, sizeof transfers_grow - 1});
}

static MlirWalkResult summarise(MlirOperation op, void *user) {
  ir_summary *sum = user;
  sum->stages |= op_stages(op);
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  add_name(sum, name);
  if (is_strided_for(op, name))
    add_name(sum, (MlirStringRef){strided_for, sizeof strided_for - 1});
  if (is_strided_access(op, name))
    add_name(sum, (MlirStringRef){strided_access, sizeof strided_access - 1});
  if (is_dynamic_for(op, name))
    add_name(sum, (MlirStringRef){dynamic_for, sizeof dynamic_for - 1});
  if (is_nested_pass_through(op, name))
    add_name(sum, (MlirStringRef){nested_pass_through,
                                  sizeof nested_pass_through - 1});
  if (is_min_bound_results(op, name))
    add_name(sum, (MlirStringRef){min_bound_results,
                                  sizeof min_bound_results - 1});
  add_growth(sum, op, name);
  return MlirWalkResultAdvance;
}

// Names whose test walks past the op itself: found on the first ask
// (ir_summary_has), not in every scan, since few masks ask for them.
static const struct {
  const char *name;
  bool (*test)(MlirOperation op, MlirStringRef name);
} deep[] = {{bound_in_body, is_bound_in_body},
            {war_loops, has_war_loops},
            {"parallel.little-work", has_little_parallel_work},
            {"parallel.little-work-in-loops", has_little_parallel_work_in_loops},
            {"parallel.little-work-scf", has_little_sequential_work},
};

typedef struct {
  bool (*test)(MlirOperation op, MlirStringRef name);
  bool found;
} deep_walk;

static MlirWalkResult test_deep(MlirOperation op, void *user) {
  deep_walk *w = user;
  w->found = w->test(op, mlirIdentifierStr(mlirOperationGetName(op)));
  return w->found ? MlirWalkResultInterrupt : MlirWalkResultAdvance;
}

void ir_summary_scan(MlirOperation root, ir_summary *out) {
  memset(out, 0, sizeof *out);
  out->root = root;
  mlirOperationWalk(root, summarise, out, MlirWalkPreOrder);
}

bool ir_summary_has(ir_summary *sum, const char *what) {
  size_t n = strlen(what);
  for (int i = 0; i < sum->n_names; i++) {
    MlirStringRef s = sum->names[i];
    if ((s.length == n && !memcmp(s.data, what, n)) || has_prefix(s, what))
      return true;
  }
  for (unsigned k = 0; k < sizeof deep / sizeof *deep; k++) {
    if (strcmp(what, deep[k].name) || (sum->asked & 1u << k) ||
        mlirOperationIsNull(sum->root))
      continue;
    sum->asked |= 1u << k;
    deep_walk w = {deep[k].test, false};
    mlirOperationWalk(sum->root, test_deep, &w, MlirWalkPreOrder);
    if (w.found)
      add_name(sum, (MlirStringRef){deep[k].name, n});
    return w.found;
  }
  return false;
}

void ir_summary_free(ir_summary *sum) {
  free(sum->names);
  memset(sum, 0, sizeof *sum);
}

unsigned mqss_module_stages(const mqss_module *m) {
  if (!m)
    return 0;
  ir_summary sum;
  ir_summary_scan(mlirModuleGetOperation(m->mod), &sum);
  unsigned st = sum.stages;
  ir_summary_free(&sum);
  return st;
}

// ----------------------------------------------------------------------------
// checks

static void stage_list(unsigned bits, char *buf, size_t len) {
  size_t used = 0;
  buf[0] = 0;
  for (int b = 0; b < MQSS_NUM_STAGES && used < len; b++)
    if (bits & (1u << b))
      used += (size_t)snprintf(buf + used, len - used, "%s%s",
                               used ? "+" : "", mqss_stage_name(b));
}

// The focus op of a scope, found the first time a schedule action asks.
typedef struct {
  MlirOperation scope;
  bool found;
  linalg_focus f;
} lazy_focus;

static const linalg_focus *focus_of(lazy_focus *lf) {
  if (!lf->found)
    linalg_focus_find(lf->scope, &lf->f);
  lf->found = true;
  return &lf->f;
}

// The reason action `a` is blocked on `sum` (the summary of `scope`), into
// why (when not NULL: the mask does not format reasons); true when allowed.
// Schedule actions also need an op they can transform (schedule_check.c):
// the one op a decision would address (focus_target), else every op of
// their kinds; with a decision d, the op it addresses must fit its sizes.
static bool check(const mqss_action *a, const mqss_decision *d,
                  ir_summary *sum, lazy_focus *focus, bool scoped,
                  char *why, size_t why_len) {
  MlirOperation scope = focus->scope;
  char want[128], have[128];
  if (a->is_stop)
    return true;
  if (scoped && strcmp(a->anchor, "func.func") && !a->n_steps) {
    if (why)
      snprintf(why, why_len, "blocked: anchored on %s, cannot be scoped to "
               "one function", a->anchor);
    return false;
  }
  unsigned missing = a->requires_stages & ~sum->stages;
  if (missing) {
    if (why) {
      stage_list(missing, want, sizeof want);
      stage_list(sum->stages, have, sizeof have);
      snprintf(why, why_len, "blocked: requires stage %s; IR is %s", want,
               have[0] ? have : "scalar");
    }
    return false;
  }
  unsigned bad = a->forbids_stages & sum->stages;
  if (bad) {
    if (why) {
      stage_list(bad, want, sizeof want);
      snprintf(why, why_len, "blocked: not allowed while the IR has %s (e.g. "
               "unbufferized tensors)", want);
    }
    return false;
  }
  for (int i = 0; i < a->n_avoids; i++)
    if (ir_summary_has(sum, a->avoids[i])) {
      if (why)
        snprintf(why, why_len, "blocked: not allowed while the IR has %s",
                 a->avoids[i]);
      return false;
    }
  bool ok = a->n_needs == 0;
  for (int i = 0; i < a->n_needs && !ok; i++)
    ok = ir_summary_has(sum, a->needs[i]);
  if (ok && a->n_steps) {
    ok = d ? schedule_applies(scope, a, d, d->op, why, why_len)
           : schedule_applies(scope, a, NULL,
                              focus_target(scope, a, NULL, focus_of(focus),
                                           NULL),
                              why, why_len);
    if (ok && why)
      snprintf(why, why_len, "allowed");
    return ok;
  }
  if (!why)
    return ok;
  if (ok) {
    snprintf(why, why_len, "allowed");
    return true;
  }
  size_t used = (size_t)snprintf(why, why_len, "blocked: needs one of");
  for (int i = 0; i < a->n_needs && used < why_len; i++)
    used += (size_t)snprintf(why + used, why_len - used, "%s %s",
                             i ? "," : "", a->needs[i]);
  if (used < why_len)
    snprintf(why + used, why_len - used, "; none in the IR");
  return false;
}

// Scans the module, or only function `target`, into sum and sets *scope to
// it; false when the function is missing.
static bool scan(const mqss_module *m, const char *target, ir_summary *sum,
                 MlirOperation *scope) {
  *scope = target ? find_function(m, target) : mlirModuleGetOperation(m->mod);
  if (mlirOperationIsNull(*scope)) {
    memset(sum, 0, sizeof *sum);
    return false;
  }
  ir_summary_scan(*scope, sum);
  return true;
}

// check() on m, or on its function `target`: action a, or decision d of it.
static bool check_in(const mqss_module *m, const mqss_action *a,
                     const mqss_decision *d, const char *target, char *why,
                     size_t why_len) {
  ir_summary sum;
  MlirOperation scope;
  if (!scan(m, target, &sum, &scope)) {
    if (why)
      snprintf(why, why_len, "blocked: no function @%s in the module", target);
    return false;
  }
  lazy_focus focus = {.scope = scope};
  bool ok = check(a, d, &sum, &focus, target != NULL, why, why_len);
  ir_summary_free(&sum);
  return ok;
}

int mqss_action_check(const mqss_module *m, const mqss_catalog *c, int action,
                      const char *target, char *why, size_t why_len) {
  char local[256];
  if (!why || !why_len) {
    why = local;
    why_len = sizeof local;
  }
  const mqss_action *a = mqss_catalog_action(c, action);
  if (!m || !a) {
    snprintf(why, why_len, "blocked: no such action %d", action);
    return 0;
  }
  if (a->is_stop) {
    snprintf(why, why_len, "allowed");
    return 1;
  }
  return check_in(m, a, NULL, target, why, why_len);
}

bool decision_allowed(const mqss_module *m, const mqss_catalog *c,
                      const mqss_decision *d) {
  const mqss_action *a = m && d ? mqss_catalog_action(c, d->action) : NULL;
  return a && check_in(m, a, d, d->target, NULL, 0);
}

// An innermost affine.for whose trip count `v` does not divide: its trip
// count, or -1 when its bounds are not constant.
typedef struct {
  int64_t v;
  int64_t trip;
  bool found;
} undivided;

static MlirWalkResult note_for(MlirOperation op, void *user) {
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  *(int *)user += named(name, "affine.for");
  return MlirWalkResultAdvance;
}

static MlirWalkResult find_undivided(MlirOperation op, void *user) {
  undivided *u = user;
  int fors = 0;
  if (!named(mlirIdentifierStr(mlirOperationGetName(op)), "affine.for"))
    return MlirWalkResultAdvance;
  mlirOperationWalk(op, note_for, &fors, MlirWalkPreOrder);
  if (fors > 1) // not innermost
    return MlirWalkResultAdvance;
  double t;
  int64_t trip = loop_trip_count(op, LOOP_AFFINE_FOR, &t) ? (int64_t)t : -1;
  if (trip >= 0 && trip % u->v == 0)
    return MlirWalkResultAdvance;
  u->trip = trip;
  u->found = true;
  return MlirWalkResultInterrupt;
}

static bool refused_by_trip(MlirOperation scope, const mqss_action *a,
                            const mqss_decision *d, char *why, size_t len) {
  for (int i = 0; a->refuse_unless_divides && i < a->n_params; i++) {
    if (strcmp(a->params[i].name, a->refuse_unless_divides))
      continue;
    undivided u = {mqss_param_map(&a->params[i], d->u[i]), 0, false};
    if (u.v < 1)
      return false;
    mlirOperationWalk(scope, find_undivided, &u, MlirWalkPreOrder);
    if (!u.found)
      return false;
    if (u.trip < 0)
      snprintf(why, len, "%s = %lld: an innermost affine.for has bounds that "
               "are not constant", a->params[i].name, (long long)u.v);
    else
      snprintf(why, len, "%s = %lld: an innermost affine.for runs %lld "
               "times, which %lld does not divide", a->params[i].name,
               (long long)u.v, (long long)u.trip, (long long)u.v);
    return true;
  }
  return false;
}

bool decision_refused(const mqss_module *m, const mqss_action *a,
                      const mqss_decision *d, const char *pipeline, char *why,
                      size_t why_len) {
  bool text = a->refuse_if && strstr(pipeline, a->refuse_if);
  if (!text && !a->refuse_unless_divides)
    return false;
  ir_summary sum;
  MlirOperation scope;
  bool refused = false;
  if (scan(m, d->target, &sum, &scope)) {
    for (int i = 0; text && i < a->n_refuse_while && !refused; i++)
      if ((refused = ir_summary_has(&sum, a->refuse_while[i])))
        snprintf(why, why_len, "'%s' while the IR has %s", a->refuse_if,
                 a->refuse_while[i]);
    if (!refused)
      refused = refused_by_trip(scope, a, d, why, why_len);
  }
  ir_summary_free(&sum);
  return refused;
}

int mqss_action_mask(const mqss_module *m, const mqss_catalog *c,
                     const char *target, uint8_t *mask) {
  if (!m || !c || !mask)
    return -1;
  int n = mqss_catalog_size(c), allowed = 0;
  ir_summary sum;
  MlirOperation scope;
  bool found = scan(m, target, &sum, &scope);
  lazy_focus focus = {.scope = scope};
  for (int i = 0; i < n; i++) {
    const mqss_action *a = mqss_catalog_action(c, i);
    mask[i] = a->is_stop ||
              (found && check(a, NULL, &sum, &focus, target != NULL, NULL,
                              0));
    allowed += mask[i];
  }
  ir_summary_free(&sum);
  return allowed;
}
