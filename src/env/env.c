// The RL environment: episodes over one module (docs/ENV.md). reset() clones
// the module and computes the first observation; step() checks a decision
// with the safety layer, applies it (or skips or reverts it) with its
// repeats on the further ops it fits (repeat.c), and shapes the reward with
// the static cost; the last step measures the episode's pipeline in the
// sandbox and adds the final reward. It does not choose actions (the
// policy does) and does not fork by itself except through mqss_measure().
#define _GNU_SOURCE
#include "env/env.h"
#include "actions/linalg_ops.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <linux/perf_event.h>
#include <time.h>
#include <unistd.h>

// ----------------------------------------------------------------------------
// create / destroy

static char *dup_or_null(const char *s) { return s ? strdup(s) : NULL; }

mqss_status mqss_env_create(mqss_session *s, const mqss_catalog *c,
                            const mqss_env_options *opts, mqss_env **out) {
  if (!s || !c || !out)
    return s ? fail(s, MQSS_ERR_INVALID_ARG, "env: NULL argument")
             : MQSS_ERR_INVALID_ARG;
  *out = NULL;
  if (mqss_catalog_stop(c) < 0)
    return fail(s, MQSS_ERR_INVALID_ARG,
                "env: the catalog has no STOP action; add one (is_stop)");
  mqss_env *e = calloc(1, sizeof *e);
  if (!e)
    return fail(s, MQSS_ERR_NOMEM, "out of memory");
  e->session = s;
  e->catalog = c;
  if (opts)
    e->opts = *opts;
  else
    mqss_env_options_init(&e->opts);
  if (e->opts.max_steps < 1) {
    free(e);
    return fail(s, MQSS_ERR_INVALID_ARG, "env: max_steps must be >= 1, got %d",
                opts->max_steps);
  }
  e->cache_path = dup_or_null(e->opts.measure.cache_path);
  e->entry = dup_or_null(e->opts.measure.entry);
  e->opts.measure.cache_path = e->cache_path;
  e->opts.measure.entry = e->entry;
  e->opts.measure.pipeline = NULL;
  e->opts.measure.check_reference = 1; // wrong output must be caught
  e->n_actions = mqss_catalog_size(c);
  e->history = calloc((size_t)e->opts.max_steps, sizeof *e->history);
  e->mask = calloc((size_t)e->n_actions, 1);
  e->noop = calloc((size_t)e->n_actions, 1);
  e->ema = NAN;
  if (!e->history || !e->mask || !e->noop || (e->opts.measure.cache_path && !e->cache_path) ||
      (e->opts.measure.entry && !e->entry)) {
    mqss_env_destroy(e);
    return fail(s, MQSS_ERR_NOMEM, "out of memory");
  }
  char why[128] = "";
  int fd = perf_cycles_open(why, sizeof why);
  e->perf_fd_ok = fd >= 0;
  if (fd >= 0)
    close(fd);
  else {
    sb_printf(&e->notice,
              "perf counters unavailable (perf_event_open cycles: %s): "
              "the perf reward term is disabled\n", why);
    e->notice_pending = 1;
  }
  *out = e;
  return MQSS_OK;
}

static void clear_episode(mqss_env *e) {
  mqss_module_destroy(e->current);
  mqss_module_destroy(e->original);
  mqss_graph_destroy(e->graph);
  e->current = e->original = NULL;
  e->graph = NULL;
  sb_clear(&e->pipeline);
  if (e->noop)
    memset(e->noop, 0, (size_t)e->n_actions);
}

void mqss_env_destroy(mqss_env *e) {
  if (!e)
    return;
  clear_episode(e);
  sb_free(&e->pipeline);
  sb_free(&e->notice);
  free(e->history);
  free(e->mask);
  free(e->noop);
  free(e->bases);
  free(e->cache_path);
  free(e->entry);
  free(e);
}

const char *mqss_env_notice(const mqss_env *e) {
  return e && e->notice.data ? e->notice.data : "";
}

void mqss_env_set_ema(mqss_env *e, double ema) {
  if (e)
    e->ema = ema;
}

const mqss_env_baseline *mqss_env_get_baseline(const mqss_env *e) {
  return e && e->has_baseline ? &e->baseline : NULL;
}

// ----------------------------------------------------------------------------
// measurement

// mqss_measure, counting cycles of the sandbox when the perf term is on.
// `reference` (NULL: `m` itself) gives the reference outputs.
static mqss_status measure(mqss_env *e, mqss_module *m, const char *pipeline,
                           const mqss_module *reference,
                           mqss_measure_result *r, double *cycles) {
  mqss_measure_options o = e->opts.measure;
  o.pipeline = pipeline;
  o.reference_module = reference;
  *cycles = -1;
  int fd = -1;
  if (e->perf_fd_ok && e->opts.weights[MQSS_REWARD_PERF] != 0)
    fd = perf_cycles_open(NULL, 0);
  if (fd >= 0) {
    ioctl(fd, PERF_EVENT_IOC_RESET, 0);
    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
  }
  mqss_status st = mqss_measure(m, &o, r);
  if (fd >= 0) {
    ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
    if (!r->cached)
      *cycles = perf_cycles_read(fd);
    close(fd);
  }
  return st;
}

static mqss_status get_baseline(mqss_env *e, const mqss_env_baseline *given) {
  e->base_cycles = -1;
  memset(&e->base_spread, 0, sizeof e->base_spread);
  if (given) {
    e->baseline = *given;
    e->has_baseline = 1;
    return MQSS_OK;
  }
  uint64_t h = mqss_module_hash(e->original);
  for (int i = 0; i < e->n_bases; i++)
    if (e->bases[i].hash == h) {
      e->baseline = e->bases[i].b;
      e->base_cycles = e->bases[i].cycles;
      e->base_spread = e->bases[i].spread;
      e->has_baseline = 1;
      return MQSS_OK;
    }
  mqss_measure_result r;
  double cycles;
  mqss_status st = measure(e, e->original, "", NULL, &r, &cycles);
  if (st != MQSS_OK)
    return st;
  if (r.status != MQSS_MEASURE_OK)
    return fail(e->session, MQSS_ERR_INVALID_ARG,
                "env: the baseline (finisher only) of '%s' does not measure: "
                "%s: %s; pass a baseline record or fix the module",
                e->original->name, mqss_measure_status_name(r.status),
                r.message);
  env_baseline_entry en = {h, {r.compile_ms, r.run_ms_median, r.text_bytes},
                           cycles, r};
  if (e->n_bases == e->cap_bases) {
    int cap = e->cap_bases ? 2 * e->cap_bases : 8;
    env_baseline_entry *b = realloc(e->bases, (size_t)cap * sizeof *b);
    if (!b)
      return fail(e->session, MQSS_ERR_NOMEM, "out of memory");
    e->bases = b;
    e->cap_bases = cap;
  }
  e->bases[e->n_bases++] = en;
  e->baseline = en.b;
  e->base_cycles = cycles;
  e->base_spread = r;
  e->has_baseline = 1;
  return MQSS_OK;
}

// ----------------------------------------------------------------------------
// observation

static mqss_status observe(mqss_env *e, mqss_env_obs *obs) {
  e->n_allowed = mqss_action_mask(e->current, e->catalog, NULL, e->mask);
  for (int i = 0; i < e->n_actions; i++) // repeating a no-op gets nowhere
    if (e->noop[i] && e->mask[i]) {
      e->mask[i] = 0;
      e->n_allowed--;
    }
  mqss_graph_destroy(e->graph);
  e->graph = NULL;
  if (!obs)
    return MQSS_OK;
  mqss_status st = mqss_features(e->current, e->catalog, e->history, e->step,
                                 e->opts.max_steps, obs->state);
  if (st == MQSS_OK && e->opts.graph)
    st = mqss_graph_build(e->current, &e->graph);
  obs->mask = e->mask;
  obs->n_allowed = e->n_allowed;
  obs->step = e->step;
  obs->graph = e->graph;
  obs->module = e->current;
  return st;
}

mqss_status mqss_env_reset(mqss_env *e, const mqss_module *module,
                           const mqss_env_baseline *baseline,
                           mqss_env_obs *obs) {
  if (!e || !module)
    return e ? fail(e->session, MQSS_ERR_INVALID_ARG, "env: NULL module")
             : MQSS_ERR_INVALID_ARG;
  clear_episode(e);
  e->step = e->done = e->targeted = 0;
  e->apply_ms = 0;
  e->original = mqss_module_clone(module);
  e->current = mqss_module_clone(module);
  if (!e->original || !e->current)
    return fail(e->session, MQSS_ERR_NOMEM, "out of memory");
  // Decisions address ops by tag; the measured pipeline tags the original
  // alike when it first runs a schedule (mqss_module_run_pipeline).
  linalg_tag_once(mlirModuleGetOperation(e->current->mod));
  mqss_status st = get_baseline(e, baseline);
  if (st != MQSS_OK)
    return st;
  e->cost0 = e->cost = mqss_env_static_cost(e->current);
  e->current_hash = module_fingerprint(e->current);
  return observe(e, obs);
}

// ----------------------------------------------------------------------------
// step

// Appends the anchored fragment `p` to the episode pipeline, unwrapping
// "builtin.module(...)" so that the whole reads builtin.module(a,b,...).
static void append_fragment(strbuf *sb, const char *p) {
  static const char mod[] = "builtin.module(";
  size_t n = strlen(p), m = sizeof mod - 1;
  if (sb->len)
    sb_append(sb, ",", 1);
  if (n > m && !strncmp(p, mod, m))
    sb_append(sb, p + m, n - m - 1);
  else
    sb_append(sb, p, n);
}

// A decision's repeats (repeat.c) join the episode pipeline as they are
// kept.
typedef struct {
  mqss_env *e;
  bool nomem;
} repeat_ctx;

static void repeat_kept(void *ctx, const mqss_decision *r, bool kept) {
  repeat_ctx *k = ctx;
  char *p = kept ? mqss_decision_pipeline(k->e->catalog, r) : NULL;
  if (p)
    append_fragment(&k->e->pipeline, p);
  k->nomem |= kept && !p;
  free(p);
}

// Applies the repeats of d, just applied to the current IR and kept, and
// counts them in info. False when out of memory.
static bool apply_repeats(mqss_env *e, const mqss_decision *d,
                          mqss_env_info *info) {
  repeat_ctx k = {e, false};
  repeat_hooks h = {.ctx = &k, .after = repeat_kept};
  double t0 = now_ms();
  int n = decision_apply_repeats(&e->current, &e->current_hash, e->catalog,
                                 d, false, &h);
  info->apply_ms += now_ms() - t0;
  info->repeats = n > 0 ? n : 0;
  return n >= 0 && !k.nomem;
}

// Measures the episode and fills the final part of `info`.
static mqss_status finish_episode(mqss_env *e, mqss_env_info *info) {
  strbuf text = {0};
  if (e->pipeline.len)
    sb_printf(&text, "builtin.module(%s)", e->pipeline.data);
  else
    sb_append(&text, "", 0);
  mqss_measure_result *r = &info->measure;
  double cycles;
  mqss_status st;
  if (e->targeted) {
    // Pipeline text cannot name a function: measure the transformed IR, its
    // outputs checked against the original module's reference (never
    // against itself), and count the in-process pass time as compile time.
    st = measure(e, e->current, "", e->original, r, &cycles);
    r->compile_ms += e->apply_ms;
    r->pipeline_ms += e->apply_ms;
    snprintf(info->episode_pipeline, sizeof info->episode_pipeline,
             "(applied in process, targeted) %s", text.data);
  } else {
    st = measure(e, e->original, text.data, NULL, r, &cycles);
    snprintf(info->episode_pipeline, sizeof info->episode_pipeline, "%s",
             text.data);
  }
  sb_free(&text);
  if (st != MQSS_OK)
    return st;
  mqss_env_reward(&e->opts, &e->baseline, r, cycles, e->base_cycles,
                  &info->terms);
  env_runtime_interval(&e->base_spread, r, &info->terms);
  return MQSS_OK;
}

mqss_status mqss_env_step(mqss_env *e, const mqss_decision *given,
                          mqss_env_obs *obs, float *reward, int *done,
                          mqss_env_info *info_out) {
  if (!e || !given)
    return e ? fail(e->session, MQSS_ERR_INVALID_ARG, "env: NULL decision")
             : MQSS_ERR_INVALID_ARG;
  if (!e->current || e->done)
    return fail(e->session, MQSS_ERR_INVALID_ARG,
                "env: step without an episode; call mqss_env_reset first");
  const mqss_action *a = mqss_catalog_action(e->catalog, given->action);
  if (!a)
    return fail(e->session, MQSS_ERR_INVALID_ARG,
                "env: action %d is not in the catalog (0..%d)", given->action,
                e->n_actions - 1);
  // The per-op rule (focus.c), as in selection: the mask already checked
  // the op it picks.
  mqss_decision dd = *given;
  const mqss_decision *d = &dd;
  if (!dd.op)
    dd.op = decision_focus(e->current, e->catalog, &dd);
  mqss_env_info local, *info = info_out ? info_out : &local;
  memset(info, 0, sizeof *info);
  info->action = d->action;
  info->op = d->op;
  info->n_params = a->n_params;
  for (int i = 0; i < a->n_params; i++)
    info->params[i] = mqss_param_map(&a->params[i], d->u[i]);
  char *p = mqss_decision_pipeline(e->catalog, d);
  if (!p)
    return fail(e->session, MQSS_ERR_NOMEM, "out of memory");
  snprintf(info->pipeline, sizeof info->pipeline, "%s", p);
  e->history[e->step++] = d->action;

  double r = 0;
  if (a->is_stop) {
    info->status = MQSS_STEP_STOP;
  } else if (!mqss_action_check(e->current, e->catalog, d->action, d->target,
                                info->reason, sizeof info->reason)) {
    info->status = MQSS_STEP_BLOCKED; // the safe default: skip, reward 0
  } else {
    info->reason[0] = '\0'; // the check writes "allowed"
    mqss_module *backup = mqss_module_clone(e->current);
    if (!backup) {
      free(p);
      return fail(e->session, MQSS_ERR_NOMEM, "out of memory");
    }
    double t0 = now_ms();
    mqss_status st = mqss_decision_apply(e->current, e->catalog, d);
    info->apply_ms = now_ms() - t0;
    if (st != MQSS_OK) {
      info->status = MQSS_STEP_FAILED;
      snprintf(info->reason, sizeof info->reason, "%s: %s",
               mqss_strerror(st), mqss_errmsg(e->session));
      mqss_module_destroy(e->current);
      e->current = backup;
      r = e->opts.step_fail_penalty;
    } else {
      // An action that changed nothing is masked until something else
      // changes the IR (with other parameters it might act, but the policy
      // learns little from retrying), and stays out of the pipeline.
      uint64_t h = module_fingerprint(e->current);
      bool same = h == e->current_hash;
      e->current_hash = h;
      mqss_module_destroy(backup);
      info->status = MQSS_STEP_APPLIED;
      if (same) {
        e->noop[d->action] = 1;
        snprintf(info->reason, sizeof info->reason,
                 "no change: masked until the IR changes");
      } else {
        memset(e->noop, 0, (size_t)e->n_actions);
        append_fragment(&e->pipeline, p);
        if (!apply_repeats(e, d, info)) {
          free(p);
          return fail(e->session, MQSS_ERR_NOMEM, "out of memory");
        }
      }
      e->targeted |= d->target != NULL;
      e->apply_ms += info->apply_ms;
      double after = mqss_env_static_cost(e->current);
      r = info->shaping =
          mqss_env_shaping(e->opts.shaping, e->cost, after, e->cost0);
      e->cost = after;
    }
  }
  free(p);
  info->cost = e->cost;
  info->perf_available = e->perf_fd_ok;
  if (e->notice_pending) {
    info->notice = 1;
    e->notice_pending = 0;
  }
  e->done = info->status == MQSS_STEP_STOP || e->step >= e->opts.max_steps;
  info->done = e->done;
  if (e->done) {
    mqss_status st = finish_episode(e, info);
    if (st != MQSS_OK)
      return st;
    info->reward_raw = r + info->terms.total;
    double smooth = env_ema_update(&e->ema, e->opts.ema_alpha,
                                   info->terms.total);
    info->reward_ema = r + smooth;
    r += smooth;
  }
  if (reward)
    *reward = (float)r;
  if (done)
    *done = e->done;
  return observe(e, obs);
}
