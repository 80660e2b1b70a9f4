package spool

import (
	"errors"
	"io/fs"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// removeAll removes path and what lies beneath it, as os.RemoveAll does
// (never following a symlink), also when a command left a directory it
// may not read, enter or write (chmod 000): where the removal is refused,
// the directories beneath path that are ours are made rwx for us, and it
// tries again. Root needs none of this; any other uid did, and the
// session's TMPDIR or spool directory stayed behind.
func removeAll(path string) error {
	err := os.RemoveAll(path)
	if err == nil || !errors.Is(err, fs.ErrPermission) {
		return err
	}
	fd, oerr := unix.Open(path, unix.O_PATH|unix.O_NOFOLLOW|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if oerr != nil {
		return err
	}
	openUp(fd, maxOpenUpDepth)
	unix.Close(fd)
	return os.RemoveAll(path)
}

// maxOpenUpDepth bounds openUp's recursion (and its descriptors, one a
// level): os.RemoveAll's own is bounded by the descriptors too.
const maxOpenUpDepth = 512

// openUp makes the directory dir (an O_PATH descriptor, opened without
// following a symlink) and the directories beneath it rwx for us, when
// they are ours. Each is changed through /proc/self/fd, the directory
// opened and no other, so that one swapped for a symlink meanwhile leads
// nowhere: a link's target is never changed.
func openUp(dir int, depth int) {
	var st unix.Stat_t
	if unix.Fstat(dir, &st) != nil || int(st.Uid) != os.Geteuid() || st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return
	}
	if st.Mode&0o700 != 0o700 {
		unix.Chmod("/proc/self/fd/"+strconv.Itoa(dir), st.Mode&0o7777|0o700)
	}
	if depth == 0 {
		return
	}
	rd, err := unix.Openat(dir, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	f := os.NewFile(uintptr(rd), "")
	defer f.Close()
	for {
		entries, err := f.ReadDir(256)
		for _, e := range entries {
			if !e.IsDir() {
				continue
			}
			child, err := unix.Openat(dir, e.Name(), unix.O_PATH|unix.O_NOFOLLOW|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
			if err != nil {
				continue
			}
			openUp(child, depth-1)
			unix.Close(child)
		}
		if err != nil {
			return
		}
	}
}
