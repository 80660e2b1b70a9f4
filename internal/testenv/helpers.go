package testenv

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"
)

// WaitFor polls cond (as Until does) until it holds, and fails the test
// with what if d passes first. Tests wait on a condition, never on a fixed sleep:
// a sleep long enough for a loaded CI machine wastes time on a quiet one.
func WaitFor(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	if !Until(d, cond) {
		t.Fatalf("waited %v for %s", d, what)
	}
}

// Until polls cond until it holds or d passes, and reports whether it
// held: for a wait whose caller says more than WaitFor's message when it
// does not (the daemon's log, what was seen last), or goes on either way.
// It polls every 10 ms at first, then less often, up to every 50 ms: a
// condition that scans /proc or asks a daemon costs CPU that a long wait
// took from the tests beside it.
func Until(d time.Duration, cond func() bool) bool {
	deadline, pause := time.Now().Add(d), 10*time.Millisecond
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(pause)
		pause = min(pause*5/4, 50*time.Millisecond)
	}
	return true
}

// Alive reports whether pid runs. A zombie that its parent has yet to reap
// does not: kill(pid, 0) succeeds on one, so /proc's state field is read.
func Alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false // gone between the two calls
	}
	i := bytes.LastIndexByte(b, ')') // the command name may hold spaces and ')'
	return !(i > 0 && len(b) > i+2 && b[i+2] == 'Z')
}

// Buffer is a bytes.Buffer that a process or logger writes while the test
// reads it: exec.Cmd copies a child's output from a goroutine of its own.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p under the lock.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

// String returns what was written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// WriteFile writes data to path (0644), creating its parent directories,
// and fails the test on an error; it returns path.
func WriteFile(t testing.TB, path string, data []byte) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
