#!/usr/bin/env bash
# A lint step as CI runs it: eslint (stylish) over 60 files with warnings,
# one file with an error, then tsc --noEmit with two type errors.
# Needs typescript and eslint@8 in JEST_DIR's node_modules (default /tmp/i7tools).
set -eu
out="$(cd "$(dirname "$0")" && pwd)/output.txt"
tools="${JEST_DIR:-/tmp/i7tools}"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
ln -s "$tools/node_modules" node_modules
echo '{"root":true,"parserOptions":{"ecmaVersion":2022,"sourceType":"module"},"env":{"es2022":true},"globals":{"console":"readonly"},"rules":{"no-unused-vars":"warn","no-console":"warn","no-undef":"error"}}' > .eslintrc.json
mkdir src
for i in $(seq -w 1 60); do
  printf 'export function f%s(a, b) {\n  const tmp = a;\n  console.log(a);\n  return a;\n}\n' "$i" > "src/f$i.js"
done
printf 'export function total(xs) {\n  return xs.reduce((s, x) => s + x, initial);\n}\n' > src/f31.js
printf 'const port: number = "8080";\nexport function start(p: number): string { return p; }\nconsole.log(start(port));\n' > src/main.ts
printf '{"compilerOptions":{"strict":true,"noEmit":true,"types":[]},"files":["src/main.ts"]}\n' > tsconfig.json
{ node_modules/.bin/eslint --no-color src || true; node_modules/.bin/tsc -p . || true; } > "$out" 2>&1
sed -i "s#$tmp#/tmp/lint#g" "$out"
