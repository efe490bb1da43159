#!/usr/bin/env python3
"""End-to-end test of expert iteration (`mqss train` with expit.rounds) at toy
scale: a two-module corpus (a 128x128 memref matmul and a vector add), the
four-action catalog expit_catalog.yaml, a search budget of 6 (10 in parts 1
and 4, where the search must find the matmul's tiled recipe), episodes of at
most 2 decisions.

1. Two rounds write expit.csv (one row per round, the documented columns),
   expit.png, and per round winners.tsv, clone.safetensors, PPO logs and a
   policy; the cloning loss falls in round 0 (and does not rise later).
   The run's result, LOGDIR/policy.safetensors, has the last round's
   weights and the whole run in its metadata: expit.csv's last env_steps,
   the sum of the rounds' PPO iterations and of their times.
2. The clone reproduces the searched pipelines: for every module, its greedy
   selection is exactly the winner in winners.tsv (the empty pipeline where
   nothing was confirmed) without its passes that leave the module
   unchanged where they stand (found here with `mqss opt`). The matmul's winner is a real recipe (lowering to
   affine loops and tiling measures tens of times faster than the reference,
   far beyond the 2% the confirmation asks for).
3. A run killed with SIGKILL after its first round resumes at the round
   after the last finished one, keeps the finished rows as they were, and
   ends with every round logged; so does a copy of it carried to another
   directory by scripts/train_state.sh (save, then restore).
4. More rounds continue a finished run (--resume with expit.rounds raised).
5. Resume inside the search phase, on three modules (budget 4, no PPO):
   MQSS_EXPIT_KILL_AFTER=2 SIGKILLs the run right after its second module's
   outcome is recorded; the second record is then damaged and a torn one
   appended. The resumed run keeps the first record byte for byte, drops
   the other two (with a warning) and searches exactly the modules not
   validly recorded; its winners.tsv and expit.csv figures are the fold of
   the records, and equal those of an uninterrupted run (same measurement
   cache, so the same candidates) up to what the confirmation's fresh paired
   measurements decide: the confirmed speedups, and which of the matmul's
   tile sizes wins.
6. expit.modules_per_round 1 on the three modules for three rounds: each
   round searches one module, the three rounds three different ones; the
   winners of earlier rounds persist (their winners.tsv lines unchanged) and
   the last round's clone selects every module's (pruned) winner, so all of them
   were cloned; expit.holdout_every 2 measures the hold-out figure in rounds
   1 and 2 (the last) only.
7. Seeds (expit.seed_baselines): a baselines file gives the matmul's family
   a recipe (lowering, cse twice, tiling by 32) and the add's family none.
   The run reports one seeded module with the repeated cse pruned. Round 0
   searches one module: if it is the matmul, its search measures the seed
   first, so with a budget of 2 (the reference and one candidate) its
   winner is the seed; otherwise the round's clone, which imitates the seed
   of every module not searched yet, selects the seed on the matmul.
   Run again with a catalog that has the matmul family's recipe as one
   action (baselines.yaml next to it), the run reports one module with a
   recipe action, and the clone's first decision on the matmul is it: a
   seed, or a winner that starts with it, is cloned as the recipe.
   With expit.seed_margin 10, a carried winner other than the seed (tile 16)
   is not confirmed 11x faster than it, so it is cloned as the seed (the
   recipe action) and counted in clone_seeds_kept; with 0 it is cloned as
   it is, and with 10 and expit.families naming only the other family it
   is not measured and cloned as it is.
7d. expit.families: only the named families' modules are searched; a name no
   module has is an error naming it and the manifest.
8. Cloning only (expit.search_budget 0, expit.winners_from part 6's last
   winners.tsv, no PPO) with the MLP network: nothing is searched, the
   round keeps the winners it started from byte for byte, and its clone
   selects every module's pruned winner; expit.png is drawn although three
   of its panels have no data. A winners_from file that is not
   one is an error naming its file and line, and so is a winner with an
   action outside the catalog. With expit.bc_only naming one action, the
   clone differs from the round's start only in that action's output rows
   (its logit row and bias, its parameter's mean row, bias and log-std),
   and those moved; an action the catalog lacks is an error naming it.

usage: check_expit.py MQSS_BINARY SOURCE_DIR
"""
import csv
import json
import math
import os
import re
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
           "holdout_speedup", "holdout_failed", "elapsed_s", "modules_selected",
           "clone_recipe_demos", "clone_seeds_kept"]
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


def config(name, rounds, manifest="train.tsv", budget=6, ppo=1, holdout=True,
           bc=200, more="", sub=()):
    """Writes the toy config NAME.yaml; `sub`: (old, new) text replacements."""
    path = os.path.join(TMP, name + ".yaml")
    text = f"""rl:
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
  manifest: {TMP}/corpus/{manifest}
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
  search_budget: {budget}
  proposals: 2
  bc_epochs: {bc}
  ppo_iterations: {ppo}
  kl_coef: 0.5
  confirm_pairs: 6
  holdout: "{TMP + '/corpus/train.tsv' if holdout else ''}"
{more}"""
    for old, new in sub:
        text = text.replace(old, new)
    with open(path, "w") as f:
        f.write(text)
    return path


def train(cfg, log, *more, env=ENV):
    return subprocess.run([MQSS, "train", "--config", cfg, "--log-dir",
                           os.path.join(TMP, log), *more],
                          capture_output=True, text=True, env=env, timeout=900)


def fnv1a64(data):
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


def records(path):
    """The checked records of a search_progress.tsv, in order: (module, kind,
    evaluations, the winners.tsv line of the module or None)."""
    out = []
    with open(path, "rb") as f:
        pieces = f.read().split(b"\n")
    for line in pieces[:-1]:  # the last piece is empty or torn
        body, _, tag = line.rpartition(b"\t")
        if not tag.startswith(b"#") or fnv1a64(body) != int(tag[1:], 16):
            continue
        kind, evals, rest = body.decode().split("\t", 2)
        module = int(rest.split("\t")[0])
        out.append((module, kind, int(evals), rest + "\n" if kind == "S" else None))
    return out


def fold(recs):
    """winners.tsv text and the row's search figures from a round's records."""
    lines = {m: line for m, kind, _, line in recs if kind == "S"}
    gains = [float(line.split("\t")[1]) for line in lines.values()]
    return ("".join(lines[m] for m in sorted(lines)),
            {"modules_searched": len(lines),
             "search_evaluations": sum(e for _, kind, e, _ in recs if kind == "S"),
             "winners": sum(int(line.split("\t")[2]) > 0 for line in lines.values()),
             "search_gain": math.exp(sum(map(math.log, gains)) / len(gains)) if gains else None})


def searched_now(stderr, rnd=0):
    return sorted(int(m) for m in re.findall(rf"^round {rnd}: module \d+/\d+ searched: #(\d+) ",
                                             stderr, re.M))


def safetensors(path):
    """(metadata, tensor bytes) of a policy file."""
    with open(path, "rb") as f:
        b = f.read()
    n = int.from_bytes(b[:8], "little")
    return json.loads(b[8:8 + n])["__metadata__"], b[8 + n:]


def tensors(path):
    """name -> (shape, bytes) of every tensor of a policy file."""
    with open(path, "rb") as f:
        b = f.read()
    n = int.from_bytes(b[:8], "little")
    head = json.loads(b[8:8 + n])
    return {k: (v["shape"], b[8 + n + v["data_offsets"][0]:8 + n + v["data_offsets"][1]])
            for k, v in head.items() if k != "__metadata__"}


def changed_rows(a, b):
    """name -> the rows (first index) where policy files a and b differ."""
    out, tb = {}, tensors(b)
    for name, (shape, x) in tensors(a).items():
        y = tb[name][1]
        width = 4 * (shape[1] if len(shape) == 2 else 1)
        rows = sorted({i // width for i in range(0, len(x), 4) if x[i:i + 4] != y[i:i + 4]})
        if rows:
            out[name] = rows
    return out


def pieces(pipeline):
    """The top-level pieces of 'builtin.module(a,b(c,d),...)'."""
    body = pipeline[len("builtin.module("):-1]
    out, depth, cur = [], 0, ""
    for ch in body:
        depth += {"(": 1, "{": 1, ")": -1, "}": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    return out + ([cur] if cur else [])


def pruned(path, pipeline):
    """`pipeline` without the pieces that leave module `path` unchanged where
    they stand, as the clone is taught it ('builtin.module()' if none)."""
    def ir(ps):
        return subprocess.run([MQSS, "opt", path, "--tag", "--pipeline",
                               "builtin.module(" + ",".join(ps) + ")"],
                              capture_output=True, text=True, env=ENV).stdout
    kept, before = [], ir([])
    for p in pieces(pipeline) if pipeline else []:
        after = ir(kept + [p])
        if after != before:
            kept.append(p)
        before = after
    return "builtin.module(" + ",".join(kept) + ")"


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


def clone_selects_winners(policy, winners, paths):
    """The greedy selection of `policy` on each module paths[i] is its pruned
    winner (winners: module index -> winners.tsv line; none: empty)."""
    for mod, path in enumerate(paths):
        sel = subprocess.run([MQSS, "select", path, "--catalog", CATALOG,
                              "--max-steps", "2", "--policy", policy],
                             capture_output=True, text=True, env=ENV)
        want = winners[mod].rstrip("\n").split("\t")[-1] if mod in winners else ""
        want = pruned(path, want)
        check(sel.stdout.strip() == want, f"{policy} chose '{sel.stdout.strip()}' for "
              f"{os.path.basename(path)}, its winner is '{want}'")


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
    # Budget 10 leaves room for all 8 pipelines of at most two decisions
    # (the reference included), so random sequences reach the tiled recipe
    # when greedy extends the plain cse, a first step that measures fastest
    # by noise alone: 0 misses in 40 seeds. At budget 6, 4 of 40 missed it.
    r = train(config("two", 2, budget=10), "two")
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
    if r.returncode == 0 and m:
        meta, weights = safetensors(os.path.join(log, "policy.safetensors"))
        last_meta, last_weights = safetensors(os.path.join(log, "round_1", "policy.safetensors"))
        iters = sum(int(safetensors(os.path.join(log, f"round_{k}", "policy.safetensors"))[0]
                        ["train_steps"]) for k in (0, 1))
        secs = sum(float(x["elapsed_s"]) for x in m)
        head = re.match(r"\S+ \((\d+) env steps, (\d+) s\)", meta["train_config"])
        check(weights == last_weights, "the run's policy is not the last round's weights")
        check(head and int(head.group(1)) == int(m[-1]["env_steps"]) and
              abs(int(head.group(2)) - secs) <= 1 and int(meta["train_steps"]) == iters == 2,
              f"the run's policy metadata {meta['train_config'][:80]!r}, train_steps "
              f"{meta['train_steps']}: want {m[-1]['env_steps']} env steps, {secs:.0f} s, "
              f"{iters} iterations")
        check(f"policy: {log}/policy.safetensors" in r.stdout, f"stdout: {r.stdout[-300:]}")
        # round 1's clone: the run up to it (round 0 whole, then round 1's
        # search and cloning), not zero time and the round's index
        cmeta, _ = safetensors(os.path.join(log, "round_1", "clone.safetensors"))
        chead = re.match(r"\S+ \((\d+) env steps, (\d+) s\)", cmeta["train_config"])
        r0_iters = int(safetensors(os.path.join(log, "round_0", "policy.safetensors"))[0]
                       ["train_steps"])
        check(chead and int(chead.group(1)) == int(m[0]["env_steps"]) and
              int(chead.group(2)) >= int(float(m[0]["elapsed_s"])) and
              int(chead.group(2)) <= secs + 1 and int(cmeta["train_steps"]) == r0_iters,
              f"round 1's clone metadata {cmeta['train_config'][:80]!r}, train_steps "
              f"{cmeta['train_steps']}: want {m[0]['env_steps']} env steps, between "
              f"{float(m[0]['elapsed_s']):.0f} and {secs:.0f} s, {r0_iters} iterations")

    # 2. the clone reproduces the searched pipelines
    for rnd in (0, 1):
        w = winners(os.path.join(log, f"round_{rnd}", "winners.tsv"))
        check(sorted(w) == [0, 1], f"round {rnd} winners cover modules {sorted(w)}")
        if rnd == 0:
            check("affine-loop-tile" in w.get(0, ""),
                  f"the search found no tiled recipe for the matmul: {w}; "
                  + " | ".join(re.findall(r"^round 0: module .*$", r.stderr, re.M)))
        for i, name in enumerate(modules):
            sel = subprocess.run([MQSS, "select", os.path.join(corpus, name), "--catalog", CATALOG,
                                  "--max-steps", "2", "--policy",
                                  os.path.join(log, f"round_{rnd}", "clone.safetensors")],
                                 capture_output=True, text=True, env=ENV)
            want = pruned(os.path.join(corpus, name), w.get(i, ""))
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
    # A measurement child runs in its own session, so killpg misses it; it
    # ends on its own once its parent is gone. train_state refuses to save
    # while a process of this run exists (pgrep), so wait for that.
    pattern = f"mqss train .*--log-dir {klog}"
    while time.time() < deadline and subprocess.run(
            ["pgrep", "-f", pattern], stdout=subprocess.DEVNULL).returncode == 0:
        time.sleep(0.2)
    done = sum(os.path.exists(os.path.join(klog, f"round_{k}", "row.csv")) for k in range(3))
    check(done >= 1, "the run to kill finished no round")
    before = open(first).read() if done else ""
    # ... carried to another directory (another machine) by
    # scripts/train_state.sh, which keeps what --resume needs and no more
    state, moved = os.path.join(TMP, "killed_state"), os.path.join(TMP, "killed_moved")
    tool = os.path.join(SRC, "scripts", "train_state.sh")
    sv = subprocess.run([tool, "save", klog, state], capture_output=True, text=True)
    rs = subprocess.run([tool, "restore", state, moved], capture_output=True, text=True)
    check(sv.returncode == 0 and rs.returncode == 0, f"train_state: {sv.stderr} {rs.stderr}")
    check(not os.path.exists(os.path.join(state, "round_0", "clone.bin")),
          "train_state saved a finished round's clone")
    r = train(cfg, "killed_moved", "--resume")
    check(r.returncode == 0 and f"resumed at round {done})" in r.stdout,
          f"the carried run did not resume at round {done}: {r.stdout} {r.stderr[-1000:]}")
    if r.returncode == 0:
        check([int(x["round"]) for x in rows("killed_moved")] == [0, 1, 2],
              f"rounds of the carried run: {rows('killed_moved')}")
    r = train(cfg, "killed", "--resume")
    check(r.returncode == 0, f"resume after SIGKILL failed: {r.stderr[-2000:]}")
    check(f"resumed at round {done})" in r.stdout, f"resumed at the wrong round ({done} done): {r.stdout}")
    if r.returncode == 0:
        check([int(x["round"]) for x in rows("killed")] == [0, 1, 2],
              f"rounds after the resume: {rows('killed')}")
        check(open(first).read() == before, "the resume rewrote a finished round")

    # 4. more rounds continue a finished run
    r = train(config("two", 3, budget=10), "two", "--resume")
    check(r.returncode == 0 and "3 rounds (resumed at round 2)" in r.stdout,
          f"raising expit.rounds did not continue the run: {r.stdout} {r.stderr[-1000:]}")

    # 5. SIGKILL in the middle of the search phase, damaged records, --resume
    shutil.copy(os.path.join(SRC, "tests", "lit", "Inputs", "math_chain.mlir"), corpus)
    with open(os.path.join(corpus, "train3.tsv"), "w") as f:
        f.write("\n".join(modules + ["math_chain.mlir"]) + "\n")
    cfg = config("mid", 1, manifest="train3.tsv", budget=4, ppo=0, holdout=False)
    r = train(cfg, "mid", env=dict(ENV, MQSS_EXPIT_KILL_AFTER="2"))
    check(r.returncode == -signal.SIGKILL, f"the kill hook did not kill: {r.returncode} {r.stderr[-500:]}")
    rdir = os.path.join(TMP, "mid", "round_0")
    prog = os.path.join(rdir, "search_progress.tsv")
    recs = records(prog) if os.path.exists(prog) else []
    check([m for m, *_ in recs] == [0, 1], f"records before the kill: {recs}")
    check(searched_now(r.stderr) == [0, 1], f"searched before the kill: {r.stderr[-500:]}")
    check(not os.path.exists(os.path.join(rdir, "winners.tsv")), "the killed search wrote winners.tsv")
    with open(prog) as f:
        kept, second = f.readline(), f.readline()
    kind, evals, rest = second.split("\t", 2)  # its evaluation count changed
    with open(prog, "w") as f:  # damage the second record, then a torn third
        f.write(kept + "\t".join((kind, str(int(evals) + 1), rest)) + "S\t4\t2\t9.5\t0")
    r = train(cfg, "mid", "--resume")
    check(r.returncode == 0, f"resume inside the search failed: {r.stderr[-2000:]}")
    check(searched_now(r.stderr) == [1, 2],
          f"the resumed run searched {searched_now(r.stderr)}, not the modules left (1, 2)")
    check("2 damaged or torn search records were dropped" in r.stderr,
          f"no warning about the dropped records: {r.stderr[-500:]}")
    with open(prog) as f:
        check(f.readline() == kept, "the resume rewrote the record of module 0")
    recs = records(prog)
    check(sorted(m for m, *_ in recs) == [0, 1, 2] and len(recs) == 3, f"records after the resume: {recs}")
    text, figs = fold(recs)
    check(open(os.path.join(rdir, "winners.tsv")).read() == text,
          "winners.tsv is not the fold of the recorded outcomes")
    m = rows("mid")
    for k, v in figs.items():
        got = float(m[0][k]) if m else None
        check(got is not None and abs(got - v) <= 1e-5 * abs(v),
              f"expit.csv {k} is {got}, the records give {v}")
    check(m and m[0]["modules_selected"] == "3", f"modules_selected: {m}")
    # the uninterrupted run, on the same cache: the same candidates
    r = train(cfg, "mid_straight")
    check(r.returncode == 0, f"uninterrupted run failed: {r.stderr[-2000:]}")
    srecs = records(os.path.join(TMP, "mid_straight", "round_0", "search_progress.tsv"))
    check([(m, k, e) for m, k, e, _ in srecs] == sorted((m, k, e) for m, k, e, _ in recs),
          f"outcomes differ from an uninterrupted run: {srecs} vs {recs}")

    def masked(path):
        """Module, decision count and pipeline of each winners.tsv line, its
        tile size masked: the confirmed speedup, and which of two tile sizes
        the confirmation names, are fresh paired measurements."""
        with open(path) as f:
            return [(x[0], x[2], re.sub(r"tile-size=\d+", "tile-size=N", x[-1]))
                    for x in (line.rstrip("\n").split("\t") for line in f)]
    straight = masked(os.path.join(TMP, "mid_straight", "round_0", "winners.tsv"))
    resumed = masked(os.path.join(rdir, "winners.tsv"))
    check(resumed == straight,
          f"winners differ from an uninterrupted run:\n{resumed}\n{straight}")
    sm = rows("mid_straight")
    for k in ("modules_searched", "search_evaluations", "winners", "modules_selected"):
        check(m and sm and m[0][k] == sm[0][k], f"{k}: resumed {m[0][k] if m else None}, "
              f"uninterrupted {sm[0][k] if sm else None}")

    # 6. one module per round: rotation, persistent winners, hold-out every 2
    cfg = config("rot", 3, manifest="train3.tsv", budget=4, ppo=0, bc=800,
                 more="  modules_per_round: 1\n  holdout_every: 2\n")
    r = train(cfg, "rot")
    check(r.returncode == 0, f"modules_per_round run failed: {r.stderr[-2000:]}")
    m = rows("rot") if r.returncode == 0 else []
    check([x["modules_selected"] for x in m] == ["1"] * 3, f"modules_selected: {m}")
    picked, before = [], {}
    for rnd in range(3):
        rdir = os.path.join(TMP, "rot", f"round_{rnd}")
        recs = records(os.path.join(rdir, "search_progress.tsv"))
        picked += [mod for mod, *_ in recs]
        check(len(recs) == 1 and searched_now(r.stderr, rnd) == [recs[0][0]],
              f"round {rnd} searched {recs}")
        with open(os.path.join(rdir, "winners.tsv")) as f:
            now = {int(line.split("\t")[0]): line for line in f}
        for mod, line in before.items():
            if mod not in [x for x, *_ in recs]:
                check(now.get(mod) == line, f"round {rnd} lost the winner of module {mod}")
        before = now
    check(sorted(picked) == [0, 1, 2], f"the rounds searched modules {picked}, not each once")
    check(sorted(before) == [0, 1, 2], f"the last round's winners cover {sorted(before)}")
    clone_selects_winners(os.path.join(TMP, "rot", "round_2", "clone.safetensors"), before,
                          [os.path.join(corpus, n) for n in modules + ["math_chain.mlir"]])
    check([x["holdout_speedup"] == "nan" for x in m] == [True, False, False],
          f"hold-out figures with holdout_every 2: {[x['holdout_speedup'] for x in m]}")

    # 7. seeds from family baselines
    with open(os.path.join(corpus, "fam.tsv"), "w") as f:
        f.write("# file\tfamily\nmm128.mlir\tmm\nmeasure_add.mlir\tadd\n")
    base = os.path.join(TMP, "baselines.yaml")
    with open(base, "w") as f:
        f.write('version: 1\nfamilies:\n  mm:\n    pipeline: "builtin.module('
                'func.func(convert-linalg-to-affine-loops),func.func(cse),func.func(cse),'
                'func.func(affine-loop-tile{tile-size=32}))"\n  add:\n    pipeline: ""\n')
    cfg = config("seeded", 1, manifest="fam.tsv", budget=2, ppo=0, bc=800, holdout=False,
                 more=f"  modules_per_round: 1\n  seed_baselines: {base}\n",
                 sub=[("max_steps: 2", "max_steps: 4")])
    r = train(cfg, "seeded")
    check(r.returncode == 0, f"seeded run failed: {r.stderr[-2000:]}")
    got = re.search(r"expit: seeds for (\d+) modules \((\d+) with a recipe action\), "
                    r"(\d+) decisions from (\d+) recipe steps \(no-op", r.stderr)
    # the recipe's 4 steps: the second cse changes nothing and is dropped
    check(got and got.group(1) == "1" and got.group(2) == "0" and got.group(4) == "4"
          and int(got.group(3)) <= 3, f"seeds reported: {got.groups() if got else r.stderr[-500:]}")
    check("1 whose baseline is no passes" in r.stderr,  # the add: its seed is STOP
          f"the add's empty baseline is not its seed: {r.stderr[-500:]}")
    rdir = os.path.join(TMP, "seeded", "round_0")
    recs = records(os.path.join(rdir, "search_progress.tsv")) if r.returncode == 0 else []
    check(len(recs) == 1, f"the seeded round searched {recs}")
    if recs and recs[0][0] == 0:  # the matmul: its winner is the seed
        chosen = winners(os.path.join(rdir, "winners.tsv")).get(0, "")
    else:  # the add: the clone imitates the matmul's seed
        chosen = subprocess.run([MQSS, "select", os.path.join(corpus, "mm128.mlir"), "--catalog",
                                 CATALOG, "--max-steps", "4", "--policy",
                                 os.path.join(rdir, "clone.safetensors")],
                                capture_output=True, text=True, env=ENV).stdout.strip()
    check("convert-linalg-to-affine-loops" in chosen and "affine-loop-tile{tile-size=32}" in chosen
          and chosen.count("cse") <= 1,
          f"the matmul's seed (searched: {recs}) did not come through: '{chosen}'")

    # 7b. the same with a catalog that has the matmul family's recipe as one
    # action (next to it, the same baselines file): the seed, or a winner
    # that is the seed, is cloned as that one decision
    rcat_dir = os.path.join(TMP, "recipes")
    os.makedirs(rcat_dir, exist_ok=True)
    shutil.copy(base, os.path.join(rcat_dir, "baselines.yaml"))
    rcat = os.path.join(rcat_dir, "catalog.yaml")
    with open(CATALOG) as f, open(rcat, "w") as g:
        g.write(f.read() + "  - name: recipe-mm\n    recipe: mm\n    requires: [linalg]\n"
                "    forbids: [affine]\n")
    r = train(cfg, "seeded_recipe", env=dict(ENV, MQSS_CATALOG=rcat))
    check(r.returncode == 0, f"seeded run with a recipe action failed: {r.stderr[-2000:]}")
    got = re.search(r"expit: seeds for (\d+) modules \((\d+) with a recipe action\)", r.stderr)
    check(got and got.groups() == ("1", "1"),
          f"recipe seeds reported: {got.groups() if got else r.stderr[-500:]}")
    sel = subprocess.run([MQSS, "select", os.path.join(corpus, "mm128.mlir"), "--catalog",
                          rcat, "--max-steps", "4", "--json", "--policy",
                          os.path.join(TMP, "seeded_recipe", "round_0", "clone.safetensors")],
                         capture_output=True, text=True, env=ENV)
    first = json.loads(sel.stdout)["decisions"][0]["action"] if sel.returncode == 0 else sel.stderr
    check(first == "recipe-mm", f"the clone's first decision on the matmul: {first}")
    # the matmul's seed is one; the add is another when it was the module
    # searched and its confirmed winner starts with the recipe action (the
    # catalog's last, index n_actions): tiling an add can measure faster
    n_actions = open(CATALOG).read().count("\n  - name:")
    add_first = [line.split("\t")[3].split(":")[0] for line in
                 open(os.path.join(TMP, "seeded_recipe", "round_0", "winners.tsv"))
                 if line.split("\t")[0] == "1" and int(line.split("\t")[2]) > 0]
    want = str(1 + (add_first == [str(n_actions)]))
    demos = [x["clone_recipe_demos"] for x in
             csv.DictReader(open(os.path.join(TMP, "seeded_recipe", "expit.csv")))]
    check(demos == [want], f"demonstrations cloned as a recipe: {demos}, not {want} "
          f"(the add's winner starts with {add_first})")

    # 7c. expit.seed_margin: a carried winner of the matmul (tile 16, not the
    # seed's 32) that is not confirmed 11x faster than the seed is cloned as
    # the seed, so as its recipe action; outside expit.families it stands
    zeros = ",".join(["0x0p+0"] * 7)
    carried = os.path.join(TMP, "tile16_winner.tsv")
    with open(carried, "w") as f:
        f.write(f"0\t1.5\t2\t1:0x0p+0,{zeros}\t2:-0x1p+0,{zeros}\tbuiltin.module("
                "func.func(convert-linalg-to-affine-loops),func.func(affine-loop-tile"
                "{tile-size=16}))\n")
    for margin, fams, kept, first_want in (("0", "", "0", "linalg-to-affine"),
                                           ("10", "", "1", "recipe-mm"),
                                           ("10", "add", "0", "linalg-to-affine")):
        name = f"seed_margin_{margin}_{fams}"
        cfg = config(name, 1, manifest="fam.tsv", budget=0, ppo=0, bc=800, holdout=False,
                     more=f"  seed_baselines: {base}\n  winners_from: {carried}\n"
                          f"  seed_margin: {margin}\n  families: \"{fams}\"\n",
                     sub=[("max_steps: 2", "max_steps: 4")])
        r = train(cfg, name, env=dict(ENV, MQSS_CATALOG=rcat))
        check(r.returncode == 0, f"seed_margin {margin} run failed: {r.stderr[-2000:]}")
        m = rows(name) if r.returncode == 0 else [{}]
        check(m[0].get("clone_seeds_kept") == kept and
              f"({kept} winners cloned as their seed)" in r.stderr,
              f"seed_margin {margin}, families '{fams}': winners cloned as their seed: {m}")
        sel = subprocess.run([MQSS, "select", os.path.join(corpus, "mm128.mlir"), "--catalog",
                              rcat, "--max-steps", "4", "--json", "--policy",
                              os.path.join(TMP, name, "round_0", "clone.safetensors")],
                             capture_output=True, text=True, env=ENV)
        first = (json.loads(sel.stdout)["decisions"][0]["action"] if sel.returncode == 0
                 else sel.stderr)
        check(first == first_want,
              f"seed_margin {margin}, families '{fams}': the clone's first decision: {first}")

    # 7c'. the same against an empty baseline: the add's carried winner
    # (linalg to affine loops) is not confirmed 11x faster than no passes, so
    # it is cloned as STOP, no decisions
    carried_add = os.path.join(TMP, "add_winner.tsv")
    with open(carried_add, "w") as f:
        f.write(f"1\t1.5\t1\t1:0x0p+0,{zeros}\tbuiltin.module("
                "func.func(convert-linalg-to-affine-loops))\n")
    cfg = config("seed_margin_stop", 1, manifest="fam.tsv", budget=0, ppo=0, bc=50,
                 holdout=False, more=f"  seed_baselines: {base}\n  winners_from: {carried_add}\n"
                                     f"  seed_margin: 10\n  families: \"add\"\n")
    r = train(cfg, "seed_margin_stop")
    check(r.returncode == 0, f"seed_margin against no passes failed: {r.stderr[-2000:]}")
    m = rows("seed_margin_stop") if r.returncode == 0 else [{}]
    cloned = (winners(os.path.join(TMP, "seed_margin_stop", "round_0", "cloned.tsv"))
              if r.returncode == 0 else {})
    check(m[0].get("clone_seeds_kept") == "1" and cloned.get(1) == "",
          f"the add's winner was not cloned as STOP: {m}, demonstrations {cloned}")

    # 7d. expit.families: the rounds search only the named families' modules
    for fams, want in (("add", [1]), ("add mm", [0, 1])):
        name = "families_" + fams.replace(" ", "_")
        cfg = config(name, 1, manifest="fam.tsv", budget=2, ppo=0, bc=50, holdout=False,
                     more=f'  families: "{fams}"\n')
        r = train(cfg, name)
        check(r.returncode == 0, f"families '{fams}' run failed: {r.stderr[-2000:]}")
        recs = (records(os.path.join(TMP, name, "round_0", "search_progress.tsv"))
                if r.returncode == 0 else [])
        check(sorted(mod for mod, *_ in recs) == want,
              f"families '{fams}' searched modules {recs}, not {want}")
    # 7e. expit.compile_limit in the search: the add, whose baseline is no
    # passes, gets exactly 1 + L times its time without passes; the matmul
    # 1 + L times its seed's (tiled loops), whatever that measures
    cfg = config("search_limit", 1, manifest="fam.tsv", budget=2, ppo=0, bc=50, holdout=False,
                 more=f"  seed_baselines: {base}\n  seed_margin: 0.05\n  compile_limit: 0.5\n",
                 sub=[("max_steps: 2", "max_steps: 4")])
    r = train(cfg, "search_limit")
    check(r.returncode == 0, f"search with a compile-time limit failed: {r.stderr[-2000:]}")
    limits = dict(re.findall(r"searched: #\d+ \S+/(\w+)\.mlir: \d+ evaluations \(\d+ over the "
                             r"compile-time limit, ([0-9.]+)x its time without passes\)", r.stderr))
    check(limits.get("measure_add") == "1.50" and float(limits.get("mm128", "0")) > 0,
          f"the searches' compile-time limits: {limits}: {r.stderr[-1500:]}")
    cfg = config("families_bad", 1, manifest="fam.tsv", budget=2, ppo=0, holdout=False,
                 more='  families: "add nope"\n')
    r = train(cfg, "families_bad")
    check(r.returncode != 0 and "expit.families names 'nope'" in r.stderr and
          "fam.tsv" in r.stderr, f"an unknown family was not named: {r.stderr[-500:]}")

    # 8. cloning only, from an earlier run's winners, with the MLP network
    src = os.path.join(TMP, "rot", "round_2", "winners.tsv")
    cfg = config("clone_only", 1, manifest="train3.tsv", budget=0, ppo=0, bc=800,
                 holdout=False, more=f"  winners_from: {src}\n",
                 sub=[("arch: gnn", "arch: mlp")])
    r = train(cfg, "clone_only")
    check(r.returncode == 0, f"clone-only run failed: {r.stderr[-2000:]}")
    rdir = os.path.join(TMP, "clone_only", "round_0")
    progress = os.path.join(rdir, "search_progress.tsv")
    check(searched_now(r.stderr) == [] and
          (not os.path.exists(progress) or records(progress) == []),
          f"search_budget 0 searched: {r.stderr[-1000:]}")
    with open(src) as f, open(os.path.join(rdir, "winners.tsv")) as g:
        check(f.read() == g.read(), "the clone-only round did not keep the winners it started from")
    m = rows("clone_only") if r.returncode == 0 else []
    with open(src) as f:
        n_won = sum(int(line.split("\t")[2]) > 0 for line in f)
    check(m and m[0]["modules_searched"] == "0" and m[0]["winners"] == str(n_won),
          f"clone-only row ({n_won} winners given): {m}")
    check(os.path.exists(os.path.join(TMP, "clone_only", "expit.png")) and
          "gnuplot failed" not in r.stderr,
          f"expit.png of a run without search, PPO or hold-out: {r.stderr[-500:]}")
    clone_selects_winners(os.path.join(rdir, "clone.safetensors"), before,
                          [os.path.join(corpus, n) for n in modules + ["math_chain.mlir"]])
    bad = os.path.join(TMP, "bad_winners.tsv")
    with open(bad, "w") as f:
        f.write("7\tnot a winner\n")
    cfg = config("bad_from", 1, manifest="train3.tsv", budget=0, ppo=0, holdout=False,
                 more=f"  winners_from: {bad}\n")
    r = train(cfg, "bad_from")
    check(r.returncode != 0 and f"{bad}:1:" in r.stderr,
          f"a bad winners_from file was not named with its line: {r.stderr[-500:]}")
    with open(bad, "w") as f:  # action 9 of a four-action catalog
        f.write(f"0\t1.5\t1\t9:0x0p+0,{zeros}\tbuiltin.module(func.func(cse))\n")
    r = train(cfg, "bad_from")
    check(r.returncode != 0 and f"{bad}: the winner of module 0" in r.stderr and
          "outside this catalog of 4 actions" in r.stderr,
          f"a winner with an action outside the catalog: {r.stderr[-500:]}")

    # expit.bc_only: only affine-tile's output rows learn (network action 1:
    # the catalog without STOP; its one parameter slot is slot 0)
    cfg = config("bc_only", 1, manifest="train3.tsv", budget=0, ppo=0, holdout=False,
                 more=f'  winners_from: {src}\n  bc_only: "affine-tile"\n')
    r = train(cfg, "bc_only")
    check(r.returncode == 0, f"bc_only run failed: {r.stderr[-2000:]}")
    if r.returncode == 0:
        rdir = os.path.join(TMP, "bc_only", "round_0")
        diff = changed_rows(os.path.join(rdir, "start.safetensors"),
                            os.path.join(rdir, "clone.safetensors"))
        check(set(diff) <= {"pi.weight", "pi.bias", "mu.weight", "mu.bias", "log_std"} and
              all(rows == [1] for name, rows in diff.items() if name.startswith("pi.")) and
              all(rows == [0] for name, rows in diff.items() if not name.startswith("pi.")) and
              "pi.weight" in diff, f"bc_only changed more than affine-tile's rows: {diff}")
    cfg = config("bc_only_bad", 1, manifest="train3.tsv", budget=0, ppo=0, holdout=False,
                 more=f'  winners_from: {src}\n  bc_only: "affine-tile nope"\n')
    r = train(cfg, "bc_only_bad")
    check(r.returncode != 0 and "expit.bc_only names 'nope'" in r.stderr and
          not os.path.exists(os.path.join(TMP, "bc_only_bad", "round_0")),
          f"an unknown bc_only action was not named before the run: {r.stderr[-500:]}")

    print(f"{passed} passed, {len(failures)} failed")
    if not failures:
        shutil.rmtree(TMP)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
