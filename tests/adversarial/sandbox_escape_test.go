package adversarial

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/toold/toold/internal/testenv"
)

// Ways out of the sandbox, each a real
// attack on the built daemon, as root and (TestSandboxAsNobody) as uid
// 65534.

// TestSandboxInherited (item 1, and the next of its kind): nothing the
// daemon holds reaches a sandboxed command: an fd it inherited
// (`toold 9>>file`) is not open in the command, which cannot write through
// it; the launcher never has the command's environment (LD_PRELOAD would
// run in it before the policy); the daemon's controlling terminal, its
// session keyring and a signal it was started ignoring do not reach the
// command either.
func TestSandboxInherited(t *testing.T) {
	// The quick run keeps TestSandboxReadOnly on stdio instead.
	skipUnlessLong(t, "a sandbox inherited by descendants")
	t.Parallel()
	w := newSandboxWorld(t)
	victim := filepath.Join(w.out, "victim")
	write(t, victim, "")
	f, err := os.OpenFile(victim, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// The daemon is started by a wrapper that gives it a controlling
	// terminal, a session keyring holding a key, and SIGHUP ignored (as
	// nohup does), then execs it.
	wrapper := `import os, sys, fcntl, termios, signal, ctypes
signal.signal(signal.SIGHUP, signal.SIG_IGN)
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall(250, 1, None)  # keyctl(KEYCTL_JOIN_SESSION_KEYRING, NULL)
libc.syscall(248, b"user", b"toold-secret", b"hunter2", 7, -3)  # add_key(..., KEY_SPEC_SESSION_KEYRING)
m, s = os.openpty()
os.set_inheritable(m, True)  # the terminal lives as long as the daemon
os.setsid()
fcntl.ioctl(s, termios.TIOCSCTTY, 0)
os.execv(sys.argv[1], sys.argv[1:])
`
	args := []string{"-S", "-c", wrapper, daemonBinary(t), "serve", "--spool-root", filepath.Join(t.TempDir(), "spool")}
	p := &daemonProc{cmd: exec.Command(python3Exe(), args...), stderr: &testenv.Buffer{}, exited: make(chan struct{})}
	p.cmd.Stderr = p.stderr
	p.cmd.ExtraFiles = []*os.File{nil, nil, nil, nil, nil, nil, f} // fd 9
	in, err := p.cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out := p.stdout(t)
	p.run(t)
	c := newRawClient(t, in, out)
	sandboxInit(t, c, 1, w, "workspace-write")
	keyring := python3() + ` -c 'import ctypes; libc = ctypes.CDLL(None); print("key", libc.syscall(250, 10, -3, b"user", b"toold-secret", 0))'`
	var r sandboxResult
	sandboxCall(t, c, 10, "exec", map[string]any{"cwd": w.proj, "env": map[string]string{"LD_PRELOAD": "/nonexistent/toold-test.so", "TOOLD_TEST_MARK": "command-env"},
		"command": `ls /proc/self/fd | tr '\n' ' '; echo; echo through >&9 && echo wrote-fd9
exec 3</dev/tty && echo got-tty
grep SigIgn /proc/self/status
` + keyring + `
cat /proc/$$/environ | tr '\0' '\n' | grep -c TOOLD_TEST_MARK`}, &r)
	o := r.output()
	if strings.Contains(o, "wrote-fd9") || strings.Contains(o, "got-tty") {
		t.Errorf("the daemon's fd 9 or terminal reached the command: %q", o)
	}
	if fds := strings.Fields(strings.SplitN(r.Stdout.Head, "\n", 2)[0]); strings.Join(fds, " ") != "0 1 2 3" {
		t.Errorf("the command's fds are %v, want 0 1 2 and ls's own 3", fds)
	}
	if !strings.Contains(o, "SigIgn:\t0000000000000000") {
		t.Errorf("a signal the daemon ignored is ignored in the command: %q", o)
	}
	if !strings.Contains(o, "key -1") {
		t.Errorf("the daemon's session keyring reached the command: %q", o)
	}
	if b, _ := os.ReadFile(victim); len(b) != 0 {
		t.Errorf("written through the daemon's fd: %q", b)
	}
	// The launcher's own environment: none of the command's.
	for _, pid := range childrenNamed(p.cmd.Process.Pid, "toold-sandbox\x00-serve\x00") {
		env, err := os.ReadFile("/proc/" + pid + "/environ")
		if err == nil && (strings.Contains(string(env), "LD_PRELOAD") || strings.Contains(string(env), "TOOLD_TEST_MARK")) {
			t.Errorf("the launcher %s has the command's environment: %q", pid, env)
		}
	}
}

// childrenNamed are the children of pid whose command line is cmdline.
func childrenNamed(pid int, cmdline string) []string {
	var out []string
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		b, err := os.ReadFile(d + "/cmdline")
		if err != nil || string(b) != cmdline {
			continue
		}
		if stat, err := os.ReadFile(d + "/stat"); err == nil {
			i := strings.LastIndexByte(string(stat), ')')
			if f := strings.Fields(string(stat[i+1:])); len(f) > 1 && f[1] == strconv.Itoa(pid) {
				out = append(out, filepath.Base(d))
			}
		}
	}
	return out
}

// TestSandboxPolicyResolvedOnce (item 3 b and c): a nested root replaced
// by a symlink to a dir outside between initialize and the first command
// gives no way out (the launcher opens it without following links and
// finds it is not the dir resolved); a writable symlink retargeted outside,
// then the same initialize sent again, is refused as looser, and the
// session's commands still cannot write where it now points.
func TestSandboxPolicyResolvedOnce(t *testing.T) {
	// The quick run keeps TestSandboxReadOnly on stdio instead.
	skipUnlessLong(t, "a policy resolved once")
	t.Parallel()
	w := newSandboxWorld(t)
	nested := filepath.Join(w.proj, "nested")
	os.Mkdir(nested, 0o777)
	_, c := daemonStdio(t)
	sandboxCall(t, c, 1, "initialize", map[string]any{"cwd": nested, "roots": []string{nested},
		"sandbox": map[string]any{"mode": "workspace-write"}}, nil)
	if err := os.Rename(nested, nested+".was"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(w.out, nested); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, w.out)
	var r sandboxResult
	sandboxCall(t, c, 2, "exec", map[string]any{"command": "echo x > " + nested + "/swapped", "cwd": w.proj}, &r)
	if r.ExitCode == nil || *r.ExitCode == 0 {
		t.Errorf("a write through the swapped root: %q", r.output())
	}
	unchanged(t, w.out, before, "the swapped root")

	// 3(c): writable = a symlink to a dir of the project, then retargeted.
	_, c2 := daemonStdio(t)
	inside := filepath.Join(w.proj, "cache")
	os.Mkdir(inside, 0o777)
	link := filepath.Join(t.TempDir(), "cachelink")
	os.Symlink(inside, link)
	params := map[string]any{"cwd": w.proj, "roots": []string{w.proj},
		"sandbox": map[string]any{"mode": "workspace-write", "writable": []string{link}}}
	sandboxCall(t, c2, 1, "initialize", params, nil)
	os.Remove(link)
	os.Symlink(w.out, link)
	sandboxRefused(t, c2, 2, params)
	r = sandboxExec(t, c2, 3, w, "echo x > "+link+"/retargeted")
	if r.ExitCode == nil || *r.ExitCode == 0 {
		t.Errorf("a write through the retargeted writable dir: %q", r.output())
	}
	unchanged(t, w.out, before, "the retargeted writable dir")
}

// TestSandboxHugePolicy (item 14): 10,000 writable dirs are refused at
// initialize (-32602 naming sandbox.writable), and a policy of a thousand
// (here one long path a thousand times: 200 KB, past the 128 KB an argv
// string may hold, which the policy once travelled in) runs its commands.
func TestSandboxHugePolicy(t *testing.T) {
	// The quick run keeps TestSandboxReadOnly on stdio instead.
	skipUnlessLong(t, "a huge policy")
	t.Parallel()
	w := newSandboxWorld(t)
	long := filepath.Join(w.out, strings.Repeat("d", 200))
	if err := os.Mkdir(long, 0o777); err != nil {
		t.Fatal(err)
	}
	_, c := daemonStdio(t)
	dirs := func(n int, d string) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = d
		}
		return out
	}
	m := c.call(1, "initialize", map[string]any{"cwd": w.proj, "sandbox": map[string]any{"mode": "workspace-write", "writable": dirs(10000, w.out)}}, 30*time.Second)
	if m.Error == nil || m.Error.Code != -32602 || !strings.Contains(string(m.Error.Data), `"field":"sandbox.writable"`) {
		t.Errorf("10,000 writable dirs: want -32602 naming sandbox.writable, got %+v %s", m.Error, m.Result)
	}
	sandboxCall(t, c, 2, "initialize", map[string]any{"cwd": w.proj, "sandbox": map[string]any{"mode": "workspace-write", "writable": dirs(1000, long)}}, nil)
	r := sandboxExec(t, c, 3, w, "echo ok > "+long+"/ok && cat "+long+"/ok")
	if r.ExitCode == nil || *r.ExitCode != 0 || r.Stdout.Head != "ok\n" {
		t.Errorf("a command under 1,000 writable dirs: %q", r.output())
	}
}

// TestSandboxEndsEscapees (item 4): a process that leaves its group and
// clears its environment (`setsid env -i ... &`) does not outlive
// session/close nor the daemon's death (SIGKILL): in a sandbox, its
// session's PID namespace ends it; without one (no user namespaces, or no
// sandbox), its session's cgroup, where the system delegates one. Where
// neither exists (uid 65534 here) it outlives them, as the README says.
func TestSandboxEndsEscapees(t *testing.T) {
	// The quick run keeps TestSandboxReadOnly on stdio instead.
	skipUnlessLong(t, "escapees of a sandboxed session")
	t.Parallel()
	h := sandboxHost(t)
	for _, tc := range []struct {
		name string
		env  []string
		box  map[string]any
	}{
		{"sandboxed", nil, map[string]any{"mode": "workspace-write"}},
		{"sandboxed-nouserns", []string{"TOOLD_SANDBOX_USERNS=0"}, map[string]any{"mode": "workspace-write", "bestEffort": true}},
		{"unsandboxed", nil, nil},
	} {
		for _, end := range []string{"session/close", "SIGKILL"} {
			t.Run(tc.name+"/"+strings.ReplaceAll(end, "/", "-"), func(t *testing.T) {
				t.Parallel()
				contained := tc.box != nil && h.UserNamespaces && len(tc.env) == 0 || h.Cgroups
				w := newSandboxWorld(t)
				p, c := daemonStdioEnv(t, tc.env)
				params := map[string]any{"cwd": w.proj, "roots": []string{w.proj}}
				if tc.box != nil {
					params["sandbox"] = tc.box
				}
				sandboxCall(t, c, 1, "initialize", params, nil)
				nap := fmt.Sprintf("1000.%d%d", os.Getpid(), time.Now().UnixNano()%1e9)
				// The command waits until the escapee has cleared its
				// environment (it is sleep now): the marker the exec's end
				// looks for is gone.
				sandboxExec(t, c, 2, w, "setsid env -i sleep "+nap+` </dev/null >/dev/null 2>&1 & pid=$!
for i in $(seq 200); do [ "$(cat /proc/$pid/comm 2>/dev/null)" = sleep ] && break; sleep 0.02; done`)
				pid := waitPidOf(t, "sleep\x00"+nap+"\x00", true)
				t.Cleanup(func() { killPid(pid) })
				if end == "SIGKILL" {
					p.cmd.Process.Kill()
					<-p.exited
				} else {
					sandboxCall(t, c, 3, "session/close", nil, nil)
				}
				gone := waitPidOf(t, "sleep\x00"+nap+"\x00", false) == ""
				if gone != contained {
					t.Errorf("after %s the escapee is gone=%v, want %v (user namespaces %v, cgroups %v)", end, gone, contained, h.UserNamespaces, h.Cgroups)
				}
			})
		}
	}
}

// waitPidOf waits (up to 5 s) until a process with cmdline exists (want)
// or none does, and returns its pid ("" when none).
func waitPidOf(t *testing.T, cmdline string, want bool) string {
	t.Helper()
	pid := ""
	testenv.Until(5*time.Second, func() bool { pid = pidOf(cmdline); return (pid != "") == want })
	if want && pid == "" {
		t.Fatalf("no process %q", cmdline)
	}
	return pid
}

// pidOf returns the pid of a process (not a zombie) whose command line is
// cmdline, "" when there is none.
func pidOf(cmdline string) string {
	pid := ""
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		if b, err := os.ReadFile(d + "/cmdline"); err == nil && string(b) == cmdline {
			if stat, _ := os.ReadFile(d + "/stat"); !strings.Contains(string(stat), ") Z ") {
				pid = filepath.Base(d)
			}
		}
	}
	return pid
}

func killPid(pid string) {
	if n, err := strconv.Atoi(pid); err == nil && n > 1 {
		if p, err := os.FindProcess(n); err == nil {
			p.Kill()
		}
	}
}

// TestSandboxSpoolRootsUnreadable (item 5): with the spool root beneath a
// dir a read-only sandbox may read (here /dev/shm, as XDG_RUNTIME_DIR
// beneath /run is on desktops), a read-only session cannot read another
// session's spooled output, nor list the root; a workspace-write one (which
// reads everywhere else) cannot either; each still has its own TMPDIR
// there. With user namespaces (the root hidden) and without (left out of
// Landlock's rules).
func TestSandboxSpoolRootsUnreadable(t *testing.T) {
	// The quick run keeps TestSandboxReadOnly on stdio instead.
	skipUnlessLong(t, "spool roots unreadable from the sandbox")
	t.Parallel()
	for _, env := range [][]string{nil, {"TOOLD_SANDBOX_USERNS=0"}} {
		for _, mode := range []string{"read-only", "workspace-write"} {
			t.Run(fmt.Sprintf("%s/userns=%v", mode, env == nil), func(t *testing.T) {
				t.Parallel()
				root, err := os.MkdirTemp("/dev/shm", "toold-spool-")
				if err != nil {
					t.Skip("no /dev/shm:", err)
				}
				t.Cleanup(func() { os.RemoveAll(root) })
				w := newSandboxWorld(t)
				_, sock := daemonSharedEnv(t, env, "--spool-root", root)
				a := daemonServed(t, sock)
				var ra struct{ SpoolDir string }
				sandboxCall(t, a, 1, "initialize", map[string]any{"cwd": w.proj}, &ra)
				sandboxCall(t, a, 2, "exec", map[string]any{"command": "for i in $(seq 3000); do echo SPOOLSECRET $i; done", "cwd": w.proj, "maxLines": 5}, nil)
				b := daemonServed(t, sock)
				sandboxCall(t, b, 1, "initialize", map[string]any{"cwd": w.proj, "roots": []string{w.proj},
					"sandbox": map[string]any{"mode": mode, "bestEffort": true}}, nil)
				got := sandboxExec(t, b, 3, w, "ls -R "+root+"; grep -r SPOOLSECRET "+root+" | head -3")
				if strings.Contains(got.output(), "SPOOLSECRET") || strings.Contains(got.output(), filepath.Base(ra.SpoolDir)) {
					t.Errorf("%s: another session's spool was read: %q", mode, got.output())
				}
				own := sandboxExec(t, b, 4, w, "echo mine > $TMPDIR/t && cat $TMPDIR/t")
				if own.ExitCode == nil || *own.ExitCode != 0 || own.Stdout.Head != "mine\n" {
					t.Errorf("%s: the session's own TMPDIR beneath the spool root: %q", mode, own.output())
				}
			})
		}
	}
}

// daemonSharedEnv is daemonShared with env added to the daemon's.
func daemonSharedEnv(t *testing.T, env []string, args ...string) (*daemonProc, string) {
	t.Helper()
	dir := daemonPrivateDir(t)
	sock := filepath.Join(dir, "toold.sock")
	p := daemonStart(t, 0, append([]string{"serve", "--listen", sock}, args...)...)
	p.cmd.Env = append(os.Environ(), env...)
	p.run(t)
	waitListening(t, sock, p.exited, p.stderr)
	return p, sock
}

// TestSandboxPeerMarked: without user namespaces (TOOLD_SANDBOX_USERNS=0,
// where the daemon's socket is not hidden) the shared daemon still tells a
// sandboxed command from its other clients, by the mark no command can
// take off: `toold call` from inside is refused, also from a descendant
// that left its group and cleared its environment; a command of an
// unsandboxed session is served.
func TestSandboxPeerMarked(t *testing.T) {
	// The quick run keeps TestSandboxReadOnly on stdio instead.
	skipUnlessLong(t, "a peer of the sandbox marked")
	t.Parallel()
	w := newSandboxWorld(t)
	_, sock := daemonSharedEnv(t, []string{"TOOLD_SANDBOX_USERNS=0"})
	bin := daemonBinary(t)
	call := bin + ` call --remote=` + sock + ` exec '{"command":"touch ` + w.out + `/via-daemon"}'`
	boxed := daemonServed(t, sock)
	sandboxCall(t, boxed, 1, "initialize", map[string]any{"cwd": w.proj, "roots": []string{w.proj},
		"sandbox": map[string]any{"mode": "workspace-write", "bestEffort": true}}, nil)
	for i, cmd := range []string{call, "setsid -w env -i " + call} {
		runProbe(t, boxed, 10+i, w, sandboxProbe{"toold call from a sandbox", cmd, []string{"sandbox"}, false})
	}
	plain := daemonServed(t, sock)
	sandboxCall(t, plain, 1, "initialize", map[string]any{"cwd": w.proj}, nil)
	r := sandboxExec(t, plain, 2, w, bin+` call --remote=`+sock+` stats`)
	if r.ExitCode == nil || *r.ExitCode != 0 {
		t.Errorf("an unsandboxed command's toold call: %q", r.output())
	}
}

// TestSandboxStoppedLauncher: without a PID namespace a command may signal
// its session's launcher (the same Landlock domain); one that stops it
// stalls only its own session's next command (the launcher is taken for
// dead after a while and another starts), never another session's: the
// daemon's starts of commands do not wait on a launcher's answer.
func TestSandboxStoppedLauncher(t *testing.T) {
	// The quick run keeps TestSandboxReadOnly on stdio instead.
	skipUnlessLong(t, "a stopped sandbox launcher")
	t.Parallel()
	w := newSandboxWorld(t)
	_, sock := daemonSharedEnv(t, []string{"TOOLD_SANDBOX_USERNS=0"})
	box := map[string]any{"cwd": w.proj, "roots": []string{w.proj}, "sandbox": map[string]any{"mode": "workspace-write", "bestEffort": true}}
	a, b := daemonServed(t, sock), daemonServed(t, sock)
	sandboxCall(t, a, 1, "initialize", box, nil)
	sandboxCall(t, b, 1, "initialize", box, nil)
	sandboxExec(t, b, 2, w, "true") // b's launcher is up
	// a stops every launcher it may signal: its own.
	sandboxExec(t, a, 2, w, `for p in $(pgrep -f '^toold-sandbox -serve'); do kill -STOP $p 2>/dev/null; done; true`)
	done := make(chan sandboxResult, 1)
	go func() {
		var r sandboxResult
		sandboxCall(t, a, 3, "exec", map[string]any{"command": "echo again", "cwd": w.proj}, &r)
		done <- r
	}()
	time.Sleep(200 * time.Millisecond) // a's exec waits on its stopped launcher
	for i := range 5 {
		start := time.Now()
		r := sandboxExec(t, b, 10+i, w, "echo b")
		if r.Stdout.Head != "b\n" || time.Since(start) > 5*time.Second {
			t.Errorf("another session's exec beside a stopped launcher: %q in %v", r.output(), time.Since(start))
		}
	}
	select {
	case r := <-done:
		if r.Stdout.Head != "again\n" {
			t.Errorf("the session's exec after its launcher was stopped: %q", r.output())
		}
	case <-time.After(40 * time.Second):
		t.Error("the session's exec after its launcher was stopped never answered")
	}
}
