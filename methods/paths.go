package methods

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/toold/toold/protocol"

	"github.com/toold/toold/fileindex"
	"github.com/toold/toold/rpc"
)

// resolve makes path absolute against the session cwd and follows symlinks
// in as much of it as exists, so that roots are checked on where the path
// really leads, and a missing file is told apart from one outside the roots.
func (s *Session) resolve(field, path string) (string, error) {
	if path == "" {
		return "", rpc.InvalidParams(field, "required")
	}
	if strings.IndexByte(path, 0) >= 0 {
		return "", rpc.InvalidParams(field, "contains a NUL byte")
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(s.Cwd, path)
	}
	path = filepath.Clean(path)
	real, err := evalExisting(path)
	if err != nil {
		if errors.Is(err, fs.ErrPermission) {
			return "", fileError(path, err)
		}
		// A symlink loop, a name too long, a file where a directory should be.
		return "", rpc.Errorf(protocol.CodeNoSuchFile, map[string]string{"path": path}, "cannot resolve %s: %v", path, err)
	}
	if !s.allowed(real) {
		return "", rpc.Errorf(protocol.CodeAccessDenied, map[string]string{"path": path},
			"access denied: %s is outside the session's roots", path)
	}
	return real, nil
}

// evalExisting follows symlinks in path; where a part is missing, it
// resolves the longest existing parent and joins the rest as given.
func evalExisting(path string) (string, error) {
	real, err := filepath.EvalSymlinks(path)
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return real, err
	}
	dir, base := filepath.Split(path)
	dir = filepath.Clean(dir)
	if dir == path {
		return path, nil
	}
	parent, err := evalExisting(dir)
	if err != nil {
		return "", err
	}
	return filepath.Join(parent, base), nil
}

// allowed says whether a resolved path may be read: inside a root, or in the
// session's own spool directory.
func (s *Session) allowed(real string) bool {
	if s.Spool != nil && within(real, s.Spool.Path()) {
		return true
	}
	if len(s.Roots) == 0 {
		return true
	}
	for _, r := range s.Roots {
		if within(real, r) {
			return true
		}
	}
	return false
}

func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../") && !filepath.IsAbs(rel)
}

// fileError maps an error opening or reading path to the protocol's codes.
func fileError(path string, err error) error {
	var rerr *rpc.Error
	if errors.As(err, &rerr) || errors.Is(err, context.Canceled) {
		return err
	}
	data := map[string]string{"path": path}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return rpc.Errorf(protocol.CodeNoSuchFile, data, "no such file: %s", path)
	case errors.Is(err, fs.ErrPermission):
		return rpc.Errorf(protocol.CodeAccessDenied, data, "permission denied: %s", path)
	case errors.Is(err, fileindex.ErrIsDir):
		return rpc.Errorf(protocol.CodeIsDirectory, data, "is a directory: %s (list it with exec, e.g. ls)", path)
	case errors.Is(err, fileindex.ErrNotRegular):
		return rpc.Errorf(protocol.CodeNoSuchFile, data, "not a regular file: %s (a FIFO, socket or device cannot be read in windows)", path)
	}
	var perr *os.PathError
	if errors.As(err, &perr) {
		return rpc.Errorf(protocol.CodeNoSuchFile, data, "cannot read %s: %v", path, perr.Err)
	}
	return rpc.Errorf(rpc.CodeInternalError, data, "reading %s: %v", path, err)
}

// ResolveRoots checks initialize's roots: each must be an existing
// directory; they are returned with symlinks followed.
func ResolveRoots(cwd string, roots []string) ([]string, error) {
	out := make([]string, 0, len(roots))
	for i, r := range roots {
		field := "roots[" + strconv.Itoa(i) + "]"
		if r == "" {
			return nil, rpc.InvalidParams(field, "empty path")
		}
		if !filepath.IsAbs(r) {
			r = filepath.Join(cwd, r)
		}
		real, err := filepath.EvalSymlinks(r)
		if err != nil {
			return nil, rpc.InvalidParams(field, "%v", err)
		}
		if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
			return nil, rpc.InvalidParams(field, "%s is not a directory", r)
		}
		out = append(out, real)
	}
	return out, nil
}
