#!/usr/bin/env bash
# pytest -v with live logs (log_cli) over 400 tests of a service client,
# many of which exercise error paths and log ERROR lines while they pass:
# the middle is full of error records that are expected, 48 distinct
# messages, more than the detector keeps groups of. Two tests fail:
# their bodies sit in the FAILURES section (the second with the 60 log
# records it captured, which push the first out of a small tail), their
# verdicts in the short summary at the end. A preview must pair each verdict with its body
# rather than show the logged noise.
set -eu
out="$(cd "$(dirname "$0")" && pwd)/output.txt"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
cat > test_client.py <<'PY'
import logging
import pytest

log = logging.getLogger("client")
SERVICES = ["inventory", "billing", "search", "orders", "shipping", "accounts", "catalog", "payments"]
PROBLEMS = ["answered with a timeout", "reset the connection", "sent an expired certificate",
            "rejected the rate limit", "replied with a schema mismatch", "ran out of disk quota"]
REASONS = [f"{s} {p}" for s in SERVICES for p in PROBLEMS]

def refund_total(n):
    total = n * 1.0
    if n == 233:
        total += 0.5  # rounding bug under test
    return total

def retrying_call(n):
    if n % 3 == 0:
        log.error("attempt %d failed: %s", n, REASONS[n // 3 % len(REASONS)])
    return n

@pytest.mark.parametrize("n", range(400))
def test_refund(n):
    retrying_call(n)
    assert refund_total(n) == n * 1.0, f"refund total {refund_total(n)} != {n * 1.0}"

class TestSession:
    def test_token_refresh(self):
        for i in range(60):
            log.error("token endpoint answered 500 through the %s proxy; retrying", SERVICES[i % len(SERVICES)])
        token = {"expires_in": -1}
        assert token["expires_in"] > 0, "refreshed token is already expired"
PY
cat > pytest.ini <<'INI'
[pytest]
log_cli = true
log_cli_level = ERROR
INI
/usr/bin/python3 -m pytest -v -p no:cacheprovider --color=no test_client.py > "$out" 2>&1 || true
sed -i "s#$tmp#/tmp/pytest#g" "$out"
