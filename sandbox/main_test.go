package sandbox

import (
	"testing"

	"github.com/toold/toold/internal/testenv"
)

// TestMain ends the run without the race runtime's exit sleep
// (testenv.Exit), in its child processes too: the launcher and the probe
// are this binary, and a -race one sleeps a second before it exits
// (GORACE's atexit_sleep_ms): Probe took a second.
func TestMain(m *testing.M) {
	testenv.NoExitSleep()
	testenv.Main(m)
}
