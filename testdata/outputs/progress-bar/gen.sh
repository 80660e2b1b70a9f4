#!/usr/bin/env bash
# A download-style progress bar redrawn with \r 1,000 times on one raw line
# (~103 KB), then the verification that fails. A terminal shows the final
# state of the bar, then the error.
set -eu
out="$(cd "$(dirname "$0")" && pwd)/output.txt"
cat > /tmp/progress.$$.py <<'PY'
import sys
print("fetching dataset.tar (1000 chunks)")
for i in range(1, 1001):
    bar = "#" * (i // 25) + "." * (40 - i // 25)
    sys.stdout.write("\r[%s] %4d/1000 chunks %5.1f%% %6d KiB/s eta %3ds dataset.tar" % (bar, i, i / 10, 800 + i % 300, (1000 - i) // 40))
sys.stdout.write("\n")
print("verifying checksum of dataset.tar")
print("ERROR: checksum mismatch: expected 9f2c41d0, got 1b7e0a55")
sys.exit(1)
PY
python3 /tmp/progress.$$.py > "$out" 2>&1 || true
rm -f /tmp/progress.$$.py
