#!/bin/sh
# The hostile cases that take longer (docs/damage.md, "Hostile input"), run by `make robustness` for
# the release and the sanitize build:
# - a trace that shrinks while it is parsed on several threads (a trace still being written, or
#   rotated): cut to 1 MB at several moments, in each layout (Kineto's, one line per event with a
#   4-space indent, gzip); every run must exit 0 (parsed before the cut) or 3 (the cut seen), never
#   die of a signal or a sanitizer report.
# - a 40 MB trace through a FIFO, a pipe to /dev/stdin and '-': the same JSON report as from the
#   file (the input's path aside).
# - tracecost-mpi (TRACECOST_MPI, when given and mpirun exists) on a FIFO: no hang, the same report.
# Usage: TRACECOST=build/tracecost TRACEGEN=build/tracegen [TRACECOST_MPI=build/tracecost-mpi]
#        tests/hostile/stress.sh
set -u
TRACECOST=${TRACECOST:-build/tracecost}
TRACEGEN=${TRACEGEN:-build/tracegen}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tc-stress.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
fail=0
checks=0
cuts=""
bad() { echo "stress: $*"; fail=$((fail + 1)); }

for layout in indent4 kineto; do
    "$TRACEGEN" -o "$tmp/$layout" --ranks 1 --layout "$layout" --target-mb 40 >/dev/null || exit 1
done
gzip -c "$tmp/kineto/rank0.pt.trace.json" >"$tmp/kineto.json.gz"

# shrink FILE DELAY: a copy of FILE analyzed with 4 threads and cut to 1 MB after DELAY seconds
shrink() {
    cp "$1" "$tmp/shrinking"
    "$TRACECOST" analyze -q -j4 --json /dev/null "$tmp/shrinking" 2>"$tmp/shrink.err" &
    pid=$!
    sleep "$2"
    truncate -s 1000000 "$tmp/shrinking"
    wait $pid
    rc=$?
    checks=$((checks + 1))
    cuts="$cuts $rc"
    if [ $rc != 0 ] && [ $rc != 3 ]; then bad "$(basename "$1") cut after $2 s: exit $rc"; head -5 "$tmp/shrink.err"
    elif grep -q "Sanitizer\|runtime error" "$tmp/shrink.err"; then bad "$(basename "$1") cut after $2 s: sanitizer"; head -5 "$tmp/shrink.err"
    fi
}
for f in "$tmp/indent4/rank0.pt.trace.json" "$tmp/kineto/rank0.pt.trace.json" "$tmp/kineto.json.gz"; do
    for d in 0 0.02 0.05 0.1 0.2 0.4; do shrink "$f" "$d"; done
done

# the same report from a file and from a stream (only the input's path and, for gzip, size differ)
f="$tmp/kineto/rank0.pt.trace.json"
"$TRACECOST" analyze -q --json - "$f" | grep -v '"path"\|"bytes"' >"$tmp/file.json"
report_of() { # NAME CMD [BASE]: the report of CMD, compared with the file's (BASE: another of its reports)
    sh -c "$2" | grep -v '"path"\|"bytes"' >"$tmp/$1.json"
    checks=$((checks + 1))
    cmp -s "$tmp/${3:-file}.json" "$tmp/$1.json" || bad "$1: the report differs from the file's"
}
mkfifo "$tmp/fifo"
report_of fifo "cat '$f' >'$tmp/fifo' & timeout 300 '$TRACECOST' analyze -q --json - '$tmp/fifo'"
report_of dev_stdin "cat '$f' | timeout 300 '$TRACECOST' analyze -q --json - /dev/stdin"
report_of dash "cat '$f' | timeout 300 '$TRACECOST' analyze -q --json - -"
report_of gzip_pipe "gzip -c '$f' | timeout 300 '$TRACECOST' analyze -q --json - -"

if [ -n "${TRACECOST_MPI:-}" ] && [ -x "$TRACECOST_MPI" ] && command -v mpirun >/dev/null; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
    rm -f "$tmp/fifo" && mkfifo "$tmp/fifo"
    # the MPI build has no step graph (docs/mpi.md): both sides without the replay
    "$TRACECOST" analyze -q --no-replay --json - "$f" | grep -v '"path"\|"bytes"' >"$tmp/file_noreplay.json"
    report_of mpi_fifo "cat '$f' >'$tmp/fifo' & timeout 300 mpirun --oversubscribe -np 2 '$TRACECOST_MPI' analyze -q --no-replay --json - '$tmp/fifo'" file_noreplay
fi
echo "stress: exit codes of the shrinking runs:$cuts"
echo "stress: $((checks - fail)) passed, $fail failed ($TRACECOST)"
[ "$fail" -eq 0 ]
