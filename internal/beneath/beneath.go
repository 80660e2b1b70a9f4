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
