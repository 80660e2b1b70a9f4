package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// Resolve resolves dir once, for a policy: its symlinks followed, then the
// directory found there and its identity, which the launcher checks when
// it opens the dir again (without following links). An error when it is
// not a directory.
func Resolve(dir string) (string, FileID, error) {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", FileID{}, err
	}
	id, err := identify(real)
	if err != nil {
		return "", FileID{}, err
	}
	return real, id, nil
}

// identify is the identity of the directory at path (no symlink).
func identify(path string) (FileID, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return FileID{}, err
	}
	if !fi.IsDir() {
		return FileID{}, fmt.Errorf("%s: %w", path, errNotDir)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return FileID{}, fmt.Errorf("%s: no identity", path)
	}
	return FileID{Dev: uint64(st.Dev), Ino: uint64(st.Ino)}, nil
}

var errNotDir = errors.New("not a directory")

// Same reports whether path is still the directory id names.
func Same(path string, id FileID) bool {
	now, err := identify(path)
	return err == nil && now == id
}
