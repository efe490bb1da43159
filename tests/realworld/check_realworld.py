#!/usr/bin/env python3
"""Real-module coverage: every tests/realworld/*.mlir through the CLI.

Each module names its upstream reference in a header line
`// UPSTREAM: RECIPE[, ENTRY]` (RECIPE is a key of RECIPES below, ENTRY the
function mlir-cpu-runner runs, default main). NAME.expected next to it is
what `mlir-opt-19 --pass-pipeline=RECIPE | mlir-cpu-runner-19 -e ENTRY`
printed; `--regen` rewrites those files from upstream alone (mqss is not
involved). For each module the test then runs

  1. `mqss opt --finish`, runs the result with mlir-cpu-runner;
  2. `mqss measure` (entry found by mqss itself), which must report ok;
  3. `mqss select`, then `mqss opt --pipeline CHOSEN --finish` and runs it;
  4. `mqss compile --guard -o OUT.mlir`, runs OUT.mlir;

and compares every printed number of 1, 3 and 4 with NAME.expected. The
modules in REJECTED must instead fail in all four commands with a message
that contains the given text, so the test fails both when a module that
should work breaks and when a rejected one is suddenly accepted.

--live RECIPE: a module without an UPSTREAM header is compared with what
upstream prints now under RECIPE (no NAME.expected); ctest `examples` runs
examples/ this way with the recipe of examples/README.md.
--search N: also runs `mqss search --method greedy --budget N` (long; not
in ctest) and checks that it exits 0 and that its best and winning
pipelines, lowered by `mqss opt --finish`, print the expected numbers.

usage: check_realworld.py MQSS_BINARY DIR [--regen] [--live RECIPE]
                          [--search N] [NAME...]
"""
import glob
import json
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "finish"))
from check_stages import BIN, LIBS, OP, close, numbers, run  # noqa: E402

BASE = ("func.func(convert-elementwise-to-linalg),"
        "one-shot-bufferize{bufferize-function-boundaries "
        "function-boundary-type-conversion=identity-layout-map},"
        "func.func(convert-linalg-to-loops),func.func(lower-vector-mask),"
        "func.func(convert-vector-to-scf),expand-strided-metadata,lower-affine,"
        "convert-scf-to-cf,convert-vector-to-llvm,convert-complex-to-standard,"
        "convert-math-to-funcs,convert-math-to-llvm,convert-math-to-libm,"
        "convert-complex-to-llvm,finalize-memref-to-llvm,convert-index-to-llvm,"
        "convert-arith-to-llvm,convert-func-to-llvm,convert-cf-to-llvm,"
        "reconcile-unrealized-casts")
HERE = os.path.dirname(os.path.abspath(__file__))
RECIPES = {
    "base": BASE,
    "tosa": "func.func(tosa-to-linalg-named,tosa-to-linalg,tosa-to-arith,"
            "tosa-to-tensor)," + BASE,
    "transform": "transform-interpreter,test-transform-dialect-erase-schedule,"
                 + BASE,
    "decompose-softmax": "transform-preload-library{transform-library-paths="
                         + os.path.join(HERE, "lib", "decompose_softmax.mlir")
                         + "},transform-interpreter," + BASE,
    # examples/README.md's lowering recipe (docs/DESIGN.md).
    "examples": "one-shot-bufferize{bufferize-function-boundaries "
                "function-boundary-type-conversion=identity-layout-map},"
                "func.func(convert-linalg-to-loops),lower-affine,"
                "convert-scf-to-cf,convert-math-to-llvm,convert-math-to-libm,"
                "expand-strided-metadata,finalize-memref-to-llvm,"
                "convert-arith-to-llvm,convert-func-to-llvm,convert-cf-to-llvm,"
                "reconcile-unrealized-casts",
}

# Modules mqss must reject, and the text every rejection must contain.
REJECTED = {
    "gpu_launch.mlir": "the gpu dialect",
}

HEADER = re.compile(r"^// UPSTREAM: ([a-z-]+)(?:, (\w+))?$", re.M)


def header(path):
    m = HEADER.search(open(path).read())
    return (m.group(1), m.group(2) or "main") if m else (None, "main")


# A selection may thread the module (omp-parallel, parallel-tile-named):
# its code calls libomp, which the sandbox loads too (src/measure/omp_pool.c).
OMP = "/usr/lib/llvm-19/lib/libomp.so.5"


def execute(lowered, entry):
    r = run([f"{BIN}/mlir-cpu-runner", "-e", entry, "-entry-point-result=void",
             f"-shared-libs={LIBS},{OMP}"], lowered)
    return r.returncode, r.stdout + r.stderr


def upstream(path, recipe, entry):
    r = run([f"{BIN}/mlir-opt", path,
             f"--pass-pipeline=builtin.module({RECIPES[recipe]})"])
    if r.returncode != 0:
        return None, r.stderr
    rc, out = execute(r.stdout, entry)
    return (out if rc == 0 else None), out


def compare(lowered, entry, want):
    """None when `lowered` runs and prints `want`'s numbers, else why not."""
    left = sorted({d for d in OP.findall(lowered) if d not in ("llvm", "builtin")})
    if left:
        return f"non-LLVM dialects remain: {left}"
    rc, out = execute(lowered, entry)
    if rc != 0:
        return f"run failed: {out.strip()[:300]}"
    got = numbers(out)
    if len(got) == len(want) and all(map(close, got, want)):
        return None
    bad = next((i for i, (a, b) in enumerate(zip(got, want)) if not close(a, b)),
               min(len(got), len(want)))
    return (f"output differs from upstream at number {bad} "
            f"(got {len(got)} numbers, want {len(want)})")


def check_module(mqss, path, entry, tmp, want):
    """List of (command, error or None) for one module that must work and
    print the numbers `want`."""
    results = []
    r = run([mqss, "opt", path, "--finish"])
    results.append(("opt --finish", r.stderr.strip() if r.returncode else
                    compare(r.stdout, entry, want)))
    r = run([mqss, "measure", path, "--warmup", "0", "--repeat", "1",
             "--no-code-size", "--cache", os.path.join(tmp, "measure.sqlite")])
    results.append(("measure", None if r.returncode == 0 and
                    r.stdout.startswith("status: ok") else
                    (r.stdout + r.stderr).strip()[:300]))
    r = run([mqss, "select", path])
    if r.returncode != 0:
        results.append(("select", r.stderr.strip()[:300]))
    else:
        chosen = r.stdout.strip()
        o = run([mqss, "opt", path, "--pipeline", chosen, "--finish"])
        results.append((f"select ({chosen})", o.stderr.strip()[:300]
                        if o.returncode else compare(o.stdout, entry, want)))
    out = os.path.join(tmp, os.path.basename(path))
    r = run([mqss, "compile", path, "--guard", "--cache-dir", tmp, "-o", out])
    used = re.search(r"^guard: (\w+) pipeline", r.stderr, re.M)
    results.append((f"compile --guard ({used.group(1) if used else '?'})",
                    r.stderr.strip()[:300] if r.returncode
                    else compare(open(out).read(), entry, want)))
    return results


def check_search(mqss, path, entry, tmp, want, budget):
    """Greedy search must exit 0; its best and winning pipelines (when not
    the reference) must print `want`."""
    r = run([mqss, "search", "--method", "greedy", "--budget", str(budget),
             path, "--json", "--cache", os.path.join(tmp, "search.sqlite")],
            timeout=1800)
    if r.returncode != 0:
        return [("search", (r.stdout + r.stderr).strip()[:300])]
    res = json.loads(r.stdout)
    results = []
    for key in ("best_pipeline", "winner_pipeline"):
        pipe = res.get(key) or ""
        if not pipe:
            continue
        o = run([mqss, "opt", path, "--pipeline", pipe, "--finish"])
        results.append((f"search {key} ({pipe})", o.stderr.strip()[:300]
                        if o.returncode else compare(o.stdout, entry, want)))
    failed = res.get("failures_by_status") or {}
    results.append((f"search (greedy {budget}: {res['evaluations']} evaluations,"
                    f" candidate failures {failed or 'none'})", None))
    return results


def expected_numbers(path, recipe, entry, live):
    """(numbers, None) the module must print, or (None, why not)."""
    if live:
        out, err = upstream(path, recipe, entry)
        return (numbers(out), None) if out is not None else \
            (None, f"upstream failed: {err.strip()[:300]}")
    if not os.path.exists(path[:-5] + ".expected"):
        return None, ("no .expected file; run with --regen, or list the "
                      "module in REJECTED")
    return numbers(open(path[:-5] + ".expected").read()), None


def check_rejected(mqss, path, must_say, tmp):
    """Every command must fail and name the unsupported construct."""
    cmds = {
        "opt --finish": [mqss, "opt", path, "--finish"],
        "measure": [mqss, "measure", path, "--warmup", "0", "--repeat", "1",
                    "--no-cache"],
        "select": [mqss, "select", path],
        "compile --guard": [mqss, "compile", path, "--guard", "--cache-dir",
                            tmp, "-o", os.path.join(tmp, "rejected.mlir")],
    }
    results = []
    for what, cmd in cmds.items():
        r = run(cmd)
        said = r.stdout + r.stderr
        if r.returncode == 0:
            results.append((what, f"accepted; expected a rejection naming "
                                  f"'{must_say}'"))
        elif must_say not in said:
            results.append((what, f"rejected without naming '{must_say}': "
                                  f"{said.strip()[:300]}"))
        else:
            results.append((what, None))
    return results


def main():
    args, regen, live, search = [], False, None, 0
    argv = iter(sys.argv[1:])
    for a in argv:
        if a == "--regen":
            regen = True
        elif a == "--live":
            live = next(argv, None)
        elif a == "--search":
            search = int(next(argv, "0"))
        else:
            args.append(a)
    if live is not None and live not in RECIPES:
        sys.exit(f"--live: unknown recipe {live!r}; one of {sorted(RECIPES)}")
    mqss, directory, only = args[0], args[1], set(args[2:])
    files = sorted(f for f in glob.glob(os.path.join(directory, "*.mlir"))
                   if not only or os.path.basename(f) in only)
    if not files:
        sys.exit(f"no modules in {directory}")
    worked = rejected = failed = 0
    with tempfile.TemporaryDirectory(prefix="mqss-realworld-") as tmp:
        for f in files:
            name = os.path.basename(f)
            recipe, entry = header(f)
            use_live = live is not None and recipe is None
            if use_live:
                recipe = live
            if name in REJECTED:
                results = [] if regen else check_rejected(mqss, f,
                                                          REJECTED[name], tmp)
            elif recipe not in RECIPES:
                results = [("header", f"no '// UPSTREAM: RECIPE' line naming "
                                      f"one of {sorted(RECIPES)}")]
            elif regen and not use_live:
                out, err = upstream(f, recipe, entry)
                if out is None:
                    results = [("upstream", err.strip()[:300])]
                else:
                    # The heap address changes from run to run.
                    open(f[:-5] + ".expected", "w").write(
                        re.sub(r"base@ = 0x[0-9a-f]+", "base@ = ADDR", out))
                    results = []
            else:
                want, why = expected_numbers(f, recipe, entry, use_live)
                if want is None:
                    results = [("expected", why)]
                else:
                    results = check_module(mqss, f, entry, tmp, want)
                    if search:
                        results += check_search(mqss, f, entry, tmp, want,
                                                search)
            errors = [(w, e) for w, e in results if e]
            for what, err in errors:
                print(f"FAIL {name} [{what}]: {err}")
            if errors:
                failed += 1
            elif name in REJECTED:
                rejected += 1
                print(f"ok   {name}: rejected, naming '{REJECTED[name]}'")
            else:
                worked += 1
                print(f"ok   {name}: " + "; ".join(w for w, _ in results))
    total = worked + rejected + failed
    print(f"{worked}/{total} work end to end, {rejected} rejected as listed, "
          f"{failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
