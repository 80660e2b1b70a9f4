package testenv

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// childEnv makes the test binary a child of TestExit's: "pass" and "plain"
// run TestExitChild, which passes, and end through Exit or os.Exit;
// "race" races in TestExitChild, "race-outside" in TestMain before m.Run.
const childEnv = "TOOLD_TESTENV_EXIT_CHILD"

func TestMain(m *testing.M) {
	switch os.Getenv(childEnv) {
	case "plain":
		os.Exit(m.Run())
	case "race-outside":
		race()
	}
	Main(m)
}

// race writes a variable from two goroutines with nothing ordering them.
func race() {
	x, done := 0, make(chan bool)
	go func() { x++; done <- true }()
	x++
	<-done
	_ = x
}

// TestExitChild is the child's test: it leaves a goroutine running, as a
// test binary's runtime and leaked helpers do, so the race runtime would
// sleep at exit.
func TestExitChild(t *testing.T) {
	mode := os.Getenv(childEnv)
	if mode == "" {
		t.Skip("a child of TestExit's")
	}
	go func() { select {} }()
	if mode == "race" {
		race()
	}
}

// runChild runs this test binary's TestExitChild in mode with GORACE's
// exit sleep set to sleepMS, and returns its output, error and wall time.
func runChild(t *testing.T, mode string, sleepMS string) (string, error, time.Duration) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestExitChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), childEnv+"="+mode, "GORACE=atexit_sleep_ms="+sleepMS)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	return string(out), err, time.Since(start)
}

// TestExit: a passing -race test binary ending through Exit skips the exit
// sleep that os.Exit takes, and a race, in a test or outside one, still
// fails the run.
func TestExit(t *testing.T) {
	if !Race {
		t.Skip("the exit sleep is the race runtime's")
	}
	t.Parallel()
	// The control: os.Exit sleeps, so the case below can see the skip.
	if out, err, took := runChild(t, "plain", "300"); err != nil || took < 300*time.Millisecond {
		t.Fatalf("os.Exit: %v in %v, want a pass in 300 ms or more (the exit sleep)\n%s", err, took, out)
	}
	if out, err, took := runChild(t, "pass", "10000"); err != nil || took > 5*time.Second {
		t.Errorf("Exit: %v in %v, want a pass without the 10 s exit sleep\n%s", err, took, out)
	}
	for _, mode := range []string{"race", "race-outside"} {
		out, err, _ := runChild(t, mode, "0")
		if err == nil || !strings.Contains(out, "DATA RACE") {
			t.Errorf("%s: %v, want a failed run that reports the race\n%s", mode, err, out)
		}
		// CheckNoRace knows the race runtime's own report.
		r := &errorRecorder{TB: t}
		if CheckNoRace(r, "the child", out); len(r.errors) == 0 {
			t.Errorf("%s: CheckNoRace passed the child's report\n%s", mode, out)
		}
	}
}
