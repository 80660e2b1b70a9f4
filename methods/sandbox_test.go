package methods

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/toold/toold/protocol"
	"github.com/toold/toold/sandbox"
)

// TestSandboxDenial: what exec's output shows the sandbox refused, as the
// notice names it; an error on a path the sandbox allows is not its doing.
func TestSandboxDenial(t *testing.T) {
	proj, out := t.TempDir(), t.TempDir()
	os.Symlink(out, filepath.Join(proj, "link"))
	p := &sandbox.Policy{Mode: sandbox.ModeWorkspaceWrite, Writable: []string{proj, "/tmpdir"}, TmpDir: "/tmpdir"}
	for _, tc := range []struct {
		stderr                 string
		write, network, signal bool
	}{
		{"touch: cannot touch '" + out + "/x': Permission denied\n", true, false, false},
		{"/bin/bash: line 1: ../x: Permission denied\n", true, false, false},
		{"/bin/bash: line 1: ./link/x: Permission denied\n", true, false, false},
		{"/bin/bash: line 1: " + proj + "/ro: Permission denied\n", false, false, false},
		{"/bin/bash: line 1: kill: (1) - Operation not permitted\n", false, false, true},
		{"PermissionError: [Errno 13] Permission denied: '/etc/x'\n", true, false, false},
		{"mkdir: cannot create directory '/usr/x': Read-only file system\n", true, false, false},
		{"curl: (6) Could not resolve host: example.com\n", false, true, false},
		{"connect: Network is unreachable\n", false, true, false},
		{"all good\n", false, false, false},
	} {
		d := sandboxDenial(p, proj, &protocol.Stream{}, &protocol.Stream{Head: tc.stderr})
		got := [3]bool{}
		if d != nil {
			got = [3]bool{d.Write, d.Network, d.Signal}
		}
		if want := [3]bool{tc.write, tc.network, tc.signal}; got != want {
			t.Errorf("%q: write, network, signal = %v, want %v", tc.stderr, got, want)
		}
	}
	if sandboxDenial(nil, proj, &protocol.Stream{Head: "Permission denied: '/x'\n"}) != nil {
		t.Error("a session without a sandbox got a sandbox notice")
	}
}
