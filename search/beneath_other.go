//go:build !linux || toold_portable

package search

import (
	"strings"

	"golang.org/x/sys/unix"
)

// openBeneath opens the regular file at the '/'-separated path rel beneath
// the directory dirfd without openat2: one component at a time, each
// directory with O_NOFOLLOW beneath the last, the file as openAt opens it,
// so that no symlink among them is followed (the walk's rule), and "..",
// "." and empty names are refused: the path cannot leave dirfd. A listed
// file costs two system calls per directory above it more than Linux's
// one openat2.
func openBeneath(dirfd int, rel string) (int, error) {
	fd := dirfd
	defer func() {
		if fd != dirfd {
			unix.Close(fd)
		}
	}()
	for {
		i := strings.IndexByte(rel, '/')
		if i < 0 {
			break
		}
		if !plainName(rel[:i]) {
			return -1, pathErr("open", rel, unix.EXDEV)
		}
		next, err := openDirAt(fd, rel[:i])
		if err != nil {
			return -1, err
		}
		if fd != dirfd {
			unix.Close(fd)
		}
		fd, rel = next, rel[i+1:]
	}
	if !plainName(rel) {
		return -1, pathErr("open", rel, unix.EXDEV)
	}
	return openAt(fd, rel)
}

// plainName reports whether name names an entry of its directory: not
// "", "." nor "..".
func plainName(name string) bool { return name != "" && name != "." && name != ".." }

// beneathOK: the walk above works everywhere.
func beneathOK() bool { return true }

// openBeneathScratch is openBeneath in openFile's shape.
func openBeneathScratch(dirfd int, rel string, _ *[]byte) (int, error) {
	return openBeneath(dirfd, rel)
}
