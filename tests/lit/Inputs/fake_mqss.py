#!/usr/bin/env python3
# Stands in for mqss in retune_resume.test: appends each call to $FAKE_LOG
# and answers `search` and `measure` with fixed JSON (greedy finds a
# schedule it writes to $MQSS_SCHEDULE_DIR, random "cse"; measured speedups
# depend on the pipeline; with $FAKE_TIE, a comparison with another pipeline
# than the reference is a tie, as identical code is; on a module whose path
# has $FAKE_SAME in it, nothing beats the reference and every pipeline
# lowers as the other side does). With $FAKE_KILL set it kills itself
# (SIGKILL).
import json
import os
import signal
import sys

args = sys.argv[1:]
with open(os.environ["FAKE_LOG"], "a") as f:
    f.write(" ".join(args) + "\n")
if os.environ.get("FAKE_KILL"):
    os.kill(os.getpid(), signal.SIGKILL)
SCHEDULE = os.path.join(os.environ.get("MQSS_SCHEDULE_DIR", "/nonexistent"), "mqss_1.mlir")
if args[0] == "search":
    method = args[args.index("--method") + 1]
    with open(SCHEDULE, "w") as f:
        f.write("module {}\n")
    print(json.dumps({"winner_pipeline": "cse" if method == "random" else
                      "transform-preload-library{transform-library-paths=%s},"
                      "transform-interpreter{entry-point=mqss_1}" % SCHEDULE}))
elif args[0] == "measure":
    pipe = args[args.index("--pipeline") + 1]
    hl = 1.5 if SCHEDULE in pipe else {"cse": 1.2}.get(pipe, 1.1)
    if os.environ.get("FAKE_TIE") and args[args.index("--vs") + 1]:
        hl = 1.0
    same = os.environ.get("FAKE_SAME", "\0") in args[1]
    if same and args[args.index("--vs") + 1]:
        print(json.dumps({"a": {"status": "ok"}, "b": {"status": "ok"}, "identical": True,
                          "ratio_b_over_a": {"hl": 1, "lo": 1, "hi": 1}}))
        sys.exit(0)
    hl = 1.0 if same else hl
    print(json.dumps({"a": {"status": "ok"}, "b": {"status": "ok"},
                      "ratio_b_over_a": {"hl": hl, "lo": hl - 0.05, "hi": hl + 0.05}}))
