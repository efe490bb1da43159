// Internal declarations shared by the library's source files. Not installed,
// not API: the only contract is include/mqss/mqss.h.
#ifndef MQSS_INTERNAL_H
#define MQSS_INTERNAL_H

#include "mqss/mqss.h"

#include <mlir-c/IR.h>
#include <mlir-c/Pass.h>
#include <stdbool.h>
#include <string.h>
#include <stdarg.h>

// ----------------------------------------------------------------------------
// growable string buffer

typedef struct {
  char *data; // NUL-terminated, owned
  size_t len;
  size_t cap;
} strbuf;

void sb_append(strbuf *sb, const char *data, size_t len);
void sb_vprintf(strbuf *sb, const char *fmt, va_list ap);
void sb_printf(strbuf *sb, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void sb_clear(strbuf *sb);
// Appends the whole file at `path`; false (errno set) when it cannot be
// opened or read. On success sb->data is non-NULL, even for an empty file.
bool sb_read_file(strbuf *sb, const char *path);
void sb_free(strbuf *sb);
// MLIR string callback that appends to the strbuf passed as user data.
void sb_mlir_callback(MlirStringRef s, void *user);

// ----------------------------------------------------------------------------
// session

struct mqss_session {
  MlirDialectRegistry registry;
  MlirContext ctx;
  strbuf diag;           // diagnostics captured since the last diag_reset
  unsigned diag_line;    // line of the first of them (0: none, or no line)
  strbuf errmsg;         // message of the last failed call
  const char *source;    // file name substituted for "-" in locations
  strbuf libraries;      // transform libraries preloaded into ctx, one
                         // path list a line (actions/schedule.c)
};

// Clears captured diagnostics; `source` names the buffer being processed.
void diag_reset(mqss_session *s, const char *source);
// Sets the session message to the formatted text, followed by ": " and the
// captured diagnostics when there are any. Returns `status`.
mqss_status fail(mqss_session *s, mqss_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
// Arguments for "%.*s%s": the first PIPELINE_SHOWN characters of pipeline
// text `p`, then "..." if it is longer. Messages quote pipelines this way so
// that the diagnostics after them fit a measurement's 1 KiB message.
#define PIPELINE_SHOWN 160
#define PIPELINE_QUOTE(p) \
  PIPELINE_SHOWN, (p), (strlen(p) > PIPELINE_SHOWN ? "..." : "")
// Formats `loc` as "file:line:col" into sb ("<unknown>" when it has none).
void format_location(mqss_session *s, MlirLocation loc, strbuf *sb);

// FNV-1a (hash.c): fnv1a64(FNV1A64_INIT, p, n), or chained over pieces by
// passing the previous result as `h`.
#define FNV1A64_INIT 0xcbf29ce484222325ULL
uint64_t fnv1a64(uint64_t h, const void *data, size_t len);

// Writes the path of `target` ("data/catalog.yaml") in the source tree that
// holds the source file `here` (its __FILE__), whose own path from the root
// is `self` ("src/actions/catalog.c"); source_path.c.
void source_tree_path(char *out, size_t len, const char *here,
                      const char *self, const char *target);

// Resource limits of a forked child (child_limits.c), applied right after
// fork by the measurement sandbox and the training pool's task children.
#define CHILD_DEFAULT_MEM_MB 4096
typedef struct {
  int timeout_ms;   // RLIMIT_CPU = timeout + 1 s (SIGXCPU), hard 1 s more; 0 = none
  int mem_limit_mb; // MiB the child may map beyond what it inherits (RLIMIT_AS);
                    // 0 = none (not applied under sanitizers)
  int cpu;          // core to pin the child to; -1 = none
} child_limits;
// Fatal signals (SIGSEGV, SIGXCPU, SIGXFSZ, ...) back to their default action
// and unblocked, no core dumps, then the limits of `l`.
void child_limits_apply(const child_limits *l);
// Fatal signals back to their default action (after LLVM installed its own).
void child_default_fatal_signals(void);
// Caps the size of any file the process writes (RLIMIT_FSIZE soft limit:
// SIGXFSZ beyond it) at `bytes`; 0 lifts the cap again (up to the hard limit).
void child_output_limit(int64_t bytes);
// Registers the passes MLIR 19 has only in C++ (cxx_passes.cpp):
// mqss-math-approx and mqss-lower-vector-contract. Once per process.
void register_cxx_passes(void);

// Milliseconds on the monotonic clock (clock.c).
double now_ms(void);
// Sorts v (n) ascending (stats.c).
void sort_doubles(double *v, int n);
// Median of v (n), which is sorted in place; 0 when n <= 0.
double median_of(double *v, int n);
// Critical rank of the Wilcoxon signed-rank interval: the largest k with
// P(T+ <= k - 1) <= (1 - conf) / 2 for n values (exact distribution up to
// n = 100, normal approximation above). *achieved gets the interval's real
// coverage 1 - 2 P(T+ <= k - 1); 0 when k = 0 (too few values) (stats.c).
int signed_rank_k(int n, double conf, double *achieved);
// Hodges-Lehmann estimate of the centre of x (n): the median of the n(n+1)/2
// Walsh averages (x_i + x_j) / 2, i <= j, and its distribution-free interval
// [W_(k), W_(M+1-k)] (sorted Walsh averages, k from signed_rank_k). When n is
// too small for `conf`, the interval is [min W, max W] and *achieved says
// its real coverage. False when n <= 0 or out of memory (stats.c).
bool hodges_lehmann(const double *x, int n, double conf, double *est,
                    double *lo, double *hi, double *achieved);

// ----------------------------------------------------------------------------
// module

// True when `text` (len bytes) nests no deeper than MQSS_MAX_NESTING
// (nesting.c); otherwise stores the 1-based line and column of the first
// opener past the limit.
bool nesting_within(const char *text, size_t len, unsigned *line,
                    unsigned *col);
// The outermost '(', '[' or '{' that `text` leaves open at its end (0 when
// none), with its 1-based line and column: where a truncated file, or one
// missing a closer, went wrong.
char nesting_unclosed(const char *text, size_t len, unsigned *line,
                      unsigned *col);
// NULL unless `text` is written in a custom syntax that crashes MLIR 19's
// parser (bad_syntax.c: iterator_types that are not strings; a
// vector.contract without iterator_types or with a kind that is not a
// #vector.kind); then what to write instead, with the 1-based line and
// column of the offending text.
const char *custom_syntax_unsafe(const char *text, size_t len, unsigned *line,
                                 unsigned *col);
// Whether `text` has the op `name` in its custom syntax (an unquoted op
// name, outside strings and comments); then the 1-based line and column of
// the first.
bool custom_op_at(const char *text, size_t len, const char *name,
                  unsigned *line, unsigned *col);

struct mqss_module {
  mqss_session *session;
  MlirModule mod;
  char *name;            // source name for locations, owned
  strbuf finish_pipeline; // what the last finish ran
};

// Parses the pipeline `text` into `opm` (pipeline_parse.c). LLVM's option
// parser prints to fd 2; that text is captured, never printed. On failure
// sets the session message "invalid pipeline 'SHOWN': REASON" (REASON is
// LLVM's and MLIR's words) and returns MQSS_ERR_PIPELINE.
mqss_status pipeline_parse(mqss_session *s, MlirOpPassManager opm,
                           const char *text, const char *shown);
// pipeline_parse without the check of known-bad option values: the text
// names registered passes with options of the right types.
mqss_status pipeline_parse_syntax(mqss_session *s, MlirOpPassManager opm,
                                  const char *text, const char *shown);

// True when the printed pipeline `canonical` sets a pass option to a value
// known to crash MLIR in process (bad_options.c); `why` then says which and
// what to use instead.
bool pipeline_bad_option(const char *canonical, strbuf *why);

// Runs work(ctx) in a forked sandbox child (isolated.c) with a wall-clock
// limit of timeout_ms and an address-space limit of mem_limit_mb (0: none).
// Returns MQSS_OK when it returned MQSS_OK there (the caller then does the
// work in process), its status and message when it failed, and
// MQSS_ERR_CRASHED, naming the signal or limit, when the child died; then
// how it died also goes to `died` (died_size bytes) unless that is NULL.
mqss_status isolated_trial(mqss_session *s, mqss_status (*work)(void *ctx),
                           void *ctx, int timeout_ms, int mem_limit_mb,
                           char *died, size_t died_size);

// Parses every action of `c` at the ends of its parameter ranges and with
// each choice value (catalog_check.c); appends "PATH:LINE: action 'NAME':
// why" to `report` per failing action. Returns the number that fail.
int catalog_check_pipelines(const mqss_catalog *c, const char *path,
                            strbuf *report);
// At load: true when action `i`'s pipeline parses (syntax only) at the ends
// of its ranges and with each choice value; else false with `why` set.
bool catalog_action_parses(const mqss_catalog *c, int i, strbuf *why);
// True when `m` holds an op that no finisher step lowers (finish.c): a
// device dialect, or a dialect the step table does not name. One walk, no
// pass; a module without such ops may still fail to finish, but rarely.
bool finish_has_unknown_ops(const mqss_module *m);

// Part of every measurement's cache key: bump it when the finisher's output
// changes the code that runs, or the harness what a call costs, so that
// timings of older code are never reused.
//   2: buffers are freed after their last use (finish.c)
//   3: the harness frees the buffers a call returns (values.c)
//   4: scf.forall and the async dialect run on threads (finish.c)
//   5: the copy of each forall tile onto itself is dropped (finish.c)
//   6: scf.forall runs on OpenMP threads, alloca scopes expanded (finish.c)
//   7: each call starts its stack at a new offset within a page (jit.c)
#define FINISH_VERSION 7

// A structural hash of `m` for change detection within one process
// (fingerprint.c): equal for equal IR in one context, and much cheaper than
// mqss_module_hash. Not stable across processes: never persist it.
uint64_t module_fingerprint(const mqss_module *m);

// ----------------------------------------------------------------------------
// env: catalog, safety, features, graph (src/actions, src/features)

// The session a catalog reports errors to.
mqss_session *catalog_session(const mqss_catalog *c);
// (size + 1) hashes: entry n is the hash of the first n actions.
const uint64_t *catalog_prefix_hashes(const mqss_catalog *c);
// The largest n such that the first n actions of c hash to `hash` (the
// catalog a policy was trained with, if c extends it), or -1.
int catalog_prefix_with_hash(const mqss_catalog *c, uint64_t hash);
// Keeps only the first n actions of c (1 <= n < size; else no change): the
// view of an extended catalog that a policy trained on its prefix gets.
void catalog_truncate(mqss_catalog *c, int n);
// The first recipe action (catalog key `recipe:`) whose family's pipeline,
// as its baselines file writes it, is `pipeline`, or -1.
int catalog_recipe_action(const mqss_catalog *c, const char *pipeline);
// Whether action i is a recipe action.
bool catalog_is_recipe(const mqss_catalog *c, int i);
// The pipeline of `family` as written in the baselines file, relative
// schedule paths unresolved (what a catalog's recipe action hashes), or NULL.
const char *baselines_raw_pipeline(const mqss_baselines *b,
                                   const char *family);
// The top-level func.func of `m` whose sym_name is `name`, or a null op.
MlirOperation find_function(const mqss_module *m, const char *name);
// Where decision d acts on m: its target function, or the module op when it
// has none; a null op when the target function is missing.
MlirOperation decision_scope(const mqss_module *m, const mqss_decision *d);
// The pipeline of decisions d[0..n) (join.c): "builtin.module(p1,p2,...)"
// with module-anchored pieces unwrapped, STOP skipped, each run of
// consecutive schedule decisions run by one transform interpreter, and
// repeated preloads dropped; "" when no decision has a pass. Malloc'ed;
// NULL when out of memory or a schedule file cannot be written (the
// message is on the catalog's session).
char *decisions_join(const mqss_catalog *c, const mqss_decision *d, int n);
// How many of d[0..n) in a row, from d[0], are schedule decisions (join.c).
int decisions_schedule_run(const mqss_catalog *c, const mqss_decision *d,
                           int n);
// False when applying decision d to m would be refused for its parameters
// (a schedule's sizes that do not divide their loops, or a vector over the
// bound), with the reason in why (why_len bytes, may be NULL). True for
// every other decision: it checks only what the mask cannot (decision.c).
bool decision_fits(const mqss_module *m, const mqss_catalog *c,
                   const mqss_decision *d, char *why, size_t why_len);

// Parameter grid (fit.c): the u values -1 + 2k/(PARAM_GRID-1) stand for
// every value a parameter maps to.
enum { PARAM_GRID = 401 };
// The middle of the grid points u where parameter p maps to the value at u.
float param_grid_middle(const mqss_param *p, float u);
// The smallest u mapping to integer v or above (the maps are monotone).
float param_u_for(const mqss_param *p, int64_t v);
// Gives schedule decision `d` the divisor sizes nearest to its own (fewest
// steps through each parameter's candidate list, summed) with which it
// applies to every op it targets in `m` (decision_fits); among equals, the
// first in an enumeration of the combinations whose first parameter varies
// fastest. False (d unchanged) when no other combination fits or d has no
// sizes.
bool decision_fit_sizes(const mqss_module *m, const mqss_catalog *c,
                        mqss_decision *d);

// True when d is a schedule decision and m has no op it schedules in its
// scope (none of its kinds, or none tagged d->op): the mask blocks it, and
// its pipeline text changes nothing there (decision.c).
bool decision_matches_nothing(const mqss_module *m, const mqss_catalog *c,
                              const mqss_decision *d);

// The focus op (focus.c): the linalg op the state centres on and that
// schedule decisions address (op_shape_focus_better says which).
typedef struct {
  MlirOperation op; // null when no op qualifies
  int64_t tag;      // its mqss.id tag, 0 when it has none
  char kind[64];    // its op name ("linalg.matmul")
} linalg_focus;
// Finds the focus op among the linalg ops under `scope`.
void linalg_focus_find(MlirOperation scope, linalg_focus *out);
// The same among the ops `keep` accepts (a decision's repeats, repeat.c).
typedef bool (*focus_filter)(MlirOperation op, void *ctx);
void linalg_focus_find_if(MlirOperation scope, focus_filter keep,
                          void *keep_ctx, linalg_focus *out);
// A func.func with a body and no sym_visibility ("private", "nested")
// (src/features/harness.c).
bool func_is_public_definition(MlirOperation f);
// The per-op rule: the `op` of a decision d of action a (d NULL: of any
// sizes, the mask) when f is the focus of `scope`. 0 unless a is a
// schedule action and f is tagged. f's tag when f is one of a's op kinds
// and some sizes fit it; else 0 (every op of a's kinds in scope) when f is
// of another kind and each has sizes that fit; else the heaviest untiled
// op of a's kinds that d's sizes fit (any sizes when none does), 0 when
// none fits. *hit (when not NULL) gets the op addressed (f when 0). The
// safety mask, the environment, selection, explanation and search all
// decide through it, so training and selection address the same ops.
int64_t focus_target(MlirOperation scope, const mqss_action *a,
                     const mqss_decision *d, const linalg_focus *f,
                     linalg_focus *hit);
// The heaviest untiled, tagged op of schedule action a's kinds under scope
// that d's sizes fit (any sizes when d is NULL); out->op null when none.
void schedule_heaviest_fit(MlirOperation scope, const mqss_action *a,
                           const mqss_decision *d, linalg_focus *out);
// focus_target for decision d on m, the focus taken in d's scope (its
// target function, or the module). 0 for a STOP or a non-schedule action.
int64_t decision_focus(const mqss_module *m, const mqss_catalog *c,
                       const mqss_decision *d);

// Repeats of a schedule decision (repeat.c). The repeat of `prev` on m:
// prev's action and parameters on the heaviest untiled op of the action's
// kinds that the sizes fit (the focus among those ops), when prev addressed
// one op, the safety layer allows the action on m and that op is another.
// False when there is none (*next is then meaningless).
bool decision_repeat(const mqss_module *m, const mqss_catalog *c,
                     const mqss_decision *prev, mqss_decision *next);
// Whether the safety layer allows decision d on m: the action's stage rules
// (as mqss_action_check), and for a schedule action, d's sizes on the op it
// addresses rather than some sizes on the focus op.
bool decision_allowed(const mqss_module *m, const mqss_catalog *c,
                      const mqss_decision *d);
// The repeat of d on m with fitted sizes: d's action on the heaviest
// untiled op of its kinds (any sizes), d's sizes moved to the nearest that
// fit that op (decision_fit_sizes); else, on the heaviest untiled op that
// d's own sizes fit with its partial tiles peeled (peel = 1,
// schedule_peels). False when there is no such op or it is d's own.
bool decision_repeat_fitted(const mqss_module *m, const mqss_catalog *c,
                            const mqss_decision *d, mqss_decision *next);
// Most repeats one decision gets.
enum { DECISION_MAX_REPEATS = 63 };
// Called around each repeat's passes (either may be NULL): `before` may end
// the repeats by returning false (the repeat is then not applied); `after`
// says whether the repeat was kept (applied and the IR changed).
typedef struct {
  void *ctx;
  bool (*before)(void *ctx, const mqss_decision *r);
  void (*after)(void *ctx, const mqss_decision *r, bool kept);
} repeat_hooks;
// Applies the repeats of d, which was just applied to *m: decision_repeat
// after decision_repeat (with fit, then decision_repeat_fitted where
// d's sizes fit no op left), each on a clone that replaces *m when its
// passes succeed and change the IR. The first that fails or changes nothing
// ends them (that IR is dropped). *hash is module_fingerprint(*m), kept up
// to date. h may be NULL. Returns the number kept, or -1 when out of memory.
int decision_apply_repeats(mqss_module **m, uint64_t *hash,
                           const mqss_catalog *c, const mqss_decision *d,
                           bool fit, const repeat_hooks *h);

// What the safety layer needs to know about a piece of IR, from one walk.
typedef struct {
  unsigned stages;       // MQSS_STAGE_* bits present
  int n_names, cap_names;
  MlirStringRef *names;  // (n_names) distinct op names, owned by the context
  MlirOperation root;    // what was scanned
  unsigned asked;        // bits of the names found on demand, asked already
  int64_t alloc_growth, transfer_growth; // stack growth of the function
                                         // being scanned (actions/stack.h)
} ir_summary;

// Scans `root` and everything nested in it into `out` (zeroed first).
void ir_summary_scan(MlirOperation root, ir_summary *out);
// True when an op called `what` ("affine.for") or of dialect `what`
// ("arith") occurs, or the derived name `what` applies (safety.c; the
// costlier ones are found on the first ask and kept in sum).
bool ir_summary_has(ir_summary *sum, const char *what);
void ir_summary_free(ir_summary *sum);
// Whether decision d of action a (`pipeline`, its filled pipeline) is
// refused on m, or on its function d->target: `pipeline` contains a's
// refuse_if while the IR has one of a's refuse_while names, or the value of
// a's refuse_unless_divides parameter does not divide an innermost
// affine.for's trip count. why gets the reason.
bool decision_refused(const mqss_module *m, const mqss_action *a,
                      const mqss_decision *d, const char *pipeline, char *why,
                      size_t why_len);
// Stage bits one op contributes (its dialect, its result and block-argument
// types); does not look into nested ops.
unsigned op_stages(MlirOperation op);

// Rewrites the decision-history part of a state vector (ctx.step to the
// end of the layout) as mqss_features() would, leaving the IR part alone.
void features_write_history(const mqss_catalog *c, const int *history,
                            int n_history, int max_steps, float *state);

// Op-kind vocabulary shared by features and graph: the id of an op name, in
// [0, mqss_op_kind_count()). Unknown names map to their dialect's overflow
// bucket, or to "other.misc".
int op_kind_id(MlirStringRef name);
// Number of named kinds (ids below this are exact op names).
int op_kind_named_count(void);
// Width of the policies' learned op-kind embedding (nn_config.embed_dim);
// its rows are mqss_op_kind_count() + 1 (the last: blocks).
enum { OP_EMBED_DIM = 16 };

#endif // MQSS_INTERNAL_H
