package methods

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/toold/toold/rpc"
)

// TestResolveLinks follows symlinks, dangling ones too, to where they lead.
func TestResolveLinks(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(base, "a", "b"), 0o755))
	must(os.WriteFile(filepath.Join(base, "a", "b", "f"), nil, 0o644))
	must(os.Symlink("b", filepath.Join(base, "a", "rel")))
	must(os.Symlink("/nowhere/deep", filepath.Join(base, "a", "abs")))
	must(os.Symlink("../../up/missing", filepath.Join(base, "a", "b", "dang")))
	must(os.Symlink("dang", filepath.Join(base, "a", "b", "chain")))
	must(os.Symlink("loop2", filepath.Join(base, "loop1")))
	must(os.Symlink("loop1", filepath.Join(base, "loop2")))
	tests := []struct {
		path, want string
		err        error
	}{
		{"a/b/f", "a/b/f", nil},
		{"a/rel/f", "a/b/f", nil},
		{"a/rel/../b/f", "a/b/f", nil}, // cleaned before: rel/.. is a
		{"a/missing/x", "a/missing/x", nil},
		{"a/abs", "/nowhere/deep", nil},
		{"a/abs/more", "/nowhere/deep/more", nil},
		{"a/b/dang", "up/missing", nil},
		{"a/b/chain", "up/missing", nil},
		{"a/b/f/x", "", syscall.ENOTDIR},
		{"loop1", "", syscall.ELOOP},
	}
	for _, tt := range tests {
		got, err := resolveLinks(filepath.Clean(filepath.Join(base, tt.path)))
		want := tt.want
		if want != "" && !filepath.IsAbs(want) {
			want = filepath.Join(base, want)
		}
		if tt.err != nil {
			if !errors.Is(err, tt.err) {
				t.Errorf("%s: %q, %v; want %v", tt.path, got, err, tt.err)
			}
			continue
		}
		if err != nil || got != want {
			t.Errorf("%s: %q, %v; want %q", tt.path, got, err, want)
		}
	}
}

// TestOpenBeneathRoot: a path resolve let through is opened beneath its
// root, so a directory swapped for a symlink since is refused with -32002.
func TestOpenBeneathRoot(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root, outside := filepath.Join(base, "root"), filepath.Join(base, "outside")
	os.MkdirAll(filepath.Join(root, "d"), 0o755)
	os.MkdirAll(outside, 0o755)
	os.WriteFile(filepath.Join(root, "d", "f"), []byte("in"), 0o644)
	os.WriteFile(filepath.Join(outside, "f"), []byte("SECRET"), 0o644)
	s := &Session{Cwd: root, Roots: []string{root}}
	real, err := s.resolve("path", "d/f")
	if err != nil {
		t.Fatal(err)
	}
	// The swap, between the check and the open.
	os.Rename(filepath.Join(root, "d"), filepath.Join(base, "d.old"))
	os.Symlink(outside, filepath.Join(root, "d"))
	f, err := s.open(real)
	var rerr *rpc.Error
	if !errors.As(err, &rerr) || rerr.Code != rpc.CodeAccessDenied {
		if f != nil {
			f.Close()
		}
		t.Fatalf("open after the swap: %v, want -32002", err)
	}
}
