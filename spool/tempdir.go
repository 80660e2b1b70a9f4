package spool

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// TempDir is a session's private temporary directory, 0700: a sandboxed
// session's TMPDIR. Remove removes it; a daemon that dies first leaves it
// to the sweep of the next daemon to start (Sweep or SweepTempDirs).
type TempDir struct {
	path string
	lock *os.File // the flock held on path while it lives; nil in the root
}

// tempPrefix starts the names of the TempDirs made outside the root.
const tempPrefix = "toold-tmp-"

// TempDir makes the session's TempDir: <root>/<pid>-<session>.tmp beside d
// when d was made (Sweep removes it with the pid's directories); else, the
// root refused or failing, toold-tmp-<pid>-<session>-<random> in the system's
// temporary directory ($TMPDIR), never in a root that others may write to.
func (d *Dir) TempDir() (*TempDir, error) {
	if d.err == nil {
		path := d.path + ".tmp"
		if err := os.Mkdir(path, 0o700); err == nil {
			return &TempDir{path: path}, nil
		}
	}
	return newLockedTempDir(os.TempDir(), filepath.Base(d.path))
}

// newLockedTempDir makes a TempDir in parent and holds an flock on it while
// it lives, so that SweepTempDirs can tell its daemon is alive (an flock
// ends with its holder, whatever became of the pid). A sweeper may lock and
// remove it between its making and its locking: then the lock is on a
// directory no longer at its path, and another is made.
func newLockedTempDir(parent, name string) (*TempDir, error) {
	var last error
	for range 10 {
		path, err := os.MkdirTemp(parent, tempPrefix+name+"-")
		if err != nil {
			return nil, fmt.Errorf("spool: temporary directory: %w", err)
		}
		f, err := os.Open(path)
		if err != nil {
			return nil, fmt.Errorf("spool: temporary directory: %w", err)
		}
		switch err := flock(f, unix.LOCK_EX|unix.LOCK_NB); {
		case err == nil && sameFile(f, path):
			return &TempDir{path: path, lock: f}, nil
		case err == nil:
			last = errors.New("removed by a sweep")
		case errors.Is(err, unix.EWOULDBLOCK):
			last = err // a sweeper's, which removes it
		default:
			// No flock here (some network or FUSE file systems): a
			// directory all the same, which a crash would leave behind.
			f.Close()
			return &TempDir{path: path}, nil
		}
		f.Close()
	}
	return nil, fmt.Errorf("spool: temporary directory in %s: %w", parent, last)
}

// Path returns the directory's absolute path; "" for a nil TempDir (a
// session that has none).
func (t *TempDir) Path() string {
	if t == nil {
		return ""
	}
	return t.path
}

// Remove removes the directory and what the session left in it, then
// releases its lock.
func (t *TempDir) Remove() error {
	err := removeAll(t.path)
	if t.lock != nil {
		t.lock.Close()
	}
	if err != nil {
		return fmt.Errorf("spool: %w", err)
	}
	return nil
}

// SweepTempDirs removes the TempDirs that daemons of ours which died left
// in parent (the system's temporary directory): the directories named
// toold-tmp-* that this user owns and whose flock can be taken. It never
// follows a symlink, nor touches another user's entries or a live
// daemon's. It returns the paths it removed.
func SweepTempDirs(parent string) ([]string, error) {
	entries, err := os.ReadDir(parent)
	if err != nil {
		return nil, fmt.Errorf("spool: sweep %s: %w", parent, err)
	}
	var removed []string
	var errs []error
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), tempPrefix) {
			continue
		}
		path := filepath.Join(parent, e.Name())
		switch ok, err := sweepTempDir(path); {
		case err != nil:
			errs = append(errs, err)
		case ok:
			removed = append(removed, path)
		}
	}
	return removed, errors.Join(errs...)
}

// sweepTempDir removes path if it is a directory of ours whose daemon is
// dead (its flock free); true when it did.
func sweepTempDir(path string) (bool, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_DIRECTORY, 0)
	if err != nil {
		return false, nil // gone, a symlink, or not ours to read
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return false, nil
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); !ok || int(st.Uid) != os.Geteuid() {
		return false, nil
	}
	if flock(f, unix.LOCK_EX|unix.LOCK_NB) != nil || !sameFile(f, path) {
		return false, nil // a live daemon's, or gone
	}
	if err := removeAll(path); err != nil {
		return false, fmt.Errorf("spool: sweep: %w", err)
	}
	return true, nil
}
