package methods

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/toold/toold/protocol"
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

// TestOpenAfterSwap: a path resolve let through is opened beneath its root
// as initialize found it, so a swap between the check and the open (a
// directory under the root, or the root itself, replaced by a symlink to
// outside) is refused with -32002, not followed.
func TestOpenAfterSwap(t *testing.T) {
	tests := []struct {
		name, path string
		swap       func(base, root, outside string)
	}{
		{"directory under the root", "d/f", func(base, root, outside string) {
			os.Rename(filepath.Join(root, "d"), filepath.Join(base, "d.old"))
			os.Symlink(outside, filepath.Join(root, "d"))
		}},
		{"the root itself", "f", func(base, root, outside string) {
			os.Rename(root, root+".old")
			os.Symlink(outside, root)
		}},
	}
	for _, tt := range tests {
		base, err := filepath.EvalSymlinks(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		root, outside := filepath.Join(base, "root"), filepath.Join(base, "outside")
		for dir, content := range map[string]string{root: "in", outside: "SECRET"} {
			os.MkdirAll(filepath.Join(dir, "d"), 0o755)
			os.WriteFile(filepath.Join(dir, "f"), []byte(content), 0o644)
			os.WriteFile(filepath.Join(dir, "d", "f"), []byte(content), 0o644)
		}
		roots, err := ResolveRoots(root, []string{root})
		if err != nil {
			t.Fatal(err)
		}
		s := &Session{Settings: &Settings{Cwd: root, Roots: roots}}
		real, err := s.resolve("path", tt.path)
		if err != nil {
			t.Fatal(err)
		}
		tt.swap(base, root, outside)
		f, err := s.open(real)
		var rerr *rpc.Error
		if !errors.As(err, &rerr) || rerr.Code != protocol.CodeAccessDenied {
			if f != nil {
				f.Close()
			}
			t.Errorf("%s: open after the swap: %v, want -32002", tt.name, err)
		}
	}
}

// FuzzResolveLinks resolves random paths through a tree of symlinks (to
// dirs, files, missing names, parents, /): wherever filepath.EvalSymlinks
// succeeds, resolveLinks agrees with it; and it never leaves a symlink in
// what it returns.
func FuzzResolveLinks(f *testing.F) {
	for _, seed := range []string{"a/b/f", "la/b", "lp/lp/x", "missing/../a", "dang", "ldir/../f", "lslash/tmp", "a/./b/../b"} {
		f.Add(seed)
	}
	base, err := filepath.EvalSymlinks(f.TempDir())
	if err != nil {
		f.Fatal(err)
	}
	os.MkdirAll(filepath.Join(base, "a", "b"), 0o755)
	os.WriteFile(filepath.Join(base, "a", "b", "f"), nil, 0o644)
	os.WriteFile(filepath.Join(base, "f"), nil, 0o644)
	for link, target := range map[string]string{"la": "a", "lp": "..", "dang": "nowhere/x", "ldir": "a/b",
		"lslash": "/", "a/b/up": "../..", "a/lf": "b/f", "loop": "loop"} {
		os.Symlink(target, filepath.Join(base, link))
	}
	f.Fuzz(func(t *testing.T, rel string) {
		if strings.IndexByte(rel, 0) >= 0 || len(rel) > 200 {
			return
		}
		path := filepath.Clean(filepath.Join(base, rel))
		got, err := resolveLinks(path)
		want, werr := filepath.EvalSymlinks(path)
		if werr == nil && (err != nil || got != want) {
			t.Fatalf("%q: resolveLinks %q, %v; EvalSymlinks %q", rel, got, err, want)
		}
		if err != nil {
			return
		}
		for p := got; p != "/"; p = filepath.Dir(p) {
			if fi, err := os.Lstat(p); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
				t.Fatalf("%q resolved to %q, which holds the symlink %q", rel, got, p)
			}
		}
	})
}
