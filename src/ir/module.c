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
  if (!iterator_types_parse_safely(text, len, &line, &col))
    return fail(s, MQSS_ERR_PARSE,
                "cannot parse '%s': %s:%u:%u: linalg.generic's iterator_types "
                "must be an array of strings (\"parallel\", \"reduction\", "
                "\"window\"); MLIR 19's parser crashes on anything else; "
                "write them as strings",
                name, name, line, col);
  MlirModule mod =
      mlirModuleCreateParse(s->ctx, (MlirStringRef){.data = text, .length = len});
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
                "pipeline '%s' %s on '%s'", pipeline,
                valid ? "failed" : "produced invalid IR", m->name);
    }
  }
  mlirPassManagerDestroy(pm);
  sb_free(&text);
  return st;
}
