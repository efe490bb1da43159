// The policy/value network: configuration, the table of parameter tensors,
// the flat parameter/gradient/Adam buffers, activations, and the forward and
// backward passes of both architectures.
//
//   GNN:  x (N,F) -> [x[:,1:] | embed[x[:,0]]] (N,Fin) (with an op-kind
//         embedding; else x itself) -> sage1 (N,G) -> sage2 (N,G)
//         -> sum pool (B,G)
//         [state (B,S) | pooled (B,G)] -> fc1+tanh (B,H) -> fc2+tanh (B,H)
//   MLP:  state (B,S) -> fc1+tanh (B,H) -> fc2+tanh (B,H)
//   heads on (B,H): masked log-softmax logits (B,A+1), Gaussian means (B,P)
//         with learned log-std (P), value (B).
//
// Not here: the layers themselves (layers.c), the loss (ppo.c), the
// optimizer (adam.c), file I/O (safetensors.c).
#include "nn/nn.h"

#include <cblas.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

// ----------------------------------------------------------------------------
// configuration

const char *nn_arch_name(nn_arch arch) {
  switch (arch) {
  case NN_ARCH_GNN:
    return "gnn";
  case NN_ARCH_MLP:
    return "mlp";
  }
  return NULL;
}

int nn_arch_parse(const char *name, nn_arch *out) {
  if (strcmp(name, "gnn") == 0)
    *out = NN_ARCH_GNN;
  else if (strcmp(name, "mlp") == 0)
    *out = NN_ARCH_MLP;
  else
    return -1;
  return 0;
}

void nn_config_default(nn_config *cfg) {
  memset(cfg, 0, sizeof *cfg);
  cfg->arch = NN_ARCH_GNN;
  cfg->state_dim = 256;
  cfg->node_dim = 0;
  cfg->gnn_dim = 64;
  cfg->hidden_dim = 128;
  cfg->n_actions = 0;
  cfg->init_log_std = -0.5f;
}

int nn_config_node_in(const nn_config *cfg) {
  return cfg->embed_dim > 0 ? cfg->node_dim - 1 + cfg->embed_dim
                            : cfg->node_dim;
}

int nn_config_total_params(const nn_config *cfg) {
  int p = 0;
  for (int a = 0; a < cfg->n_actions; a++)
    p += cfg->param_count[a];
  return p;
}

static bool config_valid(const nn_config *c) {
  if (!nn_arch_name(c->arch) || c->state_dim <= 0 || c->hidden_dim <= 0 ||
      c->n_actions < 0 || c->n_actions > NN_MAX_ACTIONS)
    return false;
  if (c->arch == NN_ARCH_GNN && (c->node_dim <= 0 || c->gnn_dim <= 0))
    return false;
  if (c->embed_dim < 0 || c->embed_rows < 0 ||
      (c->embed_dim > 0 && (c->arch != NN_ARCH_GNN || c->embed_rows < 1)))
    return false;
  for (int a = 0; a < c->n_actions; a++)
    if (c->param_count[a] < 0 || c->param_count[a] > 64)
      return false;
  return isfinite(c->init_log_std);
}

// ----------------------------------------------------------------------------
// the parameter tensors (data: one row per tensor, shapes by symbolic dim)

enum { DIM_1, DIM_F, DIM_G, DIM_S_IN, DIM_H, DIM_A1, DIM_P, DIM_R, DIM_E };
enum { INIT_FANIN, INIT_FANIN_SMALL, INIT_ZERO, INIT_LOG_STD, INIT_EMBED };

static const struct {
  const char *name;
  size_t member; // offsetof in nn_params
  int ndim;
  int dims[2];
  bool gnn_only;
  int init;
} TENSORS[] = {
    {"sage1.w_self", offsetof(nn_params, sage1_ws), 2, {DIM_G, DIM_F}, true, INIT_FANIN},
    {"sage1.w_neigh", offsetof(nn_params, sage1_wn), 2, {DIM_G, DIM_F}, true, INIT_FANIN},
    {"sage1.bias", offsetof(nn_params, sage1_b), 1, {DIM_G, 0}, true, INIT_ZERO},
    {"sage2.w_self", offsetof(nn_params, sage2_ws), 2, {DIM_G, DIM_G}, true, INIT_FANIN},
    {"sage2.w_neigh", offsetof(nn_params, sage2_wn), 2, {DIM_G, DIM_G}, true, INIT_FANIN},
    {"sage2.bias", offsetof(nn_params, sage2_b), 1, {DIM_G, 0}, true, INIT_ZERO},
    {"fc1.weight", offsetof(nn_params, fc1_w), 2, {DIM_H, DIM_S_IN}, false, INIT_FANIN},
    {"fc1.bias", offsetof(nn_params, fc1_b), 1, {DIM_H, 0}, false, INIT_ZERO},
    {"fc2.weight", offsetof(nn_params, fc2_w), 2, {DIM_H, DIM_H}, false, INIT_FANIN},
    {"fc2.bias", offsetof(nn_params, fc2_b), 1, {DIM_H, 0}, false, INIT_ZERO},
    {"pi.weight", offsetof(nn_params, pi_w), 2, {DIM_A1, DIM_H}, false, INIT_FANIN_SMALL},
    {"pi.bias", offsetof(nn_params, pi_b), 1, {DIM_A1, 0}, false, INIT_ZERO},
    {"mu.weight", offsetof(nn_params, mu_w), 2, {DIM_P, DIM_H}, false, INIT_FANIN},
    {"mu.bias", offsetof(nn_params, mu_b), 1, {DIM_P, 0}, false, INIT_ZERO},
    {"log_std", offsetof(nn_params, log_std), 1, {DIM_P, 0}, false, INIT_LOG_STD},
    {"value.weight", offsetof(nn_params, v_w), 2, {DIM_1, DIM_H}, false, INIT_FANIN},
    {"value.bias", offsetof(nn_params, v_b), 1, {DIM_1, 0}, false, INIT_ZERO},
    {"embed.op_kind", offsetof(nn_params, embed), 2, {DIM_R, DIM_E}, true, INIT_EMBED},
};
enum { N_TENSORS = sizeof TENSORS / sizeof TENSORS[0] };

static int dim_value(const nn_config *c, int P, int dim) {
  switch (dim) {
  case DIM_1:
    return 1;
  case DIM_F:
    return nn_config_node_in(c);
  case DIM_R:
    return c->embed_dim > 0 ? c->embed_rows : 0;
  case DIM_E:
    return c->embed_dim;
  case DIM_G:
    return c->gnn_dim;
  case DIM_S_IN:
    return c->state_dim + (c->arch == NN_ARCH_GNN ? c->gnn_dim : 0);
  case DIM_H:
    return c->hidden_dim;
  case DIM_A1:
    return c->n_actions + 1;
  default:
    return P;
  }
}

static void set_pointers(nn_params *p, float *base, const size_t *offsets) {
  memset(p, 0, sizeof *p);
  for (int t = 0; t < N_TENSORS; t++) {
    if (offsets[t] == (size_t)-1)
      continue; // not in this architecture: pointer stays NULL
    float **slot = (float **)((char *)p + TENSORS[t].member);
    *slot = base + offsets[t];
  }
}

static void openblas_one_thread(void) { openblas_set_num_threads(1); }

// Number of floats of tensor t under cfg (P: the parameter heads' total),
// with its shape in shape[] when not NULL; 0 for a GNN tensor of an MLP.
static size_t tensor_size(const nn_config *cfg, int P, int t, int *shape) {
  if (TENSORS[t].gnn_only && cfg->arch != NN_ARCH_GNN)
    return 0;
  size_t size = 1;
  for (int d = 0; d < TENSORS[t].ndim; d++) {
    int v = dim_value(cfg, P, TENSORS[t].dims[d]);
    if (shape)
      shape[d] = v;
    size *= (size_t)v;
  }
  return size;
}

size_t nn_config_param_count(const nn_config *cfg) {
  if (!cfg || !config_valid(cfg))
    return 0;
  int P = 0;
  for (int a = 0; a < cfg->n_actions; a++)
    P += cfg->param_count[a];
  size_t total = 0;
  for (int t = 0; t < N_TENSORS; t++)
    total += tensor_size(cfg, P, t, NULL);
  return total;
}

nn_model *nn_model_create(const nn_config *cfg, uint64_t seed) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, openblas_one_thread);
  if (!cfg || !config_valid(cfg))
    return NULL;
  nn_model *m = calloc(1, sizeof *m);
  if (!m)
    return NULL;
  m->cfg = *cfg;
  for (int a = 0; a <= cfg->n_actions; a++)
    m->param_off[a + 1] =
        m->param_off[a] + (a < cfg->n_actions ? cfg->param_count[a] : 0);
  m->P = m->param_off[cfg->n_actions];

  // lay the tensors out in table order; zero-sized ones are not listed
  size_t offsets[N_TENSORS];
  size_t total = 0;
  for (int t = 0; t < N_TENSORS; t++) {
    offsets[t] = (size_t)-1;
    if (TENSORS[t].gnn_only && cfg->arch != NN_ARCH_GNN)
      continue;
    nn_tensor *ten = &m->tensors[m->n_tensors];
    memset(ten, 0, sizeof *ten);
    strncpy(ten->name, TENSORS[t].name, NN_NAME_MAX - 1);
    ten->ndim = TENSORS[t].ndim;
    ten->size = tensor_size(cfg, m->P, t, ten->shape);
    ten->offset = total;
    offsets[t] = total;
    total += ten->size;
    if (ten->size > 0)
      m->n_tensors++;
  }
  m->n_params = total;
  size_t bytes = sizeof(float) * (total ? total : 1);
  m->params_memory = calloc(1, bytes);
  m->grads_memory = calloc(1, bytes);
  m->m_memory = calloc(1, bytes);
  m->v_memory = calloc(1, bytes);
  if (!m->params_memory || !m->grads_memory || !m->m_memory || !m->v_memory) {
    nn_model_destroy(m);
    return NULL;
  }
  set_pointers(&m->params, m->params_memory, offsets);
  set_pointers(&m->grads, m->grads_memory, offsets);

  // initialise: uniform +-1/sqrt(fan_in) (PyTorch's default for linear
  // layers), biases 0, logits 100x smaller so the first policy is near uniform
  nn_rng rng;
  nn_rng_seed(&rng, seed);
  for (int t = 0; t < N_TENSORS; t++) {
    if (offsets[t] == (size_t)-1)
      continue;
    float *w = m->params_memory + offsets[t];
    int rows = dim_value(cfg, m->P, TENSORS[t].dims[0]);
    int cols = TENSORS[t].ndim == 2 ? dim_value(cfg, m->P, TENSORS[t].dims[1]) : 1;
    size_t n = (size_t)rows * cols;
    float bound = 1.0f / sqrtf((float)(cols > 0 ? cols : 1));
    for (size_t i = 0; i < n; i++) {
      switch (TENSORS[t].init) {
      case INIT_FANIN:
        w[i] = (2.0f * nn_rng_uniform(&rng) - 1.0f) * bound;
        break;
      case INIT_FANIN_SMALL:
        w[i] = 0.01f * (2.0f * nn_rng_uniform(&rng) - 1.0f) * bound;
        break;
      case INIT_LOG_STD:
        w[i] = cfg->init_log_std;
        break;
      case INIT_EMBED: // N(0, 1): rows start distinct, like nn.Embedding
        w[i] = nn_rng_normal(&rng);
        break;
      default:
        w[i] = 0.0f;
      }
    }
  }
  return m;
}

void nn_model_destroy(nn_model *m) {
  if (!m)
    return;
  free(m->params_memory);
  free(m->grads_memory);
  free(m->m_memory);
  free(m->v_memory);
  free(m);
}

const nn_tensor *nn_model_tensor(const nn_model *m, const char *name) {
  for (int t = 0; t < m->n_tensors; t++)
    if (strcmp(m->tensors[t].name, name) == 0)
      return &m->tensors[t];
  return NULL;
}

void nn_zero_grad(nn_model *m) {
  memset(m->grads_memory, 0, sizeof(float) * m->n_params);
}

void nn_grad_keep_actions(nn_model *m, const bool *keep) {
  const nn_params *g = &m->grads;
  int H = m->cfg.hidden_dim, A1 = m->cfg.n_actions + 1;
  const float *heads[] = {g->pi_w, g->pi_b, g->mu_w, g->mu_b, g->log_std};
  for (int i = 0; i < m->n_tensors; i++) {
    float *t = m->grads_memory + m->tensors[i].offset;
    bool head = false;
    for (size_t k = 0; k < sizeof heads / sizeof heads[0]; k++)
      head = head || t == heads[k];
    if (!head)
      memset(t, 0, m->tensors[i].size * sizeof(float));
  }
  for (int a = 0; a < A1; a++) {
    if (keep[a])
      continue;
    memset(g->pi_w + (size_t)a * H, 0, (size_t)H * sizeof(float));
    g->pi_b[a] = 0;
    for (int s = m->param_off[a]; s < m->param_off[a + 1]; s++) {
      memset(g->mu_w + (size_t)s * H, 0, (size_t)H * sizeof(float));
      g->mu_b[s] = 0;
      g->log_std[s] = 0;
    }
  }
}

// ----------------------------------------------------------------------------
// activations

int nn_acts_ensure(nn_acts *a, const nn_model *m, int B, int N) {
  const nn_config *c = &m->cfg;
  bool gnn = c->arch == NN_ARCH_GNN;
  if (!gnn)
    N = 0; // the MLP never touches node activations
  if (B <= a->cap_B && N <= a->cap_N && a->mem) {
    a->B = B;
    a->N = N;
    return 0;
  }
  int nB = B > a->cap_B ? B : a->cap_B;
  int nN = gnn ? (N > a->cap_N ? N : a->cap_N) : 0;
  size_t F = gnn ? (size_t)nn_config_node_in(c) : 0, G = gnn ? c->gnn_dim : 0;
  size_t X0 = gnn && c->embed_dim > 0 ? F : 0;
  size_t S_IN = c->state_dim + G, H = c->hidden_dim, A1 = c->n_actions + 1;
  size_t P = m->P, FG = F > G ? F : G;
  struct {
    float **ptr;
    size_t n;
  } L[] = {
      {&a->agg1, nN * F},      {&a->h1, nN * G},        {&a->agg2, nN * G},
      {&a->h2, nN * G},        {&a->pooled, nB * G},    {&a->z0, nB * S_IN},
      {&a->pre1, nB * H},      {&a->a1, nB * H},        {&a->pre2, nB * H},
      {&a->a2, nB * H},        {&a->logits, nB * A1},   {&a->logp, nB * A1},
      {&a->mu, nB * P},        {&a->value, nB},         {&a->dagg, nN * FG},
      {&a->dpre_n, nN * G},    {&a->dh1, nN * G},       {&a->dh2, nN * G},
      {&a->x0, nN * X0},       {&a->dx0, nN * X0},
      {&a->dpooled, nB * G},   {&a->dz0, nB * S_IN},    {&a->dpre1, nB * H},
      {&a->da1, nB * H},       {&a->dpre2, nB * H},     {&a->da2, nB * H},
      {&a->dlogits, nB * A1},  {&a->dlogp, nB * A1},    {&a->dmu, nB * P},
      {&a->dvalue, nB},        {&a->ppo_logp, nB},      {&a->ppo_ent, nB},
      {&a->ppo_ratio, nB},     {&a->ppo_dlogp, nB},     {&a->ppo_dent, nB},
  };
  size_t total = 0;
  for (size_t i = 0; i < sizeof L / sizeof L[0]; i++)
    total += L[i].n;
  float *mem = calloc(total ? total : 1, sizeof(float));
  if (!mem)
    return -1;
  free(a->mem);
  a->mem = mem;
  for (size_t i = 0; i < sizeof L / sizeof L[0]; i++) {
    *L[i].ptr = mem;
    mem += L[i].n;
  }
  a->cap_B = nB;
  a->cap_N = nN;
  a->B = B;
  a->N = N;
  return 0;
}

void nn_acts_free(nn_acts *a) {
  free(a->mem);
  memset(a, 0, sizeof *a);
}

void nn_acts_zero_head_grads(nn_acts *a, const nn_model *m) {
  memset(a->dlogp, 0, sizeof(float) * a->B * (m->cfg.n_actions + 1));
  memset(a->dmu, 0, sizeof(float) * a->B * m->P);
  memset(a->dvalue, 0, sizeof(float) * a->B);
}

// ----------------------------------------------------------------------------
// the op-kind embedding

// Row of the embedding for a node whose column 0 holds `id`.
static int embed_row(float id, int R) {
  return id >= 0 && id < (float)(R - 1) ? (int)id : R - 1;
}

// x0 (N, F-1+E): x0[i] = [x[i, 1:F] | embed[row(x[i, 0])]]; x is (N, F),
// embed (R, E).
static void embed_forward(float *x0, const float *x, const float *embed,
                          int N, int F, int E, int R) {
  for (int i = 0; i < N; i++) {
    const float *xi = x + (size_t)i * F;
    float *o = x0 + (size_t)i * (F - 1 + E);
    memcpy(o, xi + 1, sizeof(float) * (F - 1));
    memcpy(o + F - 1, embed + (size_t)embed_row(xi[0], R) * E,
           sizeof(float) * E);
  }
}

// In the forward pass x0[i, F-1+e] was embed[row_i, e], so dembed[row_i]
// += dx0[i, F-1:]. The other columns of x are inputs: no gradient.
static void embed_backward(float *dembed, const float *dx0, const float *x,
                           int N, int F, int E, int R) {
  for (int i = 0; i < N; i++) {
    const float *d = dx0 + (size_t)i * (F - 1 + E) + F - 1;
    float *o = dembed + (size_t)embed_row(x[(size_t)i * F], R) * E;
    for (int e = 0; e < E; e++)
      o[e] += d[e];
  }
}

// ----------------------------------------------------------------------------
// forward and backward

void nn_forward(const nn_model *m, nn_acts *a, const nn_batch *in) {
  const nn_config *c = &m->cfg;
  const nn_params *p = &m->params;
  if (c->arch == NN_ARCH_GNN) {
    const nn_graph *g = &in->graph;
    int N = g->n_nodes, F = nn_config_node_in(c), G = c->gnn_dim;
    const float *x = g->x;
    if (c->embed_dim > 0) {
      embed_forward(a->x0, g->x, p->embed, N, c->node_dim, c->embed_dim,
                    c->embed_rows);
      x = a->x0;
    }
    sage_forward(a->h1, a->agg1, x, g->row_ptr, g->col, p->sage1_ws,
                 p->sage1_wn, p->sage1_b, N, F, G);
    sage_forward(a->h2, a->agg2, a->h1, g->row_ptr, g->col, p->sage2_ws,
                 p->sage2_wn, p->sage2_b, N, G, G);
    sum_pool_forward(a->pooled, a->h2, in->graph_ptr, in->B, G);
  }
  nn_forward_trunk(m, a, in);
}

void nn_forward_trunk(const nn_model *m, nn_acts *a, const nn_batch *in) {
  const nn_config *c = &m->cfg;
  const nn_params *p = &m->params;
  int B = in->B, S = c->state_dim, H = c->hidden_dim, A1 = c->n_actions + 1;
  int P = m->P, S_IN = S;
  if (c->arch == NN_ARCH_GNN) {
    concat_forward(a->z0, in->state, a->pooled, B, S, c->gnn_dim);
    S_IN = S + c->gnn_dim;
  } else {
    memcpy(a->z0, in->state, sizeof(float) * B * S);
  }
  linear_forward(a->pre1, a->z0, p->fc1_w, p->fc1_b, B, S_IN, H);
  tanh_forward(a->a1, a->pre1, B * H);
  linear_forward(a->pre2, a->a1, p->fc2_w, p->fc2_b, B, H, H);
  tanh_forward(a->a2, a->pre2, B * H);
  linear_forward(a->logits, a->a2, p->pi_w, p->pi_b, B, H, A1);
  masked_log_softmax_forward(a->logp, a->logits, in->mask, B, A1);
  linear_forward(a->mu, a->a2, p->mu_w, p->mu_b, B, H, P);
  linear_forward(a->value, a->a2, p->v_w, p->v_b, B, H, 1);
}

void nn_backward(nn_model *m, nn_acts *a, const nn_batch *in) {
  const nn_config *c = &m->cfg;
  const nn_params *p = &m->params;
  nn_params *g = &m->grads;
  int B = in->B, S = c->state_dim, H = c->hidden_dim, A1 = c->n_actions + 1;
  int P = m->P;
  bool gnn = c->arch == NN_ARCH_GNN;
  int G = gnn ? c->gnn_dim : 0, S_IN = S + G;
  // activation gradients are scratch: clear them, then accumulate
  memset(a->dlogits, 0, sizeof(float) * B * A1);
  memset(a->da2, 0, sizeof(float) * B * H);
  memset(a->dpre2, 0, sizeof(float) * B * H);
  memset(a->da1, 0, sizeof(float) * B * H);
  memset(a->dpre1, 0, sizeof(float) * B * H);

  // heads: logp = log_softmax(a2 @ pi_w^T + pi_b), mu, value
  masked_log_softmax_backward(a->dlogits, a->dlogp, a->logp, in->mask, B, A1);
  linear_backward(a->da2, g->pi_w, g->pi_b, a->dlogits, a->a2, p->pi_w, B, H,
                  A1);
  linear_backward(a->da2, g->mu_w, g->mu_b, a->dmu, a->a2, p->mu_w, B, H, P);
  linear_backward(a->da2, g->v_w, g->v_b, a->dvalue, a->a2, p->v_w, B, H, 1);
  // MLP trunk
  tanh_backward(a->dpre2, a->da2, a->a2, B * H);
  linear_backward(a->da1, g->fc2_w, g->fc2_b, a->dpre2, a->a1, p->fc2_w, B, H,
                  H);
  tanh_backward(a->dpre1, a->da1, a->a1, B * H);
  if (!gnn) {
    linear_backward(NULL, g->fc1_w, g->fc1_b, a->dpre1, a->z0, p->fc1_w, B,
                    S_IN, H);
    return;
  }
  memset(a->dz0, 0, sizeof(float) * B * S_IN);
  linear_backward(a->dz0, g->fc1_w, g->fc1_b, a->dpre1, a->z0, p->fc1_w, B,
                  S_IN, H);
  // GNN: z0 = [state | sum_pool(h2)], h2 = sage2(h1), h1 = sage1(x)
  const nn_graph *gr = &in->graph;
  int N = gr->n_nodes, F = nn_config_node_in(c);
  bool emb = c->embed_dim > 0;
  memset(a->dpooled, 0, sizeof(float) * B * G);
  memset(a->dh2, 0, sizeof(float) * N * G);
  memset(a->dh1, 0, sizeof(float) * N * G);
  concat_backward(NULL, a->dpooled, a->dz0, B, S, G);
  sum_pool_backward(a->dh2, a->dpooled, in->graph_ptr, B, G);
  sage_backward(a->dh1, g->sage2_ws, g->sage2_wn, g->sage2_b, a->dpre_n,
                a->dagg, a->dh2, a->h2, a->agg2, a->h1, gr->row_ptr, gr->col,
                p->sage2_ws, p->sage2_wn, N, G, G);
  if (emb)
    memset(a->dx0, 0, sizeof(float) * N * F);
  sage_backward(emb ? a->dx0 : NULL, g->sage1_ws, g->sage1_wn, g->sage1_b,
                a->dpre_n, a->dagg, a->dh1, a->h1, a->agg1,
                emb ? a->x0 : gr->x, gr->row_ptr, gr->col, p->sage1_ws,
                p->sage1_wn, N, F, G);
  if (emb)
    embed_backward(g->embed, a->dx0, gr->x, N, c->node_dim, c->embed_dim,
                   c->embed_rows);
}

// ----------------------------------------------------------------------------
// batching graphs

int nn_graph_batch_build(nn_graph_batch *out, const nn_graph *graphs, int n) {
  memset(out, 0, sizeof *out);
  size_t N = 0, E = 0;
  int F = n > 0 ? graphs[0].node_dim : 0;
  for (int i = 0; i < n; i++) {
    if (graphs[i].node_dim != F)
      return -1;
    N += graphs[i].n_nodes;
    E += graphs[i].row_ptr[graphs[i].n_nodes];
  }
  out->x = malloc(sizeof(float) * (N * F + 1));
  out->row_ptr = malloc(sizeof(int) * (N + 1));
  out->col = malloc(sizeof(int) * (E + 1));
  out->graph_ptr = malloc(sizeof(int) * (n + 1));
  if (!out->x || !out->row_ptr || !out->col || !out->graph_ptr) {
    nn_graph_batch_free(out);
    return -1;
  }
  int node = 0, edge = 0;
  out->row_ptr[0] = 0;
  for (int i = 0; i < n; i++) {
    const nn_graph *g = &graphs[i];
    out->graph_ptr[i] = node;
    memcpy(out->x + (size_t)node * F, g->x, sizeof(float) * g->n_nodes * F);
    for (int v = 0; v < g->n_nodes; v++) {
      for (int e = g->row_ptr[v]; e < g->row_ptr[v + 1]; e++)
        out->col[edge++] = g->col[e] + node;
      out->row_ptr[node + v + 1] = edge;
    }
    node += g->n_nodes;
  }
  out->graph_ptr[n] = node;
  out->g = (nn_graph){.n_nodes = node, .node_dim = F, .x = out->x,
                      .row_ptr = out->row_ptr, .col = out->col};
  return 0;
}

void nn_graph_batch_free(nn_graph_batch *gb) {
  free(gb->x);
  free(gb->row_ptr);
  free(gb->col);
  free(gb->graph_ptr);
  memset(gb, 0, sizeof *gb);
}
