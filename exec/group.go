package exec

import (
	"time"

	"golang.org/x/sys/unix"
)

// A command's process group: ended whole, SIGTERM to -pgid, then SIGKILL
// after killDelay if anything of it is left (orphans.go ends what left it).

// KillDelay is how long a command's process group has between SIGTERM
// and SIGKILL: a cancelled or timed-out command has answered within it.
const KillDelay = killDelay

const (
	// killDelay is how long a group has between SIGTERM and SIGKILL.
	killDelay = 2 * time.Second
	// pollGroup is how often a pending SIGKILL checks whether the group is gone.
	pollGroup = 20 * time.Millisecond
)

// terminate sends SIGTERM to the group and leaves a tracked goroutine that
// sends SIGKILL after killDelay if anything of the group is left. The pgid
// cannot be reused meanwhile: Linux keeps a pid allocated while it is the
// pgid of a live process, and only a new group leader could take it once
// the group is gone, which takes a pid wrap within killDelay.
func (r *Runner) terminate(pgid int) {
	unix.Kill(-pgid, unix.SIGTERM)
	r.goTracked(func() {
		deadline := time.NewTimer(killDelay)
		defer deadline.Stop()
		tick := time.NewTicker(pollGroup)
		defer tick.Stop()
		for {
			select {
			case <-deadline.C:
				if groupAlive(pgid) {
					unix.Kill(-pgid, unix.SIGKILL)
				}
				return
			case <-tick.C:
				if !groupAlive(pgid) {
					return
				}
			}
		}
	})
}

// groupAlive reports whether any process of the group is left. A zombie
// counts until it is reaped.
func groupAlive(pgid int) bool {
	return unix.Kill(-pgid, 0) != unix.ESRCH
}
