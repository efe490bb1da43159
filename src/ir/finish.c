// The finisher: lowers a module at any stage to the LLVM dialect. It is a
// table of conversion steps in dependency order; a step runs only when the
// ops it lowers are present, so the pipeline is read off the remaining IR
// instead of being one fixed string. It does not optimise anything, but
// for the clean-up that makes an scf.forall's tiles run in place (below).
#include "internal.h"

#include <mlir-c/BuiltinTypes.h>
#include <stdio.h>
#include <string.h>

// ----------------------------------------------------------------------------
// the step table

// Each step runs when an op of one of its `triggers` remains: a dialect
// namespace ("linalg"), a full op name ("builtin.unrealized_conversion_cast"),
// "@tensor" for any value of tensor type, or "NAME@tensor" for an op that
// matches NAME and has a tensor operand (arith.addf on tensors, not a
// tensor-typed arith.constant). Order matters: a step may create
// ops that only later steps lower (linalg -> scf/memref/arith -> llvm).
static const struct finish_step {
  const char *triggers; // space-separated
  const char *pipeline;
  const char *unless; // space-separated: skip while one of these remains
  bool optional;      // on failure, undo the step and go on without it
} steps[] = {
    {"tosa", "func.func(tosa-to-linalg-named,tosa-to-linalg,tosa-to-arith,"
             "tosa-to-tensor)", NULL, false},
    // linalg.softmax has no lowering of its own (cxx_passes.cpp).
    {"linalg.softmax", "func.func(mqss-decompose-aggregates)", NULL, false},
    // arith.addf and friends written directly on tensors.
    {"arith@tensor math@tensor complex@tensor",
     "func.func(convert-elementwise-to-linalg)", NULL, false},
    {"@tensor tensor bufferization",
     "one-shot-bufferize{allow-return-allocs-from-loops "
     "bufferize-function-boundaries "
     "function-boundary-type-conversion=identity-layout-map}", NULL, false},
    // Frees each buffer after its last use, as a compiler's own pipeline
    // does after bufferization. Without it every call leaks its
    // intermediate buffers, so each call touches fresh pages, and on this
    // machine page faults then cost more than the arithmetic (a 1x1
    // convolution and its bias: 6.0 ms leaking, 3.2 ms freeing; the
    // vectorised convolution was no faster while it leaked). Modules that
    // free their own buffers are left as written (the pass refuses
    // existing deallocations), and so is a module the pass cannot handle,
    // or one with a memref.alloca_scope: the scf.if the pass may put into
    // the scope's region becomes blocks the scope's lowering cannot take.
    {"memref.alloc memref.realloc",
     "expand-realloc,ownership-based-buffer-deallocation,"
     "buffer-deallocation-simplification,"
     "bufferization-lower-deallocations,convert-bufferization-to-memref",
     "memref.dealloc bufferization.dealloc memref.alloca_scope", true},
    // An scf.forall (the catalog's parallel-tile) runs its iterations on
    // OpenMP threads, as omp-parallel does for the loops it is given
    // (data/catalog.yaml). Bufferization copies each tile from one subview
    // into an identical second one; cse makes the two one value, and only
    // then does canonicalization drop the copy onto itself. Kept, it is a
    // generic strided copy of the op's whole output (pooling_512 in two row
    // tiles on the threads: 1.03x the untiled module's time with the
    // copies, 0.66x without). The last canonicalization removes most of
    // the memref.alloca_scope ops that convert-scf-to-openmp wraps around
    // each loop body (allocations of constant size move to the thread's
    // region); mqss-expand-alloca-scopes below takes the others.
    {"scf.forall", "func.func(canonicalize{region-simplify=disabled},cse,"
     "canonicalize{region-simplify=disabled},"
     "scf-forall-to-parallel,mqss-flat-outer-parallel),convert-scf-to-openmp,"
     "func.func(canonicalize{region-simplify=disabled})", NULL, false},
    {"linalg", "func.func(convert-linalg-to-loops)", NULL, false},
    // Vector ops, highest level first. Contractions become outer products
    // and FMAs (convert-vector-to-llvm would use dot products), and permuted
    // transfers become minor-identity ones (cxx_passes.cpp). Then
    // multi-reductions and masks, and last the transfers: fully unrolled to
    // rank 1, because the default puts an alloca and a scalar loop inside
    // the innermost loop for every 2-D transfer. convert-vector-to-llvm
    // lowers what is left (broadcast, shape_cast, transpose) below.
    {"vector.contract vector.transfer_read vector.transfer_write",
     "func.func(mqss-lower-vector-contract)", NULL, false},
    {"vector.multi_reduction", "func.func(lower-vector-multi-reduction)",
     NULL, false},
    {"vector.mask", "func.func(lower-vector-mask)", NULL, false},
    {"vector.transfer_read vector.transfer_write",
     "func.func(convert-vector-to-scf{full-unroll=true target-rank=1})",
     NULL, false},
    // Without transfers: n-D vector.print still needs its loops (only 1-D
    // prints of scalars lower to LLVM directly).
    {"vector.print",
     "func.func(convert-vector-to-scf{full-unroll=true target-rank=1})",
     NULL, false},
    // Rounding divisions (async-parallel-for's block sizes) have no LLVM
    // lowering of their own.
    {"arith.ceildivsi arith.ceildivui arith.floordivsi",
     "func.func(arith-expand)", NULL, false},
    // async.execute and friends (a module's own, or async-parallel-for's):
    // coroutines over MLIR's async runtime library, before the loops they
    // hold are lowered. The thread actions use OpenMP instead (above).
    {"async", "async-to-async-runtime,async-runtime-ref-counting,"
              "async-runtime-ref-counting-opt,convert-async-to-llvm", NULL, false},
    {"memref", "expand-strided-metadata", NULL, false},
    {"affine", "lower-affine", NULL, false},
    // Before the loops inside them become blocks (cxx_passes.cpp).
    {"memref.alloca_scope", "func.func(mqss-expand-alloca-scopes)", NULL,
     false},
    {"scf", "convert-scf-to-cf", NULL, false},
    {"vector", "convert-vector-to-llvm", NULL, false},
    // complex.sqrt, exp, log, ... become arith and math ops on the parts;
    // complex-to-llvm below takes only create/re/im and the simple ops.
    {"complex", "convert-complex-to-standard", NULL, false},
    // Integer powers have no LLVM intrinsic: outlined into loops.
    {"math.ipowi math.fpowi", "convert-math-to-funcs", NULL, false},
    // math-to-llvm first: libm has no rsqrt. libm then takes tanh and friends.
    {"math", "convert-math-to-llvm", NULL, false},
    {"math", "convert-math-to-libm", NULL, false},
    {"complex", "convert-complex-to-llvm", NULL, false},
    {"memref", "finalize-memref-to-llvm", NULL, false},
    {"index", "convert-index-to-llvm", NULL, false},
    {"arith", "convert-arith-to-llvm", NULL, false},
    {"ub", "convert-ub-to-llvm", NULL, false},
    {"func", "convert-func-to-llvm", NULL, false},
    {"cf", "convert-cf-to-llvm", NULL, false},
    // OpenMP's regions and loops (omp-parallel, parallel-tile), once the
    // code inside them is LLVM: calls into libomp (docs/INTEGRATION.md).
    {"omp", "convert-openmp-to-llvm", NULL, false},
    {"builtin.unrealized_conversion_cast", "reconcile-unrealized-casts",
     NULL, false},
};

enum { MAX_ROUNDS = 3 };

// ----------------------------------------------------------------------------
// scanning the IR

static bool is_tensor_type(MlirType t) { return mlirTypeIsATensor(t); }

static bool has_tensor_value(MlirOperation op) {
  for (intptr_t i = 0; i < mlirOperationGetNumResults(op); i++)
    if (is_tensor_type(mlirValueGetType(mlirOperationGetResult(op, i))))
      return true;
  for (intptr_t r = 0; r < mlirOperationGetNumRegions(op); r++) {
    MlirRegion region = mlirOperationGetRegion(op, r);
    for (MlirBlock b = mlirRegionGetFirstBlock(region); !mlirBlockIsNull(b);
         b = mlirBlockGetNextInRegion(b))
      for (intptr_t a = 0; a < mlirBlockGetNumArguments(b); a++)
        if (is_tensor_type(mlirValueGetType(mlirBlockGetArgument(b, a))))
          return true;
  }
  return false;
}

static bool has_tensor_operand(MlirOperation op) {
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); i++)
    if (is_tensor_type(mlirValueGetType(mlirOperationGetOperand(op, i))))
      return true;
  return false;
}

// True when `name` ("memref.alloc") matches `trigger` ("memref" or the name).
static bool name_matches(MlirStringRef name, const char *trigger, size_t tlen) {
  if (name.length == tlen && memcmp(name.data, trigger, tlen) == 0)
    return true;
  return name.length > tlen && name.data[tlen] == '.' &&
         memcmp(name.data, trigger, tlen) == 0;
}

struct scan {
  const char *triggers;
  MlirOperation found; // first op that matched, or null
};

static MlirWalkResult scan_op(MlirOperation op, void *user) {
  struct scan *sc = user;
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  for (const char *t = sc->triggers; *t;) {
    size_t len = strcspn(t, " ");
    const char *at = memchr(t, '@', len);
    bool hit = !at      ? name_matches(name, t, len)
               : at == t ? has_tensor_value(op)
                         : name_matches(name, t, (size_t)(at - t)) &&
                               has_tensor_operand(op);
    if (hit) {
      sc->found = op;
      return MlirWalkResultInterrupt;
    }
    t += len + (t[len] == ' ');
  }
  return MlirWalkResultAdvance;
}

static MlirOperation find_op(mqss_module *m, const char *triggers) {
  struct scan sc = {triggers, {NULL}};
  mlirOperationWalk(mlirModuleGetOperation(m->mod), scan_op, &sc,
                    MlirWalkPreOrder);
  return sc.found;
}

// First op that is neither LLVM dialect, nor OpenMP (translated to LLVM IR
// with the LLVM dialect, after the omp row above), nor the top-level
// module. Casts left by a partial conversion are only symptoms: the culprit
// is the op that was not converted, so a cast is kept only as the fallback.
struct unlowered {
  MlirOperation op;   // first op that is not a cast
  MlirOperation cast; // first builtin.unrealized_conversion_cast
};

static MlirWalkResult find_unlowered(MlirOperation op, void *user) {
  struct unlowered *u = user;
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  if (name_matches(name, "llvm", 4) || name_matches(name, "omp", 3) ||
      name_matches(name, "builtin.module", 14))
    return MlirWalkResultAdvance;
  static const char cast[] = "builtin.unrealized_conversion_cast";
  if (!name_matches(name, cast, sizeof cast - 1)) {
    u->op = op;
    return MlirWalkResultInterrupt;
  }
  if (mlirOperationIsNull(u->cast))
    u->cast = op;
  return MlirWalkResultAdvance;
}

static MlirOperation first_unlowered(mqss_module *m) {
  struct unlowered u = {{NULL}, {NULL}};
  mlirOperationWalk(mlirModuleGetOperation(m->mod), find_unlowered, &u,
                    MlirWalkPreOrder);
  return mlirOperationIsNull(u.op) ? u.cast : u.op;
}

// Dialects for devices other than the host CPU: mqss has no lowering for
// them, and converting around them only leaves casts that hide the cause.
static const char *const device_dialects =
    "gpu nvgpu nvvm rocdl amdgpu spirv xegpu";

// Fails naming `op`, where it is, and `why`.
static mqss_status fail_at(mqss_module *m, MlirOperation op, const char *why) {
  mqss_session *s = m->session;
  diag_reset(s, m->name);
  strbuf where = {0};
  format_location(s, mlirOperationGetLocation(op), &where);
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  mqss_status st = fail(s, MQSS_ERR_FINISH,
                        "cannot lower '%s' to LLVM: %s: '%.*s': %s", m->name,
                        where.data, (int)name.length, name.data, why);
  sb_free(&where);
  return st;
}

// ----------------------------------------------------------------------------
// transform schedules

struct strip {
  MlirOperation ops[64];
  int n;
};

static MlirWalkResult collect_transform(MlirOperation op, void *user) {
  struct strip *st = user;
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  if (!name_matches(name, "transform", 9) &&
      !(name.length > 10 && memcmp(name.data, "transform.", 10) == 0))
    return MlirWalkResultAdvance;
  if (st->n == (int)(sizeof st->ops / sizeof st->ops[0]))
    return MlirWalkResultInterrupt;
  st->ops[st->n++] = op;
  return MlirWalkResultSkip; // nested transform ops go with their parent
}

static MlirWalkResult drop_named_sequence_attr(MlirOperation op, void *user) {
  (void)user;
  mlirOperationRemoveAttributeByName(
      op, mlirStringRefCreateFromCString("transform.with_named_sequence"));
  return MlirWalkResultAdvance;
}

// Removes transform-dialect schedules: they drive transformations, they are
// not part of the program, and they have no LLVM lowering.
static void strip_transform(mqss_module *m) {
  MlirOperation root = mlirModuleGetOperation(m->mod);
  struct strip st;
  do {
    st.n = 0;
    mlirOperationWalk(root, collect_transform, &st, MlirWalkPreOrder);
    for (int i = 0; i < st.n; i++)
      mlirOperationDestroy(st.ops[i]);
  } while (st.n == (int)(sizeof st.ops / sizeof st.ops[0]));
  mlirOperationWalk(root, drop_named_sequence_attr, NULL, MlirWalkPreOrder);
}

// ----------------------------------------------------------------------------
// finish

static void note_step(mqss_module *m, const char *pipeline) {
  if (m->finish_pipeline.len)
    sb_append(&m->finish_pipeline, ",", 1);
  sb_printf(&m->finish_pipeline, "%s", pipeline);
}

// Runs an optional step on a copy of `m` and keeps the result only when the
// step succeeds; finish_pipeline names it only then.
static void run_optional(mqss_module *m, const char *pipeline) {
  mqss_module *copy = mqss_module_clone(m);
  if (!copy || mqss_module_run_pipeline(copy, pipeline) != MQSS_OK) {
    mqss_module_destroy(copy);
    diag_reset(m->session, m->name);
    return;
  }
  MlirModule done = copy->mod;
  copy->mod = m->mod;
  m->mod = done;
  mqss_module_destroy(copy);
  note_step(m, pipeline);
}

mqss_status mqss_module_finish(mqss_module *m) {
  if (!m)
    return MQSS_ERR_INVALID_ARG;
  mqss_session *s = m->session;
  sb_clear(&m->finish_pipeline);
  strip_transform(m);
  MlirOperation device = find_op(m, device_dialects);
  if (!mlirOperationIsNull(device)) {
    MlirStringRef op = mlirIdentifierStr(mlirOperationGetName(device));
    int dialect = 0;
    while ((size_t)dialect < op.length && op.data[dialect] != '.')
      dialect++;
    char why[192];
    snprintf(why, sizeof why, "the %.*s dialect is not supported: mqss "
             "compiles for the host CPU only; express the kernel with "
             "linalg, scf.parallel or affine ops",
             dialect, op.data);
    return fail_at(m, device, why);
  }

  for (int round = 0; round < MAX_ROUNDS; round++) {
    if (mlirOperationIsNull(first_unlowered(m)))
      return MQSS_OK;
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
      if (mlirOperationIsNull(find_op(m, steps[i].triggers)) ||
          (steps[i].unless &&
           !mlirOperationIsNull(find_op(m, steps[i].unless))))
        continue;
      if (steps[i].optional) {
        run_optional(m, steps[i].pipeline);
        continue;
      }
      note_step(m, steps[i].pipeline);
      mqss_status st = mqss_module_run_pipeline(m, steps[i].pipeline);
      if (st != MQSS_OK) {
        // The pass's diagnostics are still captured; fail() appends them.
        return fail(s, MQSS_ERR_FINISH, "cannot lower '%s' to LLVM: step '%s' %s",
                    m->name, steps[i].pipeline,
                    st == MQSS_ERR_VERIFY ? "produced invalid IR" : "failed");
      }
    }
  }

  MlirOperation left = first_unlowered(m);
  if (mlirOperationIsNull(left))
    return MQSS_OK;
  // The advice must work for measure too, whose reference is the finisher
  // alone: only a rewritten input helps there.
  return fail_at(m, left,
                 "no lowering to LLVM is known for this op; rewrite it with "
                 "linalg, scf, arith, math or memref ops (or convert it with "
                 "mlir-opt-19) and give mqss the converted file");
}

// Ops the finisher leaves alone because they are already lowered or are
// removed before the steps run.
static const char *const finished_ops = "llvm builtin.module transform";

static bool known_in(MlirStringRef name, const char *triggers) {
  for (const char *t = triggers; *t;) {
    size_t len = strcspn(t, " ");
    const char *at = memchr(t, '@', len);
    size_t n = at ? (size_t)(at - t) : len;
    if (n && name_matches(name, t, n))
      return true;
    t += len + (t[len] == ' ');
  }
  return false;
}

static MlirWalkResult find_unknown(MlirOperation op, void *user) {
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  if (known_in(name, finished_ops))
    return MlirWalkResultAdvance;
  for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++)
    if (known_in(name, steps[i].triggers))
      return MlirWalkResultAdvance;
  *(bool *)user = true;
  return MlirWalkResultInterrupt;
}

bool finish_has_unknown_ops(const mqss_module *m) {
  bool unknown = false;
  mlirOperationWalk(mlirModuleGetOperation(m->mod), find_unknown, &unknown,
                    MlirWalkPreOrder);
  return unknown;
}

const char *mqss_module_finish_pipeline(const mqss_module *m) {
  return m && m->finish_pipeline.data ? m->finish_pipeline.data : "";
}
