// The reference as a blob: the sandbox child that computes a reference
// (outputs, magnitude run, depth, clock-dependent outputs) writes it to a
// memfd, and the parent reads it back into its per-process table
// (measure.c). Also the reference's destructor. Not persisted: the format
// only has to match within one build.
#define _GNU_SOURCE
#include "measure.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define REF_MAGIC 0x3246455253534d51ull // "QMSSREF2"

void reference_free(reference *r) {
  outputs_free(&r->val);
  outputs_free(&r->mag);
  skip_free(&r->clock);
  memset(r, 0, sizeof *r);
}

static bool write_fd(int fd, const void *p, size_t n) {
  const char *c = p;
  while (n > 0) {
    ssize_t w = write(fd, c, n);
    if (w <= 0)
      return false;
    c += w;
    n -= (size_t)w;
  }
  return true;
}

// Blob: magic, total bytes; the reference outputs and the magnitude run,
// each as n, then per output et, count, what[48], data, then stdout length
// and text; then has_mag, depth, and the clock skip set (results, args,
// stdout_all, line bytes). All fields in host byte order.
static void blob_outputs(strbuf *b, const outputs *o) {
  uint64_t n = (uint64_t)o->n, len = o->out.len;
  sb_append(b, (const char *)&n, sizeof n);
  for (int i = 0; i < o->n; i++) {
    int64_t f[2] = {o->v[i].et, o->v[i].count};
    sb_append(b, (const char *)f, sizeof f);
    sb_append(b, o->v[i].what, sizeof o->v[i].what);
    sb_append(b, o->v[i].data, (size_t)o->v[i].count * elem_size(o->v[i].et));
  }
  sb_append(b, (const char *)&len, sizeof len);
  if (len)
    sb_append(b, o->out.data, len);
}

void ref_write(int fd, const reference *ref) {
  strbuf b = {0};
  uint64_t head[2] = {REF_MAGIC, 0};
  sb_append(&b, (const char *)head, sizeof head);
  blob_outputs(&b, &ref->val);
  blob_outputs(&b, &ref->mag);
  uint64_t tail[5] = {ref->has_mag, 0, ref->clock.results, ref->clock.args,
                      ref->clock.stdout_all};
  memcpy(&tail[1], &ref->depth, sizeof ref->depth);
  sb_append(&b, (const char *)tail, sizeof tail);
  uint64_t lines = ref->clock.lines.len;
  sb_append(&b, (const char *)&lines, sizeof lines);
  if (lines)
    sb_append(&b, ref->clock.lines.data, lines);
  uint64_t total = b.len;
  memcpy(b.data + sizeof(uint64_t), &total, sizeof total);
  write_fd(fd, b.data, b.len);
  sb_free(&b);
}

// A bounds-checked reader over a blob.
typedef struct {
  const unsigned char *p;
  size_t at, n;
  bool ok;
} cursor;

static bool take(cursor *c, void *dst, size_t len) {
  c->ok = c->ok && c->at + len <= c->n && len <= c->n;
  if (c->ok) {
    memcpy(dst, c->p + c->at, len);
    c->at += len;
  }
  return c->ok;
}

static void read_outputs(cursor *c, outputs *o) {
  uint64_t n = 0, len = 0;
  c->ok = take(c, &n, sizeof n) && n <= 2 * MAX_VALUES;
  for (uint64_t i = 0; c->ok && i < n; i++) {
    int64_t f[2];
    output_buf *b = &o->v[o->n];
    if (!take(c, f, sizeof f) || !take(c, b->what, sizeof b->what))
      return;
    c->ok = f[0] >= ET_F32 && f[0] <= ET_LAST && f[1] >= 0 &&
            (uint64_t)f[1] <= c->n;
    if (!c->ok)
      return;
    b->et = (elem_type)f[0];
    b->count = f[1];
    b->what[sizeof b->what - 1] = 0;
    size_t bytes = (size_t)f[1] * elem_size(b->et);
    c->ok = (b->data = malloc(bytes ? bytes : 1)) != NULL;
    o->n += c->ok;
    if (!take(c, b->data, bytes))
      return;
  }
  if (take(c, &len, sizeof len) && (c->ok = c->at + len <= c->n) && len) {
    sb_append(&o->out, (const char *)c->p + c->at, len);
    c->at += len;
  }
}

// Parses a blob the child wrote; false (and nothing kept) when it is absent
// or incomplete (the child died while writing).
bool ref_read(int fd, reference *ref, size_t *bytes) {
  memset(ref, 0, sizeof *ref);
  off_t size = lseek(fd, 0, SEEK_END);
  if (size < (off_t)(2 * sizeof(uint64_t)))
    return false;
  unsigned char *buf = malloc((size_t)size);
  if (!buf || pread(fd, buf, (size_t)size, 0) != (ssize_t)size) {
    free(buf);
    return false;
  }
  cursor c = {buf, 0, (size_t)size, true};
  uint64_t head[2], tail[5], lines = 0;
  c.ok = take(&c, head, sizeof head) && head[0] == REF_MAGIC &&
         head[1] == c.n;
  read_outputs(&c, &ref->val);
  read_outputs(&c, &ref->mag);
  if (take(&c, tail, sizeof tail) && take(&c, &lines, sizeof lines) &&
      (c.ok = c.at + lines == c.n)) {
    ref->has_mag = tail[0] != 0;
    memcpy(&ref->depth, &tail[1], sizeof ref->depth);
    ref->clock.results = tail[2];
    ref->clock.args = tail[3];
    ref->clock.stdout_all = tail[4] != 0;
    if (lines)
      sb_append(&ref->clock.lines, (const char *)buf + c.at, lines);
  }
  free(buf);
  if (!c.ok)
    reference_free(ref);
  *bytes = c.n;
  return c.ok;
}
