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

// Prints "mqss: <message>" to stderr and returns 1 (the exit code).
int cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

// True when argv holds -h or --help.
bool cli_wants_help(int argc, char **argv);

// Prints the usage of `cmd` to stdout and returns 0.
int cli_print_usage(const cli_command *cmd);

// Looks up a subcommand by name; NULL when unknown.
const cli_command *cli_find(const char *name);

int cmd_opt(int argc, char **argv);
int cmd_version(int argc, char **argv);
int cmd_measure(int argc, char **argv);
int cmd_catalog(int argc, char **argv);
int cmd_features(int argc, char **argv);
int cmd_graph(int argc, char **argv);
int cmd_corpus(int argc, char **argv);
int cmd_baseline(int argc, char **argv);

#endif // MQSS_CLI_H
