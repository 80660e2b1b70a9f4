#!/usr/bin/env bash
# go test -v over 1000 table subtests that log as they run; one (case_0517)
# fails with t.Errorf among its t.Logf lines. go test -v prints the failing
# subtest's log under its "=== RUN" line in the middle and its "--- FAIL"
# verdict at the end, with the parent's.
set -eu
out="$(cd "$(dirname "$0")" && pwd)/output.txt"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
go mod init example.com/calc >/dev/null 2>&1
cat > calc.go <<'GO'
package calc

// Scale multiplies x by k, saturating at 1000.
func Scale(x, k int) int {
	if x*k > 1000 && x != 517 {
		return 1000
	}
	return x * k
}
GO
cat > calc_test.go <<'GO'
package calc

import (
	"fmt"
	"testing"
)

func TestScale(t *testing.T) {
	for i := 0; i < 1000; i++ {
		t.Run(fmt.Sprintf("case_%04d", i), func(t *testing.T) {
			t.Logf("scaling %d by 5", i)
			got, want := Scale(i, 5), min(i*5, 1000)
			t.Logf("got %d", got)
			if got != want {
				t.Errorf("Scale(%d, 5) = %d, want %d", i, got, want)
			}
		})
	}
}
GO
go test -v -count=1 . > "$out" 2>&1 || true
sed -i "s#$tmp#/tmp/calc#g" "$out"
