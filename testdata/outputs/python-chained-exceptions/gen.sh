#!/usr/bin/env bash
# A Python worker logs 1,500 lines with logging, then logger.exception of a
# chained error ("During handling of the above exception, another exception
# occurred" and "The above exception was the direct cause"), then 1,500 more.
set -eu
out="$(cd "$(dirname "$0")" && pwd)/output.txt"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
cat > worker.py <<'PY'
import logging, sys

logging.basicConfig(stream=sys.stdout, level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
log = logging.getLogger("sync")

def fetch(key):
    return {"a": 1}[key]

def load(key):
    try:
        return fetch(key)
    except KeyError:
        return int("n/a")

def sync(key):
    try:
        load(key)
    except ValueError as e:
        raise ConnectionError(f"sync of {key} aborted") from e

for i in range(1500):
    log.info("synced record %d", i)
try:
    sync("inventory")
except ConnectionError:
    log.exception("record batch skipped")
for i in range(1500, 3000):
    log.info("synced record %d", i)
PY
python3 worker.py > "$out" 2>&1 || true
sed -i "s#$tmp#/srv/worker#g" "$out"
