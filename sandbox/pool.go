package sandbox

import (
	"errors"
	osexec "os/exec"
	"slices"
	"sync"
)

// ErrPoolClosed is Get's error once the pool is stopped: no launcher starts.
var ErrPoolClosed = errors.New("sandbox: pool closed")

// Pool is the daemon's sandboxes: a launcher per session policy (by
// Policy.Key), started on first use (Get; initialize asks ahead) and kept
// until its session ends (End) or the pool closes. So a sandboxed command
// costs about what an unsandboxed one does: no new toold runtime per
// command. A launcher that died (a command of its session killed it) is
// retired: its PID namespace's init lives on with what was left there
// until End. The zero Pool is ready; set Start and Waited before the first
// Get.
type Pool struct {
	// Start and Waited are every launcher's StartOptions (the daemon's
	// reaper must not take a launcher's wait).
	Start  func(*osexec.Cmd) error
	Waited func(pid int)

	mu      sync.Mutex
	stopped bool
	entries map[string]*poolEntry
	// retired are sandboxes whose launcher died: their PID namespaces
	// live on until their session ends.
	retired []*poolEntry
}

// poolEntry is one policy's sandbox, started on first use.
type poolEntry struct {
	tmpDir string // the session's, which End names
	mu     sync.Mutex
	in     *Instance
}

// Get returns pol's sandbox, started now in the cgroup cg (nil: none) if it
// has none. pol must confine (Plan.Confines).
func (p *Pool) Get(pol *Policy, cg *Cgroup) (*Instance, error) {
	key := pol.Key()
	p.mu.Lock()
	if p.entries == nil {
		p.entries = make(map[string]*poolEntry)
	}
	e := p.entries[key]
	if e == nil {
		e = &poolEntry{tmpDir: pol.TmpDir}
		p.entries[key] = e
	}
	p.mu.Unlock()
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.in != nil {
		return e.in, nil
	}
	p.mu.Lock()
	stopped := p.stopped
	p.mu.Unlock()
	if stopped {
		return nil, ErrPoolClosed
	}
	in, err := Start(pol, StartOptions{Start: p.Start, Waited: p.Waited, Cgroup: cg.Dir()})
	if err != nil {
		return nil, err
	}
	e.in = in
	return in, nil
}

// Retire sets in, pol's sandbox, aside, its launcher gone: the next Get
// starts another; in's PID namespace's init lives on with the processes
// left there until End.
func (p *Pool) Retire(pol *Policy, in *Instance) {
	p.mu.Lock()
	e := p.entries[pol.Key()]
	p.mu.Unlock()
	if e != nil {
		e.mu.Lock()
		if e.in == in {
			e.in = nil
		}
		e.mu.Unlock()
	}
	p.mu.Lock()
	p.retired = append(p.retired, &poolEntry{tmpDir: pol.TmpDir, in: in})
	p.mu.Unlock()
}

// Stop makes every later Get fail with ErrPoolClosed; the sandboxes
// started stay until End or Close.
func (p *Pool) Stop() {
	p.mu.Lock()
	p.stopped = true
	p.mu.Unlock()
}

// End ends the sandboxes of the session whose TMPDIR is tmpDir: their
// launchers, and every process left in their PID namespaces. The session's
// commands should have ended first.
func (p *Pool) End(tmpDir string) {
	p.end(func(e *poolEntry) bool { return e.tmpDir == tmpDir })
}

// Close stops the pool and ends every sandbox.
func (p *Pool) Close() {
	p.Stop()
	p.end(func(*poolEntry) bool { return true })
}

// end ends the sandboxes that match, at once.
func (p *Pool) end(match func(*poolEntry) bool) {
	p.mu.Lock()
	var ended []*poolEntry
	for k, e := range p.entries {
		if match(e) {
			ended = append(ended, e)
			delete(p.entries, k)
		}
	}
	p.retired = slices.DeleteFunc(p.retired, func(e *poolEntry) bool {
		if match(e) {
			ended = append(ended, e)
			return true
		}
		return false
	})
	p.mu.Unlock()
	var wg sync.WaitGroup
	for _, e := range ended {
		wg.Go(func() {
			e.mu.Lock()
			defer e.mu.Unlock()
			if e.in != nil {
				e.in.Close()
				e.in = nil
			}
		})
	}
	wg.Wait()
}
