package process

import (
	"strings"
	"time"
)

// A process waits for input when it has printed nothing for quietFor and
// the kernel says every process of its group that is not stopped is
// blocked reading its terminal or its stdin pipe (exec.Input.Waiting),
// twice probeEvery apart with no output or write between: within about
// quietFor + 2*probeEvery (0.5 s) of its prompt, well inside the 2 s the
// contract allows.
//
// Nothing is probed while output flows: a busy command costs a ticker and
// a look at the time of its last output. A quiet one costs a probe every
// probeEvery, a few reads of /proc per process of its group (tens of
// microseconds for a shell and its child, about a millisecond under
// -race); once it has been quiet for slowAfter, every probeSlow: a quiet
// server or a sleep is then a probe a second, and a read it starts that
// late without a prompt is still found within about 2 s.
const (
	quietFor   = 300 * time.Millisecond
	probeEvery = 100 * time.Millisecond
	slowAfter  = 2 * time.Second
	probeSlow  = time.Second
)

// Waiting says that a process waits for input.
type Waiting struct {
	// Prompt is its last line of output, whole or not, cleaned and
	// clipped (what exec.Meter shows as the newest line).
	Prompt string
	// Since is when it went quiet: its last output, or the last write.
	Since time.Time
	// Echo is false when its terminal does not echo what is typed (a
	// password prompt).
	Echo bool
}

// WaitingForInput returns how the process waits for input, or nil when it
// does not (or is not known to).
func (p *Proc) WaitingForInput() *Waiting {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.waiting
}

// Resize sets the size of the process's terminal: ErrNoTerminal without
// one, ErrExited once it has exited.
func (p *Proc) Resize(cols, rows int) error {
	p.mu.Lock()
	in, exited := p.input, p.result != nil
	p.mu.Unlock()
	switch {
	case !p.TTY || in == nil || !in.Terminal():
		return ErrNoTerminal
	case exited:
		return ErrExited
	}
	if err := in.Resize(cols, rows); err != nil {
		return ErrExited // the terminal closed as it exited
	}
	return nil
}

// wrote notes a write: the process no longer waits, and its quiet starts
// now.
func (p *Proc) wrote() {
	p.mu.Lock()
	p.lastWrite = time.Now()
	p.waiting = nil
	p.mu.Unlock()
}

// watch probes the process while it runs, and sets p.waiting when it
// waits for input. It returns at the exit.
func (p *Proc) watch() {
	t := time.NewTicker(probeEvery)
	defer t.Stop()
	var confirm time.Time // the quiet that the last probe found waiting
	var probed time.Time  // the last probe
	for {
		select {
		case <-p.done:
			return
		case <-t.C:
		}
		p.mu.Lock()
		in, since, known := p.input, p.lastOutput, p.waiting != nil
		if p.lastWrite.After(since) {
			since = p.lastWrite
		}
		p.mu.Unlock()
		quiet := time.Since(since)
		if quiet > slowAfter && time.Since(probed) < probeSlow {
			continue
		}
		if in == nil || known || quiet < quietFor {
			confirm = time.Time{}
			continue
		}
		probed = time.Now()
		if !in.Waiting() {
			confirm = time.Time{}
			continue
		}
		if !confirm.Equal(since) {
			confirm = since // once more, quiet all along, to be sure
			continue
		}
		w := &Waiting{Prompt: p.Meter.Snapshot().LastLine, Since: since, Echo: in.Echo()}
		p.mu.Lock()
		last := p.lastOutput
		if p.lastWrite.After(last) {
			last = p.lastWrite
		}
		if last.Equal(since) && p.result == nil {
			p.waiting = w
			p.notifyLocked()
		}
		p.mu.Unlock()
	}
}

// eof is what a terminal takes for the end of input: Ctrl-D (VEOF), at
// the start of a line.
const eof = "\x04"

// typed is s as typed on a terminal: Enter sends "\r" (which the line
// discipline turns into "\n" for a program reading lines, ICRNL), so a
// "\n" is sent as "\r", and "\r\n" as one "\r". A program in raw mode
// (a full-screen one, a prompt library) then sees the Enter key it waits
// for.
func typed(s string) string {
	if !strings.Contains(s, "\n") {
		return s
	}
	s = strings.ReplaceAll(s, "\r\n", "\r")
	return strings.ReplaceAll(s, "\n", "\r")
}

// typedLen is how many bytes of s the first n bytes of typed(s) stand for.
func typedLen(s string, n int) int {
	i := 0
	for k := 0; k < n && i < len(s); k++ {
		if s[i] == '\r' && i+1 < len(s) && s[i+1] == '\n' {
			i++ // "\r\n" was typed as one "\r"
		}
		i++
	}
	return i
}
