// Internal declarations of the measurement harness (src/measure/): the entry
// signature, the sandbox child's building blocks, output comparison and the
// SQLite cache. Not API: the contract is the measurement block of mqss.h.
#ifndef MQSS_MEASURE_INTERNAL_H
#define MQSS_MEASURE_INTERNAL_H

#include "internal.h"

#include <llvm-c/LLJIT.h>
#include <mlir-c/ExecutionEngine.h>
#include <stdbool.h>
#include <stdint.h>

enum { MAX_RANK = 8, MAX_VALUES = 32 };

// ----------------------------------------------------------------------------
// entry signature (entry.c)

// The element types the harness generates, passes and compares. New ones go
// last: cached reference outputs store the number (reference.c).
typedef enum {
  ET_F32, ET_F64, ET_I8, ET_I16, ET_I32, ET_I64, ET_INDEX, ET_BF16, ET_F16,
  ET_I1, // one byte an element, as LLVM stores it
  ET_LAST = ET_I1
} elem_type;

// One argument or result of the entry, as written in the source module.
typedef struct {
  bool shaped;             // memref or tensor (else a scalar)
  bool tensor;             // tensor: not compared as an in-place output
  elem_type et;
  int rank;
  int64_t shape[MAX_RANK]; // static sizes, (rank,)
  int64_t count;           // elements: product of shape, 1 for scalars
} value_spec;

typedef struct {
  char name[128];
  int nargs, nresults;
  value_spec args[MAX_VALUES];    // (nargs,)
  value_spec results[MAX_VALUES]; // (nresults,)
} entry_spec;

size_t elem_size(elem_type et);
const char *elem_name(elem_type et);
// Finds the entry (`want`, or @forward, @main, the single public function) and
// reads its signature. Returns MQSS_MEASURE_OK or UNSUPPORTED with `msg` set.
mqss_measure_status entry_find(mqss_module *m, const char *want,
                               entry_spec *out, char *msg, size_t msglen);
// The kernel of a program (`mqss eval --kernels`): the one public function
// with a body other than @main, its name copied to `name`. False, with `msg`
// naming the module and the candidates, when there is not exactly one.
bool entry_kernel(mqss_module *m, char *name, size_t len, char *msg,
                  size_t msglen);
// OUT_OF_MEMORY (with `msg` naming the largest shape) when the harness's
// copies of the entry's arguments cannot fit in `mem_limit_mb` (0: in
// physical memory); else MQSS_MEASURE_OK.
mqss_measure_status entry_check_memory(const entry_spec *e, int mem_limit_mb,
                                       char *msg, size_t msglen);
// LLVM-level argument count of the lowered entry (memrefs expand to
// 3 + 2*rank words), or -1 when the lowered module has no such llvm.func.
int entry_lowered_nargs(mqss_module *lowered, const char *name);
int entry_expected_nargs(const entry_spec *e);

// ----------------------------------------------------------------------------
// inputs and outputs (values.c)

// A strided memref descriptor as the LLVM lowering lays it out:
// {allocated, aligned, offset, sizes[rank], strides[rank]}.
typedef struct {
  void *allocated;
  void *aligned;
  int64_t offset;
  int64_t ss[2 * MAX_RANK]; // sizes (rank,) then strides (rank,)
} memref_desc;

// One output: contiguous copy of a memref (or a scalar) after a run.
typedef struct {
  elem_type et;
  int64_t count;
  void *data;   // (count,) elements, owned
  char what[48]; // "result 0", "argument 2"
} output_buf;

typedef struct {
  int n;
  output_buf v[2 * MAX_VALUES]; // results first, then memref arguments
  strbuf out;                   // the program's captured standard output
} outputs;

// The argument vector of one entry call through the packed wrapper
// `_mlir_NAME`: one pointer per LLVM-level argument, then the result slot.
typedef struct {
  const entry_spec *e;
  void *pristine[MAX_VALUES];  // (nargs,) generated inputs, never passed
  void *buf[MAX_VALUES];       // (nargs,) working copies passed to the call
  memref_desc desc[MAX_VALUES];
  int64_t scalar[MAX_VALUES];  // scalar argument storage (any width fits)
  void **packed;               // (nwords + 1,)
  int nwords;
  unsigned char *result;       // storage of the returned struct
  size_t result_offset[MAX_VALUES];
} call_args;

// Generates inputs from `seed` and builds the packed vector. False on OOM.
bool call_args_init(call_args *c, const entry_spec *e, uint64_t seed);
// Restores every argument buffer from its pristine copy (untimed).
void call_args_reset(call_args *c);
// Replaces every float input by its absolute value (the magnitude run of the
// error model) and resets the arguments. Returns the float inputs changed.
int64_t call_args_abs(call_args *c);
// Multiplies every float input by 1 + SENSITIVITY_EPS or 1 - SENSITIVITY_EPS,
// the signs drawn from `seed` (the sensitivity run of the error model), and
// resets the arguments. Returns the float inputs changed.
#define SENSITIVITY_EPS 0x1p-16
int64_t call_args_perturb(call_args *c, uint64_t seed);
// Frees the buffers the last call returned (the caller owns them): every
// distinct allocated pointer of a shaped result except a global's and one
// into an argument buffer. Call it once per call, after the outputs are read.
void call_args_free_results(call_args *c);
void call_args_free(call_args *c);
// Copies the results and memref arguments after a call into `o`.
bool outputs_collect(outputs *o, const call_args *c);
void outputs_free(outputs *o);

// ----------------------------------------------------------------------------
// the error model's static half, timers and skip sets (errmodel.c, clock.c,
// skip.c)

// Rounding depth D of `m` (>= 1): an upper estimate of the roundings that
// feed one output value (docs/MEASURE.md, "Correctness check").
double error_depth(mqss_module *m);

// The two sensitivity runs' share of the dynamic half (sensitivity.c).
// `pert` holds the reference's outputs on inputs perturbed by
// call_args_perturb, `up` its outputs on the same inputs with every
// operation rounded upwards. Raises each float element of `mag` to at least
// |pert - val| / SENSITIVITY_EPS and |up - val| / (u * error_steps(depth)),
// so that code which amplifies rounding (exp in a softmax over long
// reductions, division by small values) gets a bound to match. Buffers
// whose shapes differ between them are left alone.
void sensitivity_fold(outputs *mag, const outputs *val, const outputs *pert,
                      const outputs *up, double depth);

// The timer functions the JIT links (rtclock, nanoTime): real clocks, or one
// of two synthetic probes. Per process; set before a run.
typedef enum { CLOCK_REAL, CLOCK_PROBE_A, CLOCK_PROBE_B } clock_mode;
void clock_set_mode(clock_mode m);
// Makes `ee` link the harness's timer functions instead of the libraries'.
void clock_register(MlirExecutionEngine ee);
// True when `m` calls or declares a known timer function.
bool module_reads_clock(mqss_module *m);

// Outputs and printed lines left out of the check.
typedef struct {
  uint64_t results, args; // bit n: result n / argument n
  bool stdout_all;        // all of the standard output
  strbuf lines;           // byte k nonzero: stdout line k + 1
} skip_set;

// Adds one --skip-output spec (result:N, arg:N, line:N[-M], stdout); false
// with `err` set when it does not parse.
bool skip_parse(skip_set *s, const char *spec, char *err, size_t errlen);
// Adds the outputs and lines that differ between runs `a` and `b` (all of
// stdout when they printed a different number of lines).
void skip_from_probe(skip_set *s, const outputs *a, const outputs *b);
// False with `err` set when `s` names a result or argument `e` lacks.
bool skip_fits(const skip_set *s, const entry_spec *e, char *err,
               size_t errlen);
bool skip_output(const skip_set *s, const output_buf *b); // s may be NULL
bool skip_line(const skip_set *s, int64_t line);          // from 1
bool skip_empty(const skip_set *s);
// Appends "skipped result 0, stdout line 3 (why)" when `s` is not empty.
void skip_describe(const skip_set *s, const char *why, strbuf *out);
void skip_free(skip_set *s);

// ----------------------------------------------------------------------------
// comparison (compare.c)

// Everything the check compares a candidate with, made once per module.
typedef struct {
  outputs val;     // the reference outputs
  outputs mag;     // magnitude run: the reference on |float inputs|
  bool has_mag;    // false when the entry has no float inputs
  double depth;    // D, from error_depth()
  skip_set clock;  // outputs that depend on the clock
} reference;
void reference_free(reference *r);
// Writes `ref` to `fd` as one blob (reference.c).
void ref_write(int fd, const reference *ref);
// Reads a blob back; false (and nothing kept) when it is absent or
// incomplete (the child died while writing). `bytes` gets its size.
bool ref_read(int fd, reference *ref, size_t *bytes);

// ----------------------------------------------------------------------------
// embedded transform schedules (schedule.c)

// At the start of the sandbox child: the module the reference and the
// candidate start from. With an embedded @__transform_main that is a clone
// of `m` with the schedule applied (transform-interpreter) and then removed,
// returned in `*owned`; with o->ignore_schedule it is `m` itself (*owned
// NULL) and r->notes says the schedule is dropped. False with r->status and
// r->message set when the schedule fails.
bool schedule_apply(mqss_module *m, const mqss_measure_options *o,
                    mqss_module **owned, mqss_measure_result *r);

typedef struct {
  bool equal;
  int64_t nvalues;
  int64_t skipped; // values left out (skip sets)
  double max_error;
  int output;     // -1 when equal
  int64_t index;  // -1 when equal
  double got, want;
  double worst;   // error at the recorded mismatch
  double bound;   // the error the model allowed there
  char what[64];  // "result 0", "stdout number"
} compare_result;

// Part of every checked measurement's cache key: bump it when the check's
// rules change, so that verdicts of an older model are never reused.
//   2: the sensitivity runs (sensitivity.c)
#define ERROR_MODEL_VERSION 2

// Element k of `data` (type `et`) as a double.
double elem_get(elem_type et, const void *data, int64_t k);
// Stores x as element k of `data` (a float type `et`), rounded to nearest
// even, and a finite x over the type's largest finite value as that value
// (an infinity would lose the magnitude it carries).
void elem_put(elem_type et, void *data, int64_t k, double x);
// True for f32, f64, bf16 and f16.
bool elem_is_float(elem_type et);

// Unit roundoff of a float type: 2^-53 for f64, 2^-24 for f32, 2^-8 for
// bf16, 2^-11 for f16.
double unit_roundoff(elem_type et);
// min(D, 8*sqrt(D)): the rounding steps the bound allows for depth D.
double error_steps(double depth);

// Bound of one float value (docs/MEASURE.md): atol + rtol*|want| +
// 2*u*M*min(D, 8*sqrt(D)), M = max(|want|, |magnitude|) or the floor.
double error_bound(double want, double mag, double floor, double u,
                   double depth, double rtol, double atol);

// Compares `got` with `ref`: integers exactly, floats within error_bound(),
// printed numbers in the standard output likewise (plus the rounding of
// printing) and the other printed words exactly (hexadecimal pointers are
// skipped). Outputs and lines in ref->clock or `user` (may be NULL) are left
// out.
void outputs_compare(const outputs *got, const reference *ref,
                     const skip_set *user, double rtol, double atol,
                     compare_result *r);
// True when two printed texts have the same tokens, pointers aside.
bool text_equal(const char *a, size_t na, const char *b, size_t nb);
uint64_t outputs_checksum(const outputs *o);

// ----------------------------------------------------------------------------
// compile and run, inside the sandbox child (jit.c)

typedef struct {
  mqss_module *mod; // lowered clone, owned
  MlirExecutionEngine ee;        // the JIT, or null when loaded from the cache
  LLVMOrcLLJITRef lljit;         // a cached object file linked, or NULL
  void (*fn)(void **);
  uint64_t lowered_hash; // mqss_module_hash of the lowered module
  strbuf object;         // the object file, when kept (object cache, code size)
} compiled;

// For a lowered program that calls MLIR's async runtime, before its JIT:
// loads the runtime and fills its worker pool, which a confined child could
// no longer do (async_pool.c).
void async_pool_start(mqss_module *lowered);

// For a lowered program with OpenMP ops, before its JIT: loads libomp and
// creates its team of threads, which a confined child could no longer do
// (omp_pool.c).
void omp_pool_start(mqss_module *lowered);

// Clones `m`, runs `pipeline` (may be NULL) and the finisher, JIT-compiles.
// Fills the status and timing fields of `r`; false when it did not get that
// far (r->status and r->message say why).
// `stage_base` is 0, or STAGE_REF_OFFSET for the reference.
bool compile_variant(mqss_module *m, const char *pipeline,
                     const mqss_measure_options *o, const entry_spec *e,
                     int stage_base, compiled *out, mqss_measure_result *r);
// compile_variant in two steps: lower_variant clones, runs the pipeline and
// the finisher, and sets out->lowered_hash (and r->lowered_hash, pipeline_ms,
// finish_ms); jit_variant then JIT-compiles what lower_variant left.
bool lower_variant(mqss_module *m, const char *pipeline, const entry_spec *e,
                   int stage_base, compiled *out, mqss_measure_result *r);
bool jit_variant(const mqss_measure_options *o, const entry_spec *e,
                 int stage_base, compiled *c, mqss_measure_result *r);
void compiled_free(compiled *c);
// JIT-compiles the plain reference of `m` untimed and drops it: the first
// JIT in a child costs about 40 ms more than later ones (docs/MEASURE.md), so
// a child that times a side's compile without compiling the reference first
// calls this before it.
void warm_jit(mqss_module *m, const mqss_measure_options *o,
              const entry_spec *e);
// ExecutionEngines created by this process so far (an object-cache hit
// creates none).
int jit_engines_created(void);
// .text* bytes of the object file the JIT linked, or -1. Needs the object
// kept: compile_variant keeps the candidate's when o->code_size is set.
int64_t text_bytes(const compiled *c);
// Runs the entry once with the arguments reset; with `capture` the standard
// output goes to `capture->out`, else to /dev/null. Returns milliseconds.
double run_once(const compiled *c, call_args *a, outputs *capture);

// ----------------------------------------------------------------------------
// sandbox (sandbox.c)

// Stages the child reports as it goes, so a crash names where it happened.
// The reference's stages are the candidate's plus STAGE_REF_OFFSET.
typedef enum {
  STAGE_START, STAGE_PIPELINE, STAGE_FINISH, STAGE_JIT, STAGE_CODE_SIZE,
  STAGE_RUN, STAGE_DONE, STAGE_REF_OFFSET = 16
} child_stage;
const char *stage_name(int stage);
void child_report_stage(int stage);
// In a sandbox child: fatal signals (SIGSEGV, SIGXCPU, SIGXFSZ, ...) back to
// their default action, so they end the child; a no-op elsewhere.
void child_default_signals(void);
// In a sandbox child: caps the size of files written (the captured output)
// at o->output_limit_mb while the program runs (`running`), and lifts the
// cap afterwards; a no-op elsewhere.
void child_program_output(bool running);

// In a sandbox child: `fd` stays open when the child is confined (the
// reference blob's memfd); a no-op elsewhere.
void child_keep_fd(int fd);

// The program's standard output around one call of JIT-compiled code: begin
// points fd 1 at a capture (`capture`) or at /dev/null; end restores it and
// appends what was captured to `out` (may be NULL). In a sandbox child the
// first begin confines the child (confine.c): from then on it cannot open
// files, so the capture and /dev/null descriptors are made once, before.
typedef struct {
  int saved;  // fd 1 before begin (in process), or -1
  int target; // where fd 1 points during the call
  void *tmp;  // FILE * of an in-process capture, or NULL
} program_io;
void program_io_begin(program_io *io, bool capture);
void program_io_end(program_io *io, strbuf *out);
// Appends what `fd` holds, from offset 0, to `sb`.
void fd_read_all(int fd, strbuf *sb);

// ----------------------------------------------------------------------------
// confinement (confine.c)

// Exit code of a child that made a blocked system call (after its 'F'
// record).
enum { CONFINE_EXIT_FORBIDDEN = 87 };
// In a sandbox child: closes every descriptor from 3 up except `keep` (n),
// installs the SIGSYS handler that reports a blocked call on `result_fd`,
// and loads the seccomp allowlist. False with `err` set when the kernel
// refuses the filter.
bool confine_install(int result_fd, const int *keep, int nkeep, char *err,
                     size_t errlen);
// Name of system call `nr` on this machine ("execve"), or a placeholder.
void confine_syscall_name(int nr, char *out, size_t len);

// malloc/aligned_alloc for JIT-compiled code: in a sandbox child a failed
// allocation reports OUT_OF_MEMORY and ends the child; in process it returns
// NULL like malloc.
void *guarded_malloc(size_t size);
void *guarded_aligned_alloc(size_t align, size_t size);

typedef void (*child_fn)(void *user, void *reply, size_t reply_size);

// Runs `fn` in a forked child under the limits of `o`; the child fills
// `reply` (reply_size bytes), which is copied back into the parent's `reply`.
// When the child dies before replying, `r` gets CRASHED / TIMEOUT /
// OUT_OF_MEMORY and false is returned. With o->no_sandbox `fn` runs in
// process. Returns MQSS_ERR_INTERNAL (via fail) when fork/pipe fail.
mqss_status sandbox_run(mqss_session *s, const mqss_measure_options *o,
                        child_fn fn, void *user, void *reply, size_t reply_size,
                        bool *replied, mqss_measure_result *r);

// Where the wall time of the calling thread's last sandbox_run went, in ms
// on the monotonic clock (for bench/measure_overhead). In process, only
// work_ms and total_ms are set.
typedef struct {
  double setup_ms;    // parent: pipe, capture file, flush, reaping
  double fork_ms;     // parent: the fork() call
  double start_ms;    // fork() called -> the child runs
  double limits_ms;   // child: signals, rlimits, affinity
  double work_ms;     // child: the work function
  double reply_ms;    // child done -> parent has read the reply (EOF)
  double teardown_ms; // parent: parse, reap or classify, close
  double total_ms;
  double work_faults; // page faults during the work function
  double work_cpu_ms; // CPU time (user + system) of the work function
} sandbox_timing;
void sandbox_last_timing(sandbox_timing *out);

// ----------------------------------------------------------------------------
// cache (cache.c)

// Canonical pipeline text (MLIR's printed form), or the status of parsing it.
mqss_status pipeline_canonical(mqss_session *s, const char *pipeline,
                               strbuf *out);
// Looks up `key`; true and `r` filled on a hit. Errors are reported through
// the session and make it a miss.
mqss_status cache_get(mqss_session *s, const char *path, const char *key,
                      mqss_measure_result *r, bool *hit);
// Stores `r` under `key` unless a row is already there (first writer wins:
// two processes that measured the same thing at once keep one answer), then
// copies the stored row into `r`, so every caller sees the same result.
mqss_status cache_put(mqss_session *s, const char *path, const char *key,
                      mqss_measure_result *r);
// Version of the stored row format, part of every key.
int cache_format(void);
// The object file stored under `key` (table objects, checksummed) into
// `obj`, and the LLVM time its compilation took into *llvm_ms; false on a
// miss or a corrupt entry (which is deleted). Best effort: errors are misses.
bool cache_object_get(mqss_session *s, const char *path, const char *key,
                      strbuf *obj, double *llvm_ms);
// Stores an object file and the LLVM time it took under `key` unless one is
// there. Best effort.
void cache_object_put(mqss_session *s, const char *path, const char *key,
                      const void *obj, size_t len, double llvm_ms);
// Copies a stored row (blob, len bytes) into `r` when its checksum matches
// `key` and its fields are in range; false for a corrupt or foreign row.
bool cache_row_decode(const char *key, const void *blob, size_t len,
                      mqss_measure_result *r);

// ----------------------------------------------------------------------------
// small helpers (stats.c)

// Sorts `x` (n,) in place and fills median, min, max and MAD.
void summarize(double *x, int n, double *median, double *min, double *max,
               double *mad);
void set_message(mqss_measure_result *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

// ----------------------------------------------------------------------------
// ratios of paired timings (ratio.c)

// Fills the ratio fields of `v` from the timed pairs ta, tb (n,) in ms:
// median/min/max/MAD of tb/ta and the Hodges-Lehmann estimate with its 95%
// interval over log(tb/ta). Pairs with a non-positive time are left out.
void vs_ratio_stats(const double *ta, const double *tb, int n,
                    mqss_measure_vs_result *v);

// ----------------------------------------------------------------------------
// shared by measure.c and measure_vs.c

// One measurement job, as the sandbox child sees it.
typedef struct {
  mqss_module *m;
  const mqss_measure_options *o;
  const entry_spec *e;
  const char *pipeline_b; // vs only
  const reference *ref;   // cached reference, or NULL: compute it
  int ref_fd;             // where a computed reference is written, or -1
  uint64_t module_hash;   // mqss_module_hash(m), for cache keys
  bool use_cache;         // look the lowered code up in o->cache_path
  const skip_set *skip;   // --skip-output (opts.skip_outputs), parsed
} measure_job;

void measure_result_init(mqss_measure_result *r, const char *entry);
// Checks the arguments (none NULL) and the option values; returns
// MQSS_ERR_INVALID_ARG (or IO) with the session message set.
mqss_status measure_check_options(mqss_module *m, const mqss_measure_options *o,
                                  const void *out);
// Parses opts.skip_outputs into `skip` (freed by the caller either way).
mqss_status measure_parse_skips(mqss_session *s, const mqss_measure_options *o,
                                skip_set *skip);
// Resolves the entry and checks the pipeline text. False when `r` already
// holds the outcome (unsupported entry, unparsable pipeline).
bool measure_prepare(mqss_module *m, const mqss_measure_options *o,
                     const char *pipeline, entry_spec *e, strbuf *canon,
                     mqss_measure_result *r);
// Before the sandbox: the cached reference of the job, or a memfd for the
// child to write a fresh one to. After it: publishes what the child wrote.
void ref_prepare(measure_job *j, mqss_module *m, const mqss_measure_options *o,
                 const entry_spec *e, strbuf *key);
void ref_collect(measure_job *j, const strbuf *key);
// In the child, in two steps, so that every compilation comes before the
// first run (which confines the child): reference_compile compiles the
// module through the finisher alone into `rc`; reference_run runs it for the
// reference outputs and what the check needs besides, and frees `rc`. False
// with r's status and message when compiling fails.
bool reference_compile(const measure_job *j, compiled *rc,
                       mqss_measure_result *r);
void reference_run(const measure_job *j, compiled *rc, call_args *a,
                   reference *ref);
// First run of a compiled variant: outputs, checksum and the comparison.
// False (with WRONG_OUTPUT) on a mismatch.
bool check_run(const measure_job *j, const compiled *c, call_args *a,
               const reference *ref, mqss_measure_result *r);

#endif // MQSS_MEASURE_INTERNAL_H
