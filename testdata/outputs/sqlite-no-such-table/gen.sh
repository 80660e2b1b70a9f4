#!/usr/bin/env bash
# sqlite3 runs a migration of 2,000 inserts echoing each (.echo on); one
# statement names a table that does not exist: sqlite's "Parse error ...
# no such table" is in the middle; the migration goes on.
set -eu
out="$(cd "$(dirname "$0")" && pwd)/output.txt"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
{ echo '.echo on'; echo 'CREATE TABLE items(id INTEGER PRIMARY KEY, name TEXT);'
  for i in $(seq 1 2000); do
    if [ "$i" = 1234 ]; then echo "INSERT INTO item_tags(item, tag) VALUES ($i, 'sale');"; fi
    echo "INSERT INTO items(id, name) VALUES ($i, 'item $i');"
  done; } > migrate.sql
sqlite3 shop.db < migrate.sql > "$out" 2>&1 || true
