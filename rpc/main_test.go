package rpc

import (
	"testing"

	"github.com/toold/toold/internal/testenv"
)

// TestMain runs the parallel cases (TestProgress's ten, which mostly wait
// on the progress interval) eight at a time, not two on two cores.
func TestMain(m *testing.M) {
	testenv.Parallel()
	testenv.Exit(m.Run())
}
