// libFuzzer harness: policy files (src/nn/safetensors.c). Each input is a
// whole file given to nn_policy_parse, once checking the format only and
// once against fixed hashes and an MLIR version (the compatibility checks
// run last, on files that are otherwise intact). A file that loads is
// written back and must load again with the same weights.
#include "nn/nn.h"

#include <stdlib.h>
#include <string.h>

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
  uint8_t *buf = NULL;
  size_t len = 0;
  nn_model *again = NULL;
  if (nn_policy_serialize(m, &meta, &buf, &len) != NN_OK ||
      nn_policy_parse(buf, len, "<again>", NULL, &again, NULL, err,
                      sizeof err) != NN_OK ||
      again->n_params != m->n_params ||
      memcmp(again->params_memory, m->params_memory,
             sizeof(float) * m->n_params) != 0)
    abort(); // what loads must survive a round trip
  nn_model_destroy(again);
  free(buf);
  nn_model_destroy(m);
  return 0;
}
