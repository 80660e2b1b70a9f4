// Package beneath says whether a path is a directory or lies beneath it:
// the one check of the roots (methods), of a sandbox's writable and
// readable dirs (methods, lifecycle) and of the roots an MCP client
// announces against the command line's (mcp). The paths are compared as
// given, lexically: callers resolve symlinks first (once, and compare what
// they resolved), since a path beneath a dir by name may lead anywhere.
package beneath

import (
	"path/filepath"
	"strings"
)

// Dir reports whether path is dir or lies beneath it. Both are absolute;
// they are cleaned first, so "/a/" holds "/a/b" and "/a/../c" is "/c".
// "/ab" is not beneath "/a".
func Dir(path, dir string) bool {
	path, dir = filepath.Clean(path), filepath.Clean(dir)
	if path == dir || dir == "/" && filepath.IsAbs(path) {
		return true
	}
	return len(path) > len(dir) && path[len(dir)] == '/' && strings.HasPrefix(path, dir)
}

// Any reports whether path is one of dirs or lies beneath one.
func Any(path string, dirs []string) bool {
	for _, dir := range dirs {
		if Dir(path, dir) {
			return true
		}
	}
	return false
}
