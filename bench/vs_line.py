"""Shared by bench/parallel_headroom.py and bench/forall_headroom.py: the
table's first line, one interleaved comparison (`mqss measure FILE --pipeline A --vs B --json`,
both sides checked against the reference) as a table cell, and the geomean
line under the table."""
import json
import math
import os
import platform
import subprocess
import time


def header(pairs, what):
    """The first line of a table: machine, commit, time, pairs, `what`."""
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    return (f"# machine: {platform.node()} {platform.machine()}, {os.cpu_count()} cores; "
            f"commit {commit or 'unknown'}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; "
            f"{pairs} pairs per module; {what}")


def measure_vs(mqss, path, a, b, pairs, extra=()):
    """(speedup time(A)/time(B), "speed\\t[lo, hi]\\tverdict") or (None, why)."""
    r = subprocess.run([mqss, "measure", path, "--pipeline", a, "--vs", b, "--json",
                        "--repeat", pairs, *extra], capture_output=True, text=True)
    try:
        d = json.loads(r.stdout)
    except json.JSONDecodeError:
        return None, f"-\t-\tfailed: {r.stderr.strip()[-200:]}"
    if d["b"]["status"] != "ok" or d["a"]["status"] != "ok":
        return None, (f"-\t-\t{d['a']['status']}/{d['b']['status']}: "
                      f"{d['b'].get('message', '')[:160]}")
    q = d["ratio_b_over_a"]
    speed = 1 / q["hl"]
    lo, hi = (1 / q["hi"], 1 / q["lo"]) if q["lo"] > 0 else (math.nan, math.nan)
    return speed, f"{speed:.3f}\t[{lo:.3f}, {hi:.3f}]\t{d['verdict']}"


def geomean_line(speeds, n_all):
    """The geomean over the measured modules and over all (others at 1)."""
    logs = [math.log(s) for s in speeds]
    if not logs:
        return "nothing measured"
    return (f"geomean over {len(logs)} measured: {math.exp(sum(logs) / len(logs)):.3f}x; "
            f"over all {n_all}: {math.exp(sum(logs) / n_all):.3f}x")
