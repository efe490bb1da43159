// Internal declarations shared by the library's source files. Not installed,
// not API: the only contract is include/mqss/mqss.h.
#ifndef MQSS_INTERNAL_H
#define MQSS_INTERNAL_H

#include "mqss/mqss.h"

#include <mlir-c/IR.h>
#include <stdbool.h>
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
  strbuf errmsg;         // message of the last failed call
  const char *source;    // file name substituted for "-" in locations
};

// Clears captured diagnostics; `source` names the buffer being processed.
void diag_reset(mqss_session *s, const char *source);
// Sets the session message to the formatted text, followed by ": " and the
// captured diagnostics when there are any. Returns `status`.
mqss_status fail(mqss_session *s, mqss_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
// Formats `loc` as "file:line:col" into sb ("<unknown>" when it has none).
void format_location(mqss_session *s, MlirLocation loc, strbuf *sb);

// Registers the passes MLIR 19 has only in C++ (cxx_passes.cpp):
// mqss-math-approx and mqss-lower-vector-contract. Once per process.
void register_cxx_passes(void);

// Milliseconds on the monotonic clock (clock.c).
double now_ms(void);
// Sorts v (n) ascending (stats.c).
void sort_doubles(double *v, int n);
// Median of v (n), which is sorted in place; 0 when n <= 0.
double median_of(double *v, int n);

// ----------------------------------------------------------------------------
// module

struct mqss_module {
  mqss_session *session;
  MlirModule mod;
  char *name;            // source name for locations, owned
  strbuf finish_pipeline; // what the last finish ran
};

// True when `m` holds an op that no finisher step lowers (finish.c): a
// device dialect, or a dialect the step table does not name. One walk, no
// pass; a module without such ops may still fail to finish, but rarely.
bool finish_has_unknown_ops(const mqss_module *m);

// A structural hash of `m` for change detection within one process
// (fingerprint.c): equal for equal IR in one context, and much cheaper than
// mqss_module_hash. Not stable across processes: never persist it.
uint64_t module_fingerprint(const mqss_module *m);

// ----------------------------------------------------------------------------
// env: catalog, safety, features, graph (src/actions, src/features)

// The session a catalog reports errors to.
mqss_session *catalog_session(const mqss_catalog *c);
// The top-level func.func of `m` whose sym_name is `name`, or a null op.
MlirOperation find_function(const mqss_module *m, const char *name);

// What the safety layer needs to know about a piece of IR, from one walk.
typedef struct {
  unsigned stages;       // MQSS_STAGE_* bits present
  int n_names, cap_names;
  MlirStringRef *names;  // (n_names) distinct op names, owned by the context
} ir_summary;

// Scans `root` and everything nested in it into `out` (zeroed first).
void ir_summary_scan(MlirOperation root, ir_summary *out);
// True when an op called `what` ("affine.for") or of dialect `what`
// ("arith") occurs.
bool ir_summary_has(const ir_summary *sum, const char *what);
void ir_summary_free(ir_summary *sum);
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

#endif // MQSS_INTERNAL_H
