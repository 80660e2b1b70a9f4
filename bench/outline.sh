#!/usr/bin/env bash
# bench/outline.sh: issue 16's figures as a markdown section: the first read of a 1 GiB
# file beside `wc -l`; the outlines of a 1 GiB log, a 100 MB JSON array and a 50 MB
# Markdown book beside `wc -l` and `ctags` on the same files (time, peak RSS); an
# unchanged re-read with ifChanged on the wire.
#
#   bench/outline.sh              # 5 runs, files generated once in bench/data (gitignored)
#   RUNS=1 LOG_MB=64 bench/outline.sh   # quick
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
tmp="$(mktemp -d "${TMPDIR:-/tmp}/toold-outline.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
(cd "$root" && CGO_ENABLED=0 go build -o "$tmp/toold" ./cmd/toold && go build -o "$tmp/outline" ./bench/outline)
"$tmp/outline" -toold "$tmp/toold" -dir "${BENCH_DATA_DIR:-$here/data}" -runs "${RUNS:-5}" -log-mb "${LOG_MB:-1024}"
