package spool

import (
	"os"
	"path/filepath"
	"testing"
)

// TestUserTempDirIn: macOS's per-user temporary directory is found in a
// tree laid out as /var/folders is, only when exactly one T there is
// ours, a real directory and private.
func TestUserTempDirIn(t *testing.T) {
	uid := os.Geteuid()
	other := 65534 // another user: nobody, or daemon when we are nobody
	if uid == other {
		other = 1
	}
	// dir makes base/<bucket>/<id>/T with perm, owned by owner.
	dir := func(t *testing.T, base, bucket, id string, perm os.FileMode, owner int) string {
		p := filepath.Join(base, bucket, id, "T")
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, perm); err != nil {
			t.Fatal(err)
		}
		if owner != uid {
			if err := os.Lchown(p, owner, owner); err != nil {
				t.Skipf("chown to %d: %v (needs root)", owner, err)
			}
		}
		return p
	}
	cases := []struct {
		name string
		make func(t *testing.T, base string) string // returns the wanted dir
	}{
		{"ours", func(t *testing.T, base string) string {
			return dir(t, base, "x7", "kx8m_2y53gj1n8s1jv3j4rk80000gn", 0o700, uid)
		}},
		{"ours beside a system user's", func(t *testing.T, base string) string {
			want := dir(t, base, "x7", "kx8m_2y53gj1n8s1jv3j4rk80000gn", 0o700, uid)
			dir(t, base, "zz", "zyxvpxvq6csfxvn_n0000000000000", 0o700, other)
			return want
		}},
		{"none", func(t *testing.T, base string) string { return "" }},
		{"not private", func(t *testing.T, base string) string {
			dir(t, base, "x7", "kx8m_2y53gj1n8s1jv3j4rk80000gn", 0o755, uid)
			return ""
		}},
		{"another user's", func(t *testing.T, base string) string {
			dir(t, base, "x7", "kx8m_2y53gj1n8s1jv3j4rk80000gn", 0o700, other)
			return ""
		}},
		{"a symlink", func(t *testing.T, base string) string {
			real := dir(t, base, "x7", "kx8m_2y53gj1n8s1jv3j4rk80000gn", 0o700, uid)
			link := filepath.Join(base, "ab", "cd", "T")
			os.MkdirAll(filepath.Dir(link), 0o755)
			if err := os.Symlink(real, link); err != nil {
				t.Fatal(err)
			}
			return real // the link is not a second one
		}},
		{"two", func(t *testing.T, base string) string {
			dir(t, base, "x7", "kx8m_2y53gj1n8s1jv3j4rk80000gn", 0o700, uid)
			dir(t, base, "pd", "l3jkqy0s6_59p4vhlbx3__dr0000gp", 0o700, uid)
			return ""
		}},
		{"too deep", func(t *testing.T, base string) string {
			dir(t, base, "x7", "kx8m/deeper", 0o700, uid)
			return ""
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			base := t.TempDir()
			want := c.make(t, base)
			if got := userTempDirIn(base, uid); got != want {
				t.Fatalf("userTempDirIn = %q, want %q", got, want)
			}
		})
	}
}
