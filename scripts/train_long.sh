#!/usr/bin/env bash
# The long training run (docs/TRAINING.md, "The long run"): `mqss train` with
# a committed config (default configs/expit.yaml) in the background, in
# chunks shorter than CHUNK_MIN minutes (default 165, under a 170-minute
# session): each chunk runs `mqss train --resume` in its own process group
# and is killed (SIGKILL, which checkpoints survive) when its time is up; the
# next chunk resumes from the last finished phase (inside a search phase:
# from the last module searched). The run ends when the
# trainer exits 0 (all rounds done). Progress goes to LOGDIR/train_long.log.
#
# usage: scripts/train_long.sh [CONFIG] [LOGDIR] [BUILD_DIR]
#   CHUNKS (default 1): chunks to run now, one after another; run the script
#   again (next session) to continue. FOREGROUND=1 runs in this shell.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
config=${1:-$root/configs/expit.yaml}
logdir=${2:-$root/runs/expit}
build=${3:-$root/build}
chunk_min=${CHUNK_MIN:-165}
chunk_sec=${CHUNK_SEC:-$((chunk_min * 60))} # seconds (toy tests)
chunks=${CHUNKS:-1}
mqss="$build/mqss"
[ -x "$mqss" ] || { echo "train_long: no $mqss; build first (make build)" >&2; exit 1; }
[ -f "$config" ] || { echo "train_long: no config '$config'" >&2; exit 1; }
mkdir -p "$logdir"
log="$logdir/train_long.log"

run_chunks() {
  export OPENBLAS_NUM_THREADS=1
  for ((c = 1; c <= chunks; c++)); do
    resume=--resume
    [ -e "$logdir/round_0" ] || [ -e "$logdir/checkpoint.bin" ] || resume=
    echo "== chunk $c/$chunks: $(date -u +%FT%TZ) commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown) $resume"
    setsid "$mqss" train --config "$config" --log-dir "$logdir" $resume &
    pid=$!
    # The watchdog's sleep must not outlive it: with FOREGROUND=1 it would
    # hold tee's pipe open, and the script would not return.
    ( trap 'kill "$s" 2>/dev/null; exit 0' TERM
      sleep "$chunk_sec" >/dev/null 2>&1 & s=$!
      wait "$s" && kill -KILL -- "-$pid" 2>/dev/null ) >/dev/null 2>&1 &
    watchdog=$!
    rc=0
    wait "$pid" || rc=$?
    kill "$watchdog" 2>/dev/null || true
    if [ "$rc" -eq 0 ]; then
      echo "== finished: $(date -u +%FT%TZ)"
      return 0
    fi
    echo "== chunk ended (exit $rc): $(date -u +%FT%TZ); the next chunk resumes"
  done
}

if [ "${FOREGROUND:-0}" = 1 ]; then
  run_chunks 2>&1 | tee -a "$log"
else
  export -f run_chunks
  export root config logdir build chunk_sec chunks mqss
  nohup bash -c run_chunks >>"$log" 2>&1 &
  echo "train_long: running in the background (pid $!); follow $log"
fi
