package highlight

import (
	"bytes"

	"github.com/toold/toold/truncate"
)

// Scan runs a Detector over the whole of data, each line cleaned as the
// exec preview cleans it. Streams are fed line by line instead; Scan is for
// outputs already in memory (tests, benchmarks, a spool page).
func Scan(data []byte, opt Options) Result {
	d := New(opt)
	n := int64(0)
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n') + 1
		if i == 0 {
			i = len(data)
		}
		n++
		d.Line(n, truncate.CleanLine(data[:i]))
		data = data[i:]
	}
	return d.Finish()
}
