// Modules: parse from a file or a string, clone, print, hash, and run a
// textual pass pipeline. Lowering to LLVM lives in finish.c.
#include "internal.h"
#include "actions/linalg_ops.h"
#include "actions/schedule.h"

#include <errno.h>
#include <mlir-c/Pass.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// ----------------------------------------------------------------------------
// parse

static mqss_status wrap(mqss_session *s, MlirModule mod, const char *name,
                        mqss_module **out) {
  mqss_module *m = calloc(1, sizeof *m);
  char *copy = strdup(name);
  if (!m || !copy) {
    free(m);
    free(copy);
    mlirModuleDestroy(mod);
    return fail(s, MQSS_ERR_NOMEM, "out of memory");
  }
  m->session = s;
  m->mod = mod;
  m->name = copy;
  *out = m;
  return MQSS_OK;
}

// MLIR 19's parser of vector.contract in its custom syntax crashes on more
// malformed text than bad_syntax.c names (a type list one type short reads
// past its end; mistyped attributes are cast unchecked). A module with such
// an op is parsed once in a sandboxed child first (isolated.c), and a
// crash there becomes a parse error here. Every other module is parsed
// once, in process.
enum { PARSE_TRIAL_MS = 30000, PARSE_TRIAL_MB = 4096 };

typedef struct {
  mqss_session *s;
  const char *text;
  size_t len;
} parse_job;

static mqss_status parse_and_verify(void *ctx) {
  const parse_job *j = ctx;
  MlirModule mod = mlirModuleCreateParse(
      j->s->ctx, (MlirStringRef){.data = j->text, .length = j->len});
  if (!mlirModuleIsNull(mod)) {
    (void)mlirOperationVerify(mlirModuleGetOperation(mod));
    mlirModuleDestroy(mod);
  }
  return MQSS_OK; // errors are reported by the parse in process
}

static mqss_status trial_parse(mqss_session *s, const char *text, size_t len,
                               const char *name) {
  unsigned line, col;
  if (!custom_op_at(text, len, "vector.contract", &line, &col))
    return MQSS_OK;
  parse_job j = {s, text, len};
  char died[256] = "";
  mqss_status st = isolated_trial(s, parse_and_verify, &j, PARSE_TRIAL_MS,
                                  PARSE_TRIAL_MB, died, sizeof died);
  diag_reset(s, name); // the trial cleared the source name diagnostics carry
  if (st != MQSS_ERR_CRASHED)
    return st;
  char *stage = strstr(died, " during "); // the sandbox's stage: not a pass
  if (stage)
    *stage = '\0';
  return fail(s, MQSS_ERR_PARSE,
              "cannot parse '%s': %s:%u:%u: MLIR 19's parser died reading "
              "this module in a child process (%s); its parser of "
              "vector.contract (first here) crashes on malformed text: check "
              "each one's dictionary, its three operands (and two masks) and "
              "its types (two vector types, then `into`), or write it in the "
              "generic form",
              name, name, line, col, died);
}

// The number of the last line of `text` that holds more than blanks.
static unsigned last_line(const char *text, size_t len) {
  unsigned line = 1, last = 1;
  for (size_t i = 0; i < len; i++) {
    if (text[i] == '\n')
      line++;
    else if (text[i] != ' ' && text[i] != '\t' && text[i] != '\r')
      last = line;
  }
  return last;
}

// MLIR's lexer finds the end of its buffer by a NUL byte past `len`.
static mqss_status parse_terminated(mqss_session *s, const char *text,
                                    size_t len, const char *name,
                                    mqss_module **out) {
  unsigned line, col;
  if (!nesting_within(text, len, &line, &col))
    return fail(s, MQSS_ERR_PARSE,
                "cannot parse '%s': %s:%u:%u: nesting deeper than %d levels "
                "(parentheses, brackets, braces and angle brackets together) "
                "would overflow the stack in MLIR's parser; flatten the IR or "
                "split the module",
                name, name, line, col, MQSS_MAX_NESTING);
  const char *why = custom_syntax_unsafe(text, len, &line, &col);
  if (why)
    return fail(s, MQSS_ERR_PARSE, "cannot parse '%s': %s:%u:%u: %s", name,
                name, line, col, why);
  mqss_status st = trial_parse(s, text, len, name);
  if (st != MQSS_OK)
    return st;
  MlirModule mod =
      mlirModuleCreateParse(s->ctx, (MlirStringRef){.data = text, .length = len});
  // Truncated text: MLIR's parse ran into the end (its error is on the last
  // line) with an opener still open.
  char open = mlirModuleIsNull(mod) && s->diag_line == last_line(text, len)
                  ? nesting_unclosed(text, len, &line, &col)
                  : 0;
  if (open)
    return fail(s, MQSS_ERR_PARSE, "cannot parse '%s': %s:%u:%u: this '%c' is "
                "never closed, the text ends inside it (a truncated file, or "
                "a missing '%c'); MLIR says", name, name, line, col, open,
                open == '{' ? '}' : open == '(' ? ')' : ']');
  if (mlirModuleIsNull(mod))
    return fail(s, MQSS_ERR_PARSE, "cannot parse '%s'", name);
  // The parser checks syntax; the verifier checks op semantics.
  if (!mlirOperationVerify(mlirModuleGetOperation(mod))) {
    mlirModuleDestroy(mod);
    return fail(s, MQSS_ERR_PARSE, "cannot parse '%s'", name);
  }
  return wrap(s, mod, name, out);
}

mqss_status mqss_module_parse_string(mqss_session *s, const char *text,
                                     size_t len, const char *name,
                                     mqss_module **out) {
  if (!s || !text || !out)
    return s ? fail(s, MQSS_ERR_INVALID_ARG, "parse: NULL argument")
             : MQSS_ERR_INVALID_ARG;
  *out = NULL;
  if (!name)
    name = "<string>";
  diag_reset(s, name);
  char *copy = malloc(len + 1);
  if (!copy)
    return fail(s, MQSS_ERR_NOMEM, "out of memory");
  memcpy(copy, text, len);
  copy[len] = '\0';
  mqss_status st = parse_terminated(s, copy, len, name, out);
  free(copy);
  return st;
}

mqss_status mqss_module_parse_file(mqss_session *s, const char *path,
                                   mqss_module **out) {
  if (!s || !path || !out)
    return s ? fail(s, MQSS_ERR_INVALID_ARG, "parse: NULL argument")
             : MQSS_ERR_INVALID_ARG;
  *out = NULL;
  diag_reset(s, path);
  strbuf text = {0};
  if (!sb_read_file(&text, path)) {
    int err = errno;
    sb_free(&text);
    return fail(s, MQSS_ERR_IO, "cannot open '%s': %s", path, strerror(err));
  }
  mqss_status st = parse_terminated(s, text.data, text.len, path, out);
  sb_free(&text);
  return st;
}

mqss_module *mqss_module_clone(const mqss_module *m) {
  if (!m)
    return NULL;
  MlirOperation op = mlirOperationClone(mlirModuleGetOperation(m->mod));
  mqss_module *c = NULL;
  if (wrap(m->session, mlirModuleFromOperation(op), m->name, &c) != MQSS_OK)
    return NULL;
  return c;
}

void mqss_module_destroy(mqss_module *m) {
  if (!m)
    return;
  mlirModuleDestroy(m->mod);
  sb_free(&m->finish_pipeline);
  free(m->name);
  free(m);
}

mqss_session *mqss_module_session(const mqss_module *m) {
  return m ? m->session : NULL;
}

// ----------------------------------------------------------------------------
// print and hash

struct print_ctx {
  mqss_write_fn write;
  void *user;
};

static void print_callback(MlirStringRef s, void *user) {
  struct print_ctx *p = user;
  p->write(s.data, s.length, p->user);
}

void mqss_module_print(const mqss_module *m, mqss_write_fn write, void *user) {
  if (!m || !write)
    return;
  struct print_ctx p = {write, user};
  mlirOperationPrint(mlirModuleGetOperation(m->mod), print_callback, &p);
}

char *mqss_module_to_string(const mqss_module *m) {
  if (!m)
    return NULL;
  strbuf sb = {0};
  mlirOperationPrint(mlirModuleGetOperation(m->mod), sb_mlir_callback, &sb);
  if (!sb.data)
    sb_append(&sb, "", 0);
  return sb.data;
}

char *mqss_module_to_string_with_locations(const mqss_module *m) {
  if (!m)
    return NULL;
  strbuf sb = {0};
  MlirOpPrintingFlags flags = mlirOpPrintingFlagsCreate();
  mlirOpPrintingFlagsEnableDebugInfo(flags, /*enable=*/true, /*prettyForm=*/false);
  mlirOperationPrintWithFlags(mlirModuleGetOperation(m->mod), flags,
                              sb_mlir_callback, &sb);
  mlirOpPrintingFlagsDestroy(flags);
  if (!sb.data)
    sb_append(&sb, "", 0);
  return sb.data;
}

static void fnv1a_callback(MlirStringRef s, void *user) {
  uint64_t *h = user;
  for (size_t i = 0; i < s.length; i++) {
    *h ^= (unsigned char)s.data[i];
    *h *= 0x100000001b3ULL;
  }
}

uint64_t mqss_module_hash(const mqss_module *m) {
  uint64_t h = 0xcbf29ce484222325ULL;
  if (!m)
    return h;
  MlirOpPrintingFlags flags = mlirOpPrintingFlagsCreate();
  mlirOpPrintingFlagsPrintGenericOpForm(flags);
  mlirOpPrintingFlagsEnableDebugInfo(flags, /*enable=*/false, /*prettyForm=*/false);
  mlirOperationPrintWithFlags(mlirModuleGetOperation(m->mod), flags,
                              fnv1a_callback, &h);
  mlirOpPrintingFlagsDestroy(flags);
  return h;
}

// ----------------------------------------------------------------------------
// pipelines

mqss_status mqss_module_run_pipeline(mqss_module *m, const char *pipeline) {
  if (!m || !pipeline)
    return m ? fail(m->session, MQSS_ERR_INVALID_ARG, "pipeline: NULL argument")
             : MQSS_ERR_INVALID_ARG;
  mqss_session *s = m->session;
  diag_reset(s, m->name);

  // Schedules address linalg ops by their mqss.id tag: a module meets its
  // first transform schedule tagged (focus.c), as a decision applied in
  // process is (decision.c). `mqss opt --tag` gives mlir-opt the same input.
  if (strstr(pipeline, "transform-interpreter"))
    linalg_tag_once(mlirModuleGetOperation(m->mod));
  // Transform libraries are loaded into the context once (schedule.c).
  char *own = NULL;
  mqss_status pst =
      schedule_preload(s, mlirModuleGetOperation(m->mod), pipeline, &own);
  if (pst != MQSS_OK)
    return pst;
  // Accept both "builtin.module(a,b)" and the bare "a,b".
  strbuf text = {0};
  const char *anchor = "builtin.module(";
  if (strncmp(own, anchor, strlen(anchor)) == 0)
    sb_printf(&text, "%s", own);
  else
    sb_printf(&text, "%s%s)", anchor, own);
  free(own);

  MlirPassManager pm = mlirPassManagerCreate(s->ctx);
  mqss_status st = pipeline_parse(s, mlirPassManagerGetAsOpPassManager(pm),
                                  text.data, pipeline);
  if (st == MQSS_OK) {
    MlirOperation op = mlirModuleGetOperation(m->mod);
    if (mlirLogicalResultIsFailure(mlirPassManagerRunOnOp(pm, op))) {
      // The pass manager verifies after each pass: invalid IR left behind
      // means a verifier failure, not a pass that gave up.
      bool valid = mlirOperationVerify(op);
      st = fail(s, valid ? MQSS_ERR_PASS_FAILED : MQSS_ERR_VERIFY,
                "pipeline '%.*s%s' %s on '%s'", PIPELINE_QUOTE(pipeline),
                valid ? "failed" : "produced invalid IR", m->name);
    }
  }
  mlirPassManagerDestroy(pm);
  sb_free(&text);
  return st;
}
