// Training checkpoints (see checkpoint.h). Layout, little-endian:
//   u64 magic, u32 version, u32 reserved, u64 n_params, i32 adam_t,
//   i32 reserved, ckpt_state, f32 params[n], f32 adam_m[n], f32 adam_v[n],
//   u64 checksum (FNV-1a of every byte before it)
// A load verifies the length and the checksum before it reads any field, then
// range-checks the counters: a flipped bit is refused, never trained on.
#include "rl/checkpoint.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

typedef struct {
  uint64_t magic;
  uint32_t version, reserved0;
  uint64_t n_params;
  int32_t adam_t, reserved1;
} ckpt_header;

// ----------------------------------------------------------------------------
// save

typedef struct {
  FILE *f;
  uint64_t sum;
  bool ok;
} hashed_writer;

static void put(hashed_writer *w, const void *p, size_t n) {
  w->sum = fnv1a64(w->sum, p, n);
  w->ok = w->ok && fwrite(p, 1, n, w->f) == n;
}

mqss_status ckpt_save(mqss_session *s, const char *path, const nn_model *m,
                      const ckpt_state *st) {
  char tmp[4096], prev[4096];
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  snprintf(prev, sizeof prev, "%s.prev", path);
  FILE *f = fopen(tmp, "wb");
  if (!f)
    return fail(s, MQSS_ERR_IO, "cannot write checkpoint '%s': %s", tmp,
                strerror(errno));
  ckpt_header h = {CKPT_MAGIC, CKPT_VERSION, 0, m->n_params, m->adam_t, 0};
  size_t n = m->n_params * sizeof(float);
  hashed_writer w = {f, FNV1A64_INIT, true};
  put(&w, &h, sizeof h);
  put(&w, st, sizeof *st);
  put(&w, m->params_memory, n);
  put(&w, m->m_memory, n);
  put(&w, m->v_memory, n);
  uint64_t sum = w.sum;
  bool ok = w.ok && fwrite(&sum, 1, sizeof sum, f) == sizeof sum &&
            fflush(f) == 0 && fsync(fileno(f)) == 0;
  ok = fclose(f) == 0 && ok;
  // rename() is atomic: a reader sees the old checkpoint or the new one.
  // The old one is kept as PATH.prev first; between the two renames only
  // PATH.prev exists, and a resume falls back to it.
  if (!ok || (rename(path, prev) != 0 && errno != ENOENT) ||
      rename(tmp, path) != 0) {
    int err = errno;
    remove(tmp);
    return fail(s, MQSS_ERR_IO, "cannot write checkpoint '%s': %s", path,
                strerror(err));
  }
  return MQSS_OK;
}

// ----------------------------------------------------------------------------
// load

static bool finite_floats(const float *x, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (!isfinite(x[i]))
      return false;
  return true;
}

// The name of the first field of an intact file that no run could have
// written, or NULL.
static const char *out_of_range(const ckpt_header *h, const ckpt_state *st,
                                const float *params, const float *adam_m,
                                const float *adam_v, size_t n) {
  if (h->adam_t < 0)
    return "adam_t";
  if (st->iteration < 0 || st->iteration > INT_MAX)
    return "iteration";
  if (st->env_steps < 0)
    return "env_steps";
  if (st->episodes < 0 || st->episodes > INT32_MAX)
    return "episodes";
  if (st->rng == 0)
    return "rng";
  if (isinf(st->reward_ema)) // NaN means "no EMA yet"
    return "reward_ema";
  if (!isfinite(st->elapsed_s) || st->elapsed_s < 0)
    return "elapsed_s";
  if (st->n_window < 0 || st->n_window > CKPT_MAX_WINDOW)
    return "n_window";
  if (!finite_floats(st->window, (size_t)st->n_window))
    return "window";
  for (int i = 0; i < st->n_window; i++)
    if (st->window_len[i] < 0)
      return "window_len";
  if (!finite_floats(params, n) || !finite_floats(adam_m, n) ||
      !finite_floats(adam_v, n))
    return "weights";
  for (size_t i = 0; i < n; i++)
    if (adam_v[i] < 0)
      return "adam_v";
  return NULL;
}

mqss_status ckpt_load(mqss_session *s, const char *path, nn_model *m,
                      ckpt_state *st) {
  diag_reset(s, NULL);
  strbuf buf = {0};
  if (!sb_read_file(&buf, path)) {
    int err = errno;
    sb_free(&buf);
    return fail(s, MQSS_ERR_IO, "cannot open checkpoint '%s': %s", path,
                strerror(err));
  }
  ckpt_header h;
  ckpt_state loaded;
  const size_t fixed = sizeof h + sizeof loaded + sizeof(uint64_t);
  mqss_status rc = MQSS_OK;
  if (buf.len < sizeof h)
    memset(&h, 0, sizeof h);
  else
    memcpy(&h, buf.data, sizeof h);
  // Every size below is checked before it is multiplied.
  size_t n = h.n_params <= (SIZE_MAX - fixed) / (3 * sizeof(float))
                 ? (size_t)h.n_params : 0;
  size_t bytes = n * sizeof(float);
  uint64_t sum = 0;
  if (buf.len >= sizeof sum)
    memcpy(&sum, buf.data + buf.len - sizeof sum, sizeof sum);
  if (h.magic != CKPT_MAGIC)
    rc = fail(s, MQSS_ERR_PARSE, "'%s' is not an mqss checkpoint", path);
  else if (h.version != CKPT_VERSION)
    rc = fail(s, MQSS_ERR_PARSE,
              "checkpoint '%s' has format version %u, this mqss reads %d; "
              "start a new run", path, h.version, CKPT_VERSION);
  else if (n != h.n_params || buf.len != fixed + 3 * bytes)
    rc = fail(s, MQSS_ERR_PARSE,
              "checkpoint '%s' is truncated or corrupt (%zu bytes, not what "
              "its header describes)", path, buf.len);
  else if (fnv1a64(FNV1A64_INIT, buf.data, buf.len - sizeof sum) != sum)
    rc = fail(s, MQSS_ERR_PARSE,
              "checkpoint '%s' is corrupt: its checksum does not match", path);
  if (rc != MQSS_OK) {
    sb_free(&buf);
    return rc;
  }
  memcpy(&loaded, buf.data + sizeof h, sizeof loaded);
  const float *params = (const float *)(buf.data + sizeof h + sizeof loaded);
  const float *adam_m = params + n, *adam_v = adam_m + n;
  const char *bad = out_of_range(&h, &loaded, params, adam_m, adam_v, n);
  if (h.n_params != m->n_params)
    rc = fail(s, MQSS_ERR_INVALID_ARG,
              "checkpoint '%s' holds %llu parameters, the configured network "
              "has %zu; resume with the config the run started with",
              path, (unsigned long long)h.n_params, m->n_params);
  else if (loaded.config_hash != st->config_hash)
    rc = fail(s, MQSS_ERR_INVALID_ARG,
              "checkpoint '%s' was written with another training config; "
              "resume with the same --config", path);
  else if (bad)
    rc = fail(s, MQSS_ERR_PARSE,
              "checkpoint '%s' is corrupt: field '%s' is out of range", path,
              bad);
  if (rc == MQSS_OK) {
    memcpy(m->params_memory, params, bytes);
    memcpy(m->m_memory, adam_m, bytes);
    memcpy(m->v_memory, adam_v, bytes);
    m->adam_t = h.adam_t;
    *st = loaded;
  }
  sb_free(&buf);
  return rc;
}

mqss_status ckpt_resume(mqss_session *s, const char *path, nn_model *m,
                        ckpt_state *st, char *note, size_t notelen) {
  snprintf(note, notelen, "%s", "");
  mqss_status rc = ckpt_load(s, path, m, st);
  if (rc != MQSS_ERR_IO && rc != MQSS_ERR_PARSE)
    return rc;
  char why[1024], prev[4096];
  snprintf(why, sizeof why, "%s", mqss_errmsg(s));
  snprintf(prev, sizeof prev, "%s.prev", path);
  mqss_status rp = ckpt_load(s, prev, m, st);
  if (rp == MQSS_OK) {
    snprintf(note, notelen, "%s; resumed from the previous checkpoint '%s' "
             "(iteration %lld)", why, prev, (long long)st->iteration);
    return MQSS_OK;
  }
  if (rp != MQSS_ERR_IO && rp != MQSS_ERR_PARSE)
    return rp;
  char why_prev[1024];
  snprintf(why_prev, sizeof why_prev, "%s", mqss_errmsg(s));
  return fail(s, rc, "cannot resume: %s; and the previous checkpoint: %s; "
              "start a new run (without --resume, or in another --log-dir)",
              why, why_prev);
}
