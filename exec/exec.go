package exec

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/toold/toold/highlight"
	"github.com/toold/toold/orphans"
	"github.com/toold/toold/sandbox"
	"github.com/toold/toold/truncate"
)

// ErrStart is wrapped by Run's error when the command cannot be started: no
// such file, not executable, a missing cwd, or a closed Runner.
var ErrStart = errors.New("command could not be started")

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

// Kind is a shape of the failure lines of an output (highlight.Kind).
type Kind = highlight.Kind

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

	orphans orphans.Reaper // escaped descendants: see AdoptOrphans
	sb      sandbox.Pool   // the sessions' sandboxes (warm.go)
}

// NewRunner returns a Runner that logs to logger (nil: no logs).
func NewRunner(logger *slog.Logger) *Runner {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	r := &Runner{log: logger, done: make(chan struct{})}
	r.sb.Start, r.sb.Waited = r.startChild, r.orphans.Waited // its launchers
	return r
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
		r.sb.Stop()
	}
	r.mu.Unlock()
	r.wg.Wait()
	r.sb.Close()
	// Only now: until the groups are gone, their zombies must be reaped.
	r.orphans.Stop()
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
