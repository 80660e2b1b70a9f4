#!/usr/bin/env bash
# unzip -t of a backup of 3,000 documents, one of whose stored data was
# damaged on disk: unzip's "bad CRC" line is in the middle of its "OK"
# lines, in its own words; its summary of the error at the end.
set -eu
out="$(cd "$(dirname "$0")" && pwd)/output.txt"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
mkdir -p docs
for i in $(seq -w 1 3000); do printf 'document %s\nrevision 3\n' "$i" > "docs/report_$i.txt"; done
zip -q -0 -X backup.zip docs/report_*.txt
# damage one byte of the data of docs/report_1822.txt (stored, so its text is in the archive)
off=$(grep -abo 'document 1822' backup.zip | head -1 | cut -d: -f1)
printf 'X' | dd of=backup.zip bs=1 seek="$off" conv=notrunc status=none
unzip -t backup.zip > "$out" 2>&1 || true
