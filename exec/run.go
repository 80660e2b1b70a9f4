package exec

import (
	"context"
	"fmt"
	"io"
	"os"
	osexec "os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// A command that Run started: its start, the goroutines that read its
// output and feed its stdin, the wait for its leader, the drain of its
// output and how it ended.

const (
	// drainIdle: after the leader exits, the output is read on while it
	// keeps coming; a holder of the pipes that is silent this long is cut off.
	drainIdle = 150 * time.Millisecond
	// drainMax bounds the reading after the leader exits, whatever comes.
	drainMax = killDelay
	// readSize is the read buffer of each output stream.
	readSize = 256 << 10
)

var readBufs = sync.Pool{New: func() any { b := make([]byte, readSize); return &b }}

// process is one command that Run started: its pipes, the goroutines that
// read and feed them, and how it ended.
type process struct {
	cmd        *osexec.Cmd
	pgid       int
	pipes      *pipes
	out, err   *capture // err is nil with MergeStderr
	readers    int
	readerDone chan struct{} // one send per reader
	busy       atomic.Int32  // readers inside a chunk
	chunks     atomic.Int64  // chunks read, to tell output that keeps coming
	stdinDone  chan struct{}
	exited     chan error // cmd.Wait's

	begin, end time.Time
	waitErr    error
	terminated bool // the group got SIGTERM

	tty    ttyDevice // its terminal; zero without one
	marker string    // MarkerVar=<id> in its environment, or ""
	reaper int       // its PID namespace's init, where its orphans go; 0: this process
	forget func()    // forgets the group's record (Spec.Groups)
	after  func()    // called once Run has its result, if set
}

// start starts the command and the goroutines that read its output and
// feed its stdin.
func (r *Runner) start(spec Spec) (*process, error) {
	if spec.Sandbox != nil && spec.Sandbox.Plan.Confines() {
		return r.startSandboxed(spec)
	}
	cmd, err := command(spec)
	if err != nil {
		return nil, err
	}
	if dir := spec.Cgroup.Dir(); dir != nil {
		intoCgroup(cmd.SysProcAttr, dir)
	}
	pp, tty, err := newStdio(spec)
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = pp.outW, pp.outW
	if pp.errW != nil {
		cmd.Stderr = pp.errW
	}
	if pp.inR != nil { // not a nil *os.File in the interface
		cmd.Stdin = pp.inR
	}
	if tty.master != nil {
		// A session of its own, whose controlling terminal is its stdin:
		// its group is the session's first (setsid makes it; setpgid
		// would then fail).
		cmd.Stdin = pp.outW
		a := cmd.SysProcAttr
		a.Setpgid, a.Setsid, a.Setctty, a.Ctty = false, true, true, 0
	}
	p := newProcess(cmd, pp)
	p.tty = tty
	cmd.Env, p.marker = r.mark(spec, cmd.Env)
	started := r.orphans.Forking()
	if err := cmd.Start(); err != nil {
		started(0)
		pp.closeAll()
		return nil, err
	}
	started(cmd.Process.Pid)
	pp.closeChildEnds()
	r.begin(spec, p)
	return p, nil
}

func newProcess(cmd *osexec.Cmd, pp *pipes) *process {
	return &process{cmd: cmd, pipes: pp, readerDone: make(chan struct{}, 2),
		stdinDone: make(chan struct{}), exited: make(chan error, 1), begin: time.Now()}
}

// begin follows p, started: its record, the observer, the goroutines that
// read its output, feed its stdin and wait for it.
func (r *Runner) begin(spec Spec, p *process) {
	cmd, pp := p.cmd, p.pipes
	p.pgid = cmd.Process.Pid
	r.log.Debug("exec started", "pid", p.pgid, "argv", cmd.Args)
	if spec.Observer != nil {
		var stdin *os.File
		if spec.KeepStdin {
			stdin = pp.inW
		}
		if io, ok := spec.Observer.(InputObserver); ok {
			in := newInput(p.pgid, p.tty, stdin)
			// Output still in the pipe, or read and not yet captured.
			in.pending = func() bool { return p.busy.Load() > 0 || pp.unread() }
			io.Input(in)
		}
		spec.Observer.Started(p.pgid, stdin)
	}

	p.out = newCapture(spec.Output, "stdout", spec.Spool)
	p.out.observer, p.out.spoolAll = spec.Observer, spec.SpoolAll
	p.out.readLines = spec.ReadLines
	r.goTracked(func() { p.read(pp.outR, p.out) })
	p.readers = 1
	if pp.errR != nil {
		p.err = newCapture(spec.Output, "stderr", spec.Spool)
		p.err.observer, p.err.spoolAll = spec.Observer, spec.SpoolAll
		p.err.readLines = spec.ReadLines
		r.goTracked(func() { p.read(pp.errR, p.err) })
		p.readers++
	}
	// Stdin: written in full, then closed. EPIPE from a command that does
	// not read it is fine; closing inW after the exit unblocks a stuck write.
	if pp.inW != nil && !spec.KeepStdin {
		r.goTracked(func() {
			defer close(p.stdinDone)
			io.WriteString(pp.inW, *spec.Stdin)
			pp.inW.Close()
		})
	} else {
		close(p.stdinDone)
	}
	r.goTracked(func() {
		// The group's record is written here, beside the command rather
		// than before the reply's path goes on (a file made and a /proc
		// read: a quarter of a millisecond, more on a busy disk). The
		// leader is not reaped before the Wait below, so its /proc entry
		// is there to read; finish, which forgets the record, comes after
		// exited.
		r.record(spec, p)
		waitExit(p.pgid)
		err := cmd.Wait()
		r.orphans.Waited(p.pgid)
		p.exited <- err
	})
}

// read captures f until it ends or is closed.
func (p *process) read(f *os.File, c *capture) {
	// A second buffer once the capture holds the chunk it was given (see
	// capture.pend): the next chunk goes to the other one.
	bufs := [2]*[]byte{readBufs.Get().(*[]byte)}
	buf := bufs[0]
	grown := false
	for {
		if c.holds() {
			if bufs[1] == nil {
				bufs[1] = readBufs.Get().(*[]byte)
			}
			if buf == bufs[0] {
				buf = bufs[1]
			} else {
				buf = bufs[0]
			}
		}
		n, err := f.Read(*buf)
		if n >= smallPipe && !grown {
			// The command fills the pipe: fewer wake-ups with a larger one.
			// Asked only now, since most commands print little and the
			// kernel's allocation of 1 MiB was most of a short Run's cost.
			growPipe(f)
			grown = true
		}
		if n > 0 {
			p.busy.Add(1)
			c.write((*buf)[:n])
			p.chunks.Add(1)
			p.busy.Add(-1)
		}
		if err != nil {
			break
		}
	}
	c.flush()
	for _, b := range bufs {
		if b != nil {
			readBufs.Put(b)
		}
	}
	p.readerDone <- struct{}{}
}

// wait waits for the leader to exit, or ends the group on timeout, ctx's
// end or Close and then waits; it records which in res. Once untimed is
// closed the timeout no longer applies.
func (r *Runner) wait(ctx context.Context, p *process, timeout time.Duration, untimed <-chan struct{}, res *Result) {
	var expired <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		expired = t.C
	}
wait:
	for {
		select {
		case p.waitErr = <-p.exited:
		case <-expired:
			res.TimedOut = true
		case <-untimed:
			expired, untimed = nil, nil
			continue wait
		case <-ctx.Done():
			res.Cancelled = true
		case <-r.done:
			res.Cancelled = true
		}
		break
	}
	if res.TimedOut || res.Cancelled {
		select {
		case p.waitErr = <-p.exited: // it exited on its own meanwhile
			res.TimedOut, res.Cancelled = false, false
		default:
			r.terminate(p.pgid)
			p.terminated = true
			p.waitErr = <-p.exited
		}
	}
	p.end = time.Now()
}

// drain ends what is left of the group, then reads the output on while it
// keeps coming (a command that printed a lot just before exiting), but cuts
// off a silent holder of the pipes.
func (r *Runner) drain(p *process) {
	// The leader is gone. Whatever is left of its group is a background
	// child that may hold the pipes: end it too, and the descendants that
	// left the group.
	if !p.terminated && groupAlive(p.pgid) {
		r.terminate(p.pgid)
	}
	r.finish(p)
	p.pipes.inW.Close() // unblocks a stdin write to a command that is gone
	<-p.stdinDone

	pending := p.readers
	idle := time.NewTicker(drainIdle)
	hard := time.NewTimer(drainMax)
	lastChunks := p.chunks.Load()
	waited := p.scanWait()
drain:
	for pending > 0 {
		select {
		case <-p.readerDone:
			pending--
		case <-idle.C:
			if p.tty.master != nil {
				// A terminal's last output can wait in the kernel's
				// buffer between slave and master, which FIONREAD on
				// the master does not count, for as long as a loaded
				// machine delays the work that moves it (300 of seq's
				// 3,000 lines were lost so). The master's read ends, EIO,
				// only after that buffer is read and no one holds the
				// slave (finish ended the group): wait for it, within
				// drainMax.
				continue
			}
			// Output left in a pipe is not silence: its reader is behind
			// (not scheduled for drainIdle on a loaded machine, and a
			// cut then lost the rest of cat's 300 KB).
			if n := p.chunks.Load(); n == lastChunks && p.busy.Load() == 0 && !p.pipes.unread() {
				break drain
			} else {
				lastChunks = n
			}
		case <-hard.C:
			// Time the readers spent waiting for the highlight scanners is
			// ours, not the command's: it does not count.
			if w := p.scanWait(); w > waited {
				hard.Reset(time.Duration(w - waited))
				waited = w
				continue
			}
			break drain
		}
	}
	idle.Stop()
	hard.Stop()
	p.pipes.closeReadEnds() // interrupts readers still blocked
	for ; pending > 0; pending-- {
		<-p.readerDone
	}
}

// scanWait is how long the readers waited for their scanners so far.
func (p *process) scanWait() int64 {
	w := p.out.waited.Load()
	if p.err != nil {
		w += p.err.waited.Load()
	}
	return w
}

// status records how the leader ended.
func (r *Runner) status(p *process, res *Result) {
	if st := p.cmd.ProcessState; st != nil {
		ws := st.Sys().(syscall.WaitStatus)
		if ws.Signaled() {
			name := unix.SignalName(ws.Signal())
			if name == "" {
				name = fmt.Sprintf("SIG%d", int(ws.Signal()))
			}
			res.Signal = &name
		} else {
			code := ws.ExitStatus()
			res.ExitCode = &code
		}
	} else {
		r.log.Warn("exec wait", "pid", p.pgid, "err", p.waitErr)
	}
	for _, s := range []*Stream{&res.Stdout, &res.Stderr} {
		if s.SpoolError != "" {
			r.log.Warn("exec spool", "pid", p.pgid, "err", s.SpoolError)
		}
	}
	r.log.Debug("exec done", "pid", p.pgid, "ms", res.DurationMs, "timedOut", res.TimedOut, "cancelled", res.Cancelled)
}
