package beneath

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/toold/toold/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

func TestDir(t *testing.T) {
	for _, tt := range []struct {
		path, dir string
		want      bool
	}{
		{"/a", "/a", true},
		{"/a/b", "/a", true},
		{"/a/b/c", "/a", true},
		{"/ab", "/a", false},
		{"/a", "/a/b", false},
		{"/", "/", true},
		{"/x", "/", true},
		{"/a/b", "/a/", true},
		{"/a/", "/a", true},
		{"/a/../b", "/a", false},
		{"/a/./b", "/a", true},
		{"/a//b", "/a", true},
		{"/b", "/a/..", true},
		{"/", "/a", false},
		{"/a/..b", "/a", true},
		{"/..b", "/", true},
		{"a/b", "a", true},
		{"ab", "a", false},
	} {
		if got := Dir(tt.path, tt.dir); got != tt.want {
			t.Errorf("Dir(%q, %q) = %v, want %v", tt.path, tt.dir, got, tt.want)
		}
		if _, ok := Rel(tt.path, tt.dir); ok != tt.want {
			t.Errorf("Rel(%q, %q) says %v, want %v", tt.path, tt.dir, ok, tt.want)
		}
	}
	if !Any("/c/d", []string{"/a", "/c"}) || Any("/cd", []string{"/a", "/c"}) || Any("/a", nil) {
		t.Error("Any")
	}
}

// FuzzDir holds Dir to filepath.Rel's verdict on absolute paths.
func FuzzDir(f *testing.F) {
	for _, s := range [][2]string{{"/a/b", "/a"}, {"/ab", "/a"}, {"/", "/"}, {"/a/..", "/"}, {"/a/../../b", "/b"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, path, dir string) {
		if !filepath.IsAbs(path) || !filepath.IsAbs(dir) {
			return
		}
		rel, err := filepath.Rel(dir, path)
		want := err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
		if got := Dir(path, dir); got != want {
			t.Errorf("Dir(%q, %q) = %v, filepath.Rel says %q", path, dir, got, rel)
		}
		if got, ok := Rel(path, dir); ok != want || ok && got != rel {
			t.Errorf("Rel(%q, %q) = %q, %v; filepath.Rel says %q", path, dir, got, ok, rel)
		}
	})
}

func TestRel(t *testing.T) {
	for _, tt := range []struct{ path, dir, want string }{
		{"/a", "/a", "."},
		{"/a/b/c", "/a", "b/c"},
		{"/a/..b", "/a", "..b"},
		{"/x", "/", "x"},
		{"src/x.go", "src", "x.go"},
	} {
		if got, ok := Rel(tt.path, tt.dir); !ok || got != tt.want {
			t.Errorf("Rel(%q, %q) = %q, %v; want %q", tt.path, tt.dir, got, ok, tt.want)
		}
	}
}
