#!/usr/bin/env bash
# 7z x -bb1 of a backup of 3,000 log files (each named as it is
# extracted), one of whose stored data was damaged: 7z's report of it is
# in the middle of the names, its error counts at the end.
set -eu
out="$(cd "$(dirname "$0")" && pwd)/output.txt"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
mkdir -p logs
for i in $(seq -w 1 3000); do printf 'host %s\nlines 42\n' "$i" > "logs/host_$i.log"; done
7z a -mx=0 -bd backup.7z logs > /dev/null
off=$(grep -abo 'host 2104' backup.7z | head -1 | cut -d: -f1)
printf 'X' | dd of=backup.7z bs=1 seek="$off" conv=notrunc status=none
mkdir out
7z x -bb1 -bd -oout backup.7z > "$tmp/log" 2>&1 || true
sed "s#$tmp#/srv/restore#g" "$tmp/log" > "$out"
