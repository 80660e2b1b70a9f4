package highlight

import (
	"bytes"
	"testing"
)

// BenchmarkScanOneLongLine: the shape sample of a line of megabytes costs
// one pass over it (it looked for the line's start again at every KiB: a
// minified 3.5 MB JSON took 20 s to Scan, 30 ms now).
func BenchmarkScanOneLongLine(b *testing.B) {
	line := bytes.Repeat([]byte(`{"id":12345,"name":"item","tags":["a","b"]},`), 80000)
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		Scan(line, Options{})
	}
}
