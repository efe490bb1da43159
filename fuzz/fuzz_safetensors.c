// libFuzzer harness: policy files (src/nn/safetensors.c, quant.c). Each
// input is a whole file given to nn_policy_parse_members (one network or an
// ensemble), once checking the format only and once against fixed hashes
// and an MLIR version (the compatibility checks run last, on files that are
// otherwise intact). A file that loads, f32 or int8, is written back twice:
// as f32 it must load again with the same weights in every network, and as
// int8 with every weight within half a quantisation step (its row's max
// |w| / 127 / 2) of the original.
#include "nn/nn.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

// Writes the k networks ms in dtype dt and reads them back (into again).
static void rewrite(nn_model *const *ms, int k, nn_file_meta meta,
                    nn_dtype dt, nn_model **again) {
  uint8_t *buf = NULL;
  size_t len = 0;
  int n = 0;
  char err[512];
  meta.weight_dtype = dt;
  if (nn_policy_serialize_members((const nn_model *const *)ms, k, &meta, &buf,
                                  &len) != NN_OK ||
      nn_policy_parse_members(buf, len, "<again>", NULL, again,
                              NN_MAX_MEMBERS, &n, NULL, err,
                              sizeof err) != NN_OK ||
      n != k)
    abort(); // what loads must write and load again
  for (int j = 0; j < k; j++)
    if (again[j]->n_params != ms[j]->n_params)
      abort();
  free(buf);
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
  nn_model *m[NN_MAX_MEMBERS], *back[NN_MAX_MEMBERS];
  int k = 0;
  nn_file_meta meta;
  uint64_t prefix[2] = {1, 2};
  nn_load_check check = {.feature_hash = 3, .catalog_hash = 4,
                         .prefix_hashes = prefix, .n_prefix_hashes = 2,
                         .mlir_version = "19.1.7"};
  if (nn_policy_parse_members(data, size, "<fuzz>", &check, m, NN_MAX_MEMBERS,
                              &k, &meta, err, sizeof err) == NN_OK)
    for (int j = 0; j < k; j++)
      nn_model_destroy(m[j]);
  if (nn_policy_parse_members(data, size, "<fuzz>", NULL, m, NN_MAX_MEMBERS,
                              &k, &meta, err, sizeof err) != NN_OK)
    return 0;
  rewrite(m, k, meta, NN_DTYPE_F32, back);
  for (int j = 0; j < k; j++) {
    if (memcmp(back[j]->params_memory, m[j]->params_memory,
               sizeof(float) * m[j]->n_params) != 0)
      abort(); // f32 is exact
    nn_model_destroy(back[j]);
  }
  rewrite(m, k, meta, NN_DTYPE_INT8, back);
  for (int j = 0; j < k; j++) {
    check_int8(m[j], back[j]);
    nn_model_destroy(back[j]);
    nn_model_destroy(m[j]);
  }
  return 0;
}
