#!/usr/bin/env bash
# psql -f of a data migration (a table made, 3,000 inserts, each echoed
# by psql as "INSERT 0 1"); one row repeats a primary key: postgres's
# ERROR and its DETAIL line are in the middle, the rest goes on.
# Needs the postgresql package: a server is started for the run in a
# temporary directory, as the postgres user, on a unix socket only.
set -eu
out="$(cd "$(dirname "$0")" && pwd)/output.txt"
tmp=$(mktemp -d); trap 'su postgres -c "$bin/pg_ctl -D $tmp/db -m fast stop" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
chown postgres "$tmp"
su postgres -c "$bin/initdb -D $tmp/db -A trust" >/dev/null
su postgres -c "$bin/pg_ctl -D $tmp/db -o '-k $tmp -c listen_addresses=' -l $tmp/server.log start" >/dev/null
for i in $(seq 1 50); do [ -S "$tmp/.s.PGSQL.5432" ] && break; sleep 0.2; done
{ echo 'CREATE TABLE items (id integer PRIMARY KEY, name text, price numeric);'
  for i in $(seq 1 3000); do
    id=$i; [ "$i" = 1871 ] && id=1017
    echo "INSERT INTO items VALUES ($id, 'item $i', $((i % 97)).50);"
  done
  echo 'SELECT count(*) FROM items;'; } > "$tmp/migrate.sql"
chmod 644 "$tmp/migrate.sql"
su postgres -c "psql -h $tmp -X -d postgres -f $tmp/migrate.sql" > "$tmp/log" 2>&1 || true
sed "s#$tmp#/srv/migrations#g" "$tmp/log" > "$out"
