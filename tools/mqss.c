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
    {"measure", "compile, run and check a module in a sandbox; time it",
     "usage: mqss measure FILE [--pipeline TEXT] [--entry NAME] [--warmup 3]\n"
     "                    [--repeat 10] [--json] [--no-cache] [--cache PATH]\n"
     "                    [--pin CPU] [--vs B] [--shared-libs a,b] [--timeout MS]\n"
     "\n"
     "Runs TEXT, then the finisher (lower to LLVM), JIT-compiles and runs the\n"
     "entry in a forked, resource-limited child, and compares its outputs\n"
     "(results, memref arguments, printed numbers) with those of FILE lowered\n"
     "by the finisher alone. Prints status (ok, parse_error, pass_failed,\n"
     "verify_failed, crashed, timeout, out_of_memory, wrong_output,\n"
     "unsupported), compile_ms, text_bytes, run_ms and a checksum. Exit code 0\n"
     "only when the status is ok. See docs/MEASURE.md.\n"
     "\n"
     "  --pipeline TEXT    passes to run before the finisher (default none)\n"
     "  --entry NAME       function to run (default @forward, @main, or the\n"
     "                     single public function)\n"
     "  --warmup N         untimed runs (default 3)\n"
     "  --repeat N         timed runs (default 10)\n"
     "  --seed N           seed of the generated inputs (default 1)\n"
     "  --timeout MS       wall-clock limit of the child (default 30000)\n"
     "  --mem MB           address-space limit of the child (default 4096, 0 off)\n"
     "  --pin CPU          pin the child to one core\n"
     "  --opt N            JIT optimisation level 0-3 (default 3)\n"
     "  --vs B             also measure pipeline B; run A B A B ... in one child\n"
     "                     and print the ratio time(B)/time(A)\n"
     "  --shared-libs a,b  extra libraries for the JIT (runner utils are loaded)\n"
     "  --no-runner-libs   do not load MLIR's runner utils libraries\n"
     "  --cache PATH       SQLite result cache; --no-cache bypasses it\n"
     "  --no-check         do not compare with the reference\n"
     "  --rtol X --atol X  float tolerance (default 1e-4, 1e-5)\n"
     "  --no-code-size     skip the text_bytes computation\n"
     "  --json             print JSON\n",
     cmd_measure},
    {"catalog", "list the action catalog, show the safety mask, apply an action",
     "usage: mqss catalog [--catalog PATH] [--hash]\n"
     "       mqss catalog --mask FILE [--target FUNC]\n"
     "       mqss catalog --apply NAME FILE [--params U1,U2..] [--target FUNC]\n"
     "\n"
     "Without options, lists every action: id, name, anchor, required and\n"
     "produced stages, parameters and pipeline template. The catalog is\n"
     "PATH, else $MQSS_CATALOG, else data/catalog.yaml of the source tree.\n"
     "\n"
     "  --hash           print only the catalog hash\n"
     "  --mask FILE      print, per action, allowed or the reason it is blocked\n"
     "  --apply NAME     apply action NAME to FILE and print the module\n"
     "  --params LIST    raw parameter values in [-1,1], mapped onto each range\n"
     "  --target FUNC    scope the check or the action to function @FUNC\n",
     cmd_catalog},
    {"features", "print the 256-float state vector of a module, with names",
     "usage: mqss features FILE [--json] [--nonzero] [--history A,B,..]\n"
     "       mqss features --doc\n"
     "\n"
     "Prints index, name and value of every state feature of FILE.\n"
     "\n"
     "  --json           print a JSON object {name: value}\n"
     "  --nonzero        print only the features that are not 0\n"
     "  --history LIST   past actions (names or ids), oldest first, for the\n"
     "                   context features\n"
     "  --max-steps N    episode length for the context features (16)\n"
     "  --catalog PATH   catalog the history refers to\n"
     "  --doc            print the layout as Markdown (docs/FEATURES.md)\n",
     cmd_features},
    {"graph", "build the IR graph of a module (CSR); print its size or dot",
     "usage: mqss graph FILE [--dot | --csr]\n"
     "\n"
     "Builds the op/block graph the policy's GraphSAGE encoder reads.\n"
     "\n"
     "  --dot   print Graphviz dot (view with: dot -Tsvg)\n"
     "  --csr   print each node's neighbour list\n",
     cmd_graph},
    {"corpus", "generate the workload corpus (filters, splits, manifest)",
     "usage: mqss corpus gen --out DIR [--count N] [--seed S] [options]\n"
     "       mqss corpus list\n"
     "       mqss corpus emit FAMILY [--seed S] [--index I]\n"
     "\n"
     "gen writes N modules <family>_<i>.mlir (candidate i is module i of family\n"
     "i mod F, seeded by (S, i)), manifest.tsv, train.tsv, holdout.tsv and\n"
     "manifest.hash, and reports how many modules each filter dropped.\n"
     "list prints the families; emit prints one module to stdout.\n"
     "See docs/CORPUS.md.\n"
     "\n"
     "  --out DIR             output directory (created if missing)\n"
     "  --count N             modules to keep (default 500)\n"
     "  --seed S              corpus seed (default 0)\n"
     "  --min-lines L         line-count window, inclusive (default 100)\n"
     "  --max-lines L         (default 5000)\n"
     "  --families a,b        only these families (default: all)\n"
     "  --holdout F           hold-out fraction (default 0.1)\n"
     "  --min-holdout N       hold-out floor, capped at N/5 (default 50)\n"
     "  --min-ms T            reference-runtime window in ms (measured with\n"
     "  --max-ms T            mqss_measure; default off)\n"
     "  --max-candidates N    give up after N candidates (default 20*count)\n"
     "  --no-verify           do not parse the modules before writing them\n",
     cmd_corpus},
    {"baseline", "measure each module of a manifest under its family's baseline",
     "usage: mqss baseline MANIFEST -o baseline.json [--baselines FILE]\n"
     "                     [--check] [--limit N] [--cache FILE]\n"
     "\n"
     "For every module listed in MANIFEST (a corpus .tsv), runs its family's\n"
     "hand-tuned pipeline from FILE (default data/baselines.yaml) before the\n"
     "finisher and records comp_time (ms, median of 5 compilations), run_time\n"
     "(ms, median of 10 runs after 3 warm-ups), size (.text bytes), family\n"
     "and pipeline, keyed by module file name, as JSON. With --vs-reference\n"
     "it also measures the reference (finisher only) and records ref_run_time.\n"
     "--check only parses and finishes each module under its pipeline.\n"
     "\n"
     "  -o FILE               output JSON (required unless --check)\n"
     "  --baselines FILE      per-family pipelines (default data/baselines.yaml)\n"
     "  --check               parse + pipeline + finish only, no timing\n"
     "  --vs-reference        also time the reference pipeline\n"
     "  --limit N             only the first N modules\n"
     "  --cache FILE          SQLite measurement cache\n",
     cmd_baseline},
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
