#!/usr/bin/env bash
# cargo build of a crate with 120 functions that each leave a variable
# unused (120 warnings) and one type error: rustc prints the error first,
# then the flood of warnings.
set -eu
out="$(cd "$(dirname "$0")" && pwd)/output.txt"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
cargo new --bin --name app app >/dev/null 2>&1
cd app
{
  for i in $(seq -w 0 119); do
    echo "pub fn f_$i(x: u32) -> u32 { let unused_$i = x; x }"
  done
  echo 'fn main() {'
  echo '    let total: u32 = "12";'
  echo '    println!("{}", total + f_000(1));'
  echo '}'
} > src/main.rs
cargo build --offline --color never > "$out" 2>&1 || true
sed -i "s#$tmp#/tmp/cargo#g" "$out"
sed -i "/Blocking waiting for file lock/d" "$out"
