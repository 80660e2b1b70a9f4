package watchcost

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/toold/toold/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// TestOf: a watch costs nothing of ours with inotify; with kqueue one
// descriptor for the directory and one per entry, subdirectories too.
func TestOf(t *testing.T) {
	dir := t.TempDir()
	files := testenv.Size(250, 2500) // long: more than one Readdirnames batch
	for i := range files {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprint(i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	n := files + 1
	want := map[bool]int{false: 0, true: 1 + n}[PerEntry]
	if got := Of(dir); got != want {
		t.Errorf("Of(dir of %d entries) = %d, want %d (PerEntry %v)", n, got, want, PerEntry)
	}
	if PerEntry && Of(filepath.Join(dir, "missing")) != 1 {
		t.Errorf("Of(a missing dir) = %d, want 1", Of(filepath.Join(dir, "missing")))
	}
}

// TestBudget: what does not fit is refused whole, what is given back
// fits again.
func TestBudget(t *testing.T) {
	defer SetBudget(Used() + 10)()
	steps := []struct {
		take, give int
		ok         bool
	}{
		{take: 6, ok: true},
		{take: 5, ok: false},
		{take: 4, ok: true},
		{take: 1, ok: false},
		{give: 6},
		{take: 0, ok: true},
		{take: 6, ok: true},
		{give: 10},
	}
	base := Used()
	for i, s := range steps {
		if s.give > 0 {
			Give(s.give)
			continue
		}
		if ok := Take(s.take); ok != s.ok {
			t.Fatalf("step %d: Take(%d) = %v with %d used of %d", i, s.take, ok, Used()-base, 10)
		}
	}
	if Used() != base {
		t.Errorf("%d left charged", Used()-base)
	}
}

// TestDefaultBudget: a quarter of the descriptors the process may open.
func TestDefaultBudget(t *testing.T) {
	if b := defaultBudget(); b < 64 {
		t.Errorf("defaultBudget() = %d", b)
	}
}
