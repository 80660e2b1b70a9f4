package exec

import (
	"errors"
	"fmt"
	"os"
	osexec "os/exec"

	"github.com/toold/toold/sandbox"
)

// A sandboxed command starts through its session's sandbox (package
// sandbox): a launcher started at the session's first sandboxed Run, in
// the session's namespaces and restricted to its policy, that forks each
// command as the daemon's child, in its own session and group, and hands
// back its pidfd. So a sandboxed Run costs about what an unsandboxed one
// does (no new toold runtime per command), the command's pid, group and
// exit status are the daemon's to wait on and signal, and the session's
// PID namespace (where there is one) ends every process the session left
// when EndSandbox ends the sandbox. The launchers, one per session policy,
// are the Runner's sandbox.Pool's; this file starts commands through them.

// startSandboxed starts spec in its session's sandbox.
func (r *Runner) startSandboxed(spec Spec) (*process, error) {
	plain := spec
	plain.Sandbox = nil
	c, err := command(plain) // the program's path, and a missing cwd said as usual
	if err == nil {
		err = executable(c.Path, spec.Dir)
	}
	if err != nil {
		return nil, err
	}
	pp, tty, err := newStdio(spec)
	if err != nil {
		return nil, err
	}
	stdin, stderr := pp.inR, pp.errW
	if tty.master != nil { // the terminal's slave stands for all three
		stdin = pp.outW
	}
	if stdin == nil {
		if stdin, err = os.Open(os.DevNull); err != nil {
			pp.closeAll()
			return nil, err
		}
		defer stdin.Close()
	}
	if stderr == nil {
		stderr = pp.outW
	}
	env, marker := r.mark(spec, c.Env)
	if env == nil {
		env = os.Environ()
	}
	req := sandbox.Request{Path: c.Path, Argv: c.Args, Env: env, Dir: spec.Dir, Ctty: tty.master != nil}
	for attempt := 0; ; attempt++ {
		in, err := r.sandbox(spec)
		if err != nil {
			pp.closeAll()
			return nil, err
		}
		started := r.orphans.Spawning()
		pid, err := in.Spawn(req, [3]*os.File{stdin, pp.outW, stderr})
		var proc *os.Process
		if err == nil {
			proc, err = os.FindProcess(pid)
		}
		if err != nil {
			started(0)
			if errors.Is(err, sandbox.ErrBroken) && attempt == 0 {
				r.sb.Retire(spec.Sandbox, in) // another launcher, in a PID namespace of its own
				continue
			}
			pp.closeAll()
			return nil, err
		}
		started(pid)
		pp.closeChildEnds()
		cmd := &osexec.Cmd{Path: c.Path, Args: c.Args, Dir: spec.Dir, Env: env, Process: proc}
		p := newProcess(cmd, pp)
		p.tty, p.marker, p.reaper = tty, marker, in.InitPid
		r.begin(spec, p)
		return p, nil
	}
}

// PrepareSandbox starts pol's sandbox (a session's, in its cgroup) in the
// background, if it has none yet, so that the session's first sandboxed
// Run does not pay its start: initialize calls it.
func (r *Runner) PrepareSandbox(pol *sandbox.Policy, cg *sandbox.Cgroup) {
	if pol == nil || !pol.Plan.Confines() {
		return
	}
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return
	}
	r.wg.Add(1)
	r.mu.Unlock()
	go func() {
		defer r.wg.Done()
		if _, err := r.sandbox(Spec{Sandbox: pol, Cgroup: cg}); err != nil {
			r.log.Debug("exec: starting a session's sandbox ahead", "err", err)
		}
	}()
}

// sandbox returns spec's sandbox, started now if it has none.
func (r *Runner) sandbox(spec Spec) (*sandbox.Instance, error) {
	in, err := r.sb.Get(spec.Sandbox, spec.Cgroup)
	if errors.Is(err, sandbox.ErrPoolClosed) {
		return nil, fmt.Errorf("%w: runner closed", ErrStart)
	}
	return in, err
}

// EndSandbox ends the sandboxes of the session whose TMPDIR is tmpDir:
// their launchers, and every process left in their PID namespaces. The
// session's commands should have ended first (process.Table.Close).
func (r *Runner) EndSandbox(tmpDir string) {
	r.sb.End(tmpDir)
}
