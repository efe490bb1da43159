// The mqss command-line tool: a git-style dispatcher over subcommands. Each
// subcommand lives in its own cmd_*.c file; this file only routes and prints
// help.
#include "cli.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int cmd_help(int argc, char **argv);

static const cli_command commands[] = {
    {"opt", "run a pass pipeline and/or the LLVM finisher on a module",
     "usage: mqss opt FILE [--pipeline TEXT] [--finish] [-o OUT]\n"
     "\n"
     "Parses FILE ('-' for stdin), runs TEXT (MLIR pass pipeline syntax, e.g.\n"
     "'canonicalize,func.func(convert-linalg-to-affine-loops)'), then with\n"
     "--finish lowers whatever remains to the LLVM dialect. Prints the module\n"
     "to OUT (default stdout).\n"
     "\n"
     "  --pipeline TEXT   passes to run, anchored or bare\n"
     "  --finish          lower the result fully to the LLVM dialect\n"
     "  --print-finish    print the finisher's chosen pipeline to stderr\n"
     "  -o OUT            write the module to OUT instead of stdout\n",
     cmd_opt},
    {"version", "print the mqss version and the MLIR/LLVM version in use",
     "usage: mqss version\n", cmd_version},
    {"help", "list the commands, or show one command's help",
     "usage: mqss help [COMMAND]\n", cmd_help},
};

enum { NCOMMANDS = sizeof commands / sizeof commands[0] };

int cli_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("mqss: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  return 1;
}

bool cli_wants_help(int argc, char **argv) {
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
      return true;
  return false;
}

int cli_print_usage(const cli_command *cmd) {
  fputs(cmd->usage, stdout);
  return 0;
}

const cli_command *cli_find(const char *name) {
  for (int i = 0; i < NCOMMANDS; i++)
    if (!strcmp(commands[i].name, name))
      return &commands[i];
  return NULL;
}

static void print_overview(FILE *out) {
  fprintf(out, "usage: mqss COMMAND [ARGS]\n\n"
               "MQSS-Selector picks MLIR pass pipelines per module.\n\n"
               "commands:\n");
  for (int i = 0; i < NCOMMANDS; i++)
    fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
  fprintf(out, "\nRun 'mqss COMMAND --help' for one command's options.\n");
}

static int cmd_help(int argc, char **argv) {
  if (argc < 2) {
    print_overview(stdout);
    return 0;
  }
  const cli_command *cmd = cli_find(argv[1]);
  if (!cmd)
    return cli_error("unknown command '%s'; run 'mqss help' for the list",
                     argv[1]);
  return cli_print_usage(cmd);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    print_overview(stderr);
    return 2;
  }
  if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))
    return cmd_help(1, argv);
  if (!strcmp(argv[1], "--version"))
    return cmd_version(1, argv);
  const cli_command *cmd = cli_find(argv[1]);
  if (!cmd)
    return cli_error("unknown command '%s'; run 'mqss help' for the list",
                     argv[1]);
  if (cli_wants_help(argc - 1, argv + 1))
    return cli_print_usage(cmd);
  return cmd->main(argc - 1, argv + 1);
}
