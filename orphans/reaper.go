package exec

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/toold/toold/internal/proc"
)

// A command's descendants that leave its process group (setsid, set -m, a
// daemonizing tool) are not ended with the group. Two things find them:
//
//   - a marker, MarkerVar=<random id>, in every command's environment,
//     which descendants inherit wherever they move (Jenkins finds a build's
//     processes the same way);
//   - the daemon as a child subreaper (AdoptOrphans): a descendant whose
//     parent dies comes back to the daemon instead of init, so the daemon's
//     own children are the only candidates to look at, and it reaps them.
//
// The marker is also written with the group's record (Spec.Groups), so
// that the sweep after a daemon's death ends escaped descendants too.

// MarkerVar names the environment entry that marks a command's processes.
const MarkerVar = "TOOLD_EXEC"

// GroupRecorder keeps a note of a command's process group and marker where
// the sweep after the daemon's death finds it; *spool.Dir satisfies it.
type GroupRecorder interface {
	RecordGroup(pgid int, env string) (forget func(), err error)
}

// orphans is the Runner's part that adopts and reaps escaped descendants.
type orphans struct {
	adopting bool // set once by AdoptOrphans, before any Run

	// reapMu: a Run holds it shared from before its fork until its
	// leader's pid is in leaders; reap holds it alone. So reap never takes
	// a leader for an orphan and steals os/exec's wait.
	reapMu  sync.RWMutex
	lmu     sync.Mutex
	leaders map[int]struct{}
	// pending counts the sandboxed starts under way (spawning): their
	// command, the daemon's child, is forked by a session's launcher, and
	// its pid comes back only with the launcher's answer. A reap meanwhile
	// is put off (deferred, under lmu) rather than the starts holding
	// reapMu that long: a launcher that never answers (stopped by a
	// command of its session) would stall every other start.
	pending  int
	deferred bool
	kick     chan struct{}

	// The reaper outlives Close's wait for the Runner's goroutines: they
	// wait for zombies of a command's group that only it reaps (a group
	// member counts until it is reaped). stop ends it, reaper is its end.
	stop     chan struct{}
	stopOnce sync.Once
	reaper   sync.WaitGroup
}

// CanAdoptOrphans reports whether AdoptOrphans can work here: Linux's
// child subreaper; not on macOS or FreeBSD, nor with -tags toold_portable.
const CanAdoptOrphans = canAdoptOrphans

// AdoptOrphans makes this process a child subreaper (Linux's
// PR_SET_CHILD_SUBREAPER) and starts reaping the orphans that come back to
// it, so that each command's escaped descendants are ended with it. Call it
// before the first Run, and only in a process whose every child is started
// by this Runner: every other child that exits is reaped, and os/exec's Wait
// of such a child would fail. Where there is no subreaper (macOS, FreeBSD,
// the portable build: subreaper_other.go) it fails with
// errors.ErrUnsupported and the Runner ends process groups only.
func (r *Runner) AdoptOrphans() error {
	if err := becomeSubreaper(); err != nil {
		return fmt.Errorf("exec: becoming a child subreaper: %w", err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return fmt.Errorf("%w: runner closed", ErrStart)
	}
	r.orphans.adopting = true
	r.orphans.leaders = make(map[int]struct{})
	r.orphans.stop = make(chan struct{})
	r.orphans.kick = make(chan struct{}, 1)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, unix.SIGCHLD)
	r.orphans.reaper.Go(func() {
		defer signal.Stop(sigs)
		var due <-chan time.Time // a reap is pending
		for {
			select {
			case <-sigs:
				// Reaped a moment later, with the SIGCHLDs that come
				// meanwhile: by then os/exec has reaped the leader that
				// sent it (most SIGCHLDs are a command's end), and
				// nothing is left to list.
				if due == nil {
					due = time.After(reapDelay)
				}
			case <-due:
				due = nil
				r.reap()
			case <-r.orphans.kick:
				r.reap()
			case <-r.orphans.stop:
				r.reap() // what exited since the last SIGCHLD was read
				return
			}
		}
	})
	return nil
}

// reapDelay is how long after a SIGCHLD the reaper looks: the orphans'
// zombies wait that long more (finish polls a group every pollGroup).
const reapDelay = 5 * time.Millisecond

// stopReaping ends the reaper, once every other goroutine of the Runner
// has ended (see Close).
func (o *orphans) stopReaping() {
	if !o.adopting {
		return
	}
	o.stopOnce.Do(func() { close(o.stop) })
	o.reaper.Wait()
}

// reap waits for every exited child that is not a leader os/exec waits for.
//
// The children are listed before the lock is taken, so that a start waits
// for no scan of /proc: a leader started during the scan has been named
// (forking holds the lock's read side until then) by the time the lock is
// held, and one started after is not listed.
func (r *Runner) reap() {
	if !exitedChild() {
		return // no zombie: nothing to list
	}
	o := &r.orphans
	pids, _ := proc.Children()
	o.reapMu.Lock()
	defer o.reapMu.Unlock()
	o.lmu.Lock()
	if o.pending > 0 {
		o.deferred = true // spawning's end kicks the reaper
		o.lmu.Unlock()
		return
	}
	o.lmu.Unlock()
	for _, pid := range pids {
		if !o.isLeader(pid) {
			var ws unix.WaitStatus
			unix.Wait4(pid, &ws, unix.WNOHANG, nil)
		}
	}
}

func (o *orphans) isLeader(pid int) bool {
	o.lmu.Lock()
	defer o.lmu.Unlock()
	_, ok := o.leaders[pid]
	return ok
}

// forking is held around a command's start; its end names the leader
// (0 when the start failed).
func (o *orphans) forking() (started func(pid int)) {
	if !o.adopting {
		return func(int) {}
	}
	o.reapMu.RLock()
	return func(pid int) {
		if pid > 0 {
			o.lmu.Lock()
			o.leaders[pid] = struct{}{}
			o.lmu.Unlock()
		}
		o.reapMu.RUnlock()
	}
}

// spawning is held around a sandboxed command's start, whose pid is known
// only at its end (0 when the start failed): no reap runs meanwhile, but
// without holding reapMu, which every other start needs.
func (o *orphans) spawning() (started func(pid int)) {
	if !o.adopting {
		return func(int) {}
	}
	o.reapMu.RLock() // a reap under way ends first
	o.lmu.Lock()
	o.pending++
	o.lmu.Unlock()
	o.reapMu.RUnlock()
	return func(pid int) {
		o.lmu.Lock()
		defer o.lmu.Unlock()
		if pid > 0 {
			o.leaders[pid] = struct{}{}
		}
		o.pending--
		if o.pending == 0 && o.deferred {
			o.deferred = false
			select {
			case o.kick <- struct{}{}:
			default:
			}
		}
	}
}

// waited forgets a leader that os/exec has reaped.
func (o *orphans) waited(pid int) {
	if o.adopting {
		o.lmu.Lock()
		delete(o.leaders, pid)
		o.lmu.Unlock()
	}
}

// mark gives cmd's environment a new marker when the Runner looks for
// escaped descendants or spec records its group, and returns it ("" when
// neither).
func (r *Runner) mark(spec Spec, env []string) ([]string, string) {
	if !r.orphans.adopting && spec.Groups == nil {
		return env, ""
	}
	var b [16]byte
	rand.Read(b[:])
	marker := MarkerVar + "=" + hex.EncodeToString(b[:])
	if env == nil {
		env = os.Environ()
	}
	return append(slices.Clip(env), marker), marker
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
	if !groupAlive(p.pgid) && (!r.orphans.adopting || p.marker == "") {
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
			left, unsure := r.signalEscaped(p, termed, time.Now().After(deadline))
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

// signalEscaped sends SIGTERM to the escaped descendants of p not sent one
// yet, and SIGKILL to all when kill; it returns how many it found, and
// escaped's unsure. It holds reapMu shared, so that none is reaped, and its
// pid reused, meanwhile.
func (r *Runner) signalEscaped(p *process, termed map[int]uint64, kill bool) (int, bool) {
	r.orphans.reapMu.RLock()
	defer r.orphans.reapMu.RUnlock()
	pids, unsure := r.escaped(p)
	for _, pid := range pids {
		info, err := proc.Stat(pid)
		if err != nil {
			continue
		}
		if t, ok := termed[pid]; !ok || t != info.Ticks {
			unix.Kill(pid, unix.SIGTERM)
			termed[pid] = info.Ticks
		} else if kill {
			unix.Kill(pid, unix.SIGKILL)
		}
	}
	return len(pids), unsure
}

// escaped lists the daemon's children that carry p's marker and have not
// exited: p's descendants that left its group and came back to the daemon.
// unsure reports a child whose environment could not be read (one in the
// middle of an execve shows none for a moment) or that exited since it was
// listed: its own children came back to the daemon after the listing, so
// look again. (finish's sweep took such a round, the SIGTERMed escapee a
// zombie and its children not yet listed, for its last, and left them
// running: a double fork's two sleeps outlived their exec under load.)
func (r *Runner) escaped(p *process) (pids []int, unsure bool) {
	if !r.orphans.adopting || p.marker == "" {
		return nil, false
	}
	children, _ := proc.Children()
	if p.reaper != 0 {
		// A sandboxed command's orphans go to its PID namespace's init.
		theirs, _ := proc.ChildrenOf(p.reaper)
		children = append(children, theirs...)
	}
	for _, pid := range children {
		if r.orphans.isLeader(pid) {
			continue
		}
		info, err := proc.Stat(pid)
		if err != nil || info.Zombie {
			unsure = true
			continue
		}
		switch has, ok := proc.HasEnv(pid, p.marker); {
		case !ok:
			unsure = true
		case has:
			pids = append(pids, pid)
		}
	}
	return pids, unsure
}
