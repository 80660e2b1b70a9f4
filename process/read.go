package process

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/toold/toold/exec"
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
	From, To  int64  // byte offsets into the stream's whole output
	Lines     int64  // lines in the span; a last one without a newline counts
	Head      []byte // the span's first bytes, up to keep
	Tail      []byte // its last bytes, up to keep (the same as Head when it is short)
	SpoolID   string // the stream's spool, "" when it printed nothing
	SpoolPath string
	// Lost is how many of the span's bytes the spool does not hold (past
	// its cap, or it could not be written): they are counted, not shown.
	Lost int64
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
// hold up to keep bytes each.
func (p *Proc) Read(since *Cursor, keep int) (*Output, error) {
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
	p.cursor = to
	p.mu.Unlock()

	out := &Output{From: from, To: to, Result: res}
	for i, sp := range []*Span{&out.Stdout, &out.Stderr} {
		s := &st[i]
		*sp = Span{From: from.at(i), To: to.at(i), SpoolID: s.spoolID, SpoolPath: s.spoolPath}
		if err := sp.load(keep); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// readBlock is the size of the reads that count a long span's lines.
const readBlock = 256 << 10

// load reads the span's head and tail from the spool and counts its lines.
func (sp *Span) load(keep int) error {
	n := sp.To - sp.From
	if n == 0 {
		return nil
	}
	if sp.SpoolPath == "" {
		sp.Lost = n
		return nil
	}
	f, err := os.Open(sp.SpoolPath)
	if err != nil {
		return fmt.Errorf("process: reading the output: %w", err)
	}
	defer f.Close()
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
	nl := int64(bytes.Count(sp.Head, newline) + bytes.Count(sp.Tail, newline))
	buf := make([]byte, readBlock)
	for off := sp.From + int64(keep); off < end-int64(keep); {
		b := buf[:min(int64(len(buf)), end-int64(keep)-off)]
		if _, err := f.ReadAt(b, off); err != nil {
			return fmt.Errorf("process: reading the output: %w", err)
		}
		nl += int64(bytes.Count(b, newline))
		off += int64(len(b))
	}
	sp.Lines = nl
	if sp.Tail[len(sp.Tail)-1] != '\n' {
		sp.Lines++
	}
	return nil
}

var newline = []byte{'\n'}

// countLines counts b's lines, a last one without a newline included.
func countLines(b []byte) int64 {
	n := int64(bytes.Count(b, newline))
	if len(b) > 0 && b[len(b)-1] != '\n' {
		n++
	}
	return n
}
