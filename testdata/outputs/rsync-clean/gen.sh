#!/usr/bin/env bash
# rsync -av of a photo library's 5,000 files to an empty copy: the
# listing and its counts. Nothing is wrong.
set -eu
out="$(cd "$(dirname "$0")" && pwd)/output.txt"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
for y in 2019 2020 2021 2022 2023; do
  mkdir -p "photos/$y"
  for i in $(seq -w 1 1000); do echo "$y $i" > "photos/$y/IMG_$i.jpg"; done
done
LC_ALL=C rsync -av photos/ copy/ > "$tmp/log" 2>&1
sed "s#$tmp#/home/me#g" "$tmp/log" > "$out"
