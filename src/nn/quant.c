// int8 policy files: per-output-row symmetric quantisation of the 2-D weight
// tensors, its inverse, and the list of tensors a file holds in each weight
// dtype, shared by the writer and the reader (docs/POLICY_FORMAT.md).
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

void quantize_rows(int8_t *q, float *scale, const float *w, int R, int C) {
  for (int r = 0; r < R; r++) {
    const float *row = w + (size_t)r * C;
    float amax = 0.0f;
    for (int c = 0; c < C; c++)
      amax = fmaxf(amax, fabsf(row[c]));
    scale[r] = amax / 127.0f;
    for (int c = 0; c < C; c++) {
      float v = scale[r] > 0.0f ? roundf(row[c] / scale[r]) : 0.0f;
      q[(size_t)r * C + c] = (int8_t)fminf(127.0f, fmaxf(-127.0f, v));
    }
  }
}

void dequantize_rows(float *w, const int8_t *q, const float *scale, int R,
                     int C) {
  for (int r = 0; r < R; r++)
    for (int c = 0; c < C; c++)
      w[(size_t)r * C + c] = (float)q[(size_t)r * C + c] * scale[r];
}

// ----------------------------------------------------------------------------
// file layout

static nn_file_entry entry(const nn_tensor *t, int index, nn_entry_kind kind) {
  nn_file_entry e = {.kind = kind, .tensor = index, .ndim = t->ndim};
  snprintf(e.name, sizeof e.name, "%s%s", t->name,
           kind == NN_ENTRY_SCALE ? ".scale" : "");
  e.shape[0] = t->shape[0];
  e.shape[1] = t->ndim == 2 ? t->shape[1] : 0;
  if (kind == NN_ENTRY_SCALE) {
    e.ndim = 1;
    e.shape[1] = 0;
  }
  e.bytes = kind == NN_ENTRY_I8      ? t->size
            : kind == NN_ENTRY_SCALE ? (size_t)t->shape[0] * 4
                                     : t->size * 4;
  return e;
}

int nn_file_layout(const nn_model *m, nn_dtype dt, nn_file_entry *out) {
  int n = 0;
  for (int t = 0; t < m->n_tensors; t++) {
    const nn_tensor *ten = &m->tensors[t];
    bool quant = dt == NN_DTYPE_INT8 && ten->ndim == 2;
    out[n++] = entry(ten, t, quant ? NN_ENTRY_SCALE : NN_ENTRY_F32);
  }
  for (int t = 0; t < m->n_tensors && dt == NN_DTYPE_INT8; t++)
    if (m->tensors[t].ndim == 2)
      out[n++] = entry(&m->tensors[t], t, NN_ENTRY_I8);
  return n;
}
