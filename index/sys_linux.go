//go:build !toold_portable

package index

import "golang.org/x/sys/unix"

// threadNice sets the calling thread's nice: Linux's is per thread.
func threadNice(n int) {
	unix.Setpriority(unix.PRIO_PROCESS, unix.Gettid(), n)
}

// openDirBeneath opens the directory dir, '/'-separated and relative,
// beneath the directory rootFd in one openat2 that follows no symlink and
// does not leave rootFd.
func openDirBeneath(rootFd int, dir string) (int, error) {
	how := unix.OpenHow{Flags: unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC, Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS}
	return unix.Openat2(rootFd, dir, &how)
}
