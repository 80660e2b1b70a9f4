package search

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// ignoreFiles are the files whose patterns exclude entries of their
// directory and below, in increasing priority (.ignore overrides
// .gitignore, as in ripgrep).
var ignoreFiles = [...]string{".gitignore", ".ignore"}

// maxIgnoreFile bounds how much of an ignore file is read.
const maxIgnoreFile = 1 << 20

// vcsDirs are never walked: version control metadata, not the tree.
var vcsDirs = map[string]bool{".git": true, ".hg": true, ".svn": true, ".bzr": true, ".jj": true}

// ignoreRules are the ignore patterns in force in a directory: those of
// its ancestors' ignore files, then its own, deeper ones winning. A nil
// *ignoreRules ignores nothing. Rules are shared by a directory's
// descendants and never changed once made.
type ignoreRules struct {
	patterns []gitignore.Pattern
	matcher  gitignore.Matcher
}

// with returns the rules of a directory whose path components (from the
// walk root) are domain, given the contents of its ignore files.
func (r *ignoreRules) with(domain []string, contents ...[]byte) *ignoreRules {
	var own []gitignore.Pattern
	for _, c := range contents {
		own = appendPatterns(own, c, domain)
	}
	if len(own) == 0 {
		return r
	}
	var ps []gitignore.Pattern
	if r != nil {
		ps = append(ps, r.patterns...)
	}
	ps = append(ps, own...)
	return &ignoreRules{patterns: ps, matcher: gitignore.NewMatcher(ps)}
}

// appendPatterns parses the lines of an ignore file: blank lines and
// comments are skipped; "\#" and "\!" stay escaped for the glob match.
func appendPatterns(ps []gitignore.Pattern, content []byte, domain []string) []gitignore.Pattern {
	for len(content) > 0 {
		line := content
		if i := bytes.IndexByte(content, '\n'); i >= 0 {
			line, content = content[:i], content[i+1:]
		} else {
			content = nil
		}
		line = bytes.TrimSuffix(line, []byte{'\r'})
		if len(bytes.TrimSpace(line)) == 0 || line[0] == '#' {
			continue
		}
		ps = append(ps, gitignore.ParsePattern(string(line), domain))
	}
	return ps
}

// ignored reports whether the entry at path (components from the walk
// root) is excluded.
func (r *ignoreRules) ignored(path []string, isDir bool) bool {
	return r != nil && r.matcher.Match(path, isDir)
}

// parentRules returns the rules that the ignore files of from and of the
// directories between it and dir, its descendant, put on dir's entries,
// and dir's path components from from. Paths are matched from from, so
// that an ancestor's anchored patterns ("/build") keep their meaning.
func parentRules(dir, from string) (*ignoreRules, []string) {
	if from == "" {
		return nil, nil
	}
	rel, err := filepath.Rel(from, dir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return nil, nil
	}
	var comps []string
	if rel != "." {
		comps = strings.Split(filepath.ToSlash(rel), "/")
	}
	var rules *ignoreRules
	for i := range comps {
		d := filepath.Join(append([]string{from}, comps[:i]...)...)
		var contents [][]byte
		for _, name := range ignoreFiles {
			if b, err := readSmall(filepath.Join(d, name)); err == nil {
				contents = append(contents, b)
			}
		}
		rules = rules.with(comps[:i], contents...)
	}
	return rules, comps
}

// readSmall reads at most maxIgnoreFile bytes of a regular file.
func readSmall(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, ErrNotRegular
	}
	return io.ReadAll(io.LimitReader(f, maxIgnoreFile))
}
