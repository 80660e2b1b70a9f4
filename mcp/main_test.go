package mcp

import (
	"testing"

	"github.com/toold/toold/internal/testenv"
)

// TestMain runs the parallel cases (all of them: each has a daemon of its
// own, and none counts goroutines or changes process-wide state) eight at
// a time, and ends the run without the race runtime's exit sleep
// (testenv.Exit).
func TestMain(m *testing.M) {
	testenv.Parallel()
	testenv.Exit(m.Run())
}
