#!/bin/sh
# check-functions.sh: lists the product's functions longer than LIMIT lines (default 120): every
# .c file of the layers and cupti/ (not cupti/test, tests/ or bench/). A function runs from the
# first line of its signature (the last line at column 0 before its opening brace) to its closing
# brace; comments, strings and character constants are skipped when counting braces.
# Exit 1 when any function is longer.
set -eu
cd "$(dirname "$0")/.."
limit="${1:-120}"
files=$(ls base/*.c model/*.c parsers/*.c analyzer/*.c reports/*.c cli/*.c cli/mpi/*.c cupti/*.c 2>/dev/null)
# shellcheck disable=SC2086
awk -v limit="$limit" '
FNR == 1 { depth = 0; incomment = 0; start = 0; siglinen = 0 }
{
    line = $0; clean = ""; i = 1; n = length(line)
    if (!incomment && substr(line, 1, 1) == "#") { next }
    while (i <= n) {
        c = substr(line, i, 1); d = substr(line, i, 2)
        if (incomment) { if (d == "*/") { incomment = 0; i += 2 } else i++; continue }
        if (d == "/*") { incomment = 1; i += 2; continue }
        if (d == "//") break
        if (c == "\"" || c == "\047") {
            q = c; i++
            while (i <= n && substr(line, i, 1) != q) { if (substr(line, i, 1) == "\\") i++; i++ }
            i++; clean = clean " "; continue
        }
        clean = clean c; i++
    }
    if (clean ~ /^[A-Za-z_]/) { siglinen = FNR; sig = clean }
    for (k = 1; k <= length(clean); k++) {
        ch = substr(clean, k, 1)
        if (ch == "{") {
            if (depth == 0) {
                start = 0
                if (siglinen > 0 && sig ~ /\(/ && sig !~ /^(typedef|struct|enum|union)[ \t]/ && sig !~ /=/) {
                    start = siglinen; name = sig; sub(/[ \t]*\(.*/, "", name); sub(/.*[ \t*]/, "", name)
                }
            }
            depth++
        } else if (ch == "}") {
            depth--
            if (depth == 0 && start) {
                len = FNR - start + 1
                if (len > limit) { printf "%s:%d: %s is %d lines (limit %d)\n", FILENAME, start, name, len, limit; bad++ }
                start = 0
            }
        }
    }
}
END {
    if (bad) { printf "check-functions: %d function(s) over %d lines\n", bad, limit; exit 1 }
    printf "check-functions: ok (no function over %d lines)\n", limit
}' $files
