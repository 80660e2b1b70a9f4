//go:build darwin

package fileindex

import (
	"io/fs"
	"os"
	"syscall"
)

// openFlags keeps Open from blocking on a FIFO, and a terminal opened from
// becoming the daemon's controlling terminal (whose hangup would end it);
// they change nothing for a regular file.
const openFlags = syscall.O_NONBLOCK | syscall.O_NOCTTY

func statID(fi fs.FileInfo) fileID {
	id := fileID{size: fi.Size(), mtime: fi.ModTime().UnixNano()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		id.dev = uint64(st.Dev)
		id.ino = st.Ino
		id.ctime = st.Ctimespec.Nano()
	}
	return id
}

// sizeLies is false here: only a stat size of 0 makes a file be read to EOF.
func sizeLies(*os.File) bool { return false }
