package sandbox

import (
	"net"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// run runs script under p with sh and returns its combined output and
// error.
func run(t *testing.T, p *Policy, script string) (string, error) {
	t.Helper()
	cmd := osexec.Command("/bin/sh", "-c", script)
	if err := Wrap(cmd, p); err != nil {
		t.Fatal(err)
	}
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func policy(t *testing.T, mode string, network bool, writable ...string) *Policy {
	p := &Policy{Mode: mode, Writable: writable, Network: network, TmpDir: t.TempDir()}
	p.Writable = append(p.Writable, p.TmpDir)
	Probe().Complete(p)
	return p
}

// TestLauncher: the kernel enforces a policy in the command the launcher
// execs: writes beneath the writable dirs and TMPDIR only, no signal to
// this process, no TCP beyond the namespace's loopback.
func TestLauncher(t *testing.T) {
	if s := Probe(); len(s.Missing(&Policy{Mode: ModeWorkspaceWrite})) > 0 {
		t.Fatalf("this kernel lacks %v", s.Missing(&Policy{Mode: ModeWorkspaceWrite}))
	}
	work, outside := t.TempDir(), t.TempDir()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() }) // after the parallel cases: they must find it listening
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	p := policy(t, ModeWorkspaceWrite, false, work)
	for _, tc := range []struct {
		script string
		ok     bool
		out    string
	}{
		{"echo hi > " + work + "/in && cat " + work + "/in", true, "hi"},
		{"echo hi > " + p.TmpDir + "/in", true, ""},
		{"echo hi > " + outside + "/out", false, "Permission denied"},
		{"echo hi > /dev/null", true, ""},
		{"kill -0 " + strconv.Itoa(os.Getpid()), false, "not permitted"},
		{"exec 3<>/dev/tcp/127.0.0.1/" + port, false, ""},
		{"python3 -c 'import socket; s=socket.socket(); s.bind((\"127.0.0.1\", 0)); s.listen(); c=socket.create_connection(s.getsockname()); print(\"lo ok\")'", true, "lo ok"},
	} {
		t.Run(tc.script, func(t *testing.T) {
			t.Parallel() // a launcher each
			out, err := run(t, p, tc.script)
			if (err == nil) != tc.ok || !strings.Contains(out, tc.out) {
				t.Errorf("%v %q, want ok=%v and %q", err, out, tc.ok, tc.out)
			}
		})
	}
	t.Cleanup(func() { // after the parallel cases
		if _, err := os.Stat(filepath.Join(outside, "out")); err == nil {
			t.Error("written outside")
		}
	})
}
