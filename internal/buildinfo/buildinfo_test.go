package buildinfo

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestSocketPath(t *testing.T) {
	a := Info{Version: "v1.2.3", Revision: "abc"}
	b := Info{Version: "v1.2.4", Revision: "abc"}
	dir := "/run/user/1000/toold-1000"
	pa, pb := a.SocketPath(dir), b.SocketPath(dir)
	if pa == pb || !strings.HasPrefix(filepath.Base(pa), "toold-v1.2.3-") || filepath.Dir(pa) != dir {
		t.Errorf("sockets %s and %s", pa, pb)
	}
	if a.SocketPath(dir) != pa {
		t.Error("not stable")
	}
	long := "/" + strings.Repeat("d", 75) // the name with the version would pass the limit; without it fits
	if p := a.SocketPath(long); len(p) > maxSocketPath || strings.Contains(p, "v1.2.3") {
		t.Errorf("long dir: %s (%d bytes)", p, len(p))
	}
	odd := Info{Version: "v0.0.0-2026+dirty/x y"}
	if n := filepath.Base(odd.SocketPath(dir)); strings.ContainsAny(n, "+/ ") {
		t.Errorf("name %q", n)
	}
}

func TestRead(t *testing.T) {
	i := Read()
	if i.Version == "" || i.GoVersion == "" || !strings.HasPrefix(i.String(), "toold "+i.Version) || !strings.HasPrefix(i.Long(), "toold "+i.Version+"\n") {
		t.Errorf("%+v %q", i, i.String())
	}
	Override = "v9"
	defer func() { Override = "" }()
	if Read().Version != "v9" {
		t.Error("Override")
	}
}

// Long explains a devel build without a revision: built without VCS
// information, and how to get one that records it.
func TestLongDevel(t *testing.T) {
	for _, tc := range []struct {
		info Info
		want string
	}{
		{Info{Version: "devel", GoVersion: "go1.26"}, "  revision  unknown: built without VCS information (-buildvcs=false, in GOFLAGS too, or not in a git checkout); go install ./cmd/toold in a clone records it\n"},
		{Info{Version: "devel", Revision: "0123456789abcdef", Modified: true}, "  revision  0123456789abcdef (modified)\n"},
		{Info{Version: "v1.2.3"}, "toold v1.2.3\n"},
	} {
		if got := tc.info.Long(); !strings.Contains(got, tc.want) {
			t.Errorf("%+v: %q, want %q in it", tc.info, got, tc.want)
		}
	}
	if got := (Info{Version: "v1.2.3"}).Long(); strings.Contains(got, "revision") {
		t.Errorf("a module version needs no revision: %q", got)
	}
}
