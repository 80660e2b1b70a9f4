#!/usr/bin/env bash
# A Tcl library's tcltest suite run verbose (each test's "++++ ... PASSED"
# line): 6 files of 400 tests, one test of csv.test fails; tcltest's
# "==== ... FAILED" report is in the middle, the counts ("Failed 1") at
# the end.
set -eu
out="$(cd "$(dirname "$0")" && pwd)/output.txt"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
mkdir tests
for f in csv json ini path queue url; do
  {
    echo 'package require tcltest'
    echo 'namespace import ::tcltest::*'
    echo 'proc field {s} { return [string trim $s {"}] }'
    for i in $(seq 1 400); do
      if [ "$f" = csv ] && [ "$i" = 213 ]; then
        echo "test $f-$i {quoted field with an escaped quote} { field {\"a\"\"b\"} } {a\"b}"
      else
        echo "test $f-$i {field $i} { field {\"v$i\"} } {v$i}"
      fi
    done
    echo 'cleanupTests'
  } > "tests/$f.test"
done
cat > tests/all.tcl <<'TCL'
package require tcltest
namespace import ::tcltest::*
configure -testdir [file dirname [file normalize [info script]]] -verbose pt
runAllTests
TCL
tclsh tests/all.tcl > "$out" 2>&1 || true
sed -i "s#$tmp#/src/tclib#g" "$out"
