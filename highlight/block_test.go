package highlight

import (
	"reflect"
	"testing"
)

// TestBlockIsLine: Block, which skips the lines without an anchor, finds
// what Line finds fed every line, on every sample and corpus output (see
// quickOutput), at the default options and at small ones (which cut lines
// and push out groups). The quick run takes one of the two per output, in
// turn (quickPick), half the work; TOOLD_LONG=1 both on every output.
func TestBlockIsLine(t *testing.T) {
	t.Parallel()
	scans := fixture(t, quickScans) // the corpus's, at Options{}
	for i, out := range sampleOutputs(t) {
		for _, opt := range quickPick(blockOptions, i) {
			var a Result
			if opt == (Options{}) && i < len(scans) {
				a = scans[i]
			} else {
				a = Scan(out, opt)
			}
			if b := scanLines(out, opt); !reflect.DeepEqual(a, b) {
				t.Fatalf("output %d, %+v:\nBlock %+v\n Line %+v", i, opt, a, b)
			}
		}
	}
}

// blockOptions are the options Block and Line are compared at.
var blockOptions = []Options{{}, {MaxGroups: 2, MaxGroupLines: 3, MaxLineBytes: 16}}

// sameResult fails when Block and Line find otherwise in out.
func sameResult(t *testing.T, i int, out []byte) {
	t.Helper()
	for _, opt := range blockOptions {
		if a, b := Scan(out, opt), scanLines(out, opt); !reflect.DeepEqual(a, b) {
			t.Fatalf("output %d, %+v:\nBlock %+v\n Line %+v", i, opt, a, b)
		}
	}
}

// FuzzBlockIsLine: whatever the output, Block and Line agree, and every
// group's lines are the output's cleaned lines at the numbers it claims.
func FuzzBlockIsLine(f *testing.F) {
	for _, b := range samplesRead(f) {
		f.Add(b)
	}
	f.Add([]byte("=== RUN   TestX\n    x_test.go:3: boom\n--- FAIL: TestX (0.00s)\nFAIL\n"))
	f.Fuzz(func(t *testing.T, out []byte) {
		sameResult(t, 0, out)
		r := Scan(out, Options{})
		for _, g := range r.Groups {
			checkLines(t, out, g)
			for _, ev := range g.Evidence {
				if ev.FromLine < 1 || ev.ToLine < ev.FromLine || ev.ToLine >= g.FromLine {
					t.Fatalf("evidence %+v of group %d-%d", ev, g.FromLine, g.ToLine)
				}
			}
		}
	})
}
