package search

import (
	"fmt"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// glob is a doublestar pattern: on the relative path, or on the name alone
// when the pattern holds no '/' (as gitignore, ripgrep's -g and fd do), so
// that "*.go" finds Go files at any depth. The zero glob matches anything.
type glob struct {
	pattern  string
	nameOnly bool
}

func newGlob(pattern string) glob {
	return glob{pattern: pattern, nameOnly: !strings.Contains(pattern, "/")}
}

// checkGlob returns an error for a malformed pattern.
func checkGlob(pattern string) error {
	if pattern != "" && !doublestar.ValidatePattern(pattern) {
		return fmt.Errorf("%w: %q", ErrBadGlob, pattern)
	}
	return nil
}

// ErrBadGlob is returned for a malformed glob pattern.
var ErrBadGlob = doublestar.ErrBadPattern

func (g glob) match(rel, name string) bool {
	if g.pattern == "" {
		return true
	}
	if g.nameOnly {
		ok, _ := doublestar.Match(g.pattern, name)
		return ok
	}
	ok, _ := doublestar.Match(g.pattern, rel)
	return ok
}
