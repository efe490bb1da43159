#!/bin/sh
# Where the policy-guided search's winners come from (docs/SEARCH.md): the
# search of expert iteration (`mqss search --method policy`, budget 24, 12
# steps, 1 warm-up and 3 timed runs per candidate, the 3 fastest re-measured
# with 10 interleaved pairs) on the first training module of MODULES
# families. Prints per module the confirmed winner's speedup over the
# reference and which part proposed it (proposal, greedy, mutation, random),
# and the best confirmed candidate proposed by another part than the
# winner's: the winner's margin over it is what that part added here. The
# parts share one budget, so this is not an A/B: without mutations, greedy
# and random steps would have had their third. With the machine, the commit
# and the date. Run it alone: it measures.
#
# usage: bench/search_sources.sh CORPUS_DIR [POLICY] [BUILD_DIR]
#   env: MODULES (default 10)
set -eu
corpus=$(cd "$1" && pwd)
policy=${2:-}
[ -z "$policy" ] || policy=$(cd "$(dirname "$policy")" && pwd)/$(basename "$policy")
cd "$(dirname "$0")/.."
policy=${policy:-$PWD/models/default.safetensors}
BUILD=${3:-build}
. bench/common.sh
export OPENBLAS_NUM_THREADS=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "machine: $(uname -n), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores; commit $COMMIT; $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "policy: $policy"
for f in $(awk -F'\t' '!/^#/ && $1 != "file" && !seen[$2]++ {print $1}' "$corpus/train.tsv" | head -n "${MODULES:-10}"); do
  "$BUILD/mqss" search --method policy --policy "$policy" --budget 24 \
    --max-len 12 --seed 1 --repeat 3 --warmup 1 --confirm 10 --json \
    "$corpus/$f" > "$tmp/${f%.mlir}.json"
done
python3 - "$tmp" <<'PY'
import glob, json, math, sys
print('%-24s %9s  %-9s  %s' % ('module', 'winner', 'from', 'best confirmed from another part'))
wins, margins = {}, []
for p in sorted(glob.glob(sys.argv[1] + '/*.json')):
    r = json.load(open(p))
    name = p.rsplit('/', 1)[1][:-5]
    conf = [c for c in r['confirmations'] if c['verdict'] == 'confirmed']
    if r['winner_index'] <= 0 or not conf:
        print('%-24s %9s' % (name, 'none'))
        continue
    src = r['trace'][r['winner_index']]['source']
    wins[src] = wins.get(src, 0) + 1
    others = [c for c in conf if r['trace'][c['index']]['source'] != src]
    if others:
        o = max(others, key=lambda c: c['speedup'])
        m = r['confirmed_speedup'] / o['speedup']
        margins.append(m)
        other = '%.3fx (%s), margin %.3fx' % (o['speedup'], r['trace'][o['index']]['source'], m)
    else:
        other = '-'
    print('%-24s %8.3fx  %-9s  %s' % (name, r['confirmed_speedup'], src, other))
print('confirmed winners by part: ' + ', '.join('%s %d' % kv for kv in sorted(wins.items())))
if margins:
    print('geomean margin of the winner over the best confirmed candidate of another part: %.3fx (%d modules)'
          % (math.exp(sum(map(math.log, margins)) / len(margins)), len(margins)))
PY
