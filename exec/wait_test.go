package exec_test

import (
	osexec "os/exec"
	"testing"
	"time"

	"github.com/toold/toold/exec"
	"github.com/toold/toold/internal/testenv"
)

// TestWaitExit: waitExit returns once the process has exited, not before,
// and leaves it to be reaped: Wait still gets its status. For a pid no
// process has, it returns at once (Wait then says what there is to say).
func TestWaitExit(t *testing.T) {
	tests := []struct {
		name    string
		argv    []string
		atLeast time.Duration
		code    int
	}{
		{"exits at once", []string{"true"}, 0, 0},
		{"exits later, failing", []string{"sh", "-c", "sleep 0.2; exit 3"}, 200 * time.Millisecond, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cmd := osexec.Command(tc.argv[0], tc.argv[1:]...)
			start := time.Now()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exec.WaitExit(cmd.Process.Pid)
			if took := time.Since(start); took < tc.atLeast {
				t.Errorf("waitExit returned after %v, before the exit (%v)", took, tc.atLeast)
			}
			cmd.Wait()
			if got := cmd.ProcessState.ExitCode(); got != tc.code {
				t.Errorf("Wait after waitExit: exit code %d, want %d", got, tc.code)
			}
		})
	}
	done := make(chan struct{})
	go func() { exec.WaitExit(1 << 30); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("waitExit of no process did not return")
	}
}

// TestExitedChild: the reaper's first look, one waitid that reaps
// nothing, tells an exited child from none and from a running one.
// In a child test process: the other tests' children would be counted.
func TestExitedChild(t *testing.T) {
	if inChild(t) {
		return
	}
	if exec.ExitedChild() {
		t.Fatal("an exited child before any was started")
	}
	cmd := osexec.Command("cat") // ends, with 0, when its stdin does
	in, _ := cmd.StdinPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if exec.ExitedChild() {
		t.Error("a running child taken for an exited one")
	}
	in.Close()
	testenv.WaitFor(t, 10*time.Second, "the exited child to be seen", exec.ExitedChild)
	if err := cmd.Wait(); err != nil || cmd.ProcessState.ExitCode() != 0 {
		t.Errorf("Wait after the look: %v (it must not have reaped the child)", err)
	}
	if exec.ExitedChild() {
		t.Error("an exited child after it was reaped")
	}
}
