#!/bin/sh
# Hostile inputs that cannot be files in git (FIFOs, links, names with escape sequences, crafted
# gzip containers) or are large (100 000 devices, streams, names): written into the folder $1 by
# tests/hostile/run.sh before the cases run (and by `make valgrind`). docs/damage.md lists the
# cases. POSIX sh, awk, gzip and od.
set -eu
W="$1"
D="$(cd "$(dirname "$0")/../data/hostile" && pwd)"
mkdir -p "$W"
cd "$W"

# a small trace and its gzip (pipes, links, copies)
cp "$D/plain.json" plain.json
gzip -nc plain.json >plain.json.gz

# item 4: one file reached twice: a folder, a glob over it, a link to it
mkdir -p job && cp plain.json job/rank0.json && cp plain.json job/rank1.json
mkdir -p linked && cp plain.json linked/rank0.json && cp plain.json linked/rank1.json
ln -sf rank0.json linked/link-to-rank0.json

# item 6: folder entries that cannot be used, next to one good trace
mkdir -p odd && cp plain.json odd/good.json
ln -sf nowhere.json odd/dangling.json
ln -sf loop.json odd/loop.json
mkfifo odd/fifo.json
mkdir -p odd/subfolder.json
mkdir -p onlyfifo && mkfifo onlyfifo/fifo.json

# item 9: file names with escape sequences (a colour, a window title)
mkdir -p esc
cp plain.json "esc/$(printf 'red\033[31mRED\033[0m.json')"
printf 'not json' >"esc/$(printf 'title\033]0;pwned\007.json')"

# item 11: ranks from file names with 10 digits
mkdir -p digits && cp plain.json digits/rank1000000000.json && cp plain.json digits/rank1000000001.json

# item 8: gzip containers (the same deflate data in each)
body="$(mktemp "${TMPDIR:-/tmp}/tc-hostile.XXXXXX")"
gzip -nc plain.json | tail -c +11 >"$body" # deflate data and trailer, no header
{ printf '\037\213\010\010\000\000\000\000\000\377'; head -c 307200 /dev/zero | tr '\0' A; printf '\000'; cat "$body"; } >gz_long_name.json.gz
{ printf '\037\213\010\040\000\000\000\000\000\377'; cat "$body"; } >gz_reserved_flag.json.gz
head -c 6 plain.json.gz >gz_cut_in_header.json.gz
{ cat plain.json.gz; cat plain.json; } >gz_then_plain.json.gz
# the CRC-32 in the trailer with its first byte changed
n=$(wc -c <plain.json.gz)
first=$(tail -c 8 plain.json.gz | od -An -tu1 | awk '{ print $1 }')
{ head -c $((n - 8)) plain.json.gz; printf "\\$(printf '%03o' $(((first + 1) % 256)))"; tail -c 7 plain.json.gz; } >gz_bad_crc.json.gz
rm -f "$body"

# item 5: 100 000 deviceProperties entries; 100 000 streams; 100 000 distinct kernel names
awk 'BEGIN {
    printf "{\"deviceProperties\": [\n";
    for (i = 0; i < 100000; i++) printf "  {\"id\": %d, \"name\": \"GPU %d\", \"totalGlobalMem\": 85000000000}%s\n", i, i, i < 99999 ? "," : "";
    printf "],\n\"traceEvents\": [\n";
    for (i = 0; i < 20000; i++) printf "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k%d\", \"pid\": %d, \"tid\": 7, \"ts\": %d, \"dur\": 5}%s\n", i % 10, i % 100, i * 10, i < 19999 ? "," : "";
    printf "]}\n" }' >devices_100k.json
awk 'BEGIN {
    printf "{\"traceEvents\": [\n";
    for (i = 0; i < 100000; i++) printf "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": %d, \"ts\": %d, \"dur\": 5}%s\n", i, i * 10, i < 99999 ? "," : "";
    printf "]}\n" }' >streams_100k.json
awk 'BEGIN {
    printf "{\"traceEvents\": [\n";
    for (i = 0; i < 100000; i++) printf "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"void at::native::kernel_%07d<float>(int)\", \"pid\": 0, \"tid\": 7, \"ts\": %d, \"dur\": 5}%s\n", i, i * 10, i < 99999 ? "," : "";
    printf "]}\n" }' >names_100k.json
# issue 30 item 11: 500 000 distinct names (64 MB), analyzed under a 128 MiB address-space limit
# (the case); before, every name cost about 270 bytes and this ran out of memory under 128 MiB
awk 'BEGIN {
    printf "{\"traceEvents\": [\n";
    for (i = 0; i < 500000; i++) printf "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"void at::native::kernel_%07d<float>(int)\", \"pid\": 0, \"tid\": 7, \"ts\": %d, \"dur\": 5}%s\n", i, i * 10, i < 499999 ? "," : "";
    printf "]}\n" }' >names_500k.json

# issue 30 item 2: 200 kernel names of 30 000 'a' and more, each ended by '!' (--comm-kernel patterns
# that back-track on them)
awk 'BEGIN {
    a = "a"; for (k = 0; k < 15; k++) a = a a; a = substr(a, 1, 30000);
    printf "{\"traceEvents\": [\n";
    for (i = 0; i < 200; i++) { printf "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s", a; for (j = 0; j < i; j++) printf "a"; printf "!\", \"pid\": 0, \"tid\": 7, \"ts\": %d, \"dur\": 5}%s\n", i * 10, i < 199 ? "," : "" }
    printf "]}\n" }' >long_names.json

# item 10: a config that never ends is made by the case itself (yes | ...)
