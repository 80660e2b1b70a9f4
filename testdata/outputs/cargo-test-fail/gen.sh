#!/usr/bin/env bash
# cargo test over 600 generated tests, one of which (t_0288) fails an
# assert_eq!: its "... FAILED" line sits in the middle of the list, its panic
# message in the "failures:" section, the verdict at the end.
set -eu
out="$(cd "$(dirname "$0")" && pwd)/output.txt"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
cargo new --lib --name calc calc >/dev/null 2>&1
cd calc
{
  echo 'pub fn half(x: u32) -> u32 { if x == 288 { x / 2 + 1 } else { x / 2 } }'
  echo '#[cfg(test)]'
  echo 'mod tests {'
  echo '    use super::*;'
  for i in $(seq -w 0 599); do
    echo "    #[test] fn t_$i() { assert_eq!(half(2 * $((10#$i)) / 2 * 2), $((10#$i))); }"
  done
  echo '}'
} > src/lib.rs
cargo test --offline --color never -- --test-threads=1 > "$out" 2>&1 || true
sed -i "s#$tmp#/tmp/cargo#g" "$out"
sed -i "/Blocking waiting for file lock/d" "$out"
