// `mqss quantize IN OUT`: writes an int8 copy of a policy file. Every 2-D
// weight tensor becomes int8 with one f32 scale per block of 32 columns of a
// row (symmetric, src/nn/quant.c); biases, log-stds and activations stay
// f32, and the metadata's weight_dtype says int8. An ensemble's members are
// each quantised. The copy is read back and compared with the original
// before the command reports success.
#include "cli.h"
#include "nn/nn.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static long long file_size(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 ? (long long)st.st_size : -1;
}

int cmd_quantize(int argc, char **argv) {
  const char *in = NULL, *out = NULL;
  for (int i = 1; i < argc; i++) {
    if (argv[i][0] == '-' && argv[i][1])
      return cli_error("quantize: unknown option '%s'; see 'mqss quantize "
                       "--help'", argv[i]);
    if (!in)
      in = argv[i];
    else if (!out)
      out = argv[i];
    else
      return cli_error("quantize: one input and one output; see 'mqss "
                       "quantize --help'");
  }
  if (!in || !out)
    return cli_error("quantize: needs IN.safetensors OUT.safetensors; see "
                     "'mqss quantize --help'");
  char err[1024];
  nn_model *m[NN_MAX_MEMBERS] = {0}, *q[NN_MAX_MEMBERS] = {0};
  int members = 0, members_q = 0;
  nn_file_meta meta;
  // Format only: the copy keeps the original's hashes and MLIR version, and
  // loading it for selection checks them as for any policy.
  if (nn_policy_read_members(in, NULL, m, NN_MAX_MEMBERS, &members, &meta,
                             err, sizeof err) != NN_OK)
    return cli_error("quantize: %s", err);
  int rc = 0;
  if (meta.weight_dtype == NN_DTYPE_INT8) {
    rc = cli_error("quantize: '%s' already holds int8 weights; quantize "
                   "its f32 original", in);
    goto done;
  }
  meta.weight_dtype = NN_DTYPE_INT8;
  if (nn_policy_write_members(out, (const nn_model *const *)m, members, &meta,
                              err, sizeof err) != NN_OK ||
      nn_policy_read_members(out, NULL, q, NN_MAX_MEMBERS, &members_q, NULL,
                             err, sizeof err) != NN_OK) {
    rc = cli_error("quantize: %s", err);
    goto done;
  }
  // The largest change, relative to the step (scale) of its block.
  double worst = 0;
  int n_int8 = 0;
  for (int k = 0; k < members && k < members_q; k++)
    for (int t = 0; t < m[k]->n_tensors; t++) {
      const nn_tensor *ten = &m[k]->tensors[t];
      if (ten->ndim != 2)
        continue;
      n_int8++;
      int C = ten->shape[1];
      for (int r = 0; r < ten->shape[0]; r++) {
        const float *a = m[k]->params_memory + ten->offset + (size_t)r * C;
        const float *b = q[k]->params_memory + ten->offset + (size_t)r * C;
        for (int c0 = 0; c0 < C; c0 += NN_QUANT_BLOCK) {
          double amax = 0, diff = 0;
          for (int c = c0; c < C && c < c0 + NN_QUANT_BLOCK; c++) {
            amax = fmax(amax, fabs(a[c]));
            diff = fmax(diff, fabs((double)a[c] - b[c]));
          }
          if (amax > 0)
            worst = fmax(worst, diff / (amax / 127.0));
        }
      }
    }
  long long s_in = file_size(in), s_out = file_size(out);
  printf("wrote '%s': %d weight tensors%s as int8 (one f32 scale per %d "
         "columns of a row), the rest f32\n", out, n_int8,
         members > 1 ? " of its members" : "", NN_QUANT_BLOCK);
  printf("size: %lld bytes (f32 '%s': %lld bytes, %.2fx smaller)\n", s_out,
         in, s_in, s_out > 0 ? (double)s_in / (double)s_out : 0.0);
  printf("largest change of a weight: %.3f of its block's step (at most 0.5)\n",
         worst);
done:
  for (int k = 0; k < NN_MAX_MEMBERS; k++) {
    nn_model_destroy(q[k]);
    nn_model_destroy(m[k]);
  }
  return rc;
}
