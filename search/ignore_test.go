package search

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
	"github.com/toold/toold/internal/testenv"
)

// writeTree writes files (path → content) beneath a new temporary dir.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for p, c := range files {
		full := filepath.Join(dir, p)
		if strings.HasSuffix(p, "/") {
			must(t, os.MkdirAll(full, 0o755))
			continue
		}
		must(t, os.MkdirAll(filepath.Dir(full), 0o755))
		must(t, os.WriteFile(full, []byte(c), 0o644))
	}
	return dir
}

// TestIgnoreGitWorkTree: .gitignore and .git/info/exclude apply only
// inside a git work tree (a .git directory or file at or above the
// searched directory, or in a directory of the tree for its subtree),
// .ignore everywhere; noIgnore searches all but VCS directories.
func TestIgnoreGitWorkTree(t *testing.T) {
	base := map[string]string{
		".gitignore":      "*.log\n/*\n",
		".ignore":         "secret\n",
		"a.txt":           "needle a\n",
		"app.log":         "needle log\n",
		"secret":          "needle secret\n",
		"sub/b.txt":       "needle b\n",
		"sub/x.tmp":       "needle tmp\n",
		"repo/.git":       "gitdir: /elsewhere\n", // a linked work tree's .git file
		"repo/.gitignore": "*.tmp\n",
		"repo/c.txt":      "needle c\n",
		"repo/d.tmp":      "needle d\n",
	}
	all := []string{"a.txt", "app.log", "repo/c.txt", "repo/d.tmp", "secret", "sub/b.txt", "sub/x.tmp"}
	tests := []struct {
		name     string
		extra    map[string]string
		sub      string // searched subdirectory
		noIgnore bool
		want     []string
		ignored  int
		fromTop  bool // the top's ignore files apply too (IgnoreFrom, as methods sets it)
	}{
		// Outside a work tree only .ignore applies (and the nested repo's
		// .gitignore, within it), as rg does with the Debian tarball's "/*".
		{"no git", nil, "", false, []string{"a.txt", "app.log", "repo/c.txt", "sub/b.txt", "sub/x.tmp"}, 2, false},
		{"no git, noIgnore", nil, "", true, all, 0, false},
		{"git dir", map[string]string{".git/": ""}, "", false, nil, 7, false},
		{"git dir, noIgnore", map[string]string{".git/": ""}, "", true, all, 0, false},
		{"git above the searched dir", map[string]string{".git/": ""}, "sub", false, []string{"b.txt", "x.tmp"}, 0, false},
		{"exclude", map[string]string{".git/info/exclude": "*.tmp\n", ".gitignore": "*.log\n"}, "", false,
			[]string{"a.txt", "repo/c.txt", "sub/b.txt"}, 4, false},
		{"exclude, noIgnore", map[string]string{".git/info/exclude": "*.tmp\n"}, "", true, all, 0, false},
		// A directory given is searched though the rules above it name it,
		// as rg searches it; their rules still apply to each entry.
		{"ignored dir searched by name", map[string]string{".git/": "", ".gitignore": "sub/\n*.tmp\n"}, "sub", false,
			[]string{"b.txt"}, 1, true},
		{"excluded dir searched by name", map[string]string{".git/info/exclude": "sub\n", ".gitignore": ""}, "sub", false,
			[]string{"b.txt", "x.tmp"}, 0, true},
	}
	m, err := Compile(Query{Pattern: "needle"})
	must(t, err)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := maps(base, tt.extra)
			top := writeTree(t, files)
			dir, from := filepath.Join(top, tt.sub), ""
			if tt.fromTop {
				from = top
			}
			res, err := Grep(context.Background(), m, dir, GrepOptions{NoIgnore: tt.noIgnore, IgnoreFrom: from})
			must(t, err)
			var got []string
			for _, f := range res.Files {
				got = append(got, f.Path)
			}
			if !reflect.DeepEqual(got, tt.want) || res.Skipped.Ignored != tt.ignored {
				t.Errorf("grep: got %q ignored %d, want %q ignored %d", got, res.Skipped.Ignored, tt.want, tt.ignored)
			}
			fr, err := Find(context.Background(), dir, FindOptions{Type: TypeFile, NoIgnore: tt.noIgnore, IgnoreFrom: from})
			must(t, err)
			var files2 []string
			for _, e := range fr.Entries {
				if !strings.HasPrefix(filepath.Base(e), ".") && !strings.HasPrefix(e, ".git/") {
					files2 = append(files2, e)
				}
			}
			if !reflect.DeepEqual(files2, tt.want) || fr.Ignored != tt.ignored {
				t.Errorf("find: got %q ignored %d, want %q ignored %d", files2, fr.Ignored, tt.want, tt.ignored)
			}
			for _, e := range fr.Entries {
				if strings.HasPrefix(e, ".git/") {
					t.Errorf("find listed %s in a VCS directory", e)
				}
			}
			lr, err := List(context.Background(), dir, ListOptions{NoIgnore: tt.noIgnore, IgnoreFrom: from})
			must(t, err)
			for _, e := range lr.Entries {
				if e.Kind == KindFile && !slices.Contains(tt.want, e.Name) {
					t.Errorf("ls listed %s, want only %q", e.Name, tt.want)
				}
			}
		})
	}
}

func maps(a, b map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

// refExcluded is go-git's answer for a path as a walk meets it: the
// patterns of every ignore file from the top down to its directory.
func refExcluded(files map[string]string, comps []string, isDir bool) bool {
	var ps []gitignore.Pattern
	for i := 0; i < len(comps); i++ {
		content, ok := files[strings.Join(comps[:i], "/")]
		if !ok {
			continue
		}
		parseIgnore([]byte(content), func(line string) {
			ps = append(ps, gitignore.ParsePattern(line, comps[:i]))
		})
	}
	return gitignore.NewMatcher(ps).Match(comps, isDir)
}

// fastExcluded walks down to the path with the compiled layers, carrying
// the ancestors' best match as the walk does; skipped reports that an
// ancestor was excluded (the walk would not get there).
func fastExcluded(files map[string]string, comps []string, isDir bool) (excluded, skipped bool) {
	rules, anc := newRules(true), prio(0)
	for i := 0; i < len(comps); i++ {
		rules = rules.with(comps[:i], dirIgnore{gitignore: []byte(files[strings.Join(comps[:i], "/")])})
		e := entryPath{dir: comps[:i], name: comps[i], isDir: i < len(comps)-1 || isDir}
		ex, best := rules.excluded(anc, &e)
		if i == len(comps)-1 {
			return ex, false
		}
		if ex {
			return true, true
		}
		anc = best
	}
	return false, false
}

// checkAgainstRef compares the compiled matcher with go-git on paths; a
// path beneath an excluded directory is compared at that directory.
func checkAgainstRef(t testing.TB, files map[string]string, paths []string) {
	t.Helper()
	for _, p := range paths {
		isDir := strings.HasSuffix(p, "/")
		comps := strings.Split(strings.TrimSuffix(p, "/"), "/")
		got, skipped := fastExcluded(files, comps, isDir)
		if skipped {
			continue
		}
		// The reference must agree that no ancestor was excluded.
		for i := 1; i < len(comps); i++ {
			if refExcluded(files, comps[:i], true) {
				t.Fatalf("files %q: %s: ancestor %s excluded by go-git, not by the sets", files, p, strings.Join(comps[:i], "/"))
			}
		}
		if want := refExcluded(files, comps, isDir); got != want {
			t.Fatalf("files %q: %s: excluded %v, go-git says %v", files, p, got, want)
		}
	}
}

// TestIgnoreMatchReference: the compiled sets answer as go-git's gitignore
// on every shape of pattern they sort (literal, extension, suffix, prefix,
// class, path, glob, negation, dir-only, nested domains).
func TestIgnoreMatchReference(t *testing.T) {
	kernel, err := os.ReadFile("testdata/kernel.gitignore")
	must(t, err)
	paths := []string{
		"a.o", "a.o/", "x/a.o", "a.mod.c", "a.c", "b.tab.c", "b.tab.h", "b.tab.x", ".git/", ".hidden", "x/.hidden",
		"vmlinux", "x/vmlinux", "include/config/", "include/config/a.h", "arch/x86/include/generated/", "arch/x86/include/generated/a.h",
		"arch/x86/include/gen/", "foo.o.cmd", "foo.c.0abc.d", "patches-1", "cscope.out", "tags", "x/tags", "sphinx_x/", "sphinx_x",
		"#foo#", "a~", "keep/a.o", "keep/sub/b.o", "keep/", "d/e/f.txt", "d/e/", "d/", "signing_key.pem", "x/Module.symvers",
		"build/", "build/x/y.c", "src/build", "src/build/", "logs/a.log", "logs/keep.log", "x/y/z/w.o", "debian/", "debian/x",
		"abc", "aXc", "a[c", "#tmp#", "x/#a#", "axy", "]xy", "a]xy", "b]z", "doc/a.md", "doc/sub/a.md", "all.config", "x/all.config",
	}
	tables := []map[string]string{
		{"": string(kernel)},
		{"": string(kernel) + "/*\n!/debian/\n"},
		{"": "*.o\n!keep/*.o\n", "keep": "!b.o\n*.o\nsub/\n"},
		{"": "build/\n!src/build\n/d/e\nlogs/*.log\n!logs/keep.log\n"},
		{"": "a?c\na[bX]c\n!aXc\n**/sub/*.md\ndoc/**\n!doc/a.md\n"},
		{"": "*\n!*/\n!*.c\n"},
		{"x": "/y/z\n*.o\n", "x/y": "!w.o\n"},
		// Escapes: "\#*#" holds '#', and a class may hold an escaped ']'.
		{"": "\\#*#\n[\\]a]xy\n*\\]z\n"},
	}
	for _, files := range tables {
		checkAgainstRef(t, files, paths)
	}
}

// TestIgnoreMatchRandom: generated patterns and paths, compared with
// go-git.
func TestIgnoreMatchRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	n := 300
	if testenv.Long() {
		n = 5000
	}
	for range n {
		files := map[string]string{"": genPatterns(r), "a": genPatterns(r)}
		var paths []string
		for range 20 {
			paths = append(paths, genPath(r))
		}
		checkAgainstRef(t, files, paths)
	}
}

var genNames = []string{"a", "b", "a.o", "b.c", "x.tab.c", ".h", "ab", "a.o.d", "build", "keep.o", "-", "[", "é"}
var genGlobs = []string{"a", "*", "?", "*.o", "*.c", "*.tab.[ch]", ".*", "a*", "*b", "a?", "[ab]", "[a-c]*", "**", "build", "\\#", "[", "é*", "*.o.*", "[^a]*", "[\\]a]*", "\\#*#"}

func genPatterns(r *rand.Rand) string {
	var b strings.Builder
	for range 1 + r.IntN(6) {
		if r.IntN(4) == 0 {
			b.WriteString("!")
		}
		if r.IntN(4) == 0 {
			b.WriteString("/")
		}
		for i := range 1 + r.IntN(3) {
			if i > 0 {
				b.WriteString("/")
			}
			b.WriteString(genGlobs[r.IntN(len(genGlobs))])
		}
		if r.IntN(4) == 0 {
			b.WriteString("/")
		}
		b.WriteString("\n")
	}
	return b.String()
}

func genPath(r *rand.Rand) string {
	var parts []string
	for range 1 + r.IntN(4) {
		parts = append(parts, genNames[r.IntN(len(genNames))])
	}
	p := strings.Join(parts, "/")
	if r.IntN(3) == 0 {
		p += "/"
	}
	return p
}

// FuzzIgnoreMatch compares the compiled sets with go-git on a fuzzed
// ignore file (top and nested) and path.
func FuzzIgnoreMatch(f *testing.F) {
	f.Add("*.o\n!a.o\n", "!b\n", "a/a.o")
	f.Add("*.tab.[ch]\n/x/\n", "*", "x/y.tab.c")
	f.Add("[a-c]*\n**/b\n", "/b/", "a/b/c")
	f.Add("[\\]a]xy\n\\#*#\n", "*\\]z", "a/#x#")
	f.Fuzz(func(t *testing.T, top, nested, path string) {
		if strings.Contains(path, "//") || strings.HasPrefix(path, "/") || path == "" || path == "/" {
			return
		}
		checkAgainstRef(t, map[string]string{"": top, "a": nested}, []string{path})
	})
}

// TestCompileLayerSorts: the kernel's shapes land in their sets.
func TestCompileLayerSorts(t *testing.T) {
	l := compileLayer([]byte("*.o\n/vmlinux\n*.tab.[ch]\n.*\n*.o.*\n\\#*#\n/arch/*/gen/\n?.[ab]\n*[\n"), nil, 0)
	got := fmt.Sprint(len(l.exts), len(l.paths), len(l.prefixes), len(l.nameLit), len(l.nameRest), len(l.nameAll), len(l.globs))
	if got != "3 1 1 2 1 1 1" {
		t.Errorf("exts paths prefixes nameLit nameRest nameAll globs = %s", got)
	}
}
