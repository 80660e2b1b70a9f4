package exec_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toold/toold/exec"
	"github.com/toold/toold/internal/testenv"
	"github.com/toold/toold/spool"
)

// tagged lists the live processes whose environment holds tag, with their
// process groups: the commands of a test and all their children.
func tagged(tag string) []string {
	var found []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid := e.Name()
		if pid[0] < '0' || pid[0] > '9' {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", pid, "environ"))
		if err != nil || !bytes.Contains(env, []byte(tag)) {
			continue
		}
		stat, _ := os.ReadFile(filepath.Join("/proc", pid, "stat"))
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 || len(stat) < i+2 {
			continue
		}
		f := strings.Fields(string(stat[i+2:])) // state ppid pgrp ...
		if len(f) > 2 && f[0] != "Z" {
			found = append(found, fmt.Sprintf("pid %s pgid %s state %s", pid, f[2], f[0]))
		}
	}
	return found
}

func openFDs(t *testing.T) int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

// TestReliability runs 1000 commands (TOOLD_LONG=1; 20, each kind of ten
// twice, the one that ignores SIGTERM among them, in the quick run: a leak
// of any kind shows in one run, and the 50 there were cost 1.6 CPU-seconds
// under -race) that exit, time out, are cancelled or leave background
// children, a few at a time, and checks that nothing of them is left: no
// process, no fd, no goroutine, no spool file.
//
// In a child test process of its own (inChild), where the goroutines and
// descriptors it counts are its own.
func TestReliability(t *testing.T) {
	if testing.Short() {
		t.Skip("long: skipped with -short")
	}
	if inChild(t) {
		return
	}
	var b [8]byte
	rand.Read(b[:])
	tag := "TOOLD_RELIABILITY_TAG=" + hex.EncodeToString(b[:])
	env := append(os.Environ(), tag)

	m, err := spool.NewManager(filepath.Join(t.TempDir(), "spool"))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()

	runtime.GC()
	baseGoroutines := runtime.NumGoroutine()
	baseFDs := openFDs(t)

	r := exec.NewRunner(nil)
	runs, workers := testenv.Size(20, 1000), 4
	jobs := make(chan int)
	var wg sync.WaitGroup
	var dirs []*spool.Dir
	for w := range workers {
		d, err := m.Open(fmt.Sprint("worker", w))
		if err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, d)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				if err := reliabilityRun(r, d, env, i); err != nil {
					t.Errorf("run %d: %v", i, err)
				}
			}
		}()
	}
	// The runs that need the kill delay's SIGKILL first: the others run
	// while it passes, and Close waits for the last one.
	for _, kill := range []bool{true, false} {
		for i := range runs {
			if needsKill(i) == kill {
				jobs <- i
			}
		}
	}
	close(jobs)
	wg.Wait()
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}

	// Signals and reaping by init are asynchronous: allow them a moment.
	var left []string
	if !testenv.Until(10*time.Second, func() bool { left = tagged(tag); return len(left) == 0 }) {
		t.Fatalf("processes left after Close: %v", left)
	}
	if m.Bytes() == 0 {
		t.Error("nothing was spooled: the test lost its spooling runs")
	}
	for _, d := range dirs {
		if err := d.Remove(); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(d.Path()); !os.IsNotExist(err) {
			t.Fatalf("spool dir %s left: %v", d.Path(), err)
		}
	}
	if m.Bytes() != 0 {
		t.Errorf("spool bytes after Remove: %d", m.Bytes())
	}
	if n := openFDs(t); n != baseFDs {
		t.Errorf("open fds: %d before, %d after", baseFDs, n)
	}
	if !testenv.Until(10*time.Second, func() bool { return runtime.NumGoroutine() <= baseGoroutines }) {
		buf := make([]byte, 1<<20)
		t.Fatalf("goroutines: %d before, %d after\n%s", baseGoroutines, runtime.NumGoroutine(), buf[:runtime.Stack(buf, true)])
	}
}

// needsKill reports whether run i ignores SIGTERM, and so takes the kill
// delay to end.
func needsKill(i int) bool { return i%50 == 7 }

func reliabilityRun(r *exec.Runner, d *spool.Dir, env []string, i int) error {
	spec := exec.Spec{Env: env, Output: defaults, Spool: spoolTo(d)}
	ctx := context.Background()
	check := func(res *exec.Result) error { return nil }
	switch i % 10 {
	case 0, 1:
		spec.Command = "echo hi; echo err >&2"
		check = func(res *exec.Result) error {
			if res.Stdout.Head != "hi\n" || res.Stderr.Head != "err\n" || *res.ExitCode != 0 {
				return fmt.Errorf("quick: %+v", res)
			}
			return nil
		}
	case 2:
		spec.Argv = []string{"sh", "-c", "exit 3"}
		check = func(res *exec.Result) error {
			if res.ExitCode == nil || *res.ExitCode != 3 {
				return fmt.Errorf("exit: %+v", res)
			}
			return nil
		}
	case 3, 4:
		spec.Command = "echo start; sleep 60 & sleep 60"
		spec.Timeout = 50 * time.Millisecond
		check = func(res *exec.Result) error {
			if !res.TimedOut || res.Signal == nil {
				return fmt.Errorf("timeout: %+v", res)
			}
			return nil
		}
	case 5, 6:
		spec.Command = "sleep 60 & sleep 60"
		c, cancel := context.WithCancel(ctx)
		defer cancel()
		time.AfterFunc(time.Duration(i%40)*time.Millisecond, cancel)
		ctx = c
		check = func(res *exec.Result) error {
			if !res.Cancelled && res.ExitCode != nil && *res.ExitCode == 0 {
				return fmt.Errorf("cancel: %+v", res)
			}
			return nil
		}
	case 7, 8:
		spec.Command = "sleep 60 & echo bg"
		if needsKill(i) {
			spec.Command = ignoresTerm + "; echo bg" // needs the SIGKILL
		}
		check = func(res *exec.Result) error {
			if res.Stdout.Head != "bg\n" || *res.ExitCode != 0 {
				return fmt.Errorf("background: %+v", res)
			}
			return nil
		}
	case 9:
		spec.Command = "seq 1 30000"
		spec.Stdin = strp(strings.Repeat("unread\n", 10000))
		check = func(res *exec.Result) error {
			if !res.Stdout.Truncated || res.Stdout.Spool == nil || res.Stdout.Spool.Bytes != res.Stdout.TotalBytes {
				return fmt.Errorf("spooled: %+v", res.Stdout)
			}
			return nil
		}
	}
	res, err := r.Run(ctx, spec)
	if err != nil {
		return err
	}
	return check(res)
}
