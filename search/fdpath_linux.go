package search

import (
	"os"
	"strconv"
)

// fdPath is the path fd was opened at, as the kernel keeps it (symlinks
// resolved): /proc/self/fd's link. ok is false without /proc.
func fdPath(fd int) (path string, ok bool) {
	p, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd))
	return p, err == nil
}
