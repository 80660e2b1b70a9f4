package lifecycle

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"testing"
	"time"

	"github.com/toold/toold/internal/testenv"
	"github.com/toold/toold/protocol"
	"github.com/toold/toold/rpc"
)

// startProcs starts n background processes in c's session, each a shell
// with a background child, and returns the pids of both.
func startProcs(t *testing.T, c *rpc.Client, n int) []int {
	t.Helper()
	ctx := context.Background()
	var pids []int
	pidLine := regexp.MustCompile(`^(\d+) (\d+)\n`)
	for range n {
		var r protocol.ExecResult
		if err := c.Call(ctx, protocol.MethodExec, map[string]any{"command": `sleep 300 & echo $$ $!; sleep 300`, "background": true}, &r); err != nil {
			t.Fatal(err)
		}
		var w protocol.ProcessOutput
		if !pidLine.MatchString(r.Stdout.Head) { // the wait starts where exec's output ended
			if err := c.Call(ctx, protocol.MethodProcessWait, map[string]any{"id": *r.Process, "until": map[string]any{"pattern": `^\d+ \d+$`}}, &w); err != nil {
				t.Fatal(err)
			}
		}
		m := pidLine.FindStringSubmatch(r.Stdout.Head + w.Stdout.Head)
		if m == nil {
			t.Fatalf("no pids in %q", r.Stdout.Head+w.Stdout.Head)
		}
		var a, b int
		fmt.Sscan(m[1], &a)
		fmt.Sscan(m[2], &b)
		pids = append(pids, a, b)
	}
	return pids
}

// wantGone fails unless every pid is gone soon (signals land asynchronously).
func wantGone(t *testing.T, how string, pids []int) {
	t.Helper()
	for _, pid := range pids {
		if !testenv.Until(10*time.Second, func() bool { return !testenv.Alive(pid) }) {
			t.Errorf("%s: process %d is still alive", how, pid)
		}
	}
}

// TestProcessesEndWithSessions: 210 background processes (each with a
// child) in 15 sessions (TOOLD_LONG=1; 6 in 3 in the quick run: one
// session of two processes per way of ending, each process costing some
// 12 ms of CPU, mostly its three execs), ended by session/close, by the
// client leaving and by the
// daemon's Close (what SIGTERM and SIGINT call), leave no process,
// goroutine, descriptor or spool file. Not parallel: it counts the test
// binary's goroutines and descriptors.
func TestProcessesEndWithSessions(t *testing.T) {
	d := newDaemon(t)
	fds := func() int {
		ents, _ := os.ReadDir("/proc/self/fd")
		return len(ents)
	}
	c, wait := connect(t, d)
	startProcs(t, c, 1) // warm up what stays
	c.Close()
	wait()
	time.Sleep(100 * time.Millisecond)
	baseG, baseFD := runtime.NumGoroutine(), fds()

	// Two processes a session still show that all of a session's end, not
	// just its first or last; many sessions a way are TOOLD_LONG=1's.
	perSession := testenv.Size(2, protocol.MaxProcesses-2)
	type sess struct {
		c    *rpc.Client
		wait func() int
		pids []int
	}
	var groups [3][]sess
	perGroup := testenv.Size(1, 5)
	for g := range groups {
		for range perGroup {
			c, wait := connect(t, d)
			groups[g] = append(groups[g], sess{c, wait, startProcs(t, c, perSession)})
		}
	}
	if n := d.svc.Runner.Running(); n != len(groups)*perGroup*perSession {
		var list []protocol.ProcessInfo
		groups[0][0].c.Call(context.Background(), protocol.MethodProcessList, nil, &list)
		t.Fatalf("%d running, want %d; one session's: %+v", n, len(groups)*perGroup*perSession, list)
	}
	for _, s := range groups[0] {
		if err := s.c.Call(context.Background(), protocol.MethodSessionClose, nil, nil); err != nil {
			t.Fatal(err)
		}
		wantGone(t, "session/close", s.pids)
	}
	for _, s := range groups[1] {
		s.c.Close()
		s.wait()
		wantGone(t, "disconnect", s.pids)
	}
	for _, s := range groups[0] { // their sessions are closed: now their connections
		s.c.Close()
		s.wait()
	}
	d.Close()
	for _, s := range groups[2] {
		wantGone(t, "daemon close", s.pids)
		s.c.Close()
		s.wait()
	}
	var g, fd int
	var files []string
	if !testenv.Until(20*time.Second, func() bool {
		g, fd = runtime.NumGoroutine(), fds()
		files, _ = filepath.Glob(filepath.Join(d.svc.Spools.Root(), "*", "*"))
		return g <= baseG && fd <= baseFD && d.svc.Runner.Running() == 0 && len(files) == 0
	}) {
		buf := make([]byte, 1<<20)
		n := runtime.Stack(buf, true)
		t.Fatalf("left behind: goroutines %d (was %d), fds %d (was %d), running %d, files %v\n%s",
			g, baseG, fd, baseFD, d.svc.Runner.Running(), files, buf[:n])
	}
}
