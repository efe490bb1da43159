// The search phase of an expert-iteration round (expit_search.c): which
// training modules the round searches, the policy-guided search of each, and
// the per-module winners it keeps (the demonstrations that cloning fits).
// Each module's outcome is appended to ROUND/search_progress.tsv as soon as
// it is known, so that a run killed in the middle of the phase resumes with
// the modules not searched yet and ends with the same winners and figures.
#ifndef MQSS_RL_EXPIT_SEARCH_H
#define MQSS_RL_EXPIT_SEARCH_H

#include "rl/config.h"
#include "rl/demo.h"
#include "rl/episode.h"

#define EXPIT_MAX_DECISIONS 64 // repeats included

// A module's best confirmed pipeline so far.
typedef struct {
  int n;               // decisions; 0 = the reference stands (STOP); -1 = none known
  double speedup;      // its confirmed speedup over the reference (1 for STOP)
  mqss_decision d[EXPIT_MAX_DECISIONS]; // (n)
  char pipeline[32768]; // up to 64 decisions, schedules and their repeats
} expit_winner;

// Writes `text` to `path` atomically: a temporary file, fsync, rename.
mqss_status expit_write_atomic(mqss_session *s, const char *path,
                               const char *text);

// Writes the winners with n >= 0 of w (n modules) to `path` (winners.tsv),
// atomically: one line per module, "index, speedup, n, n decisions
// action:u0,u1,... (hex floats, exact), pipeline", tab-separated.
mqss_status expit_winners_save(mqss_session *s, const char *path,
                               const expit_winner *w, int n);
// Reads such a file into w (n modules); a line that does not parse or names
// a module outside 0..n-1 is an error that says what to do.
mqss_status expit_winners_load(mqss_session *s, const char *path,
                               expit_winner *w, int n);

// The modules round `round` searches, ascending, into out (n slots); returns
// their count. per_round 0 or >= n: all n. Otherwise a window of per_round
// consecutive positions in one permutation of 0..n-1 drawn from `seed`,
// starting at position round * per_round and wrapping around: successive
// rounds take successive windows, so every module is searched once before any
// is searched twice.
int expit_round_modules(int n, int per_round, uint64_t seed, int round,
                        int *out);

// One module's search, as on_searched reports it.
typedef struct {
  int round;
  int module;          // index in the training manifest
  const char *path;    // its file
  int done, total;     // modules of the round done, this one included; all
  int skipped;         // its reference did not measure: not searched
  int evaluations;
  int improved;        // a confirmed winner replaced its earlier best
  double speedup;      // its best confirmed speedup so far (1 = reference)
  double elapsed_s;    // wall time of this search
  double max_compile;  // its compile-time limit (expit.compile_limit; 0 none)
  int slow;            // evaluations over that limit
} expit_searched;

// What the search phase needs.
typedef struct {
  mqss_session *s;
  const train_config *cfg;
  const episode_ctx *ec;
  const mqss_measure_options *measure; // settings of every measurement
  const char *dir;      // the round's directory (search_progress.tsv)
  int round;
  const mqss_policy *policy; // the guide (its catalog is ec->catalog's)
  // Per module: the family baseline the search measures first while the
  // module has no winner (expit_seed.h); NULL, or n < 0, for none.
  const demo *seeds;
  // Called after each module searched in this call (may be NULL).
  void (*on_searched)(void *ctx, const expit_searched *e);
  void *ctx;
} expit_search_in;

// The phase's figures (the same for a run searched in one go and one
// resumed in the middle: they are folded from the recorded outcomes).
typedef struct {
  int selected;        // modules the round searches (expit.modules_per_round)
  int searched;        // of those, searched (their reference measured)
  int evaluations;     // the searches' evaluations, cache hits included
  int winners;         // modules of the whole manifest with a confirmed winner
  double gain;         // geomean over `searched` of the best confirmed speedup
  int resumed;         // outcomes found recorded (not searched again)
  int dropped;         // damaged records dropped (their modules searched again)
} expit_search_figures;

// Whether each of the n training modules is one the rounds may search:
// those of the families expit.families names, all when it is empty (pooled:
// n flags). A named family no module of the manifest has is an error.
mqss_status expit_search_pool(mqss_session *s, const train_config *cfg, int n,
                              bool *pooled);

// Whether a winner measured against its seed (vs: A the winner, B the seed)
// is confirmed (expit.seed_margin > 0): A measured, and B failed or the
// whole interval of time(seed) / time(winner) lies above 1 + margin and,
// with compile_limit > 0, A's compile time is within 1 + compile_limit
// times B's.
bool expit_confirms(const mqss_measure_vs_result *vs, double margin,
                    double compile_limit);

// Searches the round's modules that ROUND/search_progress.tsv does not
// record yet, appending (and fsyncing) each outcome, then updates w (the
// winners of the earlier rounds on entry) from every outcome of the round.
mqss_status expit_search_round(const expit_search_in *in, expit_winner *w,
                               expit_search_figures *out);

#endif // MQSS_RL_EXPIT_SEARCH_H
