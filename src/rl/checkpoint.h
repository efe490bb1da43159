// Training checkpoints: everything `mqss train --resume` needs to continue a
// run exactly as if it had not stopped (weights, Adam moments and step, the
// RNG streams, counters, the early-stopping window). A private binary format
// with a magic number, a version and a trailing checksum, written atomically
// (temporary file, fsync, rename); the checkpoint it replaces is kept as
// PATH.prev, so a resume can fall back to it. Exported policies are
// safetensors, not this (src/nn).
#ifndef MQSS_RL_CHECKPOINT_H
#define MQSS_RL_CHECKPOINT_H

#include "nn/nn.h"
#include "internal.h"

#define CKPT_MAGIC 0x54504b4353535130ULL // "0QSSCKPT" little-endian
#define CKPT_VERSION 2
#define CKPT_MAX_WINDOW 4096

typedef struct {
  uint64_t config_hash;   // hash of the training config: a resume must match
  int64_t iteration;      // iterations completed
  int64_t env_steps;      // environment steps completed
  int64_t episodes;       // episodes started
  uint64_t rng;           // trainer RNG state (nn_rng.s)
  double reward_ema;      // EMA state of the reward smoothing
  double elapsed_s;       // training time so far
  int n_window;           // entries in window
  float window[CKPT_MAX_WINDOW];      // recent episodic returns, oldest first
  int32_t window_len[CKPT_MAX_WINDOW]; // steps of each of those episodes
} ckpt_state;

// Writes m (parameters, Adam moments and step) and st to `path` atomically;
// the checkpoint it replaces becomes `path`.prev.
mqss_status ckpt_save(mqss_session *s, const char *path, const nn_model *m,
                      const ckpt_state *st);

// Loads `path` into m (which must have the same shape) and st. Nothing is
// trusted before the checksum matches, and every counter is range-checked.
// Fails with a message naming the file:
//  - MQSS_ERR_IO: it cannot be read;
//  - MQSS_ERR_PARSE: it is not a checkpoint, has another format version, is
//    truncated, fails its checksum or holds out-of-range values (corrupt);
//  - MQSS_ERR_INVALID_ARG: it is intact but belongs to another network shape
//    or a config hash other than st->config_hash on entry.
// m and st are changed only on success.
mqss_status ckpt_load(mqss_session *s, const char *path, nn_model *m,
                      ckpt_state *st);

// Loads `path` like ckpt_load(); when it is missing or damaged (IO or PARSE)
// loads `path`.prev instead. On a fall-back `note` (notelen bytes) says why
// the newer file was skipped; otherwise it is "". When both fail, the session
// message names both and says what to do.
mqss_status ckpt_resume(mqss_session *s, const char *path, nn_model *m,
                        ckpt_state *st, char *note, size_t notelen);

#endif // MQSS_RL_CHECKPOINT_H
