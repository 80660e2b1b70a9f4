//go:build !toold_portable

package search

import (
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// openFile opens name beneath dirfd as openAt does, through a
// NUL-terminated copy made in *scratch, which the caller keeps: no
// allocation per file (unix.Openat makes one for each name).
func openFile(dirfd int, name string, scratch *[]byte) (int, error) {
	b := append(append((*scratch)[:0], name...), 0)
	*scratch = b
	if strings.IndexByte(name, 0) >= 0 {
		return -1, pathErr("open", name, unix.EINVAL)
	}
	for {
		fd, _, errno := unix.Syscall6(unix.SYS_OPENAT, uintptr(dirfd), uintptr(unsafe.Pointer(&b[0])), fileFlags, 0, 0, 0)
		switch errno {
		case 0:
			return int(fd), nil
		case unix.EINTR:
			continue
		}
		return -1, pathErr("open", name, errno)
	}
}
