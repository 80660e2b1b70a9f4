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

// Rel is path relative to dir ("." for dir itself) when path is dir or
// lies beneath it, with true; "" and false when it does not: a caller that
// wants the relative path asks here rather than judging filepath.Rel's
// answer itself.
func Rel(path, dir string) (string, bool) {
	if !Dir(path, dir) {
		return "", false
	}
	rel, err := filepath.Rel(dir, path)
	return rel, err == nil
}
