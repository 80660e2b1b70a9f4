#!/bin/sh
# Runs agents.test.mjs. Its shared-daemon case needs the uid's system runtime
# directory, /run/user/UID, where every client finds the daemon: as root (CI,
# containers) the tests run in a mount namespace of their own with a tmpfs on
# /run/user and /run/user/0 in it, as systemd-logind would make it, so that
# they neither need the machine to have one nor touch the one it has.
set -e
cd "$(dirname "$0")"
test="node --test --test-reporter=spec agents.test.mjs"
if [ "$(id -u)" = 0 ] && [ -z "$TOOLD_AGENTS_NAMESPACE" ] && command -v unshare >/dev/null &&
  unshare --mount true 2>/dev/null; then
  exec unshare --mount --propagation private env TOOLD_AGENTS_NAMESPACE=1 sh -c \
    "mount -t tmpfs -o mode=0755 tmpfs /run/user && mkdir -m 0700 /run/user/0 && exec $test"
fi
exec $test
