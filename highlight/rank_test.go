package highlight

import (
	"bytes"
	"fmt"
	"reflect"
	"testing"
)

func TestRank(t *testing.T) {
	g := func(sev Severity, repeat bool) Group { return Group{Severity: sev, Repeat: repeat} }
	e, er, w, wr := g(Error, false), g(Error, true), g(Warning, false), g(Warning, true)
	for _, tc := range []struct {
		gs   []Group
		want []int
	}{
		{nil, []int{}},
		{[]Group{w}, []int{0}},
		// Errors first, then the last error, then distinct before repeats.
		{[]Group{w, wr, e, er, er, e, wr, w}, []int{2, 5, 3, 4, 0, 7, 1, 6}},
		{[]Group{er, e, er}, []int{0, 2, 1}},
		{[]Group{w, wr, wr, wr}, []int{0, 3, 1, 2}},
	} {
		if got := Rank(tc.gs); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Rank(%v) = %v, want %v", tc.gs, got, tc.want)
		}
	}
}

// TestBounded: an output made only of error lines keeps the detector's
// memory bounded: MaxGroups groups of at most MaxGroupLines lines, lines cut
// at MaxLineBytes; the first and the last group kept, every group counted.
func TestBounded(t *testing.T) {
	opt := Options{MaxGroups: 8, MaxGroupLines: 10, MaxLineBytes: 64}
	d := New(opt)
	var block bytes.Buffer
	n := int64(1)
	const lines = 200_000
	for i := range lines {
		fmt.Fprintf(&block, "2026-11-22 02:00:%02d ERROR request %d failed: %s\n", i%60, i, bytes.Repeat([]byte("x"), i%200))
		if block.Len() > 64<<10 || i == lines-1 {
			n += d.Block(n, block.Bytes())
			block.Reset()
		}
	}
	r := d.Finish()
	if len(r.Groups) > opt.MaxGroups {
		t.Fatalf("%d groups kept", len(r.Groups))
	}
	if r.Found != lines/opt.MaxGroupLines || r.Errors != r.Found {
		t.Fatalf("found %d (%d errors), want %d", r.Found, r.Errors, lines/opt.MaxGroupLines)
	}
	if r.Groups[0].FromLine != 1 || r.Groups[len(r.Groups)-1].ToLine != lines {
		t.Fatalf("first %d, last %d", r.Groups[0].FromLine, r.Groups[len(r.Groups)-1].ToLine)
	}
	for _, g := range r.Groups {
		if len(g.Lines) > opt.MaxGroupLines {
			t.Fatalf("group of %d lines", len(g.Lines))
		}
		for _, l := range g.Lines {
			if len(l) > opt.MaxLineBytes {
				t.Fatalf("line of %d bytes kept", len(l))
			}
		}
	}
}
