package highlight

import "testing"

// TestShapeSet: a shape added is always "may"; of shapes not added, most
// are ruled out while the set is sparse (else it filters nothing).
func TestShapeSet(t *testing.T) {
	var s shapeSet
	h := uint64(fnvOffset)
	for i := range 4096 {
		h = (h ^ uint64(i)) * fnvPrime
		s.add(h)
		if !s.may(h) {
			t.Fatalf("%x added, not may", h)
		}
	}
	out := 0
	for i := range 10000 {
		h = (h ^ uint64(i)) * fnvPrime
		if !s.may(h) {
			out++
		}
	}
	if out < 8000 {
		t.Errorf("%d of 10000 shapes not added ruled out, want most", out)
	}
}
