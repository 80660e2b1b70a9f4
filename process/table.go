package process

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/toold/toold/exec"
)

// DefaultLimit is how many processes of one session may run at once.
const DefaultLimit = 16

// keepExited is how many exited processes a table keeps beyond its running
// ones; past it the oldest exited is forgotten (its spools stay with the
// session).
const keepExited = 64

var (
	// ErrLimit is Start's error when the session already runs its limit.
	ErrLimit = errors.New("too many background processes")
	// ErrNotFound is the error for an id the table does not hold.
	ErrNotFound = errors.New("no such process")
	// ErrClosed is Start's error after Close.
	ErrClosed = errors.New("the session's processes are closed")
	// ErrTerminals is Start's error when the session already runs
	// MaxTerminals processes on terminals.
	ErrTerminals = errors.New("too many terminals")
)

// MaxTerminals is how many processes of one session may run on a terminal
// of their own at once.
const MaxTerminals = 8

// Table is one session's background processes. Its methods are safe for
// concurrent use.
type Table struct {
	runner *exec.Runner
	limit  int

	ctx    context.Context // ends every process
	cancel context.CancelFunc
	wg     sync.WaitGroup // one per Run

	mu     sync.Mutex
	closed bool
	procs  map[string]*Proc
	order  []*Proc // by start
}

// NewTable returns an empty table whose processes r runs, at most limit at
// once (0 means DefaultLimit).
func NewTable(r *exec.Runner, limit int) *Table {
	if limit <= 0 {
		limit = DefaultLimit
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Table{runner: r, limit: limit, ctx: ctx, cancel: cancel, procs: make(map[string]*Proc)}
}

// Start runs spec in the background and returns once the command runs, or
// with the error of a command that could not start (wrapping exec.ErrStart),
// ErrLimit or ErrClosed. command is what List shows. Start sets spec's
// Observer, KeepStdin and SpoolAll; spec.Spool must be set for the
// output to be readable. A non-nil stdin is written first.
func (t *Table) Start(spec exec.Spec, command string, stdin *string) (*Proc, error) {
	p := &Proc{
		ID:        newID(),
		Command:   command,
		StartedAt: time.Now(),
		TTY:       spec.TTY != nil,
		started:   make(chan struct{}),
		done:      make(chan struct{}),
	}
	p.lastOutput = p.StartedAt
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return nil, ErrClosed
	}
	t.pruneLocked()
	if n := t.runningLocked(); n >= t.limit {
		t.mu.Unlock()
		return nil, fmt.Errorf("%w: %d of %d run; wait for one or kill one (process/list shows them)", ErrLimit, n, t.limit)
	}
	if n := t.terminalsLocked(); p.TTY && n >= MaxTerminals {
		t.mu.Unlock()
		return nil, fmt.Errorf("%w: %d of %d open; end one (process/kill; process/list shows them)", ErrTerminals, n, MaxTerminals)
	}
	t.procs[p.ID] = p // holds its place under the limit from now
	t.order = append(t.order, p)
	t.wg.Add(2) // its Run and its watch
	t.mu.Unlock()

	var ctx context.Context
	ctx, p.cancel = context.WithCancel(t.ctx)
	spec.Observer = p
	spec.KeepStdin = true
	spec.SpoolAll = true
	if open := spec.Spool; open != nil {
		spec.Spool = func(stream string) (exec.SpoolFile, error) {
			f, err := open(stream)
			if err == nil {
				p.setSpool(stream, f)
			}
			return f, err
		}
	}
	go func() {
		defer t.wg.Done()
		res, err := t.runner.Run(ctx, spec)
		p.finish(res, err)
	}()
	go func() {
		defer t.wg.Done()
		p.watch()
	}()
	select {
	case <-p.started:
	case <-p.done:
		if p.startErr != nil {
			t.remove(p)
			return nil, p.startErr
		}
	}
	if stdin != nil && *stdin != "" {
		if _, err := p.Write(context.Background(), *stdin, false); err != nil {
			return p, nil // it exited first: its status says so
		}
	}
	return p, nil
}

// terminalsLocked counts the running processes on a terminal.
func (t *Table) terminalsLocked() int {
	n := 0
	for _, p := range t.procs {
		if p.TTY && p.Running() {
			n++
		}
	}
	return n
}

func (t *Table) runningLocked() int {
	n := 0
	for _, p := range t.procs {
		if p.Running() {
			n++
		}
	}
	return n
}

// Forget drops the process id names from the table, as when the caller
// has had its whole result and never gave out its id.
func (t *Table) Forget(id string) {
	if p, err := t.Get(id); err == nil {
		t.remove(p)
	}
}

// remove forgets p.
func (t *Table) remove(p *Proc) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.procs, p.ID)
	for i, q := range t.order {
		if q == p {
			t.order = append(t.order[:i], t.order[i+1:]...)
			break
		}
	}
}

// Get returns the process id names, or ErrNotFound.
func (t *Table) Get(id string) (*Proc, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p, ok := t.procs[id]
	if !ok {
		return nil, fmt.Errorf("%w: %q (ids belong to the session that started them)", ErrNotFound, id)
	}
	return p, nil
}

// Info is one line of List.
type Info struct {
	ID        string
	Command   string
	Running   bool
	ExitCode  *int
	Signal    *string
	StartedAt time.Time
	TTY       bool
	// Waiting is set while it waits for input.
	Waiting *Waiting
}

// List returns the table's processes, oldest first, and forgets the oldest
// exited ones past keepExited.
func (t *Table) List() []Info {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.pruneLocked()
	out := make([]Info, 0, len(t.order))
	for _, p := range t.order {
		in := Info{ID: p.ID, Command: p.Command, StartedAt: p.StartedAt, Running: true, TTY: p.TTY, Waiting: p.WaitingForInput()}
		if res := p.Result(); res != nil {
			in.Running, in.ExitCode, in.Signal = false, res.ExitCode, res.Signal
		}
		out = append(out, in)
	}
	return out
}

// pruneLocked forgets the oldest exited processes past keepExited.
func (t *Table) pruneLocked() {
	exited := len(t.order) - t.runningLocked()
	for i := 0; exited > keepExited && i < len(t.order); {
		p := t.order[i]
		if p.Running() {
			i++
			continue
		}
		delete(t.procs, p.ID)
		t.order = append(t.order[:i], t.order[i+1:]...)
		exited--
	}
}

// Close ends every process (its group gets SIGTERM, then SIGKILL after 2 s)
// and returns once all have exited and their output is read. Start fails
// after it; the exited processes stay readable.
func (t *Table) Close() {
	t.mu.Lock()
	t.closed = true
	t.mu.Unlock()
	t.cancel()
	t.wg.Wait()
}

func newID() string {
	b := make([]byte, 8)
	rand.Read(b)
	return "p" + hex.EncodeToString(b)
}
