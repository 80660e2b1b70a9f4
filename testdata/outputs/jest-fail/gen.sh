#!/usr/bin/env bash
# jest --verbose over 12 suites of 40 tests; one test of the 7th suite
# fails: its "✕" line sits in the middle of the verbose list, its body
# under "●" near the end, the counts at the end.
# Needs jest: npm install jest in a directory given as JEST_DIR (default /tmp/i7tools).
set -eu
out="$(cd "$(dirname "$0")" && pwd)/output.txt"
tools="${JEST_DIR:-/tmp/i7tools}"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
ln -s "$tools/node_modules" node_modules
echo '{"name":"money","private":true}' > package.json
printf 'exports.cents = (s) => Math.round(parseFloat(s) * 100);\n' > money.js
for s in $(seq -w 1 12); do
  {
    echo "const { cents } = require('./money');"
    echo "describe('cents suite $s', () => {"
    for i in $(seq 1 40); do
      if [ "$s" = 07 ] && [ "$i" = 23 ]; then
        echo "  test('rounds 1.005 to 101 cents', () => { expect(cents('1.005')).toBe(101); });"
      else
        echo "  test('converts $s.$i', () => { expect(cents('$((10#$s)).$((i % 10))0')).toBe($((10#$s)) * 100 + $((i % 10)) * 10); });"
      fi
    done
    echo "});"
  } > "money$s.test.js"
done
CI=true node_modules/.bin/jest --verbose --runInBand --colors=false > "$out" 2>&1 || true
sed -i "s#$tmp#/tmp/jest#g" "$out"
