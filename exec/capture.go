package exec

import (
	"bytes"
	"fmt"

	"github.com/toold/toold/truncate"
)

// sniffLen is how much of a stream decides whether it is binary.
const sniffLen = 8192

// minKeep is the least a capture keeps at each end, whatever MaxBytes is, so
// that binary detection and a small preview always have bytes to work on.
const minKeep = 64 << 10

// capture follows one output stream with bounded memory: it counts every
// byte and line, keeps the first keep bytes (prefix) and the last keep bytes
// (ring), and once the preview can no longer show the output whole, writes
// all of it to a spool file. The per-chunk work is a copy into the ring, a
// newline count and the spool write; the preview is rendered once, at the end.
// A capture is used by one goroutine at a time.
type capture struct {
	opt    truncate.PreviewOptions
	stream string
	open   func(stream string) (SpoolFile, error)
	keep   int

	prefix  []byte // the first keep bytes; grows as needed
	ring    []byte // the last keep bytes, allocated once the output passes keep
	ringPos int    // where the next byte goes in ring

	total    int64
	newlines int64
	last     byte

	sniffed bool
	binary  bool

	sp       SpoolFile
	spTried  bool  // Spool was called (whatever it gave)
	spErr    error // why spooling stopped
	spFailed bool  // the spool file gave a write error: write no more
}

func newCapture(opt truncate.PreviewOptions, stream string, open func(string) (SpoolFile, error)) *capture {
	return &capture{opt: opt, stream: stream, open: open, keep: max(4*opt.MaxBytes, minKeep)}
}

func (c *capture) lines() int64 {
	if c.total > 0 && c.last != '\n' {
		return c.newlines + 1
	}
	return c.newlines
}

// write takes the next chunk of the stream.
func (c *capture) write(p []byte) {
	if len(p) == 0 {
		return
	}
	prev := c.total
	c.total += int64(len(p))
	c.newlines += int64(bytes.Count(p, []byte{'\n'}))
	c.last = p[len(p)-1]

	if n := len(c.prefix); n < c.keep {
		c.prefix = append(c.prefix, p[:min(len(p), c.keep-n)]...)
	}
	if c.ring != nil {
		c.ringWrite(p)
	} else if c.total > int64(c.keep) {
		// Until now the prefix held everything: seed the ring from it.
		c.ring = make([]byte, c.keep)
		c.ringWrite(c.prefix[:prev])
		c.ringWrite(p)
	}
	if !c.sniffed && len(c.prefix) >= sniffLen {
		c.sniffed = true
		c.binary = truncate.IsBinary(c.prefix[:sniffLen])
	}

	if c.sp == nil && !c.spTried && c.mustSpool() {
		// Everything before p is still in the prefix: mustSpool turns true
		// no later than the chunk that takes the output past keep.
		c.openSpool()
		c.spoolWrite(c.prefix[:prev])
	}
	c.spoolWrite(p)
}

// mustSpool reports whether the output so far is certain not to be shown
// whole, or will no longer be held whole in memory. Raw lines are shown
// lines (clean-up acts inside lines); raw bytes are at most shown bytes
// unless clean-up or clipping shrink them, and clipping spools anyway.
func (c *capture) mustSpool() bool {
	return c.binary ||
		c.total > int64(c.keep) ||
		c.lines() > int64(c.opt.MaxLines) ||
		!c.opt.Clean && c.total > int64(c.opt.MaxBytes)
}

func (c *capture) ringWrite(p []byte) {
	if len(p) >= len(c.ring) {
		copy(c.ring, p[len(p)-len(c.ring):])
		c.ringPos = 0
		return
	}
	n := copy(c.ring[c.ringPos:], p)
	if n < len(p) {
		c.ringPos = copy(c.ring, p[n:])
	} else if c.ringPos += n; c.ringPos == len(c.ring) {
		c.ringPos = 0
	}
}

// tail returns the last bytes kept, in order.
func (c *capture) tail() []byte {
	if c.ring == nil {
		return c.prefix
	}
	out := make([]byte, 0, len(c.ring))
	out = append(out, c.ring[c.ringPos:]...)
	return append(out, c.ring[:c.ringPos]...)
}

func (c *capture) openSpool() {
	c.spTried = true
	if c.open == nil {
		return
	}
	sp, err := c.open(c.stream)
	if err != nil {
		c.spErr = fmt.Errorf("open %s spool: %w", c.stream, err)
		return
	}
	c.sp = sp
}

func (c *capture) spoolWrite(p []byte) {
	if c.sp == nil || c.spFailed || len(p) == 0 {
		return
	}
	// *spool.File never fails a Write; another SpoolFile might.
	if _, err := c.sp.Write(p); err != nil {
		c.spFailed = true
		c.spErr = fmt.Errorf("write %s spool: %w", c.stream, err)
	}
}

// finish renders the stream's preview, writes the spool from memory when
// the output fits in memory but was not shown whole, and closes the spool.
func (c *capture) finish() Stream {
	if !c.sniffed {
		c.sniffed = true
		c.binary = truncate.IsBinary(c.prefix)
	}
	s := Stream{TotalBytes: c.total, TotalLines: c.lines(), Binary: c.binary}
	if c.binary {
		if c.total > 0 {
			s.Omitted = &truncate.Omitted{FromLine: 1, ToLine: s.TotalLines, Bytes: c.total}
			s.Truncated = true
		}
	} else {
		pr := truncate.Preview(c.prefix, c.tail(), c.total, s.TotalLines, c.opt)
		s.Head, s.Tail = pr.Head, pr.Tail
		s.ShownLines, s.ShownBytes, s.ClippedLines = pr.ShownLines, pr.ShownBytes, pr.ClippedLines
		s.Truncated = pr.Truncated
		s.Omitted = pr.Omitted
	}
	// Nothing shown partially may be lost. Not yet spooled means the
	// prefix still holds the whole output.
	if (s.Truncated || s.ClippedLines > 0) && c.sp == nil && !c.spTried {
		c.openSpool()
		c.spoolWrite(c.prefix[:c.total])
	}
	if c.sp != nil {
		if err := c.sp.Close(); err != nil && c.spErr == nil {
			c.spErr = fmt.Errorf("close %s spool: %w", c.stream, err)
		}
		if err := c.sp.Err(); err != nil && c.spErr == nil {
			c.spErr = err
		}
		s.Spool = &SpoolRef{ID: c.sp.ID(), Path: c.sp.Path(), Bytes: c.sp.Bytes(), Capped: c.sp.Capped()}
	}
	if c.spErr != nil {
		s.SpoolError = c.spErr.Error()
	}
	return s
}
