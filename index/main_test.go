package index

import (
	"testing"

	"github.com/toold/toold/internal/testenv"
)

// TestMain runs the parallel cases eight at a time (TestIndexFresh mostly
// sleeps: a grep starts 100 ms after each edit), and ends the run without
// the race runtime's exit sleep (testenv.Exit).
func TestMain(m *testing.M) {
	testenv.Parallel()
	testenv.Exit(m.Run())
}
