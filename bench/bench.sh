#!/bin/bash
# bench.sh: speed and memory of `tracecost analyze` against the tools that bound it (issues 7, 22, 35),
# in one interleaved run: every command below runs once per round, the rounds repeat RUNS times, so
# all see the same machine load; every figure is the median of the rounds (peak RSS: the largest).
#  - per layout traces come in (Kineto's own, one line as Python json.dumps writes it, indent 2 with
#    sorted keys, indent 4), on bench/data/LAYOUT/ (two ~411 MB rank files of one job and a gzip -6
#    of rank 0): cat, json_verify, `analyze FILE` (default -j and -j1), gzip -dc, `analyze FILE.gz`,
#    both rank files together (default -j, -j1, two separate runs);
#  - files of unequal sizes (bench/data/files/: eight ranks of one job, Kineto's layout, sizes from
#    about 0.08 to 0.75 of BENCH_MB): the first 2, 3 and 8 in one call, default -j against -j1 (one
#    file after the other);
#  - the gzip forms tracecost splits on the pool (issue 35 item 2), of the first layout's rank 0,
#    written by bench/gzforms.py: a full flush every 128 KiB (as pigz --independent) and BGZF (as
#    bgzip): gzip -dc and `analyze FILE.gz` of each, against the one stream (gzip -6) above;
#  - the distinct-names case (issue 30): 5 million kernels, each its own 43-byte name
#    (bench/data/names/, 664 MB, written by awk), -j1 and the default -j.
# It prints per layout wall time, MB/s (MB = 1e6 bytes of JSON: the decompressed size for gzip), CPU
# time (user + system, all threads), peak RSS (GNU time's maximum resident set size) and issue 35's
# ratios with PASS/FAIL; then the files' ratios; then the checks that results are byte-identical across
# -j values (every pair above), layouts (bench/data/same/: one job written in each layout with a fixed
# step count, so the same events; the JSON compared with the inputs' byte counts masked) and scanner
# paths (TRACECOST_SCAN=scalar|sse2|avx2 on each layout's rank 0 against the default run's JSON); then
# one summary table. json_verify pinned to each core before and after warns when the cores ran at
# different speeds. Exit status 1 when a byte-identity check fails (timings never fail the run).
# Missing data is generated with build/tracegen (tens of seconds); existing data is reused as it is.
# Usage: bench/bench.sh [RUNS]   (default 5; env TRACECOST, TRACEGEN, BENCH_DIR override paths,
# LAYOUTS="kineto oneline" a subset, BENCH_MB the rank files' size in MiB, default 380 (the unequal
# files and the layout check's job scale with it), FILE_COUNTS="2 3 8" the files cases, NAMES_K the
# distinct names in thousands, default 5000; 0 leaves the case out)
set -eu
export LC_ALL=C # a decimal point in EPOCHREALTIME, awk and sort -g
RUNS=${1:-5}
TC=${TRACECOST:-build/tracecost}
GEN=${TRACEGEN:-build/tracegen}
DIR=${BENCH_DIR:-bench/data}
LAYOUTS=${LAYOUTS:-kineto oneline indent2sorted indent4}
MB=${BENCH_MB:-380}
FILE_COUNTS=${FILE_COUNTS:-2 3 8}
NAMES_K=${NAMES_K:-5000}
# issue 35's targets
T_PLAIN=0.4 T_GZIP=0.4 T_FILES=1.8 T_RSS=150
# the unequal files: rank k's size in percent of BENCH_MB (the largest third, so the 3-file case ends
# on its biggest file); the layout check's job: steps per rank (about 70 KB per step in Kineto's layout)
FILES_PCT="50 30 75 15 40 10 25 8"
SAME_STEPS=$((MB * 3 / 2 > 20 ? MB * 3 / 2 : 20))
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

for t in json_verify gzip /usr/bin/time "$TC" "$GEN"; do
  command -v "$t" >/dev/null || { echo "bench: $t missing (make; scripts/setup-deps.sh test; apt-get install time)" >&2; exit 1; }
done
# absolute, since the layout check runs tracecost in the data's folders
abspath() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
TC=$(abspath "$(command -v "$TC")")
r0() { echo "$DIR/$1/rank0.pt.trace.json"; }
r1() { echo "$DIR/$1/rank1.pt.trace.json"; }
gz() { echo "$DIR/$1/gz/rank0.pt.trace.json.gz"; }
size() { stat -c %s "$1"; }

# ---- data: reused when present (a stamp names the options of the generated sets) ----
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
# The gzip forms tracecost splits on the pool (issue 35 item 2), of the first layout's rank 0: a
# full flush every 128 KiB (as pigz --independent) and BGZF (as bgzip), by bench/gzforms.py
FIRST=${LAYOUTS%% *}
gzf() { echo "$DIR/$FIRST/gz/rank0.$1.json.gz"; }
GZ_FORMS="flush bgzf"
for form in $GZ_FORMS; do
  if [ ! -s "$(gzf "$form")" ]; then
    echo "bench: writing $(gzf "$form") ($form, zlib level 6)..." >&2
    python3 "$(dirname "$0")/gzforms.py" "$form" "$(r0 "$FIRST")" "$(gzf "$form").tmp" && mv "$(gzf "$form").tmp" "$(gzf "$form")"
  fi
done
# The unequal files: tracegen gives every rank of a job the same size, so each file is a one-rank job
# of its own --target-mb and seed (no collectives) whose distributedInfo line is rewritten to rank k
# of a world of all the files: analyze takes them as the ranks of one job (fewer files than the world:
# partial data).
NFILES=$(echo "$FILES_PCT" | wc -w)
FILES_STAMP="mb=$MB pct=$FILES_PCT"
fmb() { echo "$FILES_PCT" | awk -v k="$1" -v mb="$MB" '{m = int(mb * $(k + 1) / 100); print (m > 1 ? m : 1)}'; }
ff() { echo "$DIR/files/rank$1.pt.trace.json"; }
if [ "$(cat "$DIR/files/stamp" 2>/dev/null)" != "$FILES_STAMP" ]; then
  rm -rf "$DIR/files"; mkdir -p "$DIR/files"
  WORLD=$(seq -s ', ' 0 $((NFILES - 1)))
  for ((k = 0; k < NFILES; k++)); do
    echo "bench: generating $(ff "$k") (>= $(fmb "$k") MiB, rank $k of $NFILES)..." >&2
    "$GEN" -o "$DIR/files/tmp" --ranks 1 --target-mb "$(fmb "$k")" --seed $((k + 1)) >/dev/null
    sed '1,40{/^  "distributedInfo": /s/"rank": 0, "world_size": 1, \(.*\)"pg_size": 1, "ranks": \[0\]/"rank": '"$k"', "world_size": '"$NFILES"', \1"pg_size": '"$NFILES"', "ranks": ['"$WORLD"']/}' \
      "$DIR/files/tmp/rank0.pt.trace.json" > "$(ff "$k")"
    rm -rf "$DIR/files/tmp"
    head -40 "$(ff "$k")" | grep -q "\"rank\": $k, \"world_size\": $NFILES," ||
      { echo "bench: $(ff "$k"): distributedInfo not rewritten (tracegen's head changed?)" >&2; exit 1; }
  done
  echo "$FILES_STAMP" > "$DIR/files/stamp"
fi
for n in $FILE_COUNTS; do
  if [ "$n" -lt 1 ] || [ "$n" -gt "$NFILES" ]; then echo "bench: FILE_COUNTS: $n is not in 1..$NFILES" >&2; exit 1; fi
done
files() { local k; for ((k = 0; k < $1; k++)); do ff "$k"; done; }
# The layout check's job: a fixed step count, no --target-mb, so every layout holds the same events
for l in $LAYOUTS; do
  if [ "$(cat "$DIR/same/$l/stamp" 2>/dev/null)" != "steps=$SAME_STEPS" ]; then
    echo "bench: generating $DIR/same/$l (2 ranks, $SAME_STEPS steps, layout $l)..." >&2
    rm -rf "$DIR/same/$l"
    "$GEN" -o "$DIR/same/$l" --ranks 2 --steps "$SAME_STEPS" --straggler 1 --clock-offset-us 300 --layout "$l" >/dev/null
    echo "steps=$SAME_STEPS" > "$DIR/same/$l/stamp"
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

# ---- timing ----
# time_cmd NAME CMD...: runs CMD once; appends its wall seconds (bash's clock in microseconds: GNU
# time's %e has only 10 ms) to $OUT/NAME, its CPU seconds (user + system, all threads) to
# $OUT/NAME.cpu and its peak RSS (KiB) to $OUT/NAME.rss
time_cmd() {
  local name=$1 t0 t1; shift
  t0=$EPOCHREALTIME
  /usr/bin/time -o "$OUT/t" -f "%U %S %M" "$@"
  t1=$EPOCHREALTIME
  tail -1 "$OUT/t" | awk -v f="$OUT/$name" -v t0="$t0" -v t1="$t1" \
    '{printf "%.4f\n", t1 - t0 >> f; printf "%.4f\n", $1 + $2 >> (f ".cpu"); print $3 >> (f ".rss")}'
}
median() { sort -g "$OUT/$1" | awk '{v[NR]=$1} END {if (NR % 2) print v[(NR+1)/2]; else printf "%.4f\n", (v[NR/2]+v[NR/2+1])/2}'; }
rss_mib() { sort -n "$OUT/$1.rss" | tail -1 | awk '{printf "%d", $1 / 1024}'; }
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)

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
  time_cmd "$l.tracecost_j1" "$TC" analyze -q -j1 --json "$OUT/$l.plain1.json" "$a"
  time_cmd "$l.gzip_dc"      sh -c "gzip -dc '$g' > /dev/null"
  time_cmd "$l.tracecost_gz" "$TC" analyze -q --json "$OUT/$l.gz.json" "$g"
  time_cmd "$l.two"          "$TC" analyze -q --json "$OUT/$l.two.json" "$a" "$b"
  time_cmd "$l.two_j1"       "$TC" analyze -q -j1 --json "$OUT/$l.two1.json" "$a" "$b"
  time_cmd "$l.two_separate" sh -c "'$TC' analyze -q --json '$OUT/a.json' '$a' && '$TC' analyze -q --json '$OUT/b.json' '$b'"
}
# one round of the unequal files: each count with the default -j, then -j1
files_round() {
  local n f
  for n in $FILE_COUNTS; do
    mapfile -t f < <(files "$n")
    cat "${f[@]}" > /dev/null
    time_cmd "files$n"    "$TC" analyze -q --json "$OUT/files$n.json" "${f[@]}"
    time_cmd "files$n.j1" "$TC" analyze -q -j1 --json "$OUT/files$n.1.json" "${f[@]}"
  done
}
# the gzip forms: gzip -dc and analyze (default -j) of each
gzforms_round() {
  local form g
  for form in $GZ_FORMS; do
    g=$(gzf "$form")
    cat "$g" > /dev/null
    time_cmd "gz.$form.gzip_dc" sh -c "gzip -dc '$g' > /dev/null"
    time_cmd "gz.$form"         "$TC" analyze -q --json "$OUT/gz.$form.json" "$g"
  done
}
# the distinct-names case: -j1, then the default -j
names_round() {
  [ "$NAMES_K" -gt 0 ] || return 0
  cat "$NAMES_FILE" > /dev/null
  time_cmd names.1 "$TC" analyze -q -j1 --json "$OUT/names.1.json" "$NAMES_FILE"
  time_cmd names.N "$TC" analyze -q --json "$OUT/names.N.json" "$NAMES_FILE"
}
for ((i = 1; i <= RUNS; i++)); do
  for l in $LAYOUTS; do round "$l"; done
  gzforms_round
  files_round
  names_round
  echo "bench: round $i of $RUNS done" >&2
done
CORES_AFTER=$(core_speeds)
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)

# ---- byte-identity checks (untimed) ----
# same_json A B WHAT: yes when the files are byte-identical, else NO, and WHAT is written to
# $OUT/differ (a file, since the callers run it in a subshell): the run then exits 1
same_json() { if cmp -s "$1" "$2"; then echo yes; else echo NO; echo "$3" >> "$OUT/differ"; fi; }
# the inputs' byte counts are the only thing a layout changes in the JSON: masked inside "inputs"
mask_bytes() {
  awk '/^  "inputs": \[/ {in_inputs = 1} in_inputs && /^  \],?$/ {in_inputs = 0}
       in_inputs {sub(/"bytes": [0-9]+/, "\"bytes\": (masked)")} {print}' "$1"
}
# layouts: the same job (bench/data/same/LAYOUT), analyzed in its folder so the paths are the same
LAYOUT_CHECK=""
for l in $LAYOUTS; do
  (cd "$DIR/same/$l" && "$TC" analyze -q --json "$OUT/same.$l.json" rank0.pt.trace.json rank1.pt.trace.json)
  mask_bytes "$OUT/same.$l.json" > "$OUT/same.$l.masked"
  if [ "$l" = "$FIRST" ]; then continue; fi
  s=$(same_json "$OUT/same.$FIRST.masked" "$OUT/same.$l.masked" "layouts: $DIR/same/$FIRST and $DIR/same/$l")
  LAYOUT_CHECK="$LAYOUT_CHECK $l=$s"
  [ "$s" = yes ] || diff "$OUT/same.$FIRST.masked" "$OUT/same.$l.masked" | head -6 > "$OUT/same.$l.diff" || true
done
# scanner paths: each forced path's JSON against the default run's, on every layout's rank 0; and
# the walk without templates (TRACECOST_TEMPLATES=off, "walk")
SCAN_PATHS="scalar sse2 avx2 walk"
scan_env() { if [ "$1" = walk ]; then echo TRACECOST_TEMPLATES=off; else echo "TRACECOST_SCAN=$1"; fi; }
if grep -qa TRACECOST_SCAN "$TC"; then SCAN_READ=yes; else SCAN_READ=no; fi
if grep -qw avx2 /proc/cpuinfo; then CPU_AVX2=yes; else CPU_AVX2=no; fi
for l in $LAYOUTS; do
  for p in $SCAN_PATHS; do
    env "$(scan_env "$p")" "$TC" analyze -q --json "$OUT/$l.scan.$p.json" "$(r0 "$l")"
    (cd "$DIR/same/$l" && env "$(scan_env "$p")" "$TC" analyze -q -j1 --json "$OUT/same.$l.scan.$p.json" rank0.pt.trace.json rank1.pt.trace.json)
  done
done

# ---- report ----
mbps() { awk -v b="$1" -v s="$2" 'BEGIN {printf "%.0f", (s > 0 ? b / 1e6 / s : 0)}'; }
row() { printf "  %-44s %8.3f s %8s MB/s %8.3f s CPU\n" "$1" "$2" "$(mbps "$3" "$2")" "$(median "$4.cpu")"; }
rowm() { printf "  %-44s %8.3f s %8s MB/s %8.3f s CPU %6d MiB\n" "$1" "$2" "$(mbps "$3" "$2")" "$(median "$4.cpu")" "$(rss_mib "$4")"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.4f", (b > 0 ? a / b : 0)}'; }
verdict() { awk -v v="$1" -v op="$2" -v t="$3" 'BEGIN {ok = (op == "<=") ? v <= t : v >= t; printf "%.2f (target %s %s) %s", v, op, t, ok ? "PASS" : "FAIL"}'; }
# pf VALUE OP TARGET [FORMAT]: the value and PASS/FAIL, for the summary table
pf() { awk -v v="$1" -v op="$2" -v t="$3" -v f="${4:-%5.2f}" 'BEGIN {ok = (op == "<=") ? v <= t : v >= t; printf f " %s", v, ok ? "PASS" : "FAIL"}'; }
PASSES=0 FAILS=0
count() { case "$1" in *PASS*) PASSES=$((PASSES + 1)) ;; *FAIL*) FAILS=$((FAILS + 1)) ;; esac; }

echo "tracecost bench: median of $RUNS interleaved runs: wall time, MB/s (MB = 1e6 bytes of JSON: the decompressed size for gzip), CPU time (user+sys), peak RSS (largest of the runs)"
echo "load average (1, 5, 15 min) before: $LOAD_BEFORE, after: $LOAD_AFTER (other work on the machine slows every wall time)"
echo "json_verify pinned to each core (s, $FIRST rank 0): before: $CORES_BEFORE, after: $CORES_AFTER ($(spread "$CORES_BEFORE") / $(spread "$CORES_AFTER"))"
if [ "$(spread "$CORES_BEFORE")" = UNEVEN ] || [ "$(spread "$CORES_AFTER")" = UNEVEN ]; then
  echo "WARNING: the cores ran at different speeds (another guest on the host?): one-thread and multi-thread times"
  echo "         are not comparable in this run; run the bench again when the per-core times agree"
fi
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(uname -sr)"
if nm -D "$TC" 2>/dev/null | grep -q isal_inflate || ldd "$TC" 2>/dev/null | grep -q libisal; then ENGINE=isa-l; else ENGINE=zlib; fi
echo "gzip engine: $ENGINE; scanner: TRACECOST_SCAN read by this tracecost: $SCAN_READ, AVX2 on this CPU: $CPU_AVX2"
SUMMARY=""
for l in $LAYOUTS; do
  a=$(r0 "$l"); b=$(r1 "$l"); g=$(gz "$l")
  S0=$(size "$a"); S1=$(size "$b"); SG=$(size "$g")
  GPU_EVENTS=$(grep -m1 '"gpu_events"' "$OUT/$l.plain.json" | tr -dc 0-9)
  SAME_TWO=$(same_json "$OUT/$l.two.json" "$OUT/$l.two1.json" "-j1 and default -j: $a $b")
  SAME_ONE=$(same_json "$OUT/$l.plain.json" "$OUT/$l.plain1.json" "-j1 and default -j: $a")
  SAME=$([ "$SAME_ONE$SAME_TWO" = yesyes ] && echo yes || echo NO)
  T_CAT=$(median "$l.cat"); T_JV=$(median "$l.json_verify"); T_TC=$(median "$l.tracecost"); T_TC1=$(median "$l.tracecost_j1")
  T_GZ=$(median "$l.gzip_dc"); T_TCGZ=$(median "$l.tracecost_gz")
  T_TWO=$(median "$l.two"); T_TWO1=$(median "$l.two_j1"); T_SEP=$(median "$l.two_separate")
  P=$(ratio "$T_TC" "$T_JV"); G=$(ratio "$T_TCGZ" "$T_GZ"); W=$(ratio "$T_TWO1" "$T_TWO")
  RSS_PLAIN=$(rss_mib "$l.tracecost"); RSS_GZ=$(rss_mib "$l.tracecost_gz")
  echo
  echo "layout $l: $a ($S0 bytes, $GPU_EVENTS GPU events), $b ($S1 bytes), $g ($SG bytes)"
  echo "                                                     wall         rate            CPU   peak RSS"
  row "cat FILE > /dev/null" "$T_CAT" "$S0" "$l.cat"
  row "json_verify -q < FILE" "$T_JV" "$S0" "$l.json_verify"
  rowm "tracecost analyze FILE" "$T_TC" "$S0" "$l.tracecost"
  rowm "tracecost analyze -j1 FILE" "$T_TC1" "$S0" "$l.tracecost_j1"
  row "gzip -dc FILE.gz > /dev/null" "$T_GZ" "$S0" "$l.gzip_dc"
  rowm "tracecost analyze FILE.gz" "$T_TCGZ" "$S0" "$l.tracecost_gz"
  rowm "tracecost analyze RANK0 RANK1 (together)" "$T_TWO" "$((S0 + S1))" "$l.two"
  rowm "tracecost analyze -j1 RANK0 RANK1" "$T_TWO1" "$((S0 + S1))" "$l.two_j1"
  row "tracecost analyze RANK0; ... RANK1" "$T_SEP" "$((S0 + S1))" "$l.two_separate"
  echo " ratios (wall time):"
  V=$(verdict "$P" '<=' "$T_PLAIN"); count "$V"
  echo "  plain: tracecost / json_verify          $V"
  V=$(verdict "$G" '<=' "$T_GZIP"); count "$V"
  echo "  gzip:  tracecost / gzip -dc             $V"
  V=$(verdict "$W" '>=' "$T_FILES"); count "$V"
  echo "  two files: -j1 (one after the other) / together  $V"
  echo "  one file: -j1 / default -j              $(ratio "$T_TC1" "$T_TC" | awk '{printf "%.2f", $1}') (the parse and analysis of one file on every core)"
  echo "  two files: separate runs / together     $(ratio "$T_SEP" "$T_TWO" | awk '{printf "%.2f", $1}') (each separate run already uses every core)"
  echo "  CPU time: tracecost / json_verify $(ratio "$(median "$l.tracecost.cpu")" "$(median "$l.json_verify.cpu")" | awk '{printf "%.2f", $1}'), -j1 tracecost / json_verify $(ratio "$(median "$l.tracecost_j1.cpu")" "$(median "$l.json_verify.cpu")" | awk '{printf "%.2f", $1}'), tracecost gzip / gzip -dc $(ratio "$(median "$l.tracecost_gz.cpu")" "$(median "$l.gzip_dc.cpu")" | awk '{printf "%.2f", $1}') (no target: the load-proof view)"
  echo "  -j1 and default -j JSON identical: one file $SAME_ONE, two files $SAME_TWO"
  echo " peak RSS (max resident set, GNU time, largest of the runs):"
  V=$(verdict "$RSS_PLAIN" '<=' "$T_RSS"); count "$V"
  echo "  plain MiB: $V"
  V=$(verdict "$RSS_GZ" '<=' "$T_RSS"); count "$V"
  echo "  gzip  MiB: $V"
  echo "  two files together $(rss_mib "$l.two") MiB"
  SUMMARY="$SUMMARY$(printf "  %-14s %s    %s    %s    %s    %s    %s" "$l" "$(pf "$P" '<=' "$T_PLAIN")" "$(pf "$G" '<=' "$T_GZIP")" \
    "$(pf "$W" '>=' "$T_FILES")" "$(pf "$RSS_PLAIN" '<=' "$T_RSS" %5d)" "$(pf "$RSS_GZ" '<=' "$T_RSS" %5d)" "$SAME")
"
done

echo
# the inputs' path and byte counts masked: the forms are other files of the same bytes
mask_input() { mask_bytes "$1" | awk '/^  "inputs": \[/ {i = 1} i && /^  \],?$/ {i = 0} i {sub(/"path": ".*"/, "\"path\": (masked)")} {print}'; }
S0_FIRST=$(size "$(r0 "$FIRST")"); SG0=$(size "$(gz "$FIRST")"); T_STREAM=$(median "$FIRST.tracecost_gz")
mask_input "$OUT/$FIRST.gz.json" > "$OUT/gz.stream.masked"
echo "gzip forms of $(r0 "$FIRST") (split on the pool instead of one stream inflated by a reader thread; zlib level 6, bench/gzforms.py):"
echo "                                                     wall         rate            CPU   peak RSS"
GZ_LINE=""
for form in $GZ_FORMS; do
  case $form in flush) what="full flush every 128 KiB ($(size "$(gzf flush)") bytes)" ;; bgzf) what="BGZF ($(size "$(gzf bgzf)") bytes)" ;; esac
  echo "  $what"
  row "gzip -dc FILE.gz > /dev/null" "$(median "gz.$form.gzip_dc")" "$S0_FIRST" "gz.$form.gzip_dc"
  rowm "tracecost analyze FILE.gz" "$(median "gz.$form")" "$S0_FIRST" "gz.$form"
  mask_input "$OUT/gz.$form.json" > "$OUT/gz.$form.masked"
  SJ=$(same_json "$OUT/gz.stream.masked" "$OUT/gz.$form.masked" "gzip forms: $(gzf "$form") and $(gz "$FIRST")")
  VS=$(ratio "$(median "gz.$form")" "$T_STREAM" | awk '{printf "%.2f", $1}')
  echo "   tracecost / gzip -dc $(ratio "$(median "gz.$form")" "$(median "gz.$form.gzip_dc")" | awk '{printf "%.2f", $1}') (no target); wall against the one stream ($(gz "$FIRST"), $SG0 bytes, $(awk -v t="$T_STREAM" 'BEGIN {printf "%.3f s", t}')): $VS; JSON identical to the stream's: $SJ"
  GZ_LINE="$GZ_LINE $form $VS (JSON $SJ),"
done

echo
echo "files of unequal sizes: $DIR/files/rankK.pt.trace.json, ranks of one job of $NFILES, Kineto's layout (MB: $(for ((k = 0; k < NFILES; k++)); do size "$(ff "$k")"; done | awk '{printf "%s%.0f", (NR > 1 ? " " : ""), $1 / 1e6}'))"
echo "                                                     wall         rate            CPU   peak RSS"
FSUM=""
for n in $FILE_COUNTS; do
  mapfile -t f < <(files "$n")
  S=$(for x in "${f[@]}"; do size "$x"; done | awk '{s += $1} END {print s}')
  T=$(median "files$n"); T1=$(median "files$n.j1"); W=$(ratio "$T1" "$T")
  rowm "tracecost analyze $n files (default -j)" "$T" "$S" "files$n"
  rowm "tracecost analyze -j1 $n files" "$T1" "$S" "files$n.j1"
  SJ=$(same_json "$OUT/files$n.json" "$OUT/files$n.1.json" "-j1 and default -j: the first $n of $DIR/files")
  if [ "$n" = 2 ] || [ "$n" = 3 ]; then
    V=$(verdict "$W" '>=' "$T_FILES"); count "$V"; VS=$(echo "$V" | awk '{print $1, $NF}')
  else
    VS=$(awk -v w="$W" 'BEGIN {printf "%.2f", w}'); V="$VS (no target in issue 35)"
  fi
  echo "   $n files: -j1 (one after the other) / default -j  $V; JSON identical: $SJ"
  FSUM="$FSUM $n: $VS,"
done

echo
echo "byte-identical results (the JSON of --json):"
echo "  across -j values (-j1 against the default -j): every layout's one file and two files, the unequal files (above)"
if [ -z "$LAYOUT_CHECK" ]; then
  echo "  across layouts: one layout only, nothing to compare"
else
  echo "  across layouts ($DIR/same/: 2 ranks, $SAME_STEPS steps, $FIRST against each; the inputs' byte counts masked):$LAYOUT_CHECK"
  for l in $LAYOUTS; do
    if [ -s "$OUT/same.$l.diff" ]; then sed "s/^/    $l: /" "$OUT/same.$l.diff"; fi
  done
fi
SCAN_CHECK=""
for p in $SCAN_PATHS; do
  s=yes
  for l in $LAYOUTS; do
    [ "$(same_json "$OUT/$l.plain.json" "$OUT/$l.scan.$p.json" "$(scan_env "$p") and the default: $(r0 "$l")")" = yes ] || s=NO
    [ "$(same_json "$OUT/same.$l.json" "$OUT/same.$l.scan.$p.json" "$(scan_env "$p") -j1 and the default: $DIR/same/$l")" = yes ] || s=NO
  done
  SCAN_CHECK="$SCAN_CHECK $p=$s"
done
echo "  across scanner paths (TRACECOST_SCAN=PATH, and walk: TRACECOST_TEMPLATES=off, against the default: every layout's rank 0 with the default -j, its layout check's job with -j1):$SCAN_CHECK"
if [ "$SCAN_READ" = no ]; then
  echo "    (this tracecost does not read TRACECOST_SCAN: every run took its one scanner, so the check compared nothing)"
elif [ "$CPU_AVX2" = no ]; then
  echo "    (no AVX2 on this CPU: avx2 ran the best supported path)"
fi

echo
echo "summary, issue 35's targets (plain <= $T_PLAIN of json_verify, gzip <= $T_GZIP of gzip -dc, two files >= $T_FILES, RSS <= $T_RSS MiB):"
echo "  layout         plain/jv      gzip/gzip-dc  -j1/together  RSS plain     RSS gzip      -j1 = -jN"
printf "%s" "$SUMMARY"
echo "  unequal files, -j1 / default -j (target >= $T_FILES for 2 and 3):${FSUM%,}"
echo "  gzip forms, wall against the one stream (no target):${GZ_LINE%,}"
[ "$SCAN_READ" = yes ] || SCAN_CHECK="$SCAN_CHECK (TRACECOST_SCAN not read: nothing compared)"
echo "  byte-identical across layouts:${LAYOUT_CHECK:- (one layout)}; scanner paths:$SCAN_CHECK"
if [ "$NAMES_K" -gt 0 ]; then NAMES_SAME=$(same_json "$OUT/names.1.json" "$OUT/names.N.json" "-j1 and default -j: $NAMES_FILE"); fi
if [ -s "$OUT/differ" ]; then IDENT="SOME DIFFER"; else IDENT="all identical"; fi
echo "  timing targets: $PASSES PASS, $FAILS FAIL; identity checks: $IDENT"
if [ "$NAMES_K" -gt 0 ]; then
  echo
  echo "distinct names: $NAMES_FILE ($(size "$NAMES_FILE") bytes, $NAMES_K thousand kernels, each its own name)"
  for j in 1 N; do
    T=$(median "names.$j"); R=$(sort -n "$OUT/names.$j.rss" | tail -1)
    RMB=$(awk -v k="$R" 'BEGIN {printf "%.0f", k * 1024 / 1e6}')
    row "tracecost analyze -j$j FILE" "$T" "$(size "$NAMES_FILE")" "names.$j"
    echo "    wall $(verdict "$T" '<=' 3), peak RSS MB (1e6 bytes, largest of the runs) $(verdict "$RMB" '<=' 600)"
  done
  echo "  -j1 and -jN JSON identical: $NAMES_SAME"
fi
if [ -s "$OUT/differ" ]; then
  echo "bench: these JSON outputs differ (a bug: results must be byte-identical; rerun by hand to see how):" >&2
  sed 's/^/  /' "$OUT/differ" >&2
  exit 1
fi
