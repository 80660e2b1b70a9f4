package adversarial

// Attacks on the search index of the shared daemon:
// its directory planted by another uid or replaced by a symlink, its file
// truncated or forged while mapped, files of the tree swapped for FIFOs
// while it builds.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/toold/toold/internal/testenv"
)

// nobody is the unprivileged uid (and gid) the cases run the daemon as,
// beside root, where privilege changes the outcome.
const nobody = 65534

// asUser is a uid the daemon runs as: root (the suite's own) or nobody.
type asUser struct {
	name string
	uid  int
}

// daemonUsers are the users a case runs the daemon as: the suite's own,
// and nobody (through setpriv) when the suite runs as root.
func daemonUsers(t *testing.T) []asUser {
	users := []asUser{{"self", os.Geteuid()}}
	if os.Geteuid() == 0 {
		if _, err := exec.LookPath("setpriv"); err == nil {
			users = append(users, asUser{"nobody", nobody})
		} else {
			t.Log("no setpriv: the cases run as root only")
		}
	}
	return users
}

var nobodyBin struct {
	once sync.Once
	dir  string
	path string
	err  error
}

// binFor returns a toold binary u can run: the suite's, or for another
// uid a copy in a directory anyone may enter (the build cache's is
// root's alone), made once a run and removed by TestMain.
func binFor(t testing.TB, u asUser) string {
	t.Helper()
	if u.uid == os.Geteuid() {
		return daemonBinary(t)
	}
	nobodyBin.once.Do(func() {
		dir, err := os.MkdirTemp("", "toold-adv-bin-")
		if err != nil {
			nobodyBin.err = err
			return
		}
		nobodyBin.dir = dir
		os.Chmod(dir, 0o755)
		path := filepath.Join(dir, "toold")
		if os.Link(daemonBinary(t), path) != nil {
			nobodyBin.err = testenv.CopyFile(daemonBinary(t), path)
		}
		os.Chmod(path, 0o755)
		nobodyBin.path = path
	})
	if nobodyBin.err != nil {
		t.Fatal(nobodyBin.err)
	}
	return nobodyBin.path
}

// publicDir is a directory of the test's that any uid may enter and
// read, owned by uid.
func publicDir(t testing.TB, uid int) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "toold-adv-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	if uid != os.Geteuid() {
		if err := os.Chown(dir, uid, uid); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// daemonAs starts `toold serve` on stdio as u, with env, its spool in a
// directory of u's; it returns the process and a raw client.
func daemonAs(t testing.TB, u asUser, env []string, args ...string) (*daemonProc, *rawClient) {
	t.Helper()
	spool := filepath.Join(publicDir(t, u.uid), "spool")
	argv := append([]string{binFor(t, u), "serve", "--spool-root", spool}, args...)
	if u.uid != os.Geteuid() {
		argv = append([]string{"setpriv", fmt.Sprintf("--reuid=%d", u.uid), fmt.Sprintf("--regid=%d", u.uid),
			"--clear-groups", "--"}, argv...)
	}
	p := &daemonProc{cmd: exec.Command(argv[0], argv[1:]...), stderr: &testenv.Buffer{}, exited: make(chan struct{})}
	p.cmd.Stderr = p.stderr
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	p.cmd.Env = append(os.Environ(), "HOME=/nonexistent", "TMPDIR=/tmp")
	p.cmd.Env = append(p.cmd.Env, env...)
	return p, p.serve(t)
}

// waitLog waits up to d for the daemon's stderr to hold s.
func waitLog(t testing.TB, p *daemonProc, s string, d time.Duration) bool {
	t.Helper()
	return testenv.Until(d, func() bool { return strings.Contains(p.stderr.String(), s) })
}

// grepTree writes a small tree that any uid can read: files that hold
// needle and files that do not.
func grepTree(t testing.TB, needle string) string {
	t.Helper()
	dir := publicDir(t, os.Geteuid())
	for i := range 20 {
		body := fmt.Sprintf("line one of file %d\nnothing here\n", i)
		if i%5 == 0 {
			body += "a " + needle + " here\n"
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%02d.txt", i)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// grepResult is the part of grep's result the cases check.
type grepResult struct {
	TotalMatches int `json:"totalMatches"`
	Files        []struct {
		Path string `json:"path"`
	} `json:"files"`
}

// grepCount greps dir for pattern and returns the matches counted.
func grepCount(t testing.TB, c *rawClient, id int, dir, pattern string) int {
	t.Helper()
	m := c.call(id, "grep", map[string]any{"pattern": pattern, "path": dir, "limit": 2000}, 20*time.Second)
	if m.Error != nil {
		t.Fatalf("grep: %d %s", m.Error.Code, m.Error.Message)
	}
	var r grepResult
	if err := json.Unmarshal(m.Result, &r); err != nil {
		t.Fatal(err)
	}
	return r.TotalMatches
}

// dirState is what a planted or victim directory looked like: its mode
// and its names.
func dirState(t testing.TB, dir string) string {
	t.Helper()
	fi, err := os.Lstat(dir)
	if err != nil {
		return err.Error()
	}
	ents, _ := os.ReadDir(dir)
	names := make([]string, len(ents))
	for i, e := range ents {
		names[i] = e.Name()
	}
	return fmt.Sprintf("%v %v", fi.Mode(), names)
}

// TestIndexDirUnsafe: the index directory is checked
// as the spool root is. Another uid's toold/index (0777) is not used, a
// symlink in its place is not followed (main chmod'ed its target 0700 and
// wrote the index into it), nor one in a toold directory another uid owns
// or anyone may write. The daemon says so, runs without an index, and
// greps still answer. Run as root and as nobody: as nobody, the chmod of
// root's 0777 directory failed anyway, but a symlink to nobody's own
// directory was followed.
func TestIndexDirUnsafe(t *testing.T) {
	// The quick run keeps TestSpecialFiles instead.
	skipUnlessLong(t, "an unsafe index dir")
	t.Parallel() // daemons and files of its own: it waits beside the others
	type setup struct {
		top, index string // the toold and toold/index directories
		victim     string // a directory of the daemon's user, 0755, with a file
	}
	cases := []struct {
		name  string
		plant func(t *testing.T, s setup, self, other int)
	}{
		{"another uid's index dir, 0777", func(t *testing.T, s setup, self, other int) {
			mkdirOwned(t, s.top, 0o700, self)
			mkdirOwned(t, s.index, 0o777, other)
		}},
		{"a symlink for index", func(t *testing.T, s setup, self, other int) {
			mkdirOwned(t, s.top, 0o700, self)
			symlinkOwned(t, s.victim, s.index, self)
		}},
		{"another uid's toold dir, 0777, with a symlink for index", func(t *testing.T, s setup, self, other int) {
			mkdirOwned(t, s.top, 0o777, other)
			symlinkOwned(t, s.victim, s.index, other)
		}},
		{"a toold dir anyone may write", func(t *testing.T, s setup, self, other int) {
			mkdirOwned(t, s.top, 0o777, self)
			mkdirOwned(t, s.index, 0o700, self)
		}},
	}
	for _, u := range daemonUsers(t) {
		other := nobody
		if u.uid != 0 {
			other = 0
		}
		for _, tc := range cases {
			t.Run(u.name+"/"+tc.name, func(t *testing.T) {
				if u.uid != 0 && os.Geteuid() != 0 {
					t.Skip("needs root to plant another uid's files")
				}
				t.Parallel()
				cache := publicDir(t, os.Geteuid())
				s := setup{top: filepath.Join(cache, "toold"), index: filepath.Join(cache, "toold", "index"),
					victim: filepath.Join(publicDir(t, u.uid), "victim")}
				mkdirOwned(t, s.victim, 0o755, u.uid)
				if err := os.WriteFile(filepath.Join(s.victim, "keep"), []byte("mine\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				tc.plant(t, s, u.uid, other)
				before := map[string]string{s.top: dirState(t, s.top), s.index: dirState(t, s.index), s.victim: dirState(t, s.victim)}
				tree := grepTree(t, "needle")
				p, c := daemonAs(t, u, []string{"XDG_CACHE_HOME=" + cache})
				for i := range 3 { // the first grep starts a build, the next would use it
					if n := grepCount(t, c, i+1, tree, "needle"); n != 4 {
						t.Fatalf("grep %d: %d matches, want 4", i, n)
					}
				}
				if !waitLog(t, p, "no search index", 5*time.Second) {
					t.Errorf("the daemon did not refuse the index directory:\n%s", daemonTail(p.stderr.String(), 2000))
				}
				for dir, was := range before {
					if now := dirState(t, dir); now != was {
						t.Errorf("%s changed: %s, was %s", dir, now, was)
					}
				}
			})
		}
	}
}

// mkdirOwned makes dir with mode perm, owned by uid.
func mkdirOwned(t testing.TB, dir string, perm os.FileMode, uid int) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, perm); err != nil {
		t.Fatal(err)
	}
	if uid != os.Geteuid() {
		if err := os.Chown(dir, uid, uid); err != nil {
			t.Fatal(err)
		}
	}
}

// symlinkOwned makes link point to target, the link owned by uid.
func symlinkOwned(t testing.TB, target, link string, uid int) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if uid != os.Geteuid() {
		if err := os.Lchown(link, uid, uid); err != nil {
			t.Fatal(err)
		}
	}
}

// indexStates returns stats.index's state of each tree, by root.
func indexStates(t testing.TB, c *rawClient, id int) map[string]string {
	t.Helper()
	m := c.call(id, "stats", map[string]any{}, 10*time.Second)
	if m.Error != nil {
		t.Fatalf("stats: %s", m.Error.Message)
	}
	var s struct {
		Index []struct {
			Root, State, Reason string
		} `json:"index"`
	}
	if err := json.Unmarshal(m.Result, &s); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, x := range s.Index {
		out[x.Root] = x.State
	}
	return out
}

// waitIndexed waits up to d for the index of tree to be built (ready, or
// scanning once it was made: no longer building), calling stats with ids
// from *id. False when it is still building (or was never started).
func waitIndexed(t testing.TB, c *rawClient, id *int, tree string, d time.Duration) (string, bool) {
	t.Helper()
	var state string
	done := testenv.Until(d, func() bool {
		*id++
		state = indexStates(t, c, *id)[tree]
		return state != "" && state != "building"
	})
	return state, done
}

// endsAtEOF closes the daemon's stdin and reports whether it exits within
// d, as a stdio daemon must at the end of its input.
func endsAtEOF(p *daemonProc, c *rawClient, d time.Duration) bool {
	c.w.Close()
	return p.wait(d) >= 0
}

// fifoWaiters names the threads of process pid that wait in a FIFO's open
// for a writer (their /proc wchan: wait_for_partner, in fifo_open), "" when none does. (Not a pipe's read: the thread
// reading the daemon's stdin waits in one.)
func fifoWaiters(pid int) string {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/wchan", pid))
	var out []string
	for _, f := range tasks {
		if b, err := os.ReadFile(f); err == nil && (bytes.HasPrefix(b, []byte("wait_for_partner")) || bytes.HasPrefix(b, []byte("fifo_open"))) {
			out = append(out, filepath.Base(filepath.Dir(f))+": "+string(b))
		}
	}
	return strings.Join(out, ", ")
}

// swapNames swaps the names a and b at once where the system can
// (exchange), else in two renames through tmp.
func swapNames(a, b, tmp string) error {
	err := exchange(a, b)
	if err == nil || !errors.Is(err, errors.ErrUnsupported) && !errors.Is(err, unix.EINVAL) {
		return err
	}
	return errors.Join(os.Rename(a, tmp), os.Rename(b, a), os.Rename(tmp, b))
}

// TestIndexBuildFIFOs: files swapped for FIFOs while
// the index builds. main opened each file of the build as it blocks, so
// the build stayed "building" for ever, two threads blocked in open, and
// then the stdio daemon did not exit at the end of its input. Now the
// build opens as grep does (non-blocking, the type checked), the index is
// made, greps answer, and the daemon ends at EOF. A tree of 4000 files.
func TestIndexBuildFIFOs(t *testing.T) {
	// The quick run keeps TestSpecialFiles instead.
	skipUnlessLong(t, "FIFOs in an index build")
	t.Parallel() // daemons and files of its own: it waits beside the others
	const files = 4000
	tree := t.TempDir()
	stash := t.TempDir()
	var swapped []string
	for i := range files {
		path := filepath.Join(tree, fmt.Sprintf("d%d", i%10), fmt.Sprintf("f%04d.c", i))
		os.MkdirAll(filepath.Dir(path), 0o755)
		body := strings.Repeat(fmt.Sprintf("int f%d(void) { return %d; } /* filler */\n", i, i), 40)
		if i%7 == 0 {
			body += "const char *needle = \"swap_me\";\n"
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if i%4 == 0 { // a quarter of the files: a FIFO waits beside each
			fifo := filepath.Join(stash, fmt.Sprintf("p%04d", i))
			if err := unix.Mkfifo(fifo, 0o644); err != nil {
				t.Fatal(err)
			}
			swapped = append(swapped, path, fifo)
		}
	}
	want := (files + 6) / 7
	p, c := daemonStdio(t)
	if n := grepCount(t, c, 1, tree, "swap_me"); n != want {
		t.Fatalf("the first grep: %d matches, want %d", n, want)
	}
	// The first grep starts the build: swap files for FIFOs and back
	// while it lists and reads them, until it is done (or the case's time
	// is up), and leave every file a file. Each round yields a moment: a
	// swapper that spins starves the build, whose readers run at nice 19.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tmp := filepath.Join(stash, "tmp")
		for round := 0; ; round++ {
			for i := 0; i < len(swapped); i += 2 {
				if err := swapNames(swapped[i], swapped[i+1], tmp); err != nil {
					t.Error(err)
					return
				}
			}
			select {
			case <-stop:
				if round%2 == 1 { // an even number of exchanges: files again
					return
				}
			case <-time.After(time.Millisecond):
			}
		}
	})
	// Blocked is told from slow by where the daemon's threads wait: a
	// build on a loaded machine may take long, one in a FIFO's open
	// never ends.
	id := 1
	deadline := time.Now().Add(testenv.Loaded(30 * time.Second))
	state, built, blocked := "", false, ""
	for !built && blocked == "" && time.Now().Before(deadline) {
		blocked = fifoWaiters(p.cmd.Process.Pid)
		state, built = waitIndexed(t, c, &id, tree, time.Second)
	}
	close(stop)
	wg.Wait()
	if blocked != "" {
		t.Errorf("daemon threads wait on a FIFO (%s)", blocked)
	} else if !built {
		t.Errorf("the index is still %q after %v", state, testenv.Loaded(30*time.Second))
	}
	if n := grepCount(t, c, 1000, tree, "swap_me"); n != want {
		t.Errorf("after the build: %d matches, want %d", n, want)
	}
	if !endsAtEOF(p, c, 10*time.Second) {
		t.Error("the daemon did not exit within 10 s of the end of its input")
	}
}
