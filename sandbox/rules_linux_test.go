package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestReadRulesSplit: reads beneath a dir that holds a private one are
// rules on its other entries, as they are now, recursively; a symlink gets
// no rule (its target is read under its own name); a dir with no private
// one inside is one rule.
func TestReadRulesSplit(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"x", "y/private/deep", "y/z", "w"} {
		os.MkdirAll(filepath.Join(root, d), 0o755)
	}
	os.WriteFile(filepath.Join(root, "y/file"), nil, 0o644)
	os.Symlink(filepath.Join(root, "y/private"), filepath.Join(root, "y/link"))
	fd, err := openNoFollow(root)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	for _, tc := range []struct {
		private []string
		want    []string
	}{
		{nil, []string{"."}},
		{[]string{"/elsewhere"}, []string{"."}},
		{[]string{root + "/y/private"}, []string{"w", "x", "y/file", "y/z"}},
		{[]string{root + "/y/private/deep", root + "/w"}, []string{"x", "y/file", "y/z"}},
		{[]string{root}, nil},
	} {
		rules, err := readRules(root, fd, tc.private)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range rules {
			p, _ := os.Readlink(fdPath(r.fd))
			rel, _ := filepath.Rel(root, p)
			got = append(got, rel)
			if r.access != fsRead || r.owned == (r.fd == fd) {
				t.Errorf("%q: rule %s: access %b owned %v", tc.private, rel, r.access, r.owned)
			}
			if r.owned {
				unix.Close(r.fd)
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("private %q: rules on %q, want %q", tc.private, got, tc.want)
		}
	}
}

// TestHidden: in a sandbox with user namespaces a private dir is an empty
// dir to its commands, and the session's TMPDIR beneath it is brought
// back, writable; without them (TOOLD_SANDBOX_USERNS=0's plan) the private
// dir cannot be read at all, and TMPDIR still can.
func TestHidden(t *testing.T) {
	for _, userns := range []bool{true, false} {
		s := Probe()
		if !s.UserNS && userns {
			continue
		}
		private := t.TempDir()
		os.WriteFile(filepath.Join(private, "secret"), []byte("SECRET\n"), 0o644)
		tmp := filepath.Join(private, "mine.tmp")
		os.Mkdir(tmp, 0o700)
		p := &Policy{Mode: ModeWorkspaceWrite, TmpDir: tmp, Private: []string{private}, IDs: map[string]FileID{}}
		for _, d := range []string{t.TempDir(), tmp} {
			real, id, err := Resolve(d)
			if err != nil {
				t.Fatal(err)
			}
			p.Writable = append(p.Writable, real)
			p.IDs[real] = id
		}
		s.UserNS = userns
		p.Plan = s.Plan(p)
		out, st := run(t, p, "cat "+private+"/secret; ls "+private+"; echo mine > "+tmp+"/t && cat "+tmp+"/t")
		if strings.Contains(out, "SECRET") || !strings.Contains(out, "mine\n") || !st.Success() {
			t.Errorf("userns=%v: %q %v", userns, out, st)
		}
	}
}

// TestSandboxedPeer: a command of a sandbox is Sandboxed, in a user
// namespace or not (the mark), and so is its descendant that cleared its
// environment; this process and a plain child are not.
func TestSandboxedPeer(t *testing.T) {
	plain := exec.Command("sleep", "5")
	if err := plain.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { plain.Process.Kill(); plain.Wait() }()
	if Sandboxed(os.Getpid()) || Sandboxed(plain.Process.Pid) {
		t.Fatal("this process or its plain child counts as sandboxed")
	}
	for _, userns := range []bool{true, false} {
		s := Probe()
		if !s.UserNS && userns {
			continue
		}
		s.UserNS = userns
		p := &Policy{Mode: ModeWorkspaceWrite, TmpDir: t.TempDir()}
		p.Writable = []string{p.TmpDir}
		p.Plan = s.Plan(p)
		in, err := Start(p, StartOptions{})
		if err != nil {
			t.Fatal(err)
		}
		r, w, _ := os.Pipe()
		null, _ := os.Open(os.DevNull)
		pid, err := in.Spawn(Request{Path: "/bin/sh", Argv: []string{"sh", "-c", "exec env -i sleep 5"}, Dir: "/"}, [3]*os.File{null, w, w})
		w.Close()
		null.Close()
		if err != nil {
			t.Fatal(err)
		}
		if !Sandboxed(pid) {
			t.Errorf("userns=%v: the command %d is not Sandboxed", userns, pid)
		}
		proc, _ := os.FindProcess(pid)
		proc.Kill()
		proc.Wait()
		r.Close()
		in.Close()
	}
}
