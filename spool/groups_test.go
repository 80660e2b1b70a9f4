package spool

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toold/toold/internal/proc"
	"github.com/toold/toold/internal/testenv"
)

// groupCmd starts script in a process group of its own, with env added to
// its environment.
func groupCmd(t *testing.T, script string, env ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pgid := cmd.Process.Pid
	t.Cleanup(func() { syscall.Kill(-pgid, syscall.SIGKILL); cmd.Wait() })
	return cmd
}

// groupAlive reports whether a process that has not exited is left in
// group pgid.
func groupAlive(pgid int) bool { return len(proc.Live(proc.Start{Boot: proc.BootID()}, pgid, "")) > 0 }

// deadDaemonDir makes a session directory of a daemon that died: its pid
// is that of a process that has exited.
func deadDaemonDir(t *testing.T, root string) *Dir {
	t.Helper()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(root, strconv.Itoa(dead.Process.Pid)+"-s1")
	if err := os.Mkdir(path, 0o700); err != nil {
		t.Fatal(err)
	}
	return &Dir{path: path, files: map[string]*File{}}
}

// TestSweepEndsGroups: a daemon killed outright leaves its commands
// running; the sweep of a dead daemon's directories kills what is left of
// the groups they record, and only that:
// a record whose leader's start time differs (the number reused), or made
// before a reboot, is left alone.
func TestSweepEndsGroups(t *testing.T) {
	cases := []struct {
		name   string
		script string
		reap   bool                        // the leader has exited and been reaped
		edit   func(rec proc.Start) string // rewrites the record; nil keeps it
		killed bool
	}{
		{"leader and child", "sleep 100 & sleep 100", false, nil, true},
		{"leader gone, child left in the group", "sleep 100 & exit 0", true, nil, true},
		{"a child that left the group (setsid)", "setsid sleep 100 & sleep 100", false, nil, true},
		{"number reused: another start time", "sleep 100", false, func(r proc.Start) string {
			return r.Boot + " " + strconv.FormatUint(r.Ticks+1, 10)
		}, false},
		{"leader gone, members older than the record", "sleep 100 & exit 0", true, func(r proc.Start) string {
			return r.Boot + " " + strconv.FormatUint(r.Ticks+1_000_000, 10)
		}, false},
		{"recorded before a reboot", "sleep 100", false, func(r proc.Start) string {
			return "00000000-0000-0000-0000-000000000000 " + strconv.FormatUint(r.Ticks, 10)
		}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "spool")
			m, err := NewManager(root)
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			marker := "TOOLD_TEST_GROUP=" + strconv.Itoa(os.Getpid()) + "-" + strconv.FormatInt(time.Now().UnixNano(), 10)
			cmd := groupCmd(t, tc.script, marker)
			pgid := cmd.Process.Pid
			t.Cleanup(func() {
				for _, pid := range proc.Live(proc.Start{Boot: proc.BootID()}, 0, marker) {
					syscall.Kill(pid, syscall.SIGKILL)
				}
			})
			d := deadDaemonDir(t, root)
			startedSleeps(t, marker, strings.Count(tc.script, "sleep"))
			if _, err := d.RecordGroup(pgid, marker); err != nil {
				t.Fatal(err)
			}
			record := filepath.Join(d.path, strconv.Itoa(pgid)+groupSuffix)
			if tc.edit != nil {
				rec, err := readRecord(record)
				if err != nil {
					t.Fatal(err)
				}
				os.WriteFile(record, []byte(tc.edit(rec.start)+"\n"), 0o600)
			}
			if tc.reap {
				cmd.Wait()
			}
			if _, err := m.Sweep(); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(d.path); !os.IsNotExist(err) {
				t.Errorf("the dead daemon's directory is left: %v", err)
			}
			// SIGKILL is sent, not yet done: wait for the group and for the
			// marked processes outside it (the setsid child) to be gone.
			marked := func() []int { return proc.Live(proc.Start{Boot: proc.BootID()}, 0, marker) }
			if tc.killed {
				testenv.Until(5*time.Second, func() bool { return !groupAlive(pgid) && len(marked()) == 0 })
			}
			if alive := groupAlive(pgid); alive == tc.killed {
				t.Errorf("group alive after the sweep: %v, want %v", alive, !tc.killed)
			}
			if live := marked(); tc.killed && len(live) > 0 {
				t.Errorf("processes %v with the group's marker live on", live)
			}
		})
	}
}

// startedSleeps waits (up to 10 s) until n processes with marker run
// sleep: the script's children have started, and a setsid has moved its
// child out of the group. A fixed 50 ms was too short at a load of 14: the
// sweep ran while the setsid child was still on its way out, and missed it.
func startedSleeps(t *testing.T, marker string, n int) {
	t.Helper()
	sleeps := 0
	started := func() bool {
		sleeps = 0
		for _, pid := range proc.Live(proc.Start{Boot: proc.BootID()}, 0, marker) {
			if comm, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm"); string(comm) == "sleep\n" {
				sleeps++
			}
		}
		return sleeps >= n
	}
	if !testenv.Until(10*time.Second, started) {
		t.Fatalf("%d of %d sleeps with %s started in 10 s", sleeps, n, marker)
	}
}

// TestRecordGroupForget: a live daemon forgets a group once it has ended,
// and a removed directory records nothing.
func TestRecordGroupForget(t *testing.T) {
	m, err := NewManager(filepath.Join(t.TempDir(), "spool"))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	d, err := m.Open("s1")
	if err != nil {
		t.Fatal(err)
	}
	forget, err := d.RecordGroup(os.Getpid(), "")
	if err != nil {
		t.Fatal(err)
	}
	if names, _ := filepath.Glob(filepath.Join(d.Path(), "*"+groupSuffix)); len(names) != 1 {
		t.Fatalf("records: %v", names)
	}
	forget()
	if names, _ := filepath.Glob(filepath.Join(d.Path(), "*"+groupSuffix)); len(names) != 0 {
		t.Fatalf("records after forget: %v", names)
	}
	d.Remove()
	if _, err := d.RecordGroup(os.Getpid(), ""); err == nil {
		t.Error("a removed directory recorded a group")
	}
}

// TestSweepOddRecords: a group record a command replaced with a FIFO, a
// symlink to /dev/zero or a huge file neither hangs nor swells the sweep
// of the next daemon to start (it read the record with os.ReadFile: the
// FIFO held it for good, /dev/zero without end); the directory goes.
func TestSweepOddRecords(t *testing.T) {
	root := filepath.Join(t.TempDir(), "spool")
	m, err := Start(root)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	d := deadDaemonDir(t, root)
	if err := syscall.Mkfifo(filepath.Join(d.path, "4242.group"), 0o600); err != nil {
		t.Fatal(err)
	}
	os.Symlink("/dev/zero", filepath.Join(d.path, "4243.group"))
	big := strings.Repeat("x ", 1<<20)
	os.WriteFile(filepath.Join(d.path, "4244.group"), []byte(big), 0o600)
	done := make(chan error, 1)
	go func() { _, err := m.Sweep(); done <- err }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the sweep hangs on a FIFO record") // its goroutine is left blocked
	}
	if _, err := os.Lstat(d.path); !os.IsNotExist(err) {
		t.Errorf("the dead daemon's dir after the sweep: %v", err)
	}
}
