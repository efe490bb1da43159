// The network's layers as forward/backward pairs, llm.c style: outputs and
// caches first, then inputs and weights, then dimensions. Backward passes
// accumulate (+=) into their gradient arguments. Matrix products go through
// OpenBLAS cblas_sgemm (row-major).
//
// Not here: how layers are stacked (model.c), the PPO loss (ppo.c), the
// optimizer (adam.c).
#include "nn/nn.h"

#include <cblas.h>
#include <math.h>
#include <string.h>

// ----------------------------------------------------------------------------
// linear

void linear_forward(float *out, const float *inp, const float *weight,
                    const float *bias, int B, int C, int OC) {
  // out is (B,OC), inp is (B,C), weight is (OC,C), bias is (OC)
  if (B == 0 || OC == 0)
    return;
  if (bias) {
    for (int b = 0; b < B; b++)
      memcpy(out + (size_t)b * OC, bias, sizeof(float) * OC);
  }
  if (C == 0) {
    if (!bias)
      memset(out, 0, sizeof(float) * B * OC);
    return;
  }
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, B, OC, C, 1.0f, inp, C,
              weight, C, bias ? 1.0f : 0.0f, out, OC);
}

void linear_backward(float *dinp, float *dweight, float *dbias,
                     const float *dout, const float *inp, const float *weight,
                     int B, int C, int OC) {
  // in the forward pass this was: out = inp @ weight^T + bias, so now:
  //   dinp (B,C) += dout (B,OC) @ weight (OC,C)
  //   dweight (OC,C) += dout^T (OC,B) @ inp (B,C)
  //   dbias (OC) += sum over b of dout
  if (B == 0 || OC == 0)
    return;
  if (C > 0) {
    if (dinp)
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, B, C, OC, 1.0f,
                  dout, OC, weight, C, 1.0f, dinp, C);
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, OC, C, B, 1.0f, dout,
                OC, inp, C, 1.0f, dweight, C);
  }
  if (dbias) {
    for (int b = 0; b < B; b++) {
      const float *d = dout + (size_t)b * OC;
      for (int o = 0; o < OC; o++)
        dbias[o] += d[o];
    }
  }
}

// ----------------------------------------------------------------------------
// activations

void relu_forward(float *out, const float *inp, int n) {
  for (int i = 0; i < n; i++)
    out[i] = inp[i] > 0.0f ? inp[i] : 0.0f;
}

void relu_backward(float *dinp, const float *dout, const float *out, int n) {
  for (int i = 0; i < n; i++)
    if (out[i] > 0.0f)
      dinp[i] += dout[i];
}

void tanh_forward(float *out, const float *inp, int n) {
  for (int i = 0; i < n; i++)
    out[i] = tanhf(inp[i]);
}

void tanh_backward(float *dinp, const float *dout, const float *out, int n) {
  // d tanh(x)/dx = 1 - tanh(x)^2
  for (int i = 0; i < n; i++)
    dinp[i] += dout[i] * (1.0f - out[i] * out[i]);
}

// ----------------------------------------------------------------------------
// GraphSAGE (mean aggregator)

// Sums over the edges [lo, hi) of columns [d, d+W) of h into s (W floats):
// W independent lanes, kept in registers.
#define AGG_COLUMNS(W)                                                         \
  for (; d + (W) <= D; d += (W)) {                                             \
    float s[W] = {0};                                                          \
    for (int e = lo; e < hi; e++) {                                            \
      const float *restrict hj = h + (size_t)col[e] * D + d;                   \
      for (int k = 0; k < (W); k++)                                            \
        s[k] += hj[k];                                                         \
    }                                                                          \
    for (int k = 0; k < (W); k++)                                              \
      a[d + k] = s[k] * inv;                                                   \
  }

void mean_agg_forward(float *restrict agg, const float *restrict h,
                      const int *row_ptr, const int *col, int N, int D) {
  // agg is (N,D), h is (N,D). Each row sums its neighbours' columns in
  // register blocks of 16, then 4, then 1 (each lane in edge order).
  for (int i = 0; i < N; i++) {
    float *restrict a = agg + (size_t)i * D;
    int lo = row_ptr[i], hi = row_ptr[i + 1];
    float inv = hi > lo ? 1.0f / (float)(hi - lo) : 0.0f;
    int d = 0;
    AGG_COLUMNS(16)
    AGG_COLUMNS(4)
    AGG_COLUMNS(1)
  }
}
#undef AGG_COLUMNS

void mean_agg_backward(float *dh, const float *dagg, const int *row_ptr,
                       const int *col, int N, int D) {
  // in the forward pass: agg[i] = (1/deg i) sum_{j in N(i)} h[j], so
  // dh[j] += dagg[i] / deg(i) for every edge i -> j
  for (int i = 0; i < N; i++) {
    int deg = row_ptr[i + 1] - row_ptr[i];
    if (deg == 0)
      continue;
    float inv = 1.0f / (float)deg;
    const float *da = dagg + (size_t)i * D;
    for (int e = row_ptr[i]; e < row_ptr[i + 1]; e++) {
      float *dhj = dh + (size_t)col[e] * D;
      for (int d = 0; d < D; d++)
        dhj[d] += da[d] * inv;
    }
  }
}

void sage_forward(float *out, float *agg, const float *h, const int *row_ptr,
                  const int *col, const float *w_self, const float *w_neigh,
                  const float *b, int N, int D, int O) {
  // out (N,O) = relu(h @ w_self^T + agg @ w_neigh^T + b), agg (N,D) cached
  if (N == 0)
    return;
  mean_agg_forward(agg, h, row_ptr, col, N, D);
  linear_forward(out, h, w_self, b, N, D, O);
  if (D > 0)
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, N, O, D, 1.0f, agg, D,
                w_neigh, D, 1.0f, out, O);
  relu_forward(out, out, N * O);
}

void sage_backward(float *dh, float *dw_self, float *dw_neigh, float *db,
                   float *dpre, float *dagg, const float *dout,
                   const float *out, const float *agg, const float *h,
                   const int *row_ptr, const int *col, const float *w_self,
                   const float *w_neigh, int N, int D, int O) {
  if (N == 0)
    return;
  // through the relu: dpre = dout * (out > 0)
  memset(dpre, 0, sizeof(float) * N * O);
  relu_backward(dpre, dout, out, N * O);
  // pre = h @ w_self^T + b + agg @ w_neigh^T
  linear_backward(dh, dw_self, db, dpre, h, w_self, N, D, O);
  if (dh) {
    memset(dagg, 0, sizeof(float) * N * D);
    linear_backward(dagg, dw_neigh, NULL, dpre, agg, w_neigh, N, D, O);
    mean_agg_backward(dh, dagg, row_ptr, col, N, D);
  } else {
    linear_backward(NULL, dw_neigh, NULL, dpre, agg, w_neigh, N, D, O);
  }
}

// ----------------------------------------------------------------------------
// pooling and concatenation

void sum_pool_forward(float *out, const float *h, const int *graph_ptr, int B,
                      int D) {
  // out is (B,D), h is (N,D) with graph b owning rows graph_ptr[b]..[b+1]
  for (int b = 0; b < B; b++) {
    float *o = out + (size_t)b * D;
    memset(o, 0, sizeof(float) * D);
    for (int i = graph_ptr[b]; i < graph_ptr[b + 1]; i++) {
      const float *hi = h + (size_t)i * D;
      for (int d = 0; d < D; d++)
        o[d] += hi[d];
    }
  }
}

void sum_pool_backward(float *dh, const float *dout, const int *graph_ptr,
                       int B, int D) {
  // every node of graph b received dout[b]
  for (int b = 0; b < B; b++) {
    const float *d = dout + (size_t)b * D;
    for (int i = graph_ptr[b]; i < graph_ptr[b + 1]; i++) {
      float *dhi = dh + (size_t)i * D;
      for (int k = 0; k < D; k++)
        dhi[k] += d[k];
    }
  }
}

void concat_forward(float *out, const float *a, const float *b, int B, int C1,
                    int C2) {
  int C = C1 + C2;
  for (int r = 0; r < B; r++) {
    memcpy(out + (size_t)r * C, a + (size_t)r * C1, sizeof(float) * C1);
    memcpy(out + (size_t)r * C + C1, b + (size_t)r * C2, sizeof(float) * C2);
  }
}

void concat_backward(float *da, float *db, const float *dout, int B, int C1,
                     int C2) {
  int C = C1 + C2;
  for (int r = 0; r < B; r++) {
    const float *d = dout + (size_t)r * C;
    if (da)
      for (int k = 0; k < C1; k++)
        da[(size_t)r * C1 + k] += d[k];
    if (db)
      for (int k = 0; k < C2; k++)
        db[(size_t)r * C2 + k] += d[C1 + k];
  }
}

// ----------------------------------------------------------------------------
// masked log-softmax

void masked_log_softmax_forward(float *logp, const float *logits,
                                const uint8_t *mask, int B, int A) {
  for (int b = 0; b < B; b++) {
    const float *z = logits + (size_t)b * A;
    const uint8_t *m = mask + (size_t)b * A;
    float *l = logp + (size_t)b * A;
    float maxv = -INFINITY;
    for (int j = 0; j < A; j++)
      if (m[j] && z[j] > maxv)
        maxv = z[j];
    if (maxv == -INFINITY) { // nothing allowed
      for (int j = 0; j < A; j++)
        l[j] = -INFINITY;
      continue;
    }
    double sum = 0.0;
    for (int j = 0; j < A; j++)
      if (m[j])
        sum += exp((double)(z[j] - maxv));
    float lse = maxv + (float)log(sum);
    for (int j = 0; j < A; j++)
      l[j] = m[j] ? z[j] - lse : -INFINITY;
  }
}

void masked_log_softmax_backward(float *dlogits, const float *dlogp,
                                 const float *logp, const uint8_t *mask, int B,
                                 int A) {
  // logp_j = z_j - lse(z), so dz_j += dlogp_j - p_j * sum_k dlogp_k
  for (int b = 0; b < B; b++) {
    const float *dl = dlogp + (size_t)b * A;
    const float *l = logp + (size_t)b * A;
    const uint8_t *m = mask + (size_t)b * A;
    float *dz = dlogits + (size_t)b * A;
    float s = 0.0f;
    for (int j = 0; j < A; j++)
      if (m[j])
        s += dl[j];
    for (int j = 0; j < A; j++)
      if (m[j] && l[j] != -INFINITY)
        dz[j] += dl[j] - expf(l[j]) * s;
  }
}

// ----------------------------------------------------------------------------
// hybrid log-probability and entropy

static const float HALF_LOG_2PI = 0.91893853320467274f; // 0.5 * log(2 pi)

void hybrid_logprob_forward(float *logp, float *ent, const float *logp_disc,
                            const uint8_t *mask, const float *mu,
                            const float *log_std, const int *action,
                            const float *u, const int *param_off, int B, int A,
                            int P) {
  for (int b = 0; b < B; b++) {
    const float *l = logp_disc + (size_t)b * A;
    const uint8_t *m = mask + (size_t)b * A;
    int a = action[b];
    // discrete part, then log N(u; mu, sigma) over the action's slots
    float lp = l[a];
    for (int k = param_off[a]; k < param_off[a + 1]; k++) {
      float s = expf(log_std[k]);
      float z = (u[(size_t)b * P + k] - mu[(size_t)b * P + k]) / s;
      lp += -0.5f * z * z - log_std[k] - HALF_LOG_2PI;
    }
    logp[b] = lp;
    if (!ent)
      continue;
    // H = sum_a p_a (c_a - log p_a), c_a = Gaussian entropy of a's slots
    float h = 0.0f;
    for (int j = 0; j < A; j++) {
      if (!m[j] || l[j] == -INFINITY)
        continue;
      float c = 0.0f;
      for (int k = param_off[j]; k < param_off[j + 1]; k++)
        c += log_std[k] + 0.5f + HALF_LOG_2PI;
      h += expf(l[j]) * (c - l[j]);
    }
    ent[b] = h;
  }
}

void hybrid_logprob_backward(float *dlogp_disc, float *dmu, float *dlog_std,
                             const float *dlogp, const float *dent,
                             const float *logp_disc, const uint8_t *mask,
                             const float *mu, const float *log_std,
                             const int *action, const float *u,
                             const int *param_off, int B, int A, int P) {
  for (int b = 0; b < B; b++) {
    const float *l = logp_disc + (size_t)b * A;
    const uint8_t *m = mask + (size_t)b * A;
    float *dl = dlogp_disc + (size_t)b * A;
    int a = action[b];
    float g = dlogp[b];
    // logp = l[a] + sum_k (-0.5 z^2 - log_std_k - c), z = (u - mu)/s:
    //   d/dmu_k = z/s, d/dlog_std_k = z^2 - 1
    dl[a] += g;
    for (int k = param_off[a]; k < param_off[a + 1]; k++) {
      float s = expf(log_std[k]);
      float z = (u[(size_t)b * P + k] - mu[(size_t)b * P + k]) / s;
      dmu[(size_t)b * P + k] += g * z / s;
      dlog_std[k] += g * (z * z - 1.0f);
    }
    if (!dent)
      continue;
    // H = sum_j p_j (c_j - l_j), p_j = exp(l_j):
    //   dH/dl_j = p_j (c_j - l_j - 1), dH/dlog_std_k = p_j for k in slots(j)
    float ge = dent[b];
    for (int j = 0; j < A; j++) {
      if (!m[j] || l[j] == -INFINITY)
        continue;
      float p = expf(l[j]);
      float c = 0.0f;
      for (int k = param_off[j]; k < param_off[j + 1]; k++) {
        c += log_std[k] + 0.5f + HALF_LOG_2PI;
        dlog_std[k] += ge * p;
      }
      dl[j] += ge * p * (c - l[j] - 1.0f);
    }
  }
}
