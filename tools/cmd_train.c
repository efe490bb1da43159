// `mqss train`: PPO training from a train_config.yaml, on local worker
// processes or, with --mpi under mpirun, on MPI ranks. Prints progress (a bar
// on a terminal, plain lines otherwise), draws the curves with gnuplot, and
// names the exported policy.
#include "cli.h"
#include "mpi_pool.h"
#include "plot.h"
#include "rl/expit.h"
#include "rl/train.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
  int iterations;
  bool tty;
  bool quiet;
} progress;

static void on_iteration(void *ctx, int it, const double *m) {
  progress *p = ctx;
  if (p->quiet)
    return;
  double per_it = m[M_ELAPSED] / (it + 1);
  double eta = per_it * (p->iterations - it - 1);
  if (p->tty) {
    int width = 30, done = (int)((double)(it + 1) / p->iterations * width);
    fprintf(stderr, "\r[%.*s%*s] %d/%d  return %+.3f  success %.2f  ETA %.0fs ",
            done, "##############################", width - done, "", it + 1,
            p->iterations, m[M_RETURN], m[M_SUCCESS], eta);
  } else {
    fprintf(stderr,
            "iteration %d/%d: steps %.0f return %+.4f entropy %.3f success %.2f "
            "kl %.4f clip %.3f steps/s %.1f cache %.2f elapsed %.0fs eta %.0fs\n",
            it + 1, p->iterations, m[M_ENV_STEPS], m[M_RETURN], m[M_ENTROPY],
            m[M_SUCCESS], m[M_APPROX_KL], m[M_CLIP_FRAC], m[M_STEPS_PER_S],
            m[M_CACHE_HIT], m[M_ELAPSED], eta);
  }
}

// The commit of the source tree this run uses, or "unknown".
static void git_commit(char *buf, size_t len) {
  snprintf(buf, len, "unknown");
  FILE *f = popen("git rev-parse --short HEAD 2>/dev/null", "r");
  if (!f)
    return;
  if (fgets(buf, (int)len, f))
    buf[strcspn(buf, "\n")] = '\0';
  if (pclose(f) != 0 || !buf[0])
    snprintf(buf, len, "unknown");
}

// What the expert-iteration hooks print, and the fault-injection hook.
typedef struct {
  bool quiet;
  int kill_after;  // MQSS_EXPIT_KILL_AFTER: SIGKILL after this many searches
  int searched;    // modules searched by this process
} expit_progress;

static void on_round(void *ctx, const double *row) {
  const expit_progress *p = ctx;
  if (p->quiet)
    return;
  char hold[64] = "not measured this round"; // expit.holdout_every
  if (!isnan(row[E_HOLDOUT_FAILED]))
    snprintf(hold, sizeof hold, "%.3fx (%.0f failed)", row[E_HOLDOUT],
             row[E_HOLDOUT_FAILED]);
  fprintf(stderr, "round %.0f: search gain %.3fx (%.0f searched of %.0f "
          "selected, %.0f evaluations; %.0f modules with a winner), clone "
          "loss %.4f (%.0f winners cloned as their seed), PPO return %+.4f, "
          "hold-out %s, %.0f env steps, %.0f s\n",
          row[E_ROUND], row[E_SEARCH_GAIN], row[E_SEARCHED], row[E_SELECTED],
          row[E_EVALS], row[E_WINNERS], row[E_CLONE_LAST], row[E_SEEDS_KEPT],
          row[E_PPO_RETURN],
          hold, row[E_ENV_STEPS], row[E_ELAPSED]);
}

static void on_searched(void *ctx, const expit_searched *e) {
  expit_progress *p = ctx;
  if (!p->quiet) {
    if (e->skipped)
      fprintf(stderr, "round %d: module %d/%d searched: #%d %s: the reference "
              "does not measure, skipped, %.0f s\n", e->round, e->done,
              e->total, e->module, e->path, e->elapsed_s);
    else if (e->max_compile > 0)
      fprintf(stderr, "round %d: module %d/%d searched: #%d %s: %d "
              "evaluations (%d over the compile-time limit, %.2fx its time "
              "without passes), best %.3fx%s, %.0f s\n", e->round, e->done,
              e->total, e->module, e->path, e->evaluations, e->slow,
              e->max_compile, e->speedup, e->improved ? " (new)" : "",
              e->elapsed_s);
    else
      fprintf(stderr, "round %d: module %d/%d searched: #%d %s: %d "
              "evaluations, best %.3fx%s, %.0f s\n", e->round, e->done,
              e->total, e->module, e->path, e->evaluations, e->speedup,
              e->improved ? " (new)" : "", e->elapsed_s);
  }
  if (p->kill_after > 0 && ++p->searched == p->kill_after)
    raise(SIGKILL); // the record is on disk: a kill here loses nothing
}

static void on_seeds(void *ctx, const expit_seed_counts *c) {
  const expit_progress *p = ctx;
  if (c->unmatched)
    fprintf(stderr, "mqss: warning: the baselines of %d families (first: "
            "'%s') have a piece no catalog decision prints; their modules "
            "have no seed\n", c->unmatched, c->unmatched_family);
  if (!p->quiet)
    fprintf(stderr, "expit: seeds for %d modules (%d with a recipe action), "
            "%d decisions from %d recipe steps (no-op steps dropped, kind-wide "
            "steps that do not fit every op split per op; %d given other "
            "sizes), %d modules refused, %d whose baseline is no passes, "
            "%.1f s\n",
            c->seeded, c->recipes, c->decisions, c->steps, c->adapted,
            c->refused, c->stops, c->seconds);
  if (c->refused && !p->quiet)
    fprintf(stderr, "expit: the first refused seed: %s\n", c->refused_first);
}

// Expert iteration (expit.rounds > 0): rounds of search, cloning and PPO.
static int run_expit(mqss_session *s, train_setup *setup, train_options *o,
                     progress *prog) {
  const char *kill = getenv("MQSS_EXPIT_KILL_AFTER"); // fault-injection tests
  expit_progress ep = {prog->quiet, kill ? atoi(kill) : 0, 0};
  prog->quiet = true; // the per-round and per-module lines say enough
  expit_hooks hooks = {on_round, on_searched, on_seeds, &ep};
  expit_result r;
  if (expit_run(s, setup, o, &hooks, &r) != MQSS_OK)
    return cli_error("%s", mqss_errmsg(s));
  if (r.records_dropped)
    fprintf(stderr, "mqss: warning: %d damaged or torn search records were "
            "dropped; their modules were searched again\n", r.records_dropped);
  printf("expert iteration: %d rounds (resumed at round %d), %lld environment "
         "steps\npolicy: %s\nlog: %s/expit.csv\n", r.rounds, r.resumed_at,
         r.env_steps, r.policy_path, o->log_dir);
  if (r.rounds > 0 && plot_expit_curves(o->log_dir) == 0)
    printf("curves: %s/expit.png\n", o->log_dir);
  return 0;
}

int cmd_train(int argc, char **argv) {
  const char *config = NULL, *log_dir = NULL, *init_from = NULL;
  bool resume = false, mpi = false, quiet = false;
  int stop_after = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if ((!strcmp(a, "--config") || !strcmp(a, "--log-dir")) && i + 1 < argc)
      *(a[2] == 'c' ? &config : &log_dir) = argv[++i];
    else if (!strcmp(a, "--init-from") && i + 1 < argc)
      init_from = argv[++i];
    else if (!strcmp(a, "--stop-after") && i + 1 < argc)
      stop_after = atoi(argv[++i]);
    else if (!strcmp(a, "--resume"))
      resume = true;
    else if (!strcmp(a, "--mpi"))
      mpi = true;
    else if (!strcmp(a, "--quiet"))
      quiet = true;
    else
      return cli_error("train: unknown or incomplete option '%s'; see 'mqss train --help'", a);
  }
  if (!log_dir)
    return cli_error("train: --log-dir DIR is required");

  int rank = 0, size = 1;
  if (mpi && mpi_start(&argc, &argv, &rank, &size) != 0)
    return 1;
  if (mpi && size < 2) {
    mpi_stop();
    return cli_error("train --mpi needs at least 2 ranks (mpirun -np 2 or more)");
  }
  mqss_session *s = NULL;
  if (mqss_session_create(&s) != MQSS_OK)
    return cli_error("out of memory");
  train_config cfg;
  train_config_defaults(&cfg);
  int rc = 0;
  char commit[64];
  git_commit(commit, sizeof commit);
  const char *crash = getenv("MQSS_TRAIN_CRASH_EVERY"); // fault-injection tests
  progress prog = {cfg.iterations, isatty(2), quiet || rank != 0};
  train_options o = {&cfg, config, log_dir, resume, stop_after, commit,
                     crash ? atoi(crash) : 0, on_iteration, &prog, NULL, NULL, 0};
  train_setup *setup = NULL;
  if (config && train_config_load(s, config, &cfg) != MQSS_OK) {
    rc = cli_error("%s", mqss_errmsg(s));
    goto out;
  }
  if (init_from) { // overrides policy.init_from of the config
    if (strlen(init_from) >= sizeof cfg.init_from) {
      rc = cli_error("train: --init-from path is too long");
      goto out;
    }
    snprintf(cfg.init_from, sizeof cfg.init_from, "%s", init_from);
  }
  prog.iterations = cfg.iterations;
  if (train_setup_create(s, &o, &setup) != MQSS_OK) {
    rc = cli_error("%s", mqss_errmsg(s));
    goto out;
  }
  if (rank > 0) { // an MPI rollout worker
    pool_options po = {1, cfg.pin_workers, train_task_timeout_ms(&cfg),
                       CHILD_DEFAULT_MEM_MB};
    mpi_worker_serve(&po, episode_run, train_setup_episodes(setup), rank);
    goto out;
  }
  if (cfg.expit_rounds > 0) {
    if (mpi) {
      rc = cli_error("train: expert iteration (expit.rounds) runs without --mpi");
      goto out;
    }
    rc = run_expit(s, setup, &o, &prog);
    goto out;
  }
  pool_backend remote;
  if (mpi) {
    remote = mpi_trainer_backend(size);
    o.remote = &remote;
  }
  train_result r;
  mqss_status st = train_run(s, setup, &o, &r);
  if (prog.tty && !prog.quiet)
    fputc('\n', stderr);
  if (st != MQSS_OK) {
    rc = cli_error("%s", mqss_errmsg(s));
    goto out;
  }
  if (r.resume_note[0])
    fprintf(stderr, "mqss: warning: %s\n", r.resume_note);
  if (r.bc.samples)
    printf("behaviour cloning: %d baselines replayed (%d steps, %d samples; "
           "%d not expressible in the catalog, %d refused), loss %.4f -> "
           "%.4f\n", r.bc.modules, r.bc.steps, r.bc.samples, r.bc.unmatched,
           r.bc.refused, r.bc_loss_first, r.bc_loss_last);
  printf("trained %d iterations, %lld environment steps in %.1f s%s\n",
         r.iterations, r.env_steps, r.elapsed_s,
         r.early_stopped ? " (stopped early: the return stopped varying)" : "");
  printf("policy: %s\nlogs: %s/metrics.jsonl, %s/metrics.csv\n", r.policy_path,
         log_dir, log_dir);
  if (r.iterations > 0 && plot_training_curves(log_dir) == 0)
    printf("curves: %s/curves.png\n", log_dir);
out:
  train_setup_destroy(setup);
  mqss_session_destroy(s);
  if (mpi)
    mpi_stop();
  return rc;
}
