#!/usr/bin/env python3
"""Greedy one-step extension of expit60's demonstrations with vector-width-256.
For every other demonstration with at least one step whose schedule files
exist: measure demo vs demo + func.func(mqss-vector-width{bits=256}) (10
interleaved pairs, outputs checked). Appends one line per module to OUT
(resumable): idx, file, family, ratio B/A, lo, hi, verdict."""
import os, re, subprocess, sys
W, MAN, OUT = sys.argv[1], sys.argv[2], sys.argv[3]
mqss = '/work/main/build/mqss'
man = [l.rstrip('\n').split('\t') for l in open(MAN) if not l.startswith('#')]
mdir = os.path.dirname(MAN)
done = set()
if os.path.exists(OUT):
    done = {l.split('\t')[0] for l in open(OUT)}
rows = [l.rstrip('\n').split('\t') for l in open(W)]
with open(OUT, 'a') as out:
    for r in rows:
        idx, n, p = int(r[0]), int(r[2]), r[-1]
        if idx % 2 or n <= 1 or str(idx) in done:
            continue
        if any(not os.path.exists(f) for f in re.findall(r'transform-library-paths=([^}]*)\}', p)):
            continue
        f, fam = man[idx][0], man[idx][1]
        path = f if os.path.isabs(f) else os.path.join(mdir, f)
        p2 = p[:-1] + ',func.func(mqss-vector-width{bits=256}))'
        res = subprocess.run([mqss, 'measure', path, '--pipeline', p, '--vs', p2, '--repeat', '10',
                              '--warmup', '1', '--no-cache', '--timeout', '120000'],
                             capture_output=True, text=True)
        m = re.search(r'ratio B/A: ([0-9.]+) \[([0-9.]+), ([0-9.]+)\].*verdict: (.*) \(min', res.stdout)
        line = [str(idx), f, fam] + (list(m.groups()) if m else ['FAIL', '', '', res.stderr.strip().splitlines()[-1][:200] if res.stderr.strip() else 'no ratio'])
        out.write('\t'.join(line) + '\n'); out.flush()
