// Internal interface of the policy networks (src/nn): layers as
// forward/backward pairs, the two architectures (GraphSAGE + MLP, MLP only),
// the hybrid action heads, the PPO loss, Adam, and safetensors policy files.
//
// This is not public API: mqss.h wires mqss_policy_* on top of it. The
// networks know nothing about MLIR, catalogs or features; they consume plain
// arrays (a state vector, a CSR graph, an action mask, parameter counts).
// Conventions follow llm.c: outputs and caches first, then inputs and
// weights, then dimensions; backward passes accumulate (+=); shapes are
// given in comments. Matrix products use OpenBLAS (single-threaded, see
// nn_model_create).
#ifndef MQSS_NN_H
#define MQSS_NN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

// ----------------------------------------------------------------------------
// random numbers (one explicit, seeded generator; no global state)

typedef struct {
  uint64_t s; // xorshift64* state, never 0
} nn_rng;

void nn_rng_seed(nn_rng *r, uint64_t seed);
uint64_t nn_rng_u64(nn_rng *r);
float nn_rng_uniform(nn_rng *r);            // [0, 1)
float nn_rng_normal(nn_rng *r);             // N(0, 1), Box-Muller

// ----------------------------------------------------------------------------
// layers (src/nn/layers.c)

// out (B,OC) = inp (B,C) @ weight^T (OC,C) + bias (OC); bias may be NULL.
void linear_forward(float *out, const float *inp, const float *weight,
                    const float *bias, int B, int C, int OC);
// dinp (B,C) += dout @ weight; dweight (OC,C) += dout^T @ inp;
// dbias (OC) += sum_b dout. dinp and dbias may be NULL.
void linear_backward(float *dinp, float *dweight, float *dbias,
                     const float *dout, const float *inp, const float *weight,
                     int B, int C, int OC);

// out = max(inp, 0), elementwise over n; out may alias inp.
void relu_forward(float *out, const float *inp, int n);
// dinp += dout * (out > 0); uses the forward output.
void relu_backward(float *dinp, const float *dout, const float *out, int n);
void tanh_forward(float *out, const float *inp, int n);
// dinp += dout * (1 - out^2); uses the forward output.
void tanh_backward(float *dinp, const float *dout, const float *out, int n);

// A graph in CSR form: the neighbours of node i are col[row_ptr[i] ..
// row_ptr[i+1]). A batch of graphs is their disjoint union plus graph_ptr.
typedef struct {
  int n_nodes;
  int node_dim;
  const float *x;       // (n_nodes, node_dim) node features
  const int *row_ptr;   // (n_nodes+1)
  const int *col;       // (row_ptr[n_nodes]) neighbour indices
} nn_graph;

// agg (N,D): agg[i] = mean_{j in N(i)} h[j], 0 for a node without neighbours.
void mean_agg_forward(float *agg, const float *h, const int *row_ptr,
                      const int *col, int N, int D);
// dh (N,D) += scatter of dagg[i] / deg(i) to every neighbour j of i.
void mean_agg_backward(float *dh, const float *dagg, const int *row_ptr,
                       const int *col, int N, int D);

// GraphSAGE layer with mean aggregator:
// out (N,O) = relu(h (N,D) @ w_self^T (O,D) + agg (N,D) @ w_neigh^T (O,D) + b)
// agg (N,D) is a cache filled here (the neighbour means of h).
void sage_forward(float *out, float *agg, const float *h, const int *row_ptr,
                  const int *col, const float *w_self, const float *w_neigh,
                  const float *b, int N, int D, int O);
// dpre (N,O) and dagg (N,D) are scratch. dh may be NULL (input features).
void sage_backward(float *dh, float *dw_self, float *dw_neigh, float *db,
                   float *dpre, float *dagg, const float *dout,
                   const float *out, const float *agg, const float *h,
                   const int *row_ptr, const int *col, const float *w_self,
                   const float *w_neigh, int N, int D, int O);

// out (B,D): out[b] = sum of h[i] (N,D) for i in [graph_ptr[b], graph_ptr[b+1]).
void sum_pool_forward(float *out, const float *h, const int *graph_ptr, int B,
                      int D);
void sum_pool_backward(float *dh, const float *dout, const int *graph_ptr,
                       int B, int D);

// out (B,C1+C2) = [a (B,C1) | b (B,C2)]
void concat_forward(float *out, const float *a, const float *b, int B, int C1,
                    int C2);
// da, db may be NULL.
void concat_backward(float *da, float *db, const float *dout, int B, int C1,
                     int C2);

// Masked log-softmax over the last dimension: logp (B,A) = logits -
// logsumexp(allowed logits); entries with mask == 0 are -INFINITY. A row
// with nothing allowed is all -INFINITY.
void masked_log_softmax_forward(float *logp, const float *logits,
                                const uint8_t *mask, int B, int A);
// dlogits += dlogp - p * sum(dlogp), over allowed entries only.
void masked_log_softmax_backward(float *dlogits, const float *dlogp,
                                 const float *logp, const uint8_t *mask, int B,
                                 int A);

// Hybrid log-probability and entropy of an action (discrete choice a plus
// Gaussian parameters for a's parameter slots param_off[a]..param_off[a+1]):
//   logp[b] = logp_disc[b,a] + sum_k log N(u[b,k]; mu[b,k], exp(log_std[k]))
//   ent[b]  = H(discrete) + sum_a p(a) * H(Gaussian of a)
// ent may be NULL. logp_disc (B,A), mask (B,A), mu (B,P), log_std (P),
// action (B), u (B,P) (only the chosen action's slots are read),
// param_off (A+1).
void hybrid_logprob_forward(float *logp, float *ent, const float *logp_disc,
                            const uint8_t *mask, const float *mu,
                            const float *log_std, const int *action,
                            const float *u, const int *param_off, int B, int A,
                            int P);
// Accumulates into dlogp_disc (B,A), dmu (B,P), dlog_std (P) from dlogp (B)
// and dent (B); dent may be NULL.
void hybrid_logprob_backward(float *dlogp_disc, float *dmu, float *dlog_std,
                             const float *dlogp, const float *dent,
                             const float *logp_disc, const uint8_t *mask,
                             const float *mu, const float *log_std,
                             const int *action, const float *u,
                             const int *param_off, int B, int A, int P);

// ----------------------------------------------------------------------------
// model configuration and parameters (src/nn/model.c)

#define NN_MAX_ACTIONS 256 // catalog actions, STOP excluded
#define NN_MAX_TENSORS 24
#define NN_NAME_MAX 32

typedef enum {
  NN_ARCH_GNN = 0, // GraphSAGE x2 -> sum pool, concat state -> MLP -> heads
  NN_ARCH_MLP = 1, // state -> MLP -> heads (the comparison baseline)
} nn_arch;

// "gnn" / "mlp"; NULL for an unknown value.
const char *nn_arch_name(nn_arch arch);
// Returns 0 and sets *out, or -1 for an unknown name.
int nn_arch_parse(const char *name, nn_arch *out);

typedef struct {
  nn_arch arch;
  int state_dim;   // S, 256 in production
  int node_dim;    // F, per-node feature size (GNN only)
  int gnn_dim;     // G, 64 in production (GNN only)
  int hidden_dim;  // H, width of both MLP layers
  int n_actions;   // A, catalog actions; the heads have A+1 logits (STOP last)
  int param_count[NN_MAX_ACTIONS]; // continuous parameters of each action
  float init_log_std;              // initial value of every log-std
  // Op-kind embedding (GNN only). With embed_dim E > 0, node column 0 holds
  // an op-kind id: the node's input row is [x[1..F) | embed[id]] (F-1+E
  // wide), and ids outside [0, R-1) use row R-1 (blocks). With E = 0 every
  // column is a plain numeric input (F wide).
  int embed_dim;                   // E
  int embed_rows;                  // R, op kinds + 1
} nn_config;

// Width of the first GraphSAGE layer's input: F-1+E with an embedding, else F.
int nn_config_node_in(const nn_config *cfg);

// Fills cfg with the production defaults (GNN, S=256, G=64, H=128, no
// actions); set node_dim, n_actions and param_count before use.
void nn_config_default(nn_config *cfg);
// Total continuous parameter slots P = sum of param_count.
int nn_config_total_params(const nn_config *cfg);

typedef struct {
  float *sage1_ws;  // (G, F)   GraphSAGE layer 1, self weight
  float *sage1_wn;  // (G, F)   GraphSAGE layer 1, neighbour-mean weight
  float *sage1_b;   // (G)
  float *sage2_ws;  // (G, G)
  float *sage2_wn;  // (G, G)
  float *sage2_b;   // (G)
  float *fc1_w;     // (H, S+G) for GNN, (H, S) for MLP
  float *fc1_b;     // (H)
  float *fc2_w;     // (H, H)
  float *fc2_b;     // (H)
  float *pi_w;      // (A+1, H) action logits
  float *pi_b;      // (A+1)
  float *mu_w;      // (P, H)   Gaussian means of all parameter slots
  float *mu_b;      // (P)
  float *log_std;   // (P)      state-independent log standard deviations
  float *v_w;       // (1, H)   value head
  float *v_b;       // (1)
  float *embed;     // (R, E)   op-kind embedding (GNN with E > 0)
} nn_params;

typedef struct {
  char name[NN_NAME_MAX]; // "sage1.w_self", ...; safetensors tensor name
  int ndim;               // 1 or 2
  int shape[2];
  size_t size;            // elements
  size_t offset;          // elements from the start of the flat buffer
} nn_tensor;

typedef struct {
  nn_config cfg;
  int P;                           // total parameter slots
  int param_off[NN_MAX_ACTIONS + 2]; // (A+2) slot offsets; STOP has none
  int n_tensors;                   // tensors with at least one element
  nn_tensor tensors[NN_MAX_TENSORS];
  size_t n_params;                 // floats in each flat buffer
  float *params_memory;            // (n_params)
  float *grads_memory;             // (n_params)
  float *m_memory;                 // (n_params) Adam first moment
  float *v_memory;                 // (n_params) Adam second moment
  nn_params params;                // pointers into params_memory
  nn_params grads;                 // pointers into grads_memory
  int adam_t;                      // Adam steps taken
} nn_model;

// Allocates a model for cfg with parameters initialised from seed
// (uniform +-1/sqrt(fan_in), biases 0, policy logits scaled by 0.01).
// Returns NULL on an invalid config or out of memory. Also sets OpenBLAS to
// one thread (the library runs one decision per worker process/thread).
nn_model *nn_model_create(const nn_config *cfg, uint64_t seed);
// The number of floats (n_params) a model of cfg holds, without allocating
// it; 0 for an invalid config.
size_t nn_config_param_count(const nn_config *cfg);
void nn_model_destroy(nn_model *m); // NULL is harmless
// Returns the tensor called name, or NULL.
const nn_tensor *nn_model_tensor(const nn_model *m, const char *name);
void nn_zero_grad(nn_model *m);
// Zeroes every gradient except the output rows of the actions flagged in
// keep (A+1 flags, STOP last): each one's logit row and bias, and its
// parameter slots' mean rows, biases and log-stds. With no weight decay,
// an Adam step from zero moments then moves only those rows: the trunk and
// every other action's outputs stay as they are.
void nn_grad_keep_actions(nn_model *m, const bool *keep);

// ----------------------------------------------------------------------------
// forward / backward of the whole network (src/nn/model.c)

typedef struct {
  int B;                  // samples
  const float *state;     // (B, S)
  nn_graph graph;         // disjoint union of the B graphs (GNN only)
  const int *graph_ptr;   // (B+1) first node of each sample's graph
  const uint8_t *mask;    // (B, A+1) 1 = allowed; STOP is index A
} nn_batch;

// Activations and their gradients for one batch. Owned by the caller, so a
// const model can run forward passes from many threads, each with its own.
typedef struct {
  int cap_B, cap_N;       // allocated capacity
  int B, N;               // sizes of the last forward pass
  float *mem;             // one allocation behind every pointer below
  float *x0;     // (N, Fin) node inputs with embeddings (E > 0 only)
  float *agg1;   // (N, Fin) neighbour means of the node inputs
  float *h1;     // (N, G)
  float *agg2;   // (N, G)
  float *h2;     // (N, G)
  float *pooled; // (B, G)
  float *z0;     // (B, S+G) trunk input (the state itself for MLP)
  float *pre1;   // (B, H)
  float *a1;     // (B, H)  tanh
  float *pre2;   // (B, H)
  float *a2;     // (B, H)  tanh
  float *logits; // (B, A+1)
  float *logp;   // (B, A+1) masked log-softmax
  float *mu;     // (B, P)
  float *value;  // (B)
  // gradients, same shapes; dlogp, dmu and dvalue are the backward inputs
  float *dagg, *dpre_n, *dh1, *dh2, *dpooled, *dz0, *dpre1, *da1, *dpre2,
      *da2, *dlogits, *dlogp, *dmu, *dvalue;
  float *dx0;    // (N, Fin) gradient of the node inputs (E > 0 only)
  // PPO caches (B): new log-prob, entropy, ratio
  float *ppo_logp, *ppo_ent, *ppo_ratio, *ppo_dlogp, *ppo_dent;
} nn_acts;

// Grows acts to hold B samples with N graph nodes in total; returns 0, or -1
// when out of memory. Zero-initialised acts are valid empty ones.
int nn_acts_ensure(nn_acts *a, const nn_model *m, int B, int N);
void nn_acts_free(nn_acts *a);

// Fills a->logp, a->mu and a->value for the batch. Does not modify m.
void nn_forward(const nn_model *m, nn_acts *a, const nn_batch *in);
// The same without the graph encoder: reuses a->pooled from an earlier
// nn_forward on the same graphs (state and mask may differ). For the MLP
// architecture it is nn_forward.
void nn_forward_trunk(const nn_model *m, nn_acts *a, const nn_batch *in);
// Zeroes the backward inputs a->dlogp (B,A+1), a->dmu (B,P), a->dvalue (B).
void nn_acts_zero_head_grads(nn_acts *a, const nn_model *m);
// Backpropagates a->dlogp, a->dmu, a->dvalue into m->grads (accumulating).
// The activations must come from nn_forward on the same batch.
void nn_backward(nn_model *m, nn_acts *a, const nn_batch *in);

// Disjoint union of n graphs: copies node features and shifts neighbour
// indices; graph_ptr gets the first node of each graph. Free with
// nn_graph_batch_free. Returns 0 or -1 (out of memory / mismatched dims).
typedef struct {
  nn_graph g;
  float *x;          // (N, F)
  int *row_ptr;      // (N+1)
  int *col;          // (nnz)
  int *graph_ptr;    // (n+1)
} nn_graph_batch;
int nn_graph_batch_build(nn_graph_batch *out, const nn_graph *graphs, int n);
void nn_graph_batch_free(nn_graph_batch *gb);

// ----------------------------------------------------------------------------
// acting and PPO (src/nn/ppo.c)

// Chooses an action for sample b of the last forward pass: greedy (argmax
// of allowed logits, parameters = means) when rng is NULL, otherwise
// sampled. Writes the chosen action's parameters to u[param_off[a]..] of a
// (P) array and returns the action (A = STOP), or -1 if nothing is allowed.
int nn_act(const nn_model *m, const nn_acts *a, int b, nn_rng *rng, float *u);
// The same from one sample's log-probabilities l (A+1) and means mu (P),
// with m's parameter layout and log-stds (an ensemble's combined ones).
int nn_act_from(const nn_model *m, const float *l, const float *mu,
                nn_rng *rng, float *u);

typedef struct {
  float clip_eps;  // PPO ratio clip, e.g. 0.2
  float vf_coef;   // value-loss weight, e.g. 0.5
  float ent_coef;  // entropy bonus weight, e.g. 0.01
  float kl_coef;   // weight of the anchor term KL(anchor || pi) (0 = off)
} nn_ppo_config;

typedef struct {
  const int *action;     // (B) chosen action, A = STOP
  const float *u;        // (B, P) sampled parameters (chosen action's slots)
  const float *logp_old; // (B) log-prob under the rollout policy
  const float *adv;      // (B) advantages
  const float *ret;      // (B) returns (value targets)
  // The anchor policy on the same batch (expert iteration: the clone of the
  // searched pipelines), read when kl_coef > 0: its log-probabilities
  // (B, A+1), parameter means (B, P) and log-stds (P).
  const float *anchor_logp, *anchor_mu, *anchor_log_std;
} nn_ppo_batch;

typedef struct {
  float loss, policy_loss, value_loss, entropy, approx_kl, clip_frac;
  float anchor_kl; // mean KL(anchor || pi) (0 when there is no anchor)
} nn_ppo_stats;

// Runs the network forward and computes the PPO loss
//   L = mean_b[-min(r A, clip(r, 1-eps, 1+eps) A)] + vf * mean_b[0.5 (V-R)^2]
//       - ent * mean_b[H] + kl * mean_b[KL_b],   r = exp(logp - logp_old),
// where, with an anchor, KL_b = KL(anchor || pi) of the discrete choice plus
// that of the Gaussians of the taken action's parameter slots:
//   sum_j pa_j (log pa_j - log p_j)
//   + sum_k [log(s_k / sa_k) + (sa_k^2 + (mua_k - mu_k)^2) / (2 s_k^2) - 1/2].
// It is 0 exactly when pi equals the anchor on the batch.
// Returns L; stats may be NULL.
float nn_ppo_forward(const nn_model *m, nn_acts *a, const nn_batch *in,
                     const nn_ppo_batch *t, const nn_ppo_config *c,
                     nn_ppo_stats *stats);
// Accumulates dL/dparams into m->grads; call after nn_ppo_forward.
void nn_ppo_backward(nn_model *m, nn_acts *a, const nn_batch *in,
                     const nn_ppo_batch *t, const nn_ppo_config *c);

// Behaviour cloning: runs the network forward and returns
//   L = mean_b [-log pi(action_b | s_b) + 0.5 |mu_b - u_b|^2
//               + kl_coef * [anchor chooses action_b] * KL_b],
// the cross-entropy of the demonstrated action plus the squared error of
// its parameters' means. Not the Gaussian log-density: shrinking the std
// would win that at any action error. With kl_coef > 0 and
// t->anchor_logp set, KL_b = KL(anchor || pi) of the discrete choice is
// added on the samples whose demonstrated action is the anchor's greedy
// choice: there the clone keeps the anchor's whole distribution (expert
// iteration: the previous round's policy) rather than sharpening it, and
// where the demonstration differs nothing pulls against it. Reads
// t->action, t->u and t->anchor_logp only. The value head and the
// log-stds get no gradient.
float nn_bc_forward(const nn_model *m, nn_acts *a, const nn_batch *in,
                    const nn_ppo_batch *t, float kl_coef);
// Accumulates dL/dparams into m->grads; call after nn_bc_forward with the
// same kl_coef.
void nn_bc_backward(nn_model *m, nn_acts *a, const nn_batch *in,
                    const nn_ppo_batch *t, float kl_coef);

// ----------------------------------------------------------------------------
// optimizer (src/nn/adam.c)

typedef struct {
  float lr, beta1, beta2, eps, weight_decay;
  float max_grad_norm; // clip the global gradient norm to this; <= 0: off
} nn_adam_config;

// sqrt(sum g^2) over n, accumulated in double.
float grad_global_norm(const float *grads, size_t n);
// One Adam step (t counts from 1) with grads multiplied by grad_scale first.
void adam_update(float *params, float *m, float *v, const float *grads,
                 size_t n, float grad_scale, float lr, float beta1,
                 float beta2, float eps, float weight_decay, int t);
// Clips by global norm and takes one Adam step on the model. Returns the
// gradient norm before clipping.
float nn_adam_step(nn_model *m, const nn_adam_config *c);

// ----------------------------------------------------------------------------
// policy files: safetensors (src/nn/safetensors*.c, docs/POLICY_FORMAT.md)

#define NN_FORMAT_VERSION "1"

#define NN_STATUS_TABLE(X)                                                     \
  X(NN_OK, "ok")                                                               \
  X(NN_ERR_IO, "cannot read or write the policy file")                         \
  X(NN_ERR_NOMEM, "out of memory")                                             \
  X(NN_ERR_FORMAT, "not a safetensors policy file")                            \
  X(NN_ERR_TRUNCATED, "policy file is truncated")                              \
  X(NN_ERR_CORRUPT, "policy data checksum mismatch")                           \
  X(NN_ERR_SHAPE, "tensor shape mismatch")                                     \
  X(NN_ERR_HASH, "feature-layout or catalog hash mismatch")                    \
  X(NN_ERR_VERSION, "MLIR version mismatch")

typedef enum {
#define NN_STATUS_ENUM(name, text) name,
  NN_STATUS_TABLE(NN_STATUS_ENUM)
#undef NN_STATUS_ENUM
} nn_status;

const char *nn_strerror(nn_status st); // static strings

// Shared by the reader and the writer (safetensors*.c).
#define NN_FORMAT_NAME "mqss-policy"
// FNV-1a 64 of n bytes: the data checksum.
uint64_t nn_fnv1a64(const uint8_t *p, size_t n);
// Writes "policy 'name': <formatted>" into err (errlen bytes); returns st.
nn_status nn_seterr(char *err, size_t errlen, nn_status st, const char *name,
                    const char *fmt, ...) __attribute__((format(printf, 5, 6)));

// How a file stores the 2-D weight tensors (metadata "weight_dtype").
typedef enum {
  NN_DTYPE_F32 = 0,  // "f32": every tensor F32 (also a file without the key)
  NN_DTYPE_INT8 = 1, // "int8": each 2-D weight (R,C) as I8 values plus an F32
                     // tensor NAME.scale (R): w[r,c] = q[r,c] * scale[r]
} nn_dtype;

// What a policy file says about itself besides its weights.
typedef struct {
  char mlir_version[32];     // e.g. "19.1.7"
  uint64_t feature_hash;     // hash of the state/graph feature layout
  uint64_t catalog_hash;     // hash of the action catalog
  char train_config[4096];   // training config: its path and every key=value
  char train_commit[64];     // source commit of the trainer
  char train_date[32];       // ISO-8601 date of the run
  long long train_steps;     // PPO updates taken
  nn_dtype weight_dtype;     // how the file stores its weights; a loaded
                             // int8 model holds the dequantised q * scale
  // Lineage of a policy migrated from an older one (--init-from); all zero
  // / empty for a policy trained from scratch.
  uint64_t parent_hash;           // FNV-1a 64 of the parent file's bytes
  uint64_t parent_feature_hash;   // its feature-layout hash
  uint64_t parent_catalog_hash;   // its catalog hash
  int parent_feature_version;     // its feature-layout version
  int parent_actions;             // its actions, STOP excluded
} nn_file_meta;

// What the loader must check; NULL checks only the format.
typedef struct {
  uint64_t feature_hash;
  uint64_t catalog_hash;
  // Also accepted: a hash of a prefix of the catalog (it extends the one the
  // policy was trained with; the caller then binds the policy to that
  // prefix). (n_prefix_hashes) entries, may be NULL.
  const uint64_t *prefix_hashes;
  int n_prefix_hashes;
  const char *mlir_version;    // NULL: do not check
  bool allow_version_mismatch; // accept a different MLIR version
  // Also accepted: these feature-layout hashes (older layouts the caller
  // migrates with nn_model_migrate). (n_old_feature_hashes), may be NULL.
  const uint64_t *old_feature_hashes;
  int n_old_feature_hashes;
} nn_load_check;

// Serialises the parameters of m and meta into a malloc'ed buffer, with the
// weights in meta->weight_dtype (int8: quantised here, see quant.c).
nn_status nn_policy_serialize(const nn_model *m, const nn_file_meta *meta,
                              uint8_t **out, size_t *out_len);
// Parses a policy from len bytes; `name` is used in messages. On success
// *out is a new model (Adam state zero) and *meta (if non-NULL) is filled.
// On failure err (errlen bytes) receives "policy 'name': what; what to do".
nn_status nn_policy_parse(const uint8_t *buf, size_t len, const char *name,
                          const nn_load_check *check, nn_model **out,
                          nn_file_meta *meta, char *err, size_t errlen);
nn_status nn_policy_write(const char *path, const nn_model *m,
                          const nn_file_meta *meta, char *err, size_t errlen);
nn_status nn_policy_read(const char *path, const nn_load_check *check,
                         nn_model **out, nn_file_meta *meta, char *err,
                         size_t errlen);

// An ensemble: 2..NN_MAX_MEMBERS networks of one configuration in one file
// (metadata "members"), whose action log-probabilities a policy averages
// (src/policy/step.c). The functions above handle one network and refuse
// an ensemble file with a message that says so; these handle both.
nn_status nn_policy_serialize_members(const nn_model *const *ms, int members,
                                      const nn_file_meta *meta, uint8_t **out,
                                      size_t *out_len);
nn_status nn_policy_write_members(const char *path, const nn_model *const *ms,
                                  int members, const nn_file_meta *meta,
                                  char *err, size_t errlen);
// Fills out[0 .. *members-1] (max slots); a file of more than max networks
// is an error.
nn_status nn_policy_parse_members(const uint8_t *buf, size_t len,
                                  const char *name, const nn_load_check *check,
                                  nn_model **out, int max, int *members,
                                  nn_file_meta *meta, char *err, size_t errlen);
nn_status nn_policy_read_members(const char *path, const nn_load_check *check,
                                 nn_model **out, int max, int *members,
                                 nn_file_meta *meta, char *err, size_t errlen);

// ----------------------------------------------------------------------------
// int8 weights (src/nn/quant.c)

// "f32" / "int8"; NULL for an unknown value.
const char *nn_dtype_name(nn_dtype dt);
// Returns 0 and sets *out, or -1 for an unknown name.
int nn_dtype_parse(const char *name, nn_dtype *out);

// Symmetric quantisation of w (R,C) in blocks of NN_QUANT_BLOCK columns of a
// row (the last block of a row may be shorter): B = nn_quant_blocks(C)
// blocks a row, scale (R,B) = max |w| over the block / 127 (0 for a block of
// zeros), q (R,C) = round(w / scale) in [-127, 127].
#define NN_QUANT_BLOCK 32
int nn_quant_blocks(int C);
void quantize_blocks(int8_t *q, float *scale, const float *w, int R, int C);
// w (R,C) = q (R,C) * scale (R,B) of each element's block.
void dequantize_blocks(float *w, const int8_t *q, const float *scale, int R,
                       int C);

// One tensor of a policy file: a model tensor whole (F32), or, in an int8
// file, a 2-D weight's int8 values (I8) or its block scales (SCALE).
typedef enum { NN_ENTRY_F32, NN_ENTRY_I8, NN_ENTRY_SCALE } nn_entry_kind;
#define NN_MAX_ENTRIES (2 * NN_MAX_TENSORS) // of one network
#define NN_MAX_MEMBERS 8                    // networks of an ensemble file
#define NN_FILE_MAX_ENTRIES (NN_MAX_MEMBERS * NN_MAX_ENTRIES)
typedef struct {
  char name[NN_NAME_MAX + 32]; // "fc1.weight", "member1.fc1.weight.scale"
  nn_entry_kind kind;
  int member;                 // which network of an ensemble
  int tensor;                 // index into m->tensors
  int ndim;
  int shape[2];
  size_t bytes;               // of data in the file
} nn_file_entry;

// The tensors a file of `members` networks shaped as m stores in `dt`, in
// the writer's order: each member's F32 and SCALE entries in table order,
// then each member's I8 ones, so every F32 tensor starts 4-byte aligned.
// Member 0's tensors keep their names, member j's are "memberJ.NAME".
// Fills out (NN_FILE_MAX_ENTRIES) and returns the count.
int nn_file_layout(const nn_model *m, nn_dtype dt, int members,
                   nn_file_entry *out);
// migration onto a grown layout or catalog (src/nn/migrate.c)

// How the weights of an older model map onto a newer configuration. The
// newer layout extends the older one: state columns [0, old S) and node
// columns [1, old F) keep their index, the old actions keep theirs (STOP
// stays last), and the old parameter slots come first.
typedef struct {
  int kind_scale;   // > 0: the old node column 0 was id / kind_scale, a
                    // numeric input; the new model (embed_dim > 0) reads
                    // it through embedding dimension 0 instead
  float low_logit;  // bias of the logits of new actions (weights 0)
  // (old state_dim) factor on each old state column's weights, for inputs
  // whose scale changed (ctx.last.k is (id + 1) / catalog size); NULL: 1.
  const float *state_scale;
} nn_migration;

// Returns a new model for cfg (others' weights initialised from seed) whose
// outputs equal old's on any input that the old layout describes: new state
// columns, node columns and embedding dimensions get zero weights, new
// actions get logit `low_logit` and zero-weight means. NULL with err
// (errlen bytes) saying why when cfg cannot extend old's configuration, or
// out of memory.
nn_model *nn_model_migrate(const nn_model *old, const nn_config *cfg,
                           const nn_migration *mig, uint64_t seed, char *err,
                           size_t errlen);

#endif // MQSS_NN_H
