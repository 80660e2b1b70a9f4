package search

import (
	"bytes"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// fdPath is the path fd was opened at, as the kernel keeps it (symlinks
// resolved): fcntl's F_GETPATH, into a buffer of MAXPATHLEN bytes.
func fdPath(fd int) (path string, ok bool) {
	buf := pathBufs.Get().(*[unix.PathMax]byte)
	defer pathBufs.Put(buf)
	// x/sys takes fcntl's argument as an int, as its own FcntlFlock passes
	// a pointer; the buffer is on the heap (the pool's), where it stays put.
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_GETPATH, int(uintptr(unsafe.Pointer(buf)))); err != nil {
		return "", false
	}
	b := buf[:]
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b), len(b) > 0
}

// pathBufs are F_GETPATH's buffers.
var pathBufs = sync.Pool{New: func() any { return new([unix.PathMax]byte) }}
