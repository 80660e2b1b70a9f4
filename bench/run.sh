#!/usr/bin/env bash
# bench/run.sh: toold beside its baselines, as a markdown table.
#
#   bench/run.sh                            # ~1 GiB file, 5 runs (median shown)
#   BENCH_SIZE_MB=64 RUNS=1 bench/run.sh    # quick smoke run
#   WRITE=1 bench/run.sh                    # also write the table to bench/results.md
#
# Environment:
#   BENCH_SIZE_MB  size of the generated file in MiB (default 1024: ~10.6 million lines
#                  of 20-180 bytes, ~100 on average)
#   RUNS           runs per measurement; the median is reported (default 5)
#   DEEP_REQS      deep reads per run (default 200)
#   EXEC_CALLS     exec true / bash -c true calls per run (default 200)
#   BENCH_DATA_DIR where the file is generated once and kept (default bench/data,
#                  gitignored); falls back to $TMPDIR when it cannot be written
#   WRITE=1        write the table to bench/results.md
#
# It builds toold (./cmd/toold) and the driver (./bench/driver) into a temp dir,
# generates the file if missing, warms the page cache with cat, then runs the driver,
# which measures the baselines and drives toold over stdio as a client.
set -euo pipefail

runs="${RUNS:-5}"
deep_reqs="${DEEP_REQS:-200}"
exec_calls="${EXEC_CALLS:-200}"
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

echo "bench: warming the page cache" >&2
cat "$file" > /dev/null

"$tmp/driver" bench \
  -toold "$tmp/toold" \
  -file "$file" \
  -runs "$runs" \
  -deep-reqs "$deep_reqs" \
  -exec-calls "$exec_calls" \
  -tmp "$tmp" | tee "$tmp/results.md"

if [ "${WRITE:-0}" = "1" ]; then
  cp "$tmp/results.md" "$here/results.md"
  echo "bench: wrote $here/results.md" >&2
fi
