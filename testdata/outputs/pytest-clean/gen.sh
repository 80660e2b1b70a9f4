#!/usr/bin/env bash
# pytest -v over 500 passing cases named after errors and failures: nothing
# to highlight.
set -eu
out="$(cd "$(dirname "$0")" && pwd)/output.txt"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
cat > test_errors.py <<'PY'
import pytest

@pytest.mark.parametrize("n", range(250))
def test_error_is_raised(n):
    with pytest.raises(ValueError):
        int("x" * (n + 1))

@pytest.mark.parametrize("n", range(250))
def test_failure_count(n):
    assert sum(1 for i in range(n) if i < 0) == 0
PY
/usr/bin/python3 -m pytest -v -p no:cacheprovider --color=no test_errors.py > "$out" 2>&1
sed -i "s#$tmp#/tmp/pytest#g" "$out"
