package search

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/toold/toold/internal/beneath"
)

// Ignore files apply as ripgrep applies them: .gitignore (and the
// repository's .git/info/exclude) only inside a git work tree, that is
// beneath a directory holding a .git directory or file (the searched
// directory's ancestors count); .ignore everywhere. Within a directory
// .ignore overrides .gitignore, which overrides exclude; a deeper
// directory's files override its ancestors'.

const (
	gitignoreFile = ".gitignore"
	ignoreFile    = ".ignore"
	gitDir        = ".git"
)

// maxIgnoreFile bounds how much of an ignore file is read.
const maxIgnoreFile = 1 << 20

// vcsDirs are never walked: version control metadata, not the tree.
var vcsDirs = map[string]bool{".git": true, ".hg": true, ".svn": true, ".bzr": true, ".jj": true}

// dirIgnore is what one directory brings to the rules: whether it is the
// top of a git work tree, and the contents of its ignore files.
type dirIgnore struct {
	hasGit                     bool
	exclude, gitignore, ignore []byte
}

// ignoreRules are the ignore patterns in force in a directory: a layer
// per ignore file of it and of its ancestors, in increasing priority. A
// nil *ignoreRules ignores nothing (noIgnore). Rules are shared by a
// directory's descendants and never changed once made.
type ignoreRules struct {
	layers []*ignoreLayer
	// git: the directory is inside a git work tree.
	git bool
}

// newRules returns the rules at the top of a search whose first
// directory is (or is not) beneath a git work tree's top.
func newRules(inGit bool) *ignoreRules { return &ignoreRules{git: inGit} }

// with returns the rules of a directory whose path components (from the
// rules' root) are domain, given what its own files bring.
func (r *ignoreRules) with(domain []string, d dirIgnore) *ignoreRules {
	if r == nil {
		return nil
	}
	git := r.git || d.hasGit
	var own []*ignoreLayer
	add := func(content []byte) {
		if l := compileLayer(content, domain, len(r.layers)+len(own)); l != nil {
			own = append(own, l)
		}
	}
	if git {
		add(d.exclude)
		add(d.gitignore)
	}
	add(d.ignore)
	if len(own) == 0 && git == r.git {
		return r
	}
	layers := make([]*ignoreLayer, 0, len(r.layers)+len(own))
	layers = append(append(layers, r.layers...), own...)
	return &ignoreRules{layers: layers, git: git}
}

// match returns the highest-priority pattern that matches the entry e of
// a directory (components from the rules' root: dir, then e's name),
// looking at e alone: what matches its ancestors is the caller's anc.
func (r *ignoreRules) match(e *entryPath) prio {
	if r == nil {
		return 0
	}
	var best prio
	for _, l := range r.layers {
		best = max(best, l.match(e))
	}
	return best
}

// prio ranks a matching pattern: (layer+1)<<21 | index<<1 | inclusion, so
// that the greater wins (a later layer, a later line) and its low bit says
// whether it re-includes. 0 is no match.
type prio int64

// excludes reports whether the winning pattern p excludes its entry.
func (p prio) excludes() bool { return p != 0 && p&1 == 0 }

func makePrio(layer, index int, inclusion bool) prio {
	p := prio(layer+1)<<21 | prio(index)<<1
	if inclusion {
		p |= 1
	}
	return p
}

// entryPath is an entry as the matchers look at it: its name, whether it
// is a directory, and its path, built only when a pattern needs it.
type entryPath struct {
	dir   []string // the directory's components from the rules' root
	name  string
	isDir bool
	comps []string // dir + name, built on demand
}

func (e *entryPath) path() []string {
	if e.comps == nil {
		e.comps = append(append(make([]string, 0, len(e.dir)+1), e.dir...), e.name)
	}
	return e.comps
}

// excluded reports whether the rules exclude e, whose ancestors' best
// match is anc, and returns the best match of e and its ancestors (the
// anc of e's entries, when e is a directory).
func (r *ignoreRules) excluded(anc prio, e *entryPath) (bool, prio) {
	best := max(anc, r.match(e))
	return best.excludes(), best
}

// parseIgnore calls fn with each pattern line of an ignore file: blank
// lines and comments are skipped; "\#" and "\!" stay escaped for the glob
// match.
func parseIgnore(content []byte, fn func(line string)) {
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
		fn(string(line))
	}
}

// parentRules returns the rules that the ignore files of from and of the
// directories between it and dir, its descendant, put on dir's entries,
// the best match of dir and its ancestors, and dir's path components from
// from. Paths are matched from from, so that an ancestor's anchored
// patterns ("/build") keep their meaning. from "" is dir itself.
func parentRules(dir, from string) (*ignoreRules, prio, []string) {
	rel, ok := beneath.Rel(dir, from)
	if from == "" || !ok {
		return newRules(gitAbove(filepath.Dir(dir), dir)), 0, nil
	}
	var comps []string
	if rel != "." {
		comps = strings.Split(filepath.ToSlash(rel), "/")
	}
	rules := newRules(gitAbove(filepath.Dir(from), from))
	for i := range comps {
		d := filepath.Join(append([]string{from}, comps[:i]...)...)
		rules = rules.with(comps[:i], readDirIgnore(d))
	}
	// The directory searched is never ignored, nor through its ancestors,
	// as ripgrep has it: `rg PAT build` searches build/ though .gitignore
	// names build/ (its rules still apply to each entry by its own path).
	return rules, 0, comps
}

// gitAbove reports whether dir or one of its ancestors holds a .git (a
// directory, or a file as in a linked work tree or submodule); below is
// the child dir was taken from, to stop at the file system's root.
func gitAbove(dir, below string) bool {
	for d := dir; d != below; d, below = filepath.Dir(d), d {
		if _, err := os.Lstat(filepath.Join(d, gitDir)); err == nil {
			return true
		}
	}
	return false
}

// readDirIgnore reads what the directory at path brings to the rules.
func readDirIgnore(path string) dirIgnore {
	var d dirIgnore
	if fi, err := os.Lstat(filepath.Join(path, gitDir)); err == nil {
		d.hasGit = true
		if fi.IsDir() {
			d.exclude, _ = readSmall(filepath.Join(path, gitDir, "info", "exclude"))
		}
	}
	d.gitignore, _ = readSmall(filepath.Join(path, gitignoreFile))
	d.ignore, _ = readSmall(filepath.Join(path, ignoreFile))
	return d
}

// readSmall reads at most maxIgnoreFile bytes of a regular file. The open
// does not block: a FIFO in an ignore file's place (a command can make
// one) would otherwise hold the search until something wrote to it.
func readSmall(path string) ([]byte, error) {
	f, err := os.OpenFile(path, ReadFlags, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, ErrNotRegular
	}
	return io.ReadAll(io.LimitReader(f, maxIgnoreFile))
}
