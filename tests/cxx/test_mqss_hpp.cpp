// Tests of the C++ wrapper include/mqss/mqss.hpp, built twice: with
// exceptions (test_mqss_hpp) and with -fno-exceptions (test_mqss_hpp_noexcept,
// as LLVM-based compilers build). Every figure is checked against the C API
// called directly on the same input, so the wrapper cannot merely echo
// itself: the three-line integration, results and errors (status and
// message), exceptions, lifetimes (a module outliving its session variable,
// a selection outliving its policy variable) and a guarded compile.
#include "mqss/mqss.hpp"

#include <cstdio>
#include <cstring>
#include <string>

#ifndef MQSS_SOURCE_DIR
#error "MQSS_SOURCE_DIR must name the source tree"
#endif

static int failures = 0, checks = 0;

#define CHECK(cond)                                                            \
  do {                                                                         \
    checks++;                                                                  \
    if (!(cond)) {                                                             \
      std::fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__,    \
                   #cond);                                                     \
      failures++;                                                              \
    }                                                                          \
  } while (0)
#define CHECK_EQ_STR(a, b)                                                     \
  do {                                                                         \
    std::string a_ = (a), b_ = (b);                                            \
    checks++;                                                                  \
    if (a_ != b_) {                                                            \
      std::fprintf(stderr, "%s:%d: '%s' != '%s' (%s vs %s)\n", __FILE__,       \
                   __LINE__, a_.c_str(), b_.c_str(), #a, #b);                  \
      failures++;                                                              \
    }                                                                          \
  } while (0)

static const std::string kMatmul = MQSS_SOURCE_DIR "/examples/matmul_tensor_f32.mlir";
static const std::string kPolicy = MQSS_SOURCE_DIR "/models/default.safetensors";

// The pipeline and decision count the C API gives for `path`.
static std::string c_select(const std::string &path, int *count) {
  mqss_session *s = nullptr;
  mqss_module *m = nullptr;
  mqss_policy *p = nullptr;
  mqss_selection *sel = nullptr;
  std::string out = "(C API failed)";
  if (mqss_session_create(&s) == MQSS_OK &&
      mqss_module_parse_file(s, path.c_str(), &m) == MQSS_OK &&
      mqss_policy_load(s, kPolicy.c_str(), nullptr, &p) == MQSS_OK &&
      mqss_policy_select(p, m, nullptr, &sel) == MQSS_OK) {
    out = mqss_selection_pipeline(sel);
    *count = mqss_selection_count(sel);
  }
  mqss_selection_destroy(sel);
  mqss_policy_destroy(p);
  mqss_module_destroy(m);
  mqss_session_destroy(s);
  return out;
}

static void test_three_lines() {
  int c_count = -1;
  std::string want = c_select(kMatmul, &c_count);

  mqss::session s = mqss::session::create().value();
  mqss::policy p = s.load_policy(kPolicy).value();
  std::string pipeline = p.select(s.parse_file(kMatmul).value()).value().pipeline();

  CHECK_EQ_STR(pipeline, want);
  CHECK(pipeline.rfind("builtin.module(", 0) == 0);
  CHECK(c_count > 0); // the policy does something on a matmul

  mqss::selection sel = p.select(s.parse_file(kMatmul).value()).value();
  CHECK(sel.size() == c_count);
  for (int i = 0; i < sel.size(); i++) {
    CHECK(!sel.action_name(i).empty());
    // Module-level steps are anchored on builtin.module, the rest nest in it.
    std::string step = sel.step_pipeline(i), anchor = "builtin.module(";
    if (step.rfind(anchor, 0) == 0)
      step = step.substr(anchor.size(), step.size() - anchor.size() - 1);
    CHECK(!step.empty() && pipeline.find(step) != std::string::npos);
  }
  CHECK_EQ_STR(sel.action_name(sel.size()), "");
  // The odds: one record per decision (a matmul has no repeats), and the
  // STOP's when it stopped; the same numbers as the C accessor.
  for (int i = 0; i <= sel.size(); i++) {
    mqss::selection::odds o = sel.odds_at(i);
    float p0 = -1;
    int n = mqss_selection_odds(sel.get(), i, 0, &p0, nullptr, nullptr);
    CHECK(o.p == (n < 0 ? -1.0f : p0));
    if (i < sel.size() || sel.stopped())
      CHECK(o.p > 0 && o.p <= 1 && !o.alternatives.empty());
    for (const auto &alt : o.alternatives)
      CHECK(!alt.first.empty() && alt.second <= o.p);
  }
  CHECK(sel.odds_at(sel.size() + 1).p < 0);
  CHECK_EQ_STR(p.mlir_version(), mqss_mlir_version());
}

static void test_errors() {
  mqss::session s = mqss::session::create().value();

  auto missing = s.parse_file("/nonexistent/k.mlir");
  CHECK(!missing.ok() && !missing);
  CHECK(missing.status() == MQSS_ERR_IO);
  CHECK(missing.error().message.find("/nonexistent/k.mlir") != std::string::npos);

  auto bad = s.parse_string("func.func @f() {\n  %x = arith.addi %y, %y : i32\n}\n",
                            "bad.mlir");
  CHECK(bad.status() == MQSS_ERR_PARSE);
  CHECK(bad.error().message.find("bad.mlir:2:") != std::string::npos);
  // The message was copied: a later success does not change it.
  auto good = s.parse_string("module {}", "good.mlir");
  CHECK(good.ok() && good.status() == MQSS_OK && good.error().message.empty());
  CHECK(bad.error().message.find("bad.mlir:2:") != std::string::npos);

  mqss::module m = std::move(good).value();
  auto r = m.run_pipeline("canonicalize,no-such-pass");
  CHECK(r.status() == MQSS_ERR_PIPELINE);
  CHECK(r.error().message.find("no-such-pass") != std::string::npos);
  CHECK(m.run_pipeline("canonicalize").ok());

  auto pol = s.load_policy("/nonexistent/policy.safetensors");
  CHECK(pol.status() == MQSS_ERR_IO);

#if MQSS_HPP_EXCEPTIONS
  bool thrown = false;
  try {
    s.parse_file("/nonexistent/k.mlir").value();
  } catch (const mqss::error &e) {
    thrown = e.status() == MQSS_ERR_IO &&
             std::strstr(e.what(), "/nonexistent/k.mlir") != nullptr;
  }
  CHECK(thrown);
  thrown = false;
  try {
    m.run_pipeline("no-such-pass").value();
  } catch (const mqss::error &e) {
    thrown = e.status() == MQSS_ERR_PIPELINE;
  }
  CHECK(thrown);
#endif
}

// Handles outlive the variables they came from; ASan checks the order.
static void test_lifetimes() {
  mqss::module m = [] {
    mqss::session s = mqss::session::create().value();
    return s.parse_file(kMatmul).value();
  }(); // the session variable is gone; the module keeps the session
  mqss_session *cs = nullptr;
  mqss_module *cm = nullptr;
  CHECK(mqss_session_create(&cs) == MQSS_OK &&
        mqss_module_parse_file(cs, kMatmul.c_str(), &cm) == MQSS_OK);
  CHECK(m.hash() == mqss_module_hash(cm));
  mqss_module_destroy(cm);
  mqss_session_destroy(cs);

  mqss::module copy = m.clone().value();
  CHECK(copy.hash() == m.hash());
  CHECK(copy.finish().ok());
  CHECK(copy.str().find("llvm.func") != std::string::npos);
  CHECK(copy.hash() != m.hash());
  CHECK(m.str().find("linalg.matmul") != std::string::npos);

  mqss::selection sel = [&] {
    mqss::session s = mqss::session::create().value();
    mqss::policy p = s.load_policy(kPolicy).value();
    return p.select(m).value();
  }(); // policy and session variables gone; the action names stay valid
  CHECK(sel.size() > 0);
  CHECK(!sel.action_name(0).empty());
}

// The guarded path: the module ends in the LLVM dialect and the report
// names the pipeline that was used.
static void test_compile_guarded() {
  mqss::session s = mqss::session::create().value();
  mqss::policy p = s.load_policy(kPolicy).value();
  mqss::module m = s.parse_file(kMatmul).value();
  mqss_guard_options go;
  mqss_guard_options_init(&go);
  go.mem_limit_mb = 0; // sanitizer runtimes reserve huge address ranges
  auto rep = p.compile_guarded(m, nullptr, &go);
  CHECK(rep.ok());
  if (rep.ok()) {
    int c_count = 0;
    CHECK_EQ_STR(rep.value().chosen, c_select(kMatmul, &c_count));
    CHECK(rep.value().verdict == MQSS_MEASURE_OK);
    CHECK(!rep.value().used_fallback);
    CHECK_EQ_STR(rep.value().used, rep.value().chosen);
  }
  CHECK(m.str().find("llvm.func") != std::string::npos);
  CHECK(m.str().find("linalg.") == std::string::npos);
}

int main() {
#if MQSS_HPP_EXCEPTIONS
  try {
#endif
    test_three_lines();
    test_errors();
    test_lifetimes();
    test_compile_guarded();
#if MQSS_HPP_EXCEPTIONS
  } catch (const mqss::error &e) {
    std::fprintf(stderr, "unexpected mqss::error (status %d): %s\n",
                 (int)e.status(), e.what());
    failures++;
  }
#endif
  std::printf("%d checks, %d failed (exceptions %s)\n", checks, failures,
              MQSS_HPP_EXCEPTIONS ? "on" : "off");
  return failures ? 1 : 0;
}
