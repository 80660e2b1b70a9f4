package lifecycle

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/toold/toold/internal/testenv"
)

// TestReinitializeDuringReads re-initializes a session while twenty reads
// of it run. Under -race it shows that initialize swaps the settings rather
// than writing those the reads hold; each read sees the old settings or the
// new, whole. Rounds: 20 in the quick run, 40 with TOOLD_LONG=1; with
// initialize writing the settings in place, 60 runs of 20 rounds and 30
// of 40 all failed on the race (of 10 rounds, 22 runs of 30).
func TestReinitializeDuringReads(t *testing.T) {
	t.Parallel() // a daemon of its own
	d := newDaemon(t)
	ctx := context.Background()
	c, _ := connect(t, d)
	a, b := t.TempDir(), t.TempDir()
	for _, dir := range []string{a, b} {
		if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte("one\ntwo\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Call(ctx, "initialize", map[string]any{"cwd": a, "roots": []string{a}}, nil); err != nil {
		t.Fatal(err)
	}
	// A few rounds, the new settings alternating, so that the race has its
	// chance whatever the scheduling; an even number.
	for round := range testenv.Size(20, 40) {
		next := []string{b, a}[round%2] // the last round sets a
		var wg sync.WaitGroup
		errs := make(chan error, 21)
		for range 20 {
			wg.Go(func() {
				var w struct {
					Path string `json:"path"`
				}
				if err := c.Call(ctx, "read", map[string]any{"path": "f.txt", "limit": 1}, &w); err != nil {
					errs <- err
				} else if w.Path != filepath.Join(a, "f.txt") && w.Path != filepath.Join(b, "f.txt") {
					t.Errorf("read %s: neither settings' cwd", w.Path)
				}
			})
		}
		wg.Go(func() {
			if err := c.Call(ctx, "initialize", map[string]any{"cwd": next, "roots": []string{next},
				"limits": map[string]any{"read": map[string]any{"limit": 5}}}, nil); err != nil {
				errs <- err
			}
		})
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
	}
	var w struct {
		Path string `json:"path"`
	}
	if err := c.Call(ctx, "read", map[string]any{"path": "f.txt"}, &w); err != nil || w.Path != filepath.Join(a, "f.txt") {
		t.Fatalf("after re-initialize: %s %v", w.Path, err)
	}
}
