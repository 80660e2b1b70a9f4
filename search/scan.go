package search

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"math/bits"
	"slices"
	"sync"

	"golang.org/x/sync/semaphore"

	"github.com/toold/toold/truncate"
)

const (
	// chunkSize is how much of a file is read at once: a whole small file
	// in one read, a large file or spool in pieces.
	chunkSize = 1 << 20
	// maxLineBuf bounds the buffer a long line grows it to; a line longer
	// than this is searched in pieces (a match across a piece boundary is
	// missed).
	maxLineBuf = 16 << 20
	// sniffLen is how much of a file the binary rule looks at.
	sniffLen = 8192
	// longLineBudget bounds the buffers of long lines held at once in the
	// process, grep's and every search's: a scan that meets a line longer
	// than its buffer, or whose buffer grows past 2*chunkSize, takes
	// maxLineBuf+chunk of it, waiting for it, and gives it back with the
	// buffer when the file is done. 32 greps of a file of one 64 MiB line
	// held 566 MiB.
	longLineBudget = 48 << 20
)

// longLines is the process's budget of long-line buffers; longBufs keeps
// those given back (as many as the budget holds), so that scans one after
// the other reuse them rather than leave 17 MiB of garbage each.
var (
	longLines = semaphore.NewWeighted(longLineBudget)
	longBufs  sync.Pool // *[]byte of cap maxLineBuf+chunkSize
)

// longBuf returns a buffer of n bytes' capacity (maxLineBuf+chunk) holding
// buf[:have]: one given back, when n is the usual size, else a new one.
func longBuf(n int, buf []byte, have int) []byte {
	var nb []byte
	if p, ok := longBufs.Get().(*[]byte); ok && cap(*p) == n {
		nb = (*p)[:have]
	} else {
		nb = make([]byte, have, n)
	}
	copy(nb, buf[:have])
	return nb
}

// scanner searches one file, keeping its matches with their context under
// the limits of a GrepOptions.
type scanner struct {
	m   *Matcher
	opt *GrepOptions
	res FileMatches
	// full is set when the limit or the byte budget is reached: matches are
	// still counted, no longer kept; hit says which.
	full bool
	hit  LimitKind
	// bytes of the kept lines.
	bytes int
	// lastShown is the last line kept (as a match or context), so that no
	// line is shown twice; pendingAfter counts the context lines the last
	// match still wants.
	lastShown, pendingAfter int
	// chunk is how much is read at once: chunkSize, smaller in tests.
	chunk int
	// sample is the start of the file, judged binary or not at the first
	// match (judged); a binary file's scan ends there.
	sample         []byte
	judged, binary bool
	// lazyFd, when set (fd+1), is the file whose first lazySize bytes are
	// the sample, read at the first match (a file searched in parts: most
	// have none); lazyErr says it could not be.
	lazyFd   int
	lazySize int64
	lazyErr  error
	// own holds a copy of the sample when the file is read in chunks.
	own []byte
}

func newScanner(m *Matcher, opt *GrepOptions) *scanner {
	return &scanner{m: m, opt: opt, chunk: chunkSize}
}

// reset readies s for the next file.
func (s *scanner) reset() {
	*s = scanner{m: s.m, opt: s.opt, chunk: s.chunk, own: s.own[:0]}
}

// errBinary is returned for a file that is not text and has a match.
var errBinary = errors.New("binary file")

// scanReaderAt searches the first size bytes of r, reading them in chunks
// into *bufp (grown as needed and kept for the next file), of which
// (*bufp)[:have] are read already.
// ctx is checked between chunks: a large file or spool stops soon after a
// cancel.
func (s *scanner) scanReaderAt(ctx context.Context, r io.ReaderAt, size int64, bufp *[]byte, have int) error {
	buf := *bufp
	var long int64 // taken of longLines, for a buffer past 2*chunkSize
	defer func() {
		if long > 0 {
			given := buf[:0]
			longBufs.Put(&given)
			buf = nil // given back with its share of the budget
			longLines.Release(long)
		}
		*bufp = buf
	}()
	var (
		off   = int64(have) // next byte of r to read
		old   int           // buf[:old] are lines already searched, kept for context
		n     = have        // buf[:n] holds data
		line  = 1           // number of the line that starts at buf[old]
		first = true
		// longLine: a line longer than the buffer was met (which grows
		// it to hold the line)
		longLine bool
	)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		want := min(int64(s.chunk), size-off)
		if need := n + int(want); cap(buf) < need {
			size := max(need, min(2*cap(buf), maxLineBuf+s.chunk))
			if (size > 2*chunkSize || longLine) && long == 0 {
				// A long line: its buffer at once, at its most, when the
				// budget has room.
				long = int64(maxLineBuf + s.chunk)
				if err := longLines.Acquire(ctx, long); err != nil {
					long = 0
					return err
				}
				buf = longBuf(max(need, maxLineBuf+s.chunk), buf, n)
			} else {
				nb := make([]byte, need, size)
				copy(nb, buf[:n])
				buf = nb
			}
		}
		buf = buf[:cap(buf)]
		got, err := r.ReadAt(buf[n:n+int(want)], off)
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		off += int64(got)
		n += got
		eof := got < int(want) || off >= size
		if first {
			if n < sniffLen && !eof {
				continue // judge on the whole sample, however small the chunks
			}
			first = false
			// Judged at the first match: most files have none, and whether
			// those are text does not matter.
			s.own = append(s.own[:0], buf[:min(n, sniffLen)]...)
			s.sample = s.own
		}
		end := n
		if !eof {
			end = old + bytes.LastIndexByte(buf[old:n], '\n') + 1
			if end == old {
				if n < s.maxLine() {
					longLine = true // its buffer comes from the budget at once
					continue        // the line goes on past the buffer: read more of it
				}
				end = n
			}
		}
		line = s.scan(buf[:end], old, line, !eof)
		if s.binary {
			return errBinary
		}
		if eof {
			return nil
		}
		// Keep the last context lines before end, and what follows end.
		keep := end
		for i := 0; i < s.opt.Context && keep > 0; i++ {
			keep = bytes.LastIndexByte(buf[:keep-1], '\n') + 1
		}
		copy(buf, buf[keep:n])
		old, n = end-keep, n-keep
	}
}

// scanBuffer searches buf, a whole file, as scanReaderAt would.
func (s *scanner) scanBuffer(buf []byte) error {
	s.sample = buf[:min(len(buf), sniffLen)] // buf outlives the scan
	s.scan(buf, 0, 1, false)
	if s.binary {
		return errBinary
	}
	return nil
}

// readSample reads the sample from the file lazyFd names.
func (s *scanner) readSample() error {
	s.own = slices.Grow(s.own[:0], sniffLen)[:min(s.lazySize, sniffLen)]
	s.sample = s.own
	_, err := fdReader(s.lazyFd-1).ReadAt(s.sample, 0)
	return err
}

// maxLine is the longest line searched whole: maxLineBuf, or less for a
// test's small chunks.
func (s *scanner) maxLine() int {
	return min(maxLineBuf, 64*s.chunk)
}

// scan searches the lines of buf[from:]; buf[:from] holds lines searched
// before, for context. line is the number of the line at from; scan
// returns the number of the line after buf when more is to come (more),
// counting the lines after the last match, which a whole file need not.
func (s *scanner) scan(buf []byte, from, line int, more bool) int {
	pos := from
	if s.pendingAfter > 0 {
		pos, line = s.after(buf, pos, line)
	}
	for pos < len(buf) {
		start, end, ok := s.m.next(buf, pos)
		if !ok {
			break
		}
		if !s.judged {
			s.judged = true
			if s.lazyFd > 0 {
				if s.lazyErr = s.readSample(); s.lazyErr != nil {
					s.binary = true // ends the scan; the caller skips the file
					return line
				}
			}
			if s.binary = isBinary(s.sample); s.binary {
				return line
			}
		}
		line += bytes.Count(buf[pos:start], nl)
		s.res.Count++
		if !s.full {
			s.keep(buf, start, end, line)
		}
		pos, line = lineAfter(buf, end, line)
		if s.opt.Context > 0 && !s.full {
			s.pendingAfter = s.opt.Context
			pos, line = s.after(buf, pos, line)
		}
	}
	if !more {
		return line
	}
	return line + bytes.Count(buf[pos:], nl)
}

var nl = []byte{'\n'}

// lineAfter returns the start and number of the line after the one, number
// line, that ends at end.
func lineAfter(buf []byte, end, line int) (int, int) {
	if end < len(buf) {
		return end + 1, line + 1
	}
	return end, line
}

// keep records the match buf[start:end], line number line, with the
// context lines before it that are not shown yet, unless the limit or the
// byte budget is reached.
func (s *scanner) keep(buf []byte, start, end, line int) {
	if s.opt.Limit > 0 && len(s.res.Matches) >= s.opt.Limit {
		s.stop(LimitMatches)
		return
	}
	var before []string
	size, clipped := 0, 0
	n := min(s.opt.Context, line-1-s.lastShown)
	if n > 0 {
		// Walk back over up to n lines, then show them in order.
		b := start
		for i := 0; i < n && b > 0; i++ {
			b = bytes.LastIndexByte(buf[:b-1], '\n') + 1
		}
		before = make([]string, 0, n)
		for b < start {
			e := b + bytes.IndexByte(buf[b:start], '\n')
			l, c := show(buf[b:e], s.opt.MaxLineChars, s.opt.Clean)
			before = append(before, l)
			size, clipped = size+len(l)+1, clipped+c
			b = e + 1
		}
	}
	text, c := show(buf[start:end], s.opt.MaxLineChars, s.opt.Clean)
	size, clipped = size+len(text)+1, clipped+c
	if !s.spend(size) {
		return
	}
	s.res.Matches = append(s.res.Matches, Match{Line: line, Text: text, Before: before, size: size, clipped: clipped})
	s.lastShown = line
}

// after adds to the last match the context lines that follow it, from pos
// (the start of line number line), up to the next matching line.
func (s *scanner) after(buf []byte, pos, line int) (int, int) {
	for s.pendingAfter > 0 && pos < len(buf) {
		end := len(buf)
		if j := bytes.IndexByte(buf[pos:], '\n'); j >= 0 {
			end = pos + j
		}
		if s.m.matchLine(buf[pos:end]) {
			s.pendingAfter = 0
			break
		}
		text, c := show(buf[pos:end], s.opt.MaxLineChars, s.opt.Clean)
		if !s.spend(len(text) + 1) {
			break
		}
		last := &s.res.Matches[len(s.res.Matches)-1]
		last.After = append(last.After, text)
		last.size += len(text) + 1
		last.clipped += c
		s.lastShown = line
		s.pendingAfter--
		pos, line = lineAfter(buf, end, line)
	}
	return pos, line
}

// spend takes size bytes from the budget, or stops the scan when they do
// not fit.
func (s *scanner) spend(size int) bool {
	if s.opt.MaxBytes > 0 && s.bytes+size > s.opt.MaxBytes {
		s.stop(LimitBytes)
		return false
	}
	s.bytes += size
	return true
}

func (s *scanner) stop(k LimitKind) {
	s.full, s.hit, s.pendingAfter = true, k, 0
}

// show renders one line for a model: without its line ending, cleaned of
// terminal escapes and redraws when clean is set (an exec spool), clipped at
// maxChars characters on a character boundary, invalid UTF-8 replaced; it
// returns 1 when it clipped the line.
func show(line []byte, maxChars int, clean bool) (string, int) {
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	text, clipped := truncate.ShowLine(line, clean, maxChars)
	if clipped {
		return text, 1
	}
	return text, 0
}

// IsBinary reports whether grep judges a file binary whose first bytes
// are sample (at most 8 KiB of it are looked at): an index that knows a
// file is text, and that it has not changed since, spares a grep the
// judgement (GrepOptions.Text).
func IsBinary(sample []byte) bool { return isBinary(sample) }

// isBinary is truncate.IsBinary(sample), eight bytes at a time: a NUL, or
// more than one byte in 16 that text never holds (a control character
// other than \a to \r and ESC, or DEL). Source code has a tab or a newline
// in nearly every eight bytes, so a byte-by-byte loop runs for most.
func isBinary(sample []byte) bool {
	sample = sample[:min(len(sample), sniffLen)]
	if bytes.IndexByte(sample, 0) >= 0 {
		return true
	}
	bad, i := 0, 0
	for ; i+8 <= len(sample); i += 8 {
		bad += bits.OnesCount64(notTextBytes(binary.LittleEndian.Uint64(sample[i:])))
	}
	for _, c := range sample[i:] {
		bad += int(notTextBytes(uint64(c)) & 0x80 >> 7) // the first byte's bit
	}
	return bad*16 > len(sample)
}

// notTextBytes sets the high bit of each byte of w that is not text, and
// no other bit. Each step works on the low seven bits of each byte, whose
// sums stay below 0x100: no carry reaches the next byte.
func notTextBytes(w uint64) uint64 {
	const ones, highs, lows = 0x0101010101010101, 0x8080808080808080, 0x7f7f7f7f7f7f7f7f
	low := w & lows
	control := ^((low + 0x60*ones) | w) & highs // below 0x20
	// \a to \r, 7 to 13: at least 7 and not at least 14.
	format := (low + (0x80-7)*ones) &^ (low + (0x80-14)*ones)
	return control&^(format|zeroBytes(w^0x1b*ones)) | zeroBytes(w^0x7f*ones)
}

// zeroBytes sets the high bit of each zero byte of x.
func zeroBytes(x uint64) uint64 {
	const highs, lows = 0x8080808080808080, 0x7f7f7f7f7f7f7f7f
	return ^(((x & lows) + lows) | x) & highs
}
