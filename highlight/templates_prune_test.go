package highlight

import (
	"bytes"
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
