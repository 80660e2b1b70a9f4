#!/usr/bin/env bash
# dpkg -i of a release's 400 local packages into a root of its own
# (--root, an empty database): one depends on a library not installed:
# dpkg's "dependency problems" report is in the middle of its unpack and
# set-up lines, its "Errors were encountered" list at the end.
set -eu
out="$(cd "$(dirname "$0")" && pwd)/output.txt"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
mkdir debs root
mkdir -p root/var/lib/dpkg/info root/var/lib/dpkg/updates root/var/lib/dpkg/triggers
touch root/var/lib/dpkg/status root/var/lib/dpkg/available
for i in $(seq -w 1 400); do
  p="acme-mod$i"
  mkdir -p "pkg/$p/DEBIAN" "pkg/$p/usr/share/acme/mod$i"
  echo "module $i" > "pkg/$p/usr/share/acme/mod$i/README"
  dep=""
  [ "$i" = 197 ] && dep="Depends: libacme-crypto3 (>= 3.1)"
  printf 'Package: %s\nVersion: 2.4.%d\nArchitecture: all\nMaintainer: Acme <ops@acme.test>\n%sDescription: acme module %s\n' \
    "$p" "$((10#$i))" "${dep:+$dep$'\n'}" "$i" > "pkg/$p/DEBIAN/control"
  dpkg-deb --root-owner-group -Zgzip --build "pkg/$p" "debs/${p}_2.4.$((10#$i))_all.deb" > /dev/null
done
LC_ALL=C dpkg --root="$tmp/root" --force-script-chrootless --force-not-root -i debs/*.deb > "$tmp/log" 2>&1 || true
sed "s#$tmp#/srv/release#g" "$tmp/log" > "$out"
