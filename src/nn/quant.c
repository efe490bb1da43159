// int8 policy files: symmetric quantisation of the 2-D weight tensors in
// blocks of NN_QUANT_BLOCK columns of a row, its inverse, and the list of
// tensors a file holds in each weight dtype, shared by the writer and the
// reader (docs/POLICY_FORMAT.md).
//
// Activations stay f32. A loaded int8 policy holds q * scale in its f32
// parameter buffer, so every decision it makes is computed from the int8
// weights, by the same forward pass as an f32 policy. Not here: reading or
// writing bytes (safetensors*.c).
#include "nn/nn.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const DTYPE_NAMES[] = {[NN_DTYPE_F32] = "f32",
                                          [NN_DTYPE_INT8] = "int8"};
enum { N_DTYPES = sizeof DTYPE_NAMES / sizeof DTYPE_NAMES[0] };

const char *nn_dtype_name(nn_dtype dt) {
  return (unsigned)dt < N_DTYPES ? DTYPE_NAMES[dt] : NULL;
}

int nn_dtype_parse(const char *name, nn_dtype *out) {
  for (int i = 0; i < N_DTYPES; i++)
    if (strcmp(name, DTYPE_NAMES[i]) == 0) {
      *out = (nn_dtype)i;
      return 0;
    }
  return -1;
}

// ----------------------------------------------------------------------------
// quantisation

int nn_quant_blocks(int C) { return (C + NN_QUANT_BLOCK - 1) / NN_QUANT_BLOCK; }

void quantize_blocks(int8_t *q, float *scale, const float *w, int R, int C) {
  int B = nn_quant_blocks(C);
  for (int r = 0; r < R; r++) {
    const float *row = w + (size_t)r * C;
    for (int b = 0; b < B; b++) {
      int c0 = b * NN_QUANT_BLOCK;
      int c1 = c0 + NN_QUANT_BLOCK < C ? c0 + NN_QUANT_BLOCK : C;
      float amax = 0.0f, s;
      for (int c = c0; c < c1; c++)
        amax = fmaxf(amax, fabsf(row[c]));
      scale[r * B + b] = s = amax / 127.0f;
      for (int c = c0; c < c1; c++) {
        float v = s > 0.0f ? roundf(row[c] / s) : 0.0f;
        q[(size_t)r * C + c] = (int8_t)fminf(127.0f, fmaxf(-127.0f, v));
      }
    }
  }
}

void dequantize_blocks(float *w, const int8_t *q, const float *scale, int R,
                       int C) {
  int B = nn_quant_blocks(C);
  for (int r = 0; r < R; r++)
    for (int c = 0; c < C; c++)
      w[(size_t)r * C + c] =
          (float)q[(size_t)r * C + c] * scale[r * B + c / NN_QUANT_BLOCK];
}

// ----------------------------------------------------------------------------
// file layout

static nn_file_entry entry(const nn_tensor *t, int index, nn_entry_kind kind) {
  nn_file_entry e = {.kind = kind, .tensor = index, .ndim = t->ndim};
  snprintf(e.name, sizeof e.name, "%s%s", t->name,
           kind == NN_ENTRY_SCALE ? ".scale" : "");
  e.shape[0] = t->shape[0];
  e.shape[1] = t->ndim == 2 ? t->shape[1] : 0;
  if (kind == NN_ENTRY_SCALE) // (R, blocks)
    e.shape[1] = nn_quant_blocks(t->shape[1]);
  e.bytes = kind == NN_ENTRY_I8      ? t->size
            : kind == NN_ENTRY_SCALE ? (size_t)e.shape[0] * e.shape[1] * 4
                                     : t->size * 4;
  return e;
}

int nn_file_layout(const nn_model *m, nn_dtype dt, int members,
                   nn_file_entry *out) {
  nn_file_entry one[NN_MAX_ENTRIES];
  int n = 0, k = 0;
  for (int t = 0; t < m->n_tensors; t++) {
    const nn_tensor *ten = &m->tensors[t];
    bool quant = dt == NN_DTYPE_INT8 && ten->ndim == 2;
    one[n++] = entry(ten, t, quant ? NN_ENTRY_SCALE : NN_ENTRY_F32);
  }
  for (int t = 0; t < m->n_tensors && dt == NN_DTYPE_INT8; t++)
    if (m->tensors[t].ndim == 2)
      one[n++] = entry(&m->tensors[t], t, NN_ENTRY_I8);
  // every member's F32 and SCALE entries, then every member's I8 ones
  for (int pass = 0; pass < 2; pass++)
    for (int j = 0; j < members; j++)
      for (int i = 0; i < n; i++) {
        if ((one[i].kind == NN_ENTRY_I8) != (pass == 1))
          continue;
        out[k] = one[i];
        out[k].member = j;
        if (j > 0)
          snprintf(out[k].name, sizeof out[k].name, "member%d.%.40s", j,
                   one[i].name);
        k++;
      }
  return k;
}
