#!/usr/bin/env bash
# A cron.daily directory of 200 maintenance scripts run by run-parts
# --verbose --report, each printing a few lines; the rotation script
# finds its volume full, says so in its own words and exits 3: run-parts'
# "exited with return code 3" is in the middle, and the run goes on.
set -eu
out="$(cd "$(dirname "$0")" && pwd)/output.txt"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
mkdir cron.daily
for i in $(seq -w 1 200); do
  f="cron.daily/${i}-task$i"
  if [ "$i" = 071 ]; then
    cat > "$f" <<'SH'
#!/bin/sh
echo "logrotate-app: rotating /var/log/app/*.log (14 files)"
echo "logrotate-app: /var/log/app/access.log: 0 bytes left on /var/log, rotation skipped"
exit 3
SH
  else
    cat > "$f" <<SH
#!/bin/sh
for k in 1 2 3 4 5 6 7 8; do echo "task$i: step \$k of 8 complete"; done
echo "task$i: finished in 0.\${k}s"
SH
  fi
  chmod +x "$f"
done
run-parts --verbose --report cron.daily > "$out" 2>&1 || true
