package exec

import (
	"encoding/json"
	"os"
	osexec "os/exec"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/toold/toold/sandbox"
)

// A sandboxed command starts through a launcher (package sandbox), whose
// start (a new process in new namespaces, toold's runtime, Landlock) costs
// a few times what the command `true` does. So the Runner keeps one
// launcher per recent policy started ahead, restricted and waiting for its
// command: a sandboxed Run takes it, sends it the command, which it execs
// at once, and starts the next one for the next Run of that policy.

// maxWarm bounds the launchers kept waiting: one per policy (a session's),
// the least recently used ended first.
const maxWarm = 4

// warmPool holds the launchers waiting for a command, by policy.
type warmPool struct {
	mu    sync.Mutex
	idle  map[string]*warmLauncher
	order []string // keys, least recently used first
}

// warmLauncher is a launcher started ahead: its process, the pipes it was
// given as stdin, stdout and stderr, and the control pipe its command
// comes on.
type warmLauncher struct {
	cmd    *osexec.Cmd
	pp     *pipes
	ctl    *os.File
	marker string
}

// startWarm starts spec, sandboxed, through a waiting launcher of its
// policy when there is one, and has the next one started. It returns nil
// and no error when there is none (or it had died): the caller starts the
// command the ordinary way.
func (r *Runner) startWarm(spec Spec) (*process, error) {
	keyb, err := json.Marshal(spec.Sandbox)
	if err != nil {
		return nil, nil
	}
	key := string(keyb)
	w := r.warm.take(key)
	if w == nil {
		// The first of its policy: started the ordinary way, the next
		// one's launcher ahead, once it has ended (see process.after).
		r.goTracked(func() { r.refill(key, spec.Sandbox) })
		return nil, nil
	}
	plain := spec
	plain.Sandbox = nil
	c, err := command(plain) // the program's path, and a missing cwd said as usual
	if err == nil {
		err = executable(c.Path, spec.Dir)
	}
	if err != nil {
		r.discard(w)
		return nil, err
	}
	env := c.Env
	if env == nil {
		env = os.Environ()
	}
	env = append(slices.Clip(env), w.marker)
	req := sandbox.Request{Path: c.Path, Argv: c.Args, Env: env, Dir: spec.Dir, MergeStderr: spec.MergeStderr}
	if err := sandbox.Send(w.ctl, req); err != nil {
		r.discard(w) // it died waiting: start another
		return nil, nil
	}
	pp := w.pp
	if spec.MergeStderr {
		pp.errR.Close() // the launcher made stderr its stdout
		pp.errR = nil
	}
	if spec.Stdin == nil && !spec.KeepStdin {
		pp.inW.Close() // the command reads EOF
		pp.inW = nil
	}
	p := newProcess(w.cmd, pp)
	p.marker = w.marker
	// The next launcher starts once this command has ended, not beside it
	// on the machine's CPUs.
	p.after = func() { r.goTracked(func() { r.refill(key, spec.Sandbox) }) }
	r.begin(spec, p)
	return p, nil
}

// refill starts a launcher for key's policy unless one waits already.
func (r *Runner) refill(key string, pol *sandbox.Policy) {
	if r.warm.has(key) {
		return
	}
	w, err := r.prestart(pol)
	if err != nil {
		r.log.Debug("exec: starting a sandbox launcher ahead", "err", err)
		return
	}
	r.mu.Lock()
	closed := r.closed
	var evicted []*warmLauncher
	if !closed {
		evicted = r.warm.put(key, w)
	}
	r.mu.Unlock()
	if closed {
		evicted = []*warmLauncher{w}
	}
	for _, e := range evicted {
		r.discard(e)
	}
}

// prestart starts a launcher of pol that waits for its command.
func (r *Runner) prestart(pol *sandbox.Policy) (*warmLauncher, error) {
	pp, err := newPipes(Spec{Stdin: new(string)})
	if err != nil {
		return nil, err
	}
	_, marker := r.mark(Spec{Groups: noGroups{}}, []string{})
	cmd := &osexec.Cmd{Env: []string{marker}, Stdin: pp.inR, Stdout: pp.outW, Stderr: pp.errW,
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true}}
	wt, err := sandbox.WrapWaiting(cmd, pol)
	if err != nil {
		pp.closeAll()
		return nil, err
	}
	started := r.orphans.forking()
	err = cmd.Start()
	wt.Started()
	if err != nil {
		started(0)
		wt.Close()
		pp.closeAll()
		return nil, err
	}
	started(cmd.Process.Pid)
	pp.closeChildEnds()
	w := &warmLauncher{cmd: cmd, pp: pp, ctl: wt.Ctl, marker: marker}
	if err := wt.WaitReady(); err != nil {
		r.discard(w)
		return nil, err
	}
	return w, nil
}

// discard ends a launcher that will get no command, and reaps it.
func (r *Runner) discard(w *warmLauncher) {
	w.ctl.Close() // a launcher still waiting exits at once
	w.cmd.Process.Kill()
	w.cmd.Wait()
	r.orphans.waited(w.cmd.Process.Pid)
	w.pp.closeAll()
}

// noGroups makes mark give a marker to a launcher started ahead, whatever
// the Runner adopts: its Run may record its group.
type noGroups struct{}

func (noGroups) RecordGroup(int, string) (func(), error) { return func() {}, nil }

// take removes and returns key's waiting launcher, or nil.
func (wp *warmPool) take(key string) *warmLauncher {
	wp.mu.Lock()
	defer wp.mu.Unlock()
	w := wp.idle[key]
	if w != nil {
		delete(wp.idle, key)
		wp.order = slices.DeleteFunc(wp.order, func(k string) bool { return k == key })
	}
	return w
}

func (wp *warmPool) has(key string) bool {
	wp.mu.Lock()
	defer wp.mu.Unlock()
	_, ok := wp.idle[key]
	return ok
}

// put keeps w for key and returns what no longer fits: a launcher already
// there for key, and the least recently used past maxWarm.
func (wp *warmPool) put(key string, w *warmLauncher) []*warmLauncher {
	wp.mu.Lock()
	defer wp.mu.Unlock()
	if wp.idle == nil {
		wp.idle = make(map[string]*warmLauncher)
	}
	var out []*warmLauncher
	if old := wp.idle[key]; old != nil {
		out = append(out, old)
		wp.order = slices.DeleteFunc(wp.order, func(k string) bool { return k == key })
	}
	wp.idle[key] = w
	wp.order = append(wp.order, key)
	for len(wp.order) > maxWarm {
		out = append(out, wp.idle[wp.order[0]])
		delete(wp.idle, wp.order[0])
		wp.order = wp.order[1:]
	}
	return out
}

// drain ends every waiting launcher (Close).
func (wp *warmPool) drain(r *Runner) {
	wp.mu.Lock()
	idle := wp.idle
	wp.idle, wp.order = nil, nil
	wp.mu.Unlock()
	for _, w := range idle {
		r.discard(w)
	}
}

// WaitWarm waits, up to d, until a launcher of pol waits for its command:
// for benchmarks that time a Run without the start of the next launcher
// running beside it.
func (r *Runner) WaitWarm(pol *sandbox.Policy, d time.Duration) bool {
	key, err := json.Marshal(pol)
	if err != nil {
		return false
	}
	for deadline := time.Now().Add(d); ; time.Sleep(time.Millisecond) {
		if r.warm.has(string(key)) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
	}
}
