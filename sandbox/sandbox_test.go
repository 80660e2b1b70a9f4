package sandbox

import (
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/toold/toold/internal/testenv"
)

// policy is mode over t's temp dirs at what this kernel enforces, its
// dirs resolved as lifecycle resolves them.
func policy(t *testing.T, mode string, network bool, writable ...string) *Policy {
	t.Helper()
	p := &Policy{Mode: mode, Network: network, TmpDir: t.TempDir(), IDs: map[string]FileID{}}
	for _, w := range append(writable, p.TmpDir) {
		real, id, err := Resolve(w)
		if err != nil {
			t.Fatal(err)
		}
		p.Writable = append(p.Writable, real)
		p.IDs[real] = id
	}
	p.Plan = Probe().Plan(p)
	return p
}

// run runs script under p with sh and returns its combined output and
// how it ended.
func run(t *testing.T, p *Policy, script string) (string, *os.ProcessState) {
	t.Helper()
	in, err := Start(p, StartOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	return spawn(t, in, script, os.Environ())
}

func spawn(t *testing.T, in *Instance, script string, env []string) (string, *os.ProcessState) {
	t.Helper()
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer outR.Close()
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	pid, err := in.Spawn(Request{Path: "/bin/sh", Argv: []string{"sh", "-c", script}, Env: env, Dir: "/"}, [3]*os.File{null, outW, outW})
	outW.Close()
	if err != nil {
		t.Fatal(err)
	}
	out, _ := io.ReadAll(outR)
	proc, err := os.FindProcess(pid)
	if err != nil {
		t.Fatal(err)
	}
	st, err := proc.Wait()
	if err != nil {
		t.Fatal(err)
	}
	return string(out), st
}

// TestLauncher: the kernel enforces a policy in the commands a session's
// launcher starts: writes beneath the writable dirs and TMPDIR only, no
// signal to this process, no TCP beyond the namespace's loopback.
func TestLauncher(t *testing.T) {
	p := policy(t, ModeWorkspaceWrite, false, t.TempDir())
	if len(p.Plan.Refused) > 0 {
		t.Fatalf("this kernel lacks %v", p.Plan.Refused)
	}
	work, outside := p.Writable[0], t.TempDir()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	in, err := Start(p, StartOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	// The interpreter itself, not a shim that finds it (pyenv's cost 0.8
	// CPU-s and seconds of wall a start, most of the test).
	python, err := testenv.Python()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		script string
		ok     bool
		out    string
	}{
		{"echo hi > " + work + "/in && cat " + work + "/in", true, "hi"},
		{"echo hi > " + p.TmpDir + "/in", true, ""},
		{"echo hi > " + outside + "/out", false, "Permission denied"},
		{"echo hi > /dev/null", true, ""},
		{"kill -0 " + strconv.Itoa(os.Getpid()), false, ""},
		{"exec 3<>/dev/tcp/127.0.0.1/" + port, false, ""},
		{python + " -S -c 'import socket; s=socket.socket(); s.bind((\"127.0.0.1\", 0)); s.listen(); c=socket.create_connection(s.getsockname()); print(\"lo ok\")'", true, "lo ok"},
		{python + " -S -c 'import socket; socket.socket(socket.AF_VSOCK, socket.SOCK_STREAM)'", false, "Permission denied"},
	} {
		t.Run(tc.script, func(t *testing.T) {
			out, st := spawn(t, in, tc.script, os.Environ())
			if st.Success() != tc.ok || !strings.Contains(out, tc.out) {
				t.Errorf("%v %q, want ok=%v and %q", st, out, tc.ok, tc.out)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(outside, "out")); err == nil {
		t.Error("written outside")
	}
	_ = syscall.Getpid
}
