#!/usr/bin/env bash
# wget -r of a docs site served on the loopback (python3 -m http.server):
# 400 pages linked from an index, one link broken; wget's "ERROR 404"
# for it is in the middle of its log, the counts at the end.
set -eu
out="$(cd "$(dirname "$0")" && pwd)/output.txt"
tmp=$(mktemp -d); trap 'kill $srv 2>/dev/null || true; rm -rf "$tmp"' EXIT
mkdir -p "$tmp/site/docs" "$tmp/get"
{ echo '<html><body>'
  for i in $(seq -w 1 400); do
    echo "<a href=\"docs/page_$i.html\">page $i</a>"
    echo "page $i" > "$tmp/site/docs/page_$i.html"
  done
  echo '</body></html>'; } > "$tmp/site/index.html"
rm "$tmp/site/docs/page_233.html"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
python3 -m http.server "$port" --bind 127.0.0.1 --directory "$tmp/site" > /dev/null 2>&1 &
srv=$!
for i in $(seq 1 50); do curl -s -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.1; done
cd "$tmp/get"
LC_ALL=C wget -r -l 1 --no-host-directories "http://127.0.0.1:$port/index.html" > "$tmp/log" 2>&1 || true
sed -e "s#127.0.0.1:$port#127.0.0.1:8000#g" "$tmp/log" > "$out"
