#!/usr/bin/env bash
# seq 1 40000: numbers only. Nothing is wrong: no highlight may appear.
set -eu
out="$(cd "$(dirname "$0")" && pwd)/output.txt"
seq 1 40000 > "$out"
