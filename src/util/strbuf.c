// Growable NUL-terminated string buffer. On allocation failure the buffer
// keeps what it had and silently drops the new text: callers use it for
// messages, where a truncated message beats a crash.
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool sb_reserve(strbuf *sb, size_t extra) {
  if (sb->len + extra + 1 <= sb->cap)
    return true;
  size_t cap = sb->cap ? sb->cap : 64;
  while (cap < sb->len + extra + 1)
    cap *= 2;
  char *p = realloc(sb->data, cap);
  if (!p)
    return false;
  sb->data = p;
  sb->cap = cap;
  return true;
}

void sb_append(strbuf *sb, const char *data, size_t len) {
  if (!sb_reserve(sb, len))
    return;
  memcpy(sb->data + sb->len, data, len);
  sb->len += len;
  sb->data[sb->len] = '\0';
}

void sb_vprintf(strbuf *sb, const char *fmt, va_list ap) {
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap2);
  va_end(ap2);
  if (n >= 0 && sb_reserve(sb, (size_t)n)) { // "" too: data is then ""
    vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, ap);
    sb->len += (size_t)n;
  }
}

void sb_printf(strbuf *sb, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  sb_vprintf(sb, fmt, ap);
  va_end(ap);
}

bool sb_read_file(strbuf *sb, const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return false;
  char chunk[65536];
  size_t n;
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
    sb_append(sb, chunk, n);
  bool ok = !ferror(f);
  fclose(f);
  if (ok)
    sb_append(sb, "", 0); // data is non-NULL and NUL-terminated
  return ok;
}

void sb_clear(strbuf *sb) {
  sb->len = 0;
  if (sb->data)
    sb->data[0] = '\0';
}

void sb_free(strbuf *sb) {
  free(sb->data);
  *sb = (strbuf){0};
}

void sb_mlir_callback(MlirStringRef s, void *user) {
  sb_append(user, s.data, s.length);
}
