package testenv

import (
	"os"
	"syscall"
	"testing"
)

// Main runs the tests and exits as Exit does: the whole TestMain of a
// package that needs nothing else, `func TestMain(m *testing.M) {
// testenv.Main(m) }`.
func Main(m *testing.M) {
	Exit(m.Run())
}

// Exit ends the test binary with code, the result of m.Run, without the
// race runtime's exit sleep when the run passed.
//
// A -race binary that exits with status 0 while goroutines other than
// main exist (a test binary always has some) sleeps GORACE's
// atexit_sleep_ms, a second by default, in the race runtime's finish
// (os.Exit(0) and a return from main call it; a non-zero status does not).
// The sleep gives other goroutines time to race before the final report;
// a test binary does not need it: m.Run has already failed the run, and
// returned non-zero, if the detector reported a race at any time in it,
// tests or not ("race detected outside of test execution"), and Exit
// leaves a failed run to os.Exit. What is given up: a race that happens
// after m.Run returns (in a TestMain's cleanup, or in a goroutine a test
// left running that races only in that second) is still printed, but no
// longer fails the run; the leak checks are what catch such goroutines.
// The sleep cost every test package a second of wall time: some 12 s of
// the suite's 25 packages two at a time.
//
// With coverage on, Exit calls os.Exit, whose exit hooks write the
// counters.
func Exit(code int) {
	if code == 0 && Race && testing.CoverMode() == "" {
		syscall.Exit(0) // os.Exit without the runtime's exit hooks and racefini
	}
	os.Exit(code)
}
