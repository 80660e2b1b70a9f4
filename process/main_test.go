package process_test

import (
	"testing"

	"github.com/toold/toold/internal/reaptest"
	"github.com/toold/toold/internal/testenv"
)

// TestMain runs the parallel cases, which mostly wait on processes of
// their own, eight at a time, reaps the orphaned members of their groups
// (reaptest.Start: a Runner's Close otherwise waited the kill delay for
// each background child's zombie), and ends the run without the race
// runtime's exit sleep (testenv.Exit).
func TestMain(m *testing.M) {
	testenv.Parallel()
	reaptest.Start()
	testenv.Exit(m.Run())
}
