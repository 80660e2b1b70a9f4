#!/usr/bin/env bash
# redis-cli fed 24,000 commands of a cache warm-up (SET, INCR, HSET), each
# reply printed; one INCR hits a value that is not a number and one LPUSH
# a key that holds a string: redis's replies to them, in its own words,
# are in the middle. A server is started for the run on a unix socket.
set -eu
out="$(cd "$(dirname "$0")" && pwd)/output.txt"
tmp=$(mktemp -d); trap 'redis-cli -s "$tmp/redis.sock" shutdown nosave >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
redis-server --port 0 --unixsocket "$tmp/redis.sock" --dir "$tmp" --save '' --daemonize yes --logfile "$tmp/redis.log"
for i in $(seq 1 50); do [ -S "$tmp/redis.sock" ] && break; sleep 0.1; done
{ for i in $(seq 1 8000); do
    echo "SET session:$i user$((i % 37))"
    if [ "$i" = 3412 ]; then echo "INCR session:$i"; else echo "INCR hits:$((i % 50))"; fi
    if [ "$i" = 5788 ]; then echo "LPUSH session:$i recent"; else echo "HSET user:$((i % 37)) last $i"; fi
  done; } | redis-cli -s "$tmp/redis.sock" > "$out" 2>&1 || true
