package exec

import (
	"fmt"
	"time"

	"golang.org/x/sys/unix"

	"github.com/toold/toold/orphans"
)

// A command's process group: ended whole, SIGTERM to -pgid, then SIGKILL
// after killDelay if anything of it is left; and what left it, found by
// its marker among the orphans the Runner adopts (package orphans), ended
// with it.

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

// MarkerVar names the environment entry that marks a command's processes
// (orphans.MarkerVar).
const MarkerVar = orphans.MarkerVar

// GroupRecorder keeps a note of a command's process group and marker where
// the sweep after the daemon's death finds it; *spool.Dir satisfies it.
type GroupRecorder interface {
	RecordGroup(pgid int, env string) (forget func(), err error)
}

// CanAdoptOrphans reports whether AdoptOrphans can work here: Linux's
// child subreaper; not on macOS or FreeBSD, nor with -tags toold_portable.
const CanAdoptOrphans = orphans.CanAdopt

// AdoptOrphans makes this process a child subreaper (Linux's
// PR_SET_CHILD_SUBREAPER) and starts reaping the orphans that come back to
// it, so that each command's escaped descendants are ended with it. Call it
// before the first Run, and only in a process whose every child is started
// by this Runner: every other child that exits is reaped, and os/exec's Wait
// of such a child would fail. Where there is no subreaper (macOS, FreeBSD,
// the portable build) it fails with errors.ErrUnsupported and the Runner
// ends process groups only.
func (r *Runner) AdoptOrphans() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return fmt.Errorf("%w: runner closed", ErrStart)
	}
	if err := r.orphans.Adopt(); err != nil {
		return fmt.Errorf("exec: %w", err)
	}
	return nil
}

// mark gives cmd's environment a new marker when the Runner looks for
// escaped descendants or spec records its group, and returns it ("" when
// neither).
func (r *Runner) mark(spec Spec, env []string) ([]string, string) {
	if !r.orphans.Adopting() && spec.Groups == nil {
		return env, ""
	}
	return orphans.Mark(env)
}

// record notes p's group with spec's recorder; p.forget undoes it.
func (r *Runner) record(spec Spec, p *process) {
	p.forget = func() {}
	if spec.Groups == nil {
		return
	}
	forget, err := spec.Groups.RecordGroup(p.pgid, p.marker)
	if err != nil {
		r.log.Debug("exec: recording the group", "pid", p.pgid, "err", err)
		return
	}
	p.forget = forget
}

// finish ends what is left of p once its leader has exited: its group
// (terminating already, or ended here) and, when the Runner adopts orphans,
// its escaped descendants, SIGTERM then SIGKILL after killDelay as for the
// group; then it forgets p's record. It goes on in a tracked goroutine
// unless p's group is gone and none of p's descendants can have left it:
// the listing of the daemon's children that finds those (a few dozen
// reads of /proc) is no part of the reply to a command that left nothing,
// and it signals them from that goroutine anyway.
func (r *Runner) finish(p *process) {
	if !groupAlive(p.pgid) && (!r.orphans.Adopting() || p.marker == "") {
		p.forget()
		return
	}
	r.goTracked(func() {
		defer p.forget()
		deadline := time.Now().Add(killDelay)
		termed := make(map[int]uint64) // pid → start time, when sent SIGTERM
		tick := time.NewTicker(pollGroup)
		defer tick.Stop()
		done := r.done
		for {
			left, unsure := r.orphans.SignalEscaped(p.marker, p.reaper, termed, time.Now().After(deadline))
			if left == 0 && !unsure && !groupAlive(p.pgid) {
				return
			}
			if time.Now().After(deadline.Add(killDelay)) {
				r.log.Warn("exec: processes of a command outlive SIGKILL", "pid", p.pgid)
				return
			}
			select {
			case <-tick.C:
			case <-done:
				// The daemon stops: no more grace. Once, so that the
				// deadline does not move on with every turn.
				deadline, done = time.Now(), nil
			}
		}
	})
}
