package seen

import (
	"reflect"
	"testing"
)

func TestAlignWindow(t *testing.T) {
	h := func(s string) []uint64 {
		out := make([]uint64, len(s))
		for i, c := range s {
			out[i] = uint64(c)
		}
		return out
	}
	nums := func(from, n int) []int64 {
		out := make([]int64, n)
		for i := range out {
			out[i] = int64(from + i)
		}
		return out
	}
	tests := []struct {
		old, nw   string
		oldFrom   int
		start     int64
		changed   [][2]int64
		unchanged bool
	}{
		{"abcdef", "abcdef", 1, 1, nil, true},
		{"abcdef", "abXdef", 1, 1, [][2]int64{{3, 3}}, false},
		{"abcdef", "XYabcd", 1, 1, [][2]int64{{1, 2}}, false},
		{"aaaaaa", "aaaaaa", 1, 1, nil, true},
		{"abcabc", "abcXabc", 1, 1, [][2]int64{{4, 4}}, false},
		{"abcdef", "cdef", 1, 3, nil, true},
		{"", "ab", 1, 1, nil, false}, // never read: not changed
		{"abcdef", "abcdefgh", 1, 1, nil, false},
		{"abcdef", "XYZabc", 4, 1, nil, false}, // read 4-9; 1-3 never read
	}
	for _, tt := range tests {
		from, to := int64(tt.oldFrom), int64(tt.oldFrom+len(tt.old)-1)
		seen := func(n int64) bool { return n >= from && n <= to }
		r := align(h(tt.old), nums(tt.oldFrom, len(tt.old)), h(tt.nw), tt.start, seen)
		if !reflect.DeepEqual(r.Changed, tt.changed) || r.Unchanged != tt.unchanged {
			t.Errorf("%q -> %q at %d: changed %v unchanged %v, want %v %v", tt.old, tt.nw, tt.start, r.Changed, r.Unchanged, tt.changed, tt.unchanged)
		}
	}
}

// FuzzAlignWindow: whatever the old and new lines, the changed ranges lie in
// the window, rise and do not touch; a window equal to what was seen at the
// same numbers is unchanged, and every line not matched is in a range.
func FuzzAlignWindow(f *testing.F) {
	f.Add([]byte("abcdef"), []byte("abXdef"), uint8(1))
	f.Add([]byte("aaaa"), []byte("aaaaa"), uint8(3))
	f.Fuzz(func(t *testing.T, old, nw []byte, start uint8) {
		oh, nh := make([]uint64, len(old)), make([]uint64, len(nw))
		nums := make([]int64, len(old))
		for i, c := range old {
			oh[i], nums[i] = uint64(c%8), int64(start)+int64(i)
		}
		for i, c := range nw {
			nh[i] = uint64(c % 8)
		}
		seen := func(n int64) bool { return n >= int64(start) && n < int64(start)+int64(len(old)) }
		r := align(oh, nums, nh, int64(start), seen)
		from, to := int64(start), int64(start)+int64(len(nw))-1
		var n int64
		for i, c := range r.Changed {
			if c[0] < from || c[1] > to || c[0] > c[1] || i > 0 && c[0] <= r.Changed[i-1][1]+1 {
				t.Fatalf("ranges %v in %d-%d", r.Changed, from, to)
			}
			n += c[1] - c[0] + 1
		}
		for _, c := range r.Unseen {
			if c[0] < from || c[1] > to {
				t.Fatalf("unseen %v in %d-%d", r.Unseen, from, to)
			}
		}
		if r.Unchanged && (n > 0 || len(r.Unseen) > 0) {
			t.Fatalf("unchanged with changes %v", r.Changed)
		}
		if reflect.DeepEqual(oh, nh) && !r.Unchanged {
			t.Fatalf("equal lines at equal numbers: changed %v moved %v", r.Changed, r.Moved)
		}
	})
}
