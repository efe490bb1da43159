//===-- plugin/mqss_plugin.cpp - the mqss-select MLIR pass plugin ---------===//
//
// An MLIR pass plugin for mlir-opt-19 (--load-pass-plugin) that registers one
// pass, `mqss-select`: the policy chooses a pipeline for the module, the
// pipeline runs, and the module goes on through the rest of the user's
// pipeline. This is the project's only C++ besides src/ir/cxx_passes.cpp and
// a thin shim: every decision is made by the C library (include/mqss/mqss.h).
//
// Two copies of MLIR. mlir-opt-19 links MLIR statically and exports its
// symbols; libmqss.so uses libMLIR.so. Linking the plugin against libmqss
// would let the dynamic linker bind half of libMLIR.so's calls to mlir-opt's
// copy (libMLIR.so is not -Bsymbolic). So the plugin links no MLIR library
// of its own (its MLIR calls bind to the host), and opens libmqss.so from its
// own directory with RTLD_DEEPBIND, which keeps libMLIR.so bound to itself.
// The module crosses between the two copies as text with its locations:
// printed by the host, parsed, selected and transformed by libmqss, printed
// again and parsed back into the host's context, replacing the body in place.
//
// What it deliberately is not: a policy runtime. A fallback pipeline, when
// given, runs in the host's own pass manager.
//
//===----------------------------------------------------------------------===//

#include "mqss/mqss.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cstdlib>
#include <dlfcn.h>
#include <memory>
#include <string>

using namespace mlir;

namespace {

// ----------------------------------------------------------------------------
// the C API, resolved from libmqss.so

#define MQSS_PLUGIN_API(X)                                                     \
  X(mqss_session_create) X(mqss_session_destroy) X(mqss_errmsg)                \
  X(mqss_module_parse_string) X(mqss_module_destroy) X(mqss_module_hash)       \
  X(mqss_module_run_pipeline) X(mqss_module_to_string_with_locations)          \
  X(mqss_policy_options_init) X(mqss_policy_load) X(mqss_policy_destroy)       \
  X(mqss_select_options_init) X(mqss_policy_select) X(mqss_selection_destroy)  \
  X(mqss_selection_pipeline) X(mqss_selection_count)                           \
  X(mqss_selection_budget_hit) X(mqss_selection_notes)                         \
  X(mqss_metrics_record_init) X(mqss_metrics_append)

struct Api {
#define MQSS_API_FIELD(name) decltype(&::name) name = nullptr;
  MQSS_PLUGIN_API(MQSS_API_FIELD)
#undef MQSS_API_FIELD
  std::string error; // why the library could not be loaded; "" when it was
};

// The directory this plugin was loaded from, with a trailing '/'.
std::string pluginDir() {
  Dl_info info;
  if (!dladdr(reinterpret_cast<void *>(&pluginDir), &info) || !info.dli_fname)
    return "";
  std::string path = info.dli_fname;
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash + 1);
}

Api loadApi() {
  Api api;
  std::string path = pluginDir() + "libmqss.so.0";
  void *lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
  if (!lib) {
    const char *why = dlerror();
    api.error = "cannot load the MQSS-Selector library '" + path +
                "': " + (why ? why : "unknown error") +
                "; keep libmqss.so.0 next to the plugin";
    return api;
  }
#define MQSS_API_LOOKUP(name)                                                  \
  api.name = reinterpret_cast<decltype(&::name)>(dlsym(lib, #name));           \
  if (!api.name && api.error.empty())                                          \
    api.error = "'" + path + "' lacks " #name "; rebuild the plugin with it";
  MQSS_PLUGIN_API(MQSS_API_LOOKUP)
#undef MQSS_API_LOOKUP
  return api;
}

const Api &api() {
  static const Api loaded = loadApi(); // once, thread-safe
  return loaded;
}

// Owning handles of the C API.
template <typename T> struct Deleter {
  void (*destroy)(T *);
  void operator()(T *p) const { destroy(p); }
};
template <typename T> using Owned = std::unique_ptr<T, Deleter<T>>;
struct FreeDeleter {
  void operator()(char *p) const { std::free(p); }
};

double msSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - t0)
      .count();
}

// ----------------------------------------------------------------------------
// the pass

struct MqssSelectPass
    : public PassWrapper<MqssSelectPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(MqssSelectPass)

  MqssSelectPass() = default;
  MqssSelectPass(const MqssSelectPass &other) : PassWrapper(other) {}

  StringRef getArgument() const final { return "mqss-select"; }
  StringRef getDescription() const final {
    return "Select a pass pipeline for the module with an MQSS-Selector "
           "policy and run it in place";
  }

  Option<std::string> policy{
      *this, "policy",
      llvm::cl::desc("Policy file (.safetensors); default $MQSS_POLICY, else "
                     "the source tree's models/default.safetensors"),
      llvm::cl::init("")};
  Option<int> maxSteps{*this, "max-steps",
                       llvm::cl::desc("Decisions at most (0: the policy's "
                                      "episode length)"),
                       llvm::cl::init(0)};
  Option<std::string> fallback{
      *this, "fallback",
      llvm::cl::desc("Pipeline to run when selection fails (anchored "
                     "builtin.module(...) or a bare list); none: fail"),
      llvm::cl::init("")};
  Option<std::string> metrics{
      *this, "metrics",
      llvm::cl::desc("Append one JSON line per module to this file"),
      llvm::cl::init("")};
  Option<int> timeBudgetMs{
      *this, "time-budget-ms",
      llvm::cl::desc("Start no selection step after this many ms and keep "
                     "the decisions so far (-1: none)"),
      llvm::cl::init(-1)};

  void runOnOperation() override;

private:
  // Emits `message` as an error on the module and fails the pass.
  void failWith(const Twine &message) {
    getOperation().emitError("mqss-select: ") << message;
    signalPassFailure();
  }
  LogicalResult runFallback(std::string &why);
  LogicalResult replaceBody(const char *text, std::string &why);
};

// Runs the fallback pipeline in the host's pass manager. The dialects its
// passes create are loaded first: a pipeline nested in a running pass gets
// no dialect loading of its own.
LogicalResult MqssSelectPass::runFallback(std::string &why) {
  StringRef text = StringRef(fallback).trim();
  OpPassManager pm(ModuleOp::getOperationName());
  llvm::raw_string_ostream err(why);
  if (text.starts_with("builtin.module(")) {
    FailureOr<OpPassManager> parsed = parsePassPipeline(text, err);
    if (failed(parsed))
      return failure();
    pm = std::move(*parsed);
  } else if (failed(parsePassPipeline(text, pm, err))) {
    return failure();
  }
  DialectRegistry registry;
  pm.getDependentDialects(registry);
  getContext().appendDialectRegistry(registry);
  for (StringRef name : registry.getDialectNames())
    getContext().getOrLoadDialect(name);
  return runPipeline(pm, getOperation());
}

// Parses `text` in the host's context and moves its body and attributes
// into the module being processed.
LogicalResult MqssSelectPass::replaceBody(const char *text, std::string &why) {
  ParserConfig config(&getContext());
  OwningOpRef<ModuleOp> fresh = parseSourceString<ModuleOp>(text, config);
  if (!fresh) {
    why = "the transformed module does not parse in mlir-opt's context (the "
          "diagnostics above say where)";
    return failure();
  }
  ModuleOp module = getOperation();
  module.getBody()->clear();
  module.getBody()->getOperations().splice(module.getBody()->end(),
                                           fresh->getBody()->getOperations());
  module->setAttrs(fresh.get()->getAttrDictionary());
  return success();
}

void MqssSelectPass::runOnOperation() {
  const Api &c = api();
  if (!c.error.empty())
    return failWith(c.error);
  ModuleOp module = getOperation();
  std::string source = "<mqss-select>";
  if (auto loc = dyn_cast<FileLineColLoc>(module.getLoc()))
    source = loc.getFilename().str();

  mqss_session *raw = nullptr;
  if (c.mqss_session_create(&raw) != MQSS_OK)
    return failWith("out of memory");
  Owned<mqss_session> session(raw, {c.mqss_session_destroy});
  mqss_session *s = session.get();

  // The policy: a missing or incompatible one is an error, fallback or not.
  mqss_policy_options po;
  c.mqss_policy_options_init(&po);
  mqss_policy *rawPolicy = nullptr;
  if (c.mqss_policy_load(s, policy.empty() ? nullptr : policy.c_str(), &po,
                         &rawPolicy) != MQSS_OK)
    return failWith(c.mqss_errmsg(s));
  Owned<mqss_policy> pol(rawPolicy, {c.mqss_policy_destroy});

  // The module, across to libmqss's MLIR as text with its locations.
  std::string text;
  {
    llvm::raw_string_ostream os(text);
    module->print(os, OpPrintingFlags().enableDebugInfo());
  }
  mqss_module *rawModule = nullptr;
  if (c.mqss_module_parse_string(s, text.data(), text.size(), source.c_str(),
                                 &rawModule) != MQSS_OK)
    return failWith(Twine("cannot read the module: ") + c.mqss_errmsg(s));
  Owned<mqss_module> m(rawModule, {c.mqss_module_destroy});
  uint64_t hash = c.mqss_module_hash(m.get());

  // Select, then run the choice on libmqss's copy of the module.
  mqss_select_options so;
  c.mqss_select_options_init(&so);
  so.max_steps = maxSteps;
  so.time_budget_ms = timeBudgetMs;
  // Candidate passes run in a forked child, so one that crashes is avoided
  // instead of taking the compiler down (as mqss select and mqss-opt do).
  so.isolate = 1;
  auto t0 = std::chrono::steady_clock::now();
  mqss_selection *rawSel = nullptr;
  mqss_status rc = c.mqss_policy_select(pol.get(), m.get(), &so, &rawSel);
  double decisionMs = msSince(t0);
  Owned<mqss_selection> sel(rawSel, {c.mqss_selection_destroy});
  std::string chosen = sel ? c.mqss_selection_pipeline(sel.get()) : "";
  const char *avoided = sel ? c.mqss_selection_notes(sel.get()) : "";
  if (*avoided)
    module.emitWarning("mqss-select: a crashing step was avoided: ")
        << StringRef(avoided).rtrim();
  std::string why;
  auto t1 = std::chrono::steady_clock::now();
  if (rc != MQSS_OK) {
    why = std::string("selection failed: ") + c.mqss_errmsg(s);
  } else if (c.mqss_module_run_pipeline(m.get(), chosen.c_str()) != MQSS_OK) {
    why = std::string("the chosen pipeline failed: ") + c.mqss_errmsg(s);
  } else {
    std::unique_ptr<char, FreeDeleter> out(
        c.mqss_module_to_string_with_locations(m.get()));
    if (!out)
      return failWith("out of memory");
    if (failed(replaceBody(out.get(), why)))
      return failWith(why); // the body is untouched: nothing to fall back from
  }

  // Selection failed: the fallback, or an error.
  bool usedFallback = !why.empty();
  if (usedFallback && fallback.empty())
    return failWith(why + "; give a fallback pipeline (fallback=...) to run "
                          "in its place");
  if (usedFallback) {
    module.emitWarning("mqss-select: ")
        << why << "; running the fallback '" << fallback << "'";
    std::string err;
    if (failed(runFallback(err)))
      return failWith("the fallback pipeline '" + fallback + "' failed" +
                      (err.empty() ? "" : ": " + err));
  }
  double compileMs = msSince(t1);

  if (metrics.empty())
    return;
  mqss_metrics_record r;
  c.mqss_metrics_record_init(&r);
  r.tool = "mqss-plugin";
  r.source = source.c_str();
  r.module_hash = hash;
  r.selector = 1;
  r.chosen = sel ? chosen.c_str() : nullptr;
  r.decisions = sel ? c.mqss_selection_count(sel.get()) : 0;
  r.pipeline = usedFallback ? fallback.c_str() : chosen.c_str();
  r.decision_ms = decisionMs;
  r.fallback = usedFallback;
  r.fallback_reason = usedFallback ? why.c_str() : nullptr;
  r.time_budget_ms = timeBudgetMs;
  r.budget_hit = sel ? c.mqss_selection_budget_hit(sel.get()) : 0;
  r.compile_ms = compileMs;
  if (c.mqss_metrics_append(s, metrics.c_str(), &r) != MQSS_OK)
    return failWith(c.mqss_errmsg(s));
}

} // namespace

// ----------------------------------------------------------------------------
// the plugin's entry point

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "mqss-select", MQSS_VERSION,
          [] { PassRegistration<MqssSelectPass>(); }};
}
