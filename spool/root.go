package spool

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
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
