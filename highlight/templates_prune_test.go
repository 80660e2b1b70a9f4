package highlight

import (
	"bytes"
	"fmt"
	"reflect"
	"slices"
	"testing"
)

// TestTemplatesPruned: a table that skips the templates with too few plain
// words to take a line makes the same kinds as one that compares them all.
func TestTemplatesPruned(t *testing.T) {
	// The error-dense log fills the table (256 kinds) before the samples
	// come: from 256 KiB on (1 MiB with TOOLD_LONG=1).
	out := slices.Concat(quickErrorLog(), bytes.Join(sampleOutputs(t), nil))
	var a, b templates
	b.noPrune = true
	r := &Rules()[0]
	for n, line := range bytes.Split(out, nl) {
		a.addNew(int64(n+1), line, r)
		b.addNew(int64(n+1), line, r)
	}
	if len(a.kinds) < 100 {
		t.Fatalf("%d kinds: too few to tell", len(a.kinds))
	}
	if !reflect.DeepEqual(a.kinds, b.kinds) || !reflect.DeepEqual(a.words, b.words) || a.other != b.other {
		t.Errorf("pruned: %d kinds, %d other; all compared: %d kinds, %d other", len(a.kinds), a.other, len(b.kinds), b.other)
	}
}

// TestTemplatesSkipClosedBucket: once the table is full, a bucket left
// with fewer than maxBucket templates takes no new one either, so it is
// skipped after bucketMisses lines in a row that join none of its
// templates, as a full bucket is (a kv log has more buckets than
// the table has room for: comparing them was a third of its detector's
// work). A line that joins a template before that still joins it.
func TestTemplatesSkipClosedBucket(t *testing.T) {
	r := &Rules()[0]
	miss := func(i int) []byte { // the bucket of "alpha beta gamma delta", nothing in common
		return fmt.Appendf(nil, "alpha x%c%c y%c z%c", 'a'+i%26, 'a'+i/26%26, 'a'+i%7, 'a'+i%5)
	}
	tests := []struct {
		name       string
		lines      []func(i int) []byte // fed in turn, bucketMisses+10 lines in all
		wantMisses int                  // at least
		wantOther  int64                // lines counted apart
		wantCount  int64                // lines of the bucket's template
	}{
		{"misses only", []func(int) []byte{miss}, bucketMisses, bucketMisses + 10, 1},
		{"a join among misses", []func(int) []byte{miss, miss, func(int) []byte { return []byte("alpha beta gamma x") }},
			0, bucketMisses + 10 - (bucketMisses+10)/3, 1 + (bucketMisses+10)/3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var tb templates
			tb.addNew(1, []byte("alpha beta gamma delta"), r)
			for i := int64(2); len(tb.kinds) < maxKinds; i++ { // buckets of one word each
				tb.addNew(i, fmt.Appendf(nil, "first%c%c", 'a'+i%26, 'a'+i/26%26), r)
			}
			bk := tb.buckets[keyOf([]byte("alpha beta gamma delta")).pack()]
			if bk == nil || len(bk.ids) != 1 {
				t.Fatalf("bucket %+v: want one template", bk)
			}
			for i := range bucketMisses + 10 {
				tb.addNew(int64(1000+i), tc.lines[i%len(tc.lines)](i), r)
			}
			if bk.misses < tc.wantMisses {
				t.Errorf("%d misses in a row counted, want %d or more: a bucket the full table closed is never skipped", bk.misses, tc.wantMisses)
			}
			if tb.other != tc.wantOther || tb.kinds[bk.ids[0]].Count != tc.wantCount {
				t.Errorf("%d lines counted apart, %d in the template; want %d, %d", tb.other, tb.kinds[bk.ids[0]].Count, tc.wantOther, tc.wantCount)
			}
		})
	}
	// An empty bucket of a full table: nothing to join.
	var tb templates
	for i := int64(1); len(tb.kinds) < maxKinds; i++ {
		tb.addNew(i, fmt.Appendf(nil, "first%c%c", 'a'+i%26, 'a'+i/26%26), r)
	}
	if k := tb.addNew(9999, []byte("omega psi chi"), r); k != -1 || tb.other != 1 {
		t.Errorf("a line of a new bucket in a full table: kind %d, %d counted apart; want -1, 1", k, tb.other)
	}
}
