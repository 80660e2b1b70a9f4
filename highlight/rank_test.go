package highlight

import (
	"bytes"
	"fmt"
	"reflect"
	"testing"

	"github.com/toold/toold/internal/testenv"
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
	t.Parallel()
	opt := Options{MaxGroups: 8, MaxGroupLines: 10, MaxLineBytes: 64}
	d := New(opt)
	var block bytes.Buffer
	n := int64(1)
	// 5,000 lines (500 groups of 10 for 8 kept and 224 spare) in the quick
	// run; the long one feeds 200,000 (30 MB).
	lines := testenv.Size(5_000, 200_000)
	for i := range lines {
		fmt.Fprintf(&block, "2026-11-22 02:00:%02d ERROR request %d failed: %s\n", i%60, i, bytes.Repeat([]byte("x"), i%200))
		if block.Len() > 64<<10 || i == lines-1 {
			n += d.Block(n, block.Bytes())
			block.Reset()
		}
	}
	r := d.Finish()
	kept, spare, spareBytes := 0, 0, 0
	for _, g := range r.Groups {
		if !g.Spare {
			kept++
			continue
		}
		spare++
		for _, l := range g.Lines {
			spareBytes += len(l)
		}
	}
	if kept > opt.MaxGroups || spare > maxSpare || spareBytes > maxSpareBytes {
		t.Fatalf("%d groups kept, %d spare (%d bytes)", kept, spare, spareBytes)
	}
	if r.Found != lines/opt.MaxGroupLines || r.Errors != r.Found {
		t.Fatalf("found %d (%d errors), want %d", r.Found, r.Errors, lines/opt.MaxGroupLines)
	}
	if r.Groups[0].FromLine != 1 || r.Groups[len(r.Groups)-1].ToLine != int64(lines) {
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

// TestRareKept: among thousands of error groups of one shape, one of a
// shape of its own far in the middle is kept (the kept groups are full
// long before it) and ranked right after the first and the last.
func TestRareKept(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	// 12,000 lines (2,000 of them errors, the rare one at line 6,267) in
	// the quick run, 60,000 with TOOLD_LONG=1 (at 31,337): the 32 kept
	// groups and the 224 spare are full long before it either way.
	lines := int64(testenv.Size(12000, 60000))
	rare := lines * 31337 / 60000
	tables := []string{"orders", "users", "carts", "stock", "prices", "invoices", "sessions"}
	causes := []string{"deadlock", "constraint", "serialization", "disk", "lock-timeout"}
	for i := int64(1); i <= lines; i++ {
		switch {
		case i == rare:
			b.WriteString("2026-11-22 02:00:00 ERROR [disk] /var/lib/db: no space left on device\n")
		case i%6 == 0: // distinct messages (keys), one shape
			fmt.Fprintf(&b, "2026-11-22 02:00:%02d ERROR [db] query %d on %s failed: %s\n", i%60, i, tables[i%7], causes[i/7%5])
		default:
			fmt.Fprintf(&b, "2026-11-22 02:00:%02d INFO request %d served\n", i%60, i)
		}
	}
	r := Scan(b.Bytes(), Options{})
	order := Rank(r.Groups)
	if len(order) < 3 || r.Groups[order[2]].Hit != rare || !r.Groups[order[2]].Rare {
		var hits []int64
		for _, i := range order[:min(5, len(order))] {
			hits = append(hits, r.Groups[i].Hit)
		}
		t.Fatalf("ranked first: lines %v, want the rare line %d third", hits, rare)
	}
	for _, i := range order[3:] {
		if r.Groups[i].Rare {
			t.Errorf("group %d-%d of a kind of many lines is rare", r.Groups[i].FromLine, r.Groups[i].ToLine)
		}
	}
}
