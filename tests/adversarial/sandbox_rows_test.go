package adversarial

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The sandbox on the kernels people run: each protection by the
// best mechanism the kernel has, a session refused (-32007) only when a
// protection has none, and initialize's sandbox.unenforced exactly what is
// left. The rows are the Landlock ABIs from 1 to this kernel's
// (TOOLD_SANDBOX_ABI) with user namespaces and without
// (TOOLD_SANDBOX_USERNS=0); each row's unenforced is checked against the
// sentences below, written out here, and its probes attack what it
// enforces.

// hostSandbox is what this system can enforce, as the daemon's stats say.
type hostSandbox struct {
	OS             string `json:"os"`
	LandlockABI    int    `json:"landlockABI"`
	UserNamespaces bool   `json:"userNamespaces"`
	Seccomp        bool   `json:"seccomp"`
	Cgroups        bool   `json:"cgroups"`
}

var (
	hostOnce sync.Once
	host     hostSandbox
)

// sandboxHost asks a daemon, once, what this system can enforce.
func sandboxHost(t *testing.T) hostSandbox {
	t.Helper()
	hostOnce.Do(func() {
		_, c := daemonStdio(t)
		var st struct{ Sandbox hostSandbox }
		sandboxCall(t, c, 1, "stats", map[string]any{"sandbox": true}, &st)
		host = st.Sandbox
	})
	if host.OS == "" {
		t.Fatal("no sandbox in stats")
	}
	return host
}

// sandboxRow is one kernel the sandbox runs on.
type sandboxRow struct {
	abi    int
	userns bool
}

func (r sandboxRow) String() string {
	return fmt.Sprintf("abi%d-userns%v", r.abi, r.userns)
}

// env is the daemon's environment for the row.
func (r sandboxRow) env() []string {
	env := []string{"TOOLD_SANDBOX_ABI=" + strconv.Itoa(r.abi)}
	if !r.userns {
		env = append(env, "TOOLD_SANDBOX_USERNS=0")
	}
	return env
}

// sandboxRows are the rows this kernel can show: every ABI from 1 to the
// kernel's with user namespaces, and the kernel's and ABI 1 without.
func sandboxRows(t *testing.T) []sandboxRow {
	h := sandboxHost(t)
	if h.LandlockABI == 0 || !h.UserNamespaces {
		t.Skipf("needs Landlock and user namespaces to take them away: %+v", h)
	}
	var rows []sandboxRow
	for abi := 1; abi <= h.LandlockABI; abi++ {
		rows = append(rows, sandboxRow{abi, true})
	}
	return append(rows, sandboxRow{h.LandlockABI, false}, sandboxRow{1, false})
}

// wantPlan is what a session of mode (network as given) leaves unenforced
// on row, and what of that refuses it without bestEffort, sentence by
// sentence as PROTOCOL.md's "unenforced names exactly what is missing".
func wantPlan(h hostSandbox, r sandboxRow, network bool) (unenforced, refused []string) {
	need := func(abi int, what string) string {
		return fmt.Sprintf("Landlock ABI %d needed for %s, this kernel has %d", abi, what, r.abi)
	}
	noNS := "no user namespaces (TOOLD_SANDBOX_USERNS=0)"
	partial := func(s string) { unenforced = append(unenforced, s) }
	refuse := func(s string) { unenforced, refused = append(unenforced, s), append(refused, s) }
	if r.abi < 3 {
		partial(need(3, "truncation of files outside the writable dirs"))
	}
	if r.abi < 5 {
		partial(need(5, "ioctl on devices"))
	}
	if !network && !h.Seccomp {
		if r.userns {
			partial("sockets of families that no network namespace confines (AF_VSOCK, to the hypervisor): seccomp is needed")
		} else if r.abi >= 10 {
			partial("the network off for other sockets than TCP and UDP, which Landlock blocks: " + noNS + " and no seccomp")
		} else if r.abi >= 4 {
			partial("the network off for UDP and other sockets than TCP, which Landlock blocks: " + noNS + " and no seccomp")
		} else {
			refuse("the network off: " + noNS + ", no seccomp, and " + need(4, "TCP"))
		}
	}
	if r.abi < 6 && !r.userns {
		refuse(need(6, "signal scoping") + ", and " + noNS + " for a PID namespace")
	}
	if !r.userns && !h.Seccomp {
		partial("resource limits of processes outside the sandbox (prlimit(2) of the daemon): " + noNS + " for a PID namespace, and no seccomp")
	}
	if r.abi < 6 && (network || !r.userns) {
		why := need(6, "abstract unix socket scoping")
		if !network {
			why += ", and " + noNS + " for a network namespace"
		}
		refuse(why)
	}
	if r.abi < 9 {
		if r.userns {
			partial(need(9, "unix sockets by path") + ": the mount namespace hides only the user's runtime dir, toold's socket dir, and the sockets of container engines, virtual machines, databases, X11, tmux, screen and the system bus")
		} else {
			refuse(need(9, "unix sockets by path (the session bus, docker's socket)") + ", and " + noNS + " for a mount namespace")
		}
	}
	if !r.userns && !h.Cgroups {
		partial("processes that leave their group and drop toold's marker outlive the session: " + noNS + " for a PID namespace, and no delegated cgroup")
	}
	return unenforced, refused
}

// sandboxInfo is initialize's result's sandbox.
type sandboxInfo struct {
	Mode           string
	Unenforced     []string
	LandlockABI    int  `json:"landlockABI"`
	UserNamespaces bool `json:"userNamespaces"`
	TmpDir         string
}

// sandboxInitRow starts a session in mode on row's daemon and checks its
// sandbox against the row: -32007 naming exactly what has no mechanism
// (then bestEffort), unenforced exactly what is left, the ABI and user
// namespaces in use.
func sandboxInitRow(t *testing.T, c *rawClient, id int, w *sandboxWorld, h hostSandbox, r sandboxRow, mode string, network bool) sandboxInfo {
	t.Helper()
	box := map[string]any{"mode": mode, "network": network}
	params := map[string]any{"cwd": w.proj, "roots": []string{w.proj}, "sandbox": box}
	wantU, wantR := wantPlan(h, r, network)
	if len(wantR) > 0 {
		m := c.call(id, "initialize", params, 30*time.Second)
		var data struct{ Missing []string }
		if m.Error != nil {
			json.Unmarshal(m.Error.Data, &data)
		}
		if m.Error == nil || m.Error.Code != -32007 || !slices.Equal(data.Missing, wantR) {
			t.Fatalf("%s: want -32007 with missing %q, got %+v", r, wantR, m.Error)
		}
		box["bestEffort"] = true
	}
	var res struct {
		Notice  *string
		Sandbox *sandboxInfo
	}
	sandboxCall(t, c, id+1, "initialize", params, &res)
	s := res.Sandbox
	if s == nil || s.Mode != mode || !slices.Equal(s.Unenforced, wantU) || s.LandlockABI != r.abi || s.UserNamespaces != r.userns {
		t.Fatalf("%s: sandbox %+v, want unenforced %q, landlockABI %d, userNamespaces %v", r, s, wantU, r.abi, r.userns)
	}
	if len(wantU) > 0 && (res.Notice == nil || !strings.Contains(*res.Notice, wantU[0])) {
		t.Errorf("%s: the notice does not say what is not enforced: %v", r, deref(res.Notice))
	}
	return *s
}

// TestSandboxRows: at each row, a workspace-write session with the
// network off and on is refused exactly when the row
// has no mechanism for a protection, says exactly what it leaves, and
// holds against the probes of what it enforces: writes and truncation
// outside, a signal to the daemon, its environment, TCP, UDP and AF_VSOCK
// out, a host service's unix socket in the runtime dir, an abstract socket.
func TestSandboxRows(t *testing.T) {
	// The quick run keeps TestSandboxReadOnly on stdio instead.
	skipUnlessLong(t, "the kernel features' rows")
	t.Parallel()
	h := sandboxHost(t)
	for _, r := range sandboxRows(t) {
		for _, network := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/network=%v", r, network), func(t *testing.T) {
				t.Parallel()
				sandboxRowProbes(t, h, r, network)
			})
		}
	}
}

func sandboxRowProbes(t *testing.T, h hostSandbox, r sandboxRow, network bool) {
	w := newSandboxWorld(t)
	run, bus := runtimeDirWithBus(t)
	p, c := daemonStdioEnv(t, append(r.env(), "XDG_RUNTIME_DIR="+run))
	info := sandboxInitRow(t, c, 1, w, h, r, "workspace-write", network)
	daemon := strconv.Itoa(p.cmd.Process.Pid)
	denied := []string{"Permission denied"}
	probes := []sandboxProbe{
		{"write outside", "echo x > " + w.out + "/direct", denied, false},
		{"write through a symlink", "echo x > linkdir/via-link", denied, false},
		{"the daemon's environment", "cat /proc/" + daemon + "/environ", []string{"Permission denied", "No such file"}, false},
		{"write inside", "echo in > in.txt && echo t > $TMPDIR/t", nil, true},
	}
	if r.abi >= 6 || r.userns { // else unenforced: the row's bestEffort says so
		probes = append(probes, sandboxProbe{"signal the daemon", "kill -TERM " + daemon, []string{"Operation not permitted", "No such process"}, false})
	}
	if r.userns || h.Seccomp {
		// Landlock's scoping does not cover resource limits: RLIMIT_CPU
		// of 0 would end the daemon, RLIMIT_NOFILE of 3 cripple it.
		probes = append(probes, sandboxProbe{"prlimit the daemon", "prlimit --pid " + daemon + " --nofile=3:3 --cpu=1:1",
			[]string{"Operation not permitted", "No such process"}, false})
	}
	if r.abi >= 3 {
		probes = append(probes, sandboxProbe{"truncate outside", "truncate -s 0 " + w.secret, denied, false})
	}
	if r.userns {
		probes = append(probes, sandboxProbe{"a host service's socket in the runtime dir",
			python3() + ` -c 'import socket; s=socket.socket(socket.AF_UNIX); s.connect("` + bus + `")'`,
			[]string{"FileNotFoundError", "ConnectionRefused"}, false})
	}
	if !network && h.Seccomp {
		probes = append(probes, sandboxProbe{"AF_VSOCK", python3() + ` -c 'import socket; socket.socket(socket.AF_VSOCK, socket.SOCK_STREAM)'`, []string{"PermissionError"}, false})
	}
	for i, pr := range probes {
		runProbe(t, c, 10+i, w, pr)
	}
	if st := p.wait(0); st != -1 {
		t.Fatalf("%s: the daemon exited (%d) under the probes", r, st)
	}
	if !network {
		sandboxNetwork(t, c, w)
	}
	if r.abi >= 6 || (!network && r.userns) {
		sandboxAbstract(t, c, w)
	}
	_ = info
}

// runtimeDirWithBus is a runtime dir (XDG_RUNTIME_DIR) with a service's
// socket in it, listening, that no sandboxed command may reach; the test
// fails if one connects.
func runtimeDirWithBus(t *testing.T) (dir, sock string) {
	t.Helper()
	dir = daemonPrivateDir(t)
	os.Chmod(dir, 0o755) // as 65534 too
	sock = filepath.Join(dir, "bus")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(sock, 0o777)
	t.Cleanup(func() {
		ln.(*net.UnixListener).SetDeadline(time.Now())
		if c, err := ln.Accept(); err == nil {
			c.Close()
			t.Error("a sandboxed command connected to the session bus in the runtime dir")
		}
		ln.Close()
	})
	return dir, sock
}

// sandboxAbstract: an abstract unix socket of the host refuses a
// sandboxed command (scoped by Landlock, or another network namespace's).
func sandboxAbstract(t *testing.T, c *rawClient, w *sandboxWorld) {
	t.Helper()
	name := fmt.Sprintf("toold-test-%d-%d", os.Getpid(), time.Now().UnixNano())
	ln, err := net.Listen("unix", "@"+name)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	runProbe(t, c, 90, w, sandboxProbe{"abstract socket", python3() + ` -c 'import socket; s=socket.socket(socket.AF_UNIX); s.connect("\0` + name + `")'`,
		[]string{"Operation not permitted", "ConnectionRefused"}, false})
	ln.(*net.UnixListener).SetDeadline(time.Now())
	if conn, err := ln.Accept(); err == nil {
		conn.Close()
		t.Error("a sandboxed command reached the host's abstract socket")
	}
}
