package testenv

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// NobodyUID is the unprivileged user AsNobody runs tests as.
const NobodyUID = 65534

// AsNobody runs this test binary's cases that match run again as uid
// 65534 (setpriv, util-linux), for cases whose outcome depends on
// privilege: root reads, enters and removes what the file modes deny
// anyone else. The test binary and bins are copied into a directory that
// user can read (t.TempDir's parent is 0700); env gives more of the
// child's environment, given that directory (where bins are, by their
// base names). It returns the child's output (run with -test.v) and its
// error. t is skipped unless it runs as root with setpriv on PATH.
func AsNobody(t testing.TB, run string, env func(dir string) []string, bins ...string) (string, error) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("runs as root only: it runs cases again as uid 65534 (as any other uid they run directly)")
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		t.Skip("needs setpriv (util-linux)")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "toold-nobody-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	for _, src := range append([]string{self}, bins...) {
		if err := CopyFile(src, filepath.Join(dir, filepath.Base(src))); err != nil {
			t.Fatal(err)
		}
	}
	args := []string{"--reuid=65534", "--regid=65534", "--clear-groups", "env", "-u", "XDG_RUNTIME_DIR", "HOME=/tmp", "TMPDIR=/tmp"}
	if env != nil {
		args = append(args, env(dir)...)
	}
	args = append(args, filepath.Join(dir, filepath.Base(self)), "-test.run", run, "-test.v")
	cmd := exec.Command(setpriv, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// CopyFile copies from to a new executable file to, in the kernel
// (io.Copy: copy_file_range). AsNobody copies the binaries so: read into
// memory, a -race test binary's 40 MB of them took a third of
// TestSandboxAsNobody's CPU.
func CopyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
