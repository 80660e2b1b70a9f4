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
