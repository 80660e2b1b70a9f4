package search

import (
	"errors"
	"io"
	"io/fs"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// The walk works on directory file descriptors: each directory is opened
// beneath its parent's descriptor and each file beneath its directory's,
// one name at a time with O_NOFOLLOW, so no path is resolved again and no
// symlink, however swapped in, leads out of the tree: what os.Root does,
// without the two or three extra system calls per file its *os.File costs
// (poller registration, non-blocking mode). Symlinked files go through the
// tree's os.Root, which follows a link only while it stays inside.

const (
	dirFlags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC
	// A FIFO must not block the open; a terminal must not become the
	// daemon's controlling terminal (its hangup would end the daemon).
	fileFlags = unix.O_RDONLY | unix.O_NOFOLLOW | unix.O_CLOEXEC | unix.O_NONBLOCK | unix.O_NOCTTY
)

// dirHandle is an open directory of the walk, shared by the jobs that
// open files in it; it is closed when the last holder releases it.
type dirHandle struct {
	fd   int
	refs atomic.Int32
}

func newDirHandle(fd int) *dirHandle {
	h := &dirHandle{fd: fd}
	h.refs.Store(1)
	return h
}

func (h *dirHandle) acquire() {
	if h != nil {
		h.refs.Add(1)
	}
}

func (h *dirHandle) release() {
	if h == nil {
		return // a listed file's job: no directory held
	}
	if h.refs.Add(-1) == 0 {
		unix.Close(h.fd)
	}
}

// openDir opens the directory at path, symlinks followed: the caller chose
// it (and checked it against its roots).
func openDir(path string) (int, error) {
	return openDirFlags(unix.AT_FDCWD, path, dirFlags&^unix.O_NOFOLLOW)
}

// Allow checks where a search really is, once its path is open: Grep, Find
// and List call it with the real path of the directory or file they opened,
// read back from the open descriptor, so that a symlink swapped in after
// the caller resolved and checked the path cannot take the search out of
// where it may go (the session's roots). Where the system cannot say
// (fdPath: Linux without /proc, FreeBSD), it is not called.
type Allow func(realPath string) error

// checkOpen calls allow, when set, with the real path of the open fd.
func checkOpen(fd int, allow Allow) error {
	if allow == nil {
		return nil
	}
	real, ok := fdPath(fd)
	if !ok {
		return nil
	}
	return allow(real)
}

// openDirAt opens the directory name beneath the directory dirfd.
func openDirAt(dirfd int, name string) (int, error) {
	return openDirFlags(dirfd, name, dirFlags)
}

func openDirFlags(dirfd int, name string, flags int) (int, error) {
	for {
		fd, err := unix.Openat(dirfd, name, flags, 0)
		if err != unix.EINTR {
			return fd, pathErr("open", name, err)
		}
	}
}

func pathErr(op, name string, err error) error {
	if err == nil {
		return nil
	}
	return &fs.PathError{Op: op, Path: name, Err: err}
}

// readDir lists the directory fd, sorted by name, without "." and "..".
func readDir(fd int) ([]entry, error) {
	var ents []entry
	bp := direntBufs.Get().(*[]byte)
	defer direntBufs.Put(bp)
	buf := *bp
	for {
		n, err := unix.ReadDirent(fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, pathErr("readdirent", ".", err)
		}
		if n <= 0 {
			break
		}
		ents = parseDirents(fd, buf[:n], ents)
	}
	slices.SortFunc(ents, func(a, b entry) int { return strings.Compare(a.name, b.name) })
	return ents, nil
}

// direntBufs are getdents buffers, reused: a walk reads thousands of
// directories.
var direntBufs = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// typeAt is the type of name beneath dirfd, for a file system that gives
// no type in its directory entries.
func typeAt(dirfd int, name string) fs.FileMode {
	var st unix.Stat_t
	if unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
		return fs.ModeIrregular
	}
	return modeOf(uint32(st.Mode)) // uint16 on the BSDs
}

func modeOf(m uint32) fs.FileMode {
	switch m & unix.S_IFMT {
	case unix.S_IFREG:
		return 0
	case unix.S_IFDIR:
		return fs.ModeDir
	case unix.S_IFLNK:
		return fs.ModeSymlink
	case unix.S_IFIFO:
		return fs.ModeNamedPipe
	case unix.S_IFSOCK:
		return fs.ModeSocket
	case unix.S_IFCHR:
		return fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFBLK:
		return fs.ModeDevice
	}
	return fs.ModeIrregular
}

// openFileAt opens the regular file name beneath dirfd and returns it
// with its size; anything else (a FIFO, a directory) is ErrNotRegular.
func openFileAt(dirfd int, name string) (fdReader, int64, error) {
	fd, err := openAt(dirfd, name)
	if err != nil {
		return -1, 0, err
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return -1, 0, pathErr("stat", name, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		unix.Close(fd)
		return -1, 0, ErrNotRegular
	}
	return fdReader(fd), st.Size, nil
}

// openAt opens name beneath dirfd without following a symlink or blocking
// on a FIFO.
func openAt(dirfd int, name string) (int, error) {
	for {
		fd, err := unix.Openat(dirfd, name, fileFlags, 0)
		if err != unix.EINTR {
			return fd, pathErr("open", name, err)
		}
	}
}

// fdReader reads a file descriptor with pread.
type fdReader int

// ReadAt implements io.ReaderAt.
func (r fdReader) ReadAt(p []byte, off int64) (int, error) {
	done := 0
	for done < len(p) {
		n, err := unix.Pread(int(r), p[done:], off+int64(done))
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return done, err
		}
		if n == 0 {
			return done, io.EOF
		}
		done += n
	}
	return done, nil
}

// preadOnce reads the start of the file fd into buf with one pread.
func preadOnce(fd int, buf []byte) (int, error) {
	for {
		n, err := unix.Pread(fd, buf, 0)
		if err != unix.EINTR {
			return n, err
		}
	}
}

func (r fdReader) Close() error { return unix.Close(int(r)) }

// readDirIgnore reads what the directory dirfd, whose entries are ents,
// brings to the ignore rules.
func readDirIgnoreAt(dirfd int, ents []entry) dirIgnore {
	var d dirIgnore
	if i, ok := findEntry(ents, gitDir); ok {
		d.hasGit = true
		if ents[i].typ.IsDir() {
			d.exclude = readExclude(dirfd)
		}
	}
	if i, ok := findEntry(ents, gitignoreFile); ok && ents[i].typ.IsRegular() {
		d.gitignore = readSmallAt(dirfd, gitignoreFile)
	}
	if i, ok := findEntry(ents, ignoreFile); ok && ents[i].typ.IsRegular() {
		d.ignore = readSmallAt(dirfd, ignoreFile)
	}
	return d
}

func findEntry(ents []entry, name string) (int, bool) {
	return slices.BinarySearchFunc(ents, name, func(e entry, n string) int { return strings.Compare(e.name, n) })
}

// readExclude reads .git/info/exclude beneath dirfd, one name at a time
// without following a symlink.
func readExclude(dirfd int) []byte {
	g, err := openDirAt(dirfd, gitDir)
	if err != nil {
		return nil
	}
	defer unix.Close(g)
	info, err := openDirAt(g, "info")
	if err != nil {
		return nil
	}
	defer unix.Close(info)
	return readSmallAt(info, "exclude")
}

// readSmallAt reads at most maxIgnoreFile bytes of the regular file name
// beneath dirfd; nil when it cannot.
func readSmallAt(dirfd int, name string) []byte {
	r, size, err := openFileAt(dirfd, name)
	if err != nil {
		return nil
	}
	defer r.Close()
	b := make([]byte, min(size, maxIgnoreFile))
	n, err := r.ReadAt(b, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil
	}
	return b[:n]
}

// readlinkAt returns the target of the symlink name beneath dirfd.
func readlinkAt(dirfd int, name string) string {
	buf := make([]byte, 4096)
	n, err := unix.Readlinkat(dirfd, name, buf)
	if err != nil {
		return ""
	}
	return string(buf[:n])
}
