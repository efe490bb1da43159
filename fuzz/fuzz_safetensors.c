// libFuzzer harness: policy files (src/nn/safetensors.c, quant.c). Each
// input is a whole file given to nn_policy_parse, once checking the format
// only and once against fixed hashes and an MLIR version (the compatibility
// checks run last, on files that are otherwise intact). A file that loads,
// f32 or int8, is written back twice: as f32 it must load again with the
// same weights, and as int8 it must load again with every weight within
// half a quantisation step (its row's max |w| / 127 / 2) of the original.
#include "nn/nn.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static nn_model *rewrite(const nn_model *m, nn_file_meta meta, nn_dtype dt) {
  uint8_t *buf = NULL;
  size_t len = 0;
  nn_model *again = NULL;
  char err[512];
  meta.weight_dtype = dt;
  if (nn_policy_serialize(m, &meta, &buf, &len) != NN_OK ||
      nn_policy_parse(buf, len, "<again>", NULL, &again, NULL, err,
                      sizeof err) != NN_OK ||
      again->n_params != m->n_params)
    abort(); // what loads must write and load again
  free(buf);
  return again;
}

static void check_int8(const nn_model *m, const nn_model *q) {
  for (int t = 0; t < m->n_tensors; t++) {
    const nn_tensor *ten = &m->tensors[t];
    int R = ten->shape[0], C = ten->ndim == 2 ? ten->shape[1] : 1;
    for (int r = 0; r < R; r++) {
      const float *a = m->params_memory + ten->offset + (size_t)r * C;
      const float *b = q->params_memory + ten->offset + (size_t)r * C;
      float amax = 0;
      for (int c = 0; c < C; c++)
        amax = fmaxf(amax, fabsf(a[c]));
      // half a step, plus the rounding of w / scale and of q * scale, and
      // of scales in the subnormal range (below FLT_MIN)
      double bound =
          ten->ndim == 2 ? amax / 127.0 * 0.5 + amax * 1e-6 + FLT_MIN : 0;
      for (int c = 0; c < C; c++)
        if (!(fabs((double)a[c] - b[c]) <= bound))
          abort();
    }
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char err[512];
  nn_model *m = NULL;
  nn_file_meta meta;
  uint64_t prefix[2] = {1, 2};
  nn_load_check check = {.feature_hash = 3, .catalog_hash = 4,
                         .prefix_hashes = prefix, .n_prefix_hashes = 2,
                         .mlir_version = "19.1.7"};
  if (nn_policy_parse(data, size, "<fuzz>", &check, &m, &meta, err,
                      sizeof err) == NN_OK)
    nn_model_destroy(m);
  m = NULL;
  if (nn_policy_parse(data, size, "<fuzz>", NULL, &m, &meta, err,
                      sizeof err) != NN_OK)
    return 0;
  nn_model *f = rewrite(m, meta, NN_DTYPE_F32);
  if (memcmp(f->params_memory, m->params_memory,
             sizeof(float) * m->n_params) != 0)
    abort(); // f32 is exact
  nn_model_destroy(f);
  nn_model *q = rewrite(m, meta, NN_DTYPE_INT8);
  check_int8(m, q);
  nn_model_destroy(q);
  nn_model_destroy(m);
  return 0;
}
