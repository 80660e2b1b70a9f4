package adversarial

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// bigOutput prints bigLines lines, 60,894 bytes (bigBytes): past exec's
// default preview (2,000 lines, 51,200 bytes), so spooled. It was seq's
// 50,000 lines (290 KB), whose capture in the -race daemon cost as much
// as the rest of a case; the quotas below are in proportion.
const (
	bigLines  = 12000
	bigBytes  = 60894
	bigOutput = "seq 1 12000"
)

func execBig(t *testing.T, c *client) execResult {
	t.Helper()
	var res execResult
	c.ok("exec", map[string]any{"command": bigOutput}, &res)
	if res.Stdout.Spool == nil {
		t.Fatalf("no spool: %+v", res)
	}
	return res
}

// TestNoSpoolRoot: a spool root that cannot be created
// (here it would be under a regular file) no longer stops the daemon: read
// works, and exec gives its preview with a notice that the output could not
// be kept. Main exited at start. In every mode.
func TestNoSpoolRoot(t *testing.T) {
	// The quick run keeps TestSpoolDirRemoved and TestSpoolQuotas instead.
	skipUnlessLong(t, "no spool root")
	t.Parallel() // daemons and files of its own: it waits beside the others
	file := filepath.Join(t.TempDir(), "file")
	write(t, file, "a regular file\n")
	forModes(t, func(t *testing.T, m mode) {
		c := m.start(t, "--spool-root", filepath.Join(file, "spool"))
		var w window
		c.ok("read", map[string]any{"path": file}, &w)
		if w.Content != "a regular file\n" {
			t.Fatalf("read: %+v", w)
		}
		var res execResult
		c.ok("exec", map[string]any{"command": bigOutput}, &res)
		if !strings.HasPrefix(res.Stdout.Head, "1\n2\n") || !strings.HasSuffix(res.Stdout.Tail, "\n12000\n") {
			t.Errorf("no preview: %+v", res.Stdout)
		}
		if res.Stdout.Spool != nil || res.Notice == nil || !strings.Contains(*res.Notice, "could not be kept") {
			t.Errorf("want no spool and a notice that says so, got spool %+v notice %v", res.Stdout.Spool, deref(res.Notice))
		}
		// Small output needs no spool at all.
		c.ok("exec", map[string]any{"command": "echo hi"}, &res)
		if res.Stdout.Head != "hi\n" || res.Notice != nil {
			t.Errorf("echo: %+v notice %v", res.Stdout, deref(res.Notice))
		}
	})
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

// TestSpoolReplaced: a command plants a
// symlink, another file or a symlinked directory where a spool was. page
// refuses (-32002) and never shows what was planted; main followed the
// symlink. Each plant in every mode.
func TestSpoolReplaced(t *testing.T) {
	// The quick run keeps TestSpoolDirRemoved and TestSpoolQuotas instead.
	skipUnlessLong(t, "a spool replaced")
	t.Parallel() // daemons and files of its own: it waits beside the others
	outside := filepath.Join(t.TempDir(), "secret.txt")
	write(t, outside, "SECRET\n")
	tests := []struct {
		name  string
		plant func(sp string) string // the command that plants
	}{
		{"symlink over the file", func(sp string) string { return fmt.Sprintf("ln -sf %q %q", outside, sp) }},
		{"another file over it", func(sp string) string {
			return fmt.Sprintf("printf 'SECRET\\n' > %q.new && mv -f %q.new %q", sp, sp, sp)
		}},
		{"hard link over it", func(sp string) string { return fmt.Sprintf("ln -f %q %q", outside, sp) }},
		{"directory swapped for a symlink", func(sp string) string {
			dir := filepath.Dir(sp)
			fake := filepath.Join(filepath.Dir(outside), "fake")
			return fmt.Sprintf("mkdir -p %q && cp %q %q && mv %q %q.old && ln -s %q %q",
				fake, outside, filepath.Join(fake, filepath.Base(sp)), dir, dir, fake, dir)
		}},
	}
	forModes(t, func(t *testing.T, m mode) {
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				c := m.start(t)
				res := execBig(t, c)
				sp := res.Stdout.Spool
				var planted execResult
				c.ok("exec", map[string]any{"command": tt.plant(sp.Path)}, &planted)
				if planted.ExitCode == nil || *planted.ExitCode != 0 {
					t.Fatalf("planting failed: %+v", planted)
				}
				for _, params := range []map[string]any{{"spool": sp.ID}, {"spool": sp.ID, "startByte": 0}} {
					r := c.call("page", params)
					if strings.Contains(string(r.Result), "SECRET") {
						t.Fatalf("page %v showed the planted file: %s", params, r.Result)
					}
					if r.Error == nil || r.Error.Code != codeAccessDenied {
						t.Errorf("page %v: want -32002, got %v %s", params, r.Error, r.Result)
					}
				}
			})
		}
	})
}

// TestSpoolQuotas: a session cannot fill the disk: past the session quota
// the session's oldest spools are evicted, and paging one says so; the
// newest stays whole. Main had no quota (nor the flag). The quick run
// takes a socket's session only, TOOLD_LONG=1 every mode.
func TestSpoolQuotas(t *testing.T) {
	t.Parallel() // daemons and files of its own: it waits beside the others
	forModes(t, func(t *testing.T, m mode) {
		m.quickIn(t, "socket")
		// Two spools of bigOutput fit, three do not.
		const quota = bigBytes * 5 / 2
		c := m.start(t, "--spool-session-quota", strconv.Itoa(quota))
		var spools []string
		for range 4 {
			spools = append(spools, execBig(t, c).Stdout.Spool.ID)
		}
		for i, id := range spools {
			r := c.call("page", map[string]any{"spool": id, "offset": bigLines - 1})
			if i < 2 {
				if r.Error == nil || r.Error.Code != codeNoSuchFile || !strings.Contains(r.Error.Message, "evicted") {
					t.Errorf("spool %d of 4: want -32001 evicted, got %v %s", i+1, r.Error, r.Result)
				}
				continue
			}
			var w window
			if r.Error != nil || json.Unmarshal(r.Result, &w) != nil || w.Content != "11999\n12000\n" {
				t.Errorf("spool %d of 4: want its last lines, got %v %s", i+1, r.Error, r.Result)
			}
		}
		var stats struct {
			SpoolBytes int64 `json:"spoolBytes"`
		}
		c.ok("stats", nil, &stats)
		if stats.SpoolBytes > quota {
			t.Errorf("spoolBytes %d past the quota", stats.SpoolBytes)
		}
	})
}

// TestSpoolDaemonQuota: past the daemon's quota a session loses its own
// oldest spools, never another session's; with none left its new spool is
// cut (capped) instead.
func TestSpoolDaemonQuota(t *testing.T) {
	// The quick run keeps TestSpoolQuotas instead.
	skipUnlessLong(t, "the daemon's spool quota")
	t.Parallel() // daemons and files of its own: it waits beside the others
	// One spool of bigOutput fits and a capped part of another (as 450 KB
	// held seq's 50,000 lines, 290 KB, and a part).
	const quota = bigBytes * 156 / 100
	dial := startSocket(t, "--spool-daemon-quota", strconv.Itoa(quota))
	a, b := dial(), dial()
	first := execBig(t, a).Stdout.Spool
	var res execResult
	b.ok("exec", map[string]any{"command": bigOutput}, &res)
	if res.Stdout.Spool == nil || !res.Stdout.Spool.Capped || res.Stdout.Spool.Bytes > quota-first.Bytes {
		t.Errorf("b's spool: want capped within what a left, got %+v", res.Stdout.Spool)
	}
	var w window
	a.ok("page", map[string]any{"spool": first.ID, "offset": bigLines}, &w)
	if w.Content != "12000\n" {
		t.Errorf("a's spool was touched: %+v", w)
	}
	// a's own next spool evicts a's first.
	execBig(t, a)
	if e := a.fails("page", map[string]any{"spool": first.ID}); !strings.Contains(e.Message, "evicted") {
		t.Errorf("a's first spool: want evicted, got %v", e)
	}
}

// TestSpoolDirRemoved: a command that deletes its session's spool directory
// gets its preview with a notice; the daemon and the session go on.
func TestSpoolDirRemoved(t *testing.T) {
	t.Parallel() // daemons and files of its own: it waits beside the others
	c := startStdio(t, false)
	var init struct {
		SpoolDir string `json:"spoolDir"`
	}
	c.ok("initialize", map[string]any{}, &init)
	var res execResult
	c.ok("exec", map[string]any{"command": fmt.Sprintf("rm -rf %q; %s", init.SpoolDir, bigOutput)}, &res)
	if !strings.HasSuffix(res.Stdout.Tail, "\n12000\n") || res.Notice == nil || !strings.Contains(*res.Notice, "could not be kept") {
		t.Errorf("want the preview and a notice, got %+v %v", res.Stdout, deref(res.Notice))
	}
	if _, err := os.Stat(init.SpoolDir); err == nil {
		t.Errorf("the spool directory came back")
	}
	c.ok("exec", map[string]any{"command": "echo still here"}, &res)
}

// TestSharedDaemonCwd: a session of the
// shared daemon that names no cwd must not get the cwd of whoever started
// the daemon (here this test's directory); the daemon works from /.
func TestSharedDaemonCwd(t *testing.T) {
	// The quick run keeps TestDaemonConnCapFramings instead.
	skipUnlessLong(t, "a shared daemon's cwd per session")
	t.Parallel() // daemons and files of its own: it waits beside the others
	c := startSocket(t)()
	var res execResult
	c.ok("exec", map[string]any{"command": "pwd"}, &res)
	if res.Stdout.Head != "/\n" {
		t.Errorf("a session without cwd runs in %q, want /", res.Stdout.Head)
	}
	wd, _ := os.Getwd()
	if r := c.call("read", map[string]any{"path": "harness_test.go"}); r.Error == nil {
		t.Errorf("a relative path resolved against the starter's cwd %s: %s", wd, r.Result)
	}
}

// TestSharedDaemonRelativeSocket: a socket named relative to the starter's
// cwd is still where the daemon listens, though it works from /.
func TestSharedDaemonRelativeSocket(t *testing.T) {
	// The quick run keeps TestDaemonConnCapFramings instead.
	skipUnlessLong(t, "a relative socket path")
	t.Parallel() // daemons and files of its own: it waits beside the others
	dir, err := os.MkdirTemp("", "toold-rel-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	cmd := exec.Command(binPath, "serve", "--listen", "s", "--spool-root", filepath.Join(t.TempDir(), "spool"))
	cmd.Dir = dir
	d := launch(t, cmd)
	defer func() { cmd.Process.Signal(syscall.SIGTERM); d.stop(t) }()
	waitSocket(t, d, filepath.Join(dir, "s"))
}

// TestSpoolRootOpenMode: a spool root toold-UID that
// exists already with mode 0755 is made 0700 before anything is spooled in
// it (main refused it and kept no output, the issue saw it used as it was);
// one owned by another uid is refused, and exec then keeps no output.
// In every mode.
func TestSpoolRootOpenMode(t *testing.T) {
	// The quick run keeps TestSpoolDirRemoved and TestSpoolQuotas instead.
	skipUnlessLong(t, "a spool root of open mode")
	t.Parallel() // daemons and files of its own: it waits beside the others
	forModes(t, func(t *testing.T, m mode) {
		root := filepath.Join(t.TempDir(), fmt.Sprintf("toold-%d", os.Geteuid()))
		if err := os.Mkdir(root, 0o755); err != nil {
			t.Fatal(err)
		}
		os.Chmod(root, 0o755)
		c := m.start(t, "--spool-root", root)
		res := execBig(t, c)
		if !strings.HasPrefix(res.Stdout.Spool.Path, root+"/") {
			t.Errorf("spool %s is not under %s", res.Stdout.Spool.Path, root)
		}
		if fi, err := os.Stat(root); err != nil || fi.Mode().Perm() != 0o700 {
			t.Errorf("the spool root is %v (%v), want 0700", fi.Mode().Perm(), err)
		}
		if os.Geteuid() != 0 {
			return // only root can give a directory to another uid
		}
		other := filepath.Join(t.TempDir(), "toold-other")
		os.Mkdir(other, 0o700)
		if err := os.Chown(other, 12345, 12345); err != nil {
			t.Fatal(err)
		}
		c = m.start(t, "--spool-root", other)
		var r execResult
		c.ok("exec", map[string]any{"command": bigOutput}, &r)
		if r.Stdout.Spool != nil || r.Notice == nil || !strings.Contains(*r.Notice, "could not be kept") {
			t.Errorf("a root of uid 12345 was used: spool %+v notice %v", r.Stdout.Spool, deref(r.Notice))
		}
	})
}
