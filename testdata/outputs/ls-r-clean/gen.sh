#!/usr/bin/env bash
# ls -R of the C library's headers (/usr/include): thousands of file names,
# among them errno.h, error.h, err.h, fenv.h, and directories named after
# failures and errors. Nothing is wrong: no highlight may appear.
set -eu
out="$(cd "$(dirname "$0")" && pwd)/output.txt"
LC_ALL=C ls -R /usr/include > "$out" 2>&1
