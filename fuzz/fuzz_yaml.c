// libFuzzer harness: the YAML loaders (src/util/yaml_file.c and its users).
// The first byte of an input picks the loader, the rest is the file:
//   0 catalog (mqss_catalog_load: actions, parameters, pipelines checked by
//     MLIR's pass parser), 1 baselines (mqss_baselines_load),
//   2 training configuration (train_config_load).
// The loaders read paths, so the file is one temporary file per process,
// rewritten for each input. A catalog that loads must answer its queries.
#include "mqss/mqss.h"
#include "rl/config.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { RENEW = 2000 };

static mqss_session *session;
static unsigned long inputs;
static char path[4096];
static int fd = -1;

static void setup(void) {
  const char *dir = getenv("TMPDIR");
  snprintf(path, sizeof path, "%s/mqss-fuzz-yaml-XXXXXX.yaml",
           dir && *dir ? dir : "/tmp");
  fd = mkstemps(path, 5);
  if (fd < 0)
    abort();
}

static void teardown(void) {
  if (fd >= 0)
    unlink(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (fd < 0) {
    setup();
    atexit(teardown);
  }
  if (inputs++ % RENEW == 0) {
    mqss_session_destroy(session);
    if (mqss_session_create(&session) != MQSS_OK)
      abort();
  }
  if (size < 1)
    return 0;
  if (ftruncate(fd, 0) != 0 ||
      pwrite(fd, data + 1, size - 1, 0) != (ssize_t)(size - 1))
    abort();
  switch (data[0] % 3) {
  case 0: {
    mqss_catalog *c = NULL;
    if (mqss_catalog_load(session, path, &c) != MQSS_OK)
      break;
    int n = mqss_catalog_size(c);
    for (int i = 0; i < n; i++) {
      const mqss_action *a = mqss_catalog_action(c, i);
      if (!a || mqss_catalog_find(c, a->name) < 0)
        abort(); // every action can be found by its name
      for (int k = 0; k < a->n_params; k++) { // the mapping stays in range
        const mqss_param *p = &a->params[k];
        for (float u = -1.0f; u <= 1.0f; u += 0.5f) {
          int64_t v = mqss_param_map(p, u);
          bool ranged = p->kind == MQSS_PARAM_INT ||
                        p->kind == MQSS_PARAM_LOG_INT;
          if ((ranged && (v < p->min || v > p->max)) ||
              (p->kind == MQSS_PARAM_CHOICE && (v < 0 || v >= p->n_values)))
            abort();
        }
      }
    }
    (void)mqss_catalog_hash(c);
    mqss_catalog_destroy(c);
    break;
  }
  case 1: {
    mqss_baselines *b = NULL;
    if (mqss_baselines_load(session, path, &b) == MQSS_OK) {
      (void)mqss_baselines_pipeline(b, "matmul");
      mqss_baselines_destroy(b);
    }
    break;
  }
  default: {
    train_config c;
    train_config_defaults(&c);
    if (train_config_load(session, path, &c) == MQSS_OK) {
      char buf[4096];
      train_config_format(&c, buf, sizeof buf);
    }
  }
  }
  return 0;
}
