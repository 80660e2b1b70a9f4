package search

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// tree copies testdata/tree into a temporary directory and adds what git
// cannot hold: a .git directory, symlinks in the tree, out of it, and in
// loops. outside is a directory beside the tree holding a needle.
func tree(t *testing.T) (dir, outside string) {
	t.Helper()
	base := t.TempDir()
	dir = filepath.Join(base, "tree")
	if err := os.CopyFS(dir, os.DirFS("testdata/tree")); err != nil {
		t.Fatal(err)
	}
	outside = filepath.Join(base, "outside")
	must(t, os.MkdirAll(outside, 0o755))
	must(t, os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("needle outside\n"), 0o644))
	must(t, os.MkdirAll(filepath.Join(dir, ".git"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, ".git", "config"), []byte("needle in git\n"), 0o644))
	for link, target := range map[string]string{
		"link.go":      "a.go",                               // a file in the tree: searched
		"sub/up.txt":   "../a.go",                            // in the tree through ..: searched
		"out.txt":      "../outside/secret.txt",              // out of the tree: not followed
		"abs.txt":      filepath.Join(outside, "secret.txt"), // absolute: not followed
		"outdir":       "../outside",                         // a directory out of the tree
		"sub/loop":     "..",                                 // a directory loop
		"sub/self":     "self",                               // a link to itself
		"sub/dangling": "nowhere",
	} {
		must(t, os.Symlink(target, filepath.Join(dir, link)))
	}
	return dir, outside
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// hits renders a result as "path:line:text" lines, context as
// "path-line-text", for comparison.
func hits(r *GrepResult) []string {
	var out []string
	for _, f := range r.Files {
		for _, m := range f.Matches {
			for i, b := range m.Before {
				out = append(out, f.Path+"-"+strconv.Itoa(m.Line-len(m.Before)+i)+"-"+b)
			}
			out = append(out, f.Path+":"+strconv.Itoa(m.Line)+":"+m.Text)
			for i, a := range m.After {
				out = append(out, f.Path+"-"+strconv.Itoa(m.Line+1+i)+"-"+a)
			}
		}
	}
	return out
}

func TestGrepTree(t *testing.T) {
	dir, _ := tree(t)
	long := "needle " + strings.Repeat("é", 18)
	tests := []struct {
		name    string
		q       Query
		opt     GrepOptions
		want    []string
		limit   LimitKind
		skipped Skipped
		clipped int
	}{{
		name: "literal in walk order, ignore rules, symlinks in the tree only",
		q:    Query{Pattern: "needle", Literal: true},
		opt:  GrepOptions{MaxLineChars: 25},
		want: []string{
			".hidden/h.txt:1:needle hidden",
			"a.go:3:// needle one",
			"a.go:6:var x = \"needle two\"",
			"crlf.txt:2:needle crlf",
			"docs/long.txt:1:" + long,
			"docs/long.txt:2:xxxxxxxxxx needle",
			"keep.log:1:needle kept by negation",
			"link.go:3:// needle one",
			"link.go:6:var x = \"needle two\"",
			"sub/b.go:3:func B() { needle() }",
			"sub/deep/c.txt:3:needle deep",
			"sub/up.txt:3:// needle one",
			"sub/up.txt:6:var x = \"needle two\"",
		},
		skipped: Skipped{Binary: 1, Ignored: 4}, // app.log build/ sub/secret.txt sub/x.tmp
		clipped: 1,
	}, {
		name: "ignore case, glob on names",
		q:    Query{Pattern: "needle", IgnoreCase: true},
		opt:  GrepOptions{Glob: "*.go"},
		want: []string{
			"a.go:3:// needle one", "a.go:6:var x = \"needle two\"", "a.go:7:var y = \"NEEDLE three\"",
			"link.go:3:// needle one", "link.go:6:var x = \"needle two\"", "link.go:7:var y = \"NEEDLE three\"",
			"sub/b.go:3:func B() { needle() }",
		},
		skipped: Skipped{Ignored: 4},
	}, {
		name:    "glob on paths with **, context",
		q:       Query{Pattern: `^needle \w+$`},
		opt:     GrepOptions{Glob: "sub/**/*.txt", Context: 1},
		want:    []string{"sub/deep/c.txt-2-two", "sub/deep/c.txt:3:needle deep", "sub/deep/c.txt-4-four"},
		skipped: Skipped{Ignored: 4},
	}, {
		name:    "$ before CRLF",
		q:       Query{Pattern: `crlf$`},
		want:    []string{"crlf.txt:2:needle crlf"},
		skipped: Skipped{Binary: 1, Ignored: 4},
	}, {
		name:    "limit reached",
		q:       Query{Pattern: "needle"},
		opt:     GrepOptions{Limit: 2},
		want:    []string{".hidden/h.txt:1:needle hidden", "a.go:3:// needle one"},
		limit:   LimitMatches,
		skipped: Skipped{Ignored: 0},
	}, {
		name:    "bytes reached",
		q:       Query{Pattern: "needle"},
		opt:     GrepOptions{MaxBytes: 50},
		want:    []string{".hidden/h.txt:1:needle hidden", "a.go:3:// needle one"},
		limit:   LimitBytes,
		skipped: Skipped{Ignored: 0},
	}, {
		name:    "too large",
		q:       Query{Pattern: "needle"},
		opt:     GrepOptions{MaxFileSize: 100, Glob: "docs/*"},
		skipped: Skipped{TooLarge: 1, Ignored: 4},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := Compile(tt.q)
			must(t, err)
			res, err := Grep(context.Background(), m, dir, tt.opt)
			must(t, err)
			if got := hits(res); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("matches:\n got %q\nwant %q", got, tt.want)
			}
			if res.LimitReached != tt.limit {
				t.Errorf("limit = %v, want %v", res.LimitReached, tt.limit)
			}
			if res.Skipped != tt.skipped {
				t.Errorf("skipped = %+v, want %+v", res.Skipped, tt.skipped)
			}
			if res.ClippedLines != tt.clipped {
				t.Errorf("clipped = %d, want %d", res.ClippedLines, tt.clipped)
			}
			total := 0
			for _, f := range res.Files {
				total += f.Count
			}
			if total != res.TotalMatches {
				t.Errorf("total %d, counts add to %d", res.TotalMatches, total)
			}
		})
	}
}
