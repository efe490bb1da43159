/*===-- mqss/mqss.hpp - MQSS-Selector C++ wrapper -------------------------===*\
|*                                                                            *|
|* A header-only C++17 face over the C API of mqss/mqss.h, for compilers      *|
|* written in C++. It adds ownership and nothing else: every call forwards    *|
|* to one C function, and the C header stays the contract (behaviour,         *|
|* status codes, lifetimes).                                                  *|
|*                                                                            *|
|*  - Handles are RAII objects. A module keeps its session alive and a        *|
|*    selection keeps its policy alive, so destruction order never matters.   *|
|*    session and policy are shared handles (copying shares); module and      *|
|*    selection are move-only.                                                *|
|*  - Fallible calls return mqss::result<T>, an expected-style value: test    *|
|*    ok() and read error(), or call value(), which throws mqss::error on     *|
|*    failure. Built with -fno-exceptions (as LLVM is), value() on a failed   *|
|*    result calls std::abort(): test ok() first.                             *|
|*  - Error messages are copied out of the session when the call fails.       *|
|*                                                                            *|
|* Three lines to integrate:                                                  *|
|*                                                                            *|
|*   mqss::session s = mqss::session::create().value();                       *|
|*   mqss::policy p = s.load_policy().value();  // models/default.safetensors *|
|*   std::string pipeline = p.select(s.parse_file("k.mlir").value())          *|
|*                              .value().pipeline();                          *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef MQSS_MQSS_HPP
#define MQSS_MQSS_HPP

#include "mqss/mqss.h"

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
#include <stdexcept>
#define MQSS_HPP_EXCEPTIONS 1
#else
#define MQSS_HPP_EXCEPTIONS 0
#endif

namespace mqss {

//===----------------------------------------------------------------------===//
// Errors and results
//===----------------------------------------------------------------------===//

/// What a failed call returned: its status and the session's message.
struct error_info {
  mqss_status status = MQSS_OK;
  std::string message;
};

#if MQSS_HPP_EXCEPTIONS
/// The exception result<T>::value() throws. what() is the message, or the
/// status description when there is none.
class error : public std::runtime_error {
public:
  explicit error(error_info e)
      : std::runtime_error(e.message.empty() ? mqss_strerror(e.status)
                                             : e.message),
        status_(e.status) {}
  mqss_status status() const noexcept { return status_; }

private:
  mqss_status status_;
};
#endif

namespace detail {
[[noreturn]] inline void fail(const error_info &e) {
#if MQSS_HPP_EXCEPTIONS
  throw error(e);
#else
  (void)e;
  std::abort();
#endif
}
} // namespace detail

/// Either a T or an error_info, in the style of C++23's std::expected.
template <class T> class result {
public:
  result(T v) : v_(std::move(v)) {}
  result(error_info e) : v_(std::move(e)) {}

  bool ok() const noexcept { return v_.index() == 0; }
  explicit operator bool() const noexcept { return ok(); }

  /// The value; throws mqss::error (or aborts without exceptions) on failure.
  T &value() & {
    if (!ok())
      detail::fail(std::get<1>(v_));
    return std::get<0>(v_);
  }
  T &&value() && { return std::move(value()); }

  /// The error; status MQSS_OK when the call succeeded.
  error_info error() const {
    return ok() ? error_info{} : std::get<1>(v_);
  }
  mqss_status status() const noexcept {
    return ok() ? MQSS_OK : std::get<1>(v_).status;
  }

private:
  std::variant<T, error_info> v_;
};

/// The result of a call that returns nothing but may fail.
template <> class result<void> {
public:
  result() = default;
  result(error_info e) : e_(std::move(e)) {}

  bool ok() const noexcept { return e_.status == MQSS_OK; }
  explicit operator bool() const noexcept { return ok(); }
  /// Throws mqss::error (or aborts without exceptions) on failure.
  void value() const {
    if (!ok())
      detail::fail(e_);
  }
  error_info error() const { return e_; }
  mqss_status status() const noexcept { return e_.status; }

private:
  error_info e_;
};

class module;
class policy;
class selection;

namespace detail {
struct session_deleter {
  void operator()(mqss_session *s) const noexcept { mqss_session_destroy(s); }
};
struct module_deleter {
  void operator()(mqss_module *m) const noexcept { mqss_module_destroy(m); }
};
struct policy_deleter {
  void operator()(mqss_policy *p) const noexcept { mqss_policy_destroy(p); }
};
struct selection_deleter {
  void operator()(mqss_selection *s) const noexcept {
    mqss_selection_destroy(s);
  }
};
inline error_info failure(mqss_status st, const mqss_session *s) {
  return error_info{st, mqss_errmsg(s)};
}
} // namespace detail

//===----------------------------------------------------------------------===//
// Session
//===----------------------------------------------------------------------===//

/// An MLIR context with everything registered (mqss_session_create). Not
/// thread-safe: one session per thread. Copies share the session.
class session {
public:
  /// Creates a session; fails only when out of memory.
  static result<session> create() {
    mqss_session *s = nullptr;
    mqss_status st = mqss_session_create(&s);
    if (st != MQSS_OK)
      return error_info{st, mqss_strerror(st)};
    return session(s);
  }

  /// Parses the MLIR file at `path` (mqss_module_parse_file).
  result<module> parse_file(const std::string &path) const;
  /// Parses MLIR text; `name` appears in error locations.
  result<module> parse_string(std::string_view text,
                              const std::string &name = "<string>") const;
  /// Loads a policy (mqss_policy_load); an empty path means the default
  /// (mqss_policy_default_path()). `opts` may be null.
  result<policy> load_policy(const std::string &path = "",
                             const mqss_policy_options *opts = nullptr) const;

  /// The message of the last failed call on this session.
  std::string errmsg() const { return mqss_errmsg(s_.get()); }
  /// The C handle, owned by this object (and its copies and modules).
  mqss_session *get() const noexcept { return s_.get(); }

private:
  explicit session(mqss_session *s) : s_(s, detail::session_deleter{}) {}
  std::shared_ptr<mqss_session> s_;
  friend class module;
};

//===----------------------------------------------------------------------===//
// Module
//===----------------------------------------------------------------------===//

/// A parsed module; keeps its session alive. Move-only.
class module {
public:
  /// Runs a textual pass pipeline in place (mqss_module_run_pipeline).
  result<void> run_pipeline(const std::string &pipeline) {
    mqss_status st = mqss_module_run_pipeline(m_.get(), pipeline.c_str());
    if (st != MQSS_OK)
      return detail::failure(st, session_.get());
    return {};
  }
  /// Lowers the module fully to the LLVM dialect (mqss_module_finish).
  result<void> finish() {
    mqss_status st = mqss_module_finish(m_.get());
    if (st != MQSS_OK)
      return detail::failure(st, session_.get());
    return {};
  }
  /// A deep copy in the same session; fails only when out of memory.
  result<module> clone() const {
    mqss_module *c = mqss_module_clone(m_.get());
    if (!c)
      return error_info{MQSS_ERR_NOMEM, mqss_strerror(MQSS_ERR_NOMEM)};
    return module(session_, c);
  }
  /// The module in MLIR's custom assembly form.
  std::string str() const {
    std::string out;
    mqss_module_print(
        m_.get(),
        [](const char *data, size_t len, void *user) {
          static_cast<std::string *>(user)->append(data, len);
        },
        &out);
    return out;
  }
  /// mqss_module_hash: stable across names, whitespace and locations.
  uint64_t hash() const noexcept { return mqss_module_hash(m_.get()); }
  /// The C handle, owned by this object.
  mqss_module *get() const noexcept { return m_.get(); }

private:
  module(std::shared_ptr<mqss_session> s, mqss_module *m)
      : session_(std::move(s)), m_(m) {}
  // Declared first so that it is destroyed last: the C API wants every
  // module destroyed before its session.
  std::shared_ptr<mqss_session> session_;
  std::unique_ptr<mqss_module, detail::module_deleter> m_;
  friend class session;
  friend class policy;
};

//===----------------------------------------------------------------------===//
// Policy and selection
//===----------------------------------------------------------------------===//

/// The decisions of one selection; keeps its policy (and so the catalog its
/// action names live in) alive. Move-only.
class selection {
public:
  /// The whole selection as one pipeline for mlir-opt --pass-pipeline,
  /// "builtin.module(...)" ("builtin.module()" when empty).
  std::string pipeline() const { return mqss_selection_pipeline(s_.get()); }
  /// Number of decisions (STOP not counted).
  int size() const noexcept { return mqss_selection_count(s_.get()); }
  /// Action name of decision i (0 <= i < size()), "" out of range.
  std::string action_name(int i) const {
    const char *n = mqss_selection_action_name(s_.get(), i);
    return n ? n : "";
  }
  /// Anchored pipeline of decision i, "" out of range.
  std::string step_pipeline(int i) const {
    const char *p = mqss_selection_step_pipeline(s_.get(), i);
    return p ? p : "";
  }
  /// True when the policy chose STOP before max_steps.
  bool stopped() const noexcept { return mqss_selection_stopped(s_.get()); }
  /// What an isolated selection had to avoid, "" when nothing.
  std::string notes() const { return mqss_selection_notes(s_.get()); }
  /// How sure the policy was of decision i, or of its final STOP
  /// (i == size()): mqss_selection_odds. p < 0 and no alternatives when the
  /// step has no record.
  struct odds {
    float p = -1;
    std::vector<std::pair<std::string, float>> alternatives; // likeliest first
  };
  odds odds_at(int i) const {
    odds o;
    int a[MQSS_SELECTION_ALTS];
    float q[MQSS_SELECTION_ALTS];
    int n = mqss_selection_odds(s_.get(), i, MQSS_SELECTION_ALTS, &o.p, a, q);
    if (n < 0)
      return odds{};
    const mqss_catalog *c = mqss_policy_catalog(policy_.get());
    for (int k = 0; k < n; k++)
      o.alternatives.emplace_back(mqss_catalog_action(c, a[k])->name, q[k]);
    return o;
  }
  /// The C handle, owned by this object.
  mqss_selection *get() const noexcept { return s_.get(); }

private:
  selection(std::shared_ptr<mqss_policy> p, mqss_selection *s)
      : policy_(std::move(p)), s_(s) {}
  std::shared_ptr<mqss_policy> policy_;
  std::unique_ptr<mqss_selection, detail::selection_deleter> s_;
  friend class policy;
};

/// A loaded policy. Immutable: any number of threads may select with it at
/// once, each with its own session and module. Copies share the policy.
class policy {
public:
  /// Chooses a pipeline for `m` (not modified), mqss_policy_select. `opts`
  /// may be null (greedy, in process).
  result<selection> select(const module &m,
                           const mqss_select_options *opts = nullptr) const {
    mqss_selection *s = nullptr;
    mqss_status st = mqss_policy_select(p_.get(), m.get(), opts, &s);
    if (st != MQSS_OK)
      return detail::failure(st, m.session_.get());
    return selection(p_, s);
  }
  /// Selects, checks the choice against the reference in the measurement
  /// sandbox, and lowers `m` in place with the pipeline the guard settled on
  /// (mqss_policy_compile_guarded). The report says which and why.
  result<mqss_guard_report>
  compile_guarded(module &m, const mqss_select_options *sel_opts = nullptr,
                  const mqss_guard_options *opts = nullptr) const {
    auto report = std::make_unique<mqss_guard_report>();
    mqss_status st = mqss_policy_compile_guarded(p_.get(), m.get(), sel_opts,
                                                 opts, report.get());
    if (st != MQSS_OK)
      return detail::failure(st, m.session_.get());
    return *report;
  }
  /// The MLIR version the policy was trained with.
  std::string mlir_version() const { return mqss_policy_mlir_version(p_.get()); }
  /// The C handle, owned by this object and its copies.
  mqss_policy *get() const noexcept { return p_.get(); }

private:
  explicit policy(mqss_policy *p) : p_(p, detail::policy_deleter{}) {}
  std::shared_ptr<mqss_policy> p_;
  friend class session;
};

//===----------------------------------------------------------------------===//
// Session members that need the complete types
//===----------------------------------------------------------------------===//

inline result<module> session::parse_file(const std::string &path) const {
  mqss_module *m = nullptr;
  mqss_status st = mqss_module_parse_file(s_.get(), path.c_str(), &m);
  if (st != MQSS_OK)
    return detail::failure(st, s_.get());
  return module(s_, m);
}

inline result<module> session::parse_string(std::string_view text,
                                            const std::string &name) const {
  mqss_module *m = nullptr;
  mqss_status st = mqss_module_parse_string(s_.get(), text.data(), text.size(),
                                            name.c_str(), &m);
  if (st != MQSS_OK)
    return detail::failure(st, s_.get());
  return module(s_, m);
}

inline result<policy>
session::load_policy(const std::string &path,
                     const mqss_policy_options *opts) const {
  mqss_policy *p = nullptr;
  mqss_status st = mqss_policy_load(s_.get(), path.empty() ? nullptr : path.c_str(),
                                    opts, &p);
  if (st != MQSS_OK)
    return detail::failure(st, s_.get());
  return policy(p);
}

} // namespace mqss

#endif // MQSS_MQSS_HPP
