package search

import (
	"path"
	"testing"

	"github.com/bmatcuk/doublestar/v4"
)

func TestGlob(t *testing.T) {
	tests := []struct {
		pattern, rel string
		want         bool
	}{
		{"*.go", "a/b/c.go", true}, // no '/': the name alone
		{"*.go", "a/b/c.txt", false},
		{"c.go", "a/b/c.go", true},
		{"a/*.go", "a/b/c.go", false}, // a '/': the whole path
		{"a/**/*.go", "a/b/c.go", true},
		{"**/*.go", "c.go", true},
		{"a/**", "a/b/c.go", true},
		{"*.{go,txt}", "x/y.txt", true},
		{"", "anything", true},
	}
	for _, tt := range tests {
		if got := newGlob(tt.pattern).match(tt.rel, path.Base(tt.rel)); got != tt.want {
			t.Errorf("%q on %q: %v, want %v", tt.pattern, tt.rel, got, tt.want)
		}
	}
}

// TestGlobSuffixAgrees: the fast path for "*" + suffix says what
// doublestar says.
func TestGlobSuffixAgrees(t *testing.T) {
	for _, p := range []string{"*.go", "*_test.go", "*x"} {
		g := newGlob(p)
		if g.suffix == "" {
			t.Fatalf("%q: no fast path", p)
		}
		for _, n := range []string{"a.go", ".go", ".hidden.go", "go", "a.go.txt", "x", "ax", "é.go", "a_test.go"} {
			if want, _ := doublestar.Match(p, n); g.match(n, n) != want {
				t.Errorf("%q on %q: %v, want %v", p, n, !want, want)
			}
		}
	}
}

// TestGlobAnyDepthAgrees: "**/" before a name pattern is matched on the
// name alone, as doublestar matches it on the whole path.
func TestGlobAnyDepthAgrees(t *testing.T) {
	for _, p := range []string{"**/*_test.c", "**/Makefile", "**/{a,b}.go", "**/[ab]*"} {
		g := newGlob(p)
		if !g.nameOnly {
			t.Fatalf("%q: matched on the path", p)
		}
		for _, rel := range []string{"a_test.c", "x/a_test.c", "x/y/a_test.c", "x_test.c/y", "Makefile", "d/Makefile", "a.go", "d/b.go", "d/c.go", "bz", "q/az"} {
			if want, _ := doublestar.Match(p, rel); g.match(rel, path.Base(rel)) != want {
				t.Errorf("%q on %q: %v, want %v", p, rel, !want, want)
			}
		}
	}
}
