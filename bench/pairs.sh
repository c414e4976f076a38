#!/bin/sh
# bench/pairs.sh: writes every pair kind of issue 29 (the same job on two fabrics: inter-node bus
# bandwidth 12.5 vs 50 GB/s, the same per-collective latency unless the kind says otherwise) into
# OUT/KIND/{slow,fast}/ with a PyTorch-like host (bench/TRACEGEN.md, "Pairs").
# Usage: bench/pairs.sh [TRACEGEN [OUT]] (defaults build/tracegen, bench/data/pairs); `make pairs`
# runs it. OUT/pairs.tsv lists each kind's slow and fast options.
set -eu
GEN=${1:-build/tracegen}
OUT=${2:-bench/data/pairs}
SLOW="--inter-GBps 12.5"
FAST="--inter-GBps 50"
# kind<TAB>options of the job (both runs)[<TAB>slow fabric<TAB>fast fabric]; the seed is the kind's,
# so both runs share every jitter
KINDS='balanced	--ranks 8 --gpus-per-node 4 --buckets 8 --compute-us 10000 --idle-us 500 --steps 4 --seed 11 --time-format epoch --end-spread-us 3 --first-bucket-mib 1
straggler	--ranks 8 --gpus-per-node 4 --buckets 4 --compute-us 20000 --steps 4 --seed 12 --straggler 5 --straggler-factor 1.6 --clock-offset-us 3000 --first-bucket-mib 1
tpdp	--ranks 8 --tp 4 --gpus-per-node 4 --buckets 4 --compute-us 20000 --steps 4 --seed 13 --host-sync device --end-spread-us 3 --cuda-sync-events --first-bucket-mib 1
spill	--ranks 8 --gpus-per-node 4 --buckets 6 --compute-us 20000 --steps 4 --seed 14 --host-sync stream --file-names handler --first-bucket-mib 1
small1m	--ranks 8 --gpus-per-node 4 --buckets 48 --bucket-mib 1 --coll-latency-us 60 --compute-us 6000 --idle-us 500 --steps 4 --seed 15 --time-format epoch
small256k	--ranks 8 --gpus-per-node 4 --buckets 64 --bucket-mib 0.25 --coll-latency-us 60 --compute-us 6000 --idle-us 500 --steps 4 --seed 16 --cuda-sync-events
onegpu	--ranks 4 --gpus-per-node 1 --buckets 4 --compute-us 10000 --idle-us 500 --steps 4 --seed 17 --clock-offset-us 2000 --first-bucket-mib 1
autograd	--ranks 8 --gpus-per-node 4 --buckets 6 --compute-us 20000 --steps 4 --seed 19 --autograd-thread --first-bucket-mib 1
lost	--ranks 8 --gpus-per-node 4 --buckets 8 --compute-us 10000 --idle-us 500 --steps 4 --seed 11 --time-format epoch --end-spread-us 3 --first-bucket-mib 1 --drop-kernel 3:9
latency	--ranks 8 --gpus-per-node 4 --buckets 48 --bucket-mib 1 --compute-us 6000 --idle-us 500 --steps 4 --seed 18	--inter-GBps 12.5 --coll-latency-us 60	--inter-GBps 50 --coll-latency-us 15'
mkdir -p "$OUT"
printf 'kind\tslow\tfast\n' > "$OUT/pairs.tsv"
printf '%s\n' "$KINDS" | while IFS='	' read -r kind args slow fast; do
  slow=${slow:-$SLOW}
  fast=${fast:-$FAST}
  rm -rf "$OUT/$kind"
  # shellcheck disable=SC2086
  "$GEN" -o "$OUT/$kind/slow" $args $slow > /dev/null
  # shellcheck disable=SC2086
  "$GEN" -o "$OUT/$kind/fast" $args $fast > /dev/null
  printf '%s\t%s %s\t%s %s\n' "$kind" "$args" "$slow" "$args" "$fast" >> "$OUT/pairs.tsv"
done
echo "pairs: wrote $(printf '%s\n' "$KINDS" | wc -l) kinds into $OUT"
