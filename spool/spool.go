package spool

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

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
	// ErrNoSpool is wrapped by Dir.Open's error for an id the session never
	// had, or after Remove. errors.Is(err, fs.ErrNotExist) holds too: what
	// reads a spool back counts a missing one as bytes not kept.
	ErrNoSpool error = notThere("no such spool")
	// ErrEvicted is what an *EvictedError is: a spool deleted to keep its
	// session under a quota.
	ErrEvicted = errors.New("spool evicted")
	// ErrReplaced is wrapped by Dir.Open's error when the spool's name leads
	// to another file than the one written (a symlink or a file planted over
	// it).
	ErrReplaced = errors.New("spool file replaced")
)

// DefaultRoot returns the spool root for this user: RuntimeDir()/toold-<uid>.
// The shared daemon's socket and log are made in it too.
func DefaultRoot() string {
	return filepath.Join(RuntimeDir(), "toold-"+strconv.Itoa(os.Geteuid()))
}

// RuntimeDirEnv names toold's own variable that, when set to an absolute
// path, is RuntimeDir outright: for tests, and for a machine without
// /run/user where every client is given it.
const RuntimeDirEnv = "TOOLD_RUNTIME_DIR"

// RuntimeDir is the directory that holds this user's toold directory. Every
// client of one uid must find the same shared daemon, and some clients start
// their servers with an environment of their own (codex passes HOME, PATH,
// TMPDIR and a few more, never XDG_RUNTIME_DIR), so the answer must not hang
// on a variable a client may strip: the runtime directory the system gives
// the uid, /run/user/<uid> (systemd-logind's, which is XDG_RUNTIME_DIR
// wherever that is set by the login), comes first when it is there, the
// user's own and private, whatever XDG_RUNTIME_DIR says. Only where there is
// none does XDG_RUNTIME_DIR count (a directory we can write), then the
// temporary directory. $TOOLD_RUNTIME_DIR overrides them all.
func RuntimeDir() string { return runtimeDirIn("/run/user") }

// runtimeDirIn is RuntimeDir with the system's runtime directories in base.
func runtimeDirIn(base string) string {
	if d := os.Getenv(RuntimeDirEnv); d != "" && filepath.IsAbs(d) {
		return filepath.Clean(d)
	}
	if d := userRuntimeDir(); d != "" { // macOS: the user's own temporary directory
		return d
	}
	if d := filepath.Join(base, strconv.Itoa(os.Geteuid())); systemRuntimeDir(d) {
		return d
	}
	if x := os.Getenv("XDG_RUNTIME_DIR"); x != "" && filepath.IsAbs(x) {
		if fi, err := os.Stat(x); err == nil && fi.IsDir() && unix.Access(x, unix.W_OK|unix.X_OK) == nil {
			return filepath.Clean(x)
		}
	}
	return os.TempDir()
}

// systemRuntimeDir reports whether d is a runtime directory the system made
// for us: a directory (not a symlink) owned by our uid that no one else may
// write to, and that we can write to.
func systemRuntimeDir(d string) bool {
	var st unix.Stat_t
	if unix.Lstat(d, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return false
	}
	return int(st.Uid) == os.Geteuid() && st.Mode&0o022 == 0 && unix.Access(d, unix.W_OK|unix.X_OK) == nil
}

// EvictedError is Find's and Open's error for a spool evicted to keep the
// spools under a quota; errors.Is(err, ErrEvicted) holds.
type EvictedError struct {
	// Daemon is true when the daemon's quota evicted it, false for the
	// session's.
	Daemon bool
	// Quota is that quota, in bytes.
	Quota int64
}

func (e *EvictedError) Error() string {
	whose := "session"
	if e.Daemon {
		whose = "daemon"
	}
	return fmt.Sprintf("spool evicted: past the %s's quota of %d bytes", whose, e.Quota)
}

// Is makes errors.Is(err, ErrEvicted) hold, and errors.Is(err,
// fs.ErrNotExist): an evicted spool is not there to read.
func (e *EvictedError) Is(target error) bool { return target == ErrEvicted || target == fs.ErrNotExist }

// notThere is an error that errors.Is counts as fs.ErrNotExist.
type notThere string

func (e notThere) Error() string { return string(e) }

// Is makes errors.Is(err, fs.ErrNotExist) hold.
func (notThere) Is(target error) bool { return target == fs.ErrNotExist }

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

// PrivateDir creates dir (0700) if it is missing and refuses it, with an
// error wrapping ErrUnsafeRoot, unless it is a directory owned by us that
// no one else may write: the spool root, and the shared daemon's socket
// directory. One of ours that others may read or enter (0755, from an old
// umask or another tool) is made 0700, as ssh-agent and gopls make their
// socket directories; one that others could write to may hold what they
// planted, and is refused.
func PrivateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("spool: create %s: %w", dir, err)
	}
	return checkRoot(dir)
}

// checkRoot refuses a root that someone else could replace or write to,
// and makes one of ours that others could read 0700. The mode is changed
// through a descriptor opened without following a symlink, so that what is
// checked is what is changed.
func checkRoot(root string) error {
	fd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) {
			return fmt.Errorf("%w: %s is not a directory", ErrUnsafeRoot, root)
		}
		return fmt.Errorf("spool: %s: %w", root, err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("spool: %s: %w", root, err)
	}
	if int(st.Uid) != os.Geteuid() {
		return fmt.Errorf("%w: %s is owned by uid %d, not %d", ErrUnsafeRoot, root, st.Uid, os.Geteuid())
	}
	perm := os.FileMode(st.Mode).Perm()
	switch {
	case perm&0o022 != 0:
		return fmt.Errorf("%w: %s has mode %#o: others could write to it", ErrUnsafeRoot, root, perm)
	case perm&0o077 != 0:
		if err := unix.Fchmod(fd, 0o700); err != nil {
			return fmt.Errorf("%w: %s has mode %#o and cannot be made 0700: %w", ErrUnsafeRoot, root, perm, err)
		}
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

// Dir is one session's spool directory.
type Dir struct {
	m    *Manager
	path string
	info os.FileInfo // of the directory made, nil when err is set
	err  error       // why the directory could not be made; Create fails with it

	mu      sync.Mutex
	files   map[string]*File         // live files by id
	order   []*File                  // live files, oldest first
	evicted map[string]*EvictedError // by id
	bytes   int64                    // reserved by the live files
	removed bool
}

// Path returns the directory's absolute path.
func (d *Dir) Path() string { return d.path }

// Info is what Lstat said of the directory once made, to know it again
// (nil when it could not be made).
func (d *Dir) Info() os.FileInfo { return d.info }

// Err says why the directory could not be made, or is nil.
func (d *Dir) Err() error { return d.err }

// Create makes a new spool file for stream (e.g. "stdout"), 0600, named
// <id>.<stream>.log, where id is 128 random bits in hex. It fails with
// ErrClosed after Remove, and with Err when the directory is missing.
func (d *Dir) Create(stream string) (*File, error) {
	if !validName(stream) {
		return nil, fmt.Errorf("spool: stream %q: %w", stream, ErrBadName)
	}
	if d.err != nil {
		return nil, d.err
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
	info, err := f.Stat()
	if err != nil {
		f.Close()
		os.Remove(path)
		return nil, fmt.Errorf("spool: %w", err)
	}
	sf := &File{d: d, id: id, path: path, info: info, f: f, limit: d.m.maxFileBytes()}
	d.files[id] = sf
	d.order = append(d.order, sf)
	return sf, nil
}

// Find returns the path of the spool file id of this session, or an error
// that wraps ErrEvicted, with the reason, or ErrNoSpool.
func (d *Dir) Find(id string) (string, error) {
	sf, err := d.find(id)
	if err != nil {
		return "", err
	}
	return sf.path, nil
}

func (d *Dir) find(id string) (*File, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if why, ok := d.evicted[id]; ok {
		return nil, why
	}
	sf, ok := d.files[id]
	if !ok {
		return nil, ErrNoSpool
	}
	return sf, nil
}

// Open opens the spool file id of this session for reading: the one way
// a spool is read back (page, grep, exec's evidence, the process methods),
// since the commands that write it may write in the directory too. It
// opens without following a symlink or blocking (a FIFO in its place),
// and checks that what it opened is the file written, so that a symlink,
// FIFO or file a command planted over it is refused (ErrReplaced). Other
// errors are Find's.
func (d *Dir) Open(id string) (*os.File, error) {
	sf, err := d.find(id)
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(sf.path, os.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
	if errors.Is(err, unix.ELOOP) {
		return nil, fmt.Errorf("%w: a symlink is in its place", ErrReplaced)
	}
	if err != nil {
		return nil, fmt.Errorf("spool: %w", err)
	}
	if fi, err := f.Stat(); err != nil || !os.SameFile(fi, sf.info) {
		f.Close()
		return nil, fmt.Errorf("%w: another file is in its place", ErrReplaced)
	}
	return f, nil
}

// Delete closes and deletes the spool file id, which its output no longer
// needs (shown whole after all: an exec that ended before its yieldMs);
// Manager.Bytes drops by what it held. Find and Open then give
// ErrNoSpool. An id the session does not have gives ErrNoSpool.
func (d *Dir) Delete(id string) error {
	d.mu.Lock()
	f, ok := d.files[id]
	if !ok {
		d.mu.Unlock()
		return ErrNoSpool
	}
	delete(d.files, id)
	for i, o := range d.order {
		if o == f {
			d.order = append(d.order[:i], d.order[i+1:]...)
			break
		}
	}
	d.bytes -= f.reserved
	d.m.unreserve(f.reserved)
	f.reserved = 0
	d.mu.Unlock()
	f.discard()
	if err := os.Remove(f.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("spool: %w", err)
	}
	return nil
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
	files := d.order
	d.files, d.order = nil, nil
	d.m.unreserve(d.bytes)
	d.bytes = 0
	d.mu.Unlock()

	for _, f := range files {
		f.discard()
	}
	d.m.forget(d)
	if err := removeAll(d.path); err != nil {
		return fmt.Errorf("spool: %w", err)
	}
	return nil
}

// reserve makes room for want more bytes of f within the quotas, evicting
// the session's oldest other files as needed, and returns how many bytes f
// may write (less than want when nothing is left to evict) and the files
// evicted, for the caller to delete outside d.mu.
func (d *Dir) reserve(f *File, want int64) (int64, []*File) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.removed || f.evicted {
		return 0, nil
	}
	var victims []*File
	for {
		room, why := d.roomLocked()
		if want <= room {
			break
		}
		v := d.oldestOtherLocked(f)
		if v == nil {
			want = max(0, room)
			break
		}
		d.evictLocked(v, why)
		victims = append(victims, v)
	}
	d.bytes += want
	f.reserved += want
	d.m.qmu.Lock()
	d.m.bytes += want
	d.m.qmu.Unlock()
	return want, victims
}

// roomLocked returns the bytes left under the tighter quota, and what to
// say of the files that quota evicts.
func (d *Dir) roomLocked() (int64, *EvictedError) {
	sq, dq := d.m.sessionQuota(), d.m.daemonQuota()
	d.m.qmu.Lock()
	daemonRoom := dq - d.m.bytes
	d.m.qmu.Unlock()
	if sessionRoom := sq - d.bytes; sessionRoom <= daemonRoom {
		return sessionRoom, &EvictedError{Quota: sq}
	}
	return daemonRoom, &EvictedError{Daemon: true, Quota: dq}
}

// release gives back n bytes reserved by f and not written.
func (d *Dir) release(f *File, n int64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if n <= 0 || f.evicted || d.removed {
		return
	}
	n = min(n, f.reserved)
	f.reserved -= n
	d.bytes -= n
	d.m.unreserve(n)
}

func (d *Dir) oldestOtherLocked(f *File) *File {
	for _, v := range d.order {
		if v != f {
			return v
		}
	}
	return nil
}

// evictLocked forgets v, keeping why for Open to say.
func (d *Dir) evictLocked(v *File, why *EvictedError) {
	delete(d.files, v.id)
	for i, o := range d.order {
		if o == v {
			d.order = append(d.order[:i], d.order[i+1:]...)
			break
		}
	}
	d.evicted[v.id] = why
	v.evicted = true
	d.bytes -= v.reserved
	d.m.unreserve(v.reserved)
	v.reserved = 0
}

func (m *Manager) unreserve(n int64) {
	m.qmu.Lock()
	m.bytes -= n
	m.qmu.Unlock()
}

// File is one spool file being written. Write never fails its caller: the
// first write error is kept in Err and writing stops; past the cap or the
// quotas writing stops and Capped is true. Its methods are safe for
// concurrent use.
type File struct {
	d     *Dir
	id    string
	path  string
	info  os.FileInfo // of the file created, to know it again
	limit int64

	// guarded by d.mu
	reserved int64 // bytes counted against the quotas
	evicted  bool

	mu     sync.Mutex
	f      *os.File // nil once closed
	n      int64
	capped bool
	err    error
}

// Open opens the file for reading, as Dir.Open opens it by its id: what
// was written, or an error (ErrReplaced when a command put something else
// in its place; one that errors.Is counts as fs.ErrNotExist when it was
// evicted or its Dir removed).
func (f *File) Open() (*os.File, error) { return f.d.Open(f.id) }

// ID returns the file's id, 32 hex digits.
func (f *File) ID() string { return f.id }

// Path returns the file's absolute path.
func (f *File) Path() string { return f.path }

// Write writes p up to the cap and the quotas and always returns len(p),
// nil. After an error, past the cap, after Close, after eviction or after
// the Dir's Remove, it drops p.
func (f *File) Write(p []byte) (int, error) {
	f.mu.Lock()
	stop := f.f == nil || f.err != nil || f.capped
	want := min(int64(len(p)), f.limit-f.n)
	f.mu.Unlock()
	if stop {
		return len(p), nil
	}
	// Reserved and evicted without f.mu: the order is f.mu, then d.mu.
	got, victims := f.d.reserve(f, want)
	for _, v := range victims {
		v.discard()
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.f == nil || f.err != nil {
		f.d.release(f, got)
		return len(p), nil
	}
	if room := f.limit - f.n; got > room { // a concurrent Write took some
		f.d.release(f, got-room)
		got = room
	}
	if got < int64(len(p)) {
		f.capped = true
	}
	if got > 0 {
		n, err := f.f.Write(p[:got])
		f.n += int64(n)
		f.d.release(f, got-int64(n))
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

// Capped reports whether output past the cap or the quotas was dropped.
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

// discard closes the file for its Dir's Remove or its eviction, and deletes
// an evicted file (Remove deletes the whole directory).
func (f *File) discard() {
	f.mu.Lock()
	if f.f != nil {
		f.f.Close()
		f.f = nil
	}
	f.mu.Unlock()
	f.d.mu.Lock()
	evicted := f.evicted
	f.d.mu.Unlock()
	if evicted {
		os.Remove(f.path)
	}
}
