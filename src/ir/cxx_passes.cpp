// Passes that MLIR 19 exposes only as C++ pattern sets, registered with
// MLIR's pass registry so that textual pipelines (catalog actions, the
// finisher) can name them. It is the library's one C++ file, kept to what
// C cannot reach; everything else stays C. It defines seven passes:
//
//   mqss-math-approx        replaces math.tanh, exp, erf, log, ... on f32
//                           (scalars and vectors) by polynomial arithmetic,
//                           so that they vectorise instead of becoming libm
//                           calls (populateMathPolynomialApproximationPatterns;
//                           mlir-opt has it only as a test pass).
//   mqss-lower-vector-contract
//                           lowers vector.contract to vector.outerproduct and
//                           then to vector.fma, and transfer ops with
//                           permutation maps to minor-identity transfers.
//   mqss-decompose-aggregates
//                           decomposes linalg ops that implement
//                           AggregatedOpInterface (linalg.softmax) into
//                           the linalg.generic ops they stand for; nothing
//                           lowers them directly, and mlir-opt offers it only
//                           as transform.structured.decompose_interface.
//   mqss-flat-outer-parallel
//                           prepares parallel loops for threads (OpenMP's
//                           convert-scf-to-openmp, or async-parallel-for),
//                           which take every scf.parallel: each one with
//                           reductions or inside another loop becomes
//                           scf.for loops, and each one left with several
//                           dimensions becomes one-dimensional. A parallel
//                           loop inside a parallel one would fork again in
//                           every iteration (under async-parallel-for a
//                           worker waiting for the inner tasks held its place
//                           in the pool, and a nested poly_blas3 module
//                           hung); one inside a sequential loop pays the
//                           hand-over every trip (the same module, its loops
//                           inside a 4224-trip loop: 33x slower); sequential
//                           reductions give results that do not depend on the
//                           number of threads; and MLIR 19's
//                           async-parallel-for runs some iterations of a
//                           multi-dimensional loop twice (a 30x30x8 loop
//                           split for 2 workers: every one; a 1-D loop of the
//                           same 7200 trips is right). With in-serial-loops,
//                           a loop that only sequential loops enclose stays
//                           parallel (a stencil's sweep inside its time
//                           loop: 1.46x faster on poly_stencil_115), and the
//                           safety layer masks that form where a team would
//                           get too little work per start. mlir-opt 19 has
//                           none of these steps as a pass.
//   mqss-scf-parallelize    turns each outermost scf.for loop whose
//                           iterations provably touch different elements
//                           into an scf.parallel loop (a CSR row loop, an
//                           element-wise loop around a data-dependent
//                           while); MLIR parallelises affine.for loops only.
//                           With min-work, a loop of fewer static iterations
//                           (nested loops' included) stays sequential.
//   mqss-vector-width       caps the vector registers that LLVM gives a
//                           function's vector ops at `bits` (256: a
//                           vector<16xf32> takes two AVX2 registers, not one
//                           AVX-512 register) with the LLVM function
//                           attributes prefer-vector-width and
//                           min-legal-vector-width, which func-to-llvm carries
//                           over in the function's passthrough list. LLVM's
//                           own vectorisers already prefer 256 bits on most
//                           AVX-512 CPUs; the vectors MLIR writes get the
//                           widest registers unless a function says so.
//   mqss-expand-alloca-scopes
//                           replaces each memref.alloca_scope by its body
//                           between a stack save and restore, as its LLVM
//                           lowering does, while the body is one block:
//                           convert-scf-to-openmp wraps every loop body in a
//                           scope, and once the loops inside it are blocks
//                           the scope no longer verifies.
//
// Why a pass and not a transform-dialect patterns schedule for the second:
// the finisher is a table of textual pipeline steps chosen from the IR that
// remains (finish.c). A transform schedule would have to be built and
// inserted into the module, interpreted and stripped again for every finish;
// a pass is one more step in the table, reproducible with mlir-opt plus the
// printed pipeline. convert-vector-to-llvm lowers contractions too, but only
// with the dot-product strategy, which turns a register-tiled matmul into
// horizontal reductions. The pattern set stays small on purpose: shape_cast
// and broadcast lowering together with transfer lowering and canonicalization
// in one greedy rewrite hang (docs/DESIGN.md); convert-vector-to-scf and
// convert-vector-to-llvm lower those later, each in its own rewrite.
#include <mlir/CAPI/IR.h>
#include <mlir/Dialect/Arith/IR/Arith.h>
#include <mlir/Dialect/Func/IR/FuncOps.h>
#include <mlir/Dialect/LLVMIR/LLVMDialect.h>
#include <mlir/Dialect/Linalg/IR/Linalg.h>
#include <mlir/Dialect/Math/IR/Math.h>
#include <mlir/Dialect/Math/Transforms/Passes.h>
#include <mlir/Dialect/MemRef/IR/MemRef.h>
#include <mlir/Dialect/SCF/IR/SCF.h>
#include <mlir/Dialect/SCF/Utils/Utils.h>
#include <mlir/Dialect/Tensor/IR/Tensor.h>
#include <mlir/Dialect/Vector/IR/VectorOps.h>
#include <mlir/Dialect/Vector/Transforms/LoweringPatterns.h>
#include <mlir/IR/IRMapping.h>
#include <mlir/Interfaces/LoopLikeInterface.h>
#include <mlir/Interfaces/SideEffectInterfaces.h>
#include <mlir/Interfaces/ViewLikeInterface.h>
#include <mlir/Pass/Pass.h>
#include <mlir/Pass/PassRegistry.h>
#include <mlir/Transforms/GreedyPatternRewriteDriver.h>

#include <memory>

// Static iterations of a loop nest, as the safety layer counts them
// (src/actions/parallel_work.h); -1 when a trip count is not a constant.
extern "C" double parallel_static_work(MlirOperation op);

namespace {

using namespace mlir;

struct MathApproxPass
    : public PassWrapper<MathApproxPass, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(MathApproxPass)

  StringRef getArgument() const final { return "mqss-math-approx"; }
  StringRef getDescription() const final {
    return "Replace f32 math ops (tanh, exp, erf, log, ...) by polynomial "
           "approximations built from arith and vector ops";
  }
  void getDependentDialects(DialectRegistry &registry) const final {
    registry.insert<arith::ArithDialect, math::MathDialect,
                    vector::VectorDialect>();
  }
  void runOnOperation() final {
    RewritePatternSet patterns(&getContext());
    // Target-independent: no x86vector intrinsics, so the result lowers
    // with the finisher's plain convert-vector-to-llvm on any CPU.
    populateMathPolynomialApproximationPatterns(patterns);
    // Not converging within the driver's iteration limit leaves valid IR
    // with some math ops unapproximated; later steps lower those to libm.
    (void)applyPatternsAndFoldGreedily(getOperation(), std::move(patterns));
  }
};

struct LowerVectorContractPass
    : public PassWrapper<LowerVectorContractPass,
                         OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(LowerVectorContractPass)

  StringRef getArgument() const final { return "mqss-lower-vector-contract"; }
  StringRef getDescription() const final {
    return "Lower vector.contract to outer products and FMAs, and permuted "
           "vector transfers to minor-identity ones";
  }
  void getDependentDialects(DialectRegistry &registry) const final {
    registry.insert<arith::ArithDialect, vector::VectorDialect>();
  }
  void runOnOperation() final {
    RewritePatternSet patterns(&getContext());
    vector::VectorTransformsOptions options;
    options.setVectorTransformsOptions(
        vector::VectorContractLowering::OuterProduct);
    vector::populateVectorContractLoweringPatterns(patterns, options);
    vector::populateVectorOuterProductLoweringPatterns(patterns);
    vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
    // As above: whatever is left, convert-vector-to-llvm still lowers.
    (void)applyPatternsAndFoldGreedily(getOperation(), std::move(patterns));
  }
};

struct DecomposeAggregatesPass
    : public PassWrapper<DecomposeAggregatesPass,
                         OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(DecomposeAggregatesPass)

  StringRef getArgument() const final { return "mqss-decompose-aggregates"; }
  StringRef getDescription() const final {
    return "Decompose aggregate linalg ops (linalg.softmax) into the "
           "linalg.generic ops they stand for";
  }
  void getDependentDialects(DialectRegistry &registry) const final {
    registry.insert<arith::ArithDialect, linalg::LinalgDialect,
                    math::MathDialect, tensor::TensorDialect>();
  }
  void runOnOperation() final {
    SmallVector<linalg::AggregatedOpInterface> ops;
    getOperation().walk(
        [&](linalg::AggregatedOpInterface op) { ops.push_back(op); });
    IRRewriter rewriter(&getContext());
    for (linalg::AggregatedOpInterface op : ops) {
      rewriter.setInsertionPoint(op);
      FailureOr<SmallVector<Value>> repl = op.decomposeOperation(rewriter);
      if (failed(repl) || repl->size() != op->getNumResults()) {
        op->emitOpError("cannot be decomposed (mqss-decompose-aggregates); "
                        "give it tensor operands");
        return signalPassFailure();
      }
      rewriter.replaceOp(op, *repl);
    }
  }
};

struct FlatOuterParallelPass
    : public PassWrapper<FlatOuterParallelPass,
                         OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(FlatOuterParallelPass)

  FlatOuterParallelPass() = default;
  FlatOuterParallelPass(const FlatOuterParallelPass &other)
      : PassWrapper(other) {}

  StringRef getArgument() const final { return "mqss-flat-outer-parallel"; }
  StringRef getDescription() const final {
    return "Turn scf.parallel loops with reductions or nested in another "
           "loop into scf.for loops, and the others into one-dimensional "
           "loops";
  }
  void getDependentDialects(DialectRegistry &registry) const final {
    registry.insert<scf::SCFDialect>();
  }
  // The loop becomes an scf.for nest that carries the partial results of
  // its reductions, combined in iteration order by its reduce regions.
  static void make_sequential(IRRewriter &rewriter, scf::ParallelOp op) {
    rewriter.setInsertionPoint(op);
    auto body = [&](OpBuilder &b, Location, ValueRange ivs,
                    ValueRange acc) -> scf::ValueVector {
      IRMapping map;
      map.map(op.getInductionVars(), ivs);
      for (Operation &inner : op.getBody()->without_terminator())
        b.clone(inner, map);
      auto reduce = cast<scf::ReduceOp>(op.getBody()->getTerminator());
      scf::ValueVector next;
      for (unsigned k = 0; k < reduce.getNumOperands(); k++) {
        Block &combine = reduce.getReductions()[k].front();
        map.map(combine.getArgument(0), acc[k]);
        map.map(combine.getArgument(1),
                map.lookupOrDefault(reduce.getOperands()[k]));
        for (Operation &inner : combine.without_terminator())
          b.clone(inner, map);
        auto ret = cast<scf::ReduceReturnOp>(combine.getTerminator());
        next.push_back(map.lookupOrDefault(ret.getResult()));
      }
      return next;
    };
    scf::LoopNest nest = scf::buildLoopNest(
        rewriter, op.getLoc(), op.getLowerBound(), op.getUpperBound(),
        op.getStep(), op.getInitVals(), body);
    rewriter.replaceOp(op, nest.results);
  }

  Option<bool> inSerialLoops{
      *this, "in-serial-loops",
      llvm::cl::desc("keep a parallel loop that only sequential loops "
                     "enclose parallel: its team starts on every trip of "
                     "the loops around it (a stencil's sweeps inside its "
                     "time loop)"),
      llvm::cl::init(false)};

  // Whether a loop runs sequentially even without reductions: another loop
  // encloses it, or with in-serial-loops another parallel loop does.
  bool enclosed(Operation *op) const {
    return inSerialLoops ? op->getParentOfType<scf::ParallelOp>() != nullptr
                         : op->getParentOfType<LoopLikeOpInterface>() != nullptr;
  }

  void runOnOperation() final {
    IRRewriter rewriter(&getContext());
    // Post-order: an inner loop is rewritten before the loop around it,
    // whose body then carries the new scf.for nest along.
    SmallVector<scf::ParallelOp> serial;
    getOperation().walk([&](scf::ParallelOp op) {
      if (op.getNumLoops() > 0 &&
          (op.getNumReductions() > 0 || enclosed(op)))
        serial.push_back(op);
    });
    for (scf::ParallelOp op : serial)
      make_sequential(rewriter, op);
    SmallVector<scf::ParallelOp> outer;
    getOperation().walk([&](scf::ParallelOp op) {
      if (op.getNumLoops() > 1 && !enclosed(op))
        outer.push_back(op);
    });
    for (scf::ParallelOp op : outer) {
      std::vector<unsigned> all(op.getNumLoops());
      for (unsigned d = 0; d < all.size(); d++)
        all[d] = d;
      collapseParallelLoops(rewriter, op, {all});
    }
  }
};

// An scf.for loop becomes an scf.parallel loop when its iterations cannot
// touch the same memory: it carries no values from one iteration to the
// next, every op inside it says what memory it reads and writes (no calls),
// and each memref it writes is accessed in it by plain loads and stores
// only, all of which index one dimension by the loop's induction variable
// itself (y[i], Y[i, j]), so that each iteration has its own elements.
// Memrefs it only reads, and buffers allocated inside it, are free. As
// affine-parallelize does, it takes distinct memref values that are not
// views of each other for distinct buffers (function arguments,
// allocations, globals; a loop that touches memory of any other origin
// stays). Only the outermost such loop
// of a nest is converted. This is what the scf loops of sparse and
// irregular kernels lack: affine-parallelize sees affine.for only, and a
// CSR row loop (its inner bounds loaded from memory) is never affine.
struct ScfParallelizePass
    : public PassWrapper<ScfParallelizePass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(ScfParallelizePass)

  ScfParallelizePass() = default;
  ScfParallelizePass(const ScfParallelizePass &other) : PassWrapper(other) {}

  StringRef getArgument() const final { return "mqss-scf-parallelize"; }
  StringRef getDescription() const final {
    return "Turn scf.for loops whose iterations access disjoint memory "
           "into scf.parallel loops";
  }
  void getDependentDialects(DialectRegistry &registry) const final {
    registry.insert<scf::SCFDialect>();
  }

  Option<int64_t> minWork{
      *this, "min-work",
      llvm::cl::desc("leave a loop sequential when it and the loops inside "
                     "it run fewer static iterations than this (0 = none)"),
      llvm::cl::init(0)};

  struct Access {
    Operation *op;
    Value memref;
    bool write;
  };

  // The buffer a memref value reaches through views (subview, cast, ...):
  // a function argument, an allocation, or a global (the first
  // memref.get_global of its name stands for all of them); null when it is
  // none of these (a call's result, a memref loaded from memory), whose
  // aliasing the pass does not know.
  static Value root_of(Value v, llvm::StringMap<Value> &globals) {
    while (auto view = v.getDefiningOp<ViewLikeOpInterface>())
      v = view.getViewSource();
    if (auto arg = dyn_cast<BlockArgument>(v))
      return isa<func::FuncOp>(arg.getOwner()->getParentOp()) ? v : Value();
    if (auto global = v.getDefiningOp<memref::GetGlobalOp>())
      return globals.try_emplace(global.getName(), v).first->second;
    return hasSingleEffect<MemoryEffects::Allocate>(v.getDefiningOp(), v)
               ? v : Value();
  }

  // The memory effects of every op in the loop's body; false when an op's
  // effects are unknown or not tied to a value (a call, a barrier).
  static bool collect(scf::ForOp loop, SmallVectorImpl<Access> &out) {
    WalkResult walk = loop.getBody()->walk([&](Operation *op) {
      if (op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
        return WalkResult::advance();
      auto iface = dyn_cast<MemoryEffectOpInterface>(op);
      if (!iface)
        return WalkResult::interrupt();
      SmallVector<MemoryEffects::EffectInstance> effects;
      iface.getEffects(effects);
      for (MemoryEffects::EffectInstance &e : effects) {
        if (!e.getValue())
          return WalkResult::interrupt();
        if (!isa<MemoryEffects::Allocate>(e.getEffect()))
          out.push_back({op, e.getValue(),
                         !isa<MemoryEffects::Read>(e.getEffect())});
      }
      return WalkResult::advance();
    });
    return !walk.wasInterrupted();
  }

  // Whether buf is allocated by an op inside the loop: each iteration has
  // its own.
  static bool private_to(scf::ForOp loop, Value buf) {
    Operation *def = buf.getDefiningOp();
    return def && loop->isProperAncestor(def) &&
           hasSingleEffect<MemoryEffects::Allocate>(def, buf);
  }

  // The dimensions that an access indexes by iv itself, as a bit mask;
  // 0 when it is not a load or store of buf directly.
  static uint64_t iv_dims(Operation *op, Value buf, Value iv) {
    ValueRange indices;
    if (auto load = dyn_cast<memref::LoadOp>(op); load && load.getMemRef() == buf)
      indices = load.getIndices();
    else if (auto store = dyn_cast<memref::StoreOp>(op);
             store && store.getMemRef() == buf)
      indices = store.getIndices();
    uint64_t dims = 0;
    for (unsigned d = 0; d < indices.size() && d < 64; d++)
      if (indices[d] == iv)
        dims |= uint64_t(1) << d;
    return dims;
  }

  static bool independent(scf::ForOp loop) {
    if (loop.getNumRegionIterArgs() > 0 ||
        !loop.getInductionVar().getType().isIndex())
      return false;
    SmallVector<Access> accesses;
    if (!collect(loop, accesses))
      return false;
    llvm::StringMap<Value> globals;
    SmallVector<Value> roots;
    llvm::SmallDenseMap<Value, uint64_t> shared; // written buffer -> dims
    for (Access &a : accesses) {
      if (!isa<BaseMemRefType>(a.memref.getType()))
        return false;
      Value buf = root_of(a.memref, globals);
      if (!buf)
        return false;
      if (!private_to(loop, buf) && a.write)
        shared[buf] = ~uint64_t(0);
      roots.push_back(buf);
    }
    for (auto [a, buf] : llvm::zip(accesses, roots)) {
      auto it = shared.find(buf);
      if (it != shared.end())
        it->second &= a.memref == buf
                          ? iv_dims(a.op, buf, loop.getInductionVar()) : 0;
    }
    for (auto &entry : shared)
      if (entry.second == 0)
        return false;
    return true;
  }

  static void make_parallel(IRRewriter &rewriter, scf::ForOp loop) {
    rewriter.setInsertionPoint(loop);
    auto par = rewriter.create<scf::ParallelOp>(
        loop.getLoc(), ValueRange{loop.getLowerBound()},
        ValueRange{loop.getUpperBound()}, ValueRange{loop.getStep()});
    Block *body = par.getBody();
    rewriter.eraseOp(body->getTerminator());
    rewriter.eraseOp(loop.getBody()->getTerminator());
    rewriter.mergeBlocks(loop.getBody(), body, par.getInductionVars());
    rewriter.setInsertionPointToEnd(body);
    rewriter.create<scf::ReduceOp>(loop.getLoc());
    rewriter.eraseOp(loop);
  }

  void runOnOperation() final {
    SmallVector<scf::ForOp> loops;
    getOperation().walk<WalkOrder::PreOrder>([&](scf::ForOp loop) {
      double work = parallel_static_work(wrap(loop.getOperation()));
      if (work >= 0 && work < double(minWork))
        return WalkResult::skip(); // the loops inside it do less still
      if (!independent(loop))
        return WalkResult::advance();
      loops.push_back(loop);
      return WalkResult::skip();
    });
    IRRewriter rewriter(&getContext());
    for (scf::ForOp loop : loops)
      make_parallel(rewriter, loop);
  }
};

// Each memref.alloca_scope becomes its body between llvm.intr.stacksave and
// llvm.intr.stackrestore, what its LLVM lowering makes of it, but while the
// body is still one block: once convert-scf-to-cf has made blocks of the
// loops inside it, the scope no longer verifies. convert-scf-to-openmp
// wraps every loop body in one.
struct ExpandAllocaScopesPass
    : public PassWrapper<ExpandAllocaScopesPass,
                         OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(ExpandAllocaScopesPass)

  StringRef getArgument() const final { return "mqss-expand-alloca-scopes"; }
  StringRef getDescription() const final {
    return "Replace memref.alloca_scope by its body between a stack save "
           "and a stack restore";
  }
  void getDependentDialects(DialectRegistry &registry) const final {
    registry.insert<LLVM::LLVMDialect>();
  }
  void runOnOperation() final {
    SmallVector<memref::AllocaScopeOp> scopes; // post-order: inner first
    getOperation().walk([&](memref::AllocaScopeOp op) {
      if (op.getBodyRegion().hasOneBlock())
        scopes.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (memref::AllocaScopeOp op : scopes) {
      Location loc = op.getLoc();
      rewriter.setInsertionPoint(op);
      Value saved = rewriter.create<LLVM::StackSaveOp>(
          loc, LLVM::LLVMPointerType::get(&getContext()));
      Block *body = &op.getBodyRegion().front();
      Operation *ret = body->getTerminator();
      SmallVector<Value> results(ret->getOperands());
      rewriter.eraseOp(ret);
      rewriter.inlineBlockBefore(body, op);
      rewriter.create<LLVM::StackRestoreOp>(loc, saved);
      rewriter.replaceOp(op, results);
    }
  }
};

// Sets prefer-vector-width and min-legal-vector-width to `bits` in the
// function's passthrough list (LLVM reads both per function: X86 then
// splits wider vectors into registers of that width), keeping its other
// entries.
struct VectorWidthPass
    : public PassWrapper<VectorWidthPass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(VectorWidthPass)

  VectorWidthPass() = default;
  VectorWidthPass(const VectorWidthPass &other) : PassWrapper(other) {}

  StringRef getArgument() const final { return "mqss-vector-width"; }
  StringRef getDescription() const final {
    return "Cap the vector register width LLVM uses for a function's "
           "vector ops";
  }
  Option<unsigned> bits{*this, "bits",
                        llvm::cl::desc("widest vector register, in bits"),
                        llvm::cl::init(256)};

  void runOnOperation() final {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    if (bits < 64 || (bits & (bits - 1))) {
      func.emitError() << "mqss-vector-width: bits must be a power of two "
                          "of at least 64, not " << bits.getValue();
      return signalPassFailure();
    }
    MLIRContext *ctx = &getContext();
    static const char *const keys[] = {"prefer-vector-width",
                                       "min-legal-vector-width"};
    SmallVector<Attribute> entries;
    if (auto old = func->getAttrOfType<ArrayAttr>("passthrough"))
      for (Attribute a : old) {
        auto pair = dyn_cast<ArrayAttr>(a);
        auto key = pair && pair.size() == 2
                       ? dyn_cast<StringAttr>(pair[0]) : StringAttr();
        if (!key || (key.getValue() != keys[0] && key.getValue() != keys[1]))
          entries.push_back(a);
      }
    StringAttr value = StringAttr::get(ctx, std::to_string(bits));
    for (const char *key : keys)
      entries.push_back(ArrayAttr::get(ctx, {StringAttr::get(ctx, key), value}));
    func->setAttr("passthrough", ArrayAttr::get(ctx, entries));
  }
};

} // namespace

// Called once per process (session.c) after mlirRegisterAllPasses.
extern "C" void register_cxx_passes(void) {
  PassRegistration<MathApproxPass>();
  PassRegistration<LowerVectorContractPass>();
  PassRegistration<DecomposeAggregatesPass>();
  PassRegistration<FlatOuterParallelPass>();
  PassRegistration<ScfParallelizePass>();
  PassRegistration<ExpandAllocaScopesPass>();
  PassRegistration<VectorWidthPass>();
}
