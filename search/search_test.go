package search

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/toold/toold/internal/testenv"
)

// tree copies testdata/tree into a temporary directory and adds what git
// cannot hold: a .git directory, symlinks in the tree, out of it, and in
// loops. outside is a directory beside the tree holding a needle. A test
// that only reads the tree takes sharedTree.
func tree(t *testing.T) (dir, outside string) {
	t.Helper()
	base := t.TempDir()
	must(t, makeTree(base))
	return filepath.Join(base, "tree"), filepath.Join(base, "outside")
}

// shared is tree's directory made once a run for the tests that only read
// it (sharedTree): some 35 files, directories and links, each new inode a
// millisecond of system CPU.
var shared madeDir

// sharedTree is tree made once a run, for tests that do not change it.
func sharedTree(t *testing.T) (dir, outside string) {
	t.Helper()
	shared.once.Do(func() {
		if shared.dir, shared.err = os.MkdirTemp("", "toold-tree-"); shared.err == nil {
			shared.err = makeTree(shared.dir)
		}
	})
	must(t, shared.err)
	return filepath.Join(shared.dir, "tree"), filepath.Join(shared.dir, "outside")
}

// makeTree makes tree's directories tree and outside in base.
func makeTree(base string) error {
	dir, outside := filepath.Join(base, "tree"), filepath.Join(base, "outside")
	if err := os.CopyFS(dir, os.DirFS("testdata/tree")); err != nil {
		return err
	}
	for _, err := range []error{
		os.MkdirAll(outside, 0o755),
		os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("needle outside\n"), 0o644),
		os.MkdirAll(filepath.Join(dir, ".git"), 0o755),
		os.WriteFile(filepath.Join(dir, ".git", "config"), []byte("needle in git\n"), 0o644),
	} {
		if err != nil {
			return err
		}
	}
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
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			return err
		}
	}
	return nil
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
	dir, _ := sharedTree(t)
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
		skipped: Skipped{Ignored: 4}, // bin.dat has no match: not judged
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

func TestFind(t *testing.T) {
	dir, _ := sharedTree(t)
	tests := []struct {
		opt   FindOptions
		want  []string
		total int
	}{
		{FindOptions{Pattern: "*.go"}, []string{"a.go", "link.go", "sub/b.go"}, 3},
		{FindOptions{Pattern: "*.go", Type: TypeFile}, []string{"a.go", "sub/b.go"}, 2},
		{FindOptions{Pattern: "**/*.txt", Type: TypeFile}, []string{".hidden/h.txt", "crlf.txt", "docs/long.txt", "sub/deep/c.txt"}, 4},
		{FindOptions{Type: TypeDir}, []string{".hidden/", "docs/", "sub/", "sub/deep/"}, 4},
		{FindOptions{Pattern: "sub/*"}, []string{"sub/.gitignore", "sub/.ignore", "sub/b.go", "sub/dangling", "sub/deep/", "sub/loop", "sub/self", "sub/up.txt"}, 8},
		{FindOptions{Limit: 3}, []string{".gitignore", ".hidden/", ".hidden/h.txt"}, 23},
	}
	for _, tt := range tests {
		res, err := Find(context.Background(), dir, tt.opt)
		must(t, err)
		if !reflect.DeepEqual(res.Entries, tt.want) || res.Total != tt.total || res.LimitReached != (tt.total > len(tt.want)) {
			t.Errorf("%+v: got %q total %d limit %v, want %q total %d", tt.opt, res.Entries, res.Total, res.LimitReached, tt.want, tt.total)
		}
		if res.Ignored != 4 {
			t.Errorf("%+v: ignored %d, want 4", tt.opt, res.Ignored)
		}
	}
	if _, err := Find(context.Background(), dir, FindOptions{Pattern: "[a-"}); !errors.Is(err, ErrBadGlob) {
		t.Errorf("bad pattern: %v", err)
	}
	if _, err := Find(context.Background(), filepath.Join(dir, "nope"), FindOptions{}); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing dir: %v", err)
	}
}

func TestList(t *testing.T) {
	dir, _ := sharedTree(t)
	names := func(r *ListResult) []string {
		var out []string
		for _, e := range r.Entries {
			s := e.Name
			switch e.Kind {
			case KindDir:
				s += "/"
			case KindSymlink:
				s += " -> " + e.Target
			}
			out = append(out, s)
		}
		return out
	}
	tests := []struct {
		dir   string
		opt   ListOptions
		want  []string
		total int
	}{
		{"", ListOptions{}, []string{"a.go", "abs.txt -> " + filepath.Join(filepath.Dir(dir), "outside", "secret.txt"), "bin.dat", "crlf.txt", "docs/", "keep.log", "link.go -> a.go", "out.txt -> ../outside/secret.txt", "outdir -> ../outside", "sub/"}, 10},
		{"", ListOptions{All: true, Limit: 3}, []string{".gitignore", ".hidden/", "a.go"}, 12},
		{"sub", ListOptions{All: true}, []string{".gitignore", ".ignore", "b.go", "dangling -> nowhere", "deep/", "loop -> ..", "self -> self", "up.txt -> ../a.go"}, 8},
	}
	for _, tt := range tests {
		res, err := List(context.Background(), filepath.Join(dir, tt.dir), tt.opt)
		must(t, err)
		if got := names(res); !reflect.DeepEqual(got, tt.want) || res.Total != tt.total || res.LimitReached != (tt.total > len(tt.want)) {
			t.Errorf("%s %+v: got %q total %d, want %q total %d", tt.dir, tt.opt, got, res.Total, tt.want, tt.total)
		}
	}
}

// TestGrepSymlinks: loops survived, nothing outside the tree read, even
// when the searched directory is reached through a symlink.
func TestGrepSymlinks(t *testing.T) {
	dir, outside := sharedTree(t)
	m, err := Compile(Query{Pattern: "needle"})
	must(t, err)
	for _, d := range []string{dir, filepath.Join(dir, "sub", "loop")} {
		res, err := Grep(context.Background(), m, d, GrepOptions{})
		must(t, err)
		for _, f := range res.Files {
			for _, mt := range f.Matches {
				if strings.Contains(mt.Text, "outside") || strings.Contains(mt.Text, "in git") {
					t.Errorf("%s: read %s: %q", d, f.Path, mt.Text)
				}
			}
		}
	}
	// A file named directly is searched, wherever a symlink to it sits.
	res, err := Grep(context.Background(), m, filepath.Join(outside, "secret.txt"), GrepOptions{})
	must(t, err)
	if res.TotalMatches != 1 || res.Files[0].Path != filepath.Join(outside, "secret.txt") {
		t.Errorf("single file: %+v", res)
	}
}

// TestGrepCancel: a cancelled search returns the context's error and
// leaves no goroutine behind (the race detector and -count catch leaks).
func TestGrepCancel(t *testing.T) {
	dir, _ := sharedTree(t)
	m, err := Compile(Query{Pattern: "needle"})
	must(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Grep(ctx, m, dir, GrepOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled grep: %v", err)
	}
	if _, err := Find(ctx, dir, FindOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled find: %v", err)
	}
}

// TestIgnoreFrom: a search in a subdirectory honours the ignore files
// above it, anchored patterns included, when told where they start.
func TestIgnoreFrom(t *testing.T) {
	dir, _ := tree(t)
	must(t, os.WriteFile(filepath.Join(dir, "sub", "deep", "note.log"), []byte("needle note\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, ".ignore"), []byte("/sub/deep/c.txt\n"), 0o644))
	sub := filepath.Join(dir, "sub", "deep")
	m, err := Compile(Query{Pattern: "needle"})
	must(t, err)
	for _, tt := range []struct {
		from string
		want []string
	}{
		{"", []string{"c.txt:3:needle deep", "note.log:1:needle note"}},
		{dir, nil},
		{filepath.Join(dir, "sub"), []string{"c.txt:3:needle deep", "note.log:1:needle note"}},
	} {
		res, err := Grep(context.Background(), m, sub, GrepOptions{IgnoreFrom: tt.from})
		must(t, err)
		if got := hits(res); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("from %q: got %q, want %q", tt.from, got, tt.want)
		}
		fr, err := Find(context.Background(), sub, FindOptions{IgnoreFrom: tt.from})
		must(t, err)
		lr, err := List(context.Background(), sub, ListOptions{IgnoreFrom: tt.from})
		must(t, err)
		if len(fr.Entries) != len(tt.want) || len(lr.Entries) != len(tt.want) {
			t.Errorf("from %q: find %q, ls %+v", tt.from, fr.Entries, lr.Entries)
		}
	}
}

// TestAdversarialTrees: a FIFO (opening it must not block), a symlink to
// it, and a tree deeper than PATH_MAX allows a path to be.
func TestAdversarialTrees(t *testing.T) {
	dir := t.TempDir()
	must(t, unix.Mkfifo(filepath.Join(dir, "fifo"), 0o644))
	must(t, os.Symlink("fifo", filepath.Join(dir, "fifo-link")))
	// Made beneath open parents: no path this long can be given whole.
	name := strings.Repeat("d", 200)
	cur, err := openDir(dir)
	must(t, err)
	for range 30 { // 30 * 201 bytes: past PATH_MAX (4096)
		must(t, unix.Mkdirat(cur, name, 0o755))
		next, err := openDirAt(cur, name)
		unix.Close(cur)
		must(t, err)
		cur = next
	}
	fd, err := unix.Openat(cur, "needle.txt", unix.O_WRONLY|unix.O_CREAT, 0o644)
	unix.Close(cur)
	must(t, err)
	unix.Write(fd, []byte("a needle at the bottom\n"))
	unix.Close(fd)
	t.Cleanup(func() { removeDeep(t, dir, name) })

	m, err := Compile(Query{Pattern: "needle"})
	must(t, err)
	res, err := Grep(context.Background(), m, dir, GrepOptions{})
	must(t, err)
	if res.TotalMatches != 1 || !strings.HasSuffix(res.Files[0].Path, name+"/needle.txt") || strings.Count(res.Files[0].Path, "/") != 30 {
		t.Errorf("deep grep: %+v", res)
	}
	fr, err := Find(context.Background(), dir, FindOptions{Pattern: "**/needle.txt"})
	must(t, err)
	if fr.Total != 1 {
		t.Errorf("deep find: %+v", fr)
	}
	if _, err := Grep(context.Background(), m, filepath.Join(dir, "fifo"), GrepOptions{}); !errors.Is(err, ErrNotRegular) {
		t.Errorf("grep of a FIFO: %v", err)
	}
}

// removeDeep empties a tree too deep for os.RemoveAll's paths.
func removeDeep(t *testing.T, dir, name string) {
	var fds []int
	cur, err := openDir(dir)
	for err == nil {
		fds = append(fds, cur)
		cur, err = openDirAt(cur, name)
	}
	for i := len(fds) - 1; i >= 0; i-- {
		unix.Unlinkat(fds[i], "needle.txt", 0)
		unix.Unlinkat(fds[i], name, unix.AT_REMOVEDIR)
		unix.Close(fds[i])
	}
}

// TestAllow: the check is made on where the opened directory or file
// really is (a path through a symlink is checked as its target), and its
// error ends the search.
func TestAllow(t *testing.T) {
	dir, outside := sharedTree(t)
	m, err := Compile(Query{Pattern: "needle"})
	must(t, err)
	denied := errors.New("denied")
	var seen []string
	allow := func(real string) error {
		seen = append(seen, real)
		if strings.HasPrefix(real, outside) {
			return denied
		}
		return nil
	}
	realDir, err := filepath.EvalSymlinks(dir)
	must(t, err)
	if _, err := Grep(context.Background(), m, filepath.Join(dir, "sub", "loop"), GrepOptions{Allow: allow}); err != nil {
		t.Errorf("grep through a link in the tree: %v", err)
	}
	if len(seen) == 0 || seen[0] != realDir {
		t.Errorf("checked %q, want the link's target %q first", seen, realDir)
	}
	for name, call := range map[string]func() error{
		"grep dir": func() error {
			_, err := Grep(context.Background(), m, filepath.Join(dir, "outdir"), GrepOptions{Allow: allow})
			return err
		},
		"grep file": func() error {
			_, err := Grep(context.Background(), m, filepath.Join(dir, "out.txt"), GrepOptions{Allow: allow})
			return err
		},
		"find": func() error {
			_, err := Find(context.Background(), filepath.Join(dir, "outdir"), FindOptions{Allow: allow})
			return err
		},
		"ls": func() error {
			_, err := List(context.Background(), filepath.Join(dir, "outdir"), ListOptions{Allow: allow})
			return err
		},
	} {
		if err := call(); !errors.Is(err, denied) {
			t.Errorf("%s out of the tree: %v, want denied", name, err)
		}
	}
}

// TestGrepFileSizes: a file is read whole in one call when it is shorter
// than the first read, and in chunks after an fstat when it fills it; the
// size cap holds on both sides of that boundary.
func TestGrepFileSizes(t *testing.T) {
	m, err := Compile(Query{Pattern: "needle"})
	must(t, err)
	line := "needle\n"
	for _, tc := range []struct {
		size     int
		maxSize  int64
		tooLarge bool
	}{
		{size: 0},
		{size: len(line)},
		{size: headSize - 1},
		{size: headSize},
		{size: headSize + 1},
		{size: 3*headSize + 5},
		{size: 100, maxSize: 100},
		{size: 100, maxSize: 99, tooLarge: true},
		{size: headSize + 1, maxSize: headSize + 1},
		{size: headSize + 1, maxSize: headSize, tooLarge: true},
		{size: headSize, maxSize: headSize - 1, tooLarge: true},
	} {
		t.Run(strconv.Itoa(tc.size)+"/"+strconv.FormatInt(tc.maxSize, 10), func(t *testing.T) {
			dir := t.TempDir()
			body := []byte(strings.Repeat("x", max(0, tc.size)))
			want := 0
			if tc.size >= 2*len(line) { // a needle on the first line and the last
				copy(body, line)
				copy(body[len(body)-len(line):], line)
				want = 2
			} else if tc.size == len(line) {
				copy(body, line)
				want = 1
			}
			must(t, os.WriteFile(filepath.Join(dir, "f.txt"), body, 0o644))
			res, err := Grep(context.Background(), m, dir, GrepOptions{MaxFileSize: tc.maxSize})
			must(t, err)
			if tc.tooLarge {
				want = 0
			}
			if res.TotalMatches != want || (res.Skipped.TooLarge == 1) != tc.tooLarge {
				t.Errorf("matches %d, skipped %+v; want %d matches, too large %v", res.TotalMatches, res.Skipped, want, tc.tooLarge)
			}
			if want == 2 && res.Files[0].Matches[1].Line != 2 {
				t.Errorf("last needle on line %d, want 2", res.Files[0].Matches[1].Line)
			}
		})
	}
}

// TestGrepSharedJob: a directory of large files is one job, which the
// workers share (worker.share); the reply is in walk order all the same,
// with the limit cut where a one-worker search cuts it.
func TestGrepSharedJob(t *testing.T) {
	dir := t.TempDir()
	var want []string
	// 6 files (1.6 MB) in the quick run, 12 with TOOLD_LONG=1, and more
	// than there are workers (one a CPU) to claim them: each over shareSize.
	for i := range max(testenv.Size(6, 12), runtime.GOMAXPROCS(0)+1) {
		name := fmt.Sprintf("f%02d.txt", i)
		var b strings.Builder
		for b.Len() < shareSize+i*1000 {
			b.WriteString("padding line without it\n")
		}
		if i%3 != 2 { // some files match, some do not
			b.WriteString("the needle " + name + "\n")
			want = append(want, name+":"+name)
		}
		if i == 4 {
			b.WriteString(strings.Repeat("x", 2*headSize) + "\nneedle after a long line\n")
			want = append(want, name+":long")
		}
		must(t, os.WriteFile(filepath.Join(dir, name), []byte(b.String()), 0o644))
	}
	m, err := Compile(Query{Pattern: "needle"})
	must(t, err)
	// Each grep is made twice in the quick run (the workers claim the
	// files in another order each time), 5 times with TOOLD_LONG=1.
	for _, limit := range []int{0, 3} {
		for range testenv.Size(2, 5) {
			res, err := Grep(context.Background(), m, dir, GrepOptions{Limit: limit})
			must(t, err)
			var got []string
			for _, f := range res.Files {
				for _, mt := range f.Matches {
					what := strings.TrimPrefix(mt.Text, "the needle ")
					if strings.HasPrefix(mt.Text, "needle after") {
						what = "long"
					}
					got = append(got, f.Path+":"+what)
				}
			}
			w := want
			if limit > 0 {
				w = want[:limit]
			}
			if !reflect.DeepEqual(got, w) {
				t.Fatalf("limit %d: got %q, want %q", limit, got, w)
			}
		}
	}
}

// TestSearchSwapped: a name that was a regular file when its directory
// was read and is something else when it is opened is skipped, and a FIFO
// does not block.
func TestSearchSwapped(t *testing.T) {
	dir := t.TempDir()
	must(t, unix.Mkfifo(filepath.Join(dir, "fifo"), 0o644))
	must(t, os.Mkdir(filepath.Join(dir, "dir"), 0o755))
	fd, err := openDir(dir)
	must(t, err)
	h := newDirHandle(fd)
	defer h.release()
	m, err := Compile(Query{Pattern: "needle"})
	must(t, err)
	opt := &GrepOptions{}
	w := &worker{ctx: context.Background(), s: newScanner(m, opt)}
	for _, name := range []string{"fifo", "dir", "gone"} {
		if o := w.searchFile(h, &target{name: name}); o.skip != skipOther {
			t.Errorf("%s: %+v, want skipped", name, o)
		}
	}
}
