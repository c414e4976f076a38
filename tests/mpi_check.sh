#!/bin/sh
# tests/mpi_check.sh (make test-mpi): build/tracecost-mpi under mpirun --oversubscribe -np 2 and
# -np 3 must write exactly what the single-process build/tracecost writes (JSON, terminal text,
# HTML, messages and exit code) on generated jobs: 8 ranks (straggler, clock offsets, shapes), 2
# ranks (3 processes > 2 files: one parses nothing), a job with a damaged file (exit code 3), a job
# with three profiler windows (--window K), and a 2-node tensor + data parallel job (process groups:
# per-rank group figures and the group table travel between processes) with --fabric and a fabric
# what-if.
# With --html process 0 holds whole traces of the timeline's 4 ranks only (docs/mpi.md), so the
# 8-rank HTML check at np=2/3 covers the kernels table from merged aggregates and the fetch.
# Both run with --no-replay: the MPI build has no step graph (process 0 holds skeletons), so the
# replay and the critical path (issue 29) are the one thing it does not write; everything else
# must match.
set -u
TRACECOST=${TRACECOST:-build/tracecost}
TRACECOST_MPI=${TRACECOST_MPI:-build/tracecost-mpi}
TRACEGEN=${TRACEGEN:-build/tracegen}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
MPIRUN="mpirun --oversubscribe"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tc-mpi.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail=0
checks=0

"$TRACEGEN" -o "$tmp/job8" --ranks 8 --steps 3 --straggler 5 --clock-offset-us 400 --seed 7 --gzip >/dev/null || exit 1
"$TRACEGEN" -o "$tmp/job2" --ranks 2 --steps 2 --seed 3 >/dev/null || exit 1
mkdir -p "$tmp/damaged"
"$TRACEGEN" -o "$tmp/tpdp" --ranks 8 --tp 4 --gpus-per-node 4 --file-names handler --dp-busbw-GBps 12.5 --seed 9 \
    >/dev/null || exit 1
"$TRACEGEN" -o "$tmp/damaged" --ranks 4 --steps 2 --seed 5 >/dev/null || exit 1
rm -f "$tmp/job8/expected.json" "$tmp/job2/expected.json" "$tmp/damaged/expected.json" "$tmp/tpdp/expected.json"
f="$tmp/damaged/rank2.pt.trace.json"
head -c $(( $(wc -c < "$f") * 2 / 3 )) "$f" > "$f.cut" && mv "$f.cut" "$f"
printf 'not json at all' > "$tmp/damaged/rank9.pt.trace.json"

# run NAME NP ARGS...: NP = 0 is the plain tool; writes $tmp/NAME.{out,err,json,html,rc}
run() {
    name=$1 np=$2
    shift 2
    if [ "$np" = 0 ]; then
        "$TRACECOST" analyze --no-replay --json "$tmp/$name.json" --html "$tmp/$name.html" -j 1 "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
    else
        $MPIRUN -np "$np" "$TRACECOST_MPI" analyze --no-replay --json "$tmp/$name.json" --html "$tmp/$name.html" -j 1 "$@" \
            >"$tmp/$name.out" 2>"$tmp/$name.err"
    fi
    echo $? >"$tmp/$name.rc"
}

same() { # same WHAT A B
    checks=$((checks + 1))
    if cmp -s "$2" "$3"; then :; else
        echo "mpi_check: FAIL: $1 differs: $2 vs $3"; diff "$2" "$3" | head -20; fail=1
    fi
}

for job in job8 job2 damaged tpdp; do
    args=""
    [ "$job" = tpdp ] && args="--fabric eth-100g --fabric-target ib-ndr"
    run "$job-p0" 0 $args "$tmp/$job"
    for np in 2 3; do
        run "$job-p$np" "$np" $args "$tmp/$job"
        for ext in json out rc; do same "$job np=$np .$ext" "$tmp/$job-p0.$ext" "$tmp/$job-p$np.$ext"; done
        # HTML: equal but for the random per-report CSP nonce
        for p in 0 "$np"; do sed 's/nonce[-=]"*[0-9a-f]*/nonce/g' "$tmp/$job-p$p.html" >"$tmp/$job-p$p.html1"; done
        same "$job np=$np .html" "$tmp/$job-p0.html1" "$tmp/$job-p$np.html1"
        # stderr: the same file messages (mpirun may add its own lines about the exit status); the
        # files written are named by their own paths (-p0 against -pNP)
        grep '^tracecost' "$tmp/$job-p$np.err" | sed "s/$job-p$np\./$job-p0./" >"$tmp/$job-p$np.err1"
        same "$job np=$np stderr" "$tmp/$job-p0.err" "$tmp/$job-p$np.err1"
    done
done
# without --html process 0 holds no GPU events (skeletons only): JSON and terminal must still agree
for job in job8 damaged tpdp; do
    "$TRACECOST" analyze --no-replay --json "$tmp/$job-nh0.json" -j 1 "$tmp/$job" >"$tmp/$job-nh0.out" 2>/dev/null
    $MPIRUN -np 3 "$TRACECOST_MPI" analyze --no-replay --json "$tmp/$job-nh3.json" -j 1 "$tmp/$job" >"$tmp/$job-nh3.out" 2>/dev/null
    same "$job np=3 no-html .json" "$tmp/$job-nh0.json" "$tmp/$job-nh3.json"
    same "$job np=3 no-html .out" "$tmp/$job-nh0.out" "$tmp/$job-nh3.out"
done
# profiler windows: process 0 groups the skeletons as the plain tool groups the traces (issue 17)
"$TRACEGEN" -o "$tmp/windows" --ranks 4 --windows 3 --steps 2 --seed 11 >/dev/null || exit 1
rm -f "$tmp/windows/expected.json"
for win in 1 2; do
    "$TRACECOST" analyze --no-replay --window $win --json "$tmp/win$win-0.json" -j 1 "$tmp/windows" >"$tmp/win$win-0.out" 2>/dev/null
    $MPIRUN -np 3 "$TRACECOST_MPI" analyze --no-replay --window $win --json "$tmp/win$win-3.json" -j 1 "$tmp/windows" \
        >"$tmp/win$win-3.out" 2>/dev/null
    same "window $win np=3 .json" "$tmp/win$win-0.json" "$tmp/win$win-3.json"
    same "window $win np=3 .out" "$tmp/win$win-0.out" "$tmp/win$win-3.out"
done
# the checks must be able to fail: the jobs differ, the damaged job exits 3 and names its files
checks=$((checks + 1))
if cmp -s "$tmp/job8-p0.json" "$tmp/job2-p0.json"; then echo "mpi_check: FAIL: two different jobs gave the same JSON"; fail=1; fi
checks=$((checks + 1))
[ "$(cat "$tmp/damaged-p2.rc")" = 3 ] || { echo "mpi_check: FAIL: damaged job exit $(cat "$tmp/damaged-p2.rc"), want 3"; fail=1; }
checks=$((checks + 1))
grep -q 'rank2.pt.trace.json' "$tmp/damaged-p3.err" && grep -q 'rank9.pt.trace.json' "$tmp/damaged-p3.err" ||
    { echo "mpi_check: FAIL: the damaged files are not named on stderr"; cat "$tmp/damaged-p3.err"; fail=1; }
checks=$((checks + 1))
grep -q '"ranks": *8' "$tmp/job8-p3.json" || grep -q '"ranks":8' "$tmp/job8-p3.json" ||
    { echo "mpi_check: FAIL: the 8-rank job's JSON does not say 8 ranks"; fail=1; }
checks=$((checks + 1))
grep -q '"scope": "inter-node"' "$tmp/tpdp-p3.json" && grep -q '"exposed_transfer_us": [1-9]' "$tmp/tpdp-p3.json" ||
    { echo "mpi_check: FAIL: the TP+DP job's JSON has no inter-node group with exposed transfer"; fail=1; }
# without --no-replay the MPI build says why it has no replay (the single-process build has one)
checks=$((checks + 1))
$MPIRUN -np 2 "$TRACECOST_MPI" analyze --json "$tmp/replay-2.json" -j 1 "$tmp/job2" >/dev/null 2>&1
"$TRACECOST" analyze --json "$tmp/replay-0.json" -j 1 "$tmp/job2" >/dev/null 2>&1
grep -q '"note": "the replay needs every rank' "$tmp/replay-2.json" && grep -q '"available": true' "$tmp/replay-0.json" ||
    { echo "mpi_check: FAIL: the MPI build's replay note, or the plain build's replay, is missing"; fail=1; }
[ $fail = 0 ] && echo "mpi_check: ok ($checks checks: JSON, terminal, HTML, stderr and exit code equal at np=2 and np=3)"
exit $fail
