//go:build !linux || toold_portable

package index

import (
	"strings"

	"golang.org/x/sys/unix"
)

// threadNice does nothing: macOS and FreeBSD have no per-thread nice (a
// process's would slow the daemon's requests too), so the build runs at
// the daemon's priority there.
func threadNice(int) {}

// openDirBeneath opens the directory dir, '/'-separated and relative,
// beneath the directory rootFd one component at a time with O_NOFOLLOW,
// as a walk does where there is no openat2: no symlink is followed, and
// ".." is refused, so no path leaves rootFd.
func openDirBeneath(rootFd int, dir string) (int, error) {
	fd := rootFd
	for part := range strings.SplitSeq(dir, "/") {
		if part == ".." {
			if fd != rootFd {
				unix.Close(fd)
			}
			return -1, unix.EXDEV
		}
		next, err := openat(fd, part)
		if fd != rootFd {
			unix.Close(fd)
		}
		if err != nil {
			return -1, err
		}
		fd = next
	}
	if fd == rootFd {
		return unix.Dup(rootFd)
	}
	return fd, nil
}

func openat(dirfd int, name string) (int, error) {
	for {
		fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}
