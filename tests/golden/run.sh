#!/bin/sh
# Golden outputs: runs every case of tests/golden/cases.txt and compares its stdout, stderr, exit
# code and written files byte for byte with tests/golden/expected/ (check, the default), or
# rewrites expected/ (update: only on purpose, in a commit of its own that says why). The HTML's
# random CSP nonce is replaced by PINNED before comparing; nothing else is normalised.
# Usage: TRACECOST=build/tracecost TRACEGEN=build/tracegen tests/golden/run.sh [check|update]
set -eu
mode="${1:-check}"
root="$(cd "$(dirname "$0")/../.." && pwd)"
bin="$(cd "$(dirname "${TRACECOST:-build/tracecost}")" && pwd)/$(basename "${TRACECOST:-build/tracecost}")"
gen="$(cd "$(dirname "${TRACEGEN:-build/tracegen}")" && pwd)/$(basename "${TRACEGEN:-build/tracegen}")"
expected="$root/tests/golden/expected"
scratch="$(mktemp -d "${TMPDIR:-/tmp}/tracecost-golden.XXXXXX")"
trap 'rm -rf "$scratch"' EXIT INT TERM
ln -s "$root/samples" "$scratch/samples"
ln -s "$root/tests" "$scratch/tests"
mkdir -p "$scratch/gen" "$scratch/out" "$scratch/actual"
cd "$scratch"
tab="$(printf '\t')"
grep -v '^#' "$root/tests/golden/gen.txt" | while IFS="$tab" read -r name args; do
    [ -n "$name" ] || continue
    # shellcheck disable=SC2086
    "$gen" -o "gen/$name" $args >/dev/null
    rm -f "gen/$name/expected.json" # the planted truth, not a trace
done
grep -v '^#' "$root/tests/golden/cases.txt" | while IFS="$tab" read -r name args; do
    [ -n "$name" ] || continue
    args="$(printf '%s' "$args" | sed "s#OUT#out/$name#g")"
    set +e
    # shellcheck disable=SC2086
    # SOURCE_DATE_EPOCH (2026-12-01) is "today" for the age of catalog prices when a trace has no
    # date (the cost-only cases): without it those outputs would change with the calendar.
    env NO_COLOR=1 TERM=dumb COLUMNS=100 SOURCE_DATE_EPOCH=1796083200 "$bin" $args >"actual/$name.out" 2>"actual/$name.err" </dev/null
    echo $? >"actual/$name.rc"
    set -e
    for f in out/"$name".*; do if [ -e "$f" ]; then mv "$f" "actual/$(basename "$f")"; fi; done
done
# The HTML's CSP nonce is random on every run (it is the only thing that is): pinned here.
for f in actual/*.html; do
    if [ -e "$f" ]; then sed -i 's/nonce-[0-9a-f]\{16\}/nonce-PINNED/g; s/nonce="[0-9a-f]\{16\}"/nonce="PINNED"/g' "$f"; fi
done
if [ "$mode" = update ]; then
    rm -rf "$expected" && mkdir -p "$expected" && cp actual/* "$expected/"
    echo "golden: wrote $(ls "$expected" | wc -l) files to tests/golden/expected"
    exit 0
fi
pass=0; fail=0
for name in $(grep -v '^#' "$root/tests/golden/cases.txt" | cut -f1); do
    bad=""
    for f in actual/"$name".* "$expected/$name".*; do
        b="$(basename "$f")"
        if ! cmp -s "actual/$b" "$expected/$b"; then bad="$bad $b"; fi
    done
    if [ -z "$bad" ]; then pass=$((pass + 1)); continue; fi
    fail=$((fail + 1))
    for b in $(echo $bad | tr ' ' '\n' | sort -u); do
        echo "golden: $name: $b differs"
        if [ -e "actual/$b" ] && [ -e "$expected/$b" ]; then diff "$expected/$b" "actual/$b" | head -20 || true
        else echo "  (missing on one side)"; fi
    done
done
# No figure in text or HTML is in scientific notation (issue 31): allowed are unit definitions
# ("GB = 1e9 B", "/ 1e12"), CSS colours (#2e7d32) and the table-sorting script's -1e300. CSV and JSON keep
# full precision and are not checked (nor is JSON written to stdout).
sci=0
for f in actual/*.out actual/*.html; do
    [ -e "$f" ] || continue
    case "$(head -c1 "$f")" in '{' | '[') continue ;; esac # JSON written to stdout
    hits="$(sed 's/#[0-9a-fA-F]\{3,8\}\b//g; s/= 1e9 \(B\|bytes\)//g; s/-1e300//g; s|/ 1e[0-9]*||g' "$f" |
        grep -noE '[0-9.]*[0-9]e[+-]?[0-9]+[^<"]{0,20}' | head -5)" || true
    if [ -n "$hits" ]; then sci=$((sci + 1)); echo "golden: $(basename "$f"): scientific notation:"; echo "$hits"; fi
done
echo "golden: $pass passed, $fail failed, $sci outputs with scientific notation"
[ "$fail" -eq 0 ] && [ "$sci" -eq 0 ]
