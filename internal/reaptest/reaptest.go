package reaptest

import (
	"os"
	"os/signal"

	"golang.org/x/sys/unix"

	"github.com/toold/toold/internal/proc"
)

// Start makes this process a child subreaper (PR_SET_CHILD_SUBREAPER) and
// reaps, at every SIGCHLD, its zombie children outside its own process
// group that do not lead their group: the members of command groups whose
// parent died before them. No one else waits for those: every command a
// Runner starts leads a group of its own, which os/exec waits for, and the
// test binary's other children are in its group. A process that leads its
// group (setsid) is left alone, so it stays a zombie once adopted: call
// Start in TestMain only where no test starts something that leaves its
// session (a daemon that detaches) and then waits for it to be gone.
// Where the kernel refuses, or does not list a process's children (which
// the reaper reads), or has no child subreaper (macOS, FreeBSD:
// subreaper_other.go), orphans go to init as before. It reports
// whether it reaps.
func Start() bool {
	if _, ok := proc.Children(); !ok {
		return false
	}
	if err := becomeSubreaper(); err != nil {
		return false
	}
	own := unix.Getpgrp()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, unix.SIGCHLD)
	go func() {
		for range sigs {
			reap(own)
		}
	}()
	return true
}

// reap waits for every zombie child that Start's comment says to.
func reap(own int) {
	pids, _ := proc.Children()
	for _, pid := range pids {
		info, err := proc.Stat(pid)
		if err == nil && info.Zombie && info.PGID != pid && info.PGID != own {
			var ws unix.WaitStatus
			unix.Wait4(pid, &ws, unix.WNOHANG, nil)
		}
	}
}
