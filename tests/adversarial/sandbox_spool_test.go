package adversarial

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// unsafeSpoolRoots are spool roots the daemon must refuse: one others may
// write to, and (as root) one another uid owns.
func unsafeSpoolRoots(t *testing.T) map[string]string {
	base := daemonPrivateDir(t)
	os.Chmod(base, 0o755)
	roots := map[string]string{"0777": filepath.Join(base, "x777")}
	os.Mkdir(roots["0777"], 0o777)
	os.Chmod(roots["0777"], 0o777)
	if os.Geteuid() == 0 {
		roots["another uid"] = filepath.Join(base, "nobody")
		os.Mkdir(roots["another uid"], 0o700)
		if err := os.Chown(roots["another uid"], 65534, 65534); err != nil {
			t.Fatal(err)
		}
	}
	return roots
}

// TestSandboxTmpDirNotInUnsafeSpoolRoot: with a spool root that was
// refused, a sandboxed session's TMPDIR is a private directory outside it
// (never inside another's or a world-writable directory), and initialize's
// spoolDir is null, not a directory that was never made. On stdio and the
// shared socket (the forwarder's daemon is the harness's, with its own
// spool root).
func TestSandboxTmpDirNotInUnsafeSpoolRoot(t *testing.T) {
	// The quick run keeps TestSandboxReadOnly on stdio instead.
	skipUnlessLong(t, "a sandbox TMPDIR and an unsafe spool root")
	t.Parallel() // daemons and files of its own: it waits beside the others
	for rootName, root := range unsafeSpoolRoots(t) {
		_, sock := daemonShared(t, 0, "--spool-root", root)
		for name, open := range map[string]func() *rawClient{
			"stdio":  func() *rawClient { _, c := daemonStdio(t, "--spool-root", root); return c },
			"socket": func() *rawClient { return daemonServed(t, sock) },
		} {
			t.Run(rootName+"/"+name, func(t *testing.T) {
				w := newSandboxWorld(t)
				c := open()
				var res struct {
					SpoolDir *string
					Sandbox  struct{ TmpDir string }
				}
				sandboxCall(t, c, 1, "initialize", map[string]any{"cwd": w.proj, "roots": []string{w.proj},
					"sandbox": map[string]any{"mode": "workspace-write"}}, &res)
				if res.SpoolDir != nil {
					if _, err := os.Stat(*res.SpoolDir); err != nil {
						t.Errorf("spoolDir names %s: %v", *res.SpoolDir, err)
					}
				}
				tmp := res.Sandbox.TmpDir
				if strings.HasPrefix(tmp, root+"/") {
					t.Errorf("TMPDIR %s is inside the refused spool root %s", tmp, root)
				}
				if fi, err := os.Stat(tmp); err != nil || fi.Mode().Perm() != 0o700 {
					t.Errorf("TMPDIR %s: %v %v", tmp, fi, err)
				}
				r := sandboxExec(t, c, 2, w, "echo t > $TMPDIR/t && cat $TMPDIR/t")
				if r.ExitCode == nil || *r.ExitCode != 0 || r.Stdout.Head != "t\n" {
					t.Errorf("writing to TMPDIR: %q", r.output())
				}
				if entries, _ := os.ReadDir(root); len(entries) != 0 && rootName == "0777" {
					t.Errorf("the daemon made %v in the refused root", entries)
				}
			})
		}
	}
}

// TestSandboxTmpDirSweptAfterKill: the TMPDIR a session had outside a
// refused spool root, with what its command wrote there, is removed by the
// next daemon to start once its own daemon was SIGKILLed (which removes
// nothing), as the spool directories of a daemon that died are; a live
// daemon's beside it stays, and its commands still write there.
func TestSandboxTmpDirSweptAfterKill(t *testing.T) {
	// The quick run keeps TestSandboxReadOnly on stdio instead.
	skipUnlessLong(t, "a sandbox TMPDIR swept after a kill")
	t.Parallel()
	env := []string{"TMPDIR=" + daemonPrivateDir(t)} // the daemons' temporary directory
	root := unsafeSpoolRoots(t)["0777"]
	w := newSandboxWorld(t)
	start := func() (*daemonProc, *rawClient, string) {
		p, c := daemonStdioEnv(t, env, "--spool-root", root)
		var res struct{ Sandbox struct{ TmpDir string } }
		sandboxCall(t, c, 1, "initialize", map[string]any{"cwd": w.proj, "roots": []string{w.proj},
			"sandbox": map[string]any{"mode": "workspace-write"}}, &res)
		if res.Sandbox.TmpDir == "" {
			t.Fatal("a sandboxed session without a TMPDIR")
		}
		return p, c, res.Sandbox.TmpDir
	}
	write := func(c *rawClient, id int) {
		t.Helper()
		if r := sandboxExec(t, c, id, w, "echo t > $TMPDIR/t && cat $TMPDIR/t"); r.ExitCode == nil || *r.ExitCode != 0 || r.Stdout.Head != "t\n" {
			t.Fatalf("writing to TMPDIR: %q", r.output())
		}
	}
	killed, c1, dead := start()
	write(c1, 2)
	_, c2, live := start()
	killed.cmd.Process.Kill()
	<-killed.exited
	if _, err := os.Stat(filepath.Join(dead, "t")); err != nil {
		t.Fatalf("the killed daemon's TMPDIR before a sweep: %v", err)
	}
	start() // its daemon sweeps before it serves
	if _, err := os.Lstat(dead); !os.IsNotExist(err) {
		t.Errorf("the killed daemon's TMPDIR %s after the next daemon started: %v", dead, err)
	}
	if _, err := os.Stat(live); err != nil {
		t.Errorf("the live daemon's TMPDIR: %v", err)
	}
	write(c2, 3)
}
