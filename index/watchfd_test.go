package index

import (
	"testing"
	"time"

	"github.com/toold/toold/internal/testenv"
	"github.com/toold/toold/internal/watchcost"
)

// TestIndexWatchBudget: where a watch holds a descriptor per entry
// (kqueue: macOS, FreeBSD; -tags toold_portable here), a tree whose
// watches do not fit the process's budget of descriptors scans, as past
// inotify's limit, and gives back what it was charged when it goes; one
// that fits is indexed and charged its directories and entries.
func TestIndexWatchBudget(t *testing.T) {
	if !watchcost.PerEntry {
		t.Skip("inotify: a watch holds no descriptor of its own (run with -tags toold_portable)")
	}
	dir := genTree(t, 60, 9)
	cases := []struct {
		name   string
		budget int
		want   string
	}{
		{"fits", 1 << 20, StateReady},
		{"does not fit", 20, StateScanning},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			defer watchcost.SetBudget(c.budget)()
			before := watchcost.Used()
			m := newManager(t, Options{Logger: quiet()})
			m.Candidates(dir, nil, "")
			s := waitState(t, m, dir, c.want)
			charged := watchcost.Used() - before
			switch {
			case c.want == StateScanning && s.Reason != errWatchLimit.Error():
				t.Errorf("reason %q, want %q", s.Reason, errWatchLimit)
			case charged > c.budget:
				t.Errorf("charged %d descriptors, past the budget of %d", charged, c.budget)
			case c.want == StateReady && charged < 60:
				t.Errorf("charged %d descriptors for a tree of 60 files", charged)
			}
			m.Close()
			if !testenv.Until(5*time.Second, func() bool { return watchcost.Used() == before }) {
				t.Fatalf("after Close %d descriptors are still charged, %d before", watchcost.Used(), before)
			}
		})
	}
}
