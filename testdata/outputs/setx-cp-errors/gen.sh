#!/usr/bin/env bash
# A deploy script run with bash -x copies 1,200 assets (each a few trace
# lines); among them cp cannot stat a missing file, rm cannot remove a
# directory, mv cannot move into a directory not made, a helper is not installed
# (command not found) and a hook is not executable (Permission denied). The
# script goes on (no set -e), as such scripts do.
set -eu
out="$(cd "$(dirname "$0")" && pwd)/output.txt"
tmp=$(mktemp -d); trap 'chmod -R u+w "$tmp"; rm -rf "$tmp"' EXIT
cd "$tmp"
mkdir -p src dst locked hooks
for i in $(seq -w 1 1200); do echo "asset $i" > "src/asset_$i.css"; done
rm src/asset_0777.css
mkdir dst/cache.d; echo x > dst/cache.d/f
printf '#!/bin/sh\necho hook\n' > hooks/post-copy; chmod -x hooks/post-copy
chmod a-w locked
cat > deploy.sh <<'SH'
n=0
for i in $(seq -w 1 1200); do
  cp "src/asset_$i.css" "dst/asset_$i.css"
  n=$((n + 1))
  if [ "$i" = 0600 ]; then
    rm dst/cache.d
    minify-css dst/asset_0600.css
  fi
  if [ "$i" = 0900 ]; then
    mv dst/asset_0900.css archive/2026/
    ./hooks/post-copy
  fi
done
echo "copied $n assets"
SH
bash -x deploy.sh > "$out" 2>&1 || true
sed -i "s#$tmp#/srv/site#g" "$out"
