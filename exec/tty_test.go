package exec_test

import (
	"context"
	"net"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toold/toold/exec"
	"github.com/toold/toold/internal/testenv"
	"github.com/toold/toold/sandbox"
)

// inputObserver records a command's Input, its stdin and its output.
type inputObserver struct {
	mu      sync.Mutex
	in      *exec.Input
	stdin   *os.File
	out     strings.Builder
	started chan struct{}
}

func newInputObserver() *inputObserver { return &inputObserver{started: make(chan struct{})} }

func (o *inputObserver) Input(in *exec.Input) {
	o.mu.Lock()
	o.in = in
	o.mu.Unlock()
}

func (o *inputObserver) Started(pgid int, stdin *os.File) {
	o.mu.Lock()
	o.stdin = stdin
	o.mu.Unlock()
	close(o.started)
}

func (o *inputObserver) Output(stream string, p []byte) {
	o.mu.Lock()
	o.out.Write(p)
	o.mu.Unlock()
}

func (o *inputObserver) output() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.out.String()
}

// waitingWithin polls in.Waiting until it is true or d has passed.
func waitingWithin(in *exec.Input, d time.Duration) bool { return testenv.Until(d, in.Waiting) }

// runBackground starts spec (with o as its observer and stdin kept open)
// and returns a channel closed once it has returned, and its result.
func runBackground(t *testing.T, r *exec.Runner, spec exec.Spec, o *inputObserver) (<-chan struct{}, func() *exec.Result) {
	t.Helper()
	spec.Observer, spec.KeepStdin, spec.Output = o, true, defaults
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	var res *exec.Result
	go func() {
		defer close(done)
		var err error
		if res, err = r.Run(ctx, spec); err != nil {
			t.Errorf("run: %v", err)
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
	select {
	case <-o.started:
	case <-time.After(10 * time.Second):
		t.Fatal("not started")
	}
	return done, func() *exec.Result { <-done; return res }
}

// TestTerminal: a command with TTY runs on a terminal of the size asked
// (its controlling terminal: /dev/tty opens), stderr comes as stdout, and
// lines end as the program wrote them (no \r\n from the terminal); in a
// sandbox too, where its session's launcher starts it.
func TestTerminal(t *testing.T) {
	t.Parallel()
	t.Run("plain", func(t *testing.T) { terminal(t, nil) })
	t.Run("sandboxed", func(t *testing.T) {
		if runtime.GOOS != "linux" || testenv.Portable {
			t.Skip("the sandbox needs Linux")
		}
		terminal(t, testPolicy(t, t.TempDir()))
	})
}

func terminal(t *testing.T, pol *sandbox.Policy) {
	r := newRunner(t)
	res, err := r.Run(context.Background(), exec.Spec{
		Command: `tty; stty size; echo out; echo err >&2; echo direct > /dev/tty; [ -t 0 ] && [ -t 1 ] && [ -t 2 ] && echo all-tty`,
		TTY:     &exec.Terminal{Cols: 91, Rows: 17}, Output: defaults, Timeout: 20 * time.Second, Sandbox: pol,
	})
	if err != nil {
		t.Fatal(err)
	}
	out := res.Stdout.Head
	for _, want := range []string{"/dev/pts/", "\n17 91\n", "\nout\n", "\nerr\n", "\ndirect\n", "\nall-tty\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%q", want, out)
		}
	}
	if strings.Contains(out, "\r") || res.Stderr.TotalBytes != 0 || res.ExitCode == nil || *res.ExitCode != 0 {
		t.Errorf("result: exit %v, stdout %q, stderr %d bytes", res.ExitCode, out, res.Stderr.TotalBytes)
	}
}

// TestTerminalLastOutput: what a command prints just before it exits is
// read from the terminal whole, every time.
func TestTerminalLastOutput(t *testing.T) {
	t.Parallel()
	r := newRunner(t)
	for i := range testenv.Size(20, 200) {
		res, err := r.Run(context.Background(), exec.Spec{Command: "seq 1 3000", TTY: &exec.Terminal{Cols: 80, Rows: 24}, Output: defaults})
		if err != nil {
			t.Fatal(err)
		}
		if res.Stdout.TotalLines != 3000 {
			t.Fatalf("run %d: %d lines of 3000", i, res.Stdout.TotalLines)
		}
	}
}

// TestWaitingForInput: the probe says a command waits for input when it
// reads its terminal or its stdin pipe (itself, through /dev/tty, in a
// grandchild, in a full-screen program), and never for a sleep, a busy
// loop, a read of a sibling's pipe or a network wait.
func TestWaitingForInput(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the probe reads Linux's /proc")
	}
	cases := []struct {
		name, command string
		tty, waits    bool
	}{
		{"read on a terminal", `read -p "Name: " x; echo "got $x"`, true, true},
		{"read on a pipe", `read x; echo "got $x"`, false, true},
		{"/dev/tty", `read -p "Name: " x < /dev/tty; echo "got $x"`, true, true},
		{"grandchild", `bash -c 'bash -c "read -p Name: x; echo got \$x"'; echo done`, true, true},
		{"grandchild on a pipe", `bash -c 'bash -c "read x; echo got \$x"'; echo done`, false, true},
		{"after output", `seq 1 5000; read -p "Name: " x; echo "got $x"`, true, true},
		{"command substitution", `x=$(head -n1); echo "got $x"`, true, true},
		{"command substitution on a pipe", `x=$(head -n1); echo "got $x"`, false, true},
		{"piped into cat", `{ read -p "Name: " x; echo "got $x"; } | cat`, true, true},
		{"piped into tee on a pipe", `{ read x; echo "got $x"; } | tee /dev/null`, false, true},
		{"a pipeline's writer sleeps", `{ sleep 30; echo late; } | { read x; cat; }`, false, false},
		{"sleep", `sleep 30`, true, false},
		{"sleep on a pipe", `sleep 30`, false, false},
		// A busy loop (running, not asleep in a read) burns a CPU for
		// the whole second the check watches: TOOLD_LONG=1 runs it; the
		// quick run keeps the sleepers, not waiting for input either.
		{"busy loop", `while :; do :; done`, true, false},
		{"sleep | cat", `sleep 30 | cat`, true, false},
		{"sleep | cat on a pipe", `sleep 30 | cat`, false, false},
		{"a reader beside a sleeper", `sleep 30 & read x; wait`, false, false},
		// The sleeper's parent is gone: it is the subreaper's child (the
		// test binary's, reaptest), still of the group.
		{"a reader beside an orphan", `(sleep 30 &); read x`, true, false},
		{"network read", `exec 3<>/dev/tcp/127.0.0.1/PORT; read -u 3 x`, true, false},
		{"network read on a pipe", `exec 3<>/dev/tcp/127.0.0.1/PORT; read -u 3 x`, false, false},
	}
	// A server that accepts and never writes: the network wait's peer.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { c.Close() })
		}
	}()
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.name == "busy loop" {
				testenv.SkipUnlessLong(t, "a busy loop does not wait for input")
			}
			t.Parallel()
			r := newRunner(t)
			o := newInputObserver()
			spec := exec.Spec{Command: strings.ReplaceAll(c.command, "PORT", port)}
			if c.tty {
				spec.TTY = &exec.Terminal{Cols: 80, Rows: 24}
			}
			done, result := runBackground(t, r, spec, o)
			if o.in == nil {
				t.Fatal("no Input")
			}
			if o.in.Terminal() != c.tty {
				t.Fatalf("Terminal() = %v", o.in.Terminal())
			}
			if !c.waits {
				if waitingWithin(o.in, testenv.Size(time.Second, 10*time.Second)) {
					t.Fatalf("called waiting: %q", o.output())
				}
				return
			}
			if !waitingWithin(o.in, 10*time.Second) {
				t.Fatalf("not waiting: %q", o.output())
			}
			if _, err := o.stdin.WriteString("bob\n"); err != nil {
				t.Fatal(err)
			}
			select {
			case <-done:
				if res := result(); !strings.Contains(o.output(), "got bob") || res.ExitCode == nil || *res.ExitCode != 0 {
					t.Fatalf("exit %v, output %q", res.ExitCode, o.output())
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("no exit after the answer: %q", o.output())
			}
			if o.in.Waiting() {
				t.Fatal("waiting after the exit")
			}
		})
	}
}

// TestTerminalResizeAndEcho: Resize reaches the command as SIGWINCH and a
// new size; Echo is false while a password prompt reads.
func TestTerminalResizeAndEcho(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the probe reads Linux's /proc")
	}
	t.Parallel()
	r := newRunner(t)
	o := newInputObserver()
	done, _ := runBackground(t, r, exec.Spec{
		Command: `trap 'echo "size $(stty size)"' WINCH; read -p "go: " x; stty -echo; read -p "secret: " s; stty echo; echo; echo "len ${#s}"`,
		TTY:     &exec.Terminal{Cols: 80, Rows: 24},
	}, o)
	if !waitingWithin(o.in, 10*time.Second) || !o.in.Echo() {
		t.Fatalf("first prompt: waiting %v echo %v: %q", o.in.Waiting(), o.in.Echo(), o.output())
	}
	if err := o.in.Resize(100, 30); err != nil {
		t.Fatal(err)
	}
	o.stdin.WriteString("x\n")
	if !testenv.Until(10*time.Second, func() bool { return strings.Contains(o.output(), "secret: ") }) {
		t.Fatalf("no second prompt: %q", o.output())
	}
	if !waitingWithin(o.in, 10*time.Second) || o.in.Echo() {
		t.Fatalf("password prompt: waiting %v echo %v", o.in.Waiting(), o.in.Echo())
	}
	o.stdin.WriteString("hunter2\n")
	<-done
	out := o.output()
	if !strings.Contains(out, "size 30 100") || !strings.Contains(out, "len 7") || strings.Contains(out, "hunter2") {
		t.Fatalf("output %q", out)
	}
	if err := o.in.Resize(10, 10); err == nil {
		t.Error("Resize after the exit: no error")
	}
}
