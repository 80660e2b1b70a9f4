package search

import (
	"bytes"
	"io"

	"golang.org/x/sys/unix"
)

// Parts are the pieces of a listed file that may hold a match (an index's
// answer for a large file): the rest of it holds none while the file has
// the size and mtime given. A file that has changed since is searched
// whole, as is one with a piece over maxPart.
type Parts struct {
	Size, Mtime int64 // mtime in ns
	// Ranges ascend, do not overlap, and start and end at line starts
	// (or the file's end).
	Ranges []Range
}

// FileParts are the Parts of the file File of a Listing (its index).
type FileParts struct {
	File  int32
	Parts Parts
}

// Range is a piece of a file: bytes Off to End, whose first line is
// number Line.
type Range struct {
	Off, End int64
	Line     int
}

// maxPart bounds a piece searched on its own: past it the file is
// searched whole (a longer line is searched in pieces there, and the
// replies must agree).
const maxPart = 4 << 20

// usable reports whether p describes the file as st has it now.
func (p *Parts) usable(st *unix.Stat_t) bool {
	if st.Mode&unix.S_IFMT != unix.S_IFREG || st.Size != p.Size || st.Mtim.Nano() != p.Mtime {
		return false
	}
	for _, r := range p.Ranges {
		if r.Off < 0 || r.End > p.Size || r.End-r.Off > maxPart || r.Off > r.End {
			return false
		}
	}
	return true
}

// scanParts searches the pieces of the file fd (size bytes) as a search
// of all of it would: the same sample judged binary, the same line
// numbers, the context lines before a piece read from before it and
// those after a match read past its end, no line searched twice.
func (w *worker) scanParts(fd int, size int64, p *Parts) outcome {
	s := w.s
	if opt := s.opt; opt.MaxFileSize > 0 && size > opt.MaxFileSize {
		return outcome{skip: skipTooLarge}
	}
	s.reset()
	s.judged = w.text
	s.lazyFd, s.lazySize = fd+1, size // read at the first match: most files have none
	for i, r := range p.Ranges {
		start, err := w.contextStart(fd, r.Off, s.opt.Context)
		if err != nil {
			return outcome{skip: skipOther}
		}
		buf, err := w.read(fd, start, r.End)
		if err != nil {
			return outcome{skip: skipOther}
		}
		line := s.scan(buf, int(r.Off-start), r.Line, true)
		switch {
		case s.lazyErr != nil:
			return outcome{skip: skipOther}
		case s.binary:
			return outcome{skip: skipBinary}
		}
		next := size
		if i+1 < len(p.Ranges) {
			next = p.Ranges[i+1].Off
		}
		if err := w.after(fd, r.End, next, line); err != nil {
			return outcome{skip: skipOther}
		}
	}
	if cap(w.buf) > 2*chunkSize {
		w.buf = nil
	}
	return outcome{res: s.res, hit: s.hit}
}

// after goes on from off, past a piece, while the last match wants
// context lines after it, up to next (the next piece, or the file's end:
// nothing between matches).
func (w *worker) after(fd int, off, next int64, line int) error {
	s := w.s
	for want := int64(16 << 10); s.pendingAfter > 0 && off < next; {
		end := min(next, off+want)
		buf, err := w.read(fd, off, end)
		if err != nil {
			return err
		}
		if end < next {
			cut := bytes.LastIndexByte(buf, '\n') + 1
			if cut == 0 {
				want *= 2 // a long line: read more of it
				continue
			}
			buf = buf[:cut]
		}
		line = s.scan(buf, 0, line, true)
		off += int64(len(buf))
	}
	return nil
}

// contextStart returns where the context lines before off (a line start)
// start: the start of the k-th line before it, or the file's start.
func (w *worker) contextStart(fd int, off int64, k int) (int64, error) {
	if k == 0 || off == 0 {
		return off, nil
	}
	for back := int64(4 << 10); ; back *= 4 {
		lo := max(0, off-back)
		buf, err := w.read(fd, lo, off)
		if err != nil {
			return 0, err
		}
		j := len(buf) // buf[j-1] ends the line before
		for n := 0; n < k && j > 0; n++ {
			p := bytes.LastIndexByte(buf[:j-1], '\n')
			if p < 0 {
				if lo == 0 {
					return 0, nil
				}
				j = -1
				break
			}
			j = p + 1
		}
		if j >= 0 {
			return lo + int64(j), nil
		}
	}
}

// read reads bytes off to end of the file fd into w.buf.
func (w *worker) read(fd int, off, end int64) ([]byte, error) {
	n := int(end - off)
	w.needBuf(n)
	buf := w.buf[:n]
	got, err := fdReader(fd).ReadAt(buf, off)
	if err != nil && !(err == io.EOF && got == n) {
		return nil, err
	}
	return buf, nil
}
