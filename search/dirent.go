package search

import (
	"encoding/binary"
	"io/fs"
	"slices"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// parseDirents appends the entries of a buffer unix.ReadDirent filled
// (Linux's getdents64, FreeBSD's getdirentries, macOS's readdir_r), typed
// from d_type (or by fstatat where the file system gives none). The names
// are cut from one copy of the buffer: one allocation per call, not one
// per entry. The records are the system's struct dirent: the inode number
// first, 64 bits, on all three (Linux's d_ino, FreeBSD's d_fileno, macOS's
// d_ino), then the record's length, its type and its NUL-terminated name
// at offsets unix.Dirent gives.
func parseDirents(dirfd int, buf []byte, ents []entry) []entry {
	all := string(buf)
	ents = slices.Grow(ents, len(buf)/32) // a record of a short name takes 24 to 32 bytes
	// Fields read where the kernel put them, not through a *unix.Dirent:
	// the last record is shorter than that struct.
	var d unix.Dirent
	const (
		inoOff    = 0
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
