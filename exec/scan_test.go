package exec

import (
	"reflect"
	"testing"

	"github.com/toold/toold/highlight"
	"github.com/toold/toold/internal/corpus"
)

// TestScanner: fed a stream in chunks of any size, the scanner finds what
// highlight.Scan finds over the whole output.
func TestScanner(t *testing.T) {
	cs, err := corpus.Load("../testdata/outputs")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		for _, n := range []int{1 << 10, 64 << 10, 256 << 10} {
			s := newScanner(true, 4096, 64<<10)
			for b := c.Output; len(b) > 0; {
				k := min(n, len(b))
				s.write(b[:k])
				b = b[k:]
			}
			got, _ := s.finish()
			if want := highlight.Scan(c.Output, highlight.Options{MaxLineBytes: 4096}); !reflect.DeepEqual(got, want) {
				t.Fatalf("%s, chunks of %d: %d groups, want %d", c.Name, n, len(got.Groups), len(want.Groups))
			}
		}
	}
}
