package sandbox

import (
	"sync/atomic"
	"testing"

	"golang.org/x/sys/unix"
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
			var ws unix.WaitStatus
			unix.Wait4(-1, &ws, unix.WNOHANG, nil)
		}
	}()
	defer func() { stop.Store(true); <-done }()
	for i := range 10 {
		if err := probeUserNS(); err != nil {
			t.Fatalf("probe %d under a reaper: %v", i, err)
		}
	}
}
