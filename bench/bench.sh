#!/bin/bash
# bench.sh: speed and memory of `tracecost analyze` against the tools that bound it (issue 7).
# Generates bench/data/ (two 380 MiB Kineto-layout rank files and a gzip of rank 0) with
# build/tracegen when missing, then runs every command RUNS times, interleaved (one round runs each
# command once, so all see the same machine load), and prints the median wall time, MB/s
# (MB = 1e6 bytes of JSON, the decompressed size for gzip), the ratios the issue targets with
# PASS/FAIL, peak RSS (GNU time's maximum resident set size), and json_verify's time pinned to each
# core before and after the rounds, with a warning when the cores ran at different speeds.
# Usage: bench/bench.sh [RUNS]   (default 5; env TRACECOST, TRACEGEN, BENCH_DIR override paths)
set -eu
RUNS=${1:-5}
TC=${TRACECOST:-build/tracecost}
GEN=${TRACEGEN:-build/tracegen}
DIR=${BENCH_DIR:-bench/data}
R0=$DIR/rank0.pt.trace.json
R1=$DIR/rank1.pt.trace.json
GZ=$DIR/gz/rank0.pt.trace.json.gz
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

for t in json_verify gzip /usr/bin/time; do
  command -v "$t" >/dev/null || { echo "bench: $t missing (scripts/setup-deps.sh test; apt-get install time)" >&2; exit 1; }
done
if [ ! -s "$R0" ] || [ ! -s "$R1" ]; then
  echo "bench: generating $DIR (2 ranks, >= 380 MiB each: >= 250k GPU events)..." >&2
  "$GEN" -o "$DIR" --ranks 2 --target-mb 380 --straggler 1 --clock-offset-us 300 >/dev/null
fi
if [ ! -s "$GZ" ]; then
  mkdir -p "$DIR/gz"
  echo "bench: compressing rank 0 (gzip -6)..." >&2
  gzip -6 -c "$R0" > "$GZ.tmp" && mv "$GZ.tmp" "$GZ"
fi

# time_cmd NAME CMD...: runs CMD once; appends its wall seconds to $OUT/NAME and its CPU seconds
# (user + system, all threads) to $OUT/NAME.cpu
time_cmd() {
  local name=$1; shift
  /usr/bin/time -o "$OUT/t" -f "%e %U %S" "$@"
  tail -1 "$OUT/t" | awk '{printf "%.4f\n", $1}' >> "$OUT/$name"
  tail -1 "$OUT/t" | awk '{printf "%.4f\n", $2 + $3}' >> "$OUT/$name.cpu"
}
median() { sort -g "$OUT/$1" | awk '{v[NR]=$1} END {if (NR % 2) print v[(NR+1)/2]; else printf "%.4f\n", (v[NR/2]+v[NR/2+1])/2}'; }
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)

size() { stat -c %s "$1"; }
S0=$(size "$R0"); S1=$(size "$R1"); SG=$(size "$GZ")

# warm the page cache so every command reads from memory
cat "$R0" "$R1" "$GZ" > /dev/null

# json_verify pinned to each core in turn: on shared VMs one vCPU can be much slower than another
# for a while, which a one-thread command may or may not land on; the ratios then mean little
core_speeds() {
  local c out=""
  command -v taskset >/dev/null || { echo "(taskset missing)"; return; }
  for ((c = 0; c < $(nproc); c++)); do
    /usr/bin/time -o "$OUT/core" -f "%e" taskset -c "$c" sh -c "json_verify -q < '$R0'"
    out="$out $(tail -1 "$OUT/core")"
  done
  echo "${out# }"
}
spread() { echo "$1" | awk '{min = $1; max = $1; for (i = 2; i <= NF; i++) { if ($i < min) min = $i; if ($i > max) max = $i } print (min > 0 && max / min > 1.2) ? "UNEVEN" : "even"}'; }
CORES_BEFORE=$(core_speeds)

for ((i = 1; i <= RUNS; i++)); do
  time_cmd cat            sh -c "cat '$R0' > /dev/null"
  time_cmd json_verify    sh -c "json_verify -q < '$R0'"
  time_cmd tracecost      "$TC" analyze -q --json "$OUT/plain.json" "$R0"
  time_cmd gzip_dc        sh -c "gzip -dc '$GZ' > /dev/null"
  time_cmd tracecost_gz   "$TC" analyze -q --json "$OUT/gz.json" "$GZ"
  time_cmd two_together   "$TC" analyze -q --json "$OUT/two.json" "$R0" "$R1"
  time_cmd two_j1         "$TC" analyze -q -j1 --json "$OUT/two1.json" "$R0" "$R1"
  time_cmd two_separate   sh -c "'$TC' analyze -q --json '$OUT/a.json' '$R0' && '$TC' analyze -q --json '$OUT/b.json' '$R1'"
  echo "bench: round $i of $RUNS done" >&2
done

CORES_AFTER=$(core_speeds)
rss() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1; }
RSS_PLAIN=$(rss "$TC" analyze -q --json "$OUT/r.json" "$R0")
RSS_GZ=$(rss "$TC" analyze -q --json "$OUT/r.json" "$GZ")
RSS_TWO=$(rss "$TC" analyze -q --json "$OUT/r.json" "$R0" "$R1")
GPU_EVENTS=$(grep -m1 '"gpu_events"' "$OUT/plain.json" | tr -dc 0-9)
cmp -s "$OUT/two.json" "$OUT/two1.json" && SAME=yes || SAME=NO

mbps() { awk -v b="$1" -v s="$2" 'BEGIN {printf "%.0f", b / 1e6 / s}'; }
row() { printf "  %-44s %8.3f s %8s MB/s %8.3f s CPU\n" "$1" "$2" "$(mbps "$3" "$2")" "$(median "$4.cpu")"; }
verdict() { awk -v v="$1" -v op="$2" -v t="$3" 'BEGIN {ok = (op == "<=") ? v <= t : v >= t; printf "%.2f (target %s %s) %s", v, op, t, ok ? "PASS" : "FAIL"}'; }

T_CAT=$(median cat); T_JV=$(median json_verify); T_TC=$(median tracecost)
T_GZ=$(median gzip_dc); T_TCGZ=$(median tracecost_gz)
T_TWO=$(median two_together); T_TWO1=$(median two_j1); T_SEP=$(median two_separate)

echo "tracecost bench: median of $RUNS interleaved runs: wall time, MB/s (MB = 1e6 bytes of JSON: the decompressed size for gzip), CPU time (user+sys)"
echo "load average (1, 5, 15 min) before: $LOAD_BEFORE, after: $(cut -d' ' -f1-3 /proc/loadavg) (other work on the machine slows every wall time)"
echo "json_verify pinned to each core (s): before: $CORES_BEFORE, after: $CORES_AFTER ($(spread "$CORES_BEFORE") / $(spread "$CORES_AFTER"))"
if [ "$(spread "$CORES_BEFORE")" = UNEVEN ] || [ "$(spread "$CORES_AFTER")" = UNEVEN ]; then
  echo "WARNING: the cores ran at different speeds (another guest on the host?): one-thread and multi-thread times"
  echo "         are not comparable in this run; run the bench again when the per-core times agree"
fi
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(uname -sr)"
echo "gzip engine: $(nm -D "$TC" 2>/dev/null | grep -q isal_inflate && echo isa-l || (ldd "$TC" | grep -q libisal && echo isa-l || echo zlib))"
echo "input: $R0 ($S0 bytes, $GPU_EVENTS GPU events), $R1 ($S1 bytes), $GZ ($SG bytes)"
row "cat FILE > /dev/null" "$T_CAT" "$S0" cat
row "json_verify -q < FILE" "$T_JV" "$S0" json_verify
row "tracecost analyze FILE" "$T_TC" "$S0" tracecost
row "gzip -dc FILE.gz > /dev/null" "$T_GZ" "$S0" gzip_dc
row "tracecost analyze FILE.gz" "$T_TCGZ" "$S0" tracecost_gz
row "tracecost analyze RANK0 RANK1 (together)" "$T_TWO" "$((S0 + S1))" two_together
row "tracecost analyze -j1 RANK0 RANK1" "$T_TWO1" "$((S0 + S1))" two_j1
row "tracecost analyze RANK0; ... RANK1" "$T_SEP" "$((S0 + S1))" two_separate
echo "ratios:"
echo "  plain: tracecost / json_verify          $(verdict "$(awk -v a="$T_TC" -v b="$T_JV" 'BEGIN{print a/b}')" '<=' 0.8)"
echo "  gzip:  tracecost / gzip -dc             $(verdict "$(awk -v a="$T_TCGZ" -v b="$T_GZ" 'BEGIN{print a/b}')" '<=' 0.8)"
echo "  two files: -j1 (one after the other) / together  $(verdict "$(awk -v a="$T_TWO1" -v b="$T_TWO" 'BEGIN{print a/b}')" '>=' 1.6)"
echo "  two files: separate runs / together     $(awk -v a="$T_SEP" -v b="$T_TWO" 'BEGIN{printf "%.2f", a/b}') (each separate run already uses every core)"
echo "  -j1 and -jN JSON identical: $SAME"
echo "peak RSS (max resident set, GNU time):"
echo "  plain MiB: $(verdict "$((RSS_PLAIN / 1024))" '<=' 150)"
echo "  gzip  MiB: $(verdict "$((RSS_GZ / 1024))" '<=' 150)"
echo "  two files together $((RSS_TWO / 1024)) MiB"
