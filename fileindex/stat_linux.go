//go:build linux

package fileindex

import (
	"io/fs"
	"syscall"
)

// openFlags keeps Open from blocking on a FIFO; it changes nothing for a
// regular file.
const openFlags = syscall.O_NONBLOCK

func statID(fi fs.FileInfo) fileID {
	id := fileID{size: fi.Size(), mtime: fi.ModTime().UnixNano()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		id.dev = uint64(st.Dev)
		id.ino = uint64(st.Ino)
		id.ctime = st.Ctim.Nano()
	}
	return id
}
