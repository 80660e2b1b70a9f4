#!/usr/bin/env bash
# rsync -av of a site's 4,000 files, run as an unprivileged user (nobody);
# two files are readable by root only: rsync's "send_files failed to
# open" lines are in the middle of its listing, its "see previous errors"
# summary at the end. Run as root (it drops to uid 65534 with setpriv).
set -eu
out="$(cd "$(dirname "$0")" && pwd)/output.txt"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
cd "$tmp"
mkdir -p site/static/img dst
for i in $(seq -w 1 4000); do echo "img $i" > "site/static/img/thumb_$i.webp"; done
chmod 600 site/static/img/thumb_1703.webp site/static/img/thumb_2950.webp
chown 65534:65534 dst
LC_ALL=C setpriv --reuid=65534 --regid=65534 --clear-groups -- rsync -av site/ dst/ > "$tmp/log" 2>&1 || true
sed "s#$tmp#/srv/deploy#g" "$tmp/log" > "$out"
