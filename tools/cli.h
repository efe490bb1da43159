// Shared declarations of the mqss command-line tool: the subcommand table
// and the small helpers every subcommand uses to report errors.
#ifndef MQSS_CLI_H
#define MQSS_CLI_H

#include "mqss/mqss.h"

#include <stdbool.h>

typedef int (*cli_main_fn)(int argc, char **argv);

// One git-style subcommand: `mqss NAME ...`.
typedef struct {
  const char *name;
  const char *summary; // one line, for `mqss help`
  const char *usage;   // full help text, for `mqss NAME --help`
  cli_main_fn main;
} cli_command;

// Limits of the sandbox child of `--isolate` (opt, catalog --apply).
enum { ISOLATE_TIMEOUT_MS = 60000, ISOLATE_MEM_MB = 4096 };

// Prints "mqss: <message>" to stderr and returns 1 (the exit code).
int cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

// Parses the module at `path`, or standard input when `path` is "-" (named
// "<stdin>" in messages). Errors are in the session message.
mqss_status cli_parse_module(mqss_session *s, const char *path,
                             mqss_module **out);

// Parses `v`, the value of option `flag` of command `cmd`, as an integer in
// [lo, hi]. On failure prints "mqss: CMD: FLAG expects an integer in [LO,
// HI], got 'V'" and returns false.
bool cli_parse_int(const char *cmd, const char *flag, const char *v, long lo,
                   long hi, long *out);

// Parses `v`, the value of option `flag` of command `cmd`, as a finite
// number in [lo, hi]; prints the error and returns false otherwise.
bool cli_parse_double(const char *cmd, const char *flag, const char *v,
                      double lo, double hi, double *out);

// Option-parsing helpers for a loop `for (int i = 1; i < argc; i++)` that
// has set `f` (argv[i]), `has_value` (i + 1 < argc), `v` (argv[i + 1] or
// NULL) and `long x`, inside a function returning bool. CMD names the
// command in messages.
#define CLI_NEED_VALUE(cmd)                                                    \
  if (!has_value) {                                                            \
    cli_error("%s: %s needs a value; see 'mqss %s --help'", cmd, f, cmd);      \
    return false;                                                              \
  }                                                                            \
  i++;
#define CLI_INT_FLAG(cmd, name, lo, hi, lvalue)                                \
  if (!strcmp(f, name)) {                                                      \
    CLI_NEED_VALUE(cmd)                                                        \
    if (!cli_parse_int(cmd, name, v, lo, hi, &x))                              \
      return false;                                                            \
    lvalue = (int)x;                                                           \
    continue;                                                                  \
  }

// True when argv holds -h or --help.
bool cli_wants_help(int argc, char **argv);

// Prints the usage of `cmd` to stdout and returns 0.
int cli_print_usage(const cli_command *cmd);

// Looks up a subcommand by name; NULL when unknown.
const cli_command *cli_find(const char *name);

int cmd_opt(int argc, char **argv);
int cmd_version(int argc, char **argv);
int cmd_train(int argc, char **argv);
int cmd_measure(int argc, char **argv);
int cmd_catalog(int argc, char **argv);
int cmd_features(int argc, char **argv);
int cmd_graph(int argc, char **argv);
int cmd_corpus(int argc, char **argv);
int cmd_baseline(int argc, char **argv);
int cmd_rollout(int argc, char **argv);
int cmd_search(int argc, char **argv);
int cmd_select(int argc, char **argv);
int cmd_compile(int argc, char **argv);
int cmd_explain(int argc, char **argv);
int cmd_eval(int argc, char **argv);
int cmd_quantize(int argc, char **argv);
int cmd_ensemble(int argc, char **argv);
int cmd_dashboard(int argc, char **argv);

// Options shared by select, compile and explain (tools/cmd_select.c).
typedef struct {
  const char *policy, *catalog, *cache_dir; // NULL = defaults
  int allow_version_mismatch, sample, max_steps, no_isolate, fit_sizes;
  uint64_t seed;                            // 0 = default
  int time_budget_ms;                       // --time-budget-ms + 1; 0 = none
  int budget;                // --budget N: any-time selection (0 = pure policy)
  double max_compile;        // --max-compile F + 1; 0 = the library's default
  int confirm_pairs;         // --confirm-pairs N; 0 = the library's default
} policy_cli;
// Consumes a shared option at argv[*i]: 1 consumed, 0 not, -1 error printed.
int policy_cli_option(policy_cli *o, int argc, char **argv, int *i);
// Creates a session, loads the policy and parses FILE; 0 or 1 (printed).
int policy_cli_open(policy_cli *o, const char *file, mqss_session **s,
                    mqss_policy **p, mqss_module **m);
// Select options from the CLI ones: isolated unless --no-isolate.
void policy_cli_select_options(const policy_cli *o, mqss_select_options *so);
// Prints what an isolated selection avoided, and that the time budget ended
// it, if so, on stderr.
void policy_cli_print_notes(const mqss_selection *sel);

// The output-check flags of the measuring commands (tools/check_cli.c).
enum { CHECK_CLI_MAX_SKIPS = 64 };
typedef struct {
  const char *skips[CHECK_CLI_MAX_SKIPS]; // --skip-output specs, (num_skips,)
  int num_skips;
  int ignore_schedule;                    // --ignore-schedule
} check_cli;
// Consumes --skip-output SPEC or --ignore-schedule at argv[*i]: 1 consumed,
// 0 not, -1 error printed. `cmd` names the command in messages.
int check_cli_option(check_cli *c, const char *cmd, int argc, char **argv,
                     int *i);
// Points `o`'s skip_outputs into `c` (which must outlive `o`'s use).
void check_cli_apply(const check_cli *c, mqss_measure_options *o);

#endif // MQSS_CLI_H
