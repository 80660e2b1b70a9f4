package process_test

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/toold/toold/exec"
	"github.com/toold/toold/internal/testenv"
	"github.com/toold/toold/process"
)

// TestWaitingForInput: a process is found waiting at its prompt (on a
// terminal and on its stdin pipe), a wait returns "input", a write clears
// it until the next prompt, and a process that prints, sleeps or computes
// is never found waiting.
func TestWaitingForInput(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("found through Linux's /proc")
	}
	// Parallel: its cases mostly wait (1.5 s for each that must not be
	// found waiting), which held the package's serial slot.
	t.Parallel()
	for _, tty := range []bool{true, false} {
		t.Run(map[bool]string{true: "tty", false: "pipe"}[tty], func(t *testing.T) {
			t.Parallel()
			tb, spec := newTable(t, 0)
			s := spec(`echo start; read -p "first? " a; read -p "second? " b; echo "got $a $b"`)
			if tty {
				s.TTY = &exec.Terminal{Cols: 80, Rows: 24}
			}
			p := start(t, tb, s)
			if p.TTY != tty {
				t.Fatalf("TTY %v", p.TTY)
			}
			if r := wait(t, p, process.Until{Timeout: failAfter}); r != process.ReasonInput {
				t.Fatalf("first wait: %q", r)
			}
			w := p.WaitingForInput()
			// bash prints read's prompt only when it reads a terminal.
			if w == nil || tty && w.Prompt != "first? " || !tty && w.Prompt != "start" || !w.Echo || time.Since(w.Since) > failAfter {
				t.Fatalf("waiting: %+v", w)
			}
			if _, err := p.Write(context.Background(), "1\n", false); err != nil {
				t.Fatal(err)
			}
			if p.WaitingForInput() != nil {
				t.Fatal("still waiting after the write")
			}
			if r := wait(t, p, process.Until{Timeout: failAfter}); r != process.ReasonInput {
				t.Fatalf("second wait: %q", r)
			}
			if w := p.WaitingForInput(); tty && w.Prompt != "second? " {
				t.Fatalf("second prompt: %+v", w)
			}
			p.Write(context.Background(), "2\n", false)
			if r := wait(t, p, process.Until{Timeout: failAfter}); r != process.ReasonExit || p.WaitingForInput() != nil {
				t.Fatalf("last wait: %q %+v", r, p.WaitingForInput())
			}
		})
	}
	// The busy loop burns a CPU for the 1.5 s of its wait: TOOLD_LONG=1
	// runs it; the quick run keeps the sleepers and the writer, which do
	// not wait for input either.
	busy := "while :; do :; done"
	for _, command := range []string{"sleep 30", busy, "sleep 30 | cat", "while :; do echo x; sleep 0.05; done"} {
		t.Run(command, func(t *testing.T) {
			if command == busy {
				testenv.SkipUnlessLong(t, "a busy loop does not wait for input")
			}
			t.Parallel()
			tb, spec := newTable(t, 0)
			p := start(t, tb, spec(command))
			if r := wait(t, p, process.Until{Timeout: 1500 * time.Millisecond}); r != process.ReasonTimeout {
				t.Fatalf("wait: %q", r)
			}
		})
	}
}

// TestTerminalLimit: a session runs at most MaxTerminals processes on
// terminals; an exited one frees its place, and pipes do not count.
func TestTerminalLimit(t *testing.T) {
	t.Parallel()
	tb, spec := newTable(t, 0)
	s := spec("sleep 30")
	s.TTY = &exec.Terminal{Cols: 80, Rows: 24}
	var ps []*process.Proc
	for range process.MaxTerminals {
		ps = append(ps, start(t, tb, s))
	}
	if _, err := tb.Start(s, "one more", nil); !errors.Is(err, process.ErrTerminals) {
		t.Fatalf("past the limit: %v", err)
	}
	start(t, tb, spec("sleep 30")) // no terminal
	ctx, cancel := context.WithTimeout(context.Background(), failAfter)
	defer cancel()
	if _, err := ps[0].Kill(ctx, 0); err != nil {
		t.Fatal(err)
	}
	p := start(t, tb, s)
	if err := p.Resize(100, 0); err != nil {
		t.Fatalf("resize: %v", err)
	}
	if err := ps[0].Resize(100, 30); !errors.Is(err, process.ErrExited) {
		t.Fatalf("resize of an exited process: %v", err)
	}
	plain := start(t, tb, spec("sleep 30"))
	if err := plain.Resize(100, 30); !errors.Is(err, process.ErrNoTerminal) {
		t.Fatalf("resize without a terminal: %v", err)
	}
	if !strings.Contains(errString(tb, s), "8 of 8") {
		t.Error("the limit's error does not count")
	}
}

func errString(tb *process.Table, s exec.Spec) string {
	_, err := tb.Start(s, "x", nil)
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestTypedEnter: "\n" written to a terminal arrives as the Enter key's
// "\r" to a program in raw mode, and as "\n" to one that reads lines.
func TestTypedEnter(t *testing.T) {
	t.Parallel()
	tb, spec := newTable(t, 0)
	s := spec(`read -p "line? " l; echo "[$l]"; stty raw -echo; c=$(head -c1); stty sane; printf 'raw[%q]\n' "$c"`)
	s.TTY = &exec.Terminal{Cols: 80, Rows: 24}
	p := start(t, tb, s)
	for _, answer := range []string{"cooked\n", "\n"} {
		if r := wait(t, p, process.Until{Timeout: failAfter}); r != process.ReasonInput {
			t.Fatalf("wait before %q: %q", answer, r)
		}
		p.Write(context.Background(), answer, false)
	}
	wait(t, p, process.Until{Timeout: failAfter})
	o, err := p.Read(&process.Cursor{}, 1<<20, nil)
	if err != nil {
		t.Fatal(err)
	}
	if out := string(o.Stdout.Head); !strings.Contains(out, "[cooked]") || !strings.Contains(out, `raw[$'\r']`) {
		t.Fatalf("%q", out)
	}
}
