package index

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/toold/toold/internal/testenv"
)

// TestIndexFreshDotDotName: an edit of a file whose name starts with ".."
// (..notes) is seen like any other: the tree's events are judged by
// internal/beneath, and a relative path that starts with ".." is not
// therefore outside the tree (the index dropped such events, and greps
// missed what was written to the file).
func TestIndexFreshDotDotName(t *testing.T) {
	t.Parallel()
	dir := genTree(t, 10, 7)
	name := filepath.Join(dir, "..notes")
	if err := os.WriteFile(name, []byte("nothing yet\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := newManager(t, Options{Logger: quiet()})
	m.Candidates(dir, nil, "")
	waitState(t, m, dir, StateReady)
	f, err := os.OpenFile(name, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("qzxjvkword\n")
	f.Close()
	var got []string
	if !testenv.Until(5*time.Second, func() bool {
		got = hitsOf(t, m, dir, "qzxjvkword", nil)
		return slices.Equal(got, []string{"..notes"})
	}) {
		t.Fatalf("grep after the edit found %q, want ..notes", got)
	}
}
