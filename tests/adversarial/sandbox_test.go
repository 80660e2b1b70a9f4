package adversarial

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toold/toold/internal/testenv"
)

// The sandbox: the built daemon, on every transport, runs a
// session's commands under workspace-write with roots = a temp project, and
// each probe tries a way out. A probe asserts the command's error and that
// nothing outside the project changed.

// sandboxWorld is a project (the root), a directory outside it with a
// secret, and the ways into it a command finds ready-made: a symlink to
// the outside dir and one to the secret, inside the project.
type sandboxWorld struct {
	proj, out, secret string
}

func newSandboxWorld(t *testing.T) *sandboxWorld {
	t.Helper()
	base := t.TempDir()
	w := &sandboxWorld{proj: filepath.Join(base, "proj"), out: filepath.Join(base, "outside")}
	w.secret = filepath.Join(w.out, "secret")
	write(t, w.secret, "SECRET\n")
	write(t, filepath.Join(w.proj, "README"), "project\n")
	for link, target := range map[string]string{"linkdir": w.out, "secretlink": w.secret} {
		if err := os.Symlink(target, filepath.Join(w.proj, link)); err != nil {
			t.Fatal(err)
		}
	}
	// Let the probes run as another uid (TestSandboxAsNobody).
	for _, d := range []string{base, w.proj, w.out} {
		os.Chmod(d, 0o777)
	}
	os.Chmod(w.secret, 0o666)
	return w
}

// snapshot is every entry beneath dir: its type, mode and content's hash.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			out[path] = "error: " + err.Error()
			return nil
		}
		fi, _ := d.Info()
		sum := ""
		if d.Type().IsRegular() {
			b, _ := os.ReadFile(path)
			h := sha256.Sum256(b)
			sum = hex.EncodeToString(h[:8])
		}
		out[path] = fmt.Sprintf("%v %s", fi.Mode(), sum)
		return nil
	})
	return out
}

// unchanged fails t if dir is not as before.
func unchanged(t *testing.T, dir string, before map[string]string, probe string) {
	t.Helper()
	after := snapshot(t, dir)
	for p, v := range after {
		if before[p] != v {
			t.Errorf("%s: %s changed outside the project: %q, was %q", probe, p, v, before[p])
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			t.Errorf("%s: %s was removed outside the project", probe, p)
		}
	}
}

// sandboxResult is the part of exec's (and process/wait's) result a probe
// checks.
type sandboxResult struct {
	ExitCode *int    `json:"exitCode"`
	Process  *string `json:"process"`
	Notice   *string `json:"notice"`
	Stdout   struct{ Head, Tail string }
	Stderr   struct{ Head, Tail string }
}

func (r *sandboxResult) output() string {
	return r.Stdout.Head + r.Stdout.Tail + r.Stderr.Head + r.Stderr.Tail
}

// sandboxCall makes a request that must succeed and decodes its result.
func sandboxCall(t *testing.T, c *rawClient, id int, method string, params any, out any) {
	t.Helper()
	m := c.call(id, method, params, 30*time.Second)
	if m.Error != nil {
		t.Fatalf("%s %v: %+v", method, params, m.Error)
	}
	if out != nil {
		if err := json.Unmarshal(m.Result, out); err != nil {
			t.Fatal(err)
		}
	}
}

// sandboxExec runs command in the project.
func sandboxExec(t *testing.T, c *rawClient, id int, w *sandboxWorld, command string) sandboxResult {
	t.Helper()
	var r sandboxResult
	sandboxCall(t, c, id, "exec", map[string]any{"command": command, "cwd": w.proj}, &r)
	return r
}

// sandboxInit starts a session in mode with roots = the project, and
// checks it leaves unenforced exactly what this kernel's row does.
func sandboxInit(t *testing.T, c *rawClient, id int, w *sandboxWorld, mode string) {
	t.Helper()
	h := sandboxHost(t)
	sandboxInitRow(t, c, id, w, h, sandboxRow{h.LandlockABI, h.UserNamespaces}, mode, false)
}

// sandboxTransports starts a daemon on each transport and returns a way to
// open a client (a session) on it: stdio (a daemon per client), the shared
// socket, and --remote=auto's forwarder. The socket is returned too, for
// the probes that try to reach the shared daemon from inside.
func sandboxTransports(t *testing.T) (map[string]func(t *testing.T) *rawClient, string) {
	_, sock := daemonShared(t, 0)
	return sandboxOpeners(sock), sock
}

// sandboxOpeners are the ways to open a client on each transport, the
// socket's on the shared daemon at sock.
func sandboxOpeners(sock string) map[string]func(t *testing.T) *rawClient {
	return map[string]func(t *testing.T) *rawClient{
		"stdio":     func(t *testing.T) *rawClient { _, c := daemonStdio(t); return c },
		"socket":    func(t *testing.T) *rawClient { return daemonServed(t, sock) },
		"forwarded": func(t *testing.T) *rawClient { _, c := daemonForwarded(t); return c },
	}
}

// sandboxTransportsIn is sandboxTransports for a case whose rule is the
// daemon's whatever the transport (a notice's words, a param's check, a
// launch that fails): the quick run takes the transport named only (its
// sandbox cases, TestSandboxReadOnly and TestSandboxWritableNotDropped,
// name stdio, the cheapest: no shared daemon); TOOLD_LONG=1 takes every
// transport. A transport costs a daemon of its own, with its sandbox
// launchers.
func sandboxTransportsIn(t *testing.T, quick string) map[string]func(t *testing.T) *rawClient {
	t.Helper()
	if long() {
		all, _ := sandboxTransports(t)
		return all
	}
	sock := "" // the shared daemon only for the socket's cases
	if quick == "socket" {
		_, sock = daemonShared(t, 0)
	}
	open := sandboxOpeners(sock)[quick]
	if open == nil {
		t.Fatalf("no transport %q", quick)
	}
	return map[string]func(t *testing.T) *rawClient{quick: open}
}

// sandboxProbe is one way out: the command, and what its failure prints
// (any of want; none for a probe that must succeed).
type sandboxProbe struct {
	name, command string
	want          []string
	ok            bool
}

// writeProbes try to write outside the project under workspace-write.
func writeProbes(w *sandboxWorld, bin, sock string) []sandboxProbe {
	denied := []string{"Permission denied"}
	return []sandboxProbe{
		{"direct path", "echo x > " + w.out + "/direct", denied, false},
		{"..", "echo x > ../outside/dotdot", denied, false},
		{"symlink to a dir outside", "echo x > linkdir/via-link", denied, false},
		{"symlink to a file outside", "echo x >> secretlink", denied, false},
		{"hard link", "ln " + w.secret + " hard && echo x >> hard", []string{"Invalid cross-device link", "Permission denied", "Operation not permitted"}, false},
		{"mv out", "echo m > moved && mv moved " + w.out + "/", []string{"Permission denied", "cannot", "Invalid cross-device link"}, false},
		{"ln -s then write", "ln -s " + w.out + "/planted planted && echo x > planted", denied, false},
		{"python3 open for write", python3() + ` -c 'open("` + w.out + `/py", "w")'`, []string{"PermissionError"}, false},
		{"truncate", "truncate -s 0 " + w.secret, denied, false},
		{"rm", "rm -f " + w.secret, denied, false},
		// The daemon refuses it (a sandboxed peer), or the socket is
		// hidden (the mount namespace hides the daemon's socket dir).
		{"toold call on the shared socket", bin + ` call --remote=` + sock + ` exec '{"command":"touch ` + w.out + `/via-daemon"}'`, []string{"sandbox", "no daemon answers"}, false},
		// In the sandbox --remote=auto is refused by the user's daemon, or
		// finds none and starts one, a descendant under the same sandbox
		// (which may not even make its socket): whatever it says, nothing
		// outside changes.
		{"toold call --remote=auto", `TMPDIR=/tmp ` + bin + ` call --remote=auto exec '{"command":"touch ` + w.out + `/via-auto"}'; exit 1`, nil, false},
		// In a PID namespace of the session's the daemon is not even in
		// sight ($PPID is 0): see sandboxOtherSession for a pid given.
		{"kill -9 the daemon", `[ "$PPID" = 0 ] && echo "no parent: a PID namespace" && exit 1; kill -9 $PPID`, []string{"Operation not permitted", "a PID namespace"}, false},
		{"write inside", "echo inside > in.txt && cat in.txt && echo t > $TMPDIR/t && cat $TMPDIR/t", nil, true},
		{"loopback inside the sandbox", python3() + ` -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(); socket.create_connection(s.getsockname()); print("lo ok")'`, nil, true},
	}
}

// python3 is how the probes run Python: PATH's python3, resolved once to
// the interpreter itself (sys.executable), with -S (no site module: the
// probes import only socket). Where python3 is a version manager's shim
// (pyenv's: a bash script that runs more of them), naming it cost each
// probe 0.1 CPU-s and 0.3 s, some 2 CPU-s a run; site's imports were half
// of what is left.
var python3 = sync.OnceValue(func() string {
	if p := python3Exe(); p != "python3" && !strings.Contains(p, "'") {
		return "'" + p + "' -S" // quoted for the shell the probes run in
	}
	return "python3 -S"
})

// python3Exe is the interpreter itself (testenv.Python), "python3" when
// it cannot be told.
func python3Exe() string {
	if p, err := testenv.Python(); err == nil {
		return p
	}
	return "python3"
}

// runProbe runs p and checks its result and the outside dir.
func runProbe(t *testing.T, c *rawClient, id int, w *sandboxWorld, p sandboxProbe) sandboxResult {
	t.Helper()
	before := snapshot(t, w.out)
	r := sandboxExec(t, c, id, w, p.command)
	failed := r.ExitCode == nil || *r.ExitCode != 0
	if failed == p.ok {
		t.Errorf("%s: exit %v, want ok=%v; output %q", p.name, deref2(r.ExitCode), p.ok, r.output())
	}
	if len(p.want) > 0 && !containsAny(r.output(), p.want) {
		t.Errorf("%s: output %q names none of %q", p.name, r.output(), p.want)
	}
	unchanged(t, w.out, before, p.name)
	return r
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

func deref2(p *int) string {
	if p == nil {
		return "null"
	}
	return strconv.Itoa(*p)
}

// TestSandboxWorkspaceWrite: the sandbox's probes (writeProbes), on every
// transport: a workspace-write session reaches no further than it says.
func TestSandboxWorkspaceWrite(t *testing.T) {
	// The quick run keeps TestSandboxReadOnly on stdio, TestSandboxWritableNotDropped and TestSandboxAsNobody instead.
	skipUnlessLong(t, "workspace-write's probes on every transport")
	t.Parallel() // daemons and files of its own: it waits beside the others
	transports, sock := sandboxTransports(t)
	bin := daemonBinary(t)
	for name, open := range transports {
		t.Run(name, func(t *testing.T) {
			t.Parallel() // a world and a client of its own
			w := newSandboxWorld(t)
			c := open(t)
			sandboxInit(t, c, 1, w, "workspace-write")
			for i, p := range writeProbes(w, bin, sock) {
				r := runProbe(t, c, 10+i, w, p)
				if p.name == "direct path" && (r.Notice == nil || !strings.Contains(*r.Notice, "writes outside the workspace are blocked by the sandbox: workspace-write allows "+w.proj)) {
					t.Errorf("the notice does not name the sandbox: %v", deref(r.Notice))
				}
			}
			if b, err := os.ReadFile(filepath.Join(w.proj, "in.txt")); err != nil || string(b) != "inside\n" {
				t.Errorf("the write inside: %q %v", b, err)
			}
			// The daemon outlived kill -9 $PPID.
			sandboxExec(t, c, 50, w, "true")
			sandboxBackground(t, c, w)
			sandboxNetwork(t, c, w)
			sandboxOtherSession(t, c, open(t), w)
		})
	}
}

// sandboxBackground: a background process and a grandchild that
// daemonizes (setsid, its parent gone) are under the same sandbox.
func sandboxBackground(t *testing.T, c *rawClient, w *sandboxWorld) {
	t.Helper()
	before := snapshot(t, w.out)
	var r sandboxResult
	sandboxCall(t, c, 60, "exec", map[string]any{"command": "sleep 1; echo x > " + w.out + "/bg", "cwd": w.proj, "yieldMs": 10}, &r)
	if r.Process == nil {
		t.Fatalf("no background process: %+v", r)
	}
	var done sandboxResult
	sandboxCall(t, c, 61, "process/wait", map[string]any{"id": *r.Process}, &done)
	if done.ExitCode == nil || *done.ExitCode == 0 || !strings.Contains(done.output(), "Permission denied") {
		t.Errorf("background write outside: exit %v, output %q", deref2(done.ExitCode), done.output())
	}
	if done.Notice == nil || !strings.Contains(*done.Notice, "blocked by the sandbox") {
		t.Errorf("process/wait's notice does not name the sandbox: %v", deref(done.Notice))
	}
	script := `(setsid sh -c 'echo x > "$1"/daemonized; echo "rc=$?" > daemonized.rc' sh ` + w.out + ` &) ;
for i in $(seq 100); do [ -s daemonized.rc ] && break; sleep 0.05; done; cat daemonized.rc`
	d := sandboxExec(t, c, 62, w, script)
	if !strings.Contains(d.Stdout.Head, "rc=") || strings.Contains(d.Stdout.Head, "rc=0") {
		t.Errorf("a daemonized grandchild: %q", d.output())
	}
	unchanged(t, w.out, before, "background")
}

// sandboxNetwork: with the network off, a TCP connect to a listener
// outside the sandbox's namespace fails (and reaches nothing), a UDP
// datagram (what DNS sends) reaches nothing, and a name lookup fails.
func sandboxNetwork(t *testing.T, c *rawClient, w *sandboxWorld) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	udp, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer udp.Close()
	tcpPort, udpPort := ln.Addr().(*net.TCPAddr).Port, udp.LocalAddr().(*net.UDPAddr).Port
	py := func(code string) string { return python3() + ` -c '` + code + `'` }
	for i, p := range []sandboxProbe{
		{"TCP to 127.0.0.1 outside", py(fmt.Sprintf(`import socket; socket.create_connection(("127.0.0.1", %d), timeout=3)`, tcpPort)), []string{"ConnectionRefused", "Network is unreachable", "timed out", "PermissionError"}, false},
		{"DNS", py(`import socket; socket.getaddrinfo("example.com", 80)`), []string{"gaierror", "PermissionError"}, false},
		// In a network namespace the datagram goes to its own loopback;
		// without one (seccomp) the socket is refused: neither reaches.
		{"UDP to 127.0.0.1 outside", py(fmt.Sprintf(`import socket
try:
    s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.sendto(b"x", ("127.0.0.1", %d))
except PermissionError:
    pass`, udpPort)), nil, true},
	} {
		runProbe(t, c, 70+i, w, p)
	}
	ln.(*net.TCPListener).SetDeadline(time.Now().Add(100 * time.Millisecond))
	if conn, err := ln.Accept(); err == nil {
		conn.Close()
		t.Error("a sandboxed command connected to a listener outside its namespace")
	}
	udp.SetDeadline(time.Now().Add(100 * time.Millisecond))
	if _, _, err := udp.ReadFrom(make([]byte, 16)); err == nil {
		t.Error("a sandboxed command's datagram left its namespace")
	}
}

// sandboxOtherSession: a command cannot signal another session's process.
func sandboxOtherSession(t *testing.T, c, other *rawClient, w *sandboxWorld) {
	t.Helper()
	sandboxInit(t, other, 1, w, "workspace-write")
	var r sandboxResult
	// Found by its argv, as this process sees it: the pid it has in its
	// session's PID namespace names nothing in another's.
	nap := fmt.Sprintf("30.%d%d", os.Getpid(), time.Now().UnixNano()%1e9)
	sandboxCall(t, other, 2, "exec", map[string]any{"command": "exec sleep " + nap, "cwd": w.proj, "yieldMs": 100}, &r)
	if r.Process == nil {
		t.Fatalf("the other session's process: %+v", r)
	}
	pid := waitPidOf(t, "sleep\x00"+nap+"\x00", true)
	runProbe(t, c, 80, w, sandboxProbe{"kill another session's process", "kill -9 " + pid, []string{"Operation not permitted", "No such process"}, false})
	var list []struct{ Running bool }
	sandboxCall(t, other, 3, "process/list", nil, &list)
	if len(list) != 1 || !list[0].Running {
		t.Errorf("the other session's process after kill -9 from this one: %+v", list)
	}
	sandboxCall(t, other, 4, "process/kill", map[string]any{"id": *r.Process, "signal": 9}, nil)
}

// TestSandboxReadOnly: read-only with roots blocks every write but
// TMPDIR's, and reads outside the roots, on every transport. The quick
// run's sandbox probes are these, on stdio (sandboxTransportsIn: the
// launcher's user namespace and Landlock are the same on every
// transport); TOOLD_LONG=1 adds the other transports and
// TestSandboxWorkspaceWrite's probes.
func TestSandboxReadOnly(t *testing.T) {
	t.Parallel() // daemons and files of its own: it waits beside the others
	transports := sandboxTransportsIn(t, "stdio")
	for name, open := range transports {
		t.Run(name, func(t *testing.T) {
			w := newSandboxWorld(t)
			c := open(t)
			sandboxInit(t, c, 1, w, "read-only")
			before := snapshot(t, w.proj)
			for i, p := range []sandboxProbe{
				{"write in the project", "echo x > in.txt", []string{"Permission denied"}, false},
				{"write outside", "echo x > " + w.out + "/ro", []string{"Permission denied"}, false},
				{"read outside the roots", "cat " + w.secret, []string{"Permission denied"}, false},
				{"TMPDIR", "echo t > $TMPDIR/t && cat $TMPDIR/t && cat README && ls /usr/bin > /dev/null", []string{"t\nproject\n"}, true},
			} {
				r := runProbe(t, c, 10+i, w, p)
				if strings.Contains(r.output(), "SECRET") {
					t.Errorf("%s: the secret was read", p.name)
				}
			}
			unchanged(t, w.proj, before, "read-only")
		})
	}
}

// TestSandboxFlags: serve's --sandbox is the sandbox of a session whose
// initialize names none.
func TestSandboxFlags(t *testing.T) {
	// The quick run keeps TestSandboxReadOnly on stdio instead.
	skipUnlessLong(t, "serve's --sandbox flags")
	t.Parallel() // daemons and files of its own: it waits beside the others
	w := newSandboxWorld(t)
	os.Mkdir(filepath.Join(w.out, "sub"), 0o777) // before the daemon, which checks it at start
	_, c := daemonStdio(t, "--sandbox", "workspace-write", "--writable", w.out+"/sub")
	sandboxCall(t, c, 1, "initialize", map[string]any{"cwd": w.proj}, nil)
	runProbe(t, c, 2, w, sandboxProbe{"direct path", "echo x > " + w.out + "/direct", []string{"Permission denied"}, false})
	r := sandboxExec(t, c, 3, w, "echo ok > in.txt; echo $TMPDIR")
	if r.ExitCode == nil || *r.ExitCode != 0 {
		t.Errorf("write in the cwd: %q", r.output())
	}
	// The session's TMPDIR goes with the session.
	tmp := strings.TrimSpace(r.Stdout.Head[strings.LastIndex(strings.TrimSpace(r.Stdout.Head), "\n")+1:])
	if fi, err := os.Stat(tmp); err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
		t.Fatalf("TMPDIR %q: %v %v", tmp, fi, err)
	}
	sandboxCall(t, c, 4, "session/close", nil, nil)
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Errorf("TMPDIR %s outlives its session: %v", tmp, err)
	}
	// Through --remote, the flag would not reach the session: refused.
	p := daemonStart(t, 0, "--remote=auto", "--sandbox=workspace-write")
	p.run(t)
	if code := p.wait(testenv.Loaded(10 * time.Second)); code != 2 {
		t.Errorf("toold --remote=auto --sandbox: exit %d, want 2", code)
	}
}

// TestSandboxAsNobody runs the sandbox's cases again as an unprivileged
// user (uid 65534, through setpriv) when the suite runs as root: the
// launcher's user namespace and Landlock must work without privilege.
func TestSandboxAsNobody(t *testing.T) {
	t.Parallel() // daemons and files of its own: it waits beside the others
	// TOOLD_LONG=1 runs every transport as 65534, and every attack of
	// issues 27 and 30.
	runs := []string{"^TestSandbox(WorkspaceWrite|ReadOnly|Flags)$", "^TestSandbox(Rows|Inherited|PolicyResolvedOnce|HugePolicy|EndsEscapees|SpoolRootsUnreadable|PeerMarked|StoppedLauncher)$"}
	least := 2 // subtests each run must pass
	if !long() {
		// Quick: one run of the test binary (20 CPU-seconds for the two
		// it was, 10 for the write probes, a row of the kernel's features
		// and the escapees) with the read-only probes over stdio: the
		// launcher's user namespace and Landlock without privilege, the
		// same on every transport. TOOLD_LONG=1 runs the rest, which is
		// the same code as root's.
		runs, least = []string{"^TestSandboxReadOnly$/^stdio$"}, 1
	}
	passed := 0
	for _, run := range runs {
		out, err := testenv.AsNobody(t, run, func(dir string) []string {
			return []string{"TOOLD_ADVERSARIAL_BIN=" + filepath.Join(dir, filepath.Base(daemonBinary(t)))}
		}, daemonBinary(t))
		// Subtests, not the cases: a case whose subtests the filter
		// stopped matching passes having run nothing as 65534.
		n := len(regexp.MustCompile(`--- PASS: TestSandbox\w+/`).FindAllString(out, -1))
		passed += n
		if err != nil || n < least {
			t.Fatalf("as uid 65534, %s: %d subtests passed: %v\n%s", run, n, err, daemonTail(out, 8000))
		}
	}
	t.Logf("as uid 65534: %d subtests passed", passed)
}
