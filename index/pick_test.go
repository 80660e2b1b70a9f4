package index

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toold/toold/search"
)

// TestLinkTarget: a symlinked file stands for its target only when the
// link leads there in one hop inside the tree.
func TestLinkTarget(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(dir, "a/b"), 0o755))
	must(os.WriteFile(filepath.Join(dir, "a/b/f.c"), []byte("x\n"), 0o644))
	for link, to := range map[string]string{
		"one.c": "a/b/f.c", "up.c": "a/../a/b/f.c", "d": "a/b", "via.c": "d/f.c", "back.c": "d/../b/f.c", "a/b/upup.c": "../../a/b/f.c",
		"out.c": "/etc/passwd", "none.c": "a/missing.c", "a/b/self.c": "f.c", "abs.c": filepath.Join(dir, "a/b/f.c"),
	} {
		must(os.Symlink(to, filepath.Join(dir, link)))
	}
	tests := []struct {
		link, want string
		dir        bool
	}{
		{"one.c", "a/b/f.c", false}, {"a/b/self.c", "a/b/f.c", false}, {"a/b/upup.c", "a/b/f.c", false},
		// Not clean: a name on the way (a, d) that is not on the target's
		// path could later lead elsewhere with no event beneath the target.
		{"up.c", "", false}, {"back.c", "", false},
		{"abs.c", "a/b/f.c", false}, {"d", "a/b", true},
		{"via.c", "", false}, // through the link d: another hop
		{"out.c", "", false}, {"none.c", "", false},
	}
	for _, tt := range tests {
		got, isDir := linkTarget(dir, tt.link)
		if got != tt.want || isDir != tt.dir {
			t.Errorf("linkTarget(%s) = %q, %v; want %q, %v", tt.link, got, isDir, tt.want, tt.dir)
		}
	}
}

// TestPlanCacheForgets: a query's pick, kept for its repeats, is
// dropped when a file changes: the repeat after an append in place
// finds the new line; a text file rewritten in place as binary is
// judged again (the index knew it as text).
func TestPlanCacheForgets(t *testing.T) {
	t.Parallel()
	dir := genTree(t, 40, 11)
	m := newManager(t, Options{Logger: quiet()})
	m.Candidates(dir, nil, "")
	waitState(t, m, dir, StateReady)
	for i := range 3 {
		tok := "zqcached" + string(rune('a'+i))
		want := []string(nil)
		for range 2 { // the second asks the cache
			if got := hitsOf(t, m, dir, tok, nil); strings.Join(got, "|") != strings.Join(want, "|") {
				t.Fatalf("round %d: grep %s found %q, want %q", i, tok, got, want)
			}
		}
		sh(t, dir, "printf '"+tok+"\\n' >> d1/e1/f001.c")
		want = []string{"d1/e1/f001.c"}
		for range 2 {
			if got := hitsOf(t, m, dir, tok, nil); strings.Join(got, "|") != strings.Join(want, "|") {
				t.Fatalf("round %d after the append: grep %s found %q, want %q", i, tok, got, want)
			}
		}
	}
	hitsOf(t, m, dir, "zqctl", nil) // none, kept
	sh(t, dir, "{ printf 'zqctl\\n'; head -c 3000 /dev/zero | tr '\\0' '\\1'; } > d2/e2/f002.c")
	if got := hitsOf(t, m, dir, "zqctl", nil); len(got) != 0 { // binary now: skipped, as a scan has it
		t.Fatalf("a binary file's match shown: %q", got)
	}
}

// TestPlanKeyUnambiguous: two queries that print alike (String shows a
// trigram's bytes, spaces and parentheses among them) keep plans apart: the
// second grep is not answered with the first one's candidates.
func TestPlanKeyUnambiguous(t *testing.T) {
	t.Parallel()
	a, b := QueryFor(`abc.*or\(.*xy .*zz\)`, false, false), QueryFor(`abc.*( xy| zz)`, false, false)
	if a.String() != b.String() || a.key() == b.key() {
		t.Fatalf("String %q and %q, key %q and %q: want the same String, different keys", a, b, a.key(), b.key())
	}
	dir := genTree(t, 30, 5)
	if err := os.WriteFile(filepath.Join(dir, "hit.txt"), []byte("abc zz\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := newManager(t, Options{Logger: quiet()})
	m.Candidates(dir, nil, "")
	waitState(t, m, dir, StateReady)
	m.Plan(dir, a, "", false) // keeps a's plan
	p := m.Plan(dir, b, "", false)
	mt, err := search.Compile(search.Query{Pattern: `abc.*( xy| zz)`})
	if err != nil || p.Listing == nil {
		t.Fatalf("compile: %v; listing %v", err, p.Listing != nil)
	}
	res, err := search.GrepListing(context.Background(), mt, dir, p.Listing, p.Pick, p.Parts, search.GrepOptions{Text: p.Text})
	if err != nil || len(res.Files) != 1 || res.Files[0].Path != "hit.txt" {
		t.Fatalf("through b's plan: %+v, %v; want hit.txt", res, err)
	}
}

// TestRenamedOverByLink: a listed file renamed over by a symlink to another
// file of the tree (and back) is searched as a scan searches it: the
// listing, which opens a file as the kind it was, is walked again.
func TestRenamedOverByLink(t *testing.T) {
	t.Parallel()
	dir := genTree(t, 30, 9)
	write := func(rel, body string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, rel), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.c", "alpha\n")
	write("b.c", "zqbeta\n")
	m := newManager(t, Options{Logger: quiet()})
	m.Candidates(dir, nil, "")
	waitState(t, m, dir, StateReady)
	q := search.Query{Pattern: "zqbeta", Literal: true}
	grepBoth(t, m, dir, q, search.GrepOptions{})
	if err := os.Symlink("b.c", filepath.Join(dir, ".t")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(dir, ".t"), filepath.Join(dir, "a.c")); err != nil {
		t.Fatal(err)
	}
	grepBoth(t, m, dir, q, search.GrepOptions{})
	write(".u", "zqbeta again\n")
	if err := os.Rename(filepath.Join(dir, ".u"), filepath.Join(dir, "a.c")); err != nil {
		t.Fatal(err)
	}
	grepBoth(t, m, dir, q, search.GrepOptions{})
}
