// Adam with global-norm gradient clipping over the model's flat buffers.
// One loop over all parameters, as in llm.c.
//
// Not here: learning-rate schedules (the trainer passes lr each step).
#include "nn/nn.h"

#include <math.h>

float grad_global_norm(const float *grads, size_t n) {
  double s = 0.0;
  for (size_t i = 0; i < n; i++)
    s += (double)grads[i] * grads[i];
  return (float)sqrt(s);
}

void adam_update(float *params, float *m, float *v, const float *grads,
                 size_t n, float grad_scale, float lr, float beta1,
                 float beta2, float eps, float weight_decay, int t) {
  float c1 = 1.0f - powf(beta1, (float)t);
  float c2 = 1.0f - powf(beta2, (float)t);
  for (size_t i = 0; i < n; i++) {
    float g = grads[i] * grad_scale;
    m[i] = beta1 * m[i] + (1.0f - beta1) * g;
    v[i] = beta2 * v[i] + (1.0f - beta2) * g * g;
    float mhat = m[i] / c1, vhat = v[i] / c2;
    // decoupled weight decay (AdamW); 0 gives plain Adam
    params[i] -= lr * (mhat / (sqrtf(vhat) + eps) + weight_decay * params[i]);
  }
}

float nn_adam_step(nn_model *m, const nn_adam_config *c) {
  float norm = grad_global_norm(m->grads_memory, m->n_params);
  float scale = 1.0f;
  if (c->max_grad_norm > 0.0f && norm > c->max_grad_norm)
    scale = c->max_grad_norm / norm;
  m->adam_t++;
  adam_update(m->params_memory, m->m_memory, m->v_memory, m->grads_memory,
              m->n_params, scale, c->lr, c->beta1, c->beta2, c->eps,
              c->weight_decay, m->adam_t);
  return norm;
}
