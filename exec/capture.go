package exec

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"sync/atomic"

	"github.com/toold/toold/highlight"
	"github.com/toold/toold/preview"
	"github.com/toold/toold/truncate"
)

// sniffLen is how much of a stream decides whether it is binary.
const sniffLen = 8192

// capture follows one output stream with bounded memory: it counts every
// byte and line, keeps the first keep bytes (prefix) and the last keep bytes
// (ring), and once the preview can no longer show the output whole, writes
// all of it to a spool file. The per-chunk work is a copy into the ring, a
// newline count and the spool write; the preview is rendered once, at the end.
// A capture is used by one goroutine at a time.
type capture struct {
	opt       truncate.PreviewOptions
	stream    string
	open      func(stream string) (SpoolFile, error)
	readLines func(path string, from, to int64) ([]byte, error)
	keep      int
	scan      *scanner // clean-up and highlights, once output comes
	// followTried: the scanner was asked to read on from the spool file;
	// dropped counts the bytes the spool did not keep since.
	followTried bool
	dropped     int64
	// waited is how long the reader waited for the scanner (nanoseconds):
	// drain does not count it against a command's output.
	waited atomic.Int64

	prefix  []byte // the first keep bytes; grows as needed
	ring    []byte // the last keep bytes before pend, allocated once the output passes keep
	ringPos int    // where the next byte goes in ring
	// pend is the newest chunk, held in the reader's buffer rather than
	// copied into ring: a chunk of keep bytes or more replaces the whole
	// ring, so most of a long output is never copied. The ring's last
	// keep-len(pend) bytes are those before it. The reader does not reuse
	// its buffer while pend holds it (holds), and flush ends it.
	pend []byte

	total    int64
	newlines int64
	last     byte

	sniffed bool
	binary  bool

	sp       SpoolFile
	spTried  bool  // Spool was called (whatever it gave)
	spErr    error // why spooling stopped
	spFailed bool  // the spool file gave a write error: write no more

	observer Observer // told of each chunk once it is spooled; may be nil
	spoolAll bool     // spool from the first byte
	failed   bool     // the command failed: its last lines weigh more
}

func newCapture(opt truncate.PreviewOptions, stream string, open func(string) (SpoolFile, error)) *capture {
	return &capture{opt: opt, stream: stream, open: open, keep: preview.KeepBytes(opt.MaxBytes)}
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
	nl := int64(bytes.Count(p, []byte{'\n'}))
	c.newlines += nl
	c.last = p[len(p)-1]

	if n := len(c.prefix); n < c.keep {
		c.prefix = append(c.prefix, p[:min(len(p), c.keep-n)]...)
	}
	if c.ring != nil {
		c.ringAdd(p)
	} else if c.total > int64(c.keep) {
		// Until now the prefix held everything: seed the ring from it.
		c.ring = make([]byte, c.keep)
		c.ringWrite(c.prefix[:prev])
		c.ringAdd(p)
	}
	if !c.sniffed && len(c.prefix) >= sniffLen {
		c.sniffed = true
		c.binary = truncate.IsBinary(c.prefix[:sniffLen])
	}
	capped := c.sp != nil && c.sp.Capped() // before p: p itself is searched whole
	if c.sp == nil && !c.spTried && c.mustSpool() {
		// Everything before p is still in the prefix: mustSpool turns true
		// no later than the chunk that takes the output past keep.
		c.openSpool()
		c.spoolWrite(c.prefix[:prev])
	}
	c.spoolWrite(p)
	if !c.binary {
		c.feed(p, nl, capped)
	}
	if c.observer != nil {
		c.observer.Output(c.stream, p)
	}
}

// feed gives p, holding nl newlines, to the scanner: read back from the
// spool file once the spool holds the whole output (the reads then never
// wait for the detector), else handed a copy. Past the spool's cap (capped),
// where page cannot reach, the scanner only counts lines: searching 1 GiB
// would hold up the reads (the search of what the spool keeps costs as
// much as the copy of it).
func (c *capture) feed(p []byte, nl int64, capped bool) {
	if c.scan == nil {
		c.scan = newScanner(c.opt, c.keep)
	}
	if c.scan.following {
		c.follow(p)
		return
	}
	if c.canFollow() && c.scan.follow(c.sp, c.total-int64(len(p)), c.total) {
		return
	}
	c.waited.Add(int64(c.scan.write(p, nl, capped)))
}

// canFollow reports whether the scanner may read on from the spool file
// (asked once): it holds every byte so far and nothing has failed.
func (c *capture) canFollow() bool {
	if c.followTried || c.sp == nil || c.spFailed {
		return false
	}
	c.followTried = true
	return c.sp.Bytes() == c.total
}

// follow tells the following scanner how far the spool goes after p, and
// counts for it the bytes of p that the spool dropped (its cap, a quota, an
// error): always p's last ones, since the spool keeps a prefix of what it
// is given and stops.
func (c *capture) follow(p []byte) {
	kept := c.sp.Bytes()
	if dropped := c.total - kept - c.dropped; dropped > 0 {
		c.dropped += dropped
		tail := p[len(p)-int(min(dropped, int64(len(p)))):]
		c.scan.skip(int64(len(tail)), int64(bytes.Count(tail, []byte{'\n'})))
	}
	c.scan.publish(kept)
}

// stopScan makes a scanner behind the reads only count the lines it has
// not reached: finish then comes at once, with what it found so far.
func (c *capture) stopScan() {
	if c.scan != nil {
		c.scan.stop.Store(true)
	}
}

// mustSpool reports whether the output so far is certain not to be shown
// whole, or will no longer be held whole in memory. Raw lines are shown
// lines (clean-up acts inside lines); raw bytes are at most shown bytes
// unless clean-up or clipping shrink them, and clipping spools anyway.
func (c *capture) mustSpool() bool {
	return c.spoolAll || c.binary ||
		c.total > int64(c.keep) ||
		c.lines() > int64(c.opt.MaxLines) ||
		!c.opt.Clean && c.total > int64(c.opt.MaxBytes)
}

// ringAdd makes p the pending chunk, and copies into the ring the bytes of
// the one before that the last keep bytes still hold.
func (c *capture) ringAdd(p []byte) {
	if need := len(c.ring) - len(p); need > 0 && c.pend != nil {
		c.ringWrite(c.pend[max(0, len(c.pend)-need):])
	}
	c.pend = p
}

// holds reports whether the capture holds the last chunk written: the
// reader must read the next one into another buffer.
func (c *capture) holds() bool { return c.pend != nil }

// flush copies the pending chunk into the ring: the reader's buffer is
// free again.
func (c *capture) flush() {
	if c.pend != nil {
		c.ringWrite(c.pend)
		c.pend = nil
	}
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
	c.flush()
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
	var found highlight.Result
	var known []truncate.KnownLine
	skipped := false
	if c.scan != nil {
		found, known = c.scan.finish()
		skipped = c.scan.skipped
	}
	if c.failed {
		found = highlight.WithExit(found)
	}
	s := Stream{TotalBytes: c.total, TotalLines: c.lines(), Binary: c.binary, Highlights: []truncate.ShownHighlight{}, ScanSkipped: skipped}
	if c.binary {
		if c.total > 0 {
			s.Omitted = &truncate.Omitted{FromLine: 1, ToLine: s.TotalLines, Bytes: c.total}
			s.Truncated = true
		}
	} else {
		o := truncate.Output{Prefix: c.prefix, Suffix: c.tail(), TotalBytes: c.total, TotalLines: s.TotalLines, Known: known}
		pr := preview.Found(o, found, c.linesOf, c.opt)
		s.Head, s.Tail = pr.Head, pr.Tail
		s.ShownLines, s.ShownBytes, s.ClippedLines = pr.ShownLines, pr.ShownBytes, pr.ClippedLines
		s.Truncated = pr.Truncated
		s.Omitted = pr.Omitted
		s.Clip = pr.Clip
		s.Highlights = pr.Highlights
		s.HighlightsOmitted = pr.HighlightsOmitted
		s.HighlightErrors = pr.Errors
		s.Kinds = pr.Kinds
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

// linesOf returns the raw lines from..to of the output: from the prefix
// when it holds the whole output, else from the spool; nil when neither
// has them all.
func (c *capture) linesOf(from, to int64) []byte {
	if int64(len(c.prefix)) >= c.total {
		return nthLines(c.prefix, from, to)
	}
	if c.sp == nil || c.spFailed {
		return nil
	}
	var b []byte
	var err error
	if c.readLines != nil {
		b, err = c.readLines(c.sp.ID(), from, to)
	} else {
		b, err = scanLines(c.sp, from, to)
	}
	if err != nil {
		return nil
	}
	return b
}

// nthLines returns lines from..to of b (1-based, inclusive), nil when b
// has fewer.
func nthLines(b []byte, from, to int64) []byte {
	start := 0
	for n := int64(1); n < from; n++ {
		i := bytes.IndexByte(b[start:], '\n')
		if i < 0 {
			return nil
		}
		start += i + 1
	}
	end := start
	for n := from; n <= to && end < len(b); n++ {
		i := bytes.IndexByte(b[end:], '\n')
		if i < 0 {
			end = len(b)
			break
		}
		end += i + 1
	}
	if end == start {
		return nil
	}
	return b[start:end]
}

// scanLines reads lines from..to of the spool file sp from its start:
// what Spec.ReadLines does without an index.
func scanLines(sp SpoolFile, from, to int64) ([]byte, error) {
	f, err := sp.Open()
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 256<<10)
	var out []byte
	for n := int64(1); n <= to; n++ {
		line, err := r.ReadSlice('\n')
		for err == bufio.ErrBufferFull {
			if n >= from {
				out = append(out, line...)
			}
			line, err = r.ReadSlice('\n')
		}
		if n >= from {
			out = append(out, line...)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}
