package lifecycle

import (
	"testing"

	"github.com/toold/toold/internal/reaptest"
	"github.com/toold/toold/internal/testenv"
)

// TestMain reaps the orphaned members of the commands' groups
// (reaptest.Start: the daemon's Runner otherwise waited the kill delay for
// each background child's zombie, and the leak checks for its goroutines)
// and ends the run without the race runtime's exit sleep (testenv.Exit).
func TestMain(m *testing.M) {
	reaptest.Start()
	testenv.Main(m)
}
