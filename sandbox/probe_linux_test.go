package sandbox

import (
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/toold/toold/internal/testenv"
)

// TestProbeUnderReaper: the probe tells success by what the launcher says,
// not by Wait alone: a daemon that adopts orphans reaps every child that
// exits, the probe's too, and Wait then fails with ECHILD (the exec tests
// saw "this kernel cannot enforce the sandbox: … waitid: no child
// processes").
func TestProbeUnderReaper(t *testing.T) {
	t.Setenv("GORACE", "atexit_sleep_ms=0") // the launcher is this binary: no 1 s at its exit
	// Probe's once for the package (TestLauncher's too): a probe is a
	// -race binary's start.
	if s := Probe(); !s.UserNS {
		t.Skipf("no user namespaces here: %s", s.UserNSErr)
	}
	var stop atomic.Bool
	done := make(chan struct{})
	go func() { // a reaper as greedy as exec's
		defer close(done)
		for !stop.Load() {
			// Blocked in wait4 while a probe runs, it takes the probe the
			// moment it exits, before the probe's Wait; with no child
			// (ECHILD) it looks again a millisecond later, well within a
			// probe's start. (It polled with WNOHANG: a CPU spent
			// spinning, 3.7 CPU-seconds of the package's 8.)
			var ws unix.WaitStatus
			if _, err := unix.Wait4(-1, &ws, 0, nil); err == unix.ECHILD {
				time.Sleep(time.Millisecond)
			}
		}
	}()
	defer func() { stop.Store(true); <-done }()
	// Three probes in the quick run, ten with TOOLD_LONG=1: the reaper
	// blocked in wait4 takes every probe that exits, so each one checks.
	for i := range testenv.Size(3, 10) {
		if err := probeUserNS(); err != nil {
			t.Fatalf("probe %d under a reaper: %v", i, err)
		}
	}
}
