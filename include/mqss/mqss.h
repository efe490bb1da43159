/*===-- mqss/mqss.h - MQSS-Selector public C API -------------------------===*\
|*                                                                            *|
|* The one public header of MQSS-Selector. Everything a compiler needs to     *|
|* embed the selector is declared here; what is not here is not API.          *|
|*                                                                            *|
|* Conventions (borrowed from SQLite and MLIR's C API):                       *|
|*  - Handles are opaque. Each has a create/destroy pair; destroy(NULL) is    *|
|*    harmless.                                                               *|
|*  - Fallible calls return an mqss_status (0 = MQSS_OK) and leave a message  *|
|*    on the session, retrievable with mqss_errmsg().                         *|
|*  - The library never exits, aborts or prints unless asked to.              *|
|*  - Every returned pointer states its lifetime at its declaration.          *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef MQSS_MQSS_H
#define MQSS_MQSS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Version of this library, as "MAJOR.MINOR.PATCH".
#define MQSS_VERSION "0.1.0"

//===----------------------------------------------------------------------===//
// Status codes
//===----------------------------------------------------------------------===//

/// X-macro table of status codes: (name, value, description). It generates
/// both the enum and the strings returned by mqss_strerror().
#define MQSS_STATUS_TABLE(X)                                                   \
  X(MQSS_OK, 0, "ok")                                                          \
  X(MQSS_ERR_INVALID_ARG, 1, "invalid argument")                               \
  X(MQSS_ERR_NOMEM, 2, "out of memory")                                        \
  X(MQSS_ERR_IO, 3, "cannot read or write file")                               \
  X(MQSS_ERR_PARSE, 4, "cannot parse module")                                  \
  X(MQSS_ERR_PIPELINE, 5, "invalid pass pipeline")                             \
  X(MQSS_ERR_PASS_FAILED, 6, "pass pipeline failed")                           \
  X(MQSS_ERR_VERIFY, 7, "module failed verification")                          \
  X(MQSS_ERR_FINISH, 8, "cannot lower module to the LLVM dialect")             \
  X(MQSS_ERR_INTERNAL, 9, "internal error")                                    \
  X(MQSS_ERR_POLICY, 10, "invalid or incompatible policy file")              \
  X(MQSS_ERR_CRASHED, 11, "a pass crashed, hung or ran out of memory")

/// Status code returned by every fallible call.
typedef enum {
#define MQSS_STATUS_ENUM(name, value, text) name = value,
  MQSS_STATUS_TABLE(MQSS_STATUS_ENUM)
#undef MQSS_STATUS_ENUM
} mqss_status;

/// Returns a static, English description of `status`. Never NULL; an unknown
/// code gives "unknown status". The string lives for the whole program.
const char *mqss_strerror(mqss_status status);

//===----------------------------------------------------------------------===//
// Versions
//===----------------------------------------------------------------------===//

/// Returns the version of this library (MQSS_VERSION). Static storage.
const char *mqss_version(void);

/// Returns the version of the MLIR/LLVM libraries loaded at run time, as
/// "MAJOR.MINOR.PATCH" (for example "19.1.7"). Static storage.
const char *mqss_mlir_version(void);

//===----------------------------------------------------------------------===//
// Session
//===----------------------------------------------------------------------===//

/// A session owns one MLIR context (threading off, so it is safe to fork),
/// the dialect registry, and the diagnostics captured from MLIR. A session is
/// not thread-safe: use one session per thread.
typedef struct mqss_session mqss_session;

/// Creates a session with every upstream dialect, pass and LLVM translation
/// registered. On success stores the handle in `*out`; destroy it with
/// mqss_session_destroy(). Returns MQSS_ERR_NOMEM on allocation failure.
mqss_status mqss_session_create(mqss_session **out);

/// Destroys a session and its context. Every module parsed in it must have
/// been destroyed first. NULL is harmless.
void mqss_session_destroy(mqss_session *session);

/// Returns the message of the last failed call on `session`, for example
/// "cannot parse 'x.mlir': x.mlir:3:5: error: expected ')'". The string is
/// owned by the session and valid until the next call on it. Returns "" when
/// there is no error and "out of memory" when `session` is NULL.
const char *mqss_errmsg(const mqss_session *session);

//===----------------------------------------------------------------------===//
// Modules
//===----------------------------------------------------------------------===//

/// A parsed MLIR module, owned by the caller and tied to its session.
typedef struct mqss_module mqss_module;

/// The deepest nesting of parentheses, brackets, braces and angle brackets,
/// counted together outside strings and comments, that the module parsers
/// accept. No real module comes near it; deeper text would overflow the stack
/// inside MLIR's recursive parser (on the default 8 MiB stack, about 4,000
/// nested regions do), so it is rejected with MQSS_ERR_PARSE before MLIR
/// sees it.
#define MQSS_MAX_NESTING 1000

/// Parses the MLIR file at `path`. On failure returns MQSS_ERR_IO (missing or
/// unreadable file) or MQSS_ERR_PARSE, and the session message names the file,
/// line and column. Text nested deeper than MQSS_MAX_NESTING is rejected. On success stores a new module in `*out`; destroy it with
/// mqss_module_destroy().
mqss_status mqss_module_parse_file(mqss_session *session, const char *path,
                                   mqss_module **out);

/// Parses `len` bytes of MLIR text. `name` is used in error locations (for
/// example "<stdin>"); NULL means "<string>". The text is copied.
mqss_status mqss_module_parse_string(mqss_session *session, const char *text,
                                     size_t len, const char *name,
                                     mqss_module **out);

/// Returns a deep copy of `module` in the same session, or NULL when out of
/// memory. Destroy it with mqss_module_destroy().
mqss_module *mqss_module_clone(const mqss_module *module);

/// Destroys a module. NULL is harmless.
void mqss_module_destroy(mqss_module *module);

/// Returns the session `module` belongs to. Not owned by the caller.
mqss_session *mqss_module_session(const mqss_module *module);

/// Runs a textual pass pipeline on `module`, in place. `pipeline` is MLIR's
/// pass pipeline syntax, either anchored ("builtin.module(canonicalize)") or a
/// bare list of module passes ("canonicalize,cse"). Returns:
///  - MQSS_ERR_PIPELINE when the text does not parse (for example an unknown
///    pass; the message names it);
///  - MQSS_ERR_VERIFY when the pipeline left invalid IR;
///  - MQSS_ERR_PASS_FAILED when a pass signalled failure.
/// On failure the module may have been partly transformed.
/// A pipeline that runs the transform interpreter (a schedule action) first
/// tags the module's linalg ops (mqss_module_tag_ops) when none carries a
/// tag yet, so that schedules that address one op by its tag find it.
/// Nothing is printed: LLVM's option parser writes the reason for a bad pass
/// option to file descriptor 2, so while the text is parsed fd 2 is
/// redirected (under a process-wide lock) and that text joins the message.
/// Output that another thread writes to fd 2 in that instant joins it too.
mqss_status mqss_module_run_pipeline(mqss_module *module, const char *pipeline);

/// Lowers `module` fully to the LLVM dialect, whatever its stage (tensor,
/// bufferized, linalg, affine, scf, vector, math, memref). The steps are
/// chosen from the ops that remain, one conversion at a time. Transform-
/// dialect schedules are removed first. Returns MQSS_ERR_FINISH, naming the
/// first op that cannot be lowered and its location, when some op is left.
mqss_status mqss_module_finish(mqss_module *module);

/// Returns the pass pipeline the last mqss_module_finish() call on `module`
/// ran, in textual syntax, or "" if it never ran. Owned by the module, valid
/// until the next call on it.
const char *mqss_module_finish_pipeline(const mqss_module *module);

/// Callback receiving printed text in pieces; `data` is not NUL-terminated.
typedef void (*mqss_write_fn)(const char *data, size_t len, void *user);

/// Prints `module` in MLIR's custom assembly form through `write`.
void mqss_module_print(const mqss_module *module, mqss_write_fn write,
                       void *user);

/// Returns the printed module as a NUL-terminated string, or NULL when out of
/// memory. The caller frees it with free().
char *mqss_module_to_string(const mqss_module *module);

/// Returns a stable 64-bit content hash of `module`: FNV-1a over its generic
/// printed form without locations, so it does not depend on file names,
/// whitespace, comments or SSA value names.
uint64_t mqss_module_hash(const mqss_module *module);

/// Like mqss_module_to_string(), with every operation's location printed
/// (loc(...)), so that parsing the text again, in this or another MLIR
/// context (the pass plugin hands modules across that way), keeps each op's
/// file:line:col. The caller frees it with free(); NULL when out of memory.
char *mqss_module_to_string_with_locations(const mqss_module *module);

//===----------------------------------------------------------------------===//
// Measurement (docs/MEASURE.md)
//===----------------------------------------------------------------------===//

/// X-macro table of measurement outcomes: (name, value, short name). The short
/// name is what `mqss measure` prints and the JSON "status" field holds.
#define MQSS_MEASURE_STATUS_TABLE(X)                                           \
  X(MQSS_MEASURE_OK, 0, "ok")                                                  \
  X(MQSS_MEASURE_PARSE_ERROR, 1, "parse_error")                                \
  X(MQSS_MEASURE_PASS_FAILED, 2, "pass_failed")                                \
  X(MQSS_MEASURE_VERIFY_FAILED, 3, "verify_failed")                            \
  X(MQSS_MEASURE_CRASHED, 4, "crashed")                                        \
  X(MQSS_MEASURE_TIMEOUT, 5, "timeout")                                        \
  X(MQSS_MEASURE_OUT_OF_MEMORY, 6, "out_of_memory")                            \
  X(MQSS_MEASURE_WRONG_OUTPUT, 7, "wrong_output")                              \
  X(MQSS_MEASURE_UNSUPPORTED, 8, "unsupported")                                \
  X(MQSS_MEASURE_FORBIDDEN, 9, "forbidden")

/// Outcome of one measurement (what happened to the candidate), as opposed to
/// mqss_status (whether the harness itself could do its job).
///  - OK: compiled, ran, outputs match the reference (or checking is off).
///  - PARSE_ERROR: the pipeline text (or, in the CLI, the file) does not parse.
///  - PASS_FAILED: a pass signalled failure, or the finisher could not lower
///    what the pipeline left, or the JIT rejected the lowered module.
///  - VERIFY_FAILED: the pipeline left IR that fails the verifier.
///  - CRASHED: the sandbox child died of a signal (`signal` says which).
///  - TIMEOUT: the wall-clock limit or RLIMIT_CPU was hit.
///  - OUT_OF_MEMORY: an allocation failed under the address-space limit.
///  - WRONG_OUTPUT: outputs differ from the reference beyond tolerance.
///  - UNSUPPORTED: the entry's signature cannot be driven (the message names
///    the argument), or no entry function was found.
///  - FORBIDDEN: the executed code made a system call that the sandbox's
///    confinement blocks (opening files, running programs, new processes or
///    threads, sockets); the message names the call (docs/MEASURE.md).
typedef enum {
#define MQSS_MEASURE_STATUS_ENUM(name, value, text) name = value,
  MQSS_MEASURE_STATUS_TABLE(MQSS_MEASURE_STATUS_ENUM)
#undef MQSS_MEASURE_STATUS_ENUM
} mqss_measure_status;

/// Returns the short name of `status` ("ok", "wrong_output", ...), or
/// "unknown". Static storage.
const char *mqss_measure_status_name(mqss_measure_status status);

/// Settings of one measurement. Initialise with mqss_measure_options_init()
/// and change what you need; the strings are borrowed for the duration of
/// the call only.
typedef struct {
  const char *pipeline;   ///< pass pipeline run before the finisher; NULL/"" = none
  const char *entry;      ///< function to run; NULL = convention (docs/MEASURE.md)
  int warmup;             ///< untimed runs before timing (default 3)
  int repeat;             ///< timed runs (default 10, at least 1)
  uint64_t seed;          ///< seed of the generated inputs (default 1)
  int timeout_ms;         ///< wall-clock limit of the sandbox child (default 30000)
  int mem_limit_mb;       ///< address space the child may add to what it
                          ///< inherits (RLIMIT_AS), MiB; 0 = none (default 4096)
  int cpu;                ///< core to pin the child to; -1 = no pinning (default)
  int opt_level;          ///< LLVM optimisation level of the JIT, 0-3 (default 3)
  const char *cache_path; ///< SQLite cache file; NULL = no cache (default)
  int no_cache;           ///< nonzero: neither read nor write the cache
  const char *const *shared_libs; ///< extra libraries for the JIT (borrowed; each must be readable)
  int num_shared_libs;    ///< length of shared_libs
  int no_runner_libs;     ///< nonzero: do not load MLIR's runner utils libraries
  int check_reference;    ///< nonzero: compare outputs with the reference (default 1)
  double rtol;            ///< float tolerance, relative (default 1e-4)
  double atol;            ///< float tolerance, absolute (default 1e-5)
  int code_size;          ///< nonzero: compute text_bytes (default 1)
  int no_sandbox;         ///< nonzero: run in this process, no fork or limits
                          ///< (benchmarks and debugging only; a crash kills you)
  int compile_only;       ///< nonzero: compile (and size) only: no reference,
                          ///< no runs; status OK means it compiled (default 0)
  /// Module whose finisher-only outputs are the reference, when the measured
  /// module was already transformed (a targeted episode's IR: the check must
  /// compare with the original, not with itself). Its entry must have the
  /// same signature (else UNSUPPORTED). NULL = the measured module (default).
  /// Borrowed for the call.
  const mqss_module *reference_module;
  int output_limit_mb;    ///< cap of what the program writes (stdout, stderr)
                          ///< in MiB, RLIMIT_FSIZE while it runs; beyond it the
                          ///< child is CRASHED with signal SIGXFSZ; 0 = none
                          ///< (default 64)
  /// Outputs the check leaves out (docs/MEASURE.md, "Skipping outputs"):
  /// "result:N", "arg:N", "line:N" or "line:N-M" (stdout lines from 1),
  /// "stdout". Borrowed; a spec that does not parse is MQSS_ERR_INVALID_ARG.
  const char *const *skip_outputs;
  int num_skip_outputs;   ///< length of skip_outputs
  int ignore_schedule;    ///< nonzero: do not apply the module's embedded
                          ///< @__transform_main (the finisher drops it and
                          ///< the result's notes say so); default 0 = apply
} mqss_measure_options;

/// Fills `opts` with the defaults documented on each field.
void mqss_measure_options_init(mqss_measure_options *opts);

/// Result of one measurement. Plain data: no pointers, safe to copy.
typedef struct {
  mqss_measure_status status;
  int signal;            ///< signal that killed the child when CRASHED, else 0
  int cached;            ///< nonzero when the result came from the cache:
                         ///< 1 = this pipeline's row, 2 = the row of another
                         ///< pipeline with the same lowered code (its run
                         ///< figures; pipeline_ms and finish_ms are this one's)
  char entry[128];       ///< the function that was run
  double compile_ms;     ///< pipeline_ms + finish_ms + llvm_ms: the compile
                         ///< time, the same with or without the object cache
  double pipeline_ms;    ///< the pipeline alone
  double finish_ms;      ///< the finisher alone
  double jit_ms;         ///< ExecutionEngine creation and symbol lookup
  /// LLVM's compilation of the lowered code to machine code: jit_ms when it
  /// ran now; when the object cache supplied the object (jit_ms is then only
  /// the link time), the jit_ms it took when it was stored.
  double llvm_ms;
  int64_t text_bytes;    ///< .text* bytes of the host object file; -1 unknown
  int runs;              ///< timed runs (== repeat when OK)
  double run_ms_median, run_ms_min, run_ms_max, run_ms_mad;
  uint64_t checksum;     ///< FNV-1a of the outputs: equal => bit-identical
  int64_t num_values;    ///< output values compared (elements + printed numbers)
  double max_error;      ///< largest |got - want| seen
  int mismatch_output;   ///< WRONG_OUTPUT: output number (see docs), else -1
  int64_t mismatch_index;///< WRONG_OUTPUT: flat element index, else -1
  double mismatch_got, mismatch_want; ///< the values at the mismatch
  char message[1024];    ///< human-readable detail; "" when OK
  /// Hash of the module after the pipeline and the finisher (the printed
  /// LLVM-dialect module without locations), 0 when it was not lowered.
  /// Equal hashes mean identical code: the cache shares results between
  /// pipelines that lower to it, and mqss_measure_vs() does not time them.
  uint64_t lowered_hash;
  double error_depth;    ///< rounding depth D of the check's error model
                         ///< (docs/MEASURE.md); 0 when not checked
  double mismatch_bound; ///< WRONG_OUTPUT: the error the model allowed there
  int64_t skipped_values;///< values left out of the check (skipped outputs,
                         ///< printed tokens on skipped lines)
  /// What the check left out or changed, "" when nothing: skipped outputs
  /// and why (clock, --skip-output), an applied or dropped transform schedule.
  char notes[512];
} mqss_measure_result;

/// Measures `module` under `opts`: in a forked, resource-limited child it
/// clones the module, runs opts->pipeline, the finisher and the JIT, runs the
/// entry warmup + repeat times and compares the outputs with those of the
/// module lowered by the finisher alone. `module` is not modified. Returns
/// MQSS_OK whenever `out` holds a measurement, whatever its outcome (see
/// out->status); an error status only when the harness itself failed (bad
/// arguments, fork/pipe failure, unreadable cache), with the session message
/// set. The session must have no other threads running (it forks).
mqss_status mqss_measure(mqss_module *module, const mqss_measure_options *opts,
                         mqss_measure_result *out);

/// Result of a paired comparison (mqss_measure_vs()).
typedef struct {
  mqss_measure_result a, b; ///< each side's compile/run/check result
  int pairs;                ///< interleaved timed pairs
  /// Per pair ratio time(B) / time(A): above 1 means A is faster than B.
  double ratio_median, ratio_min, ratio_max, ratio_mad;
  /// Hodges-Lehmann estimate of time(B) / time(A): exp of the median of the
  /// Walsh averages of the per-pair log ratios (docs/MEASURE.md). 0 unless
  /// both sides are OK.
  double ratio_hl;
  /// Distribution-free 95% confidence interval of that ratio (the Wilcoxon
  /// signed-rank interval over the pairs' log ratios). 0 when there is none:
  /// a side failed, or fewer than 6 pairs (no such interval reaches 95%).
  double ratio_lo, ratio_hi;
  /// The interval's exact coverage (>= 0.95; 10 pairs: 0.9512), 0 when none.
  double ratio_conf;
  /// Calls per timed sample: a sample is the median time of `batch`
  /// back-to-back calls of one side (enough for ~0.5 ms); run_ms_* and the
  /// ratios are of those per-call medians.
  int batch;
  /// Pairs measured again because the child was preempted during them
  /// (involuntary context switches; pairs under 20 ms only), at most
  /// 3 * pairs.
  int discarded;
  /// Nonzero when A and B lowered to identical code (equal lowered_hash):
  /// A was checked, B shares its verdict, the ratios are exactly 1 and
  /// nothing was timed (pairs = 0, runs = 0).
  int identical;
} mqss_measure_vs_result;

/// Default of the minimum relative gain that counts as faster (2%).
#define MQSS_MIN_GAIN_DEFAULT 0.02

/// Verdict on a ratio interval [lo, hi] of time(B) / time(A) (for example
/// mqss_measure_vs_result.ratio_lo/ratio_hi): +1 when A is faster, that is
/// the whole interval lies above 1 + min_gain; -1 when B is faster (the
/// whole interval lies below 1 / (1 + min_gain)); 0 when the result is within
/// noise (or lo/hi are not positive: no interval).
int mqss_ratio_verdict(double lo, double hi, double min_gain);

/// Returns "A faster", "B faster" or "within noise" for a verdict of
/// mqss_ratio_verdict(). Static storage.
const char *mqss_ratio_verdict_name(int verdict);

/// Measures pipeline A (opts->pipeline) against `pipeline_b` on `module` in
/// one sandbox child: both are compiled, checked against the reference, then
/// run in interleaved pairs (warmup, then repeat pairs; the order within a
/// pair alternates A B, B A, ...). Never cached. Returns like mqss_measure();
/// the ratios are set only when both sides are OK. Each side has its own
/// status, message and text_bytes: when the child dies, the side it was
/// working on gets the death (crashed, timeout, ...); a side it had already
/// checked keeps that result (runs 0, message saying why it was not timed);
/// a side it had not reached yet is measured alone with mqss_measure().
/// With opts->compile_only the child only compiles: `repeat` compiles of
/// each side (order A B B A A B ..., no object cache, after one untimed JIT
/// of the reference), and each side's figures and code size are those of
/// its fastest compile; no reference check, no runs, no ratios.
mqss_status mqss_measure_vs(mqss_module *module, const mqss_measure_options *opts,
                            const char *pipeline_b, mqss_measure_vs_result *out);

// @@measure (measurement harness declarations go above this line)

//===----------------------------------------------------------------------===//
// Workload corpus and baselines (docs/CORPUS.md)
//===----------------------------------------------------------------------===//

/// Number of workload families of the corpus generator.
int mqss_corpus_family_count(void);

/// Name ("conv2d"), domain ("vision", "nlp", "hpc" or "irregular") and one-line
/// description of family `i`, 0 <= i < mqss_corpus_family_count(). Static
/// storage; NULL when `i` is out of range.
const char *mqss_corpus_family_name(int i);
const char *mqss_corpus_family_domain(int i);
const char *mqss_corpus_family_about(int i);

/// Emits module `index` of `family` for `seed` as MLIR text: a public
/// @forward with statically shaped tensor/memref arguments, private helpers,
/// no @main. The same (family, seed, index) always gives the same bytes; the
/// text does not depend on any other module. No filter is applied. Returns a
/// NUL-terminated string the caller frees with free(), or NULL when the
/// family is unknown, `index` < 0, or memory ran out.
char *mqss_corpus_emit(const char *family, uint64_t seed, int index);

/// The same module in driver form, the shape of a hand-written program: the
/// kernel is a public @kernel (the @forward above, renamed), and a @main fills
/// its inputs with a fixed pattern, calls it and prints two checksums (plain
/// and position-weighted) of every result and memref argument. Its helpers
/// and @kernel are byte for byte those of mqss_corpus_emit(). NULL as above,
/// or when the module has more arguments than the driver form supports.
char *mqss_corpus_emit_driver(const char *family, uint64_t seed, int index);

/// Options of mqss_corpus_generate(). Fill with mqss_corpus_options_init()
/// and change what you need. Strings are borrowed for the call only.
typedef struct {
  const char *out_dir;     ///< directory to write into (created if missing)
  int count;               ///< modules to keep (default 500)
  uint64_t seed;           ///< corpus seed (default 0)
  int min_lines;           ///< line-count window, inclusive (default 100)
  int max_lines;           ///< (default 5000)
  const char *families;    ///< comma-separated subset; NULL or "" = all
  double holdout_fraction; ///< share of the hold-out split (default 0.1)
  int min_holdout;         ///< hold-out floor, capped at count/5 (default 50)
  int max_candidates;      ///< stop after this many tries; 0 = 20 * count
  int verify;              ///< nonzero: parse every kept module (default 1)
  /// Reference-runtime window in ms (pipeline "" + finisher, measured with
  /// mqss_measure, 1 warm-up + 3 runs); both 0 = no runtime filter (default).
  double min_run_ms, max_run_ms;
  int timeout_ms;          ///< per-measurement limit of that filter (default 20000)
  /// Nonzero: write every kept module in driver form
  /// (mqss_corpus_emit_driver()). The filters and the split see the usual
  /// form, so the corpus holds the same modules as without it (default 0).
  int driver;
} mqss_corpus_options;

/// Fills `opts` with the defaults documented on each field.
void mqss_corpus_options_init(mqss_corpus_options *opts);

/// What mqss_corpus_generate() did. Plain data.
typedef struct {
  int candidates;          ///< modules emitted and examined
  int kept;                ///< modules written (== count unless candidates ran out)
  int dropped_short;       ///< fewer than min_lines lines
  int dropped_long;        ///< more than max_lines lines
  int dropped_fast;        ///< reference run below min_run_ms
  int dropped_slow;        ///< reference run above max_run_ms (or timed out)
  int dropped_failed;      ///< reference measurement not ok (crash, ...)
  int train, holdout;      ///< split sizes
  uint64_t manifest_hash;  ///< FNV-1a 64 of manifest.tsv's bytes
} mqss_corpus_report;

/// Generates a corpus into opts->out_dir: candidate i (i = 0, 1, ...) is
/// module i of family i mod F (F = the selected families), kept when it
/// passes the line-count window (and the runtime window when set), until
/// opts->count are kept. Writes <family>_<i>.mlir files, manifest.tsv,
/// train.tsv, holdout.tsv (stratified by family) and manifest.hash. Returns
/// MQSS_ERR_INVALID_ARG (bad options or unknown family), MQSS_ERR_IO,
/// MQSS_ERR_INTERNAL (a generated module failed to parse: a generator bug,
/// the message names it) or MQSS_OK; `report` is filled in every case.
mqss_status mqss_corpus_generate(mqss_session *session,
                                 const mqss_corpus_options *opts,
                                 mqss_corpus_report *report);

/// Per-family hand-tuned pipelines (data/baselines.yaml).
typedef struct mqss_baselines mqss_baselines;

/// Loads a baselines file: a YAML mapping `families:` of family name to a
/// mapping with a `pipeline:` string (run before the finisher; "" = none).
/// On success stores a handle in `*out`; destroy it with
/// mqss_baselines_destroy(). Errors name the file, line and column.
mqss_status mqss_baselines_load(mqss_session *session, const char *path,
                                mqss_baselines **out);

/// Destroys a baselines handle. NULL is harmless.
void mqss_baselines_destroy(mqss_baselines *baselines);

/// Returns the pipeline of `family`, owned by `baselines` and valid until it
/// is destroyed, or NULL when the file has no entry for that family.
const char *mqss_baselines_pipeline(const mqss_baselines *baselines,
                                    const char *family);

// @@corpus (corpus and baseline declarations go above this line)

//===----------------------------------------------------------------------===//
// Environment: action catalog
//===----------------------------------------------------------------------===//

/// IR stages as bits of a set. A module is usually in several at once (for
/// example tensor + linalg). X-macro table: (enum suffix, bit, name).
#define MQSS_STAGE_TABLE(X)                                                    \
  X(TENSOR, 0, "tensor")                                                       \
  X(BUFFER, 1, "buffer")                                                       \
  X(LINALG, 2, "linalg")                                                       \
  X(LOOPS, 3, "loops")                                                         \
  X(AFFINE, 4, "affine")                                                       \
  X(VECTOR, 5, "vector")                                                       \
  X(LLVM, 6, "llvm")

/// One bit per stage: MQSS_STAGE_TENSOR = 1 << 0, ...
enum {
#define MQSS_STAGE_ENUM(name, bit, text) MQSS_STAGE_##name = 1u << (bit),
  MQSS_STAGE_TABLE(MQSS_STAGE_ENUM)
#undef MQSS_STAGE_ENUM
  MQSS_NUM_STAGES = 7
};

/// Returns the name of stage bit number `bit` (0..MQSS_NUM_STAGES-1), or
/// "any" when out of range. Static storage.
const char *mqss_stage_name(int bit);

/// Kind of an action parameter, and how a continuous value u in [-1, 1]
/// (clipped first) maps onto it, with t = (u + 1) / 2 in [0, 1]:
///  - INT: min + round(t * (max - min));
///  - LOG_INT: round(min * (max / min)^t), geometric between min and max;
///  - CHOICE: index min(n - 1, floor(t * n)) into the n values;
///  - BOOL: u > 0;
///  - DIVISOR: like CHOICE, over candidate sizes for loop dimension `dim` of
///    the targeted linalg op; applying a value that does not divide that
///    dimension's static extent is refused (schedule actions only).
typedef enum {
  MQSS_PARAM_INT,
  MQSS_PARAM_LOG_INT,
  MQSS_PARAM_CHOICE,
  MQSS_PARAM_BOOL,
  MQSS_PARAM_DIVISOR
} mqss_param_kind;

/// Most parameters an action may have (a two-level tiling schedule has
/// seven: three sizes per level and the loop order).
#define MQSS_MAX_PARAMS 8

/// Largest |min| and |max| of an INT / LOG_INT parameter that the catalog
/// loader accepts (2^53: every such value is exact as a double). The
/// mapping itself never overflows, whatever the range.
#define MQSS_PARAM_MAX_ABS ((int64_t)1 << 53)

/// A parameter of an action. Strings are owned by the catalog.
typedef struct {
  const char *name;           ///< slot name: $name in the pipeline template
  mqss_param_kind kind;
  int64_t min, max;           ///< range of INT / LOG_INT (inclusive)
  int n_values;               ///< CHOICE: number of values
  const char *const *values;  ///< CHOICE: (n_values) option strings
  int dim;                    ///< DIVISOR: loop dimension of the targeted
                              ///< op, counted from the innermost (-1 is the
                              ///< innermost loop), or from 0 when >= 0
  int level;                  ///< DIVISOR: which tiling step of the
                              ///< schedule it sizes, 0 the first (outermost)
} mqss_param;

/// An action of the catalog. Every pointer is owned by the catalog and lives
/// until mqss_catalog_destroy().
typedef struct {
  const char *name;       ///< unique name, e.g. "affine-tile"
  const char *pipeline;   ///< template, e.g. "affine-loop-tile{tile-size=$T}"; "" for STOP
  const char *anchor;     ///< "builtin.module" or "func.func"
  unsigned requires_stages; ///< stage bits that must all be present
  unsigned forbids_stages;  ///< stage bits that must all be absent
  unsigned produces_stages; ///< stage bits the action leads to (0 = any)
  int n_needs;            ///< ops or dialects, one of which must occur
  const char *const *needs; ///< (n_needs) e.g. "affine.for", "arith"
  int n_params;
  const mqss_param *params; ///< (n_params)
  int is_stop;            ///< nonzero for the STOP action
  int line;               ///< line of the entry in the catalog file (1-based)
  int n_steps;            ///< schedule actions: number of transform steps
  const char *const *steps; ///< (n_steps) e.g. "tile", "vectorize"; the
                          ///< action runs a transform-dialect schedule built
                          ///< from them (docs/SCHEDULES.md), and `pipeline`
                          ///< reads "schedule(tile,vectorize,...)"
  int n_ops;              ///< schedule actions: linalg op kinds it targets
  const char *const *ops; ///< (n_ops) e.g. "linalg.matmul"
  int n_avoids;           ///< ops or dialects, none of which may occur
  const char *const *avoids; ///< (n_avoids) e.g. "linalg.softmax": ops
                          ///< the action would leave in a form no later
                          ///< step lowers
  /// A decision whose filled pipeline contains `refuse_if` (e.g.
  /// "peel-front=true") is refused, as a failed step, while the IR has one
  /// of `refuse_while` (names as in `avoids`): parameter values that MLIR
  /// miscompiles on such IR. NULL / 0 when none.
  const char *refuse_if;
  int n_refuse_while;
  const char *const *refuse_while; ///< (n_refuse_while)
  /// The name of an integer parameter: a decision is refused unless its
  /// value divides the trip count of every innermost affine.for in its
  /// scope (constant bounds needed); MLIR 19's super-vectorizer writes the
  /// last vector past the loop's range otherwise. NULL when none.
  const char *refuse_unless_divides;
  /// Schedule actions: nonzero when a decision always addresses every op
  /// of the action's kinds at once (catalog key `kind_wide: true`), never
  /// one focus op with its repeats.
  int kind_wide;
} mqss_action;

/// A loaded action catalog. Immutable once loaded, so it may be shared by
/// threads.
typedef struct mqss_catalog mqss_catalog;

/// Returns the path of the catalog shipped with the tool: $MQSS_CATALOG when
/// set, else data/catalog.yaml of the source tree this library was built
/// from. Static storage (or the environment's).
const char *mqss_catalog_default_path(void);

/// Loads a catalog from the YAML file at `path` (NULL: the default path).
/// On error returns MQSS_ERR_IO or MQSS_ERR_PARSE and the session message
/// names file:line:col. Destroy the result with mqss_catalog_destroy(). The
/// catalog keeps `session` for its error messages: destroy it first.
mqss_status mqss_catalog_load(mqss_session *session, const char *path,
                              mqss_catalog **out);

/// Destroys a catalog. NULL is harmless.
void mqss_catalog_destroy(mqss_catalog *catalog);

/// Number of actions, STOP included.
int mqss_catalog_size(const mqss_catalog *catalog);

/// Action `i` (0 <= i < size), or NULL when out of range. Owned by the
/// catalog.
const mqss_action *mqss_catalog_action(const mqss_catalog *catalog, int i);

/// Index of the action called `name`, or -1.
int mqss_catalog_find(const mqss_catalog *catalog, const char *name);

/// Index of the STOP action, or -1 when the catalog has none.
int mqss_catalog_stop(const mqss_catalog *catalog);

/// Stable 64-bit FNV-1a hash of the catalog's content (names, pipelines,
/// anchors, stages, needs and parameters, in order), recorded in policy
/// files. Comments and layout of the YAML file do not change it.
uint64_t mqss_catalog_hash(const mqss_catalog *catalog);

/// Maps the continuous value `u` onto `param` (see mqss_param_kind): the
/// integer value, the choice index, or 0/1 for BOOL. NaN counts as 0.
int64_t mqss_param_map(const mqss_param *param, float u);

/// One decision of the policy: an action, its raw parameter values, and
/// optionally the one function it is scoped to.
typedef struct {
  int action;                  ///< index into the catalog
  float u[MQSS_MAX_PARAMS];    ///< raw parameter values in [-1, 1]
  const char *target;          ///< func.func symbol name, or NULL: whole module
  int64_t op;                  ///< schedule actions: the `mqss.id` tag of the
                               ///< one linalg op to transform (see
                               ///< mqss_module_tag_ops), or 0: every op of
                               ///< the action's kinds in scope. The policy
                               ///< (select, the environment) sets it to the
                               ///< focus op's tag (docs/POLICY.md)
  int peel;                    ///< schedule actions addressing one op, with
                               ///< one tiling level: 1 lets a tile size
                               ///< that does not divide its loop leave a
                               ///< partial tile, peeled off into a loop of
                               ///< its own so that the full tiles keep
                               ///< static shapes. Selection's fitted
                               ///< repeats set it (docs/POLICY.md); 0
                               ///< elsewhere
} mqss_decision;

/// Formats the pipeline `decision` runs, anchored: "func.func(P)" or
/// "builtin.module(P)" with the parameter slots filled. The text is the same
/// whether or not the decision has a target. Returns a string the caller
/// frees with free(), or NULL when the action index is invalid (the session
/// message says why) or out of memory.
char *mqss_decision_pipeline(const mqss_catalog *catalog,
                             const mqss_decision *decision);

/// Directory where schedule actions write their transform scripts, named by
/// content hash: $MQSS_SCHEDULE_DIR, else $TMPDIR/mqss-schedules (or
/// /tmp/mqss-schedules). The pipeline of a schedule action preloads its file
/// from there, so `mlir-opt-19 --pass-pipeline=...` can replay it.
const char *mqss_schedule_dir(void);

/// Returns the transform-dialect script a schedule action's decision runs
/// (a module holding one named sequence), or NULL when the action is not a
/// schedule (the session message says so) or out of memory. The caller
/// frees it with free().
char *mqss_decision_schedule(const mqss_catalog *catalog,
                             const mqss_decision *decision);

/// Tags every linalg op of `module` that has no tag yet with a discardable
/// `mqss.id = N : i64` attribute, numbering on from the largest tag present
/// (1 in a fresh module, in walk order), so a decision can address one op
/// (mqss_decision.op). The tag survives bufferization and tiling. Writes the
/// number of ops tagged into `n_tagged` (may be NULL). Applying a schedule
/// action, or running a pipeline with a schedule, tags a module that has no
/// tag yet first; selection and the environment tag their copy up front.
mqss_status mqss_module_tag_ops(mqss_module *module, int *n_tagged);

/// Applies `decision` to `module` in place. STOP does nothing. A targeted
/// decision runs its func.func pipeline on the named function only;
/// targeting a builtin.module action, or a missing function, returns
/// MQSS_ERR_INVALID_ARG. Pipeline failures return what
/// mqss_module_run_pipeline() would. The module may be partly transformed on
/// failure. Does not check preconditions: see mqss_action_check().
mqss_status mqss_decision_apply(mqss_module *module,
                                const mqss_catalog *catalog,
                                const mqss_decision *decision);

//===----------------------------------------------------------------------===//
// Environment: safety layer
//===----------------------------------------------------------------------===//

/// Returns the set of stages (MQSS_STAGE_* bits) present in `module`:
/// tensor (a value of tensor type), buffer (memref), linalg, loops (scf),
/// affine, vector, llvm (an op of that dialect).
unsigned mqss_module_stages(const mqss_module *module);

/// Checks the preconditions of catalog action `action` on the current IR of
/// `module` (restricted to function `target` when not NULL): required and
/// forbidden stages, needed ops, anchor and target. Returns 1 when allowed,
/// 0 when blocked, and writes a one-line reason (for example "blocked: needs
/// one of affine.for; none in the IR") into `why` (`why_len` bytes, may be
/// NULL/0). STOP is always allowed.
int mqss_action_check(const mqss_module *module, const mqss_catalog *catalog,
                      int action, const char *target, char *why,
                      size_t why_len);

/// Fills `mask` (catalog size bytes) with 1 for each allowed action and 0
/// for each blocked one, scanning the IR once. Returns the number allowed
/// (at least 1: STOP), or -1 on a NULL argument.
int mqss_action_mask(const mqss_module *module, const mqss_catalog *catalog,
                     const char *target, uint8_t *mask);

//===----------------------------------------------------------------------===//
// Environment: state features
//===----------------------------------------------------------------------===//

/// Length of the state vector (layout v3: the 256 floats of v2, then 47
/// per-op shape features; see mqss_feature_layout_version()).
#define MQSS_FEATURE_DIM 327

/// Number of past actions the context level records.
#define MQSS_HISTORY_LEN 10

/// Computes the state vector of `module` into `out` (MQSS_FEATURE_DIM
/// floats). The context level comes from `history` (`n_history` action
/// indices into `catalog`, oldest first; may be NULL/0), `step` and
/// `max_steps`. `catalog` may be NULL (then history is ignored). Every value
/// is finite; most lie in [0, 1]. Layout: see mqss_feature_name() and
/// docs/FEATURES.md.
mqss_status mqss_features(const mqss_module *module,
                          const mqss_catalog *catalog, const int *history,
                          int n_history, int max_steps, float *out);

/// Name of feature `i` (e.g. "syn.op.linalg.matmul"), or NULL when out of
/// range. Static storage.
const char *mqss_feature_name(int i);

/// One-line description of feature `i`, or NULL when out of range. Static.
const char *mqss_feature_doc(int i);

/// 64-bit hash of the layout (every name in order, and the graph's node
/// columns), recorded in policy files.
uint64_t mqss_feature_layout_hash(void);

/// Version of this build's feature layout (3). Policies trained on an older
/// version are migrated when loaded (docs/POLICY_FORMAT.md, "Migration").
int mqss_feature_layout_version(void);

//===----------------------------------------------------------------------===//
// Environment: IR graph
//===----------------------------------------------------------------------===//

/// Per-node feature length of mqss_graph.x.
#define MQSS_GRAPH_FEATURE_DIM 21

/// The IR as a graph for GraphSAGE with mean aggregation. Nodes [0, n_ops)
/// are operations in walk (pre-)order, nodes [n_ops, n_nodes) are blocks.
/// Edges, each stored in both directions: producer op (or block, for a block
/// argument) <-> user op, op <-> its block, block <-> the op owning its
/// region. Neighbours of node i are col[row_ptr[i] .. row_ptr[i+1]), sorted
/// and without duplicates; a node's own row never lists itself. Node
/// features, row-major (n_nodes, dim): column 0 is the op-kind id (blocks:
/// -1), which the policy looks up in its op-kind embedding; the other
/// columns are numbers (docs/FEATURES.md, "Graph node columns", lists them:
/// counts, depth, type, and for linalg ops flops, flop/byte, the mqss.id
/// tag, loop extents and which candidate tile sizes divide them).
/// Every pointer is owned by the graph and lives until mqss_graph_destroy().
typedef struct {
  int n_nodes;   ///< ops + blocks
  int n_ops;     ///< nodes [0, n_ops) are ops
  int dim;       ///< MQSS_GRAPH_FEATURE_DIM
  int nnz;       ///< row_ptr[n_nodes]
  float *x;      ///< (n_nodes, dim) node features
  int *row_ptr;  ///< (n_nodes + 1)
  int *col;      ///< (nnz) neighbour node ids
  int *kind;     ///< (n_nodes) op-kind id, -1 for blocks
} mqss_graph;

/// Builds the graph of `module`. Destroy it with mqss_graph_destroy().
mqss_status mqss_graph_build(const mqss_module *module, mqss_graph **out);

/// Destroys a graph. NULL is harmless.
void mqss_graph_destroy(mqss_graph *graph);

/// Name of node feature column `i` of mqss_graph.x ("kind", "flops", ...),
/// or NULL when out of range. Static storage.
const char *mqss_graph_feature_name(int i);

/// One-line description of node column `i`, or NULL when out of range.
/// Static storage.
const char *mqss_graph_feature_doc(int i);

/// Number of op kinds in the fixed vocabulary (ids 0..n-1; the last ids are
/// per-dialect overflow buckets).
int mqss_op_kind_count(void);

/// Name of op kind `id` ("linalg.matmul", or "other.linalg" for a bucket),
/// or NULL when out of range. Static storage.
const char *mqss_op_kind_name(int id);

//===----------------------------------------------------------------------===//
// Environment: episodes, reward (docs/ENV.md)
//===----------------------------------------------------------------------===//

/// Per-module baseline the reward is normalised against: what the
/// hand-tuned (or plain finisher) pipeline gives on this module. Field names
/// follow baseline.json. Plain data.
typedef struct {
  double comp_time;   ///< compile time, ms (> 0)
  double run_time;    ///< run time (median), ms (> 0)
  int64_t size;       ///< machine-code .text bytes (> 0; <= 0 = unknown)
} mqss_env_baseline;

/// Reward terms, in the order of mqss_env_options.weights.
enum {
  MQSS_REWARD_SUCCESS,
  MQSS_REWARD_COMPILE,
  MQSS_REWARD_RUNTIME,
  MQSS_REWARD_SIZE,
  MQSS_REWARD_PERF,
  MQSS_REWARD_TERMS
};

/// Settings of an environment. Fill with mqss_env_options_init() and change
/// what you need. The strings inside `measure` are copied by
/// mqss_env_create().
typedef struct {
  int max_steps;           ///< decisions per episode before it ends (default 16)
  /// Weight of each term (MQSS_REWARD_*): success 0.3, compile 0.2,
  /// runtime 0.4, size 0.1, perf 0 (perf-counter term; see docs/ENV.md).
  double weights[MQSS_REWARD_TERMS];
  double success_ok;       ///< success term when the measurement is ok (+1)
  double success_fail;     ///< ... on crash, timeout, verifier failure, wrong
                           ///< output or any other failure (-5)
  double clip_min, clip_max; ///< bounds of each normalised gain term (-1, 1)
  double ema_alpha;        ///< EMA of final rewards: 0 = off (default), else
                           ///< ema = alpha * ema + (1 - alpha) * reward (0.95)
  double shaping;          ///< coefficient of the per-step shaping (0.05; 0 off)
  double step_fail_penalty;///< reward of a step whose pass fails (-1)
  int graph;               ///< nonzero: observations carry the IR graph (1)
  mqss_measure_options measure; ///< final and baseline measurements; the
                           ///< pipeline field is ignored, check_reference
                           ///< is forced on
} mqss_env_options;

/// Fills `opts` with the defaults documented on each field.
void mqss_env_options_init(mqss_env_options *opts);

/// An environment: one episode at a time on its own clone of a module. Plain
/// memory plus the session it was created with (no threads, no open files),
/// so a forked child can keep using a copy it inherited.
typedef struct mqss_env mqss_env;

/// Creates an environment over `catalog` (must have a STOP action). `opts`
/// NULL means the defaults. Both `session` and `catalog` must outlive the
/// env. Destroy it with mqss_env_destroy().
mqss_status mqss_env_create(mqss_session *session, const mqss_catalog *catalog,
                            const mqss_env_options *opts, mqss_env **out);

/// Destroys an environment. NULL is harmless.
void mqss_env_destroy(mqss_env *env);

/// What the agent sees. Pointers are owned by the env and valid until the
/// next mqss_env_reset/step/destroy on it.
typedef struct {
  float state[MQSS_FEATURE_DIM]; ///< mqss_features() with history and step
  const uint8_t *mask;     ///< (catalog size) 1 = allowed (mqss_action_mask)
  int n_allowed;           ///< ones in mask (>= 1: STOP)
  int step;                ///< decisions taken so far
  const mqss_graph *graph; ///< the IR graph, or NULL when opts.graph == 0
  const mqss_module *module; ///< the env's current module (do not modify)
} mqss_env_obs;

/// What happened to one decision.
typedef enum {
  MQSS_STEP_APPLIED,  ///< the pass ran; the IR is the new state
  MQSS_STEP_BLOCKED,  ///< the safety layer blocked it: skipped, reward 0
  MQSS_STEP_FAILED,   ///< the pass failed or left invalid IR: IR reverted,
                      ///< reward step_fail_penalty
  MQSS_STEP_STOP      ///< STOP: the episode ends
} mqss_step_status;

/// Returns "applied", "blocked", "failed" or "stop" (else "unknown").
const char *mqss_step_status_name(mqss_step_status status);

/// Reward terms of a finished episode (mqss_env_reward()). Plain data.
typedef struct {
  double term[MQSS_REWARD_TERMS]; ///< unweighted, after clipping
  int perf_used;          ///< nonzero when the perf term was computed
  double total;           ///< sum of weight * term
  /// The runtime term's ratio baseline run_time / measured median (before
  /// log and clip), 0 when unknown; and, from an episode whose baseline the
  /// env measured itself, its approximate 95% interval from the two
  /// medians' spreads (docs/ENV.md); 0 when the baseline was given (spread
  /// unknown) or a side has fewer than 3 runs. Unpaired: wider than
  /// mqss_measure_vs's.
  double runtime_ratio, runtime_lo, runtime_hi;
} mqss_env_reward_terms;

/// Details of one step. Plain data, safe to copy.
typedef struct {
  mqss_step_status status;
  int action;             ///< catalog index of the decision
  int n_params;           ///< parameters of the action
  int64_t params[MQSS_MAX_PARAMS]; ///< mapped values (choice: index)
  char pipeline[512];     ///< anchored pipeline of the decision ("" for STOP)
  char reason[256];       ///< why blocked or failed; "" otherwise
  double apply_ms;        ///< wall time of the pass application alone
  double cost;            ///< static cost estimate after the step
  double shaping;         ///< the shaping part of the reward
  int done;               ///< the episode ended with this step
  // Filled when done:
  char episode_pipeline[4096]; ///< what was measured (docs/ENV.md)
  mqss_measure_result measure; ///< the final measurement
  mqss_env_reward_terms terms; ///< the final reward's terms
  double reward_raw;      ///< shaping + terms.total
  double reward_ema;      ///< EMA after this episode (== raw when EMA off)
  int perf_available;     ///< hardware cycle counters work here
  int notice;             ///< nonzero on the first step that has a notice
                          ///< (see mqss_env_notice)
  int64_t op;             ///< the op the decision addressed (its mqss.id),
                          ///< 0: every op of the action's kinds, or none
  int repeats;            ///< repeats applied with it: the same schedule on
                          ///< each further focus op it fits (docs/ENV.md)
} mqss_env_info;

/// Starts an episode on a clone of `module` (which is not modified and may be
/// destroyed afterwards). `baseline` gives the normalisation; NULL measures
/// the plain finisher once (sandboxed, cached in the env per module hash and
/// in opts.measure.cache_path). Fails with MQSS_ERR_INVALID_ARG when that
/// baseline measurement is not ok (the message says why).
mqss_status mqss_env_reset(mqss_env *env, const mqss_module *module,
                           const mqss_env_baseline *baseline,
                           mqss_env_obs *obs);

/// Takes one decision. A blocked action is skipped (reward 0); a failing
/// pass is reverted (reward step_fail_penalty); otherwise the reward is the
/// shaping term. When the episode ends (STOP or max_steps) the episode's
/// pipeline is measured in the sandbox and the final reward is added;
/// `*done` is then 1 and further steps fail until the next reset. `obs`,
/// `reward`, `done` and `info` may each be NULL. A schedule decision with
/// op 0 addresses the focus op when it is of one of the action's kinds, as
/// selection does (the per-op rule, docs/POLICY.md); the episode's module
/// is tagged (mqss_module_tag_ops) at reset.
mqss_status mqss_env_step(mqss_env *env, const mqss_decision *decision,
                          mqss_env_obs *obs, float *reward, int *done,
                          mqss_env_info *info);

/// The baseline of the current episode. NULL before the first reset. Owned
/// by the env, valid until the next reset.
const mqss_env_baseline *mqss_env_get_baseline(const mqss_env *env);

/// Notices the env wants to say once (for example "perf counters
/// unavailable: perf term disabled"), one per line, or "". Owned by the env,
/// valid until it is destroyed.
const char *mqss_env_notice(const mqss_env *env);

/// Sets the EMA state (for trainers that run each episode in a fresh forked
/// copy of the env and carry the EMA themselves). NaN = no value yet.
void mqss_env_set_ema(mqss_env *env, double ema);

/// Computes the final reward terms of a measurement `r` against `baseline`
/// under `opts` (pure: no IR, no measurement). Gains are
/// clip(log(base / got), clip_min, clip_max); a failed measurement gets
/// success_fail and zero gains. `cycles`/`base_cycles` feed the perf term
/// when both are > 0, else it is 0 and perf_used is 0.
void mqss_env_reward(const mqss_env_options *opts,
                     const mqss_env_baseline *baseline,
                     const mqss_measure_result *r, double cycles,
                     double base_cycles, mqss_env_reward_terms *out);

/// Static cost estimate of `module` (docs/ENV.md: dynamic op count weighted
/// by kind, from static trip counts and linalg domains), >= 1.
double mqss_env_static_cost(const mqss_module *module);

/// Shaping reward of one step: coef * clip((before - after) / cost0, -1, 1).
double mqss_env_shaping(double coef, double cost_before, double cost_after,
                        double cost0);

/// One record of mqss_env_rollout(): a step, or the end of an episode.
typedef struct {
  int episode;            ///< episode index
  int end;                ///< 1: end-of-episode record (see task fields)
  mqss_env_info info;     ///< the step (when end == 0)
  float u[MQSS_MAX_PARAMS]; ///< raw parameter values drawn
  float reward;           ///< the step's reward
  /// end == 1: how the episode's process ended: 0 normal, 1 crashed (signal
  /// in `signal`), 2 timeout, 3 failed.
  int task_status, signal;
} mqss_rollout_record;

/// Receives each record as it arrives. The pointer is valid for the call.
typedef void (*mqss_rollout_fn)(void *user, const mqss_rollout_record *rec);

/// Rollout settings. Fill with mqss_rollout_options_init().
typedef struct {
  int episodes;           ///< episodes to run (default 1)
  uint64_t seed;          ///< episode i uses the seed (seed, i) (default 1)
  int workers;            ///< worker processes (default 1)
  int timeout_ms;         ///< wall-clock limit per episode (default 300000)
} mqss_rollout_options;

/// Fills `opts` with the defaults documented on each field.
void mqss_rollout_options_init(mqss_rollout_options *opts);

/// Runs episodes of the random policy (uniform over the mask, parameters
/// uniform in [-1, 1]) on `module`, each in a forked child of a worker pool,
/// so a pass that crashes ends only its episode. The baseline is measured
/// once first (through `env`). Records arrive through `fn` in episode order
/// of completion; every episode ends with an end record.
mqss_status mqss_env_rollout(mqss_env *env, const mqss_module *module,
                             const mqss_rollout_options *opts,
                             mqss_rollout_fn fn, void *user);

// @@env (catalog, safety, features, graph, environment declarations go above this line)

//===----------------------------------------------------------------------===//
// Policy: loading, selection, guarded compilation, explanation
// (docs/POLICY.md)
//===----------------------------------------------------------------------===//

/// A trained policy bound to the action catalog it was trained for.
/// Immutable once loaded: any number of threads may call mqss_policy_select()
/// and mqss_policy_explain() on one policy at once, each with its own session
/// and module (per-call scratch belongs to the call).
typedef struct mqss_policy mqss_policy;

/// Options of mqss_policy_load(). Initialise with mqss_policy_options_init().
/// Strings are borrowed for the duration of the call.
typedef struct {
  const char *catalog_path;   ///< catalog to bind to; NULL = the default one
  int allow_version_mismatch; ///< nonzero: accept a policy trained with another MLIR
} mqss_policy_options;

/// Fills `opts` with the defaults documented on each field.
void mqss_policy_options_init(mqss_policy_options *opts);

/// Returns the path of the shipped default policy: $MQSS_POLICY when set,
/// else models/default.safetensors of the source tree this library was built
/// from. The file may not exist. Static storage (or the environment's).
const char *mqss_policy_default_path(void);

/// Loads the safetensors policy at `path` (NULL: the default path) and binds
/// it to a catalog. Checks the format, shapes, data checksum, the feature-
/// layout hash against mqss_feature_layout_hash(), the catalog hash against
/// the catalog, and the MLIR version against mqss_mlir_version() (unless
/// opts->allow_version_mismatch). Returns MQSS_ERR_IO (missing file),
/// MQSS_ERR_POLICY (any other problem with the file; the message names the
/// file and what to do), or a catalog-loading error. `opts` may be NULL. On
/// success stores a policy in `*out`; destroy it with mqss_policy_destroy().
/// The policy keeps `session` for error messages of load only; it may be
/// destroyed before or after the session.
mqss_status mqss_policy_load(mqss_session *session, const char *path,
                             const mqss_policy_options *opts,
                             mqss_policy **out);

/// Destroys a policy and its catalog. NULL is harmless.
void mqss_policy_destroy(mqss_policy *policy);

/// Returns the MLIR version the policy was trained with ("19.1.7"). Owned by
/// the policy, valid until it is destroyed.
const char *mqss_policy_mlir_version(const mqss_policy *policy);

/// Returns the catalog the policy is bound to. Owned by the policy. When the
/// loaded catalog appends actions to the one the policy was trained with
/// (its hash matches a prefix), this is that prefix: the appended actions
/// exist neither for the policy's choices nor for its features.
const mqss_catalog *mqss_policy_catalog(const mqss_policy *policy);

/// Runs one dummy decision on a tiny module in `session`, so that the first
/// real mqss_policy_select() does not pay one-time costs (BLAS, MLIR pass
/// and dialect initialisation, page faults on the weights). Optional.
mqss_status mqss_policy_warmup(const mqss_policy *policy,
                               mqss_session *session);

/// Largest mqss_select_options.max_steps accepted.
#define MQSS_MAX_SELECT_STEPS 1024

/// Options of mqss_policy_select(). Initialise with
/// mqss_select_options_init(); strings are borrowed for the call.
typedef struct {
  int max_steps;         ///< decisions at most, STOP excluded (default 0: the
                         ///< policy's training episode length, 16 if unknown;
                         ///< at most MQSS_MAX_SELECT_STEPS)
  int sample;            ///< nonzero: sample actions and parameters (default 0: greedy)
  uint64_t seed;         ///< seed of the sampler (default 1)
  const char *cache_dir; ///< directory of bad_sequences.jsonl to avoid; NULL = none
  int isolate;           ///< nonzero: select in a forked child (default 0), see below
  int timeout_ms;        ///< isolated: wall-clock limit of the child (default 60000)
  int mem_limit_mb;      ///< isolated: address space it may add to what it
                         ///< inherits, MiB, 0 = none (default 4096; ignored
                         ///< by sanitizer builds)
  /// Wall-clock budget of the selection in ms, counted from the call: once
  /// it is spent, no further step starts and the decisions so far are the
  /// selection (mqss_selection_budget_hit() says so). The first step always
  /// runs, so 0 means exactly one step. -1 = no budget (default).
  int time_budget_ms;
  /// 1: a schedule decision whose sizes do not divide the loops of the op it
  /// addresses is given the nearest sizes that do, instead of being masked
  /// for the step; -1: it is masked; 0 (default): as the policy was trained
  /// (1 when its train_config has expit.adapt_sizes=1, whose seeds were
  /// fitted so). The selection records the sizes used.
  int fit_sizes;
} mqss_select_options;

/// Fills `opts` with the defaults documented on each field.
void mqss_select_options_init(mqss_select_options *opts);

/// The decisions of one selection and their textual pipeline.
typedef struct mqss_selection mqss_selection;

/// Chooses passes for `module` (which is not modified): up to max_steps
/// times, computes the state (with the history so far), the IR graph and the
/// safety mask, runs the network and applies the chosen action to a private
/// working copy; stops at STOP. An action whose pipeline fails on the
/// working copy, or which would complete a sequence recorded as bad for this
/// module in opts->cache_dir, is masked and the step is chosen again.
/// A schedule decision addresses the focus op (its mqss_decision.op is the
/// op's tag) when that op is of one of the action's kinds; the working copy
/// is tagged first (docs/POLICY.md, "Per-op targeting").
/// Deterministic unless opts->sample. `opts` may be NULL. Errors go to the
/// module's session. On success stores the result in `*out`; destroy it with
/// mqss_selection_destroy().
///
/// Passes run in the calling process, so a pass that crashes takes the
/// caller with it. With opts->isolate the selection runs in a forked child
/// (the measurement sandbox; the fork costs ~6 ms, see
/// bench/policy_inference.sh). When a candidate pass crashes, hangs past
/// opts->timeout_ms or exhausts opts->mem_limit_mb, that step is recorded as
/// bad (in memory, and in opts->cache_dir when set) and the selection runs
/// again avoiding it, up to 4 times; then MQSS_ERR_CRASHED.
/// mqss_selection_notes() says what was avoided. Without a crash the result
/// is the same as in process.
/// Returns MQSS_ERR_INVALID_ARG for max_steps outside 0..MQSS_MAX_SELECT_STEPS
/// and MQSS_ERR_POLICY when the network computes a NaN or infinite logit,
/// mean or value (weights too large or corrupt; mqss_policy_explain() too).
///
/// A module that the finisher cannot lower gets no selection: when it holds
/// an op of a dialect that no finisher step handles (e.g. a gpu kernel), a
/// clone is finished first, and if that fails the finisher's error is
/// returned, prefixed with "no pipeline to select: ".
mqss_status mqss_policy_select(const mqss_policy *policy,
                               const mqss_module *module,
                               const mqss_select_options *opts,
                               mqss_selection **out);

/// Builds a selection from explicit decisions (catalog indices and raw
/// parameters; targets are ignored), for replaying or guarding a known
/// sequence. Returns MQSS_ERR_INVALID_ARG for an index out of range or STOP.
mqss_status mqss_selection_create(const mqss_catalog *catalog,
                                  const mqss_decision *decisions, int n,
                                  mqss_selection **out);

/// Destroys a selection. NULL is harmless.
void mqss_selection_destroy(mqss_selection *selection);

/// Number of decisions (STOP not counted).
int mqss_selection_count(const mqss_selection *selection);

/// Decision `i` (0 <= i < count), or NULL. Owned by the selection.
const mqss_decision *mqss_selection_decision(const mqss_selection *selection,
                                             int i);

/// Name of the action of decision `i`, or NULL. Owned by the catalog.
const char *mqss_selection_action_name(const mqss_selection *selection, int i);

/// Anchored pipeline of decision `i` with its parameters filled
/// ("func.func(affine-loop-tile{tile-size=32})"), or NULL. Owned by the
/// selection.
const char *mqss_selection_step_pipeline(const mqss_selection *selection,
                                         int i);

/// The whole selection as one pipeline that mlir-opt --pass-pipeline accepts:
/// "builtin.module(P1,P2,...)" ("builtin.module()" when empty), where a run
/// of consecutive schedule decisions is one transform interpreter on one
/// library (same IR as their step pipelines one after another, fewer
/// passes). Owned by the
/// selection. Decisions that address one op match it by its mqss.id tag:
/// mqss_module_run_pipeline() tags the module before the first schedule;
/// give mlir-opt the module tagged by mqss_module_tag_ops().
const char *mqss_selection_pipeline(const mqss_selection *selection);

/// The transform library of the selection's schedule actions: one module
/// with the named sequence of each distinct schedule decision (none when
/// the selection has no schedule action); consecutive schedule decisions
/// are private sequences that one public entry includes in order, as the
/// pipeline runs them with one transform interpreter. The pipeline's
/// transform-preload-library passes load the same sequences from
/// mqss_schedule_dir(); preloading this file instead (once, at the start)
/// and keeping the transform-interpreter passes gives the same IR. Returns
/// a string the caller frees with free(), or NULL when out of memory.
char *mqss_selection_schedule(const mqss_selection *selection);

/// Nonzero when the policy chose STOP (0: max_steps was reached, or the
/// selection was built by mqss_selection_create()).
int mqss_selection_stopped(const mqss_selection *selection);

/// Milliseconds mqss_policy_select() spent cloning the module and running
/// candidate actions' passes on it, those that changed nothing or failed
/// included; the rest of its time is the policy's own overhead. 0 for a
/// selection built by mqss_selection_create().
double mqss_selection_pass_ms(const mqss_selection *selection);

/// What an isolated selection had to avoid (one line per crashing step), or
/// "" when nothing.
const char *mqss_selection_notes(const mqss_selection *selection);

/// Nonzero when mqss_select_options.time_budget_ms ended the selection: the
/// policy had neither chosen STOP nor reached max_steps when it ran out.
int mqss_selection_budget_hit(const mqss_selection *selection);

/// Most alternatives mqss_selection_odds() keeps per step.
#define MQSS_SELECTION_ALTS 4

/// How sure the policy was of step `i` (0 <= i < count), or of its final
/// STOP (i == count, when mqss_selection_stopped()): stores the probability
/// of the action it took in `*p` and up to `k` (at most MQSS_SELECTION_ALTS)
/// of the actions it ranked next, most likely first, in `actions` (catalog
/// indices, STOP included) and `probs`; returns how many it stored. The
/// probabilities are the policy's distribution (an ensemble's combined one)
/// over the actions allowed when the step was chosen, after any that were
/// refused at that step. Returns -1 when the step has no such record: a
/// repeat of the decision before it on a further op (the per-op rule), a
/// selection built by mqss_selection_create() or kept by the guard, or `i`
/// out of range. `actions` and `probs` may be NULL when `k` is 0.
int mqss_selection_odds(const mqss_selection *selection, int i, int k,
                        float *p, int *actions, float *probs);

/// Options of the guard. Initialise with mqss_guard_options_init(); strings
/// are borrowed for the call.
typedef struct {
  const char *baseline;  ///< fallback pipeline; NULL/"" = the finisher alone
  const char *cache_dir; ///< measure.sqlite + bad_sequences.jsonl; NULL = none
  uint64_t seed;         ///< seed of the deterministic inputs (default 1)
  int timeout_ms;        ///< limit of the check's sandbox child (default 30000)
  int mem_limit_mb;      ///< address space it may add to what it inherits,
                         ///< MiB; 0 = none (default 4096; sanitizer builds
                         ///< need 0)
  double rtol, atol;     ///< slack on top of the output check's error model
                         ///< (default 1e-6, 1e-12, as mqss_measure_options)
  /// Outputs the check leaves out, as mqss_measure_options.skip_outputs
  /// (borrowed).
  const char *const *skip_outputs;
  int num_skip_outputs;  ///< length of skip_outputs
  int ignore_schedule;   ///< as mqss_measure_options.ignore_schedule
  /// mqss_policy_compile_guarded(): > 0 selects with
  /// mqss_policy_select_budget() and this budget (proposals measured with
  /// warmup 1, repeat 5, the cache of cache_dir), then measures the accepted
  /// selection against a non-empty `baseline` (confirm_pairs interleaved
  /// pairs) and uses the baseline when it is confirmed faster by 2%. When
  /// that is not confirmed but the estimate is above 1.02, it measures again
  /// with three times the pairs and decides on that. 0 = the pure policy,
  /// outputs checked only (default)
  int budget;
  double max_compile;    ///< with a budget: mqss_budget_options.max_compile (default 4)
  int confirm_pairs;     ///< with a budget: mqss_budget_options.confirm_pairs (default 20)
} mqss_guard_options;

/// Fills `opts` with the defaults documented on each field.
void mqss_guard_options_init(mqss_guard_options *opts);

/// What the guard decided. Plain data.
typedef struct {
  int used_fallback;            ///< nonzero: the baseline was used
  mqss_measure_status verdict;  ///< outcome of the chosen pipeline's check
  int cached;                   ///< nonzero: the verdict came from the cache
  int recorded;                 ///< nonzero: the sequence was logged as bad
  char chosen[8192];            ///< the selection's pipeline
  char used[8192];              ///< the pipeline that was (or is to be) used
  char reason[1024];            ///< one line: why that pipeline
  int budget_hit;               ///< mqss_policy_compile_guarded(): the
                                ///< selection's time budget ended it
} mqss_guard_report;

/// Checks `selection` on `module` (not modified): runs its pipeline and the
/// reference (finisher only) in the measurement sandbox on the same
/// deterministic inputs and compares the outputs. When they differ, or the
/// pipeline fails, crashes, times out or cannot be checked, the report says
/// to use opts->baseline instead, and a wrong or crashing sequence is
/// appended to cache_dir/bad_sequences.jsonl (keyed by mqss_module_hash) so
/// that later selections avoid it. The verdict is cached through the
/// measurement cache (cache_dir/measure.sqlite). Returns MQSS_OK whenever
/// `report` holds a verdict; errors only when the harness itself failed.
mqss_status mqss_policy_fallback_to_baseline(const mqss_policy *policy,
                                             mqss_module *module,
                                             const mqss_selection *selection,
                                             const mqss_guard_options *opts,
                                             mqss_guard_report *report);

/// Guarded compilation (the C twin of `mqss compile --guard`): selects with
/// `sel_opts`, checks the choice with mqss_policy_fallback_to_baseline(),
/// then runs the pipeline the guard settled on and the finisher on `module`
/// in place, leaving it in the LLVM dialect. `report` says which pipeline
/// was used and why. Either options pointer may be NULL.
mqss_status mqss_policy_compile_guarded(const mqss_policy *policy,
                                        mqss_module *module,
                                        const mqss_select_options *sel_opts,
                                        const mqss_guard_options *opts,
                                        mqss_guard_report *report);

/// One feature's contribution to an action's log-probability.
typedef struct {
  int index;          ///< feature index (0..MQSS_FEATURE_DIM-1)
  const char *name;   ///< mqss_feature_name(index); static storage
  float value;        ///< the feature's value x_i in this state
  float weight;       ///< gradient x input: x_i * d log p(action) / d x_i
} mqss_feature_contribution;

/// Explains the policy's first decision on `module`: the `top_k` features
/// with the largest |gradient x input| of the log-probability of `action`
/// (a catalog name, "stop", or a decimal catalog index) with respect to the
/// state vector, largest first, into `out` (top_k entries, caller-owned).
/// Stores the number written in `*n_out` and, when `prob` is not NULL, the
/// action's probability. A masked action returns MQSS_ERR_INVALID_ARG with
/// the safety layer's reason. Errors go to the module's session.
mqss_status mqss_policy_explain(const mqss_policy *policy,
                                const mqss_module *module, const char *action,
                                int top_k, mqss_feature_contribution *out,
                                int *n_out, float *prob);

/// The op the policy's first decision of `action` on `module` would address
/// (docs/POLICY.md, "Per-op targeting"): the `mqss.id` tag of the focus op
/// in `*op` and its op name ("linalg.matmul") in `kind` (kind_len bytes),
/// as `mqss opt --tag` numbers the ops. `*op` = 0 and kind "" when the
/// action is not a schedule, or addresses every op of its kinds. Errors go
/// to the module's session.
mqss_status mqss_policy_explain_op(const mqss_policy *policy,
                                   const mqss_module *module,
                                   const char *action, int64_t *op,
                                   char *kind, size_t kind_len);

//===----------------------------------------------------------------------===//
// Search baselines (docs/SEARCH.md)
//===----------------------------------------------------------------------===//

/// Search method of mqss_search().
///  - RANDOM: sequences of up to max_len steps, each drawn uniformly among
///    the actions the safety mask allows on the IR the sequence has produced
///    so far, parameters uniform in [-1, 1]; STOP ends a sequence early.
///  - GREEDY: from the empty sequence, try every allowed action (parametric
///    ones at u in {-1, 0, 1} per parameter) appended to the current
///    sequence; the next step extends the step's fastest correct candidate
///    (even when it is no faster: enabling passes pay off later) until the
///    budget or max_len steps run out or a step has no correct candidate. The
///    best is the fastest candidate that beats the previous best by min_gain.
///  - POLICY: policy-guided (needs mqss_search_options.policy): first the
///    `prior` sequence, then the thread variant of the best so far (the
///    prior, or the reference: the same sequence after one parallel-tile
///    decision per heavy linalg op, a split into as many tiles as there are
///    cores, docs/SCHEDULES.md "Threads"; when the module has such an op
///    and the policy's catalog the action),
///    then up to `proposals` distinct proposals of the
///    policy (its greedy choice with fit_sizes as it was trained, the same
///    with fit_sizes, then sampled selections with fit_sizes; the same
///    pipeline twice counts once); with `explore`,
///    the rest of the budget goes in thirds to greedy steps from the best
///    sequence so far, to mutations of the best so far (one step's parameter
///    redrawn, or the step dropped) and to random sequences. Used by expert
///    iteration, by `mqss search --method policy` and (without `explore`) by
///    mqss_policy_select_budget().
typedef enum {
  MQSS_SEARCH_RANDOM = 0,
  MQSS_SEARCH_GREEDY = 1,
  MQSS_SEARCH_POLICY = 2,
} mqss_search_method;

/// Returns "random", "greedy" or "policy" ("unknown" otherwise). Static storage.
const char *mqss_search_method_name(mqss_search_method method);

/// One evaluation: one candidate pipeline passed to mqss_measure(). Every
/// candidate counts, cache hits included (flagged by `cached`).
typedef struct {
  int index;                  ///< 0-based; evaluation 0 is the empty pipeline
  const char *source;         ///< what proposed it: "reference" (evaluation 0),
                              ///< "random", "greedy", or for POLICY "prior",
                              ///< "threads", "proposal", "greedy", "mutation",
                              ///< "random"
                              ///< (static storage)
  char *pipeline;             ///< "builtin.module(...)" or "" (owned by the result)
  int n_decisions;            ///< decisions in the sequence (STOP excluded)
  mqss_measure_status status; ///< outcome; only OK candidates can be best
  int cached;                 ///< nonzero when mqss_measure hit the cache
  double run_ms;              ///< median run time (0 unless OK)
  double compile_ms;          ///< compile time (pipeline + finisher + LLVM)
  double elapsed_ms;          ///< wall time since the search started, at the end
  double best_run_ms;         ///< best accepted run time after this evaluation
  int best_index;             ///< index of the best accepted evaluation after it
  int slow_compile;           ///< nonzero: OK but over the compile-time limit
                              ///< (mqss_search_options.max_compile), so never best
  /// (n_decisions) the candidate's decisions (owned by the result; NULL
  /// when n_decisions is 0). Replaying them gives `pipeline`.
  mqss_decision *decisions;
} mqss_search_eval;

/// Called after each evaluation (for progress output), in order. The
/// pointer is valid during the call only.
typedef void (*mqss_search_progress_fn)(const mqss_search_eval *eval,
                                        void *user);

/// Settings of mqss_search(). Initialise with mqss_search_options_init().
typedef struct {
  mqss_search_method method;    ///< default RANDOM
  int budget;                   ///< evaluations at most, evaluation 0 included (default 50, >= 1)
  uint64_t seed;                ///< seed of random search's draws (default 1)
  int max_len;                  ///< steps per sequence at most (default 16):
                                ///< decisions, a schedule decision's repeats
                                ///< on further ops aside (docs/SEARCH.md)
  int kind_wide;                ///< nonzero: a schedule decision addresses
                                ///< every op of its kinds, not the focus op,
                                ///< so the winner carries no mqss.id tag and
                                ///< replays on other modules (a family
                                ///< baseline); default 0
  double min_gain;              ///< relative run-time gain that counts as better (default 0.02)
  int confirm_pairs;            ///< A/B pairs of the final mqss_measure_vs; 0 = skip (default 20)
  mqss_measure_options measure; ///< settings of every measurement; .pipeline is ignored
  mqss_search_progress_fn progress; ///< NULL = none
  void *progress_user;          ///< passed to progress
  int confirm_top;              ///< candidates re-measured by the confirmation, the
                                ///< fastest first (default 3, 0..MQSS_SEARCH_CONFIRM_MAX)
  const mqss_policy *policy;    ///< POLICY: the guiding policy (borrowed; its
                                ///< catalog must be `catalog`); NULL otherwise
  int proposals;                ///< POLICY: distinct policy proposals at most (default 8)
  int explore;                  ///< POLICY: nonzero: spend the budget left after the
                                ///< proposals on greedy steps, mutations and random
                                ///< sequences (default 1)
  const mqss_decision *prior;   ///< POLICY: a sequence measured first (e.g. an
                                ///< earlier winner), borrowed; NULL = none
  int n_prior;                  ///< length of prior
  /// Compile-time limit, as a multiple of evaluation 0's compile time (the
  /// module without passes, measured by every search): a candidate that
  /// compiled longer is measured and kept in the trace (flagged
  /// slow_compile) but never becomes the best, a greedy step's pick, or a
  /// confirmation candidate. 0 = no limit (default; the search comparators
  /// and expert iteration run without one). A speed bought with a minute of
  /// compile time is not one a user of `select --budget` wants.
  double max_compile;
} mqss_search_options;

/// Fills `opts` with the defaults documented on each field (measure: the
/// defaults of mqss_measure_options_init()).
void mqss_search_options_init(mqss_search_options *opts);

/// Number of slots of mqss_search_result.failures_by_status.
#define MQSS_SEARCH_STATUS_SLOTS 16

/// Most candidates the confirmation re-measures (mqss_search_options.confirm_top).
#define MQSS_SEARCH_CONFIRM_MAX 8

/// One candidate re-measured by the confirmation: mqss_measure_vs(A = the
/// candidate, B = the empty pipeline) with confirm_pairs interleaved pairs.
typedef struct {
  int index;                  ///< its evaluation index in the trace
  mqss_measure_status status; ///< OK when both sides were; else the failing side's
  double speedup;             ///< Hodges-Lehmann time(reference) / time(candidate)
  double lo, hi;              ///< its interval (coverage `conf`)
  double conf;                ///< the interval's coverage (0.95 with >= 6 pairs)
  int verdict;                ///< mqss_ratio_verdict(lo, hi, min_gain): +1 = confirmed
} mqss_search_confirmation;

/// What mqss_search() found. Free the owned memory with
/// mqss_search_result_free().
typedef struct {
  mqss_search_method method;
  char *best_pipeline;     ///< best correct candidate; "" = the empty pipeline (owned)
  int best_index;          ///< its evaluation index (0 = the empty pipeline)
  double reference_run_ms; ///< run time of evaluation 0 (the plain finisher)
  double best_run_ms;      ///< run time of the best during the search
  double speedup;          ///< reference_run_ms / best_run_ms (search measurements)
  /// Confirmation (docs/SEARCH.md): the confirm_top fastest correct
  /// candidates that beat the reference by min_gain in the search are each
  /// re-measured with mqss_measure_vs(A = candidate, B = "") and
  /// confirm_pairs interleaved pairs. The winner is the candidate with the
  /// largest Hodges-Lehmann speedup among those whose whole interval clears
  /// 1 + min_gain, or of the confirmed ones level with it (intervals
  /// overlapping) the one whose search measurement compiled fastest.
  /// confirmed_speedup is the winner's speedup; 1 when no
  /// candidate is confirmed ("no confirmed speedup": the reference stands)
  /// or there was nothing to confirm; 0 when the confirmation was skipped
  /// (confirm_pairs 0) or every paired measurement failed.
  int confirmed;           ///< nonzero when mqss_measure_vs ran
  double confirmed_speedup;
  /// The winner's paired result; with no winner, the fastest candidate's
  /// (its numbers say why it was not confirmed).
  mqss_measure_vs_result confirm;
  int evaluations;         ///< candidates measured (== n_trace), cache hits included
  int cache_hits;          ///< of those, answered by the cache
  int failures;            ///< candidates whose status was not OK
  int failures_by_status[MQSS_SEARCH_STATUS_SLOTS]; ///< indexed by mqss_measure_status
  int slow_compiles;       ///< OK candidates over the compile-time limit (slow_compile)
  double search_ms;        ///< wall time of the evaluations
  double confirm_ms;       ///< wall time of the confirmation
  double wall_ms;          ///< search_ms + confirm_ms + overhead: the whole call
  int n_trace;
  mqss_search_eval *trace; ///< (n_trace) every evaluation in order (owned)
  /// The confirmed winner's evaluation index and pipeline; 0 and "" when no
  /// speedup was confirmed (owned; NULL only when the search failed).
  int winner_index;
  char *winner_pipeline;
  double confirmed_lo, confirmed_hi; ///< interval of `confirm` (time(ref) / time(A))
  int n_confirmations;     ///< candidates re-measured
  mqss_search_confirmation confirmations[MQSS_SEARCH_CONFIRM_MAX]; ///< (n_confirmations), fastest first
} mqss_search_result;

/// Searches pass pipelines for `module` with opts->method, measuring each
/// candidate sequence's pipeline (the decisions' texts concatenated in one
/// builtin.module(...)) on the unmodified `module` with mqss_measure()
/// (reference check as set in opts->measure). Evaluation 0 is always the
/// empty pipeline; it gives reference_run_ms. Failed candidates are counted
/// per status and never become best. Finally re-measures the fastest
/// candidates with mqss_measure_vs() and names a winner only when its
/// speedup interval clears 1 + min_gain (see mqss_search_result). The candidates tried depend only on the seed, the
/// catalog, the module and (greedy only) which candidates measured faster.
/// `module` is not modified. Returns MQSS_OK with `out` filled (free it with
/// mqss_search_result_free() in every case); MQSS_ERR_INVALID_ARG for bad
/// options or when the empty pipeline itself does not measure OK (the
/// message gives its status and message); or what mqss_measure() returned
/// when the harness failed. The session must have no other threads (it
/// forks).
mqss_status mqss_search(mqss_module *module, const mqss_catalog *catalog,
                        const mqss_search_options *opts,
                        mqss_search_result *out);

/// Frees what `result` owns and zeroes it. NULL is harmless.
void mqss_search_result_free(mqss_search_result *result);

/// Writes `module`, which must be fully lowered to the LLVM dialect (see
/// mqss_module_finish()), to `path` in the format its name ends with: .mlir
/// (the LLVM-dialect module as text), .ll (LLVM IR, not optimised) or .o (a
/// host object file: LLVM's default<O3> pipeline, as the measurement's JIT
/// runs it, then code generation). Returns MQSS_ERR_INVALID_ARG for another
/// extension, MQSS_ERR_FINISH when translation to LLVM IR fails, MQSS_ERR_IO,
/// MQSS_ERR_INTERNAL when the LLVM pipeline fails.
mqss_status mqss_module_emit(const mqss_module *module, const char *path);

/// Writes an UNTRAINED policy for `catalog` to `path`: random weights from
/// `seed` (GraphSAGE + MLP for arch "gnn" or NULL, MLP only for "mlp") and
/// metadata that matches this build (feature-layout hash, the catalog's
/// hash, mqss_mlir_version()), with train_config "untrained: random init".
/// For tests, benchmarks and plumbing only: its choices are arbitrary.
/// Errors are set on `session`.
mqss_status mqss_policy_write_random(mqss_session *session,
                                     const mqss_catalog *catalog,
                                     const char *arch, uint64_t seed,
                                     const char *path);

/// Version of the metrics log format: the "v" field of every line.
#define MQSS_METRICS_FORMAT 1

/// What one compilation of one module did, as one line of a metrics log
/// (JSONL, docs/INTEGRATION.md; mqss-opt --mqss-metrics and the pass
/// plugin's `metrics` option write it). Initialise with
/// mqss_metrics_record_init(); strings are borrowed for the call, and NULL
/// ones are written as null.
typedef struct {
  const char *tool;            ///< program writing the line ("mqss-opt", ...)
  const char *source;          ///< input file name, or NULL
  uint64_t module_hash;        ///< mqss_module_hash() of the input
  int selector;                ///< nonzero: the policy was asked (A/B switch on)
  const char *chosen;          ///< the policy's pipeline; NULL when it chose none
  int decisions;               ///< decisions in `chosen`
  const char *pipeline;        ///< the pipeline that ran (chosen or fallback)
  double decision_ms;          ///< wall time of the selection, ms
  int fallback;                ///< nonzero: the fallback ran instead of `chosen`
  const char *fallback_reason; ///< why, one line; NULL without fallback
  int time_budget_ms;          ///< the selection's budget; -1 = none (default)
  int budget_hit;              ///< the budget ended the selection
  double compile_ms;           ///< wall time of running `pipeline`, ms
  int guarded;                 ///< nonzero: outputs were checked
  const char *verdict;         ///< mqss_measure_status_name() of the check, or NULL
  /// time(fallback pipeline) / time(chosen), and its 95% interval, from a
  /// paired measurement; 0 = not measured (written as null).
  double speedup, speedup_lo, speedup_hi;
} mqss_metrics_record;

/// Fills `record` with zeros, NULLs and time_budget_ms = -1.
void mqss_metrics_record_init(mqss_metrics_record *record);

/// Formats `record` as one JSON line: the fields above ("module" as 16 hex
/// digits, "v", and "time" in Unix seconds), and last a checksum field
/// "fnv1a" (FNV-1a 64 of the line's bytes before it) that
/// mqss_metrics_line_check() verifies. Ends with a newline. Returns a string
/// the caller frees with free(), or NULL when out of memory.
char *mqss_metrics_format(const mqss_metrics_record *record);

/// Appends mqss_metrics_format(record) to the file at `path` (created when
/// missing) in one write, so that processes sharing a log do not interleave
/// lines. Returns MQSS_ERR_IO, with a message naming the path, when it
/// cannot be written. Errors go to `session`.
mqss_status mqss_metrics_append(mqss_session *session, const char *path,
                                const mqss_metrics_record *record);

/// Returns 1 when the `len` bytes at `line` (a trailing newline allowed) are
/// a complete metrics line whose checksum matches, 0 when the line is torn,
/// edited or not a metrics line.
int mqss_metrics_line_check(const char *line, size_t len);
/// Options of mqss_policy_select_budget() (any-time selection). Initialise
/// with mqss_budget_options_init().
typedef struct {
  int budget;                   ///< distinct candidates measured besides the policy's
                                ///< own choice (its thread variant, then proposals);
                                ///< 0 = the pure policy (default 0)
  double min_gain;              ///< relative gain a proposal must clear (default 0.02)
  int confirm_pairs;            ///< A/B pairs of the confirmation (default 20, >= 1)
  mqss_measure_options measure; ///< settings of every measurement (.pipeline is
                                ///< ignored; the output check stays on)
  double max_compile;           ///< a proposal may compile at most this multiple of
                                ///< the module's time without passes
                                ///< (mqss_search_options.max_compile); the own
                                ///< choice is exempt; 0 = no limit (default 4)
} mqss_budget_options;

/// Fills `opts` with the defaults documented on each field (measure: those
/// of mqss_measure_options_init(), with warmup 1 and repeat 5).
void mqss_budget_options_init(mqss_budget_options *opts);

/// What mqss_policy_select_budget() did. Plain data.
typedef struct {
  int measured;           ///< candidates measured (cache hits included), the
                          ///< reference and the policy's own choice included
  int failed;             ///< of those, not OK (crash, wrong output, ...)
  int slow;               ///< proposals measured OK but over the compile-time
                          ///< limit (mqss_budget_options.max_compile): never
                          ///< kept (the own choice, exempt, is not counted)
  int policy_ok;          ///< nonzero: the policy's own choice passed its output check
  int kept;               ///< 0 = the policy's own choice, 1 = another proposal,
                          ///< 2 = no passes (the own choice failed; nothing confirmed),
                          ///< 3 = no passes (the own choice was confirmed slower
                          ///< than the reference; nothing confirmed faster)
  double speedup, lo, hi; ///< kept == 1: its Hodges-Lehmann speedup over the policy's
                          ///< choice (over the reference when that failed), and
                          ///< the interval; 1 otherwise
  char reason[1024];      ///< one line: why that selection
} mqss_budget_report;

/// Any-time selection (`mqss select --budget N`). With opts->budget == 0 it
/// is exactly mqss_policy_select(). Otherwise it runs the policy-guided
/// search (MQSS_SEARCH_POLICY, no exploration): the policy's own choice,
/// then up to `budget` distinct candidates: the thread variant of the own
/// choice (or of no passes, when the own choice is not faster than them),
/// and proposals (the greedy choice with
/// mqss_select_options.fit_sizes, then sampled selections with it, seeds
/// sel_opts->seed+2, ...), each measured in the sandbox with the output
/// check. A proposal other than the own choice is kept only when
/// re-measurement confirms it: its speedup interval over the reference
/// clears 1 + min_gain, and (when the own choice passed its check) so does
/// its interval over the own choice.
/// Otherwise the own choice is kept, or the empty selection (the finisher
/// alone) when the own choice failed its check, or when nothing was confirmed
/// faster than the reference and a confirmation (confirm_pairs pairs) finds
/// the own choice slower than the reference by more than min_gain. So with
/// budget > 0 the result never is a pipeline whose output check failed, nor
/// one confirmed slower than no passes, except when the module cannot be
/// measured at all (no pipeline measures OK, e.g. no drivable entry): then
/// the own choice stands and the reason says why. `sel_opts` and `report` may be
/// NULL; `opts` NULL means budget 0. Destroy `*out` with
/// mqss_selection_destroy(). The session must have no other threads (it forks).
mqss_status mqss_policy_select_budget(const mqss_policy *policy,
                                      mqss_module *module,
                                      const mqss_select_options *sel_opts,
                                      const mqss_budget_options *opts,
                                      mqss_selection **out,
                                      mqss_budget_report *report);

// @@policy (policy network and inference declarations go above this line)

#ifdef __cplusplus
}
#endif

#endif // MQSS_MQSS_H
