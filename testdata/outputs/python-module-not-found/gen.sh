#!/usr/bin/env bash
# A pipeline of three Python steps, each printing 1,000 lines; the second
# imports a module that is not installed and dies with a traceback; the
# third runs anyway.
set -eu
out="$(cd "$(dirname "$0")" && pwd)/output.txt"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
printf 'for i in range(1000):\n    print(f"extract: page {i} fetched")\n' > extract.py
printf 'import sys\nfor i in range(1000):\n    print(f"transform: row {i} normalized")\nsys.stdout.flush()\nimport yamlx\n' > transform.py
printf 'for i in range(1000):\n    print(f"load: batch {i} written")\n' > load.py
{ python3 extract.py; python3 transform.py || true; python3 load.py; } > "$out" 2>&1
sed -i "s#$tmp#/srv/etl#g" "$out"
