package proc

import (
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"
)

func TestStatSelf(t *testing.T) {
	info, err := Stat(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if info.PGID != syscall.Getpgrp() || info.Zombie || info.Ticks == 0 || info.Boot == "" {
		t.Errorf("Stat(self) = %+v, pgrp %d", info, syscall.Getpgrp())
	}
	if _, err := Stat(1 << 30); err == nil {
		t.Error("Stat of no process succeeded")
	}
}

// TestLive: a child is found by its group and by its marker, only when it
// started no earlier than since, and never by an empty query.
func TestLive(t *testing.T) {
	marker := "TOOLD_PROC_TEST=" + strconv.FormatInt(time.Now().UnixNano(), 10)
	before, err := Stat(os.Getpid()) // started before the child
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sleep", "100")
	cmd.Env = append(os.Environ(), marker)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	pid := cmd.Process.Pid
	child, err := Stat(pid)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		since Start
		pgid  int
		env   string
		want  bool
	}{
		{"by group", before.Start, pid, "", true},
		{"by marker", before.Start, 0, marker, true},
		{"started before since", Start{Boot: child.Boot, Ticks: child.Ticks + 1}, pid, marker, false},
		{"another boot", Start{Boot: "x", Ticks: 0}, pid, marker, false},
		{"empty query", before.Start, 0, "", false},
		{"another marker", before.Start, 0, marker + "x", false},
	}
	for _, tc := range cases {
		if got := slices.Contains(Live(tc.since, tc.pgid, tc.env), pid); got != tc.want {
			t.Errorf("%s: found %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestChildren: the children of every thread are listed (os/exec forks on
// whichever thread runs the goroutine: children are started here from
// goroutines locked to threads of their own), exited ones until reaped,
// reaped ones no more; and HasEnv finds a child's marker.
func TestChildren(t *testing.T) {
	marker := "TOOLD_PROC_CHILDREN=" + strconv.FormatInt(time.Now().UnixNano(), 10)
	const n = 4
	cmds := make([]*exec.Cmd, n)
	errs := make(chan error, n)
	for i := range cmds {
		go func() {
			runtime.LockOSThread() // not unlocked: the thread ends with the goroutine
			cmd := exec.Command("sleep", "100")
			cmd.Env = append(os.Environ(), marker)
			cmds[i] = cmd
			errs <- cmd.Start()
		}()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	defer func() {
		for _, c := range cmds {
			c.Process.Kill()
			c.Wait()
		}
	}()
	kids, ok := Children()
	if !ok {
		t.Skip("this kernel lists no children (/proc/self/task/*/children)")
	}
	for _, c := range cmds {
		if !slices.Contains(kids, c.Process.Pid) {
			t.Errorf("child %d not among %v", c.Process.Pid, kids)
		}
		if has, ok := HasEnv(c.Process.Pid, marker); !has || !ok {
			t.Errorf("child %d: HasEnv %v, %v", c.Process.Pid, has, ok)
		}
	}
	c := cmds[0]
	c.Process.Kill()
	c.Wait()
	if kids, _ := Children(); slices.Contains(kids, c.Process.Pid) {
		t.Errorf("child %d, reaped, still listed: %v", c.Process.Pid, kids)
	}
}
