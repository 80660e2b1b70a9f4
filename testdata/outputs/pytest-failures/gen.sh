#!/usr/bin/env bash
# pytest -v over 800 parametrized cases, two of which fail (n=313 by an
# assertion, n=640 by an exception): their FAILED lines sit in the middle of
# the PASSED list, their bodies in the FAILURES section, the verdicts in the
# short summary at the end.
set -eu
out="$(cd "$(dirname "$0")" && pwd)/output.txt"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
cat > test_parse.py <<'PY'
import pytest

def parse_port(s):
    n = int(s)
    if n == 640:
        raise ValueError(f"port {s} is reserved")
    return n if n != 313 else n + 1

@pytest.mark.parametrize("n", range(800))
def test_parse_port(n):
    assert parse_port(str(n)) == n
PY
/usr/bin/python3 -m pytest -v -p no:cacheprovider --color=no test_parse.py > "$out" 2>&1 || true
sed -i "s#$tmp#/tmp/pytest#g" "$out"
