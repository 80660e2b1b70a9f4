package testenv

import (
	"os"
	"testing"
)

// Long reports whether the long cases run: TOOLD_LONG set to anything but
// "" or "0" (.ci/run sets TOOLD_LONG=1).
func Long() bool {
	v := os.Getenv("TOOLD_LONG")
	return v != "" && v != "0"
}

// Size returns quick in the default run and long when Long: the size of a
// case that runs in both, smaller by default and checking the same.
func Size[T any](quick, long T) T {
	if Long() {
		return long
	}
	return quick
}

// SkipUnlessLong skips t in the default run; what says what the case does,
// for the skip message.
func SkipUnlessLong(t testing.TB, what string) {
	t.Helper()
	if !Long() {
		t.Skipf("TOOLD_LONG=1 runs this: %s", what)
	}
}
