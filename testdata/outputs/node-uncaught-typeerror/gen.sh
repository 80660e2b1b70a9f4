#!/usr/bin/env bash
# A Node script processes 2,500 records (one line each), hits a TypeError
# inside a callback that a process 'uncaughtException' handler logs with
# its stack, and goes on: the error and its frames are in the middle.
set -eu
out="$(cd "$(dirname "$0")" && pwd)/output.txt"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
cat > app.js <<'JS'
process.on('uncaughtException', (err) => {
  console.log(err.stack);
  for (let i = 1250; i < 2500; i++) console.log(`processed record ${i}: ok (${i % 13} ms)`);
});
function price(item) { return item.price.amount * item.qty; }
function total(items) { return items.reduce((s, it) => s + price(it), 0); }
for (let i = 0; i < 1250; i++) console.log(`processed record ${i}: ok (${i % 13} ms)`);
setTimeout(() => total([{ price: { amount: 3 }, qty: 2 }, { qty: 1 }]), 1);
JS
node app.js > "$out" 2>&1 || true
sed -i "s#$tmp#/srv/app#g" "$out"
