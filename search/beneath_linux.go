//go:build !toold_portable

package search

import (
	"sync"

	"golang.org/x/sys/unix"
)

// openBeneath opens the regular file at the '/'-separated path rel beneath
// the directory dirfd in one system call (openat2): the kernel resolves
// its components and refuses a symlink among them, or a way out of
// dirfd, as a walk's openat of one name at a time with O_NOFOLLOW would,
// without a descriptor per directory. unix.ENOSYS where the kernel has no
// openat2 (before 5.6, some sandboxes).
func openBeneath(dirfd int, rel string) (int, error) {
	if !beneathOK() {
		return -1, unix.ENOSYS
	}
	how := unix.OpenHow{Flags: fileFlags, Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS}
	for {
		fd, err := unix.Openat2(dirfd, rel, &how)
		if err != unix.EINTR {
			return fd, pathErr("open", rel, err)
		}
	}
}

// beneathOK reports whether openat2 works here, asked once.
var beneathOK = sync.OnceValue(func() bool {
	how := unix.OpenHow{Flags: dirFlags, Resolve: unix.RESOLVE_BENEATH}
	fd, err := unix.Openat2(unix.AT_FDCWD, ".", &how)
	if err != nil {
		return false
	}
	unix.Close(fd)
	return true
})

// beneathCache is the worker's, for the portable path's sake: openat2
// needs nothing kept.
type beneathCache struct{}

// open opens rel beneath the directory base (openBeneath).
func (*beneathCache) open(base *dirHandle, rel string) (int, error) {
	return openBeneath(base.fd, rel)
}

func (*beneathCache) close() {}
