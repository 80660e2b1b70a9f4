package process

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"

	"github.com/toold/toold/exec"
	"github.com/toold/toold/preview"
	"github.com/toold/toold/truncate"
)

// Cursor is a position in a process's output: a byte offset into each
// stream. Its zero value is the start.
type Cursor struct {
	Stdout, Stderr int64
}

// String returns the cursor as the protocol writes it: "STDOUT:STDERR".
func (c Cursor) String() string {
	return strconv.FormatInt(c.Stdout, 10) + ":" + strconv.FormatInt(c.Stderr, 10)
}

// ParseCursor reads a cursor that String wrote.
func ParseCursor(s string) (Cursor, error) {
	o, e, ok := strings.Cut(s, ":")
	var c Cursor
	var err1, err2 error
	c.Stdout, err1 = strconv.ParseInt(o, 10, 64)
	c.Stderr, err2 = strconv.ParseInt(e, 10, 64)
	if !ok || err1 != nil || err2 != nil || c.Stdout < 0 || c.Stderr < 0 {
		return Cursor{}, fmt.Errorf("cursor %q: want two byte offsets, as in \"1024:0\"", s)
	}
	return c, nil
}

func (c Cursor) at(i int) int64 {
	if i == 1 {
		return c.Stderr
	}
	return c.Stdout
}

// ErrCursor is Read's error for a cursor past the output.
var ErrCursor = errors.New("cursor past the end of the output")

// Span is the output of one stream between two offsets, as much of it as a
// preview needs.
type Span struct {
	From, To int64 // byte offsets into the stream's whole output
	// FirstLine is the line of the whole output that holds From (1-based):
	// the span's line k is the output's line FirstLine+k-1.
	FirstLine int64
	Lines     int64  // lines in the span; a last one without a newline counts
	Head      []byte // the span's first bytes, up to keep
	Tail      []byte // its last bytes, up to keep (the same as Head when it is short)
	SpoolID   string // the stream's spool, "" when it printed nothing
	SpoolPath string
	spool     exec.SpoolFile // read back through its Open, never by path
	// Lost is how many of the span's bytes the spool does not hold (past
	// its cap, or it could not be written): they are counted, not shown.
	Lost int64
	// Scan is what exec's clean-up and highlight detector found in the
	// bytes the spool holds (lines numbered from 1 at From); nil when Read
	// was not asked to scan or there was nothing to scan.
	Scan *preview.Scan
	// MidLine is set when From falls inside a line: the span's first line
	// is the end of the output's line FirstLine.
	MidLine bool
}

// Output is what a read returns: the span of each stream between From and
// To, and how the process ended if it had by then (nil while it runs; all
// its output is then in the spans up to To).
type Output struct {
	From, To       Cursor
	Stdout, Stderr Span
	Result         *exec.Result
}

// Read returns the output from since (nil: where the last read ended) to
// the ends counted now, and moves the process's cursor there. Head and Tail
// hold up to keep bytes each. When scan is set, the spans are also run
// through exec's clean-up and highlight detector, as exec runs them for a
// preview of scan (Span.Scan).
func (p *Proc) Read(since *Cursor, keep int, scan *truncate.PreviewOptions) (*Output, error) {
	p.mu.Lock()
	from := p.cursor
	if since != nil {
		from = *since
	}
	to := Cursor{p.streams[0].written, p.streams[1].written}
	st := p.streams
	res := p.result
	if from.Stdout > to.Stdout || from.Stderr > to.Stderr {
		p.mu.Unlock()
		return nil, fmt.Errorf("%w: %s, and the output ends at %s", ErrCursor, from, to)
	}
	// Newlines before from, when known without reading; -1 when not.
	nl := [2]int64{-1, -1}
	for i := range nl {
		switch from.at(i) {
		case 0:
			nl[i] = 0
		case p.cursor.at(i):
			nl[i] = p.cursorNL[i]
		}
	}
	p.cursor = to
	p.cursorNL = [2]int64{st[0].newlines, st[1].newlines}
	p.mu.Unlock()

	out := &Output{From: from, To: to, Result: res}
	for i, sp := range []*Span{&out.Stdout, &out.Stderr} {
		s := &st[i]
		*sp = Span{From: from.at(i), To: to.at(i), spool: s.spool}
		if s.spool != nil {
			sp.SpoolID, sp.SpoolPath = s.spool.ID(), s.spool.Path()
		}
		if err := sp.load(keep, nl[i], scan); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// readBlock is the size of the reads that count a long span's lines.
const readBlock = 256 << 10

// load reads the span's head and tail from the spool and counts its lines,
// scanning them when scan is set; nl is the count of newlines before From,
// or -1 to count them.
func (sp *Span) load(keep int, nl int64, scan *truncate.PreviewOptions) error {
	sp.FirstLine = max(nl, 0) + 1
	if sp.To == sp.From && nl >= 0 {
		return nil
	}
	if sp.spool == nil {
		sp.Lost = sp.To - sp.From
		return nil
	}
	f, err := sp.spool.Open()
	if errors.Is(err, fs.ErrNotExist) {
		sp.Lost = sp.To - sp.From // never written (a full disk), evicted or removed
		return nil
	}
	if err != nil {
		return fmt.Errorf("process: reading the output of spool %s: %w", sp.SpoolID, err)
	}
	defer f.Close()
	if nl < 0 {
		n, err := countNewlines(f, 0, sp.From)
		if err != nil {
			return err
		}
		sp.FirstLine = n + 1
	}
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("process: reading the output: %w", err)
	}
	end := min(sp.To, fi.Size())
	if end < sp.From {
		end = sp.From
	}
	sp.Lost = sp.To - end
	if end == sp.From {
		return nil
	}
	if sp.From > 0 {
		var b [1]byte
		if _, err := f.ReadAt(b[:], sp.From-1); err != nil {
			return fmt.Errorf("process: reading the output: %w", err)
		}
		sp.MidLine = b[0] != '\n'
	}
	if scan != nil {
		sc, err := preview.ScanRange(f, sp.From, end, *scan)
		if err != nil {
			return err
		}
		sp.Scan = &sc
	}
	if end-sp.From <= int64(2*keep) {
		b := make([]byte, end-sp.From)
		if _, err := f.ReadAt(b, sp.From); err != nil && err != io.EOF {
			return fmt.Errorf("process: reading the output: %w", err)
		}
		sp.Head, sp.Tail = b[:min(len(b), keep)], b[max(0, len(b)-keep):]
		sp.Lines = countLines(b)
		return nil
	}
	sp.Head = make([]byte, keep)
	sp.Tail = make([]byte, keep)
	if _, err := f.ReadAt(sp.Head, sp.From); err != nil {
		return fmt.Errorf("process: reading the output: %w", err)
	}
	if _, err := f.ReadAt(sp.Tail, end-int64(keep)); err != nil && err != io.EOF {
		return fmt.Errorf("process: reading the output: %w", err)
	}
	if sp.Scan != nil {
		sp.Lines = sp.Scan.Newlines
	} else {
		mid, err := countNewlines(f, sp.From+int64(keep), end-int64(keep))
		if err != nil {
			return err
		}
		sp.Lines = int64(bytes.Count(sp.Head, newline)+bytes.Count(sp.Tail, newline)) + mid
	}
	if sp.Tail[len(sp.Tail)-1] != '\n' {
		sp.Lines++
	}
	return nil
}

var newline = []byte{'\n'}

// countNewlines counts the newlines of f in [from, to), a block at a time;
// bytes past f's end count as none.
func countNewlines(f *os.File, from, to int64) (int64, error) {
	var n int64
	buf := make([]byte, min(readBlock, max(to-from, 0)))
	for off := from; off < to; {
		b := buf[:min(int64(len(buf)), to-off)]
		k, err := f.ReadAt(b, off)
		n += int64(bytes.Count(b[:k], newline))
		if err == io.EOF || k == 0 {
			break
		}
		if err != nil {
			return 0, fmt.Errorf("process: reading the output: %w", err)
		}
		off += int64(k)
	}
	return n, nil
}

// countLines counts b's lines, a last one without a newline included.
func countLines(b []byte) int64 {
	n := int64(bytes.Count(b, newline))
	if len(b) > 0 && b[len(b)-1] != '\n' {
		n++
	}
	return n
}
