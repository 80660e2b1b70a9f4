package index

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLinkTarget: a symlinked file stands for its target only when the
// link leads there in one hop inside the tree.
func TestLinkTarget(t *testing.T) {
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
		"one.c": "a/b/f.c", "up.c": "a/../a/b/f.c", "d": "a/b", "via.c": "d/f.c",
		"out.c": "/etc/passwd", "none.c": "a/missing.c", "a/b/self.c": "f.c", "abs.c": filepath.Join(dir, "a/b/f.c"),
	} {
		must(os.Symlink(to, filepath.Join(dir, link)))
	}
	tests := []struct {
		link, want string
		dir        bool
	}{
		{"one.c", "a/b/f.c", false}, {"up.c", "a/b/f.c", false}, {"a/b/self.c", "a/b/f.c", false},
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
	dir := genTree(t, 40, 11)
	m := newManager(t, Options{Logger: quiet()})
	m.Candidates(dir, nil, "")
	waitState(t, m, dir, StateReady)
	for i := range 3 {
		tok := "zqcached" + string(rune('a'+i))
		want := []string(nil)
		for range 2 { // the second asks the cache
			if got := hitsOf(t, m, dir, tok); strings.Join(got, "|") != strings.Join(want, "|") {
				t.Fatalf("round %d: grep %s found %q, want %q", i, tok, got, want)
			}
		}
		sh(t, dir, "printf '"+tok+"\\n' >> d1/e1/f001.c")
		want = []string{"d1/e1/f001.c"}
		for range 2 {
			if got := hitsOf(t, m, dir, tok); strings.Join(got, "|") != strings.Join(want, "|") {
				t.Fatalf("round %d after the append: grep %s found %q, want %q", i, tok, got, want)
			}
		}
	}
	hitsOf(t, m, dir, "zqctl") // none, kept
	sh(t, dir, "{ printf 'zqctl\\n'; head -c 3000 /dev/zero | tr '\\0' '\\1'; } > d2/e2/f002.c")
	if got := hitsOf(t, m, dir, "zqctl"); len(got) != 0 { // binary now: skipped, as a scan has it
		t.Fatalf("a binary file's match shown: %q", got)
	}
}
