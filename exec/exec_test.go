package exec_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toold/toold/exec"
	"github.com/toold/toold/highlight"
	"github.com/toold/toold/internal/testenv"
	"github.com/toold/toold/internal/testtext"
	"github.com/toold/toold/preview"
	"github.com/toold/toold/spool"
	"github.com/toold/toold/truncate"
)

var defaults = truncate.PreviewOptions{MaxLines: 2000, MaxBytes: 51200, MaxLineChars: 2000, Mode: "headTail", Clean: true}

func newRunner(t testing.TB) *exec.Runner {
	r := exec.NewRunner(nil)
	t.Cleanup(func() { r.Close() })
	return r
}

func newSpool(t testing.TB) (*spool.Manager, *spool.Dir) {
	t.Helper()
	m, err := spool.NewManager(filepath.Join(t.TempDir(), "spool"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	d, err := m.Open("test")
	if err != nil {
		t.Fatal(err)
	}
	return m, d
}

// spoolTo adapts a spool.Dir to Spec.Spool.
func spoolTo(d *spool.Dir) func(string) (exec.SpoolFile, error) {
	return func(stream string) (exec.SpoolFile, error) {
		f, err := d.Create(stream)
		if err != nil {
			return nil, err
		}
		return f, nil
	}
}

func intp(n int) *int             { return &n }
func strp(s string) *string       { return &s }
func testdata(name string) string { return filepath.Join("..", "testdata", "exec", name) }

// gone reports whether pid has exited: no such process, or a zombie that
// its new parent has yet to reap.
func gone(pid int) bool {
	if syscall.Kill(pid, 0) == syscall.ESRCH {
		return true
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	i := bytes.LastIndexByte(b, ')')
	return i > 0 && len(b) > i+2 && b[i+2] == 'Z'
}

// waitGone fails unless every pid exits soon: signals are delivered
// asynchronously, so allow a moment.
func waitGone(t *testing.T, pids ...int) {
	t.Helper()
	for _, pid := range pids { // 5 s each
		if !testenv.Until(5*time.Second, func() bool { return gone(pid) }) {
			t.Fatalf("process %d is still running", pid)
		}
	}
}

func pids(t *testing.T, s string) []int {
	t.Helper()
	var out []int
	for _, f := range strings.Fields(s) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("not a pid: %q in %q", f, s)
		}
		out = append(out, pid)
	}
	return out
}

func TestRun(t *testing.T) {
	t.Parallel()
	r := newRunner(t)
	cwd := t.TempDir()
	cwd, _ = filepath.EvalSymlinks(cwd)
	rawProgress, _ := os.ReadFile(testdata("progress.txt"))
	rawBinary := []byte("\x00\x01\x02\xff\xfe binary\n")
	tests := []struct {
		name   string
		spec   exec.Spec
		stdout string
		stderr string
		exit   *int
		signal string
		check  func(t *testing.T, res *exec.Result)
	}{
		{name: "echo", spec: exec.Spec{Command: "echo hello"}, stdout: "hello\n", exit: intp(0)},
		{name: "exit code", spec: exec.Spec{Command: "echo x; exit 3"}, stdout: "x\n", exit: intp(3)},
		{name: "stderr", spec: exec.Spec{Command: "echo out; echo err >&2"}, stdout: "out\n", stderr: "err\n", exit: intp(0)},
		{name: "merge stderr", spec: exec.Spec{Command: "echo out; echo err >&2; echo out2", MergeStderr: true}, stdout: "out\nerr\nout2\n", exit: intp(0)},
		{name: "stdin", spec: exec.Spec{Command: "cat; echo end", Stdin: strp("in put\nno newline")}, stdout: "in put\nno newlineend\n", exit: intp(0)},
		{name: "no stdin reads EOF", spec: exec.Spec{Command: "cat; echo eof"}, stdout: "eof\n", exit: intp(0)},
		{name: "argv is not a shell", spec: exec.Spec{Argv: []string{"printf", "%s|", "a b", "$HOME", ";true"}}, stdout: "a b|$HOME|;true|", exit: intp(0)},
		{name: "command is bash", spec: exec.Spec{Command: "echo $((1+2)); [[ x == x ]] && echo bash"}, stdout: "3\nbash\n", exit: intp(0)},
		{name: "env", spec: exec.Spec{Command: "echo $FOO; echo ${HOME:-unset}", Env: []string{"FOO=bar baz", "PATH=/usr/bin:/bin"}}, stdout: "bar baz\nunset\n", exit: intp(0)},
		{name: "argv looked up in env PATH", spec: exec.Spec{Argv: []string{"env"}, Env: []string{"A=1", "PATH=/usr/bin:/bin"}}, stdout: "A=1\nPATH=/usr/bin:/bin\n", exit: intp(0)},
		{name: "cwd", spec: exec.Spec{Command: "pwd", Dir: cwd}, stdout: cwd + "\n", exit: intp(0)},
		{name: "relative argv in cwd", spec: exec.Spec{Argv: []string{"./hello.sh"}, Dir: cwd}, stdout: "hi from script\n", exit: intp(0)},
		{name: "killed by a signal", spec: exec.Spec{Command: "echo before; kill -KILL $$"}, stdout: "before\n", signal: "SIGKILL"},
		{
			name: "ansi and progress cleaned", spec: exec.Spec{Argv: []string{"cat", testdata("progress.txt")}},
			stdout: "Downloading\n 100% [##########]\nerror: something failed\nDone\n", exit: intp(0),
		},
		{
			name: "not cleaned", spec: exec.Spec{Argv: []string{"cat", testdata("progress.txt")}, Output: truncate.PreviewOptions{MaxLines: 100, MaxBytes: 10000}},
			stdout: string(rawProgress), exit: intp(0),
		},
		{name: "crlf kept", spec: exec.Spec{Argv: []string{"cat", testdata("crlf.txt")}}, stdout: "first\r\nsecond\r\nthird\r\n", exit: intp(0)},
		{name: "invalid utf-8", spec: exec.Spec{Command: `printf 'some text: a\xffb, and more\n'`}, stdout: "some text: a\uFFFDb, and more\n", exit: intp(0)},
		{
			name: "binary", spec: exec.Spec{Command: `printf '\000\001\002\377\376 binary\n'`}, exit: intp(0),
			check: func(t *testing.T, res *exec.Result) {
				s := res.Stdout
				if !s.Binary || s.Head != "" || s.Tail != "" || !s.Truncated || s.TotalBytes != int64(len(rawBinary)) {
					t.Fatalf("binary stream %+v", s)
				}
				if s.Spool == nil {
					t.Fatal("binary output not spooled")
				}
				if got, _ := os.ReadFile(s.Spool.Path); !bytes.Equal(got, rawBinary) {
					t.Fatalf("spool holds %q", got)
				}
			},
		},
		{
			name: "shown whole writes no file", spec: exec.Spec{Command: "seq 1 100"}, exit: intp(0),
			check: func(t *testing.T, res *exec.Result) {
				s := res.Stdout
				if s.Spool != nil || s.Truncated || s.TotalLines != 100 || s.ShownLines != 100 || s.Omitted != nil {
					t.Fatalf("stream %+v", s)
				}
			},
		},
	}
	os.WriteFile(filepath.Join(cwd, "hello.sh"), []byte("#!/bin/sh\necho hi from script\n"), 0o755)
	_, d := newSpool(t) // the cases' spool files, each its own (a spool a case made 80 more files)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			spec := tt.spec
			if spec.Output == (truncate.PreviewOptions{}) {
				spec.Output = defaults
			}
			spec.Spool = spoolTo(d)
			res, err := r.Run(context.Background(), spec)
			if err != nil {
				t.Fatal(err)
			}
			if tt.check == nil && (res.Stdout.Head != tt.stdout || res.Stderr.Head != tt.stderr) {
				t.Errorf("stdout %q stderr %q, want %q %q", res.Stdout.Head, res.Stderr.Head, tt.stdout, tt.stderr)
			}
			if tt.exit != nil && (res.ExitCode == nil || *res.ExitCode != *tt.exit) || tt.exit == nil && res.ExitCode != nil {
				t.Errorf("exit code %v, want %v", res.ExitCode, tt.exit)
			}
			if tt.signal != "" && (res.Signal == nil || *res.Signal != tt.signal) || tt.signal == "" && res.Signal != nil {
				t.Errorf("signal %v, want %q", res.Signal, tt.signal)
			}
			if res.TimedOut || res.Cancelled {
				t.Errorf("timedOut %v cancelled %v", res.TimedOut, res.Cancelled)
			}
			if tt.check != nil {
				tt.check(t, res)
			}
		})
	}
}

func TestStartFailures(t *testing.T) {
	t.Parallel()
	r := newRunner(t)
	dir := t.TempDir()
	notExec := filepath.Join(dir, "script")
	os.WriteFile(notExec, []byte("#!/bin/sh\necho hi\n"), 0o644)
	tests := []struct {
		name string
		spec exec.Spec
		want string
	}{
		{"missing binary", exec.Spec{Argv: []string{"/nonexistent/tool"}}, "no such file or directory"},
		{"not in PATH", exec.Spec{Argv: []string{"no-such-command-toold"}}, "executable file not found"},
		{"missing cwd", exec.Spec{Command: "true", Dir: filepath.Join(dir, "missing")}, "cwd: stat " + filepath.Join(dir, "missing") + ": no such file or directory"},
		{"cwd not a directory", exec.Spec{Command: "true", Dir: notExec}, "not a directory"},
		{"not executable", exec.Spec{Argv: []string{notExec}}, "permission denied"},
		{"nothing to run", exec.Spec{}, "no command"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := r.Run(context.Background(), tt.spec)
			if !errors.Is(err, exec.ErrStart) || !strings.Contains(err.Error(), tt.want) || res != nil {
				t.Fatalf("got %v, %v; want ErrStart saying %q", res, err, tt.want)
			}
		})
	}
	if _, err := r.Run(context.Background(), exec.Spec{Argv: []string{"no-such-command-toold"}}); !errors.Is(err, osexec.ErrNotFound) {
		t.Errorf("not in PATH: %v does not wrap exec.ErrNotFound", err)
	}
}

func TestTimeoutEndsTheGroup(t *testing.T) {
	t.Parallel() // waits on processes of its own
	r := newRunner(t)
	res, err := r.Run(context.Background(), exec.Spec{
		Command: "sleep 60 & echo $!; sleep 60 & echo $!; wait",
		// Long enough for the shell to start both under a loaded -race run
		// (300 ms saw one pid at a load of 10 on two cores).
		Timeout: time.Second,
		Output:  defaults,
	})
	if err != nil {
		t.Fatal(err)
	}
	if !res.TimedOut || res.Cancelled || res.ExitCode != nil || res.Signal == nil || *res.Signal != "SIGTERM" {
		t.Fatalf("result %+v", res)
	}
	ps := pids(t, res.Stdout.Head)
	if len(ps) != 2 {
		t.Fatalf("pids %q", res.Stdout.Head)
	}
	waitGone(t, ps...)
}

func TestTimeoutEscalatesToSIGKILL(t *testing.T) {
	t.Parallel() // waits on processes of its own
	r := newRunner(t)
	res, err := r.Run(context.Background(), exec.Spec{
		Command: "trap '' TERM; echo $$; sleep 60",
		Timeout: 200 * time.Millisecond,
		Output:  defaults,
	})
	if err != nil {
		t.Fatal(err)
	}
	if !res.TimedOut || res.Signal == nil || *res.Signal != "SIGKILL" || res.Stdout.Head == "" {
		t.Fatalf("result %+v", res)
	}
	waitGone(t, pids(t, res.Stdout.Head)...)
}

// TestCancel runs alone, before the parallel tests: it cancels 200 ms in,
// by when the command must have printed both its lines.
func TestCancel(t *testing.T) {
	r := newRunner(t)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	res, err := r.Run(ctx, exec.Spec{Command: "echo started; sleep 60 & echo $!; wait", Output: defaults})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Cancelled || res.TimedOut || res.ExitCode != nil || res.Signal == nil {
		t.Fatalf("result %+v", res)
	}
	lines := strings.Fields(res.Stdout.Head)
	if len(lines) != 2 || lines[0] != "started" {
		t.Fatalf("stdout %q", res.Stdout.Head)
	}
	waitGone(t, pids(t, lines[1])...)

	// A context already done runs nothing.
	res, err = r.Run(ctx, exec.Spec{Command: "echo never"})
	if err != nil || !res.Cancelled || res.Stdout.Head != "" {
		t.Fatalf("done context: %+v %v", res, err)
	}
}

// ignoresTerm starts a background child that ignores SIGTERM, $p, and
// returns once it does (it is sleep): a leader that exited before had its
// group's SIGTERM end the child before its trap was set, now and then.
const ignoresTerm = `(trap '' TERM; exec sleep 60) & p=$!; until read -r c </proc/$p/comm && [ "$c" = sleep ]; do :; done`

// TestBackgroundChildHoldingPipes: the cases run in parallel, with each
// other and with the package's other parallel tests: the one that ignores
// SIGTERM waits for the kill delay's SIGKILL, which the others need not
// wait for. Its bound on Run's time is far from what a loaded machine adds.
func TestBackgroundChildHoldingPipes(t *testing.T) {
	t.Parallel() // waits on processes of its own
	r := newRunner(t)
	for _, cmd := range []string{
		"sleep 60 & echo $!",
		ignoresTerm + "; echo $p",                       // ignores SIGTERM: cut off, then SIGKILLed
		"setsid sleep 60 & echo $!; echo to stderr >&2", // left the group: cut off
	} {
		t.Run(cmd, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			res, err := r.Run(context.Background(), exec.Spec{Command: cmd, Output: defaults})
			if err != nil {
				t.Fatal(err)
			}
			// Not a speed check: without the cut-off this would take 60 s.
			if d := time.Since(start); d > 1900*time.Millisecond {
				t.Fatalf("result after %v", d)
			}
			if res.ExitCode == nil || *res.ExitCode != 0 || res.TimedOut || res.Cancelled {
				t.Fatalf("result %+v", res)
			}
			ps := pids(t, res.Stdout.Head)
			if strings.HasPrefix(cmd, "setsid") {
				if res.Stderr.Head != "to stderr\n" {
					t.Fatalf("stderr %q", res.Stderr.Head)
				}
				syscall.Kill(ps[0], syscall.SIGKILL) // not ours to end
			}
			waitGone(t, ps...)
		})
	}
}

func TestStdin(t *testing.T) {
	t.Parallel() // waits on processes of its own
	r := newRunner(t)
	big := strings.Repeat("0123456789abcdef\n", 200000) // 3.4 MB, past any pipe buffer
	res, err := r.Run(context.Background(), exec.Spec{Command: "wc -c", Stdin: &big, Output: defaults})
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(res.Stdout.Head) != strconv.Itoa(len(big)) {
		t.Fatalf("wc -c says %q, want %d", res.Stdout.Head, len(big))
	}
	// Commands that never read their stdin must not hang the writer.
	for _, cmd := range []string{"exit 0", "sleep 0.2", "exec 0<&-; sleep 0.1; echo closed"} {
		res, err := r.Run(context.Background(), exec.Spec{Command: cmd, Stdin: &big, Output: defaults})
		if err != nil || res.ExitCode == nil || *res.ExitCode != 0 {
			t.Fatalf("%s: %+v %v", cmd, res, err)
		}
	}
	// Nor one that keeps running, unread, until its timeout.
	res, err = r.Run(context.Background(), exec.Spec{Command: "sleep 60", Stdin: &big, Timeout: 100 * time.Millisecond, Output: defaults})
	if err != nil || !res.TimedOut {
		t.Fatalf("timeout with unread stdin: %+v %v", res, err)
	}
}

func TestLargeOutputSpooled(t *testing.T) {
	t.Parallel() // waits on processes of its own
	r := newRunner(t)
	m, d := newSpool(t)
	var want bytes.Buffer // seq's output: appended, not Fprintf'd (0.2 CPU-s under -race)
	var num []byte
	for i := 1; i <= 200000; i++ {
		num = append(strconv.AppendInt(num[:0], int64(i), 10), '\n')
		want.Write(num)
	}
	res, err := r.Run(context.Background(), exec.Spec{
		Command: "seq 1 200000; echo err >&2",
		Output:  truncate.PreviewOptions{MaxLines: 100, MaxBytes: 51200, Clean: true, MaxLineChars: 2000},
		Spool:   spoolTo(d),
	})
	if err != nil {
		t.Fatal(err)
	}
	s := res.Stdout
	if s.TotalBytes != int64(want.Len()) || s.TotalLines != 200000 || s.ShownLines != 100 || !s.Truncated {
		t.Fatalf("stream %+v", s)
	}
	if !strings.HasPrefix(s.Head, "1\n2\n") || !strings.HasSuffix(s.Head, "\n50\n") || !strings.HasPrefix(s.Tail, "199951\n") || !strings.HasSuffix(s.Tail, "\n200000\n") {
		t.Fatalf("head %q... tail ...%q", s.Head[:10], s.Tail[len(s.Tail)-10:])
	}
	if *s.Omitted != (truncate.Omitted{FromLine: 51, ToLine: 199950, Bytes: int64(want.Len() - 141 - 350)}) {
		t.Fatalf("omitted %+v", *s.Omitted)
	}
	got, err := os.ReadFile(s.Spool.Path)
	if err != nil || !bytes.Equal(got, want.Bytes()) || s.Spool.Bytes != int64(want.Len()) || s.Spool.Capped {
		t.Fatalf("spool: %d bytes, %v, %+v", len(got), err, s.Spool)
	}
	if p, err := d.Find(s.Spool.ID); err != nil || p != s.Spool.Path {
		t.Fatalf("lookup %s: %q %v", s.Spool.ID, p, err)
	}
	if res.Stderr.Spool != nil || res.Stderr.Head != "err\n" {
		t.Fatalf("stderr %+v", res.Stderr)
	}
	if m.Bytes() != int64(want.Len()) {
		t.Fatalf("manager bytes %d", m.Bytes())
	}
}

func TestSpoolCapAndFailure(t *testing.T) {
	t.Parallel()
	r := newRunner(t)
	m, d := newSpool(t)
	m.MaxFileBytes = 1000
	spec := exec.Spec{Command: "seq 1 100000", Output: truncate.PreviewOptions{MaxLines: 10, MaxBytes: 1000, Clean: true}, Spool: spoolTo(d)}
	res, err := r.Run(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	s := res.Stdout
	if s.Spool == nil || !s.Spool.Capped || s.Spool.Bytes != 1000 || s.TotalLines != 100000 || s.Tail != "99996\n99997\n99998\n99999\n100000\n" {
		t.Fatalf("capped: %+v %+v", s, s.Spool)
	}

	// A disk that is full: the preview comes anyway, with the reason.
	m.OpenFile = func(string, int, os.FileMode) (*os.File, error) { return os.OpenFile("/dev/full", os.O_WRONLY, 0) }
	res, err = r.Run(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	s = res.Stdout
	if !strings.Contains(s.SpoolError, "no space left on device") || s.Head != "1\n2\n3\n4\n5\n" || s.TotalLines != 100000 {
		t.Fatalf("disk full: %+v", s)
	}
}

// TestOutputRebuilt checks on real processes that head, the spool's omitted
// lines and tail give back the whole output.
func TestOutputRebuilt(t *testing.T) {
	t.Parallel() // waits on processes of its own
	r := newRunner(t)
	_, d := newSpool(t)
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(7, 7))
	// With TOOLD_LONG=1 the largest output is more than the 1 MiB a grown
	// pipe holds: 3 MB in every mode (its three runs took 10 s under
	// -race). In the quick run it is 250,000 bytes in headTail (240,000,
	// past the 204,800 bytes the capture keeps of a 51,200-byte preview,
	// go in every mode; it was 300,000): an output past the
	// pipe's 1 MiB is TestLargeOutputSpooled's (seq's 1.3 MB, its spool
	// compared byte for byte); 1.2 MB here took half a CPU-second more
	// under -race. The smaller ones have a failure word in most lines, so
	// that highlights crowd the budget and some are left out of it; the
	// largest one in a line of fifty: the detector's regular expressions
	// over lines that nearly all match took 1.1 of the test's 2.2
	// CPU-seconds under -race for it, and its highlights fit.
	sizes := []int{0, 10, 5000, 51200, 51201, 240_000, testenv.Size(250_000, 3<<20)}
	for i, size := range sizes {
		failEvery := 0
		if i == len(sizes)-1 {
			failEvery = 50
		}
		out := randomOutput(rng, size, i%2 == 0, failEvery)
		name := filepath.Join(dir, fmt.Sprint(i))
		os.WriteFile(name, out, 0o644)
		modes := []string{"headTail", "head", "tail"}
		if i == len(sizes)-1 && !testenv.Long() {
			modes = modes[:1]
		}
		for _, mode := range modes {
			res, err := r.Run(context.Background(), exec.Spec{
				Argv:   []string{"cat", name},
				Output: truncate.PreviewOptions{MaxLines: 2000, MaxBytes: 51200, Mode: mode},
				Spool:  spoolTo(d),
			})
			if err != nil {
				t.Fatal(err)
			}
			s := res.Stdout
			if s.TotalBytes != int64(len(out)) || s.TotalLines != testtext.CountLines(out) {
				t.Fatalf("%d/%s: totals %d %d, want %d %d (exit %v, signal %v, stderr %q)", size, mode, s.TotalBytes, s.TotalLines, len(out), testtext.CountLines(out), deref(res.ExitCode), deref(res.Signal), res.Stderr.Head)
			}
			if !s.Truncated {
				if s.Spool != nil || s.Head != string(out) {
					t.Fatalf("%d/%s: untruncated output spooled or changed", size, mode)
				}
				continue
			}
			spooled, _ := os.ReadFile(s.Spool.Path)
			if !bytes.Equal(spooled, out) {
				t.Fatalf("%d/%s: spool differs from output", size, mode)
			}
			mid := testtext.Lines(spooled, s.Omitted.FromLine, s.Omitted.ToLine)
			if s.Head+string(mid)+s.Tail != string(out) || int64(len(mid)) != s.Omitted.Bytes {
				t.Fatalf("%d/%s: head+omitted+tail != output (omitted %+v)", size, mode, *s.Omitted)
			}
			if size >= 240_000 && len(s.Highlights) == 0 {
				t.Fatalf("%d/%s: no highlight: the failure lines were not found", size, mode)
			}
		}
	}
}

// randomOutput makes size bytes of lines of random words, some after a
// long run. With failEvery 0 the failure words ("error:", "warning") are
// among them, in most lines; else they are not, and every failEvery-th
// line starts with one.
func randomOutput(rng *rand.Rand, size int, trailingNewline bool, failEvery int) []byte {
	words := []string{"ok", "héllo", "日本語", "🙂", "build", "step", "x", "error:", "warning", "\t"}
	if failEvery > 0 {
		words = []string{"ok", "héllo", "日本語", "🙂", "build", "step", "x", "\t"}
	}
	var b bytes.Buffer
	for line := 1; b.Len() < size; line++ {
		if failEvery > 0 && line%failEvery == 0 {
			b.WriteString([]string{"error: ", "warning "}[line/failEvery%2])
		}
		if rng.IntN(20) == 0 {
			b.WriteString(strings.Repeat("long", rng.IntN(5000)))
		}
		for n := rng.IntN(15); n > 0; n-- {
			b.WriteString(words[rng.IntN(len(words))])
			b.WriteByte(' ')
		}
		b.WriteByte('\n')
	}
	out := b.Bytes()
	// Cut at a character boundary; maybe drop the final newline.
	out = out[:truncate.CutBack(out, size)]
	if !trailingNewline && len(out) > 0 && out[len(out)-1] == '\n' {
		out = out[:len(out)-1]
	}
	return out
}

// TestCloseCancelsRunning: Close cancels a running command, and its
// process ends. The command writes its pid to a file, which the test
// waits for (it gave the command a fixed 100 ms to print it).
func TestCloseCancelsRunning(t *testing.T) {
	t.Parallel() // its own runner
	r := exec.NewRunner(nil)
	pidFile := filepath.Join(t.TempDir(), "pid")
	done := make(chan *exec.Result)
	go func() {
		res, err := r.Run(context.Background(), exec.Spec{Command: "echo $$ > " + pidFile + "; sleep 60", Output: defaults})
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	var pid []byte
	testenv.WaitFor(t, 10*time.Second, "the command's pid", func() bool {
		pid, _ = os.ReadFile(pidFile)
		return bytes.HasSuffix(pid, []byte("\n"))
	})
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	res := <-done
	if !res.Cancelled || res.Signal == nil || r.Running() != 0 {
		t.Fatalf("result %+v, running %d", res, r.Running())
	}
	waitGone(t, pids(t, string(pid))...)
	if _, err := r.Run(context.Background(), exec.Spec{Command: "true"}); !errors.Is(err, exec.ErrStart) {
		t.Fatalf("Run after Close: %v", err)
	}
}

// TestExitWeighsLastLines: when errors crowd a small budget, the last
// lines a command wrote before it failed are shown (ranked as its last
// error); the same output of a command that succeeded spends the budget on
// the errors.
func TestExitWeighsLastLines(t *testing.T) {
	t.Parallel()
	r := newRunner(t)
	_, d := newSpool(t)
	script := `for i in $(seq 1 3000); do echo "step $i"; if [ $((i % 300)) = 0 ]; then echo "cp: cannot stat 'asset_$i.css': No such file or directory"; fi; done; echo "gave up after 3 retries"; exit $0`
	shown := func(code string) bool {
		spec := exec.Spec{Argv: []string{"bash", "-c", script, code}, Output: truncate.PreviewOptions{MaxLines: 8, MaxBytes: 51200, Clean: true}, Spool: spoolTo(d)}
		res, err := r.Run(context.Background(), spec)
		if err != nil {
			t.Fatal(err)
		}
		all := res.Stdout.Head + res.Stdout.Tail
		for _, h := range res.Stdout.Highlights {
			all += h.Text
		}
		if res.Stdout.ShownLines > 8 || !strings.Contains(all, "cp: cannot stat 'asset_300.css'") {
			t.Errorf("exit %s: %d lines shown, the first error not among them:\n%s", code, res.Stdout.ShownLines, all)
		}
		return strings.Contains(all, "gave up after 3 retries")
	}
	if !shown("1") {
		t.Error("exit 1: the last line is not shown")
	}
	if shown("0") {
		t.Error("exit 0: the last line is shown: the test shows nothing")
	}
}

// TestExitGroupCounted: the group of the last lines before a non-zero exit
// is a group found like the others: when every group found is shown,
// highlightsOmitted is 0, not -1, and when some are left out it counts
// exactly those (shown + omitted = found, with or without the exit group).
func TestExitGroupCounted(t *testing.T) {
	t.Parallel()
	r := newRunner(t)
	_, d := newSpool(t)
	tests := []struct {
		script  string
		omitted func(int) bool
	}{
		{`seq 1 5000; echo "error: x"; seq 1 3000; exit $0`, func(n int) bool { return n == 0 }},
		// Far from head and tail (which show a group without counting it),
		// two lines between errors: groups (an error and the line before
		// it) never touch, so none is merged with another when shown.
		{`seq 1 3000; for i in $(seq 1 600); do echo "step $i"; echo "ok $i"; echo "error: e$i failed"; done; seq 1 3000; exit $0`, func(n int) bool { return n > 0 }},
	}
	for _, tt := range tests {
		omitted := map[string]int{}
		for _, code := range []string{"0", "3"} {
			spec := exec.Spec{Argv: []string{"bash", "-c", tt.script, code}, Output: truncate.PreviewOptions{MaxLines: 100, MaxBytes: 51200, Clean: true}, Spool: spoolTo(d)}
			res, err := r.Run(context.Background(), spec)
			if err != nil {
				t.Fatal(err)
			}
			st := res.Stdout
			if !tt.omitted(st.HighlightsOmitted) || len(st.Highlights) == 0 {
				t.Errorf("%q exit %s: %d groups shown, highlightsOmitted %d", tt.script, code, len(st.Highlights), st.HighlightsOmitted)
			}
			omitted[code] = st.HighlightsOmitted + len(st.Highlights)
		}
		// The failed run found one group more (its last lines) or the same
		// (its last group held them), never one less.
		if d := omitted["3"] - omitted["0"]; d != 0 && d != 1 {
			t.Errorf("%q: shown+omitted %d on exit 0, %d on exit 3", tt.script, omitted["0"], omitted["3"])
		}
	}
}

// TestHighlightsLeftOutForTheBudget: groups are left out for the budget,
// not for the detector's MaxGroups: 40 distinct errors in the middle (more
// than the 32 it keeps best) are all shown while the budget has room, and
// none is counted omitted; a small budget leaves some out and counts them.
func TestHighlightsLeftOutForTheBudget(t *testing.T) {
	t.Parallel()
	r := newRunner(t)
	_, d := newSpool(t)
	// The 30 lines after each error are bash's printf, not a seq each (80
	// execs of the test's 88).
	script := `seq 1 3000; for i in $(seq 1 40); do echo "cp: cannot stat /data/f$i: No such file or directory"; printf '%s\n' {1..30}; done; seq 1 3000`
	for _, c := range []struct {
		maxBytes, shown, omitted int
	}{{51200, 40, 0}, {2048, -1, -1}} {
		spec := exec.Spec{Argv: []string{"bash", "-c", script}, Output: truncate.PreviewOptions{MaxLines: 2000, MaxBytes: c.maxBytes, Clean: true}, Spool: spoolTo(d)}
		res, err := r.Run(context.Background(), spec)
		if err != nil {
			t.Fatal(err)
		}
		st := res.Stdout
		if c.shown >= 0 && (len(st.Highlights) != c.shown || st.HighlightsOmitted != c.omitted) {
			t.Errorf("maxBytes %d: %d shown, %d omitted; want %d, %d", c.maxBytes, len(st.Highlights), st.HighlightsOmitted, c.shown, c.omitted)
		}
		if c.shown < 0 && (st.HighlightsOmitted == 0 || len(st.Highlights)+st.HighlightsOmitted != 40) {
			t.Errorf("maxBytes %d: %d shown, %d omitted; want some omitted, 40 in all", c.maxBytes, len(st.Highlights), st.HighlightsOmitted)
		}
		for _, h := range st.Highlights {
			if !strings.Contains(h.Text, "cp: cannot stat /data/f") {
				t.Errorf("maxBytes %d: group %d-%d %q", c.maxBytes, h.FromLine, h.ToLine, h.Text)
			}
		}
	}
}

// TestRareShare: the share of the rare lines in a cut output: a clean output cut in the
// middle shows at most RareBytes of lines of rare shapes (here 60 lines of
// a shape each, among 6,000 of one), all of reason "rare", and head and
// tail keep what is left; seq 1 300000, all of one shape, shows none.
func TestRareShare(t *testing.T) {
	t.Parallel()
	r := newRunner(t)
	_, d := newSpool(t)
	tests := []struct {
		name, script string
		rare         bool // some rare lines are shown
	}{
		// The letters from an array: two command substitutions a rare
		// line (120 forks) took 0.9 CPU-seconds.
		{"rare lines", `l=({a..z}); for i in $(seq 1 6000); do echo "item $i stored"; if [ $((i % 100)) = 0 ]; then echo "note$((i / 100 % 26 + 10)) about batch ${l[i / 100 % 26]}x"; fi; done`, true},
		{"seq", `seq 1 300000`, false},
	}
	for _, tt := range tests {
		spec := exec.Spec{Argv: []string{"bash", "-c", tt.script}, Output: truncate.PreviewOptions{MaxLines: 2000, MaxBytes: 51200, Clean: true, MaxLineChars: 2000}, Spool: spoolTo(d)}
		res, err := r.Run(context.Background(), spec)
		if err != nil {
			t.Fatal(err)
		}
		rare := 0
		for _, h := range res.Stdout.Highlights {
			if h.Reason != highlight.ReasonRare {
				t.Errorf("%s: a highlight of reason %q: %+v", tt.name, h.Reason, h)
			}
			rare += len(h.Text)
		}
		if rare > preview.RareBytes || tt.rare != (rare > 0) {
			t.Errorf("%s: %d bytes of rare highlights (want some: %v, at most %d)", tt.name, rare, tt.rare, preview.RareBytes)
		}
	}
}

// deref is *p, or the zero value for nil: a result's optional fields in a
// failure's message.
func deref[T any](p *T) T {
	var v T
	if p != nil {
		v = *p
	}
	return v
}
