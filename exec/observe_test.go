package exec_test

import (
	"context"
	"io"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/toold/toold/exec"
)

// TestMeter runs alone, before the parallel tests: its newest line is the
// one printed 50 ms after the others, which a reader starved that long
// would see first.
func TestMeter(t *testing.T) {
	cases := []struct {
		name, command string
		want          exec.Snapshot // Elapsed is not compared
		merge         bool
	}{
		{"lines on both", `printf 'a\nbb\n'; sleep 0.05; printf 'oops\n' >&2`,
			exec.Snapshot{Stdout: exec.Count{Lines: 2, Bytes: 5}, Stderr: exec.Count{Lines: 1, Bytes: 5}, LastLine: "oops"}, false},
		{"partial line counts and is the newest", `printf 'done\nhalf'`,
			exec.Snapshot{Stdout: exec.Count{Lines: 2, Bytes: 9}, LastLine: "half"}, false},
		{"progress bar keeps its final state", `printf 'x\n10%%\r\033[1m50%%\033[0m\r'`,
			exec.Snapshot{Stdout: exec.Count{Lines: 2, Bytes: 18}, LastLine: "50%"}, false},
		{"blank line in progress shows the last complete one", `printf 'one\ntwo\n'`,
			exec.Snapshot{Stdout: exec.Count{Lines: 2, Bytes: 8}, LastLine: "two"}, false},
		{"long line is clipped", `head -c 5000 /dev/zero | tr '\0' 'y'; echo`,
			exec.Snapshot{Stdout: exec.Count{Lines: 1, Bytes: 5001}, LastLine: strings.Repeat("y", 200)}, false},
		{"merged", `echo out; echo err >&2`,
			exec.Snapshot{Stdout: exec.Count{Lines: 2, Bytes: 8}, LastLine: "err"}, true},
	}
	r := newRunner(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := &exec.Meter{}
			res, err := r.Run(context.Background(), exec.Spec{Command: c.command, Output: defaults, Observer: m, MergeStderr: c.merge})
			if err != nil {
				t.Fatal(err)
			}
			got := m.Snapshot()
			if got.Elapsed <= 0 {
				t.Errorf("elapsed %v", got.Elapsed)
			}
			got.Elapsed = 0
			if got != c.want {
				t.Errorf("snapshot %+v, want %+v", got, c.want)
			}
			if got.Stdout.Bytes != res.Stdout.TotalBytes || got.Stdout.Lines != res.Stdout.TotalLines {
				t.Errorf("meter %+v disagrees with the result's %d bytes, %d lines", got.Stdout, res.Stdout.TotalBytes, res.Stdout.TotalLines)
			}
		})
	}
}

// stdinObserver writes to the stdin it is given and records the output.
type stdinObserver struct {
	mu    sync.Mutex
	pgid  int
	input string
	out   strings.Builder
	err   error
}

func (o *stdinObserver) Started(pgid int, stdin *os.File) {
	o.pgid = pgid
	go func() { // the test's own goroutine: it ends when the write does
		_, err := io.WriteString(stdin, o.input)
		if cerr := stdin.Close(); err == nil {
			err = cerr
		}
		o.mu.Lock()
		o.err = err
		o.mu.Unlock()
	}()
}

func (o *stdinObserver) Output(stream string, p []byte) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.out.WriteString(stream + ":" + string(p) + ";")
}

func TestKeepStdinAndSpoolAll(t *testing.T) {
	t.Parallel()
	r := newRunner(t)
	_, d := newSpool(t)
	o := &stdinObserver{input: "hello\n"}
	spec := exec.Spec{Command: "cat", Output: defaults, Observer: o, KeepStdin: true,
		Stdin: strp("ignored: the observer owns stdin"), Spool: spoolTo(d)}
	spec.SpoolAll = true
	res, err := r.Run(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	if res.Stdout.Head != "hello\n" || o.out.String() != "stdout:hello\n;" || o.pgid <= 0 {
		t.Fatalf("head %q, observed %q, pgid %d", res.Stdout.Head, o.out.String(), o.pgid)
	}
	// Shown whole, yet spooled: SpoolAll keeps every byte from the first.
	if res.Stdout.Spool == nil {
		t.Fatal("no spool with SpoolAll")
	}
	b, err := os.ReadFile(res.Stdout.Spool.Path)
	if err != nil || string(b) != "hello\n" {
		t.Fatalf("spool %q, %v", b, err)
	}
	if res.Stderr.Spool != nil {
		t.Errorf("stderr printed nothing and has a spool: %+v", res.Stderr.Spool)
	}
}
