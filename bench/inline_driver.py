#!/usr/bin/env python3
"""Whether the policy's `inline` step gains less when @main builds the inputs.

In the corpus a module's public @forward takes its buffers as arguments; the
hand-written examples instead have a @main that builds the inputs, calls a
public kernel and prints checksums. On the int8 convolution example the
policy's last step, `inline`, made the program 1.63x slower
(docs/eval/README.md). This asks whether that is a property of the driver
form, which the policy never sees in training, or of that one module.

For PER_FAMILY modules of each family in FAMILIES (the first ones of
MANIFEST), it writes a driver copy (wrap() below: @forward renamed @kernel,
a @main that fills each argument with a fixed pattern of the harness's value
ranges, calls @kernel, and prints a plain and a position-weighted sum of
each result and memref argument), selects a pipeline with the policy for
both forms, and where the selection holds a top-level `inline`, measures
the gain of that step: the selected pipeline against the same without
`inline` (`mqss measure --vs`, PAIRS interleaved pairs, outputs checked), in
each form. A gain below 1 means inlining made the module slower. Prints the
machine, the commit and the date. Run it alone on a quiet machine.

usage: bench/inline_driver.py MANIFEST MODULE_DIR [BUILD_DIR]
  env: FAMILIES=a,b (default conv2d,qconv_layer,poly_blas3,matmul_layer,
  mlp), PER_FAMILY (2), PAIRS (10), POLICY (models/default.safetensors),
  OUT (directory for the driver copies, default /tmp/mqss-drivers).
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vs_line import geomean_line, header, measure_vs  # noqa: E402

PRIMES = [7, 11, 13, 17, 19, 23]
ACC = {"f32": "f32", "f64": "f64", "i8": "i32", "i32": "i32"}
PRINT = {"f32": "printMemrefF32", "f64": "printMemrefF64", "i32": "printMemrefI32"}


def shaped(t):
    """("tensor" | "memref", [dims], element type) of a static shaped type."""
    m = re.fullmatch(r"(tensor|memref)<((?:\d+x)*)(f32|f64|i8|i32)>", t.strip())
    if not m:
        sys.exit(f"unsupported @forward type '{t}'")
    return m.group(1), [int(d) for d in m.group(2).split("x") if d], m.group(3)


def maps(rank, *outs):
    d = ",".join(f"d{i}" for i in range(rank))
    ident = f"affine_map<({d}) -> ({d})>"
    return ", ".join([ident] + [f"affine_map<({d}) -> ({o})>" for o in outs])


def index_hash(rank, base):
    """Body lines computing base + sum_d index_d * PRIMES[d] into %h<rank>."""
    out = [f"    %h0 = arith.constant {base} : index"]
    for d in range(rank):
        out += [f"    %x{d} = linalg.index {d} : index",
                f"    %p{d} = arith.constant {PRIMES[d % 6]} : index",
                f"    %m{d} = arith.muli %x{d}, %p{d} : index",
                f"    %h{d + 1} = arith.addi %h{d}, %m{d} : index"]
    return out


def fill(i, t):
    """Lines defining %in<i>: floats on [-1, 1) in steps of 2^-10, integers on
    [-8, 7], the harness's ranges (docs/MEASURE.md)."""
    kind, dims, et = shaped(t)
    r, par = len(dims), ", ".join(['"parallel"'] * len(dims))
    if kind == "tensor":
        out = [f"  %e{i} = tensor.empty() : {t}",
               f"  %in{i} = linalg.generic {{indexing_maps = [{maps(r)}], "
               f"iterator_types = [{par}]}} outs(%e{i} : {t}) {{"]
    else:
        out = [f"  %in{i} = memref.alloc() : {t}",
               f"  linalg.generic {{indexing_maps = [{maps(r)}], "
               f"iterator_types = [{par}]}} outs(%in{i} : {t}) {{"]
    out.append(f"  ^bb0(%o: {et}):")
    out += index_hash(r, 3 + i)
    flt = et.startswith("f")
    out += [f"    %n = arith.constant {2048 if flt else 16} : index",
            f"    %q = arith.remui %h{r}, %n : index",
            "    %qi = arith.index_cast %q : index to i64"]
    if flt:
        out += [f"    %qf = arith.sitofp %qi : i64 to {et}",
                f"    %s = arith.constant 0.0009765625 : {et}",
                f"    %one = arith.constant 1.0 : {et}",
                f"    %y = arith.mulf %qf, %s : {et}",
                f"    %z = arith.subf %y, %one : {et}"]
    else:
        out += ["    %c8 = arith.constant 8 : i64",
                "    %y = arith.subi %qi, %c8 : i64",
                f"    %z = arith.trunci %y : i64 to {et}"]
    out += [f"    linalg.yield %z : {et}", "  }" + (f" -> {t}" if kind == "tensor" else "")]
    return out


def checksums(j, v, t, decls):
    """Lines printing sum(x) and sum(x * (hash(index) mod 7)) of value v."""
    kind, dims, et = shaped(t)
    r, acc = len(dims), ACC[et]
    red = ", ".join(['"reduction"'] * r)
    out = []
    if kind == "tensor":
        t = t.replace("tensor", "memref", 1)
        out.append(f"  %cm{j} = bufferization.to_memref {v} : {t}")
        v = f"%cm{j}"
    out.append(f"  %cz{j} = arith.constant {'0.0' if acc.startswith('f') else '0'} : {acc}")
    for s in "ab":
        out += [f"  %c{s}{j} = memref.alloc() : memref<1x{acc}>",
                f"  linalg.fill ins(%cz{j} : {acc}) outs(%c{s}{j} : memref<1x{acc}>)"]
    out += [f"  linalg.generic {{indexing_maps = [{maps(r, '0', '0')}], iterator_types = [{red}]}} "
            f"ins({v} : {t}) outs(%ca{j}, %cb{j} : memref<1x{acc}>, memref<1x{acc}>) {{",
            f"  ^bb0(%x: {et}, %sa: {acc}, %sb: {acc}):"]
    out += index_hash(r, 1)
    out += ["    %c7 = arith.constant 7 : index",
            f"    %w0 = arith.remui %h{r}, %c7 : index",
            "    %w1 = arith.index_cast %w0 : index to i64"]
    if acc.startswith("f"):
        out += [f"    %w = arith.sitofp %w1 : i64 to {acc}",
                f"    %na = arith.addf %sa, %x : {acc}",
                f"    %xw = arith.mulf %x, %w : {acc}",
                f"    %nb = arith.addf %sb, %xw : {acc}"]
    else:
        x = "%x"
        if et != acc:
            out.append(f"    %xe = arith.extsi %x : {et} to {acc}")
            x = "%xe"
        out += [f"    %w = arith.trunci %w1 : i64 to {acc}",
                f"    %na = arith.addi %sa, {x} : {acc}",
                f"    %xw = arith.muli {x}, %w : {acc}",
                f"    %nb = arith.addi %sb, %xw : {acc}"]
    out += [f"    linalg.yield %na, %nb : {acc}, {acc}", "  }"]
    decls.add(f"func.func private @{PRINT[acc]}(memref<*x{acc}>)")
    for s in "ab":
        out += [f"  %u{s}{j} = memref.cast %c{s}{j} : memref<1x{acc}> to memref<*x{acc}>",
                f"  call @{PRINT[acc]}(%u{s}{j}) : (memref<*x{acc}>) -> ()",
                f"  memref.dealloc %c{s}{j} : memref<1x{acc}>"]
    return out


def wrap(text):
    """The driver form of a corpus module."""
    m = re.search(r"^func\.func @forward\((.*?)\)(?: -> \((.*?)\))? attributes", text, re.M)
    if not m:
        sys.exit("no @forward found")
    params = [p.split(": ", 1)[1] for p in re.split(r", (?=%a\d+:)", m.group(1))] if m.group(1) else []
    results = re.split(r", (?=tensor|memref)", m.group(2)) if m.group(2) else []
    body = ["func.func @main() {"]
    for i, t in enumerate(params):
        body += fill(i, t)
    names = [f"%r{i}" for i in range(len(results))]
    body.append(f"  {', '.join(names) + ' = ' if names else ''}call @kernel("
                f"{', '.join(f'%in{i}' for i in range(len(params)))}) : "
                f"({', '.join(params)}) -> ({', '.join(results)})")
    decls = set()
    outs = list(zip(names, results)) + [(f"%in{i}", t) for i, t in enumerate(params)
                                         if t.startswith("memref")]
    for j, (v, t) in enumerate(outs):
        body += checksums(j, v, t, decls)
    body += [f"  memref.dealloc %in{i} : {t}" for i, t in enumerate(params) if t.startswith("memref")]
    body += ["  return", "}"] + sorted(decls)
    text = text.replace("func.func @forward(", "func.func @kernel(", 1)
    text = text.replace("Convention: public @forward, private helpers, no @main.",
                        "Driver form (bench/inline_driver.py): @main fills the inputs, "
                        "calls @kernel, prints checksums.")
    return text + "\n" + "\n".join(body) + "\n"


def select(mqss, policy, path):
    r = subprocess.run([mqss, "select", path, "--policy", policy], capture_output=True, text=True)
    return r.stdout.strip() if r.returncode == 0 else None


def without_inline(pipe):
    """The pipeline without its top-level `inline` steps, or None."""
    inner = pipe[len("builtin.module("):-1]
    parts, depth, cur = [], 0, ""
    for ch in inner + ",":
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
            continue
        depth += ch in "({"
        depth -= ch in ")}"
        cur += ch
    kept = [p for p in parts if p != "inline"]
    return None if len(kept) == len(parts) else "builtin.module(" + ",".join(kept) + ")"


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    manifest, mdir = sys.argv[1], sys.argv[2]
    mqss = os.path.join(sys.argv[3] if len(sys.argv) > 3 else "build", "mqss")
    families = os.environ.get("FAMILIES", "conv2d,qconv_layer,poly_blas3,matmul_layer,mlp").split(",")
    per, pairs = int(os.environ.get("PER_FAMILY", "2")), os.environ.get("PAIRS", "10")
    policy = os.environ.get("POLICY", "models/default.safetensors")
    out_dir = os.environ.get("OUT", "/tmp/mqss-drivers")
    os.makedirs(out_dir, exist_ok=True)
    rows = [line.split("\t") for line in open(manifest) if not line.startswith(("#", "file\t"))]
    chosen = [r[0] for f in families for r in [r for r in rows if r[1] == f][:per]]
    print(header(pairs, f"policy {policy}; gain of `inline` = time without / time with"))
    print("module\tsame selection\tgain forward form\tinterval\tverdict\t"
          "gain driver form\tinterval\tverdict")
    gains = {"forward": [], "driver": []}
    for name in chosen:
        src = os.path.join(mdir, name)
        drv = os.path.join(out_dir, name)
        with open(src) as f, open(drv, "w") as g:
            g.write(wrap(f.read()))
        cells = []
        picks = [select(mqss, policy, p) for p in (src, drv)]
        for form, path, pipe in zip(("forward", "driver"), (src, drv), picks):
            base = without_inline(pipe) if pipe else None
            if not base:
                cells.append("-\t-\t" + ("selection failed" if not pipe else "no inline"))
                continue
            speed, cell = measure_vs(mqss, path, base, pipe, pairs)
            if speed:
                gains[form].append(speed)
            cells.append(cell)
        print(f"{name}\t{'yes' if picks[0] == picks[1] else 'no'}\t" + "\t".join(cells), flush=True)
    for form, g in gains.items():
        print(f"{form} form: " + geomean_line(g, len(g)))


if __name__ == "__main__":
    main()
