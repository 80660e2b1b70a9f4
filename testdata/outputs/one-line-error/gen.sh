#!/usr/bin/env bash
# A one-line output: the whole answer is one error line.
set -eu
out="$(cd "$(dirname "$0")" && pwd)/output.txt"
LC_ALL=C ls /nonexistent/config.yaml > "$out" 2>&1 || true
