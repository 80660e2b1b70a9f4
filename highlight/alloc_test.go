package highlight

import (
	"bytes"
	"testing"

	"github.com/toold/toold/internal/testenv"
)

// TestDetectAllocs: on an error-dense log, where a hit opens a group every
// few lines and nearly every group is pushed out of those kept, a group
// costs no allocation: its lines are made strings only if it is kept to
// the end, and the memory of those pushed out is used again (Group.text,
// Detector.free). What a log of more lines allocates more is counted
// (512 KiB against 256 KiB in the quick run, 1 MiB with TOOLD_LONG=1; at
// 128 KiB the tables are still filling): the tables' and the groups kept
// fill on the first lines, and what is left must not grow with the lines
// (at most one in 64).
func TestDetectAllocs(t *testing.T) {
	tests := []struct {
		name string
		gen  func(size int) []byte
	}{
		{"genlog -every 6", errorLog},
		{"genlog -style kv", kvLog},
	}
	Rules() // compiled once, not counted
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			small, big := tc.gen(256<<10), tc.gen(testenv.Size(512<<10, 1<<20))
			allocs := func(out []byte) float64 {
				return testing.AllocsPerRun(1, func() {
					if r := feed(out); r.Found == 0 {
						t.Fatal("no group found")
					}
				})
			}
			more, lines := allocs(big)-allocs(small), bytes.Count(big, nl)-bytes.Count(small, nl)
			t.Logf("%.0f allocations more for %d lines more", more, lines)
			if more > float64(lines)/64 {
				t.Errorf("%.0f allocations more for %d lines more: more than a line in 64", more, lines)
			}
		})
	}
}
