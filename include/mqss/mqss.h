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
  X(MQSS_ERR_INTERNAL, 9, "internal error")

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

/// Parses the MLIR file at `path`. On failure returns MQSS_ERR_IO (missing or
/// unreadable file) or MQSS_ERR_PARSE, and the session message names the file,
/// line and column. On success stores a new module in `*out`; destroy it with
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

#ifdef __cplusplus
}
#endif

#endif // MQSS_MQSS_H
