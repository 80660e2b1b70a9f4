package orphans

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

// MarkerVar names the environment entry that marks a command's processes.
const MarkerVar = "TOOLD_EXEC"

// Mark returns env (the daemon's own when nil) with a new marker,
// MarkerVar=<random id>, and the marker.
func Mark(env []string) ([]string, string) {
	var b [16]byte
	rand.Read(b[:])
	marker := MarkerVar + "=" + hex.EncodeToString(b[:])
	if env == nil {
		env = os.Environ()
	}
	return append(slices.Clip(env), marker), marker
}

// Reaper adopts and reaps a process's escaped descendants, and finds those
// of a command by its marker. Its zero value adopts none: every method but
// Adopt then does nothing. Every child of the process is to be started
// between a Forking or Spawning and its end, and told Waited once os/exec
// reaped it: the reaper reaps every other child that exits.
type Reaper struct {
	adopting bool // set once by Adopt, before any command starts

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

// CanAdopt reports whether Adopt can work here: Linux's child subreaper;
// not on macOS or FreeBSD, nor with -tags toold_portable.
const CanAdopt = canAdopt

// Adopt makes this process a child subreaper (Linux's
// PR_SET_CHILD_SUBREAPER) and starts reaping the orphans that come back to
// it, until Stop. Call it once, before the first command starts. Where
// there is no subreaper (macOS, FreeBSD, the portable build:
// subreaper_other.go) it fails with errors.ErrUnsupported and adopts none.
func (o *Reaper) Adopt() error {
	if err := becomeSubreaper(); err != nil {
		return fmt.Errorf("becoming a child subreaper: %w", err)
	}
	o.adopting = true
	o.leaders = make(map[int]struct{})
	o.stop = make(chan struct{})
	o.kick = make(chan struct{}, 1)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, unix.SIGCHLD)
	o.reaper.Go(func() {
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
				o.reap()
			case <-o.kick:
				o.reap()
			case <-o.stop:
				o.reap() // what exited since the last SIGCHLD was read
				return
			}
		}
	})
	return nil
}

// reapDelay is how long after a SIGCHLD the reaper looks: the orphans'
// zombies wait that long more (exec polls a group every 20 ms).
const reapDelay = 5 * time.Millisecond

// Adopting reports whether Adopt succeeded: whether escaped descendants
// come back to this process, to be found (Escaped).
func (o *Reaper) Adopting() bool { return o.adopting }

// Stop ends the reaper, once nothing waits any more for a zombie that
// only it reaps (a member of a command's group counts until it is
// reaped: exec's Runner.Close stops it last).
func (o *Reaper) Stop() {
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
func (o *Reaper) reap() {
	if !ExitedChild() {
		return // no zombie: nothing to list
	}
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

func (o *Reaper) isLeader(pid int) bool {
	o.lmu.Lock()
	defer o.lmu.Unlock()
	_, ok := o.leaders[pid]
	return ok
}

// Forking is held around a child's start; its end names the child
// (0 when the start failed).
func (o *Reaper) Forking() (started func(pid int)) {
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

// Spawning is held around a sandboxed command's start, whose pid is known
// only at its end (0 when the start failed): no reap runs meanwhile, but
// without holding reapMu, which every other start needs.
func (o *Reaper) Spawning() (started func(pid int)) {
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

// Waited forgets a child that os/exec has reaped.
func (o *Reaper) Waited(pid int) {
	if o.adopting {
		o.lmu.Lock()
		delete(o.leaders, pid)
		o.lmu.Unlock()
	}
}

// SignalEscaped sends SIGTERM to the escaped descendants of the command of
// marker not sent one yet (termed: pid → start time, when sent it), and
// SIGKILL to all when kill; it returns how many it found, and escaped's
// unsure. initPid is the command's PID namespace's init, where its orphans
// go, 0 for this process. It holds reapMu shared, so that none is reaped,
// and its pid reused, meanwhile.
func (o *Reaper) SignalEscaped(marker string, initPid int, termed map[int]uint64, kill bool) (int, bool) {
	o.reapMu.RLock()
	defer o.reapMu.RUnlock()
	pids, unsure := o.escaped(marker, initPid)
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

// escaped lists the daemon's children (and initPid's) that carry marker
// and have not exited: the command's descendants that left its group and
// came back to the daemon.
// unsure reports a child whose environment could not be read (one in the
// middle of an execve shows none for a moment) or that exited since it was
// listed: its own children came back to the daemon after the listing, so
// look again. (finish's sweep took such a round, the SIGTERMed escapee a
// zombie and its children not yet listed, for its last, and left them
// running: a double fork's two sleeps outlived their exec under load.)
func (o *Reaper) escaped(marker string, initPid int) (pids []int, unsure bool) {
	if !o.adopting || marker == "" {
		return nil, false
	}
	children, _ := proc.Children()
	if initPid != 0 {
		// A sandboxed command's orphans go to its PID namespace's init.
		theirs, _ := proc.ChildrenOf(initPid)
		children = append(children, theirs...)
	}
	for _, pid := range children {
		if o.isLeader(pid) {
			continue
		}
		info, err := proc.Stat(pid)
		if err != nil || info.Zombie {
			unsure = true
			continue
		}
		switch has, ok := proc.HasEnv(pid, marker); {
		case !ok:
			unsure = true
		case has:
			pids = append(pids, pid)
		}
	}
	return pids, unsure
}
