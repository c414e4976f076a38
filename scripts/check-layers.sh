#!/bin/sh
# check-layers.sh: the layer rule of docs/architecture.md, checked on every #include "...".
# Layers, in order: base -> model -> parsers -> analyzer -> reports -> cli (cli/mpi is cli). A file
# may include its own folder's headers (bare name) and the headers of earlier layers ("base/x.h");
# an include that points to a later layer fails. cupti/ stands apart: it may include only cupti/
# and header-only files of base/ (it links nothing of the rest); only cli/ may include cupti/.
# Also: analyzer/ and model/ are pure: no stdio (printf family, puts, fopen, FILE *, stdout, stderr,
# perror), no exit(); comments and strings do not count.
# Also: no include circle between the units of one folder (unit X = X.c + X.h; A -> B when A.c or
# A.h includes B.h of that folder): a circle means two files that cannot be understood apart.
# Prints each violation as FILE:LINE: message and exits 1 when there is one.
# Usage: scripts/check-layers.sh [ROOT] (default: the repository; tests/test_unix.c plants violations
# in a scratch tree to see each rule fail).
set -eu
cd "${1:-$(dirname "$0")/..}"
rank() {
    case "$1" in
        base) echo 0 ;; model) echo 1 ;; parsers) echo 2 ;; analyzer) echo 3 ;; reports) echo 4 ;;
        cli) echo 5 ;; cupti) echo 9 ;; *) echo -1 ;;
    esac
}
bad=0
files=$(ls base/*.[ch] model/*.[ch] parsers/*.[ch] analyzer/*.[ch] reports/*.[ch] cli/*.[ch] cli/mpi/*.[ch] \
        cupti/*.[ch] 2>/dev/null)
for f in $files; do
    dir=$(dirname "$f")
    top=${dir%%/*}
    own=$(rank "$top")
    grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" | while IFS=: read -r line text; do
        inc=$(printf '%s' "$text" | sed 's/.*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/')
        case "$inc" in
            */*) target=$inc ;;
            *) target="$dir/$inc" ;;
        esac
        if [ ! -f "$target" ]; then
            echo "$f:$line: includes \"$inc\", which is not $target (name other layers' headers as folder/name.h)"
            echo x >>"${TMPDIR:-/tmp}/check-layers.$$"
            continue
        fi
        tdir=$(dirname "$target"); ttop=${tdir%%/*}
        trank=$(rank "$ttop")
        msg=""
        if [ "$top" = cupti ]; then
            if [ "$ttop" = base ]; then
                c="${target%.h}.c"
                [ -f "$c" ] && msg="cupti/ links nothing of the rest: $target has code ($c)"
            elif [ "$ttop" != cupti ]; then msg="cupti/ may include only cupti/ and header-only base/"
            fi
        elif [ "$ttop" = cupti ]; then
            [ "$top" = cli ] || msg="only cli/ may include cupti/"
        elif [ "$trank" -lt 0 ]; then msg="$ttop/ is not a layer"
        elif [ "$trank" -gt "$own" ]; then msg="$top/ includes the later layer $ttop/"
        fi
        if [ -n "$msg" ]; then
            echo "$f:$line: \"$inc\": $msg"
            echo x >>"${TMPDIR:-/tmp}/check-layers.$$"
        fi
    done
done
# shellcheck disable=SC2046
awk '
FNR == 1 { incomment = 0 }
{
    line = $0; clean = ""; i = 1; n = length(line)
    while (i <= n) {
        c = substr(line, i, 1); d = substr(line, i, 2)
        if (incomment) { if (d == "*/") { incomment = 0; i += 2 } else i++; continue }
        if (d == "/*") { incomment = 1; i += 2; continue }
        if (d == "//") break
        if (c == "\"") {
            i++
            while (i <= n && substr(line, i, 1) != "\"") { if (substr(line, i, 1) == "\\") i++; i++ }
            i++; clean = clean " "; continue
        }
        clean = clean c; i++
    }
    if (clean ~ /printf|fputs|[^a-z_]puts[ \t]*\(|fopen|fwrite|FILE[ \t]*\*|stdout|stderr|perror|[^a-z_]exit[ \t]*\(/)
        printf "%s:%d: analyzer/ and model/ do no I/O (print, open, exit): %s\n", FILENAME, FNR, $0
}' $(ls analyzer/*.[ch] model/*.[ch]) | tee -a "${TMPDIR:-/tmp}/check-layers.$$.io" >&2 || true
if [ -s "${TMPDIR:-/tmp}/check-layers.$$.io" ]; then cat "${TMPDIR:-/tmp}/check-layers.$$.io" | sed 's/.*/x/' >>"${TMPDIR:-/tmp}/check-layers.$$"; fi
rm -f "${TMPDIR:-/tmp}/check-layers.$$.io"
# Include circles inside a folder: tsort names the units of each loop (coreutils).
for dir in base model parsers analyzer reports cli cli/mpi cupti; do
    edges=$(for f in "$dir"/*.[ch]; do
        [ -f "$f" ] || continue
        a=$(basename "$f"); a=${a%.*}
        grep -h '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" |
            sed 's/.*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/' | while read -r inc; do
                case "$inc" in */*) t="$inc" ;; *) t="$dir/$inc" ;; esac
                [ "$(dirname "$t")" = "$dir" ] || continue
                b=$(basename "$t" .h)
                [ "$a" != "$b" ] && echo "$a $b"
            done
    done | sort -u)
    [ -n "$edges" ] || continue
    printf '%s\n' "$edges" | LC_ALL=C tsort 2>&1 >/dev/null |
        awk -v dir="$dir" '/input contains a loop/ { if (u != "") print u; u = ""; next }
                           { sub(/^tsort: /, ""); u = u (u == "" ? "" : " -> ") $0 } END { if (u != "") print u }' |
        while read -r loop; do
            echo "$dir/: include circle: $loop (unit X is X.c with X.h; move what both need to a header of its own)"
            echo x >>"${TMPDIR:-/tmp}/check-layers.$$"
        done
done
if [ -s "${TMPDIR:-/tmp}/check-layers.$$" ]; then
    n=$(wc -l <"${TMPDIR:-/tmp}/check-layers.$$"); rm -f "${TMPDIR:-/tmp}/check-layers.$$"
    echo "check-layers: $n violation(s) of the layer rules (docs/architecture.md)"; exit 1
fi
rm -f "${TMPDIR:-/tmp}/check-layers.$$"
echo "check-layers: ok"
