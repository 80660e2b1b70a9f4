package search

import (
	"encoding/binary"
	"io/fs"
	"slices"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// parseDirents appends the entries of a getdents64 buffer, typed from
// d_type (or by fstatat where the file system gives none). The names are
// cut from one copy of the buffer: one allocation per call, not one per
// entry.
func parseDirents(dirfd int, buf []byte, ents []entry) []entry {
	all := string(buf)
	ents = slices.Grow(ents, len(buf)/32) // a record of a short name takes 24 to 32 bytes
	// Fields read where the kernel put them, not through a *unix.Dirent:
	// the last record is shorter than that struct.
	var d unix.Dirent
	const (
		inoOff    = int(unsafe.Offsetof(d.Ino))
		reclenOff = int(unsafe.Offsetof(d.Reclen))
		typeOff   = int(unsafe.Offsetof(d.Type))
		nameOff   = int(unsafe.Offsetof(d.Name))
	)
	for at := 0; len(buf) >= nameOff; {
		ino := binary.NativeEndian.Uint64(buf[inoOff:])
		rec := int(binary.NativeEndian.Uint16(buf[reclenOff:]))
		typ := buf[typeOff]
		if rec < nameOff || rec > len(buf) {
			break
		}
		name := all[at+nameOff : at+rec]
		if i := strings.IndexByte(name, 0); i >= 0 {
			name = name[:i]
		}
		buf, at = buf[rec:], at+rec
		if ino == 0 || name == "." || name == ".." {
			continue
		}
		e := entry{name: name}
		switch typ {
		case unix.DT_REG:
		case unix.DT_DIR:
			e.typ = fs.ModeDir
		case unix.DT_LNK:
			e.typ = fs.ModeSymlink
		case unix.DT_FIFO:
			e.typ = fs.ModeNamedPipe
		case unix.DT_SOCK:
			e.typ = fs.ModeSocket
		case unix.DT_CHR:
			e.typ = fs.ModeDevice | fs.ModeCharDevice
		case unix.DT_BLK:
			e.typ = fs.ModeDevice
		default:
			e.typ = typeAt(dirfd, e.name)
		}
		ents = append(ents, e)
	}
	return ents
}

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
