#!/usr/bin/env bash
# bench/grow.sh: issue 8's growing log. The last 100 lines of a 1 GiB log that
# grows 1 MiB every 100 ms, polled as fast as possible for 30 s by toold (a read
# for totalLines, then the tail) and by tail -n 100 between polls; a markdown
# table of median, p99 and max per measure.
#
#   bench/grow.sh                                  # 1 GiB, 30 s
#   BENCH_SIZE_MB=64 GROW_FOR=5s bench/grow.sh     # quick smoke run
#   WRITE=1 bench/grow.sh                          # also write bench/results-grow.md
#
# Environment: BENCH_SIZE_MB (default 1024), GROW_FOR (30s), GROW_EVERY (100ms),
# GROW_KB (1024), BENCH_DATA_DIR as for run.sh (the generated file is copied: the
# copy is the log that grows, and is removed at the end).
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
log="$data_dir/growing-${size_mb}MB.log"
trap 'rm -rf "$tmp" "$log"' EXIT
cp "$file" "$log"

"$tmp/driver" grow -toold "$tmp/toold" -file "$log" -tmp "$tmp" \
  -for "${GROW_FOR:-30s}" -every "${GROW_EVERY:-100ms}" -append-kb "${GROW_KB:-1024}" | tee "$tmp/grow.md"

if [ "${WRITE:-0}" = "1" ]; then
  cp "$tmp/grow.md" "$here/results-grow.md"
  echo "grow: wrote $here/results-grow.md" >&2
fi
