#!/usr/bin/env bash
# npm ls of a project whose node_modules was edited by hand: one dependency
# missing, one at a version outside its range, one extraneous (no network:
# the tree is written directly).
set -eu
out="$(cd "$(dirname "$0")" && pwd)/output.txt"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
pkg() { mkdir -p "node_modules/$1"; printf '{"name":"%s","version":"%s"%s}\n' "$1" "$2" "${3:-}" > "node_modules/$1/package.json"; }
printf '{"name":"shop-web","version":"1.0.0","dependencies":{"left-pad":"^1.3.0","chalk":"^5.0.0","lodash":"^4.17.0","ms":"^2.1.0","dayjs":"^1.11.0"}}\n' > package.json
pkg left-pad 1.3.0
pkg chalk 4.1.2
pkg lodash 4.17.21
pkg dayjs 1.11.10
pkg debug 4.3.4 ',"dependencies":{"ms":"2.1.2"}'
npm ls --all --no-update-notifier > "$out" 2>&1 || true
sed -i -E "s#$tmp#/home/dev/shop-web#g; s#_logs/[0-9TZ_-]+-debug#_logs/2026-11-24T00_00_00_000Z-debug#" "$out"
