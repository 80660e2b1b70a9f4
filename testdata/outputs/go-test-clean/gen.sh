#!/usr/bin/env bash
# go test -v over 400 passing subtests (test names mention errors and
# failures, as real ones do): no highlight may appear.
set -eu
out="$(cd "$(dirname "$0")" && pwd)/output.txt"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
go mod init example.com/calc >/dev/null 2>&1
printf 'package calc\n\n// Double doubles x.\nfunc Double(x int) int { return 2 * x }\n' > calc.go
cat > calc_test.go <<'GO'
package calc

import (
	"errors"
	"fmt"
	"testing"
)

func TestDouble(t *testing.T) {
	for i := 0; i < 200; i++ {
		t.Run(fmt.Sprintf("case_%03d", i), func(t *testing.T) {
			t.Logf("doubling %d", i)
			if Double(i) != i+i {
				t.Errorf("wrong")
			}
		})
	}
}

func TestErrorWrapping(t *testing.T) {
	for i := 0; i < 200; i++ {
		t.Run(fmt.Sprintf("handles_failure_%03d", i), func(t *testing.T) {
			err := fmt.Errorf("step %d: %w", i, errors.ErrUnsupported)
			t.Logf("wrapped: %v (no error expected to escape)", err)
		})
	}
}
GO
go test -v -count=1 . > "$out" 2>&1
sed -i "s#$tmp#/tmp/calc#g" "$out"
