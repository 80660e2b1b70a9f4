package exec_test

import (
	"os"
	"strings"
	"testing"

	"github.com/toold/toold/internal/reaptest"
	"github.com/toold/toold/internal/testenv"
)

// TestMain runs the parallel cases, which mostly wait on commands of their
// own (timeouts, kill delays), eight at a time, reaps the orphaned members
// of their groups (reaptest.Start), and ends the run without the race
// runtime's exit sleep (testenv.Exit), in its child processes too: the
// sandbox's probe and launchers are this binary, and a -race one sleeps a
// second before it exits (GORACE's atexit_sleep_ms).
func TestMain(m *testing.M) {
	testenv.Parallel()
	if v := os.Getenv("GORACE"); !strings.Contains(v, "atexit_sleep_ms") {
		os.Setenv("GORACE", strings.TrimSpace(v+" atexit_sleep_ms=0"))
	}
	// Not in the child processes of TestCloseReapsLateOrphans and
	// TestStartHelperUnderReaper, which check the Runner's own reaper.
	if os.Getenv(closeHelper) == "" && os.Getenv(startHelper) == "" {
		reaptest.Start()
	}
	testenv.Exit(m.Run())
}
