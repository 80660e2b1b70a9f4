#!/usr/bin/env bash
# A Lua game server's test scripts run one after another (80 scripts of
# 40 checks each, every check printed); one script indexes a field of a
# config that is nil: lua's error and stack traceback sit in the middle,
# in lua's own words (no "error" said), and the runner goes on.
set -eu
out="$(cd "$(dirname "$0")" && pwd)/output.txt"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
mkdir tests
for t in $(seq -w 1 80); do
  {
    echo "local cfg = { spawn = { x = 1, y = 2 }, name = 'zone$t' }"
    if [ "$t" = 47 ]; then echo "cfg.spawn = nil"; fi
    echo "for i = 1, 40 do"
    echo "  local x = cfg.spawn.x + i"
    echo "  print(string.format('zone$t check %02d: spawn at %d,%d ok', i, x, cfg.spawn.y))"
    echo "end"
  } > "tests/t_$t.lua"
done
for f in tests/t_*.lua; do lua5.4 "$f" || true; done > "$out" 2>&1
