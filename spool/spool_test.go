package spool

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toold/toold/internal/testenv"
)

// helperEnv makes the test binary a daemon stand-in: it opens a Manager on
// the root it names, prints its session directory and waits to be killed.
// helperTempEnv makes it one whose spool root was refused: it makes a
// TempDir in the directory it names, writes in it, prints its path and
// waits to be killed.
const (
	helperEnv     = "TOOLD_SPOOL_HELPER_ROOT"
	helperTempEnv = "TOOLD_SPOOL_HELPER_TMP"
)

func TestMain(m *testing.M) {
	if parent := os.Getenv(helperTempEnv); parent != "" {
		d, err := newLockedTempDir(parent, "helper")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		os.WriteFile(filepath.Join(d.Path(), "t"), []byte("left behind\n"), 0o600)
		fmt.Println(d.Path())
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	if root := os.Getenv(helperEnv); root != "" {
		mgr, err := NewManager(root)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		d, err := mgr.Open("helper")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		f, _ := d.Create("stdout")
		f.Write([]byte("left behind\n"))
		if _, err := d.TempDir(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		fmt.Println(d.Path())
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	testenv.Exit(m.Run())
}

func newManager(t *testing.T) *Manager {
	t.Helper()
	m, err := NewManager(filepath.Join(t.TempDir(), "spool"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

func mode(t *testing.T, path string) os.FileMode {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

func TestPermsAndLayout(t *testing.T) {
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	m := newManager(t)
	if got := mode(t, m.Root()); got != 0o700 {
		t.Errorf("root mode %#o", got)
	}
	if _, err := os.Stat(filepath.Join(m.Root(), strconv.Itoa(os.Getpid())+".lock")); err != nil {
		t.Errorf("lock file: %v", err)
	}
	d, err := m.Open("s1")
	if err != nil {
		t.Fatal(err)
	}
	if got := mode(t, d.Path()); got != 0o700 {
		t.Errorf("dir mode %#o", got)
	}
	if want := filepath.Join(m.Root(), fmt.Sprintf("%d-s1", os.Getpid())); d.Path() != want {
		t.Errorf("dir %s, want %s", d.Path(), want)
	}
	f, err := d.Create("stdout")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got := mode(t, f.Path()); got != 0o600 {
		t.Errorf("file mode %#o", got)
	}
	if filepath.Base(f.Path()) != f.ID()+".stdout.log" || filepath.Dir(f.Path()) != d.Path() {
		t.Errorf("file path %s", f.Path())
	}
	if _, err := d.Create("../x"); !errors.Is(err, ErrBadName) {
		t.Errorf("bad stream: %v", err)
	}
	if _, err := m.Open("a/b"); !errors.Is(err, ErrBadName) {
		t.Errorf("bad session: %v", err)
	}
}

func TestUnsafeRoot(t *testing.T) {
	dir := t.TempDir()
	open := filepath.Join(dir, "open")
	if err := os.Mkdir(open, 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chmod(open, 0o755)
	if _, err := NewManager(open); err != nil {
		t.Errorf("0755 root of ours: %v", err)
	} else if fi, _ := os.Stat(open); fi.Mode().Perm() != 0o700 {
		t.Errorf("0755 root of ours left %v, want 0700", fi.Mode().Perm())
	}
	writable := filepath.Join(dir, "writable")
	os.Mkdir(writable, 0o700)
	os.Chmod(writable, 0o777)
	if _, err := NewManager(writable); !errors.Is(err, ErrUnsafeRoot) {
		t.Errorf("0777 root: %v", err)
	}
	link := filepath.Join(dir, "link")
	private := filepath.Join(dir, "private")
	os.Mkdir(private, 0o700)
	os.Symlink(private, link)
	if _, err := NewManager(link); !errors.Is(err, ErrUnsafeRoot) {
		t.Errorf("symlink root: %v", err)
	}
	if os.Geteuid() == 0 {
		other := filepath.Join(dir, "other")
		os.Mkdir(other, 0o700)
		if err := os.Chown(other, 12345, 12345); err != nil {
			t.Fatal(err)
		}
		if _, err := NewManager(other); !errors.Is(err, ErrUnsafeRoot) {
			t.Errorf("root owned by another uid: %v", err)
		}
	}
	if _, err := NewManager("relative"); err == nil {
		t.Error("relative root accepted")
	}
}

func TestStaleDirsOfOurPid(t *testing.T) {
	root := filepath.Join(t.TempDir(), "spool")
	os.Mkdir(root, 0o700)
	stale := filepath.Join(root, fmt.Sprintf("%d-old", os.Getpid()))
	os.Mkdir(stale, 0o700)
	os.WriteFile(filepath.Join(stale, "x.stdout.log"), []byte("x"), 0o600)
	os.WriteFile(filepath.Join(root, fmt.Sprintf("%d.lock", os.Getpid())), nil, 0o600)
	m, err := NewManager(root)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("stale dir of our pid kept: %v", err)
	}
}

func TestIDsAndLookup(t *testing.T) {
	m := newManager(t)
	a, _ := m.Open("a")
	b, _ := m.Open("b")
	seen := map[string]bool{}
	var ids []string
	for range 50 {
		f, err := a.Create("stdout")
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
		if len(f.ID()) != 32 || strings.Trim(f.ID(), "0123456789abcdef") != "" || seen[f.ID()] {
			t.Fatalf("bad or repeated id %q", f.ID())
		}
		seen[f.ID()] = true
		ids = append(ids, f.ID())
	}
	for _, id := range ids {
		if p, err := a.Find(id); err != nil || !strings.HasPrefix(p, a.Path()) {
			t.Fatalf("lookup %s in its session: %q %v", id, p, err)
		}
		if _, err := b.Find(id); err == nil {
			t.Fatalf("id %s found in another session", id)
		}
	}
	if _, err := a.Find("../../etc/passwd"); err == nil {
		t.Fatal("lookup of a path")
	}
	a.Remove()
	if _, err := a.Find(ids[0]); err == nil {
		t.Fatal("lookup after Remove")
	}
}

func TestWriteCapAndBytes(t *testing.T) {
	m := newManager(t)
	m.MaxFileBytes = 10
	d, _ := m.Open("s")
	f, _ := d.Create("stdout")
	for _, s := range []string{"12345", "6789", "abcdef", "more"} {
		if n, err := f.Write([]byte(s)); n != len(s) || err != nil {
			t.Fatalf("write: %d %v", n, err)
		}
	}
	f.Close()
	if !f.Capped() || f.Bytes() != 10 || f.Err() != nil {
		t.Fatalf("capped %v bytes %d err %v", f.Capped(), f.Bytes(), f.Err())
	}
	if got, _ := os.ReadFile(f.Path()); string(got) != "123456789a" {
		t.Fatalf("file holds %q", got)
	}
	g, _ := d.Create("stderr")
	g.Write([]byte("1234567890")) // exactly the cap: not capped
	if g.Capped() || g.Bytes() != 10 {
		t.Fatalf("exact cap: capped %v bytes %d", g.Capped(), g.Bytes())
	}
	if m.Bytes() != 20 {
		t.Fatalf("manager bytes %d", m.Bytes())
	}
	e, _ := m.Open("other")
	h, _ := e.Create("stdout")
	h.Write([]byte("xyz"))
	if err := d.Remove(); err != nil {
		t.Fatal(err)
	}
	if err := d.Remove(); err != nil {
		t.Fatalf("second Remove: %v", err)
	}
	if _, err := os.Stat(d.Path()); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("dir still there: %v", err)
	}
	if m.Bytes() != 3 {
		t.Fatalf("manager bytes after Remove %d, want 3", m.Bytes())
	}
	g.Write([]byte("after remove")) // dropped, not counted
	if m.Bytes() != 3 {
		t.Fatalf("write after Remove counted: %d", m.Bytes())
	}
	if _, err := d.Create("stdout"); !errors.Is(err, ErrClosed) {
		t.Fatalf("Create after Remove: %v", err)
	}
}

func TestWriteError(t *testing.T) {
	m := newManager(t)
	m.OpenFile = func(string, int, os.FileMode) (*os.File, error) {
		return os.OpenFile("/dev/full", os.O_WRONLY, 0)
	}
	d, _ := m.Open("s")
	f, err := d.Create("stdout")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if n, err := f.Write([]byte("hello")); n != 5 || err != nil {
		t.Fatalf("write: %d %v", n, err)
	}
	if !errors.Is(f.Err(), syscall.ENOSPC) {
		t.Fatalf("Err() = %v, want ENOSPC", f.Err())
	}
	f.Write([]byte("more"))
	if !errors.Is(f.Err(), syscall.ENOSPC) || f.Bytes() != 0 {
		t.Fatalf("after more: %v %d", f.Err(), f.Bytes())
	}
}

func TestPermissionDenied(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root ignores permissions")
	}
	m := newManager(t)
	d, _ := m.Open("s")
	os.Chmod(d.Path(), 0o500)
	defer os.Chmod(d.Path(), 0o700)
	if _, err := d.Create("stdout"); !errors.Is(err, os.ErrPermission) {
		t.Fatalf("create in read-only dir: %v", err)
	}
}

func TestCloseRemovesAll(t *testing.T) {
	m, err := NewManager(filepath.Join(t.TempDir(), "spool"))
	if err != nil {
		t.Fatal(err)
	}
	d1, _ := m.Open("a")
	d2, _ := m.Open("b")
	f, _ := d1.Create("stdout")
	f.Write([]byte("x"))
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	left, _ := os.ReadDir(m.Root())
	if len(left) != 0 {
		t.Fatalf("left after Close: %v", left)
	}
	for _, d := range []*Dir{d1, d2} {
		if _, err := os.Stat(d.Path()); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("%s: %v", d.Path(), err)
		}
	}
	if _, err := m.Open("c"); !errors.Is(err, ErrClosed) {
		t.Fatalf("Open after Close: %v", err)
	}
	if m.Bytes() != 0 {
		t.Fatalf("bytes after Close %d", m.Bytes())
	}
}

// startHelper starts a daemon stand-in with env (helperEnv or
// helperTempEnv) set to dir and returns it and the directory it made.
func startHelper(t *testing.T, env, dir string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), env+"="+dir)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("helper: %v", err)
	}
	return cmd, strings.TrimSpace(line)
}

func TestSweep(t *testing.T) {
	m := newManager(t)
	own, _ := m.Open("mine")

	dead, deadDir := startHelper(t, helperEnv, m.Root())
	_, liveDir := startHelper(t, helperEnv, m.Root())
	dead.Process.Kill()
	dead.Wait()

	// A directory without a lock file whose pid is gone (an old daemon's).
	gone := exec.Command("true")
	gone.Run()
	orphan := filepath.Join(m.Root(), fmt.Sprintf("%d-old", gone.Process.Pid))
	os.Mkdir(orphan, 0o700)
	// And one whose pid is alive: kept.
	alive := filepath.Join(m.Root(), "1-init")
	os.Mkdir(alive, 0o700)

	removed, err := m.Sweep()
	if err != nil {
		t.Fatal(err)
	}
	deadLock := filepath.Join(m.Root(), fmt.Sprintf("%d.lock", dead.Process.Pid))
	want := []string{deadDir, deadDir + ".tmp", deadLock, orphan}
	slices.Sort(want)
	slices.Sort(removed)
	if !slices.Equal(removed, want) {
		t.Fatalf("removed %v, want %v", removed, want)
	}
	for _, p := range want {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s still there", p)
		}
	}
	for _, p := range []string{own.Path(), liveDir, liveDir + ".tmp", alive} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s removed: %v", p, err)
		}
	}
	// The live daemon's file is intact.
	files, _ := filepath.Glob(filepath.Join(liveDir, "*.stdout.log"))
	if len(files) != 1 {
		t.Fatalf("live files %v", files)
	}
	if got, _ := os.ReadFile(files[0]); !bytes.Equal(got, []byte("left behind\n")) {
		t.Fatalf("live file holds %q", got)
	}
	// A second sweep finds nothing more.
	if again, _ := m.Sweep(); len(again) != 0 {
		t.Fatalf("second sweep removed %v", again)
	}
}

// TestRuntimeDir: the system's runtime dir of the uid (base/UID, as
// /run/user/UID) wins over XDG_RUNTIME_DIR, set or not, so that a client
// that strips the environment meets the daemon of one that does not; it
// counts only when it is ours and private. XDG_RUNTIME_DIR counts where
// there is none, then the temporary directory; TOOLD_RUNTIME_DIR overrides.
func TestRuntimeDir(t *testing.T) {
	uid := strconv.Itoa(os.Geteuid())
	other := t.TempDir() // an XDG_RUNTIME_DIR that is not the system's
	for _, c := range []struct {
		name     string
		make     func(t *testing.T, d string) // makes base/UID
		xdg      string                       // "<other>", "<system>", "<missing>" or ""
		tooldDir bool
		want     string // "<system>", "<other>", "<tmp>", "<toold>"
	}{
		{"system dir, XDG unset", private, "", false, "<system>"},
		{"system dir, XDG elsewhere", private, "<other>", false, "<system>"},
		{"system dir, XDG the same", private, "<system>", false, "<system>"},
		{"system dir, XDG missing", private, "<missing>", false, "<system>"},
		{"no system dir, XDG set", nil, "<other>", false, "<other>"},
		{"no system dir, XDG unset", nil, "", false, "<tmp>"},
		{"no system dir, XDG missing", nil, "<missing>", false, "<tmp>"},
		{"system dir others may write", func(t *testing.T, d string) { mkdir(t, d, 0o777) }, "", false, "<tmp>"},
		{"system dir a symlink", func(t *testing.T, d string) { symlinkTo(t, d, other) }, "", false, "<tmp>"},
		{"system dir a file", func(t *testing.T, d string) { os.WriteFile(d, nil, 0o600) }, "<other>", false, "<other>"},
		{"TOOLD_RUNTIME_DIR", private, "<other>", true, "<toold>"},
	} {
		t.Run(c.name, func(t *testing.T) {
			base := t.TempDir()
			system := filepath.Join(base, uid)
			if c.make != nil {
				c.make(t, system)
			}
			toold := filepath.Join(t.TempDir(), "toold-runtime")
			subst := map[string]string{"<system>": system, "<other>": other, "<missing>": filepath.Join(other, "missing"),
				"<tmp>": os.TempDir(), "<toold>": toold, "": ""}
			t.Setenv("XDG_RUNTIME_DIR", subst[c.xdg])
			t.Setenv(RuntimeDirEnv, "")
			if c.tooldDir {
				t.Setenv(RuntimeDirEnv, toold)
			}
			if got := runtimeDirIn(base); got != subst[c.want] {
				t.Errorf("got %s, want %s (%s)", got, subst[c.want], c.want)
			}
		})
	}
}

// TestRuntimeDirNotOurs: a base/UID owned by another uid is not ours.
func TestRuntimeDirNotOurs(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to make a directory another uid owns")
	}
	base := t.TempDir()
	private(t, filepath.Join(base, "0"))
	if err := os.Chown(filepath.Join(base, "0"), 65534, 65534); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_RUNTIME_DIR", "")
	t.Setenv(RuntimeDirEnv, "")
	if got := runtimeDirIn(base); got != os.TempDir() {
		t.Errorf("got %s", got)
	}
}

func TestDefaultRoot(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(RuntimeDirEnv, dir)
	if got, want := DefaultRoot(), filepath.Join(dir, fmt.Sprintf("toold-%d", os.Geteuid())); got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func private(t *testing.T, d string) { mkdir(t, d, 0o700) }

func mkdir(t *testing.T, d string, mode os.FileMode) {
	t.Helper()
	if err := os.Mkdir(d, mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(d, mode); err != nil { // past the umask
		t.Fatal(err)
	}
}

func symlinkTo(t *testing.T, d, target string) {
	t.Helper()
	if err := os.Symlink(target, d); err != nil {
		t.Fatal(err)
	}
}

// TestDelete: a file deleted is gone from disk, from lookups and from the
// bytes counted; other files stay; an unknown id is ErrNoSpool.
func TestDelete(t *testing.T) {
	m := newManager(t)
	d, _ := m.Open("s")
	keep, _ := d.Create("stdout")
	keep.Write([]byte("kept\n"))
	gone, _ := d.Create("stderr")
	gone.Write([]byte("shown whole\n"))
	gone.Close()
	before := m.Bytes()
	if err := d.Delete(gone.ID()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(gone.Path()); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the file is still there: %v", err)
	}
	if _, err := d.Find(gone.ID()); !errors.Is(err, ErrNoSpool) {
		t.Errorf("Find after Delete: %v", err)
	}
	if m.Bytes() >= before {
		t.Errorf("bytes %d after Delete, %d before", m.Bytes(), before)
	}
	if _, err := d.Open(keep.ID()); err != nil {
		t.Errorf("the other file: %v", err)
	}
	if err := d.Delete(gone.ID()); !errors.Is(err, ErrNoSpool) {
		t.Errorf("second Delete: %v", err)
	}
}
