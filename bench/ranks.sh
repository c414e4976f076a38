#!/bin/bash
# ranks.sh: how `tracecost analyze` scales with the number of ranks (issue 29 item 8: the step graph,
# its replays and the critical paths stay linear up to 1,024 ranks). Generates, with build/tracegen
# when missing, one job per rank count (3 steps, 8 GPUs per node, a straggler, clock offsets and
# end spread: bench/data/ranks/rR/), runs `analyze -q --json` on each RUNS times, with and without
# the replay (--no-replay), and prints the median CPU time (user+sys) and peak RSS, each per rank,
# with the ratio of the largest job's per-rank figure to the smallest's: linear growth keeps it
# near 1 (target <= 1.5; PASS/FAIL). CPU time, not wall time, so a loaded machine bends it less.
# Usage: bench/ranks.sh [RUNS]   (default 3; env TRACECOST, TRACEGEN, BENCH_DIR, RANKS="128 1024")
set -eu
RUNS=${1:-3}
TC=${TRACECOST:-build/tracecost}
GEN=${TRACEGEN:-build/tracegen}
DIR=${BENCH_DIR:-bench/data}/ranks
RANKS=${RANKS:-128 256 512 1024}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
command -v /usr/bin/time >/dev/null || { echo "ranks: /usr/bin/time missing (apt-get install time)" >&2; exit 1; }
for r in $RANKS; do
  if [ ! -s "$DIR/r$r/rank0.pt.trace.json" ]; then
    echo "ranks: generating $DIR/r$r ($r ranks)..." >&2
    rm -rf "$DIR/r$r"
    "$GEN" -o "$DIR/r$r" --ranks "$r" --steps 3 --gpus-per-node 8 --straggler 1 --clock-offset-us 300 \
      --end-spread-us 3 >/dev/null
    rm -f "$DIR/r$r/expected.json" "$DIR/r$r/expected.md"
  fi
done
median() { sort -n "$1" | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
for ((i = 1; i <= RUNS; i++)); do
  for r in $RANKS; do
    for m in replay noreplay; do
      f=(); [ "$m" = noreplay ] && f=(--no-replay)
      /usr/bin/time -o "$OUT/t" -f "%U %S %M" "$TC" analyze -q "${f[@]}" --json /dev/null "$DIR/r$r"
      tail -1 "$OUT/t" | awk '{printf "%.4f\n", $1 + $2}' >> "$OUT/$r.$m.cpu"
      tail -1 "$OUT/t" | awk '{print $3}' >> "$OUT/$r.$m.rss"
    done
  done
done
echo "tracecost ranks bench: median of $RUNS runs, CPU time (user+sys) and peak RSS of analyze -q --json, per rank"
echo "load average before: $LOAD_BEFORE, after: $(cut -d' ' -f1-3 /proc/loadavg)"
printf "  %6s %12s %12s %12s %12s %10s\n" ranks "CPU s" "ms/rank" "no replay" "RSS MB" "KB/rank"
first=""; last=""
for r in $RANKS; do
  c=$(median "$OUT/$r.replay.cpu"); n=$(median "$OUT/$r.noreplay.cpu"); k=$(sort -n "$OUT/$r.replay.rss" | tail -1)
  printf "  %6d %12.3f %12.3f %12.3f %12.1f %10.1f\n" "$r" "$c" "$(awk -v c="$c" -v r="$r" 'BEGIN {print c * 1000 / r}')" \
    "$n" "$(awk -v k="$k" 'BEGIN {print k * 1024 / 1e6}')" "$(awk -v k="$k" -v r="$r" 'BEGIN {print k / r}')"
  [ -z "$first" ] && first="$r $c $k"
  last="$r $c $k"
done
set -- $first; r0=$1 c0=$2 k0=$3
set -- $last; r1=$1 c1=$2 k1=$3
awk -v r0="$r0" -v c0="$c0" -v k0="$k0" -v r1="$r1" -v c1="$c1" -v k1="$k1" 'BEGIN {
  tc = (c1 / r1) / (c0 / r0); tk = (k1 / r1) / (k0 / r0)
  printf "  CPU per rank, %d ranks against %d: %.2fx (target <= 1.5) %s\n", r1, r0, tc, tc <= 1.5 ? "PASS" : "FAIL"
  printf "  RSS per rank, %d ranks against %d: %.2fx (target <= 1.5) %s\n", r1, r0, tk, tk <= 1.5 ? "PASS" : "FAIL" }'
