// The session: one MLIR context with every dialect, pass and translation
// registered, plus the diagnostics it emits, captured as text with their
// file:line:col. It does not parse or transform anything itself.
#include "internal.h"

#include <mlir-c/Diagnostics.h>
#include <mlir-c/RegisterEverything.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// ----------------------------------------------------------------------------
// locations

// Finds the first `"file":line:col` in a printed location such as
// loc("x.mlir":3:5) or loc(callsite(... at "x.mlir":3:5)).
static bool parse_location(const char *text, const char **file, size_t *flen,
                           unsigned *line, unsigned *col) {
  for (const char *q = strchr(text, '"'); q; q = strchr(q + 1, '"')) {
    const char *end = strchr(q + 1, '"');
    if (!end)
      return false;
    if (sscanf(end + 1, ":%u:%u", line, col) == 2) {
      *file = q + 1;
      *flen = (size_t)(end - q - 1);
      return true;
    }
    q = end;
  }
  return false;
}

// format_location, also giving the line (0 when the location has none).
static unsigned format_location_line(mqss_session *s, MlirLocation loc,
                                     strbuf *sb) {
  strbuf text = {0};
  mlirLocationPrint(loc, sb_mlir_callback, &text);
  const char *file;
  size_t flen;
  unsigned line = 0, col;
  if (text.data && parse_location(text.data, &file, &flen, &line, &col)) {
    // mlirModuleCreateParse names its buffer "-"; use the real name.
    if (flen == 1 && file[0] == '-' && s->source)
      sb_printf(sb, "%s:%u:%u", s->source, line, col);
    else
      sb_printf(sb, "%.*s:%u:%u", (int)flen, file, line, col);
  } else {
    sb_printf(sb, "%s", s->source ? s->source : "<unknown>");
  }
  sb_free(&text);
  return line;
}

void format_location(mqss_session *s, MlirLocation loc, strbuf *sb) {
  (void)format_location_line(s, loc, sb);
}

// ----------------------------------------------------------------------------
// diagnostics

static const char *severity_name(MlirDiagnosticSeverity sev) {
  switch (sev) {
  case MlirDiagnosticError:
    return "error";
  case MlirDiagnosticWarning:
    return "warning";
  case MlirDiagnosticNote:
    return "note";
  case MlirDiagnosticRemark:
    return "remark";
  }
  return "error";
}

static void append_diagnostic(mqss_session *s, MlirDiagnostic d) {
  strbuf *sb = &s->diag;
  bool first = sb->len == 0;
  if (!first)
    sb_append(sb, "\n", 1);
  unsigned line = format_location_line(s, mlirDiagnosticGetLocation(d), sb);
  if (first)
    s->diag_line = line;
  sb_printf(sb, ": %s: ", severity_name(mlirDiagnosticGetSeverity(d)));
  mlirDiagnosticPrint(d, sb_mlir_callback, sb);
  for (intptr_t i = 0; i < mlirDiagnosticGetNumNotes(d); i++)
    append_diagnostic(s, mlirDiagnosticGetNote(d, i));
}

static MlirLogicalResult on_diagnostic(MlirDiagnostic d, void *user) {
  append_diagnostic(user, d);
  return mlirLogicalResultSuccess(); // handled: MLIR prints nothing itself
}

void diag_reset(mqss_session *s, const char *source) {
  sb_clear(&s->diag);
  s->diag_line = 0;
  s->source = source;
}

mqss_status fail(mqss_session *s, mqss_status status, const char *fmt, ...) {
  sb_clear(&s->errmsg);
  va_list ap;
  va_start(ap, fmt);
  sb_vprintf(&s->errmsg, fmt, ap);
  va_end(ap);
  if (s->diag.len) {
    sb_append(&s->errmsg, ": ", 2);
    sb_append(&s->errmsg, s->diag.data, s->diag.len);
  }
  return status;
}

// ----------------------------------------------------------------------------
// create / destroy

static void register_passes(void) {
  mlirRegisterAllPasses();
  register_cxx_passes();
}

mqss_status mqss_session_create(mqss_session **out) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  if (!out)
    return MQSS_ERR_INVALID_ARG;
  *out = NULL;
  mqss_session *s = calloc(1, sizeof *s);
  if (!s)
    return MQSS_ERR_NOMEM;
  pthread_once(&once, register_passes);
  s->registry = mlirDialectRegistryCreate();
  mlirRegisterAllDialects(s->registry);
  s->ctx = mlirContextCreateWithRegistry(s->registry, /*threadingEnabled=*/false);
  mlirRegisterAllLLVMTranslations(s->ctx);
  mlirContextAttachDiagnosticHandler(s->ctx, on_diagnostic, s, NULL);
  *out = s;
  return MQSS_OK;
}

void mqss_session_destroy(mqss_session *s) {
  if (!s)
    return;
  mlirContextDestroy(s->ctx);
  mlirDialectRegistryDestroy(s->registry);
  sb_free(&s->diag);
  sb_free(&s->errmsg);
  sb_free(&s->libraries);
  free(s);
}

const char *mqss_errmsg(const mqss_session *s) {
  if (!s)
    return "out of memory";
  return s->errmsg.data ? s->errmsg.data : "";
}
