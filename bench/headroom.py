#!/usr/bin/env python3
"""Search headroom report (run by bench/headroom.sh; docs/BENCHMARKS.md).

Modules: examples/*.mlir (no family: their baseline is the reference) and the
first K modules of each family of a corpus (baseline: the family's pipeline
from the corpus's baseline.json, made by `mqss baseline`). For each module
and each search method:

  1. mqss search --method M --budget B FILE --json: every candidate's
     outputs are checked against the reference; the winner is the fastest
     candidate whose speedup over the reference is confirmed by interleaved
     pairs ("" when none is: the reference stands);
  2. mqss measure FILE --pipeline BASELINE --vs WINNER --json: interleaved
     pairs of baseline and winner, both output-checked, give the speedup
     over the baseline (Hodges-Lehmann), and each side's compile time and
     .text bytes.

It prints a per-module table, geomeans over the baselines and over the
reference (matmul-class families apart), the p95 compile time and code size
of winners and baselines, whether every output checked correct, and the
machine and commit.

usage: headroom.py MQSS COMMIT [--budget N] [--methods random,greedy]
                   [--per-family K] [--corpus DIR] [--families a,b]
                   [--no-examples] [--repeat R] [--confirm P] [--out DIR]
                   [--timeout-ms MS]

Geomeans and p95 figures cover the rows whose outputs both checked correct.
"""
import argparse
import glob
import json
import math
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from peak import cpu_model  # noqa: E402

# Families whose modules are dominated by contractions (issue 12's target:
# >= 1.5x over their baselines).
MATMUL_CLASS = {"matmul_chain", "mlp", "attention", "transformer",
                "poly_blas3"}


def run(cmd, timeout):
    return subprocess.run(cmd, capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT)


def run_json(cmd, timeout):
    p = run(cmd, timeout)
    try:
        return json.loads(p.stdout), ""
    except json.JSONDecodeError:
        return None, (p.stderr.strip().splitlines() or ["no output"])[-1][:160]


def corpus_modules(mqss, corpus, out, per_family, families):
    """[(path, family, baseline pipeline)], generating what is missing."""
    if not corpus and os.path.exists(os.path.join(out, "corpus", "manifest.tsv")):
        corpus = os.path.join(out, "corpus")  # an earlier run with this OUT
    if not corpus:
        corpus = os.path.join(out, "corpus")
        # Candidate i belongs to family i mod 17 and the line-count filter
        # drops some: 40 per module wanted leaves K for every family.
        cmd = [mqss, "corpus", "gen", "--out", corpus, "--seed", "0",
               "--count", str(per_family * 40), "--min-holdout", "0"]
        if families:
            cmd += ["--families", families]
        p = run(cmd, 3600)
        if p.returncode:
            sys.exit("headroom: corpus gen failed: " + p.stderr.strip())
    manifest = os.path.join(corpus, "manifest.tsv")
    picked, count = [], {}
    with open(manifest) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            name, fam = line.split("\t")[:2]
            if families and fam not in families.split(","):
                continue
            if count.get(fam, 0) < per_family:
                count[fam] = count.get(fam, 0) + 1
                picked.append((name, fam))
    short = sorted(f for f in set(fam for _, fam in picked) | set(
        families.split(",") if families else []) if count.get(f, 0) < per_family)
    if short:
        print("# fewer than %d modules in the corpus for: %s" % (
            per_family, ", ".join(short)))
    baseline = os.path.join(corpus, "baseline.json")
    if not os.path.exists(baseline):  # made by an earlier run with this OUT?
        baseline = os.path.join(out, "baseline.json")
    if not os.path.exists(baseline):
        # Only the picked modules: links to them and their manifest in OUT
        # (the manifest's file names are relative to its directory).
        sub = os.path.join(out, "picked")
        os.makedirs(sub, exist_ok=True)
        with open(os.path.join(sub, "manifest.tsv"), "w") as f:
            f.write("# file\tfamily\n")
            for name, fam in picked:
                link = os.path.join(sub, name)
                if not os.path.exists(link):
                    os.symlink(os.path.join(os.path.abspath(corpus), name), link)
                f.write("%s\t%s\n" % (name, fam))
        sub = os.path.join(sub, "manifest.tsv")
        baseline = os.path.join(out, "baseline.json")
        p = run([mqss, "baseline", sub, "-o", baseline, "--baselines",
                 os.path.join(ROOT, "data", "baselines.yaml"),
                 "--workers", "1"], 36000)
        if p.returncode:
            sys.exit("headroom: baseline failed: " + p.stderr.strip())
    with open(baseline) as f:
        base = json.load(f)
    mods = []
    for name, fam in picked:
        entry = base.get(name) or {}
        mods.append((os.path.join(corpus, name), fam, entry.get("pipeline", "")))
    return mods


def evaluate(mqss, path, baseline, method, a):
    """One row: search, then winner vs baseline."""
    common = ["--repeat", str(a.repeat), "--warmup", "1", "--timeout",
              str(a.timeout_ms)]
    s, err = run_json([mqss, "search", "--method", method, "--budget",
                       str(a.budget), path, "--json", "--confirm",
                       str(a.confirm)] + common, 36000)
    if s is None:
        return {"error": "search: " + err}
    winner = s.get("winner_pipeline") or ""
    m, err = run_json([mqss, "measure", path, "--json", "--no-cache",
                       "--pipeline", baseline, "--vs", winner,
                       "--repeat", str(max(a.confirm, 6)),
                       "--timeout", str(a.timeout_ms)], 7200)
    if m is None:
        return {"error": "measure: " + err}
    ratio = (m.get("ratio_b_over_a") or {}).get("hl") or 1.0
    return {
        "vs_ref": s.get("confirmed_speedup") or 1.0,
        "vs_base": 1.0 / ratio if ratio > 0 else float("nan"),
        "checked": m["a"]["status"] == "ok" and m["b"]["status"] == "ok",
        "status": "%s/%s" % (m["a"]["status"], m["b"]["status"]),
        "comp": (m["b"]["compile_ms"], m["a"]["compile_ms"]),
        "text": (m["b"]["text_bytes"], m["a"]["text_bytes"]),
        "failures": s.get("failures", 0),
        "winner": winner,
    }


def load_rows(path):
    """Rows of an earlier run with this OUT, by (module path, method): a
    second run resumes where the first stopped. A torn last line (no
    newline) is dropped and measured again."""
    rows = {}
    if not os.path.exists(path):
        return rows
    with open(path) as f:
        lines = [l for l in f if l.endswith("\n")]
    with open(path, "w") as f:
        f.writelines(lines)
    for line in lines:
        r = json.loads(line)
        rows[(r["path"], r["method"])] = r
    return rows


def geomean(xs):
    xs = [x for x in xs if x and x > 0 and not math.isnan(x)]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")


def fmt(x):
    return "-" if math.isnan(x) else "%.3fx" % x


def p95(xs):
    xs = sorted(x for x in xs if x is not None)
    if not xs:
        return float("nan")
    return xs[min(len(xs) - 1, int(math.ceil(0.95 * len(xs))) - 1)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mqss")
    ap.add_argument("commit")
    ap.add_argument("--budget", type=int, default=60)
    ap.add_argument("--methods", default="random,greedy")
    ap.add_argument("--per-family", type=int, default=2)
    ap.add_argument("--corpus")
    ap.add_argument("--families", default="")
    ap.add_argument("--no-examples", action="store_true")
    ap.add_argument("--examples", default="",
                    help="comma-separated example names (file stems); default all")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--confirm", type=int, default=10)
    ap.add_argument("--out")
    ap.add_argument("--timeout-ms", type=int, default=300000,
                    help="limit of one measurement (a loaded machine "
                         "compiles a corpus module for minutes)")
    a = ap.parse_args()
    mqss = os.path.abspath(a.mqss)
    out = a.out or tempfile.mkdtemp(prefix="mqss-headroom-")
    os.makedirs(out, exist_ok=True)
    os.environ.setdefault("MQSS_CATALOG", os.path.join(ROOT, "data", "catalog.yaml"))
    os.environ.setdefault("MQSS_SCHEDULE_DIR", os.path.join(out, "schedules"))

    wanted = set(a.examples.split(",")) - {""}
    mods = [] if a.no_examples else [
        (p, "example", "") for p in sorted(glob.glob(os.path.join(ROOT, "examples", "*.mlir")))
        if not wanted or os.path.basename(p)[:-5] in wanted]
    mods += corpus_modules(mqss, a.corpus, out, a.per_family, a.families)
    # The target's rows first, so a run cut short still answers it.
    mods.sort(key=lambda m: (m[1] not in MATMUL_CLASS, m[1] != "example"))
    done = load_rows(os.path.join(out, "rows.jsonl"))

    print("# bench/headroom.sh: mqss search over examples and corpus modules")
    print("# machine: %s, %d cpus; commit %s; budget %d, %d timed runs, %d "
          "confirmation pairs; work dir %s" % (cpu_model(), os.cpu_count() or 0,
                                               a.commit, a.budget, a.repeat,
                                               a.confirm, out))
    print("%-44s %-13s %-6s %7s %7s %9s %9s %8s %8s  %s" % (
        "module", "family", "method", "vs_ref", "vs_base", "comp_ms", "base_ms",
        "text_B", "base_B", "check"))
    rows = []
    for path, fam, base in mods:
        for method in a.methods.split(","):
            r = done.get((path, method))
            if r is None:
                r = evaluate(mqss, path, base, method, a)
                r.update(module=os.path.basename(path), family=fam,
                         method=method, path=path)
                with open(os.path.join(out, "rows.jsonl"), "a") as f:
                    f.write(json.dumps(r) + "\n")
            rows.append(r)
            if "error" in r:
                print("%-44s %-13s %-6s %s" % (r["module"], fam, method, r["error"]))
            else:
                print("%-44s %-13s %-6s %6.2fx %6.2fx %9.1f %9.1f %8d %8d  %s" % (
                    r["module"][:44], fam, method, r["vs_ref"], r["vs_base"],
                    r["comp"][0], r["comp"][1], r["text"][0], r["text"][1],
                    r["status"]))
            sys.stdout.flush()

    ok = [r for r in rows if "error" not in r and r["checked"]]
    print()
    print("%-6s %-22s %8s %8s %4s" % ("method", "group", "vs_base", "vs_ref", "n"))
    groups = [("all", lambda r: True),
              ("matmul-class families", lambda r: r["family"] in MATMUL_CLASS),
              ("other families", lambda r: r["family"] not in MATMUL_CLASS
               and r["family"] != "example"),
              ("examples", lambda r: r["family"] == "example")]
    for method in a.methods.split(","):
        for label, keep in groups:
            sel = [r for r in ok if r["method"] == method and keep(r)]
            print("%-6s %-22s %8s %8s %4d" % (
                method, label, fmt(geomean([r["vs_base"] for r in sel])),
                fmt(geomean([r["vs_ref"] for r in sel])), len(sel)))
    print()
    print("p95 compile ms: winners %.1f, baselines %.1f; p95 .text bytes: "
          "winners %.0f, baselines %.0f (over %d rows)" % (
              p95([r["comp"][0] for r in ok]), p95([r["comp"][1] for r in ok]),
              p95([r["text"][0] for r in ok]), p95([r["text"][1] for r in ok]),
              len(ok)))
    bad = [r for r in rows if "error" in r or not r["checked"]]
    if bad:
        print("outputs: NOT all checked correct: " + ", ".join(
            "%s/%s (%s)" % (r["module"], r["method"], r.get("error") or r["status"])
            for r in bad))
    else:
        print("outputs: every winner and baseline matched the reference "
              "(%d rows; search failures caught and never chosen: %d)" % (
                  len(rows), sum(r["failures"] for r in rows)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
