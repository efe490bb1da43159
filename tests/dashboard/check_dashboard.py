#!/usr/bin/env python3
"""`mqss dashboard` rendered in a real headless browser (Debian's chromium).

1. Two metrics JSONL files (seeded random runs over 12 modules, some fields
   missing, some with the A/B switch off, one naming the hash "module" as
   mqss-opt does, a pipeline that tries to close the <script> element) plus five
   corrupt lines of different kinds. The tool skips exactly those lines,
   naming FILE:LINE on stderr, and writes a page with no network reference.
2. chromium --headless --dump-dom loads the page. The DOM must carry
   data-rendered="yes" and no #mqss-script-error, and the figures the page's
   script filled in must equal the ones computed here, independently, from
   the valid records: geomean and median speedup, fallback rate, decision
   latency median and p95 (runs with the selector off left out), reason
   counts, and the per-module table (row count, slowest module first with
   its runs and geomean).
3. The error marker works: the same page with a script error injected shows
   #mqss-script-error and is not marked rendered (so 2 cannot pass vacuously).
4. Bad input: an unreadable file and an unwritable -o fail with clear
   messages.

chromium is required (scripts/install-deps.sh installs it): without it the
test fails, it does not skip.

usage: check_dashboard.py MQSS_BINARY
"""
import html.parser
import json
import math
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile

MQSS = sys.argv[1]
TMP = tempfile.mkdtemp(prefix="mqss_dash_")
failures = []
passed = 0


def check(cond, what):
    global passed
    if cond:
        passed += 1
    else:
        failures.append(what)
        print("FAIL", what)


def finish():
    print(f"{passed} checks passed, {len(failures)} failed")
    if not failures:
        shutil.rmtree(TMP, ignore_errors=True)
    sys.exit(1 if failures else 0)


class Dom(html.parser.HTMLParser):
    """Text of every element with an id, table rows, and <body> attributes."""

    def __init__(self):
        super().__init__()
        self.stack, self.text, self.rows, self.body = [], {}, {}, {}
        self.table, self.row = None, None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "body":
            self.body = a
        if tag in ("br", "meta", "line", "rect", "path"):
            return
        self.stack.append(a.get("id"))
        if tag == "table":
            self.table = a.get("id")
        if tag == "tr" and self.table:
            self.row = []
            self.rows.setdefault(self.table, []).append(self.row)
        if tag == "td" and self.row is not None:
            self.row.append("")

    def handle_endtag(self, tag):
        if tag in ("br", "meta", "line", "rect", "path"):
            return
        if self.stack:
            self.stack.pop()
        if tag == "table":
            self.table = None

    def handle_data(self, data):
        for i in self.stack:
            if i:
                self.text[i] = self.text.get(i, "") + data
        if self.row is not None and self.row and self.table:
            self.row[-1] += data


def render(page):
    profile = tempfile.mkdtemp(prefix="chromium_", dir=TMP)
    r = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
         "--user-data-dir=" + profile, "--dump-dom", "file://" + page],
        capture_output=True, text=True, timeout=120)
    dom = Dom()
    dom.feed(r.stdout)
    return r, dom


# ---------------------------------------------------------------------------
# 0. the browser must be there

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
if not CHROMIUM:
    check(False, "chromium is not installed: run scripts/install-deps.sh "
                 "(this test fails rather than skips without it)")
    finish()

# ---------------------------------------------------------------------------
# 1. the metrics files and the tool

rng = random.Random(7)
reasons = ["wrong_output", "policy_error", "time_budget", "crashed"]
records = []
for i in range(40):
    h = "%016x" % (0x5eed0000 + i % 12)
    rec = {"module_hash": h,
           "pipeline": "builtin.module(func.func(cse),canonicalize{n=%d})" % (i % 12),
           "decision_ms": round(rng.uniform(0.5, 40.0), 3),
           "fallback": rng.random() < 0.3,
           "compile_ms": round(rng.uniform(20, 400), 2),
           "budget_hit": rng.random() < 0.1}
    rec["fallback_reason"] = rng.choice(reasons) if rec["fallback"] else None
    rec["speedup"] = None if rec["fallback"] else round(math.exp(rng.gauss(0.2, 0.5)), 4)
    if i % 7 == 3:  # optional fields may be missing
        for k in ("compile_ms", "budget_hit", "fallback_reason"):
            rec.pop(k, None)
    if i % 9 == 4:  # the A/B switch off: the user's pipeline alone
        rec.update(selector=False, fallback=False, fallback_reason=None, speedup=None,
                   decision_ms=0.0)
    records.append(rec)
# mqss-opt's log names the hash "module" and closes each line with an FNV-1a
# checksum of the bytes before it: a line whose checksum matches is a record.
records[7] = dict(records[7], module=records[7].pop("module_hash"))


def fnv1a64(data):
    h = 0xcbf29ce484222325
    for byte in data:
        h = ((h ^ byte) * 0x100000001b3) & 0xffffffffffffffff
    return h


def line_of(rec):
    if "module" not in rec:
        return json.dumps(rec)
    body = json.dumps(rec, separators=(",", ":"))[:-1]
    return body + ',"fnv1a":"%016x"}' % fnv1a64(body.encode())


HOSTILE = "</script><script>document.body.setAttribute('data-pwned', '1')</script>"
records[-1]["pipeline"] = HOSTILE  # the last run: the table shows it

corrupt = ['{"module_hash": "ab", "speedup": ',           # torn write
           'not json at all',
           '{"module_hash": "cd", "speedup": "fast"}',    # wrong type
           '{"pipeline": "x", "decision_ms": 1}',         # no module_hash
           '[1, 2, 3]',
           line_of(dict(module="ef", speedup=1.5)).replace("1.5", "2.5")]  # edited
a, b = os.path.join(TMP, "a.jsonl"), os.path.join(TMP, "b.jsonl")
bad_lines = {}  # path -> line numbers
with open(a, "w") as f:
    lines = [line_of(r) for r in records[:25]]
    for k, c in enumerate(corrupt[:3]):
        lines.insert(4 + 6 * k, c)
    lines.insert(10, "")  # blank lines are not records
    bad_lines[a] = [n + 1 for n, l in enumerate(lines) if l in corrupt]
    f.write("\n".join(lines) + "\n")
with open(b, "w") as f:
    lines = [line_of(r) for r in records[25:]] + corrupt[3:]
    bad_lines[b] = [n + 1 for n, l in enumerate(lines) if l in corrupt]
    f.write("\n".join(lines))  # no final newline

page = os.path.join(TMP, "dash.html")
r = subprocess.run([MQSS, "dashboard", a, b, "-o", page], capture_output=True, text=True)
check(r.returncode == 0, f"dashboard exit code {r.returncode}: {r.stderr}")
check(f"{len(records)} records from 2 files, {len(corrupt)} lines skipped" in r.stdout,
      f"summary line: {r.stdout!r}")
for path, nums in bad_lines.items():
    for n in nums:
        check(f"{path}:{n}:" in r.stderr, f"stderr names {path}:{n}: {r.stderr!r}")
check(f"{len(corrupt)} corrupt lines skipped" in r.stderr, f"skip count on stderr: {r.stderr!r}")
check('"speedup" must be a number > 0 or null, got a string' in r.stderr,
      "the wrong-type line says which field and why")
check('no "module_hash" field' in r.stderr, "the missing-field line says so")

raw = open(page).read()
check(HOSTILE not in raw, "a pipeline string cannot close the data element")
for ref in ("src=", "href=", "https:", "@import", "url("):
    check(ref not in raw, f"the page references nothing outside itself ({ref})")

# ---------------------------------------------------------------------------
# 2. the rendered page against figures computed here

res, dom = render(page)
check(res.returncode == 0, f"chromium exit code {res.returncode}: {res.stderr[-500:]}")
check(dom.body.get("data-rendered") == "yes", f"page rendered: body {dom.body}")
check("mqss-script-error" not in dom.text, f"no script error: {dom.text.get('mqss-script-error')}")


def card(name):
    return dom.text.get("card-" + name, "")


for r in records:
    r.setdefault("module_hash", r.get("module"))
on = [r for r in records if r.get("selector") is not False]
check(0 < len(on) < len(records), "the fixture has runs with the selector off")
speed = [r["speedup"] for r in on if r.get("speedup")]
lat = [r["decision_ms"] for r in on]
nfb = sum(1 for r in on if r.get("fallback"))
geo = math.exp(sum(map(math.log, speed)) / len(speed))
check(card("geomean").startswith("%.3fx" % geo), f"geomean {geo:.3f}x in {card('geomean')!r}")
check(card("median-speedup").startswith("%.3fx" % statistics.median(speed)),
      f"median speedup in {card('median-speedup')!r}")
check(card("runs").startswith(str(len(records))), f"runs in {card('runs')!r}")
check(card("modules").startswith("12"), f"modules in {card('modules')!r}")
rate = "%.1f%%" % (100 * nfb / len(on))
check(card("fallback").startswith(rate) and f"({nfb} of {len(on)} selector runs)" in card("fallback"),
      f"fallback rate {rate} in {card('fallback')!r}")
p95 = statistics.quantiles(lat, n=20, method="inclusive")[18]
check(card("latency").startswith("%.2f ms / %.2f ms" % (statistics.median(lat), p95)),
      f"latency median/p95 in {card('latency')!r}")
check(card("budget").startswith(str(sum(1 for r in records if r.get("budget_hit")))),
      f"budget hits in {card('budget')!r}")
check(f"{len(corrupt)} corrupt lines skipped" in dom.text.get("skipped-count", ""),
      "the page shows the skipped count")

want_reasons = {}
for r in records:
    if r.get("fallback"):
        want_reasons[r.get("fallback_reason") or "(no reason given)"] = \
            want_reasons.get(r.get("fallback_reason") or "(no reason given)", 0) + 1
got_reasons = {row[0]: int(row[1]) for row in dom.rows.get("fallback-reasons", []) if row}
check(got_reasons == want_reasons, f"fallback reasons {got_reasons} == {want_reasons}")

by_mod = {}
for r in records:
    by_mod.setdefault(r["module_hash"], []).append(r)
geos = {h: math.exp(statistics.mean(math.log(r["speedup"]) for r in rs if r.get("speedup")))
        for h, rs in by_mod.items() if any(r.get("speedup") for r in rs)}
worst = min(geos, key=geos.get)
rows = [row for row in dom.rows.get("modules", []) if row]
check(len(rows) == len(by_mod), f"{len(rows)} table rows, {len(by_mod)} modules")
check(rows and rows[0][0] == worst and rows[0][1] == str(len(by_mod[worst]))
      and rows[0][-1] == "%.3fx" % geos[worst],
      f"first row {rows[:1]} is the slowest module {worst} ({geos[worst]:.3f}x)")
check(any(HOSTILE == row[2] for row in rows), "the hostile pipeline shows as text")
check("data-pwned" not in dom.body, "and did not run")

# ---------------------------------------------------------------------------
# 3. a script error is caught and shown

broken = os.path.join(TMP, "broken.html")
with open(broken, "w") as f:
    f.write(raw.replace("'use strict';", "'use strict'; null.boom();", 1))
res, dom = render(broken)
check("mqss-script-error" in dom.text and dom.body.get("data-rendered") != "yes",
      f"an injected script error is detected: body {dom.body}")

# ---------------------------------------------------------------------------
# 4. bad input

r = subprocess.run([MQSS, "dashboard", os.path.join(TMP, "missing.jsonl"), "-o", page],
                   capture_output=True, text=True)
check(r.returncode == 1 and "cannot read" in r.stderr and "missing.jsonl" in r.stderr
      and "No such file" in r.stderr, f"missing input: {r.returncode} {r.stderr!r}")
r = subprocess.run([MQSS, "dashboard", a, "-o", os.path.join(TMP, "no", "dir", "x.html")],
                   capture_output=True, text=True)
check(r.returncode == 1 and "cannot write" in r.stderr, f"unwritable -o: {r.returncode} {r.stderr!r}")
r = subprocess.run([MQSS, "dashboard", a], capture_output=True, text=True)
check(r.returncode == 1 and "-o" in r.stderr, f"no -o: {r.stderr!r}")

finish()
