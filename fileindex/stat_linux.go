//go:build linux

package fileindex

import (
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

func statID(fi fs.FileInfo) fileID {
	id := fileID{size: fi.Size(), mtime: fi.ModTime().UnixNano()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		id.dev = uint64(st.Dev)
		id.ino = uint64(st.Ino)
		id.ctime = st.Ctim.Nano()
	}
	return id
}

// configfsMagic is CONFIGFS_MAGIC from linux/magic.h, which x/sys lacks.
const configfsMagic = 0x62656570

// sizeLies reports whether f is on a file system whose stat sizes say
// nothing of the content (procfs gives 0, sysfs 4096), so that it must be
// read to EOF.
func sizeLies(f *os.File) bool {
	var st unix.Statfs_t
	if err := unix.Fstatfs(int(f.Fd()), &st); err != nil {
		return false
	}
	switch uint32(st.Type) {
	case unix.PROC_SUPER_MAGIC, unix.SYSFS_MAGIC, unix.DEBUGFS_MAGIC, unix.TRACEFS_MAGIC,
		unix.SECURITYFS_MAGIC, unix.CGROUP_SUPER_MAGIC, unix.CGROUP2_SUPER_MAGIC,
		configfsMagic, unix.PSTOREFS_MAGIC, unix.EFIVARFS_MAGIC, unix.BPF_FS_MAGIC:
		return true
	}
	return false
}
