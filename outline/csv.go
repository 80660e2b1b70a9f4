package outline

import (
	"bytes"
	"fmt"
)

// csvMaxChunks bounds the chunks of rows.
const csvMaxChunks = 24

// csvScan outlines a CSV or TSV file: its header, its row count and the
// line ranges of chunks of rows. A quoted field may hold newlines: records
// are told from lines by the parity of quotes.
type csvScan struct {
	sep     byte
	format  string
	line    int64 // lines ended so far
	inQuote bool
	recLine int64 // first line of the record being read, 0 none
	header  []byte
	hdrDone bool
	hdrEnd  int64
	rows    chunker
	partial bool // bytes after the last newline
}

func newCSV(opt Options, sep byte) *csvScan {
	f := CSV
	if sep == '\t' {
		f = TSV
	}
	return &csvScan{sep: sep, format: f, rows: newChunker(csvMaxChunks, 1)}
}

func (c *csvScan) Write(p []byte) (int, error) {
	size := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		seg := p
		if i >= 0 {
			seg = p[:i]
		}
		if c.recLine == 0 {
			c.recLine = c.line + 1
		}
		if bytes.Count(seg, []byte{'"'})%2 == 1 {
			c.inQuote = !c.inQuote
		}
		if !c.hdrDone && len(c.header) < maxLine {
			c.header = append(c.header, seg[:min(len(seg), maxLine-len(c.header))]...)
		}
		if i < 0 {
			c.partial = len(seg) > 0 || c.partial
			break
		}
		c.line++
		c.partial = false
		if !c.inQuote {
			c.record(c.line)
		} else if !c.hdrDone {
			c.header = append(c.header, '\n')
		}
		p = p[i+1:]
	}
	return size, nil
}

// record ends the record that started at recLine on line end.
func (c *csvScan) record(end int64) {
	if !c.hdrDone {
		c.hdrDone, c.hdrEnd = true, end
	} else {
		c.rows.add(c.recLine, end)
	}
	c.recLine = 0
}

func (c *csvScan) Finish(totalLines int64) *Outline {
	if c.partial || c.recLine != 0 && c.recLine <= totalLines {
		c.record(totalLines)
	}
	o := &Outline{Format: c.format, Entries: []Entry{}}
	if !c.hdrDone {
		return o
	}
	hdr := bytes.TrimRight(c.header, "\r\n")
	cols := 1 + bytes.Count(hdr, []byte{c.sep})
	o.Entries = append(o.Entries, Entry{Line: 1, EndLine: c.hdrEnd, Depth: 1, Kind: "header", Name: clip(string(hdr))})
	for _, ch := range c.rows.chunks {
		name := fmt.Sprintf("rows %d-%d", ch.first+1, ch.last+1)
		if ch.first == ch.last {
			name = fmt.Sprintf("row %d", ch.first+1)
		}
		o.Entries = append(o.Entries, Entry{Line: ch.line, EndLine: ch.endLine, Depth: 1, Kind: "rows", Name: name, Lines: ch.endLine - ch.line + 1})
	}
	o.TotalEntries = len(o.Entries)
	o.Summary = fmt.Sprintf("%d rows of %d columns after the header", c.rows.items, cols)
	return o
}
