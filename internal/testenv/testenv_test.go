package testenv

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestToold: the binary runs, a second call finds it in the cache without
// building, and other flags or another environment give another key (the
// keys are of one listing of the sources: a go list is 0.1 CPU-second,
// and the flags and environment are hashed whatever it lists; other
// sources: TestHashSourcesSeesEdits).
func TestToold(t *testing.T) {
	bin, err := Toold()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(os.Getenv("GORACE"), "atexit_sleep_ms=") {
		t.Errorf("GORACE=%q: the binary's runs would sleep at exit", os.Getenv("GORACE"))
	}
	out, err := exec.Command(bin, "version").Output()
	if err != nil || !strings.HasPrefix(string(out), "toold ") {
		t.Fatalf("%s version: %v %q", bin, err, out)
	}
	before, err := os.Stat(bin)
	if err != nil {
		t.Fatal(err)
	}
	again, err := Toold()
	if err != nil || again != bin {
		t.Errorf("second call: %q %v, want %q", again, err, bin)
	}
	// Found, it is marked used, but its modification time, which the
	// daemon's socket name covers, stays.
	if after, err := os.Stat(bin); err != nil || !after.ModTime().Equal(before.ModTime()) {
		t.Errorf("the binary's modification time %v after a second call, %v before (%v)", after.ModTime(), before.ModTime(), err)
	}
	root, listing, err := listSources(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	key := func(flags, env []string) string {
		t.Helper()
		k, err := keyOf(flags, env, root, listing)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	k1 := key(nil, nil)
	k2 := key([]string{"-race"}, nil)
	k4 := key(nil, []string{"CGO_ENABLED=0"}) // Build(false, "")'s
	t.Setenv("GOEXPERIMENT", "")
	t.Setenv("CGO_ENABLED", "0")
	k3 := key(nil, nil)
	if k1 == k2 || k1 == k3 || k1 == k4 || k2 == k4 {
		t.Errorf("keys: plain %s, -race %s, CGO_ENABLED=0 %s, Build's CGO_ENABLED=0 %s: want all but the last two different", k1, k2, k3, k4)
	}
}

// TestHashSourcesSeesEdits: a change to a source file, or another file in
// a package, changes the hash, so a cached binary is never one of older
// sources.
func TestHashSourcesSeesEdits(t *testing.T) {
	root := t.TempDir()
	pkg := filepath.Join(root, "p")
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(pkg, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	os.Mkdir(pkg, 0o700)
	os.WriteFile(filepath.Join(root, "go.mod"), []byte("module m\n"), 0o600)
	write("a.go", "package p\n")
	sum := func(listing string) string {
		t.Helper()
		h := sha256.New()
		if err := hashSources(h, root, listing); err != nil {
			t.Fatal(err)
		}
		return hex.EncodeToString(h.Sum(nil))
	}
	one := pkg + " a.go\n"
	before := sum(one)
	if sum(one) != before {
		t.Fatal("the same sources hash differently")
	}
	write("a.go", "package p // edited\n")
	edited := sum(one)
	write("b.go", "package p\n")
	if edited == before || sum(pkg+" a.go b.go\n") == edited {
		t.Error("an edit or a new file leaves the hash as it was")
	}
	if err := hashSources(sha256.New(), root, pkg+" gone.go\n"); err == nil {
		t.Error("a missing source file hashed without an error")
	}
}

func TestLong(t *testing.T) {
	for _, c := range []struct {
		env  string
		want bool
	}{{"", false}, {"0", false}, {"1", true}, {"yes", true}} {
		t.Setenv("TOOLD_LONG", c.env)
		if Long() != c.want || Size(1, 2) != map[bool]int{false: 1, true: 2}[c.want] {
			t.Errorf("TOOLD_LONG=%q: Long %v, Size(1, 2) %d", c.env, Long(), Size(1, 2))
		}
	}
}

// TestGoCmdKeepsBuildCache: a TestMain that moves XDG_CACHE_HOME (for the
// index's files) leaves the go command's build cache where it was.
func TestGoCmdKeepsBuildCache(t *testing.T) {
	gocache := func() string {
		t.Helper()
		out, err := goCmd(nil, "env", "GOCACHE").Output()
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}
	before := gocache()
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	if after := gocache(); after != before || before == "" {
		t.Errorf("GOCACHE %q with XDG_CACHE_HOME moved, want %q", after, before)
	}
}

// TestPrune: prune removes the cache's files that no run has used for a
// day, by their access time (touch's mark) or their modification time,
// whichever is later, and keeps the current binary and others' files.
func TestPrune(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	old, now := time.Now().Add(-2*keep), time.Now()
	for _, tt := range []struct {
		name         string
		atime, mtime time.Time
		kept         bool
	}{
		{"toold-unused", old, old, false},
		{"lock-unused", old, old, false},
		{"toold-touched", now, old, true}, // touch marks the access time only
		{"toold-new", old, now, true},
		{"toold-current", old, old, true},
		{"other", old, old, true},
	} {
		p := filepath.Join(dir, tt.name)
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, tt.atime, tt.mtime); err != nil {
			t.Fatal(err)
		}
		defer func() {
			if _, err := os.Stat(p); (err == nil) != tt.kept {
				t.Errorf("%s: kept %v, want %v", tt.name, err == nil, tt.kept)
			}
		}()
	}
	prune(dir, filepath.Join(dir, "toold-current"))
}

// TestUntil: Until returns true as soon as the condition holds, however
// many polls that takes, and false once the wait is over if it never does
// (polled still, not given up at the first no).
func TestUntil(t *testing.T) {
	for _, tc := range []struct {
		name  string
		holds int // the call from which cond holds; 0 for never
		d     time.Duration
		want  bool
	}{
		{"at once", 1, time.Second, true},
		{"after polls", 5, 10 * time.Second, true},
		{"never", 0, 200 * time.Millisecond, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			calls := 0
			start := time.Now()
			got := Until(tc.d, func() bool { calls++; return tc.holds > 0 && calls >= tc.holds })
			took := time.Since(start)
			switch {
			case got != tc.want:
				t.Errorf("Until: %v after %d calls, want %v", got, calls, tc.want)
			case tc.want && calls != tc.holds:
				t.Errorf("%d calls, want %d", calls, tc.holds)
			case !tc.want && (took < tc.d || calls < 3):
				t.Errorf("gave up after %v and %d calls, the wait was %v", took, calls, tc.d)
			}
		})
	}
}

// TestPython: Python gives an interpreter that runs a program, and not a
// script that starts one (a shim).
func TestPython(t *testing.T) {
	t.Parallel()
	path, err := Python()
	if err != nil {
		t.Skip(err)
	}
	if !isProgram(path) {
		t.Errorf("%s is not a program", path)
	}
	if out, err := exec.Command(path, "-S", "-c", "print(6*7)").Output(); err != nil || strings.TrimSpace(string(out)) != "42" {
		t.Errorf("%s: %q %v", path, out, err)
	}
}
