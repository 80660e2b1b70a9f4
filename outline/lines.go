package outline

import "bytes"

// maxLine is how much of a line the line scanners look at: a longer line is
// passed cut (its number and the lines after it stay right).
const maxLine = 4096

// lineSplitter turns chunks into numbered lines, without their ending
// ("\n" or "\r\n"), each cut at maxLine bytes.
type lineSplitter struct {
	n     int64 // lines passed so far
	carry []byte
	long  bool // carry was cut
	fn    func(n int64, line []byte)
}

func (l *lineSplitter) Write(p []byte) (int, error) {
	size := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			l.keep(p)
			break
		}
		if len(l.carry) > 0 || l.long {
			l.keep(p[:i])
			l.emit(l.carry)
			l.carry, l.long = l.carry[:0], false
		} else {
			l.emit(p[:i])
		}
		p = p[i+1:]
	}
	return size, nil
}

func (l *lineSplitter) keep(p []byte) {
	room := maxLine - len(l.carry)
	if len(p) > room {
		p, l.long = p[:room], true
	}
	l.carry = append(l.carry, p...)
}

func (l *lineSplitter) emit(line []byte) {
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	if len(line) > maxLine {
		line = line[:maxLine]
	}
	l.n++
	l.fn(l.n, line)
}

// flush passes a last line without '\n'.
func (l *lineSplitter) flush() {
	if len(l.carry) > 0 || l.long {
		l.emit(l.carry)
		l.carry, l.long = l.carry[:0], false
	}
}

// chunker groups a run of items (array elements, rows) into at most max
// chunks of per items each, doubling per and merging pairs when the run
// outgrows them: bounded memory for any number of items.
type chunker struct {
	max    int
	per    int64
	chunks []chunk
	items  int64
}

type chunk struct {
	first, last   int64 // item numbers, from 0
	line, endLine int64
}

func newChunker(max int, per int64) chunker { return chunker{max: max, per: per} }

func (c *chunker) add(line, endLine int64) {
	n := c.items
	c.items++
	if k := len(c.chunks); k > 0 && c.chunks[k-1].last-c.chunks[k-1].first+1 < c.per {
		c.chunks[k-1].last, c.chunks[k-1].endLine = n, endLine
		return
	}
	c.chunks = append(c.chunks, chunk{first: n, last: n, line: line, endLine: endLine})
	if len(c.chunks) > c.max {
		merged := c.chunks[:0]
		for i := 0; i < len(c.chunks); i += 2 {
			m := c.chunks[i]
			if i+1 < len(c.chunks) {
				m.last, m.endLine = c.chunks[i+1].last, c.chunks[i+1].endLine
			}
			merged = append(merged, m)
		}
		c.chunks = merged
		c.per *= 2
	}
}
