package spool

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// DefaultMaxFileBytes is the default cap of one spool file: 100 MiB.
const DefaultMaxFileBytes int64 = 100 << 20

var (
	// ErrUnsafeRoot is wrapped by NewManager's error when the root is not a
	// directory of ours that no one else can enter (a symlink, owned by
	// another uid, or with group or other permissions).
	ErrUnsafeRoot = errors.New("directory is not private")
	// ErrClosed is wrapped by the errors of a closed Manager's Open and of a
	// removed Dir's Create.
	ErrClosed = errors.New("spool closed")
	// ErrBadName is wrapped when a session or stream name is not made of
	// letters, digits, '_' and '-' only.
	ErrBadName = errors.New("bad spool name")
)

// DefaultRoot returns the spool root for this user: $XDG_RUNTIME_DIR/toold-<uid>
// when XDG_RUNTIME_DIR names a directory we can write, else
// os.TempDir()/toold-<uid>.
func DefaultRoot() string {
	name := "toold-" + strconv.Itoa(os.Geteuid())
	if x := os.Getenv("XDG_RUNTIME_DIR"); x != "" && filepath.IsAbs(x) {
		if fi, err := os.Stat(x); err == nil && fi.IsDir() && unix.Access(x, unix.W_OK|unix.X_OK) == nil {
			return filepath.Join(x, name)
		}
	}
	return filepath.Join(os.TempDir(), name)
}

// Manager owns this daemon's part of a spool root: its lock file and its
// session directories. Its methods are safe for concurrent use; set the
// exported fields before the first Open.
type Manager struct {
	// MaxFileBytes caps each spool file; 0 means DefaultMaxFileBytes.
	MaxFileBytes int64
	// OpenFile opens spool files; nil means os.OpenFile. Tests set it to
	// make writes fail (e.g. by opening /dev/full).
	OpenFile func(name string, flag int, perm os.FileMode) (*os.File, error)

	root  string
	pid   int
	lock  *os.File
	bytes atomic.Int64 // bytes in live spool files

	mu     sync.Mutex
	dirs   map[*Dir]struct{}
	closed bool
}

// NewManager creates root (0700) if needed, refuses it unless it is a
// directory owned by us without group or other permissions (ErrUnsafeRoot),
// and takes an exclusive flock on root/<pid>.lock that it holds until Close,
// so that a sweeper can tell this daemon is alive even if its pid is reused.
// Directories of a dead daemon that had this pid are removed.
func NewManager(root string) (*Manager, error) {
	if root == "" || !filepath.IsAbs(root) {
		return nil, fmt.Errorf("spool: root %q is not an absolute path", root)
	}
	root = filepath.Clean(root)
	if err := PrivateDir(root); err != nil {
		return nil, err
	}
	m := &Manager{root: root, pid: os.Getpid(), dirs: make(map[*Dir]struct{})}
	lock, err := takeLock(m.lockPath(m.pid))
	if err != nil {
		return nil, err
	}
	m.lock = lock
	// A dead daemon that had our pid (common in containers, where the
	// daemon gets the same pid at every start) left these; Sweep skips our
	// pid, and we have opened nothing yet.
	if stale, _ := filepath.Glob(filepath.Join(root, strconv.Itoa(m.pid)+"-*")); len(stale) > 0 {
		for _, p := range stale {
			os.RemoveAll(p)
		}
	}
	return m, nil
}

// PrivateDir creates dir (0700) if it is missing and refuses it, with an
// error wrapping ErrUnsafeRoot, unless it is a directory owned by us that
// no one else may read or write: the spool root, and the shared daemon's
// socket directory.
func PrivateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("spool: create %s: %w", dir, err)
	}
	return checkRoot(dir)
}

// checkRoot refuses a root that someone else could read or replace.
func checkRoot(root string) error {
	fi, err := os.Lstat(root)
	if err != nil {
		return fmt.Errorf("spool: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("%w: %s is not a directory", ErrUnsafeRoot, root)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Geteuid() {
		return fmt.Errorf("%w: %s is owned by uid %d, not %d", ErrUnsafeRoot, root, st.Uid, os.Geteuid())
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return fmt.Errorf("%w: %s has mode %#o, want 0700", ErrUnsafeRoot, root, perm)
	}
	return nil
}

// takeLock opens path and flocks it. A sweeper that found the previous
// owner of this pid dead may hold the lock for a moment and then unlink the
// file, so the lock counts only once it is on the file that path names.
func takeLock(path string) (*os.File, error) {
	var last error
	for range 100 {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			return nil, fmt.Errorf("spool: lock: %w", err)
		}
		if err := flock(f, unix.LOCK_EX|unix.LOCK_NB); err != nil {
			f.Close()
			if !errors.Is(err, unix.EWOULDBLOCK) {
				return nil, fmt.Errorf("spool: lock %s: %w", path, err)
			}
			last = err
			time.Sleep(10 * time.Millisecond)
			continue
		}
		if sameFile(f, path) {
			return f, nil
		}
		f.Close()
		last = errors.New("lock file replaced")
	}
	return nil, fmt.Errorf("spool: lock %s: %w", path, last)
}

func flock(f *os.File, how int) error {
	sc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := sc.Control(func(fd uintptr) {
		for {
			ferr = unix.Flock(int(fd), how)
			if ferr != unix.EINTR {
				return
			}
		}
	}); err != nil {
		return err
	}
	return ferr
}

// sameFile reports whether the open file f is the file that path names now.
func sameFile(f *os.File, path string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Lstat(path)
	return err == nil && os.SameFile(a, b)
}

// Root returns the spool root.
func (m *Manager) Root() string { return m.root }

// Bytes returns how many bytes this daemon's live spool files hold: written
// and not yet removed.
func (m *Manager) Bytes() int64 { return m.bytes.Load() }

func (m *Manager) lockPath(pid int) string {
	return filepath.Join(m.root, strconv.Itoa(pid)+".lock")
}

func (m *Manager) maxFileBytes() int64 {
	if m.MaxFileBytes > 0 {
		return m.MaxFileBytes
	}
	return DefaultMaxFileBytes
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
// session must be letters, digits, '_' and '-' only (ErrBadName).
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
	if err := os.Mkdir(path, 0o700); err != nil {
		return nil, fmt.Errorf("spool: %w", err)
	}
	d := &Dir{m: m, path: path, files: make(map[string]*File)}
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
	// Unlink before unlocking: a sweeper never sees our file unlocked.
	if err := os.Remove(m.lockPath(m.pid)); err != nil && !errors.Is(err, os.ErrNotExist) {
		errs = append(errs, fmt.Errorf("spool: %w", err))
	}
	errs = append(errs, m.lock.Close())
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
			if err := os.RemoveAll(p); err != nil {
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

// Dir is one session's spool directory.
type Dir struct {
	m    *Manager
	path string

	mu      sync.Mutex
	files   map[string]*File // by id
	removed bool
}

// Path returns the directory's absolute path.
func (d *Dir) Path() string { return d.path }

// Create makes a new spool file for stream (e.g. "stdout"), 0600, named
// <id>.<stream>.log, where id is 128 random bits in hex. It fails with
// ErrClosed after Remove.
func (d *Dir) Create(stream string) (*File, error) {
	if !validName(stream) {
		return nil, fmt.Errorf("spool: stream %q: %w", stream, ErrBadName)
	}
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, fmt.Errorf("spool: id: %w", err)
	}
	id := hex.EncodeToString(b[:])
	path := filepath.Join(d.path, id+"."+stream+".log")

	// Held across the open so that Remove cannot miss a file being made.
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.removed {
		return nil, fmt.Errorf("spool: create in %s: %w", d.path, ErrClosed)
	}
	f, err := d.m.openFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("spool: %w", err)
	}
	sf := &File{m: d.m, id: id, path: path, f: f, limit: d.m.maxFileBytes()}
	d.files[id] = sf
	return sf, nil
}

// Lookup returns the path of the spool file id of this session; ok is false
// for an unknown id, another session's, or after Remove.
func (d *Dir) Lookup(id string) (path string, ok bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	f, ok := d.files[id]
	if !ok {
		return "", false
	}
	return f.path, true
}

// Remove closes and deletes the directory's files and the directory. It is
// idempotent; Manager.Bytes drops by what the files held.
func (d *Dir) Remove() error {
	d.mu.Lock()
	if d.removed {
		d.mu.Unlock()
		return nil
	}
	d.removed = true
	files := d.files
	d.files = nil
	d.mu.Unlock()

	for _, f := range files {
		f.discard()
	}
	d.m.forget(d)
	if err := os.RemoveAll(d.path); err != nil {
		return fmt.Errorf("spool: %w", err)
	}
	return nil
}

// File is one spool file being written. Write never fails its caller: the
// first write error is kept in Err and writing stops; past the cap writing
// stops and Capped is true. Its methods are safe for concurrent use.
type File struct {
	m     *Manager
	id    string
	path  string
	limit int64

	mu     sync.Mutex
	f      *os.File // nil once closed
	n      int64
	capped bool
	err    error
	gone   bool // removed with its Dir
}

// ID returns the file's id, 32 hex digits.
func (f *File) ID() string { return f.id }

// Path returns the file's absolute path.
func (f *File) Path() string { return f.path }

// Write writes p up to the cap and always returns len(p), nil. After an
// error, past the cap, after Close or after the Dir's Remove, it drops p.
func (f *File) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.f == nil || f.err != nil || f.capped {
		return len(p), nil
	}
	q := p
	if room := f.limit - f.n; int64(len(q)) > room {
		q = q[:room]
		f.capped = true
	}
	if len(q) > 0 {
		n, err := f.f.Write(q)
		f.n += int64(n)
		f.m.bytes.Add(int64(n))
		if err != nil {
			f.err = fmt.Errorf("spool: write %s: %w", f.path, err)
		}
	}
	return len(p), nil
}

// Bytes returns how many bytes were written to the file.
func (f *File) Bytes() int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.n
}

// Capped reports whether output past the cap was dropped.
func (f *File) Capped() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.capped
}

// Err returns the first error met writing the file, or nil.
func (f *File) Err() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}

// Close closes the file; it stays in its Dir, readable, until Remove.
func (f *File) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.f == nil {
		return nil
	}
	err := f.f.Close()
	f.f = nil
	if err != nil {
		return fmt.Errorf("spool: close %s: %w", f.path, err)
	}
	return nil
}

// discard closes the file for its Dir's Remove and takes its bytes off the
// Manager's count.
func (f *File) discard() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.f != nil {
		f.f.Close()
		f.f = nil
	}
	if !f.gone {
		f.gone = true
		f.m.bytes.Add(-f.n)
	}
}
