#!/bin/sh
# Hostile inputs (docs/damage.md, "Hostile input"): runs every case of tests/hostile/cases.txt
# against $TRACECOST in a scratch folder that gen.sh fills, and checks the exit code, that the
# output (stdout and stderr together) matches each message class, and that it holds no control
# character but tab and newline (file names and trace strings never reach the terminal raw).
# Each case runs under `timeout 120`: a hang fails. `make test` runs it for the build at hand (so
# `make sanitize` runs it under ASan and UBSan), `make robustness` for the release and the sanitize
# build. Usage: TRACECOST=build/tracecost tests/hostile/run.sh [NAME...]
set -eu
root="$(cd "$(dirname "$0")/../.." && pwd)"
bin="$(cd "$(dirname "${TRACECOST:-build/tracecost}")" && pwd)/$(basename "${TRACECOST:-build/tracecost}")"
scratch="$(mktemp -d "${TMPDIR:-/tmp}/tracecost-hostile.XXXXXX")"
trap 'rm -rf "$scratch"' EXIT INT TERM
sh "$root/tests/hostile/gen.sh" "$scratch/w"
tab="$(printf '\t')"
ctl="$(printf '[\001-\010\013-\037\177]')"
grep -v '^#' "$root/tests/hostile/cases.txt" | grep -v '^$' >"$scratch/cases"
pass=0; fail=0
while IFS="$tab" read -r name want classes cmd; do
    if [ $# -gt 0 ]; then
        case " $* " in *" $name "*) ;; *) continue ;; esac
    fi
    set +e
    (cd "$scratch/w" && env TC="$bin" D="$root/tests/data/hostile" W="$scratch/w" NO_COLOR=1 TERM=dumb \
        timeout 120 sh -c "$cmd") >"$scratch/out" 2>&1 </dev/null
    rc=$?
    set -e
    bad=""
    [ "$rc" = "$want" ] || bad="exit $rc, want $want"
    if [ "$classes" != "-" ]; then
        rest="$classes"
        while [ -n "$rest" ]; do
            class="${rest%%;;*}"
            if [ "$class" = "$rest" ]; then rest=""; else rest="${rest#*;;}"; fi
            if [ "$class" = "empty" ]; then
                if [ -s "$scratch/out" ]; then bad="$bad; output not empty"; fi
            elif [ "$class" = "cols<=100" ]; then
                if awk 'length > 100 { bad = 1 } END { exit !bad }' "$scratch/out"; then bad="$bad; a line over 100 columns"; fi
            elif ! grep -Eq -- "$class" "$scratch/out"; then
                bad="$bad; no match for /$class/"
            fi
        done
    fi
    if LC_ALL=C grep -q "$ctl" "$scratch/out"; then bad="$bad; a control character in the output"; fi
    if [ -z "$bad" ]; then pass=$((pass + 1)); continue; fi
    fail=$((fail + 1))
    echo "hostile: $name: ${bad#; }"
    sed 's/^/    /' "$scratch/out" | head -15 | LC_ALL=C tr '\001-\010\013-\037\177' '?'
done <"$scratch/cases"
echo "hostile: $pass passed, $fail failed ($(basename "$(dirname "$bin")")/$(basename "$bin"))"
[ "$fail" -eq 0 ]
