package spool

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/toold/toold/internal/testenv"
)

// TestRemoveLockedOut: a session's TMPDIR and spool directory go at
// Remove, and a dead daemon's at the sweep, whatever modes a command left
// on the directories in them (a chmod 000 directory kept the
// TMPDIR forever), and a symlink among them is not followed: the modes
// of what it leads to stay as they were. As root the modes deny nothing:
// TestRemoveLockedOutAsNobody runs it as uid 65534.
func TestRemoveLockedOut(t *testing.T) {
	outside := t.TempDir()
	locked := filepath.Join(outside, "locked")
	os.Mkdir(locked, 0o000)
	defer os.Chmod(locked, 0o700)
	for _, tt := range []struct {
		name  string
		setup func(t *testing.T, dir string)
	}{
		{"chmod 000 dir", func(t *testing.T, dir string) {
			mkdirs(t, dir, "a/b/c")
			os.WriteFile(filepath.Join(dir, "a/b/f"), []byte("x"), 0o600)
			os.Chmod(filepath.Join(dir, "a"), 0o000)
		}},
		{"nested chmod 000", func(t *testing.T, dir string) {
			mkdirs(t, dir, "a/b/c")
			os.WriteFile(filepath.Join(dir, "a/b/c/f"), []byte("x"), 0o600)
			os.Chmod(filepath.Join(dir, "a/b/c"), 0o000)
			os.Chmod(filepath.Join(dir, "a/b"), 0o100)
			os.Chmod(filepath.Join(dir, "a"), 0o000)
		}},
		{"read-only dir", func(t *testing.T, dir string) {
			mkdirs(t, dir, "r")
			os.WriteFile(filepath.Join(dir, "r/f"), []byte("x"), 0o400)
			os.Chmod(filepath.Join(dir, "r"), 0o500)
		}},
		{"the dir itself 000", func(t *testing.T, dir string) {
			mkdirs(t, dir, "a")
			os.Chmod(dir, 0o000)
		}},
		{"a symlink to a locked dir outside", func(t *testing.T, dir string) {
			os.Symlink(locked, filepath.Join(dir, "l"))
			mkdirs(t, dir, "a")
			os.Chmod(filepath.Join(dir, "a"), 0o000)
		}},
	} {
		for _, where := range []string{"tmpdir", "spool dir", "sweep"} {
			t.Run(tt.name+"/"+where, func(t *testing.T) {
				m, err := Start(filepath.Join(t.TempDir(), "spool"))
				if err != nil {
					t.Fatal(err)
				}
				defer m.Close()
				d, _ := m.Open("s1")
				td, err := d.TempDir()
				if err != nil {
					t.Fatal(err)
				}
				var dir string
				var remove func() error
				switch where {
				case "tmpdir":
					dir, remove = td.Path(), td.Remove
				case "spool dir":
					dir, remove = d.Path(), d.Remove
				case "sweep":
					// A dead daemon's directory: no lock file, a pid that is gone.
					dir = filepath.Join(m.Root(), "999999999-s9")
					os.Mkdir(dir, 0o700)
					remove = func() error { _, err := m.Sweep(); return err }
				}
				tt.setup(t, dir)
				if err := remove(); err != nil {
					t.Errorf("remove: %v", err)
				}
				if _, err := os.Lstat(dir); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("%s after the removal: %v", dir, err)
				}
				if fi, err := os.Stat(locked); err != nil || fi.Mode().Perm() != 0 {
					t.Errorf("the symlink's target changed: %v %v", fi.Mode(), err)
				}
			})
		}
	}
}

func mkdirs(t *testing.T, dir, rel string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, rel), 0o700); err != nil {
		t.Fatal(err)
	}
}

// TestRemoveLockedOutAsNobody runs TestRemoveLockedOut as uid 65534,
// whom the modes deny.
func TestRemoveLockedOutAsNobody(t *testing.T) {
	out, err := testenv.AsNobody(t, "^TestRemoveLockedOut$", nil)
	passed := len(regexp.MustCompile(`--- PASS: TestRemoveLockedOut/`).FindAllString(out, -1))
	if err != nil || passed < 15 {
		t.Fatalf("as uid 65534 (%d subtests passed): %v\n%s", passed, err, out)
	}
}
