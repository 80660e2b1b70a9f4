package search

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestOpenBeneath: a listed file is opened by its path beneath the tree's
// directory, Linux's openat2 and the portable walk of one component at a
// time (-tags toold_portable) alike: no symlink among its components is
// followed, and no path leaves the directory.
func TestOpenBeneath(t *testing.T) {
	if !beneathOK() {
		t.Skip("no openat2 here: listed files go through os.Root")
	}
	dir := t.TempDir()
	outside := t.TempDir()
	mustWrite := func(p, s string) {
		t.Helper()
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte(s), 0o644))
	}
	mustWrite(filepath.Join(dir, "a", "b", "f"), "deep\n")
	mustWrite(filepath.Join(dir, "top"), "top\n")
	mustWrite(filepath.Join(outside, "secret"), "SECRET\n")
	must(t, os.Symlink(filepath.Join(dir, "a"), filepath.Join(dir, "la")))          // a symlinked dir, inside
	must(t, os.Symlink(outside, filepath.Join(dir, "a", "out")))                    // a symlinked dir, outside
	must(t, os.Symlink(filepath.Join(dir, "top"), filepath.Join(dir, "a", "ltop"))) // a symlinked file
	must(t, unix.Mkfifo(filepath.Join(dir, "a", "fifo"), 0o644))

	d, err := openDir(dir)
	must(t, err)
	defer unix.Close(d)
	cases := []struct {
		rel, want string // want "" for a refusal
	}{
		{"top", "top\n"},
		{"a/b/f", "deep\n"},
		{"la/b/f", ""},
		{"a/out/secret", ""},
		{"a/ltop", ""},
		{"../" + filepath.Base(outside) + "/secret", ""},
		{"/etc/passwd", ""},
		{"a/missing", ""},
		{"a/b", ""}, // a directory: opened, but no regular file's read
	}
	// The workers' way: one cache through every case, twice (a directory
	// kept from the case before, and left for the next).
	var cache beneathCache
	defer cache.close()
	base := newDirHandle(d)
	opens := map[string]func(rel string) (int, error){
		"openBeneath": func(rel string) (int, error) { return openBeneath(d, rel) },
		"cached":      func(rel string) (int, error) { return cache.open(base, rel) },
	}
	for _, how := range []string{"openBeneath", "cached", "cached"} {
		for _, c := range cases {
			t.Run(how+"/"+c.rel, func(t *testing.T) { openBeneathCase(t, opens[how], c.rel, c.want) })
		}
	}
	// A FIFO is opened without blocking (O_NONBLOCK), and read as empty.
	fd, err := openBeneath(d, "a/fifo")
	if err == nil {
		unix.Close(fd)
	}
}

// openBeneathCase opens rel with open and checks it reads want ("" for a
// refusal, which must be a *PathError).
func openBeneathCase(t *testing.T, open func(string) (int, error), rel, want string) {
	fd, err := open(rel)
	if err != nil {
		if want != "" {
			t.Fatalf("open(%q): %v", rel, err)
		}
		var pe *os.PathError
		if !errors.As(err, &pe) {
			t.Errorf("open(%q): %T %v, want a *PathError", rel, err, err)
		}
		return
	}
	defer unix.Close(fd)
	buf := make([]byte, 64)
	n, _ := unix.Pread(fd, buf, 0)
	if got := string(buf[:max(n, 0)]); got != want {
		t.Fatalf("open(%q) read %q, want %q", rel, got, want)
	}
}

// TestFdPath: the path the kernel keeps for an open directory is where it
// really is, not the symlink it was opened through: what Allow is given.
func TestFdPath(t *testing.T) {
	real := t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	must(t, os.Symlink(real, link))
	fd, err := openDir(link)
	must(t, err)
	defer unix.Close(fd)
	got, ok := fdPath(fd)
	if !ok {
		t.Skip("the system does not say where a descriptor was opened")
	}
	want, err := filepath.EvalSymlinks(real)
	must(t, err)
	if got != want {
		t.Fatalf("fdPath = %q, want %q", got, want)
	}
	var seen []string
	allow := func(p string) error { seen = append(seen, p); return errors.New("no") }
	if err := checkOpen(fd, allow); err == nil || len(seen) != 1 || seen[0] != want {
		t.Fatalf("checkOpen: %v, allow saw %q", err, seen)
	}
}
