// The mqss command-line tool: a git-style dispatcher over subcommands. Each
// subcommand lives in its own cmd_*.c file; this file only routes and prints
// help.
#include "cli.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmd_help(int argc, char **argv);

static const cli_command commands[] = {
    {"opt", "run a pass pipeline and/or the LLVM finisher on a module",
     "usage: mqss opt FILE [--pipeline TEXT] [--finish] [--isolate] [-o OUT]\n"
     "\n"
     "Parses FILE ('-' for stdin), runs TEXT (MLIR pass pipeline syntax, e.g.\n"
     "'canonicalize,func.func(convert-linalg-to-affine-loops)'), then with\n"
     "--finish lowers whatever remains to the LLVM dialect. Prints the module\n"
     "to OUT (default stdout).\n"
     "\n"
     "Passes run in this process: option values known to crash MLIR (such as\n"
     "affine-loop-unroll{unroll-factor=0}) are refused, but an unknown crash\n"
     "in an upstream pass kills mqss. --isolate runs the passes first in a\n"
     "forked child (60 s, 4096 MiB); a crash, hang or exhaustion there is\n"
     "reported and nothing runs here. It costs one more run of the passes.\n"
     "\n"
     "  --pipeline TEXT   passes to run, anchored or bare\n"
     "  --finish          lower the result fully to the LLVM dialect\n"
     "  --isolate         try the passes in a forked child first (see above)\n"
     "  --print-finish    print the finisher's chosen pipeline to stderr\n"
     "  --tag             tag every linalg op with mqss.id = N first (what\n"
     "                    schedule actions address ops by)\n"
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
     "  --output-limit MB  cap of the program's printed output (default 64, 0 off)\n"
     "  --pin CPU          pin the child to one core\n"
     "  --opt N            JIT optimisation level 0-3 (default 3)\n"
     "  --vs B             also measure pipeline B; run pairs A B, B A, ... in\n"
     "                     one child and print the ratio time(B)/time(A) with\n"
     "                     its 95% interval and the verdict\n"
     "  --min-gain X       --vs: A (B) is faster only when the whole interval\n"
     "                     clears 1 + X (default 0.02)\n"
     "  --shared-libs a,b  extra libraries for the JIT (runner utils are loaded)\n"
     "  --no-runner-libs   do not load MLIR's runner utils libraries\n"
     "  --cache PATH       SQLite result cache; --no-cache bypasses it\n"
     "  --no-check         do not compare with the reference\n"
     "  --rtol X --atol X  slack added to the error model's float bound\n"
     "                     (default 1e-6, 1e-12; docs/MEASURE.md)\n"
     "  --skip-output SPEC leave an output out of the check: result:N, arg:N,\n"
     "                     line:N or line:N-M (stdout, from 1), stdout;\n"
     "                     repeatable (clock outputs are skipped by themselves)\n"
     "  --ignore-schedule  do not apply the module's @__transform_main (it is\n"
     "                     applied to reference and candidate by default)\n"
     "  --no-code-size     skip the text_bytes computation\n"
     "  --json             print JSON\n",
     cmd_measure},
    {"catalog", "list the action catalog, show the safety mask, apply an action",
     "usage: mqss catalog [--catalog PATH] [--hash | --check]\n"
     "       mqss catalog --mask FILE [--target FUNC]\n"
     "       mqss catalog --apply NAME FILE [--params U1,U2..] [--target FUNC]\n"
     "                    [--isolate] [--op ID] [--emit-schedule OUT]\n"
     "\n"
     "Without options, lists every action: id, name, anchor, required and\n"
     "produced stages, parameters and pipeline template. The catalog is\n"
     "PATH, else $MQSS_CATALOG, else data/catalog.yaml of the source tree.\n"
     "\n"
     "  --hash           print only the catalog hash\n"
     "  --check          parse every action's pipeline at the ends of its\n"
     "                   parameter ranges; list those that fail (exit 1)\n"
     "  --mask FILE      print, per action, allowed or the reason it is blocked\n"
     "  --apply NAME     apply action NAME to FILE and print the module\n"
     "  --params LIST    raw parameter values in [-1,1], mapped onto each range\n"
     "  --target FUNC    scope the check or the action to function @FUNC\n"
     "  --isolate        apply the action in a forked child first, so that a\n"
     "                   pass that crashes (as some upstream passes do on some\n"
     "                   options) is reported instead of killing mqss\n"
     "  --op ID          schedule actions: transform only the linalg op\n"
     "                   tagged mqss.id = ID (see 'mqss opt --tag')\n"
     "  --emit-schedule OUT  schedule actions: write the transform script\n",
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
     "       mqss corpus emit FAMILY [--seed S] [--index I] [--driver]\n"
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
     "  --no-verify           do not parse the modules before writing them\n"
     "  --driver              driver form (gen and emit): the kernel is @kernel,\n"
     "                        and a @main fills its inputs, calls it and prints\n"
     "                        checksums; the same modules as without it\n",
     cmd_corpus},
    {"baseline", "measure each module of a manifest under its family's baseline",
     "usage: mqss baseline MANIFEST -o baseline.json [--baselines FILE]\n"
     "                     [--check] [--limit N] [--cache FILE] [--workers N]\n"
     "                     [--timeout MS]\n"
     "\n"
     "For every module listed in MANIFEST (a corpus .tsv), runs its family's\n"
     "baseline pipeline from FILE (default data/baselines.yaml, in the working\n"
     "directory or else in the source tree) before the finisher and records\n"
     "comp_time (ms, median of 5 compilations), run_time\n"
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
     "  --cache FILE          SQLite measurement cache\n"
     "  --workers N           modules measured in parallel, each in its own\n"
     "                        process (default: the online cores)\n"
     "  --timeout MS          limit of one measurement (default 300000)\n",
     cmd_baseline},
    {"rollout", "run episodes of a policy on a module; print trajectories",
     "usage: mqss rollout FILE --policy random --episodes K [--seed S]\n"
     "                    [--max-steps N] [--json] [options]\n"
     "\n"
     "Runs K episodes of the environment on FILE, each in a forked child (a\n"
     "pass that crashes ends only its episode, reported as crashed). The\n"
     "random policy picks uniformly among the actions the safety layer allows\n"
     "and draws parameters uniformly in [-1, 1] from seed (S, episode). An\n"
     "episode ends on STOP or after N steps; its pipeline is then measured in\n"
     "the sandbox against the baseline (finisher only). Prints each step's\n"
     "action, mapped parameters, status and reward, and the final status,\n"
     "measurement and reward terms. See docs/ENV.md.\n"
     "\n"
     "  --policy random    the policy (only random for now)\n"
     "  --episodes K       episodes (default 1)\n"
     "  --seed S           seed (default 1)\n"
     "  --max-steps N      decisions per episode (default 16)\n"
     "  --workers W        worker processes (default 1)\n"
     "  --warmup N         untimed runs per measurement (default 1)\n"
     "  --repeat N         timed runs per measurement (default 5)\n"
     "  --timeout MS       wall-clock limit of one episode (default 300000)\n"
     "  --cache PATH       SQLite measurement cache\n"
     "  --catalog PATH     action catalog (default data/catalog.yaml)\n"
     "  --json             print JSON\n",
     cmd_rollout},
    {"search", "random, greedy or policy-guided search for the fastest correct pipeline",
     "usage: mqss search --method random|greedy --budget N FILE [--seed S]\n"
     "                   [--max-len L] [--json] [--cache PATH] [--repeat R]\n"
     "       mqss search --method policy --policy FILE.safetensors ... FILE\n"
     "\n"
     "Searches sequences of catalog actions (only those the safety mask allows\n"
     "on the current IR) and measures each candidate pipeline on FILE with the\n"
     "sandboxed harness, outputs checked against the reference (the finisher\n"
     "alone). Evaluation 0 is the empty pipeline; every candidate measured\n"
     "counts as one evaluation, cache hits included. The fastest correct\n"
     "candidates are re-measured against the reference with interleaved pairs;\n"
     "a winner is named only when its speedup interval clears 1 + min gain.\n"
     "Prints the winner (or \"no confirmed speedup\"), the re-measured\n"
     "candidates, evaluations, failures by status and wall time. See\n"
     "docs/SEARCH.md.\n"
     "\n"
     "  --method M        random (default), greedy, or policy: the policy's\n"
     "                    proposals, then greedy steps from the best so far,\n"
     "                    mutations of it and random sequences (expert\n"
     "                    iteration's search)\n"
     "  --policy FILE     the guiding policy of --method policy\n"
     "  --proposals K     distinct policy proposals at most (default 8)\n"
     "  --no-explore      policy: only the proposals, no greedy, mutation or\n"
     "                    random candidates\n"
     "  --budget N        evaluations at most, evaluation 0 included (default 50)\n"
     "  --seed S          seed of the random draws (default 1)\n"
     "  --max-len L       decisions per sequence at most (default 16)\n"
     "  --kind-wide       schedule decisions address every op of their kinds,\n"
     "                    not the focus op: the winner replays on other modules\n"
     "                    (family baselines)\n"
     "  --min-gain X      relative gain that counts as better (default 0.02)\n"
     "  --max-compile F   a candidate that compiles longer than F times the\n"
     "                    module without passes is never best (default 0: no\n"
     "                    limit)\n"
     "  --confirm P       interleaved pairs per re-measured candidate; 0 skips\n"
     "                    the confirmation (default 20)\n"
     "  --confirm-top K   re-measure the K fastest candidates (default 3, max 8);\n"
     "                    the winner's speedup interval must clear 1 + min gain\n"
     "  --warmup N        untimed runs per measurement (default 3)\n"
     "  --repeat R        timed runs per measurement (default 10)\n"
     "  --timeout MS      wall-clock limit per measurement (default 30000)\n"
     "  --pin CPU         pin the measuring child to one core\n"
     "  --entry NAME      function to run (default: measure's convention)\n"
     "  --cache PATH      SQLite measurement cache (default none)\n"
     "  --catalog PATH    action catalog (default data/catalog.yaml)\n"
     "  --no-code-size    skip the text_bytes computation of each measurement\n"
     "  --skip-output SPEC, --ignore-schedule   output check, as in measure\n"
     "  --json            print JSON, with the per-evaluation trace\n"
     "  --trace           print the per-evaluation trace (text output)\n"
     "  -v, --verbose     print each evaluation to stderr as it finishes\n",
     cmd_search},
    {"select", "choose a pass pipeline for a module with a policy",
     "usage: mqss select FILE [--policy P] [--json] [options]\n"
     "       mqss select --init-random-policy OUT [--arch gnn|mlp] [--seed N]\n"
     "\n"
     "Loads the policy (default: $MQSS_POLICY, else models/default.safetensors\n"
     "of the source tree) and prints the pipeline it chooses for FILE, as one\n"
     "builtin.module(...) string that mlir-opt --pass-pipeline accepts. Greedy\n"
     "unless --sample. Passes run in a forked child: one that crashes or hangs\n"
     "is avoided and said on stderr. A schedule decision addresses the linalg\n"
     "op the state focuses on by its mqss.id tag: mqss tags FILE before the\n"
     "pipeline's first schedule runs; mlir-opt needs the tagged module\n"
     "(--emit-tagged, or 'mqss opt --tag'). See docs/POLICY.md.\n"
     "\n"
     "  --policy P                policy file (.safetensors)\n"
     "  --catalog PATH            action catalog (default data/catalog.yaml)\n"
     "  --allow-version-mismatch  accept a policy trained with another MLIR\n"
     "  --json                    print decisions, mapped parameters, pipeline\n"
     "  --max-steps N             decisions at most (default: the episode length\n"
     "                            the policy was trained with, else 16)\n"
     "  --sample --seed N         sample instead of greedy, with this seed\n"
     "  --budget N                any-time selection: also measure N sampled\n"
     "                            proposals (outputs checked) and keep one only\n"
     "                            when re-measurement confirms it is faster\n"
     "                            (default 0: the pure policy)\n"
     "  --max-compile F           with --budget: a proposal that compiles longer\n"
     "                            than F times the module without passes is\n"
     "                            never kept; the policy's own choice is exempt\n"
     "                            (default 4; 0: no limit)\n"
     "  --confirm-pairs N         with --budget: interleaved pairs of each\n"
     "                            confirmation (default 20)\n"
     "  --cache-dir DIR           avoid sequences logged bad in DIR (with\n"
     "                            --budget: also DIR/measure.sqlite)\n"
     "  --no-isolate              run the passes in this process (faster; a\n"
     "                            crashing pass then kills mqss)\n"
     "  --fit-sizes, --no-fit-sizes  a tiling decision whose sizes do not\n"
     "                            divide its op's loops gets the nearest sizes\n"
     "                            that do, or is refused and the next-best\n"
     "                            action taken (default: as the policy was\n"
     "                            trained, fitted with expit.adapt_sizes=1)\n"
     "  --time-budget-ms MS       start no step after MS ms; keep the decisions\n"
     "                            so far (0: exactly one step)\n"
     "  --emit-schedule OUT       write the transform library of the selection's\n"
     "                            schedule actions (docs/SCHEDULES.md)\n"
     "  --emit-tagged OUT         write FILE with its linalg ops tagged: the\n"
     "                            input on which mlir-opt replays the pipeline\n"
     "  --init-random-policy OUT  write an UNTRAINED random policy (tests only)\n",
     cmd_select},
    {"compile", "select with a policy, lower to LLVM, write .mlir/.ll/.o",
     "usage: mqss compile FILE [--policy P] [--guard] [--baseline PIPE] -o OUT\n"
     "\n"
     "Runs the policy's pipeline and the finisher on FILE and writes OUT:\n"
     ".mlir (LLVM dialect), .ll (LLVM IR) or .o (host object file). With\n"
     "--guard, first runs the chosen pipeline and the reference on the same\n"
     "deterministic inputs in the measurement sandbox; when outputs differ or\n"
     "the pipeline fails or crashes, uses PIPE instead (default: finisher\n"
     "only) and logs the sequence as bad. Says on stderr which was used, why.\n"
     "\n"
     "  --policy P --catalog PATH --allow-version-mismatch   as in select\n"
     "  --max-steps N --no-isolate --time-budget-ms MS      as in select\n"
     "  --fit-sizes --no-fit-sizes                          as in select\n"
     "  --guard                   check the output before trusting the choice\n"
     "  --budget N                with --guard: choose among the policy's own\n"
     "                            choice and N measured proposals (as in select),\n"
     "                            then use PIPE instead when it is confirmed\n"
     "                            faster than that choice\n"
     "  --max-compile F           with --budget: as in select (default 4)\n"
     "  --confirm-pairs N         with --budget: as in select (default 20); a\n"
     "                            comparison with PIPE that favours it but is\n"
     "                            not confirmed is read again with 3N pairs\n"
     "  --baseline PIPE           fallback pipeline (default \"\")\n"
     "  --cache-dir DIR           measure.sqlite + bad_sequences.jsonl\n"
     "  --seed N                  input seed of the check (default 1)\n"
     "  --skip-output SPEC        leave an output out of the check (as in\n"
     "                            measure; repeatable)\n"
     "  --ignore-schedule         check without the module's @__transform_main\n"
     "  -o OUT                    output file, .mlir / .ll / .o\n",
     cmd_compile},
    {"explain", "top features behind a policy's preference for an action",
     "usage: mqss explain FILE [--policy P] --action NAME [--top K]\n"
     "\n"
     "Prints the K (default 10) state features with the largest |gradient x\n"
     "input| of log p(NAME) in the policy's first decision on FILE: index,\n"
     "name, value and weight. NAME is a catalog action, 'stop' or an index.\n",
     cmd_explain},
    {"eval", "evaluate a policy on held-out modules against the baselines",
     "usage: mqss eval --policy P (--manifest HOLDOUT.tsv | DIR | FILE...)\n"
     "                 [--baseline baseline.json] [--baselines data/baselines.yaml]\n"
     "                 [--fixed PIPE | --fixed-from-train TRAIN.tsv]\n"
     "                 [--search-json DIR] [--pairs N] [--kernels] [--out DIR]\n"
     "                 [--json]\n"
     "\n"
     "Selects a pipeline per module with the policy (timing the decision), then\n"
     "measures it in interleaved A/B pairs against the family's hand-tuned\n"
     "pipeline, the reference (finisher only) and a fixed pipeline, outputs\n"
     "checked against the reference. Modules of unknown family are compared\n"
     "with the reference only. Prints a table and the aggregate: geomean\n"
     "speedups, p95 compile-time increase, code-size ratio, crashes, wrong\n"
     "outputs, decision latency. See docs/EVAL.md.\n"
     "\n"
     "  --policy P              policy file (default models/default.safetensors)\n"
     "  --manifest FILE         modules of a corpus manifest (.tsv)\n"
     "  --baseline FILE         baseline.json (family and pipeline per module)\n"
     "  --baselines FILE        family pipelines (default data/baselines.yaml)\n"
     "  --fixed PIPE            the fixed pipeline to compare with\n"
     "  --fixed-from-train TSV  choose the best fixed pipeline on a training\n"
     "                          sample (--fixed-sample N modules, default 8)\n"
     "  --search-json DIR       DIR/<module>.json from 'mqss search --json'\n"
     "  --pairs N               timed interleaved pairs per comparison (default 10)\n"
     "  --kernels               time each module's kernel, its one public function\n"
     "                          other than @main (on generated inputs, outputs\n"
     "                          checked), instead of the whole program\n"
     "  --warmup N              untimed pairs first (default 2)\n"
     "  --repeat N              mqss_measure_vs rounds per comparison; the\n"
     "                          median of their medians is used (default 1)\n"
     "  --compile-samples N     compile-only measurements per side; compile\n"
     "                          time is their minimum (default 5)\n"
     "  --min-gain X            a speedup counts (+ or -) only when its whole\n"
     "                          95% interval clears 1 + X (default 0.02); else\n"
     "                          the module is marked ~ (within noise)\n"
     "  --seed N --timeout MS --pin CPU   measurement settings\n"
     "  --max-steps N --cache-dir DIR --catalog PATH --allow-version-mismatch\n"
     "  --no-isolate --[no-]fit-sizes  selection settings, as in select (selection\n"
     "                          runs in the sandbox unless --no-isolate)\n"
     "  --out DIR               write report.md, report.html, report.json, PNGs\n"
     "  --json                  print JSON (every module and the aggregate)\n"
     "  --skip-output SPEC, --ignore-schedule   output check, as in measure\n"
     "  -q, --quiet             no progress on stderr\n",
     cmd_eval},
    {"train", "train a policy with PPO on a corpus (local workers or MPI)",
     "usage: mqss train --log-dir DIR [--config FILE] [--resume] [--stop-after N]\n"
     "                  [--init-from POLICY] [--mpi] [--quiet]\n"
     "\n"
     "Trains a policy with PPO as FILE says (default: data/train_config.yaml's\n"
     "values; see that file for every key). Writes DIR/metrics.jsonl and\n"
     "DIR/metrics.csv every iteration, DIR/checkpoint.bin every\n"
     "rl.checkpoint_every iterations, DIR/curves.png, and the final policy\n"
     "DIR/policy.safetensors. Stops early when the episodic return's variance\n"
     "stays under rl.early_stop_variance for rl.early_stop_steps steps.\n"
     "With expit.rounds > 0 (expert iteration, docs/TRAINING.md): rounds of\n"
     "policy-guided search, cloning on the confirmed winners and PPO anchored\n"
     "to the clone, in DIR/round_R, with DIR/expit.csv and DIR/expit.png;\n"
     "--resume continues from the last finished phase, or inside a search\n"
     "phase with the modules not searched yet.\n"
     "\n"
     "  --config FILE  training configuration (YAML)\n"
     "  --log-dir DIR  where logs, checkpoints and the policy go (required)\n"
     "  --resume       continue from DIR/checkpoint.bin exactly\n"
     "  --init-from POLICY  start from POLICY instead of random weights; an\n"
     "                 older feature layout or a shorter catalog is migrated\n"
     "                 (same decisions at step 0; policy.init_from)\n"
     "  --stop-after N run at most N iterations now, then checkpoint and export\n"
     "                 (train in chunks; --resume goes on)\n"
     "  --mpi          under mpirun: rank 0 trains, the other ranks roll out\n"
     "  --quiet        no progress output\n",
     cmd_train},
    {"quantize", "write an int8 copy of a policy (about 4x smaller)",
     "usage: mqss quantize IN.safetensors OUT.safetensors\n"
     "\n"
     "Writes OUT with every weight matrix of IN as int8, symmetric in blocks\n"
     "of 32 columns of a row (w = q * scale, one f32 scale per block, q in\n"
     "[-127, 127]); biases, log-stds and activations stay f32, and the\n"
     "metadata's weight_dtype says int8. select, compile, explain and eval\n"
     "load either kind: an int8 policy decides from its int8 weights\n"
     "(dequantised on load). IN must hold f32 weights; an ensemble's members\n"
     "are each quantised. Reads OUT back and prints its size and the largest\n"
     "change of a weight. See docs/POLICY_FORMAT.md; bench/int8.sh compares\n"
     "the decisions with the f32 policy's.\n",
     cmd_quantize},
    {"ensemble", "join 2 to 8 policies into one that averages their choices",
     "usage: mqss ensemble OUT.safetensors IN1.safetensors IN2.safetensors "
     "[IN3...]\n"
     "\n"
     "Writes OUT holding the networks of IN1, IN2, ... (at most 8). A policy\n"
     "loaded from OUT decides from the mean of its members' action\n"
     "log-probabilities, normalised again, and the mean of their parameter\n"
     "means; explain attributes that combined log-probability. The members\n"
     "must be f32 policies of one feature layout, catalog, MLIR version,\n"
     "network shape, rl.max_steps and expit.adapt_sizes: typically clones of\n"
     "the same demonstrations with different training seeds. OUT's metadata\n"
     "is IN1's, with train_config listing the members, train_steps their sum\n"
     "and train_date the latest. Reads OUT back before reporting success. An\n"
     "ensemble cannot be a training start (--init-from) or join another;\n"
     "use a member's file. mqss quantize quantises each member. See\n"
     "docs/POLICY_FORMAT.md, \"Ensembles\".\n",
     cmd_ensemble},
    {"dashboard", "write a self-contained HTML page from metrics JSONL",
     "usage: mqss dashboard FILE.jsonl... -o OUT.html\n"
     "\n"
     "Reads the metrics that 'mqss-opt --mqss-metrics' and the plugin's\n"
     "metrics= option write (one JSON object per module run: module,\n"
     "pipeline, decision_ms, fallback, fallback_reason, compile_ms, speedup,\n"
     "budget_hit; only module is required; a line whose fnv1a checksum does\n"
     "not match is skipped) and writes one HTML page with\n"
     "inline CSS, script and SVG, no network access: speedup distribution\n"
     "(log axis, 1x marked), fallback rate and reasons, decision-latency\n"
     "histogram and a per-module table. A line that is not a JSON object or\n"
     "has a field of the wrong type is skipped and counted (stderr and the\n"
     "page name FILE:LINE:COL and the reason). See docs/DEPLOY.md.\n"
     "\n"
     "  -o OUT.html   the page to write (required)\n",
     cmd_dashboard},
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

mqss_status cli_parse_module(mqss_session *s, const char *path,
                               mqss_module **out) {
  if (strcmp(path, "-"))
    return mqss_module_parse_file(s, path, out);
  size_t cap = 1 << 16, len = 0, n;
  char *buf = malloc(cap);
  while (buf && (n = fread(buf + len, 1, cap - len, stdin)) > 0) {
    len += n;
    if (len == cap) {
      char *p = realloc(buf, cap *= 2);
      if (!p)
        free(buf);
      buf = p;
    }
  }
  if (!buf)
    return MQSS_ERR_NOMEM;
  mqss_status st = mqss_module_parse_string(s, buf, len, "<stdin>", out);
  free(buf);
  return st;
}


bool cli_parse_int(const char *cmd, const char *flag, const char *v, long lo,
                   long hi, long *out) {
  char *end;
  long x = strtol(v, &end, 10);
  if (!*v || *end || x < lo || x > hi) {
    cli_error("%s: %s expects an integer in [%ld, %ld], got '%s'", cmd, flag,
              lo, hi, v);
    return false;
  }
  *out = x;
  return true;
}

bool cli_parse_double(const char *cmd, const char *flag, const char *v,
                      double lo, double hi, double *out) {
  char *end;
  double x = strtod(v, &end);
  if (!*v || *end || !(x >= lo && x <= hi)) {
    cli_error("%s: %s expects a number in [%g, %g], got '%s'", cmd, flag, lo,
              hi, v);
    return false;
  }
  *out = x;
  return true;
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
