package methods

import (
	"os"
	"path/filepath"
	"slices"
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
		{"open " + out + "/x: permission denied\n", true, false, false},
		{"Error: EACCES: permission denied, open '" + out + "/x'\n", true, false, false},
		{"Error: Os { code: 13, kind: PermissionDenied, message: \"Permission denied\" } " + out + "/x\n", true, false, false},
		{"mkdir " + out + "/d: read-only file system\n", true, false, false},
		{"chmod " + out + "/x: operation not permitted\n", true, false, false},
		{"open " + proj + "/x: permission denied\n", false, false, false},
		{"dial tcp 93.184.216.34:80: connect: network is unreachable\n", false, true, false},
		{"Get \"http://example.com\": dial tcp: lookup example.com: no such host\n", false, true, false},
		{"dial tcp 10.1.2.3:443: connect: connection refused\n", false, true, false},
		{"Error: getaddrinfo ENOTFOUND example.com\n", false, true, false},
		{"error sending request: dns error: failed to lookup address information\n", false, true, false},
		{"kill: (1): operation not permitted\n", false, false, true},
		{"all good\n", false, false, false},
		{"the permissions were fine, no denial here\n", false, false, false},
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
	// read-only with roots: a path outside the roots was refused as a read
	// (or a write), one inside them as a write only.
	ro := &sandbox.Policy{Mode: sandbox.ModeReadOnly, Writable: []string{"/tmpdir"}, TmpDir: "/tmpdir",
		Readable: append(append([]string{}, sandbox.SystemDirs...), proj, "/tmpdir")}
	for _, tc := range []struct {
		stderr      string
		read, write bool
	}{
		{"cat: " + out + "/secret: Permission denied\n", true, false},
		{"/bin/bash: line 1: " + proj + "/x: Permission denied\n", false, true},
	} {
		d := sandboxDenial(ro, proj, &protocol.Stream{Head: tc.stderr})
		if d == nil || d.Read != tc.read || d.Write != tc.write || !slices.Equal(d.Roots, []string{proj}) {
			t.Errorf("read-only %q: %+v", tc.stderr, d)
		}
	}
	if sandboxDenial(nil, proj, &protocol.Stream{Head: "Permission denied: '/x'\n"}) != nil {
		t.Error("a session without a sandbox got a sandbox notice")
	}
}
