package spool

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestTempDir: a session's TempDir is beside its spool directory when the
// root is ours, and in $TMPDIR, flocked, when the root was refused; both
// are 0700 and Remove removes them with what they hold.
func TestTempDir(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	refused := filepath.Join(t.TempDir(), "x777")
	os.Mkdir(refused, 0o777)
	os.Chmod(refused, 0o777)
	for _, tt := range []struct {
		name   string
		root   string
		dir    func(d *Dir) string // where the TempDir must be
		locked bool
	}{
		{"in the root", filepath.Join(t.TempDir(), "spool"), func(d *Dir) string { return d.Path() + ".tmp" }, false},
		{"the root refused", refused, nil, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m, _ := Start(tt.root)
			t.Cleanup(func() { m.Close() })
			d, err := m.Open("s1")
			if err != nil {
				t.Fatal(err)
			}
			td, err := d.TempDir()
			if err != nil {
				t.Fatal(err)
			}
			p := td.Path()
			if tt.dir != nil && p != tt.dir(d) {
				t.Errorf("TempDir %s, want %s", p, tt.dir(d))
			}
			if tt.locked != (td.lock != nil) || tt.locked && !strings.HasPrefix(p, filepath.Join(tmp, tempPrefix+strconv.Itoa(os.Getpid())+"-s1-")) {
				t.Errorf("TempDir %s (locked %v), want toold-tmp-<pid>-s1-* in %s locked: %v", p, td.lock != nil, tmp, tt.locked)
			}
			if got := mode(t, p); got != 0o700 {
				t.Errorf("mode %v, want 0700", got)
			}
			os.WriteFile(filepath.Join(p, "t"), []byte("x"), 0o600)
			if swept, _ := SweepTempDirs(tmp); len(swept) != 0 {
				t.Errorf("a live TempDir swept: %v", swept)
			}
			if err := td.Remove(); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("%s after Remove: %v", p, err)
			}
		})
	}
}

// TestSweepTempDirs: the sweep removes the TempDirs of daemons that died,
// a SIGKILLed one's with what it wrote, and leaves a live daemon's (of
// this process or another), other names, symlinks, files and another
// user's directories.
func TestSweepTempDirs(t *testing.T) {
	parent := t.TempDir()
	dead, deadDir := startHelper(t, helperTempEnv, parent)
	_, liveDir := startHelper(t, helperTempEnv, parent)
	dead.Process.Kill()
	dead.Wait()
	own, err := newLockedTempDir(parent, "own")
	if err != nil {
		t.Fatal(err)
	}
	defer own.Remove()
	// Closed without Remove, as by a daemon that died.
	closed, err := newLockedTempDir(parent, "closed")
	if err != nil {
		t.Fatal(err)
	}
	closed.lock.Close()

	target := filepath.Join(parent, "target")
	kept := []string{liveDir, own.Path(), target,
		filepath.Join(parent, "toold-x"), filepath.Join(parent, tempPrefix+"link"), filepath.Join(parent, tempPrefix+"file")}
	os.Mkdir(target, 0o700)
	os.Mkdir(kept[3], 0o700)
	os.Symlink(target, kept[4])
	os.WriteFile(kept[5], nil, 0o600)
	if os.Geteuid() == 0 {
		theirs := filepath.Join(parent, tempPrefix+"nobody")
		os.Mkdir(theirs, 0o700)
		if err := os.Chown(theirs, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		kept = append(kept, theirs)
	}

	removed, err := SweepTempDirs(parent)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{deadDir, closed.Path()}
	slices.Sort(want)
	slices.Sort(removed)
	if !slices.Equal(removed, want) {
		t.Fatalf("removed %v, want %v", removed, want)
	}
	for _, p := range want {
		if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s still there: %v", p, err)
		}
	}
	for _, p := range kept {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s removed: %v", p, err)
		}
	}
	if got, err := os.ReadFile(filepath.Join(liveDir, "t")); string(got) != "left behind\n" {
		t.Errorf("the live daemon's file: %q %v", got, err)
	}
	if p := (*TempDir)(nil).Path(); p != "" {
		t.Errorf("a nil TempDir's path %q", p)
	}
	if again, _ := SweepTempDirs(parent); len(again) != 0 {
		t.Errorf("second sweep removed %v", again)
	}
}
