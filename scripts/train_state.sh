#!/usr/bin/env bash
# Carries a long training run (scripts/train_long.sh) from one machine to
# the next: sessions end, and the next one may start on a fresh machine with
# nothing but the repository. `save` copies what `mqss train --resume` needs
# from LOGDIR into STATE (a directory in the repository, committed): the
# curves and logs, every finished round's row, winners, search records and
# PPO metrics, the last finished round's weights (final.bin), policy and
# clone, the run's result (LOGDIR/policy.safetensors, once every round is
# done), and every file of the round in progress. The measurement cache is
# not copied: a resumed run measures again what it needs. `restore` copies STATE back
# into LOGDIR; then run scripts/train_long.sh on LOGDIR as before.
#
# usage: scripts/train_state.sh save LOGDIR STATE
#        scripts/train_state.sh restore STATE LOGDIR
set -euo pipefail
usage() { sed -n '12,13p' "$0" | sed 's/^# //' >&2; exit 2; }
[ $# -eq 3 ] || usage
mode=$1 from=$2 to=$3
[ -d "$from" ] || { echo "train_state: no directory '$from'" >&2; exit 1; }

case "$mode" in
save)
  if pgrep -f "mqss train .*--log-dir $from" >/dev/null; then
    echo "train_state: a trainer is still writing '$from'; stop it first" >&2
    exit 1
  fi
  rm -rf "$to"
  mkdir -p "$to"
  for f in expit.csv expit.png train_long.log policy.safetensors; do
    [ -e "$from/$f" ] && cp -p "$from/$f" "$to/"
  done
  last=
  for r in "$from"/round_*; do
    [ -d "$r" ] || continue
    [ -e "$r/row.csv" ] && last=$r
  done
  for r in "$from"/round_*; do
    [ -d "$r" ] || continue
    dst="$to/$(basename "$r")"
    mkdir -p "$dst"
    if [ ! -e "$r/row.csv" ]; then # in progress: all of it (perhaps nothing yet)
      cp -rp "$r"/. "$dst/"
      continue
    fi
    for f in row.csv winners.tsv search_progress.tsv metrics.csv; do
      [ -e "$r/$f" ] && cp -p "$r/$f" "$dst/"
    done
    if [ "$r" = "$last" ]; then
      cp -p "$r/final.bin" "$dst/"
      for f in policy.safetensors clone.safetensors; do
        [ -e "$r/$f" ] && cp -p "$r/$f" "$dst/"
      done
    fi
  done
  echo "train_state: saved $(du -sh "$to" | cut -f1) of '$from' in '$to'"
  ;;
restore)
  mkdir -p "$to"
  cp -rp "$from"/. "$to"/
  echo "train_state: restored '$from' into '$to'; resume with scripts/train_long.sh"
  ;;
*)
  usage
  ;;
esac
