#!/usr/bin/env bash
# tar -cvf of the C library's headers: a clean listing of thousands of
# names, error.h, errno.h, err.h among them. Nothing is wrong: no highlight
# may appear.
set -eu
out="$(cd "$(dirname "$0")" && pwd)/output.txt"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd /usr
LC_ALL=C tar -cvf "$tmp/include.tar" include > "$out" 2>&1
