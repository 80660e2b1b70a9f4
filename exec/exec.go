package exec

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/toold/toold/highlight"
	"github.com/toold/toold/sandbox"
	"github.com/toold/toold/truncate"
)

// ErrStart is wrapped by Run's error when the command cannot be started: no
// such file, not executable, a missing cwd, or a closed Runner.
var ErrStart = errors.New("command could not be started")

// KillDelay is how long a command's process group has between SIGTERM
// and SIGKILL: a cancelled or timed-out command has answered within it.
const KillDelay = killDelay

const (
	// killDelay is how long a group has between SIGTERM and SIGKILL.
	killDelay = 2 * time.Second
	// drainIdle: after the leader exits, the output is read on while it
	// keeps coming; a holder of the pipes that is silent this long is cut off.
	drainIdle = 150 * time.Millisecond
	// drainMax bounds the reading after the leader exits, whatever comes.
	drainMax = killDelay
	// pollGroup is how often a pending SIGKILL checks whether the group is gone.
	pollGroup = 20 * time.Millisecond
	// pipeSize is asked of the kernel (F_SETPIPE_SZ) for an output pipe
	// that a read finds full at its default size, smallPipe.
	pipeSize  = 1 << 20
	smallPipe = 64 << 10
	// readSize is the read buffer of each output stream.
	readSize = 256 << 10
)

// SpoolFile is where a stream's complete raw output goes. *spool.File
// satisfies it; Write should not fail (keep the error for Err instead).
type SpoolFile interface {
	io.Writer
	ID() string
	Path() string
	Bytes() int64
	Capped() bool
	Err() error
	Close() error
	// Open opens what was written for reading: the only way it is read
	// back, never by its path, which the command may have swapped for a
	// symlink or a FIFO. An error that errors.Is counts as fs.ErrNotExist
	// says it is gone (evicted, removed).
	Open() (*os.File, error)
}

// Spec is one command to run.
type Spec struct {
	// Argv is run directly, argv[0] looked up in Env's PATH, when set.
	Argv []string
	// Command is run by /bin/bash -c (or /bin/sh -c when bash is missing)
	// when Argv is empty.
	Command string
	// Dir is the working directory; "" means the daemon's.
	Dir string
	// Env is the complete environment; nil means the daemon's own.
	Env []string
	// Stdin is written to the command's stdin, which is then closed; nil
	// means the command reads EOF.
	Stdin *string
	// Timeout ends the command's group when it passes; 0 means none.
	Timeout time.Duration
	// MergeStderr sends stderr to the stdout stream; Result.Stderr is then
	// empty.
	MergeStderr bool
	// Output shapes the previews.
	Output truncate.PreviewOptions
	// Groups, if set, records the command's process group and marker (see
	// MarkerVar) for the sweep after the daemon's death; the record goes
	// once the group has ended.
	Groups GroupRecorder
	// Spool opens the spool file of a stream ("stdout" or "stderr") when its
	// output must be kept; nil means no spooling.
	Spool func(stream string) (SpoolFile, error)
	// SpoolAll spools each stream from its first byte, whatever the preview
	// shows, so that the output can be read while the command runs.
	SpoolAll bool
	// Observer, when set, follows the command while it runs.
	Observer Observer
	// KeepStdin makes stdin a pipe that stays open while the command runs:
	// Observer.Started gets its write end, and Stdin is not written.
	KeepStdin bool
	// Sandbox, when set, confines the command and its descendants: it is
	// started by its session's sandbox (see warm.go), as this process's
	// child in a group of its own, as any command is.
	Sandbox *sandbox.Policy
	// Cgroup, when set, is the session's cgroup, where the command starts:
	// what it leaves behind ends with the cgroup, wherever it moved.
	Cgroup *sandbox.Cgroup
	// TTY, when set, runs the command on a pseudo-terminal of that size
	// (tty.go): its stdin, stdout and stderr, all read as stdout, and its
	// controlling terminal. Sandboxed, its session's launcher makes the
	// slave the controlling terminal (sandbox.Request.Ctty).
	TTY *Terminal
	// Untimed, once closed, lifts Timeout: the command runs on until it
	// ends or is ended (a command whose caller has been told it waits for
	// input, and who now answers it at its own pace).
	Untimed <-chan struct{}
	// ReadLines reads lines from..to (1-based, inclusive, with their endings)
	// of the closed spool file id, for the evidence of a highlight that has
	// left memory; nil reads the file (SpoolFile.Open) from its start.
	ReadLines func(id string, from, to int64) ([]byte, error)
}

// Result is what a command did and printed.
type Result struct {
	ExitCode   *int    // nil when killed by a signal
	Signal     *string // the signal that killed it, e.g. "SIGTERM"
	TimedOut   bool    // the timeout ended it
	Cancelled  bool    // the context or Runner.Close ended it
	DurationMs int64
	Stdout     Stream
	Stderr     Stream
}

// Stream is the capture of one output stream: a preview of whole lines
// (Head, the omitted middle, then Tail) and where the raw output was kept.
type Stream struct {
	Head         string
	Tail         string
	TotalBytes   int64
	TotalLines   int64
	ShownLines   int
	ShownBytes   int
	ClippedLines int
	Omitted      *truncate.Omitted // nil when nothing is left out
	Truncated    bool
	Spool        *SpoolRef
	Binary       bool
	// Highlights are groups of lines from the omitted middle, in output
	// order ([] when none); HighlightsOmitted counts the groups found there
	// but left out for the budget. HighlightErrors is set when a shown group
	// is an error (else they are warnings).
	Highlights        []truncate.ShownHighlight
	HighlightsOmitted int
	HighlightErrors   bool
	// Kinds are the shapes of the failure lines found when some are not
	// shown (see highlight.Kind); nil when all are.
	Kinds []highlight.Kind
	// Clip names the first line shown clipped, where its shown part ends
	// in the raw output; nil when none is.
	Clip *truncate.Clip
	// ScanSkipped is set when output went past the spool's cap: the
	// highlight detector did not search what no file keeps.
	ScanSkipped bool
	// SpoolError says why the spool could not be opened or written in
	// full; Spool, when set, then holds what was written.
	SpoolError string
}

// SpoolRef names the spool file that holds a stream's raw output.
type SpoolRef struct {
	ID     string
	Path   string
	Bytes  int64
	Capped bool // output past the spool's cap was dropped
}

// Runner runs commands and owns their processes and goroutines.
type Runner struct {
	log       *slog.Logger
	running   atomic.Int64
	terminals atomic.Int64  // Runs with a terminal
	done      chan struct{} // closed by Close

	mu     sync.Mutex
	closed bool
	wg     sync.WaitGroup // Runs, and every goroutine they start

	orphans orphans // escaped descendants: see AdoptOrphans
	sb      sandboxes
}

// NewRunner returns a Runner that logs to logger (nil: no logs).
func NewRunner(logger *slog.Logger) *Runner {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Runner{log: logger, done: make(chan struct{})}
}

// Running returns how many commands are running.
func (r *Runner) Running() int { return int(r.running.Load()) }

// Terminals returns how many commands run on a terminal: how many
// pseudo-terminals the Runner holds.
func (r *Runner) Terminals() int { return int(r.terminals.Load()) }

// Close cancels every running command (their groups get SIGTERM, then
// SIGKILL after 2 s if anything is left) and waits for every goroutine the
// Runner started, pending SIGKILLs included. Later Runs fail with ErrStart.
func (r *Runner) Close() error {
	r.mu.Lock()
	if !r.closed {
		r.closed = true
		close(r.done)
	}
	r.mu.Unlock()
	r.wg.Wait()
	r.endSandboxes(func(*sandboxEntry) bool { return true })
	// Only now: until the groups are gone, their zombies must be reaped.
	r.orphans.stopReaping()
	return nil
}

// goTracked runs f in a goroutine that Close waits for. The caller must
// itself be tracked (a Run), so that the count cannot be zero here.
func (r *Runner) goTracked(f func()) {
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		f()
	}()
}

var readBufs = sync.Pool{New: func() any { b := make([]byte, readSize); return &b }}

// Run runs spec and returns when the command has exited and its output has
// been read (a background child that keeps the pipes open is ended, not
// waited for). A timeout, ctx's end or Close end the command's whole group;
// the Result then still holds what was printed. The error, wrapping ErrStart,
// is only for a command that could not be started.
func (r *Runner) Run(ctx context.Context, spec Spec) (*Result, error) {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil, fmt.Errorf("%w: runner closed", ErrStart)
	}
	r.wg.Add(1)
	r.mu.Unlock()
	defer r.wg.Done()
	r.running.Add(1)
	defer r.running.Add(-1)

	if ctx.Err() != nil {
		return &Result{Cancelled: true}, nil
	}
	if spec.TTY != nil {
		if r.terminals.Add(1) > MaxTerminals {
			r.terminals.Add(-1)
			return nil, fmt.Errorf("%w: %w (%d)", ErrStart, ErrTerminals, MaxTerminals)
		}
		defer r.terminals.Add(-1)
	}
	p, err := r.start(spec)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrStart, err)
	}
	res := &Result{}
	r.wait(ctx, p, spec.Timeout, spec.Untimed, res)
	r.drain(p)
	if res.Cancelled {
		// Whoever cancelled wants the reply now, not the search of what the
		// detector has not reached yet.
		p.out.stopScan()
		if p.err != nil {
			p.err.stopScan()
		}
	}
	res.DurationMs = p.end.Sub(p.begin).Milliseconds()
	failed := res.TimedOut || res.Cancelled || p.cmd.ProcessState == nil || !p.cmd.ProcessState.Success()
	p.out.failed = failed
	res.Stdout = p.out.finish()
	if p.err != nil {
		p.err.failed = failed
		res.Stderr = p.err.finish()
	}
	r.status(p, res)
	if p.after != nil {
		p.after()
	}
	return res, nil
}

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
	started := r.orphans.forking()
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
		r.orphans.waited(p.pgid)
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

// command builds the os/exec command of spec, without its I/O.
func command(spec Spec) (*osexec.Cmd, error) {
	var path string
	var args []string
	switch {
	case len(spec.Argv) > 0:
		p, err := lookPath(spec.Argv[0], spec.Env)
		if err != nil {
			return nil, err
		}
		path, args = p, spec.Argv
	case spec.Command != "":
		shell := "/bin/bash"
		if _, err := os.Stat(shell); err != nil {
			shell = "/bin/sh"
		}
		path, args = shell, []string{shell, "-c", spec.Command}
	default:
		return nil, errors.New("no command given")
	}
	// The child's failed chdir comes back as "fork/exec <path>: ...", which
	// blames the wrong path: check the directory first to say why.
	if spec.Dir != "" {
		fi, err := os.Stat(spec.Dir)
		if err != nil {
			return nil, fmt.Errorf("cwd: %w", err)
		}
		if !fi.IsDir() {
			return nil, fmt.Errorf("cwd %s: %w", spec.Dir, syscall.ENOTDIR)
		}
	}
	cmd := &osexec.Cmd{
		Path:        path,
		Args:        args,
		Dir:         spec.Dir,
		Env:         spec.Env,
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true},
	}
	return cmd, nil
}

// executable says, as os/exec's start would, why path (relative to dir)
// cannot be executed: a sandboxed command's launcher would say it too, but
// as the error of its fork, not naming the program as os/exec does.
func executable(path, dir string) error {
	p := path
	if !filepath.IsAbs(p) && dir != "" {
		p = filepath.Join(dir, p)
	}
	fi, err := os.Stat(p)
	switch {
	case err != nil:
		return &os.PathError{Op: "fork/exec", Path: path, Err: errors.Unwrap(err)}
	case !fi.Mode().IsRegular() || unix.Access(p, unix.X_OK) != nil:
		return &os.PathError{Op: "fork/exec", Path: path, Err: syscall.EACCES}
	}
	return nil
}

// defaultPath is searched when env has no PATH, as a shell would.
const defaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// lookPath finds name in the PATH of env (the daemon's when env is nil), not
// in the daemon's own as os/exec.LookPath would. A name with a slash is used
// as is (relative to the command's Dir). Relative PATH entries are skipped.
func lookPath(name string, env []string) (string, error) {
	if strings.Contains(name, "/") {
		return name, nil
	}
	path, found := "", false
	if env == nil {
		path, found = os.LookupEnv("PATH")
	} else {
		for _, kv := range env {
			if v, ok := strings.CutPrefix(kv, "PATH="); ok {
				path, found = v, true
			}
		}
	}
	if !found {
		path = defaultPath
	}
	for _, dir := range filepath.SplitList(path) {
		if !filepath.IsAbs(dir) {
			continue
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%q: %w", name, osexec.ErrNotFound)
}

// pipes are a command's stdio. The child's ends are plain files handed to
// os/exec, so that it starts no copying goroutines; ours stay non-blocking,
// so that Close interrupts a Read or Write in progress.
type pipes struct {
	outR, outW *os.File
	errR, errW *os.File // nil with MergeStderr
	inR, inW   *os.File // nil without Stdin
}

func newPipes(spec Spec) (*pipes, error) {
	p := &pipes{}
	var err error
	if p.outR, p.outW, err = os.Pipe(); err != nil {
		return nil, err
	}
	if !spec.MergeStderr {
		if p.errR, p.errW, err = os.Pipe(); err != nil {
			p.closeAll()
			return nil, err
		}
	}
	if spec.Stdin != nil || spec.KeepStdin {
		if p.inR, p.inW, err = os.Pipe(); err != nil {
			p.closeAll()
			return nil, err
		}
	}
	return p, nil
}

// growPipe asks for a larger pipe buffer: fewer wake-ups for a command that
// prints a lot. The kernel may refuse (pipe-max-size, per-user limits);
// only Linux is asked (setPipeSize).
func growPipe(f *os.File) {
	if sc, err := f.SyscallConn(); err == nil {
		sc.Control(func(fd uintptr) { setPipeSize(fd, pipeSize) })
	}
}

// unread reports whether a read end of the output holds bytes not read yet.
func (p *pipes) unread() bool {
	return unreadBytes(p.outR) || p.errR != nil && unreadBytes(p.errR)
}

// unreadBytes reports whether pipe f holds bytes (FIONREAD), false when
// that cannot be asked.
func unreadBytes(f *os.File) bool {
	sc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	n := 0
	sc.Control(func(fd uintptr) { n, _ = unix.IoctlGetInt(int(fd), fionread) })
	return n > 0
}

// closeChildEnds closes, after Start, the ends the child inherited.
func (p *pipes) closeChildEnds() {
	p.outW.Close()
	p.errW.Close()
	p.inR.Close()
}

func (p *pipes) closeReadEnds() {
	p.outR.Close()
	p.errR.Close()
}

func (p *pipes) closeAll() {
	p.closeChildEnds()
	p.closeReadEnds()
	p.inW.Close()
}
