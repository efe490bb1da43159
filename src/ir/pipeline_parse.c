// Parsing textual pass pipelines, with nothing printed. MLIR reports a bad
// pipeline through its error callback, but a bad pass *option* (for example
// `canonicalize{max-iterations=abc}`) is reported by LLVM's command-line
// option parser, which writes straight to file descriptor 2 and leaves the
// callback with only "failed to add `canonicalize` with options ...". The
// library never prints, so while the text is parsed fd 2 is pointed at an
// anonymous in-memory file, and what LLVM wrote there becomes part of the
// session's message.
//
// fd 2 belongs to the whole process: a process-wide mutex serialises the
// redirection between threads, and whatever another thread writes to fd 2
// during those few microseconds lands in this message instead of the
// terminal (mqss.h documents this at mqss_module_run_pipeline).
//
// A pipeline that parses is then checked against the option values known
// to crash MLIR (bad_options.c).
#define _GNU_SOURCE // memfd_create
#include "internal.h"

#include <mlir-c/Pass.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static pthread_mutex_t fd2_lock = PTHREAD_MUTEX_INITIALIZER;

// A fork while another thread holds the lock (with fd 2 redirected) would
// leave the child with a lock nobody releases: fork waits for it instead.
static void lock_fd2(void) { pthread_mutex_lock(&fd2_lock); }
static void unlock_fd2(void) { pthread_mutex_unlock(&fd2_lock); }
static void register_atfork(void) {
  pthread_atfork(lock_fd2, unlock_fd2, unlock_fd2);
}

// Points fd 2 at a fresh anonymous file; returns that file's descriptor and
// the saved fd 2 in *saved, or -1 (nothing redirected) when either fails.
static int capture_begin(int *saved) {
  int fd = memfd_create("mqss-stderr", MFD_CLOEXEC);
  if (fd < 0) {
    FILE *f = tmpfile();
    fd = f ? dup(fileno(f)) : -1;
    if (f)
      fclose(f);
  }
  if (fd < 0)
    return -1;
  fflush(stderr);
  *saved = dup(2);
  if (*saved < 0 || dup2(fd, 2) < 0) {
    if (*saved >= 0)
      close(*saved);
    close(fd);
    return -1;
  }
  return fd;
}

// Restores fd 2 and appends what was written to `fd` to `out`.
static void capture_end(int fd, int saved, strbuf *out) {
  dup2(saved, 2);
  close(saved);
  char buf[4096];
  ssize_t n;
  if (lseek(fd, 0, SEEK_SET) == 0)
    while ((n = read(fd, buf, sizeof buf)) > 0)
      sb_append(out, buf, (size_t)n);
  close(fd);
}

// Appends `text` to `sb` without surrounding blanks, a leading ": " (LLVM
// prefixes an empty program name) or a trailing '!', separated by "; ".
static void append_trimmed(strbuf *sb, const char *text, size_t len) {
  while (len && strchr(" \t\n:", text[0]))
    text++, len--;
  while (len && strchr(" \t\n!", text[len - 1]))
    len--;
  if (!len)
    return;
  if (sb->len)
    sb_append(sb, "; ", 2);
  sb_append(sb, text, len);
}

static mqss_status parse(mqss_session *s, MlirOpPassManager opm,
                         const char *text, const char *shown,
                         bool check_options) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, register_atfork);
  strbuf printed = {0}, perr = {0};
  pthread_mutex_lock(&fd2_lock);
  int saved = -1;
  int fd = capture_begin(&saved);
  MlirLogicalResult ok = mlirParsePassPipeline(
      opm, mlirStringRefCreateFromCString(text), sb_mlir_callback, &perr);
  if (fd >= 0)
    capture_end(fd, saved, &printed);
  pthread_mutex_unlock(&fd2_lock);
  mqss_status st = MQSS_OK;
  if (mlirLogicalResultIsFailure(ok)) {
    strbuf why = {0};
    append_trimmed(&why, printed.data ? printed.data : "", printed.len);
    append_trimmed(&why, perr.data ? perr.data : "", perr.len);
    st = fail(s, MQSS_ERR_PIPELINE, "invalid pipeline '%s': %s", shown,
              why.len ? why.data : "parse error");
    sb_free(&why);
  } else if (check_options) {
    strbuf canonical = {0}, why = {0};
    mlirPrintPassPipeline(opm, sb_mlir_callback, &canonical);
    if (canonical.data && pipeline_bad_option(canonical.data, &why))
      st = fail(s, MQSS_ERR_PIPELINE, "invalid pipeline '%s': %s", shown,
                why.data);
    sb_free(&canonical);
    sb_free(&why);
  }
  sb_free(&printed);
  sb_free(&perr);
  return st;
}

mqss_status pipeline_parse(mqss_session *s, MlirOpPassManager opm,
                           const char *text, const char *shown) {
  return parse(s, opm, text, shown, true);
}

mqss_status pipeline_parse_syntax(mqss_session *s, MlirOpPassManager opm,
                                  const char *text, const char *shown) {
  return parse(s, opm, text, shown, false);
}
