package process_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toold/toold/exec"
	"github.com/toold/toold/internal/testenv"
	"github.com/toold/toold/process"
	"github.com/toold/toold/spool"
)

// failAfter bounds every wait, so that a bug fails instead of hanging.
const failAfter = 30 * time.Second

// withOutput gives spec the default preview budgets.
func withOutput(spec exec.Spec) exec.Spec {
	spec.Output.MaxLines, spec.Output.MaxBytes, spec.Output.Clean = 2000, 51200, true
	return spec
}

// newTable returns a table whose processes spool to a fresh directory.
func newTable(t testing.TB, limit int) (*process.Table, func(cmd string) exec.Spec) {
	t.Helper()
	r := exec.NewRunner(nil)
	m, err := spool.NewManager(filepath.Join(t.TempDir(), "spool"))
	if err != nil {
		t.Fatal(err)
	}
	d, err := m.Open("s")
	if err != nil {
		t.Fatal(err)
	}
	tb := process.NewTable(r, limit)
	t.Cleanup(func() {
		tb.Close()
		r.Close()
		m.Close()
	})
	spec := func(cmd string) exec.Spec {
		return withOutput(exec.Spec{Command: cmd, Spool: func(stream string) (exec.SpoolFile, error) {
			return d.Create(stream)
		}})
	}
	return tb, spec
}

func start(t testing.TB, tb *process.Table, spec exec.Spec) *process.Proc {
	t.Helper()
	p, err := tb.Start(spec, spec.Command, nil)
	if err != nil {
		t.Fatalf("start %q: %v", spec.Command, err)
	}
	return p
}

func wait(t testing.TB, p *process.Proc, u process.Until) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), failAfter)
	defer cancel()
	r, err := p.Wait(ctx, u)
	if err != nil {
		t.Fatalf("wait: %v", err)
	}
	return r
}

// whole returns a span's bytes, which the tests keep short enough to be
// held whole (Head == Tail).
func whole(t testing.TB, sp process.Span) string {
	t.Helper()
	if int64(len(sp.Head)) != sp.To-sp.From-sp.Lost {
		t.Fatalf("span %d-%d holds %d bytes: not whole", sp.From, sp.To, len(sp.Head))
	}
	return string(sp.Head)
}

// TestFastExit: a process that is gone within milliseconds of its start
// still reports its status and both streams.
func TestFastExit(t *testing.T) {
	t.Parallel() // a table of its own
	tb, spec := newTable(t, 0)
	for i := range 20 {
		p := start(t, tb, spec(fmt.Sprintf("echo out%d; echo err%d >&2; exit %d", i, i, i%4+1)))
		if r := wait(t, p, process.Until{}); r != process.ReasonExit {
			t.Fatalf("reason %q", r)
		}
		res := p.Result()
		if res == nil || res.ExitCode == nil || *res.ExitCode != i%4+1 || res.Stderr.Head != fmt.Sprintf("err%d\n", i) {
			t.Fatalf("result %+v", res)
		}
		out, err := p.Read(nil, 1<<16, nil)
		if err != nil {
			t.Fatal(err)
		}
		if whole(t, out.Stdout) != fmt.Sprintf("out%d\n", i) || whole(t, out.Stderr) != fmt.Sprintf("err%d\n", i) || out.Result == nil {
			t.Fatalf("read %+v", out)
		}
		// The status stays: a second read returns it with nothing new.
		out, err = p.Read(nil, 1<<16, nil)
		if err != nil || out.Stdout.To != out.Stdout.From || out.Result == nil {
			t.Fatalf("second read %+v, %v", out, err)
		}
	}
	if got := len(tb.List()); got != 20 {
		t.Fatalf("list has %d, want the 20 exited", got)
	}
}

// TestStartFails: a command that cannot start leaves no entry.
func TestStartFails(t *testing.T) {
	t.Parallel() // a table of its own
	tb, spec := newTable(t, 0)
	s := spec("")
	s.Argv = []string{"/no/such/command"}
	if _, err := tb.Start(s, "x", nil); !errors.Is(err, exec.ErrStart) {
		t.Fatalf("err %v, want ErrStart", err)
	}
	if len(tb.List()) != 0 {
		t.Fatalf("list %+v", tb.List())
	}
	if _, err := tb.Get("p0123"); !errors.Is(err, process.ErrNotFound) {
		t.Fatalf("get: %v", err)
	}
}

// readAllOnce reads p at random moments until it has exited and its
// output is all read, and returns what the reads gave, concatenated.
func readAllOnce(t testing.TB, p *process.Proc, rng *rand.Rand) (stdout, stderr string, reads int) {
	var o, e strings.Builder
	for {
		time.Sleep(time.Duration(rng.IntN(30)) * time.Millisecond)
		out, err := p.Read(nil, 1<<20, nil)
		if err != nil {
			t.Fatal(err)
		}
		o.WriteString(whole(t, out.Stdout))
		e.WriteString(whole(t, out.Stderr))
		reads++
		if out.Result != nil {
			return o.String(), e.String(), reads
		}
	}
}

// FuzzReadCursors: whatever the timing of the reads and of the output,
// reads that follow one another give every byte exactly once.
func FuzzReadCursors(f *testing.F) {
	for _, seed := range []uint64{1, 2, 3} {
		f.Add(seed)
	}
	tb, spec := newTable(f, 0)
	// 20 lines a stream in the quick run, 40 with TOOLD_LONG=1: the pauses
	// took half a second a seed.
	lines := testenv.Size(20, 40)
	f.Fuzz(func(t *testing.T, seed uint64) {
		t.Parallel() // the seeds wait on their commands' pauses: they overlap
		rng := rand.New(rand.NewPCG(seed, seed>>32))
		// Lines on both streams, in bursts and pauses, some without newlines.
		cmd := fmt.Sprintf(`for i in $(seq 1 %d); do printf "o$i\n"; printf "e$i" >&2; [ $((i %% %d)) = 0 ] && sleep 0.0$((i %% 7)); printf '\n' >&2; done; printf tail`, lines, 2+rng.IntN(5))
		p := start(t, tb, spec(cmd))
		o, e, reads := readAllOnce(t, p, rng)
		var wantO, wantE strings.Builder
		for i := 1; i <= lines; i++ {
			fmt.Fprintf(&wantO, "o%d\n", i)
			fmt.Fprintf(&wantE, "e%d\n", i)
		}
		wantO.WriteString("tail")
		if o != wantO.String() || e != wantE.String() {
			t.Fatalf("after %d reads:\nstdout %q\nstderr %q", reads, o, e)
		}
	})
}

// TestReadSince: an explicit cursor reads again from there; one past the
// output is refused.
func TestReadSince(t *testing.T) {
	t.Parallel() // a table of its own
	tb, spec := newTable(t, 0)
	p := start(t, tb, spec(`printf 'abc\ndef\n'; printf 'x' >&2`))
	wait(t, p, process.Until{})
	all, err := p.Read(nil, 1<<16, nil)
	if err != nil || all.To != (process.Cursor{Stdout: 8, Stderr: 1}) {
		t.Fatalf("read %+v %v", all, err)
	}
	c, err := process.ParseCursor("4:0")
	if err != nil {
		t.Fatal(err)
	}
	out, err := p.Read(&c, 1<<16, nil)
	if err != nil || whole(t, out.Stdout) != "def\n" || whole(t, out.Stderr) != "x" || out.Stdout.Lines != 1 {
		t.Fatalf("since 4:0: %+v %v", out, err)
	}
	bad := process.Cursor{Stdout: 9}
	if _, err := p.Read(&bad, 1<<16, nil); !errors.Is(err, process.ErrCursor) {
		t.Fatalf("past the end: %v", err)
	}
	for _, s := range []string{"", "1", "a:b", "-1:0", "1:2:3"} {
		if _, err := process.ParseCursor(s); err == nil {
			t.Errorf("ParseCursor(%q) accepted", s)
		}
	}
	if c.String() != "4:0" {
		t.Errorf("String %q", c)
	}
}

// TestLongSpan: a span larger than twice keep is read as head, tail and a
// line count, from a spool that grows while the process runs.
func TestLongSpan(t *testing.T) {
	t.Parallel() // a table of its own
	tb, spec := newTable(t, 0)
	p := start(t, tb, spec(`seq 1 100000; sleep 30`))
	ctx, cancel := context.WithTimeout(context.Background(), failAfter)
	defer cancel()
	if r, _ := p.Wait(ctx, process.Until{Pattern: regexp.MustCompile(`^100000$`)}); r != process.ReasonPattern {
		t.Fatalf("reason %q", r)
	}
	out, err := p.Read(nil, 4096, nil)
	if err != nil {
		t.Fatal(err)
	}
	if out.Result != nil || out.Stdout.Lines != 100000 || out.Stdout.To != 588895 || len(out.Stdout.Head) != 4096 ||
		!bytes.HasPrefix(out.Stdout.Head, []byte("1\n2\n")) || !bytes.HasSuffix(out.Stdout.Tail, []byte("99999\n100000\n")) {
		t.Fatalf("span lines %d to %d head %q... tail ...%q", out.Stdout.Lines, out.Stdout.To, out.Stdout.Head[:8], out.Stdout.Tail[len(out.Stdout.Tail)-13:])
	}
	if b, err := os.ReadFile(out.Stdout.SpoolPath); err != nil || len(b) != 588895 {
		t.Fatalf("spool of the running process: %d bytes, %v", len(b), err)
	}
}

func TestWait(t *testing.T) {
	t.Parallel() // waits on processes of its own
	cases := []struct {
		name, cmd string
		until     process.Until
		want      string
	}{
		{"exit", `echo a; sleep 0.2`, process.Until{}, process.ReasonExit},
		{"pattern", `echo starting; sleep 0.3; echo 'ready on port 8123'; sleep 30`,
			process.Until{Pattern: regexp.MustCompile(`ready on port \d+`)}, process.ReasonPattern},
		{"pattern before the wait", `echo 'ready now'; sleep 30`,
			process.Until{Pattern: regexp.MustCompile(`^ready`), Idle: 20 * time.Second}, process.ReasonPattern},
		{"pattern on stderr, cleaned", `sleep 0.1; printf '\033[32mListening\033[0m\n' >&2; sleep 30`,
			process.Until{Pattern: regexp.MustCompile(`^Listening$`)}, process.ReasonPattern},
		{"prompt without a newline", `printf 'name? '; sleep 30`,
			process.Until{Pattern: regexp.MustCompile(`name\? $`)}, process.ReasonPattern},
		{"pattern printed just before exit wins", `echo done-marker`,
			process.Until{Pattern: regexp.MustCompile(`done-marker`)}, process.ReasonPattern},
		{"idle", `echo a; sleep 0.1; echo b; sleep 30`, process.Until{Idle: 300 * time.Millisecond}, process.ReasonIdle},
		{"timeout", `while :; do echo tick; sleep 0.05; done`,
			process.Until{Idle: 5 * time.Second, Timeout: 300 * time.Millisecond, Pattern: regexp.MustCompile(`never`)}, process.ReasonTimeout},
	}
	tb, spec := newTable(t, 0)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel() // the waits overlap
			p := start(t, tb, spec(c.cmd))
			defer p.Kill(context.Background(), 0)
			if c.name == "pattern printed just before exit wins" {
				<-p.Done()
			}
			if got := wait(t, p, c.until); got != c.want {
				t.Fatalf("reason %q, want %q", got, c.want)
			}
		})
	}
}

// TestWriteAndPrompt: a prompt waited for, answered, and stdin closed.
func TestWriteAndPrompt(t *testing.T) {
	t.Parallel() // a table of its own
	tb, spec := newTable(t, 0)
	p := start(t, tb, spec(`printf 'name? '; read n; echo "hi $n"; cat; echo end`))
	if r := wait(t, p, process.Until{Pattern: regexp.MustCompile(`name\?`)}); r != process.ReasonPattern {
		t.Fatal(r)
	}
	ctx := context.Background()
	if n, err := p.Write(ctx, "bob\n", false); n != 4 || err != nil {
		t.Fatalf("write: %d %v", n, err)
	}
	if r := wait(t, p, process.Until{Pattern: regexp.MustCompile(`hi bob$`)}); r != process.ReasonPattern {
		t.Fatal(r)
	}
	if _, err := p.Write(ctx, "via cat\n", true); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Write(ctx, "more", false); !errors.Is(err, process.ErrStdinClosed) && !errors.Is(err, process.ErrExited) {
		t.Fatalf("write after close: %v", err)
	}
	if r := wait(t, p, process.Until{}); r != process.ReasonExit {
		t.Fatal(r)
	}
	out, _ := p.Read(nil, 1<<16, nil)
	if got := whole(t, out.Stdout); got != "name? hi bob\nvia cat\nend\n" {
		t.Fatalf("stdout %q", got)
	}
	if _, err := p.Write(ctx, "x", false); !errors.Is(err, process.ErrExited) {
		t.Fatalf("write after exit: %v", err)
	}
}

// TestWriteBlocked: a process that does not read its stdin does not hold a
// write forever.
func TestWriteBlocked(t *testing.T) {
	t.Parallel() // a table of its own
	tb, spec := newTable(t, 0)
	p := start(t, tb, spec(`sleep 30`))
	defer p.Kill(context.Background(), 0)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	n, err := p.Write(ctx, strings.Repeat("x", 4<<20), false)
	if !errors.Is(err, context.DeadlineExceeded) || n >= 4<<20 {
		t.Fatalf("wrote %d, %v", n, err)
	}
	// The next write is not held by the last one's deadline.
	if n, err := p.Write(context.Background(), "", false); n != 0 || err != nil {
		t.Fatalf("empty write: %d %v", n, err)
	}
}

// TestKill: the three kinds of kill run in parallel, so that the one that
// waits out the kill delay (a signal the group ignores) overlaps the others.
func TestKill(t *testing.T) {
	t.Parallel() // waits on processes of its own
	tb, spec := newTable(t, 0)
	ctx := context.Background()
	t.Run("group", func(t *testing.T) {
		t.Parallel()
		p := start(t, tb, spec(`sleep 60 & echo $!; sleep 60`))
		wait(t, p, process.Until{Pattern: regexp.MustCompile(`^\d+$`)})
		out, _ := p.Read(nil, 1<<10, nil)
		var child int
		fmt.Sscan(whole(t, out.Stdout), &child)
		res, err := p.Kill(ctx, 0)
		if err != nil || res == nil || res.Signal == nil || *res.Signal != "SIGTERM" {
			t.Fatalf("kill: %+v %v", res, err)
		}
		if !testenv.Until(5*time.Second, func() bool { return !testenv.Alive(child) }) {
			t.Fatalf("the group's background child %d outlived the kill", child)
		}
	})
	t.Run("ignored signal", func(t *testing.T) {
		t.Parallel()
		// SIGINT ignored, so the group is ended after 2 s.
		p := start(t, tb, spec(`trap '' INT; echo armed; sleep 60`))
		wait(t, p, process.Until{Pattern: regexp.MustCompile(`armed`)})
		res, err := p.Kill(ctx, syscall.SIGINT)
		if err != nil || res.Signal == nil || *res.Signal != "SIGTERM" {
			t.Fatalf("kill SIGINT: %+v %v", res, err)
		}
	})
	t.Run("deadly signal", func(t *testing.T) {
		t.Parallel()
		p := start(t, tb, spec(`sleep 60`))
		res, err := p.Kill(ctx, syscall.SIGKILL)
		if err != nil || *res.Signal != "SIGKILL" {
			t.Fatalf("kill SIGKILL: %+v %v", res, err)
		}
		// Killing an exited process returns its status again.
		if res2, err := p.Kill(ctx, 0); err != nil || res2 != res {
			t.Fatalf("second kill: %+v %v", res2, err)
		}
	})
}

// TestLimit: the 17th running process is refused; an exit makes room.
func TestLimit(t *testing.T) {
	t.Parallel() // a table of its own
	tb, spec := newTable(t, 0)
	var procs []*process.Proc
	for range process.DefaultLimit {
		procs = append(procs, start(t, tb, spec(`sleep 60`)))
	}
	if _, err := tb.Start(spec(`true`), "true", nil); !errors.Is(err, process.ErrLimit) {
		t.Fatalf("17th: %v", err)
	}
	procs[3].Kill(context.Background(), 0)
	p := start(t, tb, spec(`true`))
	wait(t, p, process.Until{})
	start(t, tb, spec(`true`)) // exited ones do not count
	tb.Close()
	for _, in := range tb.List() {
		if in.Running {
			t.Fatalf("running after Close: %+v", in)
		}
	}
	if _, err := tb.Start(spec(`true`), "true", nil); !errors.Is(err, process.ErrClosed) {
		t.Fatalf("start after Close: %v", err)
	}
}

func fds(t testing.TB) int {
	es, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd")
	}
	return len(es)
}

// TestCloseLeavesNothing: tables full of running processes (each with a
// background child, and printing a line every 100 ms: the sleep a line
// forked every 10 ms before was half the test's CPU) end with Close,
// leaving no process, goroutine or fd.
//
// Not parallel: it counts the test binary's goroutines and descriptors.
func TestCloseLeavesNothing(t *testing.T) {
	// The runtime's poller (an epoll and an eventfd) opens with the first
	// pipe: before the count, since no test may have run a command yet.
	if r, w, err := os.Pipe(); err == nil {
		r.Close()
		w.Close()
	}
	fd0, g0 := fds(t), runtime.NumGoroutine()
	var pids []int
	// One full table in the quick run, three in turn with TOOLD_LONG=1.
	for range testenv.Size(1, 3) {
		r := exec.NewRunner(nil)
		m, err := spool.NewManager(filepath.Join(t.TempDir(), "spool"))
		if err != nil {
			t.Fatal(err)
		}
		d, _ := m.Open("s")
		// A table full at a limit of 4 in the quick run (Close does not
		// look at the limit; each process cost 0.1 CPU-s under -race), of
		// DefaultLimit with TOOLD_LONG=1.
		n := testenv.Size(4, process.DefaultLimit)
		tb := process.NewTable(r, n)
		// Each writes on while Close runs, twice a second: ten times a
		// second, the sixteen loops' sleeps were 160 forks a second.
		for range n {
			p, err := tb.Start(withOutput(exec.Spec{Command: `sleep 60 & echo $!; while :; do echo x; sleep 0.5; done`,
				Spool: func(s string) (exec.SpoolFile, error) { return d.Create(s) }}), "x", nil)
			if err != nil {
				t.Fatal(err)
			}
			wait(t, p, process.Until{Pattern: regexp.MustCompile(`^\d+$`)})
			out, _ := p.Read(nil, 1<<10, nil)
			var pid int
			fmt.Sscan(string(out.Stdout.Head), &pid)
			pids = append(pids, pid)
		}
		tb.Close()
		r.Close()
		m.Close()
	}
	for _, pid := range pids { // signals are delivered asynchronously
		if !testenv.Until(5*time.Second, func() bool { return !testenv.Alive(pid) }) {
			t.Errorf("child %d outlived Close", pid)
		}
	}
	if !testenv.Until(5*time.Second, func() bool { return runtime.NumGoroutine() <= g0 && fds(t) <= fd0 }) {
		t.Fatalf("goroutines %d (were %d), fds %d (were %d)", runtime.NumGoroutine(), g0, fds(t), fd0)
	}
}
