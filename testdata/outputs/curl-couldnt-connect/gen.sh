#!/usr/bin/env bash
# A smoke-test script checks 600 local files (a line each), then asks a
# service that is not running for its health (curl to a closed port), then
# checks 600 more: curl's "Couldn't connect to server" is in the middle.
set -eu
out="$(cd "$(dirname "$0")" && pwd)/output.txt"
cat > /tmp/smoke.$$.sh <<'SH'
for i in $(seq 1 600); do echo "smoke: fixture $i present"; done
curl -sS --max-time 5 http://127.0.0.1:9/healthz
for i in $(seq 601 1200); do echo "smoke: fixture $i present"; done
SH
bash /tmp/smoke.$$.sh > "$out" 2>&1 || true
rm -f /tmp/smoke.$$.sh
sed -i -E "s/after [0-9]+ ms/after 0 ms/" "$out"
