package exec_test

import (
	"os"
	"os/signal"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/toold/toold/internal/proc"
	"github.com/toold/toold/internal/testenv"
)

// TestMain runs the parallel cases, which mostly wait on commands of their
// own (timeouts, kill delays), eight at a time, reaps the orphaned members
// of their groups (reapGroupOrphans), and ends the run without the race
// runtime's exit sleep (testenv.Exit), in its child processes too: the
// sandbox's probe and launchers are this binary, and a -race one sleeps a
// second before it exits (GORACE's atexit_sleep_ms).
func TestMain(m *testing.M) {
	testenv.Parallel()
	if v := os.Getenv("GORACE"); !strings.Contains(v, "atexit_sleep_ms") {
		os.Setenv("GORACE", strings.TrimSpace(v+" atexit_sleep_ms=0"))
	}
	if os.Getenv(closeHelper) == "" && os.Getenv(startHelper) == "" {
		reapGroupOrphans()
	}
	testenv.Exit(m.Run())
}

// reapGroupOrphans makes the test binary a child subreaper that reaps the
// members of command groups whose parent died before them, as the daemon's
// Runner does (AdoptOrphans). A group counts as alive until its zombies
// are reaped, and a Runner waits for its groups to end, up to the 2 s kill
// delay, before Close returns: without this, a member orphaned to init
// stayed a zombie as long as init took to reap it (a second or more in
// some containers, forever in others), and every test whose command left
// one (a timeout, a cancel, a background child) waited the whole delay.
//
// It reaps only zombies outside the test binary's process group that are
// not their group's leader, which no one else waits for: every command a
// Runner starts leads a group of its own (os/exec waits for it), and the
// other children of the test binary are in its group. Not in the child
// processes of TestCloseReapsLateOrphans and TestStartHelperUnderReaper,
// which check the Runner's own reaper.
func reapGroupOrphans() {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return // orphans go to init, as before
	}
	own := unix.Getpgrp()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, unix.SIGCHLD)
	go func() {
		for range sigs {
			pids, _ := proc.Children()
			for _, pid := range pids {
				info, err := proc.Stat(pid)
				if err == nil && info.Zombie && info.PGID != pid && info.PGID != own {
					var ws unix.WaitStatus
					unix.Wait4(pid, &ws, unix.WNOHANG, nil)
				}
			}
		}
	}()
}
