package reaptest

import (
	"testing"

	"github.com/toold/toold/internal/testenv"
)

// TestMain ends the run without the race runtime's exit sleep (testenv.Exit).
func TestMain(m *testing.M) { testenv.Main(m) }
