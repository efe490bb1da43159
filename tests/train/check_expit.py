#!/usr/bin/env python3
"""End-to-end test of expert iteration (`mqss train` with expit.rounds) at toy
scale: a two-module corpus (a 128x128 memref matmul and a vector add), the
four-action catalog expit_catalog.yaml, a search budget of 6, episodes of
at most 2 decisions.

1. Two rounds write expit.csv (one row per round, the documented columns),
   expit.png, and per round winners.tsv, clone.safetensors, PPO logs and a
   policy; the cloning loss falls in round 0 (and does not rise later).
2. The clone reproduces the searched pipelines: for every module, its greedy
   selection is exactly the winner in winners.tsv (the empty pipeline where
   nothing was confirmed). The matmul's winner is a real recipe (lowering to
   affine loops and tiling measures tens of times faster than the reference,
   far beyond the 2% the confirmation asks for).
3. A run killed with SIGKILL after its first round resumes at the round
   after the last finished one, keeps the finished rows as they were, and
   ends with every round logged.
4. More rounds continue a finished run (--resume with expit.rounds raised).

usage: check_expit.py MQSS_BINARY SOURCE_DIR
"""
import csv
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

MQSS, SRC = sys.argv[1], sys.argv[2]
TMP = tempfile.mkdtemp(prefix="mqss_expit_")
CATALOG = os.path.join(SRC, "tests", "train", "expit_catalog.yaml")
ENV = dict(os.environ, MQSS_CATALOG=CATALOG)
COLUMNS = ["round", "env_steps", "search_gain", "winners", "modules_searched",
           "search_evaluations", "clone_loss_first", "clone_loss", "ppo_return",
           "holdout_speedup", "holdout_failed", "elapsed_s"]
failures = []
passed = 0

MATMUL = """func.func @forward(%A: memref<128x128xf32>, %B: memref<128x128xf32>,
                   %C: memref<128x128xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%C : memref<128x128xf32>)
  linalg.matmul ins(%A, %B : memref<128x128xf32>, memref<128x128xf32>)
                outs(%C : memref<128x128xf32>)
  return
}
"""


def check(cond, what):
    global passed
    if cond:
        passed += 1
    else:
        failures.append(what)
        print("FAIL", what)


def config(name, rounds):
    path = os.path.join(TMP, name + ".yaml")
    with open(path, "w") as f:
        f.write(f"""rl:
  num_workers: 2
  rollout_steps: 8
  batch_size: 8
  minibatch: 4
  epochs: 2
  max_steps: 2
  checkpoint_every: 1
  lr: 0.003
  bc_lr: 0.003
env:
  manifest: {TMP}/corpus/train.tsv
  baseline_json: ""
  measure:
    warmup: 0
    repeat: 2
    cache: {TMP}/cache.sqlite
policy:
  arch: gnn
  hidden: 16
expit:
  rounds: {rounds}
  search_budget: 6
  proposals: 2
  bc_epochs: 200
  ppo_iterations: 1
  kl_coef: 0.5
  confirm_pairs: 6
  holdout: {TMP}/corpus/train.tsv
""")
    return path


def train(cfg, log, *more):
    return subprocess.run([MQSS, "train", "--config", cfg, "--log-dir",
                           os.path.join(TMP, log), *more],
                          capture_output=True, text=True, env=ENV, timeout=900)


def rows(log):
    with open(os.path.join(TMP, log, "expit.csv")) as f:
        return list(csv.DictReader(f))


def winners(path):
    out = {}
    with open(path) as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            out[int(parts[0])] = parts[-1] if int(parts[2]) > 0 else ""
    return out


def main():
    corpus = os.path.join(TMP, "corpus")
    os.makedirs(corpus)
    with open(os.path.join(corpus, "mm128.mlir"), "w") as f:
        f.write(MATMUL)
    shutil.copy(os.path.join(SRC, "tests", "lit", "Inputs", "measure_add.mlir"), corpus)
    modules = ["mm128.mlir", "measure_add.mlir"]
    with open(os.path.join(corpus, "train.tsv"), "w") as f:
        f.write("\n".join(modules) + "\n")

    # 1. two rounds
    r = train(config("two", 2), "two")
    check(r.returncode == 0, f"expit run failed: {r.stderr[-2000:]}")
    log = os.path.join(TMP, "two")
    for f in ("expit.csv", "expit.png", "round_0/winners.tsv", "round_0/clone.safetensors",
              "round_0/metrics.csv", "round_1/policy.safetensors"):
        check(os.path.exists(os.path.join(log, f)), f"the run wrote no {f}")
    m = rows("two") if r.returncode == 0 else []
    check(m and list(m[0].keys()) == COLUMNS, f"expit.csv columns: {m[0].keys() if m else None}")
    check([int(x["round"]) for x in m] == [0, 1], f"rounds logged: {m}")
    for x in m:
        first, last = float(x["clone_loss_first"]), float(x["clone_loss"])
        check(last < (0.5 if x["round"] == "0" else 1.001) * first,
              f"the cloning loss did not fall in round {x['round']}: {x}")
        check(int(x["modules_searched"]) == 2, f"round {x['round']} searched {x['modules_searched']} modules")
    if r.returncode == 0:
        with open(os.path.join(log, "round_0", "metrics.csv")) as f:
            kl = [float(x["policy/anchor_kl"]) for x in csv.DictReader(f)]
        check(kl and all(k >= 0 for k in kl), f"PPO logged no anchor KL: {kl}")
    check("round 1: search gain" in r.stderr, f"no per-round progress: {r.stderr[-500:]}")

    # 2. the clone reproduces the searched pipelines
    for rnd in (0, 1):
        w = winners(os.path.join(log, f"round_{rnd}", "winners.tsv"))
        check(sorted(w) == [0, 1], f"round {rnd} winners cover modules {sorted(w)}")
        if rnd == 0:
            check("affine-loop-tile" in w.get(0, ""),
                  f"the search found no tiled recipe for the matmul: {w}")
        for i, name in enumerate(modules):
            sel = subprocess.run([MQSS, "select", os.path.join(corpus, name), "--catalog", CATALOG,
                                  "--max-steps", "2", "--policy",
                                  os.path.join(log, f"round_{rnd}", "clone.safetensors")],
                                 capture_output=True, text=True, env=ENV)
            want = w.get(i, "") or "builtin.module()"
            check(sel.stdout.strip() == want,
                  f"round {rnd}: the clone chose '{sel.stdout.strip()}' for {name}, "
                  f"the search found '{want}' {sel.stderr[-300:]}")

    # 3. SIGKILL after the first round, then --resume
    cfg = config("killed", 3)
    klog = os.path.join(TMP, "killed")
    p = subprocess.Popen([MQSS, "train", "--config", cfg, "--log-dir", klog],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         env=ENV, start_new_session=True)
    deadline = time.time() + 600
    first = os.path.join(klog, "round_0", "row.csv")
    while time.time() < deadline and p.poll() is None and not os.path.exists(first):
        time.sleep(0.2)
    os.killpg(p.pid, signal.SIGKILL)
    p.wait()
    done = sum(os.path.exists(os.path.join(klog, f"round_{k}", "row.csv")) for k in range(3))
    check(done >= 1, "the run to kill finished no round")
    before = open(first).read() if done else ""
    r = train(cfg, "killed", "--resume")
    check(r.returncode == 0, f"resume after SIGKILL failed: {r.stderr[-2000:]}")
    check(f"resumed at round {done})" in r.stdout, f"resumed at the wrong round ({done} done): {r.stdout}")
    if r.returncode == 0:
        check([int(x["round"]) for x in rows("killed")] == [0, 1, 2],
              f"rounds after the resume: {rows('killed')}")
        check(open(first).read() == before, "the resume rewrote a finished round")

    # 4. more rounds continue a finished run
    r = train(config("two", 3), "two", "--resume")
    check(r.returncode == 0 and "3 rounds (resumed at round 2)" in r.stdout,
          f"raising expit.rounds did not continue the run: {r.stdout} {r.stderr[-1000:]}")

    print(f"{passed} passed, {len(failures)} failed")
    if not failures:
        shutil.rmtree(TMP)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
