package exec_test

import (
	"bytes"
	"context"
	"os"
	osexec "os/exec"
	"testing"
	"time"

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
	testenv.NoExitSleep()
	// Not in the child processes of TestCloseReapsLateOrphans and
	// TestStartHelperUnderReaper, which check the Runner's own reaper.
	if c := os.Getenv(childEnv); c != "TestCloseReapsLateOrphans" && c != "TestStartHelperUnderReaper" {
		reaptest.Start()
	}
	testenv.Exit(m.Run())
}

// childEnv names the test that a child test process runs (inChild).
const childEnv = "TOOLD_EXEC_TEST_CHILD"

// inChild runs the calling test alone in a child test process, in
// parallel with the package's other tests, and reports true: the caller
// then returns. In that child it reports false, and the test runs there.
// It is for the tests that count the process's goroutines or descriptors,
// or make it a child subreaper whose reaper would take the other tests'
// children: run in the test binary itself, they had to run alone, before
// every parallel test, and their waits (a kill delay, timeouts) held the
// package's run.
func inChild(t *testing.T) bool {
	if os.Getenv(childEnv) == t.Name() {
		return false
	}
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := osexec.CommandContext(ctx, os.Args[0], "-test.run=^"+t.Name()+"$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), childEnv+"="+t.Name())
	out, err := cmd.CombinedOutput()
	switch {
	case err != nil:
		t.Fatalf("%s in a child process: %v\n%s", t.Name(), err, out)
	case bytes.Contains(out, []byte("--- SKIP: "+t.Name()+" ")):
		t.Skipf("skipped in the child process:\n%s", out)
	case !bytes.Contains(out, []byte("--- PASS: "+t.Name()+" ")):
		t.Fatalf("%s did not run in the child process:\n%s", t.Name(), out)
	}
	return true
}
