#!/usr/bin/env bash
# node --test with the TAP reporter over 1,500 tests, the first of which
# fails: the error is at the start, followed by 1,499 "ok" records.
set -eu
out="$(cd "$(dirname "$0")" && pwd)/output.txt"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
cat > slug.test.mjs <<'JS'
import { test } from 'node:test';
import assert from 'node:assert/strict';
const slug = (s) => s.toLowerCase().replace(/ /g, '-');
test('slug keeps unicode letters', () => {
  assert.equal(slug('Crème Brûlée'), 'creme-brulee');
});
for (let i = 1; i < 1500; i++) {
  test(`slug of title ${i}`, () => assert.equal(slug(`Title ${i}`), `title-${i}`));
}
JS
node --test --test-reporter=tap slug.test.mjs > "$out" 2>&1 || true
sed -i "s#$tmp#/tmp/node#g" "$out"
