package lifecycle

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/toold/toold/internal/testenv"
	"github.com/toold/toold/protocol"
	"github.com/toold/toold/rpc"
)

// newDaemon returns a daemon that set, if given, changes the options of.
func newDaemon(t *testing.T, set ...func(*Options)) *Daemon {
	opts := Options{Version: "test", SpoolRoot: filepath.Join(t.TempDir(), "spool"),
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	for _, f := range set {
		f(&opts)
	}
	d, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// connect serves one client of d over a pipe; the returned func waits for
// the connection to end and gives its exit code.
func connect(t *testing.T, d *Daemon) (*rpc.Client, func() int) {
	server, client := net.Pipe()
	code := make(chan int, 1)
	go func() { code <- d.ServeConn(context.Background(), server) }()
	c := rpc.NewClient(context.Background(), client, rpc.FramingLines)
	t.Cleanup(func() { c.Close() })
	return c, func() int {
		select {
		case n := <-code:
			return n
		case <-time.After(20 * time.Second):
			t.Fatal("the connection did not end")
		}
		return -1
	}
}

func TestSessionsAreSeparate(t *testing.T) {
	t.Parallel() // a daemon of its own
	d := newDaemon(t)
	ctx := context.Background()
	a, _ := connect(t, d)
	b, waitB := connect(t, d)
	var ia, ib protocol.InitializeResult
	if err := a.Call(ctx, "initialize", map[string]any{"cwd": t.TempDir()}, &ia); err != nil {
		t.Fatal(err)
	}
	if err := b.Call(ctx, "initialize", nil, &ib); err != nil {
		t.Fatal(err)
	}
	if ia.Session == ib.Session || *ia.SpoolDir == *ib.SpoolDir {
		t.Fatalf("two clients share a session: %s %s", ia.Session, ib.Session)
	}
	var st protocol.Stats
	if err := a.Call(ctx, "stats", nil, &st); err != nil || st.Sessions != 2 {
		t.Fatalf("stats: %+v %v", st, err)
	}
	// A spool of a's is not b's to page.
	var r struct {
		Stdout struct {
			Spool *struct{ ID string } `json:"spool"`
		} `json:"stdout"`
	}
	if err := a.Call(ctx, "exec", map[string]any{"command": "seq 1 50000"}, &r); err != nil || r.Stdout.Spool == nil {
		t.Fatalf("exec: %v %+v", err, r)
	}
	var rerr *rpc.Error
	if err := b.Call(ctx, "page", map[string]any{"spool": r.Stdout.Spool.ID}, nil); !errors.As(err, &rerr) || rerr.Code != protocol.CodeNoSuchFile {
		t.Fatalf("b paged a's spool: %v", err)
	}
	if err := a.Call(ctx, "page", map[string]any{"spool": r.Stdout.Spool.ID, "limit": 1}, nil); err != nil {
		t.Fatalf("a's own page: %v", err)
	}
	// b goes away: its session ends, a's goes on.
	b.Close()
	waitB()
	if _, err := os.Stat(*ib.SpoolDir); !os.IsNotExist(err) {
		t.Errorf("b's spool dir after disconnect: %v", err)
	}
	if err := a.Call(ctx, "stats", nil, &st); err != nil || st.Sessions != 1 {
		t.Fatalf("stats after b left: %+v %v", st, err)
	}
	if err := a.Call(ctx, "page", map[string]any{"spool": r.Stdout.Spool.ID, "limit": 1}, nil); err != nil {
		t.Fatalf("a after b left: %v", err)
	}
}

func TestSessionClose(t *testing.T) {
	t.Parallel() // a daemon of its own
	d := newDaemon(t)
	ctx := context.Background()
	c, _ := connect(t, d)
	root := t.TempDir()
	var first, second protocol.InitializeResult
	if err := c.Call(ctx, "initialize", map[string]any{"roots": []string{root}}, &first); err != nil {
		t.Fatal(err)
	}
	// A running command is cancelled by session/close, and answers.
	done := make(chan error, 1)
	var r struct {
		Cancelled bool `json:"cancelled"`
	}
	go func() { done <- c.Call(ctx, "exec", map[string]any{"command": "sleep 30"}, &r) }()
	testenv.WaitFor(t, 10*time.Second, "the exec to run", func() bool { return d.Stats().ExecsRunning > 0 })
	if err := c.Call(ctx, "session/close", nil, nil); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil || !r.Cancelled {
			t.Fatalf("exec after session/close: %v %+v", err, r)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("exec not ended by session/close")
	}
	if _, err := os.Stat(*first.SpoolDir); !os.IsNotExist(err) {
		t.Errorf("spool dir after session/close: %v", err)
	}
	// The next request opens a new session that keeps the roots.
	var rerr *rpc.Error
	if err := c.Call(ctx, "read", map[string]any{"path": "/etc/hostname"}, nil); !errors.As(err, &rerr) || rerr.Code != protocol.CodeAccessDenied {
		t.Fatalf("read outside the roots after session/close: %v", err)
	}
	var st protocol.Stats
	if err := c.Call(ctx, "stats", nil, &st); err != nil || st.Sessions != 1 {
		t.Fatalf("stats: %+v %v", st, err)
	}
	if err := c.Call(ctx, "initialize", map[string]any{"roots": []string{root}}, &second); err != nil {
		t.Fatal(err)
	}
	if second.Session == first.Session {
		t.Error("a closed session's id was reused")
	}
}

func TestExitCodes(t *testing.T) {
	t.Parallel() // a daemon of its own
	d := newDaemon(t)
	ctx := context.Background()
	c, wait := connect(t, d)
	c.Call(ctx, "shutdown", nil, nil)
	var rerr *rpc.Error
	if err := c.Call(ctx, "stats", nil, nil); !errors.As(err, &rerr) || rerr.Code != protocol.CodeShutDown {
		t.Errorf("after shutdown: %v", err)
	}
	c.Notify(ctx, "exit", nil)
	if code := wait(); code != 0 {
		t.Errorf("exit after shutdown: %d", code)
	}
	c2, wait2 := connect(t, d)
	c2.Notify(ctx, "exit", nil)
	if code := wait2(); code != 1 {
		t.Errorf("exit without shutdown: %d", code)
	}
}

func TestCloseEndsEverySession(t *testing.T) {
	t.Parallel() // a daemon of its own
	d := newDaemon(t)
	ctx := context.Background()
	var dirs []string
	for range 3 {
		c, _ := connect(t, d)
		var ir protocol.InitializeResult
		if err := c.Call(ctx, "initialize", nil, &ir); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, *ir.SpoolDir)
	}
	d.Close()
	for _, dir := range dirs {
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("%s after Close: %v", dir, err)
		}
	}
}

// TestNoLeaks opens and drops many clients, each reading and running
// commands, and checks the daemon is left with no goroutine, descriptor or
// spool directory of theirs.
//
// Not parallel, as TestProcessesEndWithSessions: both count the test
// binary's goroutines and descriptors.
//
// A client that leaves with a command running has it cancelled after the
// drain timeout: 50 ms here, not the default second of each such client.
func TestNoLeaks(t *testing.T) {
	d := newDaemon(t, func(o *Options) { o.DrainTimeout = 50 * time.Millisecond })
	file := filepath.Join(t.TempDir(), "f.txt")
	os.WriteFile(file, []byte("a\nb\nc\n"), 0o644)
	fds := func() int {
		ents, _ := os.ReadDir("/proc/self/fd")
		return len(ents)
	}
	// Warm up what stays: the watcher, the pools, the session cgroups'
	// guard (its pipe is held while the daemon lives).
	c, wait := connect(t, d)
	c.Call(context.Background(), "read", map[string]any{"path": file}, nil)
	c.Call(context.Background(), "exec", map[string]any{"command": "true"}, nil)
	c.Close()
	wait()
	time.Sleep(50 * time.Millisecond)
	baseG, baseFD := runtime.NumGoroutine(), fds()

	// 3 clients in the quick run (the first leaves a command running, the
	// others do not), 15 with TOOLD_LONG=1: a leak of each kind shows in one.
	for i := range testenv.Size(3, 15) {
		c, wait := connect(t, d)
		ctx := context.Background()
		if err := c.Call(ctx, "read", map[string]any{"path": file}, nil); err != nil {
			t.Fatal(err)
		}
		if err := c.Call(ctx, "exec", map[string]any{"command": "seq 1 20000; sleep 30 &"}, nil); err != nil {
			t.Fatal(err)
		}
		if i%3 == 0 {
			// Leave with a command still running.
			go c.Call(ctx, "exec", map[string]any{"command": "sleep 30"}, nil)
			testenv.WaitFor(t, 10*time.Second, "the exec to run", func() bool { return d.Stats().ExecsRunning > 0 })
		}
		c.Close()
		wait()
	}
	var g, fd int
	var st protocol.Stats
	var dirs []string
	if !testenv.Until(20*time.Second, func() bool {
		g, fd = runtime.NumGoroutine(), fds()
		st = d.Stats()
		dirs, _ = filepath.Glob(filepath.Join(d.svc.Spools.Root(), "*-*"))
		return g <= baseG && fd <= baseFD && st.Sessions == 0 && st.ExecsRunning == 0 && st.SpoolBytes == 0 && len(dirs) == 0
	}) {
		buf := make([]byte, 1<<20)
		n := runtime.Stack(buf, true)
		t.Fatalf("left behind: goroutines %d (was %d), fds %d (was %d), stats %+v, dirs %v\n%s",
			g, baseG, fd, baseFD, st, dirs, buf[:n])
	}
}
