package spool

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// Manager owns this daemon's part of a spool root: its lock file and its
// session directories, and the quotas over their files. Its methods are safe
// for concurrent use; set the exported fields before the first Open.
type Manager struct {
	// MaxFileBytes caps each spool file; 0 means no cap.
	MaxFileBytes int64
	// SessionQuota caps the files of one session together; 0 means no
	// quota. A write past it evicts the session's oldest files, and cuts the
	// file written when there are none left.
	SessionQuota int64
	// DaemonQuota caps the files of every session together; 0 means no
	// quota. A write past it evicts the writing session's oldest files (never
	// another session's) as SessionQuota does.
	DaemonQuota int64
	// OpenFile opens spool files; nil means os.OpenFile. Tests set it to
	// make writes fail (e.g. by opening /dev/full).
	OpenFile func(name string, flag int, perm os.FileMode) (*os.File, error)

	root string
	pid  int

	qmu   sync.Mutex // taken inside Dir.mu, never around it
	bytes int64      // guarded by qmu: bytes reserved by live spool files

	mu     sync.Mutex
	lock   *os.File // nil until the root is set up
	dirs   map[*Dir]struct{}
	closed bool
}

// NewManager creates root (0700) if needed, refuses it unless it is a
// directory owned by us without group or other permissions (ErrUnsafeRoot),
// and takes an exclusive flock on root/<pid>.lock that it holds until Close,
// so that a sweeper can tell this daemon is alive even if its pid is reused.
// Directories of a dead daemon that had this pid are removed.
func NewManager(root string) (*Manager, error) {
	m, err := Start(root)
	if err != nil {
		return nil, err
	}
	return m, nil
}

// Start is NewManager for a daemon that must run without a spool: when root
// cannot be set up (no permission, no inodes) it returns the reason and a
// Manager all the same, which tries again at each Open and meanwhile opens
// Dirs whose Create fails with that reason, so that exec still gives its
// preview. Only a root that is not an absolute path gives a nil Manager.
func Start(root string) (*Manager, error) {
	if root == "" || !filepath.IsAbs(root) {
		return nil, fmt.Errorf("spool: root %q is not an absolute path", root)
	}
	m := &Manager{root: filepath.Clean(root), pid: os.Getpid(), dirs: make(map[*Dir]struct{})}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m, m.setUpLocked()
}

// setUpLocked makes the root and takes our lock, unless done already.
func (m *Manager) setUpLocked() error {
	if m.lock != nil {
		return nil
	}
	if err := PrivateDir(m.root); err != nil {
		return err
	}
	lock, err := takeLock(m.lockPath(m.pid))
	if err != nil {
		return err
	}
	m.lock = lock
	// A dead daemon that had our pid (common in containers, where the
	// daemon gets the same pid at every start) left these; Sweep skips our
	// pid, and we have opened nothing yet.
	if stale, _ := filepath.Glob(filepath.Join(m.root, strconv.Itoa(m.pid)+"-*")); len(stale) > 0 {
		for _, p := range stale {
			removeAll(p)
		}
	}
	return nil
}

// Root returns the spool root.
func (m *Manager) Root() string { return m.root }

// Bytes returns how many bytes this daemon's live spool files hold: written
// (or about to be) and not yet removed nor evicted.
func (m *Manager) Bytes() int64 {
	m.qmu.Lock()
	defer m.qmu.Unlock()
	return m.bytes
}

func (m *Manager) sessionQuota() int64 { return orNone(m.SessionQuota) }
func (m *Manager) daemonQuota() int64  { return orNone(m.DaemonQuota) }
func (m *Manager) maxFileBytes() int64 { return orNone(m.MaxFileBytes) }

// orNone reads a bound whose zero value means none.
func orNone(v int64) int64 {
	if v > 0 {
		return v
	}
	return math.MaxInt64
}

func (m *Manager) lockPath(pid int) string {
	return filepath.Join(m.root, strconv.Itoa(pid)+".lock")
}

func (m *Manager) openFile(name string, flag int, perm os.FileMode) (*os.File, error) {
	if m.OpenFile != nil {
		return m.OpenFile(name, flag, perm)
	}
	return os.OpenFile(name, flag, perm)
}

// validName reports whether s can be part of a file name: letters, digits,
// '_' and '-' only.
func validName(s string) bool {
	if s == "" || len(s) > 128 {
		return false
	}
	for _, c := range []byte(s) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// Open creates the directory of a session, root/<pid>-<session>, 0700.
// session must be letters, digits, '_' and '-' only (ErrBadName). When the
// root or the directory cannot be made, Open still returns a Dir, whose
// Err says why and whose Create fails: a session without a spool still runs
// commands and reads files.
func (m *Manager) Open(session string) (*Dir, error) {
	if !validName(session) {
		return nil, fmt.Errorf("spool: session %q: %w", session, ErrBadName)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, fmt.Errorf("spool: open %s: %w", session, ErrClosed)
	}
	path := filepath.Join(m.root, strconv.Itoa(m.pid)+"-"+session)
	d := &Dir{m: m, path: path, files: make(map[string]*File), evicted: make(map[string]*EvictedError)}
	err := m.setUpLocked()
	if err == nil {
		err = os.Mkdir(path, 0o700)
	}
	if err == nil {
		d.info, err = os.Lstat(path)
	}
	if err != nil {
		var perr *fs.PathError
		if errors.As(err, &perr) {
			err = perr // the cause, without the wrapping
		}
		d.err = fmt.Errorf("no spool directory: %w", err)
	}
	m.dirs[d] = struct{}{}
	return d, nil
}

// Close removes every open Dir and the lock file, and releases the lock.
// Later Opens fail with ErrClosed.
func (m *Manager) Close() error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	dirs := make([]*Dir, 0, len(m.dirs))
	for d := range m.dirs {
		dirs = append(dirs, d)
	}
	m.mu.Unlock()

	var errs []error
	for _, d := range dirs {
		errs = append(errs, d.Remove())
	}
	m.mu.Lock()
	lock := m.lock
	m.mu.Unlock()
	if lock != nil {
		// Unlink before unlocking: a sweeper never sees our file unlocked.
		if err := os.Remove(m.lockPath(m.pid)); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, fmt.Errorf("spool: %w", err))
		}
		errs = append(errs, lock.Close())
	}
	return errors.Join(errs...)
}

// Sweep removes what daemons that died left in the root: directories
// <pid>-<session> and lock files <pid>.lock, and first kills what is left
// of the process groups the directories record (see RecordGroup); the
// records of groups it killed are among the paths it returns. A daemon is dead when its lock
// file can be flocked, or, when it has no lock file, when kill(pid, 0) says
// there is no such process. It never removes this daemon's files nor those of
// a live one. It returns the paths it removed.
func (m *Manager) Sweep() ([]string, error) {
	entries, err := os.ReadDir(m.root)
	if err != nil {
		return nil, fmt.Errorf("spool: sweep: %w", err)
	}
	locks := make(map[int]bool)
	dirs := make(map[int][]string)
	for _, e := range entries {
		name := e.Name()
		if p, ok := strings.CutSuffix(name, ".lock"); ok && !e.IsDir() {
			if pid, err := strconv.Atoi(p); err == nil && pid > 0 {
				locks[pid] = true
			}
			continue
		}
		if p, session, ok := strings.Cut(name, "-"); ok && e.IsDir() && session != "" {
			if pid, err := strconv.Atoi(p); err == nil && pid > 0 {
				dirs[pid] = append(dirs[pid], filepath.Join(m.root, name))
			}
		}
	}
	var removed []string
	var errs []error
	remove := func(paths []string) {
		for _, p := range paths {
			removed = append(removed, endGroups(p)...)
			if err := removeAll(p); err != nil {
				errs = append(errs, fmt.Errorf("spool: sweep: %w", err))
				continue
			}
			removed = append(removed, p)
		}
	}
	for pid := range locks {
		if pid == m.pid {
			continue
		}
		path := m.lockPath(pid)
		f, err := os.OpenFile(path, os.O_RDWR, 0)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				// Its daemon just closed (or another sweeper took it): judge
				// by the pid below.
				delete(locks, pid)
			}
			continue
		}
		if flock(f, unix.LOCK_EX|unix.LOCK_NB) != nil {
			f.Close() // held: a live daemon
			continue
		}
		// Dead. Holding its lock, nobody can start using this pid's
		// directories until we are done.
		remove(dirs[pid])
		if sameFile(f, path) {
			if err := os.Remove(path); err == nil {
				removed = append(removed, path)
			}
		}
		f.Close()
	}
	for pid, paths := range dirs {
		if pid == m.pid || locks[pid] {
			continue
		}
		if err := unix.Kill(pid, 0); errors.Is(err, unix.ESRCH) {
			remove(paths)
		}
	}
	return removed, errors.Join(errs...)
}

func (m *Manager) forget(d *Dir) {
	m.mu.Lock()
	delete(m.dirs, d)
	m.mu.Unlock()
}
