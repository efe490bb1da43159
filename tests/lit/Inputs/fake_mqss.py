#!/usr/bin/env python3
# Stands in for mqss in retune_resume.test: appends each call to $FAKE_LOG
# and answers `search` and `measure` with fixed JSON (greedy finds
# "canonicalize", random "cse"; measured speedups depend on the pipeline).
import json
import os
import sys

args = sys.argv[1:]
with open(os.environ["FAKE_LOG"], "a") as f:
    f.write(" ".join(args) + "\n")
if args[0] == "search":
    method = args[args.index("--method") + 1]
    print(json.dumps({"winner_pipeline": "canonicalize" if method == "greedy" else "cse"}))
elif args[0] == "measure":
    pipe = args[args.index("--pipeline") + 1]
    hl = {"canonicalize": 1.5, "cse": 1.2}.get(pipe, 1.1)
    print(json.dumps({"a": {"status": "ok"}, "b": {"status": "ok"},
                      "ratio_b_over_a": {"hl": hl, "lo": hl - 0.05, "hi": hl + 0.05}}))
