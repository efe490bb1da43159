#!/usr/bin/env python3
"""Summary of runs/parallel42/search/*.json and runs/threads43/search/*.json:
per module, the confirmed speedup of the winner over the reference and
whether the winner is threaded, the fastest candidate with and without
threads (one measurement each), and how the threaded candidates
(async-parallel or omp-parallel's convert-scf-to-openmp in the pipeline, or
a schedule with tile_using_forall) ended. The schedules are read from /tmp/mqss-schedules, where the search
wrote them.  usage: summarise.py SEARCH_DIR"""
import glob
import json
import os
import re
import sys


def threaded(p):
    if 'async-parallel' in p or 'convert-scf-to-openmp' in p:
        return True
    for path in re.findall(r'transform-library-paths=([^}]+)', p):
        try:
            if 'tile_using_forall' in open(path).read():
                return True
        except OSError:
            pass
    return False


print("module\tconfirmed\twinner threaded\tbest threaded\tbest other\tthreaded ok/all\tthreaded failures")
for f in sorted(glob.glob(os.path.join(sys.argv[1], '*.json'))):
    d = json.load(open(f))
    ref = d['trace'][0]['run_ms']
    best = {True: 0.0, False: 0.0}
    fails, n_thr, ok_thr = {}, 0, 0
    for t in d['trace'][1:]:
        th = threaded(t['pipeline'])
        n_thr += th
        if t['status'] == 'ok' and t['run_ms'] > 0:
            ok_thr += th
            best[th] = max(best[th], ref / t['run_ms'])
        elif th:
            fails[t['status']] = fails.get(t['status'], 0) + 1
    win = d.get('winner_pipeline') or ''
    print(f"{os.path.basename(f)[:-5]}\t{d.get('confirmed_speedup') or 1:.2f}x\t"
          f"{'yes' if threaded(win) else 'no'}\t"
          f"{best[True]:.2f}x\t{best[False]:.2f}x\t{ok_thr}/{n_thr}\t{fails or '-'}")
