#!/usr/bin/env python3
"""How faithfully a policy imitates the search winners it was cloned on:
for every training module with a winner in WINNERS (an expit round's
winners.tsv), its greedy selection (`mqss select`, in this process) is
compared with the winner's pipeline text. Prints, per family, exact matches
and the selections that stop short (a strict prefix of the winner).

An exact textual match is strict: a selection that leaves out a pass the
winner ran without effect counts as a miss though it makes the same IR.
Timing-free: it runs anywhere, but not while timing work runs.

usage: bench/clone_fidelity.py MQSS POLICY WINNERS TRAIN_MANIFEST
"""
import collections
import os
import subprocess
import sys


def main():
    mqss, policy, winners, manifest = sys.argv[1:5]
    root = os.path.dirname(os.path.abspath(manifest))
    paths = [line.split("\t")[0] for line in open(manifest)
             if line.strip() and not line.startswith("#")]
    total, exact, short = (collections.Counter() for _ in range(3))
    for line in open(winners):
        f = line.rstrip("\n").split("\t")
        module, n = int(f[0]), int(f[2])
        if n <= 0:
            continue  # the reference stands: nothing to imitate
        path = os.path.join(root, paths[module])
        got = subprocess.run([mqss, "select", path, "--policy", policy, "--no-isolate"],
                             capture_output=True, text=True).stdout.strip()
        want = f[-1]
        family = os.path.basename(path).rsplit("_", 1)[0]
        total[family] += 1
        exact[family] += got == want
        short[family] += got != want and want.startswith(got[:-1])
    print(f"policy {policy}\nwinners {winners}\n")
    print("| family | winners | exact | stops short |\n| --- | --- | --- | --- |")
    for family in sorted(total):
        print(f"| {family} | {total[family]} | {exact[family]} | {short[family]} |")
    print(f"| all | {sum(total.values())} | {sum(exact.values())} | {sum(short.values())} |")


if __name__ == "__main__":
    main()
