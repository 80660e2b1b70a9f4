#!/usr/bin/env bash
# bench/execcat.sh: exec of cat of the generated file, of an error-dense
# log (one line in six at ERROR, random words: driver genlog) and of issue
# 28's log (levels DEBUG/INFO/WARN/ERROR alike, random words and key=number
# pairs: driver genlog -style kv), each beside the
# Go pipe→file loop that keeps the first 100 MiB (as the spool does), and exec
# of true beside bash -c true from os/exec with pipes; interleaved runs on one
# daemon, medians, ratios and the daemon's peak RSS. The rows of bench/run.sh
# that exec's capture moves.
#
#   bench/execcat.sh                   # ~1 GiB files, 5 runs of each
#   RUNS=9 bench/execcat.sh
#   EXEC_PARAMS='{"yieldMs":600000}' bench/execcat.sh   # as a process, watched for input
#   EXEC_PARAMS='{"tty":true}' bench/execcat.sh         # on a terminal
#
# BENCH_SIZE_MB and BENCH_DATA_DIR as for run.sh.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
errors="$data_dir/errors-${size_mb}MB.log"
if [ ! -s "$errors" ]; then
  echo "bench: generating $errors (${size_mb} MiB, one line in six at ERROR)" >&2
  "$tmp/driver" genlog -size-mb "$size_mb" -every 6 -out "$errors"
fi
kv="$data_dir/kv-${size_mb}MB.log"
if [ ! -s "$kv" ]; then
  echo "bench: generating $kv (${size_mb} MiB, levels alike, words and key=number pairs)" >&2
  "$tmp/driver" genlog -style kv -size-mb "$size_mb" -out "$kv"
fi
cat "$file" "$errors" "$kv" > /dev/null
"$tmp/driver" execcat -toold "$tmp/toold" -file "$file" -errors "$errors,$kv" -runs "${RUNS:-5}" -tmp "$tmp" \
  ${EXEC_PARAMS:+-exec-params "$EXEC_PARAMS"}
