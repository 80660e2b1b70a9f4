package search

import (
	"io/fs"
	"unsafe"

	"golang.org/x/sys/unix"
)

// parseDirents appends the entries of a getdents64 buffer, typed from
// d_type (or by fstatat where the file system gives none).
func parseDirents(dirfd int, buf []byte, ents []entry) []entry {
	const nameOff = int(unsafe.Offsetof(unix.Dirent{}.Name))
	for len(buf) >= nameOff {
		d := (*unix.Dirent)(unsafe.Pointer(&buf[0]))
		rec := int(d.Reclen)
		if rec < nameOff || rec > len(buf) {
			break
		}
		name := buf[nameOff:rec]
		for i, c := range name {
			if c == 0 {
				name = name[:i]
				break
			}
		}
		buf = buf[rec:]
		if d.Ino == 0 || string(name) == "." || string(name) == ".." {
			continue
		}
		e := entry{name: string(name)}
		switch d.Type {
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
