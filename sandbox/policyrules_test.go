package sandbox

import (
	"os"
	"slices"
	"testing"
)

// TestLooser: a policy is looser than its bound by mode, network, a
// writable or readable dir outside the bound's, or a protection the bound
// enforced and it does not; as strict or stricter is "".
func TestLooser(t *testing.T) {
	ws := &Policy{Mode: ModeWorkspaceWrite, Writable: []string{"/w"}}
	ro := &Policy{Mode: ModeReadOnly, Readable: []string{"/r"}}
	for _, tc := range []struct {
		name     string
		p, bound *Policy
		want     string
	}{
		{"no bound", nil, nil, ""},
		{"off under a bound", nil, ws, "mode off"},
		{"same", ws, ws, ""},
		{"read-only under workspace-write", &Policy{Mode: ModeReadOnly}, ws, ""},
		{"workspace-write under read-only", ws, &Policy{Mode: ModeReadOnly}, "mode workspace-write"},
		{"network", &Policy{Mode: ModeWorkspaceWrite, Network: true}, ws, "network true"},
		{"a dir beneath", &Policy{Mode: ModeWorkspaceWrite, Writable: []string{"/w/sub"}}, ws, ""},
		{"a dir beside", &Policy{Mode: ModeWorkspaceWrite, Writable: []string{"/wx"}}, ws, "writes beneath /wx"},
		{"reads everywhere", &Policy{Mode: ModeReadOnly}, ro, "reads everywhere"},
		{"reads beside", &Policy{Mode: ModeReadOnly, Readable: []string{"/s"}}, ro, "reads beneath /s"},
		{"reads beneath", &Policy{Mode: ModeReadOnly, Readable: []string{"/r/x"}}, ro, ""},
		{"best effort", &Policy{Mode: ModeReadOnly, Plan: Plan{Unenforced: []string{"x"}}}, &Policy{Mode: ModeReadOnly}, "bestEffort without x"},
	} {
		if got := Looser(tc.p, tc.bound); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestNewPolicy: workspace-write writes beneath the roots and the extra
// dirs (Extra holds the client's alone); read-only with roots reads
// beneath them and the system dirs, and everywhere without.
func TestNewPolicy(t *testing.T) {
	root, extra := t.TempDir(), t.TempDir()
	dir := func(p string) Dir {
		real, id, err := Resolve(p)
		if err != nil {
			t.Fatal(err)
		}
		return Dir{real, id}
	}
	r, x := dir(root), dir(extra)
	ws := NewPolicy(ModeWorkspaceWrite, true, []Dir{r}, []Dir{x})
	if !slices.Equal(ws.Writable, Dedup([]string{r.Path, x.Path})) || !slices.Equal(ws.Extra, []string{x.Path}) ||
		ws.Readable != nil || !ws.Network || ws.IDs[r.Path] != r.ID || ws.IDs[x.Path] != x.ID {
		t.Errorf("workspace-write: %+v", ws)
	}
	ro := NewPolicy(ModeReadOnly, false, []Dir{r}, nil)
	if ro.Writable != nil || !slices.Contains(ro.Readable, r.Path) {
		t.Errorf("read-only with roots: %+v", ro)
	}
	for _, d := range ro.Readable {
		if d != r.Path && !slices.Contains(SystemDirs, d) {
			t.Errorf("read-only reads beneath %s", d)
		}
	}
	if p := NewPolicy(ModeReadOnly, false, nil, nil); p.Readable != nil {
		t.Errorf("read-only without roots reads only %v", p.Readable)
	}
	// StillSame keeps the extra dirs that are what was resolved.
	if got := ws.StillSame(); len(got) != 1 || got[0] != x {
		t.Errorf("StillSame: %v", got)
	}
	// Another directory by that name (the old one kept, so its inode is
	// not reused).
	if err := os.Rename(extra, extra+".old"); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(extra, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := ws.StillSame(); len(got) != 0 {
		t.Errorf("StillSame after the dir was replaced: %v", got)
	}
}
