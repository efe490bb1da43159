// The reward of the environment (docs/ENV.md): default options, the final
// reward of a measured episode against its per-module baseline, the EMA, and
// detection of hardware cycle counters for the perf term. Pure functions
// plus one probe; it does not measure anything itself (env.c does).
#define _GNU_SOURCE // syscall
#include "env/env.h"

#include <linux/perf_event.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <errno.h>

// ----------------------------------------------------------------------------
// options

void mqss_env_options_init(mqss_env_options *o) {
  if (!o)
    return;
  memset(o, 0, sizeof *o);
  o->max_steps = 16;
  // DESIGN.md: 0.3 success + 0.2 compile + 0.4 runtime + 0.1 size.
  static const double w[MQSS_REWARD_TERMS] = {0.3, 0.2, 0.4, 0.1, 0.0};
  memcpy(o->weights, w, sizeof w);
  o->success_ok = 1.0;
  o->success_fail = -5.0;
  o->clip_min = -1.0;
  o->clip_max = 1.0;
  o->ema_alpha = 0.0;
  o->shaping = 0.05;
  o->step_fail_penalty = -1.0;
  o->graph = 1;
  mqss_measure_options_init(&o->measure);
  o->measure.warmup = 1;
  o->measure.repeat = 5;
}

const char *mqss_step_status_name(mqss_step_status s) {
  static const char *const names[] = {"applied", "blocked", "failed", "stop"};
  return (unsigned)s < 4 ? names[s] : "unknown";
}

// ----------------------------------------------------------------------------
// final reward

static double clip(double x, double lo, double hi) {
  return x < lo ? lo : x > hi ? hi : x;
}

// clip(log(base / got)): positive when `got` is smaller (faster, smaller).
// Unknown or non-positive inputs give 0 (no information, no reward).
static double gain(double base, double got, double lo, double hi) {
  if (!(base > 0) || !(got > 0) || !isfinite(base) || !isfinite(got))
    return 0.0;
  return clip(log(base / got), lo, hi);
}

// Approximate 95% interval of base / got from the two medians' spreads:
// each median +- 1.57 IQR / sqrt(n) (McGill's notches), IQR ~ 2 MAD,
// relative half-widths combined in quadrature on the log scale. A side with
// fewer than 3 runs has no usable spread: no interval (0).
void env_runtime_interval(const mqss_measure_result *base,
                          const mqss_measure_result *r,
                          mqss_env_reward_terms *out) {
  out->runtime_lo = out->runtime_hi = 0;
  if (!(out->runtime_ratio > 0) || base->runs < 3 || r->runs < 3 ||
      !(base->run_ms_median > 0))
    return;
  double hb = 3.14 * base->run_ms_mad / sqrt(base->runs) / base->run_ms_median;
  double hr = 3.14 * r->run_ms_mad / sqrt(r->runs) / r->run_ms_median;
  double h = sqrt(hb * hb + hr * hr);
  out->runtime_lo = out->runtime_ratio * exp(-h);
  out->runtime_hi = out->runtime_ratio * exp(h);
}

void mqss_env_reward(const mqss_env_options *o, const mqss_env_baseline *b,
                     const mqss_measure_result *r, double cycles,
                     double base_cycles, mqss_env_reward_terms *out) {
  memset(out, 0, sizeof *out);
  if (!o || !r)
    return;
  bool ok = r->status == MQSS_MEASURE_OK;
  out->term[MQSS_REWARD_SUCCESS] = ok ? o->success_ok : o->success_fail;
  if (ok && b) {
    double lo = o->clip_min, hi = o->clip_max;
    out->term[MQSS_REWARD_COMPILE] = gain(b->comp_time, r->compile_ms, lo, hi);
    out->term[MQSS_REWARD_RUNTIME] = gain(b->run_time, r->run_ms_median, lo, hi);
    if (b->run_time > 0 && r->run_ms_median > 0)
      out->runtime_ratio = b->run_time / r->run_ms_median;
    out->term[MQSS_REWARD_SIZE] =
        gain((double)b->size, (double)r->text_bytes, lo, hi);
    if (cycles > 0 && base_cycles > 0) {
      out->term[MQSS_REWARD_PERF] = gain(base_cycles, cycles, lo, hi);
      out->perf_used = 1;
    }
  }
  for (int i = 0; i < MQSS_REWARD_TERMS; i++)
    out->total += o->weights[i] * out->term[i];
}

double env_ema_update(double *ema, double alpha, double x) {
  if (!(alpha > 0))
    return x;
  *ema = isnan(*ema) ? x : alpha * *ema + (1.0 - alpha) * x;
  return *ema;
}

// ----------------------------------------------------------------------------
// hardware counters

int perf_cycles_open(char *why, size_t len) {
  struct perf_event_attr a;
  memset(&a, 0, sizeof a);
  a.type = PERF_TYPE_HARDWARE;
  a.size = sizeof a;
  a.config = PERF_COUNT_HW_CPU_CYCLES;
  a.disabled = 1;
  a.inherit = 1; // count the sandbox children too
  a.exclude_kernel = 1;
  a.exclude_hv = 1;
  long fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
  if (fd < 0 && why)
    snprintf(why, len, "%s", strerror(errno));
  return (int)fd;
}

double perf_cycles_read(int fd) {
  uint64_t v = 0;
  if (fd < 0 || read(fd, &v, sizeof v) != (ssize_t)sizeof v)
    return -1.0;
  return (double)v;
}
