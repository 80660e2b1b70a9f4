package exec

import (
	"bytes"
	"fmt"
	"reflect"
	"testing"

	"github.com/toold/toold/highlight"
	"github.com/toold/toold/internal/corpus"
	"github.com/toold/toold/truncate"
)

// TestScanner: fed a stream in chunks of any size, the scanner finds what
// highlight.Scan finds over the whole output.
func TestScanner(t *testing.T) {
	cs, err := corpus.Load("../testdata/outputs")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		want := highlight.Scan(c.Output, highlight.Options{MaxLineBytes: 4096})
		for _, n := range []int{1 << 10, 64 << 10, 256 << 10} {
			s := newScanner(truncate.PreviewOptions{Clean: true, MaxLineChars: 1000}, 64<<10)
			for b := c.Output; len(b) > 0; {
				k := min(n, len(b))
				s.write(b[:k], int64(bytes.Count(b[:k], []byte("\n"))), false)
				b = b[k:]
			}
			got, _ := s.finish()
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s, chunks of %d: %d groups, want %d", c.Name, n, len(got.Groups), len(want.Groups))
			}
		}
	}
}

// TestScannerSkips: past the spool's cap the scanner may skip chunks it
// cannot keep up with; whatever it skips, the groups it finds are the
// output's lines at the numbers they claim.
func TestScannerSkips(t *testing.T) {
	var out bytes.Buffer
	for i := range 200000 {
		if i%5000 == 4999 {
			fmt.Fprintf(&out, "2026-11-22 02:00:00 ERROR job %d failed\n", i)
			continue
		}
		fmt.Fprintf(&out, "2026-11-22 02:00:00 INFO job %d done in %d ms\n", i, i%97)
	}
	lines := bytes.SplitAfter(out.Bytes(), []byte("\n"))
	s := newScanner(truncate.PreviewOptions{Clean: true, MaxLineChars: 1000}, 64<<10)
	for b := out.Bytes(); len(b) > 0; {
		k := min(4096, len(b))
		s.write(b[:k], int64(bytes.Count(b[:k], []byte("\n"))), true)
		b = b[k:]
	}
	res, _ := s.finish()
	if len(res.Groups) == 0 && !s.skipped {
		t.Fatal("no group found, nothing skipped")
	}
	for _, g := range res.Groups {
		for i, l := range g.Lines {
			if want := string(lines[g.FromLine-1+int64(i)]); l != want {
				t.Fatalf("line %d: %q, want %q (skipped %v)", g.FromLine+int64(i), l, want, s.skipped)
			}
		}
	}
	t.Logf("%d groups, skipped %v", len(res.Groups), s.skipped)
}
