//go:build !linux || toold_portable

package search

import (
	"strings"

	"golang.org/x/sys/unix"
)

// openBeneath opens the regular file at the '/'-separated path rel beneath
// the directory dirfd without openat2: one component at a time, each
// directory with O_NOFOLLOW beneath the last, the file as openAt opens it,
// so that no symlink among them is followed (the walk's rule), and "..",
// "." and empty names are refused: the path cannot leave dirfd. The
// workers open listed files through a beneathCache, which keeps their
// directory open from one file to the next.
func openBeneath(dirfd int, rel string) (int, error) {
	dir, name := "", rel
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		dir, name = rel[:i], rel[i+1:]
	}
	if !plainName(name) {
		return -1, pathErr("open", rel, unix.EXDEV)
	}
	if dir == "" && name == rel {
		return openAt(dirfd, name)
	}
	fd, err := openBeneathDir(dirfd, dir)
	if err != nil {
		return -1, err
	}
	defer unix.Close(fd)
	return openAt(fd, name)
}

// openBeneathDir opens the directory at the '/'-separated path dir beneath
// dirfd, a component at a time with O_NOFOLLOW; "", "." and ".." refused.
func openBeneathDir(dirfd int, dir string) (int, error) {
	fd := dirfd
	for part := range strings.SplitSeq(dir, "/") {
		if !plainName(part) {
			if fd != dirfd {
				unix.Close(fd)
			}
			return -1, pathErr("open", dir, unix.EXDEV)
		}
		next, err := openDirAt(fd, part)
		if fd != dirfd {
			unix.Close(fd)
		}
		if err != nil {
			return -1, err
		}
		fd = next
	}
	return fd, nil
}

// plainName reports whether name names an entry of its directory: not
// "", "." nor "..".
func plainName(name string) bool { return name != "" && name != "." && name != ".." }

// beneathOK: the walk above works everywhere.
func beneathOK() bool { return true }

// beneathCache keeps a worker's last directory opened beneath a tree, as
// the walk keeps the directory whose files it searches: a listing names a
// directory's files one after the other, so each costs one openat, not
// one per component (the kernel's tree: 2.1 times Linux's openat2 before,
// see bench/portable.sh). Keyed by the tree's handle, not its descriptor's
// number, which a later handle may reuse. The zero value holds none.
type beneathCache struct {
	base *dirHandle
	dir  string
	fd   int
	has  bool
}

// open opens rel beneath the directory base as openBeneath does.
func (c *beneathCache) open(base *dirHandle, rel string) (int, error) {
	i := strings.LastIndexByte(rel, '/')
	if i < 0 {
		return openBeneath(base.fd, rel)
	}
	dir, name := rel[:i], rel[i+1:]
	if !c.has || c.base != base || c.dir != dir {
		c.close()
		fd, err := openBeneathDir(base.fd, dir)
		if err != nil {
			return -1, err
		}
		c.base, c.dir, c.fd, c.has = base, dir, fd, true
	}
	if !plainName(name) {
		return -1, pathErr("open", rel, unix.EXDEV)
	}
	return openAt(c.fd, name)
}

// close closes the directory kept.
func (c *beneathCache) close() {
	if c.has {
		unix.Close(c.fd)
	}
	*c = beneathCache{}
}
