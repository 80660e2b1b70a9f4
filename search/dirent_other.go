//go:build !linux

package search

import "golang.org/x/sys/unix"

// parseDirents appends the entries of a directory buffer, typed by fstatat.
func parseDirents(dirfd int, buf []byte, ents []entry) []entry {
	_, _, names := unix.ParseDirent(buf, -1, nil)
	for _, n := range names {
		ents = append(ents, entry{name: n, typ: typeAt(dirfd, n)})
	}
	return ents
}

// openFile opens name beneath dirfd as openAt does.
func openFile(dirfd int, name string, _ *[]byte) (int, error) {
	return openAt(dirfd, name)
}
