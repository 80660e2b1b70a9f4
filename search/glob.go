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
	// suffix is set for a name pattern "*" + suffix with no other special
	// character ("*.go"), the most common, matched without the library.
	suffix string
}

const globSpecial = "*?[]{}\\"

func newGlob(pattern string) glob {
	// "**/" before a name pattern matches the name at any depth: what a
	// name pattern does, without doublestar's match of the whole path.
	if rest, ok := strings.CutPrefix(pattern, "**/"); ok && rest != "" && !strings.Contains(rest, "/") && !strings.Contains(rest, "**") {
		pattern = rest
	}
	g := glob{pattern: pattern, nameOnly: !strings.Contains(pattern, "/")}
	if rest, ok := strings.CutPrefix(pattern, "*"); ok && g.nameOnly && rest != "" && !strings.ContainsAny(rest, globSpecial) {
		g.suffix = rest
	}
	return g
}

// CheckGlob returns an error wrapping ErrBadGlob for a malformed pattern.
func CheckGlob(pattern string) error {
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
	if g.suffix != "" {
		return strings.HasSuffix(name, g.suffix) // as doublestar: * may be empty, may start with '.'
	}
	if g.nameOnly {
		ok, _ := doublestar.Match(g.pattern, name)
		return ok
	}
	ok, _ := doublestar.Match(g.pattern, rel)
	return ok
}
