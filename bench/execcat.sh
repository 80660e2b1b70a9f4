#!/usr/bin/env bash
# bench/execcat.sh: exec of cat of the generated file beside the Go pipe→file
# loop that keeps the first 100 MiB (as the spool does), interleaved runs,
# medians and their ratio. The row of bench/run.sh that exec's capture moves.
#
#   bench/execcat.sh                   # ~1 GiB file, 5 runs of each
#   RUNS=9 bench/execcat.sh
#
# BENCH_SIZE_MB and BENCH_DATA_DIR as for run.sh.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cat "$file" > /dev/null
"$tmp/driver" execcat -toold "$tmp/toold" -file "$file" -runs "${RUNS:-5}" -tmp "$tmp"
