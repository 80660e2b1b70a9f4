package index

import (
	"os"
	"path/filepath"
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
