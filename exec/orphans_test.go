package exec_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/toold/toold/exec"
)

// TestCloseReapsLateOrphans checks that Close returns when a command's group
// outlives its leader past Close: the member, reparented to the Runner's
// process, dies after Close began, and its zombie must still be reaped, or
// the group never ends and Close waits for it forever. (A daemon stopped by
// SIGTERM while a command ran hung so, now and then, when the signal that
// ended a member came after the reaper had stopped.)
//
// In a child test process (inChild): the Runner makes its process a child
// subreaper, which must not be the test binary itself (its other tests run
// processes of their own that the reaper would reap).
func TestCloseReapsLateOrphans(t *testing.T) {
	if inChild(t) {
		return
	}
	closeLateOrphan(t)
}

func closeLateOrphan(t *testing.T) {
	// Whether the reaper was still there to reap was a race it often won:
	// a few rounds make a lost one all but certain.
	for range 4 {
		r := exec.NewRunner(nil)
		if err := r.AdoptOrphans(); err != nil {
			t.Skip(err)
		}
		// The leader exits at once; the member of its group ignores the
		// SIGTERM the drain sends it and lives on, reparented to us.
		res, err := r.Run(context.Background(), exec.Spec{
			Command: `(trap '' TERM; sleep 5; :) >/dev/null 2>&1 & echo started`})
		if err != nil || res.ExitCode == nil || *res.ExitCode != 0 {
			t.Fatalf("Run: %v %+v", err, res)
		}
		closed := make(chan struct{})
		go func() { r.Close(); close(closed) }()
		select {
		case <-closed:
		case <-time.After(5 * time.Second):
			t.Fatal("Runner.Close did not return") // the parent sees this too
		}
	}
}

// TestNoSubreaper: where there is no child subreaper (macOS, FreeBSD,
// -tags toold_portable) AdoptOrphans says so with errors.ErrUnsupported,
// and a Runner still ends a command's whole process group: a member left
// running in the group when the command times out is killed with it.
func TestNoSubreaper(t *testing.T) {
	if exec.CanAdoptOrphans {
		t.Skip("Linux's child subreaper is here (run with -tags toold_portable)")
	}
	t.Parallel()
	r := newRunner(t)
	if err := r.AdoptOrphans(); !errors.Is(err, errors.ErrUnsupported) {
		t.Fatalf("AdoptOrphans: %v, want errors.ErrUnsupported", err)
	}
	res, err := r.Run(context.Background(), exec.Spec{Command: "sleep 30 & echo $!; sleep 30",
		Output: defaults, Timeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if !res.TimedOut {
		t.Fatalf("result %+v", res)
	}
	waitGone(t, pids(t, strings.TrimSpace(res.Stdout.Head))...)
}
