#!/bin/bash
# bench.sh: speed and memory of `tracecost analyze` against the tools that bound it (issues 7, 22),
# on the same job in each layout traces come in: Kineto's own, one line (Python json.dumps),
# indent 2 with sorted keys (json.dumps(indent=2, sort_keys=True): "args" first), indent 4.
# Generates bench/data/LAYOUT/ (two 380 MiB rank files and a gzip of rank 0) with build/tracegen
# when missing, then runs every command RUNS times, interleaved (one round runs each command of
# every layout once, so all see the same machine load), and prints per layout the median wall
# time, MB/s (MB = 1e6 bytes of JSON, the decompressed size for gzip), CPU time, the ratios the
# issues target with PASS/FAIL and peak RSS (GNU time's maximum resident set size); then one table
# of the ratios of every layout, and json_verify's time pinned to each core before and after the
# rounds, with a warning when the cores ran at different speeds.
# Then the distinct-names case (issue 30): one trace of 5 million kernels, each with its own 43-byte
# name (bench/data/names/, 664 MB, written by awk when missing), -j1 and -jN, RUNS times each:
# median wall and CPU time, peak RSS, against 3 s and 600 MB (10^6 bytes).
# Usage: bench/bench.sh [RUNS]   (default 5; env TRACECOST, TRACEGEN, BENCH_DIR override paths,
# LAYOUTS="kineto oneline" a subset, BENCH_MB the rank files' size in MiB, default 380,
# NAMES_K the distinct names in thousands, default 5000; 0 leaves the case out)
set -eu
RUNS=${1:-5}
TC=${TRACECOST:-build/tracecost}
GEN=${TRACEGEN:-build/tracegen}
DIR=${BENCH_DIR:-bench/data}
LAYOUTS=${LAYOUTS:-kineto oneline indent2sorted indent4}
MB=${BENCH_MB:-380}
NAMES_K=${NAMES_K:-5000}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

for t in json_verify gzip /usr/bin/time; do
  command -v "$t" >/dev/null || { echo "bench: $t missing (scripts/setup-deps.sh test; apt-get install time)" >&2; exit 1; }
done
r0() { echo "$DIR/$1/rank0.pt.trace.json"; }
r1() { echo "$DIR/$1/rank1.pt.trace.json"; }
gz() { echo "$DIR/$1/gz/rank0.pt.trace.json.gz"; }
for l in $LAYOUTS; do
  if [ ! -s "$(r0 "$l")" ] || [ ! -s "$(r1 "$l")" ]; then
    echo "bench: generating $DIR/$l (2 ranks, >= $MB MiB each (380: >= 250k GPU events), layout $l)..." >&2
    "$GEN" -o "$DIR/$l" --ranks 2 --target-mb "$MB" --straggler 1 --clock-offset-us 300 --layout "$l" >/dev/null
  fi
  if [ ! -s "$(gz "$l")" ]; then
    mkdir -p "$DIR/$l/gz"
    echo "bench: compressing $l rank 0 (gzip -6)..." >&2
    gzip -6 -c "$(r0 "$l")" > "$(gz "$l").tmp" && mv "$(gz "$l").tmp" "$(gz "$l")"
  fi
done
NAMES_FILE="$DIR/names/names_${NAMES_K}k.json"
if [ "$NAMES_K" -gt 0 ] && [ ! -s "$NAMES_FILE" ]; then
  mkdir -p "$DIR/names"
  echo "bench: writing $NAMES_FILE ($NAMES_K thousand kernels with distinct names)..." >&2
  awk -v N=$((NAMES_K * 1000)) 'BEGIN {
    printf "{\"traceEvents\": [\n";
    for (i = 0; i < N; i++) printf "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"void at::native::kernel_%07d<float>(int)\", \"pid\": 0, \"tid\": 7, \"ts\": %d, \"dur\": 5}%s\n", i, i * 10, i < N - 1 ? "," : "";
    printf "]}\n" }' > "$NAMES_FILE.tmp" && mv "$NAMES_FILE.tmp" "$NAMES_FILE"
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
FIRST=${LAYOUTS%% *}

# json_verify pinned to each core in turn: on shared VMs one vCPU can be much slower than another
# for a while, which a one-thread command may or may not land on; the ratios then mean little
core_speeds() {
  local c out="" f
  f=$(r0 "$FIRST")
  command -v taskset >/dev/null || { echo "(taskset missing)"; return; }
  for ((c = 0; c < $(nproc); c++)); do
    /usr/bin/time -o "$OUT/core" -f "%e" taskset -c "$c" sh -c "json_verify -q < '$f'"
    out="$out $(tail -1 "$OUT/core")"
  done
  echo "${out# }"
}
spread() { echo "$1" | awk '{min = $1; max = $1; for (i = 2; i <= NF; i++) { if ($i < min) min = $i; if ($i > max) max = $i } print (min > 0 && max / min > 1.2) ? "UNEVEN" : "even"}'; }
CORES_BEFORE=$(core_speeds)

# one round of one layout's commands
round() {
  local l=$1 a b g
  a=$(r0 "$l"); b=$(r1 "$l"); g=$(gz "$l")
  cat "$a" "$b" "$g" > /dev/null # the page cache holds every input (several layouts may not all fit)
  time_cmd "$l.cat"          sh -c "cat '$a' > /dev/null"
  time_cmd "$l.json_verify"  sh -c "json_verify -q < '$a'"
  time_cmd "$l.tracecost"    "$TC" analyze -q --json "$OUT/$l.plain.json" "$a"
  time_cmd "$l.gzip_dc"      sh -c "gzip -dc '$g' > /dev/null"
  time_cmd "$l.tracecost_gz" "$TC" analyze -q --json "$OUT/$l.gz.json" "$g"
  time_cmd "$l.two"          "$TC" analyze -q --json "$OUT/$l.two.json" "$a" "$b"
  time_cmd "$l.two_j1"       "$TC" analyze -q -j1 --json "$OUT/$l.two1.json" "$a" "$b"
  time_cmd "$l.two_separate" sh -c "'$TC' analyze -q --json '$OUT/a.json' '$a' && '$TC' analyze -q --json '$OUT/b.json' '$b'"
}
# the distinct-names case: wall and CPU time as above, and each run's peak RSS (KiB) in $OUT/NAME.rss
names_round() {
  [ "$NAMES_K" -gt 0 ] || return 0
  cat "$NAMES_FILE" > /dev/null
  for j in 1 N; do
    local jf=(); [ "$j" = 1 ] && jf=(-j1)
    /usr/bin/time -o "$OUT/t" -f "%e %U %S %M" "$TC" analyze -q "${jf[@]}" --json "$OUT/names.$j.json" "$NAMES_FILE"
    tail -1 "$OUT/t" | awk '{printf "%.4f\n", $1}' >> "$OUT/names.$j"
    tail -1 "$OUT/t" | awk '{printf "%.4f\n", $2 + $3}' >> "$OUT/names.$j.cpu"
    tail -1 "$OUT/t" | awk '{print $4}' >> "$OUT/names.$j.rss"
  done
}
for ((i = 1; i <= RUNS; i++)); do
  for l in $LAYOUTS; do round "$l"; done
  names_round
  echo "bench: round $i of $RUNS done" >&2
done
CORES_AFTER=$(core_speeds)
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)

rss() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1; }
mbps() { awk -v b="$1" -v s="$2" 'BEGIN {printf "%.0f", b / 1e6 / s}'; }
row() { printf "  %-44s %8.3f s %8s MB/s %8.3f s CPU\n" "$1" "$2" "$(mbps "$3" "$2")" "$(median "$4.cpu")"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.4f", a / b}'; }
verdict() { awk -v v="$1" -v op="$2" -v t="$3" 'BEGIN {ok = (op == "<=") ? v <= t : v >= t; printf "%.2f (target %s %s) %s", v, op, t, ok ? "PASS" : "FAIL"}'; }
# pf VALUE OP TARGET [FORMAT]: the value and PASS/FAIL, for the summary table
pf() { awk -v v="$1" -v op="$2" -v t="$3" -v f="${4:-%5.2f}" 'BEGIN {ok = (op == "<=") ? v <= t : v >= t; printf f " %s", v, ok ? "PASS" : "FAIL"}'; }

echo "tracecost bench: median of $RUNS interleaved runs: wall time, MB/s (MB = 1e6 bytes of JSON: the decompressed size for gzip), CPU time (user+sys)"
echo "load average (1, 5, 15 min) before: $LOAD_BEFORE, after: $LOAD_AFTER (other work on the machine slows every wall time)"
echo "json_verify pinned to each core (s, $FIRST rank 0): before: $CORES_BEFORE, after: $CORES_AFTER ($(spread "$CORES_BEFORE") / $(spread "$CORES_AFTER"))"
if [ "$(spread "$CORES_BEFORE")" = UNEVEN ] || [ "$(spread "$CORES_AFTER")" = UNEVEN ]; then
  echo "WARNING: the cores ran at different speeds (another guest on the host?): one-thread and multi-thread times"
  echo "         are not comparable in this run; run the bench again when the per-core times agree"
fi
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(uname -sr)"
echo "gzip engine: $(nm -D "$TC" 2>/dev/null | grep -q isal_inflate && echo isa-l || (ldd "$TC" | grep -q libisal && echo isa-l || echo zlib))"
SUMMARY=""
for l in $LAYOUTS; do
  a=$(r0 "$l"); b=$(r1 "$l"); g=$(gz "$l")
  S0=$(size "$a"); S1=$(size "$b"); SG=$(size "$g")
  cat "$a" "$b" "$g" > /dev/null
  RSS_PLAIN=$(rss "$TC" analyze -q --json "$OUT/r.json" "$a")
  RSS_GZ=$(rss "$TC" analyze -q --json "$OUT/r.json" "$g")
  RSS_TWO=$(rss "$TC" analyze -q --json "$OUT/r.json" "$a" "$b")
  GPU_EVENTS=$(grep -m1 '"gpu_events"' "$OUT/$l.plain.json" | tr -dc 0-9)
  cmp -s "$OUT/$l.two.json" "$OUT/$l.two1.json" && SAME=yes || SAME=NO
  T_CAT=$(median "$l.cat"); T_JV=$(median "$l.json_verify"); T_TC=$(median "$l.tracecost")
  T_GZ=$(median "$l.gzip_dc"); T_TCGZ=$(median "$l.tracecost_gz")
  T_TWO=$(median "$l.two"); T_TWO1=$(median "$l.two_j1"); T_SEP=$(median "$l.two_separate")
  P=$(ratio "$T_TC" "$T_JV"); G=$(ratio "$T_TCGZ" "$T_GZ"); W=$(ratio "$T_TWO1" "$T_TWO")
  echo
  echo "layout $l: $a ($S0 bytes, $GPU_EVENTS GPU events), $b ($S1 bytes), $g ($SG bytes)"
  row "cat FILE > /dev/null" "$T_CAT" "$S0" "$l.cat"
  row "json_verify -q < FILE" "$T_JV" "$S0" "$l.json_verify"
  row "tracecost analyze FILE" "$T_TC" "$S0" "$l.tracecost"
  row "gzip -dc FILE.gz > /dev/null" "$T_GZ" "$S0" "$l.gzip_dc"
  row "tracecost analyze FILE.gz" "$T_TCGZ" "$S0" "$l.tracecost_gz"
  row "tracecost analyze RANK0 RANK1 (together)" "$T_TWO" "$((S0 + S1))" "$l.two"
  row "tracecost analyze -j1 RANK0 RANK1" "$T_TWO1" "$((S0 + S1))" "$l.two_j1"
  row "tracecost analyze RANK0; ... RANK1" "$T_SEP" "$((S0 + S1))" "$l.two_separate"
  echo " ratios:"
  echo "  plain: tracecost / json_verify          $(verdict "$P" '<=' 0.8)"
  echo "  gzip:  tracecost / gzip -dc             $(verdict "$G" '<=' 0.8)"
  echo "  two files: -j1 (one after the other) / together  $(verdict "$W" '>=' 1.6)"
  echo "  two files: separate runs / together     $(awk -v a="$T_SEP" -v b="$T_TWO" 'BEGIN{printf "%.2f", a/b}') (each separate run already uses every core)"
  echo "  -j1 and -jN JSON identical: $SAME"
  echo " peak RSS (max resident set, GNU time):"
  echo "  plain MiB: $(verdict "$((RSS_PLAIN / 1024))" '<=' 150)"
  echo "  gzip  MiB: $(verdict "$((RSS_GZ / 1024))" '<=' 150)"
  echo "  two files together $((RSS_TWO / 1024)) MiB"
  SUMMARY="$SUMMARY$(printf "  %-14s %s    %s    %s    %s    %s    %s" "$l" "$(pf "$P" '<=' 0.8)" "$(pf "$G" '<=' 0.8)" \
    "$(pf "$W" '>=' 1.6)" "$(pf "$((RSS_PLAIN / 1024))" '<=' 150 %5d)" "$(pf "$((RSS_GZ / 1024))" '<=' 150 %5d)" "$SAME")
"
done
echo
echo "summary (targets: plain <= 0.8, gzip <= 0.8, two files >= 1.6, RSS <= 150 MiB):"
echo "  layout         plain/jv      gzip/gzip-dc  -j1/together  RSS plain     RSS gzip      -j1 = -jN"
printf "%s" "$SUMMARY"
if [ "$NAMES_K" -gt 0 ]; then
  echo
  echo "distinct names: $NAMES_FILE ($(size "$NAMES_FILE") bytes, $NAMES_K thousand kernels, each its own name)"
  NSUM=""
  for j in 1 N; do
    T=$(median "names.$j"); R=$(sort -n "$OUT/names.$j.rss" | tail -1)
    RMB=$(awk -v k="$R" 'BEGIN {printf "%.0f", k * 1024 / 1e6}')
    row "tracecost analyze -j$j FILE" "$T" "$(size "$NAMES_FILE")" "names.$j"
    echo "    wall $(verdict "$T" '<=' 3), peak RSS MB (1e6 bytes, largest of the runs) $(verdict "$RMB" '<=' 600)"
    cmp -s "$OUT/names.1.json" "$OUT/names.$j.json" || NSUM="$NSUM (-j1 and -jN JSON differ!)"
  done
  echo "  -j1 and -jN JSON identical: $([ -z "$NSUM" ] && echo yes || echo NO)"
fi
