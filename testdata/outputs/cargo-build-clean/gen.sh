#!/usr/bin/env bash
# cargo build and cargo test of a clean crate whose names speak of errors:
# nothing to highlight.
set -eu
out="$(cd "$(dirname "$0")" && pwd)/output.txt"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
cargo new --lib --name error_report error_report >/dev/null 2>&1
cd error_report
{
  echo 'pub fn failure_count(v: &[u32]) -> usize { v.iter().filter(|&&x| x > 0).count() }'
  echo '#[cfg(test)]'
  echo 'mod tests {'
  echo '    use super::*;'
  for i in $(seq -w 0 149); do
    echo "    #[test] fn error_case_$i() { assert_eq!(failure_count(&[$((10#$i)), 0]), if $((10#$i)) > 0 { 1 } else { 0 }); }"
  done
  echo '}'
} > src/lib.rs
{ cargo build --offline --color never && cargo test --offline --color never -- --test-threads=1; } > "$out" 2>&1
sed -i "s#$tmp#/tmp/cargo#g" "$out"
sed -i "/Blocking waiting for file lock/d" "$out"
