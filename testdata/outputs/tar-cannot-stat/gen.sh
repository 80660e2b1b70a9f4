#!/usr/bin/env bash
# tar -cvf of a release tree listed file by file (3,000 files), two of the
# named files missing: tar's "Cannot stat" lines are in the middle of the
# listing, its "Exiting with failure status" at the end.
set -eu
out="$(cd "$(dirname "$0")" && pwd)/output.txt"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
mkdir -p release/assets
for i in $(seq -w 1 3000); do echo "$i" > "release/assets/part_$i.bin"; done
{ for i in $(seq -w 1 1500); do echo "release/assets/part_$i.bin"; done
  echo release/LICENSE
  for i in $(seq -w 1501 3000); do echo "release/assets/part_$i.bin"; done
  echo release/CHANGELOG.md; } > files.txt
LC_ALL=C tar -cvf release.tar -T files.txt > "$out" 2>&1 || true
