// Training checkpoints (see checkpoint.h). Layout, little-endian:
//   u64 magic, u32 version, u32 reserved, u64 n_params, i32 adam_t,
//   i32 reserved, ckpt_state, f32 params[n], f32 adam_m[n], f32 adam_v[n]
#include "rl/checkpoint.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

typedef struct {
  uint64_t magic;
  uint32_t version, reserved0;
  uint64_t n_params;
  int32_t adam_t, reserved1;
} ckpt_header;

static bool write_all(FILE *f, const void *p, size_t n) {
  return fwrite(p, 1, n, f) == n;
}

mqss_status ckpt_save(mqss_session *s, const char *path, const nn_model *m,
                      const ckpt_state *st) {
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  FILE *f = fopen(tmp, "wb");
  if (!f)
    return fail(s, MQSS_ERR_IO, "cannot write checkpoint '%s': %s", tmp,
                strerror(errno));
  ckpt_header h = {CKPT_MAGIC, CKPT_VERSION, 0, m->n_params, m->adam_t, 0};
  size_t n = m->n_params * sizeof(float);
  bool ok = write_all(f, &h, sizeof h) && write_all(f, st, sizeof *st) &&
            write_all(f, m->params_memory, n) && write_all(f, m->m_memory, n) &&
            write_all(f, m->v_memory, n) && fflush(f) == 0 &&
            fsync(fileno(f)) == 0;
  ok = fclose(f) == 0 && ok;
  // rename() is atomic: a reader sees the old checkpoint or the new one.
  if (!ok || rename(tmp, path) != 0) {
    int err = errno;
    remove(tmp);
    return fail(s, MQSS_ERR_IO, "cannot write checkpoint '%s': %s", path,
                strerror(err));
  }
  return MQSS_OK;
}

mqss_status ckpt_load(mqss_session *s, const char *path, nn_model *m,
                      ckpt_state *st) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return fail(s, MQSS_ERR_IO, "cannot open checkpoint '%s': %s", path,
                strerror(errno));
  uint64_t want_config = st->config_hash;
  ckpt_header h;
  ckpt_state loaded;
  size_t n = m->n_params * sizeof(float);
  mqss_status rc = MQSS_OK;
  if (fread(&h, 1, sizeof h, f) != sizeof h || h.magic != CKPT_MAGIC)
    rc = fail(s, MQSS_ERR_PARSE, "'%s' is not an mqss checkpoint", path);
  else if (h.version != CKPT_VERSION)
    rc = fail(s, MQSS_ERR_PARSE,
              "checkpoint '%s' has format version %u, this mqss reads %d; "
              "start a new run", path, h.version, CKPT_VERSION);
  else if (h.n_params != m->n_params)
    rc = fail(s, MQSS_ERR_PARSE,
              "checkpoint '%s' holds %llu parameters, the configured network "
              "has %zu; resume with the config the run started with",
              path, (unsigned long long)h.n_params, m->n_params);
  else if (fread(&loaded, 1, sizeof loaded, f) != sizeof loaded ||
           fread(m->params_memory, 1, n, f) != n ||
           fread(m->m_memory, 1, n, f) != n || fread(m->v_memory, 1, n, f) != n)
    rc = fail(s, MQSS_ERR_PARSE, "checkpoint '%s' is truncated", path);
  else if (loaded.config_hash != want_config)
    rc = fail(s, MQSS_ERR_INVALID_ARG,
              "checkpoint '%s' was written with another training config; "
              "resume with the same --config", path);
  else if (loaded.n_window < 0 || loaded.n_window > CKPT_MAX_WINDOW)
    rc = fail(s, MQSS_ERR_PARSE, "checkpoint '%s' is corrupt", path);
  fclose(f);
  if (rc == MQSS_OK) {
    *st = loaded;
    m->adam_t = h.adam_t;
  }
  return rc;
}
