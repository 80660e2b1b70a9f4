package highlight

import (
	"reflect"
	"testing"
)

// TestBlockIsLine: Block, which skips the lines without an anchor, finds
// what Line finds fed every line, on every sample and corpus output (see
// quickOutput).
func TestBlockIsLine(t *testing.T) {
	t.Parallel()
	for i, out := range sampleOutputs(t) {
		sameResult(t, i, out)
	}
}

func sameResult(t *testing.T, i int, out []byte) {
	t.Helper()
	for _, opt := range []Options{{}, {MaxGroups: 2, MaxGroupLines: 3, MaxLineBytes: 16}} {
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
