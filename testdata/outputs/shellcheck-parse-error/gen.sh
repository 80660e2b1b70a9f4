#!/usr/bin/env bash
# shellcheck (its default tty format) over a repository's 250 scripts, each
# with a few style and info notes; one script has a parse error: its
# "In FILE line N:" header, the code line and the "(error)" line under it
# are in the middle of the notes.
set -eu
out="$(cd "$(dirname "$0")" && pwd)/output.txt"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
mkdir scripts
for i in $(seq -w 1 250); do
  {
    echo '#!/bin/bash'
    echo "name=job$i"
    echo 'dir=/var/lib/jobs'
    echo 'echo starting $name in $dir'
    echo 'for f in $(ls $dir); do'
    echo '  cp $dir/$f /backup/$name/'
    echo 'done'
    if [ "$i" = 137 ]; then
      echo 'if [ -n "$name" ]'
      echo '  echo "done: $name"'
      echo 'fi'
    else
      echo 'cd $dir && echo "done: $name"'
    fi
  } > "scripts/job_$i.sh"
done
shellcheck scripts/*.sh > "$out" 2>&1 || true
