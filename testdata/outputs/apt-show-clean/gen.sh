#!/usr/bin/env bash
# apt-cache show of 300 Debian packages (the first names starting
# "python3-" in the package lists, after apt-get update): records of fields
# and long descriptions, prose that speaks of errors, failures and
# exceptions. Nothing is wrong.
set -eu
out="$(cd "$(dirname "$0")" && pwd)/output.txt"
mapfile -t pkgs < <(apt-cache pkgnames python3- | LC_ALL=C sort | head -300)
LC_ALL=C apt-cache show --no-all-versions "${pkgs[@]}" > "$out" 2>&1
