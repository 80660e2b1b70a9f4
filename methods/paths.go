package methods

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/toold/toold/protocol"

	"github.com/toold/toold/fileindex"
	"github.com/toold/toold/internal/beneath"
	"github.com/toold/toold/rpc"
	"github.com/toold/toold/search"
)

// resolve makes path absolute against the session cwd and follows every
// symlink in it, dangling ones included, so that roots are checked on where
// the path really leads: a path that leads outside them is refused whether or
// not its target exists. It returns the resolved path.
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
	real, err := resolveLinks(path)
	if err != nil {
		if errors.Is(err, fs.ErrPermission) {
			return "", fileError(path, err)
		}
		// A symlink loop, a name too long, a file where a directory should be.
		return "", rpc.Errorf(protocol.CodeNoSuchFile, map[string]string{"path": path}, "cannot resolve %s: %v", path, err)
	}
	if _, ok := s.rootOf(real); !ok {
		return "", outsideRoots(path)
	}
	return real, nil
}

func outsideRoots(path string) error {
	return rpc.Errorf(protocol.CodeAccessDenied, map[string]string{"path": path},
		"access denied: %s is outside the session's roots", path)
}

// maxLinks is how many symlinks resolveLinks follows before it calls the
// path a loop, as filepath.EvalSymlinks does.
const maxLinks = 255

// resolveLinks follows the symlinks in path, clean and absolute, one part at
// a time. Unlike filepath.EvalSymlinks it follows a symlink whose target is
// missing, and joins the missing rest as given, so that a dangling link
// resolves to where it points.
func resolveLinks(path string) (string, error) {
	resolved := "/"
	rest := strings.Split(path, "/")
	for links := 0; len(rest) > 0; {
		part := rest[0]
		rest = rest[1:]
		switch part {
		case "", ".":
			continue
		case "..":
			resolved = filepath.Dir(resolved)
			continue
		}
		next := filepath.Join(resolved, part)
		fi, err := os.Lstat(next)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			resolved = next // nothing below a missing name can be a link
			continue
		case err != nil:
			return "", err
		case fi.Mode()&fs.ModeSymlink == 0:
			resolved = next
			continue
		}
		if links++; links > maxLinks {
			return "", &fs.PathError{Op: "resolve", Path: path, Err: syscall.ELOOP}
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", err
		}
		if filepath.IsAbs(target) {
			resolved = "/"
		}
		rest = append(strings.Split(target, "/"), rest...)
	}
	return resolved, nil
}

// Root is a directory the session may read beneath, as resolved at
// initialize: its path, symlinks followed, and the directory found there
// then, so that a root later replaced (by a symlink, or a parent swapped)
// is refused rather than followed.
type Root struct {
	Path string
	info fs.FileInfo // nil: not checked
}

// rootOf returns the directory beneath which real, a resolved path, must be
// opened: the session's spool directory or the root that holds it; a zero
// Root when the session has no roots. ok is false when real is outside them
// all.
func (s *Session) rootOf(real string) (root Root, ok bool) {
	if s.Spool != nil && s.Spool.Path() != "" && beneath.Dir(real, s.Spool.Path()) {
		return Root{Path: s.Spool.Path(), info: s.Spool.Info()}, true
	}
	if len(s.Roots) == 0 {
		return Root{}, true
	}
	for _, r := range s.Roots {
		if beneath.Dir(real, r.Path) {
			return r, true
		}
	}
	return Root{}, false
}

// open opens real, a path resolve returned, for reading. Inside a root it
// opens through os.Root, which refuses every way out of the root, so a
// directory swapped for a symlink since resolve cannot lead outside, and it
// checks that the root is the directory initialize found: what is read is
// checked where it is opened.
func (s *Session) open(real string) (*os.File, error) {
	root, ok := s.rootOf(real)
	switch {
	case !ok:
		return nil, outsideRoots(real)
	case root.Path == "":
		return os.OpenFile(real, search.ReadFlags, 0)
	}
	r, err := os.OpenRoot(root.Path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	if root.info != nil {
		if fi, err := r.Stat("."); err != nil || !os.SameFile(fi, root.info) {
			return nil, outsideRoots(real)
		}
	}
	rel, err := filepath.Rel(root.Path, real)
	if err != nil {
		return nil, err
	}
	f, err := r.OpenFile(rel, search.ReadFlags, 0)
	var errno syscall.Errno
	if err != nil && !errors.As(err, &errno) {
		// os.Root's only error without an errno: the path escapes the root.
		return nil, outsideRoots(real)
	}
	return f, err
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
		return rpc.Errorf(protocol.CodeIsDirectory, data, "is a directory: %s (list it with ls, or search it with find or grep)", path)
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
func ResolveRoots(cwd string, roots []string) ([]Root, error) {
	out := make([]Root, 0, len(roots))
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
		fi, err := os.Stat(real)
		if err != nil || !fi.IsDir() {
			return nil, rpc.InvalidParams(field, "%s is not a directory", r)
		}
		out = append(out, Root{Path: real, info: fi})
	}
	return out, nil
}
