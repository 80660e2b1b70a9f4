package exec_test

import (
	"errors"
	osexec "os/exec"
	"testing"
	"time"

	"github.com/toold/toold/exec"
)

// TestStartHelperUnderReaper checks Runner.Start in a process that adopts
// orphans (a child test process, as TestCloseReapsLateOrphans explains):
// the reaper leaves a helper started so to its own Wait, which returns the
// helper's exit, where a plain cmd.Start then Wait lost it to the reaper
// (ECHILD; seen as ctags failing now and then in the daemon).
func TestStartHelperUnderReaper(t *testing.T) {
	if inChild(t) {
		return
	}
	startUnderReaper(t)
}

func startUnderReaper(t *testing.T) {
	r := exec.NewRunner(nil)
	if err := r.AdoptOrphans(); err != nil {
		t.Skip(err)
	}
	defer r.Close()
	for i := range 50 {
		cmd := osexec.Command("sh", "-c", "exit 3")
		wait, err := r.Start(cmd)
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(2 * time.Millisecond) // let the SIGCHLD reach the reaper first
		var ee *osexec.ExitError
		if err := wait(); !errors.As(err, &ee) || ee.ExitCode() != 3 {
			t.Fatalf("run %d: wait gave %v, want exit status 3", i, err)
		}
	}
}
