package process

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/toold/toold/exec"
)

// killDelay is how long a signal other than SIGTERM has to end the group
// before Kill ends it as exec does (SIGTERM, then SIGKILL after 2 s).
const killDelay = 2 * time.Second

var (
	// ErrExited is Write's error once the process has exited.
	ErrExited = errors.New("the process has exited")
	// ErrStdinClosed is Write's error once stdin was closed.
	ErrStdinClosed = errors.New("stdin is closed")
	// ErrNoTerminal is Resize's error for a process without a terminal.
	ErrNoTerminal = errors.New("the process has no terminal")
)

// Proc is one background process. It is the exec.Observer of its Run.
type Proc struct {
	ID        string
	Command   string
	StartedAt time.Time
	// TTY is set for a process on a terminal of its own (exec.Spec.TTY):
	// Write types into the terminal.
	TTY    bool
	cancel context.CancelFunc // ends the group through Run

	// Meter counts the output for progress reports.
	Meter exec.Meter

	started chan struct{} // closed by Started
	done    chan struct{} // closed by finish

	wmu sync.Mutex // serializes writes to stdin

	mu         sync.Mutex
	pgid       int
	stdin      *os.File // nil once closed
	streams    [2]streamState
	lastOutput time.Time
	lastWrite  time.Time     // the last Write's end
	input      *exec.Input   // what it reads; nil until Run says
	waiting    *Waiting      // set while it waits for input (watch)
	changed    chan struct{} // closed at the next output, exit or wait for input; nil until asked for
	cursor     Cursor        // where the last read ended
	cursorNL   [2]int64      // newlines before cursor, per stream
	result     *exec.Result
	startErr   error
}

// streamState is what a Proc knows of one stream's output.
type streamState struct {
	written  int64          // bytes seen, all of them given to the spool first
	newlines int64          // '\n' bytes among them
	spool    exec.SpoolFile // nil until the first byte; read back through its Open only
}

// streamIndex maps "stdout"/"stderr" to 0/1.
func streamIndex(stream string) int {
	if stream == "stderr" {
		return 1
	}
	return 0
}

// Started implements exec.Observer.
func (p *Proc) Started(pgid int, stdin *os.File) {
	p.Meter.Started(pgid, stdin)
	p.mu.Lock()
	p.pgid, p.stdin = pgid, stdin
	p.mu.Unlock()
	close(p.started)
}

// Input implements exec.InputObserver.
func (p *Proc) Input(in *exec.Input) {
	p.mu.Lock()
	p.input = in
	p.mu.Unlock()
}

// Output implements exec.Observer.
func (p *Proc) Output(stream string, b []byte) {
	p.Meter.Output(stream, b)
	p.mu.Lock()
	s := &p.streams[streamIndex(stream)]
	s.written += int64(len(b))
	s.newlines += int64(bytes.Count(b, newline))
	p.lastOutput = time.Now()
	p.waiting = nil // it goes on: it is found waiting again once quiet
	p.notifyLocked()
	p.mu.Unlock()
}

func (p *Proc) setSpool(stream string, f exec.SpoolFile) {
	p.mu.Lock()
	p.streams[streamIndex(stream)].spool = f
	p.mu.Unlock()
}

// finish records how Run ended.
func (p *Proc) finish(res *exec.Result, err error) {
	p.mu.Lock()
	p.result, p.startErr = res, err
	if res == nil && err == nil {
		p.startErr = fmt.Errorf("%w: no result", exec.ErrStart)
	}
	p.stdin = nil // Run has closed it
	p.waiting = nil
	p.notifyLocked()
	p.mu.Unlock()
	close(p.done)
}

// notifyLocked wakes the waiters; p.mu is held.
func (p *Proc) notifyLocked() {
	if p.changed != nil {
		close(p.changed)
		p.changed = nil
	}
}

// changedLocked returns a channel closed at the next output or exit.
func (p *Proc) changedLocked() <-chan struct{} {
	if p.changed == nil {
		p.changed = make(chan struct{})
	}
	return p.changed
}

// Running reports whether the process has yet to exit.
func (p *Proc) Running() bool {
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// Done is closed when the process has exited and its output is read.
func (p *Proc) Done() <-chan struct{} { return p.done }

// Result returns how the process ended (with the previews of its whole
// output), or nil while it runs.
func (p *Proc) Result() *exec.Result {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.result
}

// Write writes s to the process's stdin, and closes stdin after it when
// close is set. It returns how many bytes of s were written: fewer than
// len(s) when ctx ended first (a process that does not read its stdin),
// with ctx's error. On a terminal s is typed (typed) and close types
// Ctrl-D, the terminal staying open. Either way the process is no longer
// taken to wait for input: it is found so again once it is quiet.
func (p *Proc) Write(ctx context.Context, s string, close bool) (int, error) {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	p.mu.Lock()
	f, exited := p.stdin, p.result != nil
	p.mu.Unlock()
	switch {
	case exited:
		return 0, ErrExited
	case f == nil:
		return 0, ErrStdinClosed
	}
	defer p.wrote()
	p.wrote() // its reads of s may take a while: no stale wait meanwhile
	out := s
	if p.TTY {
		if out = typed(s); close {
			out += eof
		}
	}
	// A deadline set by the last write's ctx may land after that write
	// returned: clear it first.
	f.SetWriteDeadline(time.Time{})
	stop := context.AfterFunc(ctx, func() { f.SetWriteDeadline(time.Now()) })
	n, err := f.WriteString(out)
	if !stop() && err != nil {
		err = ctx.Err()
	}
	if p.TTY {
		n = typedLen(s, n)
	}
	if errors.Is(err, os.ErrClosed) || errors.Is(err, syscall.EPIPE) || p.TTY && errors.Is(err, syscall.EIO) {
		err = ErrExited
	}
	if err != nil || p.TTY {
		return n, err
	}
	if close {
		p.mu.Lock()
		p.stdin = nil
		p.mu.Unlock()
		if err := f.Close(); err != nil && !errors.Is(err, os.ErrClosed) {
			return n, fmt.Errorf("closing stdin: %w", err)
		}
	}
	return n, nil
}

// Kill ends the process and returns its Result. sig 0 or SIGTERM ends the
// group as exec does (SIGTERM, then SIGKILL after 2 s); another signal is
// sent to the group first, and the group is ended so if it is still there
// 2 s later. ctx bounds the wait for the exit, not the signals.
func (p *Proc) Kill(ctx context.Context, sig syscall.Signal) (*exec.Result, error) {
	if sig != 0 && sig != syscall.SIGTERM && p.Running() {
		p.mu.Lock()
		pgid := p.pgid
		p.mu.Unlock()
		// The group's pgid stays allocated while any member lives, so it
		// names no one else here (exec.Runner.terminate says why).
		unix.Kill(-pgid, sig)
		t := time.NewTimer(killDelay)
		select {
		case <-p.done:
		case <-t.C:
		case <-ctx.Done():
		}
		t.Stop()
	}
	p.cancel()
	select {
	case <-p.done:
		return p.Result(), nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
