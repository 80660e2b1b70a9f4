package process_test

import (
	"testing"

	"github.com/toold/toold/internal/testenv"
)

// TestMain runs the parallel cases, which mostly wait on processes of
// their own, eight at a time, and ends the run without the race runtime's
// exit sleep (testenv.Exit).
func TestMain(m *testing.M) {
	testenv.Parallel()
	testenv.Exit(m.Run())
}
