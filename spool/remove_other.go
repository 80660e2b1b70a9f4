//go:build !linux

package spool

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// removeAll removes path and what lies beneath it, as os.RemoveAll does,
// also when a command left a directory it may not read, enter or write
// (chmod 000): where the removal is refused, the directories beneath path
// that are ours are made rwx for us, and it tries again. Without Linux's
// O_PATH each is changed by name with AT_SYMLINK_NOFOLLOW (which the BSDs
// honour), so a link put in a directory's place is not followed; one
// swapped in higher up between the look and the change could be.
func removeAll(path string) error {
	err := os.RemoveAll(path)
	if err == nil || !errors.Is(err, fs.ErrPermission) {
		return err
	}
	openUp(path, maxOpenUpDepth)
	return os.RemoveAll(path)
}

// maxOpenUpDepth bounds openUp's recursion.
const maxOpenUpDepth = 512

// openUp makes dir and the directories beneath it rwx for us, when they
// are ours.
func openUp(dir string, depth int) {
	var st unix.Stat_t
	if unix.Lstat(dir, &st) != nil || int(st.Uid) != os.Geteuid() || st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return
	}
	if st.Mode&0o700 != 0o700 {
		unix.Fchmodat(unix.AT_FDCWD, dir, uint32(st.Mode&0o7777|0o700), unix.AT_SYMLINK_NOFOLLOW)
	}
	if depth == 0 {
		return
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.IsDir() {
			openUp(filepath.Join(dir, e.Name()), depth-1)
		}
	}
}
