package highlight

import (
	"bytes"

	"github.com/toold/toold/truncate"
)

// Scan runs a Detector over the whole of data, each line cleaned as the
// exec preview cleans it, in blocks of whole lines as a stream is fed. It is
// for outputs already in memory (tests, benchmarks, a spool page).
func Scan(data []byte, opt Options) Result {
	d := New(opt)
	n := int64(1)
	var block []byte
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n') + 1
		if i == 0 {
			i = len(data)
		}
		block = append(block, truncate.CleanLine(data[:i])...)
		data = data[i:]
		if len(block) >= 64<<10 || len(data) == 0 {
			n += d.Block(n, block)
			block = block[:0]
		}
	}
	return d.Finish()
}

// scanLines is Scan fed line by line, for tests to check Block against.
func scanLines(data []byte, opt Options) Result {
	d := New(opt)
	n := int64(0)
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n') + 1
		if i == 0 {
			i = len(data)
		}
		line := truncate.CleanLine(data[:i])
		if len(line) == 0 {
			// A last line with no newline that cleans to nothing is no
			// line to a stream fed cleaned blocks (Scan, exec's capture):
			// nothing is left of it to feed.
			break
		}
		n++
		d.Line(n, line)
		data = data[i:]
	}
	return d.Finish()
}
