package fileindex

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/toold/toold/internal/testenv"
	"github.com/toold/toold/internal/watchcost"
)

// TestWatchBudget: where a watch holds a descriptor per entry (kqueue:
// macOS, FreeBSD; -tags toold_portable here), a directory whose watch
// does not fit the process's budget is not watched, its files still
// served and checked by stat (a file rewritten is read again); what was
// charged is given back as the entries go and at Close.
func TestWatchBudget(t *testing.T) {
	if !watchcost.PerEntry {
		t.Skip("inotify: a watch holds no descriptor of its own (run with -tags toold_portable)")
	}
	small, big := t.TempDir(), t.TempDir()
	testenv.WriteFile(t, filepath.Join(small, "f"), []byte("one\n"))
	for i := range 30 {
		testenv.WriteFile(t, filepath.Join(big, fmt.Sprint(i)), []byte("line\n"))
	}
	before := watchcost.Used()
	defer watchcost.SetBudget(before + watchcost.Of(small) + 5)()
	c := newCache(t, Options{})
	open(t, c, filepath.Join(small, "f"))
	bigFile := filepath.Join(big, "0")
	if f := open(t, c, bigFile); f.Lines() != 1 {
		t.Fatalf("%s: %d lines", bigFile, f.Lines())
	}
	if got := c.watcher.WatchList(); !slices.Equal(got, []string{small}) {
		t.Fatalf("watching %v, want [%s] alone", got, small)
	}
	if used := watchcost.Used() - before; used != watchcost.Of(small) {
		t.Errorf("charged %d descriptors, want %d", used, watchcost.Of(small))
	}
	// Not watched, yet not served stale: the stat checks see the change.
	testenv.WriteFile(t, bigFile, []byte("line\nline\nand more\n"))
	if f := open(t, c, bigFile); f.Lines() != 3 {
		t.Errorf("%s rewritten: %d lines, want 3", bigFile, f.Lines())
	}
	c.Invalidate(filepath.Join(small, "f"))
	if used := watchcost.Used() - before; used != 0 {
		t.Errorf("%d descriptors charged with no directory watched", used)
	}
	open(t, c, filepath.Join(small, "f"))
	c.Close()
	if used := watchcost.Used() - before; used != 0 {
		t.Errorf("%d descriptors charged after Close", used)
	}
}
