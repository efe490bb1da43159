#!/usr/bin/env python3
"""expit62's demonstrations: expit60's (runs/expit60/winners_from.tsv, one
row per module of /work/corpus-merged7/train.tsv) with the rows of the
modules of FAMILIES replaced by expit61's (its cloned.tsv, same manifest).
usage: merge_winners.py OLD NEW MANIFEST FAMILIES OUT"""
import sys
old, new, manifest, families, out = sys.argv[1:6]
fams = set(families.split(','))
rows = [l for l in open(manifest) if not l.startswith('#')]
fam = {i: r.split('\t')[1] for i, r in enumerate(rows)}
repl = {}
for l in open(new):
    i = int(l.split('\t', 1)[0])
    if fam[i] in fams:
        repl[i] = l
n = 0
with open(out, 'w') as f:
    for l in open(old):
        i = int(l.split('\t', 1)[0])
        if i in repl:
            l, n = repl.pop(i), n + 1
        f.write(l)
    for i in sorted(repl):  # modules the old file had no row for
        f.write(repl[i]); n += 1
print(f'{n} rows replaced or added', file=sys.stderr)
