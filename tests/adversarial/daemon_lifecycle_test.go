package adversarial

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toold/toold/internal/testenv"
)

// Lifecycle faults: a daemon killed with its commands running, a forwarder
// whose daemon dies.

// daemonPidsOf lists the pids of processes whose command line holds marker.
func daemonPidsOf(marker string) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && strings.Contains(string(b), marker) {
			if st, err := os.ReadFile("/proc/" + e.Name() + "/stat"); err == nil {
				if i := strings.LastIndexByte(string(st), ')'); i > 0 && strings.HasPrefix(string(st[i+1:]), " Z") {
					continue // a zombie
				}
			}
			pids = append(pids, pid)
		}
	}
	return pids
}

// daemonMarker is a duration for sleep that no other process has, to find
// the processes of one case by their command line.
func daemonMarker() string {
	return "3000." + strconv.FormatInt(time.Now().UnixNano()%1e9, 10)
}

// waitGone waits up to d until no process holds marker.
func waitGone(marker string, d time.Duration) []int {
	var left []int
	testenv.Until(d, func() bool { left = daemonPidsOf(marker); return len(left) == 0 })
	return left
}

// TestDaemonKilledCommandsSwept: a daemon SIGKILLed while its commands run
// (one in the exec's group, one escaped with setsid) leaves them running;
// the next daemon on the same spool root ends the ones its records name as
// it sweeps. Where the session has a PID namespace (sandboxed) or a cgroup
// (the system delegates one), they die with the daemon instead.
func TestDaemonKilledCommandsSwept(t *testing.T) {
	// The quick run keeps TestDaemonExecSignals and TestDaemonForwarderDaemonKilled instead.
	skipUnlessLong(t, "a killed daemon's commands swept")
	t.Parallel() // daemons and files of its own: it waits beside the others
	for _, mode := range []string{"off", "workspace-write"} {
		t.Run(mode, func(t *testing.T) { killedCommandsSwept(t, mode) })
	}
}

func killedCommandsSwept(t *testing.T, mode string) {
	root := filepath.Join(t.TempDir(), "spool")
	marker := daemonMarker()
	p := daemonStart(t, 0, "serve", "--spool-root", root)
	in, _ := p.cmd.StdinPipe()
	out := p.stdout(t)
	p.run(t)
	c := newRawClient(t, in, out)
	if mode != "off" {
		if m := c.call(100, "initialize", map[string]any{"cwd": t.TempDir(), "sandbox": map[string]any{"mode": mode}}, 10*time.Second); m.Error != nil {
			t.Fatalf("initialize: %+v", m.Error)
		}
		if m := c.call(101, "exec", map[string]any{"command": "true"}, 10*time.Second); m.Error != nil {
			t.Fatalf("exec: %+v", m.Error)
		}
	}
	t.Cleanup(func() {
		for _, pid := range daemonPidsOf(marker) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	c.send(rawRequest(1, "exec", map[string]any{"command": "sleep " + marker + " & setsid sleep " + marker + " & sleep " + marker + "; true"}))
	if !testenv.Until(10*time.Second, func() bool { return len(daemonPidsOf(marker)) >= 3 }) {
		t.Fatalf("%d commands running, want 3", len(daemonPidsOf(marker)))
	}
	// The group is recorded just after the command starts: a daemon killed
	// in between (microseconds, more on a loaded machine) leaves nothing to
	// sweep by, which is not what this case is about.
	testenv.WaitFor(t, 10*time.Second, "a group record in the session's directory", func() bool {
		recs, _ := filepath.Glob(filepath.Join(root, "*", "*.group"))
		return len(recs) > 0
	})
	p.cmd.Process.Kill()
	p.wait(10 * time.Second)
	if n := len(daemonPidsOf(marker)); n < 3 {
		// They die with the daemon where the session has a PID namespace
		// (its init dies with the daemon and the kernel ends every
		// process in it) or a cgroup (the cgroups' guard kills what is
		// left in it): all of them then, setsid's too.
		if left := waitGone(marker, 10*time.Second); len(left) > 0 {
			t.Errorf("processes %v outlive their daemon, neither ended with it nor swept", left)
		}
		return
	}
	recs, _ := filepath.Glob(filepath.Join(root, "*", "*.group"))
	for _, r := range recs {
		b, _ := os.ReadFile(r)
		t.Logf("record %s: %q", r, b) // shown if the sweep misses them
	}
	q := daemonStart(t, 0, "serve", "--spool-root", root)
	q.cmd.StdinPipe()
	q.run(t)
	if left := waitGone(marker, 10*time.Second); len(left) > 0 {
		t.Errorf("processes %v of the killed daemon still run after the next daemon's sweep", left)
	}
}

// TestDaemonForwarderDaemonKilled: a forwarder whose
// daemon is killed under it answers the requests in flight with an error,
// says so on stderr and exits non-zero (the original exited 0, silent).
func TestDaemonForwarderDaemonKilled(t *testing.T) {
	t.Parallel() // daemons and files of its own: it waits beside the others
	d, sock := daemonShared(t, 0)
	f := daemonStart(t, 0, "--remote="+sock)
	in, _ := f.cmd.StdinPipe()
	out := f.stdout(t)
	f.run(t)
	c := newRawClient(t, in, out)
	if m := c.call(1, "stats", nil, 10*time.Second); m.Error != nil {
		t.Fatalf("stats through the forwarder: %+v", m.Error)
	}
	c.send(rawRequest(2, "exec", map[string]any{"command": "sleep 3"}))
	// Killed while the command runs: another client sees it running.
	probe, id := daemonDial(t, sock), 0
	testenv.WaitFor(t, 10*time.Second, "the forwarded exec to start", func() bool {
		var st struct {
			ExecsRunning int `json:"execsRunning"`
		}
		id++
		if m := probe.call(id, "stats", nil, 10*time.Second); m.Error != nil || json.Unmarshal(m.Result, &st) != nil {
			t.Fatalf("stats: %s %+v", m.Result, m.Error)
		}
		return st.ExecsRunning > 0
	})
	d.cmd.Process.Kill()
	m := c.next(10 * time.Second)
	if string(m.ID) != "2" || m.Error == nil {
		t.Errorf("the request in flight got %s %s %+v, want an error reply", m.ID, m.Result, m.Error)
	}
	code := f.wait(testenv.Loaded(10 * time.Second))
	if code <= 0 {
		t.Errorf("the forwarder exited %d, want non-zero", code)
	}
	if !strings.Contains(f.stderr.String(), "daemon") {
		t.Errorf("the forwarder's stderr does not say what happened: %q", f.stderr.String())
	}
}
